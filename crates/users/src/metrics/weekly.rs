//! A run week by week, recorded as it runs (no per-job output needed): for each week from
//! the first submission, the utilization, the jobs waiting and the processor-hours they
//! asked for (time-weighted means over the week), the users who submitted and the
//! sessions opened. The [`Recorder`](super::Recorder) keeps the step functions'
//! integrals as it is told of each submission, start and end, a few additions an event;
//! a replicated run writes every replication's weeks to `weekly.csv`.
//!
//! The waiting processor-hours are each waiting job's processors times its estimate (its
//! requested time), as the report of one run computes them from `jobs.csv`: the work
//! the queue holds as the scheduler sees it, since a waiting job's runtime is unknown.

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::job::JobRequest;
use crate::time::{HOUR, Time, WEEK};

/// One week of a run, from the first submission: the columns of `weekly.csv` after the
/// replication, each named with its unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WeekSeries {
    /// Week number from the first submission, from 0: the week covers
    /// `[first + week × 7 d, first + (week + 1) × 7 d)`.
    pub week: u64,
    /// The week's length in the run, hours: 168, less for the last week, which ends at
    /// the run's end (the last end, or the last submission if later).
    pub length_hours: f64,
    /// Busy processor-time over the week's capacity (processors × its length), percent.
    pub utilization_pct: f64,
    /// Jobs waiting (submitted, not started): the time-weighted mean over the week.
    pub waiting_jobs: f64,
    /// Processor-hours the waiting jobs asked for (processors × estimate): the
    /// time-weighted mean over the week.
    pub waiting_proc_hours: f64,
    /// Distinct users who submitted a job in the week.
    pub active_users: u64,
    /// Sessions whose first job was submitted in the week, each user's submissions split
    /// into sessions as the `sessions` metric splits them (the think-time rule of
    /// [`SessionRecorder`](super::SessionRecorder)); 0 until
    /// [`WeeklySeries::count_sessions`] counts them.
    pub sessions_opened: u64,
}

/// A run's weeks, from its first submission.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WeeklySeries {
    /// The first submission, where week 0 starts.
    pub origin: Time,
    /// Every week up to the run's end, in order.
    pub weeks: Vec<WeekSeries>,
}

impl WeeklySeries {
    /// Counts the sessions opened at `opened` (their first submissions) into their weeks
    /// ([`WeekSeries::sessions_opened`]).
    pub fn count_sessions(&mut self, opened: impl IntoIterator<Item = Time>) {
        let Some(last) = self.weeks.len().checked_sub(1) else {
            return;
        };
        for t in opened {
            self.weeks[week_of(t, self.origin).min(last)].sessions_opened += 1;
        }
    }
}

impl WeeklySeries {
    /// The least-squares slope of the weekly mean number of waiting jobs over the whole
    /// weeks in `[from, to)`, jobs per week: how fast the queue grows. 0 with fewer than
    /// two such weeks.
    pub fn queue_trend(&self, from: Time, to: Time) -> f64 {
        let points: Vec<(f64, f64)> = self
            .weeks
            .iter()
            .filter(|w| {
                let start = self.origin + w.week as Time * WEEK;
                start >= from && start + WEEK <= to && w.length_hours * HOUR as f64 >= WEEK as f64
            })
            .map(|w| (w.week as f64, w.waiting_jobs))
            .collect();
        slope(&points)
    }
}

/// The least-squares slope of `points`; 0 with fewer than two distinct abscissas.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if points.len() < 2 {
        return 0.0;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx > 0.0 { sxy / sxx } else { 0.0 }
}

/// The week of `t` from `origin`.
fn week_of(t: Time, origin: Time) -> usize {
    usize::try_from((t - origin) / WEEK).unwrap_or(0)
}

/// Processors busy, jobs waiting and processor-seconds (processors × estimate) waiting.
const BUSY: usize = 0;
const WAITING: usize = 1;
const WAITING_WORK: usize = 2;

