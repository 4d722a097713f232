//! Jobs: what a source submits, what a scheduler may see, and how a finished job ended.
//!
//! Jobs are rigid (a fixed number of processors for their whole run) and run on dedicated
//! processors, as in the papers' simulations (Mu'alem and Feitelson 2001, §3.1). The scheduler sees
//! the [`JobRequest`] only, never the runtime: planning uses estimates, and the true runtime only
//! sets the end event (DESIGN.md, "Invariants").

use serde::{Deserialize, Serialize};

use crate::time::Time;

/// Index of a live job in the simulation's job table. Reused after the job has ended, so
/// it identifies a job only while the job waits or runs; [`JobRequest::seq`] is unique.
pub type JobId = u32;

/// A job as a source submits it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Processors, at least 1 and at most the machine size.
    pub size: u32,
    /// True runtime on a dedicated machine, seconds (at least 0). Hidden from schedulers.
    pub runtime: Time,
    /// The user's runtime estimate (requested time), seconds, at least 1.
    pub estimate: Time,
    /// The submitting user.
    pub user: i64,
    /// The executable (application) number, `-1` if unknown.
    pub app: i64,
    /// The job's number in its log.
    pub job: i64,
    /// An identifier the source chooses, handed back in the job's [`JobOutcome`]: a
    /// closed-loop workload learns from it which of its jobs ended, and an output joins
    /// the job's log record back by it.
    pub tag: u64,
    /// The wait the log recorded for it (SWF field 3), `None` when unknown or when the
    /// job comes from no log: the service the `logged` policy gives it.
    pub logged_wait: Option<Time>,
    /// Whether it opens a session of its user, as a closed-loop user model has it: the
    /// user's own sessions, which the session metrics count. `None` from an open-loop
    /// source, whose sessions are split by the think-time rule ([`crate::session`]).
    pub opens_session: Option<bool>,
}

/// What a scheduler knows about a waiting or running job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobRequest {
    /// Slot in the job table while the job is live.
    pub id: JobId,
    /// Submission order over the whole run (the queue order of FCFS-based policies).
    pub seq: u64,
    /// Submit time.
    pub submit: Time,
    /// Processors.
    pub size: u32,
    /// The user's runtime estimate (requested time), seconds, at least 1: where the `kill`
    /// policy ends the job.
    pub estimate: Time,
    /// The runtime the scheduler plans with: the predictor's current prediction, or the
    /// estimate when there is no predictor. At least 1.
    pub plan: Time,
    /// The submitting user.
    pub user: i64,
    /// The executable (application) number, `-1` if unknown.
    pub app: i64,
    /// The user's think time before this job: its submit time minus the latest end of
    /// the user's earlier jobs; 0 when another of its jobs was waiting or running at
    /// submission; [`Time::MAX`] for the user's first job. User-aware policies read it
    /// to tell jobs submitted within an active session (Feitelson 2021, §4.4).
    pub think: Time,
    /// The wait the log recorded for it, if known ([`JobSpec::logged_wait`]): what the
    /// `logged` policy replays.
    pub logged_wait: Option<Time>,
    /// Whether it opens a session of its user ([`JobSpec::opens_session`]).
    pub opens_session: Option<bool>,
}

#[cfg(test)]
impl JobRequest {
    /// A job of the unit tests: `seq`-th submitted (its id too), asking for `size`
    /// processors with `plan` as estimate and plan, the first of `user`'s (no think time).
    pub(crate) fn submitted(seq: u64, submit: Time, size: u32, plan: Time, user: i64) -> Self {
        JobRequest {
            id: seq as JobId,
            seq,
            submit,
            size,
            estimate: plan,
            plan,
            user,
            app: -1,
            think: Time::MAX,
            logged_wait: None,
            opens_session: None,
        }
    }
}

/// What happens to a job that runs longer than its estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum OverrunPolicy {
    /// The job is killed when its estimate runs out, as production EASY does
    /// (Tsafrir et al. 2005, §1: "jobs that violate their estimates are killed").
    #[default]
    Kill,
    /// The estimate is raised to the runtime when the job is submitted, so no job ever
    /// runs past what the scheduler planned for.
    Extend,
    /// The job runs its full runtime while the scheduler keeps its estimate; once the
    /// estimate has passed, the scheduler treats the job as ending one second from now.
    Overrun,
}

/// Runtime classes of the papers' breakdowns (Feitelson 2021, Figure 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuntimeClass {
    /// At most one minute.
    Short,
    /// More than one minute, at most ten.
    Medium,
    /// More than ten minutes.
    Long,
}

impl RuntimeClass {
    /// All classes, shortest first.
    pub const ALL: [RuntimeClass; 3] = [
        RuntimeClass::Short,
        RuntimeClass::Medium,
        RuntimeClass::Long,
    ];

    /// The class of a job that ran `runtime` seconds.
    pub fn of(runtime: Time) -> RuntimeClass {
        match runtime {
            ..=60 => RuntimeClass::Short,
            61..=600 => RuntimeClass::Medium,
            _ => RuntimeClass::Long,
        }
    }

    /// A label for tables.
    pub fn label(self) -> &'static str {
        match self {
            RuntimeClass::Short => "<= 1 min",
            RuntimeClass::Medium => "1-10 min",
            RuntimeClass::Long => "> 10 min",
        }
    }
}

