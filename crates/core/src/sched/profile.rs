//! The processor-availability profile of conservative backfilling (Mu'alem and Feitelson 2001,
//! §2.1): free processors as a step function of future time, with earliest-fit queries.

use crate::time::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    /// The step holds from this time until the next step's time.
    time: Time,
    free: i64,
}

/// Free processors over time, from the last [`Profile::advance`] on; the last step lasts
/// forever. Values may dip below zero transiently while a schedule is repaired after an
/// overrun; an earliest-fit query treats such a dip as full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    steps: Vec<Step>,
    /// Steps with fewer than zero free processors (only while a schedule is repaired).
    negative: usize,
}

impl Profile {
    /// A machine of `total` free processors.
    pub fn new(total: u32) -> Self {
        Profile {
            steps: vec![Step {
                time: Time::MIN,
                free: i64::from(total),
            }],
            negative: 0,
        }
    }

    /// Becomes a copy of `other`, reusing its own memory.
    pub fn copy_from(&mut self, other: &Profile) {
        self.steps.clone_from(&other.steps);
        self.negative = other.negative;
    }

    /// Forgets the profile before `now`.
    pub fn advance(&mut self, now: Time) {
        let idx = self.steps.partition_point(|s| s.time <= now);
        if idx > 1 {
            let gone = self.steps.drain(..idx - 1);
            self.negative -= gone.filter(|s| s.free < 0).count();
        }
    }

    /// Index of the step that holds at `t` (`t` must not precede the first step).
    fn step_at(&self, t: Time) -> usize {
        holding(&self.steps, t)
    }

    /// Free processors at time `t`.
    pub fn free_at(&self, t: Time) -> i64 {
        self.steps[self.step_at(t)].free
    }

    /// Ensures steps start exactly at `start` and at `end` (`start < end`, and `start`
    /// not before the first step) and returns their indices. When both are new, the steps
    /// after `end` move once for the two.
    fn split(&mut self, start: Time, end: Time) -> (usize, usize) {
        let i = self.step_at(start);
        let j = i + holding(&self.steps[i..], end);
        let (at, until) = (self.steps[i], self.steps[j]);
        let new_start = Step {
            time: start,
            free: at.free,
        };
        let new_end = Step {
            time: end,
            free: until.free,
        };
        match (at.time == start, until.time == end) {
            (true, true) => (i, j),
            (true, false) => {
                self.negative += usize::from(until.free < 0);
                self.steps.insert(j + 1, new_end);
                (i, j + 1)
            }
            (false, true) => {
                self.negative += usize::from(at.free < 0);
                self.steps.insert(i + 1, new_start);
                (i + 1, j + 1)
            }
            (false, false) => {
                self.negative += usize::from(at.free < 0) + usize::from(until.free < 0);
                self.steps.splice(j + 1..j + 1, [new_start, new_end]);
                // The start's step goes right after step `i`, ahead of those up to `j`.
                self.steps[i + 1..j + 2].rotate_right(1);
                (i + 1, j + 2)
            }
        }
    }

    /// Adds `delta` free processors over `[start, end)` (negative to allocate). The part
    /// before the profile's start is ignored, and so are empty intervals.
    pub fn add(&mut self, start: Time, end: Time, delta: i64) {
        self.change(start, end, delta, false);
    }

    /// Allocates `size` processors over `[start, end)`, a window that
    /// [`Profile::earliest_fit`] or [`Profile::earlier_fit`] found free (after taking the
    /// job out of its old slot): no step can fall below zero, so unless some already is,
    /// the steps are not counted again.
    pub fn reserve(&mut self, start: Time, end: Time, size: u32) {
        self.change(start, end, -i64::from(size), true);
    }

    /// Moves a reservation of `size` processors over `[start, end)` earlier, to begin at
    /// `to`, a start that [`Profile::earlier_fit`] found: the same profile as releasing the
    /// old slot and reserving the new one. The two slots last as long, so where they
    /// overlap nothing changes: only the part of the new slot before the old one is
    /// reserved and only the part of the old one after the new one released, and the
    /// steps of the overlap (most of the slot when a job moves a little earlier) are not
    /// touched.
    pub fn move_earlier(&mut self, (start, end, size): (Time, Time, u32), to: Time) {
        debug_assert!(to < start);
        let to_end = to + (end - start);
        self.change(to, to_end.min(start), -i64::from(size), true);
        self.change(to_end.max(start), end, i64::from(size), false);
    }

