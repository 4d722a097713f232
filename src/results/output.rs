//! Result files that are never left half-written, never written through a link planted
//! at their name, and, for an experiment's results, that last once written.
//!
//! A file is written under a temporary name in its own directory (`NAME.PID.partial`,
//! PID the writer's process id, so that two processes writing one name never share a
//! temporary file), created new (`O_EXCL`: whatever is already at that name, a link
//! included, is never opened), flushed and renamed over `NAME`. The rename replaces what
//! was at `NAME`: a symbolic link planted there is replaced, never followed, and the file
//! it points to is left as it was. Whatever fails on the way (a full disk on a write, the
//! flush, the rename), the temporary file is removed: no `.partial` file outlives a
//! process that ends normally. Only a process killed mid-write leaves one; readers look
//! for final names only, and a resumed experiment removes the ones of its runs when it
//! resumes. A final name therefore only ever holds a complete file.
//!
//! [`Durability::Synced`] files (an experiment's runs, plan and summary, which a resumed
//! or merged experiment trusts) are also synced to the disk (`fsync`) before the rename,
//! and their directory after it, so that they last through a power loss too (without the
//! sync, a file system may persist the rename before the data and show an empty file).
//! The outputs of a single command (a replay's `jobs.csv`, a report's plots, a generated
//! log) are [`Durability::Renamed`] only: a sync costs 10-45 ms a file on an ordinary
//! disk, more than the whole run, and such a file is made again by running the command.
//!
//! Files sitesim names in a results folder ([`AtomicFile::create`], [`write_atomic`],
//! [`write_durable`]) are always replaced, whatever is at their name. A file the user
//! names on the command line (`generate --out FILE`, `fit --out`, `export --output`,
//! `analyze --fit-continuation`; [`AtomicFile::create_named`], [`write_named`]) is
//! written in place when it is a device, a FIFO or a socket, or a link to one
//! (`/dev/stdout`, `/dev/full`): such a file can be neither replaced nor written
//! atomically, and its errors are reported all the same. Any other link there is
//! replaced as in a results folder.
//!
//! Folders sitesim names inside a results folder (`runs/p000`, `report`) are made by
//! [`create_inside`], which replaces a link planted in their place by a folder. The
//! results folder itself (`--out DIR`) is the user's choice: when it is a link to a
//! folder, that folder is written.

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

/// The temporary name `path` is written under by this process until it is complete:
/// `NAME.PID.partial` in the same directory.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.partial", std::process::id()));
    path.with_file_name(name)
}

