//! The command line's arguments of the commands that read a log (`replay`, `feedback`,
//! `resample`, `calibrate`, `sweep`, `analyze`, `fit`, `export`), of `generate` and
//! `estimates`, and of the commands that read results directories (`merge`, `report`):
//! their clap definitions, defaults, checks and conversion to each command's options. The `sitesim`
//! binary and the Python bindings (`python/`) both parse them here, so a keyword
//! argument in Python has the option's default and gives its error.

use std::path::PathBuf;

use clap::{Args, Command, FromArgMatches};

use crate::commands::analyze::AnalyzeOptions;
use crate::commands::estimates::EstimatesInput;
use crate::commands::export::ExportOptions;
use crate::commands::options::{
    LogSplit, MachineOptions, MetricsOptions, ModelSiteOptions, PopulationOptions,
    SchedulerOptions, SiteOptions, UnknownWaits, UserOptions,
};
use crate::commands::resample::{ResampleOptions, resampled_cooldown};
use crate::experiment::scenario::{OutputSection, Scenario, WorkloadSection};
use crate::experiment::study::{Shard, sweep_command};
use crate::options::{non_negative_factor, positive_factor, share};
use crate::plot::chart::{FigureFormat, FigureStyle};
use crate::predict::estimates::EstimateModel;
use crate::registry::SchedulerSpec;
use crate::report::{MOST_FOLDERS, ScheduleView};
use crate::results::replicate::MAX_REPLICATIONS;
use crate::swf::batsim::ProfileStyle;
use crate::time::{MAX_WEEKS, Time, WEEK, parse_duration};
use crate::users::analysis::DEFAULT_FLURRY_FACTOR;
use crate::users::pools::PoolConfig;
use crate::workload::SyntheticConfig;
use crate::workload::questionable::{Policies, PolicySetting};

/// What `replay` and `feedback` share: the log, the site, the scheduler, the metrics and
/// the outputs.
#[derive(Args)]
pub struct SiteArgs {
    /// The log, in the Standard Workload Format.
    #[arg(long, value_name = "FILE")]
    pub swf: PathBuf,
    /// The scheduler and what it plans with.
    #[command(flatten)]
    pub scheduler: SchedulerOptions,
    /// The machine.
    #[command(flatten)]
    pub machine: MachineOptions,
    /// The site's rules.
    #[command(flatten)]
    pub rules: SiteOptions,
    /// The jobs' estimates: log, exact, uniform:F (uniform in [r, F*r]), scaled:K
    /// (K times the log's), or modal[:max=DURATION,share=PERCENT] (Tsafrir et al.).
    #[arg(long, default_value = "log", value_name = "MODEL")]
    pub estimates: EstimateModel,
    /// Seed of the estimate models' randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What to do with one kind of questionable job, as KIND=ACTION; repeatable.
    /// Kinds and actions (first is the default): negative-runtime=skip|error,
    /// zero-runtime=keep|skip|error, bad-size=fallback|skip|error,
    /// oversize=skip|clamp|error, missing-estimate=runtime|max-runtime|skip|error.
    #[arg(long, value_name = "KIND=ACTION")]
    pub questionable: Vec<PolicySetting>,
    /// What is measured.
    #[command(flatten)]
    pub metrics: MetricsOptions,
    /// Write summary.json, jobs.csv and schedule.swf (and, for feedback, users.csv,
    /// sessions.csv and cycles.csv) into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also write the report of --out (DIR/report/index.html), as `sitesim report DIR`
    /// does.
    #[arg(long, requires = "out")]
    pub report: bool,
}

/// The arguments of `replay`.
#[derive(Args)]
pub struct ReplayArgs {
    /// The log, the site, the scheduler, the metrics and the outputs.
    #[command(flatten)]
    pub site: SiteArgs,
    /// Multiply every interarrival time by this factor (below 1 raises the load).
    /// Caveat: this also compresses the daily and weekly cycles of the log, so a
    /// higher load obtained this way is not what more users would produce.
    #[arg(long, default_value_t = 1.0, value_parser = positive_factor, allow_negative_numbers = true)]
    pub interarrival_factor: f64,
}

/// The arguments of `feedback`.
#[derive(Args)]
pub struct FeedbackArgs {
    /// The log, the site, the scheduler, the metrics and the outputs.
    #[command(flatten)]
    pub site: SiteArgs,
    /// The users: how the log is split into them, how they think, come back and react.
    #[command(flatten)]
    pub users: UserOptions,
}

/// What `resample` and `sweep` share.
#[derive(Args)]
pub struct PopulationArgs {
    /// The users' arguments, as for `feedback`.
    #[command(flatten)]
    pub feedback: FeedbackArgs,
    /// Measured weeks, after the --warmup and before a cool-down (--cooldown, one week
    /// when 0) that are simulated too.
    #[arg(long, default_value_t = 52, value_parser = clap::value_parser!(u32).range(1..=MAX_WEEKS))]
    pub weeks: u32,
    /// Replications (seeds derived from --seed), at most 100000 [default: 10; calibrate:
    /// 100, per resampled row].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_REPLICATIONS)))]
    pub replications: Option<u32>,
    /// Who the users are.
    #[command(flatten)]
    pub population: PopulationOptions,
    /// Users submit at their logged times (shifted with them), without feedback.
    #[arg(long)]
    pub no_feedback: bool,
    /// Worker threads [default: all cores].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
}

