//! A results folder is written by one process at a time.
//!
//! Every command that writes a results folder (`replay`, `feedback`, `resample`,
//! `calibrate` and `run` with `--out`, an experiment or a sweep, `merge --out`, `report`)
//! holds an exclusive lock on the file `DIR/.sitesim.lock` while it runs
//! ([`lock_folder`]). A second process that asks for it is refused at once, before it
//! writes anything: `DIR is in use by process N` (the lock file holds the holder's
//! process id, as text). The lock is the operating system's (`flock`, through
//! [`File::try_lock`]): it goes with the process, so a killed process leaves no stale
//! lock. The file itself stays, emptied when its holder lets it go.
//!
//! Within one process the lock is shared: a command that takes it and calls code that
//! takes it again (an experiment writing its summary, `run --report`) holds it once.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// The lock file's name in a results folder.
pub const LOCK_FILE: &str = ".sitesim.lock";

/// The folders this process holds, by their canonical path.
static HELD: Mutex<Vec<(PathBuf, Weak<Held>)>> = Mutex::new(Vec::new());

/// A results folder held by this process, until the last [`FolderLock`] on it is
/// dropped.
struct Held {
    file: File,
}

impl Drop for Held {
    fn drop(&mut self) {
        // Under the registry's lock, so that this process asking for the folder again
        // meanwhile waits for the lock to be let go instead of finding it taken.
        let _held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// A results folder held by this process: no other process writes it while this
/// lives.
#[must_use = "the folder is held only while the lock lives"]
pub struct FolderLock {
    _held: Arc<Held>,
}

/// Makes the results folder `dir` (a link to a folder is the user's choice and is
/// followed) and holds it for this process. Fails at once if another process holds it,
/// with `DIR is in use by process N`, or if its lock file cannot be made, naming it.
pub fn lock_folder(dir: &Path) -> Result<FolderLock, String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let key = fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    held.retain(|(_, h)| h.strong_count() > 0);
    if let Some(h) = held
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, h)| h.upgrade())
    {
        return Ok(FolderLock { _held: h });
    }
    let path = dir.join(LOCK_FILE);
    let named = |e: io::Error| format!("{}: {e}", path.display());
    let file = open_lock_file(&path).map_err(named)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(match holder(&file) {
                Some(pid) => format!(
                    "{} is in use by process {pid}: another sitesim is writing it; wait for \
                     it to end or give another folder",
                    dir.display()
                ),
                None => format!(
                    "{} is in use by another process: another sitesim is writing it; wait \
                     for it to end or give another folder",
                    dir.display()
                ),
            });
        }
        Err(TryLockError::Error(e)) => return Err(named(e)),
    }
    file.set_len(0).map_err(named)?;
    file.write_all_at(std::process::id().to_string().as_bytes(), 0)
        .map_err(named)?;
    let h = Arc::new(Held { file });
    held.push((key, Arc::downgrade(&h)));
    Ok(FolderLock { _held: h })
}

/// Opens (or creates) the lock file at `path`, never through a link: a link planted at
/// its name is removed and the file made anew. Anything but a regular file of one name
/// (a FIFO, a hard link to another file) is refused: its content would be rewritten.
fn open_lock_file(path: &Path) -> io::Result<File> {
    let open = || {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
    };
    let file = match open() {
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            fs::remove_file(path)?;
            open()?
        }
        opened => opened?,
    };
    let meta = file.metadata()?;
    if !meta.is_file() || meta.nlink() != 1 {
        return Err(io::Error::other(
            "not a lock file sitesim made (not a regular file, or one with other names); \
             remove it",
        ));
    }
    Ok(file)
}

/// The process id the holder wrote in the lock file, if it is there yet.
fn holder(file: &File) -> Option<u32> {
    let mut buf = [0; 20];
    let n = file.read_at(&mut buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sitesim-lock-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_folder_is_held_once_per_process_and_let_go() {
        let d = dir("held");
        let first = lock_folder(&d).unwrap();
        let again = lock_folder(&d).unwrap();
        let pid = std::process::id().to_string();
        assert_eq!(fs::read_to_string(d.join(LOCK_FILE)).unwrap(), pid);
        // Another open file of the lock, as another process has, finds it taken.
        let other = File::open(d.join(LOCK_FILE)).unwrap();
        assert!(matches!(other.try_lock(), Err(TryLockError::WouldBlock)));
        drop(first);
        assert!(matches!(other.try_lock(), Err(TryLockError::WouldBlock)));
        drop(again);
        other.try_lock().unwrap();
        assert_eq!(fs::read_to_string(d.join(LOCK_FILE)).unwrap(), "");
        // Held elsewhere, the folder is refused, naming the holder.
        fs::write(d.join(LOCK_FILE), "4242").unwrap();
        let e = lock_folder(&d).err().unwrap();
        assert!(e.contains("is in use by process 4242"), "{e}");
        drop(other);
        drop(lock_folder(&d).unwrap());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_planted_lock_file_is_never_written_through() {
        let d = dir("planted");
        fs::create_dir_all(&d).unwrap();
        let victim = d.with_extension("victim");
        fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, d.join(LOCK_FILE)).unwrap();
        drop(lock_folder(&d).unwrap());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(fs::symlink_metadata(d.join(LOCK_FILE)).unwrap().is_file());
        // A hard link to another file is refused, naming the lock file.
        fs::remove_file(d.join(LOCK_FILE)).unwrap();
        fs::hard_link(&victim, d.join(LOCK_FILE)).unwrap();
        let e = lock_folder(&d).err().unwrap();
        assert!(
            e.contains(LOCK_FILE) && e.contains("not a lock file"),
            "{e}"
        );
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        fs::remove_dir_all(&d).unwrap();
        fs::remove_file(&victim).unwrap();
    }
}
