//! The calibration tables of `docs/VALIDATION.md` ("Users from a log"): the user model
//! against the calibration principle (`docs/MODELS.md`, "Calibration") on every shared
//! log with users and waits, and each default of the fluid user model and of resampling
//! against its alternatives on KTH.
//!
//! A user model is right when, given the service the log's users got, it reproduces the
//! log, and when a service statistically the same (`logged:jitter=S`: each logged wait
//! times a random factor of mean 1) still does: users lose and gain time alike. The
//! first table runs each log fed back and resampled at its own size under the log's own
//! service, jittered, uniformly faster and slower, and under EASY and FCFS; the second
//! runs the same tests on KTH for each alternative.
//!
//! ```text
//! cargo run --release --example calibration_options -- [REPLICATIONS] [WORKLOADS_DIR] [TABLES]
//! ```
//!
//! REPLICATIONS defaults to 20 (KTH: 52 measured weeks; the 23-day Curie sample: 12),
//! WORKLOADS_DIR to ../shared/workloads; TABLES is `principle`, `alternatives` or `all`
//! (the default).

use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use sitesim::commands::feedback::{FeedbackOptions, FeedbackSummary, feedback};
use sitesim::commands::options::ContinuationSource;
use sitesim::commands::options::{Reaction, UserOptions};
use sitesim::commands::replay::ReplayOptions;
use sitesim::commands::resample::{ResampleOptions, Resampler};
use sitesim::registry::SchedulerSpec;
use sitesim::results::metric::{MetricStats, Replication};
use sitesim::results::replicate::with_threads;
use sitesim::swf::LogSource;
use sitesim::time::{DAY, HOUR, WEEK};
use sitesim::users::pools::PoolConfig;
use sitesim::users::population::{PopulationConfig, RegenerateFrom, StartWeek};
use sitesim::users::{
    CalendarShift, FlowForward, NegativeThink, OpeningThink, PatienceLimit, Return,
};
use sitesim::workload::trace::{Dependence, WindowEnd};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// One alternative: its name and how it changes the defaults.
type Alternative = (&'static str, fn(&mut ResampleOptions));

const ALTERNATIVES: [Alternative; 17] = [
    ("defaults", |_| {}),
    ("--away next-window", |o| {
        o.users.users.rules.away = Return::NextWindow
    }),
    ("--dependence sessions", |o| {
        o.users.users.split.dependence = Dependence::Sessions
    }),
    ("--dependence submit", |o| {
        o.users.users.split.dependence = Dependence::Submit
    }),
    ("--dependence start", |o| {
        o.users.users.split.dependence = Dependence::Start
    }),
    ("--opening-think keep-lead", |o| {
        o.users.users.rules.opening_think = OpeningThink::KeepLead
    }),
    ("--opening-think original", |o| {
        o.users.users.rules.opening_think = OpeningThink::Original
    }),
    ("--opening-think capped", |o| {
        o.users.users.rules.opening_think = OpeningThink::Capped
    }),
    ("--opening-think zero", |o| {
        o.users.users.rules.opening_think = OpeningThink::Zero
    }),
    ("--flow-forward next", |o| {
        o.users.users.rules.flow_forward = FlowForward::Next
    }),
    ("--calendar-shift fixed", |o| {
        o.users.users.rules.calendar_shift = CalendarShift::Fixed
    }),
    ("--window-end last-submit", |o| {
        o.users.users.split.window_end = WindowEnd::LastSubmit
    }),
    ("--negative-think together", |o| {
        o.users.users.rules.negative_think = NegativeThink::Together
    }),
    ("--regenerate-from calendar", |o| {
        o.population.regenerate_from = RegenerateFrom::Calendar
    }),
    ("--start-week cycle", |o| {
        o.population.start_week = StartWeek::Cycle
    }),
    ("--patience off", |o| {
        o.users.users.reaction.patience = PatienceLimit::Off
    }),
    ("--continuation off", |o| {
        o.users.users.reaction.continuation = ContinuationSource::Off
    }),
];

/// A log to run: its file, and the resampled runs' measured weeks.
struct Log {
    path: PathBuf,
    weeks: u32,
}

impl Log {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// The default options of a resampled run of this log with `replications`.
    fn options(&self, replications: u32) -> ResampleOptions {
        ResampleOptions {
            users: FeedbackOptions {
                run: ReplayOptions {
                    check: false,
                    warmup: 4 * WEEK,
                    cooldown: WEEK,
                    ..ReplayOptions::default()
                },
                ..FeedbackOptions::default()
            },
            pools: PoolConfig::default(),
            population: PopulationConfig::default(),
            weeks: self.weeks,
            replications,
            threads: None,
            open_loop: false,
            out: None,
        }
    }

    /// The log fed back under `policy` (the whole log measured).
    fn feedback(&self, opts: &ResampleOptions, policy: &str) -> Result<FeedbackSummary> {
        let o = FeedbackOptions {
            run: ReplayOptions {
                policy: policy.parse()?,
                warmup: 0,
                cooldown: 0,
                ..opts.users.run.clone()
            },
            ..opts.users.clone()
        };
        Ok(feedback(&LogSource::file(&self.path)?, &o)?)
    }

    /// The log's users resampled at its own size under `policy`.
    fn resampled(&self, opts: &ResampleOptions, policy: &str) -> Result<Vec<Replication>> {
        let resampler = Resampler::new(&LogSource::file(&self.path)?, opts)?;
        let spec: SchedulerSpec = policy.parse()?;
        let stop = AtomicBool::new(false);
        let n = opts.replications;
        Ok(with_threads(opts.threads, u64::from(n), || {
            resampler.replications(opts, &spec, &opts.population, n, &stop, &|| {})
        })??)
    }
}

/// The paired differences `a - b` of jobs per week, replication by replication (the same
/// seeds: the same populations).
fn paired(a: &[Replication], b: &[Replication]) -> MetricStats {
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(a, b)| a.jobs_per_week - b.jobs_per_week)
        .collect();
    MetricStats::of("difference", &d)
}