/// The arguments of `resample`.
#[derive(Args)]
pub struct ResampleArgs {
    /// The population's arguments, as for `sweep`.
    #[command(flatten)]
    pub population_args: PopulationArgs,
}

/// Replications of `resample` and `sweep` unless --replications says otherwise.
pub const RESAMPLE_REPLICATIONS: u32 = 10;

impl SiteArgs {
    /// The scenario these flags stand for, with `workload` (the log and the command's own
    /// keys): a command is the scenario its flags make, run as a scenario is.
    fn scenario(&self, workload: WorkloadSection) -> Scenario {
        site_scenario(
            &self.scheduler,
            &self.machine,
            &self.rules,
            &self.metrics,
            self.seed,
            self.out.as_ref(),
            workload,
        )
    }

    /// The questionable-job policies of --questionable.
    fn questionable(&self) -> Policies {
        Policies::of(&self.questionable)
    }
}

impl ReplayArgs {
    /// The scenario of `replay`: its log replayed open-loop.
    pub fn scenario(&self) -> Scenario {
        let site = &self.site;
        site.scenario(WorkloadSection::Swf {
            path: site.swf.clone(),
            estimates: site.estimates.clone(),
            interarrival_factor: self.interarrival_factor,
            questionable: site.questionable(),
        })
    }
}

impl FeedbackArgs {
    /// The scenario of `feedback`: its log's users with feedback.
    pub fn scenario(&self) -> Scenario {
        let site = &self.site;
        site.scenario(WorkloadSection::Feedback {
            path: site.swf.clone(),
            estimates: site.estimates.clone(),
            questionable: site.questionable(),
            users: Box::new(self.users.clone()),
        })
    }
}

impl PopulationArgs {
    /// The log.
    pub fn swf(&self) -> &std::path::Path {
        &self.feedback.site.swf
    }

    /// The scenario of a resampled population, with `replications` unless
    /// --replications says otherwise: its duration is --weeks measured after the warm-up
    /// and before the cool-down.
    pub fn scenario(&self, replications: u32) -> Scenario {
        let site = &self.feedback.site;
        let mut scenario = site.scenario(WorkloadSection::Resample {
            path: site.swf.clone(),
            estimates: site.estimates.clone(),
            questionable: site.questionable(),
            users: Box::new(self.feedback.users.clone()),
            open_loop: self.no_feedback,
        });
        let metrics = &site.metrics;
        scenario.duration = Some(
            Time::from(self.weeks) * WEEK + metrics.warmup + resampled_cooldown(metrics.cooldown),
        );
        scenario.replications = Some(self.replications.unwrap_or(replications));
        scenario.threads = self.threads.map(|t| t as usize);
        scenario.population = self.population.clone();
        scenario
    }

    /// The resampling options, with `replications` unless --replications says otherwise.
    pub fn options(&self, replications: u32) -> Result<ResampleOptions, String> {
        self.scenario(replications).resample_options()
    }
}

impl ResampleArgs {
    /// The scenario of `resample` (10 replications unless --replications says otherwise).
    pub fn scenario(&self) -> Scenario {
        self.population_args.scenario(RESAMPLE_REPLICATIONS)
    }
}

/// The arguments of `model`: a model-based site, as a scenario's `source = "model"`.
#[derive(Args)]
pub struct ModelArgs {
    /// The model site.
    #[command(flatten)]
    pub model: ModelSiteOptions,
    /// The scheduler and what it plans with.
    #[command(flatten)]
    pub scheduler: SchedulerOptions,
    /// The machine (its processors are required).
    #[command(flatten)]
    pub machine: MachineOptions,
    /// The site's rules.
    #[command(flatten)]
    pub rules: SiteOptions,
    /// What is measured.
    #[command(flatten)]
    pub metrics: MetricsOptions,
    /// Multiplier of the model's users (start-up and new ones), as `[population] users`.
    #[arg(long, default_value_t = 1.0, value_parser = non_negative_factor, value_name = "FACTOR")]
    pub users: f64,
    /// Simulated time, warm-up and cool-down included.
    #[arg(long, default_value = "52w", value_parser = parse_duration, value_name = "DURATION")]
    pub duration: Time,
    /// Replications (seeds derived from --seed), at most 100000.
    #[arg(long, default_value_t = RESAMPLE_REPLICATIONS, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_REPLICATIONS)))]
    pub replications: u32,
    /// Worker threads [default: all cores].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Seed of the replications.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write summary.json and replications.csv into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also write the report of --out (DIR/report/index.html).
    #[arg(long, requires = "out")]
    pub report: bool,
}

impl ModelArgs {
    /// The scenario of `model`.
    pub fn scenario(&self) -> Scenario {
        let mut scenario = site_scenario(
            &self.scheduler,
            &self.machine,
            &self.rules,
            &self.metrics,
            self.seed,
            self.out.as_ref(),
            WorkloadSection::Model(Box::new(self.model.clone())),
        );
        scenario.duration = Some(self.duration);
        scenario.replications = Some(self.replications);
        scenario.threads = self.threads.map(|t| t as usize);
        scenario.population.users = self.users;
        scenario
    }
}

