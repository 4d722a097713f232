//! Running a scenario without an `[experiment]` section: one replay, one feedback
//! replay, or the replications of a resampled population or a model-based site, with
//! the scenario's outputs.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::commands::feedback::{FeedbackSummary, feedback_file, render_feedback};
use crate::commands::model::{ModelSummary, render_model, run_model};
use crate::commands::replay::{ReplaySummary, render, replay, replay_file};
use crate::commands::resample::{ResampleSummary, render_resample};
use crate::experiment::scenario::{Scenario, WorkloadSection};
use crate::results::RunError;
use crate::results::replicate::{with_threads, write_replicated};
use crate::swf::{LogSource, SwfHeader};
use crate::workload::{Synthetic, SyntheticConfig, SyntheticModel};
use std::path::PathBuf;
use std::time::Instant;

use crate::experiment::scenario::DEFAULT_SCENARIO;
use crate::experiment::study::{Shard, Study, experiment_command};
use crate::results::terminal::{note, progress_of, report_elapsed, report_single_run, stop_flag};

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

    /// The figures of a single run (replay or feedback); `None` for replications.
    pub fn single(&self) -> Option<&ReplaySummary> {
        match self {
            RunSummary::Replay(s) => Some(s),
            RunSummary::Feedback(s) => Some(&s.run),
            RunSummary::Resample(_) | RunSummary::Model(_) => None,
        }
    }
}

impl Scenario {
    /// Runs the scenario; replicated runs stop starting replications once `stop` is
    /// set and call `done` as each finishes.
    pub fn run(&self, stop: &AtomicBool, done: &(dyn Fn() + Sync)) -> Result<RunSummary, String> {
        let opts = self.replay_options()?;
        if self.replications == Some(0) {
            return Err("replications must be at least 1".into());
        }
        if self.threads == Some(0) {
            return Err("threads must be at least 1".into());
        }
        let err = |e: RunError| e.to_string();
        match &self.workload {
            WorkloadSection::Swf { path, .. } => {
                self.single_run("swf")?;
                replay_file(path, &opts).map(|s| RunSummary::Replay(Box::new(s)))
            }
            WorkloadSection::Feedback { path, users, .. } => {
                self.single_run("feedback")?;
                feedback_file(path, &users.options(opts)?)
                    .map(|s| RunSummary::Feedback(Box::new(s)))
            }
            WorkloadSection::Resample { .. } => {
                let (resampler, ropts) = self.resample_setup()?;
                let reps = with_threads(ropts.threads, u64::from(ropts.replications), || {
                    resampler.replications(
                        &ropts,
                        &ropts.users.run.policy,
                        &ropts.population,
                        ropts.replications,
                        stop,
                        done,
                    )
                })
                .map_err(err)?
                .map_err(err)?;
                let summary = resampler.summary(&ropts, reps);
                if let Some(dir) = &ropts.out {
                    write_replicated(dir, &summary).map_err(err)?;
                }
                Ok(RunSummary::Resample(Box::new(summary)))
            }
            WorkloadSection::Model { .. } => {
                let (files, mopts, out) = self.model_setup()?;
                let runs = u64::from(mopts.replications);
                let summary = with_threads(mopts.threads, runs, || {
                    run_model(&files, &mopts, stop, done)
                })
                .map_err(err)?
                .map_err(err)?;
                if let Some(dir) = &out {
                    write_replicated(dir, &summary).map_err(err)?;
                }
                Ok(RunSummary::Model(Box::new(summary)))
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
                let seed = seed.unwrap_or(self.seed);
                let cfg = SyntheticConfig {
                    jobs: *jobs,
                    procs,
                    load: *load,
                    seed,
                };
                let header = SwfHeader {
                    lines: Synthetic::new(cfg, &model).header_lines(),
                    max_procs: Some(i64::from(procs)),
                    ..SwfHeader::default()
                };
                let name = Synthetic::new(cfg, &model).name();
                let source = LogSource::new(name, header, || Ok(Synthetic::new(cfg, &model)));
                replay(&source, &opts)
                    .map(|s| RunSummary::Replay(Box::new(s)))
                    .map_err(err)
            }
        }
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

/// `sitesim run`: reads the scenario at `path` (the built-in default scenario without
/// one) and runs it: an `[experiment]` into the results directory `out` (default: the
/// scenario's `[output] dir`, else `results/NAME`), `shard` of its runs; any other
/// scenario as one run or one set of replications, printed and written to its
/// `[output] dir`.
/// `settings` override the scenario's keys ([`Scenario::with_settings`]).
pub fn run_command(
    path: Option<&Path>,
    out: Option<PathBuf>,
    shard: Option<Shard>,
    settings: &[(String, String)],
) -> Result<(), String> {
    let started = Instant::now();
    let (mut scenario, text) = load_scenario(path, settings)?;
    if scenario.experiment.is_some() {
        let mut study = Study::new(&scenario, &text)?;
        let dir = results_dir(&scenario, &study, out);
        return experiment_command(&mut study, &dir, shard, scenario.threads, started);
    }
    if shard.is_some() {
        return Err("--shard applies to scenarios with an [experiment] section".into());
    }
    if out.is_some() {
        scenario.output.dir = out;
    }
    if let Some(d) = &scenario.description {
        println!(
            "scenario {}: {d}",
            scenario.name.as_deref().unwrap_or("(unnamed)")
        );
    }
    let bar = progress_of(u64::from(scenario.runs()), "replications");
    let summary = scenario.run(stop_flag(), &|| bar.inc(1))?;
    bar.finish_and_clear();
    print!("{}", summary.render());
    match summary.single() {
        Some(run) => report_single_run(
            started,
            run.jobs_checked(),
            scenario.output.dir.as_deref(),
            matches!(summary, RunSummary::Feedback(_)),
        ),
        None => {
            if let Some(dir) = &scenario.output.dir {
                note(format_args!(
                    "wrote {}/summary.json and replications.csv",
                    dir.display()
                ));
            }
            report_elapsed(started);
        }
    }
    Ok(())
}
