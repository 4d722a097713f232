//! `sitesim calibrate`: the check to run before trusting a closed-loop study of a log
//! (`docs/MODELS.md`, "Calibration").
//!
//! A user model is right when, given the service the log's users actually got, it gives
//! back the log; only then does a difference under another scheduler mean something. So
//! beside the log's own figures this runs, on one log:
//! - the log replayed open-loop under the scheduler (Feitelson 2021, Fig. 15's vertical line);
//! - the feedback replay under the log's own service (`logged`): the identity, every
//!   job at its logged time, or the count of those that are not, by the rule that moved
//!   them;
//! - resampled populations at the log's own size under `logged`, under the scheduler
//!   with feedback, and under the scheduler without feedback (Feitelson 2021, Figs. 15, 17),
//!   each over the replications with its confidence interval;
//! - what makes congestion in the resampled workloads that the log never had: the
//!   weekly offered load beside the log's, and each log user's share of the work and of
//!   the waits (Feitelson 2021, §3.4, §4.4).

mod output;

pub use output::{render_calibrate, write_calibrate};

use std::sync::atomic::AtomicBool;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::commands::feedback::{FeedbackOptions, LogFigures, feedback_of, log_users};
use crate::commands::replay::{ReplayOptions, log_jobs, site};
use crate::commands::resample::{ResampleOptions, ResampleRun, Resampled, Resampler};
use crate::metrics::{LoadRecorder, LoadSummary, MetricsConfig, Recorder, UserLoad};
use crate::registry::SchedulerSpec;
use crate::results::RunError;
use crate::results::lock::lock_folder;
use crate::results::metric::{Bin, MetricStats, Replication, stats_of};
use crate::results::replicate::{RunHeader, in_parallel};
use crate::swf::{LogSource, Records};
use crate::time::WEEK;
use crate::users::Drift;
use crate::users::pools::{Pool, Pools};
use std::path::Path;
use std::time::Instant;

use crate::results::replicate::with_threads;
use crate::results::terminal::{Failure, note, progress, report_elapsed, stop_flag, warn};
use crate::time::Time;

/// The central share of a distribution called its body (Feitelson 2021, §4.4: "in most cases
/// the value ... is within the body of this distribution").
const BODY: (f64, f64) = (0.025, 0.975);

/// Upper bounds of the weekly-load histogram's bins (the last bin is unbounded).
const LOAD_BINS: [f64; 20] = [
    0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9,
    2.0,
];

/// One figure of a single run or of the log.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Figures {
    /// Jobs per week.
    pub jobs_per_week: f64,
    /// Processor-hours per week.
    pub proc_hours_per_week: f64,
    /// Share of the machine used (the log: its offered load).
    pub utilization: f64,
    /// Mean wait, seconds.
    pub mean_wait: f64,
    /// Jobs per session.
    pub jobs_per_session: f64,
    /// Mean session length, hours.
    pub session_hours: f64,
}

/// The feedback replay of the log under its own service.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Identity {
    /// Jobs replayed.
    pub jobs: u64,
    /// Jobs ended per week over the log's span.
    pub jobs_per_week: f64,
    /// Processor-hours ended per week over the log's span.
    pub proc_hours_per_week: f64,
    /// The submissions against the logged calendar.
    pub drift: Drift,
}

/// Resampled populations under one scheduler, over the replications.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResampledRow {
    /// What it is.
    pub label: String,
    /// The scheduler.
    pub scheduler: String,
    /// Whether the users had feedback.
    pub feedback: bool,
    /// Each replication's figures.
    pub replications: Vec<Replication>,
    /// Their statistics.
    pub stats: Vec<MetricStats>,
    /// The submissions against the instances' logged calendars, over every replication.
    pub drift: Drift,
    /// Mean jobs per week against the log's, relative (0.01 is 1% more).
    pub jobs_per_week_change: f64,
    /// Mean processor-hours per week against the log's, relative.
    pub proc_hours_per_week_change: f64,
}

