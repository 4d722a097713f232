//! A trace user: one user of a log replaying its own job stream with feedback.
//!
//! The user moves between the three states of Feitelson 2021, Fig. 13: **thinking** (its next job
//! is ready and will be submitted at a known time), **waiting** (its next job depends on
//! jobs that have not ended yet) and **away** (its next job became ready outside its
//! windows and waits for the next one to open). It submits its jobs in log order (the
//! order constraint). A job with termination dependencies is ready once they have all
//! ended, at the latest of their simulated ends plus its dependency think time; a job
//! without any (the user's first jobs, or jobs submitted while everything before them was
//! still running) keeps its logged distance from the previous submission. The fluid model
//! ([`super::fluid`]) then places the ready time in the user's windows. Every submission
//! is set against the logged calendar ([`super::drift`]).
//!
//! After each result the user reacts to the service ([`super::reaction`]), against the
//! response the job would have had with its logged wait (the log's service; its runtime
//! is the simulated one, which differs from the log's when the job is killed at its
//! estimate): worse service may make it give up a session the log kept going (it goes
//! away, and its next job comes when it is back to work, [`super::fluid::Return`]),
//! better service may make it go on where the log broke off: its next logged job, which
//! opened a later session, flows forward to the curve's median in-session think time
//! after the result (Feitelson 2021, §4.3: "jobs that were submitted originally in the
//! next session may flow forward to occur in the current one"). Either way the user's
//! calendar moves with it: the time it gained by going on, or lost by breaking off, is
//! kept by its later sessions, whose starts the calendar rule
//! ([`super::fluid::OpeningThink::Calendar`]) holds to their logged times plus what it
//! gained or lost so, rather than made up at the next break. A user that goes on does
//! more of its own work sooner, and its regeneration comes sooner
//! ([`super::population::RegenerateFrom::Finish`]); one that breaks off, later. So a
//! better service gains work by the same rules as a worse one loses it.

use std::sync::Arc;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use super::UserConfig;
use super::continuation::ContinuationCurve;
use super::deps::Dependencies;
use super::drift::{Drift, Lateness, Rule};
use super::fluid::{CalendarShift, FlowForward, NegativeThink, Placement, Windows};
use super::reaction::{Planned, Reaction, react};
use crate::job::{JobOutcome, JobSpec};
use crate::sim::SourceCtx;
use crate::time::Time;
use crate::workload::trace::TraceUser;

/// What became of a user's jobs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct UserCounts {
    /// Jobs submitted.
    pub submitted: u64,
    /// Submitted when they became ready, inside a window.
    pub inside_window: u64,
    /// Ready between windows, submitted at the next window's start.
    pub next_window: u64,
    /// Ready after the user's last window, submitted then.
    pub after_last_window: u64,
    /// Submitted before their own session's window opened (they flowed forward).
    pub flowed_forward: u64,
    /// Submitted after their own session's window closed.
    pub after_own_window: u64,
    /// Submitted at the user's next usual hour, before its next window.
    pub usual_hour: u64,
    /// Sessions the user gave up after a long response (continuation model).
    pub gave_up: u64,
    /// Sessions the log broke off that the user went on with after a short response, its
    /// next job flowing forward (continuation model).
    pub extended: u64,
    /// Waits over the patience limit.
    pub strikes: u64,
    /// Submissions against the logged calendar.
    pub drift: Drift,
}

impl UserCounts {
    /// Adds `other` into `self`.
    pub fn add(&mut self, o: &UserCounts) {
        self.submitted += o.submitted;
        self.inside_window += o.inside_window;
        self.next_window += o.next_window;
        self.after_last_window += o.after_last_window;
        self.usual_hour += o.usual_hour;
        self.flowed_forward += o.flowed_forward;
        self.after_own_window += o.after_own_window;
        self.gave_up += o.gave_up;
        self.extended += o.extended;
        self.strikes += o.strikes;
        self.drift.add(&o.drift);
    }
}

