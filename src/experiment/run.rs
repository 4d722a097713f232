//! Running a scenario without an `[experiment]` section: one replay, one feedback
//! replay, or the replications of a resampled population or a model-based site, with
//! the scenario's outputs.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::scenario::{DEFAULT_SCENARIO, Scenario, WorkloadSection};
use super::study::{Shard, Study, experiment_command};
use crate::commands::feedback::{FeedbackOptions, FeedbackSummary, feedback_file, render_feedback};
use crate::commands::model::{ModelFiles, ModelOptions, ModelSummary, render_model, run_model};
use crate::commands::replay::{ReplayOptions, ReplaySummary, render, replay, replay_file};
use crate::commands::resample::{ResampleOptions, ResampleSummary, render_resample, resample_file};
use crate::results::RunError;
use crate::results::lock::lock_folder;
use crate::results::replicate::{WeeklyCsv, with_threads, write_replicated};
use crate::results::terminal::{
    note, progress_of, report_elapsed, report_single_run, stop_flag, warn,
};
use crate::swf::{LogSource, SwfHeader};
use crate::workload::{Synthetic, SyntheticConfig, SyntheticModel};

/// What a scenario's run produced.
#[derive(Debug, Clone, PartialEq)]
pub enum RunSummary {
    /// An open-loop replay.
    Replay(Box<ReplaySummary>),
    /// A replay with feedback.
    Feedback(Box<FeedbackSummary>),
    /// Replications of a resampled population.
    Resample(Box<ResampleSummary>),
    /// Replications of a model-based site.
    Model(Box<ModelSummary>),
}

impl RunSummary {
    /// The terminal summary.
    pub fn render(&self) -> String {
        match self {
            RunSummary::Replay(s) => render(s),
            RunSummary::Feedback(s) => render_feedback(s),
            RunSummary::Resample(s) => render_resample(s),
            RunSummary::Model(s) => render_model(s),
        }
    }

    /// What the run ignored or could not honour, as its `summary.json` says it: inputs
    /// dropped, a machine smaller than the log's own schedule, a clock guessed.
    pub fn warnings(&self) -> Vec<String> {
        match self {
            RunSummary::Replay(s) => s.warnings.clone(),
            RunSummary::Feedback(s) => [&s.run.warnings[..], &s.warnings[..]].concat(),
            RunSummary::Resample(s) => s
                .source
                .machine
                .warning(&s.source.input)
                .into_iter()
                .chain(s.source.warnings.iter().cloned())
                .collect(),
            RunSummary::Model(_) => Vec::new(),
        }
    }

    /// The figures of a single run (replay or feedback); `None` for replications.
    pub fn single(&self) -> Option<&ReplaySummary> {
        match self {
            RunSummary::Replay(s) => Some(s),
            RunSummary::Feedback(s) => Some(&s.run),
            RunSummary::Resample(_) | RunSummary::Model(_) => None,
        }
    }
}

/// One run, whichever way it came in: a `replay`, `feedback` or `resample` command line,
/// or a scenario without an `[experiment]` section ([`Scenario::plan`]). Its options are
/// already checked; [`Run::execute`] is the one executor.
#[derive(Debug, Clone)]
pub enum Run {
    /// An open-loop replay of a log.
    Replay {
        /// The log.
        log: PathBuf,
        /// The site, the scheduler, the metrics and the outputs.
        opts: ReplayOptions,
    },
    /// An open-loop replay of a synthetic workload.
    Synthetic {
        /// The workload.
        cfg: SyntheticConfig,
        /// Its model.
        model: SyntheticModel,
        /// The site, the scheduler, the metrics and the outputs.
        opts: ReplayOptions,
    },
    /// A replay of a log's users with feedback.
    Feedback {
        /// The log.
        log: PathBuf,
        /// The users and the site.
        opts: FeedbackOptions,
    },
    /// Replications of a population resampled from a log.
    Resample {
        /// The log.
        log: PathBuf,
        /// The population, the users and the site.
        opts: ResampleOptions,
    },
    /// Replications of a model-based site.
    Model {
        /// The model.
        files: ModelFiles,
        /// The site.
        opts: ModelOptions,
        /// Where `summary.json` and `replications.csv` go.
        out: Option<PathBuf>,
    },
}

impl Run {
    /// Replications the run makes (1 for a single run).
    pub fn replications(&self) -> u32 {
        match self {
            Run::Resample { opts, .. } => opts.replications,
            Run::Model { opts, .. } => opts.replications,
            Run::Replay { .. } | Run::Synthetic { .. } | Run::Feedback { .. } => 1,
        }
    }