/// The scenario of a command that runs a site: its groups as they are, `workload`, and
/// `out` as `[output] dir`; the keys of replicated runs (`duration`, `replications`,
/// `threads`, `[population]`) at their defaults, for the command to set.
fn site_scenario(
    scheduler: &SchedulerOptions,
    machine: &MachineOptions,
    rules: &SiteOptions,
    metrics: &MetricsOptions,
    seed: u64,
    out: Option<&PathBuf>,
    workload: WorkloadSection,
) -> Scenario {
    Scenario {
        name: None,
        description: None,
        seed,
        duration: None,
        replications: None,
        threads: None,
        machine: machine.clone(),
        scheduler: scheduler.clone(),
        workload,
        population: PopulationOptions::default(),
        site: rules.clone(),
        metrics: metrics.clone(),
        output: OutputSection { dir: out.cloned() },
        experiment: None,
    }
}

/// The arguments of `analyze`.
#[derive(Args)]
pub struct AnalyzeArgs {
    /// The log, in the Standard Workload Format.
    #[arg(long, value_name = "FILE")]
    pub swf: PathBuf,
    #[command(flatten)]
    pub split: LogSplit,
    /// The machine: its processors, for the oversize check.
    #[command(flatten)]
    pub machine: MachineOptions,
    /// What to do with one kind of questionable job, as KIND=ACTION (see `replay`).
    #[arg(long, value_name = "KIND=ACTION")]
    pub questionable: Vec<PolicySetting>,
    /// A user's week is a flurry when it has more than this many times the jobs of every
    /// other user's busiest week.
    #[arg(long, default_value_t = DEFAULT_FLURRY_FACTOR, value_parser = positive_factor)]
    pub flurry_factor: f64,
    /// Resampling pools: a user is long-term when its activity spans at least this share
    /// of the log.
    #[arg(long, default_value_t = 0.5, value_parser = share)]
    pub long_term_share: f64,
    /// Resampling pools: users whose whole activity lies within this long of either end
    /// of the log are left out [default: 2 weeks, or a 24th of the log's span if that
    /// is shorter].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub edge: Option<Time>,
    /// Write the continuation curve fitted from the log to this file (TOML).
    #[arg(long, value_name = "FILE")]
    pub fit_continuation: Option<PathBuf>,
    /// Plot the continuation curve (Feitelson 2021, Fig. 18) to this SVG file: the share of
    /// continued sessions by response time with the logistic, and by slowdown to the
    /// same name ending in -slowdown.svg.
    #[arg(long, value_name = "FILE")]
    pub plot_continuation: Option<PathBuf>,
    /// Print the analysis as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write the workload's report: DIR/report/index.html with its figures (runtimes,
    /// sizes, interarrival times, estimates, daily and weekly cycles, the calendar,
    /// sessions and think times, the top users).
    #[arg(long)]
    pub report: bool,
    /// The report's directory [default: results/analyze-STEM, STEM the log's file name
    /// without its extensions].
    #[arg(long, value_name = "DIR", requires = "report")]
    pub out: Option<PathBuf>,
    /// How the report's figures are drawn and written.
    #[command(flatten)]
    pub figures: FigureArgs,
}

/// How a report's figures are drawn and written (`analyze --report`, `report`).
#[derive(Args, Clone, Debug)]
pub struct FigureArgs {
    /// Every figure's width, pixels.
    #[arg(long, default_value_t = 800, value_parser = clap::value_parser!(u32).range(200..=8000))]
    pub figure_width: u32,
    /// Every figure's height, pixels.
    #[arg(long, default_value_t = 450, value_parser = clap::value_parser!(u32).range(150..=8000))]
    pub figure_height: u32,
    /// Every text of the figures, times its default size (0.5 to 4).
    #[arg(long, default_value_t = 1.0, value_parser = font_scale)]
    pub font_scale: f64,
    /// Each figure's file besides its SVG (which the page shows): png (its pixels the
    /// figure's width and height) or pdf (vector, a pixel a point).
    #[arg(long, value_enum, default_value = "svg", value_name = "FORMAT")]
    pub figure_format: FigureFormat,
}

/// A font scale: a number from 0.5 to 4.
fn font_scale(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.5..=4.0).contains(&v) => Ok(v),
        _ => Err(format!("'{text}' is not a number from 0.5 to 4")),
    }
}

impl FigureArgs {
    /// The style of every figure drawn.
    pub fn style(&self) -> FigureStyle {
        FigureStyle {
            width: self.figure_width,
            height: self.figure_height,
            font_scale: self.font_scale,
            format: self.figure_format,
        }
    }
}

impl AnalyzeArgs {
    /// The options of `analyze`.
    pub fn options(&self) -> Result<AnalyzeOptions, String> {
        Ok(AnalyzeOptions {
            procs: self.machine.procs,
            questionable: Policies::of(&self.questionable),
            split: self.split.clone(),
            flurry_factor: self.flurry_factor,
            pools: PoolConfig {
                long_term_share: self.long_term_share,
                edge: self.edge,
            },
            json: self.json,
            fit_continuation: self.fit_continuation.clone(),
            plot_continuation: self.plot_continuation.clone(),
            report: self.report.then(|| {
                self.out
                    .clone()
                    .unwrap_or_else(|| default_analyze_dir(&self.swf))
            }),
            figures: self.figures.style(),
        })
    }
}

