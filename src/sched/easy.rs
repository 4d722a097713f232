//! EASY backfilling, as defined by Mu'alem and Feitelson (seed 002 §2.2, after Lifka).
//!
//! Each pass:
//! 1. start waiting jobs in submission order while they fit;
//! 2. for the first job that does not fit, compute the **shadow time** (when enough
//!    processors will be free for it, walking the running jobs by expected end) and the
//!    **extra processors** (those free at the shadow time beyond what it needs);
//! 3. scan the later jobs in order and backfill each one that fits in the free processors
//!    and either ends by the shadow time (now + estimate ≤ shadow) or needs no more than
//!    min(free, extra) processors; a backfilled job that runs past the shadow time consumes
//!    the extra processors it takes.
//!
//! The shadow time and extra processors are recomputed at every pass in which anything but
//! an arrival happened (a stale reservation is the most common EASY bug; see
//! `notes/anchors-simulators.md` §3.5). A single forward scan is equivalent to the paper's
//! "backfill one job, repeat" loop because both conditions only get harder as free and extra
//! processors shrink. Jobs ending exactly at the shadow time all count toward the extra
//! processors, as in a profile-based implementation.
//!
//! When only arrivals happened since the last pass, nothing the reservation depends on has
//! changed, so only the new jobs are tested (DESIGN.md, "Where performance comes from").

use super::{RunningByEnd, RunningJob, Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// The reservation of the first waiting job.
#[derive(Debug, Clone, Copy)]
struct Reservation {
    head: JobId,
    shadow: Time,
    extra: u32,
}

/// EASY backfilling.
#[derive(Debug, Clone, Default)]
pub struct Easy {
    running: RunningByEnd,
    reservation: Option<Reservation>,
    arrivals: Vec<JobRequest>,
    ended: bool,
}

impl Easy {
    /// A scheduler for an empty machine.
    pub fn new() -> Self {
        Self::default()
    }

    fn start(&mut self, job: &JobRequest, now: Time, starts: &mut Vec<JobId>) {
        self.running
            .insert(now + job.estimate, job.seq, job.id, job.size);
        starts.push(job.id);
    }

    /// Backfills `job` against the reservation if it qualifies; returns whether it did.
    fn try_backfill(
        &mut self,
        job: &JobRequest,
        now: Time,
        free: &mut u32,
        starts: &mut Vec<JobId>,
    ) -> bool {
        let Some(res) = self.reservation.as_mut() else {
            return false;
        };
        if job.size > *free {
            return false;
        }
        let ends_by_shadow = now + job.estimate <= res.shadow;
        if !ends_by_shadow && job.size > res.extra.min(*free) {
            return false;
        }
        if !ends_by_shadow {
            res.extra -= job.size;
        }
        *free -= job.size;
        self.start(job, now, starts);
        true
    }

    /// Shadow time and extra processors for a job of `need` processors when `free` are
    /// free now, from the running jobs' expected ends.
    fn reserve(&self, now: Time, free: u32, need: u32) -> (Time, u32) {
        let mut avail = free;
        let mut shadow = None;
        for (end, _, size) in self.running.iter() {
            let end = end.max(now + 1);
            match shadow {
                Some(s) if end > s => break,
                Some(_) => avail += size,
                None => {
                    avail += size;
                    if avail >= need {
                        shadow = Some(end);
                    }
                }
            }
        }
        let shadow =
            shadow.expect("a job no larger than the machine fits once all running jobs end");
        (shadow, avail - need)
    }

    fn full_pass(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        let mut free = view.free;
        self.reservation = None;
        let mut queue = view.queue().iter();
        for job in queue.by_ref() {
            if job.size <= free {
                free -= job.size;
                self.start(job, now, starts);
                continue;
            }
            let (shadow, extra) = self.reserve(now, free, job.size);
            self.reservation = Some(Reservation {
                head: job.id,
                shadow,
                extra,
            });
            break;
        }
        for job in queue {
            if free == 0 {
                break;
            }
            self.try_backfill(job, now, &mut free, starts);
        }
    }
}

impl Scheduler for Easy {
    fn name(&self) -> &str {
        "easy"
    }

    fn on_submit(&mut self, job: &JobRequest, _view: &SystemView<'_>) {
        self.arrivals.push(*job);
    }

    fn on_end(&mut self, job: &RunningJob, _view: &SystemView<'_>) {
        self.running.remove(job.estimated_end(), job.request.seq);
        self.ended = true;
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        let reservation_holds = self.reservation.is_some_and(|r| r.shadow > now);
        if !self.ended && reservation_holds {
            let mut free = view.free;
            let arrivals = std::mem::take(&mut self.arrivals);
            for job in &arrivals {
                if free == 0 {
                    break;
                }
                self.try_backfill(job, now, &mut free, starts);
            }
            self.arrivals = arrivals;
        } else {
            self.full_pass(view, starts);
        }
        self.arrivals.clear();
        self.ended = false;
    }

    fn promises(&self, out: &mut Vec<(JobId, Time)>) {
        if let Some(r) = self.reservation {
            out.push((r.head, r.shadow));
        }
    }
}
