//! Switching on a schedule: one policy during the local working hours, another at night.

use super::{AdaptiveReport, Candidate, Candidates};
use crate::job::{JobId, JobRequest};
use crate::localtime::SiteClock;
use crate::sched::{BuildContext, RunningJob, Scheduler, SystemView};
use crate::time::{DAY, HOUR, Time};

/// The parameters of [`TimeOfDay`].
#[derive(Debug, Clone, PartialEq)]
pub struct TimeOfDayParams {
    /// The policy during the day.
    pub day: Candidate,
    /// The policy at night.
    pub night: Candidate,
    /// The first local hour of the day, 0-24.
    pub day_start: u8,
    /// The local hour at which the night begins, 0-24. If it is before `day_start`, the
    /// day runs over midnight; if it equals it, there is no day.
    pub day_end: u8,
}

impl TimeOfDayParams {
    /// Checks the ranges.
    pub fn check(&self) -> Result<(), String> {
        for (key, h) in [("day_start", self.day_start), ("day_end", self.day_end)] {
            if h > 24 {
                return Err(format!(
                    "time-of-day: {key} must be an hour from 0 to 24, not {h}"
                ));
            }
        }
        Ok(())
    }
}

/// Switching on a schedule: the `day` policy during the local hours
/// `[day_start, day_end)` of every day, the `night` policy otherwise. The hand-over happens
/// at the hour boundary (a pass is asked for then), on the site's clock, so daylight
/// saving time is followed.
///
/// It reports no promises: a switch legitimately moves reservations.
#[derive(Clone)]
pub struct TimeOfDay {
    candidates: Candidates,
    clock: SiteClock,
    day_start: u8,
    day_end: u8,
    /// The next hour boundary at which day turns to night or back.
    next_switch: Option<Time>,
}

impl TimeOfDay {
    const DAY: usize = 0;
    const NIGHT: usize = 1;

    /// Time-of-day switching for `ctx` (`params` checked by [`TimeOfDayParams::check`]).
    pub fn new(params: &TimeOfDayParams, ctx: &BuildContext) -> Self {
        TimeOfDay {
            candidates: Candidates::new([&params.day, &params.night], ctx),
            clock: ctx.clock.clone(),
            day_start: params.day_start,
            day_end: params.day_end,
            next_switch: None,
        }
    }

    /// Whether local hour `hour` is in the day.
    fn is_day_hour(&self, hour: u8) -> bool {
        let (start, end) = (self.day_start, self.day_end);
        if start <= end {
            (start..end).contains(&hour)
        } else {
            hour >= start || hour < end
        }
    }

    /// The candidate for time `t`.
    fn wanted(&self, t: Time) -> usize {
        if self.is_day_hour(self.clock.local(t).hour) {
            Self::DAY
        } else {
            Self::NIGHT
        }
    }

    /// The first hour boundary after `t` with the other candidate; `None` if the day is
    /// empty or the whole day.
    fn next_change(&self, t: Time) -> Option<Time> {
        let now = self.wanted(t);
        let mut at = t;
        while at - t <= DAY + 2 * HOUR {
            at = self.clock.next_hour(at);
            if self.wanted(at) != now {
                return Some(at);
            }
        }
        None
    }

    fn begin(&mut self, now: Time) {
        if !self.candidates.started() {
            self.candidates.begin(now, self.wanted(now));
            self.next_switch = self.next_change(now);
        }
    }

    /// How the policies were used.
    pub fn report(&self) -> AdaptiveReport {
        self.candidates.report("time-of-day")
    }
}

impl Scheduler for TimeOfDay {
    fn fault(&self) -> Option<String> {
        self.candidates.scheduler.fault()
    }

    fn run_report(&self) -> Option<serde_json::Value> {
        serde_json::to_value(TimeOfDay::report(self)).ok()
    }

    fn name(&self) -> &str {
        "time-of-day"
    }

    /// Adopts the state in `view` under the policy of `view.now`.
    fn sync(&mut self, view: &SystemView<'_>) {
        self.candidates.sync(self.wanted(view.now), view);
        self.next_switch = self.next_change(view.now);
    }

    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        self.begin(view.now);
        self.candidates.scheduler.on_submit(job, view);
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        self.begin(view.now);
        self.candidates.scheduler.on_end(job, view);
    }

    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        self.begin(view.now);
        self.candidates
            .scheduler
            .on_replan(job, old_plan, started, view);
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let now = view.now;
        self.begin(now);
        self.candidates.pass(view);
        if self.next_switch.is_some_and(|t| now >= t) {
            self.candidates.switch(self.wanted(now), view);
            self.next_switch = self.next_change(now);
        }
        self.candidates.scheduler.schedule(view, starts);
    }

    fn accepts_predictions(&self) -> bool {
        self.candidates.accepts_predictions()
    }

    fn wake_at(&self) -> Option<Time> {
        self.candidates.wake_at(self.next_switch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::{Easy, Fcfs, builder};

    #[test]
    fn time_of_day_switches_at_hour_boundaries() {
        let params = TimeOfDayParams {
            day: Candidate::new("fcfs", builder(|_| Fcfs)),
            night: Candidate::new("easy", builder(|_| Easy::new())),
            day_start: 8,
            day_end: 18,
        };
        let t = TimeOfDay::new(&params, &BuildContext::new(4));
        // Time 0 is midnight UTC.
        assert_eq!(t.wanted(7 * HOUR + 3599), TimeOfDay::NIGHT);
        assert_eq!(t.wanted(8 * HOUR), TimeOfDay::DAY);
        assert_eq!(t.next_change(100), Some(8 * HOUR));
        assert_eq!(t.next_change(8 * HOUR), Some(18 * HOUR));
        assert_eq!(t.next_change(20 * HOUR), Some(DAY + 8 * HOUR));
        let over_midnight = TimeOfDay::new(
            &TimeOfDayParams {
                day_start: 22,
                day_end: 6,
                ..params.clone()
            },
            &BuildContext::new(4),
        );
        assert_eq!(over_midnight.wanted(HOUR), TimeOfDay::DAY);
        assert_eq!(over_midnight.wanted(12 * HOUR), TimeOfDay::NIGHT);
        for (start, end) in [(0, 24), (5, 5)] {
            let never = TimeOfDay::new(
                &TimeOfDayParams {
                    day_start: start,
                    day_end: end,
                    ..params.clone()
                },
                &BuildContext::new(4),
            );
            assert_eq!(never.next_change(0), None, "[{start}, {end})");
        }
    }
}