/// Where `analyze --report` writes without `--out`: `results/analyze-STEM`, STEM the
/// log's file name without its extensions (`KTH-SP2-1996-2.swf.gz`: `KTH-SP2-1996-2`).
pub fn default_analyze_dir(swf: &std::path::Path) -> PathBuf {
    let name = swf
        .file_name()
        .map_or_else(|| "log".into(), |n| n.to_string_lossy().into_owned());
    let stem = name
        .split('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(&name);
    PathBuf::from("results").join(format!("analyze-{stem}"))
}

/// The arguments of `fit`.
#[derive(Args)]
pub struct FitArgs {
    /// A log, in the Standard Workload Format; repeat to pool several (each keeps its own
    /// machine size and clock).
    #[arg(long, value_name = "FILE", required = true)]
    pub swf: Vec<PathBuf>,
    /// The model file to write (TOML).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// The sites' time zone (UTC, an IANA name, +HH:MM or seconds east of UTC), for every
    /// log [default: each header's TimeZoneString, else TimeZone, else UTC].
    #[arg(long, value_name = "ZONE")]
    pub time_zone: Option<String>,
    /// Jobs whose logged wait is unknown (-1): refuse the log (error), take them as 0
    /// (zero), or estimate them by an open-loop replay under a policy
    /// (replay[:POLICY], EASY by default).
    #[arg(long, default_value = "error", value_name = "RULE")]
    pub unknown_waits: UnknownWaits,
}

/// The arguments of `estimates`.
#[derive(Args)]
pub struct EstimatesArgs {
    /// Take the job count, maximum and its share from this log.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["jobs", "max", "share"])]
    pub swf: Option<PathBuf>,
    /// Number of jobs.
    #[arg(long, required_unless_present = "swf")]
    pub jobs: Option<u64>,
    /// Maximal estimate (e.g. 4h).
    #[arg(long, value_parser = parse_duration, required_unless_present = "swf")]
    pub max: Option<Time>,
    /// Percent of jobs at the maximum [default: the model's own].
    #[arg(long)]
    pub share: Option<f64>,
    /// Seed of the pool algorithm and the tail permutation.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The arguments of `generate`.
#[derive(Args)]
pub struct GenerateArgs {
    /// Number of jobs.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: u64,
    /// Machine size.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: u32,
    /// Offered load.
    #[arg(long, default_value_t = 0.8, value_parser = positive_factor, allow_negative_numbers = true)]
    pub load: f64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Model file [default: the shipped models/synthetic.toml].
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// Output file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

impl EstimatesArgs {
    /// What the model is built for: the log's figures, or the ones given.
    pub fn input(&self) -> Result<EstimatesInput, String> {
        match &self.swf {
            Some(path) => EstimatesInput::of_log(path),
            None => Ok(EstimatesInput {
                jobs: self.jobs.ok_or("--jobs is required without --swf")?,
                max: self.max.ok_or("--max is required without --swf")?,
                share: self.share,
            }),
        }
    }
}

impl GenerateArgs {
    /// What to generate.
    pub fn config(&self) -> SyntheticConfig {
        SyntheticConfig {
            jobs: self.jobs,
            procs: self.procs,
            load: self.load,
            seed: self.seed,
        }
    }
}

/// The arguments of `export`.
#[derive(Args)]
pub struct ExportArgs {
    /// The log: SWF, plain or gzip (a feedback run's schedule.swf, the workload its users
    /// generated, among them), or a Batsim workload.
    #[arg(
        long,
        value_name = "LOG",
        required_unless_present = "run",
        conflicts_with = "run",
        requires = "batsim"
    )]
    pub swf: Option<PathBuf>,
    /// A run's results directory (the --out of replay or feedback), or its jobs.csv: its
    /// jobs, with the processors each held, written as Batsim's _jobs.csv
    /// (--batsim-jobs), which Evalys draws.
    #[arg(long, value_name = "DIR")]
    pub run: Option<PathBuf>,
    /// Write a Batsim JSON workload, its delay profiles typed as Batsim VERSION names
    /// them: 4, "delay" (what released Batsim, 4.x, reads and its SWF converter writes;
    /// the default), or 5, "DelayProfile" (batprotocol's name, for a Batsim built from
    /// its development branch). Jobs Batsim cannot run (unknown submit time, runtime or
    /// size; zero runtime) are left out and counted.
    #[arg(
        long,
        value_name = "VERSION",
        num_args = 0..=1,
        default_missing_value = "4",
        required_unless_present = "batsim_jobs",
        conflicts_with = "batsim_jobs"
    )]
    pub batsim: Option<BatsimVersion>,
    /// Write the run's jobs (--run) as Batsim's _jobs.csv: Batsim's columns, times in
    /// seconds, each job's processors as an interval set (0-3 8 10-11), its user in
    /// metadata.
    #[arg(long, requires = "run")]
    pub batsim_jobs: bool,
    /// The file written [default: standard output].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The Batsim version whose profile type names `export --batsim` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum BatsimVersion {
    /// Batsim 4, the released one: "delay".
    #[value(name = "4")]
    V4,
    /// Batsim 5 (batprotocol, unreleased): "DelayProfile".
    #[value(name = "5")]
    V5,
}

