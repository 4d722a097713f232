//! The processors a log's own schedule keeps busy: every job with a known wait runs from
//! its logged start (submit plus wait) for its runtime on its processors. A simulated
//! machine smaller than the peak cannot have given the log's service: the log replayed
//! on it is overloaded by construction, and a closed loop calibrated against that
//! service has nothing to compare with.
//!
//! Logs are not always consistent with their own machine (KTH's schedule keeps up to 104
//! of its 100 processors busy, for 40 minutes of its year), so the check is against the
//! **sustained peak**: the most processors the schedule keeps busy for more than
//! [`SUSTAINED`] of the time from its first start to its last end.
//!
//! Records come in submit order and no job starts before it is submitted, so every start
//! and end before the current submission is final: the sweep holds only the jobs that
//! have not ended by then, and a log of any length streams through.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use serde::Serialize;

use crate::swf::SwfRecord;
use crate::time::Time;

/// The share of the schedule's time above its sustained peak.
pub const SUSTAINED: f64 = 0.001;

/// Busy-processor counts kept in a vector (the others, in logs of giant jobs, in a map).
const DENSE_BUSY: usize = 1 << 20;

/// The peak of processors a log's own schedule keeps busy, as the log is read.
#[derive(Debug, Clone, Default)]
pub struct LoggedPeak {
    /// Starts (+size) and ends (-size) not yet swept, by time; at one time ends first.
    events: BinaryHeap<Reverse<(Time, i64)>>,
    busy: i64,
    /// The time of the last event swept.
    last: Option<Time>,
    /// Seconds spent at each number of busy processors, by that number, below
    /// [`DENSE_BUSY`]; at larger numbers (a log of giant jobs) in `time_above`.
    time_at: Vec<Time>,
    time_above: BTreeMap<i64, Time>,
    peak: Peak,
}

/// What [`LoggedPeak`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Peak {
    /// The most processors the logged schedule keeps busy at once.
    pub procs: u64,
    /// When it first does, in the log's time.
    pub at: Time,
    /// The most it keeps busy for more than [`SUSTAINED`] of its time: what a machine
    /// must hold to give the log's service.
    pub sustained: u64,
    /// Jobs counted: those with a known wait, a runtime and a size.
    pub jobs: u64,
    /// Jobs left out: a wait, runtime or size unknown.
    pub unknown: u64,
    /// Jobs counted with a wait the log does not give (estimated by an open-loop replay,
    /// or taken as 0, as `--unknown-waits` chose).
    pub assumed_waits: u64,
}

impl LoggedPeak {
    /// Counts the job of `r` (records in submit order).
    pub fn observe(&mut self, r: &SwfRecord) {
        let size = if r.alloc_procs > 0 {
            r.alloc_procs
        } else {
            r.req_procs
        };
        self.observe_run(r.submit, r.wait, r.run, size);
    }

    /// Counts a job submitted at `submit` (in submit order) that waited `wait` and ran
    /// `run` on `size` processors; a negative value is unknown.
    pub fn observe_run(&mut self, submit: Time, wait: Time, run: Time, size: i64) {
        if wait < 0 || run < 0 || size <= 0 {
            self.peak.unknown += 1;
            return;
        }
        self.sweep(submit);
        self.peak.jobs += 1;
        if run > 0 {
            let start = submit.saturating_add(wait);
            self.events.push(Reverse((start, size)));
            self.events
                .push(Reverse((start.saturating_add(run), -size)));
        }
    }

    /// Counts a job as [`LoggedPeak::observe_run`] does, with a wait the log does not
    /// give.
    pub fn observe_assumed(&mut self, submit: Time, wait: Time, run: Time, size: i64) {
        self.observe_run(submit, wait, run, size);
        self.peak.assumed_waits += 1;
    }

    /// Applies every event before `t`.
    fn sweep(&mut self, t: Time) {
        while let Some(&Reverse((at, delta))) = self.events.peek()
            && at < t
        {
            self.events.pop();
            if let Some(last) = self.last
                && at > last
            {
                // Ends come before starts at one time, and each follows its start: the
                // count of busy processors never goes below 0.
                let busy = self.busy.max(0);
                match usize::try_from(busy) {
                    Ok(b) if b < DENSE_BUSY => {
                        if self.time_at.len() <= b {
                            self.time_at.resize(b + 1, 0);
                        }
                        self.time_at[b] += at - last;
                    }
                    _ => *self.time_above.entry(busy).or_default() += at - last,
                }
            }
            self.last = Some(at);
            self.busy += delta;
            if self.busy > self.peak.procs as i64 {
                self.peak.procs = self.busy as u64;
                self.peak.at = at;
            }
        }
    }

