//! Conservative backfilling (Mu'alem and Feitelson 2001, §2.1): every waiting job holds a
//! reservation in the availability profile, and a job may start early only if it delays no
//! reservation.
//!
//! * On arrival a job is placed at its earliest fit (the anchor point) given the running
//!   jobs and all earlier reservations, and starts at once if that is now.
//! * When a job ends before its estimate, the schedule is **compressed**: each waiting job,
//!   in submission order, is moved to its earliest fit given all other reservations. Its
//!   old slot is still free, so no job ever moves later; the schedule is never rebuilt from
//!   scratch (Mu'alem and Feitelson 2001, Fig. 2 shows why that would break guarantees).
//!   A job that cannot move is detected without touching the profile
//!   ([`Profile::earlier_fit`]).
//! * Under the `overrun` policy a job may outlive its estimate. The profile then holds it
//!   until one second past the current pass, and the schedule is repaired: every waiting
//!   job is taken out and placed again in submission order. Reservations that relied on
//!   the overrunning job's processors move later, the one case where a promise is broken.
//!   The same repair runs when the job finally ends, if a reservation was left in the past.
//! * Reserved starts are timers: the scheduler asks for a pass at the earliest one
//!   ([`Scheduler::wake_at`]), since a compression can leave a job placed where another
//!   job's slot used to end, a time at which no event would otherwise happen.

