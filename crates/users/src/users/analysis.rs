//! What a log's users did: sessions, think times, arrivals by local hour and weekday,
//! and flurries (`sitesim analyze`; Feitelson 2021, §3.4, §4.3; Talby 2006, §9).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::localtime::{SiteClock, WEEKDAYS};
use crate::metrics::Spread;
use crate::time::{DAY, HOUR, Hms, MINUTE, Time, WEEK};
use crate::users::continuation::Bucket;
use crate::users::{ContinuationCurve, Patience};
use crate::workload::trace::Trace;

/// Think times by range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThinkTimes {
    /// Jobs with a think time (every job but each user's first).
    pub jobs: u64,
    /// `(range, jobs)`: negative (submitted while the previous job ran), then ranges of
    /// non-negative think times.
    pub ranges: Vec<(String, u64)>,
    /// Spread of the think times within sessions that are not negative.
    pub within_sessions: Spread,
}

/// A user's week far above every other user's busiest week.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Flurry {
    /// The user.
    pub user: i64,
    /// The week, counted from the log's first submission.
    pub week: i64,
    /// Its jobs that week.
    pub jobs: u64,
    /// The most jobs any other user submitted in one week.
    pub others_max: u64,
}

/// The analysis of a log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogAnalysis {
    /// Users.
    pub users: u64,
    /// Jobs.
    pub jobs: u64,
    /// Weeks from first to last submission.
    pub weeks: f64,
    /// Sessions.
    pub sessions: u64,
    /// Sessions per user.
    pub sessions_per_user: Spread,
    /// Jobs per session.
    pub jobs_per_session: Spread,
    /// Session durations, first submission to last end, seconds.
    pub session_duration: Spread,
    /// Think times.
    pub think_times: ThinkTimes,
    /// Jobs with no termination dependency (nothing of the user had ended when they
    /// were submitted).
    pub independent_jobs: u64,
    /// The zone local times are taken in.
    pub time_zone: String,
    /// Submissions by local hour of the day.
    pub arrivals_by_hour: Vec<u64>,
    /// Submissions by day of the week, Monday first.
    pub arrivals_by_weekday: Vec<u64>,
    /// The flurry factor used.
    pub flurry_factor: f64,
    /// Flurries.
    pub flurries: Vec<Flurry>,
    /// The share of sessions continued, by response time and slowdown (Feitelson 2021, Fig. 18).
    pub continuation: ContinuationCurve,
}

const THINK_RANGES: [(Time, &str); 7] = [
    (MINUTE, "0-1 min"),
    (5 * MINUTE, "1-5 min"),
    (20 * MINUTE, "5-20 min"),
    (HOUR, "20-60 min"),
    (4 * HOUR, "1-4 h"),
    (DAY, "4-24 h"),
    (Time::MAX, "1 d or more"),
];

impl LogAnalysis {
    /// Analyses `trace` (read from `source`); local times by `clock`; a user's week is a
    /// flurry when it has more than `flurry_factor` times the jobs of any other user's
    /// busiest week.
    pub fn of(trace: &Trace, source: &str, clock: &SiteClock, flurry_factor: f64) -> Self {
        let (first, last) = trace.span;
        let mut sessions_per_user = Vec::new();
        let mut jobs_per_session = Vec::new();
        let mut durations = Vec::new();
        let mut within = Vec::new();
        let mut ranges = vec![0u64; THINK_RANGES.len() + 1];
        let mut thinks = 0;
        let mut independent = 0;
        let mut by_hour = vec![0u64; 24];
        let mut by_weekday = vec![0u64; 7];
        let mut weekly: BTreeMap<(i64, i64), u64> = BTreeMap::new();
        for u in &trace.users {
            sessions_per_user.push(u.windows.len() as Time);
            let mut session: Option<(Time, Time, Time)> = None; // (start, last end, jobs)
            for j in &u.jobs {
                if j.opens_session {
                    if let Some((s, e, n)) = session {
                        durations.push(e - s);
                        jobs_per_session.push(n);
                    }
                    session = Some((j.submit, j.end, 0));
                }
                let s = session
                    .as_mut()
                    .expect("a user's first job opens a session");
                s.1 = s.1.max(j.end);
                s.2 += 1;
                if let Some(t) = j.think {
                    thinks += 1;
                    let slot = if t < 0 {
                        0
                    } else {
                        1 + THINK_RANGES.partition_point(|&(b, _)| b <= t)
                    };
                    ranges[slot.min(THINK_RANGES.len())] += 1;
                    if !j.opens_session && t >= 0 {
                        within.push(t);
                    }
                }
                independent += u64::from(j.dep_think.is_none());
                let l = clock.local(j.submit);
                by_hour[usize::from(l.hour)] += 1;
                by_weekday[usize::from(l.weekday)] += 1;
                *weekly
                    .entry((u.user, (j.submit - first) / WEEK))
                    .or_default() += 1;
            }
            if let Some((s, e, n)) = session {
                durations.push(e - s);
                jobs_per_session.push(n);
            }
        }
        LogAnalysis {
            users: trace.users.len() as u64,
            jobs: trace.jobs() as u64,
            weeks: (last - first) as f64 / WEEK as f64,
            sessions: trace.sessions() as u64,
            sessions_per_user: Spread::of(sessions_per_user),
            jobs_per_session: Spread::of(jobs_per_session),
            session_duration: Spread::of(durations),
            think_times: ThinkTimes {
                jobs: thinks,
                ranges: std::iter::once("negative")
                    .chain(THINK_RANGES.iter().map(|r| r.1))
                    .map(str::to_owned)
                    .zip(ranges)
                    .collect(),
                within_sessions: Spread::of(within),
            },
            independent_jobs: independent,
            time_zone: clock.zone_name().to_owned(),
            arrivals_by_hour: by_hour,
            arrivals_by_weekday: by_weekday,
            flurry_factor,
            flurries: flurries(&weekly, flurry_factor),
            continuation: ContinuationCurve::fit(trace, source).with_patience(
                Patience::of_waits(
                    trace
                        .users
                        .iter()
                        .flat_map(|u| &u.jobs)
                        .map(|j| j.start - j.submit),
                    trace.config.threshold,
                    Patience::DEFAULT_STRIKES,
                )
                .map(|p| p.limit),
            ),
        }
    }

