//! A log's users split into the pools resampling draws from (Feitelson 2021, §4.2, after Zakay &
//! Feitelson 2014; notes §8.6): **long-term** users, active through much of the log, and
//! **temporary** users, active for a few weeks or months; users whose whole activity lies
//! too close to either end of the log are **excluded**, since the log cut them off and
//! their kind cannot be told.
//!
//! The seed gives no thresholds. The defaults, from the logs in `../shared/workloads`
//! (`docs/MODELS.md`, "Resampling"): long-term when the span from first to last
//! submission covers at least half of the log's span; excluded when all the user's
//! submissions fall within two weeks of the log's first or last submission, or within a
//! 24th of its span if that is shorter (two weeks is a 24th of KTH's year; on a log of a
//! few weeks, two weeks from either end would exclude nearly every user, and resampling
//! cannot give back load it never draws).

use serde::Serialize;

use super::analysis::{DEFAULT_FLURRY_FACTOR, flurry_users};
use crate::time::{Time, WEEK};
use crate::workload::trace::Trace;

/// How users are sorted into pools.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PoolConfig {
    /// A user is long-term when its activity spans at least this share of the log.
    pub long_term_share: f64,
    /// A user is excluded when its whole activity lies within this long of either end;
    /// `None`: [`DEFAULT_EDGE`], or a 24th of the log's span if that is shorter.
    pub edge: Option<Time>,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            long_term_share: 0.5,
            edge: None,
        }
    }
}

/// The default edge of a long log.
pub const DEFAULT_EDGE: Time = 2 * WEEK;

impl PoolConfig {
    /// The edge for a log spanning `span` seconds.
    pub fn edge_for(&self, span: Time) -> Time {
        self.edge.unwrap_or(DEFAULT_EDGE.min(span / 24))
    }
}

/// The pool of a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pool {
    /// Active through much of the log.
    LongTerm,
    /// Active for a part of it.
    Temporary,
    /// Too close to an end of the log to tell.
    Excluded,
}

/// One user of the log, as the pools see it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PoolUser {
    /// The user's number in the log.
    pub user: i64,
    /// Its pool.
    pub pool: Pool,
    /// First logged submission.
    pub first: Time,
    /// Last logged submission.
    pub last: Time,
    /// Its jobs.
    pub jobs: u64,
    /// Whether it has a flurry (a week of more than twice the jobs of every other
    /// user's busiest week; [`crate::users::analysis::flurry_users`]).
    pub flurry: bool,
}

/// The pools of a log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pools {
    /// The thresholds.
    pub config: PoolConfig,
    /// The edge in effect, seconds.
    pub edge: Time,
    /// The log's first and last submission.
    pub span: (Time, Time),
    /// Whole weeks in the log's span (at least 1).
    pub weeks: u64,
    /// Every user, in the order of the trace.
    pub users: Vec<PoolUser>,
    /// Long-term users.
    pub long_term: u64,
    /// Temporary users.
    pub temporary: u64,
    /// Excluded users.
    pub excluded: u64,
    /// Jobs of the excluded users.
    pub excluded_jobs: u64,
    /// Temporary users active in a week of the log, on average over its whole weeks (a
    /// user is active from its first to its last submission).
    pub temporary_per_week: f64,
    /// Temporary users per week of the log's span, a span shorter than a week counted as
    /// one: the rate at which new ones arrive (each of the log's came once, so no faster
    /// than all of them in a week; a log whose temporary users all came within a second
    /// would otherwise ask for 604,800 times its pool a week).
    pub temporary_arrivals_per_week: f64,
}