impl ResampledRow {
    /// The statistics of `metric`.
    pub fn stat(&self, metric: &str) -> Option<&MetricStats> {
        self.stats.iter().find(|m| m.metric == metric)
    }
}

/// Where the open-loop replay's mean wait falls among the resampled runs' (Feitelson 2021,
/// Fig. 15).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Placement {
    /// The share of replications with a lower mean wait.
    pub percentile: f64,
    /// Whether it lies within the body (the central 95%).
    pub inside: bool,
    /// The body's bounds, seconds.
    pub body: (f64, f64),
}

/// Weekly offered load: work submitted in a week over the machine's capacity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeeklyLoad {
    /// Whose weeks.
    pub label: String,
    /// Weeks.
    pub weeks: u64,
    /// Weeks offering more than the machine can do (load above 1).
    pub over_capacity: u64,
    /// Weeks busier than the log's busiest whole week (for the log itself, 0).
    pub above_log_max: u64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Largest.
    pub max: f64,
    /// Share of weeks by load, in bins of 0.1 up to 2 and one above.
    pub histogram: Vec<Bin>,
}

/// One log user's part in the log and in the resampled workloads.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct UserContribution {
    /// The user's number in the log.
    pub user: i64,
    /// Its pool.
    pub pool: Pool,
    /// Whether it has a flurry.
    pub flurry: bool,
    /// Its share of the log's jobs.
    pub log_jobs: f64,
    /// Its share of the log's work (processor time).
    pub log_work: f64,
    /// Its share of the total wait of the log replayed open-loop under the scheduler.
    pub replay_wait: f64,
    /// Its jobs per resampled workload (no feedback), on average.
    pub resampled_jobs: f64,
    /// Its share of the resampled workloads' work (no feedback).
    pub resampled_work: f64,
    /// Its share of their total wait (no feedback).
    pub resampled_wait: f64,
    /// Its share of the work submitted in weeks busier than the log's busiest (no
    /// feedback): the weeks the log never had.
    pub overload_work: f64,
    /// Its share of the total wait with feedback.
    pub feedback_wait: f64,
}

/// The result of `sitesim calibrate`: what `calibrate.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalibrateSummary {
    /// The machine, the scheduler compared with the log's own service, the window, the
    /// seed, and the replications asked for each resampled row (interrupted if a row has
    /// fewer).
    #[serde(flatten)]
    pub run: RunHeader,
    /// The log, its pools, the user model and the population (x1 unless asked
    /// otherwise) of the resampled rows; `feedback` is the scheduler's main row's.
    #[serde(flatten)]
    pub source: Resampled,
    /// The log's own figures (jobs and processor time submitted per week of its span,
    /// its offered load, its logged mean wait, its sessions).
    pub log: Figures,
    /// The log's figures as the feedback replay reports them.
    pub log_detail: LogFigures,
    /// The log replayed open-loop under the scheduler.
    pub replay: Figures,
    /// The feedback replay under the log's own service.
    pub identity: Identity,
    /// Resampled populations: under `logged`, under the scheduler with feedback, and
    /// without.
    pub rows: Vec<ResampledRow>,
    /// The open-loop replay's mean wait among the resampled runs' without feedback.
    pub wait_without_feedback: Option<Placement>,
    /// The same among the resampled runs' with feedback.
    pub wait_with_feedback: Option<Placement>,
    /// The log's weekly offered load, and the resampled workloads' (no feedback).
    pub weekly_load: Vec<WeeklyLoad>,
    /// Every log user's part, by its share of the resampled waits (largest first).
    pub contributions: Vec<UserContribution>,
}

impl CalibrateSummary {
    /// The resampled row under the log's own service.
    pub fn logged(&self) -> Option<&ResampledRow> {
        self.rows.first()
    }