    /// The analysis as text.
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        let w = &mut out;
        let _ = writeln!(
            w,
            "{source}: {} jobs by {} users over {:.1} weeks",
            self.jobs, self.users, self.weeks
        );
        let spread = |w: &mut String, name: &str, s: &Spread, time: bool| {
            let v = |x: Time| {
                if time {
                    Hms(x).to_string()
                } else {
                    x.to_string()
                }
            };
            let mean = if time {
                Hms(s.mean.round() as Time).to_string()
            } else {
                format!("{:.2}", s.mean)
            };
            let _ = writeln!(
                w,
                "  {name:<22} mean {mean}, median {}, p90 {}, max {}",
                v(s.median),
                v(s.p90),
                v(s.max)
            );
        };
        let _ = writeln!(w, "  sessions               {}", self.sessions);
        spread(w, "sessions per user", &self.sessions_per_user, false);
        spread(w, "jobs per session", &self.jobs_per_session, false);
        spread(w, "session duration", &self.session_duration, true);
        let t = &self.think_times;
        let _ = writeln!(w, "  think times            {} jobs:", t.jobs);
        for (range, n) in &t.ranges {
            let _ = writeln!(
                w,
                "    {range:<12} {n:>8} ({:.1}%)",
                100.0 * *n as f64 / t.jobs.max(1) as f64
            );
        }
        spread(w, "within sessions (>= 0)", &t.within_sessions, true);
        let _ = writeln!(
            w,
            "  independent jobs       {} ({:.1}%): nothing of their user had ended when they were submitted",
            self.independent_jobs,
            100.0 * self.independent_jobs as f64 / self.jobs.max(1) as f64
        );
        let _ = writeln!(w, "  arrivals by hour ({}):", self.time_zone);
        let total = self.jobs.max(1) as f64;
        for (h, n) in self.arrivals_by_hour.iter().enumerate() {
            let _ = writeln!(
                w,
                "    {h:02}:00 {n:>7} {:>5.1}% {}",
                100.0 * *n as f64 / total,
                "#".repeat((200.0 * *n as f64 / total).round() as usize)
            );
        }
        let _ = writeln!(w, "  arrivals by weekday:");
        for (d, n) in self.arrivals_by_weekday.iter().enumerate() {
            let _ = writeln!(
                w,
                "    {} {n:>8} {:>5.1}% {}",
                WEEKDAYS[d],
                100.0 * *n as f64 / total,
                "#".repeat((100.0 * *n as f64 / total).round() as usize)
            );
        }
        if self.flurries.is_empty() {
            let _ = writeln!(
                w,
                "  flurries               none (no user-week above {} times every other user's busiest week)",
                self.flurry_factor
            );
        } else {
            let _ = writeln!(
                w,
                "  flurries               user-weeks above {} times every other user's busiest week:",
                self.flurry_factor
            );
            for f in &self.flurries {
                let _ = writeln!(
                    w,
                    "    user {} week {}: {} jobs (others at most {})",
                    f.user, f.week, f.jobs, f.others_max
                );
            }
        }
        render_continuation(w, &self.continuation);
        out
    }
}

