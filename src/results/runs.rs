//! The results directory of an experiment: one file per run, written atomically and durably
//! (see [`crate::results::output`]), so that
//! an interrupted experiment resumes where it stopped and shards merge into the same
//! results one process would give.
//!
//! ```text
//! RESULTS_DIR/
//!   experiment.json           the plan: scenario text, points, replications (RunPlan)
//!   runs/<point>/r<NNNN>.json one file per run (RunRecord)
//!   summary.json              statistics per point over replications (Summary)
//!   runs.csv                  one row per run
//!   report/                   `sitesim report`: index.html and SVG plots
//! ```

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::results::metric::Replication;
use crate::results::output::write_durable;

/// One point of an experiment: a scheduler at one value of the swept parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Its identifier, also its directory under `runs/` (`p000`, `p001`, ...).
    pub id: String,
    /// The scheduler, `NAME[:key=value,...]`.
    pub scheduler: String,
    /// The scheduler's label in plots and tables (the scenario's `label`, or the spec).
    pub label: String,
    /// Processors.
    pub procs: u32,
    /// The population multiplier.
    pub population: f64,
    /// The swept parameter's value (the population, the processors, or a policy
    /// parameter), `None` without a sweep.
    pub x: Option<f64>,
}

/// What an experiment runs: written first, read by `merge`, `report` and resumed runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    /// sitesim's version.
    pub sitesim_version: String,
    /// The scenario's name.
    pub name: String,
    /// The scenario file's text, verbatim.
    pub scenario: String,
    /// The swept parameter (`population`, `procs`, `alpha`, ...), if any.
    pub axis: Option<String>,
    /// Its unit, for plot axes (`users x`, `processors`, ...).
    pub axis_unit: Option<String>,
    /// Replications per point.
    pub replications: u32,
    /// Every point, schedulers in the scenario's order within each sweep value.
    pub points: Vec<Point>,
}

impl RunPlan {
    /// Every run: `(point index, replication)`, point-major.
    pub fn runs(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        (0..self.points.len()).flat_map(move |p| (0..self.replications).map(move |r| (p, r)))
    }
}

/// Averages over one local hour of the day.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HourFigures {
    /// The hour, 0-23.
    pub hour: u8,
    /// Jobs submitted per day in this hour.
    pub arrivals: f64,
    /// Mean jobs waiting.
    pub mean_queue: f64,
    /// Mean share of processors busy.
    pub utilization: f64,
}

/// Job figures of one runtime class (Feitelson 2021, Fig. 20).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassFigures {
    /// `short`, `medium` or `long`.
    pub class: String,
    /// Its bounds, for legends.
    pub label: String,
    /// Jobs measured.
    pub jobs: u64,
    /// Mean wait, seconds.
    pub mean_wait: f64,
    /// Mean response time, seconds.
    pub mean_response: f64,
    /// Mean bounded slowdown.
    pub mean_bsld: f64,
}

/// The figures of one run (one replication of one point).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The point's identifier.
    pub point: String,
    /// The replication's number, seed and scalar figures, named as in
    /// [`crate::results::metric::METRICS`].
    #[serde(flatten)]
    pub figures: Replication,
    /// By local hour of the day.
    pub by_hour: Vec<HourFigures>,
    /// By runtime class.
    pub by_runtime_class: Vec<ClassFigures>,
}

/// The file of run `replication` of point `point` under `dir`.
pub fn run_path(dir: &Path, point: &str, replication: u32) -> PathBuf {
    dir.join("runs")
        .join(point)
        .join(format!("r{replication:04}.json"))
}

/// Writes `record` under `dir`, atomically and durably (a partial file never has the
/// final name); an error names the file or directory that failed.
pub fn write_run(dir: &Path, record: &RunRecord) -> Result<(), String> {
    let path = run_path(dir, &record.point, record.figures.replication);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let json = serde_json::to_vec_pretty(record).map_err(|e| e.to_string())?;
    write_durable(&path, &json)
        .map(|_| ())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads run `replication` of `point`, `None` if it has not been written; a file that
/// is not a run's record (truncated by a crash of an older sitesim, say) is an error
/// naming it.
pub fn read_run(dir: &Path, point: &str, replication: u32) -> Result<Option<RunRecord>, String> {
    let path = run_path(dir, point, replication);
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// What a run's file holds, as a resumed experiment sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunFile {
    /// No file: the run is to be done.
    Missing,
    /// The record of this very run: it is done.
    Finished,
    /// A file that is not this run's record (unreadable, truncated, another run's):
    /// why, naming the file. The run is to be done again.
    Unreadable(String),
}

/// Whether run `replication` of `point` is finished under `dir`: its file must parse as
/// the record of that run, so that a truncated file is never counted as done.
pub fn run_file(dir: &Path, point: &str, replication: u32) -> RunFile {
    match read_run(dir, point, replication) {
        Ok(None) => RunFile::Missing,
        Ok(Some(r)) if r.point == point && r.figures.replication == replication => {
            RunFile::Finished
        }
        Ok(Some(r)) => RunFile::Unreadable(format!(
            "{}: holds run {} of {}",
            run_path(dir, point, replication).display(),
            r.figures.replication,
            r.point
        )),
        Err(e) => RunFile::Unreadable(e),
    }
}

/// Writes the plan as `experiment.json`; an error names the file or directory that
/// failed.
pub fn write_plan(dir: &Path, plan: &RunPlan) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let json = serde_json::to_vec_pretty(plan).map_err(|e| e.to_string())?;
    let path = dir.join("experiment.json");
    write_durable(&path, &json)
        .map(|_| ())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads `experiment.json`. Its point identifiers name folders under `runs/`, so each
/// must be a plain name (letters, digits, `.`, `_` and `-`, neither `.` nor `..`) and
/// unique: a plan edited by hand or damaged must not make `merge` or a resumed run read
/// or write outside the results directory, nor two points share their runs.
pub fn read_plan(dir: &Path) -> Result<RunPlan, String> {
    let path = dir.join("experiment.json");
    let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let plan: RunPlan =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut seen = std::collections::HashSet::new();
    for (i, point) in plan.points.iter().enumerate() {
        let id = &point.id;
        if !is_folder_name(id) {
            return Err(format!(
                "{}: points[{i}].id {id:?} is not a folder name (letters, digits, '.', '_', '-')",
                path.display()
            ));
        }
        if !seen.insert(id) {
            return Err(format!(
                "{}: points[{i}].id {id:?} is the id of an earlier point",
                path.display()
            ));
        }
    }
    Ok(plan)
}

/// Whether `name` is a plain folder name, as a point's id must be: letters, digits, `.`,
/// `_` and `-`, neither empty nor `.` or `..`.
pub fn is_folder_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}