    /// The resampled row under the scheduler, with or without feedback.
    pub fn under_scheduler(&self, feedback: bool) -> Option<&ResampledRow> {
        self.rows.iter().skip(1).find(|r| r.feedback == feedback)
    }
}

/// Runs the calibration of the log that `open` reads (named `file`, with header
/// `header`) under `opts` (its scheduler, user model, population and replications);
/// replications run on the current rayon pool, `done` is called as each ends, and no
/// new one starts once `stop` is set.
pub fn calibrate<I: Records>(
    source: &LogSource<'_, I>,
    opts: &ResampleOptions,
    stop: &AtomicBool,
    done: &(dyn Fn() + Sync),
) -> Result<CalibrateSummary, RunError> {
    let file = source.name();
    let scheduler = &opts.users.run.policy;
    let logged: SchedulerSpec = "logged".parse().map_err(RunError::Options)?;
    // The log's own service plans with nothing; the other options stay.
    let logged_run = ReplayOptions {
        policy: logged.clone(),
        predictor: None,
        out: None,
        ..opts.users.run.clone()
    };
    // The log is read into users once, for the resampled rows and the feedback replay.
    let users = log_users(source, &opts.users)?;
    let resampler = Resampler::of(file, source.header(), users.clone(), opts)?;
    if let Some(w) = resampler.machine().warning(file) {
        return Err(RunError::Refused(format!(
            "{w}: a calibration compares the model with the log's own service, which no \
             machine smaller than its schedule gave"
        )));
    }
    let procs = resampler.procs();
    let (replay, replay_load) = replay_figures(source, &resampler, opts)?;
    let fed = feedback_of(
        file,
        source.header(),
        users,
        &FeedbackOptions {
            // The whole log is measured.
            run: ReplayOptions {
                warmup: 0,
                cooldown: 0,
                ..logged_run.clone()
            },
            ..opts.users.clone()
        },
    )?;
    let identity = Identity {
        jobs: fed.run.input.jobs,
        jobs_per_week: fed.span_throughput.jobs_per_week,
        proc_hours_per_week: fed.span_throughput.proc_hours_per_week,
        drift: fed.population.jobs.drift,
    };
    let logged_opts = ResampleOptions {
        users: FeedbackOptions {
            run: logged_run,
            ..opts.users.clone()
        },
        ..opts.clone()
    };
    let log = log_row(resampler.log(), resampler.log_load(), procs);
    let with_feedback = resampler.with_open_loop(false);
    let without = resampler.with_open_loop(true);
    let plan = [
        (
            "resampled, the log's own service",
            &with_feedback,
            &logged_opts,
            &logged,
            true,
        ),
        (
            "resampled, with feedback",
            &with_feedback,
            opts,
            scheduler,
            true,
        ),
        (
            "resampled, without feedback",
            &without,
            opts,
            scheduler,
            false,
        ),
    ];
    let mut rows = Vec::new();
    let mut runs = Vec::new();
    for (label, r, o, policy, feedback) in plan {
        let reps: Vec<ResampleRun> = in_parallel(0..opts.replications, stop, done, |i| {
            r.replicate_in_detail(o, policy, &o.population, i)
        })?;
        rows.push(row(label, policy, feedback, &reps, &log));
        runs.push(reps);
    }
    let measured = measured_weeks(opts);
    let log_weeks = log_weekly_load(resampler.log_load(), resampler.pools(), procs);
    let busiest = log_weeks.max;
    let weekly_load = vec![
        log_weeks,
        weekly_load(
            "resampled, without feedback",
            &runs[2],
            procs,
            measured.clone(),
            busiest,
        ),
    ];
    let contributions = contributions(
        resampler.log_load(),
        &replay_load,
        resampler.pools(),
        (&runs[2], &runs[1]),
        procs,
        measured,
        busiest,
    );
    let place = |row: &ResampledRow| {
        row.replications
            .iter()
            .map(|r| r.mean_wait)
            .collect::<Vec<_>>()
    };
    let settings = resampler.summary(opts, Vec::<Replication>::new());
    let interrupted = rows
        .iter()
        .any(|r| (r.replications.len() as u32) < opts.replications);
    Ok(CalibrateSummary {
        run: RunHeader {
            interrupted,
            ..settings.run
        },
        source: settings.source,
        wait_without_feedback: placement(replay.mean_wait, &place(&rows[2])),
        wait_with_feedback: placement(replay.mean_wait, &place(&rows[1])),
        log,
        log_detail: resampler.log().clone(),
        replay,
        identity,
        rows,
        weekly_load,
        contributions,
    })
}