impl ExportArgs {
    /// Refuses a run's jobs (--run) without the format they go in (--batsim-jobs): a
    /// usage error.
    pub fn refuse_conflicts(&self) -> Result<(), String> {
        if self.run.is_some() && !self.batsim_jobs {
            return Err("--run writes the run's jobs as Batsim's _jobs.csv: give \
                        --batsim-jobs (--batsim writes a log, --swf, as a workload)"
                .into());
        }
        Ok(())
    }

    /// What to write, and where, for a log written as a Batsim workload (--swf).
    pub fn options(&self) -> ExportOptions {
        ExportOptions {
            style: match self.batsim {
                Some(BatsimVersion::V5) => ProfileStyle::Batsim5,
                _ => ProfileStyle::Batsim4,
            },
            output: self.output.clone(),
        }
    }
}

/// The arguments of `merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// The merged results directory.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The shards' results directories.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
}

/// The arguments of `report`.
#[derive(Args)]
pub struct ReportArgs {
    /// A results directory: an experiment's, or the --out of replay, feedback, resample,
    /// calibrate or run; or Batsim's _jobs.csv (or a directory holding one), reported
    /// as a run into report/ beside it.
    pub dir: PathBuf,
    /// More results directories: with them, one page comparing every directory's runs
    /// (runs with their jobs, or replicated runs), written to --out.
    #[arg(value_name = "MORE")]
    pub others: Vec<PathBuf>,
    /// Where the page comparing several directories is written [default: compare, in
    /// the current directory].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Where a run's schedule view starts, from the first submission (e.g. 12d)
    /// [default: the day in which most jobs waited].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub schedule_from: Option<Time>,
    /// How long a span the schedule view shows [default: 1d].
    #[arg(long, value_name = "DURATION", value_parser = view_length)]
    pub schedule_length: Option<Time>,
    /// What colours the jobs of one run's schedule view [default: user] (a comparison
    /// colours each run its own).
    #[arg(long, value_enum)]
    pub colour: Option<Colour>,
    /// How the report's figures are drawn and written.
    #[command(flatten)]
    pub figures: FigureArgs,
}

/// The schedule view's length: a duration of at least a second (an empty view has no
/// time axis).
fn view_length(text: &str) -> Result<Time, String> {
    match parse_duration(text)? {
        t if t < 1 => Err("the schedule view shows at least 1 second".into()),
        t => Ok(t),
    }
}

/// What colours the jobs of a schedule view.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Colour {
    /// Each user its own hue.
    User,
    /// Each runtime class its colour.
    Class,
}

impl ReportArgs {
    /// The directories compared: `dir` and `others`.
    pub fn compared(&self) -> Vec<PathBuf> {
        std::iter::once(&self.dir)
            .chain(&self.others)
            .cloned()
            .collect()
    }

    /// Refuses `--out` without directories to compare, `--colour` with them, more
    /// directories than a comparison has colours, and a directory named twice.
    pub fn refuse_conflicts(&self) -> Result<(), String> {
        let dirs = self.compared();
        if dirs.len() == 1 {
            return match &self.out {
                Some(_) => Err(
                    "--out is where the page comparing several directories is written; one \
                                directory's report goes to DIR/report/"
                        .into(),
                ),
                None => Ok(()),
            };
        }
        if self.colour.is_some() {
            return Err(
                "--colour colours one run's schedule view; a comparison colours each run its own"
                    .into(),
            );
        }
        if dirs.len() > MOST_FOLDERS {
            return Err(format!(
                "{} directories: a comparison takes at most {MOST_FOLDERS}, one colour each",
                dirs.len()
            ));
        }
        for (i, d) in dirs.iter().enumerate() {
            if dirs[..i].contains(d) {
                return Err(format!("{} is named twice", d.display()));
            }
        }
        Ok(())
    }

    /// The schedule view of a run's report.
    pub fn view(&self) -> ScheduleView {
        ScheduleView {
            from: self.schedule_from,
            length: self.schedule_length,
            by_class: matches!(self.colour, Some(Colour::Class)),
        }
    }
}

/// The arguments of `calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// The population's arguments, as for `resample`.
    #[command(flatten)]
    pub population_args: PopulationArgs,
}

/// Replications of each resampled row of `calibrate` (Feitelson 2021, Fig. 15 takes a
/// thousand; at least 100 give its histogram a body).
pub const CALIBRATE_REPLICATIONS: u32 = 100;

impl CalibrateArgs {
    /// The resampling options of each resampled row (100 replications unless
    /// --replications says otherwise).
    pub fn options(&self) -> Result<ResampleOptions, String> {
        self.population_args.options(CALIBRATE_REPLICATIONS)
    }
}

