//! Fair-share multifactor priority over EASY backfilling, as production sites configure
//! Slurm's `priority/multifactor` plugin with `sched/backfill` (documented at
//! slurm.schedmd.com, "Multifactor Priority Plugin" and "Classic Fairshare Algorithm"):
//!
//! ```text
//! priority = age       * min(wait / max_age, 1)            (PriorityWeightAge, PriorityMaxAge)
//!          + fairshare * 2^(-U / S)                        (PriorityWeightFairshare)
//!          + size      * processors / machine              (PriorityWeightJobSize)
//! ```
//!
//! `U` is the user's share of the machine's usage, decayed with `half_life`
//! (`PriorityDecayHalfLife`, [`super::usage`]), and `S` its normalized shares: an equal
//! share among the users seen so far (one account, every user one share; the
//! dampening factor 1). Each factor lies in [0, 1]. Slurm ships every weight at 0 (plain
//! FIFO); the defaults here are a common site setting in which fair-share dominates and
//! age breaks ties and ends starvation: `fairshare = 10000`, `age = 1000`, `size = 0`,
//! `max_age` and `half_life` 7 days (Slurm's defaults). The schedule is an EASY pass in
//! priority order ([`super::priority`]): the highest-priority job that does not fit holds
//! the only reservation, as `sched/backfill` reserves for the jobs it cannot start. The
//! reservation is planned afresh at every pass, as Slurm's backfill plans each cycle, so
//! it follows whichever job is first then.
//!
//! Slurm's age factor stops growing at `max_age`: past it, age no longer separates jobs
//! and a job of a user with heavy usage can wait without bound behind a stream of new
//! users' jobs. What ends that here is PBS Professional's starving-jobs rule
//! (`help_starving_jobs`, `max_starve`): a job that has waited `starve` (by default
//! `max_age`, where the age factor stops) ranks before every job that has not, the
//! longest-waiting first. The first starving job then keeps the reservation until it
//! starts, so no job waits much longer than `starve` plus the estimates of the jobs
//! running then. `starve = none` turns the rule off (Slurm's behaviour).

use rustc_hash::FxHashSet;

use super::priority::{Priority, PriorityEasy, Rank};
use super::usage::{Shares, Usage};
use super::{RunningJob, SystemView};
use crate::job::JobRequest;
use crate::time::Time;

/// The weights and windows of the multifactor priority.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FairshareParams {
    /// Weight of the age factor.
    pub age: f64,
    /// Weight of the fair-share factor.
    pub fairshare: f64,
    /// Weight of the job-size factor.
    pub size: f64,
    /// Wait at which the age factor reaches 1, seconds.
    pub max_age: Time,
    /// Half-life of the usage, seconds.
    pub half_life: Time,
    /// Wait past which a job ranks before every job that has not waited as long, seconds
    /// (`None`: never).
    pub starve: Option<Time>,
}

impl Default for FairshareParams {
    fn default() -> Self {
        FairshareParams {
            age: 1000.0,
            fairshare: 10_000.0,
            size: 0.0,
            max_age: 7 * 86_400,
            half_life: 7 * 86_400,
            starve: Some(7 * 86_400),
        }
    }
}

impl FairshareParams {
    /// Checks the ranges: weights of 0 or more, windows of a second or more.
    pub fn check(&self) -> Result<(), String> {
        if [self.age, self.fairshare, self.size]
            .iter()
            .any(|w| !(w.is_finite() && *w >= 0.0))
        {
            return Err("the weights must be numbers of 0 or more".into());
        }
        if self.max_age < 1 || self.half_life < 1 || self.starve.is_some_and(|s| s < 1) {
            return Err("max_age, half_life and starve must be at least 1 second".into());
        }
        Ok(())
    }

