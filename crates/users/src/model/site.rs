//! The model-based site in the closed loop: the [`Workload`] whose users follow the plan
//! of [`super::plan`] and submit each session's jobs as the machine finishes them.
//!
//! The plan decides where a user's sessions and jobs come from; the user model decides
//! what the user does with them, as it does for trace users: an open session is a
//! [`crate::users::session::OpenSession`] (each job after the previous one's end plus
//! its think time, or its submission plus its gap when concurrent; after each result
//! the user reacts to the service by [`crate::users::reaction`], giving up the rest of
//! the session after a long response or going on with one more job of its session's
//! class after a short one), and a user leaves for good after too many long waits
//! ([`crate::users::Patience`], optional). The reference of the reactions is the
//! continuation share of the job's runtime under the log's own service
//! ([`crate::users::ContinuationCurve::runtime_share`]): the session lengths the model
//! draws are those of the log's users under the log's service.
//!
//! The plan keeps each user's weekly calendar (Talby 2006, Listing 5): its sessions are
//! drawn to lie apart as they would last on a machine that starts every job at once
//! ([`super::plan::CollisionRoom`]). By default ([`BusyUser::Waiting`]) a session due
//! while its user has jobs waiting in the queue is skipped; otherwise it opens at its
//! planned start, and a user whose previous session still has jobs to submit gives up
//! the rest of it, so congestion throttles the work users submit ("when the system is
//! clogged, users will submit fewer new jobs", §14.2) while the plan's daily cycle
//! reaches the machine. A session's jobs still running when the next opens end as they
//! will. The other rules open every session on time ([`BusyUser::GiveUp`]), queue such
//! sessions ([`BusyUser::Queue`]) or skip them ([`BusyUser::Skip`]).
//! With work hours ([`super::DayCycle::Window`]) a session opens only within them,
//! and with `all_jobs` every job arrives within them. No session opens and no job is
//! submitted after the horizon.
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use serde::{Deserialize, Serialize};

use super::plan::{PlanCounts, PlannedSession, SitePlan};
use super::tally::{Tally, WorkloadFigures};
use super::{DayCycle, SessionClass};
use crate::job::{JobOutcome, JobSpec};
use crate::sim::{SimError, SourceCtx, Workload};
use crate::time::{Time, WEEK};
use crate::users::Behaviour;
use crate::users::reaction::Reaction;
use crate::users::session::OpenSession;

/// The wake-up token of the weekly planning (the users' own is 0).
const WEEK_TOKEN: u64 = 1;

/// What a user does with a session that comes due while it is still busy with its
/// previous one. The thesis's model is open loop (§13.1) and has no such case; its plan
/// only keeps a user's sessions 20 minutes apart (Listing 5), and under bad service
/// "users will submit fewer new jobs" (§14.2), which is the service's doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum BusyUser {
    /// A session due while its user has jobs waiting in the queue (submitted, not
    /// started) is skipped, the user going on with what it has; otherwise it opens at
    /// its planned start, and the user gives up the jobs of the previous one it has not
    /// submitted (the default). "When the system is clogged, users will submit fewer new
    /// jobs" (§14.2): a user still waiting for the machine does not start new work, so
    /// what it submits follows the congestion; on a machine where nothing waits, nothing
    /// is skipped and users keep their calendar. Withdrawing the queued jobs when the
    /// next session opens instead would cut old work, not new (§14.2 speaks of new jobs),
    /// and a user's jobs running hold nothing back (the plan's sessions overlap the jobs
    /// the previous ones left running, as the thesis's open-loop model has them).
    #[default]
    Waiting,
    /// The new session opens at its planned start, and the user gives up the jobs of the
    /// previous one it has not submitted: users keep their calendar whatever waits.
    GiveUp,
    /// Its sessions queue: each opens once the previous one is over plus the collision
    /// gap, however late. No planned session is lost but to the horizon, but a backlog
    /// of planned sessions builds up under congestion.
    Queue,
    /// As `Queue`, but a session is skipped if its user's next planned session is due by
    /// the time it could open (the user has moved on).
    Skip,
}

