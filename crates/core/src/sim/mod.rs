//! One simulated site: a workload, a scheduler and a machine of identical processors,
//! driven by the event engine.
//!
//! Events are job ends, workload wake-ups and passes a scheduler asked for. At equal
//! times, ends are applied before wake-ups, and wake-ups before requested passes (so a job
//! ending at `t` frees its processors before the pass at `t`, and a user woken by it can
//! submit at `t`); then one scheduling pass runs. Submissions stream in as the workload
//! decides them; nothing is preloaded.
//!
//! A run starts from an empty machine, or from a [`Snapshot`] of one
//! ([`Simulation::from_snapshot`]): PBAS (`crate::adaptive`) replays each candidate policy
//! over a past period this way, its workload resubmitting the period's arrivals as the
//! site once saw them ([`SourceCtx::resubmit`]).

mod checker;
mod planning;
mod snapshot;

pub use checker::Checker;
pub use planning::Planner;
pub use snapshot::Snapshot;

use crate::engine::{self, EventQueue, Model, Phase, RunCounts};
use crate::job::{JobId, JobOutcome, JobRequest, JobSpec, OverrunPolicy};
use crate::predict::Predictor;
use crate::sched::{Queue, RunningJob, Scheduler, SystemView, UserTable};
use crate::time::{LONGEST, Time};

/// Why a simulation stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The workload's input is malformed, or a questionable job met an `error` policy
    /// (the source's own error, which names file, line and field).
    #[error(transparent)]
    Input(Box<dyn std::error::Error + Send + Sync>),
    /// The workload submitted a job the machine cannot take.
    #[error("invalid job from the workload at time {now}: {problem}")]
    InvalidJob {
        /// When.
        now: Time,
        /// What is wrong.
        problem: String,
    },
    /// The scheduler asked for something impossible.
    #[error("scheduler '{scheduler}' at time {now}: {problem}")]
    Scheduler {
        /// The policy.
        scheduler: String,
        /// When.
        now: Time,
        /// What it asked.
        problem: String,
    },
    /// The invariant checker found a violation.
    #[error("invariant violated under '{scheduler}': {problem}")]
    Invariant {
        /// The policy.
        scheduler: String,
        /// The violation.
        problem: String,
    },
    /// The first job in the queue has waited longer than [`LONGEST`], so its wait would be
    /// a time sitesim refuses to read (a century): the machine is far too small for the
    /// workload. Refused so that a run's simulated span, its cost (the weekly metrics are
    /// kept densely) and the times of its outputs stay within what sitesim reads back
    /// (docs/RELIABILITY.md, "Bounds on input").
    #[error(
        "at time {now} job {job}, submitted at {submit}, has waited longer than 100 years \
         ({LONGEST} s), the longest time sitesim takes: the machine is far too small for \
         this workload"
    )]
    WaitTooLong {
        /// When.
        now: Time,
        /// The job's number (its log's, or the workload's).
        job: i64,
        /// Its submission time.
        submit: Time,
    },
    /// The workload failed for another reason.
    #[error("{0}")]
    Workload(String),
    /// The host abandoned the run before its end ([`engine::abandon_runs`]).
    #[error("the run was abandoned at time {now}")]
    Abandoned {
        /// When.
        now: Time,
    },
}

impl SimError {
    /// The workload's input error `e`.
    pub fn input(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> SimError {
        SimError::Input(e.into())
    }
}

/// What a workload may do when the simulation calls it: submit jobs now, and ask to be
/// woken later.
#[derive(Debug, Default)]
pub struct SourceCtx {
    now: Time,
    submits: Vec<JobSpec>,
    /// What is kept of the resubmissions among `submits`, by their index there.
    kept: Vec<(usize, Kept)>,
    wakes: Vec<(Time, u64)>,
}

/// A submission replayed as a site once saw it (PBAS's shadow runs): its submission
/// number, plan and think time are kept instead of those this site would give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    /// Its submission number; at least the next one this site would give (submission
    /// numbers only grow), and the next submission's comes after it.
    pub seq: u64,
    /// Its plan (the estimate, or the prediction it had): not predicted again.
    pub plan: Time,
    /// Its think time ([`JobRequest::think`]).
    pub think: Time,
}

impl SourceCtx {
    /// The current time.
    pub fn now(&self) -> Time {
        self.now
    }
    /// Submits a job now.
    pub fn submit(&mut self, job: JobSpec) {
        self.submits.push(job);
    }
    /// Submits a job now as a site once saw it: with the submission number, plan and
    /// think time in `kept`.
    pub fn resubmit(&mut self, job: JobSpec, kept: Kept) {
        self.kept.push((self.submits.len(), kept));
        self.submits.push(job);
    }
    /// Asks for [`Workload::on_wake`] with `token` at time `at` (not before now).
    pub fn wake_at(&mut self, at: Time, token: u64) {
        self.wakes.push((at, token));
    }
}

