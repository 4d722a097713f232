//! Indexes of EASY's backfilling candidates, so that a pass costs about the same with a
//! million waiting jobs as with a thousand (DESIGN.md, "Where performance comes from":
//! with a long queue, find backfill candidates through an index by size and estimate,
//! not a scan).
//!
//! EASY backfills a waiting job if it fits in the free processors and either ends by the
//! shadow time or fits in the extra processors ([`Fit`]). Both only shrink as a pass
//! starts jobs, so a job that fails the test once fails it for the rest of the pass: the
//! jobs a scan of the queue backfills are, one after the other, the first job in the
//! scan's order that passes the test at that point. The indexes find that job without
//! testing the ones before it:
//!
//! * [`ByArrival`], for EASY's queue order, keeps the jobs in blocks of [`BLOCK`] in
//!   arrival order under a segment tree; each node holds the lower staircase of its jobs'
//!   `(processors, plan)` ([`Stair`]), which tells whether any of them may pass.
//! * [`ByPlan`], for SJBF's order (ascending plan, ties by submission), keeps each size's
//!   jobs sorted under a segment tree over sizes that holds the least `(plan, submission)`
//!   of the sizes below each node. In that order the jobs that end by the shadow time come
//!   first, so a pass takes the least job of the sizes that fit while it ends by the
//!   shadow time, then the least of the sizes within the extra processors.
//!
//! A search or an update costs O(log n) (`ByPlan`: O(log n + log P), P the largest size
//! seen; `ByArrival`: a staircase cut at [`STEPS`] steps may send a search down to a block
//! in vain), where the scan cost O(n) per pass; docs/PERFORMANCE.md, "Saturation at
//! scale", has the figures.

use std::collections::BTreeMap;

use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// EASY's backfilling test at one point of a pass: a job of `size` processors and `plan`
/// seconds may start if `size <= free` and either `plan <= by_shadow` (it ends by the
/// shadow time) or `size <= room` (the extra processors, at most `free`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Fit {
    /// Processors free now.
    pub(super) free: u32,
    /// Extra processors that may still be taken past the shadow time, at most `free`.
    pub(super) room: u32,
    /// The shadow time less now: the longest plan that ends by it.
    pub(super) by_shadow: Time,
}

impl Fit {
    /// Whether a job of `size` processors and `plan` seconds passes.
    #[inline]
    pub(super) fn admits(&self, size: u32, plan: Time) -> bool {
        size <= self.free && (plan <= self.by_shadow || size <= self.room)
    }

    /// Whether a job of one of the steps of `stair` could pass: never false when one of the
    /// jobs the stair stands for passes.
    #[inline]
    fn may_admit(&self, stair: &Stair) -> bool {
        let n = stair.len as usize;
        n > 0
            && (stair.size[0] <= self.room
                || (0..n).any(|i| {
                    stair.size[i] <= self.free && Time::from(stair.plan[i]) <= self.by_shadow
                }))
    }
}

/// Steps a [`Stair`] keeps.
const STEPS: usize = 8;

/// The lower staircase of a set of jobs' `(processors, plan)`: the jobs no other job of
/// the set beats on both (by size ascending, plan descending), at most [`STEPS`] of them.
/// Beyond that the last step takes the size of the `STEPS`-th and the least plan of all,
/// so that every job of the set has a step no larger and no longer: a test that some job
/// passes then passes on some step (a search may look in vain, but never misses a job).
/// Plans are kept in 32 bits, the longer ones cut to `u32::MAX` (shorter: still no
/// longer than the job).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stair {
    len: u32,
    size: [u32; STEPS],
    plan: [u32; STEPS],
}

impl Stair {
    const EMPTY: Stair = Stair {
        len: 0,
        size: [0; STEPS],
        plan: [0; STEPS],
    };

    /// Appends a step after the others (larger and shorter), or lowers the last one's plan
    /// when all are taken.
    fn push(&mut self, size: u32, plan: u32) {
        let n = self.len as usize;
        if n < STEPS {
            self.size[n] = size;
            self.plan[n] = plan;
            self.len += 1;
        } else {
            self.plan[STEPS - 1] = plan;
        }
    }

