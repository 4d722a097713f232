//! A run's jobs read back: sitesim's own `jobs.csv`, and Batsim's `_jobs.csv`, written
//! from one and read as one, so that Evalys draws a sitesim schedule and `sitesim
//! report` draws Batsim's.
//!
//! Batsim (documentation, "Jobs" output; its `JobsTracer`) writes a row per job under
//! the header [`BATSIM_HEADER`]: times as decimals of seconds, `allocated_resources` an
//! interval set (`0-3 8 10-11`, [`ProcSet`]), `metadata` a string its scheduler set.
//! Evalys's `JobSet.from_csv` reads it with pandas. A sitesim run written for Batsim:
//!
//! | Batsim | sitesim's `jobs.csv` |
//! |---|---|
//! | `job_id` | `job`, the job's number in its log (Batsim needs it unique) |
//! | `workload_name` | `w0`, Batsim's name of its first workload |
//! | `profile` | `requested_runtime` in seconds, the delay profile `export --batsim` names so |
//! | `submission_time`, `starting_time`, `finish_time` | `submit`, `start`, `end` |
//! | `requested_number_of_resources` | `size` |
//! | `requested_time` | `estimate` |
//! | `success`, `final_state` | 1, `COMPLETED_SUCCESSFULLY`; 0, `COMPLETED_WALLTIME_REACHED` when `killed` |
//! | `execution_time`, `waiting_time`, `turnaround_time`, `stretch` | `runtime`, `wait`, `response`, response / runtime (empty for a runtime of 0) |
//! | `allocated_resources` | `processors` |
//! | `consumed_energy` | -1, as Batsim writes without an energy model |
//! | `metadata` | `{"user":N}`, the user |
//!
//! Read back, a Batsim row gives the job's id, submit, start and end (rounded to whole
//! seconds), size (its allocation's, else the number requested), estimate
//! (`requested_time`, else its runtime), whether it was killed (`final_state`
//! `COMPLETED_WALLTIME_REACHED` or `COMPLETED_KILLED`), its processors and its user (from
//! `metadata`, else -1); rejected jobs (`REJECTED`, no start) are left out and counted.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::alloc::ProcSet;
use crate::metrics::Bsld;
use crate::textfmt::Fixed;
use crate::time::Time;

/// Batsim's `_jobs.csv` header, as its `JobsTracer` writes it.
pub const BATSIM_HEADER: [&str; 17] = [
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
];

/// A job of a run, as a report draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunJob {
    /// Its id: the log's job number in sitesim's files, Batsim's `job_id`.
    pub id: String,
    /// The submitting user (-1: unknown).
    pub user: i64,
    /// Submit time.
    pub submit: Time,
    /// Start time.
    pub start: Time,
    /// End time.
    pub end: Time,
    /// Processors.
    pub size: u32,
    /// The estimate the scheduler planned with.
    pub estimate: Time,
    /// The runtime its log recorded, before any kill.
    pub requested_runtime: Time,
    /// Whether it was killed at its estimate.
    pub killed: bool,
    /// Bounded slowdown.
    pub bounded_slowdown: f64,
    /// The processors it held, if the file says.
    pub processors: Option<ProcSet>,
}

impl RunJob {
    /// Its wait.
    pub fn wait(&self) -> Time {
        self.start - self.submit
    }

    /// Its response time.
    pub fn response(&self) -> Time {
        self.end - self.submit
    }

    /// Its runtime.
    pub fn runtime(&self) -> Time {
        self.end - self.start
    }
}

/// A row of sitesim's `jobs.csv` (the columns read).
#[derive(Debug, Deserialize)]
struct SitesimRow {
    job: i64,
    user: i64,
    submit: Time,
    start: Time,
    end: Time,
    size: u32,
    estimate: Time,
    requested_runtime: Time,
    killed: u8,
    bounded_slowdown: f64,
    /// Absent from files written before the column was added.
    #[serde(default)]
    processors: Option<String>,
}

