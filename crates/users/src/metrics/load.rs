//! Who loads the machine, and when: for each user, the jobs it ran, the processor time
//! they asked for and the waits they had; for each week, the work submitted in it. This
//! is what tells which users and weeks make the congestion of a resampled workload that
//! the log never had (Feitelson 2021, §4.4, Fig. 15: a resampled distribution shifted from the
//! log's value; §3.4, Figs. 6-7: flurries and dominant users).

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::job::JobOutcome;
use crate::sim::Observer;
use crate::time::{Time, WEEK};

/// What one user's jobs asked for and got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct UserLoad {
    /// Jobs that ended.
    pub jobs: u64,
    /// Processor-seconds they asked for (processors times logged runtime).
    pub work: f64,
    /// The sum of their waits, seconds.
    pub wait: f64,
}

impl UserLoad {
    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &UserLoad) {
        self.jobs += o.jobs;
        self.work += o.work;
        self.wait += o.wait;
    }
}

/// Records every ended job's user, work and wait, and the work submitted each week.
#[derive(Debug, Clone)]
pub struct LoadRecorder {
    origin: Time,
    /// By user. Only looked up while recording; [`LoadRecorder::finish`] sorts.
    users: FxHashMap<i64, UserLoad>,
    weekly_work: Vec<f64>,
    /// Work by user and week, sorted likewise.
    user_weeks: FxHashMap<(i64, u32), f64>,
}

/// What a [`LoadRecorder`] saw.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoadSummary {
    /// Each user's load, by user number.
    pub users: Vec<(i64, UserLoad)>,
    /// Processor-seconds submitted in each week from the origin (by submit time).
    pub weekly_work: Vec<f64>,
    /// The same by user and week, in that order.
    pub user_weeks: Vec<((i64, u32), f64)>,
}

impl LoadRecorder {
    /// Weeks count from `origin`.
    pub fn new(origin: Time) -> Self {
        LoadRecorder {
            origin,
            users: FxHashMap::default(),
            weekly_work: Vec::new(),
            user_weeks: FxHashMap::default(),
        }
    }

    /// The loads, users in order.
    pub fn finish(self) -> LoadSummary {
        let mut users: Vec<(i64, UserLoad)> = self.users.into_iter().collect();
        users.sort_unstable_by_key(|u| u.0);
        let mut user_weeks: Vec<((i64, u32), f64)> = self.user_weeks.into_iter().collect();
        user_weeks.sort_unstable_by_key(|u| u.0);
        LoadSummary {
            users,
            weekly_work: self.weekly_work,
            user_weeks,
        }
    }
}

impl LoadRecorder {
    /// A job of `user` submitted at `submit`, which waited `wait` and asked for `size`
    /// processors for `runtime` seconds.
    pub fn record(&mut self, user: i64, submit: Time, wait: Time, size: u32, runtime: Time) {
        let work = f64::from(size) * runtime as f64;
        let u = self.users.entry(user).or_default();
        u.jobs += 1;
        u.work += work;
        u.wait += wait as f64;
        if let Ok(week) = u32::try_from((submit - self.origin).div_euclid(WEEK)) {
            let w = week as usize;
            if self.weekly_work.len() <= w {
                self.weekly_work.resize(w + 1, 0.0);
            }
            self.weekly_work[w] += work;
            *self.user_weeks.entry((user, week)).or_default() += work;
        }
    }
}

impl Observer for LoadRecorder {
    fn on_end(&mut self, j: &JobOutcome) {
        self.record(j.user, j.submit, j.wait(), j.size, j.requested_runtime);
    }
}

impl LoadSummary {
    /// The offered load of each week in `weeks` (work submitted over the machine's
    /// `procs` processors for a week); weeks past the last recorded one offered nothing.
    pub fn weekly_load(&self, procs: u32, weeks: std::ops::Range<usize>) -> Vec<f64> {
        let capacity = f64::from(procs) * WEEK as f64;
        weeks
            .map(|w| self.weekly_work.get(w).copied().unwrap_or(0.0) / capacity)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(user: i64, submit: Time, wait: Time, size: u32, run: Time) -> JobOutcome {
        JobOutcome {
            seq: 0,
            submit,
            start: submit + wait,
            end: submit + wait + run,
            size,
            estimate: run,
            requested_runtime: run,
            killed: false,
            backfilled: false,
            user,
            job: 0,
            tag: 0,
            accuracy: Default::default(),
        }
    }

    #[test]
    fn loads_by_user_and_week() {
        let mut r = LoadRecorder::new(100);
        r.on_end(&ended(2, 100, 10, 4, 50));
        r.on_end(&ended(1, 100 + WEEK, 0, 1, 30));
        r.on_end(&ended(2, 100 + 2 * WEEK + 5, 20, 2, 10));
        let s = r.finish();
        assert_eq!(
            s.users,
            [
                (
                    1,
                    UserLoad {
                        jobs: 1,
                        work: 30.0,
                        wait: 0.0
                    }
                ),
                (
                    2,
                    UserLoad {
                        jobs: 2,
                        work: 220.0,
                        wait: 30.0
                    }
                )
            ]
        );
        assert_eq!(s.weekly_work, [200.0, 30.0, 20.0]);
        assert_eq!(
            s.user_weeks,
            [((1, 1), 30.0), ((2, 0), 200.0), ((2, 2), 20.0)]
        );
        let load = s.weekly_load(2, 1..4);
        assert_eq!(load.len(), 3);
        assert!((load[0] - 30.0 / (2.0 * WEEK as f64)).abs() < 1e-15);
        assert_eq!(load[2], 0.0);
    }
}
