//! Resampled runs (`sitesim resample`, `sitesim sweep`; seed 003 §4.2, §4.4): many
//! statistically similar workloads drawn from one log's users, each user in closed-loop
//! interaction with the machine, in parallel replications.
//!
//! Replication `r` of a run seeded `s` draws its population from seed `mix(s, r)`,
//! whatever the scheduler, the multipliers or the thread count: the same seed gives the
//! same users under every scheduler (common random numbers), and replications come back
//! in order, so outputs are identical on any number of threads.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::feedback::{
    FeedbackOptions, LogFigures, LogUsers, UserSettings, log_figures, log_users,
};
use super::output::write_atomic;
use super::replay::{ReplayError, site};
use crate::localtime::SiteClock;
use crate::metrics::{
    ClassSummary, CycleRecorder, CycleSummary, LoadRecorder, LoadSummary, MetricsConfig,
    MetricsSummary, Recorder, SessionRecorder, SessionsSummary, UserLoad,
};
use crate::registry::SchedulerSpec;
use crate::sched::BuildContext;
use crate::swf::{ExtraColumns, Located, SwfError, SwfHeader};
use crate::time::{HOUR, Time, WEEK};
use crate::users::{Drift, UserConfig};
use crate::workload::pools::{PoolConfig, Pools};
use crate::workload::population::{Population, PopulationConfig, RegenerateFrom, UserPools};
use crate::workload::trace::Trace;

/// Everything a resampled run needs besides the log.
#[derive(Debug, Clone, PartialEq)]
pub struct ResampleOptions {
    /// The site, scheduler and user model, as for `feedback` (its warm-up and cool-down
    /// bound the measurement window; its seed is the run's).
    pub users: FeedbackOptions,
    /// How users are sorted into pools.
    pub pools: PoolConfig,
    /// Multipliers, weights and regeneration (its length is set from `weeks`).
    pub population: PopulationConfig,
    /// Measured weeks, after the warm-up and before the cool-down.
    pub weeks: u32,
    /// Replications.
    pub replications: u32,
    /// Worker threads; all cores when `None`.
    pub threads: Option<usize>,
    /// Users submit at their logged times, without feedback.
    pub open_loop: bool,
    /// Directory for output files.
    pub out: Option<PathBuf>,
}

/// The figures of one replication.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Replication {
    /// Its number, from 0.
    pub replication: u32,
    /// The seed its population was drawn from.
    pub seed: u64,
    /// Jobs submitted in the measurement window.
    pub jobs: u64,
    /// Jobs ended per week in the window.
    pub jobs_per_week: f64,
    /// Processor-hours ended per week in the window.
    pub proc_hours_per_week: f64,
    /// Share of the machine busy in the window.
    pub utilization: f64,
    /// Mean wait of the measured jobs, seconds.
    pub mean_wait: f64,
    /// Mean response time, seconds.
    pub mean_response: f64,
    /// Mean bounded slowdown.
    pub mean_bsld: f64,
    /// Sessions of the run (all weeks).
    pub sessions: u64,
    /// Jobs per session.
    pub jobs_per_session: f64,
    /// Mean session duration, hours.
    pub session_hours: f64,
    /// User instances started.
    pub users: u64,
    /// Users who left for good after long waits.
    pub frustrated: u64,
    /// Temporary users that arrived during the run.
    pub arrivals: u64,
    /// Long-term users regenerated.
    pub regenerations: u64,
}

impl Replication {
    /// The figures of replication `replication` (drawn from `seed`) from its metrics and
    /// sessions; the population's figures are 0, for the caller to fill in.
    pub fn measured(
        replication: u32,
        seed: u64,
        m: &MetricsSummary,
        s: &SessionsSummary,
    ) -> Replication {
        Replication {
            replication,
            seed,
            jobs: m.jobs.jobs,
            jobs_per_week: m.throughput.jobs_per_week,
            proc_hours_per_week: m.throughput.proc_hours_per_week,
            utilization: m.utilization,
            mean_wait: m.jobs.wait.mean,
            mean_response: m.jobs.response.mean,
            mean_bsld: m.jobs.bounded_slowdown.mean,
            sessions: s.sessions,
            jobs_per_session: s.jobs_per_session.mean,
            session_hours: s.duration.mean / HOUR as f64,
            users: 0,
            frustrated: 0,
            arrivals: 0,
            regenerations: 0,
        }
    }
}