/// The log's own row.
fn log_row(log: &LogFigures, load: &LoadSummary, procs: u32) -> Figures {
    let (jobs, wait) = load
        .users
        .iter()
        .fold((0, 0.0), |(n, w), (_, l)| (n + l.jobs, w + l.wait));
    Figures {
        jobs_per_week: log.jobs_per_week,
        proc_hours_per_week: log.offered_load * f64::from(procs) * (WEEK / 3600) as f64,
        utilization: log.offered_load,
        mean_wait: if jobs > 0 { wait / jobs as f64 } else { 0.0 },
        jobs_per_session: log.sessions.jobs_per_session.mean,
        session_hours: log.sessions.duration.mean / 3600.0,
    }
}

/// The log replayed open-loop under the scheduler, with its load by user.
fn replay_figures<I: Records>(
    source: &LogSource<'_, I>,
    resampler: &Resampler,
    opts: &ResampleOptions,
) -> Result<(Figures, LoadSummary), RunError> {
    let run = ReplayOptions {
        out: None,
        warmup: 0,
        cooldown: 0,
        ..opts.users.run.clone()
    };
    let ctx = resampler.build_context();
    let (log, _) = log_jobs(source, ctx.procs, &run)?;
    let metrics = MetricsConfig {
        procs: ctx.procs,
        bsld: run.bsld,
        warmup: 0,
        cooldown: 0,
    };
    let observers = (
        Recorder::summary_only(metrics),
        LoadRecorder::new(resampler.pools().span.0),
    );
    let (_, (recorder, load), _) = site(log, observers, &ctx, &run)?.run(None)?;
    let m = recorder.finish().map_err(RunError::Options)?;
    Ok((
        Figures {
            jobs_per_week: m.throughput.jobs_per_week,
            proc_hours_per_week: m.throughput.proc_hours_per_week,
            utilization: m.utilization,
            mean_wait: m.jobs.wait.mean,
            jobs_per_session: f64::NAN,
            session_hours: f64::NAN,
        },
        load.finish(),
    ))
}

/// A resampled row from its replications.
fn row(
    label: &str,
    policy: &SchedulerSpec,
    feedback: bool,
    runs: &[ResampleRun],
    log: &Figures,
) -> ResampledRow {
    let replications: Vec<Replication> = runs.iter().map(|r| r.figures).collect();
    let mut drift = Drift::default();
    for r in runs {
        drift.add(&r.drift);
    }
    let stats = stats_of(&replications);
    let mean = |m: &str| {
        stats
            .iter()
            .find(|s| s.metric == m)
            .map_or(f64::NAN, |s| s.mean)
    };
    ResampledRow {
        label: label.to_owned(),
        scheduler: policy.label(),
        feedback,
        jobs_per_week_change: mean("jobs_per_week") / log.jobs_per_week - 1.0,
        proc_hours_per_week_change: mean("proc_hours_per_week") / log.proc_hours_per_week - 1.0,
        replications,
        stats,
        drift,
    }
}

/// The measured weeks of a resampled run, counted from its start.
fn measured_weeks(opts: &ResampleOptions) -> std::ops::Range<usize> {
    let first = (opts.users.run.warmup / WEEK) as usize;
    first..first + opts.weeks as usize
}