/// Reads sitesim's `jobs.csv` at `path`; an error names the file, line and field.
pub fn read_sitesim(path: &Path) -> Result<Vec<RunJob>, String> {
    let mut reader = super::input::table(path)?;
    let headers = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .clone();
    let mut jobs = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
        let line = record.position().map_or(0, |p| p.line());
        let row: SitesimRow = record.deserialize(Some(&headers)).map_err(|e| {
            format!(
                "{}: line {line}: {}",
                path.display(),
                field_error(&e, &headers)
            )
        })?;
        let processors = match row.processors.as_deref() {
            None => None,
            Some(text) => Some(text.parse::<ProcSet>().map_err(|e| {
                format!("{}: line {line}: field 'processors': {e}", path.display())
            })?),
        };
        jobs.push(RunJob {
            id: row.job.to_string(),
            user: row.user,
            submit: row.submit,
            start: row.start,
            end: row.end,
            size: row.size,
            estimate: row.estimate,
            requested_runtime: row.requested_runtime,
            killed: row.killed != 0,
            bounded_slowdown: row.bounded_slowdown,
            processors,
        });
    }
    Ok(jobs)
}

/// A csv deserialization error, with the name of its field when it has one.
fn field_error(e: &csv::Error, headers: &csv::StringRecord) -> String {
    if let csv::ErrorKind::Deserialize { err, .. } = e.kind()
        && let Some(field) = err.field()
    {
        let name = headers.get(field as usize).unwrap_or("?");
        return format!("field '{name}': {}", err.kind());
    }
    e.to_string()
}

/// A row of Batsim's `_jobs.csv`, as sitesim writes it.
#[derive(Debug, Serialize)]
struct BatsimRow<'a> {
    job_id: &'a str,
    workload_name: &'a str,
    profile: String,
    submission_time: Fixed<6>,
    requested_number_of_resources: u32,
    requested_time: Fixed<6>,
    success: u8,
    final_state: &'a str,
    starting_time: Fixed<6>,
    execution_time: Fixed<6>,
    finish_time: Fixed<6>,
    waiting_time: Fixed<6>,
    turnaround_time: Fixed<6>,
    stretch: Option<Fixed<6>>,
    allocated_resources: String,
    consumed_energy: Fixed<6>,
    metadata: String,
}

/// Writes `jobs` to `out` as Batsim's `_jobs.csv`; every job must have its processors.
/// The error of a job without them, or whose id repeats, names it.
pub fn write_batsim<W: Write>(jobs: &[RunJob], out: W) -> Result<W, String> {
    let mut seen = std::collections::BTreeSet::new();
    // The header written as Batsim writes it; the rows without the csv crate's own.
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(out);
    let io = |e: csv::Error| e.to_string();
    w.write_record(BATSIM_HEADER).map_err(io)?;
    for j in jobs {
        if !seen.insert(j.id.as_str()) {
            return Err(format!(
                "job {} appears twice: Batsim needs each job_id once",
                j.id
            ));
        }
        let Some(processors) = &j.processors else {
            return Err(format!("job {} has no processors", j.id));
        };
        let runtime = j.runtime();
        w.serialize(BatsimRow {
            job_id: &j.id,
            workload_name: "w0",
            profile: j.requested_runtime.to_string(),
            submission_time: Fixed(j.submit as f64),
            requested_number_of_resources: j.size,
            requested_time: Fixed(j.estimate as f64),
            success: u8::from(!j.killed),
            final_state: if j.killed {
                "COMPLETED_WALLTIME_REACHED"
            } else {
                "COMPLETED_SUCCESSFULLY"
            },
            starting_time: Fixed(j.start as f64),
            execution_time: Fixed(runtime as f64),
            finish_time: Fixed(j.end as f64),
            waiting_time: Fixed(j.wait() as f64),
            turnaround_time: Fixed(j.response() as f64),
            stretch: (runtime > 0).then(|| Fixed(j.response() as f64 / runtime as f64)),
            allocated_resources: processors.to_string(),
            consumed_energy: Fixed(-1.0),
            metadata: format!("{{\"user\":{}}}", j.user),
        })
        .map_err(io)?;
    }
    w.into_inner().map_err(|e| e.error().to_string())
}

/// The most seconds a time of a Batsim file may hold: a century, as for logs.
const MOST_SECONDS: f64 = 100.0 * 365.25 * 86_400.0;

/// A Batsim `_jobs.csv` read back: its jobs (in the file's order) and the rejected ones
/// left out.
#[derive(Debug, Clone, PartialEq)]
pub struct BatsimJobs {
    /// The jobs that ran.
    pub jobs: Vec<RunJob>,
    /// Jobs Batsim rejected (`final_state` `REJECTED`, or no start).
    pub rejected: u64,
}

/// Whether the CSV file at `path` has Batsim's `_jobs.csv` columns (its header has
/// `job_id`, `allocated_resources` and `starting_time`).
pub fn is_batsim(path: &Path) -> bool {
    super::input::table(path)
        .ok()
        .and_then(|mut r| r.headers().ok().cloned())
        .is_some_and(|h| {
            ["job_id", "allocated_resources", "starting_time"]
                .iter()
                .all(|c| h.iter().any(|x| x == *c))
        })
}

