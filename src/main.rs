//! The `sitesim` command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use sitesim::experiment::calibrate::{calibrate, render_calibrate, write_calibrate};
use sitesim::experiment::feedback::{
    ContinuationSource, FeedbackOptions, UnknownWaits, feedback, read_trace, render_feedback,
};
use sitesim::experiment::fit::fit_logs;
use sitesim::experiment::output::write_atomic;
use sitesim::experiment::replay::{ReplayOptions, machine_size, render, render_modal, replay};
use sitesim::experiment::report::write_report;
use sitesim::experiment::resample::{
    ResampleOptions, Resampler, SweepPoint, SweepSummary, render_resample, render_sweep,
    saturation, stats_of, with_threads, write_resample, write_sweep,
};
use sitesim::experiment::scenario::{DEFAULT_SCENARIO, RunSummary, Scenario};
use sitesim::experiment::study::{Shard, Study, merge};
use sitesim::job::OverrunPolicy;
use sitesim::localtime::SiteClock;
use sitesim::metrics::{Bsld, BsldForm};
use sitesim::model::JobLayer;
use sitesim::model::fit::{render_summary, to_toml};
use sitesim::predict::estimates::EstimateModel;
use sitesim::predict::{ModalModel, ModalParams, PredictorSpec};
use sitesim::registry::SchedulerSpec;
use sitesim::sched::BuildContext;
use sitesim::session::SessionRule;
use sitesim::swf::{SwfHeader, SwfReader, SwfWriter};
use sitesim::time::{Time, WEEK, parse_duration};
use sitesim::users::{FlowForward, NegativeThink, OpeningThink, Patience};
use sitesim::workload::analysis::{DEFAULT_FLURRY_FACTOR, LogAnalysis};
use sitesim::workload::pools::{PoolConfig, Pools};
use sitesim::workload::population::{PopulationConfig, RegenerateFrom, StartWeek};
use sitesim::workload::questionable::{Policies, PolicySetting};
use sitesim::workload::trace::{DependenceCutoff, TraceConfig, WindowEnd};
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
    /// Replay a log with feedback: each user submits its jobs in log order, each once the
    /// jobs it depends on have ended on the simulated machine, inside its session windows.
    Feedback(FeedbackArgs),
    /// Resample a log's users into new populations (long-term users kept, temporary ones
    /// arriving every week), run with feedback in parallel replications.
    Resample(ResampleArgs),
    /// Resampled runs over a grid of population multipliers and schedulers: where added
    /// users stop adding load.
    Sweep(SweepArgs),
    /// The check before a closed-loop study of a log: the log's own figures beside its
    /// users fed the log's own service (which must give back the log), resampled under
    /// that service, under a scheduler with and without feedback, and what makes the
    /// congestion of resampled workloads (seed 003 Figs. 15, 17).
    Calibrate(CalibrateArgs),
    /// Analyse a log's users: sessions, think times, daily and weekly cycles, flurries,
    /// and the pools resampling draws from.
    Analyze(AnalyzeArgs),
    /// Write a synthetic log (a simple benchmark workload, not a published model).
    Generate(GenerateArgs),
    /// Print the modal estimate model's values and shares, for a log or for given inputs.
    Estimates(EstimatesArgs),
    /// Fit the job layer of the session model (per session class: start times, jobs per
    /// session, repetitions, runtimes, sizes, estimates, think times) from logs.
    Fit(FitArgs),
    /// Merge the results directories of an experiment's shards into one.
    Merge(MergeArgs),
    /// Write an experiment's report: SVG plots and one HTML page, in RESULTS_DIR/report.
    Report(ReportArgs),
    /// List the scheduling policies and their parameters.
    Policies,
}

#[derive(Args)]
struct RunArgs {
    /// The scenario file [default: the built-in scenarios/default.toml].
    scenario: Option<PathBuf>,
    /// Results directory of an experiment [default: the scenario's [output] dir, else
    /// results/NAME].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run only shard K of N of an experiment's runs (1 <= K <= N); merge the shards'
    /// directories with `sitesim merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
}

