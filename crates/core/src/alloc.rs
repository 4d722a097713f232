//! Which processors each job held. The simulation counts processors, it does not name
//! them (a rigid job needs so many, not particular ones); so a job's processors are
//! chosen as a machine allocating them would, when its start is known: first-fit
//! contiguous, the lowest-numbered block of free processors large enough, and, when no
//! block is large enough (the free processors are scattered), the fewest blocks that
//! hold the job, largest first. Such jobs are counted ([`Allocator::scattered`]).
//!
//! The processors are a [`ProcSet`], written as Batsim and Evalys write an interval set
//! (`allocated_resources` of Batsim's `_jobs.csv`, procset's `ProcSet`): inclusive ranges
//! separated by spaces, a single processor alone, `0-3 8 10-11`.
//!
//! [`Allocator`] places jobs online, as a run starts and ends them (`jobs.csv`'s
//! `processors` column); [`place`] places a finished schedule's jobs after the fact (the
//! report of a `jobs.csv` without that column). Both grow the machine past its size
//! rather than fail when more processors are busy than it has: the `logged` policy runs
//! the log's own service on an unbounded machine.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use smallvec::SmallVec;

use crate::time::Time;

/// A set of processors: sorted, disjoint, non-adjacent inclusive ranges `(first, last)`.
///
/// Most jobs get one block and nearly all the rest two or three (KTH under EASY: 22,835
/// of 28,489 jobs one, 3,319 two, 1,387 three), so up to [`INLINE`] ranges are held in
/// place (smallvec): a heap allocation a job was a measurable part of what `jobs.csv`'s
/// `processors` column cost a replay (docs/PERFORMANCE.md, "SWF parsing and the writers").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcSet(SmallVec<[(u32, u32); INLINE]>);

/// Ranges a [`ProcSet`] holds in place: two, in the 24 bytes a heap pointer, length and
/// capacity take anyway.
const INLINE: usize = 2;

impl ProcSet {
    /// The processors `first` to `last` (inclusive, `first <= last`).
    pub fn block(first: u32, last: u32) -> Self {
        debug_assert!(first <= last, "{first}-{last}");
        ProcSet(SmallVec::from_buf_and_len([(first, last); INLINE], 1))
    }

    /// The set of the `(first, last)` inclusive ranges, in any order; overlapping or
    /// adjacent ranges merge.
    pub fn from_ranges(mut ranges: Vec<(u32, u32)>) -> Self {
        ranges.sort_unstable();
        let mut merged: SmallVec<[(u32, u32); INLINE]> = SmallVec::new();
        for (first, last) in ranges {
            match merged.last_mut() {
                Some((_, end)) if u64::from(first) <= u64::from(*end) + 1 => {
                    *end = (*end).max(last);
                }
                _ => merged.push((first, last)),
            }
        }
        ProcSet(merged)
    }

    /// Its inclusive ranges `(first, last)`, in order.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.0
    }

    /// Processors in the set.
    pub fn len(&self) -> u64 {
        self.0
            .iter()
            .map(|&(f, l)| u64::from(l) - u64::from(f) + 1)
            .sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the set is one block of processors (or empty).
    pub fn is_contiguous(&self) -> bool {
        self.0.len() <= 1
    }
}

impl fmt::Display for ProcSet {
    /// Batsim's interval set: `0-3 8 10-11`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, &(first, last)) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            if first == last {
                write!(f, "{first}")?;
            } else {
                write!(f, "{first}-{last}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for ProcSet {
    type Err = String;

    /// Reads an interval set: ranges `A-B` (A <= B) and single processors `A`, separated
    /// by spaces, in any order; ranges that overlap are an error (no processor is held
    /// twice), adjacent ones merge. The empty string is the empty set.
    fn from_str(text: &str) -> Result<Self, String> {
        let number = |s: &str| -> Result<u32, String> {
            s.parse::<u32>().map_err(|_| {
                format!(
                    "'{s}' in '{text}' is not a processor number (0 to {})",
                    u32::MAX
                )
            })
        };
        let mut ranges = Vec::new();
        for token in text.split_ascii_whitespace() {
            let (first, last) = match token.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => {
                    let p = number(token)?;
                    (p, p)
                }
            };
            if first > last {
                return Err(format!(
                    "'{token}' in '{text}' is not an interval: {first} > {last}"
                ));
            }
            ranges.push((first, last));
        }
        ranges.sort_unstable();
        if let Some(w) = ranges.windows(2).find(|w| w[1].0 <= w[0].1) {
            return Err(format!(
                "'{text}' holds processor {} twice (in {}-{} and {}-{})",
                w[1].0, w[0].0, w[0].1, w[1].0, w[1].1
            ));
        }
        Ok(ProcSet::from_ranges(ranges))
    }
}