    /// The peak over the jobs observed so far, every one of them run to its end.
    pub fn peak(&self) -> Peak {
        let mut rest = self.clone();
        rest.sweep(Time::MAX);
        let total: Time =
            rest.time_at.iter().sum::<Time>() + rest.time_above.values().sum::<Time>();
        let allowed = (total as f64 * SUSTAINED) as Time;
        let mut above = 0;
        let mut sustained = 0;
        let by_busy = rest.time_above.iter().rev().map(|(&b, &t)| (b as u64, t));
        let dense = rest.time_at.iter().enumerate().rev();
        for (busy, time) in by_busy.chain(dense.map(|(b, &t)| (b as u64, t))) {
            above += time;
            if above > allowed {
                sustained = busy;
                break;
            }
        }
        Peak {
            sustained,
            ..rest.peak
        }
    }
}

/// The check of a simulated machine against a log's own schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MachineCheck {
    /// Processors of the simulated machine.
    pub simulated: u32,
    /// The header's `MaxProcs`, if it gives one.
    pub header_max_procs: Option<i64>,
    /// The peak of the log's own schedule.
    pub logged_peak: Peak,
    /// Whether the simulated machine holds the log's own schedule (it is no smaller than
    /// the peak).
    pub holds_the_log: bool,
}

impl MachineCheck {
    /// A machine of `simulated` processors against a log whose header gives
    /// `header_max_procs` and whose schedule peaks at `logged_peak`.
    pub fn new(simulated: u32, header_max_procs: Option<i64>, logged_peak: Peak) -> Self {
        MachineCheck {
            simulated,
            header_max_procs,
            logged_peak,
            holds_the_log: u64::from(simulated) >= logged_peak.sustained,
        }
    }

    /// Whether the simulated machine can hold the log's own schedule.
    pub fn holds_the_log(&self) -> bool {
        self.holds_the_log
    }

    /// The sizes side by side, in one line: the simulated machine, the header's, and the
    /// processors the log's own schedule has busy (more than the sustained peak in at
    /// most [`SUSTAINED`] of its time), or that it gives no schedule (no job with a known
    /// wait, runtime and size: a synthetic log).
    pub fn render(&self) -> String {
        let p = &self.logged_peak;
        let schedule = if p.jobs == 0 {
            "the log gives no schedule of its own (no job with a known wait, runtime and \
             size)"
                .to_owned()
        } else {
            format!(
                "the log's own schedule has more than {} processors busy in at most {}% of \
                 its time, {} at most",
                p.sustained,
                100.0 * SUSTAINED,
                p.procs
            )
        };
        format!(
            "{} processors simulated; header MaxProcs {}; {schedule}{}",
            self.simulated,
            self.header_max_procs
                .map_or_else(|| "absent".to_owned(), |p| p.to_string()),
            match (p.unknown, p.assumed_waits) {
                (0, 0) => String::new(),
                (_, 0) if p.jobs == 0 => String::new(),
                (unknown, 0) =>
                    format!(" ({unknown} jobs without a known wait, runtime or size left out)"),
                (0, assumed) => format!(" ({assumed} jobs with their waits estimated)"),
                (unknown, assumed) => format!(
                    " ({assumed} jobs with their waits estimated, {unknown} without a runtime or size left out)"
                ),
            }
        )
    }

