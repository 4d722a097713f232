//! The model-based site in the closed loop: the [`Workload`] whose users follow the plan
//! of [`super::plan`] and submit each session's jobs as the machine finishes them.
//!
//! A session opens at its planned start, or, if its user is still busy with its previous
//! session (jobs left to submit or still running), once that session is over plus the
//! collision gap: a user works one session at a time, as in a log's sessions. The plan
//! keeps a user's sessions apart as they would last on a machine that starts every job
//! at once ([`super::plan::CollisionRoom`]), so a session is deferred because the machine
//! made its user wait, or because the plan could not place its user's week apart. By
//! default ([`BusyUser::Queue`]) it still opens, however late, and only the horizon cuts
//! what is left: the machine delays planned work but does not remove it. In an open
//! session the first job is submitted at once; each later
//! job follows the previous one's end by its think time, or, for a concurrent job, the
//! previous submission by its gap ([`super::jobs`]). Optional reactions to bad service,
//! as in the feedback replay ([`crate::users::behaviour`]): after a long response the
//! user may give up the rest of the session (continuation curve, with the job's runtime,
//! its response on an idle machine, as the reference), and after too many long waits it
//! leaves for good (patience). No session opens and no job is submitted after the
//! horizon.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::SessionClass;
use super::jobs::{Follow, SessionJob};
use super::plan::{PlanCounts, PlannedSession, SitePlan};
use super::tally::{Tally, WorkloadFigures};
use crate::job::{JobOutcome, JobSpec};
use crate::sim::{SimError, SourceCtx, Workload};
use crate::time::{Time, WEEK};
use crate::users::Behaviour;

/// The wake-up token of the weekly planning (the users' own is 0).
const WEEK_TOKEN: u64 = 1;

/// What a user does with a session that comes due while it is still busy with its
/// previous one. The thesis's model is open loop (§13.1) and has no such case; its plan
/// only keeps a user's sessions 20 minutes apart (Listing 5), and under bad service
/// "users will submit fewer new jobs" (§14.2), which is the service's doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BusyUser {
    /// Its sessions queue: each opens once the previous one is over plus the collision
    /// gap, however late. No planned session is lost but to the horizon.
    #[default]
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
    /// Sessions that opened after their planned start (their user was busy).
    pub deferred: u64,
    /// Time by which opened sessions followed their planned start, summed, seconds.
    pub delay: Time,
    /// Sessions skipped: their user was still busy at its next planned session
    /// ([`BusyUser::Skip`]).
    pub skipped: u64,
    /// Sessions planned to start by the horizon that had not opened by then (their
    /// user still busy with earlier ones), counted at the end of the run.
    pub not_opened: u64,
    /// Sessions given up after a long response (continuation).
    pub gave_up: u64,
    /// Jobs never submitted: the rest of sessions given up or of users who left.
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

/// An open session.
#[derive(Debug, Clone)]
struct OpenSession {
    class: SessionClass,
    jobs: Vec<SessionJob>,
    /// The next job to submit.
    next: usize,
    /// Jobs submitted and not ended.
    running: u32,
    last_submit: Time,
    /// End of each submitted job, once ended.
    ends: Vec<Option<Time>>,
    /// Submission of each submitted job.
    submits: Vec<Time>,
    /// The time a submission of `next` is planned for, if it is.
    planned: Option<Time>,
}