#[derive(Args)]
struct MergeArgs {
    /// The merged results directory.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The shards' results directories.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
}

#[derive(Args)]
struct ReportArgs {
    /// An experiment's results directory.
    dir: PathBuf,
}

#[derive(Args)]
/// What `replay` and `feedback` share: the log, the site, the scheduler, the metrics and
/// the outputs.
struct SiteArgs {
    /// The log, in the Standard Workload Format.
    #[arg(long, value_name = "FILE")]
    swf: PathBuf,
    /// The scheduling policy, `NAME[:key=value,...]` (`sitesim policies` lists them).
    #[arg(long, default_value = "easy")]
    scheduler: SchedulerSpec,
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
    /// Write summary.json, jobs.csv and schedule.swf (and, for feedback, users.csv,
    /// sessions.csv and cycles.csv) into this directory.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct ReplayArgs {
    #[command(flatten)]
    site: SiteArgs,
    /// Multiply every interarrival time by this factor (below 1 raises the load).
    /// Caveat: this also compresses the daily and weekly cycles of the log, so a
    /// higher load obtained this way is not what more users would produce.
    #[arg(long, default_value_t = 1.0, value_parser = positive_factor, allow_negative_numbers = true)]
    interarrival_factor: f64,
}

#[derive(Args)]
struct FeedbackArgs {
    #[command(flatten)]
    site: SiteArgs,
    #[command(flatten)]
    users: UserArgs,
    /// The think time of jobs that opened a session in the log: calendar (the session
    /// keeps its logged start: the logged break when on time or ahead, at most the
    /// session threshold after a late result), capped (the logged break, at most the
    /// threshold), original (the logged break) or zero.
    #[arg(long, default_value = "calendar", value_name = "RULE")]
    opening_think: OpeningThink,
    /// Jobs submitted while the user's previous job still ran keep their logged spacing
    /// from the previous submission (spacing) or are submitted with it (together).
    #[arg(long, default_value = "spacing", value_name = "RULE")]
    negative_think: NegativeThink,
    /// A job may flow forward into the session before its own (next, the seed's) or
    /// into any earlier window its ready time falls in (any).
    #[arg(long, default_value = "next", value_name = "RULE")]
    flow_forward: FlowForward,
    /// Break sessions after long responses with this continuation curve (a file such as
    /// models/continuation-kth.toml, or 'fit' to fit it from the log). Off by default.
    #[arg(long, value_name = "FILE|fit")]
    continuation: Option<ContinuationSource>,
    /// A user whose jobs wait longer than this, --strikes times, leaves for good
    /// (frustrated). Off by default.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    patience: Option<Time>,
    /// Waits over --patience after which a user leaves.
    #[arg(long, default_value_t = 3, requires = "patience", value_parser = clap::value_parser!(u32).range(1..))]
    strikes: u32,
}

