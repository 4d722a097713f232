//! EASY backfilling over a priority order: the pass that CREASY, Maui and the fair-share
//! multifactor policy share. Each pass sorts the waiting jobs by priority (higher first,
//! ties by submission), starts them in that order while they fit, reserves processors
//! for the first that does not (its shadow time and extra processors, as EASY does,
//! Mu'alem and Feitelson 2001, §2.2), and backfills the rest in priority order if they
//! end by the shadow time or fit in the extra processors. With priorities that rank the
//! queue in submission order it is EASY, pass for pass.

use super::easy::Reservation;
use super::{RunningByEnd, RunningJob, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// The running jobs, the reservation and scratch space of an EASY pass in priority order.
#[derive(Debug, Clone, Default)]
pub(super) struct PriorityEasy {
    running: RunningByEnd,
    reservation: Option<Reservation>,
    /// Scratch: queue positions in priority order, and their priorities.
    order: Vec<usize>,
    priority: Vec<f64>,
}

impl PriorityEasy {
    /// Adopts the running jobs of `view`.
    pub(super) fn sync(&mut self, view: &SystemView<'_>) {
        self.running = RunningByEnd::new();
        for job in view.running() {
            let r = &job.request;
            self.running.insert(job.planned_end(), r.seq, r.id, r.size);
        }
        self.reservation = None;
    }

    /// A running job ended.
    pub(super) fn on_end(&mut self, job: &RunningJob) {
        self.running.remove(job.planned_end(), job.request.seq);
    }

    /// A job's plan changed; a running one is held until its new planned end.
    pub(super) fn on_replan(&mut self, job: &JobRequest, old_plan: Time, started: Option<Time>) {
        if let Some(start) = started {
            self.running.remove(start + old_plan, job.seq);
            self.running
                .insert(start + job.plan, job.seq, job.id, job.size);
        }
    }

    /// The head's reservation after the last pass.
    pub(super) fn reservation(&self) -> Option<Reservation> {
        self.reservation
    }

    /// One pass over `view`'s queue ranked by `priority` (`None`: submission order).
    pub(super) fn pass(
        &mut self,
        view: &SystemView<'_>,
        priority: Option<&dyn Fn(&JobRequest) -> f64>,
        starts: &mut Vec<JobId>,
    ) {
        let now = view.now;
        let queue = view.queue();
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..queue.len());
        if let Some(priority_of) = priority {
            let mut priority = std::mem::take(&mut self.priority);
            priority.clear();
            priority.extend(queue.iter().map(priority_of));
            order.sort_by(|&a, &b| priority[b].total_cmp(&priority[a]).then(a.cmp(&b)));
            self.priority = priority;
        }
        self.reservation = None;
        let mut free = view.free;
        let mut rest = order.iter();
        for &i in rest.by_ref() {
            let job = &queue[i];
            if job.size <= free {
                free -= job.size;
                self.start(job, now, starts);
                continue;
            }
            self.reservation = Some(Reservation::of(job.id, job.size, &self.running, now, free));
            break;
        }
        if let Some(mut res) = self.reservation {
            for &i in rest {
                if free == 0 {
                    break;
                }
                let job = &queue[i];
                if res.admit(job, now, &mut free) {
                    self.start(job, now, starts);
                }
            }
            self.reservation = Some(res);
        }
        self.order = order;
    }

    fn start(&mut self, job: &JobRequest, now: Time, starts: &mut Vec<JobId>) {
        self.running
            .insert(now + job.plan, job.seq, job.id, job.size);
        starts.push(job.id);
    }
}
