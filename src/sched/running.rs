//! Running jobs ordered by the time the scheduler expects them to end.

use std::collections::BTreeMap;

use crate::job::JobId;
use crate::time::Time;

/// Running jobs keyed by an end time the scheduler chose (its estimated end, or a later
/// one after an overrun) and their submission order, so that ties are deterministic.
///
/// EASY walks it to find the shadow time and the extra processors in one pass (DESIGN.md,
/// "Where performance comes from"); conservative backfilling uses it to find jobs that have
/// outlived their estimate.
#[derive(Debug, Clone, Default)]
pub struct RunningByEnd {
    jobs: BTreeMap<(Time, u64), (JobId, u32)>,
}

impl RunningByEnd {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds job `id` (submission number `seq`, `size` processors), expected to end at
    /// `end`.
    pub fn insert(&mut self, end: Time, seq: u64, id: JobId, size: u32) {
        let old = self.jobs.insert((end, seq), (id, size));
        debug_assert!(old.is_none(), "job {seq} inserted twice");
    }

    /// Removes the job of submission number `seq` that was inserted with `end`.
    pub fn remove(&mut self, end: Time, seq: u64) {
        let old = self.jobs.remove(&(end, seq));
        debug_assert!(old.is_some(), "job {seq} was not running");
    }

    /// `(end, id, size)` of every job, earliest end first.
    pub fn iter(&self) -> impl Iterator<Item = (Time, JobId, u32)> + '_ {
        self.jobs
            .iter()
            .map(|(&(end, _), &(id, size))| (end, id, size))
    }

    /// Removes and returns the earliest-ending job if its end is at or before `t`, as
    /// `(end, seq, id, size)`.
    pub fn pop_until(&mut self, t: Time) -> Option<(Time, u64, JobId, u32)> {
        let entry = self.jobs.first_entry()?;
        let &(end, seq) = entry.key();
        if end > t {
            return None;
        }
        let (id, size) = entry.remove();
        Some((end, seq, id, size))
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
