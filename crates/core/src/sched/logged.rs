//! The log's own service (`logged`): every job starts exactly its logged wait after its
//! submission, whatever else runs, and runs its logged runtime.
//!
//! Not a scheduling policy but the calibration baseline of a user model: a model fed the
//! service the log's users actually got should reproduce the log (`docs/MODELS.md`,
//! "Calibration"). The machine is unbounded ([`Scheduler::logged_service`]): the log's
//! machine ran these jobs, but users who submit at other times than in the log make
//! other overlaps. `scale=K` multiplies every logged wait by K: a uniformly slower
//! (K > 1) or faster (K < 1) site. `jitter=S` multiplies each job's wait by its own
//! random factor of mean 1 and standard deviation S (log-normal, drawn from `seed` and
//! the job's submission number): a service that is statistically the same as the log's,
//! under which a user model should lose and gain time alike.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use statrs::distribution::{ContinuousCDF, LogNormal};

use super::{Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::{LONGEST, Time};

/// A random factor of mean 1 on each logged wait.
#[derive(Debug, Clone)]
pub struct Jitter {
    factor: LogNormal,
    seed: u64,
}

impl Jitter {
    /// Factors of mean 1 and standard deviation `sd` (> 0), drawn from `seed`: log-normal
    /// with `sigma^2 = ln(1 + sd^2)` and `mu = -sigma^2 / 2`.
    pub fn new(sd: f64, seed: u64) -> Option<Self> {
        let sigma2 = sd.mul_add(sd, 1.0).ln();
        let factor = LogNormal::new(-sigma2 / 2.0, sigma2.sqrt()).ok()?;
        Some(Jitter { factor, seed })
    }

    /// The factor of the job submitted `seq`-th: the same whenever it is asked for.
    fn of(&self, seq: u64) -> f64 {
        // 53 random bits, strictly inside (0, 1).
        let u = ((crate::seed::mix(self.seed, seq) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        self.factor.inverse_cdf(u)
    }
}

/// The log's own service.
#[derive(Debug, Clone)]
pub struct Logged {
    scale: f64,
    jitter: Option<Jitter>,
    /// Waiting jobs by the time they start: (start, submission order, slot).
    due: BinaryHeap<Reverse<(Time, u64, JobId)>>,
}

impl Logged {
    /// Each job waits `scale` times its logged wait, times its factor of `jitter` if
    /// any (rounded to the second).
    pub fn new(scale: f64, jitter: Option<Jitter>) -> Self {
        Logged {
            scale,
            jitter,
            due: BinaryHeap::new(),
        }
    }

    /// When `job` starts.
    fn start_of(&self, job: &JobRequest) -> Time {
        // The simulation refuses jobs without a logged wait under this policy.
        let wait = job.logged_wait.unwrap_or(0);
        let factor = self.scale * self.jitter.as_ref().map_or(1.0, |j| j.of(job.seq));
        let wait = if factor == 1.0 {
            wait
        } else {
            // A factor far in the tail stays within a century's wait.
            (wait as f64 * factor).round().min(LONGEST as f64) as Time
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
    use super::*;
    use crate::sched::{Queue, UserTable};

    fn job(seq: u64, submit: Time, wait: Time) -> JobRequest {
        JobRequest {
            logged_wait: Some(wait),
            ..JobRequest::submitted(seq, submit, 1000, 10, 1)
        }
    }

    #[test]
    fn jobs_start_their_scaled_logged_wait_after_submission_whatever_the_machine() {
        let users = UserTable::new();
        let queue: Queue = [job(0, 0, 100), job(1, 10, 0), job(2, 20, 41)]
            .into_iter()
            .collect();
        let view = |now| SystemView::new(now, 4, 0, &queue, &[], &users);
        for (scale, expected) in [
            (1.0, [100, 10, 61]),
            (2.0, [200, 10, 102]),
            (0.5, [50, 10, 41]),
        ] {
            let mut s = Logged::new(scale, None);
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

    #[test]
    fn jitter_has_mean_one_and_the_asked_spread_and_repeats() {
        for sd in [0.5, 1.0] {
            let j = Jitter::new(sd, 7).unwrap();
            let n = 200_000;
            let f: Vec<f64> = (0..n).map(|seq| j.of(seq)).collect();
            let mean = f.iter().sum::<f64>() / n as f64;
            let var = f.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            assert!((mean - 1.0).abs() < 0.01, "sd {sd}: mean {mean}");
            assert!(
                (var.sqrt() - sd).abs() < 0.05 * sd,
                "sd {sd}: {}",
                var.sqrt()
            );
            assert!(f.iter().all(|&x| x > 0.0 && x.is_finite()));
            assert_eq!(j.of(12), Jitter::new(sd, 7).unwrap().of(12));
            assert_ne!(j.of(12), Jitter::new(sd, 8).unwrap().of(12));
        }
    }
}
