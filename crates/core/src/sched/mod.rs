//! Scheduling policies behind one [`Scheduler`] trait.
//!
//! A scheduler sees a read-only [`SystemView`] of the machine (the clock, the queue in
//! submission order, the running jobs, each user's session state) and answers each
//! scheduling pass with the waiting jobs to start now. It plans with each job's plan (its
//! estimate, or a predictor's prediction); it never learns a job's runtime before the job
//! ends.
//!
//! Policies are chosen by name through the registry (`crate::registry`, a layer above):
//! the built-in ones, and any a program registers there before it reads its scenarios
//! (see `examples/custom_policy.rs`). This layer only says how a scheduler is built
//! ([`BuildContext`], [`Builder`]). The adaptive meta-schedulers, which simulate their
//! candidates, are in `crate::adaptive`, above the simulation.

mod backfill;
mod build;
mod conservative;
mod creasy;
mod easy;
mod fairshare;
mod fcfs;
mod flex;
mod limits;
mod logged;
mod maui;
mod priority;
mod profile;
mod queue;
mod running;
mod usage;
mod users;

pub use build::{BuildContext, Builder, builder};
pub use conservative::Conservative;
pub use creasy::{Creasy, CreasyParams};
pub use easy::{Easy, easy_pass, shadow};
pub use fairshare::{Fairshare, FairshareParams};
pub use fcfs::Fcfs;
pub use flex::{FlexParams, Grade, Regrade, Slack};
pub use limits::{Held, Limits, UserLimits};
pub use logged::{Jitter, Logged};
pub use maui::{Maui, MauiParams};
pub use profile::Profile;
pub use queue::Queue;
pub use running::RunningByEnd;
pub use usage::{Shares, Usage};
pub use users::DENSE_USERS;
pub use users::{UserActivity, UserTable};

use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// A job that is running, as schedulers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningJob {
    /// The job.
    pub request: JobRequest,
    /// When it started.
    pub start: Time,
}

impl RunningJob {
    /// Start plus plan: when the scheduler planned for it to end.
    pub fn planned_end(&self) -> Time {
        self.start + self.request.plan
    }

    /// When the scheduler expects it to end, seen at `now`: its planned end, or one second
    /// from now if the job has outlived its estimate (the `overrun` policy without a
    /// predictor). Never in the past, because a job still running at `now` ends at
    /// `now + 1` at the earliest.
    pub fn expected_end(&self, now: Time) -> Time {
        self.planned_end().max(now + 1)
    }
}

/// What a scheduler may look at during a pass.
pub struct SystemView<'a> {
    /// The current time.
    pub now: Time,
    /// Processors in the machine.
    pub total: u32,
    /// Processors free right now.
    pub free: u32,
    queue: &'a Queue,
    running: &'a [RunningJob],
    users: &'a UserTable,
}

impl<'a> SystemView<'a> {
    /// A view of the given state.
    pub fn new(
        now: Time,
        total: u32,
        free: u32,
        queue: &'a Queue,
        running: &'a [RunningJob],
        users: &'a UserTable,
    ) -> Self {
        SystemView {
            now,
            total,
            free,
            queue,
            running,
            users,
        }
    }

    /// The session state of `user`: its jobs in the system, its latest submit and end.
    pub fn user(&self, user: i64) -> UserActivity {
        self.users.get(user)
    }

    /// Every user's session state.
    pub fn users(&self) -> &'a UserTable {
        self.users
    }

    /// Waiting jobs in submission order.
    pub fn queue(&self) -> &'a Queue {
        self.queue
    }

    /// Running jobs, in no particular order.
    pub fn running(&self) -> &'a [RunningJob] {
        self.running
    }
}

/// A scheduling policy.
///
/// The simulation calls [`Scheduler::on_submit`] for each arrival and
/// [`Scheduler::on_end`] for each termination as they happen, then, once all events of a
/// timestamp are applied, [`Scheduler::schedule`] once. The jobs a pass returns must be
/// waiting and must fit in the free processors together; the simulation checks both.
///
/// A scheduler is cloneable with its state (derive `Clone`; [`SchedulerClone`] follows),
/// and can be brought to any state of the machine by [`Scheduler::sync`]: adaptive
/// meta-schedulers (Talby 2006, ch. 7) simulate their candidates from the real state in
/// the background and hand control from one to another.
pub trait Scheduler: SchedulerClone + Send {
    /// The policy's name, as given on the command line.
    fn name(&self) -> &str;