/// What `resample` and `sweep` share.
#[derive(Args)]
struct PopulationArgs {
    #[command(flatten)]
    feedback: FeedbackArgs,
    /// Measured weeks, after the --warmup and before a cool-down (--cooldown, one week
    /// when 0) that are simulated too.
    #[arg(long, default_value_t = 52, value_parser = clap::value_parser!(u32).range(1..))]
    weeks: u32,
    /// Replications (seeds derived from --seed) [default: 10; calibrate: 100, per
    /// resampled row].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    replications: Option<u32>,
    /// Multiplier on the long-term users (default: --population).
    #[arg(long, value_parser = non_negative_factor)]
    long_term: Option<f64>,
    /// Multiplier on the temporary users and their weekly arrivals (default: --population).
    #[arg(long, value_parser = non_negative_factor)]
    temporary: Option<f64>,
    /// A long-term user whose trace ended comes back after at least this long
    /// [default: the time it was inactive in the log].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    regenerate_after: Option<Time>,
    /// That time runs from the end of the user's trace on the log's calendar, or from
    /// its actual finish if later (calendar), or from its actual finish (finish).
    #[arg(long, default_value = "calendar", value_name = "RULE")]
    regenerate_from: RegenerateFrom,
    /// Long-term users start in a random week of their activity (activity, the seed's)
    /// or at a random point of their cycle of activity and regeneration interval (cycle).
    #[arg(long, default_value = "activity", value_name = "RULE")]
    start_week: StartWeek,
    /// A user is long-term when its activity spans at least this share of the log.
    #[arg(long, default_value_t = 0.5, value_parser = share)]
    long_term_share: f64,
    /// Users whose whole activity lies within this long of either end of the log are
    /// left out [default: 2 weeks, or a 24th of the log's span if that is shorter].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    edge: Option<Time>,
    /// Weight of one log user, as USER=WEIGHT (0 leaves it out, 3 draws it three times as
    /// often); repeatable.
    #[arg(long, value_name = "USER=WEIGHT", value_parser = user_weight)]
    weight: Vec<(i64, f64)>,
    /// Weight of every user with a flurry (a week of more than twice the jobs of every
    /// other user's busiest week, as `analyze` lists them) not given one by --weight:
    /// 0 leaves them out (seed 003 Fig. 6) [default: 1, like any user].
    #[arg(long, value_name = "WEIGHT", value_parser = non_negative_factor)]
    flurry_weight: Option<f64>,
    /// Users submit at their logged times (shifted with them), without feedback.
    #[arg(long)]
    no_feedback: bool,
    /// Worker threads [default: all cores].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
}

#[derive(Args)]
struct ResampleArgs {
    #[command(flatten)]
    population_args: PopulationArgs,
    /// Multiplier on the whole population (long-term users and temporary arrivals).
    #[arg(long, default_value_t = 1.0, value_parser = non_negative_factor)]
    population: f64,
}

#[derive(Args)]
struct CalibrateArgs {
    #[command(flatten)]
    population_args: PopulationArgs,
    /// Multiplier on the whole population (the log's own population by default).
    #[arg(long, default_value_t = 1.0, value_parser = non_negative_factor)]
    population: f64,
}

/// Replications of `resample` and `sweep` unless --replications says otherwise.
const RESAMPLE_REPLICATIONS: u32 = 10;

/// Replications of each resampled row of `calibrate` (seed 003 Fig. 15 takes a
/// thousand; at least 100 give its histogram a body).
const CALIBRATE_REPLICATIONS: u32 = 100;

#[derive(Args)]
struct SweepArgs {
    #[command(flatten)]
    population_args: PopulationArgs,
    /// Population multipliers, comma-separated.
    #[arg(long, value_delimiter = ',', required = true, value_parser = non_negative_factor)]
    populations: Vec<f64>,
    /// A scheduler to compare, `NAME[:key=value,...]`; repeat the option for more
    /// [default: --scheduler].
    #[arg(long = "schedulers")]
    schedulers: Vec<SchedulerSpec>,
}

/// How a log is split into users, sessions and dependencies.
#[derive(Args)]
struct UserArgs {
    /// Session threshold: a think time this long or longer starts a new session.
    #[arg(long, default_value = "20m", value_parser = parse_duration, value_name = "DURATION")]
    threshold: Time,
    /// Think time measured from the previous job's end (previous) or from the latest end
    /// among all earlier jobs (latest).
    #[arg(long, default_value = "previous", value_name = "RULE")]
    session_rule: SessionRule,
    /// A job depends on the user's jobs that had ended by its submission (submit) or by
    /// its start (start, the seed's literal wording).
    #[arg(long, default_value = "submit", value_name = "CUTOFF")]
    dependence: DependenceCutoff,
    /// Session windows end at the last end of the session's jobs (last-end) or at its
    /// last submission (last-submit).
    #[arg(long, default_value = "last-end", value_name = "END")]
    window_end: WindowEnd,
    /// The site's time zone (UTC, an IANA name, +HH:MM or seconds east of UTC)
    /// [default: the log header's TimeZoneString, else TimeZone, else UTC].
    #[arg(long, value_name = "ZONE")]
    time_zone: Option<String>,
    /// Jobs whose logged wait is unknown (-1): refuse the log (error), take them as 0
    /// (zero), or estimate them by an open-loop replay under a policy
    /// (replay[:POLICY], EASY by default).
    #[arg(long, default_value = "error", value_name = "RULE")]
    unknown_waits: UnknownWaits,
}

