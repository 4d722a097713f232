//! Adaptive meta-schedulers (seed 004 ch. 7, after Talby and Feitelson, IPDPS 2005):
//! policies that hand the machine from one candidate policy to another as time goes on.
//!
//! * [`TimeOfDay`] switches on a schedule: one policy during the local working hours,
//!   another at night.
//! * [`Pbas`], the performance-based adaptive scheduler (§7.3, Figure 8): at every switch
//!   time it replays each candidate in the background over the last switch period, from
//!   the real state at its start ([`shadow`](super::shadow)), and activates the one that
//!   did best by the chosen metric.
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
//! `docs/MODELS.md`, "Adaptive scheduling (seed 004 ch. 7)".

use std::str::FromStr;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::registry::{BuildContext, Configure, Params, SchedulerSpec, builder};
use super::shadow::{self, KnownRuntimes, ShadowRun, Snapshot};
use super::{RunningJob, Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::localtime::SiteClock;
use crate::time::{DAY, HOUR, Time};

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
    fn new<'a>(specs: impl IntoIterator<Item = &'a SchedulerSpec>, ctx: &BuildContext) -> Self {
        let (labels, prototypes): (Vec<String>, Vec<Box<dyn Scheduler>>) =
            specs.into_iter().map(|s| (s.label(), s.build(ctx))).unzip();
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

// ---------------------------------------------------------------------------------------
// Time of day

/// The parameters of [`TimeOfDay`].
#[derive(Debug, Clone, PartialEq)]
pub struct TimeOfDayParams {
    /// The policy during the day.
    pub day: SchedulerSpec,
    /// The policy at night.
    pub night: SchedulerSpec,
    /// The first local hour of the day, 0-24.
    pub day_start: u8,
    /// The local hour at which the night begins, 0-24. If it is before `day_start`, the
    /// day runs over midnight; if it equals it, there is no day.
    pub day_end: u8,
}

impl TimeOfDayParams {
    /// Checks the ranges.
    pub fn check(&self) -> Result<(), String> {
        for (key, h) in [("day_start", self.day_start), ("day_end", self.day_end)] {
            if h > 24 {
                return Err(format!(
                    "time-of-day: {key} must be an hour from 0 to 24, not {h}"
                ));
            }
        }
        Ok(())
    }

    fn read(p: &Params) -> Result<Self, String> {
        let hour = |key: &str, default: u8| -> Result<u8, String> {
            let h = p.f64(key, f64::from(default))?;
            if h.fract() != 0.0 || !(0.0..=24.0).contains(&h) {
                return Err(format!(
                    "time-of-day: {key} must be a whole hour from 0 to 24, not {h}"
                ));
            }
            Ok(h as u8)
        };
        let params = TimeOfDayParams {
            day: p.spec("day", "creasy")?,
            night: p.spec("night", "easy")?,
            day_start: hour("day_start", 8)?,
            day_end: hour("day_end", 18)?,
        };
        params.check()?;
        Ok(params)
    }
}

/// Switching on a schedule: the `day` policy during the local hours
/// `[day_start, day_end)` of every day, the `night` policy otherwise. The hand-over happens
/// at the hour boundary (a pass is asked for then), on the site's clock, so daylight
/// saving time is followed.
///
/// It reports no promises: a switch legitimately moves reservations.
#[derive(Clone)]
pub struct TimeOfDay {
    candidates: Candidates,
    clock: SiteClock,
    day_start: u8,
    day_end: u8,
    /// The next hour boundary at which day turns to night or back.
    next_switch: Option<Time>,
}

impl TimeOfDay {
    const DAY: usize = 0;
    const NIGHT: usize = 1;

    /// Time-of-day switching for `ctx` (`params` checked by [`TimeOfDayParams::check`]).
    pub fn new(params: &TimeOfDayParams, ctx: &BuildContext) -> Self {
        TimeOfDay {
            candidates: Candidates::new([&params.day, &params.night], ctx),
            clock: ctx.clock.clone(),
            day_start: params.day_start,
            day_end: params.day_end,
            next_switch: None,
        }
    }

    /// Whether local hour `hour` is in the day.
    fn is_day_hour(&self, hour: u8) -> bool {
        let (start, end) = (self.day_start, self.day_end);
        if start <= end {
            (start..end).contains(&hour)
        } else {
            hour >= start || hour < end
        }
    }

    /// The candidate for time `t`.
    fn wanted(&self, t: Time) -> usize {
        if self.is_day_hour(self.clock.local(t).hour) {
            Self::DAY
        } else {
            Self::NIGHT
        }
    }

    /// The first hour boundary after `t` with the other candidate; `None` if the day is
    /// empty or the whole day.
    fn next_change(&self, t: Time) -> Option<Time> {
        let now = self.wanted(t);
        let mut at = t;
        while at - t <= DAY + 2 * HOUR {
            at = self.clock.next_hour(at);
            if self.wanted(at) != now {
                return Some(at);
            }
        }
        None
    }

    fn begin(&mut self, now: Time) {
        if !self.candidates.started() {
            self.candidates.begin(now, self.wanted(now));
            self.next_switch = self.next_change(now);
        }
    }

    /// How the policies were used.
    pub fn report(&self) -> AdaptiveReport {
        self.candidates.report("time-of-day")
    }
}

impl Scheduler for TimeOfDay {
    fn name(&self) -> &str {
        "time-of-day"
    }

    /// Adopts the state in `view` under the policy of `view.now`.
    fn sync(&mut self, view: &SystemView<'_>) {
        self.candidates.sync(self.wanted(view.now), view);
        self.next_switch = self.next_change(view.now);
    }

    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        self.begin(view.now);
        self.candidates.scheduler.on_submit(job, view);
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        self.begin(view.now);
        self.candidates.scheduler.on_end(job, view);
    }

    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        self.begin(view.now);
        self.candidates
            .scheduler
            .on_replan(job, old_plan, started, view);
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        self.begin(now);
        self.candidates.pass(view);
        if self.next_switch.is_some_and(|t| now >= t) {
            self.candidates.switch(self.wanted(now), view);
            self.next_switch = self.next_change(now);
        }
        self.candidates.scheduler.schedule(view, starts);
    }

    fn accepts_predictions(&self) -> bool {
        self.candidates.accepts_predictions()
    }

    fn wake_at(&self) -> Option<Time> {
        self.candidates.wake_at(self.next_switch)
    }
}

