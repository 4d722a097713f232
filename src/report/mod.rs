//! `sitesim report DIR`: the report of any results directory, written to `DIR/report/`
//! (`index.html` and its SVGs), by what the directory holds:
//!
//! - an experiment (`experiment.json`): every point, paired differences, sweeps and
//!   capacity searches (`experiment.rs`);
//! - one run (`summary.json` and `jobs.csv`: `replay`, `feedback`, a scenario's run with
//!   its jobs): its service, by runtime class, over time, its schedule and its users
//!   (`run.rs`, on `series.rs`);
//! - replicated runs (`summary.json` and `replications.csv`: `resample`, a scenario's
//!   replicated run): each metric over the replications (`replicated.rs`);
//! - a calibration (`calibrate.json`, which `calibrate` reports as it runs): the log,
//!   its replay and the resampled rows, Fig. 15 and 17, the weekly load and the users
//!   (`calibration.rs`);
//! - Batsim's `_jobs.csv`, named or alone in the directory: the page of one run
//!   (`run.rs`), written to `report/` beside it.
//!
//! `sitesim report A B ...` writes one page comparing the runs of several such
//! directories (`compare.rs`); `sitesim analyze --report` writes the page of a log itself
//! (`workload.rs`).
//!
//! The pages of one run, of replicated runs, of a calibration, of a comparison and of a
//! log share `page.rs` and the template `templates/run.html`; every figure is drawn in
//! the style `--figure-width`, `--figure-height`, `--font-scale` and `--figure-format`
//! set (`plot::chart::with_style`).

mod calibration;
mod compare;
mod experiment;
mod page;
mod replicated;
mod run;
mod series;
mod workload;

use std::path::{Path, PathBuf};

use crate::plot::chart::{FigureStyle, with_style};
use crate::results::jobs::is_batsim;
use crate::results::lock::lock_folder;

pub use compare::{DEFAULT_OUT, MOST_FOLDERS, compare_command, write_comparison};
pub use experiment::{CAPACITY_FILE, REPORT_DIR};
pub use run::ScheduleView;
pub use workload::WorkloadInput;

/// What a results directory holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An experiment's runs.
    Experiment,
    /// One run with its jobs.
    Run,
    /// Replicated runs.
    Replicated,
    /// A calibration.
    Calibration,
    /// Batsim's `_jobs.csv`.
    Batsim,
}

impl Kind {
    /// What `dir` holds (or is: Batsim's `_jobs.csv`), or why it is no results
    /// directory.
    pub fn of(dir: &Path) -> Result<Kind, String> {
        let has = |f: &str| dir.join(f).is_file();
        if dir.is_file() {
            let named = dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("_jobs.csv"));
            return if named || is_batsim(dir) {
                Ok(Kind::Batsim)
            } else {
                Err(format!(
                    "{}: not Batsim's _jobs.csv (no job_id, starting_time and \
                     allocated_resources columns, and a name not ending in _jobs.csv); \
                     sitesim reports a results directory",
                    dir.display()
                ))
            };
        }
        if has("experiment.json") {
            Ok(Kind::Experiment)
        } else if has("calibrate.json") {
            Ok(Kind::Calibration)
        } else if has("summary.json") && has("jobs.csv") {
            Ok(Kind::Run)
        } else if has("summary.json") && has("replications.csv") {
            Ok(Kind::Replicated)
        } else if !dir.is_dir() {
            Err(format!("{}: no such results directory", dir.display()))
        } else if batsim_jobs(dir)?.is_some() {
            Ok(Kind::Batsim)
        } else {
            Err(format!(
                "{}: not a results directory: it has no experiment.json (an experiment), \
                 calibrate.json (a calibration), summary.json with jobs.csv (a run) or \
                 replications.csv (replicated runs), or Batsim's _jobs.csv; `--out DIR` \
                 writes them",
                dir.display()
            ))
        }
    }
}

/// Batsim's `_jobs.csv` in the directory `dir`, if it holds one (a file whose name ends
/// in `_jobs.csv`, with Batsim's columns); an error if it holds several.
fn batsim_jobs(dir: &Path) -> Result<Option<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("_jobs.csv"))
                && p.is_file()
                && is_batsim(p)
        })
        .collect();
    found.sort();
    match found.len() {
        0 | 1 => Ok(found.pop()),
        _ => Err(format!(
            "{}: holds {} of Batsim's _jobs.csv files; name the one to report",
            dir.display(),
            found.len()
        )),
    }
}

/// The folder a report of `path` is written in (`report/` under it): `path`, or the
/// folder of a file.
fn folder_of(path: &Path) -> &Path {
    if path.is_file() {
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        }
    } else {
        path
    }
}

/// Writes the report of the results directory `dir` (see the module's documentation);
/// the files written. `view` sets a run's schedule view. `dir` is held for this process
/// while its report is written ([`lock_folder`]).
pub fn write_report(dir: &Path, view: ScheduleView) -> Result<Vec<PathBuf>, String> {
    let kind = Kind::of(dir)?;
    let folder = folder_of(dir);
    let out = folder.join(REPORT_DIR);
    let _lock = lock_folder(folder)?;
    match kind {
        Kind::Batsim => {
            let file = match dir.is_file() {
                true => dir.to_owned(),
                false => batsim_jobs(dir)?.unwrap_or_default(),
            };
            run::write_batsim_report(&file, &out, view)
        }
        Kind::Experiment => experiment::write_report(dir),
        Kind::Run => run::write_report(dir, &out, view),
        Kind::Replicated => replicated::write_report(dir, &out),
        Kind::Calibration => calibration::write_report(dir, &out),
    }
}

/// Writes the report of the calibration in `dir` into `dir/report/` (see
/// `calibration.rs`), for `calibrate`, which holds `dir` already; the files written.
pub fn write_calibration_report(dir: &Path) -> Result<Vec<PathBuf>, String> {
    calibration::write_report(dir, &dir.join(REPORT_DIR))
}

/// Writes the report of a log (`sitesim analyze --report`), whose job lines `records`
/// reads, into `dir/report/`, holding `dir` meanwhile; the files written.
pub fn write_workload_report(
    input: &WorkloadInput<'_>,
    records: impl Iterator<Item = Result<crate::swf::Located, crate::swf::SwfError>>,
    dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    crate::results::output::create_subfolder(dir)?;
    let _lock = lock_folder(dir)?;
    workload::write_report(input, records, &dir.join(REPORT_DIR))
}

/// The page of the report of `dir`.
pub fn page_of(dir: &Path) -> Result<PathBuf, String> {
    Kind::of(dir)?;
    Ok(folder_of(dir).join(REPORT_DIR).join("index.html"))
}

/// `sitesim report`: writes the report of `dir`, its figures in `style`, and says where
/// to open it.
pub fn report_command(dir: &Path, view: ScheduleView, style: FigureStyle) -> Result<(), String> {
    let files = with_style(style, || write_report(dir, view))?;
    println!(
        "wrote {} file(s); open {}",
        files.len(),
        page_of(dir)?.display()
    );
    Ok(())
}
