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
//! Otherwise, with a short queue, the candidates are scanned; past [`INDEX_FROM`] waiting
//! jobs ([`SJBF_INDEX_FROM`] for SJBF) they are not: an index of the waiting jobs
//! (`backfill.rs`: by arrival for EASY, by plan and size for SJBF) hands out the jobs the
//! scan would backfill, one after the other, so that a pass costs about the same with a
//! million waiting jobs as with a thousand. The index is built when the queue reaches that
//! length and dropped when it falls below a quarter of it, so that the common case (KTH's
//! queue rarely holds more than a few dozen jobs) does not pay for keeping it.
//! [`easy_pass`] is the scan, kept as the reference the indexed pass is tested against
//! (`tests/easy_index.rs`) and for the passes in other orders (the Python gym agent's).

use super::backfill::{ByArrival, ByPlan, Candidate, Fit};
use super::{RunningByEnd, RunningJob, Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// Waiting jobs at which EASY builds the index of its candidates: below, a pass scans
/// them. Measured on KTH replays (docs/PERFORMANCE.md, "Every queue length").
pub const INDEX_FROM: usize = 256;

/// Waiting jobs at which SJBF builds its index: its scan sorts the candidates by plan at
/// every pass, so it pays off sooner than EASY's.
pub const SJBF_INDEX_FROM: usize = 32;

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

    /// Whether a job of `size` processors and `plan` seconds may be backfilled with `free`
    /// processors free; if so, takes its processors (and the extra ones it uses past the
    /// shadow time).
    pub(super) fn admit(&mut self, size: u32, plan: Time, now: Time, free: &mut u32) -> bool {
        admit(size, plan, now, self.shadow, &mut self.extra, free)
    }

    /// EASY's test as it stands with `free` processors free at `now`.
    fn fit(&self, now: Time, free: u32) -> Fit {
        Fit {
            free,
            room: self.extra.min(free),
            by_shadow: self.shadow - now,
        }
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

/// Sorts `jobs` in SJBF's order: shortest plan first, ties by submission.
fn by_plan(jobs: &mut [Candidate]) {
    jobs.sort_unstable_by_key(|j| (j.plan, j.seq));
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
    arrivals: Vec<Candidate>,
    /// Something besides arrivals changed since the last pass: a job ended or was replanned.
    dirty: bool,
    /// EASY: the waiting jobs in queue order, indexed by size and plan.
    by_arrival: ByArrival,
    /// SJBF: the waiting jobs by plan, then submission, indexed by size.
    by_plan: ByPlan,
    /// Whether the index holds the waiting jobs (a long queue) or passes scan them.
    indexed: bool,
    /// Waiting jobs at which the index is built; it is dropped below a quarter of that (so
    /// that a queue hovering near the threshold does not build it at every pass).
    index_from: usize,
    /// Scratch: SJBF's candidates of a scanning pass, by plan and submission.
    by_plan_scan: Vec<Candidate>,
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
            by_arrival: ByArrival::default(),
            by_plan: ByPlan::default(),
            indexed: false,
            index_from: match order {
                Order::Submission => INDEX_FROM,
                Order::ShortestPlan => SJBF_INDEX_FROM,
            },
            by_plan_scan: Vec::new(),
        }
    }

    /// The same policy, indexing its candidates from `waiting` waiting jobs on instead of
    /// [`INDEX_FROM`] or [`SJBF_INDEX_FROM`] (0: always), for the tests of the index
    /// against the scan.
    pub fn index_from(mut self, waiting: usize) -> Self {
        self.index_from = waiting;
        self
    }

    /// Adds a waiting job to the index, if the queue is indexed.
    fn index(&mut self, job: &JobRequest) {
        if !self.indexed {
            return;
        }
        match self.order {
            Order::Submission => self.by_arrival.push(job),
            Order::ShortestPlan => self.by_plan.insert(job),
        }
    }

    /// Starts `job` now; the caller takes it out of the index.
    fn run(&mut self, job: Candidate, now: Time, starts: &mut Vec<JobId>) {
        self.running
            .insert(now + job.plan, job.seq, job.id, job.size);
        starts.push(job.id);
    }

    /// Starts `job` now and takes it out of the index.
    fn start(&mut self, job: Candidate, now: Time, starts: &mut Vec<JobId>) {
        self.run(job, now, starts);
        if !self.indexed {
            return;
        }
        match self.order {
            Order::Submission => self.by_arrival.remove(job.id),
            Order::ShortestPlan => {
                self.by_plan.remove(job.size, job.plan, job.seq);
            }
        }
    }

    /// Tries the arrivals since the last pass as backfilling candidates against the
    /// reservation, in submission order (EASY) or shortest plan first (SJBF).
    fn backfill_arrivals(&mut self, now: Time, mut free: u32, starts: &mut Vec<JobId>) {
        let Some(mut res) = self.reservation else {
            return;
        };
        let mut arrivals = std::mem::take(&mut self.arrivals);
        if self.order == Order::ShortestPlan {
            by_plan(&mut arrivals);
        }
        self.backfill_each(&mut res, arrivals.iter().copied(), now, &mut free, starts);
        self.arrivals = arrivals;
        self.reservation = Some(res);
    }

    /// Tests `candidates` in turn against the reservation `res` with `free` processors
    /// free, and starts each it admits.
    fn backfill_each(
        &mut self,
        res: &mut Reservation,
        candidates: impl IntoIterator<Item = Candidate>,
        now: Time,
        free: &mut u32,
        starts: &mut Vec<JobId>,
    ) {
        for job in candidates {
            if *free == 0 {
                break;
            }
            if res.admit(job.size, job.plan, now, free) {
                self.start(job, now, starts);
            }
        }
    }

    /// EASY's candidates after the head (at `head`), in queue order, each the first that
    /// passes the test as it stands.
    fn backfill_by_arrival(
        &mut self,
        head: usize,
        now: Time,
        free: &mut u32,
        starts: &mut Vec<JobId>,
    ) {
        let Some(mut res) = self.reservation else {
            return;
        };
        let mut from = head + 1;
        while *free > 0 {
            let Some(place) = self.by_arrival.next(from, &res.fit(now, *free)) else {
                break;
            };
            let job = self.by_arrival.get(place);
            let admitted = res.admit(job.size, job.plan, now, free);
            debug_assert!(admitted, "the index found a job EASY's test refuses");
            self.by_arrival.remove_at(place);
            self.run(job, now, starts);
            from = place + 1;
        }
        self.reservation = Some(res);
    }

    /// SJBF's candidates: in ascending plan, first those that end by the shadow time (the
    /// least of those that fit), then those that fit in the extra processors. The head is
    /// never one: it does not fit.
    fn backfill_by_plan(&mut self, now: Time, free: &mut u32, starts: &mut Vec<JobId>) {
        let Some(mut res) = self.reservation else {
            return;
        };
        let by_shadow = res.fit(now, *free).by_shadow;
        let mut ends_by_shadow = true;
        while *free > 0 {
            let most = if ends_by_shadow {
                *free
            } else {
                res.fit(now, *free).room
            };
            let Some(job) = self.by_plan.least_up_to(most) else {
                if ends_by_shadow {
                    ends_by_shadow = false;
                    continue;
                }
                break;
            };
            if ends_by_shadow && job.plan > by_shadow {
                ends_by_shadow = false;
                continue;
            }
            let admitted = res.admit(job.size, job.plan, now, free);
            debug_assert!(admitted, "the index found a job SJBF's test refuses");
            self.start(job, now, starts);
        }
        self.reservation = Some(res);
    }

    /// Builds the index of `view`'s waiting jobs when the queue has grown to
    /// `index_from`, and drops it when it has shrunk below a quarter of that.
    fn fit_index(&mut self, view: &SystemView<'_>) {
        let waiting = view.queue().len();
        if !self.indexed && waiting >= self.index_from {
            self.indexed = true;
            for job in view.queue() {
                self.index(job);
            }
        } else if self.indexed && waiting < self.index_from / 4 {
            self.indexed = false;
            self.by_arrival = ByArrival::default();
            self.by_plan = ByPlan::default();
        }
    }

    /// A pass over a short queue: starts the waiting jobs in order while they fit,
    /// reserves for the first that does not, and tests the others as backfilling
    /// candidates in EASY's or SJBF's order.
    fn scanning_pass(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        let mut free = view.free;
        self.reservation = None;
        let mut queue = view.queue().iter();
        let head = loop {
            let Some(job) = queue.next() else {
                return;
            };
            if job.size > free {
                break job;
            }
            free -= job.size;
            self.run(Candidate::of(job), now, starts);
        };
        let mut res = Reservation::of(head.id, head.size, &self.running, now, free);
        let queue = queue.map(Candidate::of);
        match self.order {
            Order::Submission => self.backfill_each(&mut res, queue, now, &mut free, starts),
            Order::ShortestPlan => {
                let mut candidates = std::mem::take(&mut self.by_plan_scan);
                candidates.clear();
                candidates.extend(queue);
                by_plan(&mut candidates);
                self.backfill_each(&mut res, candidates.iter().copied(), now, &mut free, starts);
                self.by_plan_scan = candidates;
            }
        }
        self.reservation = Some(res);
    }

    fn full_pass(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        if !self.indexed {
            return self.scanning_pass(view, starts);
        }
        let now = view.now;
        let mut free = view.free;
        self.reservation = None;
        match self.order {
            Order::Submission => {
                while let Some(place) = self.by_arrival.first() {
                    let job = self.by_arrival.get(place);
                    if job.size <= free {
                        free -= job.size;
                        self.by_arrival.remove_at(place);
                        self.run(job, now, starts);
                        continue;
                    }
                    self.reservation =
                        Some(Reservation::of(job.id, job.size, &self.running, now, free));
                    if free > 0 {
                        self.backfill_by_arrival(place, now, &mut free, starts);
                    }
                    break;
                }
            }
            Order::ShortestPlan => {
                for job in view.queue() {
                    if job.size <= free {
                        free -= job.size;
                        self.start(Candidate::of(job), now, starts);
                        continue;
                    }
                    self.reservation =
                        Some(Reservation::of(job.id, job.size, &self.running, now, free));
                    if free > 0 {
                        self.backfill_by_plan(now, &mut free, starts);
                    }
                    break;
                }
            }
        }
    }

    /// The head's reservation after the last pass.
    pub(super) fn reservation(&self) -> Option<Reservation> {
        self.reservation
    }

    /// Jobs in the index.
    fn index_len(&self) -> usize {
        match self.order {
            Order::Submission => self.by_arrival.len(),
            Order::ShortestPlan => self.by_plan.len(),
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
        *self = Easy::with_order(self.order).index_from(self.index_from);
        for job in view.running() {
            self.running.insert(
                job.planned_end(),
                job.request.seq,
                job.request.id,
                job.request.size,
            );
        }
        self.fit_index(view);
        self.dirty = true;
    }

    fn on_submit(&mut self, job: &JobRequest, _view: &SystemView<'_>) {
        self.arrivals.push(Candidate::of(job));
        self.index(job);
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
            None if !self.indexed => {}
            None => match self.order {
                Order::Submission => self.by_arrival.replan(job.id, job.plan),
                Order::ShortestPlan => {
                    if self.by_plan.remove(job.size, old_plan, job.seq) {
                        self.by_plan.insert(job);
                    }
                }
            },
        }
        self.dirty = true;
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        self.fit_index(view);
        debug_assert!(
            !self.indexed || self.index_len() == view.queue().len(),
            "the index holds the waiting jobs"
        );
        let now = view.now;
        let reservation_holds = self.reservation.is_some_and(|r| r.shadow > now);
        if !self.dirty && reservation_holds {
            self.backfill_arrivals(now, view.free, starts);
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
    use crate::sched::{Queue, UserTable};

    fn job(seq: u64, size: u32, plan: Time) -> JobRequest {
        JobRequest::submitted(seq, 0, size, plan, 1)
    }

    /// A queue of several blocks of the index: EASY and SJBF find the one job that may be
    /// backfilled far behind the head, indexed as scanning, and see a waiting job's new
    /// plan.
    #[test]
    fn a_job_far_down_a_long_queue_is_backfilled() {
        // 4 processors; a job of 3 runs from 0 until 100, so 1 is free. The head needs 4:
        // reserved at 100, no extra processors. Behind it 100 jobs of 2 processors (they
        // never fit), one of 1 processor for 200 s (it would run past the shadow time with
        // no extra processor) and one of 1 for 50 s (it ends by the shadow time).
        let running = vec![RunningJob {
            request: job(0, 3, 100),
            start: 0,
        }];
        let mut queue: Queue = std::iter::once(job(1, 4, 10))
            .chain((2..102).map(|seq| job(seq, 2, 10)))
            .collect();
        let (long, short) = (job(102, 1, 200), job(103, 1, 50));
        queue.extend([long, short]);
        let users = UserTable::new();
        // Indexed from the start, and as configured (103 jobs wait: EASY scans, SJBF
        // indexes).
        for mut s in [
            Easy::new().index_from(0),
            Easy::sjbf().index_from(0),
            Easy::new(),
            Easy::sjbf(),
        ] {
            let mut queue = queue.clone();
            s.sync(&SystemView::new(0, 4, 1, &queue, &running, &users));
            let mut starts = Vec::new();
            s.schedule(
                &SystemView::new(0, 4, 1, &queue, &running, &users),
                &mut starts,
            );
            assert_eq!(starts, [short.id], "{}", s.name());
            let mut promises = Vec::new();
            s.promises(&mut promises);
            assert_eq!(promises, [(1, 100)]);
            // At 50 the short job ends; the long one still may not start, until its plan
            // becomes 40 s: it then ends at 90, by the shadow time.
            assert!(queue.remove(short.id, short.seq));
            let ended = RunningJob {
                request: short,
                start: 0,
            };
            s.on_end(&ended, &SystemView::new(50, 4, 1, &queue, &running, &users));
            starts.clear();
            s.schedule(
                &SystemView::new(50, 4, 1, &queue, &running, &users),
                &mut starts,
            );
            assert!(starts.is_empty(), "{}", s.name());
            let replanned = JobRequest { plan: 40, ..long };
            *queue.get_mut(long.id, long.seq).unwrap() = replanned;
            s.on_replan(
                &replanned,
                200,
                None,
                &SystemView::new(50, 4, 1, &queue, &running, &users),
            );
            s.schedule(
                &SystemView::new(50, 4, 1, &queue, &running, &users),
                &mut starts,
            );
            assert_eq!(starts, [long.id], "{}", s.name());
        }
    }

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
