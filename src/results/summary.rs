//! The summary of an experiment's results directory: every run file read back into
//! statistics per point (`summary.json`), one CSV row per run (`runs.csv`), where each
//! scheduler saturates along a population sweep, and the terminal table. It depends
//! only on the files ([`crate::results::runs`]), so the same runs give the same bytes however
//! they were produced: by one process, resumed, or by shards merged with [`merge`].

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::results::Units;
use crate::results::lock::lock_folder;
use crate::results::metric::{
    JOBS_PER_SESSION, JOBS_PER_WEEK, MEAN_WAIT, Metric, MetricStats, PROC_HOURS_PER_WEEK,
    ReplicationsCsv, SESSION_HOURS, UTILIZATION, metric, stats_of,
};
use crate::results::output::{create_inside, write_durable};
use crate::results::runs::{Point, RunPlan, read_plan, read_run, run_path, write_plan};
use crate::textfmt::significant;

/// The values of metric `name` over the replications of `point` found in `dir`.
pub fn metric_values(dir: &Path, point: &Point, reps: u32, name: &str) -> Result<Vec<f64>, String> {
    let read = metric(name)?.read;
    let mut values = Vec::new();
    for r in 0..reps {
        if let Some(rec) = read_run(dir, &point.id, r)? {
            values.push(read(&rec.figures));
        }
    }
    Ok(values)
}

/// A point's statistics over its replications.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointSummary {
    /// The point.
    #[serde(flatten)]
    pub point: Point,
    /// Runs found.
    pub runs: u32,
    /// Every metric over the runs found.
    pub stats: Vec<MetricStats>,
}

impl PointSummary {
    /// The statistics of metric `name`, if the point has runs.
    pub fn stat(&self, name: &str) -> Option<&MetricStats> {
        self.stats.iter().find(|m| m.metric == name)
    }
}

/// Where a scheduler saturates along a population sweep (Feitelson 2021, §4.4: added users stop
/// adding work once the machine is saturated).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Saturation {
    /// The scheduler's label.
    pub scheduler: String,
    /// The highest mean utilization over the sweep: the maximal sustainable load.
    pub max_utilization: f64,
    /// The population multiplier it was reached at.
    pub at_population: f64,
    /// The smallest multiplier whose mean throughput in jobs is within 5% of the sweep's
    /// highest: where added users stop adding jobs (the throttling plateau).
    pub plateau_from: f64,
    /// The same in processor-hours: where added users stop adding work.
    pub work_plateau_from: f64,
}

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// sitesim's version.
    pub sitesim_version: String,
    /// What the numbers are in.
    pub units: Units,
    /// The scenario's name.
    pub name: String,
    /// The swept axis.
    pub axis: Option<String>,
    /// Replications per point.
    pub replications: u32,
    /// Runs missing (an unfinished experiment).
    pub missing_runs: u64,
    /// Every point.
    pub points: Vec<PointSummary>,
    /// Along a population sweep, where each scheduler saturates.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub saturation: Vec<Saturation>,
}

/// Where each scheduler of a population sweep saturates (none for other axes).
fn saturation(plan: &RunPlan, points: &[PointSummary]) -> Vec<Saturation> {
    if plan.axis.as_deref() != Some("population") {
        return Vec::new();
    }
    let mean = |p: &PointSummary, name: &str| p.stat(name).map_or(f64::NAN, |s| s.mean);
    let mut labels: Vec<&str> = Vec::new();
    for p in points {
        if !labels.contains(&p.point.label.as_str()) {
            labels.push(&p.point.label);
        }
    }
    let mut out = Vec::new();
    for label in labels {
        let pts: Vec<&PointSummary> = points
            .iter()
            .filter(|p| p.point.label == label && !p.stats.is_empty())
            .collect();
        let Some(busiest) = pts
            .iter()
            .max_by(|a, b| mean(a, "utilization").total_cmp(&mean(b, "utilization")))
        else {
            continue;
        };
        let plateau = |name: &str| {
            let top = pts
                .iter()
                .map(|p| mean(p, name))
                .fold(f64::NEG_INFINITY, f64::max);
            pts.iter()
                .find(|p| mean(p, name) >= 0.95 * top)
                .map_or(f64::NAN, |p| p.point.population)
        };
        out.push(Saturation {
            scheduler: label.to_owned(),
            max_utilization: mean(busiest, "utilization"),
            at_population: busiest.point.population,
            plateau_from: plateau("jobs_per_week"),
            work_plateau_from: plateau("proc_hours_per_week"),
        });
    }
    out
}

/// The leading columns of `runs.csv`: the point.
const POINT_COLUMNS: [&str; 6] = ["point", "scheduler", "label", "procs", "population", "x"];