/// The arguments of `sweep`.
#[derive(Args)]
pub struct SweepArgs {
    /// The population's arguments, as for `resample`.
    #[command(flatten)]
    pub population_args: PopulationArgs,
    /// Population multipliers, comma-separated; each multiplies the base population
    /// (--long-term, --temporary, both 1 by default).
    #[arg(long, value_delimiter = ',', required = true, value_parser = non_negative_factor)]
    pub populations: Vec<f64>,
    /// A scheduler to compare, `NAME[:key=value,...]`; repeat the option for more
    /// [default: --scheduler].
    #[arg(long = "schedulers")]
    pub schedulers: Vec<SchedulerSpec>,
    /// Run only shard K of N of the sweep's runs (1 <= K <= N); merge the shards'
    /// directories with `sitesim merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// The command line as given, without what does not change results
    /// ([`command_line`]); set by the caller that parsed it, `None` when none did.
    #[arg(skip)]
    pub command_line: Option<String>,
}

impl SweepArgs {
    /// Refuses an option combination no run of the sweep can have
    /// ([`SchedulerOptions::planning_conflict`] of each of --schedulers, else
    /// [`SchedulerOptions::refuse_conflicts`]).
    pub fn refuse_conflicts(&self) -> Result<(), String> {
        let scheduler = &self.population_args.feedback.site.scheduler;
        if self.schedulers.is_empty() {
            scheduler.refuse_conflicts()
        } else {
            scheduler
                .planning_conflict(self.schedulers.iter())
                .map_or(Ok(()), Err)
        }
    }

    /// Runs the sweep as the experiment it is (`--out` is its results directory).
    pub fn run(&self) -> Result<(), String> {
        let p = &self.population_args;
        let opts = p.options(RESAMPLE_REPLICATIONS)?;
        let schedulers = if self.schedulers.is_empty() {
            vec![opts.users.run.policy.clone()]
        } else {
            self.schedulers.clone()
        };
        // What identifies the experiment for resuming and merging: the scenario it is,
        // whose keys are every option that changes results, with the command line that
        // ran it as a comment.
        let text = self.scenario_text(&schedulers)?;
        sweep_command(
            p.swf(),
            &opts,
            &schedulers,
            &self.populations,
            opts.out.clone(),
            self.shard,
            &text,
        )
    }
}

impl SweepArgs {
    /// The sweep as the scenario file it is (`[experiment.sweep] axis = "population"` over
    /// `source = "resample"`), which `sitesim run` runs to the same results, under the
    /// command line that ran it ([`SweepArgs::command_line`]) as a comment. The log's path
    /// is absolute, so the file runs from any folder; what does not change results
    /// (`--out`, `--threads`, `--check`) is left out.
    pub fn scenario_text(&self, schedulers: &[SchedulerSpec]) -> Result<String, String> {
        let p = &self.population_args;
        let scenario = p.scenario(RESAMPLE_REPLICATIONS);
        let WorkloadSection::Resample {
            estimates,
            questionable,
            users,
            open_loop,
            ..
        } = &scenario.workload
        else {
            unreachable!("a sweep resamples a log");
        };
        fn value<T: serde::Serialize + ?Sized>(what: &str, v: &T) -> Result<toml::Value, String> {
            toml::Value::try_from(v).map_err(|e| format!("the sweep's {what}: {e}"))
        }
        let path = std::fs::canonicalize(p.swf())
            .or_else(|_| std::path::absolute(p.swf()))
            .map_err(|e| format!("{}: {e}", p.swf().display()))?;
        let mut workload = toml::Table::new();
        workload.insert("source".into(), "resample".into());
        workload.insert("path".into(), path.display().to_string().into());
        workload.insert("estimates".into(), estimates.to_string().into());
        workload.insert("questionable".into(), value("questionable", questionable)?);
        workload.insert("open_loop".into(), (*open_loop).into());
        workload.insert("users".into(), value("users", users.as_ref())?);
        let mut population = value("population", &scenario.population)?;
        if let Some(t) = population.as_table_mut() {
            // `--weight USER=W`, as a table of users (the key reads only that).
            let weights: toml::Table = scenario
                .population
                .weight
                .iter()
                .map(|(user, w)| (user.to_string(), toml::Value::Float(*w)))
                .collect();
            t.insert("weight".into(), weights.into());
        }
        let mut site = value("site", &scenario.site)?;
        if let Some(t) = site.as_table_mut() {
            t.remove("check");
        }
        let mut doc = toml::Table::new();
        let log = p
            .swf()
            .file_stem()
            .map_or("log".into(), |s| s.to_string_lossy().into_owned());
        doc.insert("name".into(), format!("sweep-{log}").into());
        // TOML's integers end at i64::MAX; a larger seed is written as its digits.
        let seed = i64::try_from(scenario.seed)
            .map_or_else(|_| scenario.seed.to_string().into(), toml::Value::Integer);
        doc.insert("seed".into(), seed);
        doc.insert(
            "duration".into(),
            format!("{}s", scenario.duration.unwrap_or_default()).into(),
        );
        doc.insert(
            "replications".into(),
            i64::from(scenario.replications.unwrap_or(RESAMPLE_REPLICATIONS)).into(),
        );
        doc.insert("machine".into(), value("machine", &scenario.machine)?);
        doc.insert("scheduler".into(), value("scheduler", &scenario.scheduler)?);
        doc.insert("workload".into(), workload.into());
        doc.insert("population".into(), population);
        doc.insert("site".into(), site);
        doc.insert("metrics".into(), value("metrics", &scenario.metrics)?);
        let mut experiment = toml::Table::new();
        experiment.insert(
            "schedulers".into(),
            schedulers
                .iter()
                .map(|s| toml::Value::String(s.to_string()))
                .collect::<Vec<_>>()
                .into(),
        );
        let mut sweep = toml::Table::new();
        sweep.insert("axis".into(), "population".into());
        sweep.insert(
            "values".into(),
            self.populations
                .iter()
                .map(|&x| toml::Value::Float(x))
                .collect::<Vec<_>>()
                .into(),
        );
        experiment.insert("sweep".into(), sweep.into());
        doc.insert("experiment".into(), experiment.into());
        let body = toml::to_string(&doc).map_err(|e| format!("the sweep's scenario: {e}"))?;
        let command = self.command_line.as_deref().map_or(String::new(), |c| {
            format!("# The command that ran this sweep (from the folder it ran in):\n# {c}\n")
        });
        Ok(format!(
            "{command}# The same experiment as a scenario: `sitesim run FILE` with this text \
             as FILE.\n{body}"
        ))
    }
}

