//! The log's own service (`logged`): every job starts exactly its logged wait after its
//! submission, whatever else runs, and runs its logged runtime.
//!
//! Not a scheduling policy but the calibration baseline of a user model: a model fed the
//! service the log's users actually got should reproduce the log (`docs/MODELS.md`,
//! "Calibration"). The machine is unbounded ([`Scheduler::logged_service`]): the log's
//! machine ran these jobs, but users who submit at other times than in the log make
//! other overlaps. `scale=K` multiplies every logged wait by K: a uniformly slower
//! (K > 1) or faster (K < 1) site.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// The log's own service.
#[derive(Debug, Clone)]
pub struct Logged {
    scale: f64,
    /// Waiting jobs by the time they start: (start, submission order, slot).
    due: BinaryHeap<Reverse<(Time, u64, JobId)>>,
}

impl Logged {
    /// Each job waits `scale` times its logged wait (rounded to the second).
    pub fn new(scale: f64) -> Self {
        Logged {
            scale,
            due: BinaryHeap::new(),
        }
    }

    /// When `job` starts.
    fn start_of(&self, job: &JobRequest) -> Time {
        // The simulation refuses jobs without a logged wait under this policy.
        let wait = job.logged_wait.unwrap_or(0);
        let wait = if self.scale == 1.0 {
            wait
        } else {
            (wait as f64 * self.scale).round() as Time
        };
        job.submit + wait
    }
}

impl Scheduler for Logged {
    fn name(&self) -> &str {
        "logged"
    }

    fn sync(&mut self, view: &SystemView<'_>) {
        self.due.clear();
        for job in view.queue() {
            self.due
                .push(Reverse((self.start_of(job), job.seq, job.id)));
        }
    }

    fn on_submit(&mut self, job: &JobRequest, _view: &SystemView<'_>) {
        self.due
            .push(Reverse((self.start_of(job), job.seq, job.id)));
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        while let Some(&Reverse((at, _, id))) = self.due.peek()
            && at <= view.now
        {
            self.due.pop();
            starts.push(id);
        }
    }

    fn accepts_predictions(&self) -> bool {
        false
    }

    fn wake_at(&self) -> Option<Time> {
        self.due.peek().map(|Reverse((at, _, _))| *at)
    }

    fn logged_service(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::sched::UserTable;

    fn job(seq: u64, submit: Time, wait: Time) -> JobRequest {
        JobRequest {
            id: seq as JobId,
            seq,
            submit,
            size: 1000,
            estimate: 10,
            plan: 10,
            user: 1,
            app: -1,
            think: Time::MAX,
            logged_wait: Some(wait),
        }
    }

    #[test]
    fn jobs_start_their_scaled_logged_wait_after_submission_whatever_the_machine() {
        let users = UserTable::new();
        let queue: VecDeque<JobRequest> = [job(0, 0, 100), job(1, 10, 0), job(2, 20, 41)]
            .into_iter()
            .collect();
        let view = |now| SystemView::new(now, 4, 0, &queue, &[], &users);
        for (scale, expected) in [
            (1.0, [100, 10, 61]),
            (2.0, [200, 10, 102]),
            (0.5, [50, 10, 41]),
        ] {
            let mut s = Logged::new(scale);
            s.sync(&view(0));
            let mut started = [None; 3];
            while let Some(t) = s.wake_at() {
                let mut out = Vec::new();
                s.schedule(&view(t), &mut out);
                for id in out {
                    started[id as usize] = Some(t);
                }
            }
            assert_eq!(started, expected.map(Some), "scale {scale}");
        }
    }
}