/// What the site's users did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelSiteReport {
    /// What the plan drew.
    pub plan: PlanCounts,
    /// Sessions opened, by class.
    pub sessions_by_class: [u64; 5],
    /// Jobs submitted, by session class.
    pub jobs_by_class: [u64; 5],
    /// Sessions that opened after their planned start (their user was busy, or work
    /// hours held them).
    pub deferred: u64,
    /// Sessions whose user gave up the jobs it had not submitted when its next session
    /// opened ([`BusyUser::GiveUp`]).
    pub superseded: u64,
    /// Time by which opened sessions followed their planned start, summed, seconds.
    pub delay: Time,
    /// Sessions skipped: their user had jobs waiting ([`BusyUser::Waiting`]), or was
    /// still busy at its next planned session ([`BusyUser::Skip`]).
    pub skipped: u64,
    /// Sessions planned to start by the horizon that had not opened by then (their
    /// user still busy with earlier ones), counted at the end of the run.
    pub not_opened: u64,
    /// Sessions given up after a long response (continuation).
    pub gave_up: u64,
    /// Jobs added to sessions after a short response (continuation): each the next job
    /// of the session's class.
    pub extended: u64,
    /// Jobs never submitted: the rest of sessions given up, superseded or of users who
    /// left.
    pub dropped_jobs: u64,
    /// Users who left for good after too many long waits.
    pub frustrated: u64,
    /// Jobs cut to the size of a machine smaller than the one the population was sized
    /// for ([`ModelSite::on_machine`]).
    pub narrowed_jobs: u64,
}

/// A session as it happened on the simulated machine (recorded on request, for
/// comparison with Table 21).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SessionRecord {
    /// Its class.
    pub class: SessionClass,
    /// Its first submission.
    pub start: Time,
    /// Its last job's end.
    pub end: Time,
    /// Jobs submitted.
    pub jobs: u32,
    /// Median runtime of its jobs, seconds.
    pub median_runtime: f64,
    /// Median size of its jobs, processors.
    pub median_size: f64,
    /// Median think time of its later jobs (submission minus the previous job's end,
    /// negative for concurrent ones), seconds; 0 for a single job.
    pub median_think: f64,
}

/// The median of `v` (not empty), sorted in place.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// An open session of its class.
#[derive(Debug, Clone)]
struct Open {
    class: SessionClass,
    /// Which of its user's sessions it is (modulo 2^24), in its jobs' tags.
    generation: u32,
    session: OpenSession,
}

/// Bits of a job tag for the job's index in its session: a session holds at most the
/// jobs the fitted layer draws (a few hundred) and [`crate::users::session::MAX_EXTENSIONS`]
/// more.
const JOB_BITS: u32 = 20;
/// Bits for the session's generation: the sessions a user opens in a run.
const GENERATION_BITS: u32 = 24;

/// The tag of job `j` of session `generation` of user `u` (fewer than
/// [`crate::users::MAX_USERS`], 2^20 at most).
fn tag(u: u32, generation: u32, j: usize) -> u64 {
    debug_assert!(j < 1 << JOB_BITS && u < 1 << (64 - JOB_BITS - GENERATION_BITS));
    let generation = u64::from(generation) & ((1 << GENERATION_BITS) - 1);
    (u64::from(u) << (JOB_BITS + GENERATION_BITS)) | (generation << JOB_BITS) | j as u64
}

/// The user, session generation and job a tag stands for.
fn untag(tag: u64) -> (u32, u32, usize) {
    (
        (tag >> (JOB_BITS + GENERATION_BITS)) as u32,
        ((tag >> JOB_BITS) & ((1 << GENERATION_BITS) - 1)) as u32,
        (tag & ((1 << JOB_BITS) - 1)) as usize,
    )
}

/// A user of the site.
#[derive(Debug, Clone, Default)]
struct Agent {
    pending: VecDeque<PlannedSession>,
    open: Option<Open>,
    /// Sessions it gave up whose submitted jobs have not all ended.
    superseded: Vec<Open>,
    /// Sessions opened so far.
    opened: u32,
    /// When its last session ended (its last job ended).
    free_from: Time,
    /// The time the opening of the front pending session is planned for, if it is.
    opening: Option<Time>,
    /// Its jobs submitted and not started, by tag, with their submission times.
    waiting: Vec<(u64, Time)>,
    strikes: u64,
    left: bool,
}

/// The model-based site's users: a [`Workload`].
pub struct ModelSite {
    plan: SitePlan,
    /// Processors the population was sized for (the plan's).
    procs: u32,
    /// Processors of the simulated machine (`procs` unless set by
    /// [`ModelSite::on_machine`]).
    machine: u32,
    behaviour: Behaviour,
    day: DayCycle,
    busy: BusyUser,
    gap: Time,
    horizon: Time,
    agents: Vec<Agent>,
    /// Planned actions of users: (time, user); a user has at most one.
    due: BinaryHeap<Reverse<(Time, u32)>>,
    wakes: BTreeSet<Time>,
    next_job: i64,
    /// Every job of every session planned to start by the horizon, whether the closed
    /// loop opened it or not: the workload the model generates.
    generated: Tally,
    /// Every job submitted.
    submitted: Tally,
    /// Sessions as they happened, if asked for.
    records: Option<Vec<SessionRecord>>,
    report: ModelSiteReport,
}

