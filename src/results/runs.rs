//! The results directory of an experiment: one file per run, written atomically and durably
//! (see [`crate::results::output`]), so that
//! an interrupted experiment resumes where it stopped and shards merge into the same
//! results one process would give.
//!
//! Each run's file carries a checksum of its record (`"checksum"`: FNV-1a, 64 bits, of
//! the record's compact JSON without it, in hex; [`RunRecord::checksum`]). A file whose
//! checksum is missing or does not match what it holds (edited by hand, damaged) is
//! never taken for a run: a resumed experiment runs it again, `merge`, `summarize` and
//! `report` refuse it by name.
//!
//! ```text
//! RESULTS_DIR/
//!   experiment.json           the plan: scenario text, points, replications (RunPlan)
//!   runs/<point>/r<NNNN>.json one file per run (RunRecord)
//!   summary.json              statistics per point over replications (Summary)
//!   runs.csv                  one row per run
//!   report/                   `sitesim report`: index.html and SVG plots
//! ```

use std::fs::{self, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::results::metric::Replication;
use crate::results::output::{create_inside, write_durable};

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

    /// Whether `other` plans the same experiment: the same runs of the same scenario
    /// ([`same_scenario`]), whatever settings that do not change results it was given.
    pub fn same_experiment(&self, other: &RunPlan) -> bool {
        let bare = |p: &RunPlan| RunPlan {
            scenario: String::new(),
            ..p.clone()
        };
        bare(self) == bare(other) && same_scenario(&self.scenario, &other.scenario)
    }
}

/// The keys of a scenario that do not change an experiment's results: its worker
/// threads, its `[output]` section (where results go) and the invariant checker
/// (`[site] check`, which only checks), dotted for a table's.
const NOT_RESULTS: [&str; 3] = ["threads", "output", "site.check"];

/// Whether the scenario texts `a` and `b` (as a plan records them) give the same
/// results: the same keys and values as TOML, but for [`NOT_RESULTS`], whatever their
/// layout and comments (a `--set` rewrites the text without them). A text that is not
/// TOML (a sweep's command line, which leaves such settings out itself) is compared as
/// it is.
pub fn same_scenario(a: &str, b: &str) -> bool {
    fn results_keys(text: &str) -> Option<toml::Table> {
        let mut table: toml::Table = text.parse().ok()?;
        for key in NOT_RESULTS {
            let (path, last) = key
                .rsplit_once('.')
                .map_or((None, key), |(p, l)| (Some(p), l));
            let within = match path {
                None => Some(&mut table),
                Some(p) => table.get_mut(p).and_then(toml::Value::as_table_mut),
            };
            if let Some(t) = within {
                t.remove(last);
            }
        }
        Some(table)
    }
    match (results_keys(a), results_keys(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
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

impl RunRecord {
    /// The checksum its file carries: FNV-1a (64 bits) of its compact JSON, in hex.
    /// The JSON of a record read back is the JSON it was written from (numbers are
    /// written in full and read back exactly), so the checksum of a file's record
    /// matches the file's own unless a value was changed.
    pub fn checksum(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        format!("{:016x}", fnv1a64(&json))
    }
}

/// FNV-1a, 64 bits (Fowler, Noll and Vo): a small, well-known hash whose value is
/// fixed by its definition, unlike the standard library's and `rustc_hash`'s.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A run's file: its record and the record's checksum.
#[derive(Serialize)]
struct Stored<'a> {
    #[serde(flatten)]
    record: &'a RunRecord,
    checksum: String,
}

/// The folder of point `point`'s runs, relative to the results directory.
fn point_folder(point: &str) -> PathBuf {
    Path::new("runs").join(point)
}

/// The file of run `replication` of point `point` under `dir`.
pub fn run_path(dir: &Path, point: &str, replication: u32) -> PathBuf {
    dir.join(point_folder(point))
        .join(format!("r{replication:04}.json"))
}

/// Writes `record` under `dir` with its checksum, atomically and durably (a partial
/// file never has the final name); an error names the file or directory that failed.
pub fn write_run(dir: &Path, record: &RunRecord) -> Result<(), String> {
    create_inside(dir, &point_folder(&record.point))?;
    let path = run_path(dir, &record.point, record.figures.replication);
    let stored = Stored {
        record,
        checksum: record.checksum(),
    };
    let json = serde_json::to_vec_pretty(&stored).map_err(|e| e.to_string())?;
    write_durable(&path, &json)
        .map(|_| ())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads run `replication` of `point`, `None` if it has not been written. A file that
/// is not a run's record sitesim wrote is an error naming it: one that does not parse
/// (truncated by a crash of an older sitesim, say), one whose checksum is missing or
/// does not match its content, and a symbolic link (nor is a link followed in place of
/// `runs` or the point's folder): a run's file is never read from outside `dir`.
pub fn read_run(dir: &Path, point: &str, replication: u32) -> Result<Option<RunRecord>, String> {
    let path = run_path(dir, point, replication);
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut folder = dir.to_path_buf();
    for part in point_folder(point).components() {
        folder.push(part);
        if fs::symlink_metadata(&folder).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(named(&format_args!(
                "{} is a symbolic link: sitesim reads runs only inside {}",
                folder.display(),
                dir.display()
            )));
        }
    }
    // Not blocking: a FIFO planted as a run's file is refused, not waited on.
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path);
    let mut bytes = Vec::new();
    let read = opened.and_then(|f| {
        let meta = f.metadata()?;
        if !meta.is_file() || meta.len() > super::input::MAX_JSON {
            return Err(io::Error::other(format!(
                "not a run's file: a run's file is a regular file of at most {} bytes",
                super::input::MAX_JSON
            )));
        }
        f.take(super::input::MAX_JSON).read_to_end(&mut bytes)
    });
    match read {
        Ok(_) => parse_run(&bytes).map(Some).map_err(|e| named(&e)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            Err(named(&"a symbolic link, not a run's file"))
        }
        Err(e) => Err(named(&e)),
    }
}

/// The record of a run's file, its checksum checked.
fn parse_run(bytes: &[u8]) -> Result<RunRecord, String> {
    let mut value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let stated = value.as_object_mut().and_then(|o| o.remove("checksum"));
    let record: RunRecord = serde_json::from_value(value).map_err(|e| e.to_string())?;
    match stated {
        None => Err(
            "no checksum: not a run's file as sitesim writes it (edited, or written \
                     by an older sitesim)"
                .into(),
        ),
        Some(serde_json::Value::String(c)) if c == record.checksum() => Ok(record),
        Some(_) => Err(
            "its checksum does not match its content: edited or damaged since it was written"
                .into(),
        ),
    }
}

/// What a run's file holds, as a resumed experiment sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunFile {
    /// No file: the run is to be done.
    Missing,
    /// The record of this very run: it is done.
    Finished,
    /// A file that is not this run's record (unreadable, truncated, edited, another
    /// run's, a link): why, naming the file. The run is to be done again.
    Unreadable(String),
}