/// A source of jobs: a log replayed open-loop now, simulated users later.
pub trait Workload {
    /// Called once before the run; schedules the first wake-ups (it cannot submit yet).
    fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError>;
    /// A wake-up this workload asked for.
    fn on_wake(&mut self, token: u64, ctx: &mut SourceCtx) -> Result<(), SimError>;
    /// One of the jobs has ended (closed-loop workloads react to this).
    fn on_job_end(&mut self, _job: &JobOutcome, _ctx: &mut SourceCtx) -> Result<(), SimError> {
        Ok(())
    }
    /// The job tagged `tag` has started: it no longer waits (users who hold back while
    /// their jobs wait follow this). Called during a scheduling pass, so it submits
    /// nothing.
    fn on_job_start(&mut self, _tag: u64) {}
}

/// Watches a run: the metrics layer implements this.
pub trait Observer {
    /// A job was submitted.
    fn on_submit(&mut self, _now: Time, _job: &JobRequest) {}
    /// A job started.
    fn on_start(&mut self, _now: Time, _job: &JobRequest) {}
    /// A job ended.
    fn on_end(&mut self, _job: &JobOutcome) {}
    /// A scheduling pass has ended; `view` shows the state after its starts.
    fn on_pass(&mut self, _view: &SystemView<'_>) {}
    /// The run has ended, and the scheduler had this to say of it
    /// ([`Scheduler::run_report`](crate::sched::Scheduler::run_report)).
    fn on_report(&mut self, _report: &serde_json::Value) {}
}

impl Observer for () {}

/// Two observers watching one run, told in order.
impl<A: Observer, B: Observer> Observer for (A, B) {
    fn on_submit(&mut self, now: Time, job: &JobRequest) {
        self.0.on_submit(now, job);
        self.1.on_submit(now, job);
    }
    fn on_start(&mut self, now: Time, job: &JobRequest) {
        self.0.on_start(now, job);
        self.1.on_start(now, job);
    }
    fn on_end(&mut self, job: &JobOutcome) {
        self.0.on_end(job);
        self.1.on_end(job);
    }
    fn on_pass(&mut self, view: &SystemView<'_>) {
        self.0.on_pass(view);
        self.1.on_pass(view);
    }
    fn on_report(&mut self, report: &serde_json::Value) {
        self.0.on_report(report);
        self.1.on_report(report);
    }
}

/// The machine and its rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteConfig {
    /// Processors.
    pub procs: u32,
    /// What happens to jobs that outlive their estimate.
    pub overrun: OverrunPolicy,
    /// Whether to run the invariant checker.
    pub check: bool,
}

/// Counters of a finished run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SimCounts {
    /// Jobs submitted.
    pub submitted: u64,
    /// Jobs started.
    pub started: u64,
    /// Jobs ended.
    pub ended: u64,
    /// Jobs killed at their estimate.
    pub killed: u64,
    /// Jobs that ran past their estimate (`overrun` policy).
    pub overran: u64,
    /// Jobs started while an earlier-submitted job was waiting.
    pub backfilled: u64,
    /// Events applied.
    pub events: u64,
    /// Scheduling passes.
    pub passes: u64,
    /// Passes verified by the invariant checker.
    pub checked_passes: u64,
    /// Most jobs waiting at once.
    pub max_queue: u64,
    /// Most jobs running at once.
    pub max_running: u64,
    /// Times a job outlived its prediction (with a predictor).
    pub deadline_misses: u64,
    /// Predictions changed after submission, misses included.
    pub prediction_updates: u64,
}

#[derive(Debug, Clone, Copy)]
enum SlotState {
    Free,
    Waiting,
    Running {
        index: u32,
        start: Time,
        killed: bool,
        backfilled: bool,
    },
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    request: JobRequest,
    /// The runtime the job will have (its log runtime, cut to the estimate under `kill`).
    runtime: Time,
    /// Its log runtime.
    requested_runtime: Time,
    job: i64,
    tag: u64,
    state: SlotState,
}

/// Events of a site.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    /// A running job ends.
    End(JobId),
    /// The workload asked to be woken.
    Wake(u64),
    /// A running job reaches its plan (only with a predictor); stale unless `stamp` is
    /// still the job's current one.
    Miss {
        /// The job.
        id: JobId,
        /// Which arming of its deadline this is.
        stamp: u64,
    },
    /// The scheduler asked for a pass at this time ([`Scheduler::wake_at`]).
    Pass,
}

/// What the scheduler and the observers see at `now` (a macro, so that it borrows only
/// the fields it shows and the scheduler stays free to borrow mutably).
macro_rules! view {
    ($sim:expr, $now:expr) => {
        SystemView::new(
            $now,
            $sim.cfg.procs,
            $sim.free.clamp(0, i64::from($sim.cfg.procs)) as u32,
            &$sim.queue,
            &$sim.running,
            &$sim.users,
        )
    };
}

