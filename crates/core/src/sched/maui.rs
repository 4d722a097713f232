//! Maui (Jackson, Snell and Clement 2001) in the configuration Talby (2006, §2 and §7.2)
//! simulates: a reservation for the first queued job only (`RESERVATIONDEPTH 1`) and
//! backfilling of every waiting job, at every event, in priority order (`BACKFILLPOLICY
//! FIRSTFIT`): an EASY pass over the queue ranked by Maui's priority function
//! (Jackson et al. 2001, "Job Prioritization"):
//!
//! ```text
//! priority = queue_time * (minutes waited)
//!          + xfactor    * (wait + estimate) / estimate       (expansion factor)
//!          + size       * processors
//!          + fairshare  * (target - usage), in percent        (fair-share)
//! ```
//!
//! Maui's defaults weigh the queue time only (`QUEUETIMEWEIGHT 1`, every other weight 0),
//! which ranks the queue by arrival: "essentially EASY" as the seed says, and the same
//! schedule as `easy` job for job (a property test checks it). The fair-share target is
//! an equal share among the users with recent usage; usage decays with `half_life`
//! (Maui's `FSINTERVAL`, `FSDEPTH` and `FSDECAY` windows, summarised by one half-life;
//! [`super::usage`]).

use super::priority::{Priority, PriorityEasy, Rank};
use super::usage::{Shares, Usage};
use super::{RunningJob, SystemView};
use crate::job::JobRequest;
use crate::time::Time;

/// The weights of Maui's priority components.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MauiParams {
    /// Per minute waited (`QUEUETIMEWEIGHT`).
    pub queue_time: f64,
    /// Per unit of expansion factor (`XFACTORWEIGHT`).
    pub xfactor: f64,
    /// Per processor (`PROCWEIGHT`).
    pub size: f64,
    /// Per percentage point under the fair-share target (`FSWEIGHT`).
    pub fairshare: f64,
    /// Half-life of the usage fair-share counts, seconds.
    pub half_life: Time,
}

impl Default for MauiParams {
    fn default() -> Self {
        MauiParams {
            queue_time: 1.0,
            xfactor: 0.0,
            size: 0.0,
            fairshare: 0.0,
            half_life: 7 * 86_400,
        }
    }
}

impl MauiParams {
    /// Checks the ranges: finite weights, a half-life of a second or more.
    pub fn check(&self) -> Result<(), String> {
        let weights = [self.queue_time, self.xfactor, self.size, self.fairshare];
        if weights.iter().any(|w| !w.is_finite()) {
            return Err("the weights must be finite numbers".into());
        }
        if self.half_life < 1 {
            return Err("half_life must be at least 1 second".into());
        }
        Ok(())
    }

    /// Whether only the queue time counts: the ranking is the arrival order.
    fn ranks_by_arrival(&self) -> bool {
        self.xfactor == 0.0 && self.size == 0.0 && self.fairshare == 0.0 && self.queue_time >= 0.0
    }

    /// The priority of `job` at `now`, with the users' usage `shares` (if any ran).
    pub fn priority(&self, job: &JobRequest, now: Time, shares: Option<&Shares>) -> f64 {
        let wait = (now - job.submit).max(0) as f64;
        let estimate = job.plan.max(1) as f64;
        let fairshare = shares.map_or(0.0, |s| {
            100.0 * (1.0 / s.users().max(1) as f64 - s.of(job.user))
        });
        self.queue_time * wait / 60.0
            + self.xfactor * (wait + estimate) / estimate
            + self.size * f64::from(job.size)
            + self.fairshare * fairshare
    }
}

/// Maui's rule: its priority function over the usage of recent jobs.
#[derive(Debug, Clone)]
pub struct MauiRank {
    params: MauiParams,
    usage: Usage,
}

/// Maui: EASY over [`MauiRank`]'s order.
pub type Maui = PriorityEasy<MauiRank>;

impl Maui {
    /// Maui with `params` (checked by [`MauiParams::check`]).
    pub fn new(params: MauiParams) -> Self {
        PriorityEasy::with_rule(MauiRank {
            params,
            usage: Usage::new(params.half_life),
        })
    }
}

impl Rank for MauiRank {
    const NAME: &'static str = "maui";

    fn by_arrival(&self) -> bool {
        self.params.ranks_by_arrival()
    }

    /// The usage of jobs that ended before is not known and starts from nothing.
    fn sync(&mut self, _view: &SystemView<'_>) {
        self.usage.clear();
    }

    fn on_end(&mut self, job: &RunningJob, now: Time) {
        self.usage.charge(job, now);
    }

    fn rank(&self, view: &SystemView<'_>, pass: &mut dyn FnMut(Priority<'_>)) {
        let (now, params) = (view.now, self.params);
        let shares = (params.fairshare != 0.0)
            .then(|| self.usage.shares(view))
            .flatten();
        pass(&|job: &JobRequest| params.priority(job, now, shares.as_ref()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: Time, size: u32, plan: Time, user: i64) -> JobRequest {
        JobRequest::submitted(0, submit, size, plan, user)
    }

    #[test]
    fn the_priority_sums_its_weighted_components() {
        let p = MauiParams {
            queue_time: 2.0,
            xfactor: 10.0,
            size: 0.5,
            fairshare: 0.0,
            ..MauiParams::default()
        };
        // Waited 30 min with a 10 min estimate on 8 processors: 2 * 30 + 10 * 4 + 0.5 * 8.
        assert_eq!(
            p.priority(&job(0, 8, 600, 1), 1800, None),
            60.0 + 40.0 + 4.0
        );
        assert!(MauiParams::default().ranks_by_arrival());
        assert!(!p.ranks_by_arrival());
        assert!(
            MauiParams {
                half_life: 0,
                ..MauiParams::default()
            }
            .check()
            .is_err()
        );
    }
}
