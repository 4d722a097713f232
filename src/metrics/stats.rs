//! Per-job metrics aggregated over a set of jobs: wait, response, bounded slowdown, killed
//! and backfilled counts.

use serde::Serialize;

use super::dist::{Dist, DistSummary};
use crate::time::Time;

/// The metrics of one finished job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobMetrics {
    /// Submit time.
    pub submit: Time,
    /// Seconds waited.
    pub wait: Time,
    /// Seconds from submission to end.
    pub response: Time,
    /// Bounded slowdown.
    pub bsld: f64,
    /// Seconds run.
    pub runtime: Time,
    /// Killed at its estimate.
    pub killed: bool,
    /// Backfilled.
    pub backfilled: bool,
}

/// Aggregates [`JobMetrics`].
#[derive(Debug, Clone)]
pub struct JobStats {
    wait: Dist,
    response: Dist,
    bsld: Dist,
    killed: u64,
    backfilled: u64,
}

/// What [`JobStats`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct JobStatsSummary {
    /// Jobs counted.
    pub jobs: u64,
    /// Wait time, seconds.
    pub wait: DistSummary,
    /// Response time, seconds.
    pub response: DistSummary,
    /// Bounded slowdown.
    pub bounded_slowdown: DistSummary,
    /// Jobs killed at their estimate.
    pub killed: u64,
    /// Jobs backfilled.
    pub backfilled: u64,
}

impl Default for JobStats {
    fn default() -> Self {
        JobStats {
            wait: Dist::new(1.0),
            response: Dist::new(1.0),
            bsld: Dist::new(1000.0),
            killed: 0,
            backfilled: 0,
        }
    }
}

impl JobStats {
    /// Counts one job.
    pub fn record(&mut self, m: &JobMetrics) {
        self.wait.record_secs(m.wait);
        self.response.record_secs(m.response);
        self.bsld.record(m.bsld);
        self.killed += u64::from(m.killed);
        self.backfilled += u64::from(m.backfilled);
    }

    /// The summary.
    pub fn summary(&self) -> JobStatsSummary {
        let wait = self.wait.summary();
        JobStatsSummary {
            jobs: wait.count,
            wait,
            response: self.response.summary(),
            bounded_slowdown: self.bsld.summary(),
            killed: self.killed,
            backfilled: self.backfilled,
        }
    }
}

/// Means of [`JobMetrics`] over a class of jobs (no percentiles, to keep recording cheap).
#[derive(Debug, Clone, Copy, Default)]
pub struct ClassStats {
    jobs: u64,
    wait: i128,
    response: i128,
    bsld: f64,
    killed: u64,
    backfilled: u64,
}

/// What [`ClassStats`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassStatsSummary {
    /// Jobs counted.
    pub jobs: u64,
    /// Mean wait, seconds.
    pub mean_wait: f64,
    /// Mean response time, seconds.
    pub mean_response: f64,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
    /// Jobs killed at their estimate.
    pub killed: u64,
    /// Jobs backfilled.
    pub backfilled: u64,
}

impl ClassStats {
    /// Counts one job.
    pub fn record(&mut self, m: &JobMetrics) {
        self.jobs += 1;
        self.wait += i128::from(m.wait);
        self.response += i128::from(m.response);
        self.bsld += m.bsld;
        self.killed += u64::from(m.killed);
        self.backfilled += u64::from(m.backfilled);
    }

    /// The summary; means are zero for an empty class.
    pub fn summary(&self) -> ClassStatsSummary {
        let n = self.jobs.max(1) as f64;
        ClassStatsSummary {
            jobs: self.jobs,
            mean_wait: self.wait as f64 / n,
            mean_response: self.response as f64 / n,
            mean_bounded_slowdown: self.bsld / n,
            killed: self.killed,
            backfilled: self.backfilled,
        }
    }
}