// ---------------------------------------------------------------------------------------
// PBAS

/// What PBAS compares its candidates by, over the last switch period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PbasMetric {
    /// Mean wait of the jobs that started in the period, and of those still waiting at
    /// its end (counted up to the end). Lower is better.
    Wait,
    /// Mean response time (end − submit) of the jobs that ended in the period. Lower is
    /// better.
    Response,
    /// Mean bounded slowdown `max(1, (wait + run) / max(run, 10 s))` of the jobs that
    /// ended in the period. Lower is better.
    Bsld,
    /// Busy processor-seconds in the period over processors × its length. Higher is
    /// better.
    Utilization,
}

impl PbasMetric {
    /// Every metric.
    pub const ALL: [PbasMetric; 4] = [
        PbasMetric::Wait,
        PbasMetric::Response,
        PbasMetric::Bsld,
        PbasMetric::Utilization,
    ];

    /// The metric's name.
    pub fn name(self) -> &'static str {
        match self {
            PbasMetric::Wait => "wait",
            PbasMetric::Response => "response",
            PbasMetric::Bsld => "bsld",
            PbasMetric::Utilization => "utilization",
        }
    }

    fn higher_is_better(self) -> bool {
        self == PbasMetric::Utilization
    }

    /// The score of a shadow run; `None` when no job counts.
    fn measure(self, run: &ShadowRun) -> Option<f64> {
        fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
            let (n, sum) = values.fold((0u64, 0.0), |(n, s), v| (n + 1, s + v));
            (n > 0).then(|| sum / n as f64)
        }
        let ended = || {
            run.ended().map(|j| {
                let (start, end) = (j.start.expect("ended"), j.end.expect("ended"));
                (j.submit, start, end)
            })
        };
        match self {
            PbasMetric::Wait => mean(
                run.scheduled()
                    .iter()
                    .map(|j| (j.start.unwrap_or(run.until) - j.submit) as f64),
            ),
            PbasMetric::Response => mean(ended().map(|(submit, _, end)| (end - submit) as f64)),
            PbasMetric::Bsld => mean(ended().map(|(submit, start, end)| {
                let (wait, run) = ((start - submit) as f64, (end - start) as f64);
                ((wait + run) / run.max(10.0)).max(1.0)
            })),
            PbasMetric::Utilization => {
                let busy: f64 = run
                    .jobs
                    .iter()
                    .filter_map(|j| {
                        let (start, end) = (j.start?.max(run.from), j.end?.min(run.until));
                        Some(f64::from(j.size) * (end - start).max(0) as f64)
                    })
                    .sum();
                Some(busy / (f64::from(run.procs) * (run.until - run.from).max(1) as f64))
            }
        }
    }

    /// The best of `scores`: `current` unless another is strictly better, else the
    /// earliest of the best. A candidate without a score is worse than any with one.
    fn best(self, scores: &[Option<f64>], current: usize) -> usize {
        let better = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if self.higher_is_better() => a > b,
            (Some(a), Some(b)) => a < b,
            (Some(_), None) => true,
            (None, _) => false,
        };
        let mut best = current;
        for (i, &score) in scores.iter().enumerate() {
            if better(score, scores[best]) {
                best = i;
            }
        }
        best
    }
}

