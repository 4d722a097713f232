//! sitesim's Python bindings, the extension module `sitesim._sitesim` that the package
//! `sitesim` (`python/sitesim/__init__.py`) wraps.
//!
//! Each function runs one command as the `sitesim` binary does: the options are the
//! command line's own (`sitesim::cli::args`, parsed from the argument list the
//! Python side builds from keyword arguments), so they have its defaults and give its
//! errors, and the run goes through the same library function. The GIL is released for
//! the whole of a run. A summary comes back as JSON text, the bytes `summary.json`
//! holds before pretty-printing; the tables are the files the run writes into its
//! output directory, which the Python side reads.

mod gym;
mod handoff;
mod host;
mod scheduler;

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::Serialize;

use sitesim::cli::args::{FeedbackArgs, ModelArgs, ReplayArgs, ResampleArgs, parse};
use sitesim::experiment::run::{RunSummary, load_scenario, results_dir};
use sitesim::experiment::scenario::Scenario;
use sitesim::experiment::study::{Shard, Study};
use sitesim::report::{ScheduleView, write_report};
use sitesim::results::replicate::with_threads;
use sitesim::results::terminal::{clear_stop, stop_flag};

create_exception!(
    _sitesim,
    SitesimError,
    PyValueError,
    "A run refused its input or options; the message is the sitesim command's own \
     (a malformed log names its file, line and field)."
);

/// Runs `f` on a thread of its own, without the GIL, while this thread hosts the Python
/// schedulers' callbacks ([`host`]) and looks for Ctrl-C: on `KeyboardInterrupt` (or any
/// exception a signal handler raises), raised between callbacks or inside one, no new
/// run starts and the running ones are abandoned (a long single run stops too; finished
/// experiment runs stay on disk), and the exception is raised once they have. An error
/// of `f` becomes a [`SitesimError`].
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, String> + Send) -> PyResult<T> {
    let stop = stop_flag();
    clear_stop();
    sitesim::engine::clear_abandon();
    let host = host::Host::new();
    let finished = host.finisher();
    std::thread::scope(|scope| {
        let run = scope.spawn(move || {
            let result = f();
            finished();
            result
        });
        let mut interrupt = None;
        host.serve(py, |e| {
            stop.store(true, Ordering::Relaxed);
            sitesim::engine::abandon_runs();
            interrupt = Some(e);
        });
        let result = py.detach(|| run.join());
        // Runs outside a call (a gym environment's steps) are never abandoned.
        sitesim::engine::clear_abandon();
        let result = result.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match interrupt {
            Some(e) => Err(e),
            None => result.map_err(SitesimError::new_err),
        }
    })
}

/// `summary` as compact JSON.
fn json(summary: &impl Serialize) -> Result<String, String> {
    serde_json::to_string(summary).map_err(|e| format!("the summary: {e}"))
}

/// `sitesim COMMAND ARGV...` for `replay`, `feedback`, `resample` and `model`: the
/// scenario its options make, run as a scenario is; the summary as JSON (with `--report`,
/// the report of `--out` written too). Runs on the calling thread.
pub(crate) fn command(name: &str, argv: &[String]) -> Result<String, String> {
    let (scenario, report) = match name {
        "replay" => {
            let a: ReplayArgs = parse("replay", argv)?;
            a.site.scheduler.refuse_conflicts()?;
            (a.scenario(), a.site.report)
        }
        "feedback" => {
            let a: FeedbackArgs = parse("feedback", argv)?;
            a.site.scheduler.refuse_conflicts()?;
            (a.scenario(), a.site.report)
        }
        "resample" => {
            let a: ResampleArgs = parse("resample", argv)?;
            a.population_args
                .feedback
                .site
                .scheduler
                .refuse_conflicts()?;
            (a.scenario(), a.population_args.feedback.site.report)
        }
        "model" => {
            let a: ModelArgs = parse("model", argv)?;
            a.scheduler.refuse_conflicts()?;
            (a.scenario(), a.report)
        }
        _ => return Err(format!("no command {name}")),
    };
    let summary = run_json(&scenario.run(stop_flag(), &|| {})?)?;
    if let (true, Some(out)) = (report, &scenario.output.dir) {
        write_report(out, ScheduleView::default())?;
    }
    Ok(summary)
}

#[pyfunction]
fn replay(py: Python<'_>, argv: Vec<String>) -> PyResult<String> {
    detached(py, || command("replay", &argv))
}

/// `sitesim feedback ARGV...`: the summary as JSON.
#[pyfunction]
fn feedback(py: Python<'_>, argv: Vec<String>) -> PyResult<String> {
    detached(py, || command("feedback", &argv))
}

/// `sitesim resample ARGV...`: the summary as JSON.
#[pyfunction]
fn resample(py: Python<'_>, argv: Vec<String>) -> PyResult<String> {
    detached(py, || command("resample", &argv))
}

/// `sitesim model ARGV...`: the summary as JSON.
#[pyfunction]
fn model(py: Python<'_>, argv: Vec<String>) -> PyResult<String> {
    detached(py, || command("model", &argv))
}

/// The summary of a scenario's run as JSON.
fn run_json(summary: &RunSummary) -> Result<String, String> {
    match summary {
        RunSummary::Replay(s) => json(s),
        RunSummary::Feedback(s) => json(s),
        RunSummary::Resample(s) => json(s),
        RunSummary::Model(s) => json(s),
    }
}