/// The command line of the subcommand `name` whose arguments are `matches`, as
/// `sitesim NAME --flag value ...` with every option given on the command line, in the
/// command's order, values quoted for a POSIX shell where they need it; without the
/// options in `leave_out` (by id).
pub fn command_line(
    name: &str,
    command: &Command,
    matches: &clap::ArgMatches,
    leave_out: &[&str],
) -> String {
    let quote = |v: &str| {
        if !v.is_empty()
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./:=,+-@%".contains(c))
        {
            v.to_owned()
        } else {
            format!("'{}'", v.replace('\'', "'\\''"))
        }
    };
    let mut out = format!("sitesim {name}");
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        if leave_out.contains(&id)
            || arg.is_global_set()
            || matches.value_source(id) != Some(clap::parser::ValueSource::CommandLine)
        {
            continue;
        }
        let Some(long) = arg.get_long() else { continue };
        let Ok(Some(occurrences)) = matches.try_get_raw_occurrences(id) else {
            continue;
        };
        for values in occurrences {
            out.push_str(&format!(" --{long}"));
            if arg.get_action().takes_values() {
                let values: Vec<String> = values.map(|v| quote(&v.to_string_lossy())).collect();
                let joint = arg.get_value_delimiter().unwrap_or(',').to_string();
                out.push(' ');
                out.push_str(&values.join(&joint));
            }
        }
    }
    out
}

/// Parses `argv` (the options that follow the command's name on the command line) as
/// the arguments `A` of the command `sitesim NAME`. An error is clap's message without
/// its `error: ` prefix and the usage that follows it, as one paragraph.
pub fn parse<A: Args + FromArgMatches>(name: &'static str, argv: &[String]) -> Result<A, String> {
    let command = A::augment_args(Command::new(name).no_binary_name(true));
    command
        .try_get_matches_from(argv)
        .and_then(|m| A::from_arg_matches(&m))
        .map_err(clap_message)
}

