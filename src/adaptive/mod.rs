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
//! All three keep a fresh, never-used prototype of each candidate. Only the active
//! candidate sees events and schedules; when another one takes over, it is a copy of its
//! prototype brought to the real state by [`Scheduler::sync`]. Switch times are passes
//! the meta-scheduler asks for ([`Scheduler::wake_at`]) while jobs are waiting or running;
//! on an empty machine no pass is asked for (a run must be able to end), and a switch that
//! fell due meanwhile happens at the next pass. The choices the thesis leaves open are in
//! `docs/MODELS.md`, "Adaptive scheduling (Talby 2006, ch. 7)".
//!
//! This layer sits above the site simulation (`crate::sim`), which PBAS runs for its
//! shadows, and below the registry (`crate::registry`), which gives each meta-scheduler
//! its parameters and its candidates as [`Candidate`]s.

mod pbas;
mod shadow;
mod time_of_day;
mod wbas;

use std::fmt;

pub use pbas::{Pbas, PbasMetric, PbasParams};
pub use time_of_day::{TimeOfDay, TimeOfDayParams};
pub use wbas::{Wbas, WbasParams};

use crate::sched::{BuildContext, Builder, Scheduler, SystemView};
use crate::time::Time;

/// The shortest switch period of an adaptive policy (`pbas`, `wbas`): a busy run costs a
/// switch per period (PBAS replays every candidate at each), so a period of one second
/// made a run of three long jobs take 80 minutes; the thesis's periods are 12 hours and
/// a day (Talby 2006, §7.3-7.4).
pub const MIN_PERIOD: Time = 60;

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

/// How a meta-scheduler used its candidates, for reports and tests.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AdaptiveReport {
    /// The meta-scheduler: `pbas`, `wbas` or `time-of-day`.
    pub policy: &'static str,
    /// The candidates in their order: PBAS's as given, WBAS's `high` then `low`,
    /// time-of-day's `day` then `night`.
    pub candidates: Vec<CandidateReport>,
    /// The active candidate (an index into `candidates`).
    pub active: usize,
    /// Switch times reached.
    pub switches_evaluated: u64,
    /// Switch times at which another candidate took over.
    pub switches_taken: u64,
}

/// One candidate of a meta-scheduler.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CandidateReport {
    /// Its spec, `NAME[:key=value,...]`.
    pub policy: String,
    /// Simulated seconds it was active, from the first event to the latest pass.
    pub seconds_active: Time,
    /// PBAS: its score at the latest switch time, if it had jobs to score.
    pub last_score: Option<f64>,
}

/// The candidates of a meta-scheduler: their prototypes, the active one, and counters.
#[derive(Clone)]
struct Candidates {
    labels: Vec<String>,
    /// Fresh schedulers, never used: copied when a candidate takes over.
    prototypes: Vec<Box<dyn Scheduler>>,
    active: usize,
    /// The active candidate, in the real state.
    scheduler: Box<dyn Scheduler>,
    /// When the active candidate took over; `None` before the first event.
    since: Option<Time>,
    /// The time of the latest pass.
    last_pass: Time,
    seconds_active: Vec<Time>,
    last_scores: Vec<Option<f64>>,
    switches_evaluated: u64,
    switches_taken: u64,
    /// No job was waiting or running at the latest pass.
    idle: bool,
}

impl Candidates {
    fn new<'a>(specs: impl IntoIterator<Item = &'a Candidate>, ctx: &BuildContext) -> Self {
        let (labels, prototypes): (Vec<String>, Vec<Box<dyn Scheduler>>) = specs
            .into_iter()
            .map(|c| (c.label.clone(), (c.build)(ctx)))
            .unzip();
        assert!(!prototypes.is_empty(), "a meta-scheduler needs a candidate");
        let n = prototypes.len();
        Candidates {
            labels,
            scheduler: prototypes[0].clone(),
            prototypes,
            active: 0,
            since: None,
            last_pass: Time::MIN,
            seconds_active: vec![0; n],
            last_scores: vec![None; n],
            switches_evaluated: 0,
            switches_taken: 0,
            idle: true,
        }
    }

    fn started(&self) -> bool {
        self.since.is_some()
    }

    /// At the first event, on an empty machine: candidate `first` starts, fresh.
    fn begin(&mut self, now: Time, first: usize) {
        debug_assert!(!self.started());
        self.since = Some(now);
        self.last_pass = now;
        if first != self.active {
            self.active = first;
            self.scheduler = self.prototypes[first].clone();
        }
    }

    /// Hands over to candidate `to` at `now`, without counting a switch.
    fn hand_over(&mut self, to: usize, now: Time) {
        if let Some(since) = self.since {
            self.seconds_active[self.active] += now - since;
        }
        self.since = Some(now);
        self.active = to;
        self.scheduler = self.prototypes[to].clone();
    }

    /// A switch time: candidate `to` is chosen; it takes over in the state of `view` if it
    /// is not the active one.
    fn switch(&mut self, to: usize, view: &SystemView<'_>) {
        self.switches_evaluated += 1;
        if to != self.active {
            self.switches_taken += 1;
            self.hand_over(to, view.now);
            self.scheduler.sync(view);
        }
    }

    /// Adopts the state in `view`, with candidate `active` active.
    fn sync(&mut self, active: usize, view: &SystemView<'_>) {
        if !self.started() {
            self.since = Some(view.now);
        }
        if active != self.active {
            self.hand_over(active, view.now);
        }
        self.last_pass = self.last_pass.max(view.now);
        self.scheduler.sync(view);
    }

    /// Notes a pass at `view.now`.
    fn pass(&mut self, view: &SystemView<'_>) {
        self.last_pass = view.now;
        self.idle = view.queue().is_empty() && view.running().is_empty();
    }

    /// The earlier of the active candidate's wake-up and `switch`, unless the machine
    /// is empty.
    fn wake_at(&self, switch: Option<Time>) -> Option<Time> {
        let switch = switch.filter(|_| !self.idle);
        [self.scheduler.wake_at(), switch]
            .into_iter()
            .flatten()
            .min()
    }

    fn accepts_predictions(&self) -> bool {
        self.prototypes.iter().all(|p| p.accepts_predictions())
    }

    fn report(&self, policy: &'static str) -> AdaptiveReport {
        let candidates = (0..self.labels.len())
            .map(|i| CandidateReport {
                policy: self.labels[i].clone(),
                seconds_active: self.seconds_active[i]
                    + match self.since {
                        Some(since) if i == self.active => (self.last_pass - since).max(0),
                        _ => 0,
                    },
                last_score: self.last_scores[i],
            })
            .collect();
        AdaptiveReport {
            policy,
            candidates,
            active: self.active,
            switches_evaluated: self.switches_evaluated,
            switches_taken: self.switches_taken,
        }
    }
}