impl ModelSite {
    /// The site of `plan` (its sessions' jobs sized for the plan's machine), its users
    /// reacting to service by `behaviour` and treating sessions due while they are busy
    /// by `busy`, at least `gap` between two sessions of a user; nothing is submitted
    /// after `horizon`.
    pub fn new(
        plan: SitePlan,
        behaviour: Behaviour,
        busy: BusyUser,
        gap: Time,
        horizon: Time,
    ) -> Self {
        let procs = plan.config().site.procs;
        let day = plan.config().day;
        ModelSite {
            day,
            plan,
            procs,
            machine: procs,
            behaviour,
            busy,
            gap,
            horizon,
            agents: Vec::new(),
            due: BinaryHeap::new(),
            wakes: Default::default(),
            next_job: 1,
            generated: Tally::default(),
            submitted: Tally::default(),
            records: None,
            report: ModelSiteReport::default(),
        }
    }

    /// Runs the population sized for `procs` processors on a machine of `machine`
    /// (capacity planning: the same users on machines of other sizes). Jobs wider than
    /// the machine are cut to its size and counted.
    pub fn on_machine(mut self, machine: u32) -> Self {
        self.machine = machine.max(1);
        self
    }

    /// What the users did so far.
    pub fn report(&self) -> ModelSiteReport {
        let horizon = self.horizon;
        ModelSiteReport {
            plan: self.plan.counts().clone(),
            not_opened: self
                .agents
                .iter()
                .flat_map(|a| &a.pending)
                .filter(|s| s.start <= horizon)
                .count() as u64,
            ..self.report.clone()
        }
    }

    /// Records every session as it closes ([`ModelSite::records`]).
    pub fn recording_sessions(mut self) -> Self {
        self.records = Some(Vec::new());
        self
    }

    /// The sessions closed so far, if recorded.
    pub fn records(&self) -> &[SessionRecord] {
        self.records.as_deref().unwrap_or(&[])
    }

    /// The figures of the workload generated (every planned session's jobs, on the
    /// machine the population was sized for) and of the jobs submitted (on the simulated
    /// machine), over the run up to the horizon.
    pub fn figures(&mut self) -> (WorkloadFigures, WorkloadFigures) {
        (
            self.generated.figures(self.procs, self.horizon),
            self.submitted.figures(self.machine, self.horizon),
        )
    }

    /// The plan.
    pub fn plan(&self) -> &SitePlan {
        &self.plan
    }

    /// Asks to be woken at `at` for user `u`.
    fn schedule(&mut self, at: Time, u: u32, ctx: &mut SourceCtx) {
        if at > self.horizon {
            return;
        }
        self.due.push(Reverse((at, u)));
        if self.wakes.insert(at) {
            ctx.wake_at(at.max(ctx.now()), 0);
        }
    }

    /// Plans the next week's sessions.
    fn plan_week(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let sessions = self
            .plan
            .next_week()
            .map_err(|e| SimError::Workload(e.to_string()))?;
        self.agents
            .resize_with(self.plan.users().len(), Agent::default);
        self.generated.add_planned(&sessions, self.horizon);
        for s in sessions {
            let u = s.user;
            let a = &mut self.agents[u as usize];
            if a.left {
                continue;
            }
            a.pending.push_back(s);
            if a.opening.is_none() && (a.open.is_none() || self.busy.opens_on_time()) {
                self.plan_opening(u, ctx);
            }
        }
        let next = Time::from(self.plan.week()) * WEEK;
        if next < self.horizon {
            ctx.wake_at(next, WEEK_TOKEN);
        }
        Ok(())
    }

    /// Plans the opening of user `u`'s next pending session: at its planned start, or,
    /// unless its user gives up sessions it is late with, no earlier than the collision
    /// gap after the user's last session ended.
    fn plan_opening(&mut self, u: u32, ctx: &mut SourceCtx) {
        let a = &mut self.agents[u as usize];
        let Some(s) = a.pending.front() else {
            return;
        };
        let at = match self.busy {
            BusyUser::Waiting | BusyUser::GiveUp => s.start,
            BusyUser::Queue | BusyUser::Skip => s.start.max(a.free_from + self.gap),
        };
        let at = self.day.opening(at);
        a.opening = Some(at);
        self.schedule(at, u, ctx);
    }

