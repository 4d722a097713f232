//! The `sitesim` command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};

use sitesim::experiment::replay::{ReplayOptions, render, render_modal, replay};
use sitesim::experiment::scenario::{DEFAULT_SCENARIO, Scenario};
use sitesim::job::OverrunPolicy;
use sitesim::metrics::{Bsld, BsldForm};
use sitesim::predict::estimates::EstimateModel;
use sitesim::predict::{ModalModel, ModalParams, PredictorSpec};
use sitesim::sched::Policy;
use sitesim::swf::{SwfReader, SwfWriter};
use sitesim::time::{Time, parse_duration};
use sitesim::workload::questionable::{Policies, PolicySetting};
use sitesim::workload::{Synthetic, SyntheticConfig, SyntheticModel};

#[derive(Parser)]
#[command(
    name = "sitesim",
    version,
    about = "A closed-loop, site-level simulator for parallel job scheduling"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario file (with no argument, the default scenario).
    Run(RunArgs),
    /// Replay a log open-loop: every job is submitted at its logged time.
    Replay(ReplayArgs),
    /// Write a synthetic log (a simple benchmark workload, not a published model).
    Generate(GenerateArgs),
    /// Print the modal estimate model's values and shares, for a log or for given inputs.
    Estimates(EstimatesArgs),
}

#[derive(Args)]
struct RunArgs {
    /// The scenario file [default: the built-in scenarios/default.toml].
    scenario: Option<PathBuf>,
}

#[derive(Args)]
struct ReplayArgs {
    /// The log, in the Standard Workload Format.
    #[arg(long, value_name = "FILE")]
    swf: PathBuf,
    /// The scheduling policy.
    #[arg(long, value_enum, default_value = "easy")]
    scheduler: Policy,
    /// Processors of the simulated machine [default: the log's MaxProcs].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    procs: Option<u32>,
    /// What happens to jobs that run longer than their estimate.
    #[arg(long, value_enum, default_value = "kill")]
    overrun: OverrunPolicy,
    /// The jobs' estimates: log, exact, uniform:F (uniform in [r, F*r]), scaled:K
    /// (K times the log's), or modal[:max=DURATION,share=PERCENT] (Tsafrir et al.).
    #[arg(long, default_value = "log", value_name = "MODEL")]
    estimates: EstimateModel,
    /// Plan with a runtime predictor instead of estimates, as NAME[:key=value,...]:
    /// perfect, estimate, constant, infoless, ruh, easy++, sbh, sbh-noest (see
    /// models/predictors.toml for the settings). Not with conservative.
    #[arg(long, value_name = "NAME")]
    predictor: Option<PredictorSpec>,
    /// Seed of the estimate models' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// What to do with one kind of questionable job, as KIND=ACTION; repeatable.
    /// Kinds and actions (first is the default): negative-runtime=skip|error,
    /// zero-runtime=keep|skip|error, bad-size=fallback|skip|error,
    /// oversize=skip|clamp|error, missing-estimate=runtime|max-runtime|skip|error.
    #[arg(long, value_name = "KIND=ACTION")]
    questionable: Vec<PolicySetting>,
    /// Multiply every interarrival time by this factor (below 1 raises the load).
    /// Caveat: this also compresses the daily and weekly cycles of the log, so a
    /// higher load obtained this way is not what more users would produce.
    #[arg(long, default_value_t = 1.0, value_parser = positive_factor, allow_negative_numbers = true)]
    interarrival_factor: f64,
    /// Bounded slowdown form.
    #[arg(long, value_enum, default_value = "clamped")]
    bsld: BsldForm,
    /// Bounded slowdown threshold, seconds.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(i64).range(1..))]
    bsld_threshold: i64,
    /// Exclude jobs submitted during this long after the first submission (e.g. 1w).
    #[arg(long, default_value = "0", value_parser = parse_duration)]
    warmup: Time,
    /// Exclude jobs submitted during this long before the last submission (e.g. 1w).
    #[arg(long, default_value = "0", value_parser = parse_duration)]
    cooldown: Time,
    /// Verify the scheduling invariants after every pass (always on in debug builds).
    #[arg(long)]
    check: bool,
    /// Write summary.json, jobs.csv and schedule.swf into this directory.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct EstimatesArgs {
    /// Take the job count, maximum and its share from this log.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["jobs", "max", "share"])]
    swf: Option<PathBuf>,
    /// Number of jobs.
    #[arg(long, required_unless_present = "swf")]
    jobs: Option<u64>,
    /// Maximal estimate (e.g. 4h).
    #[arg(long, value_parser = parse_duration, required_unless_present = "swf")]
    max: Option<Time>,
    /// Percent of jobs at the maximum [default: the model's own].
    #[arg(long)]
    share: Option<f64>,
    /// Seed of the pool algorithm and the tail permutation.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args)]
struct GenerateArgs {
    /// Number of jobs.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    jobs: u64,
    /// Machine size.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    procs: u32,
    /// Offered load.
    #[arg(long, default_value_t = 0.8, value_parser = positive_factor, allow_negative_numbers = true)]
    load: f64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Model file [default: the shipped models/synthetic.toml].
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Output file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

fn positive_factor(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("'{s}' must be a positive number"))
    }
}

