//! The reference predictors of seed 001 Listing 2: PERFECT (an oracle, the upper bound on
//! accuracy), CONSTANT (no information at all; with 1 s it is the information-less
//! predictor of §7) and ESTIMATE (the user's own estimate).

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

/// Predicts the same value for every job, with gradual increments on misses. It uses
/// neither the estimate nor any history.
#[derive(Debug, Clone)]
pub struct Constant {
    value: Time,
    corrector: Corrector,
}

impl Constant {
    /// Predicts `value` seconds.
    pub fn new(value: Time, corrector: Corrector) -> Self {
        Constant { value, corrector }
    }
}

impl Predictor for Constant {
    fn name(&self) -> &str {
        "constant"
    }
    fn on_submit(&mut self, _job: &PredJob, _oracle: Oracle, _ctx: &mut PredCtx) -> Time {
        self.value
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
        self.corrector.correct(job.seq, prediction, elapsed, None)
    }
}

/// Predicts the user's estimate, with gradual increments if the job outlives it.
#[derive(Debug, Clone)]
pub struct Estimate {
    corrector: Corrector,
}

impl Estimate {
    /// The estimate predictor.
    pub fn new(corrector: Corrector) -> Self {
        Estimate { corrector }
    }
}

impl Predictor for Estimate {
    fn name(&self) -> &str {
        "estimate"
    }
    fn on_submit(&mut self, job: &PredJob, _oracle: Oracle, _ctx: &mut PredCtx) -> Time {
        job.estimate
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
        self.corrector
            .correct(job.seq, prediction, elapsed, Some(job.estimate))
    }
}