    /// User `u`'s planned action is due now: open its next session, or submit a job.
    fn act(&mut self, u: u32, ctx: &mut SourceCtx) {
        let now = ctx.now();
        let a = &self.agents[u as usize];
        if a.left {
            return;
        }
        // A stale plan of a job of a session that closed is not an opening.
        if a.opening == Some(now) {
            self.open_next(u, ctx);
        }
        self.submit_next(u, ctx);
    }

    /// Opens user `u`'s next pending session now, giving up the one it is still in.
    fn open_next(&mut self, u: u32, ctx: &mut SourceCtx) {
        let now = ctx.now();
        let a = &mut self.agents[u as usize];
        a.opening = None;
        if self.busy == BusyUser::Skip {
            // Skip sessions overtaken by the user's next one.
            while a.pending.len() > 1 && a.pending[1].start <= now {
                a.pending.pop_front();
                self.report.skipped += 1;
            }
        }
        let Some(s) = a.pending.pop_front() else {
            return;
        };
        // A job submitted this very second has had no pass to start in yet.
        if self.busy == BusyUser::Waiting && a.waiting.iter().any(|&(_, at)| at < now) {
            // Still waiting for the machine: it starts nothing new.
            self.report.skipped += 1;
            self.plan_opening(u, ctx);
            return;
        }
        if let Some(mut old) = a.open.take() {
            // It gives up the rest of the session it is late with; its jobs running end
            // as they will.
            let dropped = old.session.drop_rest();
            self.report.superseded += u64::from(dropped > 0);
            self.report.dropped_jobs += dropped;
            if old.session.is_over() {
                self.record(u, &old, now);
            } else {
                a.superseded.push(old);
            }
        }
        let a = &mut self.agents[u as usize];
        if now > s.start {
            self.report.deferred += 1;
            self.report.delay += now - s.start;
        }
        self.report.sessions_by_class[s.class.index()] += 1;
        a.open = Some(Open {
            class: s.class,
            generation: a.opened & ((1 << GENERATION_BITS) - 1),
            session: OpenSession::open(s.jobs, s.rng, now),
        });
        a.opened = a.opened.wrapping_add(1);
        if self.busy.opens_on_time() {
            self.plan_opening(u, ctx);
        }
    }

    /// Submits user `u`'s next job if it is planned for now (a plan moved earlier
    /// leaves a stale entry behind), and plans the one after if its time is known.
    fn submit_next(&mut self, u: u32, ctx: &mut SourceCtx) {
        let now = ctx.now();
        let a = &mut self.agents[u as usize];
        let Some(s) = a.open.as_mut() else {
            return;
        };
        let Some((j, job)) = s.session.due(now) else {
            return;
        };
        if job.size > self.machine {
            self.report.narrowed_jobs += 1;
        }
        ctx.submit(JobSpec {
            size: job.size.min(self.machine),
            runtime: job.runtime,
            estimate: job.estimate,
            user: i64::from(u) + 1,
            app: -1,
            job: self.next_job,
            tag: tag(u, s.generation, j),
            logged_wait: None,
            opens_session: Some(j == 0),
        });
        self.next_job += 1;
        a.waiting.push((tag(u, s.generation, j), now));
        self.submitted.add(job.runtime, job.size.min(self.machine));
        self.report.jobs_by_class[s.class.index()] += 1;
        s.session.submitted(now);
        self.plan_next(u, ctx);
    }

    /// Plans user `u`'s next submission if its time is known, or closes its session.
    fn plan_next(&mut self, u: u32, ctx: &mut SourceCtx) {
        let day = self.day;
        let Some(s) = self.agents[u as usize].open.as_mut() else {
            return;
        };
        if s.session.is_over() {
            self.close(u, ctx);
        } else if let Some(at) = s.session.plan_next(ctx.now(), |t| day.arrival(t)) {
            self.schedule(at, u, ctx);
        }
    }

