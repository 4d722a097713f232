//! Per-job metrics aggregated over a set of jobs: wait, response, bounded slowdown, killed
//! and backfilled counts, and how evenly the users were served.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::dist::{Dist, DistSummary};
use crate::job::Accuracy;
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
    /// How its runtime was predicted.
    pub accuracy: Accuracy,
    /// Its user.
    pub user: i64,
}

/// Users below this number are kept in a vector, the others in a map.
const DENSE_USERS: usize = 1 << 16;

/// Each user's sum of bounded slowdowns and count of jobs.
#[derive(Debug, Clone, Default)]
struct ByUser {
    dense: Vec<(f64, u32)>,
    sparse: FxHashMap<i64, (f64, u32)>,
}

impl ByUser {
    fn record(&mut self, user: i64, bsld: f64) {
        let slot = match usize::try_from(user) {
            Ok(u) if u < DENSE_USERS => {
                if self.dense.len() <= u {
                    self.dense.resize(u + 1, (0.0, 0));
                }
                &mut self.dense[u]
            }
            _ => self.sparse.entry(user).or_default(),
        };
        slot.0 += bsld;
        slot.1 += 1;
    }

    /// Jain's fairness index of the users' mean bounded slowdowns, (Σx)² / (n Σx²): 1
    /// when every user is slowed down alike, 1/n when one user takes all the slowdown
    /// (Jain, Chiu and Hawe 1984); 1 without jobs.
    fn jain(&self) -> f64 {
        let (mut n, mut sum, mut squares) = (0.0, 0.0, 0.0);
        let dense = self.dense.iter().filter(|u| u.1 > 0);
        for &(s, k) in dense.chain(self.sparse.values()) {
            let mean = s / f64::from(k);
            n += 1.0;
            sum += mean;
            squares += mean * mean;
        }
        if squares > 0.0 {
            sum * sum / (n * squares)
        } else {
            1.0
        }
    }
}

/// Aggregates [`JobMetrics`].
#[derive(Debug, Clone)]
pub struct JobStats {
    wait: Dist,
    response: Dist,
    bsld: Dist,
    killed: u64,
    backfilled: u64,
    inaccuracy: f64,
    relative_accuracy: f64,
    with_misses: u64,
    misses: u64,
    by_user: ByUser,
}

/// Prediction accuracy over a set of jobs (Talby et al. 2006, §3.3): means of the time-weighted
/// per-job figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AccuracySummary {
    /// Mean absolute inaccuracy, seconds.
    pub mean_absolute_inaccuracy: f64,
    /// Mean relative accuracy, in [0, 1].
    pub mean_relative_accuracy: f64,
    /// Jobs that outlived a prediction at least once.
    pub jobs_with_misses: u64,
    /// Their share of the jobs.
    pub share_with_misses: f64,
    /// Deadline misses in all.
    pub deadline_misses: u64,
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
    /// How their runtimes were predicted.
    pub accuracy: AccuracySummary,
    /// Jain's fairness index of the users' mean bounded slowdowns, in (0, 1]: how evenly
    /// the users were served.
    pub user_fairness: f64,
}

impl Default for JobStats {
    fn default() -> Self {
        JobStats {
            wait: Dist::new(1.0),
            response: Dist::new(1.0),
            bsld: Dist::new(1000.0),
            killed: 0,
            backfilled: 0,
            inaccuracy: 0.0,
            relative_accuracy: 0.0,
            with_misses: 0,
            misses: 0,
            by_user: ByUser::default(),
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
        self.inaccuracy += m.accuracy.absolute_inaccuracy;
        self.relative_accuracy += m.accuracy.relative_accuracy;
        self.with_misses += u64::from(m.accuracy.misses > 0);
        self.misses += u64::from(m.accuracy.misses);
        self.by_user.record(m.user, m.bsld);
    }

    /// The summary.
    pub fn summary(&self) -> JobStatsSummary {
        let wait = self.wait.summary();
        let n = wait.count.max(1) as f64;
        JobStatsSummary {
            jobs: wait.count,
            wait,
            response: self.response.summary(),
            bounded_slowdown: self.bsld.summary(),
            killed: self.killed,
            backfilled: self.backfilled,
            accuracy: AccuracySummary {
                mean_absolute_inaccuracy: self.inaccuracy / n,
                mean_relative_accuracy: self.relative_accuracy / n,
                jobs_with_misses: self.with_misses,
                share_with_misses: self.with_misses as f64 / n,
                deadline_misses: self.misses,
            },
            user_fairness: self.by_user.jain(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_of_users_mean_slowdowns() {
        let mut u = ByUser::default();
        assert_eq!(u.jain(), 1.0);
        // Two users with means 1 and 3 (user 7 twice: 2 and 4), one past the dense range.
        u.record(7, 2.0);
        u.record(7, 4.0);
        u.record(1 << 20, 1.0);
        // (1 + 3)^2 / (2 * (1 + 9)) = 0.8.
        assert!((u.jain() - 0.8).abs() < 1e-12);
        u.record(3, 3.0);
        // (1 + 3 + 3)^2 / (3 * 19) = 49 / 57.
        assert!((u.jain() - 49.0 / 57.0).abs() < 1e-12);
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