    /// Where the run writes its files.
    pub fn out(&self) -> Option<&Path> {
        match self {
            Run::Replay { opts, .. } | Run::Synthetic { opts, .. } => opts.out.as_deref(),
            Run::Feedback { opts, .. } => opts.run.out.as_deref(),
            Run::Resample { opts, .. } => opts.out.as_deref(),
            Run::Model { out, .. } => out.as_deref(),
        }
    }

    /// Runs it and writes its files; replications stop starting once `stop` is set and
    /// call `done` as each finishes. Its results folder is held for this process from
    /// the start ([`lock_folder`]): another process writing it is refused before anything
    /// runs.
    pub fn execute(
        &self,
        stop: &AtomicBool,
        done: &(dyn Fn() + Sync),
    ) -> Result<RunSummary, String> {
        let _lock = self.out().map(lock_folder).transpose()?;
        let err = |e: RunError| e.to_string();
        Ok(match self {
            Run::Replay { log, opts } => RunSummary::Replay(Box::new(replay_file(log, opts)?)),
            Run::Synthetic { cfg, model, opts } => {
                let header = SwfHeader {
                    lines: Synthetic::new(*cfg, model).header_lines(),
                    max_procs: Some(i64::from(cfg.procs)),
                    ..SwfHeader::default()
                };
                let name = Synthetic::new(*cfg, model).name();
                let source = LogSource::new(name, header, || Ok(Synthetic::new(*cfg, model)));
                RunSummary::Replay(Box::new(replay(&source, opts).map_err(err)?))
            }
            Run::Feedback { log, opts } => {
                RunSummary::Feedback(Box::new(feedback_file(log, opts)?))
            }
            Run::Resample { log, opts } => {
                RunSummary::Resample(Box::new(resample_file(log, opts, stop, done)?))
            }
            Run::Model { files, opts, out } => {
                let runs = u64::from(opts.replications);
                let mut weekly = out
                    .as_deref()
                    .map(WeeklyCsv::create)
                    .transpose()
                    .map_err(err)?;
                let summary = with_threads(opts.threads, runs, || {
                    run_model(files, opts, stop, done, weekly.as_mut())
                })
                .map_err(err)?
                .map_err(err)?;
                if let (Some(dir), Some(weekly)) = (out, weekly) {
                    write_replicated(dir, &summary, weekly).map_err(err)?;
                }
                RunSummary::Model(Box::new(summary))
            }
        })
    }

    /// Runs it as a command does: a progress bar over its replications (stopped by
    /// Ctrl-C), a warning for a machine smaller than the log's own schedule, the
    /// summary, its time and the files written, on the terminal.
    pub fn execute_and_print(&self, started: Instant) -> Result<(), String> {
        let bar = progress_of(u64::from(self.replications()), "replications");
        let summary = self.execute(stop_flag(), &|| bar.inc(1))?;
        bar.finish_and_clear();
        print!("{}", summary.render());
        for w in summary.warnings() {
            warn(&w);
        }
        match summary.single() {
            Some(run) => report_single_run(
                started,
                run.jobs_checked(),
                self.out(),
                matches!(summary, RunSummary::Feedback(_)),
            ),
            None => {
                if let Some(dir) = self.out() {
                    note(format_args!(
                        "wrote {}/summary.json, replications.csv and weekly.csv",
                        dir.display()
                    ));
                }
                report_elapsed(started);
            }
        }
        Ok(())
    }
}

impl Scenario {
    /// Runs the scenario ([`Scenario::plan`], then [`Run::execute`]).
    pub fn run(&self, stop: &AtomicBool, done: &(dyn Fn() + Sync)) -> Result<RunSummary, String> {
        self.plan()?.execute(stop, done)
    }