/// Where a user is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserState {
    /// Its next job waits for jobs that have not ended.
    Waiting,
    /// Its next job will be submitted at this time (thinking, or away until a window),
    /// placed so in the windows, the time set by this rule.
    Ready(Time, Placement, Rule),
    /// All its jobs are submitted.
    Done,
    /// It left for good after too many long waits.
    Left,
}

/// A trace user in the simulation.
#[derive(Debug, Clone)]
pub struct TraceAgent {
    index: u32,
    /// Its stream, as the log has it: shared by every instance of one log user in a
    /// resampled run, so that starting an instance copies no job.
    trace: Arc<TraceUser>,
    /// How far this instance is moved from the log, seconds: every logged time of the
    /// stream (submissions, windows) is taken plus this (0 in a feedback replay).
    shift: Time,
    /// The user number it submits as.
    user: i64,
    /// The stream's windows, unshifted.
    windows: Windows,
    deps: Dependencies,
    next: usize,
    last_submit: Option<Time>,
    cursor: usize,
    state: UserState,
    rng: Xoshiro256PlusPlus,
    /// Simulated end and response time of each job, once it ended, and the response it
    /// would have had with its logged wait.
    ends: Vec<Option<(Time, Time, Time)>>,
    /// Response time saved against the log so far: over the ended jobs, the logged
    /// response minus the simulated one, where positive.
    saved: Time,
    /// How far its calendar moved with its own decisions, seconds: the time it gained
    /// by going on with its next job where the log broke off, minus the time it lost by
    /// breaking off where the log went on. The calendar rule holds its sessions to their
    /// logged starts plus this.
    offset: Time,
    counts: UserCounts,
}

/// The longest break a user goes on through when better service extends its session
/// (ours): a week, the most the return rule ([`super::fluid::Return::UsualHour`]) makes a
/// late user lose before it is back at its usual hours, so that time is gained as it is
/// lost. A longer break (a user away for a month) is kept whatever the service.
pub const MAX_EXTENDED_BREAK: Time = crate::time::WEEK;

/// Whether a job whose log says it opened a session or not (`logged`) opens one as its
/// user lives it, its submission time set by `rule`: a job the user went on with after a
/// short response continues the session the log broke off; one it came back with after
/// giving up a session, or after being away past its window, opens one.
fn opens_session(logged: bool, rule: Rule) -> bool {
    match rule {
        Rule::Extended => false,
        Rule::GaveUp | Rule::Window | Rule::UsualHour => true,
        _ => logged,
    }
}

/// The seed of user `user`'s stream in a run seeded `seed`: each user has its own stream,
/// and two runs with one seed share them.
fn user_seed(seed: u64, user: i64) -> u64 {
    crate::seed::mix(seed, user as u64)
}

impl TraceAgent {
    /// The agent of `trace`, the `index`-th user of its population.
    pub fn new(index: u32, trace: TraceUser, seed: u64) -> Self {
        let user = trace.user;
        TraceAgent {
            index,
            ..TraceAgent::shifted(Arc::new(trace), 0, user, seed)
        }
    }

    /// An instance of the shared stream `trace` moved by `shift` seconds, submitting as
    /// user `user` (a resampled user; its records, if any, are not submitted).
    pub fn shifted(trace: Arc<TraceUser>, shift: Time, user: i64, seed: u64) -> Self {
        TraceAgent {
            index: 0,
            shift,
            user,
            windows: Windows::new(&trace),
            deps: Dependencies::new(trace.jobs.len()),
            ends: vec![None; trace.jobs.len()],
            rng: Xoshiro256PlusPlus::seed_from_u64(user_seed(seed, user)),
            trace,
            next: 0,
            last_submit: None,
            cursor: 0,
            state: UserState::Waiting,
            saved: 0,
            offset: 0,
            counts: UserCounts::default(),
        }
    }