    /// Records session `s` of user `u`, over at `end`, if sessions are recorded.
    fn record(&mut self, _u: u32, s: &Open, end: Time) {
        let Some(records) = self.records.as_mut() else {
            return;
        };
        let jobs = s.session.submitted_jobs().collect::<Vec<_>>();
        let Some(&(_, start, _)) = jobs.first() else {
            return;
        };
        let mut runtimes: Vec<f64> = jobs.iter().map(|j| j.0.runtime as f64).collect();
        let mut sizes: Vec<f64> = jobs.iter().map(|j| f64::from(j.0.size)).collect();
        let mut thinks: Vec<f64> = jobs
            .windows(2)
            .filter_map(|w| w[0].2.map(|end| (w[1].1 - end) as f64))
            .collect();
        records.push(SessionRecord {
            class: s.class,
            start,
            end,
            jobs: jobs.len() as u32,
            median_runtime: median(&mut runtimes),
            median_size: median(&mut sizes),
            median_think: if thinks.is_empty() {
                0.0
            } else {
                median(&mut thinks)
            },
        });
    }

    /// User `u`'s session is over: plan the opening of its next one.
    fn close(&mut self, u: u32, ctx: &mut SourceCtx) {
        let now = ctx.now();
        let Some(s) = self.agents[u as usize].open.take() else {
            return;
        };
        self.record(u, &s, now);
        let a = &mut self.agents[u as usize];
        a.free_from = now;
        if !self.busy.opens_on_time() {
            self.plan_opening(u, ctx);
        }
    }

    /// Drops the rest of user `u`'s open session (it gave up or left).
    fn drop_rest(&mut self, u: u32) {
        if let Some(s) = self.agents[u as usize].open.as_mut() {
            self.report.dropped_jobs += s.session.drop_rest();
        }
    }
}

impl BusyUser {
    /// Whether a session is due at its planned start whatever its user is doing (the
    /// user then skips it or gives up the previous one), rather than once the user is
    /// free.
    fn opens_on_time(self) -> bool {
        matches!(self, BusyUser::Waiting | BusyUser::GiveUp)
    }
}

impl Workload for ModelSite {
    fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
        ctx.wake_at(0, WEEK_TOKEN);
        Ok(())
    }

    fn on_wake(&mut self, token: u64, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let now = ctx.now();
        if token == WEEK_TOKEN {
            self.plan_week(ctx)?;
        }
        self.wakes.remove(&now);
        while let Some(&Reverse((at, u))) = self.due.peek()
            && at <= now
        {
            self.due.pop();
            self.act(u, ctx);
        }
        Ok(())
    }

    fn on_job_start(&mut self, tag: u64) {
        if let Some(a) = self.agents.get_mut(untag(tag).0 as usize)
            && let Some(i) = a.waiting.iter().position(|w| w.0 == tag)
        {
            a.waiting.swap_remove(i);
        }
    }

    fn on_job_end(&mut self, job: &JobOutcome, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let now = ctx.now();
        let (u, generation, j) = untag(job.tag);
        let a = self
            .agents
            .get_mut(u as usize)
            .ok_or_else(|| SimError::Workload(format!("job {} of unknown user {u}", job.job)))?;
        let leave = match self.behaviour.patience {
            Some(p) if !a.left => p.strike(job.wait(), None, &mut a.strikes),
            _ => false,
        };
        if a.open.as_ref().is_none_or(|s| s.generation != generation) {
            // A job of a session its user gave up: no reaction, the session closes with
            // its last job.
            let k = a
                .superseded
                .iter()
                .position(|s| s.generation == generation)
                .ok_or_else(|| {
                    SimError::Workload(format!(
                        "job {} ended outside a session of user {u}",
                        job.job
                    ))
                })?;
            let s = &mut a.superseded[k];
            s.session.ended(j, now, job.response(), None);
            if s.session.is_over() {
                let s = a.superseded.swap_remove(k);
                self.record(u, &s, now);
            }
        } else {
            let s = a.open.as_mut().expect("checked above");
            // The reference: the runtime's share under the log's own service.
            let curve =
                (self.behaviour.continuation.as_ref()).map(|c| (c, c.runtime_share(job.runtime())));
            match s.session.ended(j, now, job.response(), curve) {
                Reaction::Extend => {
                    let (plan, class) = (&self.plan, s.class);
                    if s.session.extend(|rng| plan.next_job(class, rng)) {
                        self.report.extended += 1;
                    }
                }
                Reaction::GiveUp if !leave => {
                    self.report.gave_up += 1;
                    self.drop_rest(u);
                }
                Reaction::GiveUp | Reaction::AsPlanned => {}
            }
        }
        if leave {
            let a = &mut self.agents[u as usize];
            a.left = true;
            a.pending.clear();
            self.report.frustrated += 1;
            self.drop_rest(u);
        }
        self.plan_next(u, ctx);
        Ok(())
    }
}
