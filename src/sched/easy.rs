//! EASY backfilling, as defined by Mu'alem and Feitelson (2001, §2.2, after Lifka), and
//! its SJBF variant (Talby et al. 2006, §3.2).
//!
//! Each pass:
//! 1. start waiting jobs in submission order while they fit;
//! 2. for the first job that does not fit, compute the **shadow time** (when enough
//!    processors will be free for it, walking the running jobs by expected end) and the
//!    **extra processors** (those free at the shadow time beyond what it needs);
//! 3. scan the later jobs and backfill each one that fits in the free processors and
//!    either ends by the shadow time (now + plan ≤ shadow) or needs no more than
//!    min(free, extra) processors; a backfilled job that runs past the shadow time consumes
//!    the extra processors it takes.
//!
//! A job's *plan* is its estimate, or its prediction when a predictor is in use (EASY with
//! predictions is EASY++). EASY scans the candidates in submission order; SJBF scans them
//! in ascending order of plan, ties by submission, while the reservation stays with the
//! oldest waiting job.
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

use std::collections::BTreeMap;

use super::{RunningByEnd, RunningJob, Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// The reservation of the first waiting job.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reservation {
    /// The job it is for.
    pub(super) head: JobId,
    /// When enough processors will be free for it.
    pub(super) shadow: Time,
    /// Processors free at the shadow time beyond what it needs.
    pub(super) extra: u32,
}

impl Reservation {
    /// The reservation of `head` (`need` processors) when `free` are free now, from the
    /// running jobs' expected ends: the shadow time and the extra processors.
    pub(super) fn of(head: JobId, need: u32, running: &RunningByEnd, now: Time, free: u32) -> Self {
        let (shadow, extra) = shadow(
            need,
            free,
            now,
            running.iter().map(|(end, _, size)| (end, size)),
        )
        .expect("a job no larger than the machine fits once all running jobs end");
        Reservation {
            head,
            shadow,
            extra,
        }
    }

    /// Whether `job` may be backfilled with `free` processors free; if so, takes its
    /// processors (and the extra ones it uses past the shadow time).
    pub(super) fn admit(&mut self, job: &JobRequest, now: Time, free: &mut u32) -> bool {
        admit(job.size, job.plan, now, self.shadow, &mut self.extra, free)
    }
}

/// EASY's backfilling rule: whether a job of `size` processors and `plan` seconds may
/// start at `now` with `free` processors free, before a reservation at `shadow` with
/// `extra` processors to spare; if so, takes its processors (and the extra ones it uses
/// past the shadow time).
fn admit(size: u32, plan: Time, now: Time, shadow: Time, extra: &mut u32, free: &mut u32) -> bool {
    if size > *free {
        return false;
    }
    let ends_by_shadow = now + plan <= shadow;
    if !ends_by_shadow && size > (*extra).min(*free) {
        return false;
    }
    if !ends_by_shadow {
        *extra -= size;
    }
    *free -= size;
    true
}

/// One EASY pass over waiting jobs in a given order (Mu'alem and Feitelson 2001, §2.2;
/// in a priority order, the pass of CREASY, Maui and the fair-share policy): `jobs` are
/// `(processors, plan)` in that order, `free` processors are free at `now`, and `ends`
/// are the running jobs' `(planned end, processors)`. Starts jobs in order while they
/// fit, reserves for the first that does not, and backfills the others by EASY's rule.
/// Returns the positions in `jobs` of those to start now.
pub fn easy_pass(jobs: &[(u32, Time)], free: u32, now: Time, ends: &[(Time, u32)]) -> Vec<usize> {
    let mut free = free;
    let first = jobs.iter().take_while(|&&(size, _)| {
        let fits = size <= free;
        if fits {
            free -= size;
        }
        fits
    });
    let mut starts: Vec<usize> = (0..first.count()).collect();
    let Some(&(need, _)) = jobs.get(starts.len()) else {
        return starts;
    };
    let mut ends: Vec<(Time, u32)> = ends
        .iter()
        .copied()
        .chain(
            jobs[..starts.len()]
                .iter()
                .map(|&(size, plan)| (now + plan, size)),
        )
        .collect();
    ends.sort_unstable();
    let Some((shadow, mut extra)) = shadow(need, free, now, ends) else {
        return starts;
    };
    for (i, &(size, plan)) in jobs.iter().enumerate().skip(starts.len() + 1) {
        if free == 0 {
            break;
        }
        if admit(size, plan, now, shadow, &mut extra, &mut free) {
            starts.push(i);
        }
    }
    starts
}