fn run_scenario(a: RunArgs) -> Result<(), String> {
    let started = Instant::now();
    let scenario = match &a.scenario {
        Some(path) => Scenario::load(path)?,
        None => Scenario::parse(DEFAULT_SCENARIO, "scenarios/default.toml (built in)")?,
    };
    if let Some(d) = &scenario.description {
        println!(
            "scenario {}: {d}",
            scenario.name.as_deref().unwrap_or("(unnamed)")
        );
    }
    let summary = scenario.run()?;
    print!("{}", render(&summary));
    report_time(
        started,
        summary.input.jobs,
        summary.counts.checked_passes > 0,
    );
    if let Some(dir) = &scenario.output.dir {
        report_outputs(dir);
    }
    Ok(())
}

fn report_time(started: Instant, jobs: u64, checked: bool) {
    let elapsed = started.elapsed();
    println!(
        "  time          {:.1} ms ({:.0} jobs/s{})",
        elapsed.as_secs_f64() * 1e3,
        jobs as f64 / elapsed.as_secs_f64(),
        if checked { ", invariants checked" } else { "" }
    );
}

fn report_outputs(dir: &std::path::Path) {
    println!(
        "  written       {0}/summary.json, {0}/jobs.csv, {0}/schedule.swf",
        dir.display()
    );
}

fn run_replay(a: ReplayArgs) -> Result<(), String> {
    let started = Instant::now();
    let mut questionable = Policies::default();
    for s in &a.questionable {
        questionable.set(s);
    }
    let opts = ReplayOptions {
        policy: a.scheduler,
        procs: a.procs,
        overrun: a.overrun,
        questionable,
        interarrival_factor: a.interarrival_factor,
        bsld: Bsld {
            form: a.bsld,
            threshold: a.bsld_threshold,
        },
        warmup: a.warmup,
        cooldown: a.cooldown,
        estimates: a.estimates,
        predictor: a.predictor,
        seed: a.seed,
        check: a.check || cfg!(debug_assertions),
        out: a.out.clone(),
    };
    let header = SwfReader::open(&a.swf)
        .map_err(|e| e.to_string())?
        .header()
        .clone();
    let name = a.swf.display().to_string();
    let summary = replay(
        || SwfReader::open(&a.swf),
        &name,
        &header,
        |r| r.extra_columns(),
        &opts,
    )
    .map_err(|e| e.to_string())?;
    print!("{}", render(&summary));
    report_time(started, summary.input.jobs, opts.check);
    if let Some(dir) = &a.out {
        report_outputs(dir);
    }
    Ok(())
}

fn run_estimates(a: EstimatesArgs) -> Result<(), String> {
    let (jobs, max, share) = match &a.swf {
        Some(path) => {
            let reader = SwfReader::open(path).map_err(|e| e.to_string())?;
            let estimates: Vec<Time> = reader
                .map(|r| r.map(|l| l.record.req_time))
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())?;
            let max = estimates
                .iter()
                .copied()
                .max()
                .filter(|&m| m > 0)
                .ok_or_else(|| {
                    format!(
                        "{}: the log has no estimates; give --jobs and --max",
                        path.display()
                    )
                })?;
            let at_max = estimates.iter().filter(|&&e| e == max).count();
            let share = 100.0 * at_max as f64 / estimates.len() as f64;
            (estimates.len() as u64, max, Some(share))
        }
        None => (
            a.jobs.expect("clap requires --jobs"),
            a.max.expect("clap requires --max"),
            a.share,
        ),
    };
    if let Some(s) = share
        && !(0.0..100.0).contains(&s)
    {
        return Err(format!("--share {s} must be a percentage below 100"));
    }
    let pairs: Vec<(Time, f64)> = share.map(|s| (max, s)).into_iter().collect();
    let model = ModalModel::build(&ModalParams::default(), jobs, max, &pairs, a.seed)?;
    print!("{}", render_modal(&model, jobs, max));
    Ok(())
}

fn run_generate(a: GenerateArgs) -> Result<(), String> {
    let cfg = SyntheticConfig {
        jobs: a.jobs,
        procs: a.procs,
        load: a.load,
        seed: a.seed,
    };
    let model = match &a.model {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            SyntheticModel::parse(&text, &p.display().to_string())?
        }
        None => SyntheticModel::default(),
    };
    let gen_ = Synthetic::new(cfg, &model);
    let err = |e: std::io::Error| format!("{}: {e}", a.out.display());
    let (file, w) = sitesim::experiment::output::AtomicFile::create(&a.out).map_err(err)?;
    let mut w = SwfWriter::new(w, &gen_.header_lines()).map_err(err)?;
    for rec in gen_ {
        let rec = rec.map_err(|e| e.to_string())?;
        w.write(&rec.record).map_err(err)?;
    }
    w.finish().map_err(err)?;
    file.commit().map_err(err)?;
    println!("wrote {} jobs to {}", a.jobs, a.out.display());
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => run_scenario(a),
        Command::Replay(a) => run_replay(a),
        Command::Generate(a) => run_generate(a),
        Command::Estimates(a) => run_estimates(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