/// The step functions of a run integrated week by week as it goes, and the users who
/// submitted in each week: what [`WeeklySeries`] is made of.
#[derive(Debug, Clone, Default)]
pub(super) struct WeeklySteps {
    /// The first submission; `None` before it.
    origin: Option<Time>,
    /// Integrated up to here.
    at: Time,
    /// The week of `at` and its end (cached: most events fall in the week of the last).
    week: usize,
    week_end: Time,
    /// Each function's value from `at` on ([`BUSY`], [`WAITING`], [`WAITING_WORK`]).
    level: [i128; 3],
    /// Each function's integral over each week so far, value × seconds.
    area: Vec<[i128; 3]>,
    /// Distinct submitters in each week so far.
    submitters: Vec<u64>,
    /// Each user's latest week with a submission.
    last_week: FxHashMap<i64, usize>,
}

impl WeeklySteps {
    /// The week of `at`, its area allocated.
    fn week(&mut self, origin: Time) -> usize {
        if self.at >= self.week_end {
            self.week = week_of(self.at, origin);
            self.week_end = origin + (self.week as Time + 1) * WEEK;
            if self.area.len() <= self.week {
                self.area.resize(self.week + 1, [0; 3]);
            }
        }
        self.week
    }

    /// Integrates the functions up to `t` (never earlier than the last call).
    fn advance(&mut self, t: Time) {
        let Some(origin) = self.origin else {
            return;
        };
        while self.at < t {
            let k = self.week(origin);
            let to = self.week_end.min(t);
            let span = i128::from(to - self.at);
            for (area, level) in self.area[k].iter_mut().zip(self.level) {
                *area += level * span;
            }
            self.at = to;
        }
    }

    /// `job` was submitted at `now`.
    pub(super) fn submit(&mut self, now: Time, job: &JobRequest) {
        if self.origin.is_none() {
            self.origin = Some(now);
            self.at = now;
            self.week_end = Time::MIN;
        }
        let origin = self.origin.unwrap_or(now);
        self.advance(now);
        self.level[WAITING] += 1;
        self.level[WAITING_WORK] += work(job);
        let k = self.week(origin);
        if self.last_week.insert(job.user, k) != Some(k) {
            if self.submitters.len() <= k {
                self.submitters.resize(k + 1, 0);
            }
            self.submitters[k] += 1;
        }
    }

    /// `job` started at `now`.
    pub(super) fn start(&mut self, now: Time, job: &JobRequest) {
        self.advance(now);
        self.level[BUSY] += i128::from(job.size);
        self.level[WAITING] -= 1;
        self.level[WAITING_WORK] -= work(job);
    }

    /// A job of `size` processors ended at `now`.
    pub(super) fn end(&mut self, now: Time, size: u32) {
        self.advance(now);
        self.level[BUSY] -= i128::from(size);
    }

    /// The weeks from the first submission to `end`, the run's end, on `procs`
    /// processors; none if nothing was submitted before `end`.
    pub(super) fn finish(mut self, end: Time, procs: u32) -> WeeklySeries {
        let Some(origin) = self.origin.filter(|&o| end > o) else {
            return WeeklySeries::default();
        };
        self.advance(end);
        let weeks = week_of(end - 1, origin) + 1;
        self.area.resize(weeks, [0; 3]);
        // A submission at the very end of a run of whole weeks (the last job, of no
        // runtime) counts in the last week (its user twice if it submitted in it too).
        if self.submitters.len() > weeks {
            let late: u64 = self.submitters.drain(weeks..).sum();
            self.submitters[weeks - 1] += late;
        }
        self.submitters.resize(weeks, 0);
        let weeks = self
            .area
            .iter()
            .zip(&self.submitters)
            .enumerate()
            .map(|(k, (area, &users))| {
                let from = origin + k as Time * WEEK;
                let length = ((from + WEEK).min(end) - from) as f64;
                let mean = |i: usize| area[i] as f64 / length;
                WeekSeries {
                    week: k as u64,
                    length_hours: length / HOUR as f64,
                    utilization_pct: 100.0 * mean(BUSY) / f64::from(procs.max(1)),
                    waiting_jobs: mean(WAITING),
                    waiting_proc_hours: mean(WAITING_WORK) / HOUR as f64,
                    active_users: users,
                    sessions_opened: 0,
                }
            })
            .collect();
        WeeklySeries { origin, weeks }
    }
}