/// Runs `run(r)` for replications `0..n` on the current rayon pool; `done` is called as
/// each finishes; no new one starts once `stop` is set. Returns the finished ones in
/// order, so results do not depend on the thread count.
pub fn in_parallel<T: Send>(
    n: u32,
    stop: &AtomicBool,
    done: &(dyn Fn() + Sync),
    run: impl Fn(u32) -> Result<T, ReplayError> + Sync,
) -> Result<Vec<T>, ReplayError> {
    let results: Vec<Option<Result<T, ReplayError>>> = (0..n)
        .into_par_iter()
        .map(|r| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let rep = run(r);
            done();
            Some(rep)
        })
        .collect();
    results.into_iter().flatten().collect()
}

/// A metric of a replication.
pub type Metric = fn(&Replication) -> f64;

/// The metrics summarized over replications: name and value of a replication.
pub const METRICS: [(&str, Metric); 9] = [
    ("jobs_per_week", |r| r.jobs_per_week),
    ("proc_hours_per_week", |r| r.proc_hours_per_week),
    ("utilization", |r| r.utilization),
    ("mean_wait", |r| r.mean_wait),
    ("mean_response", |r| r.mean_response),
    ("mean_bsld", |r| r.mean_bsld),
    ("jobs_per_session", |r| r.jobs_per_session),
    ("session_hours", |r| r.session_hours),
    ("frustrated", |r| r.frustrated as f64),
];

/// One bin of a histogram.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bin {
    /// Lower bound (inclusive).
    pub lo: f64,
    /// Upper bound (exclusive, inclusive for the last bin).
    pub hi: f64,
    /// Replications in it.
    pub count: u64,
}

/// A metric over replications.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricStats {
    /// The metric.
    pub metric: &'static str,
    /// Replications.
    pub n: u64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// Half-width of the 95% confidence interval of the mean (Student's t).
    pub ci95: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// The distribution: 20 equal bins from the smallest to the largest value.
    pub histogram: Vec<Bin>,
}

/// Bins of a histogram.
const BINS: usize = 20;

impl MetricStats {
    /// The statistics of `values` (at least one).
    pub fn of(metric: &'static str, values: &[f64]) -> MetricStats {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let ci95 = if n > 1 {
            use statrs::distribution::{ContinuousCDF, StudentsT};
            let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
                .expect("degrees of freedom are positive")
                .inverse_cdf(0.975);
            t * sd / (n as f64).sqrt()
        } else {
            0.0
        };
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let width = (max - min) / BINS as f64;
        let mut counts = [0u64; BINS];
        for v in values {
            let i = if width > 0.0 {
                (((v - min) / width) as usize).min(BINS - 1)
            } else {
                0
            };
            counts[i] += 1;
        }
        let bins = if width > 0.0 { BINS } else { 1 };
        MetricStats {
            metric,
            n: n as u64,
            mean,
            sd,
            ci95,
            min,
            max,
            histogram: (0..bins)
                .map(|i| Bin {
                    lo: min + i as f64 * width,
                    hi: if i + 1 == bins {
                        max
                    } else {
                        min + (i + 1) as f64 * width
                    },
                    count: counts[i],
                })
                .collect(),
        }
    }
}

/// The statistics of every metric over `reps` (empty when there are none).
pub fn stats_of(reps: &[Replication]) -> Vec<MetricStats> {
    if reps.is_empty() {
        return Vec::new();
    }
    METRICS
        .iter()
        .map(|(name, value)| {
            let v: Vec<f64> = reps.iter().map(value).collect();
            MetricStats::of(name, &v)
        })
        .collect()
}