    /// [`Profile::add`]; `fits` says that no step of the range falls below zero.
    fn change(&mut self, start: Time, end: Time, delta: i64, fits: bool) {
        let start = start.max(self.steps[0].time);
        if start >= end || delta == 0 {
            return;
        }
        let (first, last) = self.split(start, end);
        let range = &mut self.steps[first..last];
        // Steps below zero, counted only when there can be any (after an allocation that
        // may not fit, or while some are left).
        let below = |r: &[Step]| r.iter().filter(|s| s.free < 0).count();
        let any_before = self.negative > 0;
        if any_before {
            self.negative -= below(range);
        }
        for step in range.iter_mut() {
            step.free += delta;
        }
        if any_before || (delta < 0 && !fits) {
            self.negative += below(range);
        }
        debug_assert!(any_before || !fits || range.iter().all(|s| s.free >= 0));
        // Merge steps that became equal to their predecessor at either boundary; when both
        // go, the steps after the range move once for the two.
        let steps = &self.steps;
        let at_end = last < steps.len() && steps[last].free == steps[last - 1].free;
        let at_start = first > 0 && steps[first].free == steps[first - 1].free;
        let negative = |s: Step| usize::from(s.free < 0);
        match (at_start, at_end) {
            (false, false) => {}
            (false, true) => self.negative -= negative(self.steps.remove(last)),
            (true, false) => self.negative -= negative(self.steps.remove(first)),
            (true, true) => {
                // The start's step goes right before the end's, and the two go together.
                self.steps[first..last].rotate_left(1);
                self.negative -= self
                    .steps
                    .drain(last - 1..=last)
                    .map(negative)
                    .sum::<usize>();
            }
        }
    }

    /// The earliest time at or after `from` when `size` processors stay free for `duration`
    /// seconds, or `None` if that never happens (the job is larger than the machine).
    ///
    /// Steps without room are skipped in one tight loop, and each run of steps with room is
    /// followed only until the window is long enough. An index of where each size first
    /// fits would have to be rebuilt after nearly every change of the profile, which cost
    /// more than the scan it saved (docs/PERFORMANCE.md, "What the profiles showed").
    pub fn earliest_fit(&self, from: Time, size: u32, duration: Time) -> Option<Time> {
        let size = i64::from(size);
        let steps = &self.steps;
        let mut i = self.step_at(from);
        loop {
            i += steps[i..].iter().position(|s| s.free >= size)?;
            let start = steps[i].time.max(from);
            let end = start.saturating_add(duration);
            // The first step after the run's start that either lacks room or begins once
            // the window has ended.
            match steps[i + 1..]
                .iter()
                .position(|s| s.free < size || s.time >= end)
            {
                Some(p) if steps[i + 1 + p].time < end => i += 2 + p,
                _ => return Some(start),
            }
        }
    }

