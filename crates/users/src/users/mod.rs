//! Simulated users: agents that submit jobs, wait for them, think, and go away and come
//! back with their session windows (Feitelson 2021, §4.3, Fig. 13).
//!
//! A [`TraceAgent`] replays one user of a log with feedback: its jobs in log order, each
//! once the jobs it depends on have ended on the simulated machine, plus its think time,
//! inside the user's session windows ([`fluid`]). [`deps`] tracks the dependencies.
//! Trace, resampled and model-based users (`crate::model::site`) share the reactions to
//! service: [`reaction`] decides after each result whether the user goes on with its
//! session, breaks it off or adds a job, by the [`continuation`] curve fitted from a
//! log, and [`behaviour`] holds the patience that makes a user leave for good.

pub mod agent;
pub mod analysis;
pub mod behaviour;
pub mod continuation;
pub mod deps;
pub mod drift;
mod feedback;
pub mod fluid;
pub mod pools;
pub mod population;
pub mod reaction;
pub mod session;

pub use agent::{TraceAgent, UserCounts, UserState};
pub use behaviour::{Behaviour, KTH_CONTINUATION, Patience, PatienceLimit, PatienceOption};
pub use continuation::ContinuationCurve;
pub use drift::{Drift, Lateness, LatenessSummary, Rule};
pub use feedback::{PopulationSummary, TraceUsers};
pub use fluid::{
    CalendarShift, FlowForward, NegativeThink, OpeningThink, Placement, Return, ThinkRules, Windows,
};

use crate::textfmt::short_number;
use crate::time::Time;

/// How trace users behave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserConfig {
    /// How they think and come back.
    pub rules: ThinkRules,
    /// The session threshold, seconds (for [`OpeningThink::Capped`]).
    pub threshold: Time,
    /// Reactions to bad service.
    pub behaviour: Behaviour,
    /// No feedback: every job is submitted at its logged time (shifted with its user),
    /// whatever became of the jobs before it; the open-loop baseline of a resampled
    /// workload (Feitelson 2021, Fig. 17).
    pub open_loop: bool,
}

/// The most users one population holds: a resampled run's long-term users at the start,
/// a model-based site's users over its run. The sites of the Parallel Workloads Archive
/// have at most about a thousand users (the Curie log 722, KTH 214), so this is a hundred
/// times the largest; it bounds what a population multiplier can ask for, since each
/// user costs memory for its jobs (resampled KTH at 1,000 times its long-term users, 70,000
/// of them, holds 2.6 GB) and a multiplier of `1e308` asked for more users than any count
/// holds (docs/RELIABILITY.md, "Bounds on input").
pub const MAX_USERS: u64 = 100_000;

/// A population that would hold more than [`MAX_USERS`] users.
#[derive(Debug, Clone, PartialEq)]
pub struct TooManyUsers {
    /// Which users: "the long-term users at the start", "the users by week 3".
    pub what: String,
    /// How many there would be (expected, or drawn), perhaps infinite.
    pub count: f64,
}

impl TooManyUsers {
    /// Refuses `count` users past [`MAX_USERS`] (and a count that is not a number).
    pub fn check(what: impl Fn() -> String, count: f64) -> Result<(), Self> {
        if count <= MAX_USERS as f64 {
            Ok(())
        } else {
            Err(TooManyUsers {
                what: what(),
                count,
            })
        }
    }
}

impl std::fmt::Display for TooManyUsers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = if self.count.is_finite() {
            format!("{} users", short_number(self.count.round()))
        } else {
            "more users than a number holds".into()
        };
        write!(
            f,
            "{} would be {count}, more than the {MAX_USERS} one population holds: the \
             population multiplier (--population, --populations, --long-term, --temporary; \
             a scenario's [population]) or the users' weights (--weight) ask for too many",
            self.what,
        )
    }
}

impl std::error::Error for TooManyUsers {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_population_is_refused_past_its_bound_and_named() {
        assert!(TooManyUsers::check(|| "users".into(), MAX_USERS as f64).is_ok());
        for (count, shown) in [
            (MAX_USERS as f64 + 0.5, "would be 100001 users"),
            (1e300, "would be 1e300 users"),
            (f64::INFINITY, "would be more users than a number holds"),
            (f64::NAN, "would be more users than a number holds"),
        ] {
            let e = TooManyUsers::check(|| "the start-up users".into(), count).unwrap_err();
            let text = e.to_string();
            assert!(
                text.starts_with("the start-up users ") && text.contains(shown),
                "{text}"
            );
        }
    }
}
