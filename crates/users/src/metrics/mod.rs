//! Observers that turn a run into figures: per-job metrics (wait, response, bounded
//! slowdown, killed and backfilled flags), their summaries overall and by runtime class,
//! utilization, throughput, makespan and offered load, over a measurement window with
//! optional warm-up and cool-down exclusion; the run week by week; simulated sessions and
//! users; and the daily and weekly cycle.

mod cycles;
mod dist;
mod load;
mod per_job;
mod sessions;
mod slowdown;
mod spread;
mod stats;
mod weekly;
mod window;

use std::io::Write;

use serde::Serialize;

pub use cycles::{CyclePoint, CycleRecorder, CycleSummary};
pub use dist::{Dist, DistSummary};
pub use load::{LoadRecorder, LoadSummary, UserLoad};
pub use per_job::{CSV_HEADER, PerJobWriter, simulated_record};
pub use sessions::{
    SessionRecord, SessionRecorder, SessionsSummary, UserRecord, write_sessions_csv,
};
pub use slowdown::{Bsld, BsldForm};
pub use spread::Spread;
pub use stats::{
    AccuracySummary, ClassStats, ClassStatsSummary, JobMetrics, JobStats, JobStatsSummary,
};
pub use weekly::{WeekSeries, WeeklySeries};
pub use window::{BusyIntegral, Deferred};

use crate::job::{JobOutcome, JobRequest, RuntimeClass};
use crate::sim::Observer;
use crate::time::{DAY, HOUR, Time, WEEK};

/// What to measure and over which window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricsConfig {
    /// Processors of the machine (for utilization).
    pub procs: u32,
    /// Bounded slowdown settings.
    pub bsld: Bsld,
    /// Seconds after the first submission during which jobs are not measured.
    pub warmup: Time,
    /// Seconds before the last submission during which jobs are not measured.
    pub cooldown: Time,
}

/// The measurement window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Window {
    /// First submit time of the run.
    pub first_submit: Time,
    /// Last submit time of the run.
    pub last_submit: Time,
    /// Start of the window (first submit plus warm-up).
    pub start: Time,
    /// End of the window (last submit minus cool-down, or the last end without one).
    pub end: Time,
    /// Warm-up, seconds.
    pub warmup: Time,
    /// Cool-down, seconds.
    pub cooldown: Time,
}

/// Throughput over the window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Throughput {
    /// Jobs that ended in the window.
    pub jobs: u64,
    /// Their processor-hours (size times runtime).
    pub proc_hours: f64,
    /// Jobs per day.
    pub jobs_per_day: f64,
    /// Jobs per week.
    pub jobs_per_week: f64,
    /// Processor-hours per day.
    pub proc_hours_per_day: f64,
    /// Processor-hours per week.
    pub proc_hours_per_week: f64,
}

/// One week of the run, counted from the first submission.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Week {
    /// Week number, from 0.
    pub week: u64,
    /// Jobs that ended this week.
    pub jobs: u64,
    /// Their processor-hours.
    pub proc_hours: f64,
}

/// Job metrics of one runtime class.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassSummary {
    /// The class.
    pub class: RuntimeClass,
    /// Its bounds.
    pub label: &'static str,
    /// Its metrics.
    #[serde(flatten)]
    pub stats: ClassStatsSummary,
}

/// Everything the metrics layer reports about a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricsSummary {
    /// The measurement window.
    pub window: Window,
    /// Bounded slowdown settings.
    pub bounded_slowdown: Bsld,
    /// Jobs submitted in the window, measured.
    pub jobs: JobStatsSummary,
    /// The same by runtime class.
    pub by_runtime_class: Vec<ClassSummary>,
    /// Busy processor-seconds over the window divided by its capacity.
    pub utilization: f64,
    /// Processor-seconds the jobs asked for (log runtimes) over the machine's capacity
    /// between the first and last submission; counts every job, whatever the window.
    pub offered_load: f64,
    /// Jobs ending in the window.
    pub throughput: Throughput,
    /// Last end minus first submit, seconds.
    pub makespan: Time,
    /// Jobs ended per week of the run (every job).
    pub weekly: Vec<Week>,
    /// The run week by week from its first submission to its end (utilization, queue,
    /// active users), every week whatever the window; its sessions are counted by the
    /// caller, who has them ([`WeeklySeries::count_sessions`]). Not in `summary.json`:
    /// replicated runs write it to `weekly.csv`.
    #[serde(skip)]
    pub by_week: WeeklySeries,
    /// What the scheduler said of its run, if anything (an adaptive scheduler's
    /// candidates, the jobs per-user limits held).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<serde_json::Value>,
}