    /// The earliest start before `own.0` (and at or after `from`) at which `size`
    /// processors stay free for `duration` seconds, where a job already holds `own.2`
    /// processors over `[own.0, own.1)` and those count as free; `None` if there is none.
    ///
    /// This is how compression asks whether a job can move earlier without taking it out
    /// of the profile first: most jobs cannot, and then the profile is left untouched.
    ///
    /// `no_window_by` is what the caller already knows: no interval that ends at or
    /// before it, starts at or after `from`, lasts `duration` and has `size` free
    /// processors throughout ([`NoWindow`]). The search then starts at the run of steps
    /// with room that holds at that time; the answer is the same as without it.
    pub fn earlier_fit(
        &self,
        from: Time,
        size: u32,
        duration: Time,
        own: (Time, Time, u32),
        no_window_by: Time,
    ) -> Option<Time> {
        let (own_start, own_end, own_size) = own;
        let size = i64::from(size);
        if from >= own_start {
            return None;
        }
        let steps = &self.steps;
        let mut i = self.step_at(from);
        // Runs that end by `no_window_by` are known to be too short: start at the run
        // that holds at that time, before looking for room at all (in a compression pass
        // the steps up to there were read by the queries before).
        let known = no_window_by.min(own_start - 1);
        if known > steps[i].time {
            let first = i;
            i = first + steps[first..].partition_point(|s| s.time <= known) - 1;
            while i > first && steps[i].free >= size && steps[i - 1].free >= size {
                i -= 1;
            }
        }
        i += steps[i..]
            .iter()
            .position(|s| s.free >= size || s.time >= own_start)?;
        if steps[i].time >= own_start {
            return None;
        }
        // The steps that begin before the slot; the last of them holds at its start unless
        // a step begins exactly there.
        let before = i + steps[i..].partition_point(|s| s.time < own_start);
        let at_slot = if steps.get(before).is_some_and(|s| s.time == own_start) {
            before
        } else {
            before - 1
        };
        let steps = &steps[..before];
        // Windows that start before the job's own slot: runs of steps with `size` free
        // among the steps that begin before the slot, each tried in turn; the last run
        // may reach the slot.
        let start = loop {
            i += steps[i..].iter().position(|s| s.free >= size)?;
            let start = steps[i].time.max(from);
            match steps[i + 1..].iter().position(|s| s.free < size) {
                Some(p) => {
                    if steps[i + 1 + p].time - start >= duration {
                        return Some(start);
                    }
                    i += 2 + p;
                }
                None if own_start - start >= duration => return Some(start),
                None => break start,
            }
        };
        // A window started before the slot may run on into it, where the job's own
        // processors count as free. With no step below zero, the job's own processors
        // alone cover the window's part in its slot when the window ends within the slot.
        if self.negative == 0 && i64::from(own_size) >= size && start + duration <= own_end {
            return Some(start);
        }
        let steps = &self.steps;
        let mut t = own_start;
        let mut i = at_slot;
        loop {
            let step_end = steps.get(i + 1).map_or(Time::MAX, |s| s.time);
            let (seg_end, mine) = if t < own_end {
                (step_end.min(own_end), i64::from(own_size))
            } else {
                (step_end, 0)
            };
            if steps[i].free + mine < size {
                return None;
            }
            if seg_end == Time::MAX || seg_end - start >= duration {
                return Some(start);
            }
            t = seg_end;
            if t == step_end {
                i += 1;
            }
        }
    }

    /// Number of steps (a measure of the profile's cost).
    pub fn step_count(&self) -> usize {
        self.steps.len()
    }
}

/// What a failed [`Profile::earlier_fit`] proves: no interval that starts at or after the
/// query's `from`, ends by `until`, lasts `duration` and has `size` free processors
/// throughout. It then holds as well for any larger size and longer duration, and it
/// stays true while the profile only loses free processors before `until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NoWindow {
    size: u32,
    duration: Time,
    until: Time,
}

/// What the failures of one compression pass proved (all its queries share `from`), so
/// that each [`Profile::earlier_fit`] starts where the failure before it left off instead
/// of scanning again from the present: when jobs are visited roughly in the order of their
/// reserved starts, a pass then reads the profile about once instead of once a job. Only
/// the latest failure not covered by the one kept is kept: more cost more to consult than
/// they saved (docs/PERFORMANCE.md).
#[derive(Debug, Clone, Default)]
pub struct NoWindows {
    known: Option<NoWindow>,
}

impl NoWindows {
    /// Forgets everything (a new pass, or a new `from`).
    pub fn clear(&mut self) {
        self.known = None;
    }

    /// The latest time by which no window of `size` processors for `duration` is known
    /// to end ([`Time::MIN`] if none is known).
    pub fn by(&self, size: u32, duration: Time) -> Time {
        match self.known {
            Some(k) if k.size <= size && k.duration <= duration => k.until,
            _ => Time::MIN,
        }
    }

    /// Records that `earlier_fit` found no window of `size` processors for `duration`
    /// before `until`.
    pub fn add(&mut self, size: u32, duration: Time, until: Time) {
        let covered = self
            .known
            .is_some_and(|k| k.size <= size && k.duration <= duration && k.until >= until);
        if !covered {
            self.known = Some(NoWindow {
                size,
                duration,
                until,
            });
        }
    }

    /// The profile gained free processors from `t` on: what was known holds only before.
    pub fn gained_from(&mut self, t: Time) {
        if let Some(k) = &mut self.known {
            k.until = k.until.min(t);
        }
    }
}