/// Where `value` falls among `values`.
fn placement(value: f64, values: &[f64]) -> Option<Placement> {
    if values.is_empty() || !value.is_finite() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let below = sorted.iter().filter(|&&v| v < value).count();
    let q = |p: f64| sorted[((p * sorted.len() as f64) as usize).min(sorted.len() - 1)];
    let body = (q(BODY.0), q(BODY.1));
    Some(Placement {
        percentile: below as f64 / sorted.len() as f64,
        inside: value >= body.0 && value <= body.1,
        body,
    })
}

/// The weekly-load figures of `loads`, against the log's busiest week `log_max`.
fn load_figures(label: &str, mut loads: Vec<f64>, log_max: f64) -> WeeklyLoad {
    let n = loads.len();
    let mut counts = vec![0u64; LOAD_BINS.len() + 1];
    for &l in &loads {
        counts[LOAD_BINS.partition_point(|&b| b <= l)] += 1;
    }
    loads.sort_by(f64::total_cmp);
    let q = |p: f64| {
        loads
            .get(((p * n as f64) as usize).min(n.saturating_sub(1)))
            .copied()
            .unwrap_or(0.0)
    };
    WeeklyLoad {
        label: label.to_owned(),
        weeks: n as u64,
        over_capacity: loads.iter().filter(|&&l| l > 1.0).count() as u64,
        above_log_max: loads.iter().filter(|&&l| l > log_max).count() as u64,
        mean: loads.iter().sum::<f64>() / n.max(1) as f64,
        median: q(0.5),
        p90: q(0.9),
        max: loads.last().copied().unwrap_or(0.0),
        histogram: counts
            .iter()
            .enumerate()
            .map(|(i, &count)| Bin {
                lo: if i == 0 { 0.0 } else { LOAD_BINS[i - 1] },
                hi: LOAD_BINS.get(i).copied().unwrap_or(f64::INFINITY),
                count,
            })
            .collect(),
    }
}

/// The log's whole weeks.
fn log_weekly_load(load: &LoadSummary, pools: &Pools, procs: u32) -> WeeklyLoad {
    let weeks = ((pools.span.1 - pools.span.0) / WEEK).max(1) as usize;
    let loads = load.weekly_load(procs, 0..weeks);
    let max = loads.iter().copied().fold(0.0, f64::max);
    load_figures("the log", loads, max)
}

/// The measured weeks of every replication of `runs`.
fn weekly_load(
    label: &str,
    runs: &[ResampleRun],
    procs: u32,
    weeks: std::ops::Range<usize>,
    log_max: f64,
) -> WeeklyLoad {
    let loads = runs
        .iter()
        .flat_map(|r| r.load.weekly_load(procs, weeks.clone()))
        .collect();
    load_figures(label, loads, log_max)
}

/// Adds up `runs`' loads by log user: (jobs, work, wait, work in weeks busier than
/// `busiest`, a load), and the totals.
fn resampled_by_user(
    runs: &[ResampleRun],
    procs: u32,
    weeks: &std::ops::Range<usize>,
    busiest: f64,
) -> (FxHashMap<i64, (UserLoad, f64)>, UserLoad, f64) {
    let capacity = busiest * f64::from(procs) * WEEK as f64;
    let mut by_user: FxHashMap<i64, (UserLoad, f64)> = FxHashMap::default();
    let mut total = UserLoad::default();
    let mut overload = 0.0;
    for r in runs {
        for (u, l) in &r.load.users {
            by_user.entry(*u).or_default().0.add(l);
            total.add(l);
        }
        for &((u, week), work) in &r.load.user_weeks {
            let w = week as usize;
            if weeks.contains(&w) && r.load.weekly_work.get(w).copied().unwrap_or(0.0) > capacity {
                by_user.entry(u).or_default().1 += work;
                overload += work;
            }
        }
    }
    (by_user, total, overload)
}

