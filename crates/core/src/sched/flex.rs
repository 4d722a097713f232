//! Flex (Talby and Feitelson 1999, as Talby 2006 §2 describes it): conservative
//! backfilling whose queue order is chosen, not fixed. "Whenever a decision has to be
//! made, all possible queues are compared, and the best one (according to a configurable
//! criteria) is chosen ... Each possible schedule is graded, suffering a penalty for every
//! job that must wait. To prevent starvation, Flex introduces the concept of slack: each
//! job is given a slack upon arrival, and it can never be delayed by more than its slack."
//!
//! The thesis gives neither the slack rule nor the grade (its notes point to the 1999
//! paper); what sitesim does, each choice named:
//!
//! * **Schedule.** Every waiting job holds a reservation in the availability profile, as
//!   under conservative backfilling ([`super::Conservative`]); the reservations follow
//!   Flex's queue order instead of the submission order.
//! * **Slack.** On arrival a job's **guarantee** is the start it would get at the end of
//!   the queue plus its slack, `slack_factor` (1) times the mean wait of the jobs started
//!   so far: our choice (the thesis defers to the 1999 paper, not among the seeds), a
//!   slack that scales with the load. No schedule that starts a job after its guarantee is
//!   ever chosen, and the guarantees are what the policy promises the invariant checker.
//!   The 1999 paper's abstract gives "important" and "heavy" jobs little slack; its
//!   importance is a priority the site configures, which a log does not carry, so only
//!   weight is recovered: with `slack = "size"` a job's slack is the uniform one times
//!   the share of the machine it leaves free, 1 − processors / machine (a job on the whole
//!   machine gets none). `slack = "uniform"` (one rule for every job) is the default, as
//!   the thesis describes one slack for all ("each job is given a slack upon arrival").
//! * **Candidates.** At an arrival, the new job is tried at every place in the queue, from
//!   the end to the front (the seed's example: "running the new job first, in the middle,
//!   and last"): the jobs before the place keep their reservations, and the new job and
//!   the jobs after it are placed again in order at their earliest fits. A place where the
//!   new job would start no earlier than at a place nearer the end is skipped (it would
//!   move more jobs for the same start), a candidate is dropped as soon as a job misses
//!   its guarantee or the grade passes the best one's, and the search stops once the new
//!   job starts as early as it could with no waiting job ahead of it. `depth` bounds the
//!   places tried (0: all).
//! * **Ends.** At an end before the estimate the schedule is compressed in Flex's order, as
//!   conservative backfilling does: every job moves earlier or stays, so every guarantee
//!   holds (`regrade = "arrivals"`, the default). The thesis compares the queues at "job
//!   arrival, termination or cancellation events" (a job cancelled in a log is one that
//!   ends); with `regrade = "events"` each waiting job that the free processors could
//!   start now, but that is reserved later, is then tried at the front of the queue, the
//!   others placed again in Flex's order, and the best candidate by the grade in which
//!   every job keeps its guarantee replaces the compressed schedule. That costs a
//!   placement of the whole queue per such job at every early end: on the Curie sample,
//!   15 s against 1.6 s, which is why it is not the default (docs/PERFORMANCE.md).
//! * **Grade.** The sum over the waiting jobs of a penalty for each: its planned wait
//!   (`grade = "wait"`, the default), its planned bounded slowdown (`"bsld"`, threshold
//!   10 s), or 1 for every job that must wait (`"waiting"`). The lowest grade wins; ties
//!   go to the place nearer the end (fewer jobs moved).

use super::Profile;
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// How a candidate schedule is graded: the penalty of each waiting job, summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grade {
    /// Its planned wait, seconds.
    Wait,
    /// Its planned bounded slowdown (threshold 10 s).
    Bsld,
    /// 1 if it must wait.
    Waiting,
}

impl Grade {
    /// The penalty of `job` planned to start at `start`, seen at `now`.
    pub(super) fn penalty(self, job: &JobRequest, start: Time, now: Time) -> f64 {
        match self {
            Grade::Wait => (start - job.submit) as f64,
            Grade::Bsld => {
                let run = job.plan.max(0) as f64;
                ((start - job.submit) as f64 + run) / run.max(10.0)
            }
            .max(1.0),
            Grade::Waiting => f64::from(u8::from(start > now)),
        }
    }
}

/// When Flex compares candidate schedules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Regrade {
    /// At arrivals only; an end compresses the schedule in Flex's order (the default).
    Arrivals,
    /// At arrivals and at ends before the estimate, as Talby 2006, §2 says ("job
    /// arrival, termination or cancellation events").
    Events,
}

/// How a job's slack is set on arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Slack {
    /// `slack_factor` mean waits for every job (the default).
    Uniform,
    /// The uniform slack times 1 − processors / machine: heavy jobs get little
    /// (Talby and Feitelson 1999).
    Size,
}

/// Flex's knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlexParams {
    /// A job's slack in mean waits of the jobs started so far.
    pub slack_factor: f64,
    /// How the slack depends on the job.
    pub slack: Slack,
    /// How candidate schedules are graded.
    pub grade: Grade,
    /// When candidate schedules are compared.
    pub regrade: Regrade,
    /// The most places tried for an arrival, from the end of the queue; 0: all.
    pub depth: usize,
}