/// Whether `name` is the name of a temporary file of the file named `of`: `OF.PID.partial`
/// as [`partial_path`] names them, or `OF.partial` as sitesim named them before.
pub fn is_partial_of(name: &OsStr, of: &OsStr) -> bool {
    let (Some(name), Some(of)) = (name.to_str(), of.to_str()) else {
        return false;
    };
    name.strip_prefix(of)
        .and_then(|rest| rest.strip_suffix(".partial"))
        .is_some_and(|pid| {
            pid.is_empty()
                || pid
                    .strip_prefix('.')
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Whether a committed file is also synced to the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Renamed into place when complete: never half-written, but a power loss may lose it.
    Renamed,
    /// Synced to the disk before the rename, and its directory after: it lasts.
    Synced,
}

/// A file being written; it appears under its final name only on [`AtomicFile::commit`],
/// and its temporary file is removed if it is dropped uncommitted (an error on the way).
pub struct AtomicFile {
    path: PathBuf,
    /// The temporary file, `None` once renamed or when `path` is written in place.
    partial: Option<PathBuf>,
    /// A handle on the file being written, to sync it (the writer has its own).
    file: File,
    durability: Durability,
}

impl AtomicFile {
    /// Starts writing `path`, a file sitesim names (in a results folder): whatever is
    /// at `path` when it is committed (a file, a link, a device) is replaced by it.
    /// Returns the handle and a buffered writer. The writer must be flushed (and its
    /// errors handled) before [`AtomicFile::commit`]: dropping a `BufWriter` flushes it
    /// but loses any error.
    pub fn create(
        path: &Path,
        durability: Durability,
    ) -> io::Result<(AtomicFile, BufWriter<File>)> {
        let partial = partial_path(path);
        let file = create_new(&partial)?;
        AtomicFile::writing(path, Some(partial), file, durability)
    }

    /// Starts writing `path`, a file the user named: a device, a FIFO or a socket, or a
    /// link to one (`/dev/stdout`), is written in place; anything else as
    /// [`AtomicFile::create`] writes it ([`Durability::Renamed`]).
    pub fn create_named(path: &Path) -> io::Result<(AtomicFile, Stoppable<BufWriter<File>>)> {
        if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            // Neither created nor truncated: what is opened must be what was looked at.
            let file = OpenOptions::new().write(true).open(path)?;
            if file.metadata()?.is_file() {
                return Err(io::Error::other(
                    "replaced by a regular file while being opened; not written",
                ));
            }
            let (f, w) = AtomicFile::writing(path, None, file, Durability::Renamed)?;
            return Ok((f, Stoppable(w)));
        }
        let (f, w) = AtomicFile::create(path, Durability::Renamed)?;
        Ok((f, Stoppable(w)))
    }

    fn writing(
        path: &Path,
        partial: Option<PathBuf>,
        file: File,
        durability: Durability,
    ) -> io::Result<(AtomicFile, BufWriter<File>)> {
        let handle = AtomicFile {
            path: path.to_owned(),
            partial,
            file: file.try_clone()?,
            durability,
        };
        Ok((handle, BufWriter::with_capacity(1 << 16, file)))
    }

    /// Moves the flushed file into place, synced before and after as its
    /// [`Durability`] asks; on an error the temporary file is removed.
    pub fn commit(mut self) -> io::Result<PathBuf> {
        let synced = self.durability == Durability::Synced;
        if synced && self.file.metadata()?.is_file() {
            self.file.sync_all()?;
        }
        if let Some(partial) = &self.partial {
            fs::rename(partial, &self.path)?;
            self.partial = None;
            if synced {
                sync_dir(&self.path)?;
            }
        }
        Ok(std::mem::take(&mut self.path))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(partial) = &self.partial {
            // The error being reported is the one that stopped the write.
            let _ = fs::remove_file(partial);
        }
    }
}

/// Creates the temporary file `partial`, which must not exist (`O_EXCL`: a link at its
/// name is not followed). One left there (by a killed process whose id this one has
/// now, or planted) is removed first: a link is removed, not what it points to.
fn create_new(partial: &Path) -> io::Result<File> {
    let open = || {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(partial)
    };
    match open() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            fs::remove_file(partial)?;
            open()
        }
        opened => opened,
    }
}

/// Makes the folder `sub` (relative, without `..`) inside the results folder `root`,
/// and every folder between them, each a folder of its own: a symbolic link in the
/// place of one (planted to send sitesim's files elsewhere) is replaced by a folder,
/// never followed; any other file there is an error. `root` itself is made if missing
/// and may be a link to a folder (the user named it). Returns `root/sub`; an error
/// names the folder that failed.
pub fn create_inside(root: &Path, sub: &Path) -> Result<PathBuf, String> {
    let named = |p: &Path, e: io::Error| format!("{}: {e}", p.display());
    fs::create_dir_all(root).map_err(|e| named(root, e))?;
    let mut at = root.to_path_buf();
    for part in sub.components() {
        let Component::Normal(part) = part else {
            return Err(format!(
                "{}: not a folder inside {}",
                root.join(sub).display(),
                root.display()
            ));
        };
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => continue,
            Ok(m) if m.file_type().is_symlink() => {
                fs::remove_file(&at).map_err(|e| named(&at, e))?;
            }
            Ok(_) => {
                return Err(format!(
                    "{}: a file, where a folder is written",
                    at.display()
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(named(&at, e)),
        }
        match fs::create_dir(&at) {
            Ok(()) => {}
            // Made meanwhile by another thread of this process.
            Err(e)
                if e.kind() == io::ErrorKind::AlreadyExists
                    && fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir()) => {}
            Err(e) => return Err(named(&at, e)),
        }
    }
    Ok(at)
}

/// Makes `folder` as [`create_inside`] does, its parent being the results folder.
pub fn create_subfolder(folder: &Path) -> Result<PathBuf, String> {
    let root = folder.parent().unwrap_or(Path::new(""));
    let name = folder.file_name().map_or(Path::new(""), Path::new);
    create_inside(root, name)
}

/// A writer whose errors name its file, for writers whose errors reach the user
/// through code that does not know which file failed (the per-job outputs of a run).
pub struct Named<W> {
    inner: W,
    path: PathBuf,
}

impl<W> Named<W> {
    /// `inner`, writing `path`.
    pub fn new(inner: W, path: &Path) -> Self {
        Named {
            inner,
            path: path.to_owned(),
        }
    }

    fn name(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.path.display()))
    }
}