/// The free processors of a machine of `procs`, handed out and given back as jobs start
/// and end.
#[derive(Debug, Clone)]
pub struct Allocator {
    /// Free blocks `(first, count)`, in order, never adjacent: a short list (at most one
    /// more than the jobs running), scanned faster than a tree.
    free: Vec<(u32, u32)>,
    /// Processors the machine has: `procs`, or more once it grew.
    top: u32,
    /// Jobs given more than one block.
    scattered: u64,
    /// Whether the machine has no bound: a job that no free block holds gets a new one
    /// past its end.
    unbounded: bool,
}

impl Allocator {
    /// A machine of `procs` processors, all free.
    pub fn new(procs: u32) -> Self {
        Allocator {
            free: if procs > 0 {
                vec![(0, procs)]
            } else {
                Vec::new()
            },
            top: procs,
            scattered: 0,
            unbounded: false,
        }
    }

    /// A machine without bound, empty at first: a job that no free block holds gets a
    /// new block past its end, so that every job is one block (the jobs waiting of the
    /// schedule view, stacked under the machine).
    pub fn unbounded() -> Self {
        Allocator {
            unbounded: true,
            ..Allocator::new(0)
        }
    }

    /// Takes `size` processors for a job: the lowest block of free processors that holds
    /// it, else the fewest blocks that do (the largest, the lowest first among equals;
    /// the job is counted as scattered), else a new block past the machine's end.
    pub fn take(&mut self, size: u32) -> ProcSet {
        if size == 0 {
            return ProcSet::default();
        }
        if let Some(k) = self.free.iter().position(|&(_, count)| count >= size) {
            let first = self.free[k].0;
            self.use_block(k, size);
            return ProcSet::block(first, first + size - 1);
        }
        let free: u64 = self.free.iter().map(|&(_, c)| u64::from(c)).sum();
        if free < u64::from(size) || self.unbounded {
            // More busy processors than the machine has: a block past its end.
            let first = self.top;
            self.top = self.top.saturating_add(size);
            return ProcSet::block(first, self.top - 1);
        }
        // The largest block left, the lowest first among equals, until the job is held:
        // a few blocks of a short list, found by a scan each (no sorted copy).
        let mut need = size;
        let mut got = SmallVec::new();
        while need > 0 {
            let mut k = 0;
            for (i, &(_, count)) in self.free.iter().enumerate().skip(1) {
                if count > self.free[k].1 {
                    k = i;
                }
            }
            let (first, count) = self.free[k];
            let take = count.min(need);
            self.use_block(k, take);
            got.push((first, first + take - 1));
            need -= take;
        }
        self.scattered += 1;
        // Parts of free blocks, which are never adjacent: sorted, they are the set.
        got.sort_unstable();
        ProcSet(got)
    }

    /// Takes the first `take` processors of free block `k`.
    fn use_block(&mut self, k: usize, take: u32) {
        let (first, count) = self.free[k];
        if count > take {
            self.free[k] = (first + take, count - take);
        } else {
            self.free.remove(k);
        }
    }

    /// Gives back a job's processors.
    pub fn give_back(&mut self, set: &ProcSet) {
        for &(first, last) in set.ranges() {
            let count = last - first + 1;
            let k = self.free.partition_point(|b| b.0 < first);
            let joins_before = k > 0 && {
                let (f, c) = self.free[k - 1];
                f + c == first
            };
            let joins_after = k < self.free.len() && first + count == self.free[k].0;
            match (joins_before, joins_after) {
                (true, true) => {
                    self.free[k - 1].1 += count + self.free[k].1;
                    self.free.remove(k);
                }
                (true, false) => self.free[k - 1].1 += count,
                (false, true) => self.free[k] = (first, count + self.free[k].1),
                (false, false) => self.free.insert(k, (first, count)),
            }
        }
    }