/// The result of a resampled run: what `summary.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResampleSummary {
    /// sitesim's version.
    pub sitesim_version: &'static str,
    /// The log.
    pub input: String,
    /// Machine size.
    pub procs: u32,
    /// The policy.
    pub scheduler: String,
    /// Whether users reacted to the machine.
    pub feedback: bool,
    /// The user model.
    pub users: UserSettings,
    /// The log's pools.
    pub pools: Pools,
    /// The population.
    pub population: PopulationConfig,
    /// Measured weeks.
    pub weeks: u32,
    /// Warm-up and cool-down, seconds.
    pub warmup: Time,
    /// Cool-down, seconds.
    pub cooldown: Time,
    /// The run's seed.
    pub seed: u64,
    /// Replications asked for.
    pub replications_asked: u32,
    /// Whether the run was stopped before every replication finished.
    pub interrupted: bool,
    /// Each finished replication, in order.
    pub replications: Vec<Replication>,
    /// Every metric over the replications.
    pub stats: Vec<MetricStats>,
    /// Warnings about the input.
    pub warnings: Vec<String>,
}

/// One replication in detail.
#[derive(Debug, Clone, PartialEq)]
pub struct ResampleRun {
    /// Its figures.
    pub figures: Replication,
    /// Arrivals, queue and utilization by local hour.
    pub cycles: CycleSummary,
    /// Job figures by runtime class.
    pub by_runtime_class: Vec<ClassSummary>,
    /// The users' submissions against their logged calendar.
    pub drift: Drift,
    /// The load of each log user's instances (by log user) and of each week from the
    /// run's start.
    pub load: LoadSummary,
}

/// A log read into pools, shared by the replications.
#[derive(Clone)]
pub struct Resampler {
    pools: Arc<UserPools>,
    procs: u32,
    /// The log's header and the zone override, for the site's clock.
    header: SwfHeader,
    time_zone: Option<String>,
    settings: UserSettings,
    user_cfg: UserConfig,
    warnings: Vec<String>,
    input: String,
    /// The log's own figures.
    log: LogFigures,
    /// The log's own load, by user and by week of the log.
    log_load: LoadSummary,
}

/// The load of a log's users and weeks as the log recorded it (its waits included).
fn log_load(trace: &Trace) -> LoadSummary {
    let mut recorder = LoadRecorder::new(trace.span.0);
    for u in &trace.users {
        for j in &u.jobs {
            recorder.record(
                u.user,
                j.submit,
                j.start - j.submit,
                j.spec.size,
                j.spec.runtime,
            );
        }
    }
    recorder.finish()
}

/// Simulated time of a run: warm-up, measured weeks and cool-down.
fn simulated_length(opts: &ResampleOptions) -> Time {
    let run = &opts.users.run;
    run.warmup + i64::from(opts.weeks) * WEEK + run.cooldown
}

/// The seed of replication `r` of a run seeded `seed`.
pub fn replication_seed(seed: u64, r: u32) -> u64 {
    crate::seed::mix(seed, u64::from(r) + 1)
}

impl Resampler {
    /// Reads the log that `open` reads into pools.
    pub fn new<I, F>(
        open: F,
        file: &str,
        header: &SwfHeader,
        extra_columns: impl FnOnce(&I) -> ExtraColumns,
        opts: &ResampleOptions,
    ) -> Result<Resampler, ReplayError>
    where
        I: Iterator<Item = Result<Located, SwfError>>,
        F: Fn() -> Result<I, SwfError>,
    {
        let LogUsers {
            trace,
            procs,
            settings,
            mut user_cfg,
            warnings,
            ..
        } = log_users(open, file, header, extra_columns, &opts.users)?;
        user_cfg.open_loop = opts.open_loop;
        let log = log_figures(&trace, procs);
        let log_load = log_load(&trace);
        let pools = UserPools::new(trace, opts.pools);
        if pools.pools.long_term + pools.pools.temporary == 0 {
            return Err(ReplayError::Options(format!(
                "{file}: no user to resample (every user lies within {} of an end of the log)",
                crate::time::Hms(pools.pools.edge)
            )));
        }
        Ok(Resampler {
            pools: Arc::new(pools),
            procs,
            header: header.clone(),
            time_zone: opts.users.time_zone.clone(),
            settings,
            user_cfg,
            warnings,
            input: file.to_owned(),
            log,
            log_load,
        })
    }