/// Reads Batsim's `_jobs.csv` at `path` (module documentation); bounded slowdowns by
/// `bsld`. An error names the file, line and field.
pub fn read_batsim(path: &Path, bsld: Bsld) -> Result<BatsimJobs, String> {
    let mut reader = super::input::table(path)?;
    let file = path.display();
    let headers = reader
        .headers()
        .map_err(|e| format!("{file}: {e}"))?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let required = |name: &str| {
        column(name).ok_or_else(|| {
            format!(
                "{file}: line 1: no column '{name}' (Batsim's _jobs.csv has {})",
                BATSIM_HEADER.join(",")
            )
        })
    };
    let id = required("job_id")?;
    let submit = required("submission_time")?;
    let requested = required("requested_number_of_resources")?;
    let start = required("starting_time")?;
    let finish = required("finish_time")?;
    let allocated = required("allocated_resources")?;
    let walltime = column("requested_time");
    let state = column("final_state");
    let metadata = column("metadata");
    let mut out = BatsimJobs {
        jobs: Vec::new(),
        rejected: 0,
    };
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(format!("{file}: {e}")),
        }
        let line = record.position().map_or(0, |p| p.line());
        let at = |k: usize| -> Result<&str, String> {
            record.get(k).map(str::trim).ok_or_else(|| {
                format!(
                    "{file}: line {line}: no field '{}' (the row is short)",
                    &headers[k]
                )
            })
        };
        let bad = |k: usize, what: String| {
            format!("{file}: line {line}: field '{}': {what}", &headers[k])
        };
        let seconds = |k: usize| -> Result<Option<Time>, String> {
            let text = at(k)?;
            if text.is_empty() {
                return Ok(None);
            }
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() && v.abs() <= MOST_SECONDS => Ok(Some(v.round() as Time)),
                Ok(_) => Err(bad(k, format!("'{text}' is not a time within a century"))),
                Err(_) => Err(bad(k, format!("'{text}' is not a number"))),
            }
        };
        let final_state = match state {
            Some(k) => at(k)?,
            None => "",
        };
        let (Some(started), Some(ended)) = (seconds(start)?, seconds(finish)?) else {
            if final_state == "REJECTED" || at(start)?.is_empty() {
                out.rejected += 1;
                continue;
            }
            return Err(bad(finish, "empty for a job that started".into()));
        };
        if final_state == "REJECTED" {
            out.rejected += 1;
            continue;
        }
        let submitted = seconds(submit)?.ok_or_else(|| bad(submit, "empty".into()))?;
        if started < submitted || ended < started {
            return Err(bad(
                start,
                format!(
                    "the job starts at {started}, submitted at {submitted}, ends at {ended}: times out of order"
                ),
            ));
        }
        let size_text = at(requested)?;
        let asked = size_text
            .parse::<u32>()
            .ok()
            .or_else(|| {
                size_text
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(v))
                    .map(|v| v as u32)
            })
            .ok_or_else(|| {
                bad(
                    requested,
                    format!("'{size_text}' is not a number of resources"),
                )
            })?;
        let processors: ProcSet = at(allocated)?
            .parse()
            .map_err(|e: String| bad(allocated, e))?;
        let size = if processors.is_empty() {
            asked
        } else {
            u32::try_from(processors.len())
                .map_err(|_| bad(allocated, "too many processors".into()))?
        };
        let runtime = ended - started;
        let estimate = match walltime {
            Some(k) => seconds(k)?.filter(|&t| t > 0).unwrap_or(runtime),
            None => runtime,
        };
        let user = match metadata {
            Some(k) => user_of(at(k)?),
            None => -1,
        };
        out.jobs.push(RunJob {
            id: at(id)?.to_owned(),
            user,
            submit: submitted,
            start: started,
            end: ended,
            size,
            estimate,
            requested_runtime: runtime,
            killed: matches!(
                final_state,
                "COMPLETED_WALLTIME_REACHED" | "COMPLETED_KILLED"
            ),
            bounded_slowdown: bsld.of(started - submitted, runtime),
            processors: (!processors.is_empty()).then_some(processors),
        });
    }
    Ok(out)
}

