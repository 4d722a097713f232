//! The waiting and running jobs of each user, which a predictor with propagation
//! re-predicts when it learns something new about the user (seed 001 §4.3).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::{Corrector, PredCtx, PredJob};
use crate::time::Time;

/// A live job: what the predictor knows of it, its start once running, and its current
/// prediction.
#[derive(Debug, Clone, Copy)]
struct Live {
    job: PredJob,
    start: Option<Time>,
    prediction: Time,
}

/// Live jobs by user (hashed: never iterated), in submission order for each user.
#[derive(Debug, Clone, Default)]
pub struct LiveJobs {
    by_user: FxHashMap<i64, BTreeMap<u64, Live>>,
}

impl LiveJobs {
    fn get(&mut self, job: &PredJob) -> Option<&mut Live> {
        self.by_user.get_mut(&job.user)?.get_mut(&job.seq)
    }

    /// A job was submitted and predicted `prediction`.
    pub fn submit(&mut self, job: &PredJob, prediction: Time) {
        self.by_user.entry(job.user).or_default().insert(
            job.seq,
            Live {
                job: *job,
                start: None,
                prediction,
            },
        );
    }

    /// A job started at `now`.
    pub fn start(&mut self, job: &PredJob, now: Time) {
        if let Some(live) = self.get(job) {
            live.start = Some(now);
        }
    }

    /// A job missed its deadline: its new prediction by `corrector`, remembered.
    pub fn miss(
        &mut self,
        corrector: &mut Corrector,
        job: &PredJob,
        prediction: Time,
        elapsed: Time,
        estimate: Option<Time>,
    ) -> Time {
        let p = corrector.correct(job.seq, prediction, elapsed, estimate);
        if let Some(live) = self.get(job) {
            live.prediction = p;
        }
        p
    }

    /// A job ended; `corrector` forgets its misses.
    pub fn end(&mut self, job: &PredJob, corrector: &mut Corrector) {
        corrector.forget(job.seq);
        if let Some(m) = self.by_user.get_mut(&job.user) {
            m.remove(&job.seq);
            if m.is_empty() {
                self.by_user.remove(&job.user);
            }
        }
    }

    /// Re-predicts every live job of `user` with `predict` and hands back, as updates in
    /// `ctx`, the predictions that changed; a running job's new prediction is kept beyond
    /// its elapsed time. `predict` must depend only on the user, the size, the estimate and
    /// the executable: jobs alike in those (a burst of copies of one job, typically) are
    /// predicted once.
    pub fn propagate(&mut self, user: i64, ctx: &mut PredCtx, predict: impl Fn(&PredJob) -> Time) {
        let Some(jobs) = self.by_user.get_mut(&user) else {
            return;
        };
        let mut seen: Vec<((u32, Time, i64), Time)> = Vec::new();
        for live in jobs.values_mut() {
            let job = &live.job;
            let key = (job.size, job.estimate, job.app);
            let p = match seen.iter().find(|(k, _)| *k == key) {
                Some(&(_, p)) => p,
                None => {
                    let p = predict(job);
                    seen.push((key, p));
                    p
                }
            };
            let p = match live.start {
                Some(s) => p.max(ctx.now - s + 1),
                None => p,
            };
            if p != live.prediction {
                live.prediction = p;
                ctx.update(job.id, p);
            }
        }
    }
}