    /// The same agent as the `index`-th of its population.
    pub fn with_index(self, index: u32) -> Self {
        TraceAgent { index, ..self }
    }

    /// The tag of this user's job `job`.
    pub fn tag(index: u32, job: usize) -> u64 {
        (u64::from(index) << 32) | job as u64
    }

    /// The user and job a tag stands for.
    pub fn untag(tag: u64) -> (u32, usize) {
        ((tag >> 32) as u32, (tag & 0xFFFF_FFFF) as usize)
    }

    /// The user number it submits as (the log's, in a feedback replay).
    pub fn user(&self) -> i64 {
        self.user
    }

    /// Its trace, unshifted.
    pub fn trace(&self) -> &TraceUser {
        &self.trace
    }

    /// Where it is.
    pub fn state(&self) -> UserState {
        self.state
    }

    /// What became of its jobs so far.
    pub fn counts(&self) -> &UserCounts {
        &self.counts
    }

    /// How much later than its logged time the user submitted its last job (negative:
    /// earlier), once it has submitted all its jobs.
    pub fn finish_lateness(&self) -> Option<Time> {
        match (self.state, self.last_submit, self.trace.jobs.last()) {
            (UserState::Done, Some(at), Some(last)) => Some(at - (last.submit + self.shift)),
            _ => None,
        }
    }

    /// The log line of the user's next job: the order of submissions due at one time.
    pub fn next_line(&self) -> u64 {
        self.trace.jobs.get(self.next).map_or(u64::MAX, |j| j.line)
    }

    /// Plans the first submission; the time it is due, if the user has jobs.
    pub fn start(&mut self, now: Time, cfg: &UserConfig) -> Option<Time> {
        self.plan(now, cfg)
    }

    /// Submits the job due at `now` (the time [`TraceAgent::start`], this method or
    /// [`TraceAgent::ended`] returned), counting its lateness into `lateness`; returns
    /// when the next one is due, if known.
    pub fn submit_due(
        &mut self,
        ctx: &mut SourceCtx,
        cfg: &UserConfig,
        lateness: &mut Lateness,
    ) -> Option<Time> {
        let now = ctx.now();
        match self.state {
            UserState::Ready(t, placement, rule) if t == now => {
                self.submit(now, (placement, rule), cfg.open_loop, ctx, lateness);
                self.plan(now, cfg)
            }
            _ => None,
        }
    }