const PHASE_END: Phase = 0;
const PHASE_MISS: Phase = 1;
const PHASE_WAKE: Phase = 2;
const PHASE_PASS: Phase = 3;

/// A site under simulation.
pub struct Simulation<W, O> {
    cfg: SiteConfig,
    scheduler: Box<dyn Scheduler>,
    workload: W,
    observer: O,
    queue: Queue,
    running: Vec<RunningJob>,
    users: UserTable,
    slots: Vec<Slot>,
    free_slots: Vec<JobId>,
    /// Free processors; below 0 only under the log's own service, which runs on an
    /// unbounded machine ([`Scheduler::logged_service`]).
    free: i64,
    /// The policy replays the log's own service.
    logged_service: bool,
    next_seq: u64,
    ctx: SourceCtx,
    starts: Vec<JobId>,
    checker: Option<Checker>,
    /// The latest scheduler wake-up pushed and not yet reached.
    pending_pass: Option<Time>,
    planner: Planner,
    updates: Vec<(JobId, Time)>,
    counts: SimCounts,
    /// Started from a snapshot taken at this time ([`Simulation::from_snapshot`]).
    resume: Option<Time>,
}

impl<W: Workload, O: Observer> Simulation<W, O> {
    /// A site with an empty machine.
    pub fn new(cfg: SiteConfig, scheduler: Box<dyn Scheduler>, workload: W, observer: O) -> Self {
        let logged_service = scheduler.logged_service();
        Simulation {
            cfg,
            scheduler,
            workload,
            observer,
            queue: Queue::new(),
            running: Vec::new(),
            users: UserTable::new(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            free: i64::from(cfg.procs),
            logged_service,
            next_seq: 0,
            ctx: SourceCtx::default(),
            starts: Vec::new(),
            checker: cfg.check.then(Checker::new),
            pending_pass: None,
            planner: Planner::new(None),
            updates: Vec::new(),
            counts: SimCounts::default(),
            resume: None,
        }
    }

    /// Makes room for `jobs` jobs waiting or running at once, so that the tables need
    /// not grow while they are fewer (a hint, for short runs).
    pub fn reserve(mut self, jobs: usize) -> Self {
        self.slots.reserve(jobs);
        self.free_slots.reserve(jobs);
        self.queue.reserve(jobs);
        self.running.reserve(jobs);
        self.planner.reserve(jobs);
        self
    }

    /// Starts from the machine state in `snapshot` instead of an empty machine (a new
    /// simulation only). The running jobs, in order of start (then submission), keep
    /// running, not killed and not backfilled, and end after the runtime `runtime` gives
    /// them (at the snapshot's time if that is later); the waiting jobs wait, in their
    /// order, and run `runtime`'s runtime once started; users are as in the snapshot.
    /// Jobs keep everything but their id (their slot here; `runtime` sees the snapshot's
    /// request); submissions go on after the largest submission number present.
    ///
    /// [`Simulation::run`] then syncs the scheduler to the state at the snapshot's time
    /// ([`Scheduler::sync`]) and makes one scheduling pass there before any event, of
    /// that time or later, is applied: the snapshot is the state a pass saw.
    pub fn from_snapshot(
        mut self,
        snapshot: Snapshot,
        runtime: impl Fn(&JobRequest) -> Time,
    ) -> Self {
        assert!(
            self.slots.is_empty() && self.resume.is_none(),
            "a simulation starts from a snapshot before anything else"
        );
        let Snapshot {
            time,
            queue,
            mut running,
            users,
        } = snapshot;
        running.sort_by_key(|j| (j.start, j.request.seq));
        let total = running.len() + queue.len();
        self.slots.reserve(total);
        self.queue.reserve(queue.len());
        self.running.reserve(running.len());
        // The snapshot's job (its id is the snapshot's) in a new slot.
        let slot = |sim: &mut Self, job: &JobRequest, state: SlotState| -> JobRequest {
            let request = JobRequest {
                id: sim.slots.len() as JobId,
                ..*job
            };
            let run = runtime(job);
            sim.slots.push(Slot {
                request,
                runtime: run,
                requested_runtime: run,
                job: -1,
                tag: job.seq,
                state,
            });
            sim.next_seq = sim.next_seq.max(job.seq + 1);
            request
        };
        for job in running {
            let state = SlotState::Running {
                index: self.running.len() as u32,
                start: job.start,
                killed: false,
                backfilled: false,
            };
            let request = slot(&mut self, &job.request, state);
            self.running.push(RunningJob {
                request,
                start: job.start,
            });
            self.free -= i64::from(request.size);
        }
        for job in &queue {
            let request = slot(&mut self, job, SlotState::Waiting);
            self.queue.push_back(request);
        }
        self.users = users;
        // Room for as many users of their own as jobs.
        self.users.reserve(self.slots.capacity());
        self.resume = Some(time);
        self
    }

    /// Plans with `predictor`'s predictions instead of estimates. Fails if the policy
    /// cannot plan with predictions.
    pub fn with_predictor(mut self, predictor: Box<dyn Predictor>) -> Result<Self, SimError> {
        if !self.scheduler.accepts_predictions() {
            return Err(SimError::Scheduler {
                scheduler: self.scheduler.name().to_owned(),
                now: 0,
                problem: format!(
                    "this policy plans with estimates and cannot use the '{}' predictor",
                    predictor.name()
                ),
            });
        }
        self.planner = Planner::new(Some(predictor));
        Ok(self)
    }

    /// Runs to the end (or up to `horizon`) and returns the workload, the observer and
    /// the counters.
    pub fn run(mut self, horizon: Option<Time>) -> Result<(W, O, SimCounts), SimError> {
        let mut events = EventQueue::new();
        self.ctx.now = Time::MIN;
        self.workload.start(&mut self.ctx)?;
        if !self.ctx.submits.is_empty() {
            return Err(SimError::Workload(
                "a workload cannot submit before the run starts".into(),
            ));
        }
        self.apply_ctx(&mut events)?;
        // Whether events past the horizon were left out.
        let mut beyond = false;
        if let Some(at) = self.resume {
            beyond = self.resume_at(at, horizon, &mut events)?;
        }
        let RunCounts {
            events: n,
            abandoned,
            ..
        } = engine::run(&mut self, &mut events, horizon)?;
        if abandoned {
            return Err(SimError::Abandoned { now: events.now() });
        }
        self.counts.events = n;
        if let Some(at) = horizon.and_then(|h| self.scheduler.stop_at(h)) {
            let view = view!(self, at);
            self.observer.on_pass(&view);
        }
        if let Some(report) = self.scheduler.run_report() {
            self.observer.on_report(&report);
        }
        if events.is_empty() && !beyond && !self.queue.is_empty() {
            return Err(SimError::Scheduler {
                scheduler: self.scheduler.name().to_owned(),
                now: events.now(),
                problem: format!(
                    "the run ended with jobs that were never started still waiting: {}",
                    self.queue.len()
                ),
            });
        }
        if let Some(c) = &self.checker {
            self.counts.checked_passes = c.passes();
        }
        Ok((self.workload, self.observer, self.counts))
    }

    /// The start from a snapshot taken at `at`: the running jobs' ends (those up to
    /// `horizon`: later ones would never be applied), the scheduler synced, one pass.
    /// Returns whether ends were left out.
    fn resume_at(
        &mut self,
        at: Time,
        horizon: Option<Time>,
        events: &mut EventQueue<Event>,
    ) -> Result<bool, SimError> {
        let mut beyond = false;
        self.planner.reserve(self.slots.len());
        for slot in &self.slots {
            self.planner.adopt(&slot.request, slot.runtime, at);
        }
        // The running jobs are the first slots, in order of start.
        events.reserve(self.running.len());
        for index in 0..self.running.len() {
            let RunningJob { request, start } = self.running[index];
            let runtime = self.slots[request.id as usize].runtime;
            let end = (start + runtime).max(at);
            if runtime > request.estimate
                && let Some(c) = &mut self.checker
            {
                c.record_overrun(start + request.estimate, end);
            }
            if horizon.is_some_and(|h| end > h) {
                beyond = true;
            } else {
                events.push(end, PHASE_END, Event::End(request.id));
            }
            self.arm_deadline(request.id, start, events);
        }
        self.scheduler.sync(&view!(self, at));
        self.settle(at, events)?;
        Ok(beyond)
    }

    fn apply_ctx(&mut self, events: &mut EventQueue<Event>) -> Result<(), SimError> {
        if self.ctx.wakes.is_empty() && self.ctx.submits.is_empty() {
            return Ok(());
        }
        let now = self.ctx.now;
        for (at, token) in self.ctx.wakes.drain(..) {
            if at < now {
                return Err(SimError::Workload(format!(
                    "wake-up requested for {at}, before the current time {now}"
                )));
            }
            events.push(at, PHASE_WAKE, Event::Wake(token));
        }
        let mut submits = std::mem::take(&mut self.ctx.submits);
        if self.ctx.kept.is_empty() {
            for spec in submits.drain(..) {
                self.submit(now, spec, None)?;
            }
        } else {
            let mut kept = std::mem::take(&mut self.ctx.kept);
            let mut next = kept.drain(..).peekable();
            for (i, spec) in submits.drain(..).enumerate() {
                let keep = next.next_if(|(at, _)| *at == i).map(|(_, k)| k);
                self.submit(now, spec, keep)?;
            }
            drop(next);
            self.ctx.kept = kept;
        }
        self.ctx.submits = submits;
        Ok(())
    }

    fn submit(&mut self, now: Time, spec: JobSpec, kept: Option<Kept>) -> Result<(), SimError> {
        let invalid = |problem: String| SimError::InvalidJob { now, problem };
        if spec.size == 0 || spec.size > self.cfg.procs {
            return Err(invalid(format!(
                "job {} asks for {} processors on a machine of {}",
                spec.job, spec.size, self.cfg.procs
            )));
        }
        if spec.estimate < 1 || spec.runtime < 0 {
            return Err(invalid(format!(
                "job {} has estimate {} and runtime {} (need estimate >= 1, runtime >= 0)",
                spec.job, spec.estimate, spec.runtime
            )));
        }
        if let Some(k) = kept
            && k.seq < self.next_seq
        {
            return Err(invalid(format!(
                "job {} is resubmitted as submission {}, but submission {} came before",
                spec.job,
                k.seq,
                self.next_seq - 1
            )));
        }
        if self.logged_service && spec.logged_wait.is_none() {
            return Err(invalid(format!(
                "job {} has no logged wait (SWF field 3), and policy '{}' replays the log's \
                 own service: it needs a log that records waits (a model-based site has none; \
                 for a log without them, feedback, resample and calibrate can estimate them \
                 with --unknown-waits)",
                spec.job,
                self.scheduler.name()
            )));
        }
        let estimate = match self.cfg.overrun {
            OverrunPolicy::Extend => spec.estimate.max(spec.runtime),
            OverrunPolicy::Kill | OverrunPolicy::Overrun => spec.estimate,
        };
        let id = match self.free_slots.pop() {
            Some(id) => id,
            None => {
                let id = JobId::try_from(self.slots.len())
                    .map_err(|_| invalid("more than 2^32 jobs alive at once".into()))?;
                self.slots.push(Slot {
                    request: JobRequest {
                        id,
                        seq: 0,
                        submit: 0,
                        size: 0,
                        estimate: 0,
                        plan: 0,
                        user: 0,
                        app: -1,
                        think: Time::MAX,
                        logged_wait: None,
                        opens_session: None,
                    },
                    runtime: 0,
                    requested_runtime: 0,
                    job: 0,
                    tag: 0,
                    state: SlotState::Free,
                });
                id
            }
        };
        let runtime = match self.cfg.overrun {
            // The log's own service runs every job as long as the log says it ran.
            OverrunPolicy::Kill if !self.logged_service => spec.runtime.min(estimate),
            OverrunPolicy::Kill | OverrunPolicy::Extend | OverrunPolicy::Overrun => spec.runtime,
        };
        let mut request = JobRequest {
            id,
            seq: self.next_seq,
            submit: now,
            size: spec.size,
            estimate,
            plan: estimate,
            user: spec.user,
            app: spec.app,
            think: Time::MAX,
            logged_wait: spec.logged_wait,
            opens_session: spec.opens_session,
        };
        match kept {
            None => {
                // SWF's -1 (and any negative number) is an unknown user, not one user.
                if spec.user >= 0 {
                    request.think = self.users.get(spec.user).think_before(now);
                }
                request.plan = self.planner.submitted(&request, runtime, now);
            }
            Some(k) => {
                request.seq = k.seq;
                request.plan = k.plan;
                request.think = k.think;
                self.planner.adopt(&request, runtime, now);
            }
        }
        self.next_seq = request.seq + 1;
        self.slots[id as usize] = Slot {
            request,
            runtime,
            requested_runtime: spec.runtime,
            job: spec.job,
            tag: spec.tag,
            state: SlotState::Waiting,
        };
        self.queue.push_back(request);
        self.users.submitted(request.user, now);
        self.counts.submitted += 1;
        self.counts.max_queue = self.counts.max_queue.max(self.queue.len() as u64);
        let view = view!(self, now);
        self.scheduler.on_submit(&request, &view);
        self.observer.on_submit(now, &request);
        Ok(())
    }

    /// Applies the prediction updates the predictor handed back. A running job's new plan
    /// is kept beyond its elapsed time, and its deadline re-armed.
    #[inline]
    fn apply_updates(&mut self, now: Time, events: &mut EventQueue<Event>) {
        // Only a predictor hands back updates.
        if self.planner.predicts() {
            self.apply_predicted_updates(now, events);
        }
    }

    fn apply_predicted_updates(&mut self, now: Time, events: &mut EventQueue<Event>) {
        self.planner.take_updates(&mut self.updates);
        let mut updates = std::mem::take(&mut self.updates);
        for (id, prediction) in updates.drain(..) {
            self.replan(now, id, prediction, events);
        }
        self.updates = updates;
    }

    /// Sets job `id`'s plan to `prediction` (if it is alive and that changes it).
    fn replan(&mut self, now: Time, id: JobId, prediction: Time, events: &mut EventQueue<Event>) {
        let Some(slot) = self.slots.get(id as usize) else {
            return;
        };
        let (new, running) = match slot.state {
            SlotState::Free => return,
            SlotState::Waiting => (prediction.max(1), None),
            SlotState::Running { index, start, .. } => {
                (prediction.max(now - start + 1).max(1), Some((index, start)))
            }
        };
        let old = slot.request.plan;
        if new == old {
            return;
        }
        self.counts.prediction_updates += 1;
        self.planner.changed(id, old, now);
        self.slots[id as usize].request.plan = new;
        let request = self.slots[id as usize].request;
        match running {
            None => {
                if let Some(job) = self.queue.get_mut(id, request.seq) {
                    job.plan = new;
                }
            }
            Some((index, start)) => {
                self.running[index as usize].request.plan = new;
                self.arm_deadline(id, start, events);
                if new > old
                    && let Some(c) = &mut self.checker
                {
                    c.record_delay(now);
                }
            }
        }
        let view = view!(self, now);
        self.scheduler
            .on_replan(&request, old, running.map(|r| r.1), &view);
    }

    /// With a predictor, schedules the deadline-miss event of running job `id` (started at
    /// `start`) if it will outlive its plan.
    #[inline]
    fn arm_deadline(&mut self, id: JobId, start: Time, events: &mut EventQueue<Event>) {
        if self.planner.predicts() {
            self.arm_deadline_now(id, start, events);
        }
    }

    fn arm_deadline_now(&mut self, id: JobId, start: Time, events: &mut EventQueue<Event>) {
        let slot = &self.slots[id as usize];
        let stamp = self.planner.arm(id);
        if slot.runtime > slot.request.plan {
            events.push(
                start + slot.request.plan,
                PHASE_MISS,
                Event::Miss { id, stamp },
            );
        }
    }

    /// A deadline-miss event for job `id`.
    fn deadline_missed(
        &mut self,
        now: Time,
        id: JobId,
        stamp: u64,
        events: &mut EventQueue<Event>,
    ) {
        if !self.planner.is_current(id, stamp) {
            return;
        }
        let slot = &self.slots[id as usize];
        let SlotState::Running { start, .. } = slot.state else {
            return;
        };
        let request = slot.request;
        self.counts.deadline_misses += 1;
        let prediction = self.planner.missed(&request, now - start, now);
        self.replan(now, id, prediction, events);
        self.apply_updates(now, events);
    }

    fn scheduler_error(&self, now: Time, problem: String) -> SimError {
        SimError::Scheduler {
            scheduler: self.scheduler.name().to_owned(),
            now,
            problem,
        }
    }

    fn start_job(
        &mut self,
        now: Time,
        id: JobId,
        events: &mut EventQueue<Event>,
    ) -> Result<(), SimError> {
        let (req, run) = match self.slots.get(id as usize) {
            Some(s) if matches!(s.state, SlotState::Waiting) => (s.request, s.runtime),
            _ => {
                return Err(self
                    .scheduler_error(now, format!("started job slot {id}, which is not waiting")));
            }
        };
        if !self.logged_service && i64::from(req.size) > self.free {
            return Err(self.scheduler_error(
                now,
                format!(
                    "started job {} of {} processors with only {} free",
                    req.seq, req.size, self.free
                ),
            ));
        }
        let killed = run < self.slots[id as usize].requested_runtime;
        let end = now + run;
        if run > req.estimate {
            self.counts.overran += 1;
            if let Some(c) = &mut self.checker {
                c.record_overrun(now + req.estimate, end);
            }
        }
        if let Some(c) = &mut self.checker {
            c.check_start(id, req.seq, now)
                .map_err(|problem| SimError::Invariant {
                    scheduler: self.scheduler.name().to_owned(),
                    problem,
                })?;
        }
        self.free -= i64::from(req.size);
        self.users.started(req.user);
        self.workload.on_job_start(self.slots[id as usize].tag);
        let index = self.running.len() as u32;
        self.running.push(RunningJob {
            request: req,
            start: now,
        });
        self.slots[id as usize].state = SlotState::Running {
            index,
            start: now,
            killed,
            backfilled: false,
        };
        events.push(end, PHASE_END, Event::End(id));
        self.arm_deadline(id, now, events);
        self.counts.started += 1;
        self.counts.killed += u64::from(killed);
        self.observer.on_start(now, &req);
        self.planner.started(&req, now);
        Ok(())
    }

    fn end_job(&mut self, now: Time, id: JobId) -> Result<JobOutcome, SimError> {
        let slot = &mut self.slots[id as usize];
        let SlotState::Running {
            index,
            start,
            killed,
            backfilled,
        } = slot.state
        else {
            unreachable!("an end event for a job that is not running");
        };
        slot.state = SlotState::Free;
        let request = slot.request;
        let (runtime, requested_runtime, job_number, tag) =
            (slot.runtime, slot.requested_runtime, slot.job, slot.tag);
        let accuracy = self.planner.ended(&request, runtime, now);
        let outcome = JobOutcome {
            seq: request.seq,
            submit: request.submit,
            start,
            end: now,
            size: request.size,
            estimate: request.estimate,
            requested_runtime,
            killed,
            backfilled,
            user: request.user,
            job: job_number,
            tag,
            accuracy,
        };
        let job = self.running.swap_remove(index as usize);
        if let Some(moved) = self.running.get(index as usize)
            && let SlotState::Running { index: i, .. } =
                &mut self.slots[moved.request.id as usize].state
        {
            *i = index;
        }
        self.free += i64::from(job.request.size);
        self.users.ended(job.request.user, now);
        self.free_slots.push(id);
        self.counts.ended += 1;
        if let Some(c) = &mut self.checker {
            c.forget(id);
        }
        let view = view!(self, now);
        self.scheduler.on_end(&job, &view);
        self.observer.on_end(&outcome);
        Ok(outcome)
    }
}

impl<W: Workload, O: Observer> Model for Simulation<W, O> {
    type Event = Event;
    type Error = SimError;

