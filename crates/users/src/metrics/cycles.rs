//! The daily and weekly cycle of a run: arrivals, queue length and utilization by local
//! hour of the week (Feitelson 2021, Fig. 21: queues build up in the morning and drain in the
//! evening or at night).
//!
//! The state after each scheduling pass (jobs waiting, processors busy) holds until the
//! next pass; each span is split at local hour boundaries and added to its hour of the
//! week, so the figures are exact time averages over the whole run.

use std::io::{self, Write};

use serde::Serialize;

use crate::job::JobRequest;
use crate::localtime::{SiteClock, WEEKDAYS};
use crate::sched::SystemView;
use crate::sim::Observer;
use crate::textfmt::{Fixed, write_csv};
use crate::time::{HOUR, Time};

const HOURS_OF_WEEK: usize = 168;

#[derive(Debug, Clone, Copy, Default)]
struct Bucket {
    arrivals: u64,
    seconds: i64,
    queue_seconds: i128,
    busy_seconds: i128,
}

/// Accumulates the run by local hour of the week.
#[derive(Debug, Clone)]
pub struct CycleRecorder {
    clock: SiteClock,
    procs: u32,
    buckets: Vec<Bucket>,
    /// The state since `since`: jobs waiting and processors busy.
    since: Option<Time>,
    queue: u64,
    busy: u64,
    /// The hour of week `since` falls in, and when that hour ends.
    hour: usize,
    hour_end: Time,
}

/// Averages over one hour of the day or one day of the week.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CyclePoint {
    /// The hour (0-23) or the day (`Mon` ... `Sun`).
    pub label: &'static str,
    /// Jobs submitted in it, per occurrence (per day for hours, per week for days).
    pub arrivals: f64,
    /// Mean jobs waiting.
    pub mean_queue: f64,
    /// Mean share of processors busy.
    pub utilization: f64,
}

/// The cycle of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CycleSummary {
    /// The zone local times are taken in.
    pub time_zone: String,
    /// By hour of the day.
    pub by_hour: Vec<CyclePoint>,
    /// By day of the week.
    pub by_weekday: Vec<CyclePoint>,
}

const HOUR_LABELS: [&str; 24] = [
    "00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14", "15",
    "16", "17", "18", "19", "20", "21", "22", "23",
];

impl CycleRecorder {
    /// A recorder on `clock` for a machine of `procs` processors.
    pub fn new(clock: SiteClock, procs: u32) -> Self {
        CycleRecorder {
            clock,
            procs,
            buckets: vec![Bucket::default(); HOURS_OF_WEEK],
            since: None,
            queue: 0,
            busy: 0,
            hour: 0,
            hour_end: Time::MIN,
        }
    }

    /// Adds the current state from `since` up to `t`.
    fn advance(&mut self, t: Time) {
        let Some(mut from) = self.since else {
            self.since = Some(t);
            self.locate(t);
            return;
        };
        while from < t {
            if from >= self.hour_end {
                self.locate(from);
            }
            let to = t.min(self.hour_end);
            let b = &mut self.buckets[self.hour];
            let d = to - from;
            b.seconds += d;
            b.queue_seconds += i128::from(self.queue) * i128::from(d);
            b.busy_seconds += i128::from(self.busy) * i128::from(d);
            from = to;
        }
        self.since = Some(t);
        if t >= self.hour_end {
            self.locate(t);
        }
    }

    fn locate(&mut self, t: Time) {
        self.hour = self.clock.local(t).hour_of_week();
        self.hour_end = self.clock.next_hour(t);
    }

    fn point(
        &self,
        label: &'static str,
        hours: impl Iterator<Item = usize>,
        per: f64,
    ) -> CyclePoint {
        let mut sum = Bucket::default();
        for h in hours {
            let b = &self.buckets[h];
            sum.arrivals += b.arrivals;
            sum.seconds += b.seconds;
            sum.queue_seconds += b.queue_seconds;
            sum.busy_seconds += b.busy_seconds;
        }
        let secs = sum.seconds.max(1) as f64;
        CyclePoint {
            label,
            // Occurrences of this hour (or day) in the run: its seconds over its length.
            arrivals: sum.arrivals as f64 / (sum.seconds as f64 / per).max(1.0),
            mean_queue: sum.queue_seconds as f64 / secs,
            utilization: sum.busy_seconds as f64 / (secs * f64::from(self.procs)),
        }
    }

    /// Averages by hour of day and by day of week.
    pub fn summary(&self) -> CycleSummary {
        CycleSummary {
            time_zone: self.clock.zone_name().to_owned(),
            by_hour: (0..24)
                .map(|h| self.point(HOUR_LABELS[h], (0..7).map(|d| d * 24 + h), HOUR as f64))
                .collect(),
            by_weekday: (0..7)
                .map(|d| self.point(WEEKDAYS[d], d * 24..d * 24 + 24, 24.0 * HOUR as f64))
                .collect(),
        }
    }

    /// Writes one row per hour of the week.
    pub fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
        write_csv(
            w,
            self.buckets.iter().enumerate().map(|(i, b)| {
                let secs = b.seconds.max(1) as f64;
                HourRow {
                    weekday: WEEKDAYS[i / 24],
                    hour: i % 24,
                    seconds: b.seconds,
                    arrivals: b.arrivals,
                    mean_queue: Fixed(b.queue_seconds as f64 / secs),
                    utilization: Fixed(b.busy_seconds as f64 / (secs * f64::from(self.procs))),
                }
            }),
        )
    }
}

/// A row of `cycles.csv`: one hour of the week.
#[derive(Serialize, Default)]
struct HourRow {
    weekday: &'static str,
    hour: usize,
    seconds: i64,
    arrivals: u64,
    mean_queue: Fixed<4>,
    utilization: Fixed<4>,
}

impl Observer for CycleRecorder {
    fn on_submit(&mut self, now: Time, _job: &JobRequest) {
        self.advance(now);
        self.buckets[self.hour].arrivals += 1;
    }

    fn on_pass(&mut self, view: &SystemView<'_>) {
        self.advance(view.now);
        self.queue = view.queue().len() as u64;
        self.busy = u64::from(view.total - view.free);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::{Queue, RunningJob};

    #[test]
    fn spans_split_at_hour_boundaries() {
        // UTC from the epoch: time 0 is Thursday 00:00.
        let mut c = CycleRecorder::new(SiteClock::utc(), 10);
        let queue = Queue::new();
        let running: Vec<RunningJob> = Vec::new();
        let users = crate::sched::UserTable::new();
        c.on_pass(&SystemView::new(1800, 10, 4, &queue, &running, &users));
        // 6 busy from 00:30 to 02:15.
        c.on_pass(&SystemView::new(
            2 * HOUR + 900,
            10,
            10,
            &queue,
            &running,
            &users,
        ));
        let thu = 3 * 24;
        assert_eq!(c.buckets[thu].seconds, 1800);
        assert_eq!(c.buckets[thu].busy_seconds, 6 * 1800);
        assert_eq!(c.buckets[thu + 1].busy_seconds, 6 * 3600);
        assert_eq!(c.buckets[thu + 2].busy_seconds, 6 * 900);
        let s = c.summary();
        assert!((s.by_hour[1].utilization - 0.6).abs() < 1e-12);
        assert_eq!(s.by_weekday[3].label, "Thu");
        assert!((s.by_weekday[3].utilization - 6.0 * 6300.0 / (10.0 * 6300.0)).abs() < 1e-12);
    }
}
