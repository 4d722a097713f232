//! Which of a user's termination dependencies have ended in the simulation, and when the
//! last of them did.
//!
//! A job's termination dependencies are the user's earlier jobs that ended, in the log,
//! by its cut-off: a prefix of the user's jobs ordered by logged end, restricted to jobs
//! already submitted ([`crate::workload::trace::TraceJob::deps`]). Two Fenwick trees over
//! that order answer "how many of the prefix are still waiting or running" and "the
//! latest simulated end among them" in O(log n), so a user with thousands of jobs and
//! sessions costs no more per event than one with ten.

use crate::time::Time;

/// Simulated state of one user's jobs, indexed by their rank in logged end order.
#[derive(Debug, Clone)]
pub struct Dependencies {
    /// Fenwick tree of jobs submitted and not yet ended.
    pending: Vec<i32>,
    /// Fenwick tree (maximum) of simulated ends.
    latest: Vec<Time>,
}

/// The state of a prefix of dependencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepState {
    /// Submitted jobs of the prefix that have not ended.
    pub pending: u32,
    /// The latest simulated end in the prefix, if any job of it ended.
    pub latest_end: Option<Time>,
}

impl Dependencies {
    /// A user of `n` jobs, none submitted.
    pub fn new(n: usize) -> Self {
        Dependencies {
            pending: vec![0; n + 1],
            latest: vec![Time::MIN; n + 1],
        }
    }

    /// The job of end rank `rank` was submitted.
    pub fn submitted(&mut self, rank: u32) {
        let mut i = rank as usize + 1;
        while i < self.pending.len() {
            self.pending[i] += 1;
            i += i & i.wrapping_neg();
        }
    }

    /// The job of end rank `rank` ended at `t`.
    pub fn ended(&mut self, rank: u32, t: Time) {
        let mut i = rank as usize + 1;
        while i < self.pending.len() {
            self.pending[i] -= 1;
            self.latest[i] = self.latest[i].max(t);
            i += i & i.wrapping_neg();
        }
    }

    /// The first `prefix` ranks.
    pub fn state(&self, prefix: u32) -> DepState {
        let (mut pending, mut latest) = (0i32, Time::MIN);
        let mut i = prefix as usize;
        while i > 0 {
            pending += self.pending[i];
            latest = latest.max(self.latest[i]);
            i &= i - 1;
        }
        DepState {
            pending: u32::try_from(pending).expect("no job ends before it is submitted"),
            latest_end: (latest != Time::MIN).then_some(latest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The trees agree with a direct count over random submissions and ends.
        #[test]
        fn matches_a_direct_count(ops in prop::collection::vec((0u32..12, 0i64..1000), 1..60)) {
            let n = 12;
            let mut d = Dependencies::new(n);
            // Per rank: 0 = not submitted, 1 = pending, 2 = ended.
            let mut state = vec![(0u8, 0i64); n];
            for (rank, t) in ops {
                let s = &mut state[rank as usize];
                match s.0 {
                    0 => { d.submitted(rank); s.0 = 1; }
                    1 => { d.ended(rank, t); *s = (2, t); }
                    _ => {}
                }
                for prefix in 0..=n as u32 {
                    let part = &state[..prefix as usize];
                    let pending = part.iter().filter(|s| s.0 == 1).count() as u32;
                    let latest = part.iter().filter(|s| s.0 == 2).map(|s| s.1).max();
                    prop_assert_eq!(d.state(prefix), DepState { pending, latest_end: latest });
                }
            }
        }
    }
}