/// Index of the step of `steps` that holds at `t` (`t` must not precede the first).
fn holding(steps: &[Step], t: Time) -> usize {
    // Queries are mostly about the current time, which the first step holds.
    if steps.get(1).is_none_or(|s| s.time > t) {
        return 0;
    }
    steps.partition_point(|s| s.time <= t) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_and_earliest_fit() {
        let mut p = Profile::new(10);
        p.advance(0);
        p.add(0, 100, -6); // a running job of 6 until 100
        p.add(0, 50, -4); // a running job of 4 until 50
        assert_eq!(p.free_at(0), 0);
        assert_eq!(p.free_at(50), 4);
        assert_eq!(p.free_at(100), 10);
        assert_eq!(p.earliest_fit(0, 4, 30), Some(50));
        assert_eq!(p.earliest_fit(0, 5, 30), Some(100));
        assert_eq!(p.earliest_fit(0, 4, 1_000), Some(50));
        assert_eq!(p.earliest_fit(0, 11, 1), None);
        // Reserve 4 processors over [50, 80): nothing is free then, so a 4-processor job
        // fits from 80 on.
        p.add(50, 80, -4);
        assert_eq!(p.earliest_fit(0, 4, 10), Some(80));
        assert_eq!(p.earliest_fit(0, 4, 30), Some(80));
        // Releasing the reservation merges the steps back.
        p.add(50, 80, 4);
        assert_eq!(p.step_count(), 4);
    }

    #[test]
    fn fit_needs_the_whole_window() {
        let mut p = Profile::new(8);
        p.advance(0);
        p.add(10, 20, -8); // nothing free in [10, 20)
        assert_eq!(p.earliest_fit(0, 1, 10), Some(0));
        assert_eq!(p.earliest_fit(0, 1, 11), Some(20));
        assert_eq!(p.earliest_fit(5, 1, 5), Some(5));
        assert_eq!(p.earliest_fit(5, 1, 6), Some(20));
    }

    #[test]
    fn advance_keeps_the_current_step() {
        let mut p = Profile::new(8);
        p.add(0, 10, -3);
        p.add(10, 20, -5);
        p.advance(15);
        assert_eq!(p.free_at(15), 3);
        assert_eq!(p.free_at(20), 8);
        assert_eq!(p.step_count(), 2);
    }

    #[test]
    fn earlier_fit_counts_the_jobs_own_processors() {
        let mut p = Profile::new(10);
        p.advance(0);
        p.add(0, 100, -6); // running: 6 processors until 100
        p.add(100, 150, -8); // the job itself, reserved over [100, 150) on 8 processors
        // Without its own processors it could not fit before 100 (only 4 free), and the
        // fit starting at 100 is its own slot, which is not earlier.
        assert_eq!(p.earlier_fit(0, 8, 50, (100, 150, 8), Time::MIN), None);
        // A shorter running job: 6 until 40 only.
        let mut q = Profile::new(10);
        q.advance(0);
        q.add(0, 40, -6);
        q.add(100, 150, -8);
        assert_eq!(q.earlier_fit(0, 8, 50, (100, 150, 8), Time::MIN), Some(40));
        // Its own processors make a window overlapping its slot feasible: 3 processors
        // needed over [60, 110) while [100, 150) holds only 2 free besides its own 8.
        assert_eq!(q.earlier_fit(60, 3, 50, (100, 150, 8), Time::MIN), Some(60));
        assert_eq!(q.earliest_fit(60, 3, 50), Some(150));
        // Agrees with taking the job out and asking again.
        q.add(100, 150, 8);
        assert_eq!(q.earliest_fit(60, 3, 50), Some(60));
    }

    /// Pseudo-random numbers below `n` (a linear congruential generator seeded `seed`).
    fn numbers(seed: u64) -> impl FnMut(i64) -> i64 {
        let mut state = seed;
        move |n| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as i64 % n
        }
    }

    #[test]
    fn earlier_fit_agrees_with_taking_the_job_out() {
        // Random profiles: a job reserved at its earliest fit, then other reservations
        // released, and the answer compared with releasing the job and asking again.
        let mut next = numbers(7);
        for _ in 0..500 {
            let mut p = Profile::new(16);
            p.advance(0);
            let mut slots = Vec::new();
            for _ in 0..next(12) + 1 {
                let (size, duration) = (next(16) as u32 + 1, next(40) + 1);
                let start = p.earliest_fit(next(20), size, duration).unwrap();
                p.add(start, start + duration, -i64::from(size));
                slots.push((start, duration, size));
            }
            let (size, duration) = (next(16) as u32 + 1, next(40) + 1);
            let own_start = p.earliest_fit(next(30), size, duration).unwrap();
            p.add(own_start, own_start + duration, -i64::from(size));
            for &(start, d, s) in slots.iter().filter(|_| next(2) == 0) {
                p.add(start, start + d, i64::from(s));
            }
            // Sometimes a dip below zero, as while a schedule is repaired.
            if next(4) == 0 {
                let start = next(own_start + duration + 10);
                p.add(start, start + next(30) + 1, -(next(20) + 1));
            }
            assert_eq!(
                p.negative,
                p.steps.iter().filter(|s| s.free < 0).count(),
                "{p:?}"
            );
            let from = next(own_start + 2);
            let own = (own_start, own_start + duration, size);
            let fast = p.earlier_fit(from, size, duration, own, Time::MIN);
            let mut q = p.clone();
            q.add(own_start, own_start + duration, i64::from(size));
            let slow = q
                .earliest_fit(from, size, duration)
                .filter(|&t| t < own_start);
            assert_eq!(fast, slow, "own {own:?} from {from} in {p:?}");
            p.advance(from);
            assert_eq!(p.negative, p.steps.iter().filter(|s| s.free < 0).count());
        }
    }

    #[test]
    fn what_is_known_changes_no_answer() {
        // Random profiles with a job's own slot; a window of a smaller or equal size and
        // duration that first ends at `y` proves that none ends before it, so any time
        // before `y` may be given as known, and the answer must not change.
        let mut next = numbers(11);
        let mut moved = 0;
        for _ in 0..3000 {
            let mut p = Profile::new(16);
            p.advance(0);
            for _ in 0..next(14) + 1 {
                let (size, duration) = (next(16) as u32 + 1, next(40) + 1);
                let start = p.earliest_fit(next(60), size, duration).unwrap();
                p.add(start, start + duration, -i64::from(size));
            }
            let (size, duration) = (next(16) as u32 + 1, next(40) + 1);
            let own_start = p.earliest_fit(next(80), size, duration).unwrap();
            p.add(own_start, own_start + duration, -i64::from(size));
            for _ in 0..next(4) {
                let (start, d, s) = (next(100), next(40) + 1, next(6) + 1);
                p.add(start, start + d, s);
            }
            let from = next(own_start + 2);
            let own = (own_start, own_start + duration, size);
            let plain = p.earlier_fit(from, size, duration, own, Time::MIN);
            let (s, d) = (next(i64::from(size)) as u32 + 1, next(duration) + 1);
            let first_end = p.earliest_fit(from, s, d).unwrap() + d;
            for known in [first_end - 1, from + next(first_end - from), Time::MIN] {
                let told = p.earlier_fit(from, size, duration, own, known);
                assert_eq!(
                    told, plain,
                    "known {known} own {own:?} from {from} in {p:?}"
                );
            }
            moved += usize::from(plain.is_some());
        }
        assert!(moved > 300, "too few cases where the job moves: {moved}");
    }

    #[test]
    fn no_windows_keep_the_latest_failure_not_covered() {
        let mut k = NoWindows::default();
        assert_eq!(k.by(4, 100), Time::MIN);
        k.add(4, 100, 50);
        assert_eq!(
            (k.by(4, 100), k.by(8, 200), k.by(3, 100)),
            (50, 50, Time::MIN)
        );
        // Covered by what is kept: nothing changes.
        k.add(8, 200, 40);
        assert_eq!(k.by(4, 100), 50);
        k.add(2, 10, 30);
        assert_eq!((k.by(3, 100), k.by(4, 100)), (30, 30));
        k.gained_from(25);
        assert_eq!(k.by(3, 100), 25);
        k.clear();
        assert_eq!(k.by(16, 1000), Time::MIN);
    }

    /// The plain definition of [`Profile::earliest_fit`], for the tests: the earliest of
    /// `from` and the step times after it at which every step overlapping the window has
    /// `size` free.
    fn reference_fit(p: &Profile, from: Time, size: u32, duration: Time) -> Option<Time> {
        let starts =
            std::iter::once(from).chain(p.steps.iter().map(|s| s.time).filter(|&t| t > from));
        let size = i64::from(size);
        let mut starts = starts;
        starts.find(|&t| {
            p.steps.iter().enumerate().all(|(i, s)| {
                let step_end = p.steps.get(i + 1).map_or(Time::MAX, |n| n.time);
                step_end <= t || s.time >= t + duration || s.free >= size
            })
        })
    }

    /// What a sequence of reservations, releases, dips below zero, advances and
    /// compressions leaves: the queries agree with [`reference_fit`] (earlier_fit with
    /// taking the job out first), the steps with the plain sum of the changes made (no
    /// two alike in a row), and the count of steps below zero stays exact.
    fn check_against_the_reference(ops: &[(u8, i64, i64, i64)]) {
        let mut p = Profile::new(16);
        p.advance(0);
        let mut now = 0;
        let mut slots: Vec<(Time, Time, u32)> = Vec::new();
        // Every change made, for the plain sum of them that the steps must equal.
        let mut changes: Vec<(Time, Time, i64)> = Vec::new();
        for &(op, a, b, c) in ops {
            match op % 5 {
                // A job reserved at its earliest fit.
                0 | 1 => {
                    // Now and then larger than the machine, which never fits.
                    let (size, duration) = (c as u32 % 18 + 1, b % 40 + 1);
                    let from = now + a % 30;
                    let fit = p.earliest_fit(from, size, duration);
                    assert_eq!(fit, reference_fit(&p, from, size, duration), "{p:?}");
                    if let Some(start) = fit {
                        p.reserve(start, start + duration, size);
                        slots.push((start, start + duration, size));
                        changes.push((start, start + duration, -i64::from(size)));
                    }
                }
                // A reservation released (a job ended early, or moved).
                2 if !slots.is_empty() => {
                    let (start, end, size) = slots.swap_remove(a as usize % slots.len());
                    p.add(start, end, i64::from(size));
                    changes.push((start, end, i64::from(size)));
                }
                // A dip below zero, as while a schedule is repaired after an overrun.
                3 => {
                    let (start, end, delta) =
                        (now + a % 60, now + a % 60 + b % 20 + 1, -(c % 20 + 1));
                    p.add(start, end, delta);
                    changes.push((start, end, delta));
                }
                // Compression: each reservation asks whether it could move earlier.
                _ => {
                    now += a % 10;
                    p.advance(now);
                    slots.retain(|&(_, end, _)| end > now);
                    for slot in &mut slots {
                        let (start, end, size) = *slot;
                        let own = (start, end, size);
                        let fast = p.earlier_fit(now, size, end - start, own, Time::MIN);
                        let mut q = p.clone();
                        q.add(start.max(now), end, i64::from(size));
                        let slow = reference_fit(&q, now, size, end - start).filter(|&t| t < start);
                        assert_eq!(fast, slow, "own {own:?} from {now} in {p:?}");
                        // The job moves there: in one operation, the same profile as
                        // releasing the old slot and reserving the new one.
                        if let Some(to) = fast {
                            let to_end = to + (end - start);
                            q.reserve(to, to_end, size);
                            p.move_earlier(own, to);
                            assert_eq!(p, q, "own {own:?} to {to}");
                            *slot = (to, to_end, size);
                            changes.push((to, to_end, -i64::from(size)));
                            changes.push((start, end, i64::from(size)));
                        }
                    }
                }
            }
            assert_eq!(
                p.negative,
                p.steps.iter().filter(|s| s.free < 0).count(),
                "{p:?}"
            );
            // The steps are the sum of the changes from now on (checked where it can
            // change), with no step equal to the one before it.
            changes.retain(|&(_, end, _)| end > now);
            let points = changes.iter().flat_map(|&(s, e, _)| [s, e]);
            for t in points.filter(|&t| t > now).chain([now]) {
                let plain = changes.iter().filter(|&&(s, e, _)| s <= t && t < e);
                let plain = 16 + plain.map(|&(_, _, d)| d).sum::<i64>();
                assert_eq!(p.free_at(t), plain, "at {t} in {p:?}");
            }
            assert!(
                p.steps
                    .windows(2)
                    .all(|w| w[0].time < w[1].time && w[0].free != w[1].free),
                "{p:?}"
            );
        }
    }

    proptest::proptest! {
        /// The queries agree with the plain definition on random sequences of changes.
        #[test]
        fn queries_agree_with_the_reference(
            ops in proptest::collection::vec((0u8..5, 0i64..100, 0i64..100, 0i64..100), 0..60)
        ) {
            check_against_the_reference(&ops);
        }
    }

    #[test]
    fn negative_dips_block_fits() {
        let mut p = Profile::new(4);
        p.advance(0);
        p.add(0, 10, -4);
        p.add(5, 10, -2);
        assert_eq!(p.free_at(5), -2);
        assert_eq!(p.earliest_fit(0, 1, 1), Some(10));
    }
}