    /// The warning for a machine smaller than the log's own schedule, if it is.
    pub fn warning(&self, file: &str) -> Option<String> {
        (!self.holds_the_log()).then(|| {
            format!(
                "{file}: the simulated machine of {} processors is smaller than the {} the \
                 log's own schedule keeps busy for more than {}% of its time: the log's load \
                 does not fit it, and every comparison with the log's service is against a \
                 bigger machine; give the log's size with --procs",
                self.simulated,
                self.logged_peak.sustained,
                100.0 * SUSTAINED
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The peak and the time at each busy count of `jobs` (`(submit, wait, run, size)`,
    /// in submit order), from all their starts and ends sorted at once, ends first at
    /// one time.
    fn reference(jobs: &[(Time, Time, Time, i64)]) -> (u64, Time, Vec<(i64, Time)>) {
        let mut events: Vec<(Time, i64)> = jobs
            .iter()
            .filter(|j| j.2 > 0)
            .flat_map(|&(submit, wait, run, size)| {
                [(submit + wait, size), (submit + wait + run, -size)]
            })
            .collect();
        events.sort_unstable();
        let (mut busy, mut peak, mut at, mut last) = (0i64, 0u64, 0, None);
        let mut time_at = BTreeMap::new();
        for (t, delta) in events {
            if let Some(l) = last
                && t > l
            {
                *time_at.entry(busy).or_insert(0) += t - l;
            }
            last = Some(t);
            busy += delta;
            if busy > peak as i64 {
                (peak, at) = (busy as u64, t);
            }
        }
        (peak, at, time_at.into_iter().filter(|e| e.1 > 0).collect())
    }

    proptest! {
        /// The sweep at every submission gives what sorting every event at once gives.
        #[test]
        fn the_sweep_is_the_sorted_schedule(
            mut jobs in prop::collection::vec(
                (0i64..5_000, prop_oneof![Just(0i64), 0i64..2_000], 0i64..3_000, 1i64..64),
                1..200,
            )
        ) {
            jobs.sort_by_key(|j| j.0);
            let mut p = LoggedPeak::default();
            for &(submit, wait, run, size) in &jobs {
                p.observe_run(submit, wait, run, size);
            }
            let mut rest = p.clone();
            rest.sweep(Time::MAX);
            let time_at: Vec<(i64, Time)> = rest
                .time_at
                .iter()
                .enumerate()
                .filter(|e| *e.1 > 0)
                .map(|(b, &t)| (b as i64, t))
                .collect();
            let (peak, at, expected) = reference(&jobs);
            prop_assert_eq!((rest.peak.procs, rest.peak.at), (peak, at));
            prop_assert_eq!(time_at, expected);
        }
    }

    fn job(submit: Time, wait: Time, run: Time, size: i64) -> SwfRecord {
        SwfRecord {
            job: 1,
            submit,
            wait,
            run,
            alloc_procs: size,
            req_procs: size,
            req_time: run,
            status: 1,
            user: 1,
            ..SwfRecord::UNKNOWN
        }
    }

    #[test]
    fn the_peak_of_a_hand_made_schedule() {
        let mut p = LoggedPeak::default();
        // [0, 100) on 4; [10, 60) on 3; [50, 150) on 2 (submitted at 20, waited 30);
        // a job that starts as another ends shares none of its time: [100, 110) on 5.
        for r in [
            job(0, 0, 100, 4),
            job(10, 0, 50, 3),
            job(20, 30, 100, 2),
            job(100, 0, 10, 5),
            job(200, -1, 10, 64),
            job(210, 0, 0, 64),
        ] {
            p.observe(&r);
        }
        // 4 + 3 + 2 = 9 from 50 to 60 (a tenth of the schedule's 110 s, which is more
        // than the sustained share); 5 + 2 = 7 from 100.
        assert_eq!(
            p.peak(),
            Peak {
                procs: 9,
                at: 50,
                sustained: 9,
                jobs: 5,
                unknown: 1,
                assumed_waits: 0
            }
        );
        let check = MachineCheck::new(8, Some(8), p.peak());
        assert!(!check.holds_the_log());
        assert!(
            check
                .warning("x.swf")
                .unwrap()
                .contains("smaller than the 9")
        );
        assert!(
            MachineCheck::new(9, Some(8), p.peak())
                .warning("x.swf")
                .is_none()
        );
        // The line says what is true: more than 9 busy in no more than 0.1% of the time
        // (none at all), 9 at most; a log without a schedule of its own says so.
        assert_eq!(
            MachineCheck::new(9, Some(8), p.peak()).render(),
            "9 processors simulated; header MaxProcs 8; the log's own schedule has more than \
             9 processors busy in at most 0.1% of its time, 9 at most (1 jobs without a \
             known wait, runtime or size left out)"
        );
        let unknown = Peak {
            unknown: 10,
            ..Peak::default()
        };
        assert_eq!(
            MachineCheck::new(256, None, unknown).render(),
            "256 processors simulated; header MaxProcs absent; the log gives no schedule of \
             its own (no job with a known wait, runtime and size)"
        );
        // A peak held for less than the sustained share of the time is the log's noise:
        // 100 processors for 100,000 s, 104 for 10 of them.
        let mut p = LoggedPeak::default();
        p.observe(&job(0, 0, 100_000, 100));
        p.observe(&job(500, 0, 10, 4));
        let peak = p.peak();
        assert_eq!((peak.procs, peak.sustained), (104, 100));
        assert!(MachineCheck::new(100, Some(100), peak).holds_the_log());
    }
}