/// Records a run: the observer the site reports to.
pub struct Recorder<C: Write, S: Write> {
    cfg: MetricsConfig,
    first_submit: Option<Time>,
    last_submit: Time,
    last_end: Time,
    all: JobStats,
    classes: [ClassStats; 3],
    held_jobs: Deferred<JobMetrics>,
    held_ends: Deferred<(u32, Time)>,
    ended: u64,
    ended_work: i128,
    busy: Option<BusyIntegral>,
    offered_work: i128,
    weekly: Vec<Week>,
    by_week: weekly::WeeklySteps,
    per_job: Option<PerJobWriter<C, S>>,
    io_error: Option<std::io::Error>,
    scheduler: Option<serde_json::Value>,
}

/// A recorder without per-job outputs.
pub type SummaryRecorder = Recorder<std::io::Sink, std::io::Sink>;

impl SummaryRecorder {
    /// A recorder that keeps summaries only.
    pub fn summary_only(cfg: MetricsConfig) -> Self {
        Recorder::new(cfg, None)
    }
}

impl<C: Write, S: Write> Recorder<C, S> {
    /// A recorder; `per_job` receives every finished job in submission order.
    pub fn new(cfg: MetricsConfig, per_job: Option<PerJobWriter<C, S>>) -> Self {
        Recorder {
            cfg,
            first_submit: None,
            last_submit: 0,
            last_end: 0,
            all: JobStats::default(),
            classes: Default::default(),
            held_jobs: Deferred::default(),
            held_ends: Deferred::default(),
            ended: 0,
            ended_work: 0,
            busy: None,
            offered_work: 0,
            weekly: Vec::new(),
            by_week: weekly::WeeklySteps::default(),
            per_job,
            io_error: None,
            scheduler: None,
        }
    }

    /// Whether any job was submitted.
    pub fn any_submitted(&self) -> bool {
        self.first_submit.is_some()
    }

    fn window_start(&self) -> Time {
        self.first_submit.unwrap_or(0) + self.cfg.warmup
    }

    fn count_job(&mut self, m: &JobMetrics) {
        self.all.record(m);
        self.classes[RuntimeClass::of(m.runtime) as usize].record(m);
    }

    fn count_end(&mut self, size: u32, runtime: Time) {
        self.ended += 1;
        self.ended_work += i128::from(size) * i128::from(runtime);
    }

    /// Closes the window and summarizes the run. Fails if writing per-job outputs failed
    /// or if the warm-up and cool-down leave an empty window.
    pub fn finish(mut self) -> Result<MetricsSummary, String> {
        if let Some(e) = self.io_error.take() {
            return Err(format!("writing per-job outputs failed: {e}"));
        }
        if let Some(w) = self.per_job.take() {
            w.finish()
                .map_err(|e| format!("writing per-job outputs failed: {e}"))?;
        }
        let first = self.first_submit.ok_or("no job was submitted")?;
        let start = self.window_start();
        let end = if self.cfg.cooldown > 0 {
            self.last_submit - self.cfg.cooldown
        } else {
            self.last_end
        };
        if end <= start {
            return Err(format!(
                "the warm-up ({} s) and cool-down ({} s) leave no measurement window \
                 between the first submit ({first}) and the {} ({})",
                self.cfg.warmup,
                self.cfg.cooldown,
                if self.cfg.cooldown > 0 {
                    "last submit"
                } else {
                    "last end"
                },
                if self.cfg.cooldown > 0 {
                    self.last_submit
                } else {
                    self.last_end
                },
            ));
        }
        let job_bound = self.last_submit - self.cfg.cooldown;
        let mut jobs = std::mem::take(&mut self.held_jobs);
        jobs.release(job_bound, |m| self.count_job(&m));
        let mut ends = std::mem::take(&mut self.held_ends);
        ends.release(end, |(size, runtime)| self.count_end(size, runtime));

        let span = (end - start) as f64;
        let capacity = f64::from(self.cfg.procs) * span;
        let busy = self.busy.as_ref().map_or(0, |b| b.over_window(end));
        let days = span / DAY as f64;
        let proc_hours = self.ended_work as f64 / HOUR as f64;
        let submit_span = (self.last_submit - first).max(1) as f64;
        Ok(MetricsSummary {
            window: Window {
                first_submit: first,
                last_submit: self.last_submit,
                start,
                end,
                warmup: self.cfg.warmup,
                cooldown: self.cfg.cooldown,
            },
            bounded_slowdown: self.cfg.bsld,
            jobs: self.all.summary(),
            by_runtime_class: RuntimeClass::ALL
                .iter()
                .map(|&class| ClassSummary {
                    class,
                    label: class.label(),
                    stats: self.classes[class as usize].summary(),
                })
                .collect(),
            utilization: busy as f64 / capacity,
            offered_load: self.offered_work as f64 / (f64::from(self.cfg.procs) * submit_span),
            throughput: Throughput {
                jobs: self.ended,
                proc_hours,
                jobs_per_day: self.ended as f64 / days,
                jobs_per_week: self.ended as f64 / days * 7.0,
                proc_hours_per_day: proc_hours / days,
                proc_hours_per_week: proc_hours / days * 7.0,
            },
            makespan: self.last_end - first,
            weekly: self.weekly,
            by_week: self
                .by_week
                .finish(self.last_end.max(self.last_submit), self.cfg.procs),
            scheduler: self.scheduler,
        })
    }
}