impl Pools {
    /// The pools of `trace`'s users.
    pub fn of(trace: &Trace, config: PoolConfig) -> Pools {
        let (start, end) = trace.span;
        let span = (end - start).max(1);
        let weeks = (span / WEEK).max(1) as u64;
        let edge = config.edge_for(span);
        let flurries = flurry_users(trace, DEFAULT_FLURRY_FACTOR);
        let users: Vec<PoolUser> = trace
            .users
            .iter()
            .map(|u| {
                let first = u.jobs.first().map_or(start, |j| j.submit);
                let last = u.jobs.last().map_or(start, |j| j.submit);
                let pool = if last < start + edge || first > end - edge {
                    Pool::Excluded
                } else if (last - first) as f64 >= config.long_term_share * span as f64 {
                    Pool::LongTerm
                } else {
                    Pool::Temporary
                };
                PoolUser {
                    user: u.user,
                    pool,
                    first,
                    last,
                    jobs: u.jobs.len() as u64,
                    flurry: flurries.contains(&u.user),
                }
            })
            .collect();
        let count = |p: Pool| users.iter().filter(|u| u.pool == p).count() as u64;
        let mut active = 0u64;
        for u in users.iter().filter(|u| u.pool == Pool::Temporary) {
            let w0 = ((u.first - start) / WEEK) as u64;
            let w1 = (((u.last - start) / WEEK) as u64).min(weeks - 1);
            active += (w1 + 1).saturating_sub(w0);
        }
        let temporary = count(Pool::Temporary);
        Pools {
            config,
            edge,
            span: (start, end),
            weeks,
            long_term: count(Pool::LongTerm),
            temporary,
            excluded: count(Pool::Excluded),
            excluded_jobs: users
                .iter()
                .filter(|u| u.pool == Pool::Excluded)
                .map(|u| u.jobs)
                .sum(),
            temporary_per_week: active as f64 / weeks as f64,
            temporary_arrivals_per_week: temporary as f64 * WEEK as f64 / span.max(WEEK) as f64,
            users,
        }
    }

    /// The pools as text.
    pub fn render(&self) -> String {
        let jobs = |p: Pool| -> u64 {
            self.users
                .iter()
                .filter(|u| u.pool == p)
                .map(|u| u.jobs)
                .sum()
        };
        format!(
            "  users of the log       {} long-term ({} jobs), {} temporary ({} jobs), \
             {} left out ({} jobs): long-term users are active over {:.0}% of the log, \
             those left out only within {} of its start or end\n  \
             temporary users        {:.2} active in a week on average, {:.2} new each week\n",
            self.long_term,
            jobs(Pool::LongTerm),
            self.temporary,
            jobs(Pool::Temporary),
            self.excluded,
            self.excluded_jobs,
            100.0 * self.config.long_term_share,
            crate::time::Span(self.edge),
            self.temporary_per_week,
            self.temporary_arrivals_per_week,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::TraceConfig;
    use crate::workload::trace::tests::trace_of;

    #[test]
    fn users_fall_into_pools_by_span_and_edges() {
        let w = WEEK;
        // (user, submit, wait, runtime); the log spans 20 weeks.
        let jobs = [
            (1, 0, 0, 10),          // user 1: the whole log, long-term
            (3, w, 0, 10),          // user 3: only in the first two weeks, excluded
            (5, 2 * w, 0, 10),      // user 5: weeks 2 to 13, long-term (11 of 20 weeks)
            (2, 3 * w, 0, 10),      // user 2: weeks 3 to 5, temporary
            (2, 5 * w, 0, 10),      //
            (5, 13 * w, 0, 10),     //
            (4, 19 * w - 10, 0, 5), // user 4: only in the last two weeks, excluded
            (1, 19 * w, 0, 10),     //
            (6, 20 * w, 0, 10),     // the log's last job (user 6, excluded)
        ];
        let trace = trace_of(&jobs, TraceConfig::default());
        let p = Pools::of(
            &trace,
            PoolConfig {
                edge: Some(2 * WEEK),
                ..PoolConfig::default()
            },
        );
        let pool = |u: i64| p.users.iter().find(|x| x.user == u).unwrap().pool;
        assert_eq!(pool(1), Pool::LongTerm);
        assert_eq!(pool(2), Pool::Temporary);
        assert_eq!(pool(3), Pool::Excluded);
        assert_eq!(pool(4), Pool::Excluded);
        assert_eq!(pool(5), Pool::LongTerm);
        assert_eq!((p.long_term, p.temporary, p.excluded), (2, 1, 3));
        assert_eq!(p.weeks, 20);
        // User 2 is active in weeks 3, 4 and 5.
        assert!((p.temporary_per_week - 3.0 / 20.0).abs() < 1e-12);
        assert!((p.temporary_arrivals_per_week - 1.0 / 20.0).abs() < 1e-12);
        assert_eq!(p.edge, 2 * WEEK);
    }

    #[test]
    fn the_default_edge_is_two_weeks_or_a_24th_of_the_span() {
        let c = PoolConfig::default();
        assert_eq!(c.edge_for(52 * WEEK), 2 * WEEK);
        assert_eq!(c.edge_for(24 * 3600 * 24), 24 * 3600);
        let fixed = PoolConfig {
            edge: Some(WEEK),
            ..c
        };
        assert_eq!(fixed.edge_for(3 * WEEK), WEEK);
    }
}
