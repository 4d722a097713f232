//! Replay with feedback: every user of a log is a [`TraceAgent`] that submits its own
//! jobs as the simulated machine finishes the ones they depend on (Feitelson 2021, §4.3).
//! Submissions stream into the engine as users decide them: each user has at most one
//! submission planned at a time. Submissions due at the same second go in log order, as
//! in an open-loop replay, whatever order the users decided them in.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::job::JobOutcome;
use crate::sim::{SimError, SourceCtx, Workload};
use crate::swf::{KeptRecords, SwfRecord};
use crate::time::{DAY, Time};
use crate::users::{Lateness, LatenessSummary, TraceAgent, UserConfig, UserCounts, UserState};
use crate::workload::trace::Trace;

/// The users of a log, replaying their streams with feedback.
pub struct TraceUsers {
    agents: Vec<TraceAgent>,
    cfg: UserConfig,
    /// Planned submissions: (time, log line of the job, user number, agent).
    due: BinaryHeap<Reverse<(Time, u64, i64, u32)>>,
    /// Times a wake-up was asked for and has not come yet (only asked and looked up,
    /// never walked in order: a hash set).
    wakes: FxHashSet<Time>,
    /// No submission after this time.
    horizon: Time,
    /// Agents that submitted their last job, or left for good, since
    /// [`TraceUsers::take_finished`].
    finished: Vec<u32>,
    /// The lateness of the submitted jobs.
    lateness: Lateness,
}

/// What became of the population.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PopulationSummary {
    /// Users.
    pub users: u64,
    /// Users who submitted all their jobs.
    pub done: u64,
    /// Users who left for good after long waits (frustrated).
    pub frustrated: u64,
    /// Jobs in the users' streams.
    pub trace_jobs: u64,
    /// Jobs the frustrated users never submitted.
    pub never_submitted: u64,
    /// What became of the submitted jobs.
    pub jobs: UserCounts,
    /// How late the jobs came against their logged times (those not submitted by the
    /// end of the run counted as late as they were then).
    pub lateness: LatenessSummary,
    /// Users who submitted their last job more than a day after its logged time: whose
    /// streams of work the service drew out past the log's.
    pub finished_late: u64,
    /// The median, over the users who submitted all their jobs, of how much later than
    /// logged each submitted its last one, seconds (negative: earlier).
    pub finish_lateness_median: Time,
}

impl TraceUsers {
    /// The users of `trace`; `seed` seeds their random streams.
    /// The log records of `trace`'s jobs, found in `by_line` by their tags as read (their
    /// lines), keyed by the tags the agents of [`TraceUsers::new`] give the jobs: what a
    /// per-job writer joins back.
    pub fn records_by_tag(trace: &Trace, by_line: &FxHashMap<u64, SwfRecord>) -> KeptRecords {
        let mut by_tag = FxHashMap::with_capacity_and_hasher(by_line.len(), Default::default());
        for (i, u) in trace.users.iter().enumerate() {
            let index = u32::try_from(i).expect("fewer than 2^32 users");
            for (j, job) in u.jobs.iter().enumerate() {
                if let Some(r) = by_line.get(&job.spec.tag) {
                    by_tag.insert(TraceAgent::tag(index, j), *r);
                }
            }
        }
        Rc::new(RefCell::new(by_tag))
    }

    pub fn new(trace: Trace, cfg: UserConfig, seed: u64) -> Self {
        let agents = trace
            .users
            .into_iter()
            .enumerate()
            .map(|(i, u)| {
                let index = u32::try_from(i).expect("fewer than 2^32 users");
                TraceAgent::new(index, u, seed)
            })
            .collect();
        TraceUsers {
            agents,
            ..TraceUsers::empty(cfg, Time::MAX)
        }
    }

    /// No users yet (they come with [`TraceUsers::add`]); nothing is submitted after
    /// `horizon`.
    pub fn empty(cfg: UserConfig, horizon: Time) -> Self {
        TraceUsers {
            agents: Vec::new(),
            cfg,
            due: BinaryHeap::new(),
            wakes: FxHashSet::default(),
            horizon,
            finished: Vec::new(),
            lateness: Lateness::default(),
        }
    }

    /// Counts the lateness of the jobs logged in `[from, to)` only (a resampled run's
    /// measured weeks).
    pub fn measuring(self, from: Time, to: Time) -> Self {
        TraceUsers {
            lateness: Lateness::within(from, to),
            ..self
        }
    }

