//! What runs leave behind, whatever the command: typed metrics and their statistics over
//! replications (`metric`), durable and atomic file writes (`output`), the lock that
//! keeps a results folder to one process (`lock`), replicated runs and the one parallel
//! runner (`replicate`), an experiment's run records (`runs`) and their summary
//! (`summary`), a run's jobs read back, sitesim's or Batsim's (`jobs`), and what is
//! printed while a command runs (`terminal`).

pub mod input;
pub mod jobs;
pub mod lock;
pub mod metric;
pub mod output;
pub mod replicate;
pub mod runs;
pub mod summary;
pub mod terminal;

use serde::Serialize;

use crate::sim::SimError;
use crate::swf::SwfError;

/// What the numbers of every `summary.json`, `calibrate.json` and CSV file are in, as
/// each `summary.json` states under `units`: one unit per quantity in every file, and a
/// name that ends in a unit (`_hours`, `_pct`, `_per_week`) overrides it. The terminal
/// and the reports show the same quantities in hours and percent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Units {
    /// Times and durations (submit, wait, response, makespan, warm-up).
    pub durations: &'static str,
    /// Utilization, loads and other shares.
    pub shares: &'static str,
    /// Work.
    pub work: &'static str,
    /// Bounded slowdowns.
    pub slowdowns: &'static str,
}

impl Units {
    /// The units of sitesim's files.
    pub const FILES: Units = Units {
        durations: "seconds, unless the name ends in _hours",
        shares: "fractions of 1, unless the name ends in _pct or _percent",
        work: "processor-hours (proc_hours)",
        slowdowns: "ratios, at least 1",
    };
}

/// Why a run failed, whatever the command.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The input or the simulation failed.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The options do not fit the log.
    #[error("{0}")]
    Options(String),
    /// The run would not mean what it is asked to (a calibration on a machine that
    /// cannot hold the log's own schedule): refused as a usage error.
    #[error("{0}")]
    Refused(String),
    /// Writing outputs failed.
    #[error("{path}: {source}")]
    Output {
        /// The file.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Writing an output failed; the error names the file (see
    /// [`crate::results::output::Named`]).
    #[error("{0}")]
    Written(std::io::Error),
}

impl From<SwfError> for RunError {
    fn from(e: SwfError) -> Self {
        RunError::Sim(SimError::input(e))
    }
}
