//! Running jobs ordered by the time the scheduler expects them to end.

use std::collections::VecDeque;

use crate::job::JobId;
use crate::time::Time;

/// One running job: its key `(end, seq)` and what a walk needs of it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    end: Time,
    seq: u64,
    id: JobId,
    size: u32,
}

/// Running jobs keyed by an end time the scheduler chose (its estimated end, or a later
/// one after an overrun) and their submission order, so that ties are deterministic.
///
/// EASY walks it to find the shadow time and the extra processors in one pass (DESIGN.md,
/// "Where performance comes from"); conservative backfilling uses it to find jobs that have
/// outlived their estimate.
///
/// The jobs are kept sorted in a ring buffer: a job that starts usually ends after most
/// of those running (it goes in near the back) and the job that ends is usually among the
/// first to (it leaves near the front), and an insertion or removal moves only the entries
/// on its shorter side. For the tens to hundreds of jobs a machine runs at once this is
/// several times cheaper than a B-tree, and a walk reads one contiguous run of memory.
#[derive(Debug, Clone, Default)]
pub struct RunningByEnd {
    jobs: VecDeque<Entry>,
}

impl RunningByEnd {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Where `(end, seq)` is, or would go.
    #[inline]
    fn find(&self, end: Time, seq: u64) -> Result<usize, usize> {
        self.jobs
            .binary_search_by(|e| (e.end, e.seq).cmp(&(end, seq)))
    }

    /// Adds job `id` (submission number `seq`, `size` processors), expected to end at
    /// `end`.
    pub fn insert(&mut self, end: Time, seq: u64, id: JobId, size: u32) {
        let entry = Entry { end, seq, id, size };
        if self.jobs.back().is_none_or(|b| (b.end, b.seq) < (end, seq)) {
            // The common case: it ends after every job already running.
            self.jobs.push_back(entry);
            return;
        }
        let at = self.find(end, seq);
        debug_assert!(at.is_err(), "job {seq} inserted twice");
        let at = at.unwrap_or_else(|i| i);
        self.jobs.insert(at, entry);
    }

    /// Removes the job of submission number `seq` that was inserted with `end`.
    pub fn remove(&mut self, end: Time, seq: u64) {
        if self
            .jobs
            .front()
            .is_some_and(|f| (f.end, f.seq) == (end, seq))
        {
            // The common case: the job that was expected to end first.
            self.jobs.pop_front();
            return;
        }
        let at = self.find(end, seq);
        debug_assert!(at.is_ok(), "job {seq} was not running");
        if let Ok(at) = at {
            self.jobs.remove(at);
        }
    }

    /// `(end, id, size)` of every job, earliest end first.
    pub fn iter(&self) -> impl Iterator<Item = (Time, JobId, u32)> + '_ {
        self.jobs.iter().map(|e| (e.end, e.id, e.size))
    }

    /// Removes and returns the earliest-ending job if its end is at or before `t`, as
    /// `(end, seq, id, size)`.
    pub fn pop_until(&mut self, t: Time) -> Option<(Time, u64, JobId, u32)> {
        let e = *self.jobs.front()?;
        if e.end > t {
            return None;
        }
        self.jobs.pop_front();
        Some((e.end, e.seq, e.id, e.size))
    }

    /// Number of running jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether no job runs.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserting and removing in any order keeps the jobs sorted by end, then submission,
    /// as a sorted map of the same keys does.
    #[test]
    fn keeps_the_order_of_a_sorted_map() {
        let mut set = RunningByEnd::new();
        let mut map = std::collections::BTreeMap::new();
        let mut x: u64 = 7;
        for seq in 0..3000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let end = (x >> 40) as Time % 500;
            set.insert(end, seq, seq as JobId, (x % 64) as u32);
            map.insert((end, seq), (seq as JobId, (x % 64) as u32));
            if x.is_multiple_of(3) {
                let (&(end, seq), _) = map.iter().nth((x >> 20) as usize % map.len()).unwrap();
                set.remove(end, seq);
                map.remove(&(end, seq));
            }
            if x.is_multiple_of(7) {
                let t = (x >> 30) as Time % 100;
                while let Some((end, seq, _, _)) = set.pop_until(t) {
                    assert_eq!(map.pop_first().map(|(k, _)| k), Some((end, seq)));
                }
                assert!(map.first_key_value().is_none_or(|(k, _)| k.0 > t));
            }
            assert_eq!(set.len(), map.len());
        }
        assert!(
            set.iter()
                .eq(map.iter().map(|(&(end, _), &(id, size))| (end, id, size)))
        );
    }
}