    /// The run this scenario stands for, its options checked.
    pub fn plan(&self) -> Result<Run, String> {
        self.check_counts()?;
        let opts = self.replay_options()?;
        Ok(match &self.workload {
            WorkloadSection::Swf { path, .. } => {
                self.single_run("swf")?;
                Run::Replay {
                    log: path.clone(),
                    opts,
                }
            }
            WorkloadSection::Feedback { path, .. } => Run::Feedback {
                log: path.clone(),
                opts: self.feedback_options()?,
            },
            WorkloadSection::Resample { path, .. } => Run::Resample {
                log: path.clone(),
                opts: self.resample_options()?,
            },
            WorkloadSection::Model { .. } => {
                let (files, opts, out) = self.model_setup()?;
                Run::Model { files, opts, out }
            }
            WorkloadSection::Synthetic {
                jobs,
                load,
                seed,
                model,
                ..
            } => {
                self.single_run("synthetic")?;
                let model = match model {
                    Some(p) => {
                        let text = crate::model_files::read(p)?;
                        SyntheticModel::parse(&text, &p.display().to_string())?
                    }
                    None => SyntheticModel::default(),
                };
                let procs = opts
                    .procs
                    .ok_or("[machine] procs is required for a synthetic workload")?;
                if !(load.is_finite() && *load > 0.0) || *jobs == 0 {
                    return Err("[workload] needs jobs >= 1 and a positive load".into());
                }
                let cfg = SyntheticConfig {
                    jobs: *jobs,
                    procs,
                    load: *load,
                    seed: seed.unwrap_or(self.seed),
                };
                Run::Synthetic { cfg, model, opts }
            }
        })
    }
}

/// The scenario at `path` (the built-in default scenario without one) with `settings`
/// applied ([`Scenario::with_settings`]), and its text.
pub fn load_scenario(
    path: Option<&Path>,
    settings: &[(String, String)],
) -> Result<(Scenario, String), String> {
    match path {
        Some(path) => Scenario::load_with(path, settings),
        None => Scenario::parse_with(
            DEFAULT_SCENARIO,
            "scenarios/default.toml (built in)",
            settings,
        ),
    }
}

/// The results directory of the experiment `study` of `scenario`: `out`, else the
/// scenario's `[output] dir`, else `results/NAME`.
pub fn results_dir(scenario: &Scenario, study: &Study, out: Option<PathBuf>) -> PathBuf {
    out.or_else(|| scenario.output.dir.clone())
        .unwrap_or_else(|| PathBuf::from("results").join(&study.plan().name))
}

/// Checks the results directory `dir` before a run writes into it: a path that exists
/// and is not a directory (a file, a device) is refused; a scenario's `[output] dir`
/// (`from_scenario`) that leads outside the current folder (an absolute path elsewhere,
/// or `..`) is said, since the file, not the user, chose it.
fn check_output_dir(dir: &Path, from_scenario: bool) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "{}: the results directory is not a directory (a file or a device); name \
             another with --out or the scenario's [output] dir",
            dir.display()
        ));
    }
    let here = std::env::current_dir().ok();
    let outside = dir
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
        || (dir.is_absolute() && here.is_none_or(|h| !dir.starts_with(h)));
    if from_scenario && outside {
        crate::results::terminal::warn(&format!(
            "the scenario's [output] dir writes the results to {}, outside the current \
             folder (--out DIR writes them elsewhere)",
            dir.display()
        ));
    }
    Ok(())
}

/// `sitesim run`: reads the scenario at `path` (the built-in default scenario without
/// one) and runs it: an `[experiment]` into the results directory `out` (default: the
/// scenario's `[output] dir`, else `results/NAME`), `shard` of its runs; any other
/// scenario as one run or one set of replications, printed and written to its
/// `[output] dir`. Returns the directory it wrote, if any.
/// `settings` override the scenario's keys ([`Scenario::with_settings`]).
pub fn run_command(
    path: Option<&Path>,
    out: Option<PathBuf>,
    shard: Option<Shard>,
    settings: &[(String, String)],
) -> Result<Option<PathBuf>, String> {
    let started = Instant::now();
    let (mut scenario, text) = load_scenario(path, settings)?;
    let from_scenario = out.is_none();
    if scenario.experiment.is_some() {
        let mut study = Study::new(&scenario, &text)?;
        let dir = results_dir(&scenario, &study, out);
        check_output_dir(&dir, from_scenario && scenario.output.dir.is_some())?;
        experiment_command(&mut study, &dir, shard, scenario.threads, started)?;
        return Ok(Some(dir));
    }
    if shard.is_some() {
        return Err("--shard applies to scenarios with an [experiment] section".into());
    }
    if out.is_some() {
        scenario.output.dir = out;
    }
    if let Some(d) = &scenario.description {
        // The description is the file's; what the command line changed is said after it.
        let set: Vec<String> = settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let overrides = if set.is_empty() {
            String::new()
        } else {
            format!(" [set here: {}]", set.join(", "))
        };
        println!(
            "scenario {}: {d}{overrides}",
            scenario.name.as_deref().unwrap_or("(unnamed)")
        );
    }
    let dir = scenario.output.dir.clone();
    if let Some(dir) = &dir {
        check_output_dir(dir, from_scenario)?;
    }
    scenario.plan()?.execute_and_print(started)?;
    Ok(dir)
}