impl FromStr for PbasMetric {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        PbasMetric::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!("pbas: metric must be wait, response, bsld or utilization, not '{s}'")
            })
    }
}

/// The parameters of [`Pbas`].
#[derive(Debug, Clone, PartialEq)]
pub struct PbasParams {
    /// The candidate policies; the first is active until the first switch.
    pub candidates: Vec<SchedulerSpec>,
    /// The switch period, which is also the history window (as in the thesis), seconds.
    pub period: Time,
    /// What the candidates are compared by.
    pub metric: PbasMetric,
}

impl PbasParams {
    /// Checks the ranges.
    pub fn check(&self) -> Result<(), String> {
        if self.candidates.is_empty() {
            return Err("pbas: candidates must name at least one policy".into());
        }
        if self.period < 1 {
            return Err(format!(
                "pbas: period must be at least 1 second, not {}",
                self.period
            ));
        }
        Ok(())
    }

    fn read(p: &Params) -> Result<Self, String> {
        let params = PbasParams {
            candidates: p.specs("candidates", &["easy", "sjbf"])?,
            period: p
                .duration("period", Some(12 * HOUR))?
                .ok_or("pbas: period cannot be none")?,
            metric: p.string("metric", "response")?.parse()?,
        };
        params.check()?;
        Ok(params)
    }
}

/// The current switch period of PBAS: the state at its start and what happened since.
#[derive(Clone)]
struct Window {
    /// The real state at the start of the period, before that time's pass.
    snapshot: Snapshot,
    /// Jobs submitted since, as submitted.
    arrivals: Vec<JobRequest>,
    /// Real runtimes of the jobs that ended since, by submission number.
    runtimes: FxHashMap<u64, Time>,
    /// The next switch time.
    switch_at: Time,
}

impl Window {
    /// A period that starts from `snapshot` and lasts `period`.
    fn new(snapshot: Snapshot, period: Time) -> Self {
        Window {
            switch_at: snapshot.time + period,
            snapshot,
            arrivals: Vec::new(),
            runtimes: FxHashMap::default(),
        }
    }
}