    /// Forgets everything learned from past events and adopts the state in `view`: the
    /// jobs running (with their start times and plans) and the jobs waiting. A policy
    /// that keeps no state between passes has nothing to do.
    fn sync(&mut self, view: &SystemView<'_>);

    /// A job has joined the queue (it is already in `view.queue()`).
    fn on_submit(&mut self, _job: &JobRequest, _view: &SystemView<'_>) {}

    /// A running job has ended at `view.now` (it is no longer in `view.running()`).
    fn on_end(&mut self, _job: &RunningJob, _view: &SystemView<'_>) {}

    /// One scheduling pass: push the ids of the jobs to start now onto `starts`.
    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>);

    /// A job's plan changed from `old_plan` to `job.plan` (a predictor's update or a
    /// deadline miss); `started` is its start time if it runs.
    fn on_replan(
        &mut self,
        _job: &JobRequest,
        _old_plan: Time,
        _started: Option<Time>,
        _view: &SystemView<'_>,
    ) {
    }

    /// Whether the policy can plan with predictions that change while jobs wait and run.
    fn accepts_predictions(&self) -> bool {
        true
    }

    /// A time at which this policy needs a scheduling pass even if no job ends and none
    /// arrives then (conservative backfilling starts reserved jobs at their reserved
    /// times). Asked after every pass; an extra pass must change nothing.
    fn wake_at(&self) -> Option<Time> {
        None
    }

    /// The run stops at `horizon` with events left. A policy that asked for no pass at
    /// times it would have passed over an empty queue (an adaptive scheduler's switch
    /// times, [`crate::adaptive::Switching`]) reaches those up to `horizon` and returns
    /// the last, at which observers then see the machine. `None` for most policies.
    fn stop_at(&mut self, _horizon: Time) -> Option<Time> {
        None
    }

    /// The start times this policy currently guarantees to waiting jobs, for the
    /// invariant checker: EASY's reservation for the first job, every reservation of
    /// conservative backfilling.
    fn promises(&self, _out: &mut Vec<(JobId, Time)>) {}

    /// What the policy has to say of its run, for the summary: an adaptive scheduler's
    /// candidates and switches, the jobs per-user limits held. `None` for most policies.
    fn run_report(&self) -> Option<serde_json::Value> {
        None
    }

    /// Why this scheduler cannot go on, if it cannot: a scheduler written outside Rust
    /// (the Python package's) whose callback failed. Asked after every pass; the run then
    /// ends with this as its error. `None` for every built-in policy.
    fn fault(&self) -> Option<String> {
        None
    }

    /// Whether this policy replays the log's own service (`logged`): every job must
    /// carry its logged wait ([`JobRequest::logged_wait`]), jobs start whatever the free
    /// processors (the machine is unbounded) and run their logged runtime whatever their
    /// estimate. The calibration baseline of a user model, not a scheduler.
    fn logged_service(&self) -> bool {
        false
    }
}

/// Cloning a boxed scheduler with its state; implemented for every `Scheduler + Clone`.
pub trait SchedulerClone {
    /// A copy of this scheduler, state included.
    fn clone_box(&self) -> Box<dyn Scheduler>;
}

impl<T: Scheduler + Clone + 'static> SchedulerClone for T {
    fn clone_box(&self) -> Box<dyn Scheduler> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Scheduler> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// The classic policies, by name (the registry, `crate::registry`, knows these and more).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// First come, first served, no backfilling.
    Fcfs,
    /// EASY backfilling (Lifka; Mu'alem and Feitelson 2001, §2.2); with a predictor, EASY++.
    Easy,
    /// Shortest-job-backfilled-first: EASY backfilling candidates in order of their plan
    /// (Talby et al. 2006, §3.2).
    Sjbf,
    /// Conservative backfilling (Mu'alem and Feitelson 2001, §2.1).
    Conservative,
}

impl Policy {
    /// A fresh scheduler of this policy for a machine of `procs` processors.
    pub fn build(self, procs: u32) -> Box<dyn Scheduler> {
        match self {
            Policy::Fcfs => Box::new(Fcfs),
            Policy::Easy => Box::new(Easy::new()),
            Policy::Sjbf => Box::new(Easy::sjbf()),
            Policy::Conservative => Box::new(Conservative::new(procs)),
        }
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Fcfs => "fcfs",
            Policy::Easy => "easy",
            Policy::Sjbf => "sjbf",
            Policy::Conservative => "conservative",
        }
    }

    /// What the policy does, in a line (`sitesim policies`).
    pub fn about(self) -> &'static str {
        match self {
            Policy::Fcfs => "first come, first served, no backfilling",
            Policy::Easy => "EASY backfilling (EASY++ with a predictor)",
            Policy::Sjbf => "EASY with backfilling candidates shortest plan first",
            Policy::Conservative => "conservative backfilling with compression",
        }
    }

    /// Every built-in policy.
    pub const ALL: [Policy; 4] = [
        Policy::Fcfs,
        Policy::Easy,
        Policy::Sjbf,
        Policy::Conservative,
    ];
}
