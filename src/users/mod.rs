//! Simulated users: agents that submit jobs, wait for them, think, and go away and come
//! back with their session windows (seed 003 §4.3, Fig. 13).
//!
//! A [`TraceAgent`] replays one user of a log with feedback: its jobs in log order, each
//! once the jobs it depends on have ended on the simulated machine, plus its think time,
//! inside the user's session windows ([`fluid`]). [`deps`] tracks the dependencies;
//! [`behaviour`] holds the optional reactions to bad service, [`continuation`] the
//! session-continuation curve they use.

pub mod agent;
pub mod behaviour;
pub mod continuation;
pub mod deps;
pub mod drift;
pub mod fluid;

pub use agent::{TraceAgent, UserCounts, UserState};
pub use behaviour::{Behaviour, Patience};
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
    /// workload (seed 003 Fig. 17).
    pub open_loop: bool,
}