    /// The staircase of the union of the sets `a` and `b` stand for.
    fn merge(a: &Stair, b: &Stair) -> Stair {
        let (na, nb) = (a.len as usize, b.len as usize);
        let (mut i, mut j) = (0, 0);
        let mut out = Stair::EMPTY;
        while i < na || j < nb {
            let from_a = j == nb || (i < na && (a.size[i], a.plan[i]) <= (b.size[j], b.plan[j]));
            let (size, plan) = if from_a {
                i += 1;
                (a.size[i - 1], a.plan[i - 1])
            } else {
                j += 1;
                (b.size[j - 1], b.plan[j - 1])
            };
            if out.len == 0 || plan < out.plan[out.len as usize - 1] {
                out.push(size, plan);
            }
        }
        out
    }

    /// This staircase with one job more.
    fn with(&self, size: u32, plan: Time) -> Stair {
        let mut one = Stair::EMPTY;
        one.push(size, short(plan));
        Stair::merge(self, &one)
    }

    /// The staircase of `jobs` (at most a block of them).
    fn of<'a>(jobs: impl Iterator<Item = &'a Candidate>) -> Stair {
        let mut steps = [(0, 0); BLOCK];
        let mut n = 0;
        for job in jobs {
            steps[n] = (job.size, short(job.plan));
            n += 1;
        }
        let steps = &mut steps[..n];
        steps.sort_unstable();
        let mut out = Stair::EMPTY;
        for &(size, plan) in steps.iter() {
            if out.len == 0 || plan < out.plan[out.len as usize - 1] {
                out.push(size, plan);
            }
        }
        out
    }
}

/// A plan in 32 bits, cut to `u32::MAX`.
fn short(plan: Time) -> u32 {
    u32::try_from(plan.max(0)).unwrap_or(u32::MAX)
}

/// A waiting job as the indexes keep it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Candidate {
    /// The job.
    pub(super) id: JobId,
    /// Its submission number.
    pub(super) seq: u64,
    /// Processors; 0 in an empty place of [`ByArrival`].
    pub(super) size: u32,
    /// Its plan.
    pub(super) plan: Time,
}

impl Candidate {
    /// `job` as the indexes keep it.
    pub(super) fn of(job: &JobRequest) -> Self {
        Candidate {
            id: job.id,
            seq: job.seq,
            size: job.size,
            plan: job.plan,
        }
    }
}

/// Places in a block of [`ByArrival`]: a leaf of its tree.
const BLOCK: usize = 32;

/// No place: a job not in [`ByArrival`].
const NOWHERE: u32 = u32::MAX;

/// Waiting jobs in arrival order (EASY's queue order), for the first one after a place
/// that passes a [`Fit`].
///
/// Jobs take places in arrival order; a job that leaves empties its place. Places come in
/// blocks of [`BLOCK`] under a segment tree of [`Stair`]s: a search tests the rest of its
/// block, then descends the tree to the first block whose staircase may pass. When the
/// places run out, the jobs are moved to the front of a table with room for as many again,
/// so a move costs O(1) per arrival, amortized.
#[derive(Debug, Clone)]
pub(super) struct ByArrival {
    places: Vec<Candidate>,
    /// The first place with a job, or `places.len()`.
    first: usize,
    /// Jobs held.
    len: usize,
    /// Each job's place, by id.
    at: Vec<u32>,
    /// The segment tree: the root at 1, block `b` at `leaves + b`.
    tree: Vec<Stair>,
    /// Blocks the tree has room for, a power of two.
    leaves: usize,
}

impl Default for ByArrival {
    fn default() -> Self {
        ByArrival {
            places: Vec::new(),
            first: 0,
            len: 0,
            at: Vec::new(),
            tree: vec![Stair::EMPTY; 2],
            leaves: 1,
        }
    }
}

