//! CREASY: EASY backfilling with priority to critical interactive jobs (Feitelson 2021, §3.2 and
//! §4.4, Figs. 19-21, after Shmueli and Feitelson 2009).
//!
//! The seed names the idea and its knob but gives no formula; this one is ours
//! (`docs/MODELS.md`, "CREASY"):
//!
//! * A waiting job is **critical** when its user is in an active session and the job is
//!   predicted short: it was submitted less than `session_gap` (20 min, the session
//!   boundary of §4.4) after its user's previous job ended, or while another of the
//!   user's jobs was waiting or running, and its plan is at most `short` (10 min, the
//!   upper bound of the "medium" class of Fig. 20).
//! * Its **priority** mixes waiting time with criticality by `alpha`:
//!   `(1 - alpha) * wait / wait_scale + alpha * critical * 2^(-wait / half_life)`.
//!   Criticality fades as the job waits (after a long wait its user has probably gone),
//!   and waiting time keeps growing, so any job eventually outranks a fresh critical
//!   one: a non-critical job overtakes a fresh critical job after
//!   `wait_scale * alpha / (1 - alpha)` of waiting. Ties go to the earlier submission.
//! * Each pass is an EASY pass over the queue in priority order: start jobs while they
//!   fit, reserve processors for the first that does not (its shadow time and extra
//!   processors), and backfill the rest, in priority order, if they end by the shadow
//!   time or fit in the extra processors.
//!
//! With `alpha = 0` the priority is the waiting time, the order is submission order, and
//! the policy is exactly EASY (a property test checks this on random workloads). With
//! `alpha = 1` critical jobs always go first, at the risk of starving the others.

use super::SystemView;
use super::priority::{Priority, PriorityEasy, Rank};
use crate::job::JobRequest;
use crate::time::Time;

/// CREASY's knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CreasyParams {
    /// Weight of criticality against waiting time, in [0, 1]; 0 is EASY.
    pub alpha: f64,
    /// Waiting time worth as much as full criticality, seconds.
    pub wait_scale: Time,
    /// Longest plan of a short job, seconds.
    pub short: Time,
    /// Longest think time within a session, seconds.
    pub session_gap: Time,
    /// Waiting time that halves a job's criticality, seconds; `None`: it never fades.
    pub half_life: Option<Time>,
}

impl Default for CreasyParams {
    fn default() -> Self {
        CreasyParams {
            alpha: 0.5,
            wait_scale: 3600,
            short: 600,
            session_gap: 1200,
            half_life: Some(1200),
        }
    }
}

impl CreasyParams {
    fn critical(&self, job: &JobRequest) -> bool {
        job.think < self.session_gap && job.plan <= self.short
    }

    fn priority(&self, job: &JobRequest, now: Time) -> f64 {
        let wait = (now - job.submit) as f64;
        let criticality = if self.critical(job) {
            self.half_life.map_or(1.0, |h| (-wait / h as f64).exp2())
        } else {
            0.0
        };
        (1.0 - self.alpha) * wait / self.wait_scale as f64 + self.alpha * criticality
    }

    /// Checks the ranges.
    pub fn check(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.alpha) {
            return Err(format!("alpha must be in [0, 1], not {}", self.alpha));
        }
        if self.wait_scale < 1 || self.short < 1 || self.session_gap < 1 {
            return Err("wait_scale, short and session_gap must be at least 1 second".into());
        }
        if self.half_life.is_some_and(|h| h < 1) {
            return Err("half_life must be at least 1 second".into());
        }
        Ok(())
    }
}

/// CREASY: EASY with priority to critical interactive jobs, ranked by [`CreasyParams`].
pub type Creasy = PriorityEasy<CreasyParams>;

impl Creasy {
    /// CREASY with `params` (checked by [`CreasyParams::check`]).
    pub fn new(params: CreasyParams) -> Self {
        PriorityEasy::with_rule(params)
    }
}

impl Rank for CreasyParams {
    const NAME: &'static str = "creasy";

    /// With `alpha = 0` the priority is the wait alone: EASY itself.
    fn by_arrival(&self) -> bool {
        self.alpha == 0.0
    }

    fn rank(&self, view: &SystemView<'_>, pass: &mut dyn FnMut(Priority<'_>)) {
        let now = view.now;
        pass(&|job: &JobRequest| self.priority(job, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(seq: u64, submit: Time, plan: Time, think: Time) -> JobRequest {
        JobRequest {
            think,
            ..JobRequest::submitted(seq, submit, 1, plan, seq as i64)
        }
    }

    #[test]
    fn priority_mixes_waiting_time_and_fading_criticality() {
        let c = CreasyParams {
            alpha: 0.5,
            ..CreasyParams::default()
        };
        let interactive = job(0, 0, 300, 60);
        let long = job(1, 0, 7200, 60);
        let opening = job(2, 0, 300, Time::MAX);
        assert!(c.critical(&interactive));
        assert!(!c.critical(&long), "predicted long");
        assert!(!c.critical(&opening), "not within a session");
        assert_eq!(c.priority(&interactive, 0), 0.5);
        assert_eq!(c.priority(&long, 0), 0.0);
        // After one half-life: 0.5 * 1200/3600 + 0.5 * 0.5.
        let p = c.priority(&interactive, 1200);
        assert!((p - (0.5 / 3.0 + 0.25)).abs() < 1e-12, "{p}");
        // A non-critical job overtakes a fresh critical one after wait_scale * a/(1-a).
        assert!(c.priority(&long, 3601) > c.priority(&interactive, 0));
        assert!(c.priority(&long, 3599) < c.priority(&interactive, 0));
    }

    #[test]
    fn a_non_critical_job_overtakes_a_fresh_critical_one_at_the_crossover_wait() {
        // The grid of docs/MODELS.md: wait_scale * alpha / (1 - alpha), 1 h scale.
        for (alpha, hours) in [(0.5, 1), (0.75, 3), (0.9, 9), (0.99, 99), (0.999, 999)] {
            let c = CreasyParams {
                alpha,
                ..CreasyParams::default()
            };
            let fresh = c.priority(&job(0, 0, 300, 60), 0);
            let long = job(1, 0, 7200, 60);
            let crossover = hours * 3600;
            assert!(c.priority(&long, crossover - 60) < fresh, "alpha {alpha}");
            assert!(c.priority(&long, crossover + 60) > fresh, "alpha {alpha}");
        }
    }

    #[test]
    fn ranges_are_checked() {
        let bad = CreasyParams {
            alpha: 1.5,
            ..CreasyParams::default()
        };
        assert!(bad.check().unwrap_err().contains("alpha"));
        assert!(CreasyParams::default().check().is_ok());
    }
}