    /// The same log, its users submitting at their logged times (`true`, no feedback)
    /// or with feedback.
    pub fn with_open_loop(&self, open_loop: bool) -> Resampler {
        let mut r = self.clone();
        r.user_cfg.open_loop = open_loop;
        r
    }

    /// The log's own figures.
    pub fn log(&self) -> &LogFigures {
        &self.log
    }

    /// The log's own load, by user and by week from its first submission.
    pub fn log_load(&self) -> &LoadSummary {
        &self.log_load
    }

    /// What a scheduler is built for: the machine and the log's clock.
    pub(crate) fn build_context(&self) -> BuildContext {
        let clock = SiteClock::from_header(&self.header, self.time_zone.as_deref())
            .map_or_else(|_| SiteClock::utc(), |(c, _)| c);
        BuildContext {
            procs: self.procs,
            clock,
        }
    }

    /// Processors of the simulated machine.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// The log's pools.
    pub fn pools(&self) -> &Pools {
        &self.pools.pools
    }

    /// Runs one replication under `policy` with `population`, its users drawn from
    /// `seed`.
    pub fn replicate(
        &self,
        opts: &ResampleOptions,
        policy: &SchedulerSpec,
        population: &PopulationConfig,
        replication: u32,
    ) -> Result<Replication, ReplayError> {
        self.replicate_in_detail(opts, policy, population, replication)
            .map(|r| r.figures)
    }

    /// [`Resampler::replicate`], with the run's daily cycle and its figures by runtime
    /// class (for experiments).
    pub fn replicate_in_detail(
        &self,
        opts: &ResampleOptions,
        policy: &SchedulerSpec,
        population: &PopulationConfig,
        replication: u32,
    ) -> Result<ResampleRun, ReplayError> {
        let seed = replication_seed(opts.users.run.seed, replication);
        let run = &opts.users.run;
        let population = PopulationConfig {
            length: simulated_length(opts),
            ..population.clone()
        };
        let users = Population::new(self.pools.clone(), population, self.user_cfg.clone(), seed);
        let metrics = MetricsConfig {
            procs: self.procs,
            bsld: run.bsld,
            warmup: run.warmup,
            cooldown: run.cooldown,
        };
        let trace = &opts.users.trace;
        let ctx = self.build_context();
        let observers = (
            Recorder::summary_only(metrics),
            (
                SessionRecorder::new(trace.rule, trace.threshold),
                (
                    CycleRecorder::new(ctx.clock.clone(), self.procs),
                    LoadRecorder::new(self.pools.pools.span.0),
                ),
            ),
        );
        let run_opts = super::replay::ReplayOptions {
            policy: policy.clone(),
            ..run.clone()
        };
        let (users, (recorder, (sessions, (cycles, load))), _) =
            site(users, observers, &ctx, &run_opts)?.run(None)?;
        let m = recorder.finish().map_err(ReplayError::Options)?;
        let population = users.users().summary();
        let report = users.report();
        let load = by_log_user(load.finish(), &users.log_user_of());
        Ok(ResampleRun {
            figures: Replication {
                users: report.instances,
                frustrated: population.frustrated,
                arrivals: report.arrivals,
                regenerations: report.regenerations,
                ..Replication::measured(replication, seed, &m, &sessions.summary())
            },
            cycles: cycles.summary(),
            by_runtime_class: m.by_runtime_class,
            drift: population.jobs.drift,
            load,
        })
    }

    /// Runs replications `0..n` under `policy` with `population` on the current rayon
    /// pool; `done` is called as each finishes; stops starting new ones once `stop` is
    /// set. Returns the finished ones in order.
    pub fn replications(
        &self,
        opts: &ResampleOptions,
        policy: &SchedulerSpec,
        population: &PopulationConfig,
        n: u32,
        stop: &AtomicBool,
        done: &(dyn Fn() + Sync),
    ) -> Result<Vec<Replication>, ReplayError> {
        in_parallel(n, stop, done, |r| {
            self.replicate(opts, policy, population, r)
        })
    }

