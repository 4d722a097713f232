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
pub mod behaviour;
pub mod continuation;
pub mod deps;
pub mod drift;
pub mod fluid;
pub mod reaction;
pub mod session;

pub use agent::{TraceAgent, UserCounts, UserState};
pub use behaviour::{Behaviour, KTH_CONTINUATION, Patience};
pub use continuation::ContinuationCurve;
pub use drift::{Drift, Rule};
pub use fluid::{FlowForward, NegativeThink, OpeningThink, Placement, Windows};

use crate::time::Time;

/// How trace users behave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserConfig {
    /// Think time of session openers.
    pub opening: OpeningThink,
    /// Spacing of jobs submitted while the previous one ran.
    pub negative: NegativeThink,
    /// How far jobs may flow forward into earlier sessions.
    pub flow: FlowForward,
    /// The session threshold, seconds (for [`OpeningThink::Capped`]).
    pub threshold: Time,
    /// Reactions to bad service.
    pub behaviour: Behaviour,
    /// No feedback: every job is submitted at its logged time (shifted with its user),
    /// whatever became of the jobs before it; the open-loop baseline of a resampled
    /// workload (Feitelson 2021, Fig. 17).
    pub open_loop: bool,
}
