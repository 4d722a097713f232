//! A log to read: its name, its header, and its records, read from the start again on
//! each [`LogSource::open`]. Every command that reads a log takes one, instead of a
//! name, a header and a way to reopen the file passed separately.
//!
//! A regular file is read again at each pass. A stream (standard input as `-`, a pipe,
//! a FIFO, a `<(...)` process substitution) can be read only once: its header and jobs
//! are read in that one pass, under the reader's bounds (`--max-jobs`, the header's),
//! and kept, once per process, for every pass and every run that names it.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::{Ignored, Located, LogInput, SwfError, SwfHeader, SwfReader};

/// The records of a log in file order, and the columns past the 18 standard ones that
/// those read so far had.
pub trait Records: Iterator<Item = Result<Located, SwfError>> {
    /// The extra columns seen so far.
    fn ignored(&self) -> Ignored;
}

impl<R: BufRead> Records for SwfReader<R> {
    fn ignored(&self) -> Ignored {
        SwfReader::ignored(self)
    }
}

/// How a [`LogSource`] reads its records again.
type Reopen<'a, I> = Box<dyn Fn() -> Result<I, SwfError> + Send + Sync + 'a>;

/// A log: its name (the file, in errors and summaries), its header, read once, and its
/// records from the start whenever a pass needs them.
pub struct LogSource<'a, I> {
    name: String,
    header: SwfHeader,
    reopen: Reopen<'a, I>,
}

/// A stream's header and records, read once ([`LogSource::file`]).
struct Kept {
    header: SwfHeader,
    records: Arc<[Located]>,
    extra: Ignored,
}

/// The streams read so far in this process, by path.
static STREAMS: Mutex<Option<HashMap<PathBuf, Arc<Kept>>>> = Mutex::new(None);

/// Whether `path` names a stream, which cannot be read twice: `-`, or anything but a
/// regular file (a pipe, a FIFO, a character device such as `/dev/stdin`).
fn is_stream(path: &Path) -> bool {
    path.as_os_str() == "-" || std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// The records of a log file: read from the file at each pass, or those of a stream,
/// read once.
pub enum FileRecords {
    /// A regular file, read again (boxed: the reader is large, the kept records small).
    File(Box<SwfReader<LogInput>>),
    /// A stream's records, kept.
    Kept {
        /// The records.
        records: Arc<[Located]>,
        /// The next to hand out.
        next: usize,
        /// The extra columns the reading found.
        extra: Ignored,
    },
}

impl Iterator for FileRecords {
    type Item = Result<Located, SwfError>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            FileRecords::File(r) => r.next(),
            FileRecords::Kept { records, next, .. } => {
                let r = records.get(*next).copied()?;
                *next += 1;
                Some(Ok(r))
            }
        }
    }
}

impl Records for FileRecords {
    fn ignored(&self) -> Ignored {
        match self {
            FileRecords::File(r) => r.ignored(),
            FileRecords::Kept { extra, .. } => *extra,
        }
    }
}

/// Drops the streams kept so far (a host that reads many streams, such as the fuzzer,
/// in one process); a stream named again afterwards is read again.
pub fn forget_streams() {
    *STREAMS.lock().unwrap_or_else(PoisonError::into_inner) = None;
}

impl LogSource<'static, FileRecords> {
    /// The log at `path`, plain or compressed, SWF or a Batsim workload
    /// ([`SwfReader::open`]): a regular file read again at each pass, a stream read once
    /// (see the module's documentation).
    pub fn file(path: &Path) -> Result<Self, SwfError> {
        let name = path.display().to_string();
        if !is_stream(path) {
            let header = SwfReader::open(path)?.header().clone();
            let path = path.to_owned();
            return Ok(LogSource {
                name,
                header,
                reopen: Box::new(move || {
                    SwfReader::open(&path).map(|r| FileRecords::File(Box::new(r)))
                }),
            });
        }
        let mut streams = STREAMS.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = match streams.get_or_insert_with(HashMap::new).get(path) {
            Some(kept) => kept.clone(),
            None => {
                let mut reader = SwfReader::open(path)?;
                let records: Vec<Located> = reader.by_ref().collect::<Result<_, _>>()?;
                let kept = Arc::new(Kept {
                    header: reader.header().clone(),
                    records: records.into(),
                    extra: reader.ignored(),
                });
                streams
                    .get_or_insert_with(HashMap::new)
                    .insert(path.to_owned(), kept.clone());
                kept
            }
        };
        drop(streams);
        Ok(LogSource {
            name,
            header: kept.header.clone(),
            reopen: Box::new(move || {
                Ok(FileRecords::Kept {
                    records: kept.records.clone(),
                    next: 0,
                    extra: kept.extra,
                })
            }),
        })
    }
}

impl<'a> LogSource<'a, SwfReader<&'a [u8]>> {
    /// The log whose text is `text`, named `name`.
    pub fn text(text: &'a [u8], name: &str) -> Result<Self, SwfError> {
        let header = SwfReader::new(text, name)?.header().clone();
        let owned = name.to_owned();
        Ok(LogSource {
            name: owned.clone(),
            header,
            reopen: Box::new(move || SwfReader::new(text, &owned)),
        })
    }
}

/// A log's records read into memory, handed out again in order, with the extra columns
/// the reading found.
pub struct InMemory<'a> {
    records: std::slice::Iter<'a, Located>,
    extra: Ignored,
}

impl Iterator for InMemory<'_> {
    type Item = Result<Located, SwfError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.records.next().copied().map(Ok)
    }
}

impl Records for InMemory<'_> {
    fn ignored(&self) -> Ignored {
        self.extra
    }
}

impl<'a> LogSource<'a, InMemory<'a>> {
    /// The log named `name` with header `header` whose records are `records`, in file
    /// order, with the extra columns `extra` (a Batsim workload read whole, or a log read
    /// once for several passes).
    pub fn records(name: &str, header: SwfHeader, records: &'a [Located], extra: Ignored) -> Self {
        LogSource::new(name.to_owned(), header, move || {
            Ok(InMemory {
                records: records.iter(),
                extra,
            })
        })
    }
}

impl<'a, I: Records> LogSource<'a, I> {
    /// A log named `name` with header `header` whose records `reopen` reads from the
    /// start (a generated log's, for one).
    pub fn new(
        name: String,
        header: SwfHeader,
        reopen: impl Fn() -> Result<I, SwfError> + Send + Sync + 'a,
    ) -> Self {
        LogSource {
            name,
            header,
            reopen: Box::new(reopen),
        }
    }

    /// The log's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its header.
    pub fn header(&self) -> &SwfHeader {
        &self.header
    }

    /// Its records, from the first.
    pub fn open(&self) -> Result<I, SwfError> {
        (self.reopen)()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_reads_its_records_again_from_the_start() {
        let text = b"; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n";
        let log = LogSource::text(text, "t.swf").unwrap();
        assert_eq!((log.name(), log.header().max_procs), ("t.swf", Some(4)));
        for _ in 0..2 {
            let jobs: Vec<_> = log.open().unwrap().collect::<Result<_, _>>().unwrap();
            assert_eq!(jobs.len(), 1);
        }
    }
}
