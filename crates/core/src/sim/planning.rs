//! What the scheduler plans with: the predictor (if any) and, for every live job, the
//! predictions it has had, for the accuracy metrics and for deadline-miss events.

use crate::job::{Accuracy, AccuracyTally, JobId, JobRequest};
use crate::predict::{Oracle, PredCtx, PredJob, Predictor};
use crate::time::Time;

/// The predictions a job has had since it was submitted.
#[derive(Debug, Clone, Default)]
struct Track {
    /// When the current prediction was made.
    since: Time,
    /// The earlier predictions, weighed by how long each was in force.
    tally: AccuracyTally,
    /// Identifies the job's pending deadline-miss event; older events are stale.
    stamp: u64,
}

/// The predictor and the prediction history of every live job.
pub struct Planner {
    predictor: Option<Box<dyn Predictor>>,
    ctx: PredCtx,
    tracks: Vec<Track>,
    next_stamp: u64,
}

fn pred_job(r: &JobRequest) -> PredJob {
    PredJob {
        id: r.id,
        seq: r.seq,
        user: r.user,
        submit: r.submit,
        size: r.size,
        estimate: r.estimate,
        app: r.app,
    }
}

impl Planner {
    /// Plans with `predictor`, or with estimates when there is none.
    pub fn new(predictor: Option<Box<dyn Predictor>>) -> Self {
        Planner {
            predictor,
            ctx: PredCtx::default(),
            tracks: Vec::new(),
            next_stamp: 0,
        }
    }

    /// Whether a predictor is in use (deadline misses can only happen then).
    pub fn predicts(&self) -> bool {
        self.predictor.is_some()
    }

    /// The predictor's name.
    pub fn name(&self) -> Option<&str> {
        self.predictor.as_deref().map(Predictor::name)
    }

    fn track(&mut self, id: JobId) -> &mut Track {
        let i = id as usize;
        if self.tracks.len() <= i {
            self.tracks.resize_with(i + 1, Track::default);
        }
        &mut self.tracks[i]
    }

    /// A job was submitted at `now` with `req.plan` set to its estimate and `runtime` the
    /// runtime it will have: its plan.
    pub fn submitted(&mut self, req: &JobRequest, runtime: Time, now: Time) -> Time {
        let plan = match &mut self.predictor {
            Some(p) => {
                self.ctx.now = now;
                p.on_submit(&pred_job(req), Oracle(runtime), &mut self.ctx)
                    .max(1)
            }
            None => req.plan,
        };
        *self.track(req.id) = Track {
            since: now,
            tally: AccuracyTally::new(runtime, plan),
            stamp: 0,
        };
        plan
    }

    /// Makes room for the histories of `jobs` jobs alive at once.
    pub fn reserve(&mut self, jobs: usize) {
        self.tracks.reserve(jobs.saturating_sub(self.tracks.len()));
    }

    /// A job whose plan was set elsewhere (a snapshot's, or a resubmission's): its
    /// history starts at `now` with `req.plan`, and the predictor is not asked.
    pub fn adopt(&mut self, req: &JobRequest, runtime: Time, now: Time) {
        *self.track(req.id) = Track {
            since: now,
            tally: AccuracyTally::new(runtime, req.plan),
            stamp: 0,
        };
    }

    /// A job started at `now`.
    pub fn started(&mut self, req: &JobRequest, now: Time) {
        if let Some(p) = &mut self.predictor {
            self.ctx.now = now;
            p.on_start(&pred_job(req), &mut self.ctx);
        }
    }

    /// A job whose plan was `req.plan` ended at `now` after running `runtime` seconds: how
    /// its predictions fared.
    pub fn ended(&mut self, req: &JobRequest, runtime: Time, now: Time) -> Accuracy {
        let mut t = std::mem::take(&mut self.tracks[req.id as usize]);
        if let Some(p) = &mut self.predictor {
            self.ctx.now = now;
            p.on_end(&pred_job(req), runtime, &mut self.ctx);
        }
        t.tally.add(now - t.since, req.plan);
        t.tally.finish()
    }

    /// A running job reached its plan after `elapsed` seconds and still runs: its new
    /// prediction, beyond `elapsed`.
    pub fn missed(&mut self, req: &JobRequest, elapsed: Time, now: Time) -> Time {
        self.track(req.id).tally.miss();
        let p = self
            .predictor
            .as_mut()
            .expect("misses only happen with a predictor");
        self.ctx.now = now;
        p.on_miss(&pred_job(req), req.plan, elapsed, &mut self.ctx)
            .max(elapsed + 1)
    }

    /// Job `id`'s plan changed at `now` from `old`.
    pub fn changed(&mut self, id: JobId, old: Time, now: Time) {
        let t = self.track(id);
        t.tally.add(now - t.since, old);
        t.since = now;
    }

    /// A new stamp for job `id`'s deadline-miss event, making older ones stale.
    pub fn arm(&mut self, id: JobId) -> u64 {
        self.next_stamp += 1;
        let stamp = self.next_stamp;
        self.track(id).stamp = stamp;
        stamp
    }

    /// Whether `stamp` is job `id`'s current deadline-miss event.
    pub fn is_current(&self, id: JobId, stamp: u64) -> bool {
        self.tracks
            .get(id as usize)
            .is_some_and(|t| t.stamp == stamp)
    }

    /// Moves the prediction updates the predictor handed back into `into`.
    pub fn take_updates(&mut self, into: &mut Vec<(JobId, Time)>) {
        self.ctx.take_updates(into);
    }
}
