//! The reference predictors of Talby et al. 2006, Listing 2: PERFECT (an oracle, the upper bound on
//! accuracy), and CONSTANT (no information at all; with 1 s it is the information-less
//! predictor of §7) and ESTIMATE (the user's own estimate), which differ only in what they
//! predict.

use super::{Corrector, Oracle, PredCtx, PredJob, Predictor};
use crate::time::Time;

/// Predicts each job's actual runtime; it never misses.
#[derive(Debug, Clone, Default)]
pub struct Perfect;

impl Predictor for Perfect {
    fn name(&self) -> &str {
        "perfect"
    }
    fn on_submit(&mut self, _job: &PredJob, oracle: Oracle, _ctx: &mut PredCtx) -> Time {
        oracle.runtime()
    }
    fn on_end(&mut self, _job: &PredJob, _runtime: Time, _ctx: &mut PredCtx) {}
    fn on_miss(
        &mut self,
        _job: &PredJob,
        _prediction: Time,
        elapsed: Time,
        _ctx: &mut PredCtx,
    ) -> Time {
        elapsed + 1
    }
}

/// What a static predictor predicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The same value for every job, using no information at all.
    Constant(Time),
    /// The user's estimate.
    Estimate,
}

/// Predicts a constant or the estimate, with gradual increments on misses: the CONSTANT
/// (with 1 s, the information-less predictor of Talby et al. 2006, §7) and ESTIMATE predictors.
#[derive(Debug, Clone)]
pub struct Static {
    basis: Basis,
    corrector: Corrector,
}

impl Static {
    /// A predictor of `basis`.
    pub fn new(basis: Basis, corrector: Corrector) -> Self {
        Static { basis, corrector }
    }
}

impl Predictor for Static {
    fn name(&self) -> &str {
        match self.basis {
            Basis::Constant(_) => "constant",
            Basis::Estimate => "estimate",
        }
    }
    fn on_submit(&mut self, job: &PredJob, _oracle: Oracle, _ctx: &mut PredCtx) -> Time {
        match self.basis {
            Basis::Constant(c) => c,
            Basis::Estimate => job.estimate,
        }
    }
    fn on_end(&mut self, job: &PredJob, _runtime: Time, _ctx: &mut PredCtx) {
        self.corrector.forget(job.seq);
    }
    fn on_miss(
        &mut self,
        job: &PredJob,
        prediction: Time,
        elapsed: Time,
        _ctx: &mut PredCtx,
    ) -> Time {
        // The constant predictor uses no information, not even the estimate.
        let estimate = (self.basis == Basis::Estimate).then_some(job.estimate);
        self.corrector
            .correct(job.seq, prediction, elapsed, estimate)
    }
}