impl ByArrival {
    /// Jobs held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds `job` after every job held.
    pub(super) fn push(&mut self, job: &JobRequest) {
        if self.places.len() == self.leaves * BLOCK {
            self.rebuild();
        }
        let place = self.places.len();
        self.places.push(Candidate::of(job));
        self.len += 1;
        let id = job.id as usize;
        if self.at.len() <= id {
            self.at.resize(id + 1, NOWHERE);
        }
        debug_assert_eq!(self.at[id], NOWHERE, "job {} added twice", job.seq);
        self.at[id] = place as u32;
        // A job no node below took changes no node above.
        let mut node = self.leaves + place / BLOCK;
        while node >= 1 {
            let stair = self.tree[node].with(job.size, job.plan);
            if stair == self.tree[node] {
                break;
            }
            self.tree[node] = stair;
            node /= 2;
        }
    }

    /// The first job's place.
    pub(super) fn first(&self) -> Option<usize> {
        (self.first < self.places.len()).then_some(self.first)
    }

    /// The job at `place`.
    pub(super) fn get(&self, place: usize) -> Candidate {
        self.places[place]
    }

    /// Removes the job at `place`.
    pub(super) fn remove_at(&mut self, place: usize) {
        let job = &mut self.places[place];
        debug_assert!(job.size != 0, "place {place} is empty");
        self.at[job.id as usize] = NOWHERE;
        job.size = 0;
        self.len -= 1;
        while self.first < self.places.len() && self.places[self.first].size == 0 {
            self.first += 1;
        }
        self.refresh(place / BLOCK);
    }

    /// Removes job `id` if held.
    pub(super) fn remove(&mut self, id: JobId) {
        if let Some(place) = self.place_of(id) {
            self.remove_at(place);
        }
    }

    /// Job `id`'s plan is now `plan`; its place stays.
    pub(super) fn replan(&mut self, id: JobId, plan: Time) {
        if let Some(place) = self.place_of(id) {
            self.places[place].plan = plan;
            self.refresh(place / BLOCK);
        }
    }

    fn place_of(&self, id: JobId) -> Option<usize> {
        self.at
            .get(id as usize)
            .filter(|&&p| p != NOWHERE)
            .map(|&p| p as usize)
    }

    /// The first job at `from` or after that passes `fit`.
    pub(super) fn next(&self, from: usize, fit: &Fit) -> Option<usize> {
        let mut block = from / BLOCK;
        let mut start = from;
        loop {
            let end = ((block + 1) * BLOCK).min(self.places.len());
            let found = (start..end).find(|&p| {
                let job = &self.places[p];
                job.size != 0 && fit.admits(job.size, job.plan)
            });
            if found.is_some() {
                return found;
            }
            // A block whose staircase may pass, but none of whose jobs after `start`
            // does, sends the search on after it.
            block = self.next_block(1, 0, self.leaves, block + 1, fit)?;
            start = block * BLOCK;
        }
    }

    /// The first block from `from` on, within the range `lo..hi` of `node`, whose
    /// staircase may pass `fit`.
    fn next_block(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        from: usize,
        fit: &Fit,
    ) -> Option<usize> {
        if hi <= from || !fit.may_admit(&self.tree[node]) {
            return None;
        }
        if node >= self.leaves {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        self.next_block(2 * node, lo, mid, from, fit)
            .or_else(|| self.next_block(2 * node + 1, mid, hi, from, fit))
    }

    /// Recomputes the staircase of `block` and of the nodes above it, up to the first
    /// that does not change (the nodes above it are functions of it).
    fn refresh(&mut self, block: usize) {
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.places.len());
        let mut node = self.leaves + block;
        let mut stair = Stair::of(self.places[start..end].iter().filter(|j| j.size != 0));
        while stair != self.tree[node] {
            self.tree[node] = stair;
            if node == 1 {
                break;
            }
            node /= 2;
            stair = Stair::merge(&self.tree[2 * node], &self.tree[2 * node + 1]);
        }
    }