    /// The logged times (moved with the instance) of the jobs it has not submitted, if it
    /// is still to submit them (a user who left for good never will).
    pub fn unsubmitted(&self) -> impl Iterator<Item = Time> + '_ {
        let jobs = if self.state == UserState::Left {
            &[][..]
        } else {
            &self.trace.jobs[self.next..]
        };
        jobs.iter().map(|j| j.submit + self.shift)
    }

    /// The user's job `job` ended as `outcome` at `now`; returns when the next submission
    /// is due, if this made it known.
    pub fn ended(
        &mut self,
        job: usize,
        outcome: &JobOutcome,
        now: Time,
        cfg: &UserConfig,
    ) -> Option<Time> {
        let logged = &self.trace.jobs[job];
        let reference = logged.start - logged.submit + outcome.runtime();
        self.deps.ended(self.trace.rank[job], now);
        self.ends[job] = Some((now, outcome.response(), reference));
        self.saved += (logged.response() - outcome.response()).max(0);
        // A user who left, or who has submitted all its jobs, has nothing left to give up.
        if matches!(self.state, UserState::Left | UserState::Done) {
            return None;
        }
        // Without feedback users submit at their logged times, whatever the service:
        // nobody leaves either.
        if !cfg.open_loop
            && let Some(p) = cfg.behaviour.patience
            && p.strike(
                outcome.wait(),
                Some(logged.start - logged.submit),
                &mut self.counts.strikes,
            )
        {
            self.state = UserState::Left;
            return None;
        }
        if self.state == UserState::Waiting {
            self.plan(now, cfg)
        } else {
            None
        }
    }

    /// Finds the next state; the time the next submission is due, if it is known.
    fn plan(&mut self, now: Time, cfg: &UserConfig) -> Option<Time> {
        self.state = self.next_state(now, cfg);
        match self.state {
            UserState::Ready(t, ..) => Some(t),
            _ => None,
        }
    }

    fn submit(
        &mut self,
        now: Time,
        (placement, rule): (Placement, Rule),
        open_loop: bool,
        ctx: &mut SourceCtx,
        lateness: &mut Lateness,
    ) {
        let j = self.next;
        let job = &self.trace.jobs[j];
        ctx.submit(JobSpec {
            tag: Self::tag(self.index, j),
            user: self.user,
            opens_session: (!open_loop).then_some(opens_session(job.opens_session, rule)),
            ..job.spec.clone()
        });
        let shift = self.shift;
        let own = self.trace.windows[job.session as usize];
        let c = &mut self.counts;
        c.submitted += 1;
        match placement {
            Placement::Inside => c.inside_window += 1,
            Placement::NextWindow => c.next_window += 1,
            Placement::UsualHour => c.usual_hour += 1,
            Placement::AfterLast => c.after_last_window += 1,
        }
        c.flowed_forward += u64::from(now < own.start + shift);
        c.after_own_window += u64::from(now > own.end + shift);
        c.drift.record(now, job.submit + shift, rule, self.saved);
        lateness.record(now, job.submit + shift);
        self.deps.submitted(self.trace.rank[j]);
        self.last_submit = Some(now);
        self.next += 1;
    }

    /// The state after the submissions so far, at `now`.
    fn next_state(&mut self, now: Time, cfg: &UserConfig) -> UserState {
        let Some(job) = self.trace.jobs.get(self.next) else {
            return UserState::Done;
        };
        let shift = self.shift;
        // Its logged submission, moved with the instance.
        let logged = job.submit + shift;
        if cfg.open_loop {
            return UserState::Ready(logged.max(now), Placement::Inside, Rule::Order);
        }
        let mut deps = self.deps.state(job.deps);
        for &d in self.trace.dep_jobs(job) {
            match self.ends[d as usize] {
                Some((end, ..)) => deps.latest_end = deps.latest_end.max(Some(end)),
                None => deps.pending += 1,
            }
        }
        if deps.pending > 0 {
            return UserState::Waiting;
        }
        // The latest of the constraints sets the time, and names the rule that did:
        // first those that hold whatever the user thinks (the order constraint, the
        // clock, the flow-forward limit), then the think times after results.
        let mut floor = (Time::MIN, Rule::Order);
        let bound = |ready: &mut (Time, Rule), t: Time, rule: Rule| {
            if t > ready.0 {
                *ready = (t, rule);
            }
        };
        let previous = self.next.checked_sub(1).map(|p| &self.trace.jobs[p]);
        // The order constraint, and the spacing of a submission made no later than the
        // previous job ended.
        match (previous, self.last_submit, job.think) {
            (Some(p), Some(last), Some(think)) if think <= 0 => match cfg.rules.negative_think {
                NegativeThink::Spacing => {
                    bound(&mut floor, last + (job.submit - p.submit), Rule::Order)
                }
                NegativeThink::Together => bound(&mut floor, last, Rule::Order),
            },
            (_, Some(last), _) => bound(&mut floor, last, Rule::Order),
            (_, None, _) => bound(&mut floor, logged, Rule::Order),
        }
        bound(&mut floor, now, Rule::Clock);
        // A job flows forward into the session before its own at the earliest.
        if cfg.rules.flow_forward == FlowForward::Next
            && let Some(before) = (job.session as usize).checked_sub(1)
        {
            bound(
                &mut floor,
                self.trace.windows[before].start + shift,
                Rule::FlowLimit,
            );
        }
        let mut ready = floor;
        // A think time after a result; one of the session threshold or more is a break,
        // whichever job it is measured from, and the opening rule applies to it.
        let anchor = logged + self.offset;
        let after = |end: Time, think: Time, rule: Rule| {
            let t = cfg
                .rules
                .opening_think
                .ready_after(end, think, anchor, cfg.threshold);
            (
                t,
                if think >= cfg.threshold {
                    Rule::Break
                } else {
                    rule
                },
            )
        };
        // The think time after the job it is measured from (one of its dependencies).
        if let (Some(think), Some(from)) = (job.think, job.think_from)
            && think > 0
            && let Some((end, ..)) = self.ends[from as usize]
        {
            let (t, rule) = after(end, think, Rule::Think);
            bound(&mut ready, t, rule);
        }
        // The dependency think time after the latest of its dependencies.
        if let (Some(think), Some(latest)) = (job.dep_think, deps.latest_end) {
            let (t, rule) = after(latest, think, Rule::Dependency);
            bound(&mut ready, t, rule);
        }
        let (at, mut rule) = ready;
        let mut at = at;
        if let Some(curve) = &cfg.behaviour.continuation {
            match self.reaction(curve, cfg.threshold) {
                Some((Reaction::GiveUp, _)) => {
                    if let Some(back) =
                        self.windows
                            .after_break(at - shift, cfg.threshold, cfg.rules.away)
                    {
                        self.counts.gave_up += 1;
                        if cfg.rules.calendar_shift == CalendarShift::Moves {
                            self.offset += (back + shift - at).max(0);
                        }
                        (at, rule) = (back + shift, Rule::GaveUp);
                    }
                }
                Some((Reaction::Extend, end)) => {
                    // It goes on with its next job instead of the break the log took: the
                    // job flows forward to the in-session think time after the result,
                    // no earlier than its other constraints allow. A break of more than
                    // [`MAX_EXTENDED_BREAK`] is an absence the service cannot shorten,
                    // as a user late for its session loses at most that.
                    let mut extended = floor;
                    bound(&mut extended, end + curve.continued_think(), Rule::Extended);
                    if extended.0 < at && at - extended.0 <= MAX_EXTENDED_BREAK {
                        self.counts.extended += 1;
                        if cfg.rules.calendar_shift == CalendarShift::Moves {
                            self.offset -= at - extended.0;
                        }
                        (at, rule) = extended;
                    }
                }
                Some((Reaction::AsPlanned, _)) | None => {}
            }
        }
        let (placed, placement) = self
            .windows
            .place(at - shift, cfg.rules.away, &mut self.cursor);
        let placed = placed + shift;
        if placed != at {
            rule = match placement {
                Placement::UsualHour => Rule::UsualHour,
                _ => Rule::Window,
            };
        }
        UserState::Ready(placed, placement, rule)
    }

    /// The user's reaction before its next job, with the end of the job it reacts to:
    /// the job the next one's think time is measured from, when the log's user submitted
    /// the next job after that one ended (a job submitted while that one ran was decided
    /// before its result, and follows its own rule); `None` when there is none.
    fn reaction(&mut self, curve: &ContinuationCurve, threshold: Time) -> Option<(Reaction, Time)> {
        let job = &self.trace.jobs[self.next];
        let (Some(think), Some(from)) = (job.think, job.think_from) else {
            return None;
        };
        let (end, response, reference) = self.ends[from as usize]?;
        if think < 0 {
            return None;
        }
        let planned = if think < threshold {
            Planned::GoOn
        } else {
            Planned::Break
        };
        let r = react(
            curve,
            planned,
            response,
            curve.share(reference),
            &mut self.rng,
        );
        Some((r, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        let t = TraceAgent::tag(7, 123_456);
        assert_eq!(TraceAgent::untag(t), (7, 123_456));
    }

    #[test]
    fn user_seeds_differ() {
        assert_ne!(user_seed(1, 1), user_seed(1, 2));
        assert_ne!(user_seed(1, 1), user_seed(2, 1));
    }
}
