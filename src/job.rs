//! Jobs: what a source submits, what a scheduler may see, and how a finished job ended.
//!
//! Jobs are rigid (a fixed number of processors for their whole run) and run on dedicated
//! processors, as in the seeds' simulations (seed 002 §3.1). The scheduler sees the
//! [`JobRequest`] only, never the runtime: planning uses estimates, and the true runtime
//! only sets the end event (DESIGN.md, "Invariants").

use serde::{Deserialize, Serialize};

use crate::swf::SwfRecord;
use crate::time::Time;

/// Index of a live job in the simulation's job table. Reused after the job has ended, so
/// it identifies a job only while the job waits or runs; [`JobRequest::seq`] is unique.
pub type JobId = u32;

/// A job as a source submits it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Processors, at least 1 and at most the machine size.
    pub size: u32,
    /// True runtime on a dedicated machine, seconds (at least 0). Hidden from schedulers.
    pub runtime: Time,
    /// The user's runtime estimate (requested time), seconds, at least 1.
    pub estimate: Time,
    /// The submitting user.
    pub user: i64,
    /// The job's number in its log.
    pub job: i64,
    /// The job's log record, if the source keeps it for per-job outputs (boxed, so that a
    /// job without one stays small as it moves through the simulation).
    pub record: Option<Box<SwfRecord>>,
}

/// What a scheduler knows about a waiting or running job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobRequest {
    /// Slot in the job table while the job is live.
    pub id: JobId,
    /// Submission order over the whole run (the queue order of FCFS-based policies).
    pub seq: u64,
    /// Submit time.
    pub submit: Time,
    /// Processors.
    pub size: u32,
    /// The runtime the scheduler plans with, seconds (at least 1).
    pub estimate: Time,
    /// The submitting user.
    pub user: i64,
}

/// What happens to a job that runs longer than its estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum OverrunPolicy {
    /// The job is killed when its estimate runs out, as production EASY does
    /// (seed 000 §1: "jobs that violate their estimates are killed").
    Kill,
    /// The estimate is raised to the runtime when the job is submitted, so no job ever
    /// runs past what the scheduler planned for.
    Extend,
    /// The job runs its full runtime while the scheduler keeps its estimate; once the
    /// estimate has passed, the scheduler treats the job as ending one second from now.
    Overrun,
}

impl OverrunPolicy {
    /// The name used on the command line and in outputs.
    pub fn name(self) -> &'static str {
        match self {
            OverrunPolicy::Kill => "kill",
            OverrunPolicy::Extend => "extend",
            OverrunPolicy::Overrun => "overrun",
        }
    }
}

/// Runtime classes of the seeds' breakdowns (seed 003 Figure 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuntimeClass {
    /// At most one minute.
    Short,
    /// More than one minute, at most ten.
    Medium,
    /// More than ten minutes.
    Long,
}

impl RuntimeClass {
    /// All classes, shortest first.
    pub const ALL: [RuntimeClass; 3] = [
        RuntimeClass::Short,
        RuntimeClass::Medium,
        RuntimeClass::Long,
    ];

    /// The class of a job that ran `runtime` seconds.
    pub fn of(runtime: Time) -> RuntimeClass {
        match runtime {
            ..=60 => RuntimeClass::Short,
            61..=600 => RuntimeClass::Medium,
            _ => RuntimeClass::Long,
        }
    }

    /// A label for tables.
    pub fn label(self) -> &'static str {
        match self {
            RuntimeClass::Short => "<= 1 min",
            RuntimeClass::Medium => "1-10 min",
            RuntimeClass::Long => "> 10 min",
        }
    }
}

/// A job that has ended, as the metrics see it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobOutcome {
    /// Submission order.
    pub seq: u64,
    /// Submit time.
    pub submit: Time,
    /// Start time.
    pub start: Time,
    /// End time (`start` plus the simulated runtime).
    pub end: Time,
    /// Processors.
    pub size: u32,
    /// The estimate the scheduler planned with.
    pub estimate: Time,
    /// The runtime the job asked for (its log runtime), before any kill.
    pub requested_runtime: Time,
    /// Whether it was killed at its estimate.
    pub killed: bool,
    /// Whether it started while a job submitted before it was still waiting.
    pub backfilled: bool,
    /// The submitting user.
    pub user: i64,
    /// The job's number in its log.
    pub job: i64,
    /// The job's log record, if its source kept it.
    pub record: Option<Box<SwfRecord>>,
}

impl JobOutcome {
    /// Seconds spent waiting.
    pub fn wait(&self) -> Time {
        self.start - self.submit
    }
    /// Seconds actually run.
    pub fn runtime(&self) -> Time {
        self.end - self.start
    }
    /// Seconds from submission to end.
    pub fn response(&self) -> Time {
        self.end - self.submit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_classes_have_inclusive_upper_bounds() {
        assert_eq!(RuntimeClass::of(0), RuntimeClass::Short);
        assert_eq!(RuntimeClass::of(60), RuntimeClass::Short);
        assert_eq!(RuntimeClass::of(61), RuntimeClass::Medium);
        assert_eq!(RuntimeClass::of(600), RuntimeClass::Medium);
        assert_eq!(RuntimeClass::of(601), RuntimeClass::Long);
    }
}