/// A job that has ended, as the metrics see it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobOutcome {
    /// Submission order.
    pub seq: u64,
    /// Submit time.
    pub submit: Time,
    /// Start time.
    pub start: Time,
    /// End time (`start` plus the simulated runtime).
    pub end: Time,
    /// Processors.
    pub size: u32,
    /// The estimate the scheduler planned with.
    pub estimate: Time,
    /// The runtime the job asked for (its log runtime), before any kill.
    pub requested_runtime: Time,
    /// Whether it was killed at its estimate.
    pub killed: bool,
    /// Whether it started while a job submitted before it was still waiting.
    pub backfilled: bool,
    /// The submitting user.
    pub user: i64,
    /// The job's number in its log.
    pub job: i64,
    /// The source's identifier of the job ([`JobSpec::tag`]).
    pub tag: u64,
    /// How its predictions fared.
    pub accuracy: Accuracy,
}

/// How well a job's runtime was predicted (Talby et al. 2006, §3.3): the absolute inaccuracy
/// |R − P| and the relative accuracy min(R, P) / max(R, P) (1 when equal), each weighted by
/// how long each prediction P was in force between submission and termination, R being
/// the runtime the job actually ran. Without a predictor the prediction is the estimate.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Accuracy {
    /// Time-weighted absolute inaccuracy, seconds.
    pub absolute_inaccuracy: f64,
    /// Time-weighted relative accuracy, in [0, 1].
    pub relative_accuracy: f64,
    /// Deadline misses: times the job outlived its prediction.
    pub misses: u32,
    /// The prediction made at submission.
    pub first_plan: Time,
}

/// Accumulates a job's [`Accuracy`] while it lives, one prediction at a time, in order.
#[derive(Debug, Clone, Copy, Default)]
pub struct AccuracyTally {
    runtime: Time,
    first_plan: Time,
    last_plan: Time,
    total: Time,
    absolute: f64,
    relative: f64,
    misses: u32,
}

impl AccuracyTally {
    /// A job that will run `runtime` seconds, predicted `first_plan` at submission.
    pub fn new(runtime: Time, first_plan: Time) -> Self {
        AccuracyTally {
            runtime,
            first_plan,
            last_plan: first_plan,
            ..AccuracyTally::default()
        }
    }

    /// Prediction `prediction` was in force for `duration` seconds.
    pub fn add(&mut self, duration: Time, prediction: Time) {
        let r = self.runtime;
        let relative = if prediction == r {
            1.0
        } else {
            prediction.min(r).max(0) as f64 / prediction.max(r) as f64
        };
        self.total += duration;
        self.absolute += duration as f64 * (r - prediction).abs() as f64;
        self.relative += duration as f64 * relative;
        self.last_plan = prediction;
    }

    /// The job outlived its prediction.
    pub fn miss(&mut self) {
        self.misses += 1;
    }

    /// The time-weighted figures; a job that lived no time at all is judged by its last
    /// prediction.
    pub fn finish(self) -> Accuracy {
        let (absolute_inaccuracy, relative_accuracy) = if self.total > 0 {
            let t = self.total as f64;
            (self.absolute / t, self.relative / t)
        } else {
            let mut once = AccuracyTally::new(self.runtime, self.last_plan);
            once.add(1, self.last_plan);
            (once.absolute, once.relative)
        };
        Accuracy {
            absolute_inaccuracy,
            relative_accuracy,
            misses: self.misses,
            first_plan: self.first_plan,
        }
    }
}

impl JobOutcome {
    /// Seconds spent waiting.
    pub fn wait(&self) -> Time {
        self.start - self.submit
    }
    /// Seconds actually run.
    pub fn runtime(&self) -> Time {
        self.end - self.start
    }
    /// Seconds from submission to end.
    pub fn response(&self) -> Time {
        self.end - self.submit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Talby et al. 2006, Eq. 1-2 with time weighting: a job submitted at 0 that ran 100 s,
    /// predicted 50 for its first 60 s of life and 200 for the last 140.
    #[test]
    fn accuracy_is_time_weighted() {
        let mut t = AccuracyTally::new(100, 50);
        t.add(60, 50);
        t.miss();
        t.add(140, 200);
        let a = t.finish();
        assert!((a.absolute_inaccuracy - (0.3 * 50.0 + 0.7 * 100.0)).abs() < 1e-12);
        assert!((a.relative_accuracy - (0.3 * 0.5 + 0.7 * 0.5)).abs() < 1e-12);
        assert_eq!((a.misses, a.first_plan), (1, 50));
        let mut exact = AccuracyTally::new(7, 7);
        exact.add(0, 7);
        let exact = exact.finish();
        assert_eq!(
            (exact.absolute_inaccuracy, exact.relative_accuracy),
            (0.0, 1.0)
        );
        let mut zero = AccuracyTally::new(0, 10);
        zero.add(5, 10);
        assert_eq!(zero.finish().relative_accuracy, 0.0);
        let mut instant = AccuracyTally::new(4, 10);
        instant.add(0, 12);
        let instant = instant.finish();
        assert_eq!(
            (
                instant.absolute_inaccuracy,
                instant.relative_accuracy,
                instant.first_plan
            ),
            (8.0, 4.0 / 12.0, 10)
        );
    }

    #[test]
    fn runtime_classes_have_inclusive_upper_bounds() {
        assert_eq!(RuntimeClass::of(0), RuntimeClass::Short);
        assert_eq!(RuntimeClass::of(60), RuntimeClass::Short);
        assert_eq!(RuntimeClass::of(61), RuntimeClass::Medium);
        assert_eq!(RuntimeClass::of(600), RuntimeClass::Medium);
        assert_eq!(RuntimeClass::of(601), RuntimeClass::Long);
    }
}