/// The performance-based adaptive scheduler, PBAS (seed 004 §7.3, Figure 8).
///
/// The first candidate is active at first. Every `period`, at switch time `T`, each
/// candidate is simulated in the background over the period just ended: from the real
/// state at its start (the jobs waiting and running then), the jobs that really arrived
/// are fed at their submit times up to `T` (the shadow simulation, `sched/shadow.rs`,
/// gives jobs their real runtimes if they ended by `T`, runtimes censored at `T`
/// otherwise). The candidate with the best `metric` over the period takes over in the
/// real state (ties keep the active one, then the earliest); the state at `T` starts the
/// next period. The history window is the switch period, as in the thesis.
///
/// Every candidate, the active one included, is scored as if it had taken over at the
/// start of the period, so for a policy whose [`Scheduler::sync`] rebuilds its plan
/// (conservative backfilling) the score of the active candidate is that of a fresh copy,
/// not of its real history. The active candidate is not re-synced when it is kept.
///
/// Between switches PBAS only records arrivals and the runtimes of ended jobs. It reports
/// no promises: a switch legitimately moves reservations.
#[derive(Clone)]
pub struct Pbas {
    candidates: Candidates,
    period: Time,
    metric: PbasMetric,
    procs: u32,
    /// `None` before the first event.
    window: Option<Window>,
}

impl Pbas {
    /// PBAS for `ctx` (`params` checked by [`PbasParams::check`]).
    pub fn new(params: &PbasParams, ctx: &BuildContext) -> Self {
        Pbas {
            candidates: Candidates::new(&params.candidates, ctx),
            period: params.period,
            metric: params.metric,
            procs: ctx.procs,
            window: None,
        }
    }

    /// Starts the first period at the first event, from `snapshot`.
    fn begin(&mut self, snapshot: impl FnOnce() -> Snapshot) {
        if self.window.is_none() {
            let snapshot = snapshot();
            self.candidates.begin(snapshot.time, 0);
            self.window = Some(Window::new(snapshot, self.period));
        }
    }

    fn window(&mut self) -> &mut Window {
        self.window.as_mut().expect("begun")
    }

    /// A switch time: scores every candidate over the period that ends at `view.now`,
    /// activates the best, and starts the next period.
    fn switch(&mut self, view: &SystemView<'_>) {
        let now = view.now;
        let mut window = self.window.take().expect("begun");
        let current = self.candidates.active;
        let best = if self.candidates.prototypes.len() > 1 {
            let known = KnownRuntimes::new(&window.runtimes, view);
            let scores: Vec<Option<f64>> = self
                .candidates
                .prototypes
                .iter()
                .map(|prototype| {
                    let mut candidate = prototype.clone();
                    let run = shadow::simulate(
                        &mut *candidate,
                        self.procs,
                        &window.snapshot,
                        &window.arrivals,
                        &known,
                        now,
                    );
                    self.metric.measure(&run)
                })
                .collect();
            let best = self.metric.best(&scores, current);
            self.candidates.last_scores = scores;
            best
        } else {
            current
        };
        self.candidates.switch(best, view);
        window.snapshot = Snapshot::of(view);
        window.arrivals.clear();
        window.runtimes.clear();
        window.switch_at = now + self.period;
        self.window = Some(window);
    }

    /// How the candidates were used.
    pub fn report(&self) -> AdaptiveReport {
        self.candidates.report("pbas")
    }
}

impl Scheduler for Pbas {
    fn name(&self) -> &str {
        "pbas"
    }