    /// Adds `agent` to the running population and plans its first submission.
    pub fn add(&mut self, agent: TraceAgent, ctx: &mut SourceCtx) {
        let index = u32::try_from(self.agents.len()).expect("fewer than 2^32 agents");
        self.agents.push(agent.with_index(index));
        if let Some(at) = self.agents[index as usize].start(ctx.now(), &self.cfg) {
            self.plan_from_outside(index, at, ctx);
        }
    }

    /// Plans a submission decided outside a wake-up of the users (a job ended, a user
    /// arrived): one due now is submitted at this second's wake-up phase, after every end.
    fn plan_from_outside(&mut self, agent: u32, at: Time, ctx: &mut SourceCtx) {
        self.plan(agent, at, ctx);
        if at <= ctx.now() && at <= self.horizon && self.wakes.insert(at) {
            ctx.wake_at(at, 0);
        }
    }

    /// The agents that submitted their last job, or left for good, since the last call.
    pub fn take_finished(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.finished)
    }

    /// Plans agent `agent`'s next submission at `at`.
    fn plan(&mut self, agent: u32, at: Time, ctx: &mut SourceCtx) {
        if at > self.horizon {
            return;
        }
        let a = &self.agents[agent as usize];
        self.due.push(Reverse((at, a.next_line(), a.user(), agent)));
        if at > ctx.now() && self.wakes.insert(at) {
            ctx.wake_at(at, 0);
        }
    }

    /// Submits every planned submission due by now, in log order.
    fn submit_due(&mut self, ctx: &mut SourceCtx) {
        while let Some(&Reverse((at, _, _, agent))) = self.due.peek()
            && at <= ctx.now()
        {
            self.due.pop();
            let a = &mut self.agents[agent as usize];
            match a.submit_due(ctx, &self.cfg, &mut self.lateness) {
                Some(next) => self.plan(agent, next, ctx),
                None if a.state() == UserState::Done => self.finished.push(agent),
                None => {}
            }
        }
    }

    /// The users.
    pub fn agents(&self) -> &[TraceAgent] {
        &self.agents
    }

    /// What became of the population so far; the jobs still to be submitted count as
    /// late as they are at the horizon (in a run without one, every user has submitted
    /// its jobs or left by the end).
    pub fn summary(&self) -> PopulationSummary {
        let mut lateness = self.lateness.clone();
        for logged in self.agents.iter().flat_map(TraceAgent::unsubmitted) {
            lateness.censored(self.horizon, logged);
        }
        let mut s = PopulationSummary {
            users: self.agents.len() as u64,
            lateness: lateness.summary(),
            ..PopulationSummary::default()
        };
        let mut finish: Vec<Time> = self
            .agents
            .iter()
            .filter_map(TraceAgent::finish_lateness)
            .collect();
        s.finished_late = finish.iter().filter(|&&l| l > DAY).count() as u64;
        if !finish.is_empty() {
            let mid = (finish.len() - 1) / 2;
            s.finish_lateness_median = *finish.select_nth_unstable(mid).1;
        }
        for a in &self.agents {
            let c = a.counts();
            s.jobs.add(c);
            s.trace_jobs += a.trace().jobs.len() as u64;
            match a.state() {
                UserState::Done => s.done += 1,
                UserState::Left => {
                    s.frustrated += 1;
                    s.never_submitted += a.trace().jobs.len() as u64 - c.submitted;
                }
                UserState::Waiting | UserState::Ready(..) => {}
            }
        }
        s
    }
}

impl Workload for TraceUsers {
    fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let now = ctx.now();
        for i in 0..self.agents.len() {
            if let Some(at) = self.agents[i].start(now, &self.cfg) {
                self.plan(i as u32, at, ctx);
            }
        }
        Ok(())
    }

    fn on_wake(&mut self, _token: u64, ctx: &mut SourceCtx) -> Result<(), SimError> {
        self.wakes.remove(&ctx.now());
        self.submit_due(ctx);
        Ok(())
    }

    fn on_job_end(&mut self, job: &JobOutcome, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let (user, index) = TraceAgent::untag(job.tag);
        let agent = self.agents.get_mut(user as usize).ok_or_else(|| {
            SimError::Workload(format!("job {} ended for unknown user {user}", job.job))
        })?;
        let left = agent.state() == UserState::Left;
        if let Some(at) = agent.ended(index, job, ctx.now(), &self.cfg) {
            self.plan_from_outside(user, at, ctx);
        } else if !left && agent.state() == UserState::Left {
            self.finished.push(user);
        }
        Ok(())
    }
}