    /// Jobs that were given more than one block of processors.
    pub fn scattered(&self) -> u64 {
        self.scattered
    }
}

/// Places the jobs `(start, end, size)` of a finished schedule on `machine`: in order of
/// start (jobs that end at a time before those that start at it; equal starts in the
/// order given), each as [`Allocator::take`] does. Returns each job's processors, in the
/// order given, and how many jobs were scattered.
pub fn place(jobs: &[(Time, Time, u32)], mut machine: Allocator) -> (Vec<ProcSet>, u64) {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (jobs[i].0, i));
    let mut running: BTreeMap<(Time, usize), ()> = BTreeMap::new();
    let mut placed = vec![ProcSet::default(); jobs.len()];
    for i in order {
        let (start, end, size) = jobs[i];
        while let Some((&(t, j), _)) = running.first_key_value()
            && t <= start
        {
            running.pop_first();
            machine.give_back(&placed[j]);
        }
        placed[i] = machine.take(size);
        running.insert((end.max(start), i), ());
    }
    (placed, machine.scattered())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn set(text: &str) -> ProcSet {
        text.parse().unwrap()
    }

    #[test]
    fn interval_sets_are_written_and_read_as_batsim_does() {
        let s = ProcSet::from_ranges(vec![(10, 11), (0, 3), (8, 8)]);
        assert_eq!(s.to_string(), "0-3 8 10-11");
        assert_eq!(s.len(), 7);
        assert_eq!(set("0-3 8 10-11"), s);
        // Any order, single numbers, adjacent ranges merged, extra spaces.
        assert_eq!(set(" 10-11  8 0 1-3 "), s);
        assert_eq!(set("4 5 6").ranges(), [(4, 6)]);
        assert_eq!(set(""), ProcSet::default());
        for (bad, says) in [
            ("0-x", "'x' in '0-x' is not a processor number"),
            ("5-2", "'5-2' in '5-2' is not an interval: 5 > 2"),
            ("-1", "'' in '-1' is not a processor number"),
            ("0-3 2", "holds processor 2 twice"),
            ("0,1", "'0,1' in '0,1' is not a processor number"),
        ] {
            let e = bad.parse::<ProcSet>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn first_fit_takes_the_lowest_block_that_holds_the_job() {
        let mut m = Allocator::new(10);
        let a = m.take(3);
        let b = m.take(2);
        let c = m.take(4);
        assert_eq!(
            (a.to_string(), b.to_string(), c.to_string()),
            ("0-2".into(), "3-4".into(), "5-8".into())
        );
        m.give_back(&a);
        // Free: 0-2 and 9. A job of 1 takes the lowest block, 0.
        assert_eq!(m.take(1).to_string(), "0");
        // A job of 2 takes 1-2, the first block that holds it.
        assert_eq!(m.take(2).to_string(), "1-2");
        assert_eq!(m.scattered(), 0);
    }

    #[test]
    fn scattered_free_processors_give_the_fewest_blocks() {
        // 12 processors: busy 2-3, 6, 9; free 0-1, 4-5, 7-8, 10-11 (four blocks of 2).
        let mut m = Allocator::new(12);
        let all = m.take(12);
        m.give_back(&all);
        let busy = [
            m.take(2),
            m.take(2),
            m.take(2),
            m.take(1),
            m.take(2),
            m.take(1),
            m.take(2),
        ];
        for k in [0, 2, 4, 6] {
            m.give_back(&busy[k]);
        }
        // Free now: 0-1, 4-5, 7-8, 10-11. Five processors need three blocks: the
        // largest first (all of size 2), the lowest first among equals.
        let s = m.take(5);
        assert_eq!(s.to_string(), "0-1 4-5 7");
        assert_eq!(s.len(), 5);
        assert_eq!(m.scattered(), 1);
        // Blocks of 3, 3 and 1: a job of 4 takes two blocks, not the single processor.
        let mut m = Allocator::new(10);
        let x = [
            m.take(1),
            m.take(1),
            m.take(1),
            m.take(3),
            m.take(1),
            m.take(3),
        ];
        m.give_back(&x[0]);
        m.give_back(&x[3]);
        m.give_back(&x[5]);
        // Free: 0, 3-5, 7-9: the two blocks of 3, the lower one whole.
        assert_eq!(m.take(4).to_string(), "3-5 7");
    }

    #[test]
    fn a_machine_too_small_grows_past_its_end() {
        let mut m = Allocator::new(4);
        assert_eq!(m.take(3).to_string(), "0-2");
        assert_eq!(m.take(2).to_string(), "4-5");
        assert_eq!(m.take(1).to_string(), "3");
        assert_eq!(m.take(0), ProcSet::default());
    }

    #[test]
    fn a_finished_schedule_is_placed_in_order_of_start() {
        // 4 processors: a (0-10, 2) and b (0-5, 1) take 0-1 and 2; c (5-20, 2) starts
        // when b ends: free 2-3, it takes them; d (10-12, 3) when a ends: free 0-1, too
        // few, so one block past the machine's end.
        let jobs = [(0, 10, 2), (0, 5, 1), (5, 20, 2), (10, 12, 3)];
        let (placed, scattered) = place(&jobs, Allocator::new(4));
        let text: Vec<String> = placed.iter().map(|s| s.to_string()).collect();
        assert_eq!(text, ["0-1", "2", "2-3", "4-6"]);
        assert_eq!(scattered, 0);
        // Released blocks merge: after the first two end, 0-3 is one block again.
        let (placed, _) = place(&[(0, 5, 2), (0, 5, 2), (5, 9, 4)], Allocator::new(4));
        assert_eq!(placed[2].to_string(), "0-3");
        // Unbounded, a job no free block holds gets a new one: free 0 and 3 after the
        // first and third end, the fourth job of 2 goes past the end, one block.
        let jobs = [(0, 5, 1), (0, 9, 2), (0, 5, 1), (6, 9, 2)];
        let (placed, scattered) = place(&jobs, Allocator::unbounded());
        let text: Vec<String> = placed.iter().map(|s| s.to_string()).collect();
        assert_eq!(text, ["0", "1-2", "3", "4-5"]);
        assert_eq!(scattered, 0);
    }

    /// A valid schedule: jobs `(start, end, size)` on `procs` processors, never more
    /// busy than the machine has (ends at a time free their processors for starts then).
    fn schedule() -> impl Strategy<Value = (u32, Vec<(Time, Time, u32)>)> {
        (1u32..40)
            .prop_flat_map(|procs| {
                let job = (0i64..200, 0i64..60, 1u32..=procs);
                (Just(procs), prop::collection::vec(job, 0..80))
            })
            .prop_map(|(procs, wanted)| {
                let mut wanted = wanted;
                wanted.sort_by_key(|j| j.0);
                let mut kept: Vec<(Time, Time, u32)> = Vec::new();
                for (start, length, size) in wanted {
                    let busy: u32 = kept
                        .iter()
                        .filter(|&&(s, e, _)| s <= start && e > start)
                        .map(|j| j.2)
                        .sum();
                    if busy + size <= procs {
                        kept.push((start, start + length, size));
                    }
                }
                (procs, kept)
            })
    }

    proptest! {
        #[test]
        fn placements_hold_each_job_on_its_own_processors((procs, jobs) in schedule()) {
            let (placed, scattered) = place(&jobs, Allocator::new(procs));
            prop_assert_eq!(placed.len(), jobs.len());
            for (set, &(_, _, size)) in placed.iter().zip(&jobs) {
                // Exactly its size, inside the machine, as text and back.
                prop_assert_eq!(set.len(), u64::from(size));
                prop_assert!(set.ranges().iter().all(|&(_, last)| last < procs));
                prop_assert_eq!(&set.to_string().parse::<ProcSet>().unwrap(), set);
            }
            prop_assert_eq!(
                scattered,
                placed.iter().filter(|s| !s.is_contiguous()).count() as u64
            );
            // No processor held by two jobs at once ([start, end) spans that overlap).
            for i in 0..jobs.len() {
                for j in i + 1..jobs.len() {
                    let (a, b) = (jobs[i], jobs[j]);
                    if a.0 < b.1 && b.0 < a.1 {
                        for &(f, l) in placed[i].ranges() {
                            for &(g, m) in placed[j].ranges() {
                                prop_assert!(l < g || m < f, "jobs {} and {} share processors", i, j);
                            }
                        }
                    }
                }
            }
        }
    }
}