/// The user a Batsim job's `metadata` names: a JSON object's whole number `user`, as
/// sitesim writes it; -1 otherwise.
fn user_of(metadata: &str) -> i64 {
    serde_json::from_str::<serde_json::Value>(metadata)
        .ok()
        .and_then(|v| v.get("user").and_then(serde_json::Value::as_i64))
        .unwrap_or(-1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, submit: Time, start: Time, end: Time, procs: &str) -> RunJob {
        let processors: ProcSet = procs.parse().unwrap();
        RunJob {
            id: id.into(),
            user: 7,
            submit,
            start,
            end,
            size: processors.len() as u32,
            estimate: 100,
            requested_runtime: end - start,
            killed: false,
            bounded_slowdown: Bsld::default().of(start - submit, end - start),
            processors: Some(processors),
        }
    }

    fn read_text(text: &str) -> Result<BatsimJobs, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out_jobs.csv");
        std::fs::write(&path, text).unwrap();
        read_batsim(&path, Bsld::default()).map_err(|e| e.replace(&path.display().to_string(), "F"))
    }

    #[test]
    fn rows_are_written_as_batsim_writes_them_and_read_back() {
        let mut killed = job("2", 5, 20, 120, "2-3 6");
        killed.killed = true;
        killed.requested_runtime = 300;
        let jobs = vec![job("1", 0, 0, 50, "0-3"), killed];
        let text = String::from_utf8(write_batsim(&jobs, Vec::new()).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], BATSIM_HEADER.join(","));
        assert_eq!(
            lines[2],
            "2,w0,300,5.000000,3,100.000000,0,COMPLETED_WALLTIME_REACHED,20.000000,100.000000,\
             120.000000,15.000000,115.000000,1.150000,2-3 6,-1.000000,\"{\"\"user\"\":7}\""
        );
        let back = read_text(&text).unwrap();
        assert_eq!(back.rejected, 0);
        // The log's runtime is not in Batsim's file: read back, it is the runtime.
        let mut expected = jobs.clone();
        expected[1].requested_runtime = 100;
        assert_eq!(back.jobs, expected);
    }

    #[test]
    fn batsim_output_is_read_with_its_rejected_jobs_left_out() {
        let text = "job_id,workload_name,profile,submission_time,requested_number_of_resources,\
requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,\
turnaround_time,stretch,allocated_resources,consumed_energy,metadata
w0!1,w0,p,0.000000,2,10.000000,1,COMPLETED_SUCCESSFULLY,1.400000,5.000000,6.400000,1.400000,6.400000,1.280000,0-1,-1.000000,\"\"
w0!2,w0,p,2.000000,1,-1.000000,0,REJECTED,,,,,,,,,\"\"
";
        let back = read_text(text).unwrap();
        assert_eq!(back.rejected, 1);
        let j = &back.jobs[0];
        assert_eq!(
            (j.id.as_str(), j.submit, j.start, j.end, j.size, j.user),
            ("w0!1", 0, 1, 6, 2, -1)
        );
        assert_eq!(j.processors.as_ref().unwrap().to_string(), "0-1");
    }

    #[test]
    fn bad_rows_name_the_file_line_and_field() {
        let head = BATSIM_HEADER.join(",");
        let row = |alloc: &str, start: &str| {
            format!(
                "{head}\n1,w0,p,0,2,10,1,COMPLETED_SUCCESSFULLY,{start},5,9,0,5,1,{alloc},-1,\n"
            )
        };
        let e = read_text(&row("0-x", "4")).unwrap_err();
        assert_eq!(
            e,
            "F: line 2: field 'allocated_resources': 'x' in '0-x' is not a processor number (0 to 4294967295)"
        );
        let e = read_text(&row("0-1", "soon")).unwrap_err();
        assert_eq!(
            e,
            "F: line 2: field 'starting_time': 'soon' is not a number"
        );
        let e = read_text(&row("0-1", "inf")).unwrap_err();
        assert!(
            e.contains("field 'starting_time': 'inf' is not a time"),
            "{e}"
        );
        let e = read_text(&row("0-1", "12")).unwrap_err();
        assert!(
            e.starts_with("F: line 2: field 'starting_time': the job starts at 12"),
            "{e}"
        );
        let e = read_text("job_id,submission_time\n1,0\n").unwrap_err();
        assert!(
            e.starts_with("F: line 1: no column 'requested_number_of_resources'"),
            "{e}"
        );
        let short = format!("{head}\n1,w0\n");
        let e = read_text(&short).unwrap_err();
        assert!(e.starts_with("F: "), "{e}");
    }
}
