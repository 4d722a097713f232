//! The option-effect table of `docs/MODELS.md`, "Calibration": each default of the
//! fluid user model and of resampling against its alternatives, on one log, by the
//! calibration principle (the log's own service gives back the log; slower service
//! never puts a user ahead of its calendar; faster service never puts it further ahead
//! than the response time it was saved) and by what the alternative does to resampled
//! throughput under the log's service, EASY and FCFS.
//!
//! ```text
//! cargo run --release --example calibration_options -- [LOG] [REPLICATIONS]
//! ```
//!
//! LOG defaults to ../shared/workloads/KTH-SP2-1996-2.swf, REPLICATIONS to 50.

use std::error::Error;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use sitesim::experiment::feedback::{ContinuationSource, FeedbackOptions, feedback};
use sitesim::experiment::metric::MetricStats;
use sitesim::experiment::replay::ReplayOptions;
use sitesim::experiment::replicate::with_threads;
use sitesim::experiment::resample::{ResampleOptions, Resampler};
use sitesim::registry::SchedulerSpec;
use sitesim::swf::SwfReader;
use sitesim::time::WEEK;
use sitesim::users::{Drift, FlowForward, NegativeThink, OpeningThink};
use sitesim::workload::pools::PoolConfig;
use sitesim::workload::population::{PopulationConfig, RegenerateFrom, StartWeek};
use sitesim::workload::trace::{Dependence, WindowEnd};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// One alternative: its name and how it changes the defaults.
type Alternative = (&'static str, fn(&mut ResampleOptions));

const ALTERNATIVES: [Alternative; 10] = [
    ("defaults", |_| {}),
    ("--opening-think original", |o| {
        o.users.opening = OpeningThink::Original
    }),
    ("--opening-think capped", |o| {
        o.users.opening = OpeningThink::Capped
    }),
    ("--opening-think zero", |o| {
        o.users.opening = OpeningThink::Zero
    }),
    ("--flow-forward any", |o| o.users.flow = FlowForward::Any),
    ("--window-end last-submit", |o| {
        o.users.trace.window_end = WindowEnd::LastSubmit
    }),
    ("--negative-think together", |o| {
        o.users.negative = NegativeThink::Together
    }),
    ("--dependence start", |o| {
        o.users.trace.dependence = Dependence::Start
    }),
    ("--regenerate-from finish", |o| {
        o.population.regenerate_from = RegenerateFrom::Finish
    }),
    ("--start-week cycle", |o| {
        o.population.start_week = StartWeek::Cycle
    }),
];

fn mean(stats: &[MetricStats], metric: &str) -> (f64, f64) {
    stats
        .iter()
        .find(|s| s.metric == metric)
        .map_or((f64::NAN, f64::NAN), |s| (s.mean, s.ci95))
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log = PathBuf::from(
        args.first()
            .map_or("../shared/workloads/KTH-SP2-1996-2.swf", String::as_str),
    );
    let replications: u32 = args.get(1).map_or(Ok(50), |r| r.parse())?;
    if !log.exists() {
        return Err(format!("{}: no such log", log.display()).into());
    }
    let name = log.display().to_string();
    let header = SwfReader::open(&log)?.header().clone();
    let open = || SwfReader::open(&log);
    println!(
        "| option | log's service: jobs at logged time | x2 slower: jobs ahead | x0.5 faster: \
         jobs ahead beyond saved | resampled, log's service: jobs/week | EASY | FCFS | EASY - FCFS |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut log_jobs_per_week = f64::NAN;
    for (label, change) in ALTERNATIVES {
        let mut opts = ResampleOptions {
            users: FeedbackOptions {
                run: ReplayOptions {
                    check: false,
                    warmup: 4 * WEEK,
                    cooldown: WEEK,
                    ..ReplayOptions::default()
                },
                // Without reactions to service, as the table in docs/VALIDATION.md was
                // measured (before issue 15).
                continuation: ContinuationSource::Off,
                ..FeedbackOptions::default()
            },
            pools: PoolConfig::default(),
            population: PopulationConfig::default(),
            weeks: 52,
            replications,
            threads: None,
            open_loop: false,
            out: None,
        };
        change(&mut opts);
        let drift = |policy: &str| -> Result<(Drift, u64, f64)> {
            let o = FeedbackOptions {
                run: ReplayOptions {
                    policy: policy.parse()?,
                    warmup: 0,
                    cooldown: 0,
                    ..opts.users.run.clone()
                },
                ..opts.users.clone()
            };
            let s = feedback(open, &name, &header, |r| r.extra_columns(), &o)?;
            Ok((
                s.population.jobs.drift,
                s.run.input.jobs,
                s.log.jobs_per_week,
            ))
        };
        let (same, jobs, log_rate) = drift("logged")?;
        log_jobs_per_week = log_rate;
        let (slower, _, _) = drift("logged:scale=2")?;
        let (faster, _, _) = drift("logged:scale=0.5")?;
        let resampler = Resampler::new(open, &name, &header, |r| r.extra_columns(), &opts)?;
        let stop = AtomicBool::new(false);
        let mut rates = Vec::new();
        for policy in ["logged", "easy", "fcfs"] {
            let spec: SchedulerSpec = policy.parse()?;
            let reps = with_threads(opts.threads, u64::from(replications), || {
                resampler.replications(&opts, &spec, &opts.population, replications, &stop, &|| {})
            })??;
            rates.push(mean(&resampler.summary(&opts, reps).stats, "jobs_per_week"));
        }
        let change = |x: f64| 100.0 * (x / log_rate - 1.0);
        println!(
            "| {label} | {} of {jobs} | {} | {} | {:.1} ± {:.1} ({:+.1}%) | {:.1} ({:+.1}%) | \
             {:.1} ({:+.1}%) | {:.1} |",
            same.on_time,
            slower.early(),
            faster.lead_beyond_saved,
            rates[0].0,
            rates[0].1,
            change(rates[0].0),
            rates[1].0,
            change(rates[1].0),
            rates[2].0,
            change(rates[2].0),
            rates[1].0 - rates[2].0
        );
    }
    println!(
        "\n{replications} replications of 52 weeks (4 weeks' warm-up) per cell; the log submits \
         {log_jobs_per_week:.1} jobs per week."
    );
    Ok(())
}
