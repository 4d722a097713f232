//! Result files that are never left half-written: each is written under a temporary name
//! in the same directory and renamed into place once complete.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written; it appears under its final name only on [`AtomicFile::commit`].
pub struct AtomicFile {
    path: PathBuf,
    partial: PathBuf,
}

impl AtomicFile {
    /// Starts writing `path`, returning the handle and a buffered writer.
    pub fn create(path: &Path) -> io::Result<(AtomicFile, BufWriter<File>)> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".partial");
        let partial = path.with_file_name(name);
        let file = File::create(&partial)?;
        Ok((
            AtomicFile {
                path: path.to_owned(),
                partial,
            },
            BufWriter::with_capacity(1 << 16, file),
        ))
    }

    /// Moves the finished file into place. The writer must have been flushed.
    pub fn commit(self) -> io::Result<PathBuf> {
        fs::rename(&self.partial, &self.path)?;
        Ok(self.path)
    }
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let (file, mut w) = AtomicFile::create(path)?;
    w.write_all(bytes)?;
    w.flush()?;
    drop(w);
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_appears_only_when_committed() {
        let dir = std::env::temp_dir().join(format!("sitesim-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        let (file, mut w) = AtomicFile::create(&path).unwrap();
        w.write_all(b"hello").unwrap();
        w.flush().unwrap();
        assert!(!path.exists());
        drop(w);
        file.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"hello");
        fs::remove_dir_all(&dir).unwrap();
    }
}