/// The **shadow time** and **extra processors** of a job of `need` processors (Mu'alem
/// and Feitelson 2001, §2.2): when enough processors will be free for it, with `free`
/// free at `now` and the running jobs' `(planned end, processors)` given in ascending order
/// of end, and how many processors are free then beyond what it needs. A job that has
/// outlived its plan is expected to end at `now + 1`, and every job ending at the shadow
/// time counts toward the extra processors. `None` when the job does not fit even once
/// every running job has ended.
pub fn shadow(
    need: u32,
    free: u32,
    now: Time,
    ends: impl IntoIterator<Item = (Time, u32)>,
) -> Option<(Time, u32)> {
    if free >= need {
        return Some((now, free - need));
    }
    let mut avail = free;
    let mut shadow = None;
    for (end, size) in ends {
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
    shadow.map(|s| (s, avail - need))
}

/// The order in which backfilling candidates are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// Submission order (EASY).
    Submission,
    /// Shortest plan first (SJBF).
    ShortestPlan,
}

/// EASY backfilling, or SJBF.
#[derive(Debug, Clone)]
pub struct Easy {
    order: Order,
    running: RunningByEnd,
    reservation: Option<Reservation>,
    arrivals: Vec<JobRequest>,
    /// Something besides arrivals changed since the last pass: a job ended or was replanned.
    dirty: bool,
    /// SJBF: the waiting jobs by plan, then submission, kept as they change so that no
    /// pass has to sort them.
    by_plan: BTreeMap<(Time, u64), JobRequest>,
    /// Scratch: keys of jobs started from `by_plan` in a pass.
    started: Vec<(Time, u64)>,
}

impl Default for Easy {
    fn default() -> Self {
        Easy::with_order(Order::Submission)
    }
}

impl Easy {
    /// EASY.
    pub fn new() -> Self {
        Self::default()
    }

    /// SJBF: EASY with backfilling candidates in ascending order of plan.
    pub fn sjbf() -> Self {
        Easy::with_order(Order::ShortestPlan)
    }

    fn with_order(order: Order) -> Self {
        Easy {
            order,
            running: RunningByEnd::new(),
            reservation: None,
            arrivals: Vec::new(),
            dirty: false,
            by_plan: BTreeMap::new(),
            started: Vec::new(),
        }
    }

    /// Starts `job` now; the caller takes it out of `by_plan`.
    fn run(running: &mut RunningByEnd, job: &JobRequest, now: Time, starts: &mut Vec<JobId>) {
        running.insert(now + job.plan, job.seq, job.id, job.size);
        starts.push(job.id);
    }

    /// Starts `job` now.
    fn start(&mut self, job: &JobRequest, now: Time, starts: &mut Vec<JobId>) {
        Self::run(&mut self.running, job, now, starts);
        if self.order == Order::ShortestPlan {
            self.by_plan.remove(&(job.plan, job.seq));
        }
    }

    /// Tries waiting jobs as backfilling candidates: EASY takes `jobs` (in submission
    /// order); SJBF takes every waiting job but the first, shortest plan first (or, with
    /// `only_new`, the new arrivals `jobs`, shortest first).
    fn backfill<'a>(
        &mut self,
        jobs: impl Iterator<Item = &'a JobRequest>,
        only_new: bool,
        now: Time,
        free: &mut u32,
        starts: &mut Vec<JobId>,
    ) {
        let Some(mut res) = self.reservation else {
            return;
        };
        match self.order {
            Order::Submission => {
                for job in jobs {
                    if *free == 0 {
                        break;
                    }
                    if res.admit(job, now, free) {
                        Self::run(&mut self.running, job, now, starts);
                    }
                }
            }
            Order::ShortestPlan if only_new => {
                let mut new: Vec<&JobRequest> = jobs.collect();
                new.sort_unstable_by_key(|j| (j.plan, j.seq));
                for job in new {
                    if *free == 0 {
                        break;
                    }
                    if res.admit(job, now, free) {
                        self.start(job, now, starts);
                    }
                }
            }
            Order::ShortestPlan => {
                let mut started = std::mem::take(&mut self.started);
                for (&key, job) in &self.by_plan {
                    if *free == 0 {
                        break;
                    }
                    if job.id != res.head && res.admit(job, now, free) {
                        Self::run(&mut self.running, job, now, starts);
                        started.push(key);
                    }
                }
                for key in started.drain(..) {
                    self.by_plan.remove(&key);
                }
                self.started = started;
            }
        }
        self.reservation = Some(res);
    }

    fn full_pass(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        let mut free = view.free;
        self.reservation = None;
        let queue = view.queue();
        let mut rest = queue.len();
        for (i, job) in queue.iter().enumerate() {
            if job.size <= free {
                free -= job.size;
                self.start(job, now, starts);
                continue;
            }
            self.reservation = Some(Reservation::of(job.id, job.size, &self.running, now, free));
            rest = i + 1;
            break;
        }
        if rest < queue.len() && free > 0 {
            self.backfill(queue.range(rest..), false, now, &mut free, starts);
        }
    }
}