/// Whether run `replication` of `point` is finished under `dir`: its file must parse as
/// the record of that run and carry its checksum, so that a truncated or edited file is
/// never counted as done.
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

/// Writes the plan as `experiment.json` (into the results directory `dir`, made if
/// missing); an error names the file or directory that failed.
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
    let bytes = super::input::read(&path, super::input::MAX_JSON)?;
    let plan: RunPlan =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    // Within what an experiment can plan: a plan edited to billions of runs would have
    // `report`, `merge` and a resume look for each.
    let max = super::replicate::MAX_REPLICATIONS;
    if plan.replications > max {
        return Err(format!(
            "{}: replications {}: more than the {max} an experiment runs",
            path.display(),
            plan.replications
        ));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_gives_its_published_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_run_file_is_read_back_only_with_its_checksum() {
        let dir = std::env::temp_dir().join(format!("sitesim-runs-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let record = RunRecord {
            point: "p000".into(),
            figures: Replication {
                replication: 3,
                utilization: 0.1 + 0.2,
                mean_wait: 1e308,
                ..Replication::default()
            },
            by_hour: Vec::new(),
            by_runtime_class: Vec::new(),
        };
        write_run(&dir, &record).unwrap();
        assert_eq!(read_run(&dir, "p000", 3).unwrap(), Some(record.clone()));
        assert_eq!(run_file(&dir, "p000", 3), RunFile::Finished);
        let path = run_path(&dir, "p000", 3);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(&format!("\"checksum\": \"{}\"", record.checksum())));
        // Laid out otherwise, the same record checks.
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        fs::write(&path, serde_json::to_vec(&value).unwrap()).unwrap();
        assert_eq!(run_file(&dir, "p000", 3), RunFile::Finished);
        for (edited, why) in [
            (
                text.replace(
                    "\"utilization\": 0.30000000000000004",
                    "\"utilization\": 0.99",
                ),
                "its checksum does not match its content",
            ),
            (text.replace("\"checksum\"", "\"sum\""), "no checksum"),
        ] {
            assert_ne!(edited, text);
            fs::write(&path, edited).unwrap();
            let e = read_run(&dir, "p000", 3).unwrap_err();
            assert!(e.starts_with(&format!("{}: {why}", path.display())), "{e}");
            assert!(matches!(run_file(&dir, "p000", 3), RunFile::Unreadable(_)));
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn settings_that_do_not_change_results_leave_the_scenario_the_same() {
        let base = "# a comment\nname = \"x\"\nseed = 1\n[site]\nweights = 1\n";
        for same in [
            "name = \"x\"\nseed = 1\n[site]\nweights = 1\n",
            "threads = 4\nname = \"x\"\nseed = 1\n[site]\nweights = 1\ncheck = true\n",
            "name = \"x\"\nseed = 1\n[site]\nweights = 1\n[output]\ndir = \"elsewhere\"\n",
        ] {
            assert!(same_scenario(base, same), "{same}");
        }
        assert!(!same_scenario(
            base,
            "name = \"x\"\nseed = 2\n[site]\nweights = 1\n"
        ));
        // A text that is not TOML is compared as it is.
        assert!(same_scenario("sitesim sweep --x 1", "sitesim sweep --x 1"));
        assert!(!same_scenario(
            "sitesim sweep --x 1",
            "sitesim sweep --x  1"
        ));
    }
}
