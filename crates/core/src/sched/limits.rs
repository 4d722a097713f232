//! Per-user limits over any policy: at most `jobs` running jobs, or `procs` processors,
//! per user, as sites set them (Slurm's `MaxJobsPerUser` and `MaxTRESPerUser=cpu=`, Maui's
//! `MAXJOB` and `MAXPROC`). A job its user's limit keeps out stays queued, **held**: the
//! policy underneath never sees it until the user's running jobs leave room, and then
//! sees it as a new arrival. So the policy plans, reserves and backfills only among the
//! jobs that may run, and a held job neither blocks the queue nor takes a reservation.
//! A released job joins the policy's queue behind the jobs released before it, as an
//! arrival would, so the promises the policy made (EASY's reservation, conservative
//! backfilling's) still hold.
//!
//! A job larger than the processor limit by itself is released when its user has
//! nothing else running or released, and then runs alone (it could never run otherwise).
//!
//! Room is counted per pass: a user's queued jobs are released in submission order while
//! its running jobs plus those released stay within the limits, so whatever the policy
//! starts in a pass keeps every user within them. Jobs held and the holds that ended are
//! counted ([`Limits::held`]).

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Queue, RunningJob, Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// The limits of one user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserLimits {
    /// Most running jobs; `None`: no limit.
    pub jobs: Option<u32>,
    /// Most processors in use; `None`: no limit.
    pub procs: Option<u32>,
}

/// What the limits held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Held {
    /// Jobs held at least once when a pass began.
    pub jobs: u64,
    /// Of those, jobs released later.
    pub released: u64,
}

/// A policy under per-user limits.
#[derive(Clone)]
pub struct Limits {
    limits: UserLimits,
    inner: Box<dyn Scheduler>,
    /// Jobs the policy knows of (released), waiting, by the order of their release.
    released: FxHashMap<JobId, u64>,
    releases: u64,
    /// Jobs held by a pass and not released yet.
    holding: FxHashSet<JobId>,
    held: Held,
    /// The released queue the policy sees; scratch: it in the making, and each user's
    /// room.
    queue: Queue,
    order: Vec<JobRequest>,
    room: FxHashMap<i64, (u32, u32)>,
}

impl Limits {
    /// `inner` under `limits`.
    pub fn new(inner: Box<dyn Scheduler>, limits: UserLimits) -> Self {
        Limits {
            limits,
            inner,
            released: FxHashMap::default(),
            releases: 0,
            holding: FxHashSet::default(),
            held: Held::default(),
            queue: Queue::new(),
            order: Vec::new(),
            room: FxHashMap::default(),
        }
    }

    /// What the limits held so far.
    pub fn held(&self) -> Held {
        self.held
    }

    fn limits_report(&self) -> serde_json::Value {
        serde_json::json!({
            "jobs_per_user": self.limits.jobs,
            "procs_per_user": self.limits.procs,
            "held_jobs": self.held().jobs,
            "released": self.held().released,
        })
    }

    /// The released queue of `view`: every job already released, then, in submission
    /// order, each held job whose user has room for it. Returns the jobs newly released.
    fn release(&mut self, view: &SystemView<'_>) -> Vec<JobRequest> {
        self.room.clear();
        let limits = self.limits;
        let room = &mut self.room;
        fn use_of(room: &mut FxHashMap<i64, (u32, u32)>, user: i64) -> &mut (u32, u32) {
            room.entry(user).or_insert((0, 0))
        }
        for job in view.running() {
            let u = use_of(room, job.request.user);
            u.0 += 1;
            u.1 += job.request.size;
        }
        for job in view.queue() {
            if self.released.contains_key(&job.id) {
                let u = use_of(room, job.user);
                u.0 += 1;
                u.1 += job.size;
            }
        }
        self.order.clear();
        let mut new = Vec::new();
        for job in view.queue() {
            if self.released.contains_key(&job.id) {
                self.order.push(*job);
                continue;
            }
            let u = use_of(room, job.user);
            // A job larger than the processor limit runs alone, or it never would.
            let fits = limits.jobs.is_none_or(|n| u.0 < n)
                && limits
                    .procs
                    .is_none_or(|p| u.1 + job.size <= p || (u.0 == 0 && job.size > p));
            if fits {
                u.0 += 1;
                u.1 += job.size;
                self.released.insert(job.id, self.releases);
                self.releases += 1;
                if self.holding.remove(&job.id) {
                    self.held.released += 1;
                }
                self.order.push(*job);
                new.push(*job);
                continue;
            }
            if self.holding.insert(job.id) {
                self.held.jobs += 1;
            }
        }
        let released = &self.released;
        self.order.sort_by_key(|j| released[&j.id]);
        self.queue.clear();
        self.queue.extend(self.order.iter().copied());
        new
    }

    /// `view` with the released queue.
    fn view<'a>(queue: &'a Queue, view: &SystemView<'a>) -> SystemView<'a> {
        SystemView::new(
            view.now,
            view.total,
            view.free,
            queue,
            view.running(),
            view.users(),
        )
    }
}

impl Scheduler for Limits {
    fn name(&self) -> &str {
        "limits"
    }

    fn fault(&self) -> Option<String> {
        self.inner.fault()
    }

    fn sync(&mut self, view: &SystemView<'_>) {
        self.released.clear();
        self.holding.clear();
        self.release(view);
        let queue = std::mem::take(&mut self.queue);
        self.inner.sync(&Self::view(&queue, view));
        self.queue = queue;
    }

    /// Arrivals reach the policy at the next pass, once released.
    fn on_submit(&mut self, _job: &JobRequest, _view: &SystemView<'_>) {}

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        let queue = std::mem::take(&mut self.queue);
        self.inner.on_end(job, &Self::view(&queue, view));
        self.queue = queue;
    }

    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        if started.is_some() || self.released.contains_key(&job.id) {
            let queue = std::mem::take(&mut self.queue);
            self.inner
                .on_replan(job, old_plan, started, &Self::view(&queue, view));
            self.queue = queue;
        }
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let new = self.release(view);
        let queue = std::mem::take(&mut self.queue);
        let released = Self::view(&queue, view);
        for job in &new {
            self.inner.on_submit(job, &released);
        }
        let from = starts.len();
        self.inner.schedule(&released, starts);
        for id in &starts[from..] {
            self.released.remove(id);
        }
        self.queue = queue;
    }

    fn accepts_predictions(&self) -> bool {
        self.inner.accepts_predictions()
    }

    fn wake_at(&self) -> Option<Time> {
        self.inner.wake_at()
    }

    fn promises(&self, out: &mut Vec<(JobId, Time)>) {
        self.inner.promises(out);
    }

    /// The jobs held, and what the policy underneath reports.
    fn run_report(&self) -> Option<serde_json::Value> {
        let mut report = serde_json::json!({ "limits": self.limits_report() });
        if let Some(inner) = self.inner.run_report() {
            report["inner"] = inner;
        }
        Some(report)
    }
}
