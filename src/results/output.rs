//! Result files that are never left half-written, and, for an experiment's results, that
//! last once written.
//!
//! A file is written under a temporary name in its own directory (`NAME.partial`),
//! flushed and renamed into place. Whatever fails on the way (a full disk on a write, the
//! flush, the rename), the temporary file is removed: no `.partial` file outlives a
//! process that ends normally. Only a process killed mid-write leaves one; readers look
//! for final names only, and `sitesim experiment` removes the ones of its runs when it
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
//! A path that exists as something other than a regular file (`/dev/stdout`, `/dev/full`,
//! a FIFO, a symbolic link) is written in place, since it can be neither replaced nor
//! written atomically; its errors are reported all the same.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The temporary name `path` is written under until it is complete: `NAME.partial` in the
/// same directory.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
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
    /// Starts writing `path`, returning the handle and a buffered writer. The writer
    /// must be flushed (and its errors handled) before [`AtomicFile::commit`]: dropping a
    /// `BufWriter` flushes it but loses any error.
    pub fn create(
        path: &Path,
        durability: Durability,
    ) -> io::Result<(AtomicFile, BufWriter<File>)> {
        let in_place = fs::symlink_metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
        let partial = (!in_place).then(|| partial_path(path));
        let file = File::create(partial.as_deref().unwrap_or(path))?;
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

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.name(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
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

/// Writes `bytes` to `path` atomically ([`Durability::Renamed`]); the error does not
/// name the file (the caller does, with its context).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    write_file(path, bytes, Durability::Renamed)
}

/// Writes `bytes` to `path` atomically and durably ([`Durability::Synced`]): an
/// experiment's results.
pub fn write_durable(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    write_file(path, bytes, Durability::Synced)
}

fn write_file(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<PathBuf> {
    let (file, mut w) = AtomicFile::create(path, durability)?;
    w.write_all(bytes)?;
    w.flush()?;
    drop(w);
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_device_is_written_in_place_and_its_errors_reported() {
        // /dev/null takes anything and stays a device; /dev/full fails every write with
        // ENOSPC, as a full disk does.
        write_atomic(Path::new("/dev/null"), b"x").unwrap();
        let meta = fs::symlink_metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "the device was not replaced");
        assert!(!Path::new("/dev/null.partial").exists());
        let full = Path::new("/dev/full");
        if full.exists() {
            let err = write_atomic(full, b"x").unwrap_err();
            assert_eq!(err.raw_os_error(), Some(28), "{err}"); // ENOSPC
            assert!(!fs::symlink_metadata(full).unwrap().is_file());
            let (file, w) = AtomicFile::create(full, Durability::Synced).unwrap();
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