/// Processor-seconds `job` asks for: processors × estimate.
fn work(job: &JobRequest) -> i128 {
    i128::from(job.size) * i128::from(job.estimate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::DAY;

    fn job(user: i64, size: u32, estimate: Time) -> JobRequest {
        JobRequest {
            id: 0,
            seq: 0,
            submit: 0,
            size,
            estimate,
            plan: estimate,
            user,
            app: -1,
            think: Time::MAX,
            logged_wait: None,
            opens_session: None,
        }
    }

    /// On 4 processors from t = 100: job a (user 1, 2 processors, estimate 2 d) waits
    /// from 100 to 100 + 3.5 d and runs 7 d; job b (user 2, 4 processors, estimate 1 d) is
    /// submitted at 100 + 6 d and waits to the end, 100 + 10.5 d, job a's end. Week 0:
    /// a waits half the week, b one day of seven; a runs 3.5 d on 2 processors. Week 1,
    /// half a week: b waits it all; a runs it all.
    #[test]
    fn means_are_weighted_by_time_within_each_week() {
        let (t0, half) = (100, WEEK / 2);
        let (a, b) = (job(1, 2, 2 * DAY), job(2, 4, DAY));
        let mut s = WeeklySteps::default();
        s.submit(t0, &a);
        s.start(t0 + half, &a);
        s.submit(t0 + 6 * DAY, &b);
        // User 2 again (one active user): a job that waits 1 s and runs 1 s.
        s.submit(t0 + 6 * DAY, &job(2, 1, 1));
        s.start(t0 + 6 * DAY + 1, &job(2, 1, 1));
        s.end(t0 + 6 * DAY + 2, 1);
        s.end(t0 + half + WEEK, 2);
        let series = s.finish(t0 + half + WEEK, 4);
        assert_eq!(series.origin, t0);
        let w = &series.weeks;
        assert_eq!(w.len(), 2);
        assert_eq!((w[0].week, w[1].week), (0, 1));
        assert_eq!((w[0].length_hours, w[1].length_hours), (168.0, 84.0));
        // 2 of 4 processors for half the week (plus 1 for 1 s).
        let one_second = 100.0 / 4.0 / WEEK as f64;
        assert!((w[0].utilization_pct - (25.0 + one_second)).abs() < 1e-12);
        assert_eq!(w[1].utilization_pct, 50.0);
        // a: 1/2 of the week; b: 1/7; the 1-second job: 1 s.
        let expected = 0.5 + 1.0 / 7.0 + 1.0 / WEEK as f64;
        assert!((w[0].waiting_jobs - expected).abs() < 1e-12);
        assert_eq!(w[1].waiting_jobs, 1.0);
        // a asked 2 × 48 = 96 processor-hours for half the week, b 4 × 24 = 96 for a
        // seventh (the 1-second job: 1/3600 processor-hour for 1 s).
        let expected = 48.0 + 96.0 / 7.0 + 1.0 / 3600.0 / WEEK as f64;
        assert!((w[0].waiting_proc_hours - expected).abs() < 1e-9);
        assert_eq!(w[1].waiting_proc_hours, 96.0);
        assert_eq!((w[0].active_users, w[1].active_users), (2, 0));
        let mut series = series;
        series.count_sessions([t0, t0 + 6 * DAY, t0 + WEEK, t0 + 20 * WEEK]);
        let opened: Vec<u64> = series.weeks.iter().map(|w| w.sessions_opened).collect();
        assert_eq!(
            opened,
            [2, 2],
            "sessions past the end count in the last week"
        );
    }

    #[test]
    fn a_run_of_whole_weeks_has_no_empty_last_week() {
        let mut s = WeeklySteps::default();
        s.submit(0, &job(1, 1, 10));
        s.start(0, &job(1, 1, 10));
        s.end(WEEK, 1);
        s.submit(WEEK, &job(3, 1, 10));
        let series = s.finish(WEEK, 2);
        assert_eq!(series.weeks.len(), 1);
        assert_eq!(series.weeks[0].utilization_pct, 50.0);
        assert_eq!(series.weeks[0].active_users, 2);
        assert!(WeeklySteps::default().finish(10, 2).weeks.is_empty());
    }
}