impl UserArgs {
    fn trace_config(&self) -> Result<TraceConfig, String> {
        if self.threshold < 1 {
            return Err("--threshold must be at least 1 second".into());
        }
        Ok(TraceConfig {
            threshold: self.threshold,
            rule: self.session_rule,
            cutoff: self.dependence,
            window_end: self.window_end,
        })
    }
}

#[derive(Args)]
struct AnalyzeArgs {
    /// The log, in the Standard Workload Format.
    #[arg(long, value_name = "FILE")]
    swf: PathBuf,
    #[command(flatten)]
    users: UserArgs,
    /// Processors, for the oversize check [default: the log's MaxProcs].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    procs: Option<u32>,
    /// What to do with one kind of questionable job, as KIND=ACTION (see `replay`).
    #[arg(long, value_name = "KIND=ACTION")]
    questionable: Vec<PolicySetting>,
    /// A user's week is a flurry when it has more than this many times the jobs of every
    /// other user's busiest week.
    #[arg(long, default_value_t = DEFAULT_FLURRY_FACTOR, value_parser = positive_factor)]
    flurry_factor: f64,
    /// Resampling pools: a user is long-term when its activity spans at least this share
    /// of the log.
    #[arg(long, default_value_t = 0.5, value_parser = share)]
    long_term_share: f64,
    /// Resampling pools: users whose whole activity lies within this long of either end
    /// of the log are left out [default: 2 weeks, or a 24th of the log's span if that
    /// is shorter].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    edge: Option<Time>,
    /// Write the continuation curve fitted from the log to this file (TOML).
    #[arg(long, value_name = "FILE")]
    fit_continuation: Option<PathBuf>,
    /// Print the analysis as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct FitArgs {
    /// A log, in the Standard Workload Format; repeat to pool several (each keeps its own
    /// machine size and clock).
    #[arg(long, value_name = "FILE", required = true)]
    swf: Vec<PathBuf>,
    /// The model file to write (TOML).
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
    /// The sites' time zone (UTC, an IANA name, +HH:MM or seconds east of UTC), for every
    /// log [default: each header's TimeZoneString, else TimeZone, else UTC].
    #[arg(long, value_name = "ZONE")]
    time_zone: Option<String>,
    /// Jobs whose logged wait is unknown (-1): refuse the log (error), take them as 0
    /// (zero), or estimate them by an open-loop replay under a policy
    /// (replay[:POLICY], EASY by default).
    #[arg(long, default_value = "error", value_name = "RULE")]
    unknown_waits: UnknownWaits,
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
    let (scenario, text) = match &a.scenario {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            (Scenario::parse(&text, &path.display().to_string())?, text)
        }
        None => (
            Scenario::parse(DEFAULT_SCENARIO, "scenarios/default.toml (built in)")?,
            DEFAULT_SCENARIO.to_owned(),
        ),
    };
    if scenario.experiment.is_some() {
        return run_experiment(&scenario, &text, a, started);
    }
    if a.shard.is_some() || a.out.is_some() {
        return Err("--out and --shard apply to scenarios with an [experiment] section".into());
    }
    if let Some(d) = &scenario.description {
        println!(
            "scenario {}: {d}",
            scenario.name.as_deref().unwrap_or("(unnamed)")
        );
    }
    let runs = scenario.runs();
    let bar = if runs > 1 {
        progress(u64::from(runs), "replications")
    } else {
        ProgressBar::hidden()
    };
    let summary = scenario.run(stop_flag(), &|| bar.inc(1))?;
    bar.finish_and_clear();
    print!("{}", summary.render());
    match summary.single() {
        Some(run) => {
            report_time(started, run.input.jobs, run.counts.checked_passes > 0);
            if let Some(dir) = &scenario.output.dir {
                report_outputs(dir, matches!(summary, RunSummary::Feedback(_)));
            }
        }
        None => {
            if let Some(dir) = &scenario.output.dir {
                eprintln!("wrote {}/summary.json and replications.csv", dir.display());
            }
            eprintln!("  ran in {:.2} s", started.elapsed().as_secs_f64());
        }
    }
    Ok(())
}