    /// Adopts the state in `view` with the active candidate, and starts a new period
    /// there.
    fn sync(&mut self, view: &SystemView<'_>) {
        self.candidates.sync(self.candidates.active, view);
        self.window = Some(Window::new(Snapshot::of(view), self.period));
    }

    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        // The first event: the machine was empty before this arrival.
        self.begin(|| Snapshot::empty(view.now));
        self.window().arrivals.push(*job);
        self.candidates.scheduler.on_submit(job, view);
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        self.begin(|| Snapshot::of(view));
        self.window()
            .runtimes
            .insert(job.request.seq, view.now - job.start);
        self.candidates.scheduler.on_end(job, view);
    }

    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        self.begin(|| Snapshot::of(view));
        self.candidates
            .scheduler
            .on_replan(job, old_plan, started, view);
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        self.begin(|| Snapshot::of(view));
        self.candidates.pass(view);
        if view.now >= self.window().switch_at {
            self.switch(view);
        }
        self.candidates.scheduler.schedule(view, starts);
    }

    fn accepts_predictions(&self) -> bool {
        self.candidates.accepts_predictions()
    }

    fn wake_at(&self) -> Option<Time> {
        self.candidates
            .wake_at(self.window.as_ref().map(|w| w.switch_at))
    }
}

// ---------------------------------------------------------------------------------------
// WBAS

/// The parameters of [`Wbas`].
#[derive(Debug, Clone, PartialEq)]
pub struct WbasParams {
    /// The policy for periods of wider jobs than usual (the thesis's Flex).
    pub high: SchedulerSpec,
    /// The policy otherwise (the thesis's Maui).
    pub low: SchedulerSpec,
    /// The switch period, seconds.
    pub period: Time,
    /// The moving-average factor: the long-term memory of the average, in jobs.
    pub maf: f64,
}

impl WbasParams {
    /// Checks the ranges.
    pub fn check(&self) -> Result<(), String> {
        if self.period < 1 {
            return Err(format!(
                "wbas: period must be at least 1 second, not {}",
                self.period
            ));
        }
        if !(self.maf.is_finite() && self.maf >= 1.0) {
            return Err(format!("wbas: maf must be at least 1, not {}", self.maf));
        }
        Ok(())
    }

    fn read(p: &Params) -> Result<Self, String> {
        let params = WbasParams {
            high: p.spec("high", "easy")?,
            low: p.spec("low", "sjbf")?,
            period: p
                .duration("period", Some(DAY))?
                .ok_or("wbas: period cannot be none")?,
            maf: p.f64("maf", 7500.0)?,
        };
        params.check()?;
        Ok(params)
    }
}

/// The workload-based adaptive scheduler, WBAS (seed 004 §7.4, Figure 12).
///
/// It keeps an exponential moving average of the processors per job, updated on every
/// arrival as `avg += (size − avg) / maf` (the first arrival sets it). Every `period`, if
/// the jobs that arrived in the period just ended asked for more processors per job on
/// average than that long-term average, `high` takes over; otherwise `low` does; a period
/// without arrivals changes nothing. `low` is active at first.
///
/// The thesis switches between Flex (high) and Maui (low), which sitesim does not have;
/// the defaults (`easy`, `sjbf`) are ours. It reports no promises: a switch legitimately
/// moves reservations.
#[derive(Clone)]
pub struct Wbas {
    candidates: Candidates,
    period: Time,
    maf: f64,
    /// The long-term average of processors per job.
    average: Option<f64>,
    /// Processors asked for and jobs submitted in the current period.
    window_procs: u64,
    window_jobs: u64,
    /// `None` before the first event.
    switch_at: Option<Time>,
}

impl Wbas {
    const HIGH: usize = 0;
    const LOW: usize = 1;

    /// WBAS for `ctx` (`params` checked by [`WbasParams::check`]).
    pub fn new(params: &WbasParams, ctx: &BuildContext) -> Self {
        Wbas {
            candidates: Candidates::new([&params.high, &params.low], ctx),
            period: params.period,
            maf: params.maf,
            average: None,
            window_procs: 0,
            window_jobs: 0,
            switch_at: None,
        }
    }