/// The error of a write made after Ctrl-C ([`crate::engine::abandoned`]): the file being
/// written is then removed, as on any error.
fn stopped() -> io::Error {
    io::Error::other("stopped by Ctrl-C")
}

/// A writer that stops at Ctrl-C ([`stopped`]): a file the user named, being written.
pub struct Stoppable<W>(W);

impl<W: Write> Write for Stoppable<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if crate::engine::abandoned() {
            return Err(stopped());
        }
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if crate::engine::abandoned() {
            return Err(self.name(stopped()));
        }
        self.inner.write(buf).map_err(|e| self.name(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if crate::engine::abandoned() {
            return Err(self.name(stopped()));
        }
        self.inner.write_all(buf).map_err(|e| self.name(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| self.name(e))
    }
}

/// Syncs the directory holding `path`, so that a file renamed into it lasts.
fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

/// Writes `bytes` to `path`, a file sitesim names, atomically
/// ([`Durability::Renamed`]); the error does not name the file (the caller does, with
/// its context).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let (file, w) = AtomicFile::create(path, Durability::Renamed)?;
    write_file(file, w, bytes)
}

/// Writes `bytes` to `path`, a file sitesim names, atomically and durably
/// ([`Durability::Synced`]): an experiment's results.
pub fn write_durable(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let (file, w) = AtomicFile::create(path, Durability::Synced)?;
    write_file(file, w, bytes)
}

/// Writes `bytes` to `path`, a file the user named ([`AtomicFile::create_named`]).
pub fn write_named(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let (file, w) = AtomicFile::create_named(path)?;
    write_file(file, w, bytes)
}