fn run_experiment(
    scenario: &Scenario,
    text: &str,
    a: RunArgs,
    started: Instant,
) -> Result<(), String> {
    let mut study = Study::new(scenario, text)?;
    let dir = a
        .out
        .or_else(|| scenario.output.dir.clone())
        .unwrap_or_else(|| PathBuf::from("results").join(&study.plan().name));
    let shard = a.shard.unwrap_or(Shard::ALL);
    let plan = study.plan();
    let total = study.pending(&dir, shard);
    println!(
        "experiment {}: {} point(s) x {} replication(s){}, results in {}",
        plan.name,
        plan.points.len(),
        plan.replications,
        if shard == Shard::ALL {
            String::new()
        } else {
            format!(", shard {}/{}", shard.index, shard.count)
        },
        dir.display()
    );
    let bar = if study.is_capacity_search() {
        let b = ProgressBar::new_spinner();
        b.set_message("capacity search: runs");
        b
    } else {
        progress(total, "runs")
    };
    let threads = scenario.threads;
    let p = with_threads(threads, || {
        study.run(&dir, shard, stop_flag(), &|| bar.inc(1))
    })
    .map_err(|e| e.to_string())??;
    bar.finish_and_clear();
    println!(
        "  runs          {} of this shard: {} done now, {} found from before",
        p.runs, p.done, p.resumed
    );
    if p.interrupted {
        println!("  interrupted   run the same command again to resume");
    } else if shard == Shard::ALL {
        println!(
            "  written       {0}/summary.json, {0}/runs.csv; plots: sitesim report {0}",
            dir.display()
        );
        if study.is_capacity_search() {
            println!("  capacity      {}/capacity.json", dir.display());
        }
    } else {
        println!("  merge         sitesim merge --out DIR <the shards' directories>");
    }
    eprintln!("  ran in {:.2} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn run_merge(a: MergeArgs) -> Result<(), String> {
    let summary = merge(&a.out, &a.shards)?;
    println!(
        "merged {} shard(s) into {}: {} point(s), {} run(s) missing",
        a.shards.len(),
        a.out.display(),
        summary.points.len(),
        summary.missing_runs
    );
    Ok(())
}

fn run_report(a: ReportArgs) -> Result<(), String> {
    let files = write_report(&a.dir)?;
    println!(
        "wrote {} file(s); open {}",
        files.len(),
        a.dir.join("report").join("index.html").display()
    );
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

fn report_outputs(dir: &std::path::Path, feedback: bool) {
    println!(
        "  written       {0}/summary.json, {0}/jobs.csv, {0}/schedule.swf{1}",
        dir.display(),
        if feedback {
            format!(
                ", {0}/users.csv, {0}/sessions.csv, {0}/cycles.csv",
                dir.display()
            )
        } else {
            String::new()
        }
    );
}

impl SiteArgs {
    fn options(&self, interarrival_factor: f64) -> ReplayOptions {
        let mut questionable = Policies::default();
        for s in &self.questionable {
            questionable.set(s);
        }
        ReplayOptions {
            policy: self.scheduler.clone(),
            procs: self.procs,
            overrun: self.overrun,
            questionable,
            interarrival_factor,
            bsld: Bsld {
                form: self.bsld,
                threshold: self.bsld_threshold,
            },
            warmup: self.warmup,
            cooldown: self.cooldown,
            estimates: self.estimates.clone(),
            predictor: self.predictor.clone(),
            seed: self.seed,
            check: self.check || cfg!(debug_assertions),
            out: self.out.clone(),
        }
    }

    fn header(&self) -> Result<SwfHeader, String> {
        Ok(SwfReader::open(&self.swf)
            .map_err(|e| e.to_string())?
            .header()
            .clone())
    }
}

fn non_negative_factor(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a number of 0 or more")),
    }
}

fn share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!("'{s}' is not a share in (0, 1]")),
    }
}