    fn begin(&mut self, now: Time) {
        if self.switch_at.is_none() {
            self.candidates.begin(now, Self::LOW);
            self.switch_at = Some(now + self.period);
        }
    }

    /// The long-term average of processors per job (`None` before the first arrival).
    pub fn average(&self) -> Option<f64> {
        self.average
    }

    /// How the policies were used.
    pub fn report(&self) -> AdaptiveReport {
        self.candidates.report("wbas")
    }
}

impl Scheduler for Wbas {
    fn name(&self) -> &str {
        "wbas"
    }

    /// Adopts the state in `view` with the active policy, and starts a new period there
    /// (the long-term average is kept: it describes the workload, not the machine).
    fn sync(&mut self, view: &SystemView<'_>) {
        self.candidates.sync(self.candidates.active, view);
        self.window_procs = 0;
        self.window_jobs = 0;
        self.switch_at = Some(view.now + self.period);
    }

    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        self.begin(view.now);
        let size = f64::from(job.size);
        self.average = Some(match self.average {
            None => size,
            Some(avg) => avg + (size - avg) / self.maf,
        });
        self.window_procs += u64::from(job.size);
        self.window_jobs += 1;
        self.candidates.scheduler.on_submit(job, view);
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        self.begin(view.now);
        self.candidates.scheduler.on_end(job, view);
    }

    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        self.begin(view.now);
        self.candidates
            .scheduler
            .on_replan(job, old_plan, started, view);
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        self.begin(now);
        self.candidates.pass(view);
        if self.switch_at.is_some_and(|t| now >= t) {
            let choice = match self.average {
                Some(avg) if self.window_jobs > 0 => {
                    if self.window_procs as f64 / self.window_jobs as f64 > avg {
                        Self::HIGH
                    } else {
                        Self::LOW
                    }
                }
                _ => self.candidates.active,
            };
            self.candidates.switch(choice, view);
            self.window_procs = 0;
            self.window_jobs = 0;
            self.switch_at = Some(now + self.period);
        }
        self.candidates.scheduler.schedule(view, starts);
    }

    fn accepts_predictions(&self) -> bool {
        self.candidates.accepts_predictions()
    }

    fn wake_at(&self) -> Option<Time> {
        self.candidates.wake_at(self.switch_at)
    }
}