    fn handle(
        &mut self,
        now: Time,
        event: Event,
        events: &mut EventQueue<Event>,
    ) -> Result<(), SimError> {
        self.ctx.now = now;
        match event {
            Event::End(id) => {
                let outcome = self.end_job(now, id)?;
                self.workload.on_job_end(&outcome, &mut self.ctx)?;
            }
            Event::Wake(token) => self.workload.on_wake(token, &mut self.ctx)?,
            Event::Miss { id, stamp } => self.deadline_missed(now, id, stamp, events),
            Event::Pass => {}
        }
        self.apply_ctx(events)?;
        self.apply_updates(now, events);
        Ok(())
    }

    fn settle(&mut self, now: Time, events: &mut EventQueue<Event>) -> Result<(), SimError> {
        // The first job in the queue has waited longest: every job this pass starts has
        // waited no longer, and it will have waited at least this long when it starts.
        if let Some(first) = self.queue.front()
            && now - first.submit > LONGEST
        {
            return Err(SimError::WaitTooLong {
                now,
                job: self.slots[first.id as usize].job,
                submit: first.submit,
            });
        }
        let mut starts = std::mem::take(&mut self.starts);
        starts.clear();
        {
            let view = view!(self, now);
            self.scheduler.schedule(&view, &mut starts);
        }
        if let Some(problem) = self.scheduler.fault() {
            return Err(self.scheduler_error(now, problem));
        }
        self.counts.passes += 1;
        for &id in &starts {
            self.start_job(now, id, events)?;
        }
        self.apply_updates(now, events);
        if !starts.is_empty() {
            self.remove_started(&starts);
            let first_waiting = self.queue.front().map_or(u64::MAX, |j| j.seq);
            for &id in &starts {
                let slot = &mut self.slots[id as usize];
                if let SlotState::Running { backfilled, .. } = &mut slot.state
                    && slot.request.seq > first_waiting
                {
                    *backfilled = true;
                    self.counts.backfilled += 1;
                }
            }
            self.counts.max_running = self.counts.max_running.max(self.running.len() as u64);
        }
        self.starts = starts;
        if let Some(checker) = &mut self.checker {
            let scheduler = &self.scheduler;
            let slots = &self.slots;
            checker
                .check_promises(
                    now,
                    |out| scheduler.promises(out),
                    |id| slots[id as usize].request.seq,
                )
                .map_err(|problem| SimError::Invariant {
                    scheduler: self.scheduler.name().to_owned(),
                    problem,
                })?;
        }
        if let Some(t) = self.scheduler.wake_at()
            && t > now
            && self.pending_pass.is_none_or(|p| p <= now || t < p)
        {
            events.push(t, PHASE_PASS, Event::Pass);
            self.pending_pass = Some(t);
        }
        let view = view!(self, now);
        self.observer.on_pass(&view);
        Ok(())
    }
}

impl<W, O> Simulation<W, O> {
    /// Removes the `started` jobs from the queue, each in O(1) wherever it waits
    /// ([`Queue::remove`]).
    fn remove_started(&mut self, started: &[JobId]) {
        for &id in started {
            let removed = self.queue.remove(id, self.slots[id as usize].request.seq);
            debug_assert!(removed, "a started job was waiting");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::{Easy, Fcfs};

    /// Resubmits `(time, kept)` jobs of 1 processor, runtime 10, estimate 20.
    struct Replayed(Vec<(Time, Kept)>);

    impl Workload for Replayed {
        fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
            for (i, &(t, _)) in self.0.iter().enumerate() {
                ctx.wake_at(t, i as u64);
            }
            Ok(())
        }
        fn on_wake(&mut self, token: u64, ctx: &mut SourceCtx) -> Result<(), SimError> {
            let spec = JobSpec {
                size: 1,
                runtime: 10,
                estimate: 20,
                user: 1,
                app: -1,
                job: token as i64,
                tag: token,
                logged_wait: None,
                opens_session: None,
            };
            // An ordinary submission between two resubmissions gets the next number.
            if token == 1 {
                ctx.submit(spec.clone());
            }
            ctx.resubmit(spec, self.0[token as usize].1);
            Ok(())
        }
    }

    /// `(seq, submit, plan, think)` of every submission and `(seq, start)` of every start.
    #[derive(Default)]
    struct Seen(Vec<(u64, Time, Time, Time)>, Vec<(u64, Time)>);

    impl Observer for Seen {
        fn on_submit(&mut self, _now: Time, job: &JobRequest) {
            self.0.push((job.seq, job.submit, job.plan, job.think));
        }
        fn on_start(&mut self, now: Time, job: &JobRequest) {
            self.1.push((job.seq, now));
        }
    }

    fn site(procs: u32) -> SiteConfig {
        SiteConfig {
            procs,
            overrun: OverrunPolicy::Overrun,
            check: true,
        }
    }

    fn kept(seq: u64, plan: Time, think: Time) -> Kept {
        Kept { seq, plan, think }
    }

    #[test]
    fn resubmissions_keep_their_number_plan_and_think_time() {
        let jobs = vec![(5, kept(3, 7, 100)), (6, kept(9, 8, 0))];
        let sim = Simulation::new(site(4), Box::new(Fcfs), Replayed(jobs), Seen::default());
        let (_, seen, _) = sim.run(None).unwrap();
        assert_eq!(seen.0, [(3, 5, 7, 100), (4, 6, 20, 0), (9, 6, 8, 0)]);
        let late = vec![(5, kept(3, 7, 100)), (6, kept(4, 8, 0))];
        let sim = Simulation::new(site(4), Box::new(Fcfs), Replayed(late), Seen::default());
        let e = sim
            .run(None)
            .err()
            .expect("submission 4 is taken")
            .to_string();
        assert!(e.contains("resubmitted as submission 4"), "{e}");
    }

    /// FCFS for two passes, then at fault (as a Python scheduler whose callback raised).
    #[derive(Clone)]
    struct Faulty(u32);

    impl Scheduler for Faulty {
        fn name(&self) -> &str {
            "faulty"
        }
        fn sync(&mut self, _view: &SystemView<'_>) {}
        fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
            self.0 += 1;
            if self.0 < 3 {
                Fcfs.schedule(view, starts);
            }
        }
        fn fault(&self) -> Option<String> {
            (self.0 >= 3).then(|| "its schedule() raised KeyError: 7".to_owned())
        }
    }

    #[test]
    fn a_scheduler_at_fault_ends_the_run_with_its_reason() {
        let jobs = vec![(5, kept(0, 7, 0)), (6, kept(2, 8, 0)), (9, kept(4, 8, 0))];
        let sim = Simulation::new(
            site(4),
            Box::new(Faulty(0)),
            Replayed(jobs),
            Seen::default(),
        );
        let e = sim.run(None).err().expect("the third pass faults");
        assert!(matches!(e, SimError::Scheduler { now: 9, .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "scheduler 'faulty' at time 9: its schedule() raised KeyError: 7"
        );
    }

    #[test]
    fn a_run_from_a_snapshot_passes_first_and_ends_its_running_jobs() {
        let job = |seq: u64, size: u32| JobRequest {
            id: 7,
            seq,
            submit: 0,
            size,
            estimate: 50,
            plan: 50,
            user: 2,
            app: -1,
            think: Time::MAX,
            logged_wait: None,
            opens_session: None,
        };
        let mut users = UserTable::new();
        for _ in 0..3 {
            users.submitted(2, 0);
        }
        users.started(2);
        users.started(2);
        let snapshot = Snapshot {
            time: 100,
            queue: vec![job(2, 2)],
            running: vec![
                RunningJob {
                    request: job(1, 2),
                    start: 40,
                },
                RunningJob {
                    request: job(0, 1),
                    start: 10,
                },
            ],
            users: users.frozen(),
        };
        // Job 0 ran past the snapshot's time already: it ends at 100; job 1 at 130.
        let runtime = |j: &JobRequest| if j.seq == 0 { 60 } else { 90 };
        let arrival = vec![(100, kept(5, 30, 0))];
        let sim = Simulation::new(
            site(4),
            Box::new(Easy::new()),
            Replayed(arrival),
            Seen::default(),
        )
        .from_snapshot(snapshot, runtime);
        let (_, seen, counts) = sim.run(None).unwrap();
        // The pass at 100 sees 1 processor free: job 2 (2 processors) waits for the end
        // of job 0 at 100 and starts in the next pass at 100; the arrival then waits for
        // job 1, which runs past its estimate.
        assert_eq!(seen.1, [(2, 100), (5, 130)]);
        assert_eq!((counts.submitted, counts.ended), (1, 4));
    }
}
