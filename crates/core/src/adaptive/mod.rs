//! Adaptive meta-schedulers (Talby 2006, ch. 7, after Talby and Feitelson, IPDPS 2005):
//! policies that hand the machine from one candidate policy to another as time goes on.
//!
//! * [`TimeOfDay`] switches on a schedule: one policy during the local working hours,
//!   another at night.
//! * [`Pbas`], the performance-based adaptive scheduler (§7.3, Figure 8): at every switch
//!   time it replays each candidate in the background over the last switch period, from
//!   the real state at its start (a shadow run of the site simulation, `shadow.rs`), and
//!   activates the one that did best by the chosen metric.
//! * [`Wbas`], the workload-based adaptive scheduler (§7.4, Figure 12): at every switch
//!   time it activates `high` if the jobs that arrived in the last period asked for more
//!   processors per job than the long-term average, `low` otherwise.
//!
//! All three are one [`Switching`] scheduler over their own [`Rule`]. It keeps a fresh,
//! never-used prototype of each candidate. Only the active candidate sees events and
//! schedules; when another one takes over, it is a copy of its prototype brought to the
//! real state by `Scheduler::sync`. Switch times are passes
//! the meta-scheduler asks for (`Scheduler::wake_at`) while jobs are waiting or running;
//! on an empty machine no pass is asked for (a run must be able to end), and a switch that
//! fell due meanwhile happens at the next pass. While jobs run and none waits after a
//! switch that can change nothing (see [`Switching`]), no pass is asked for either: the
//! next job event reaches the switch times between. The choices the thesis leaves open are in
//! `docs/MODELS.md`, "Adaptive scheduling (Talby 2006, ch. 7)".
//!
//! This layer sits above the site simulation (`crate::sim`), which PBAS runs for its
//! shadows, and below the registry (`crate::registry`), which gives each meta-scheduler
//! its parameters and its candidates as [`Candidate`]s.

mod pbas;
mod shadow;
mod switching;
mod time_of_day;
mod wbas;

use std::fmt;

pub use pbas::{Pbas, PbasMetric, PbasParams, PbasRule};
pub use switching::{AdaptiveReport, CandidateReport, Candidates, Rule, Switching};
pub use time_of_day::{TimeOfDay, TimeOfDayParams, TimeOfDayRule};
pub use wbas::{Wbas, WbasParams, WbasRule};

use crate::sched::Builder;
use crate::time::Time;

/// The shortest switch period of an adaptive policy (`pbas`, `wbas`): a busy run costs a
/// switch per period (PBAS replays every candidate at each), so a period of one second
/// made a run of three long jobs take 80 minutes; the thesis's periods are 12 hours and
/// a day (Talby 2006, §7.3-7.4).
pub const MIN_PERIOD: Time = 60;

/// The switch times `first`, `first + period`, ... before `before`: how many there are
/// and the last, `None` if there is none.
fn switch_times_before(first: Time, period: Time, before: Time) -> Option<(u64, Time)> {
    if first >= before {
        return None;
    }
    let n = (before - 1 - first) / period + 1;
    Some((n as u64, first + (n - 1) * period))
}

/// A candidate policy of a meta-scheduler: its label (its spec, `NAME[:key=value,...]`)
/// and how to build it. Two candidates are equal when their labels are. The registry
/// makes one from a spec (`From<SchedulerSpec>`).
#[derive(Clone)]
pub struct Candidate {
    /// Its spec, `NAME[:key=value,...]`, as reports show it.
    pub label: String,
    /// Builds a fresh scheduler of it.
    pub build: Builder,
}

impl Candidate {
    /// A candidate labelled `label`, built by `build`.
    pub fn new(label: impl Into<String>, build: Builder) -> Self {
        Candidate {
            label: label.into(),
            build,
        }
    }
}

impl fmt::Debug for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Candidate({})", self.label)
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.label == other.label
    }
}