/// Every log user's part, largest share of the resampled waits first.
fn contributions(
    log: &LoadSummary,
    replay: &LoadSummary,
    pools: &Pools,
    (open_loop, closed_loop): (&[ResampleRun], &[ResampleRun]),
    procs: u32,
    weeks: std::ops::Range<usize>,
    busiest: f64,
) -> Vec<UserContribution> {
    let share = |x: f64, total: f64| if total > 0.0 { x / total } else { 0.0 };
    let totals = |s: &LoadSummary| {
        s.users.iter().fold(UserLoad::default(), |mut t, (_, l)| {
            t.add(l);
            t
        })
    };
    let (log_total, replay_total) = (totals(log), totals(replay));
    let lookup = |s: &LoadSummary, u: i64| {
        s.users
            .binary_search_by_key(&u, |x| x.0)
            .map_or(UserLoad::default(), |i| s.users[i].1)
    };
    let (open, open_total, overload) = resampled_by_user(open_loop, procs, &weeks, busiest);
    let (closed, closed_total, _) = resampled_by_user(closed_loop, procs, &weeks, busiest);
    let reps = open_loop.len().max(1) as f64;
    let mut out: Vec<UserContribution> = pools
        .users
        .iter()
        .map(|p| {
            let l = lookup(log, p.user);
            let (o, o_over) = open.get(&p.user).copied().unwrap_or_default();
            let c = closed.get(&p.user).map_or(0.0, |x| x.0.wait);
            UserContribution {
                user: p.user,
                pool: p.pool,
                flurry: p.flurry,
                log_jobs: share(l.jobs as f64, log_total.jobs as f64),
                log_work: share(l.work, log_total.work),
                replay_wait: share(lookup(replay, p.user).wait, replay_total.wait),
                resampled_jobs: o.jobs as f64 / reps,
                resampled_work: share(o.work, open_total.work),
                resampled_wait: share(o.wait, open_total.wait),
                overload_work: share(o_over, overload),
                feedback_wait: share(c, closed_total.wait),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.resampled_wait
            .total_cmp(&a.resampled_wait)
            .then(a.user.cmp(&b.user))
    });
    out
}

/// The warm-up of a calibration when the options give none: four weeks, as the
/// resampling runs of `docs/VALIDATION.md`.
pub const CALIBRATE_WARMUP: Time = 4 * WEEK;

/// `sitesim calibrate`: the calibration of the log `swf` under `opts` (its warm-up
/// [`CALIBRATE_WARMUP`] when it has none); prints the summary and writes
/// `calibrate.json`, `calibrate.csv`, `users.csv` and the report page into `opts.out`,
/// which it holds for this process from the start
/// ([`crate::results::lock::lock_folder`]).
pub fn calibrate_command(swf: &Path, opts: &ResampleOptions) -> Result<(), Failure> {
    let started = Instant::now();
    let _lock = opts
        .out
        .as_deref()
        .map(lock_folder)
        .transpose()
        .map_err(Failure::Failed)?;
    let mut opts = opts.clone();
    if opts.users.run.warmup == 0 {
        opts.users.run.warmup = CALIBRATE_WARMUP;
    }
    let source = LogSource::file(swf).map_err(|e| e.to_string())?;
    let bar = progress(3 * u64::from(opts.replications), "replications");
    let summary = with_threads(opts.threads, u64::from(opts.replications), || {
        calibrate(&source, &opts, stop_flag(), &|| bar.inc(1))
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| match e {
        RunError::Refused(m) => Failure::Usage(m),
        e => Failure::Failed(e.to_string()),
    })?;
    bar.finish_and_clear();
    print!("{}", render_calibrate(&summary));
    for w in &summary.source.warnings {
        warn(w);
    }
    if let Some(dir) = &opts.out {
        write_calibrate(dir, &summary).map_err(|e| Failure::Failed(e.to_string()))?;
        note(format_args!(
            "wrote {0}/calibrate.json, calibrate.csv, users.csv and the report page {0}/report/index.html",
            dir.display()
        ));
    }
    report_elapsed(started);
    Ok(())
}