    /// The summary of a resampled run under `opts`.
    pub fn summary(
        &self,
        opts: &ResampleOptions,
        replications: Vec<Replication>,
    ) -> ResampleSummary {
        let run = &opts.users.run;
        ResampleSummary {
            sitesim_version: env!("CARGO_PKG_VERSION"),
            input: self.input.clone(),
            procs: self.procs,
            scheduler: run.policy.label(),
            feedback: !opts.open_loop,
            users: self.settings.clone(),
            pools: self.pools.pools.clone(),
            population: PopulationConfig {
                length: simulated_length(opts),
                ..opts.population.clone()
            },
            weeks: opts.weeks,
            warmup: run.warmup,
            cooldown: run.cooldown,
            seed: run.seed,
            replications_asked: opts.replications,
            interrupted: (replications.len() as u32) < opts.replications,
            stats: stats_of(&replications),
            replications,
            warnings: self.warnings.clone(),
        }
    }
}

/// `load` recorded by simulated user, added up by the log user each one replays.
fn by_log_user(load: LoadSummary, log_user_of: &FxHashMap<i64, i64>) -> LoadSummary {
    let mut users: Vec<(i64, UserLoad)> = load
        .users
        .iter()
        .map(|&(u, l)| (log_user_of.get(&u).copied().unwrap_or(u), l))
        .collect();
    users.sort_unstable_by_key(|u| u.0);
    users.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1.add(&later.1);
        }
        same
    });
    let mut user_weeks: Vec<((i64, u32), f64)> = load
        .user_weeks
        .iter()
        .map(|&((u, w), work)| ((log_user_of.get(&u).copied().unwrap_or(u), w), work))
        .collect();
    user_weeks.sort_unstable_by_key(|u| u.0);
    user_weeks.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 += later.1;
        }
        same
    });
    LoadSummary {
        users,
        user_weeks,
        ..load
    }
}

/// Runs `f` on a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> T + Send,
) -> Result<T, ReplayError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| ReplayError::Options(format!("cannot start worker threads: {e}")))?;
    Ok(pool.install(f))
}

/// The header of `replications.csv`.
const REPLICATIONS_CSV_HEADER: &str = "replication,seed,jobs,jobs_per_week,\
proc_hours_per_week,utilization,mean_wait,mean_response,mean_bsld,sessions,\
jobs_per_session,session_hours,users,frustrated,arrivals,regenerations\n";

/// One row of `replications.csv` (after the given leading columns).
fn replication_row(r: &Replication) -> String {
    format!(
        "{},{},{},{:.3},{:.3},{:.6},{:.3},{:.3},{:.4},{},{:.4},{:.4},{},{},{},{}\n",
        r.replication,
        r.seed,
        r.jobs,
        r.jobs_per_week,
        r.proc_hours_per_week,
        r.utilization,
        r.mean_wait,
        r.mean_response,
        r.mean_bsld,
        r.sessions,
        r.jobs_per_session,
        r.session_hours,
        r.users,
        r.frustrated,
        r.arrivals,
        r.regenerations,
    )
}

