//! Each user's recent use of the machine, in processor-seconds that decay with a
//! half-life: the fair-share input of Maui (Jackson et al. 2001, "Fairshare": fair-share by
//! decayed usage) and of Slurm's multifactor priority (`PriorityDecayHalfLife`).
//!
//! An ended job is charged its processors times its runtime at its end; a running job
//! counts its processors times the time it has run so far, undecayed (Slurm charges
//! running jobs every `PriorityCalcPeriod`, five minutes; here the pass that asks sees
//! them to the second). Usage decays continuously: `u(t) = u(t0) * 2^(-(t - t0) / h)`.
//! Any policy may keep one, fed by its `on_end`, and read it in its passes.

use rustc_hash::FxHashMap;

use super::{RunningJob, SystemView};
use crate::time::Time;

/// Decayed usage by user, and the total.
#[derive(Debug, Clone)]
pub struct Usage {
    half_life: Time,
    /// By user: usage at the time beside it.
    users: FxHashMap<i64, (f64, Time)>,
    total: (f64, Time),
}

impl Usage {
    /// No usage yet; it halves every `half_life` seconds (at least one).
    pub fn new(half_life: Time) -> Self {
        Usage {
            half_life: half_life.max(1),
            users: FxHashMap::default(),
            total: (0.0, 0),
        }
    }

    fn decayed(&self, (value, at): (f64, Time), now: Time) -> f64 {
        if now <= at {
            value
        } else {
            value * (-((now - at) as f64) / self.half_life as f64).exp2()
        }
    }

    /// Charges `job`, ended at `now`, to its user.
    pub fn charge(&mut self, job: &RunningJob, now: Time) {
        let work = f64::from(job.request.size) * (now - job.start).max(0) as f64;
        let user = self.users.get(&job.request.user).copied();
        let before = user.map_or(0.0, |u| self.decayed(u, now));
        self.users.insert(job.request.user, (before + work, now));
        self.total = (self.decayed(self.total, now) + work, now);
    }

    /// Forgets every charge.
    pub fn clear(&mut self) {
        self.users.clear();
        self.total = (0.0, 0);
    }

    /// Each user's share of the usage at `view.now`, with the running jobs' work so far;
    /// `None` when nothing ran yet.
    pub fn shares(&self, view: &SystemView<'_>) -> Option<Shares<'_>> {
        let now = view.now;
        let mut running: FxHashMap<i64, f64> = FxHashMap::default();
        let mut total = self.decayed(self.total, now);
        for job in view.running() {
            let work = f64::from(job.request.size) * (now - job.start).max(0) as f64;
            *running.entry(job.request.user).or_default() += work;
            total += work;
        }
        let users = self.users.len()
            + running
                .keys()
                .filter(|u| !self.users.contains_key(u))
                .count();
        (total > 0.0).then_some(Shares {
            usage: self,
            now,
            running,
            total,
            users,
        })
    }
}

/// Users' shares of the decayed usage at one time ([`Usage::shares`]).
#[derive(Debug, Clone)]
pub struct Shares<'a> {
    usage: &'a Usage,
    now: Time,
    /// The running jobs' work so far, by user.
    running: FxHashMap<i64, f64>,
    total: f64,
    users: usize,
}

impl Shares<'_> {
    /// `user`'s share of the usage, in [0, 1].
    pub fn of(&self, user: i64) -> f64 {
        let ended = self
            .usage
            .users
            .get(&user)
            .map_or(0.0, |&u| self.usage.decayed(u, self.now));
        (ended + self.running.get(&user).copied().unwrap_or(0.0)) / self.total
    }

    /// Users with some usage.
    pub fn users(&self) -> usize {
        self.users
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobRequest;
    use crate::sched::Queue;

    fn ran(user: i64, size: u32, start: Time) -> RunningJob {
        RunningJob {
            request: JobRequest::submitted(0, start, size, 100, user),
            start,
        }
    }

    #[test]
    fn usage_halves_every_half_life_and_running_jobs_count() {
        let mut u = Usage::new(100);
        u.charge(&ran(1, 2, 0), 50); // 100 processor-seconds at t = 50
        u.charge(&ran(2, 1, 0), 150); // 150 at t = 150
        let (queue, users) = (Queue::new(), crate::sched::UserTable::default());
        let running = [ran(3, 1, 200)];
        let view = SystemView::new(250, 10, 9, &queue, &running, &users);
        let s = u.shares(&view).unwrap();
        // At 250: user 1 has 100 * 2^-2 = 25, user 2 has 150 * 2^-1 = 75, user 3 50.
        assert!((s.of(1) - 25.0 / 150.0).abs() < 1e-12);
        assert!((s.of(2) - 75.0 / 150.0).abs() < 1e-12);
        assert!((s.of(3) - 50.0 / 150.0).abs() < 1e-12);
        assert_eq!(s.of(4), 0.0);
        assert_eq!(s.users(), 3);
    }
}
