//! The shape every adaptive meta-scheduler shares (Talby 2006, ch. 7): a [`Switching`]
//! scheduler hands the machine to one of its candidates at a time and forwards every event
//! to it; its [`Rule`] says which candidate starts, when a switch time falls, and which
//! candidate takes over there.

use super::Candidate;
use crate::job::{JobId, JobRequest};
use crate::sched::{BuildContext, RunningJob, Scheduler, SystemView};
use crate::time::Time;

/// When and to whom a meta-scheduler switches: all a policy file of `crate::adaptive`
/// holds besides its parameters.
pub trait Rule: Clone + Send + 'static {
    /// The policy's name, as given on the command line.
    const NAME: &'static str;
    /// Its parameters, candidates included.
    type Params;

    /// Its candidates, in the order their indices name them.
    fn candidates(params: &Self::Params) -> Vec<&Candidate>;

    /// The rule for `ctx`, before the first event.
    fn new(params: &Self::Params, ctx: &BuildContext) -> Self;

    /// The first event, at `view.now` on an empty machine (the arriving job, if the event
    /// is an arrival, is already in `view`): the candidate that starts.
    fn begin(&mut self, view: &SystemView<'_>, arrival: bool) -> usize;

    /// A job has joined the queue.
    fn on_submit(&mut self, _job: &JobRequest) {}

    /// A running job ended at `now`.
    fn on_end(&mut self, _job: &RunningJob, _now: Time) {}

    /// Adopts the machine in `view` with candidate `active` active: the candidate to be
    /// active from now on.
    fn sync(&mut self, view: &SystemView<'_>, active: usize) -> usize;

    /// The next switch time; `None` before the first event or if none will come.
    fn switch_at(&self) -> Option<Time>;

    /// A switch time has come at `view.now`: the candidate to take over (the active one to
    /// keep it), with the next switch time set.
    fn choose(&mut self, view: &SystemView<'_>, candidates: &mut Candidates) -> usize;

    /// Whether the switch ending the current period keeps the active candidate as long as
    /// no job waits or arrives (time-of-day's switches follow the clock: never).
    fn quiet(&self) -> bool {
        false
    }

    /// The machine has not changed since the latest switch time, at which the period was
    /// [quiet](Rule::quiet) and no job waited: the switch times before `before` are
    /// reached as [`choose`](Rule::choose) would reach them, each keeping the active
    /// candidate, and the next switch time is set. Returns how many there were and the
    /// last, `None` if there were none.
    fn skip(&mut self, _before: Time, _candidates: &mut Candidates) -> Option<(u64, Time)> {
        None
    }
}

/// An adaptive meta-scheduler: candidate policies, one active at a time, switched by the
/// rule `R`. Only the active candidate sees events and schedules. It reports no promises:
/// a switch legitimately moves reservations.
///
/// A switch at which no job waits, in a [quiet](Rule::quiet) period, while jobs run,
/// leaves the machine as it is until the next job event: the switch times until then
/// would keep the active candidate and pass over an empty queue, so no pass is asked for
/// them. The next event (or the end of the run, [`Scheduler::stop_at`]) reaches them all
/// at once ([`Rule::skip`]), with the counters, scores and times they would have left: a
/// long run of few jobs costs what its jobs cost, not a pass per period.
#[derive(Clone)]
pub struct Switching<R: Rule> {
    rule: R,
    candidates: Candidates,
    /// The machine is frozen since the latest switch time, whose successors are skipped.
    frozen: bool,
    /// The pass at the next switch time, owed once frozen switch times are reached: a pass
    /// asked for is not taken back, so it comes even if the machine is empty by then.
    due: Option<Time>,
}

impl<R: Rule> Switching<R> {
    /// The meta-scheduler for `ctx` (`params` checked beforehand).
    pub fn new(params: &R::Params, ctx: &BuildContext) -> Self {
        Switching {
            candidates: Candidates::new(R::candidates(params), ctx),
            rule: R::new(params, ctx),
            frozen: false,
            due: None,
        }
    }

    /// How the candidates were used.
    pub fn report(&self) -> AdaptiveReport {
        self.candidates.report(R::NAME)
    }

    /// Reaches the switch times skipped before `before`; returns the last.
    fn thaw(&mut self, before: Time) -> Option<Time> {
        if !std::mem::take(&mut self.frozen) {
            return None;
        }
        let skipped = self.rule.skip(before, &mut self.candidates);
        self.due = self.rule.switch_at();
        let (n, last) = skipped?;
        self.candidates.skipped(n, last);
        Some(last)
    }

    /// The first event at `view.now`: the skipped switch times before it are reached, and
    /// the first candidate starts if none has.
    fn begin(&mut self, view: &SystemView<'_>, arrival: bool) {
        self.thaw(view.now);
        if !self.candidates.started() {
            let first = self.rule.begin(view, arrival);
            self.candidates.begin(view.now, first);
        }
    }
}

impl<R: Rule> Scheduler for Switching<R> {
    fn name(&self) -> &str {
        R::NAME
    }

    fn fault(&self) -> Option<String> {
        self.candidates.scheduler.fault()
    }

    fn run_report(&self) -> Option<serde_json::Value> {
        serde_json::to_value(self.report()).ok()
    }

    fn sync(&mut self, view: &SystemView<'_>) {
        self.thaw(view.now);
        let active = self.rule.sync(view, self.candidates.active);
        self.candidates.sync(active, view);
    }

    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        self.begin(view, true);
        self.rule.on_submit(job);
        self.candidates.scheduler.on_submit(job, view);
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        self.begin(view, false);
        self.rule.on_end(job, view.now);
        self.candidates.scheduler.on_end(job, view);
    }

    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        self.begin(view, false);
        self.candidates
            .scheduler
            .on_replan(job, old_plan, started, view);
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        self.begin(view, false);
        self.candidates.pass(view);
        self.due = self.due.filter(|&t| t > view.now);
        if self.rule.switch_at().is_some_and(|t| view.now >= t) {
            let to = self.rule.choose(view, &mut self.candidates);
            self.candidates.switch(to, view);
            // Nothing starts and nothing changes until the next job event.
            self.frozen =
                view.queue().is_empty() && !view.running().is_empty() && self.rule.quiet();
        }
        self.candidates.scheduler.schedule(view, starts);
    }

    fn accepts_predictions(&self) -> bool {
        self.candidates.accepts_predictions()
    }

    fn wake_at(&self) -> Option<Time> {
        let switch = self.rule.switch_at().filter(|_| !self.frozen);
        [self.candidates.wake_at(switch), self.due]
            .into_iter()
            .flatten()
            .min()
    }

    fn stop_at(&mut self, horizon: Time) -> Option<Time> {
        self.thaw(horizon.saturating_add(1))
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
pub struct Candidates {
    labels: Vec<String>,
    /// Fresh schedulers, never used: copied when a candidate takes over.
    pub(super) prototypes: Vec<Box<dyn Scheduler>>,
    pub(super) active: usize,
    /// The active candidate, in the real state.
    scheduler: Box<dyn Scheduler>,
    /// When the active candidate took over; `None` before the first event.
    since: Option<Time>,
    /// The time of the latest pass.
    last_pass: Time,
    seconds_active: Vec<Time>,
    pub(super) last_scores: Vec<Option<f64>>,
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

    /// `n` switch times, the last at `last`, each keeping the active candidate, each a
    /// pass over an empty queue.
    fn skipped(&mut self, n: u64, last: Time) {
        self.switches_evaluated += n;
        self.last_pass = self.last_pass.max(last);
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
