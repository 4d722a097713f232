//! The waiting and running jobs of each user, which a predictor with propagation
//! re-predicts when it learns something new about the user (Talby et al. 2006, §4.3).

use std::collections::VecDeque;

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

/// Live jobs by user (hashed: never iterated), in submission order for each user: a
/// double-ended queue sorted by submission, since jobs arrive at its back and mostly end
/// near its front (faster than a tree on the logs measured; removal in the middle costs
/// the shorter side). A user's queue is kept when it empties, for the next session.
///
/// Only a predictor that propagates needs the jobs themselves; without propagation the
/// set stays empty and only hands misses to the corrector.
#[derive(Debug, Clone)]
pub struct LiveJobs {
    by_user: FxHashMap<i64, VecDeque<Live>>,
    tracking: bool,
}

impl LiveJobs {
    /// An empty set that keeps the live jobs if `tracking` (for propagation).
    pub fn new(tracking: bool) -> Self {
        LiveJobs {
            by_user: FxHashMap::default(),
            tracking,
        }
    }

    fn index(jobs: &VecDeque<Live>, job: &PredJob) -> Option<usize> {
        jobs.binary_search_by_key(&job.seq, |l| l.job.seq).ok()
    }

    fn get(&mut self, job: &PredJob) -> Option<&mut Live> {
        let jobs = self.by_user.get_mut(&job.user)?;
        let i = Self::index(jobs, job)?;
        Some(&mut jobs[i])
    }

    /// A job was submitted and predicted `prediction`.
    pub fn submit(&mut self, job: &PredJob, prediction: Time) {
        if !self.tracking {
            return;
        }
        let jobs = self.by_user.entry(job.user).or_default();
        let live = Live {
            job: *job,
            start: None,
            prediction,
        };
        // Jobs arrive in submission order, so this is a push.
        let at = jobs.partition_point(|l| l.job.seq < job.seq);
        jobs.insert(at, live);
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
        if let Some(jobs) = self.by_user.get_mut(&job.user)
            && let Some(i) = Self::index(jobs, job)
        {
            jobs.remove(i);
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
        // One prediction per distinct (size, estimate, application), looked up by hash:
        // a linear search made a user with many queued jobs of distinct estimates cost
        // O(jobs^2) per ended job (found by fuzzing).
        let mut seen: FxHashMap<(u32, Time, i64), Time> = FxHashMap::default();
        for live in jobs.iter_mut() {
            let job = &live.job;
            let key = (job.size, job.estimate, job.app);
            let p = *seen.entry(key).or_insert_with(|| predict(job));
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
