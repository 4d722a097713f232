//! The invariant checker (DESIGN.md, "Invariants"), on in tests and debug builds and with
//! `--check` in release builds. After every scheduling pass it verifies that:
//!
//! 1. processors in use never exceed the machine (the simulation itself also refuses any
//!    start that does not fit, checker or not);
//! 2. no job starts later than the earliest start a policy promised it (EASY's reservation
//!    for its first job, conservative's reservation for every job);
//! 3. a promise never moves later and never lies in the past of a job still waiting.
//!
//! The legitimate exceptions to 2 and 3 are a job running past what the scheduler planned
//! (past its estimate under the `overrun` policy, or past its prediction: a deadline miss)
//! and a running job's prediction raised by its predictor. A promise may break if, at the
//! promised time (for 2) or at the pass (for 3), some job was running past its estimate or
//! ended after doing so, or if a running job's plan moved later at the pass (for 3) or
//! between the promised time and the start (for 2). This is slightly weaker than "the
//! reservation counted on a job that overran", and needs no record of what each
//! reservation counted on.

use crate::job::JobId;
use crate::time::Time;

/// Tracks promises and overruns and reports the first violation.
#[derive(Debug, Default)]
pub struct Checker {
    /// Current promise by job id.
    promised: Vec<Option<Time>>,
    /// `[estimated end, actual end)` of every job that ran past its estimate.
    overruns: Vec<(Time, Time)>,
    /// Times at which a running job's plan moved later (a deadline miss, or a predictor's
    /// update), in order.
    delays: Vec<Time>,
    scratch: Vec<(JobId, Time)>,
    checked_passes: u64,
}

impl Checker {
    /// A checker with nothing recorded.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of passes checked.
    pub fn passes(&self) -> u64 {
        self.checked_passes
    }

    /// Records that a job overran its estimate over `[estimated_end, end)`.
    pub fn record_overrun(&mut self, estimated_end: Time, end: Time) {
        if end > estimated_end {
            self.overruns.push((estimated_end, end));
        }
    }

    /// Records that a running job's plan moved later at `t`.
    pub fn record_delay(&mut self, t: Time) {
        if self.delays.last() != Some(&t) {
            self.delays.push(t);
        }
    }

    /// Whether some job was running past its estimate at `t`, or ended at `t` after
    /// running past it (the pass at its end repairs the schedule it disturbed).
    fn overrun_at(&self, t: Time) -> bool {
        self.overruns.iter().any(|&(from, to)| from <= t && t <= to)
    }

    /// Whether a running job's plan moved later at some time in `[from, to]`.
    fn delayed_between(&self, from: Time, to: Time) -> bool {
        let i = self.delays.partition_point(|&d| d < from);
        self.delays.get(i).is_some_and(|&d| d <= to)
    }

    fn slot(&mut self, id: JobId) -> &mut Option<Time> {
        let i = id as usize;
        if self.promised.len() <= i {
            self.promised.resize(i + 1, None);
        }
        &mut self.promised[i]
    }

    /// Checks a job starting at `now`, and forgets its promise.
    pub fn check_start(&mut self, id: JobId, seq: u64, now: Time) -> Result<(), String> {
        if let Some(p) = self.slot(id).take()
            && now > p
            && !self.overrun_at(p)
            && !self.delayed_between(p, now)
        {
            return Err(format!(
                "job {seq} started at {now}, after the start {p} it was promised, \
                 and no job was running past its estimate at {p}"
            ));
        }
        Ok(())
    }

    /// Checks the promises a policy holds after a pass at `now`. `seq_of` maps a waiting
    /// job's id to its submission number, for messages.
    pub fn check_promises(
        &mut self,
        now: Time,
        promises: impl FnOnce(&mut Vec<(JobId, Time)>),
        seq_of: impl Fn(JobId) -> u64,
    ) -> Result<(), String> {
        self.checked_passes += 1;
        let mut list = std::mem::take(&mut self.scratch);
        list.clear();
        promises(&mut list);
        let overrun_now = self.overrun_at(now) || self.delayed_between(now, now);
        let mut result = Ok(());
        for &(id, start) in &list {
            if start <= now && !overrun_now {
                result = Err(format!(
                    "job {} is still waiting at {now} although it was promised {start}",
                    seq_of(id)
                ));
                break;
            }
            let slot = self.slot(id);
            match *slot {
                Some(old) if start > old && !overrun_now => {
                    result = Err(format!(
                        "job {}'s promised start moved later, from {old} to {start}, at {now} \
                         with no job running past its estimate",
                        seq_of(id)
                    ));
                    break;
                }
                _ => *slot = Some(start),
            }
        }
        self.scratch = list;
        result
    }

    /// Forgets a job that ended (its slot may be reused).
    pub fn forget(&mut self, id: JobId) {
        if let Some(p) = self.promised.get_mut(id as usize) {
            *p = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_start_without_overrun_is_a_violation() {
        let mut c = Checker::new();
        c.check_promises(0, |o| o.push((3, 100)), |_| 7).unwrap();
        assert!(c.check_start(3, 7, 100).is_ok());
        c.check_promises(0, |o| o.push((3, 100)), |_| 7).unwrap();
        let err = c.check_start(3, 7, 101).unwrap_err();
        assert!(err.contains("job 7 started at 101"), "{err}");
    }

    #[test]
    fn overrun_at_the_promised_time_excuses_a_late_start() {
        let mut c = Checker::new();
        c.check_promises(0, |o| o.push((1, 100)), |_| 1).unwrap();
        c.record_overrun(90, 150);
        assert!(c.check_start(1, 1, 150).is_ok());
    }

    #[test]
    fn promises_may_move_earlier_but_not_later() {
        let mut c = Checker::new();
        c.check_promises(0, |o| o.push((1, 100)), |_| 1).unwrap();
        c.check_promises(10, |o| o.push((1, 50)), |_| 1).unwrap();
        let err = c
            .check_promises(20, |o| o.push((1, 60)), |_| 1)
            .unwrap_err();
        assert!(err.contains("moved later, from 50 to 60"), "{err}");
        c.record_overrun(15, 25);
        assert!(c.check_promises(20, |o| o.push((1, 60)), |_| 1).is_ok());
    }

    #[test]
    fn promise_in_the_past_is_a_violation() {
        let mut c = Checker::new();
        let err = c
            .check_promises(100, |o| o.push((1, 100)), |_| 4)
            .unwrap_err();
        assert!(err.contains("job 4 is still waiting at 100"), "{err}");
    }
}