/// Writes `files` (name, bytes) into `dir`, each atomically.
fn write_files(dir: &std::path::Path, files: &[(&str, &[u8])]) -> Result<(), ReplayError> {
    let io = |path: &std::path::Path| {
        let path = path.display().to_string();
        move |e: std::io::Error| ReplayError::Output { path, source: e }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    for (name, bytes) in files {
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(io(&path))?;
    }
    Ok(())
}

/// Writes `summary.json` and `replications.csv` into `dir`.
pub fn write_resample(dir: &std::path::Path, s: &ResampleSummary) -> Result<(), ReplayError> {
    write_replicated(dir, &s.replications, s)
}

/// Writes `summary` as `summary.json` and `replications` as `replications.csv` into
/// `dir`.
pub fn write_replicated(
    dir: &std::path::Path,
    replications: &[Replication],
    summary: &impl Serialize,
) -> Result<(), ReplayError> {
    let mut csv = REPLICATIONS_CSV_HEADER.to_string();
    for r in replications {
        csv.push_str(&replication_row(r));
    }
    let json = serde_json::to_vec_pretty(summary).expect("summaries serialize");
    write_files(
        dir,
        &[
            ("replications.csv", csv.as_bytes()),
            ("summary.json", &json),
        ],
    )
}

/// The table of metrics over replications: mean, sd, 95% CI, min and max.
pub fn render_stats(stats: &[MetricStats]) -> String {
    let mut out =
        "  metric                     mean         sd      95% CI         min         max\n"
            .to_string();
    for m in stats {
        out.push_str(&format!(
            "  {:<20} {:>10.4} {:>10.4} {:>11.4} {:>11.4} {:>11.4}\n",
            m.metric, m.mean, m.sd, m.ci95, m.min, m.max
        ));
    }
    out
}

/// The terminal summary of a resampled run.
pub fn render_resample(s: &ResampleSummary) -> String {
    let mut out = format!(
        "{}: {} replications of {} weeks ({} weeks' warm-up), {} processors, {}, {}\n",
        s.input,
        s.replications.len(),
        s.weeks,
        s.warmup / WEEK,
        s.procs,
        s.scheduler,
        if s.feedback {
            "with feedback"
        } else {
            "open-loop (no feedback)"
        },
    );
    if s.interrupted {
        out.push_str(&format!(
            "  interrupted: {} of {} replications finished\n",
            s.replications.len(),
            s.replications_asked
        ));
    }
    out.push_str(&s.pools.render());
    out.push_str(&format!(
        "  population             long-term x{}, temporary x{}, long-term users regenerated {} after {}, starting in a week of their {}\n",
        s.population.long_term,
        s.population.temporary,
        match s.population.regenerate_after {
            Some(t) => crate::time::Hms(t).to_string(),
            None => "their own inactive time in the log".into(),
        },
        match s.population.regenerate_from {
            RegenerateFrom::Calendar => "their trace's end on the log's calendar (or their finish if later)",
            RegenerateFrom::Finish => "they finish their trace",
        },
        s.population.start_week.name()
    ));
    out.push_str(&render_stats(&s.stats));
    for w in &s.warnings {
        out.push_str(&format!("  warning: {w}\n"));
    }
    out
}

/// One point of a saturation sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    /// The policy.
    pub scheduler: String,
    /// The population multiplier (long-term and temporary alike).
    pub population: f64,
    /// Finished replications.
    pub replications: Vec<Replication>,
    /// Every metric over them.
    pub stats: Vec<MetricStats>,
}

/// Where a policy saturates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Saturation {
    /// The policy.
    pub scheduler: String,
    /// The highest mean utilization over the sweep: the maximal sustainable load.
    pub max_utilization: f64,
    /// The multiplier it was reached at.
    pub at_population: f64,
    /// The smallest multiplier whose mean throughput is within 5% of the sweep's
    /// highest: where added users stop adding work (the throttling plateau).
    pub plateau_from: f64,
}

/// The result of a sweep: what `summary.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepSummary {
    /// The run settings (scheduler of the first policy; its stats are empty).
    pub run: ResampleSummary,
    /// Every point, by policy then multiplier.
    pub points: Vec<SweepPoint>,
    /// Where each policy saturates.
    pub saturation: Vec<Saturation>,
}

fn mean_of(stats: &[MetricStats], metric: &str) -> f64 {
    stats
        .iter()
        .find(|m| m.metric == metric)
        .map_or(f64::NAN, |m| m.mean)
}