/// The Fig. 18 table of Feitelson 2021 (after Shmueli & Feitelson 2007): the share of
/// continued sessions by the previous job's response time and by its bounded slowdown,
/// each with its pairs and 95% Wilson interval, and the logistic in ln(response).
fn render_continuation(w: &mut String, c: &ContinuationCurve) {
    let _ = writeln!(
        w,
        "  session continuation   {} pairs with think time >= 0 ({} submitted while the previous job ran, left out); continued: think time under {}, median {}",
        c.pairs,
        c.concurrent,
        Hms(c.threshold),
        Hms(c.continued_think())
    );
    fn row<B>(w: &mut String, bound: String, b: &Bucket<B>) {
        if b.jobs == 0 {
            let _ = writeln!(w, "    {bound:<16} {:>7}", 0);
        } else {
            let (lo, hi) = b.interval();
            let _ = writeln!(
                w,
                "    {bound:<16} {:>7} {:>8.1}%   [{:.1}%, {:.1}%]",
                b.jobs,
                100.0 * b.share,
                100.0 * lo,
                100.0 * hi
            );
        }
    }
    let _ = writeln!(
        w,
        "    {:<16} {:>7} {:>9}   95% interval",
        "response time", "pairs", "continued"
    );
    for b in &c.buckets {
        let bound = b
            .up_to
            .map_or("longer".to_owned(), |u| format!("<= {}", Hms(u)));
        row(w, bound, b);
    }
    let _ = writeln!(w, "    {:<16}", "bounded slowdown");
    for b in &c.slowdown {
        let bound = b.up_to.map_or("more".to_owned(), |u| format!("<= {u}"));
        row(w, bound, b);
    }
    let l = &c.logistic;
    let _ = writeln!(
        w,
        "    logistic         p(r) = 1 / (1 + exp(-({:.4} {:+.4} ln r))): {:.1}% at 1 min, {:.1}% at 15 min, {:.1}% at 1 h, {:.1}% at 4 h, {:.1}% at 1 d",
        l.intercept,
        l.slope,
        100.0 * l.share(MINUTE),
        100.0 * l.share(15 * MINUTE),
        100.0 * l.share(HOUR),
        100.0 * l.share(4 * HOUR),
        100.0 * l.share(DAY)
    );
}

/// The users of `trace` with a flurry: a week of more than `factor` times the jobs of
/// every other user's busiest week (weeks from the log's first submission).
pub fn flurry_users(trace: &Trace, factor: f64) -> Vec<i64> {
    let mut weekly: BTreeMap<(i64, i64), u64> = BTreeMap::new();
    for u in &trace.users {
        for j in &u.jobs {
            *weekly
                .entry((u.user, (j.submit - trace.span.0) / WEEK))
                .or_default() += 1;
        }
    }
    let mut users: Vec<i64> = flurries(&weekly, factor).iter().map(|f| f.user).collect();
    users.dedup();
    users
}

/// The flurry factor `sitesim analyze` and the resampling pools use by default.
pub const DEFAULT_FLURRY_FACTOR: f64 = 2.0;

/// User-weeks with more than `factor` times the jobs of every other user's busiest week
/// (none in a log of one user: a flurry stands out of other users' activity).
fn flurries(weekly: &BTreeMap<(i64, i64), u64>, factor: f64) -> Vec<Flurry> {
    // Each user's busiest week, and the two largest of those.
    let mut busiest: BTreeMap<i64, u64> = BTreeMap::new();
    for (&(user, _), &n) in weekly {
        let b = busiest.entry(user).or_default();
        *b = (*b).max(n);
    }
    let mut top: Vec<(u64, i64)> = busiest.iter().map(|(&u, &n)| (n, u)).collect();
    if top.len() < 2 {
        return Vec::new();
    }
    top.sort_unstable_by(|a, b| b.cmp(a));
    weekly
        .iter()
        .filter_map(|(&(user, week), &jobs)| {
            let others_max = top.iter().find(|t| t.1 != user).map_or(0, |t| t.0);
            (jobs as f64 > factor * others_max as f64).then_some(Flurry {
                user,
                week,
                jobs,
                others_max,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flurry_stands_out_of_every_other_users_weeks() {
        let mut weekly = BTreeMap::new();
        weekly.insert((1, 0), 10);
        weekly.insert((1, 1), 50);
        weekly.insert((2, 0), 12);
        weekly.insert((3, 4), 500);
        let f = flurries(&weekly, 5.0);
        assert_eq!(
            f,
            [Flurry {
                user: 3,
                week: 4,
                jobs: 500,
                others_max: 50
            }]
        );
        // One user alone has no flurry.
        let alone: BTreeMap<(i64, i64), u64> = [((7, 0), 3), ((7, 1), 900)].into();
        assert!(flurries(&alone, 2.0).is_empty());
    }
}
