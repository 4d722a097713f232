//! Runtime predictions: what a scheduler may plan with instead of the user's estimate
//! (Talby et al. 2006). Estimate models, which change what users declare, live in
//! [`estimates`].
//!
//! A [`Predictor`] is told of every submission, start, termination and deadline miss
//! (Talby et al. 2006, §3.1, Listing 1). It must predict each job on arrival and again on a miss,
//! and may update the predictions of other waiting and running jobs at any of these
//! events; the simulation keeps a running job's prediction beyond its elapsed time. Jobs
//! are still killed at their estimate under the `kill` policy, never at their prediction.

mod correct;
pub mod estimates;
mod live;
mod modal;
mod ruh;
mod sbh;
mod simple;
mod spec;
#[cfg(test)]
mod worked_examples;

pub use correct::{Correction, Corrector};
pub use live::LiveJobs;
pub use modal::{ModalModel, ModalParams, Mode};
pub use ruh::{Ruh, RuhParams};
pub use sbh::{Criterion, Fallback, Sbh, SbhParams, Search};
pub use simple::{Basis, Perfect, Static};
pub use spec::{PredictorDefaults, PredictorSpec};

use crate::job::JobId;
use crate::time::Time;

/// What a predictor knows about a job: never its runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PredJob {
    /// Slot in the job table while the job is live.
    pub id: JobId,
    /// Submission order.
    pub seq: u64,
    /// The user.
    pub user: i64,
    /// Submit time.
    pub submit: Time,
    /// Processors.
    pub size: u32,
    /// The user's estimate.
    pub estimate: Time,
    /// Executable (application) number, `-1` if unknown.
    pub app: i64,
}

/// A job's actual runtime, handed to [`Predictor::on_submit`] for the PERFECT predictor
/// alone: no other predictor may look at it.
#[derive(Debug, Clone, Copy)]
pub struct Oracle(pub(crate) Time);

impl Oracle {
    /// The runtime the job will have.
    pub fn runtime(self) -> Time {
        self.0
    }
}

/// The current time, and the prediction updates a predictor hands back.
#[derive(Debug, Default)]
pub struct PredCtx {
    /// The current time.
    pub now: Time,
    updates: Vec<(JobId, Time)>,
}

impl PredCtx {
    /// A context at `now`.
    pub fn at(now: Time) -> Self {
        PredCtx {
            now,
            updates: Vec::new(),
        }
    }

    /// Sets the prediction of another live job.
    pub fn update(&mut self, id: JobId, prediction: Time) {
        self.updates.push((id, prediction));
    }

    /// Takes the updates handed back so far.
    pub fn take_updates(&mut self, into: &mut Vec<(JobId, Time)>) {
        into.append(&mut self.updates);
    }
}

/// A runtime predictor (Talby et al. 2006, §3.1).
pub trait Predictor {
    /// The predictor's name.
    fn name(&self) -> &str;
    /// A job arrived: its prediction (at least 1 second; the simulation clamps).
    fn on_submit(&mut self, job: &PredJob, oracle: Oracle, ctx: &mut PredCtx) -> Time;
    /// A job started.
    fn on_start(&mut self, _job: &PredJob, _ctx: &mut PredCtx) {}
    /// A job terminated after running `runtime` seconds.
    fn on_end(&mut self, job: &PredJob, runtime: Time, ctx: &mut PredCtx);
    /// A running job reached its prediction `prediction` after `elapsed` seconds and still
    /// runs: its new prediction, which must exceed `elapsed`.
    fn on_miss(
        &mut self,
        job: &PredJob,
        prediction: Time,
        elapsed: Time,
        ctx: &mut PredCtx,
    ) -> Time;
}

/// A statistic over past runtimes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statistic {
    /// The median; of an even count, the mean of the two middle values, rounded to the
    /// nearest second (Talby et al. 2006 does not say; this is the usual definition).
    Median,
    /// The lower of the two middle values of an even count.
    MedianLow,
    /// The mean, rounded to the nearest second.
    Mean,
}

impl Statistic {
    /// Parses `median`, `median-low` or `mean`.
    pub fn parse(text: &str) -> Result<Statistic, String> {
        match text {
            "median" => Ok(Statistic::Median),
            "median-low" => Ok(Statistic::MedianLow),
            "mean" => Ok(Statistic::Mean),
            _ => Err(format!(
                "'{text}' is not a statistic (median, median-low, mean)"
            )),
        }
    }

    /// The statistic of `values` (which must not be empty). A few values (RUH's last k
    /// jobs) are sorted on the stack.
    pub fn of(self, values: impl ExactSizeIterator<Item = Time>) -> Time {
        const ON_STACK: usize = 16;
        let n = values.len();
        if n <= ON_STACK {
            let mut buf = [0; ON_STACK];
            for (slot, v) in buf.iter_mut().zip(values) {
                *slot = v;
            }
            let v = &mut buf[..n];
            v.sort_unstable();
            self.of_sorted(v)
        } else {
            let mut v: Vec<Time> = values.collect();
            v.sort_unstable();
            self.of_sorted(&v)
        }
    }

    /// The statistic of `v`, sorted ascending (and not empty).
    pub fn of_sorted(self, v: &[Time]) -> Time {
        debug_assert!(!v.is_empty() && v.is_sorted());
        let n = v.len();
        match self {
            Statistic::Mean => {
                let sum: i128 = v.iter().map(|&x| i128::from(x)).sum();
                ((2 * sum + n as i128) / (2 * n as i128)) as Time
            }
            Statistic::Median | Statistic::MedianLow if n % 2 == 1 => v[n / 2],
            Statistic::MedianLow => v[n / 2 - 1],
            Statistic::Median => (v[n / 2 - 1] + v[n / 2] + 1).div_euclid(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics() {
        let s = |st: Statistic, v: &[Time]| st.of(v.iter().copied());
        assert_eq!(s(Statistic::Median, &[91, 342]), 217); // 216.5 rounds up
        assert_eq!(s(Statistic::MedianLow, &[342, 91]), 91);
        assert_eq!(s(Statistic::Median, &[5, 1, 3]), 3);
        assert_eq!(s(Statistic::Mean, &[1, 2]), 2);
        assert_eq!(s(Statistic::Mean, &[1, 2, 2]), 2);
        let many: Vec<Time> = (0..41).rev().collect();
        assert_eq!(s(Statistic::Median, &many), 20);
        assert_eq!(s(Statistic::Median, &many[..17]), 32);
        assert!(Statistic::parse("mode").is_err());
    }
}