    /// Moves the jobs to the front of a table with room for as many again (and a block),
    /// and rebuilds the tree.
    fn rebuild(&mut self) {
        let mut kept = 0;
        for p in self.first..self.places.len() {
            let job = self.places[p];
            if job.size != 0 {
                self.at[job.id as usize] = kept as u32;
                self.places[kept] = job;
                kept += 1;
            }
        }
        self.places.truncate(kept);
        self.first = 0;
        self.leaves = (2 * kept + 1).div_ceil(BLOCK).next_power_of_two();
        self.tree.clear();
        self.tree.resize(2 * self.leaves, Stair::EMPTY);
        for (block, jobs) in self.places.chunks(BLOCK).enumerate() {
            self.tree[self.leaves + block] = Stair::of(jobs.iter());
        }
        for node in (1..self.leaves).rev() {
            self.tree[node] = Stair::merge(&self.tree[2 * node], &self.tree[2 * node + 1]);
        }
    }
}

/// No job: the key of an empty node of [`ByPlan`]'s tree.
const NO_KEY: (Time, u64, u32) = (Time::MAX, u64::MAX, 0);

/// The most leaves of [`ByPlan`]'s tree: past 65,536 processors, a leaf stands for a
/// bucket of sizes, so that the tree takes at most 3 MB whatever the machine (a log may
/// ask for billions of processors).
const MAX_LEAVES: usize = 1 << 16;

/// Waiting jobs in SJBF's order (ascending plan, ties by submission), for the least one
/// of the jobs of at most a given size.
///
/// Each size's jobs are kept sorted; a segment tree over sizes holds, at each node, the
/// least `(plan, submission, size)` of the sizes below it. It grows to the largest size
/// seen, up to [`MAX_LEAVES`] leaves; beyond, each leaf holds a bucket of `2^shift`
/// sizes, and a search looks at the sizes present in its last bucket one by one.
#[derive(Debug, Clone)]
pub(super) struct ByPlan {
    /// Each size's jobs, by `(plan, submission)`, the sizes in order.
    sizes: BTreeMap<u32, BTreeMap<(Time, u64), JobId>>,
    /// Jobs held.
    len: usize,
    /// The segment tree: the root at 1, the bucket of size `s` at `leaves + (s >> shift)`.
    tree: Vec<(Time, u64, u32)>,
    /// Buckets the tree has room for, a power of two.
    leaves: usize,
    /// Sizes per bucket, as a power of two: 0 (a size per leaf) up to 65,536 processors.
    shift: u32,
}

impl Default for ByPlan {
    fn default() -> Self {
        ByPlan {
            sizes: BTreeMap::new(),
            len: 0,
            tree: vec![NO_KEY; 2],
            leaves: 1,
            shift: 0,
        }
    }
}

impl ByPlan {
    /// Jobs held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds `job`.
    pub(super) fn insert(&mut self, job: &JobRequest) {
        let bucket = (job.size >> self.shift) as usize;
        if bucket >= self.leaves {
            self.grow(job.size);
        }
        self.sizes
            .entry(job.size)
            .or_default()
            .insert((job.plan, job.seq), job.id);
        self.len += 1;
        self.update(job.size);
    }

    /// Makes room in the tree for `size`, and rebuilds it.
    fn grow(&mut self, size: u32) {
        while (size >> self.shift) as usize >= MAX_LEAVES {
            self.shift += 1;
        }
        self.leaves = ((size >> self.shift) as usize + 1)
            .next_power_of_two()
            .min(MAX_LEAVES);
        self.tree.clear();
        self.tree.resize(2 * self.leaves, NO_KEY);
        for (&s, jobs) in &self.sizes {
            if let Some((&(plan, seq), _)) = jobs.first_key_value() {
                let leaf = &mut self.tree[self.leaves + (s >> self.shift) as usize];
                *leaf = (*leaf).min((plan, seq, s));
            }
        }
        for node in (1..self.leaves).rev() {
            self.tree[node] = self.tree[2 * node].min(self.tree[2 * node + 1]);
        }
    }

    /// Removes the job of `size` processors, plan `plan` and submission number `seq`;
    /// returns whether it was held.
    pub(super) fn remove(&mut self, size: u32, plan: Time, seq: u64) -> bool {
        let Some(jobs) = self.sizes.get_mut(&size) else {
            return false;
        };
        let held = jobs.remove(&(plan, seq)).is_some();
        if jobs.is_empty() {
            self.sizes.remove(&size);
        }
        if held {
            self.len -= 1;
            self.update(size);
        }
        held
    }

