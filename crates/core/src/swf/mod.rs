//! The Standard Workload Format of the Parallel Workloads Archive: a streaming reader, a
//! writer, the header, and the errors that name file, line and field; and Batsim's JSON
//! workloads, read as logs and written from them (`batsim`).

pub mod batsim;
mod header;
mod input;
mod reader;
mod record;
mod source;
mod writer;

pub use header::{MAX_HEADER_BYTES, MAX_HEADER_LINES, SwfHeader};
pub use input::LogInput;
pub use reader::{Ignored, Located, SwfReader};
pub use record::{FIELD_NAMES, FIELDS, SwfRecord};
pub use source::{FileRecords, InMemory, LogSource, Records, forget_streams};
pub use writer::SwfWriter;

/// Log records kept for per-job outputs, by the tag of the job each became
/// ([`crate::job::JobSpec::tag`] is not visible from here: the number a source gives a
/// job and hands back when it ends). A replay that writes its schedule shares one between
/// the source that reads the log, which puts each admitted job's record in, and the
/// writer, which takes it out when the job is written: jobs carry no record through the
/// simulation. A saturated replay holds most of its jobs' records at once (a job is
/// written once every job submitted before it has ended): they are hashed by `FxHash`.
pub type KeptRecords = std::rc::Rc<std::cell::RefCell<rustc_hash::FxHashMap<u64, SwfRecord>>>;

/// The longest line the reader takes, in bytes: a job line is under 200, and a header
/// comment rarely passes a few hundred.
pub const MAX_LINE: usize = 1 << 20;

/// The most jobs a log may hold unless `--max-jobs` says otherwise: a queued job takes
/// about half a kilobyte, so 10 million take about 5 GB at worst (every job queued at
/// once), and a small compressed file of repeated lines cannot exhaust the memory.
pub const DEFAULT_MAX_JOBS: u64 = 10_000_000;

static MAX_JOBS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(DEFAULT_MAX_JOBS);

/// Sets the most jobs a log may hold (`--max-jobs`) for the rest of the process.
pub fn set_max_jobs(n: u64) {
    MAX_JOBS.store(n.max(1), std::sync::atomic::Ordering::Relaxed);
}

/// The most jobs a log may hold: reading a log with more is an error
/// ([`SwfError::TooManyJobs`]), never an exhausted memory.
pub fn max_jobs() -> u64 {
    MAX_JOBS.load(std::sync::atomic::Ordering::Relaxed)
}

/// A problem reading an SWF log. Every variant names the file; parse errors also name the
/// line and the field.
#[derive(Debug, thiserror::Error)]
pub enum SwfError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The log.
        file: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be read at a line (a disk error, or corrupt compressed data).
    #[error("{file}:{line}: {source}")]
    Read {
        /// The log.
        file: String,
        /// 1-based number of the line being read.
        line: u64,
        /// What the system, or the decompressor, said.
        #[source]
        source: std::io::Error,
    },
    /// A line longer than [`MAX_LINE`] bytes (a file that is not a log, such as
    /// `/dev/zero`, would otherwise be read into memory whole).
    #[error("{file}:{line}: the line is longer than {MAX_LINE} bytes: not an SWF log")]
    LineTooLong {
        /// The log.
        file: String,
        /// 1-based line number.
        line: u64,
    },
    /// More job lines than [`max_jobs`].
    #[error(
        "{file}:{line}: more than {max} jobs: raise --max-jobs if the machine has the memory \
         (about 0.5 kB per job at worst)"
    )]
    TooManyJobs {
        /// The log.
        file: String,
        /// 1-based number of the first job line past the limit.
        line: u64,
        /// The limit.
        max: u64,
    },
    /// More comment lines before the first job than [`MAX_HEADER_LINES`].
    #[error("{file}:{line}: more than {max} header comment lines: not an SWF log")]
    HeaderTooLong {
        /// The log.
        file: String,
        /// 1-based line number.
        line: u64,
        /// The limit.
        max: usize,
    },
    /// Header comment lines holding more than [`MAX_HEADER_BYTES`] bytes together.
    #[error("{file}:{line}: the header's comment lines hold more than {max} bytes: not an SWF log")]
    HeaderTooLarge {
        /// The log.
        file: String,
        /// 1-based line number of the line past the bound.
        line: u64,
        /// The limit.
        max: usize,
    },
    /// A job line is malformed.
    #[error("{file}:{line}: field {field} ({name}): {problem}")]
    Field {
        /// The log.
        file: String,
        /// 1-based line number.
        line: u64,
        /// 1-based field number.
        field: usize,
        /// The field's name.
        name: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A header value is malformed.
    #[error("{file}:{line}: header {key}: {problem}")]
    Header {
        /// The log.
        file: String,
        /// 1-based line number.
        line: u64,
        /// The header key.
        key: String,
        /// What is wrong.
        problem: String,
    },
    /// A Batsim workload is not valid JSON, or a value has the wrong type.
    #[error("{file}:{line}:{column}: {problem}")]
    Json {
        /// The workload.
        file: String,
        /// 1-based line number.
        line: usize,
        /// 1-based column number.
        column: usize,
        /// What is wrong, as serde_json says it.
        problem: String,
    },
    /// A Batsim workload's value is out of range or names nothing.
    #[error("{file}: {at}: {problem}")]
    Batsim {
        /// The workload.
        file: String,
        /// Where in the JSON: `nb_res`, `jobs[3] (id '7') res`, ...
        at: String,
        /// What is wrong.
        problem: String,
    },
}
