//! The performance-based adaptive scheduler, PBAS (Talby 2006, §7.3, Figure 8).

use rustc_hash::FxHashMap;

use super::shadow::{KnownRuntimes, Period, ShadowRun};
use super::{Candidate, Candidates, Rule, Switching};
use crate::job::JobRequest;
use crate::sched::{BuildContext, RunningJob, SystemView};
use crate::sim::Snapshot;
use crate::time::Time;

/// What PBAS compares its candidates by, over the last switch period.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, clap::ValueEnum, serde::Deserialize,
)]
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

/// The parameters of [`Pbas`].
#[derive(Debug, Clone, PartialEq)]
pub struct PbasParams {
    /// The candidate policies; the first is active until the first switch.
    pub candidates: Vec<Candidate>,
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
        if self.period < super::MIN_PERIOD {
            return Err(format!(
                "pbas: period must be at least {} s, not {}",
                super::MIN_PERIOD,
                self.period
            ));
        }
        Ok(())
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

/// The performance-based adaptive scheduler, PBAS (Talby 2006, §7.3, Figure 8).
///
/// The first candidate is active at first. Every `period`, at switch time `T`, each
/// candidate is simulated in the background over the period just ended: from the real
/// state at its start (the jobs waiting and running then), the jobs that really arrived
/// are fed at their submit times up to `T` (the shadow run, a run of the site simulation
/// in `adaptive/shadow.rs`, gives jobs their real runtimes if they ended by `T`, runtimes
/// censored at `T` otherwise; a candidate whose shadow run fails, a policy that
/// misbehaves, gets no score). The candidate with the best `metric` over the period takes over in
/// the real state (ties keep the active one, then the earliest); the state at `T` starts the next
/// period. The history window is the switch period, as in the thesis.
///
/// Every candidate, the active one included, is scored as if it had taken over at the
/// start of the period, so for a policy whose `Scheduler::sync` rebuilds its plan
/// (conservative backfilling) the score of the active candidate is that of a fresh copy,
/// not of its real history. The active candidate is not re-synced when it is kept.
///
/// Between switches PBAS only records arrivals and the runtimes of ended jobs.
pub type Pbas = Switching<PbasRule>;

/// PBAS's rule: the current period and what its candidates are scored by.
#[derive(Clone)]
pub struct PbasRule {
    period: Time,
    metric: PbasMetric,
    procs: u32,
    /// `None` before the first event.
    window: Option<Window>,
}

impl PbasRule {
    fn window(&mut self) -> &mut Window {
        self.window.as_mut().expect("begun")
    }
}

impl Rule for PbasRule {
    const NAME: &'static str = "pbas";
    type Params = PbasParams;

    fn candidates(params: &PbasParams) -> Vec<&Candidate> {
        params.candidates.iter().collect()
    }

    fn new(params: &PbasParams, ctx: &BuildContext) -> Self {
        PbasRule {
            period: params.period,
            metric: params.metric,
            procs: ctx.procs,
            window: None,
        }
    }

    /// Starts the first period at the first event (before an arrival the machine was
    /// empty).
    fn begin(&mut self, view: &SystemView<'_>, arrival: bool) -> usize {
        let snapshot = if arrival {
            Snapshot::empty(view.now)
        } else {
            Snapshot::of(view)
        };
        self.window = Some(Window::new(snapshot, self.period));
        0
    }

    fn on_submit(&mut self, job: &JobRequest) {
        self.window().arrivals.push(*job);
    }

    fn on_end(&mut self, job: &RunningJob, now: Time) {
        self.window()
            .runtimes
            .insert(job.request.seq, now - job.start);
    }

    /// Starts a new period at `view.now` with the active candidate.
    fn sync(&mut self, view: &SystemView<'_>, active: usize) -> usize {
        self.window = Some(Window::new(Snapshot::of(view), self.period));
        active
    }

    fn switch_at(&self) -> Option<Time> {
        self.window.as_ref().map(|w| w.switch_at)
    }

    /// Scores every candidate over the period that ends at `view.now`, picks the best, and
    /// starts the next period.
    fn choose(&mut self, view: &SystemView<'_>, candidates: &mut Candidates) -> usize {
        let (now, period) = (view.now, self.period);
        let best = self.score(candidates, view.running(), now);
        let window = self.window();
        window.snapshot = Snapshot::of(view);
        window.arrivals.clear();
        window.runtimes.clear();
        window.switch_at = now + period;
        best
    }

    /// No job waited at the start of the period and none has arrived since: every
    /// candidate's shadow run is the same, so a switch keeps the active candidate.
    fn quiet(&self) -> bool {
        self.window.as_ref().is_some_and(|w| {
            w.snapshot.queue.is_empty() && w.arrivals.is_empty() && w.runtimes.is_empty()
        })
    }

    /// Each skipped period starts from the state at the start of the current one (the
    /// machine is unchanged); the scores of the last are computed as at its switch time.
    fn skip(&mut self, before: Time, candidates: &mut Candidates) -> Option<(u64, Time)> {
        let period = self.period;
        let window = self.window.as_mut()?;
        let (n, last) = super::switch_times_before(window.switch_at, period, before)?;
        let mut frozen = window.snapshot.clone();
        window.snapshot.time = last - period;
        let best = self.score(candidates, &frozen.running, last);
        debug_assert_eq!(
            best, candidates.active,
            "a quiet period keeps its candidate"
        );
        frozen.time = last;
        let window = self.window();
        window.snapshot = frozen;
        window.switch_at = last + period;
        Some((n, last))
    }
}

impl PbasRule {
    /// Scores every candidate over the current period, ending at `now` with `running`
    /// running (their scores go to `candidates`), and returns the best; the period's
    /// snapshot is used up.
    fn score(&mut self, candidates: &mut Candidates, running: &[RunningJob], now: Time) -> usize {
        let (metric, procs) = (self.metric, self.procs);
        let current = candidates.active;
        if candidates.prototypes.len() < 2 {
            return current;
        }
        let window = self.window();
        let known = KnownRuntimes::new(&window.runtimes, running, now);
        // The period's snapshot goes to its last shadow run; the caller sets the next one.
        let snapshot = std::mem::replace(&mut window.snapshot, Snapshot::empty(now));
        let shadow = Period::new(procs, snapshot, &window.arrivals, &known, now);
        let (last, others) = candidates.prototypes.split_last().expect("a candidate");
        let mut scores: Vec<Option<f64>> = others
            .iter()
            .map(|prototype| metric.measure(&shadow.simulate(prototype.clone())?))
            .collect();
        scores.push(
            shadow
                .simulate_last(last.clone())
                .and_then(|run| metric.measure(&run)),
        );
        let best = metric.best(&scores, current);
        candidates.last_scores = scores;
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adaptive::shadow::ShadowJob;

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
}
