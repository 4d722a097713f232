//! The workload-based adaptive scheduler, WBAS (Talby 2006, §7.4, Figure 12).

use super::{AdaptiveReport, Candidate, Candidates};
use crate::job::{JobId, JobRequest};
use crate::sched::{BuildContext, RunningJob, Scheduler, SystemView};
use crate::time::Time;

/// The parameters of [`Wbas`].
#[derive(Debug, Clone, PartialEq)]
pub struct WbasParams {
    /// The policy for periods of wider jobs than usual (the thesis's Flex).
    pub high: Candidate,
    /// The policy otherwise (the thesis's Maui).
    pub low: Candidate,
    /// The switch period, seconds.
    pub period: Time,
    /// The moving-average factor: the long-term memory of the average, in jobs.
    pub maf: f64,
}

impl WbasParams {
    /// Checks the ranges.
    pub fn check(&self) -> Result<(), String> {
        if self.period < super::MIN_PERIOD {
            return Err(format!(
                "wbas: period must be at least {} s, not {}",
                super::MIN_PERIOD,
                self.period
            ));
        }
        if !(self.maf.is_finite() && self.maf >= 1.0) {
            return Err(format!("wbas: maf must be at least 1, not {}", self.maf));
        }
        Ok(())
    }
}

/// The workload-based adaptive scheduler, WBAS (Talby 2006, §7.4, Figure 12).
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
    fn fault(&self) -> Option<String> {
        self.candidates.scheduler.fault()
    }

    fn run_report(&self) -> Option<serde_json::Value> {
        serde_json::to_value(Wbas::report(self)).ok()
    }

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