/// Where each policy of `points` saturates.
pub fn saturation(points: &[SweepPoint]) -> Vec<Saturation> {
    let mut out: Vec<Saturation> = Vec::new();
    let mut policies: Vec<&str> = points.iter().map(|p| p.scheduler.as_str()).collect();
    policies.dedup();
    for name in policies {
        let pts: Vec<&SweepPoint> = points
            .iter()
            .filter(|p| p.scheduler == name && !p.stats.is_empty())
            .collect();
        let Some(best_util) = pts.iter().max_by(|a, b| {
            mean_of(&a.stats, "utilization").total_cmp(&mean_of(&b.stats, "utilization"))
        }) else {
            continue;
        };
        let top = pts
            .iter()
            .map(|p| mean_of(&p.stats, "jobs_per_week"))
            .fold(f64::NEG_INFINITY, f64::max);
        let plateau = pts
            .iter()
            .find(|p| mean_of(&p.stats, "jobs_per_week") >= 0.95 * top)
            .map_or(f64::NAN, |p| p.population);
        out.push(Saturation {
            scheduler: name.to_owned(),
            max_utilization: mean_of(&best_util.stats, "utilization"),
            at_population: best_util.population,
            plateau_from: plateau,
        });
    }
    out
}

/// Writes `summary.json` and `sweep.csv` (one row per replication) into `dir`.
pub fn write_sweep(dir: &std::path::Path, s: &SweepSummary) -> Result<(), ReplayError> {
    let mut csv = format!("scheduler,population,{REPLICATIONS_CSV_HEADER}");
    for p in &s.points {
        for r in &p.replications {
            csv.push_str(&format!(
                "{},{},{}",
                p.scheduler,
                p.population,
                replication_row(r)
            ));
        }
    }
    let json = serde_json::to_vec_pretty(s).expect("summaries serialize");
    write_files(
        dir,
        &[("sweep.csv", csv.as_bytes()), ("summary.json", &json)],
    )
}

/// The terminal table of a sweep.
pub fn render_sweep(s: &SweepSummary) -> String {
    let mut out = format!(
        "{}: sweep of {} weeks ({} weeks' warm-up), {} processors, {}\n",
        s.run.input,
        s.run.weeks,
        s.run.warmup / WEEK,
        s.run.procs,
        if s.run.feedback {
            "with feedback"
        } else {
            "open-loop (no feedback)"
        }
    );
    if s.run.interrupted {
        out.push_str("  interrupted: the table holds the finished replications only\n");
    }
    out.push_str(
        "  scheduler  population  reps   jobs/week (95% CI)     utilization   mean wait (s)   jobs/session   session (h)\n",
    );
    for p in &s.points {
        let m = |name| mean_of(&p.stats, name);
        let ci = p
            .stats
            .iter()
            .find(|x| x.metric == "jobs_per_week")
            .map_or(f64::NAN, |x| x.ci95);
        out.push_str(&format!(
            "  {:<10} {:>10} {:>5}   {:>9.1} ± {:<8.1}   {:>10.2}%   {:>13.0}   {:>12.2}   {:>11.2}\n",
            p.scheduler,
            p.population,
            p.replications.len(),
            m("jobs_per_week"),
            ci,
            100.0 * m("utilization"),
            m("mean_wait"),
            m("jobs_per_session"),
            m("session_hours"),
        ));
    }
    for sat in &s.saturation {
        out.push_str(&format!(
            "  {}: highest utilization {:.2}% at population x{}; throughput within 5% of its highest from x{}\n",
            sat.scheduler,
            100.0 * sat.max_utilization,
            sat.at_population,
            sat.plateau_from
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_over_replications() {
        let s = MetricStats::of("x", &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.mean, 2.5);
        assert!((s.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        // t(0.975, 3) = 3.182446...
        assert!((s.ci95 - 3.182_446 * s.sd / 2.0).abs() < 1e-5);
        assert_eq!(s.histogram.len(), BINS);
        assert_eq!(s.histogram.iter().map(|b| b.count).sum::<u64>(), 4);
        assert_eq!(s.histogram[0].count, 1);
        assert_eq!(s.histogram[BINS - 1].count, 1);
        let one = MetricStats::of("x", &[5.0, 5.0]);
        assert_eq!((one.sd, one.ci95, one.histogram.len()), (0.0, 0.0, 1));
    }

    #[test]
    fn replication_seeds_differ_and_repeat() {
        assert_ne!(replication_seed(1, 0), replication_seed(1, 1));
        assert_ne!(replication_seed(1, 0), replication_seed(2, 0));
        assert_eq!(replication_seed(7, 3), replication_seed(7, 3));
    }
}