fn write_file(file: AtomicFile, mut w: impl Write, bytes: &[u8]) -> io::Result<PathBuf> {
    w.write_all(bytes)?;
    w.flush()?;
    drop(w);
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sitesim-atomic-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn file_appears_only_when_committed() {
        let dir = dir("commit");
        let path = dir.join("out.txt");
        let (file, mut w) = AtomicFile::create(&path, Durability::Synced).unwrap();
        w.write_all(b"hello").unwrap();
        w.flush().unwrap();
        assert!(!path.exists());
        assert!(partial_path(&path).exists());
        drop(w);
        assert_eq!(file.commit().unwrap(), path);
        assert_eq!(fs::read(&path).unwrap(), b"hello");
        assert!(!partial_path(&path).exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_abandoned_file_leaves_nothing_behind() {
        let dir = dir("abandon");
        let path = dir.join("out.txt");
        fs::write(&path, b"earlier").unwrap();
        let (file, mut w) = AtomicFile::create(&path, Durability::Synced).unwrap();
        w.write_all(b"half of it").unwrap();
        w.flush().unwrap();
        assert!(partial_path(&path).exists());
        // As on any error on the way: the handle is dropped uncommitted.
        drop(file);
        drop(w);
        assert!(!partial_path(&path).exists());
        assert_eq!(
            fs::read(&path).unwrap(),
            b"earlier",
            "the old file is intact"
        );
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_rename_leaves_nothing_behind() {
        let dir = dir("rename");
        // A directory cannot be replaced by a file.
        let path = dir.join("taken");
        fs::create_dir(&path).unwrap();
        let err = write_atomic(&path, b"x").unwrap_err();
        assert!(!partial_path(&path).exists(), "{err}");
        assert!(path.is_dir());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Links planted at a file's final name and at its temporary name are replaced or
    /// removed, never followed: the file they point to keeps its bytes.
    #[test]
    fn links_at_the_final_or_the_temporary_name_are_never_followed() {
        let dir = dir("links");
        let victim = dir.join("victim.txt");
        fs::write(&victim, b"precious").unwrap();
        let inside = dir.join("results");
        fs::create_dir(&inside).unwrap();
        for (name, write) in [
            (
                "atomic.json",
                write_atomic as fn(&Path, &[u8]) -> io::Result<PathBuf>,
            ),
            ("durable.json", write_durable),
            ("named.toml", write_named),
        ] {
            let path = inside.join(name);
            symlink(&victim, &path).unwrap();
            symlink(&victim, partial_path(&path)).unwrap();
            write(&path, b"new").unwrap();
            let meta = fs::symlink_metadata(&path).unwrap();
            assert!(meta.is_file(), "{name} is a file of its own now");
            assert_eq!(fs::read(&path).unwrap(), b"new");
            assert!(!partial_path(&path).exists());
            assert_eq!(fs::read(&victim).unwrap(), b"precious", "{name}");
        }
        // A dangling link too: nothing is created where it points.
        let nowhere = dir.join("nowhere.txt");
        let path = inside.join("dangling.csv");
        symlink(&nowhere, &path).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert!(!nowhere.exists());
        assert!(fs::symlink_metadata(&path).unwrap().is_file());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_planted_as_a_link_is_replaced_by_a_folder() {
        let dir = dir("folders");
        let elsewhere = dir.join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let root = dir.join("results");
        fs::create_dir(&root).unwrap();
        symlink(&elsewhere, root.join("runs")).unwrap();
        let made = create_inside(&root, Path::new("runs/p000")).unwrap();
        assert_eq!(made, root.join("runs/p000"));
        assert!(fs::symlink_metadata(root.join("runs")).unwrap().is_dir());
        assert!(made.is_dir());
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
        // Made again, it is kept; a file in a folder's place is an error naming it.
        create_inside(&root, Path::new("runs/p000")).unwrap();
        fs::write(root.join("report"), b"x").unwrap();
        let e = create_subfolder(&root.join("report")).unwrap_err();
        assert!(
            e.contains("report: a file, where a folder is written"),
            "{e}"
        );
        let e = create_inside(&root, Path::new("../out")).unwrap_err();
        assert!(e.contains("not a folder inside"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_are_told_apart() {
        let of = OsStr::new("r0001.json");
        for (name, is) in [
            ("r0001.json.partial", true),
            ("r0001.json.4242.partial", true),
            ("r0001.json.4x2.partial", false),
            ("r0001.json..partial", false),
            ("r0001.json", false),
            ("r0010.json.1.partial", false),
        ] {
            assert_eq!(is_partial_of(OsStr::new(name), of), is, "{name}");
        }
        let path = Path::new("d/r0001.json");
        assert!(is_partial_of(
            partial_path(path).file_name().unwrap(),
            path.file_name().unwrap()
        ));
    }

    #[test]
    fn a_device_is_written_in_place_and_its_errors_reported() {
        // /dev/null takes anything and stays a device; /dev/full fails every write with
        // ENOSPC, as a full disk does.
        write_named(Path::new("/dev/null"), b"x").unwrap();
        let meta = fs::symlink_metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "the device was not replaced");
        assert!(!partial_path(Path::new("/dev/null")).exists());
        // A link to a device, as /dev/stdout is, is written through.
        let dir = dir("device");
        let link = dir.join("null");
        symlink("/dev/null", &link).unwrap();
        write_named(&link, b"x").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        fs::remove_dir_all(&dir).unwrap();
        let full = Path::new("/dev/full");
        if full.exists() {
            let err = write_named(full, b"x").unwrap_err();
            assert_eq!(err.raw_os_error(), Some(28), "{err}"); // ENOSPC
            assert!(!fs::symlink_metadata(full).unwrap().is_file());
            let (file, w) = AtomicFile::create_named(full).unwrap();
            let mut w = Named::new(w, full);
            w.write_all(b"x").unwrap(); // buffered
            let err = w.flush().unwrap_err();
            assert_eq!(
                err.to_string(),
                "/dev/full: No space left on device (os error 28)"
            );
            drop(file);
        }
    }
}
