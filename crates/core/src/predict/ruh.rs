//! RUH, recent user history (Talby et al. 2006, Listing 3): a statistic of the runtimes of the
//! user's last k terminated jobs, or the estimate while the user has fewer. Its presets are
//! Talby et al.'s (2006) RUH (median of the last three) and Tsafrir, Etsion & Feitelson's EASY++
//! (mean of the last two, capped at the estimate).

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::{Corrector, LiveJobs, Oracle, PredCtx, PredJob, Predictor, Statistic};
use crate::time::Time;

/// RUH's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuhParams {
    /// How many of the user's last terminated jobs to use.
    pub jobs: usize,
    /// What to compute over their runtimes.
    pub statistic: Statistic,
    /// Never predict more than the estimate.
    pub cap_at_estimate: bool,
    /// Re-predict the user's other jobs when one terminates.
    pub propagate: bool,
}

/// The recent-user-history predictor.
#[derive(Debug, Clone)]
pub struct Ruh {
    name: &'static str,
    params: RuhParams,
    corrector: Corrector,
    /// The user's last terminated runtimes, oldest first, in order of termination.
    history: FxHashMap<i64, VecDeque<Time>>,
    live: LiveJobs,
}

impl Ruh {
    /// A predictor named `name` (`ruh` or `easy++`).
    pub fn new(name: &'static str, params: RuhParams, corrector: Corrector) -> Self {
        Ruh {
            name,
            params,
            corrector,
            history: FxHashMap::default(),
            live: LiveJobs::new(params.propagate),
        }
    }

    fn predict(&self, job: &PredJob) -> Time {
        Self::predict_with(&self.params, &self.history, job)
    }

    fn predict_with(
        p: &RuhParams,
        history: &FxHashMap<i64, VecDeque<Time>>,
        job: &PredJob,
    ) -> Time {
        match history.get(&job.user) {
            Some(h) if h.len() >= p.jobs => {
                let v = p.statistic.of(h.iter().copied());
                if p.cap_at_estimate {
                    v.min(job.estimate)
                } else {
                    v
                }
            }
            _ => job.estimate,
        }
    }
}

impl Predictor for Ruh {
    fn name(&self) -> &str {
        self.name
    }

    fn on_submit(&mut self, job: &PredJob, _oracle: Oracle, _ctx: &mut PredCtx) -> Time {
        let p = self.predict(job);
        self.live.submit(job, p);
        p
    }

    fn on_start(&mut self, job: &PredJob, ctx: &mut PredCtx) {
        self.live.start(job, ctx.now);
    }

    fn on_end(&mut self, job: &PredJob, runtime: Time, ctx: &mut PredCtx) {
        self.live.end(job, &mut self.corrector);
        let h = self.history.entry(job.user).or_default();
        h.push_back(runtime);
        if h.len() > self.params.jobs {
            h.pop_front();
        }
        if self.params.propagate {
            let (params, history) = (&self.params, &self.history);
            self.live
                .propagate(job.user, ctx, |j| Self::predict_with(params, history, j));
        }
    }

    fn on_miss(
        &mut self,
        job: &PredJob,
        prediction: Time,
        elapsed: Time,
        _ctx: &mut PredCtx,
    ) -> Time {
        let estimate = Some(job.estimate);
        self.live
            .miss(&mut self.corrector, job, prediction, elapsed, estimate)
    }
}
