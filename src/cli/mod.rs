//! The `sitesim` command line: the argument definitions, their conversion to each
//! command's options, and the dispatch; each command's code lives in `crate::experiment`.
//! The arguments of the commands that run a log (`replay`, `feedback`, `resample`,
//! `sweep`, `calibrate`, `export`, and what others share with them) and of those that
//! read results directories (`merge`, `report`) are in [`args`], where the Python
//! bindings and the fuzz targets parse them too. `src/main.rs` only calls [`main`].

pub mod args;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::cli::args::{
    AnalyzeArgs, CalibrateArgs, EstimatesArgs, ExportArgs, FeedbackArgs, FitArgs, GenerateArgs,
    MergeArgs, ModelArgs, ReplayArgs, ReportArgs, ResampleArgs, SweepArgs,
};
use crate::commands::analyze::analyze_command;
use crate::commands::calibrate::calibrate_command;
use crate::commands::estimates::estimates_command;
use crate::commands::export::{export_command, export_jobs_command};
use crate::commands::fit::fit_command;
use crate::commands::generate::generate_command;
use crate::experiment::run::run_command;
use crate::experiment::scenario::Scenario;
use crate::experiment::study::Shard;
use crate::registry::SchedulerSpec;
use crate::report::{DEFAULT_OUT, ScheduleView, compare_command, report_command};
use crate::results::replicate::MAX_REPLICATIONS;
use crate::results::summary::merge_command;
use crate::results::terminal::Failure;