impl<C: Write, S: Write> Observer for Recorder<C, S> {
    fn on_report(&mut self, report: &serde_json::Value) {
        self.scheduler = Some(report.clone());
    }

    fn on_submit(&mut self, now: Time, job: &JobRequest) {
        if self.first_submit.is_none() {
            self.first_submit = Some(now);
            self.busy = Some(BusyIntegral::new(
                now,
                now + self.cfg.warmup,
                self.cfg.cooldown > 0,
            ));
        }
        self.last_submit = now;
        self.by_week.submit(now, job);
        if self.cfg.cooldown > 0 {
            if now >= self.window_start() {
                self.held_jobs.expect(now, job.seq);
            }
            let bound = now - self.cfg.cooldown;
            let mut jobs = std::mem::take(&mut self.held_jobs);
            jobs.release(bound, |m| self.count_job(&m));
            self.held_jobs = jobs;
            let mut ends = std::mem::take(&mut self.held_ends);
            ends.release(bound, |(size, runtime)| self.count_end(size, runtime));
            self.held_ends = ends;
            if let Some(b) = &mut self.busy {
                b.prune_before(bound);
            }
        }
    }

    fn on_start(&mut self, now: Time, job: &JobRequest) {
        if let Some(b) = &mut self.busy {
            b.change(now, i64::from(job.size));
        }
        self.by_week.start(now, job);
        if let Some(w) = &mut self.per_job {
            w.start(job);
        }
    }

    fn on_end(&mut self, j: &JobOutcome) {
        if let Some(b) = &mut self.busy {
            b.change(j.end, -i64::from(j.size));
        }
        self.by_week.end(j.end, j.size);
        self.last_end = self.last_end.max(j.end);
        self.offered_work += i128::from(j.size) * i128::from(j.requested_runtime);
        let first = self.first_submit.unwrap_or(0);
        let week = ((j.end - first) / WEEK) as usize;
        if self.weekly.len() <= week {
            let from = self.weekly.len();
            self.weekly.extend((from..=week).map(|w| Week {
                week: w as u64,
                ..Week::default()
            }));
        }
        self.weekly[week].jobs += 1;
        self.weekly[week].proc_hours += f64::from(j.size) * j.runtime() as f64 / HOUR as f64;

        let start = self.window_start();
        let m = JobMetrics {
            submit: j.submit,
            wait: j.wait(),
            response: j.response(),
            bsld: self.cfg.bsld.of(j.wait(), j.runtime()),
            runtime: j.runtime(),
            user: j.user,
            killed: j.killed,
            backfilled: j.backfilled,
            accuracy: j.accuracy,
        };
        if j.submit >= start {
            if j.submit <= self.last_submit - self.cfg.cooldown {
                self.count_job(&m);
            } else {
                self.held_jobs.hold(j.submit, j.seq, m);
            }
        }
        if j.end >= start {
            if self.cfg.cooldown == 0 || j.end <= self.last_submit - self.cfg.cooldown {
                self.count_end(j.size, j.runtime());
            } else {
                self.held_ends.hold(j.end, j.seq, (j.size, j.runtime()));
            }
        }
        if let Some(w) = &mut self.per_job
            && self.io_error.is_none()
            && let Err(e) = w.push(j)
        {
            self.io_error = Some(e);
        }
    }
}