fn user_weight(s: &str) -> Result<(i64, f64), String> {
    let (user, weight) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not USER=WEIGHT"))?;
    let user = user
        .parse()
        .map_err(|_| format!("'{user}' is not a user number"))?;
    Ok((user, non_negative_factor(weight)?))
}

fn run_replay(a: ReplayArgs) -> Result<(), String> {
    let started = Instant::now();
    let opts = a.site.options(a.interarrival_factor);
    let header = a.site.header()?;
    let name = a.site.swf.display().to_string();
    let summary = replay(
        || SwfReader::open(&a.site.swf),
        &name,
        &header,
        |r| r.extra_columns(),
        &opts,
    )
    .map_err(|e| e.to_string())?;
    print!("{}", render(&summary));
    report_time(started, summary.input.jobs, opts.check);
    if let Some(dir) = &a.site.out {
        report_outputs(dir, false);
    }
    Ok(())
}

impl FeedbackArgs {
    fn options(&self) -> Result<FeedbackOptions, String> {
        Ok(FeedbackOptions {
            run: self.site.options(1.0),
            trace: self.users.trace_config()?,
            opening: self.opening_think,
            negative: self.negative_think,
            flow: self.flow_forward,
            time_zone: self.users.time_zone.clone(),
            continuation: self.continuation.clone(),
            patience: self.patience.map(|limit| Patience {
                limit,
                strikes: self.strikes,
            }),
            unknown_waits: self.users.unknown_waits.clone(),
        })
    }
}

impl PopulationArgs {
    fn options(&self, population: f64, replications: u32) -> Result<ResampleOptions, String> {
        let mut users = self.feedback.options()?;
        if users.run.cooldown == 0 {
            users.run.cooldown = WEEK;
        }
        users.run.out = None;
        Ok(ResampleOptions {
            users,
            pools: PoolConfig {
                long_term_share: self.long_term_share,
                edge: self.edge,
            },
            population: PopulationConfig {
                long_term: self.long_term.unwrap_or(population),
                temporary: self.temporary.unwrap_or(population),
                regenerate_after: self.regenerate_after,
                regenerate_from: self.regenerate_from,
                weights: self.weight.clone(),
                flurry_weight: self.flurry_weight,
                start_week: self.start_week,
                ..PopulationConfig::default()
            },
            weeks: self.weeks,
            replications: self.replications.unwrap_or(replications),
            threads: self.threads.map(|t| t as usize),
            open_loop: self.no_feedback,
            out: self.feedback.site.out.clone(),
        })
    }

    fn resampler(&self, opts: &ResampleOptions) -> Result<Resampler, String> {
        let site = &self.feedback.site;
        let header = site.header()?;
        let name = site.swf.display().to_string();
        Resampler::new(
            || SwfReader::open(&site.swf),
            &name,
            &header,
            |r| r.extra_columns(),
            opts,
        )
        .map_err(|e| e.to_string())
    }
}

/// A flag set by Ctrl-C: running replications finish, no new one starts.
fn stop_flag() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    // A second handler cannot be set; the first one already sets this flag.
    let _ = ctrlc::set_handler(|| {
        STOP.store(true, Ordering::Relaxed);
        eprintln!("\nstopping: finishing the running replications, keeping the finished ones");
    });
    &STOP
}

fn progress(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta} left)")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_owned());
    bar
}

