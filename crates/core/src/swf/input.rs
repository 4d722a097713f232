//! A log file's bytes, decompressed when the file is gzip, bzip2 or xz: the Parallel
//! Workloads Archive distributes its logs as `.swf.gz`, and other archives use the other
//! two. The format is told by the file's first bytes (its magic number), not by its name,
//! so a renamed file reads as what it is; zstd, told the same way, is refused by name.
//! The path `-` is standard input, read as a stream (a [`super::LogSource`] reads a
//! stream once and keeps its records).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use bzip2::bufread::MultiBzDecoder;
use flate2::bufread::MultiGzDecoder;
use liblzma::bufread::XzDecoder;

/// The first two bytes of a gzip stream (RFC 1952 §2.3.1).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The first bytes of a bzip2 stream: "BZh" (then the block size, '1' to '9').
const BZIP2_MAGIC: [u8; 3] = *b"BZh";

/// The first six bytes of an xz stream (the .xz file format, §2.1.1.1).
const XZ_MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0x00];

/// The first four bytes of a zstd frame (RFC 8878 §3.1.1), which sitesim does not read.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Bytes read from the file at a time.
const BUFFER: usize = 1 << 16;

/// A log file opened for reading, plain or compressed.
pub enum LogInput {
    /// Plain text.
    Plain(BufReader<File>),
    /// Plain text from standard input (the path `-`).
    Standard(BufReader<io::Stdin>),
    /// A compressed file (each format's streams concatenated or not), decompressed as it
    /// is read.
    Compressed {
        /// The format: "gzip", "bzip2" or "xz".
        format: &'static str,
        /// The decompressed bytes.
        reader: Box<dyn BufRead + Send>,
    },
}

impl LogInput {
    /// Opens `path` (`-`: standard input), decompressing it if its first bytes are the
    /// magic number of gzip, bzip2 or xz.
    pub fn open(path: &Path) -> io::Result<LogInput> {
        if path.as_os_str() == "-" {
            return Self::of(
                BufReader::with_capacity(BUFFER, io::stdin()),
                LogInput::Standard,
            );
        }
        Self::of(
            BufReader::with_capacity(BUFFER, File::open(path)?),
            LogInput::Plain,
        )
    }

    /// `input` as it is, `plain`, or decompressed.
    fn of<R: BufRead + Send + 'static>(
        mut input: R,
        plain: fn(R) -> LogInput,
    ) -> io::Result<LogInput> {
        let head = input.fill_buf()?;
        let decompressed = |format, reader: Box<dyn Read + Send>| LogInput::Compressed {
            format,
            reader: Box::new(BufReader::with_capacity(BUFFER, reader)),
        };
        Ok(if head.starts_with(&ZSTD_MAGIC) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "unsupported compression: zstd; sitesim reads plain text, gzip, bzip2 and xz \
                 (zstd -d decompresses it)",
            ));
        } else if head.starts_with(&GZIP_MAGIC) {
            decompressed("gzip", Box::new(MultiGzDecoder::new(input)))
        } else if head.starts_with(&BZIP2_MAGIC) {
            decompressed("bzip2", Box::new(MultiBzDecoder::new(input)))
        } else if head.starts_with(&XZ_MAGIC) {
            decompressed("xz", Box::new(XzDecoder::new_multi_decoder(input)))
        } else {
            plain(input)
        })
    }

    /// The format's name, for messages.
    pub fn format(&self) -> &'static str {
        match self {
            LogInput::Plain(_) | LogInput::Standard(_) => "plain",
            LogInput::Compressed { format, .. } => format,
        }
    }
}

impl Read for LogInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            LogInput::Plain(r) => r.read(buf),
            LogInput::Standard(r) => r.read(buf),
            LogInput::Compressed { reader, .. } => reader.read(buf),
        }
    }
}

impl BufRead for LogInput {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            LogInput::Plain(r) => r.fill_buf(),
            LogInput::Standard(r) => r.fill_buf(),
            LogInput::Compressed { reader, .. } => reader.fill_buf(),
        }
    }

    fn consume(&mut self, amount: usize) {
        match self {
            LogInput::Plain(r) => r.consume(amount),
            LogInput::Standard(r) => r.consume(amount),
            LogInput::Compressed { reader, .. } => reader.consume(amount),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    /// A scratch folder holding `bytes` as file `name` (removed when dropped), and the
    /// file's path.
    fn scratch(name: &str, bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix("sitesim-input-")
            .tempdir()
            .unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn bzip2(text: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn xz(text: &[u8]) -> Vec<u8> {
        let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn the_format_is_told_by_its_magic_bytes_not_its_name() {
        let text = b"; header\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n";
        // Two streams one after the other read as one file, as `cat a.gz b.gz` does.
        let twice = |pack: fn(&[u8]) -> Vec<u8>| [pack(text), pack(text)].concat();
        let cases = [
            ("gz", gzip(text), "gzip", 1),
            ("bz", bzip2(text), "bzip2", 1),
            ("x", xz(text), "xz", 1),
            ("gz2", twice(gzip), "gzip", 2),
            ("bz2", twice(bzip2), "bzip2", 2),
            ("xz2", twice(xz), "xz", 2),
            ("plain.swf.gz", text.to_vec(), "plain", 1),
        ];
        for (name, bytes, format, copies) in cases {
            let (_dir, path) = scratch(name, &bytes);
            let mut input = LogInput::open(&path).unwrap();
            assert_eq!(input.format(), format, "{name}");
            let mut back = Vec::new();
            input.read_to_end(&mut back).unwrap();
            assert_eq!(back, text.repeat(copies), "{name}");
        }
    }

    #[test]
    fn corrupt_compressed_data_is_an_error_not_a_short_log() {
        let text = b"; header\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n".repeat(50);
        for (name, mut bytes) in [("bad.bz2", bzip2(&text)), ("bad.xz", xz(&text))] {
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x55;
            let (_dir, path) = scratch(name, &bytes);
            let mut back = Vec::new();
            let read = LogInput::open(&path).and_then(|mut i| i.read_to_end(&mut back));
            assert!(read.is_err(), "{name}: read {} bytes", back.len());
        }
    }
}