/// The registry entries of the adaptive policies.
pub(super) fn entries() -> Vec<(&'static str, &'static str, Configure)> {
    vec![
        (
            "time-of-day",
            "one policy by day, another by night on the site's clock (day = creasy, \
             night = easy, day_start = 8, day_end = 18: day is local hours \
             [day_start, day_end))",
            Arc::new(|p: &Params| {
                let params = TimeOfDayParams::read(p)?;
                Ok(builder(move |ctx| TimeOfDay::new(&params, ctx)))
            }),
        ),
        (
            "pbas",
            "performance-based adaptive scheduling, seed 004 §7.3 (candidates = \
             [\"easy\", \"sjbf\"], period = 12h, metric = wait | response | bsld | \
             utilization, default response)",
            Arc::new(|p: &Params| {
                let params = PbasParams::read(p)?;
                Ok(builder(move |ctx| Pbas::new(&params, ctx)))
            }),
        ),
        (
            "wbas",
            "workload-based adaptive scheduling, seed 004 §7.4 (high = easy, low = sjbf, \
             period = 1d, maf = 7500)",
            Arc::new(|p: &Params| {
                let params = WbasParams::read(p)?;
                Ok(builder(move |ctx| Wbas::new(&params, ctx)))
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::shadow::ShadowJob;

    fn job(submit: Time, size: u32, start: Option<Time>, end: Option<Time>) -> ShadowJob {
        ShadowJob {
            seq: 0,
            submit,
            size,
            start,
            end,
        }
    }

    /// A period [100, 200] on 4 processors: one job running since 50 that ends at 150,
    /// one that started at 120 and ended at 130 (submitted at 90), one started at 180 and
    /// still running, one still waiting (submitted at 160).
    fn run() -> ShadowRun {
        ShadowRun {
            from: 100,
            until: 200,
            procs: 4,
            jobs: vec![
                job(0, 2, Some(50), Some(150)),
                job(90, 1, Some(120), Some(130)),
                job(100, 4, Some(180), Some(300)),
                job(160, 1, None, None),
            ],
            already_running: 1,
        }
    }

    #[test]
    fn metrics_follow_their_definitions() {
        let r = run();
        // Waits: 30, 80 and 40 (waiting at 200).
        assert_eq!(PbasMetric::Wait.measure(&r), Some(50.0));
        // Ended: responses 150 and 40.
        assert_eq!(PbasMetric::Response.measure(&r), Some(95.0));
        // Bounded slowdowns: (50 + 100) / 100 = 1.5 and (30 + 10) / 10 = 4.
        assert_eq!(PbasMetric::Bsld.measure(&r), Some(2.75));
        // Busy: 2 × 50 + 1 × 10 + 4 × 20 = 190 of 400.
        assert_eq!(PbasMetric::Utilization.measure(&r), Some(190.0 / 400.0));
        let empty = ShadowRun {
            jobs: Vec::new(),
            already_running: 0,
            ..r
        };
        assert_eq!(PbasMetric::Response.measure(&empty), None);
        assert_eq!(PbasMetric::Utilization.measure(&empty), Some(0.0));
    }

    #[test]
    fn ties_keep_the_active_candidate_then_the_earliest() {
        let w = PbasMetric::Wait;
        assert_eq!(w.best(&[Some(5.0), Some(3.0), Some(3.0)], 0), 1);
        assert_eq!(w.best(&[Some(5.0), Some(3.0), Some(3.0)], 2), 2);
        assert_eq!(w.best(&[Some(3.0), Some(3.0)], 1), 1);
        assert_eq!(w.best(&[None, Some(9.0)], 0), 1, "a score beats none");
        assert_eq!(w.best(&[None, None], 1), 1);
        let u = PbasMetric::Utilization;
        assert_eq!(u.best(&[Some(0.5), Some(0.7)], 0), 1, "higher is better");
    }

    #[test]
    fn time_of_day_switches_at_hour_boundaries() {
        let params = TimeOfDayParams {
            day: "fcfs".parse().unwrap(),
            night: "easy".parse().unwrap(),
            day_start: 8,
            day_end: 18,
        };
        let t = TimeOfDay::new(&params, &BuildContext::new(4));
        // Time 0 is midnight UTC.
        assert_eq!(t.wanted(7 * HOUR + 3599), TimeOfDay::NIGHT);
        assert_eq!(t.wanted(8 * HOUR), TimeOfDay::DAY);
        assert_eq!(t.next_change(100), Some(8 * HOUR));
        assert_eq!(t.next_change(8 * HOUR), Some(18 * HOUR));
        assert_eq!(t.next_change(20 * HOUR), Some(DAY + 8 * HOUR));
        let over_midnight = TimeOfDay::new(
            &TimeOfDayParams {
                day_start: 22,
                day_end: 6,
                ..params.clone()
            },
            &BuildContext::new(4),
        );
        assert_eq!(over_midnight.wanted(HOUR), TimeOfDay::DAY);
        assert_eq!(over_midnight.wanted(12 * HOUR), TimeOfDay::NIGHT);
        for (start, end) in [(0, 24), (5, 5)] {
            let never = TimeOfDay::new(
                &TimeOfDayParams {
                    day_start: start,
                    day_end: end,
                    ..params.clone()
                },
                &BuildContext::new(4),
            );
            assert_eq!(never.next_change(0), None, "[{start}, {end})");
        }
    }
}