/// `sitesim run`: the scenario file `path`, or the scenario `text` (TOML, named `name`
/// in errors), or the built-in default scenario, with `settings` applied. An experiment
/// runs into `out` (default as the command line's) and gives back its results directory
/// and no summary; any other scenario runs into `out`, else its `[output] dir`, else
/// `scratch`, and gives back that directory and its summary as JSON.
#[pyfunction]
#[pyo3(signature = (path, text, name, settings, out, scratch))]
fn run(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    name: String,
    settings: Vec<(String, String)>,
    out: Option<PathBuf>,
    scratch: PathBuf,
) -> PyResult<(PathBuf, Option<String>)> {
    detached(py, || {
        let (mut scenario, text) = match text {
            Some(text) => {
                let text = Scenario::with_settings(&text, &name, &settings)?;
                (Scenario::parse(&text, &name)?, text)
            }
            None => load_scenario(path.as_deref(), &settings)?,
        };
        if scenario.experiment.is_some() {
            let mut study = Study::new(&scenario, &text)?;
            let dir = results_dir(&scenario, &study, out);
            let runs = study.runs_at_once(&dir, Shard::ALL);
            with_threads(scenario.threads, runs, || {
                study.run(&dir, Shard::ALL, stop_flag(), &|| {})
            })
            .map_err(|e| e.to_string())??;
            return Ok((dir, None));
        }
        let dir = out
            .or_else(|| scenario.output.dir.clone())
            .unwrap_or(scratch);
        scenario.output.dir = Some(dir.clone());
        let summary = scenario.run(stop_flag(), &|| {})?;
        Ok((dir, Some(run_json(&summary)?)))
    })
}

/// `sitesim ARGV...` run in this process (any command); its output goes to standard
/// output.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> PyResult<()> {
    detached(py, || sitesim::cli::run_in_process(&argv))
}

/// One option of a command, as the Python package's signatures show it: its name, its
/// kind (`bool`, `int`, `duration`, `float`, `path` or `str`), its help, its default, its
/// possible values, whether it is required, positional, and repeatable.
type OptionInfo = (
    String,
    &'static str,
    String,
    Option<String>,
    Vec<String>,
    bool,
    bool,
    bool,
);

/// What `sitesim COMMAND` does (its help's first paragraph), and its options in the
/// command line's order.
#[pyfunction]
fn options(command: &str) -> PyResult<(String, Vec<OptionInfo>)> {
    use clap::ArgAction;
    use clap::builder::ValueParser;
    use clap::value_parser;
    use std::path::PathBuf;
    let definition = sitesim::cli::definition();
    let Some(sub) = definition.find_subcommand(command) else {
        return Err(SitesimError::new_err(format!("no command {command}")));
    };
    let of = |p: ValueParser| p.type_id();
    let kind = |arg: &clap::Arg| {
        let id = arg.get_value_parser().type_id();
        if matches!(arg.get_action(), ArgAction::SetTrue) || id == of(value_parser!(bool)) {
            "bool"
        } else if id == of(value_parser!(i64).into())
            || arg
                .get_value_names()
                .is_some_and(|n| n.iter().any(|n| n.as_str() == "DURATION"))
        {
            // sitesim's times are i64 seconds, read as durations ("20m", "1w").
            "duration"
        } else if [
            of(value_parser!(u32).into()),
            of(value_parser!(u64).into()),
            of(value_parser!(usize).into()),
        ]
        .contains(&id)
        {
            "int"
        } else if id == of(value_parser!(f64).into()) {
            "float"
        } else if id == of(value_parser!(PathBuf)) {
            "path"
        } else {
            "str"
        }
    };
    let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
    let options = sub
        .get_arguments()
        .filter(|a| {
            !a.is_global_set() && !matches!(a.get_action(), ArgAction::Help | ArgAction::Version)
        })
        .map(|a| {
            (
                a.get_id().as_str().to_owned(),
                kind(a),
                a.get_help().map(|h| h.to_string()).unwrap_or_default(),
                a.get_default_values()
                    .first()
                    .map(|d| d.to_string_lossy().into_owned()),
                if kind(a) == "bool" {
                    Vec::new()
                } else {
                    a.get_possible_values()
                        .iter()
                        .map(|v| v.get_name().to_owned())
                        .collect()
                },
                a.is_required_set(),
                a.is_positional(),
                matches!(a.get_action(), ArgAction::Append)
                    || a.get_num_args().is_some_and(|n| n.max_values() > 1),
            )
        })
        .collect();
    Ok((about, options))
}

/// The TOML text of a scenario given as JSON (a Python dict).
#[pyfunction]
fn scenario_toml(json: &str) -> PyResult<String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| SitesimError::new_err(e.to_string()))?;
    toml::to_string(&value).map_err(|e| SitesimError::new_err(format!("the scenario: {e}")))
}

/// The extension module.
#[pymodule]
fn _sitesim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SitesimError", m.py().get_type::<SitesimError>())?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(feedback, m)?)?;
    m.add_function(wrap_pyfunction!(resample, m)?)?;
    m.add_function(wrap_pyfunction!(model, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_toml, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    sitesim::results::terminal::leave_interrupts_to_host();
    m.add_function(wrap_pyfunction!(scheduler::register_scheduler, m)?)?;
    m.add_class::<scheduler::Job>()?;
    m.add_class::<scheduler::Running>()?;
    m.add_class::<scheduler::View>()?;
    m.add_class::<scheduler::Registration>()?;
    m.add_class::<gym::Episode>()?;
    Ok(())
}