/// A user of the site.
#[derive(Debug, Clone, Default)]
struct Agent {
    pending: VecDeque<PlannedSession>,
    open: Option<OpenSession>,
    /// When its last session ended (its last job ended).
    free_from: Time,
    /// The time the opening of the front pending session is planned for, if it is.
    opening: Option<Time>,
    strikes: u32,
    left: bool,
    rng: Option<Xoshiro256PlusPlus>,
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
        ModelSite {
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
    fn plan_week(&mut self, ctx: &mut SourceCtx) {
        let sessions = self.plan.next_week();
        self.agents
            .resize_with(self.plan.users().len(), Agent::default);
        self.generated.add_planned(&sessions, self.horizon);
        for s in sessions {
            let (u, start) = (s.user, s.start);
            let a = &mut self.agents[u as usize];
            if a.left {
                continue;
            }
            a.pending.push_back(s);
            if a.open.is_none() && a.opening.is_none() {
                let at = start.max(a.free_from + self.gap);
                a.opening = Some(at);
                self.schedule(at, u, ctx);
            }
        }
        let next = Time::from(self.plan.week()) * WEEK;
        if next < self.horizon {
            ctx.wake_at(next, WEEK_TOKEN);
        }
    }

    /// User `u`'s planned action is due now: open its next session, or submit a job.
    fn act(&mut self, u: u32, ctx: &mut SourceCtx) {
        let now = ctx.now();
        let a = &mut self.agents[u as usize];
        if a.left {
            return;
        }
        if a.open.is_none() {
            // A stale plan of a job of the session that just closed is not an opening.
            if a.opening != Some(now) {
                return;
            }
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
            if now > s.start {
                self.report.deferred += 1;
                self.report.delay += now - s.start;
            }
            self.report.sessions_by_class[s.class.index()] += 1;
            a.rng = Some(s.rng);
            a.open = Some(OpenSession {
                class: s.class,
                ends: vec![None; s.jobs.len()],
                submits: Vec::with_capacity(s.jobs.len()),
                jobs: s.jobs,
                next: 0,
                running: 0,
                last_submit: now,
                planned: Some(now),
            });
        }
        self.submit_next(u, ctx);
    }

    /// Submits user `u`'s next job if it is planned for now (a plan moved earlier
    /// leaves a stale entry behind), and plans the one after if its time is known.
    fn submit_next(&mut self, u: u32, ctx: &mut SourceCtx) {
        let now = ctx.now();
        let a = &mut self.agents[u as usize];
        let Some(s) = a.open.as_mut() else {
            return;
        };
        if s.planned != Some(now) {
            return;
        }
        let j = s.next;
        let job = s.jobs[j];
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
            tag: (u64::from(u) << 32) | j as u64,
            record: None,
            logged_wait: None,
        });
        self.next_job += 1;
        self.submitted.add(job.runtime, job.size.min(self.machine));
        self.report.jobs_by_class[s.class.index()] += 1;
        s.submits.push(now);
        s.next += 1;
        s.running += 1;
        s.last_submit = now;
        s.planned = None;
        self.plan_next(u, ctx);
    }

    /// Plans user `u`'s next submission if its time is known, or closes its session.
    fn plan_next(&mut self, u: u32, ctx: &mut SourceCtx) {
        let a = &mut self.agents[u as usize];
        let Some(s) = a.open.as_mut() else {
            return;
        };
        let Some(job) = s.jobs.get(s.next) else {
            if s.running == 0 {
                self.close(u, ctx);
            }
            return;
        };
        let previous_end = s.ends[s.next - 1];
        let at = match job.follow {
            Follow::First => Some(ctx.now()),
            // Submitted while the previous job runs: its gap after that submission, or
            // at the previous job's end if that comes first (the user does not wait
            // past a result it was not waiting for).
            Follow::Concurrent(gap) => {
                Some(previous_end.map_or(s.last_submit + gap, |e| (s.last_submit + gap).min(e)))
            }
            Follow::Think(think) => previous_end.map(|end| end + think),
        };
        if let Some(at) = at.map(|t| t.max(ctx.now()))
            && s.planned.is_none_or(|p| at < p)
        {
            s.planned = Some(at);
            self.schedule(at, u, ctx);
        }
    }

    /// User `u`'s session is over: plan the opening of its next one.
    fn close(&mut self, u: u32, ctx: &mut SourceCtx) {
        let now = ctx.now();
        let a = &mut self.agents[u as usize];
        if let (Some(records), Some(s)) = (self.records.as_mut(), a.open.as_ref())
            && !s.submits.is_empty()
        {
            let n = s.submits.len();
            let mut runtimes: Vec<f64> = s.jobs[..n].iter().map(|j| j.runtime as f64).collect();
            let mut sizes: Vec<f64> = s.jobs[..n].iter().map(|j| f64::from(j.size)).collect();
            let mut thinks: Vec<f64> = (1..n)
                .filter_map(|i| s.ends[i - 1].map(|e| (s.submits[i] - e) as f64))
                .collect();
            records.push(SessionRecord {
                class: s.class,
                start: s.submits[0],
                end: now,
                jobs: n as u32,
                median_runtime: median(&mut runtimes),
                median_size: median(&mut sizes),
                median_think: if thinks.is_empty() {
                    0.0
                } else {
                    median(&mut thinks)
                },
            });
        }
        a.open = None;
        a.rng = None;
        a.free_from = now;
        if let Some(s) = a.pending.front() {
            let at = s.start.max(now + self.gap);
            a.opening = Some(at);
            self.schedule(at, u, ctx);
        }
    }

    /// Drops the rest of user `u`'s open session (it gave up or left).
    fn drop_rest(&mut self, u: u32) {
        if let Some(s) = self.agents[u as usize].open.as_mut() {
            self.report.dropped_jobs += (s.jobs.len() - s.next) as u64;
            s.jobs.truncate(s.next);
        }
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
            self.plan_week(ctx);
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

    fn on_job_end(&mut self, job: &JobOutcome, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let now = ctx.now();
        let u = (job.tag >> 32) as u32;
        let j = (job.tag & 0xFFFF_FFFF) as usize;
        let behaviour = &self.behaviour;
        let a = self
            .agents
            .get_mut(u as usize)
            .ok_or_else(|| SimError::Workload(format!("job {} of unknown user {u}", job.job)))?;
        let Some(s) = a.open.as_mut() else {
            return Err(SimError::Workload(format!(
                "job {} ended outside a session of user {u}",
                job.job
            )));
        };
        s.ends[j] = Some(now);
        s.running -= 1;
        let mut give_up = false;
        let mut leave = false;
        if let Some(p) = behaviour.patience
            && !a.left
            && job.wait() > p.limit
        {
            a.strikes += 1;
            leave = a.strikes >= p.strikes;
        }
        if let Some(curve) = &behaviour.continuation
            && j + 1 == s.next
            && matches!(s.jobs.get(s.next).map(|n| n.follow), Some(Follow::Think(_)))
        {
            let logged = curve.share(job.runtime().max(1));
            let p = if logged <= 0.0 {
                1.0
            } else {
                (curve.share(job.response()) / logged).min(1.0)
            };
            let rng = a.rng.as_mut().expect("an open session has its stream");
            give_up = p < 1.0 && rng.random::<f64>() >= p;
        }
        if leave {
            a.left = true;
            self.report.frustrated += 1;
            a.pending.clear();
            self.drop_rest(u);
        } else if give_up {
            self.report.gave_up += 1;
            self.drop_rest(u);
        }
        self.plan_next(u, ctx);
        Ok(())
    }
}