/// Reads every run in `dir` and writes `summary.json` and `runs.csv`; returns the
/// summary. The same runs give the same bytes, however they were produced.
pub fn summarize(dir: &Path) -> Result<Summary, String> {
    let plan = read_plan(dir)?;
    let mut points = Vec::new();
    let mut missing = 0;
    let mut csv = ReplicationsCsv::new(&POINT_COLUMNS);
    for point in &plan.points {
        let mut records = Vec::new();
        for r in 0..plan.replications {
            match read_run(dir, &point.id, r)? {
                Some(rec) => records.push(rec.figures),
                None => missing += 1,
            }
        }
        let leading = [
            point.id.clone(),
            point.scheduler.clone(),
            point.label.clone(),
            point.procs.to_string(),
            point.population.to_string(),
            point.x.map_or(String::new(), |x| x.to_string()),
        ];
        for rec in &records {
            csv.row(&leading, rec);
        }
        points.push(PointSummary {
            point: point.clone(),
            runs: records.len() as u32,
            stats: stats_of(&records),
        });
    }
    let summary = Summary {
        sitesim_version: plan.sitesim_version.clone(),
        units: Units::FILES,
        name: plan.name.clone(),
        axis: plan.axis.clone(),
        replications: plan.replications,
        missing_runs: missing,
        saturation: saturation(&plan, &points),
        points,
    };
    let json = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
    for (name, bytes) in [("summary.json", json), ("runs.csv", csv.into_bytes())] {
        let path = dir.join(name);
        write_durable(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(summary)
}

/// The metrics of the terminal table, in order.
const TABLE: [&Metric; 6] = [
    &JOBS_PER_WEEK,
    &PROC_HOURS_PER_WEEK,
    &UTILIZATION,
    &MEAN_WAIT,
    &JOBS_PER_SESSION,
    &SESSION_HOURS,
];

/// The terminal table of an experiment: each point's means over its replications ±
/// the half-width of their 95% confidence interval, then where each scheduler
/// saturates along a population sweep.
pub fn render_summary(s: &Summary) -> String {
    let metrics = TABLE;
    let scales: Vec<_> = metrics.iter().map(|m| m.scale()).collect();
    let mut out = format!(
        "{}: {} point(s) × {} replication(s){}\n",
        s.name,
        s.points.len(),
        s.replications,
        if s.missing_runs > 0 {
            format!(", {} run(s) missing", s.missing_runs)
        } else {
            String::new()
        }
    );
    let label_width = s
        .points
        .iter()
        .map(|p| p.point.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(9);
    out.push_str(&format!("  {:<label_width$}", "scheduler"));
    if let Some(axis) = &s.axis {
        out.push_str(&format!(" {axis:>10}"));
    }
    out.push_str(" runs");
    for (m, sc) in metrics.iter().zip(&scales) {
        out.push_str(&format!(" {:>22}", m.label(*sc)));
    }
    out.push('\n');
    for p in &s.points {
        out.push_str(&format!("  {:<label_width$}", p.point.label));
        if s.axis.is_some() {
            let x = p.point.x.map_or("—".to_owned(), |x| x.to_string());
            out.push_str(&format!(" {x:>10}"));
        }
        out.push_str(&format!(" {:>4}", p.runs));
        for (m, sc) in metrics.iter().zip(&scales) {
            let cell = p.stat(m.name).map_or("—".to_owned(), |st| {
                format!(
                    "{} ± {}",
                    significant(st.mean * sc.factor, 4),
                    significant(st.ci95 * sc.factor, 4)
                )
            });
            out.push_str(&format!(" {cell:>22}"));
        }
        out.push('\n');
    }
    out.push_str("  (mean ± half-width of the 95% confidence interval over the replications)\n");
    for sat in &s.saturation {
        out.push_str(&format!(
            "  {}: highest utilization {:.2}% at population ×{}; throughput within 5% of its highest from ×{} in jobs, ×{} in processor-hours\n",
            sat.scheduler,
            100.0 * sat.max_utilization,
            sat.at_population,
            sat.plateau_from,
            sat.work_plateau_from
        ));
    }
    out
}

/// Merges the results directories `shards` (of one experiment) into `out`: copies every
/// run file, then writes the summary. Fails if the shards ran different scenarios
/// (settings that do not change results, such as threads, aside:
/// [`RunPlan::same_experiment`]), or if a shard's run file is not one sitesim wrote
/// (its checksum missing or not matching; [`read_run`]), naming it. `out` is held for
/// this process while it is written ([`lock_folder`]).
pub fn merge(out: &Path, shards: &[PathBuf]) -> Result<Summary, String> {
    let first = shards
        .first()
        .ok_or("merge needs at least one shard directory")?;
    let mut plan = read_plan(first)?;
    for s in &shards[1..] {
        let other = read_plan(s)?;
        if !other.same_experiment(&plan) {
            return Err(format!(
                "{} and {} hold different experiments",
                first.display(),
                s.display()
            ));
        }
    }
    if out.join("experiment.json").exists() {
        let held = read_plan(out)?;
        if !held.same_experiment(&plan) {
            return Err(format!(
                "{} holds the results of another experiment; merge into a new directory",
                out.display()
            ));
        }
        plan = held;
    }
    let _lock = lock_folder(out)?;
    write_plan(out, &plan)?;
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    for (p, r) in plan.runs() {
        let id = &plan.points[p].id;
        for s in shards {
            // Checked by parsing and by its checksum, copied byte for byte.
            if read_run(s, id, r)?.is_some() {
                let from = run_path(s, id, r);
                let bytes = super::input::read(&from, super::input::MAX_JSON)?;
                create_inside(out, &Path::new("runs").join(id))?;
                let to = run_path(out, id, r);
                write_durable(&to, &bytes).map_err(|e| err(&to, e))?;
                break;
            }
        }
    }
    for s in shards {
        let cap = s.join("capacity.json");
        if cap.exists() {
            let bytes = super::input::read(&cap, super::input::MAX_JSON)?;
            let to = out.join("capacity.json");
            write_durable(&to, &bytes).map_err(|e| err(&to, e))?;
        }
    }
    summarize(out)
}

/// `sitesim merge`: merges the results directories `shards` into `out` and prints what
/// it merged.
pub fn merge_command(out: &Path, shards: &[PathBuf]) -> Result<(), String> {
    let summary = merge(out, shards)?;
    println!(
        "merged {} shard(s) into {}: {} point(s), {} run(s) missing",
        shards.len(),
        out.display(),
        summary.points.len(),
        summary.missing_runs
    );
    Ok(())
}
