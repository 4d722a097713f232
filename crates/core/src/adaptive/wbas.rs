//! The workload-based adaptive scheduler, WBAS (Talby 2006, §7.4, Figure 12).

use super::{Candidate, Candidates, Rule, Switching};
use crate::job::JobRequest;
use crate::sched::{BuildContext, SystemView};
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
/// It keeps a moving average of the processors per job, updated on every arrival: the
/// thesis's exponential moving average of factor `maf`, "the length of long-term memory",
/// `avg += (size − avg) / maf`, started as the running mean of the arrivals so far,
/// `avg += (size − avg) / n` for the n-th arrival while n < maf. Started from the first
/// job's size instead, the average would remember that one job for `maf` arrivals (on
/// KTH, a first job of 56 processors against a mean of 7.7 leaves it at 26.9 after 7,500
/// jobs, and `high` would rarely run). Every `period`, if
/// the jobs that arrived in the period just ended asked for more processors per job on
/// average than that long-term average, `high` takes over; otherwise `low` does; a period
/// without arrivals changes nothing. `low` is active at first. The thesis switches between
/// Flex (high) and Maui (low), the defaults.
pub type Wbas = Switching<WbasRule>;

/// WBAS's rule: the long-term average and the current period's arrivals.
#[derive(Debug, Clone)]
pub struct WbasRule {
    period: Time,
    maf: f64,
    /// The long-term average of processors per job.
    average: Option<f64>,
    /// Arrivals so far.
    arrivals: u64,
    /// Processors asked for and jobs submitted in the current period.
    window_procs: u64,
    window_jobs: u64,
    /// `None` before the first event.
    switch_at: Option<Time>,
}

impl WbasRule {
    const HIGH: usize = 0;
    const LOW: usize = 1;

    /// Starts a period at `now`.
    fn new_period(&mut self, now: Time) {
        self.window_procs = 0;
        self.window_jobs = 0;
        self.switch_at = Some(now + self.period);
    }
}

impl Rule for WbasRule {
    const NAME: &'static str = "wbas";
    type Params = WbasParams;

    fn candidates(params: &WbasParams) -> Vec<&Candidate> {
        vec![&params.high, &params.low]
    }

    fn new(params: &WbasParams, _ctx: &BuildContext) -> Self {
        WbasRule {
            period: params.period,
            maf: params.maf,
            average: None,
            arrivals: 0,
            window_procs: 0,
            window_jobs: 0,
            switch_at: None,
        }
    }

    fn begin(&mut self, view: &SystemView<'_>, _arrival: bool) -> usize {
        self.switch_at = Some(view.now + self.period);
        Self::LOW
    }

    fn on_submit(&mut self, job: &JobRequest) {
        let size = f64::from(job.size);
        self.arrivals += 1;
        let memory = self.maf.min(self.arrivals as f64);
        let avg = self.average.unwrap_or(size);
        self.average = Some(avg + (size - avg) / memory);
        self.window_procs += u64::from(job.size);
        self.window_jobs += 1;
    }

    /// Starts a new period at `view.now` with the active policy (the long-term average is
    /// kept: it describes the workload, not the machine).
    fn sync(&mut self, view: &SystemView<'_>, active: usize) -> usize {
        self.new_period(view.now);
        active
    }

    fn switch_at(&self) -> Option<Time> {
        self.switch_at
    }

    fn choose(&mut self, view: &SystemView<'_>, candidates: &mut Candidates) -> usize {
        let choice = match self.average {
            Some(avg) if self.window_jobs > 0 => {
                if self.window_procs as f64 / self.window_jobs as f64 > avg {
                    Self::HIGH
                } else {
                    Self::LOW
                }
            }
            _ => candidates.active,
        };
        self.new_period(view.now);
        choice
    }

    /// No job has arrived in the period: a switch keeps the active candidate.
    fn quiet(&self) -> bool {
        self.window_jobs == 0
    }

    fn skip(&mut self, before: Time, _candidates: &mut Candidates) -> Option<(u64, Time)> {
        let (n, last) = super::switch_times_before(self.switch_at?, self.period, before)?;
        self.switch_at = Some(last + self.period);
        Some((n, last))
    }
}