    /// The least job of the sizes from `lo` to `hi` (inclusive), looked at one by one.
    fn least_of(&self, lo: u32, hi: u32) -> (Time, u64, u32) {
        self.sizes
            .range(lo..=hi)
            .filter_map(|(&s, jobs)| jobs.first_key_value().map(|(&(p, q), _)| (p, q, s)))
            .min()
            .unwrap_or(NO_KEY)
    }

    /// The sizes of bucket `bucket`.
    fn bucket(&self, bucket: usize) -> (u32, u32) {
        let lo = (bucket as u64) << self.shift;
        let hi = ((bucket as u64 + 1) << self.shift) - 1;
        (lo as u32, hi.min(u64::from(u32::MAX)) as u32)
    }

    /// Sets the tree's leaf of `size` and the nodes above it.
    fn update(&mut self, size: u32) {
        let bucket = (size >> self.shift) as usize;
        let (lo, hi) = self.bucket(bucket);
        let mut node = self.leaves + bucket;
        self.tree[node] = self.least_of(lo, hi);
        while node > 1 {
            node /= 2;
            self.tree[node] = self.tree[2 * node].min(self.tree[2 * node + 1]);
        }
    }

    /// The first job in SJBF's order among those of at most `size` processors.
    pub(super) fn least_up_to(&self, size: u32) -> Option<Candidate> {
        // The whole buckets below `size`'s from the tree, then the sizes of its own.
        let last = (size >> self.shift) as usize;
        let (whole, mut least) = if last >= self.leaves {
            (self.leaves, NO_KEY)
        } else {
            (last, self.least_of(self.bucket(last).0, size))
        };
        let (mut lo, mut hi) = (self.leaves, self.leaves + whole);
        while lo < hi {
            if lo & 1 == 1 {
                least = least.min(self.tree[lo]);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                least = least.min(self.tree[hi]);
            }
            lo /= 2;
            hi /= 2;
        }
        let (plan, seq, size) = least;
        (least != NO_KEY).then(|| Candidate {
            id: self.sizes[&size][&(plan, seq)],
            seq,
            size,
            plan,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small linear congruential generator, for reproducible cases.
    struct Draws(u64);

    impl Draws {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }

        /// A job's size and plan: any, or larger with a shorter plan (long staircases).
        fn job(&mut self) -> (u32, Time) {
            let size = 1 + self.below(64) as u32;
            if self.below(2) == 0 {
                (size, 1 + self.below(1000) as Time)
            } else {
                (size, 700 - 10 * Time::from(size) + self.below(20) as Time)
            }
        }

        fn fit(&mut self) -> Fit {
            let free = self.below(70) as u32;
            Fit {
                free,
                room: self.below(u64::from(free) + 1) as u32,
                by_shadow: self.below(1000) as Time,
            }
        }
    }

    fn request(id: JobId, seq: u64, (size, plan): (u32, Time)) -> JobRequest {
        JobRequest {
            id,
            ..JobRequest::submitted(seq, 0, size, plan, 0)
        }
    }

    /// A staircase never refuses a test one of its jobs passes, and decides exactly while
    /// the jobs' staircase has no more than `STEPS` steps.
    #[test]
    fn a_staircase_passes_every_test_one_of_its_jobs_passes() {
        let mut d = Draws(3);
        for _ in 0..2000 {
            let n = 1 + d.below(BLOCK as u64) as usize;
            let jobs: Vec<Candidate> = (0..n)
                .map(|i| Candidate::of(&request(i as JobId, i as u64, d.job())))
                .collect();
            let built = jobs
                .iter()
                .fold(Stair::EMPTY, |s, j| s.with(j.size, j.plan));
            let sorted = Stair::of(jobs.iter());
            let halves = Stair::merge(
                &Stair::of(jobs[..n / 2].iter()),
                &Stair::of(jobs[n / 2..].iter()),
            );
            let exact = jobs
                .iter()
                .filter(|j| {
                    !jobs
                        .iter()
                        .any(|k| (k.size, k.plan) < (j.size, j.plan) && k.plan <= j.plan)
                })
                .count()
                <= STEPS;
            for _ in 0..20 {
                let fit = d.fit();
                let any = jobs.iter().any(|j| fit.admits(j.size, j.plan));
                for stair in [&built, &sorted, &halves] {
                    assert!(!any || fit.may_admit(stair), "{stair:?} {fit:?} {jobs:?}");
                    if exact {
                        assert_eq!(any, fit.may_admit(stair), "{stair:?} {fit:?}");
                    }
                }
            }
        }
    }

    /// Through arrivals, removals from anywhere, replans and rebuilds, the first job at or
    /// after a place that passes a test is the one a scan of the jobs in arrival order
    /// finds.
    #[test]
    fn by_arrival_finds_what_a_scan_finds() {
        let mut d = Draws(5);
        let mut index = ByArrival::default();
        // The jobs in arrival order: (id, size, plan).
        let mut jobs: Vec<(JobId, u32, Time)> = Vec::new();
        let mut free_ids: Vec<JobId> = Vec::new();
        let mut next_id = 0;
        for seq in 0..20_000u64 {
            match d.below(10) {
                0..=4 => {
                    let id = free_ids.pop().unwrap_or_else(|| {
                        next_id += 1;
                        next_id - 1
                    });
                    let job = request(id, seq, d.job());
                    index.push(&job);
                    jobs.push((id, job.size, job.plan));
                }
                5 | 6 if !jobs.is_empty() => {
                    let (id, _, _) = jobs.remove(d.below(jobs.len() as u64) as usize);
                    index.remove(id);
                    free_ids.push(id);
                }
                7 if !jobs.is_empty() => {
                    let i = d.below(jobs.len() as u64) as usize;
                    jobs[i].2 = d.job().1;
                    index.replan(jobs[i].0, jobs[i].2);
                }
                _ => {
                    // A pass: from the first job, each found job's place on.
                    let fit = d.fit();
                    let mut from = index.first().unwrap_or(0);
                    let mut expected = jobs.iter().filter(|j| fit.admits(j.1, j.2));
                    loop {
                        let found = index.next(from, &fit);
                        assert_eq!(
                            found.map(|p| index.get(p).id),
                            expected.next().map(|j| j.0),
                            "{fit:?}"
                        );
                        let Some(place) = found else { break };
                        from = place + 1;
                    }
                }
            }
            assert_eq!(index.len(), jobs.len());
            assert_eq!(
                index.first().map(|p| index.get(p).id),
                jobs.first().map(|j| j.0)
            );
        }
    }

    /// The least job of at most a size, in SJBF's order, is the one a scan finds: on a
    /// machine of a few hundred processors (a leaf per size), and of billions (sizes in
    /// buckets, the tree no larger than `MAX_LEAVES` leaves).
    #[test]
    fn by_plan_finds_what_a_scan_finds() {
        for scale in [1, 1 << 22] {
            by_plan_against_a_scan(scale);
        }
    }

    /// [`by_plan_finds_what_a_scan_finds`] with sizes `scale` times those of `Draws::job`.
    fn by_plan_against_a_scan(scale: u32) {
        let mut d = Draws(7);
        let mut index = ByPlan::default();
        let mut jobs: Vec<JobRequest> = Vec::new();
        for seq in 0..5_000u64 {
            if d.below(3) > 0 || jobs.is_empty() {
                let (size, plan) = d.job();
                let size = (size * (1 + d.below(3) as u32)).saturating_mul(scale)
                    - d.below(u64::from(scale)) as u32;
                let job = request(seq as JobId, seq, (size, plan));
                index.insert(&job);
                jobs.push(job);
            } else {
                let j = jobs.swap_remove(d.below(jobs.len() as u64) as usize);
                index.remove(j.size, j.plan, j.seq);
            }
            let most =
                (d.below(200) as u32).saturating_mul(scale) + d.below(u64::from(scale)) as u32;
            assert!(index.tree.len() <= 2 * MAX_LEAVES);
            let expected = jobs
                .iter()
                .filter(|j| j.size <= most)
                .min_by_key(|j| (j.plan, j.seq))
                .map(Candidate::of);
            assert_eq!(index.least_up_to(most), expected, "at most {most}");
            assert_eq!(index.len(), jobs.len());
        }
    }
}