    /// The priority of `job` at `now` on `total` processors, among `users` users seen,
    /// with their usage `shares` (if any ran); infinite for a starving job, so that the
    /// starving jobs go first in the order they came.
    pub fn priority(
        &self,
        job: &JobRequest,
        now: Time,
        total: u32,
        users: usize,
        shares: Option<&Shares>,
    ) -> f64 {
        let waited = (now - job.submit).max(0);
        if self.starve.is_some_and(|s| waited >= s) {
            return f64::INFINITY;
        }
        let age = (waited as f64 / self.max_age as f64).min(1.0);
        let normalized_shares = 1.0 / users.max(1) as f64;
        let fairshare = (-shares.map_or(0.0, |s| s.of(job.user)) / normalized_shares).exp2();
        let size = f64::from(job.size) / f64::from(total.max(1));
        self.age * age + self.fairshare * fairshare + self.size * size
    }
}

/// The fair-share rule: the multifactor priority over the usage of recent jobs.
#[derive(Debug, Clone)]
pub struct FairshareRank {
    params: FairshareParams,
    usage: Usage,
    /// Users who have submitted: each holds one share.
    users: FxHashSet<i64>,
}

/// Fair-share multifactor priority over EASY backfilling.
pub type Fairshare = PriorityEasy<FairshareRank>;

impl Fairshare {
    /// The policy with `params` (checked by [`FairshareParams::check`]).
    pub fn new(params: FairshareParams) -> Self {
        PriorityEasy::with_rule(FairshareRank {
            params,
            usage: Usage::new(params.half_life),
            users: FxHashSet::default(),
        })
    }
}

impl Rank for FairshareRank {
    const NAME: &'static str = "fairshare";

    fn by_arrival(&self) -> bool {
        false
    }

    /// The usage of jobs that ended before is not known and starts from nothing; the
    /// users of the jobs waiting and running hold their shares.
    fn sync(&mut self, view: &SystemView<'_>) {
        self.usage.clear();
        self.users.clear();
        let running = view.running().iter().map(|j| &j.request);
        self.users
            .extend(view.queue().iter().chain(running).map(|j| j.user));
    }

    fn on_submit(&mut self, job: &JobRequest) {
        self.users.insert(job.user);
    }

    fn on_end(&mut self, job: &RunningJob, now: Time) {
        self.usage.charge(job, now);
    }

    fn rank(&self, view: &SystemView<'_>, pass: &mut dyn FnMut(Priority<'_>)) {
        let (now, params, total, users) = (view.now, self.params, view.total, self.users.len());
        let shares = self.usage.shares(view);
        pass(&|job: &JobRequest| params.priority(job, now, total, users, shares.as_ref()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: Time, size: u32, user: i64) -> JobRequest {
        JobRequest::submitted(0, submit, size, 600, user)
    }

    #[test]
    fn factors_are_normalized_and_weighted() {
        let p = FairshareParams {
            age: 100.0,
            fairshare: 1000.0,
            size: 10.0,
            max_age: 1000,
            starve: None,
            ..FairshareParams::default()
        };
        // No usage yet: fair-share factor 1; waited half of max_age; half the machine.
        assert_eq!(
            p.priority(&job(0, 5, 1), 500, 10, 2, None),
            50.0 + 1000.0 + 5.0
        );
        // Age saturates at max_age.
        assert_eq!(
            p.priority(&job(0, 5, 1), 5000, 10, 2, None),
            100.0 + 1000.0 + 5.0
        );
        // A job that has waited `starve` outranks any that has not.
        let starving = FairshareParams {
            starve: Some(5000),
            ..p
        };
        assert_eq!(
            starving.priority(&job(0, 5, 1), 4999, 10, 2, None),
            100.0 + 1000.0 + 5.0
        );
        assert_eq!(
            starving.priority(&job(0, 5, 1), 5000, 10, 2, None),
            f64::INFINITY
        );
        assert!(
            FairshareParams {
                age: -1.0,
                ..FairshareParams::default()
            }
            .check()
            .is_err()
        );
    }
}