fn stats(reps: &[Replication], f: fn(&Replication) -> f64) -> MetricStats {
    MetricStats::of("figure", &reps.iter().map(f).collect::<Vec<f64>>())
}

/// A duration in days or hours, signed.
fn days(seconds: f64) -> String {
    if seconds.abs() >= DAY as f64 {
        format!("{:.1} d", seconds / DAY as f64)
    } else {
        format!("{:.1} h", seconds / HOUR as f64)
    }
}

/// The principle table of one log.
fn principle(log: &Log, replications: u32) -> Result<()> {
    let opts = log.options(replications);
    println!(
        "\n#### {} ({replications} replications of {} weeks)\n",
        log.path.file_name().unwrap_or_default().to_string_lossy(),
        log.weeks
    );
    println!(
        "| service | fed back: jobs/week | processor-h/week | lateness p99 | over a week | \
         resampled: jobs/week | processor-h/week | mean wait (h) | lateness p99 (mean) | \
         over a week |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let own = log.resampled(&opts, "logged")?;
    let (own_jobs, own_work) = (
        stats(&own, |r| r.jobs_per_week).mean,
        stats(&own, |r| r.proc_hours_per_week).mean,
    );
    for policy in [
        "logged",
        "logged:jitter=0.5",
        "logged:jitter=1",
        "logged:scale=0.5",
        "logged:scale=2",
        "easy",
        "fcfs",
    ] {
        let f = log.feedback(&opts, policy)?;
        let t = f.span_throughput;
        let l = f.population.lateness;
        let reps = if policy == "logged" {
            own.clone()
        } else {
            log.resampled(&opts, policy)?
        };
        let (jobs, work) = (
            stats(&reps, |r| r.jobs_per_week),
            stats(&reps, |r| r.proc_hours_per_week),
        );
        let change = |x: f64, of: f64| 100.0 * (x / of - 1.0);
        println!(
            "| {policy} | {:.1} ({:+.1}%) | {:.0} ({:+.1}%) | {} | {:.2}% | {:.1} ± {:.1} ({:+.1}%) \
             | {:.0} ± {:.0} ({:+.1}%) | {:.2} | {} | {:.2}% |",
            t.jobs_per_week,
            change(t.jobs_per_week, t.log_jobs_per_week),
            t.proc_hours_per_week,
            change(t.proc_hours_per_week, t.log_proc_hours_per_week),
            days(l.p99 as f64),
            100.0 * l.over_week,
            jobs.mean,
            jobs.ci95,
            change(jobs.mean, own_jobs),
            work.mean,
            work.ci95,
            change(work.mean, own_work),
            stats(&reps, |r| r.mean_wait).mean / HOUR as f64,
            days(stats(&reps, |r| r.lateness_p99).mean),
            100.0 * stats(&reps, |r| r.late_over_week).mean,
        );
    }
    println!(
        "\nFed back: over the log's span, against the log's own figures. Resampled: against \
         the populations under the log's own service (the first row; the same seeds)."
    );
    Ok(())
}

/// The alternatives table, on `log`.
fn alternatives(log: &Log, replications: u32) -> Result<()> {
    println!(
        "\n#### The defaults against their alternatives ({}, {replications} replications of \
         {} weeks)\n",
        log.path.file_name().unwrap_or_default().to_string_lossy(),
        log.weeks
    );
    println!(
        "| option | log's service: jobs at logged time | x2 slower: jobs ahead (no reactions) \
         | x0.5 faster: jobs ahead beyond saved (no reactions) | jitter 1, fed back: lateness p99 | resampled, log's \
         service: jobs/week | jitter 1: jobs/week, lateness p99 | EASY: jobs/week, lateness \
         p99 | FCFS: jobs/week | EASY - FCFS | x0.5 faster: jobs/week gained | x2 slower: \
         jobs/week lost | gained / lost |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (label, change) in ALTERNATIVES {
        let mut opts = log.options(replications);
        change(&mut opts);
        let same = log.feedback(&opts, "logged")?;
        // The fluid model's own tests: without the reactions, which move sessions on
        // purpose.
        let fluid = ResampleOptions {
            users: FeedbackOptions {
                users: UserOptions {
                    reaction: Reaction {
                        continuation: ContinuationSource::Off,
                        ..opts.users.users.reaction.clone()
                    },
                    ..opts.users.users.clone()
                },
                ..opts.users.clone()
            },
            ..opts.clone()
        };
        let slower = log.feedback(&fluid, "logged:scale=2")?;
        let faster = log.feedback(&fluid, "logged:scale=0.5")?;
        let jitter = log.feedback(&opts, "logged:jitter=1")?;
        let rate = |reps: &[Replication]| stats(reps, |r| r.jobs_per_week).mean;
        let p99 = |reps: &[Replication]| days(stats(reps, |r| r.lateness_p99).mean);
        let own = log.resampled(&opts, "logged")?;
        let jittered = log.resampled(&opts, "logged:jitter=1")?;
        let easy = log.resampled(&opts, "easy")?;
        let fcfs = log.resampled(&opts, "fcfs")?;
        let half = log.resampled(&opts, "logged:scale=0.5")?;
        let double = log.resampled(&opts, "logged:scale=2")?;
        let gained = paired(&half, &own);
        let lost = paired(&own, &double);
        let base = rate(&own);
        let change = |x: f64| 100.0 * (x / base - 1.0);
        println!(
            "| {label} | {} of {} | {} | {} | {} | {:.1} | {:.1} ({:+.1}%), {} | {:.1} ({:+.1}%), {} \
             | {:.1} ({:+.1}%) | {:.1} | {:+.1} ± {:.1} | {:+.1} ± {:.1} | {:.2} |",
            same.population.jobs.drift.on_time,
            same.run.input.jobs,
            slower.population.jobs.drift.early(),
            faster.population.jobs.drift.lead_beyond_saved,
            days(jitter.population.lateness.p99 as f64),
            base,
            rate(&jittered),
            change(rate(&jittered)),
            p99(&jittered),
            rate(&easy),
            change(rate(&easy)),
            p99(&easy),
            rate(&fcfs),
            change(rate(&fcfs)),
            rate(&easy) - rate(&fcfs),
            gained.mean,
            gained.ci95,
            lost.mean,
            lost.ci95,
            gained.mean / lost.mean,
        );
    }
    println!(
        "\nResampled throughput changes are against the same option's populations under the \
         log's own service; gained and lost are paired with them (the same seeds), with \
         reactions."
    );
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let replications: u32 = args.first().map_or(Ok(20), |r| r.parse())?;
    let dir = Path::new(args.get(1).map_or("../shared/workloads", String::as_str));
    let kth = Log {
        path: dir.join("KTH-SP2-1996-2.swf"),
        weeks: 52,
    };
    let curie = Log {
        path: dir.join("CEA-Curie-sample.swf"),
        weeks: 12,
    };
    let tables = args.get(2).map_or("all", String::as_str);
    for log in [&kth, &curie] {
        if !log.path.exists() {
            return Err(format!("{}: no such log", log.name()).into());
        }
        if tables != "alternatives" {
            principle(log, replications)?;
        }
    }
    if tables != "principle" {
        alternatives(&kth, replications)?;
    }
    Ok(())
}