/// A refused command line's message: clap's first paragraph, without its `error: `.
pub(crate) fn clap_message(e: clap::Error) -> String {
    let text = e.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    let first = text.split("\n\n").next().unwrap_or(text);
    first.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::OverrunPolicy;
    use crate::time::WEEK;
    use crate::users::PatienceOption;

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|&s| s.to_owned()).collect()
    }

    #[test]
    fn defaults_are_the_command_lines() {
        let a: ReplayArgs = parse("replay", &argv(&["--swf", "log.swf"])).unwrap();
        let opts = a.scenario().replay_options().unwrap();
        assert_eq!(opts.policy.label(), "easy");
        assert_eq!(opts.overrun, OverrunPolicy::Kill);
        assert_eq!(opts.seed, 1);
        assert_eq!(opts.out, None);
        let a: ResampleArgs = parse("resample", &argv(&["--swf", "log.swf"])).unwrap();
        let opts = a.scenario().resample_options().unwrap();
        assert_eq!(opts.replications, RESAMPLE_REPLICATIONS);
        assert_eq!(opts.weeks, 52);
        assert_eq!(opts.users.run.cooldown, WEEK);
    }

    /// A command is the scenario its flags make: each flag sets its section's key.
    #[test]
    fn a_command_is_the_scenario_of_its_flags() {
        use crate::experiment::scenario::Scenario;
        let flags = [
            "--swf",
            "log.swf",
            "--scheduler",
            "sjbf",
            "--predictor",
            "ruh",
            "--procs",
            "64",
            "--overrun",
            "extend",
            "--estimates",
            "exact",
            "--questionable",
            "zero-runtime=skip",
            "--warmup",
            "1w",
            "--seed",
            "7",
            "--patience",
            "1h",
            "--weeks",
            "3",
            "--replications",
            "4",
            "--users",
            "2",
            "--no-feedback",
            "--out",
            "results",
        ];
        let a: ResampleArgs = parse("resample", &argv(&flags)).unwrap();
        let text = "seed = 7\nduration = \"5w\"\nreplications = 4\n\
                    [machine]\nprocs = 64\n[scheduler]\npolicy = \"sjbf\"\npredictor = \"ruh\"\n\
                    [site]\noverrun = \"extend\"\n[metrics]\nwarmup = \"1w\"\n\
                    [population]\nusers = 2\n[output]\ndir = \"results\"\n\
                    [workload]\nsource = \"resample\"\npath = \"log.swf\"\n\
                    estimates = \"exact\"\nopen_loop = true\n\
                    questionable = { zero-runtime = \"skip\" }\n\
                    [workload.users]\npatience = \"1h\"\n";
        assert_eq!(a.scenario(), Scenario::parse(text, "s.toml").unwrap());
        // Three measured weeks between a week of warm-up and the week of cool-down.
        assert_eq!(a.scenario().resample_options().unwrap().weeks, 3);
    }

    /// `model` too: each flag sets its key, a model site's reaction its `[workload.users]`.
    #[test]
    fn a_model_site_is_the_scenario_of_its_flags() {
        use crate::experiment::scenario::Scenario;
        let flags = [
            "--procs",
            "256",
            "--work-hours",
            "8,18",
            "--work-hours-for",
            "jobs",
            "--calibrate",
            "off",
            "--user-lifetime",
            "never",
            "--continuation",
            "off",
            "--users",
            "0.5",
            "--duration",
            "10w",
            "--replications",
            "3",
            "--cpu-work",
            "600",
            "--load",
            "0.6",
        ];
        let a: ModelArgs = parse("model", &argv(&flags)).unwrap();
        let text = "duration = \"10w\"\nreplications = 3\n[machine]\nprocs = 256\n\
                    [population]\nusers = 0.5\n[workload]\nsource = \"model\"\n\
                    work_hours = [8, 18]\nwork_hours_for = \"jobs\"\ncalibrate = false\n\
                    user_lifetime = \"never\"\ncpu_work = 600\nload = 0.6\n\
                    [workload.users]\ncontinuation = \"off\"\n";
        assert_eq!(a.scenario(), Scenario::parse(text, "s.toml").unwrap());
        let e = parse::<ModelArgs>("model", &argv(&["--procs", "128", "--load", "0.5"]))
            .err()
            .unwrap();
        assert!(e.contains("--cpu-work"), "{e}");
    }

    #[test]
    fn errors_name_the_option_without_the_usage() {
        let e = parse::<ReplayArgs>("replay", &argv(&["--swf", "x", "--procs", "0"]))
            .err()
            .unwrap();
        assert!(
            e.starts_with("invalid value '0' for '--procs <PROCS>'"),
            "{e}"
        );
        assert!(!e.contains("Usage"), "{e}");
        let e = parse::<ReplayArgs>("replay", &argv(&["--swf", "x", "--nope"]))
            .err()
            .unwrap();
        assert!(e.contains("'--nope'"), "{e}");
        let e = parse::<FeedbackArgs>("feedback", &argv(&[])).err().unwrap();
        assert!(e.contains("--swf <FILE>"), "{e}");
    }

    /// A command line and a scenario reach the same options through the same rules: the
    /// same defaults, and the same refusals, each named in its own way in.
    #[test]
    fn the_command_line_and_a_scenario_share_defaults_and_rules() {
        use crate::experiment::scenario::Scenario;
        let scenario = |users: &str, metrics: &str| {
            Scenario::parse(
                &format!(
                    "[scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"resample\"\n\
                     path = \"log.swf\"\n[workload.users]\n{users}\n[metrics]\n{metrics}\n"
                ),
                "s.toml",
            )
            .and_then(|s| s.resample_options())
        };
        let cli = |extra: &[&str]| {
            let mut args = vec!["--swf", "log.swf"];
            args.extend_from_slice(extra);
            parse::<ResampleArgs>("resample", &argv(&args))
                .and_then(|a| a.scenario().resample_options())
        };
        let (from_cli, from_scenario) = (cli(&[]).unwrap(), scenario("", "").unwrap());
        assert_eq!(from_cli.users.users, from_scenario.users.users);
        assert_eq!(from_cli.users.run.bsld, from_scenario.users.run.bsld);
        assert_eq!(from_cli.users.run.cooldown, WEEK);
        assert_eq!(from_scenario.users.run.cooldown, WEEK);
        let patience = |o: ResampleOptions| o.users.users.reaction.patience();
        assert_eq!(
            patience(cli(&["--patience", "1h"]).unwrap()),
            patience(scenario("patience = \"1h\"", "").unwrap())
        );
        assert_eq!(patience(from_cli), PatienceOption::default());
        assert_eq!(patience(from_scenario), PatienceOption::default());
        // No strike at all is refused, by clap on the command line.
        let e = cli(&["--strikes", "0"]).err().unwrap();
        assert!(e.contains("--strikes"), "{e}");
        let e = scenario("strikes = 0", "").err().unwrap();
        assert!(e.contains("must be at least 1"), "{e}");
        for (flags, users, metrics, rule) in [
            (
                &["--threshold", "0"][..],
                "threshold = \"0s\"",
                "",
                "session threshold must be at least 1 second",
            ),
            (
                &["--bsld-threshold", "0"][..],
                "",
                "bsld_threshold = 0",
                "bounded slowdown threshold must be at least 1 second",
            ),
        ] {
            let e = cli(flags).err().unwrap();
            assert!(
                e.contains(rule) && e.contains(flags[flags.len() - 2]),
                "{e}"
            );
            let e = scenario(users, metrics).err().unwrap();
            assert!(e.contains(rule), "{e}");
        }
    }
}