#[derive(Parser)]
#[command(
    name = "sitesim",
    version,
    about = "A closed-loop, site-level simulator for parallel job scheduling"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bars and no notes on stderr (files written, time taken); results and
    /// errors are still printed.
    #[arg(long, short, global = true)]
    quiet: bool,
    /// Also show the simulation's internal counters and options (the user model's
    /// settings, which rule set each submission's time); summary.json always has them.
    #[arg(long, short, global = true)]
    verbose: bool,
    /// The most jobs a log may hold; a log with more is refused, naming the option
    /// (about 0.5 kB per job at worst).
    #[arg(long, global = true, value_name = "N", default_value_t = crate::swf::DEFAULT_MAX_JOBS,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_jobs: u64,
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
    /// users stop adding load. An experiment, as a scenario's `[experiment.sweep] axis =
    /// "population"` over `source = "resample"` gives: its results directory is --out
    /// [default: results/sweep-LOG]; an interrupted sweep resumes, --shard splits it.
    Sweep(SweepArgs),
    /// Run a model-based site (Talby 2006, as `docs/MODELS.md` describes it): users and
    /// sessions drawn from the model, each user with feedback, in parallel replications;
    /// a scenario's `source = "model"`.
    Model(ModelArgs),
    /// The check before a closed-loop study of a log: the log's own figures beside its
    /// users fed the log's own service (which must give back the log), resampled under
    /// that service, under a scheduler with and without feedback, and what makes the
    /// congestion of resampled workloads (Feitelson 2021, Figs. 15, 17).
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
    /// Write a log (SWF, plain or gzip, or a Batsim workload) as a Batsim JSON workload,
    /// or a run's jobs as Batsim's _jobs.csv.
    Export(ExportArgs),
    /// Merge the results directories of an experiment's shards into one.
    Merge(MergeArgs),
    /// Write a results directory's report: SVG plots and one HTML page, in DIR/report; or,
    /// given several directories, one page comparing their runs, in --out.
    Report(ReportArgs),
    /// List the scheduling policies and their parameters.
    Policies,
    /// Print a shell completion script: `sitesim completions bash > ~/.local/share/bash-completion/completions/sitesim`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of sitesim, or of one of its commands, generated from
    /// these options: `sitesim man | man -l -`, `sitesim man replay | man -l -`.
    Man {
        /// The command whose page to print (`replay` is sitesim-replay(1)).
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

#[derive(Args)]
struct RunArgs {
    /// The scenario file [default: the built-in scenarios/default.toml].
    scenario: Option<PathBuf>,
    /// Results directory: an experiment's runs and summary, or a run's summary.json and
    /// outputs [default: the scenario's [output] dir; an experiment's else results/NAME].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run only shard K of N of an experiment's runs (1 <= K <= N); merge the shards'
    /// directories with `sitesim merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Replications, instead of the scenario's (at most 100000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_REPLICATIONS)))]
    replications: Option<u32>,
    /// Random seed, instead of the scenario's.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Threads, instead of the scenario's.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// Set any key of the scenario: dotted for a table's (`population.users=2`,
    /// `scheduler.policy=creasy:alpha=1`, `workload.users.continuation=off`); the value
    /// is read as TOML, else as a string. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = Scenario::setting)]
    settings: Vec<(String, String)>,
    /// Also write the report of the results directory (DIR/report/index.html), as
    /// `sitesim report DIR` does.
    #[arg(long)]
    report: bool,
}

impl RunArgs {
    /// Every override as a setting of the scenario.
    fn settings(&self) -> Vec<(String, String)> {
        let mut s = Vec::new();
        if let Some(n) = self.replications {
            s.push(("replications".to_owned(), n.to_string()));
        }
        if let Some(n) = self.seed {
            s.push(("seed".to_owned(), n.to_string()));
        }
        if let Some(n) = self.threads {
            s.push(("threads".to_owned(), n.to_string()));
        }
        s.extend(self.settings.iter().cloned());
        s
    }
}

/// Writes the manual page of sitesim, or of its command `name` (sitesim-NAME), to `out`:
/// clap_mangen's sections, then EXIT STATUS.
fn manual(name: Option<&str>, out: &mut Vec<u8>) -> Result<(), String> {
    let mut cli = definition();
    cli.build();
    let page = match name {
        None => cli.clone(),
        Some(name) => {
            let known: Vec<String> = cli
                .get_subcommands()
                .map(|s| s.get_name().to_owned())
                .collect();
            let sub = cli.find_subcommand(name).cloned().ok_or_else(|| {
                format!("no command '{name}' (the commands: {})", known.join(", "))
            })?;
            sub.name(format!("sitesim-{name}"))
                .display_name(format!("sitesim-{name}"))
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let man = clap_mangen::Man::new(page.clone());
    let io = |e: std::io::Error| e.to_string();
    man.render_title(out).map_err(io)?;
    man.render_name_section(out).map_err(io)?;
    man.render_synopsis_section(out).map_err(io)?;
    man.render_description_section(out).map_err(io)?;
    if page.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(out).map_err(io)?;
    }
    if page.has_subcommands() {
        man.render_subcommands_section(out).map_err(io)?;
    }
    out.extend_from_slice(b".SH \"EXIT STATUS\"\n");
    for (code, what) in EXIT_STATUS {
        out.extend_from_slice(format!(".TP\n{code}\n{what}\n").as_bytes());
    }
    man.render_version_section(out).map_err(io)
}

/// Writes `bytes` to stdout (a reader that closed it early ends the program quietly:
/// [`end_quietly_on_a_closed_pipe`]).
fn print_bytes(bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    std::io::stdout()
        .lock()
        .write_all(bytes)
        .map_err(|e| format!("stdout: {e}"))
}

impl Command {
    /// Refuses, before any log is read, an option combination no run can have
    /// ([`crate::commands::options::SchedulerOptions::planning_conflict`]). A usage error, with
    /// clap's exit code 2, shown with the usage of subcommand `name`.
    fn check(&self, name: &str) -> Result<(), clap::Error> {
        let conflict = match self {
            Command::Replay(a) => a.site.scheduler.refuse_conflicts(),
            Command::Feedback(a) => a.site.scheduler.refuse_conflicts(),
            Command::Resample(a) => a.population_args.feedback.site.scheduler.refuse_conflicts(),
            Command::Calibrate(a) => a.population_args.feedback.site.scheduler.refuse_conflicts(),
            Command::Model(a) => a.scheduler.refuse_conflicts(),
            Command::Sweep(a) => a.refuse_conflicts(),
            Command::Export(a) => a.refuse_conflicts(),
            Command::Report(a) => a.refuse_conflicts(),
            _ => Ok(()),
        };
        conflict.map_err(|message| {
            let mut cli = definition();
            cli.build();
            let mut command = cli.find_subcommand(name).cloned().unwrap_or(cli);
            command.error(ErrorKind::ArgumentConflict, message)
        })
    }
}

/// Restores the default action of SIGPIPE, which Rust programs ignore: a reader that
/// closes the output early (`sitesim replay ... | head -1`) then ends the program quietly,
/// as it ends `cat`, instead of a panic in the middle of a `println!`.
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: called first thing in `main`, before any other thread exists; setting a
    // signal's disposition to its default has no other precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Runs `command`.
fn execute(command: Command) -> Result<(), Failure> {
    match command {
        Command::Calibrate(a) => a
            .options()
            .map_err(Failure::Failed)
            .and_then(|opts| calibrate_command(a.population_args.swf(), &opts)),
        command => dispatch(command).map_err(Failure::Failed),
    }
}

/// What `--help` and the manual pages say of the exit status.
const EXIT_STATUS: [(&str, &str); 4] = [
    ("0", "success"),
    (
        "1",
        "the run failed: an input it cannot read or refuses (a malformed log names its file, \
         line and field), an output it cannot write, a simulation that cannot go on",
    ),
    (
        "2",
        "the command line was refused: an unknown option, a value out of its range",
    ),
    (
        "130",
        "interrupted by Ctrl-C; what finished is kept (an experiment resumes)",
    ),
];

/// The command line's definition: every command and its options (the Python package
/// writes its functions' signatures from it), with the exit status after every
/// command's help and the registered policies offered as the values of `--scheduler` and
/// `--schedulers` (to shells' completions and in `--help`).
pub fn definition() -> clap::Command {
    let exit: String = std::iter::once("Exit status:".to_owned())
        .chain(
            EXIT_STATUS
                .iter()
                .map(|(code, what)| format!("  {code:>3}  {what}")),
        )
        .collect::<Vec<_>>()
        .join("\n");
    Cli::command()
        .after_help(exit.clone())
        .mut_subcommands(move |sub| {
            let mut sub = sub.after_help(exit.clone());
            for name in ["scheduler", "schedulers"] {
                if sub.get_arguments().any(|a| a.get_id() == name) {
                    sub = sub.mut_arg(name, |a| a.value_parser(PolicyParser));
                }
            }
            sub
        })
}

/// A policy spec on the command line, read as [`SchedulerSpec`]'s `FromStr` does, with
/// the registered policies' names as its possible values.
#[derive(Clone)]
struct PolicyParser;

impl clap::builder::TypedValueParser for PolicyParser {
    type Value = SchedulerSpec;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<SchedulerSpec, clap::Error> {
        let text = value.to_string_lossy();
        text.parse().map_err(|e: String| {
            let arg = arg.map_or_else(|| "--scheduler".to_owned(), |a| a.to_string());
            clap::Error::raw(
                ErrorKind::ValueValidation,
                format!("invalid value '{text}' for '{arg}': {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(crate::registry::policies().into_iter().map(
            |(name, about)| clap::builder::PossibleValue::new(name).help(about),
        )))
    }
}

/// Runs `sitesim ARGV...` (without the program's name) in this process, as the Python
/// package's commands do: its output on standard output, its error as text (a refused
/// command line as clap's first paragraph). Ctrl-C is left to the host.
pub fn run_in_process(argv: &[String]) -> Result<(), String> {
    let matches = definition()
        .no_binary_name(true)
        .try_get_matches_from(argv)
        .map_err(args::clap_message)?;
    let mut cli = Cli::from_arg_matches(&matches).map_err(args::clap_message)?;
    keep_command_line(&mut cli.command, &matches);
    cli.command
        .check(matches.subcommand_name().unwrap_or_default())
        .map_err(args::clap_message)?;
    crate::results::terminal::set_quiet(cli.quiet);
    crate::results::terminal::set_verbose(cli.verbose);
    crate::swf::set_max_jobs(cli.max_jobs);
    execute(cli.command).map_err(|e| e.message().to_owned())
}

/// Gives a command that records its command line (`sweep`, on its results page) the
/// line `matches` parsed, without the options that do not change its results.
fn keep_command_line(command: &mut Command, matches: &clap::ArgMatches) {
    if let Command::Sweep(a) = command
        && let Some(("sweep", sub)) = matches.subcommand()
        && let Some(definition) = definition().find_subcommand("sweep")
    {
        a.command_line = Some(args::command_line(
            "sweep",
            definition,
            sub,
            &["out", "threads", "check", "report", "shard"],
        ));
    }
}

/// With `report` (`--report`), writes the report of the results directory `dir`, as
/// `replay`, `feedback`, `resample` and `sweep` do after their run.
pub fn then_report(report: bool, dir: Option<&Path>) -> Result<(), String> {
    match (report, dir) {
        (false, _) => Ok(()),
        (true, Some(dir)) => report_command(dir, ScheduleView::default(), Default::default()),
        (true, None) => Err("--report: this run wrote no results directory; give --out DIR".into()),
    }
}

/// Runs every command but `calibrate`.
fn dispatch(command: Command) -> Result<(), String> {
    match command {
        Command::Run(a) => {
            let settings = a.settings();
            let dir = run_command(a.scenario.as_deref(), a.out, a.shard, &settings)?;
            then_report(a.report, dir.as_deref())
        }
        Command::Replay(a) => {
            a.scenario().plan()?.execute_and_print(Instant::now())?;
            then_report(a.site.report, a.site.out.as_deref())
        }
        Command::Feedback(a) => {
            a.scenario().plan()?.execute_and_print(Instant::now())?;
            then_report(a.site.report, a.site.out.as_deref())
        }
        Command::Resample(a) => {
            a.scenario().plan()?.execute_and_print(Instant::now())?;
            let site = &a.population_args.feedback.site;
            then_report(site.report, site.out.as_deref())
        }
        Command::Model(a) => {
            a.scenario().plan()?.execute_and_print(Instant::now())?;
            then_report(a.report, a.out.as_deref())
        }
        Command::Sweep(a) => {
            a.run()?;
            let site = &a.population_args.feedback.site;
            then_report(site.report && a.shard.is_none(), site.out.as_deref())
        }
        Command::Calibrate(_) => unreachable!("calibrate is run apart: it may refuse its input"),
        Command::Analyze(a) => a.options().and_then(|opts| analyze_command(&a.swf, &opts)),
        Command::Generate(a) => generate_command(a.config(), a.model.as_deref(), &a.out),
        Command::Estimates(a) => a.input().and_then(|input| estimates_command(input, a.seed)),
        Command::Fit(a) => fit_command(&a.swf, a.time_zone.as_deref(), &a.unknown_waits, &a.out),
        Command::Export(a) => match (&a.swf, &a.run) {
            (Some(swf), _) => export_command(swf, &a.options()),
            (None, Some(run)) => export_jobs_command(run, a.output.as_deref()),
            (None, None) => unreachable!("clap requires --swf or --run"),
        },
        Command::Merge(a) => merge_command(&a.out, &a.shards),
        Command::Report(a) if a.others.is_empty() => {
            report_command(&a.dir, a.view(), a.figures.style())
        }
        Command::Report(a) => {
            let out = a.out.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_OUT));
            compare_command(&a.compared(), &out, a.view(), a.figures.style())
        }
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut definition(), "sitesim", &mut script);
            print_bytes(&script)
        }
        Command::Man { command: name } => {
            let mut page = Vec::new();
            manual(name.as_deref(), &mut page).map_err(|e| format!("the manual page: {e}"))?;
            print_bytes(&page)
        }
        Command::Policies => {
            for (name, about) in crate::registry::policies() {
                println!("{name:14} {about}");
            }
            Ok(())
        }
    }
}

/// The `sitesim` command: parses the command line, runs the command, and returns its exit
/// code (0, 1 for a failure, 2 for a refused request).
pub fn main() -> ExitCode {
    end_quietly_on_a_closed_pipe();
    let matches = definition().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    keep_command_line(&mut cli.command, &matches);
    if let Err(e) = cli
        .command
        .check(matches.subcommand_name().unwrap_or_default())
    {
        e.exit();
    }
    crate::results::terminal::set_quiet(cli.quiet);
    crate::results::terminal::set_verbose(cli.verbose);
    crate::swf::set_max_jobs(cli.max_jobs);
    // Ctrl-C and SIGTERM stop every command: simulations are abandoned, results being
    // written are removed, a log being read stops.
    crate::results::terminal::stop_flag();
    let result = execute(cli.command);
    match result {
        // An abandoned run ends with an error; the interrupt is what happened.
        _ if crate::results::terminal::interrupted() => {
            eprintln!("interrupted: what finished is kept (an experiment resumes when run again)");
            ExitCode::from(130)
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message());
            ExitCode::from(e.code())
        }
    }
}