fn run_resample(a: ResampleArgs) -> Result<(), String> {
    let started = Instant::now();
    let p = &a.population_args;
    let opts = p.options(a.population, RESAMPLE_REPLICATIONS)?;
    let resampler = p.resampler(&opts)?;
    let stop = stop_flag();
    let bar = progress(u64::from(opts.replications), "replications");
    let reps = with_threads(opts.threads, || {
        resampler.replications(
            &opts,
            &opts.users.run.policy,
            &opts.population,
            opts.replications,
            stop,
            &|| bar.inc(1),
        )
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let summary = resampler.summary(&opts, reps);
    print!("{}", render_resample(&summary));
    if let Some(dir) = &opts.out {
        write_resample(dir, &summary).map_err(|e| e.to_string())?;
        eprintln!("wrote {}/summary.json and replications.csv", dir.display());
    }
    eprintln!("  ran in {:.2} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn run_calibrate(a: CalibrateArgs) -> Result<(), String> {
    let started = Instant::now();
    let p = &a.population_args;
    let mut opts = p.options(a.population, CALIBRATE_REPLICATIONS)?;
    if opts.users.run.warmup == 0 {
        opts.users.run.warmup = CALIBRATE_WARMUP;
    }
    let site = &p.feedback.site;
    let header = site.header()?;
    let name = site.swf.display().to_string();
    let stop = stop_flag();
    let bar = progress(3 * u64::from(opts.replications), "replications");
    let summary = with_threads(opts.threads, || {
        calibrate(
            || SwfReader::open(&site.swf),
            &name,
            &header,
            |r| r.extra_columns(),
            &opts,
            stop,
            &|| bar.inc(1),
        )
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    print!("{}", render_calibrate(&summary));
    if let Some(dir) = &opts.out {
        write_calibrate(dir, &summary).map_err(|e| e.to_string())?;
        eprintln!(
            "wrote {0}/calibrate.json, calibrate.csv, users.csv and the report page {0}/index.html",
            dir.display()
        );
    }
    eprintln!("  ran in {:.2} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The warm-up of a calibration unless --warmup gives one: four weeks, as the
/// resampling runs of `docs/VALIDATION.md`.
const CALIBRATE_WARMUP: Time = 4 * WEEK;

fn run_sweep(a: SweepArgs) -> Result<(), String> {
    let started = Instant::now();
    let p = &a.population_args;
    let opts = p.options(1.0, RESAMPLE_REPLICATIONS)?;
    let resampler = p.resampler(&opts)?;
    let policies = if a.schedulers.is_empty() {
        vec![opts.users.run.policy.clone()]
    } else {
        a.schedulers.clone()
    };
    let stop = stop_flag();
    let total = (policies.len() * a.populations.len()) as u64 * u64::from(opts.replications);
    let bar = progress(total, "runs");
    let mut points = Vec::new();
    for policy in &policies {
        for &x in &a.populations {
            let population = PopulationConfig {
                long_term: p.long_term.unwrap_or(x),
                temporary: p.temporary.unwrap_or(x),
                ..opts.population.clone()
            };
            let reps = with_threads(opts.threads, || {
                resampler.replications(&opts, policy, &population, opts.replications, stop, &|| {
                    bar.inc(1)
                })
            })
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
            points.push(SweepPoint {
                scheduler: policy.label(),
                population: x,
                stats: stats_of(&reps),
                replications: reps,
            });
        }
    }
    bar.finish_and_clear();
    let mut run = resampler.summary(&opts, Vec::new());
    run.interrupted = points
        .iter()
        .any(|p| (p.replications.len() as u32) < opts.replications);
    let summary = SweepSummary {
        run,
        saturation: saturation(&points),
        points,
    };
    print!("{}", render_sweep(&summary));
    if let Some(dir) = &opts.out {
        write_sweep(dir, &summary).map_err(|e| e.to_string())?;
        eprintln!("wrote {}/summary.json and sweep.csv", dir.display());
    }
    eprintln!("  ran in {:.2} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn run_feedback(a: FeedbackArgs) -> Result<(), String> {
    let started = Instant::now();
    let opts = a.options()?;
    let header = a.site.header()?;
    let name = a.site.swf.display().to_string();
    let summary = feedback(
        || SwfReader::open(&a.site.swf),
        &name,
        &header,
        |r| r.extra_columns(),
        &opts,
    )
    .map_err(|e| e.to_string())?;
    print!("{}", render_feedback(&summary));
    report_time(started, summary.run.input.jobs, opts.run.check);
    if let Some(dir) = &a.site.out {
        report_outputs(dir, true);
    }
    Ok(())
}

fn run_analyze(a: AnalyzeArgs) -> Result<(), String> {
    let header = SwfReader::open(&a.swf)
        .map_err(|e| e.to_string())?
        .header()
        .clone();
    let name = a.swf.display().to_string();
    let procs = match a.procs {
        Some(p) => p,
        None => machine_size(&name, &header).map_err(|e| e.to_string())?,
    };
    let mut policies = Policies::default();
    for s in &a.questionable {
        policies.set(s);
    }
    let (clock, warnings) = SiteClock::from_header(&header, a.users.time_zone.as_deref())?;
    let ctx = BuildContext {
        procs,
        clock: clock.clone(),
    };
    let run = ReplayOptions {
        questionable: policies,
        ..ReplayOptions::default()
    };
    let (trace, _, _) = read_trace(
        &|| SwfReader::open(&a.swf),
        &name,
        &header,
        &ctx,
        &run,
        a.users.trace_config()?,
        &a.users.unknown_waits,
    )
    .map_err(|e| e.to_string())?;
    let analysis = LogAnalysis::of(&trace, &name, &clock, a.flurry_factor);
    let pools = Pools::of(
        &trace,
        PoolConfig {
            long_term_share: a.long_term_share,
            edge: a.edge,
        },
    );
    if a.json {
        #[derive(serde::Serialize)]
        struct Analysis<'a> {
            #[serde(flatten)]
            users: &'a LogAnalysis,
            pools: &'a Pools,
        }
        let both = Analysis {
            users: &analysis,
            pools: &pools,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&both).expect("analyses serialize")
        );
    } else {
        print!("{}", analysis.render(&name));
        print!("{}", pools.render());
        for w in warnings {
            println!("  warning: {w}");
        }
    }
    if let Some(path) = &a.fit_continuation {
        write_atomic(path, analysis.continuation.to_toml().as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
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

fn run_fit(a: FitArgs) -> Result<(), String> {
    let (file, warnings) = fit_logs(&a.swf, a.time_zone.as_deref(), &a.unknown_waits)?;
    let mut command = String::from("sitesim fit");
    for p in &a.swf {
        command.push_str(&format!(" --swf {}", p.display()));
    }
    if let Some(z) = &a.time_zone {
        command.push_str(&format!(" --time-zone {z}"));
    }
    command.push_str(&format!(" --out {}", a.out.display()));
    let text = to_toml(&file, Some(&command), &warnings);
    let out = a.out.display().to_string();
    JobLayer::parse(&text, &out).map_err(|e| format!("the fit does not read back: {e}"))?;
    write_atomic(&a.out, text.as_bytes()).map_err(|e| format!("{out}: {e}"))?;
    print!("{}", render_summary(&file));
    for w in &warnings {
        println!("  warning: {w}");
    }
    eprintln!("wrote {out}");
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
        Command::Feedback(a) => run_feedback(a),
        Command::Resample(a) => run_resample(a),
        Command::Sweep(a) => run_sweep(a),
        Command::Calibrate(a) => run_calibrate(a),
        Command::Analyze(a) => run_analyze(a),
        Command::Generate(a) => run_generate(a),
        Command::Estimates(a) => run_estimates(a),
        Command::Fit(a) => run_fit(a),
        Command::Merge(a) => run_merge(a),
        Command::Report(a) => run_report(a),
        Command::Policies => {
            for (name, about) in sitesim::registry::policies() {
                println!("{name:14} {about}");
            }
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