impl Default for FlexParams {
    fn default() -> Self {
        FlexParams {
            slack_factor: 1.0,
            slack: Slack::Uniform,
            grade: Grade::Wait,
            regrade: Regrade::Arrivals,
            depth: 0,
        }
    }
}

impl FlexParams {
    /// The parameters of a named preset, which explicit keys then override: `none` (the
    /// defaults: a slack of one mean wait, as no seed gives it, and candidates compared at
    /// arrivals, as comparing at every event costs ten times as much on a large queue) or
    /// `talby2006`, a calibration: of the settings tried on KTH (slack factors 0, 0.1,
    /// 0.2, 0.5, 1, 2 and 4; uniform at arrivals, by size at arrivals, uniform at every
    /// event), the one nearest Talby 2006, Table 8's Flex row, uniform at arrivals with a
    /// slack factor of 0.2 (docs/VALIDATION.md gives the fit).
    pub fn preset(name: &str) -> Result<FlexParams, String> {
        match name {
            "none" => Ok(FlexParams::default()),
            "talby2006" => Ok(FlexParams {
                slack_factor: 0.2,
                ..FlexParams::default()
            }),
            other => Err(format!(
                "preset: '{other}' is not a preset (none, talby2006)"
            )),
        }
    }

    /// Checks the ranges.
    pub fn check(&self) -> Result<(), String> {
        if !(self.slack_factor.is_finite() && self.slack_factor >= 0.0) {
            return Err(format!(
                "slack_factor must be a number of 0 or more, not {}",
                self.slack_factor
            ));
        }
        Ok(())
    }
}

/// Flex's state beside the conservative schedule it shapes.
#[derive(Debug, Clone)]
pub(super) struct Flex {
    pub(super) params: FlexParams,
    /// The waiting jobs in Flex's order.
    pub(super) order: Vec<JobRequest>,
    /// Each waiting job's guarantee, by id.
    latest: Vec<Time>,
    /// Waits of the jobs started so far: their sum and count.
    waited: (f64, u64),
    /// Scratch: the profile without the jobs taken out, and that of the candidate under
    /// study.
    pub(super) base: Profile,
    pub(super) candidate: Profile,
    /// Scratch: the starts of the candidate under study, and of the best.
    pub(super) starts: Vec<Time>,
    pub(super) best_starts: Vec<Time>,
    /// Scratch: the jobs an arrival's search took out of the profile, with their places.
    pub(super) removed: Vec<(usize, JobRequest)>,
}

impl Flex {
    pub(super) fn new(params: FlexParams) -> Self {
        Flex {
            params,
            order: Vec::new(),
            latest: Vec::new(),
            waited: (0.0, 0),
            base: Profile::new(0),
            candidate: Profile::new(0),
            starts: Vec::new(),
            best_starts: Vec::new(),
            removed: Vec::new(),
        }
    }

    pub(super) fn latest(&self, id: JobId) -> Time {
        self.latest.get(id as usize).copied().unwrap_or(Time::MAX)
    }

    pub(super) fn set_latest(&mut self, id: JobId, t: Time) {
        let i = id as usize;
        if self.latest.len() <= i {
            self.latest.resize(i + 1, Time::MAX);
        }
        self.latest[i] = t;
    }

    /// The slack of `job` arriving now on a machine of `total` processors:
    /// `slack_factor` times the mean wait so far, times the share of the machine it leaves
    /// free under [`Slack::Size`].
    pub(super) fn slack(&self, job: &JobRequest, total: u32) -> Time {
        if self.waited.1 == 0 {
            return 0;
        }
        let weight = match self.params.slack {
            Slack::Uniform => 1.0,
            Slack::Size => 1.0 - f64::from(job.size.min(total)) / f64::from(total.max(1)),
        };
        (weight * self.params.slack_factor * self.waited.0 / self.waited.1 as f64).round() as Time
    }

    /// A job of the queue starts now: it leaves the order, and its wait counts.
    pub(super) fn started(&mut self, job: &JobRequest, now: Time) {
        if let Some(i) = self.order.iter().position(|j| j.id == job.id) {
            self.order.remove(i);
        }
        self.waited.0 += (now - job.submit) as f64;
        self.waited.1 += 1;
    }

    /// After the schedule was placed again from scratch (a job ran past its estimate):
    /// a guarantee the new reservation passes moves to it.
    pub(super) fn raise(&mut self, id: JobId, start: Time) {
        if self.latest(id) < start {
            self.set_latest(id, start);
        }
    }

    /// Places `job` again in a candidate schedule, `profile`, at its earliest fit from
    /// `now`: its start goes to `starts` and its penalty to `total`. Returns whether it
    /// keeps its guarantee.
    pub(super) fn replace(
        &self,
        profile: &mut Profile,
        job: &JobRequest,
        now: Time,
        starts: &mut Vec<Time>,
        total: &mut f64,
    ) -> bool {
        let start = profile
            .earliest_fit(now, job.size, job.plan)
            .expect("a job no larger than the machine always fits eventually");
        profile.reserve(start, start + job.plan, job.size);
        starts.push(start);
        *total += self.params.grade.penalty(job, start, now);
        start <= self.latest(job.id)
    }

    /// The guarantees of the waiting jobs.
    pub(super) fn promises(&self, out: &mut Vec<(JobId, Time)>) {
        out.extend(self.order.iter().map(|j| (j.id, self.latest(j.id))));
    }
}
