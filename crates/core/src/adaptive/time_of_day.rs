//! Switching on a schedule: one policy during the local working hours, another at night.

use super::{Candidate, Candidates, Rule, Switching};
use crate::localtime::SiteClock;
use crate::sched::{BuildContext, SystemView};
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
pub type TimeOfDay = Switching<TimeOfDayRule>;

/// Time-of-day's rule: the hours and the site's clock.
#[derive(Debug, Clone)]
pub struct TimeOfDayRule {
    clock: SiteClock,
    day_start: u8,
    day_end: u8,
    /// The next hour boundary at which day turns to night or back.
    next_switch: Option<Time>,
}

impl TimeOfDayRule {
    const DAY: usize = 0;
    const NIGHT: usize = 1;

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

    /// The candidate of `now`, with the next switch after it.
    fn at(&mut self, now: Time) -> usize {
        self.next_switch = self.next_change(now);
        self.wanted(now)
    }
}

impl Rule for TimeOfDayRule {
    const NAME: &'static str = "time-of-day";
    type Params = TimeOfDayParams;

    fn candidates(params: &TimeOfDayParams) -> Vec<&Candidate> {
        vec![&params.day, &params.night]
    }

    fn new(params: &TimeOfDayParams, ctx: &BuildContext) -> Self {
        TimeOfDayRule {
            clock: ctx.clock.clone(),
            day_start: params.day_start,
            day_end: params.day_end,
            next_switch: None,
        }
    }

    fn begin(&mut self, view: &SystemView<'_>, _arrival: bool) -> usize {
        self.at(view.now)
    }

    /// Adopts the state in `view` under the policy of `view.now`.
    fn sync(&mut self, view: &SystemView<'_>, _active: usize) -> usize {
        self.at(view.now)
    }

    fn switch_at(&self) -> Option<Time> {
        self.next_switch
    }

    fn choose(&mut self, view: &SystemView<'_>, _candidates: &mut Candidates) -> usize {
        self.at(view.now)
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
        let t = TimeOfDayRule::new(&params, &BuildContext::new(4));
        // Time 0 is midnight UTC.
        assert_eq!(t.wanted(7 * HOUR + 3599), TimeOfDayRule::NIGHT);
        assert_eq!(t.wanted(8 * HOUR), TimeOfDayRule::DAY);
        assert_eq!(t.next_change(100), Some(8 * HOUR));
        assert_eq!(t.next_change(8 * HOUR), Some(18 * HOUR));
        assert_eq!(t.next_change(20 * HOUR), Some(DAY + 8 * HOUR));
        let over_midnight = TimeOfDayRule::new(
            &TimeOfDayParams {
                day_start: 22,
                day_end: 6,
                ..params.clone()
            },
            &BuildContext::new(4),
        );
        assert_eq!(over_midnight.wanted(HOUR), TimeOfDayRule::DAY);
        assert_eq!(over_midnight.wanted(12 * HOUR), TimeOfDayRule::NIGHT);
        for (start, end) in [(0, 24), (5, 5)] {
            let never = TimeOfDayRule::new(
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