use super::flex::{Flex, FlexParams, Regrade};
use super::profile::NoWindows;
use super::{Profile, RunningByEnd, RunningJob, Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// A waiting job's place in the profile.
#[derive(Debug, Clone, Copy)]
struct Reservation {
    start: Time,
    size: u32,
    /// The job's plan (its estimate: this policy takes no predictor).
    duration: Time,
}

/// Conservative backfilling with compression.
#[derive(Debug, Clone)]
pub struct Conservative {
    profile: Profile,
    /// Running jobs keyed by the end the profile holds them until.
    running: RunningByEnd,
    /// That end, by job id.
    held_until: Vec<Time>,
    /// Reservations by job id.
    reserved: Vec<Option<Reservation>>,
    /// No reservation starts before this time (a lower bound, exact after each pass).
    next_due: Time,
    /// When to ask for a pass: the earliest reservation, unless it only waits for a job
    /// running past its estimate (see [`Conservative::schedule`]).
    wake: Option<Time>,
    arrivals: Vec<JobRequest>,
    compress: bool,
    /// What the compression pass under way has learnt from the jobs that could not move.
    no_window: NoWindows,
    /// Flex's order, guarantees and settings, when the schedule is Flex's.
    flex: Option<Box<Flex>>,
    /// Processors in the machine.
    total: u32,
}

impl Conservative {
    /// A scheduler for an empty machine of `procs` processors.
    pub fn new(procs: u32) -> Self {
        Conservative {
            profile: Profile::new(procs),
            running: RunningByEnd::new(),
            held_until: Vec::new(),
            reserved: Vec::new(),
            next_due: Time::MAX,
            wake: None,
            arrivals: Vec::new(),
            compress: false,
            no_window: NoWindows::default(),
            flex: None,
            total: procs,
        }
    }

    /// The earliest time from `now` at which `size` processors are free once every
    /// waiting job's reservation is left out: running jobs only end, so from then on they
    /// stay free. No schedule can start a job of `size` processors earlier.
    fn free_of_reservations(&self, size: u32, now: Time) -> Time {
        let mut free = self.free_now();
        if free >= size {
            return now;
        }
        for (end, _, s) in self.running.iter() {
            free += s;
            if free >= size {
                return end.max(now);
            }
        }
        Time::MAX
    }

    /// Processors no running job holds.
    fn free_now(&self) -> u32 {
        let busy: u32 = self.running.iter().map(|(_, _, s)| s).sum();
        self.total.saturating_sub(busy)
    }

    /// Flex ([`super::flex`]) on an empty machine of `procs` processors.
    pub fn flex(procs: u32, params: FlexParams) -> Self {
        Conservative {
            flex: Some(Box::new(Flex::new(params))),
            ..Conservative::new(procs)
        }
    }

    /// `job`'s earliest fit from `now` on.
    fn earliest(&self, job: &JobRequest, now: Time) -> Time {
        self.profile
            .earliest_fit(now, job.size, job.plan)
            .expect("a job no larger than the machine always fits eventually")
    }

    /// Reserves `start` for `job`.
    fn place_at(&mut self, job: &JobRequest, start: Time) {
        self.profile.reserve(start, start + job.plan, job.size);
        self.record(
            job.id,
            Reservation {
                start,
                size: job.size,
                duration: job.plan,
            },
        );
    }

    /// Takes job `id`'s reservation out of the profile and returns it.
    fn take_reservation(&mut self, id: JobId) -> Option<Reservation> {
        let r = self.reservation(id)?;
        self.unplace(id);
        Some(r)
    }

    fn reservation(&self, id: JobId) -> Option<Reservation> {
        self.reserved.get(id as usize).copied().flatten()
    }

    /// Places `job` at its earliest fit from `now` on.
    fn place(&mut self, job: &JobRequest, now: Time) {
        let start = self.earliest(job, now);
        self.place_at(job, start);
    }

    /// Records job `id`'s reservation `r`, which the profile already holds.
    fn record(&mut self, id: JobId, r: Reservation) {
        let i = id as usize;
        if self.reserved.len() <= i {
            self.reserved.resize(i + 1, None);
        }
        self.reserved[i] = Some(r);
        self.next_due = self.next_due.min(r.start);
    }

    /// Takes job `id`'s reservation, if it has one, out of the profile.
    fn unplace(&mut self, id: JobId) {
        if let Some(r) = self.reserved.get_mut(id as usize).and_then(Option::take) {
            self.profile
                .add(r.start, r.start + r.duration, i64::from(r.size));
        }
    }

    /// Records that job `id` runs and that the profile holds it until `until`.
    fn hold(&mut self, id: JobId, seq: u64, size: u32, until: Time) {
        let i = id as usize;
        if self.held_until.len() <= i {
            self.held_until.resize(i + 1, 0);
        }
        self.held_until[i] = until;
        self.running.insert(until, seq, id, size);
    }

    /// Holds jobs that have outlived their estimate until `now + 1`; returns whether
    /// there were any.
    fn extend_overruns(&mut self, now: Time) -> bool {
        let mut overrunning = Vec::new();
        while let Some((held, seq, id, size)) = self.running.pop_until(now) {
            self.profile.add(held.max(now), now + 1, -i64::from(size));
            overrunning.push((seq, id, size));
        }
        for &(seq, id, size) in &overrunning {
            self.hold(id, seq, size, now + 1);
        }
        !overrunning.is_empty()
    }

    /// Moves a waiting job to its earliest fit. Its current slot is still free, so the fit
    /// is never later; when it is the same, the profile is not touched, and the pass
    /// keeps what the failure proved for the jobs after it.
    fn compress_one(&mut self, job: &JobRequest, now: Time) {
        if let Some(r) = self.reservation(job.id) {
            let own = (r.start, r.start + r.duration, r.size);
            let known = self.no_window.by(r.size, r.duration);
            match self
                .profile
                .earlier_fit(now, r.size, r.duration, own, known)
            {
                Some(start) => {
                    self.profile.move_earlier(own, start);
                    self.record(job.id, Reservation { start, ..r });
                    self.no_window.gained_from(r.start);
                }
                None => self.no_window.add(r.size, r.duration, r.start),
            }
        }
    }
}

impl Scheduler for Conservative {
    fn name(&self) -> &str {
        if self.flex.is_some() {
            "flex"
        } else {
            "conservative"
        }
    }

    /// Rebuilds the profile from the running jobs (held until their expected ends) and
    /// places every waiting job again in submission order at the next pass, as a
    /// conservative schedule built from scratch would.
    fn sync(&mut self, view: &SystemView<'_>) {
        let flex = self.flex.as_ref().map(|f| f.params);
        *self = Conservative::new(view.total);
        self.flex = flex.map(|p| Box::new(Flex::new(p)));
        let now = view.now;
        for job in view.running() {
            let until = job.expected_end(now);
            let r = &job.request;
            self.profile.add(now, until, -i64::from(r.size));
            self.hold(r.id, r.seq, r.size, until);
        }
        self.arrivals.extend(view.queue().iter().copied());
    }

    fn on_submit(&mut self, job: &JobRequest, _view: &SystemView<'_>) {
        self.arrivals.push(*job);
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        let held = self.held_until[job.request.id as usize];
        self.running.remove(held, job.request.seq);
        if held > view.now {
            self.profile
                .add(view.now, held, i64::from(job.request.size));
            self.compress = true;
        }
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        let queue = view.queue();
        let waiting = queue.len() - self.arrivals.len();
        let mut flex = self.flex.take();
        // The waiting jobs in the schedule's order: submission order, or Flex's.
        let order = flex.as_mut().map(|f| std::mem::take(&mut f.order));
        let skip = if order.is_some() { waiting } else { 0 };
        let in_order = || {
            order
                .iter()
                .flatten()
                .chain(queue.iter().take(waiting).skip(skip))
        };
        self.profile.advance(now);
        let mut repairing = self.extend_overruns(now);
        if self.next_due < now {
            // Reservations in the past counted on a job that overran and has just ended:
            // they leave the profile first, so that they hold no processors now.
            for job in in_order() {
                if self.reservation(job.id).is_some_and(|r| r.start < now) {
                    self.unplace(job.id);
                    repairing = true;
                }
            }
        }
        if repairing {
            // Promises are broken anyway: every waiting job is placed again in submission
            // order, so that the earliest-submitted jobs get the processors first.
            for job in in_order() {
                self.unplace(job.id);
            }
            for job in in_order() {
                self.place(job, now);
                if let (Some(f), Some(r)) = (flex.as_mut(), self.reservation(job.id)) {
                    f.raise(job.id, r.start);
                }
            }
        } else if self.compress {
            self.no_window.clear();
            for job in in_order() {
                self.compress_one(job, now);
            }
        }
        let regrade = self.compress && !repairing;
        self.compress = false;
        if let (Some(f), Some(order)) = (flex.as_mut(), order) {
            f.order = order;
            if regrade && f.params.regrade == Regrade::Events {
                self.flex_regrade(f, now);
            }
        }
        let mut arrivals = std::mem::take(&mut self.arrivals);
        for job in arrivals.drain(..) {
            match flex.as_mut() {
                Some(f) => self.flex_place(f, &job, now),
                None => self.place(&job, now),
            }
        }
        self.arrivals = arrivals;
        if self.next_due <= now {
            let mut next_due = Time::MAX;
            for job in queue {
                let Some(r) = self.reservation(job.id) else {
                    continue;
                };
                if r.start > now {
                    next_due = next_due.min(r.start);
                    continue;
                }
                self.reserved[job.id as usize] = None;
                self.hold(job.id, job.seq, r.size, now + r.duration);
                starts.push(job.id);
                if let Some(f) = flex.as_mut() {
                    f.started(job, now);
                }
            }
            self.next_due = next_due;
        }
        // Reserved starts need a pass even when no event falls on them: a compression can
        // leave a job placed at the end of a slot another job has since left. Two
        // exceptions after an overrun: reservations one second ahead wait for the
        // overrunning job, whose real end is an event, and waking every second would only
        // find it still running; and when every running job is held until `now + 1`, a
        // pass before the next event would rebuild this very schedule shifted in time
        // (all jobs held one second past it, the waiting jobs placed again in the same
        // order from it), so no job could start and no pass is asked for. Without the
        // second, jobs running far past their estimates woke the schedule once per
        // estimate until they ended.
        self.wake = if repairing && self.running.iter().all(|(end, _, _)| end == now + 1) {
            None
        } else if repairing && self.next_due == now + 1 {
            queue
                .iter()
                .filter_map(|j| self.reservation(j.id))
                .map(|r| r.start)
                .filter(|&s| s > now + 1)
                .min()
        } else {
            (self.next_due < Time::MAX).then_some(self.next_due)
        };
        self.flex = flex;
    }

    fn wake_at(&self) -> Option<Time> {
        self.wake
    }

    /// Reservations are promises made with estimates; predictions that change while jobs
    /// wait would break them at every update.
    fn accepts_predictions(&self) -> bool {
        false
    }

    /// Every reservation; under Flex, every guarantee (a reservation may move later
    /// within its job's slack).
    fn promises(&self, out: &mut Vec<(JobId, Time)>) {
        if let Some(f) = &self.flex {
            f.promises(out);
            return;
        }
        out.extend(
            self.reserved
                .iter()
                .enumerate()
                .filter_map(|(id, r)| r.map(|r| (id as JobId, r.start))),
        );
    }
}

impl Conservative {
    /// Flex's decision at an end before the estimate (Talby 2006, §2: "whenever a decision
    /// has to be made (job arrival, termination or cancellation events), all possible
    /// queues are compared"; a job cancelled in a log is one that ends). After the
    /// compression, each waiting job that the processors free now could start, but that
    /// is reserved later, is tried at the front of the queue, starting now, and the other
    /// jobs are placed again in Flex's order at their earliest fits. The candidate with
    /// the lowest grade in which every job keeps its guarantee replaces the compressed
    /// schedule; ties keep the compressed one.
    fn flex_regrade(&mut self, flex: &mut Flex, now: Time) {
        let grade = flex.params.grade;
        let free = self.free_now();
        let is_mover = |job: &JobRequest| {
            job.size <= free && self.reservation(job.id).is_some_and(|r| r.start > now)
        };
        if !flex.order.iter().any(is_mover) {
            return;
        }
        // The compressed schedule's grade, and the profile of the running jobs alone.
        let mut base = std::mem::replace(&mut flex.base, Profile::new(0));
        base.copy_from(&self.profile);
        let mut current = 0.0;
        for job in &flex.order {
            if let Some(r) = self.reservation(job.id) {
                current += grade.penalty(job, r.start, now);
                base.add(r.start, r.start + r.duration, i64::from(r.size));
            }
        }
        // The best mover and its grade; the starts of the queue with it first (the
        // candidate's, and the best's, buffers kept between ends).
        let mut best: Option<(usize, f64)> = None;
        let mut starts = std::mem::take(&mut flex.starts);
        let mut best_starts = std::mem::take(&mut flex.best_starts);
        for m in 0..flex.order.len() {
            let mover = flex.order[m];
            if !is_mover(&mover) {
                continue;
            }
            let mut profile = std::mem::replace(&mut flex.candidate, Profile::new(0));
            profile.copy_from(&base);
            profile.reserve(now, now + mover.plan, mover.size);
            starts.clear();
            starts.push(now);
            let mut total = grade.penalty(&mover, now, now);
            let bound = best.map_or(current, |b| b.1);
            let feasible =
                flex.order
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != m)
                    .all(|(_, job)| {
                        flex.replace(&mut profile, job, now, &mut starts, &mut total)
                            && total < bound
                    });
            flex.candidate = profile;
            if feasible {
                best = Some((m, total));
                std::mem::swap(&mut starts, &mut best_starts);
            }
        }
        flex.base = base;
        if let Some((m, _)) = best {
            let mover = flex.order.remove(m);
            flex.order.insert(0, mover);
            for job in &flex.order {
                self.take_reservation(job.id);
            }
            for (job, &start) in flex.order.iter().zip(&best_starts) {
                self.place_at(job, start);
            }
        }
        flex.starts = starts;
        flex.best_starts = best_starts;
    }

    /// Flex's placement of an arrival: the best feasible place in the queue
    /// ([`super::flex`] gives the rule).
    fn flex_place(&mut self, flex: &mut Flex, job: &JobRequest, now: Time) {
        let at_end = self.earliest(job, now);
        flex.set_latest(job.id, at_end.saturating_add(flex.slack(job, self.total)));
        let n = flex.order.len();
        let grade = flex.params.grade;
        // The jobs taken out of the profile so far (from the end of the queue), with
        // their reservations, and the grade they and the new job have with the new job
        // at the end.
        let mut removed = std::mem::take(&mut flex.removed);
        removed.clear();
        let mut baseline = grade.penalty(job, at_end, now);
        // The best place and its gain; the starts of the new job and the jobs after it
        // at the place under study and at the best (buffers kept between arrivals).
        let mut best: Option<(usize, f64)> = None;
        let mut starts = std::mem::take(&mut flex.starts);
        let mut best_starts = std::mem::take(&mut flex.best_starts);
        let lowest = match flex.params.depth {
            0 => 0,
            d => n.saturating_sub(d),
        };
        let mut earliest_tried = at_end;
        // The profile without the jobs taken out so far; the schedule itself changes only
        // once a place is chosen.
        let mut base = std::mem::replace(&mut flex.base, Profile::new(0));
        // Where the new job would start with no waiting job ahead: no place does better.
        let floor = self.free_of_reservations(job.size, now);
        if at_end > floor {
            base.copy_from(&self.profile);
            for k in (lowest..n).rev() {
                if earliest_tried == floor {
                    break;
                }
                let moved = flex.order[k];
                let Some(r) = self.reservation(moved.id) else {
                    continue;
                };
                base.add(r.start, r.start + r.duration, i64::from(r.size));
                baseline += grade.penalty(&moved, r.start, now);
                removed.push((k, moved));
                // A place where the new job starts no earlier than at a place already
                // tried later in the queue only moves more jobs for the same start.
                let first = base
                    .earliest_fit(now, job.size, job.plan)
                    .expect("a job no larger than the machine always fits eventually");
                if first >= earliest_tried {
                    continue;
                }
                earliest_tried = first;
                let mut profile = std::mem::replace(&mut flex.candidate, Profile::new(0));
                profile.copy_from(&base);
                profile.reserve(first, first + job.plan, job.size);
                starts.clear();
                starts.push(first);
                let mut total = grade.penalty(job, first, now);
                // Each job placed again must keep its guarantee, and the grade must stay
                // below the best so far (penalties only add up).
                let bound = baseline - best.map_or(0.0, |b| b.1);
                let feasible = removed.iter().rev().all(|(_, j)| {
                    flex.replace(&mut profile, j, now, &mut starts, &mut total) && total < bound
                });
                flex.candidate = profile;
                let gain = baseline - total;
                if feasible && gain > best.map_or(0.0, |b| b.1) {
                    best = Some((k, gain));
                    std::mem::swap(&mut starts, &mut best_starts);
                }
            }
        }
        flex.base = base;
        // At the chosen place, the jobs after it leave their reservations for the
        // candidate's starts.
        match best {
            None => {
                self.place_at(job, at_end);
                flex.order.push(*job);
            }
            Some((k, _)) => {
                for (_, j) in removed.iter().filter(|(i, _)| *i >= k) {
                    self.take_reservation(j.id);
                }
                self.place_at(job, best_starts[0]);
                let after = removed.iter().rev().filter(|(i, _)| *i >= k);
                for ((_, j), &start) in after.zip(&best_starts[1..]) {
                    self.place_at(j, start);
                }
                flex.order.insert(k, *job);
            }
        }
        flex.removed = removed;
        flex.starts = starts;
        flex.best_starts = best_starts;
    }
}
