//! Reading back what runs wrote (`report`, `merge`, a resumed experiment): a results
//! folder may hold anything, so only regular files are opened (a FIFO planted as a run
//! file would block for good), each within a byte bound, and a table within a bound on
//! its columns; every refusal names the file and the bound (docs/RELIABILITY.md,
//! "Bounds on input").

use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The most bytes of a JSON file of a results folder (`summary.json`, a run's file,
/// `experiment.json`, `capacity.json`): the largest a run writes is a summary of 100,000
/// replications, about 40 MB.
pub const MAX_JSON: u64 = 256 << 20;

/// The most bytes of a table (`jobs.csv` of 10 million jobs, about 2 GB;
/// `replications.csv`; `weekly.csv`, read in one pass).
pub const MAX_TABLE: u64 = 8 << 30;

/// The most columns of a table: sitesim's widest has about 30.
pub const MAX_COLUMNS: usize = 1_000;

/// Why `path` cannot be read back, if it cannot: it is not a regular file, or it is
/// larger than `max` bytes. Its length otherwise.
pub fn regular(path: &Path, max: u64) -> Result<u64, String> {
    let meta = fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "{}: not a regular file (a FIFO, a device or a folder): a results folder holds \
             only the files runs wrote",
            path.display()
        ));
    }
    if meta.len() > max {
        return Err(format!(
            "{}: {} bytes, more than the {max} sitesim reads back from a results folder",
            path.display(),
            meta.len()
        ));
    }
    Ok(meta.len())
}

/// `path`, a regular file of at most `max` bytes ([`regular`]), opened without blocking
/// (should a FIFO replace it meanwhile); and its length.
fn open(path: &Path, max: u64) -> Result<(File, u64), String> {
    let len = regular(path, max)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((file, len))
}

/// The bytes of `path`, a regular file of at most `max` bytes (a file that grows while
/// it is read is cut at the bound and refused).
pub fn read(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let (file, len) = open(path, max)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > max {
        return Err(format!(
            "{}: more than the {max} bytes sitesim reads back from a results folder",
            path.display()
        ));
    }
    Ok(bytes)
}

/// A CSV reader of the table `path`: a regular file within [`MAX_TABLE`] bytes whose
/// header has at most [`MAX_COLUMNS`] columns (a record past the header's width is an
/// error of the csv reader, naming its row).
pub fn table(path: &Path) -> Result<csv::Reader<File>, String> {
    let (file, _) = open(path, MAX_TABLE)?;
    let mut reader = csv::Reader::from_reader(file);
    let columns = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    if columns > MAX_COLUMNS {
        return Err(format!(
            "{}: {columns} columns, more than the {MAX_COLUMNS} of any table sitesim writes",
            path.display()
        ));
    }
    Ok(reader)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_their_bound_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("summary.json");
        std::fs::write(&file, b"{}").unwrap();
        assert_eq!(read(&file, 10).unwrap(), b"{}");
        let e = read(&file, 1).unwrap_err();
        assert!(e.contains("2 bytes, more than the 1"), "{e}");
        let e = read(dir.path(), 10).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Refused without being opened: opening it would wait for a writer.
            let e = read(&fifo, 10).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
        let wide = dir.path().join("wide.csv");
        let header: Vec<String> = (0..=MAX_COLUMNS).map(|i| format!("c{i}")).collect();
        std::fs::write(&wide, header.join(",") + "\n").unwrap();
        let e = table(&wide).err().unwrap();
        assert!(e.contains("1001 columns"), "{e}");
    }
}
