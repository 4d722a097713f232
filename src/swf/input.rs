//! A log file's bytes, decompressed when the file is gzip: the Parallel Workloads Archive
//! distributes its logs as `.swf.gz`. The format is told by the file's first bytes (its
//! magic number), not by its name, so a renamed file reads as what it is.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;

/// The first two bytes of a gzip stream (RFC 1952 §2.3.1).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Bytes read from the file at a time.
const BUFFER: usize = 1 << 16;

/// A log file opened for reading, plain or gzip.
pub enum LogInput {
    /// Plain text.
    Plain(BufReader<File>),
    /// A gzip file (one member or several), decompressed as it is read (boxed: the
    /// decoder's state is large).
    Gzip(Box<BufReader<MultiGzDecoder<BufReader<File>>>>),
}

impl LogInput {
    /// Opens `path`, decompressing it if its first bytes are gzip's magic number.
    pub fn open(path: &Path) -> io::Result<LogInput> {
        let mut file = BufReader::with_capacity(BUFFER, File::open(path)?);
        Ok(if file.fill_buf()?.starts_with(&GZIP_MAGIC) {
            LogInput::Gzip(Box::new(BufReader::with_capacity(
                BUFFER,
                MultiGzDecoder::new(file),
            )))
        } else {
            LogInput::Plain(file)
        })
    }

    /// The format's name, for messages.
    pub fn format(&self) -> &'static str {
        match self {
            LogInput::Plain(_) => "plain",
            LogInput::Gzip(_) => "gzip",
        }
    }
}

impl Read for LogInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            LogInput::Plain(r) => r.read(buf),
            LogInput::Gzip(r) => r.read(buf),
        }
    }
}

impl BufRead for LogInput {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            LogInput::Plain(r) => r.fill_buf(),
            LogInput::Gzip(r) => r.fill_buf(),
        }
    }

    fn consume(&mut self, amount: usize) {
        match self {
            LogInput::Plain(r) => r.consume(amount),
            LogInput::Gzip(r) => r.consume(amount),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    fn scratch(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("sitesim-input-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn gzip_is_told_by_its_magic_bytes_not_its_name() {
        let text = b"; header\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n";
        let gz = scratch("log.swf", &gzip(text));
        let plain = scratch("log.swf.gz", text);
        for (path, format) in [(&gz, "gzip"), (&plain, "plain")] {
            let mut input = LogInput::open(path).unwrap();
            assert_eq!(input.format(), format);
            let mut back = Vec::new();
            input.read_to_end(&mut back).unwrap();
            assert_eq!(back, text);
        }
        let _ = std::fs::remove_file(gz);
        let _ = std::fs::remove_file(plain);
    }
}