impl Scheduler for Easy {
    fn name(&self) -> &str {
        match self.order {
            Order::Submission => "easy",
            Order::ShortestPlan => "sjbf",
        }
    }

    fn sync(&mut self, view: &SystemView<'_>) {
        *self = Easy::with_order(self.order);
        for job in view.running() {
            self.running.insert(
                job.planned_end(),
                job.request.seq,
                job.request.id,
                job.request.size,
            );
        }
        if self.order == Order::ShortestPlan {
            for job in view.queue() {
                self.by_plan.insert((job.plan, job.seq), *job);
            }
        }
        self.dirty = true;
    }

    fn on_submit(&mut self, job: &JobRequest, _view: &SystemView<'_>) {
        self.arrivals.push(*job);
        if self.order == Order::ShortestPlan {
            self.by_plan.insert((job.plan, job.seq), *job);
        }
    }

    fn on_end(&mut self, job: &RunningJob, _view: &SystemView<'_>) {
        self.running.remove(job.planned_end(), job.request.seq);
        self.dirty = true;
    }

    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        _view: &SystemView<'_>,
    ) {
        match started {
            Some(start) => {
                self.running.remove(start + old_plan, job.seq);
                self.running
                    .insert(start + job.plan, job.seq, job.id, job.size);
            }
            None if self.order == Order::ShortestPlan => {
                self.by_plan.remove(&(old_plan, job.seq));
                self.by_plan.insert((job.plan, job.seq), *job);
            }
            None => {}
        }
        self.dirty = true;
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        let reservation_holds = self.reservation.is_some_and(|r| r.shadow > now);
        if !self.dirty && reservation_holds {
            let mut free = view.free;
            let arrivals = std::mem::take(&mut self.arrivals);
            self.backfill(arrivals.iter(), true, now, &mut free, starts);
            self.arrivals = arrivals;
        } else {
            self.full_pass(view, starts);
        }
        self.arrivals.clear();
        self.dirty = false;
    }

    fn promises(&self, out: &mut Vec<(JobId, Time)>) {
        if let Some(r) = self.reservation {
            out.push((r.head, r.shadow));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shadow_time_is_the_first_end_at_which_the_job_fits() {
        // 2 free at 100; jobs of 3, 2 and 4 processors end at 150, 150 and 200.
        let ends = [(150, 3), (150, 2), (200, 4)];
        // 4 processors: free at 150, when 2 + 3 + 2 = 7 are, 3 beyond the need.
        assert_eq!(shadow(4, 2, 100, ends), Some((150, 3)));
        assert_eq!(shadow(8, 2, 100, ends), Some((200, 3)));
        assert_eq!(shadow(2, 2, 100, ends), Some((100, 0)));
        assert_eq!(shadow(12, 2, 100, ends), None);
        // A job that has outlived its plan ends at now + 1 at the earliest.
        assert_eq!(shadow(3, 1, 100, [(90, 2), (130, 5)]), Some((101, 0)));
    }

    #[test]
    fn an_easy_pass_starts_reserves_and_backfills_in_the_order_given() {
        // 8 of 10 processors free at 0; 2 busy until 100.
        let ends = [(100, 2)];
        // 4 starts (until 10); 6 does not fit and is reserved at 10, when 8 are free (2
        // extra); 2 for 500 s takes the extra; 1 for 500 s then finds none; 1 for 5 s
        // ends by the shadow time.
        let jobs = [(4, 10), (6, 60), (2, 500), (1, 500), (1, 5)];
        assert_eq!(easy_pass(&jobs, 8, 0, &ends), [0, 2, 4]);
        // In another order, 1 for 500 s takes one extra processor first.
        let jobs = [(4, 10), (6, 60), (1, 500), (1, 5), (2, 500)];
        assert_eq!(easy_pass(&jobs, 8, 0, &ends), [0, 2, 3]);
        // Everything fits: all start, in order.
        assert_eq!(easy_pass(&[(2, 5), (2, 5)], 4, 0, &ends), [0, 1]);
        // A job larger than the machine is reserved nowhere; the rest wait.
        assert_eq!(
            easy_pass(&[(20, 5), (1, 5)], 4, 0, &ends),
            Vec::<usize>::new()
        );
    }
}
