//! `sitesim report A B ...`: one page comparing the runs of several results folders,
//! each run in its own colour (the Okabe–Ito palette's, which colour-blind readers tell
//! apart) in every table and figure, every legend in a column right of its plot.
//!
//! Folders of runs with their jobs (`summary.json` and `jobs.csv`, or Batsim's
//! `_jobs.csv`) are compared job by job:
//! - wait, response and bounded slowdown (the run's `bounded_slowdown` column, of the
//!   form and threshold its summary states): a table each, their empirical distribution
//!   functions overlaid on a logarithmic axis, and box plots (quartiles, median, mean;
//!   whiskers at the furthest values within 1.5 times the interquartile range);
//! - utilization and jobs waiting per day, overlaid;
//! - paired differences from the first run, when a run shares its jobs (the same log,
//!   the same job ids): each shared job's wait in the run less its wait in the first,
//!   their mean with its 95% confidence interval, and their distribution;
//! - a difference Gantt chart per such run: over a day, the jobs the two runs started
//!   at different times, each drawn where each run placed it, the others grey.
//!
//! Folders of replicated runs (`summary.json` and `replications.csv`) are compared by
//! their replications: each metric's mean and 95% confidence interval, box plots of the
//! replications' values, the weekly series of `weekly.csv` (the mean over the
//! replications per week) overlaid, and paired differences from the first folder over
//! the replications that share a seed (common random numbers).
//!
//! The two kinds are not compared with each other. Written to the folder `--out`
//! (`compare` by default): `index.html` and its SVGs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::page::{self, Figure, Page, Section, Table, count, hours, percent, sig3};
use super::replicated::{WEEKLY, read_replications, read_weekly};
use super::run::{batsim_machines, quantile};
use super::series::Steps;
use super::{Kind, batsim_jobs};
use crate::alloc::{Allocator, ProcSet, place};
use crate::metrics::Bsld;
use crate::plot::chart::{
    self, Block, BoxPlot, FigureStyle, Gantt, Overlay, RUN_COLOURS, RunBox, RunSeries, XTicks,
    with_style,
};
use crate::results::jobs::{RunJob, read_batsim, read_sitesim};
use crate::results::lock::lock_folder;
use crate::results::metric::{METRICS, MetricStats, ci95};
use crate::time::{DAY, HOUR, Time};

use super::run::ScheduleView;

/// The most folders a comparison takes: one colour each.
pub const MOST_FOLDERS: usize = RUN_COLOURS;

/// Where a comparison is written when `--out` does not say.
pub const DEFAULT_OUT: &str = "compare";

/// The names of the runs' colours, in order (`chart`'s palette).
const COLOUR_NAMES: [&str; RUN_COLOURS] = [
    "blue",
    "vermillion",
    "bluish green",
    "reddish purple",
    "orange",
    "sky blue",
];

/// The points a distribution function is drawn through.
const CDF_POINTS: usize = 400;

/// The most jobs a difference Gantt chart draws.
const MOST_BLOCKS: usize = 20_000;

/// A run compared.
struct Run {
    /// Its folder (or Batsim file), as given.
    dir: PathBuf,
    /// Its name on the page.
    label: String,
    /// The log it ran, by file name, if its summary says.
    log: Option<String>,
    /// Its machine's processors, if known.
    procs: Option<u32>,
    /// What it holds.
    data: Data,
}

impl Run {
    /// The run in `dir` holding `data`, labelled, placed and sized as its `summary` says
    /// (its scheduler, else its folder's name).
    fn of_summary(dir: &Path, summary: &Value, data: Data) -> Self {
        Run {
            dir: dir.to_owned(),
            label: summary["scheduler"]
                .as_str()
                .map_or_else(|| name_of(dir), str::to_owned),
            log: log_of(summary),
            procs: summary["procs"].as_u64().map(|p| p as u32),
            data,
        }
    }
}

/// What a compared run holds.
enum Data {
    /// One run's jobs, and its bounded slowdown as its summary states it.
    Jobs(Vec<RunJob>, Option<String>),
    /// Replicated runs.
    Replicated(Replications),
}

/// Replicated runs as the page draws them.
struct Replications {
    /// Each replication's metrics, in the file's order.
    values: Vec<Vec<(String, f64)>>,
    /// Each replication's number and seed, in the same order (empty strings when the
    /// file has no such column).
    seeds: Vec<(String, String)>,
    /// The weekly series: each whole week's mean over the replications, by series of
    /// [`WEEKLY`]; `None` without `weekly.csv`.
    weekly: Option<Vec<Vec<(f64, f64)>>>,
}

/// The file name of `path`, or the path.
fn name_of(path: &Path) -> String {
    path.file_name().map_or(path.display().to_string(), |n| {
        n.to_string_lossy().into_owned()
    })
}

/// Reads `dir/summary.json`.
fn summary_of(dir: &Path) -> Result<Value, String> {
    let path = dir.join("summary.json");
    let text = crate::results::input::read(&path, crate::results::input::MAX_JSON)?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The log a summary names, by file name.
fn log_of(summary: &Value) -> Option<String> {
    summary["input"]["file"]
        .as_str()
        .or_else(|| summary["input"].as_str())
        .map(|f| name_of(Path::new(f)))
}

/// Each replication's number and seed in `replications.csv` at `path`, in its order.
fn read_seeds(path: &Path) -> Result<Vec<(String, String)>, String> {
    let mut reader = crate::results::input::table(path)?;
    let head = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .clone();
    let column = |name: &str| head.iter().position(|h| h == name);
    let (replication, seed) = (column("replication"), column("seed"));
    reader
        .records()
        .enumerate()
        .map(|(i, r)| {
            let r = r.map_err(|e| format!("{}: row {}: {e}", path.display(), i + 2))?;
            let field = |k: Option<usize>| k.and_then(|k| r.get(k)).unwrap_or("").to_owned();
            Ok((field(replication), field(seed)))
        })
        .collect()
}

/// Reads the results folder `dir` for a comparison.
fn read_run(dir: &Path) -> Result<Run, String> {
    let kind = Kind::of(dir)?;
    let refuse = |what: &str| {
        Err(format!(
            "{}: {what}; `sitesim report A B ...` compares runs with their jobs (summary.json \
             and jobs.csv, or Batsim's _jobs.csv) or replicated runs (summary.json and \
             replications.csv); `sitesim report {}` reports it alone",
            dir.display(),
            dir.display()
        ))
    };
    match kind {
        Kind::Experiment => refuse("an experiment (experiment.json)"),
        Kind::Calibration => refuse("a calibration (calibrate.json)"),
        Kind::Run => {
            let summary = summary_of(dir)?;
            let path = dir.join("jobs.csv");
            let jobs = read_sitesim(&path)?;
            if jobs.is_empty() {
                return Err(format!("{}: no jobs to compare", path.display()));
            }
            let bsld = &summary["metrics"]["bounded_slowdown"];
            let bsld = bsld["threshold"].as_f64().map(|t| {
                format!(
                    "{} form, threshold {} s",
                    bsld["form"].as_str().unwrap_or("?"),
                    sig3(t)
                )
            });
            Ok(Run::of_summary(dir, &summary, Data::Jobs(jobs, bsld)))
        }
        Kind::Batsim => {
            let file = match dir.is_file() {
                true => dir.to_owned(),
                false => batsim_jobs(dir)?.unwrap_or_default(),
            };
            let read = read_batsim(&file, Bsld::default())?;
            if read.jobs.is_empty() {
                return Err(format!("{}: no job that ran, to compare", file.display()));
            }
            let bsld = Bsld::default();
            let form = serde_json::to_value(bsld.form).unwrap_or_default();
            Ok(Run {
                dir: dir.to_owned(),
                label: name_of(&file),
                log: None,
                procs: batsim_machines(&file),
                data: Data::Jobs(
                    read.jobs,
                    Some(format!(
                        "computed by sitesim's default: {} form, threshold {} s",
                        form.as_str().unwrap_or("?"),
                        bsld.threshold
                    )),
                ),
            })
        }
        Kind::Replicated => {
            let summary = summary_of(dir)?;
            let path = dir.join("replications.csv");
            let values = read_replications(&path)?;
            if values.is_empty() {
                return Err(format!("{}: no replications to compare", path.display()));
            }
            let seeds = read_seeds(&path)?;
            let weekly_path = dir.join("weekly.csv");
            let weekly = if weekly_path.is_file() {
                let (weeks, n) = read_weekly(&weekly_path)?;
                Some(
                    (0..WEEKLY.len())
                        .map(|i| {
                            weeks
                                .iter()
                                .filter(|(_, (runs, _))| *runs == n as u64)
                                .filter_map(|(&week, (_, series))| {
                                    series[i].estimate(week as f64 + 0.5).map(|e| (e.x, e.y))
                                })
                                .collect()
                        })
                        .collect(),
                )
            } else {
                None
            };
            Ok(Run::of_summary(
                dir,
                &summary,
                Data::Replicated(Replications {
                    values,
                    seeds,
                    weekly,
                }),
            ))
        }
    }
}

/// Makes the runs' labels unique: a label two runs share gets the folder's name after
/// it, and the folder's whole path if that is not enough.
fn unique_labels(runs: &mut [Run]) {
    let shared =
        |runs: &[Run], i: usize| runs.iter().filter(|r| r.label == runs[i].label).count() > 1;
    let tagged: Vec<bool> = (0..runs.len()).map(|i| shared(runs, i)).collect();
    for (run, tag) in runs.iter_mut().zip(&tagged) {
        if *tag {
            run.label = format!("{} ({})", run.label, name_of(&run.dir));
        }
    }
    let tagged: Vec<bool> = (0..runs.len()).map(|i| shared(runs, i)).collect();
    for (run, tag) in runs.iter_mut().zip(tagged) {
        if tag {
            run.label = format!("{} ({})", run.label, run.dir.display());
        }
    }
}

/// `sitesim report A B ...`: writes the comparison of `dirs` into `out` and says where to
/// open it.
pub fn compare_command(
    dirs: &[PathBuf],
    out: &Path,
    view: ScheduleView,
    style: FigureStyle,
) -> Result<(), String> {
    let files = with_style(style, || write_comparison(dirs, out, view))?;
    println!(
        "compared {} folders; wrote {} file(s); open {}",
        dirs.len(),
        files.len(),
        out.join("index.html").display()
    );
    Ok(())
}

/// Writes the page comparing the runs of the results folders `dirs` into `out` (see the
/// module's documentation); the files written. `view` sets the difference Gantt charts'
/// window.
pub fn write_comparison(
    dirs: &[PathBuf],
    out: &Path,
    view: ScheduleView,
) -> Result<Vec<PathBuf>, String> {
    let mut runs = dirs
        .iter()
        .map(|d| read_run(d))
        .collect::<Result<Vec<Run>, String>>()?;
    let with_jobs = |r: &Run| matches!(r.data, Data::Jobs(..));
    if let (Some(a), Some(b)) = (
        runs.iter().find(|r| with_jobs(r)),
        runs.iter().find(|r| !with_jobs(r)),
    ) {
        return Err(format!(
            "{} holds one run with its jobs, {} replicated runs: a comparison is of runs \
             with their jobs alone, or of replicated runs alone",
            a.dir.display(),
            b.dir.display()
        ));
    }
    unique_labels(&mut runs);
    let mut sections = vec![runs_section(&runs)];
    if runs.iter().all(with_jobs) {
        sections.extend(jobs_sections(&runs, view)?);
    } else {
        sections.extend(replicated_sections(&runs)?);
    }
    let logs: Vec<&str> = runs.iter().filter_map(|r| r.log.as_deref()).collect();
    let mut facts = vec![(
        "runs".to_owned(),
        runs.iter()
            .map(|r| r.label.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    )];
    if !logs.is_empty() {
        let mut distinct = logs.clone();
        distinct.dedup();
        facts.push(("logs".to_owned(), distinct.join(", ")));
    }
    let page = Page {
        title: format!("{} runs compared", runs.len()),
        version: env!("CARGO_PKG_VERSION"),
        facts,
        sections,
    };
    let _lock = lock_folder(out)?;
    page.write(out)
}

/// The run's colour, as the page names it: its name and `#rrggbb`.
fn colour_text(run: usize) -> String {
    format!("{} {}", COLOUR_NAMES[run], chart::run_colour(run))
}

/// The runs: each one's colour, folder, log and size.
fn runs_section(runs: &[Run]) -> Section {
    let rows = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let size = match &r.data {
                Data::Jobs(jobs, _) => format!("{} jobs", count(jobs.len() as u64)),
                Data::Replicated(reps) => {
                    format!("{} replications", count(reps.values.len() as u64))
                }
            };
            vec![
                r.label.clone(),
                colour_text(i),
                r.dir.display().to_string(),
                r.log.clone().unwrap_or_else(|| "—".into()),
                r.procs.map_or("—".into(), |p| count(u64::from(p))),
                size,
            ]
        })
        .collect();
    Section {
        title: "Runs".into(),
        text: "Each run in its colour in every figure (the Okabe–Ito palette, which \
               colour-blind readers tell apart; lines also by their markers), named by \
               its scheduler, and by its folder where two share one. The first run is \
               the one the others are paired with."
            .into(),
        tables: vec![Table {
            head: ["run", "colour", "folder", "log", "processors", "size"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            rows,
        }],
        figures: Vec::new(),
        code: String::new(),
        links: Vec::new(),
    }
}

/// A quantity of each job compared: its name, its file stem, its unit's axis label, the
/// value of a job in that unit, and the least value a logarithmic axis shows.
struct Quantity {
    name: &'static str,
    file: &'static str,
    axis: &'static str,
    of: fn(&RunJob) -> f64,
    floor: f64,
    floor_text: &'static str,
}

const QUANTITIES: [Quantity; 3] = [
    Quantity {
        name: "Wait",
        file: "wait",
        axis: "wait (h)",
        of: |j| j.wait() as f64 / HOUR as f64,
        floor: 1.0 / 60.0,
        floor_text: "waits under a minute are drawn at one minute",
    },
    Quantity {
        name: "Response",
        file: "response",
        axis: "response (h)",
        of: |j| j.response() as f64 / HOUR as f64,
        floor: 1.0 / 60.0,
        floor_text: "responses under a minute are drawn at one minute",
    },
    Quantity {
        name: "Bounded slowdown",
        file: "bsld",
        axis: "bounded slowdown",
        of: |j| j.bounded_slowdown,
        floor: 1.0,
        floor_text: "bounded slowdowns below 1 (the unclamped form) are drawn at 1",
    },
];

/// The box of sorted `values`: quartiles and median by nearest rank, whiskers at the
/// furthest values within 1.5 interquartile ranges of the box, and the mean.
pub(super) fn box_of(label: &str, run: usize, values: &[f64]) -> RunBox {
    let (q1, median, q3) = (
        quantile(values, 0.25),
        quantile(values, 0.5),
        quantile(values, 0.75),
    );
    let reach = 1.5 * (q3 - q1);
    let low = values
        .iter()
        .copied()
        .find(|&v| v >= q1 - reach)
        .unwrap_or(q1);
    let high = values
        .iter()
        .rev()
        .copied()
        .find(|&v| v <= q3 + reach)
        .unwrap_or(q3);
    RunBox {
        label: label.to_owned(),
        run,
        low,
        q1,
        median,
        q3,
        high,
        mean: values.iter().sum::<f64>() / values.len().max(1) as f64,
    }
}

/// The empirical distribution function of sorted `values` through at most
/// [`CDF_POINTS`] of them: `(x, share of values at most x, %)`, x as `at` makes it.
fn cdf(values: &[f64], at: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    let n = values.len();
    if n == 0 {
        return Vec::new();
    }
    let steps = CDF_POINTS.min(n);
    let mut points: Vec<(f64, f64)> = (0..=steps)
        .map(|k| {
            let v = values[(k * (n - 1)) / steps];
            let below = values.partition_point(|&x| x <= v);
            (at(v), 100.0 * below as f64 / n as f64)
        })
        .collect();
    points.dedup();
    points
}

/// The sections of runs with their jobs: the distributions, the series per day, the
/// paired differences and the difference Gantt charts.
fn jobs_sections(runs: &[Run], view: ScheduleView) -> Result<Vec<Section>, String> {
    let jobs: Vec<&[RunJob]> = runs
        .iter()
        .map(|r| match &r.data {
            Data::Jobs(jobs, _) => jobs.as_slice(),
            Data::Replicated(_) => &[],
        })
        .collect();
    let mut tables = Vec::new();
    let mut figures = Vec::new();
    for q in &QUANTITIES {
        let sorted: Vec<Vec<f64>> = jobs
            .iter()
            .map(|js| {
                let mut v: Vec<f64> = js.iter().map(q.of).collect();
                v.sort_by(f64::total_cmp);
                v
            })
            .collect();
        let fmt: fn(f64) -> String = if q.file == "bsld" { sig3 } else { fmt2 };
        tables.push(Table {
            head: [
                "run",
                &format!("mean {}", q.axis),
                "median",
                "90th percentile",
                "99th percentile",
                "maximum",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            rows: runs
                .iter()
                .zip(&sorted)
                .map(|(r, v)| {
                    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
                    let mut row = vec![r.label.clone(), fmt(mean)];
                    row.extend([0.5, 0.9, 0.99, 1.0].iter().map(|&p| fmt(quantile(v, p))));
                    row
                })
                .collect(),
        });
        let floor = q.floor;
        let lines = Overlay {
            title: format!("{}: distribution", q.name),
            x_label: format!("{} (logarithmic)", q.axis),
            y_label: "jobs at most x (%)".into(),
            x_ticks: XTicks::Log10,
            y_from_zero: true,
            series: runs
                .iter()
                .zip(&sorted)
                .enumerate()
                .map(|(i, (r, v))| RunSeries {
                    label: r.label.clone(),
                    run: i,
                    points: cdf(v, |x| x.max(floor).log10()),
                })
                .collect(),
        };
        figures.extend(page::figure(
            &format!("cdf-{}.svg", q.file),
            format!(
                "{}: the share of each run's jobs at most x (empirical distribution \
                 function, through {CDF_POINTS} of its values), x on a logarithmic axis; \
                 {}.",
                q.name, q.floor_text
            ),
            chart::overlay_svg(&lines),
        )?);
        let boxes = BoxPlot {
            title: format!("{}: box plots", q.name),
            x_label: "run".into(),
            y_label: q.axis.into(),
            y_from_zero: q.file != "bsld",
            boxes: runs
                .iter()
                .zip(&sorted)
                .enumerate()
                .map(|(i, (r, v))| box_of(&r.label, i, v))
                .collect(),
        };
        figures.extend(page::figure(
            &format!("box-{}.svg", q.file),
            format!(
                "{} of each run's jobs: the box from the first to the third quartile, \
                 the median across it, the mean a black diamond; whiskers at the \
                 furthest jobs within 1.5 interquartile ranges of the box (Tukey), the \
                 jobs beyond them not drawn (the table gives the maximum).",
                q.name
            ),
            chart::box_plot_svg(&boxes),
        )?);
    }
    let bsld: Vec<String> = runs
        .iter()
        .filter_map(|r| match &r.data {
            Data::Jobs(_, Some(b)) => Some(format!("{}: {b}", r.label)),
            _ => None,
        })
        .collect();
    let mut sections = vec![Section {
        title: "Wait, response and bounded slowdown".into(),
        text: format!(
            "Over every job of each run's jobs.csv (warm-up and cool-down included), in \
             hours; percentiles are exact (nearest rank). Bounded slowdown as each run \
             computed it ({}).",
            if bsld.is_empty() {
                "its jobs.csv".to_owned()
            } else {
                bsld.join("; ")
            }
        ),
        tables,
        figures,
        code: String::new(),
        links: Vec::new(),
    }];
    sections.push(daily_section(runs, &jobs)?);
    sections.extend(paired_jobs_sections(runs, &jobs, view)?);
    Ok(sections)
}

/// Two decimals.
fn fmt2(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2}")
    } else {
        "—".into()
    }
}

/// Utilization and jobs waiting per day of each run, overlaid.
fn daily_section(runs: &[Run], jobs: &[&[RunJob]]) -> Result<Section, String> {
    let mut utilization = Vec::new();
    let mut waiting = Vec::new();
    for (i, (r, js)) in runs.iter().zip(jobs).enumerate() {
        let start = js.iter().map(|j| j.submit).min().unwrap_or(0);
        let end = js
            .iter()
            .map(|j| j.end)
            .max()
            .unwrap_or(start)
            .max(start + 1);
        let procs = r.procs.unwrap_or_else(|| highest_processor(js)).max(1);
        let (mut busy, mut queue) = (Steps::default(), Steps::default());
        for j in js.iter() {
            busy.span(j.start, j.end, f64::from(j.size));
            queue.span(j.submit, j.start, 1.0);
        }
        let days = |values: Vec<f64>, factor: f64| -> Vec<(f64, f64)> {
            values
                .into_iter()
                .enumerate()
                .map(|(k, v)| (k as f64 + 0.5, v * factor))
                .collect()
        };
        utilization.push(RunSeries {
            label: r.label.clone(),
            run: i,
            points: days(busy.means(start, end, DAY), 100.0 / f64::from(procs)),
        });
        waiting.push(RunSeries {
            label: r.label.clone(),
            run: i,
            points: days(queue.means(start, end, DAY), 1.0),
        });
    }
    let mut figures = Vec::new();
    for (file, title, y_label, series) in [
        (
            "daily-utilization.svg",
            "Utilization per day",
            "utilization (%)",
            utilization,
        ),
        (
            "daily-waiting.svg",
            "Jobs waiting per day",
            "jobs waiting",
            waiting,
        ),
    ] {
        let chart = Overlay {
            title: title.into(),
            x_label: "days since the run's first submission".into(),
            y_label: y_label.into(),
            x_ticks: XTicks::Numbers,
            y_from_zero: true,
            series,
        };
        figures.extend(page::figure(
            file,
            format!(
                "{title}: each run's time-weighted mean over each day from its first \
                 submission, side by side."
            ),
            chart::overlay_svg(&chart),
        )?);
    }
    Ok(Section {
        title: "Over time".into(),
        text: "Busy processors over the machine's, and the jobs submitted and not yet \
               started, per day, from each run's jobs."
            .into(),
        tables: Vec::new(),
        figures,
        code: String::new(),
        links: Vec::new(),
    })
}

/// The machine a run's jobs need at least: its highest processor held, or its largest
/// job.
fn highest_processor(jobs: &[RunJob]) -> u32 {
    let held = jobs
        .iter()
        .filter_map(|j| j.processors.as_ref()?.ranges().last().map(|r| r.1 + 1))
        .max()
        .unwrap_or(0);
    held.max(jobs.iter().map(|j| j.size).max().unwrap_or(1))
}

/// The jobs of `a` and `b` that are the same job, by id: `(index in a, index in b)` in
/// `a`'s order. An id that is not unique in either run pairs nothing.
fn shared_jobs(a: &[RunJob], b: &[RunJob]) -> Vec<(usize, usize)> {
    let (ia, ib) = (unique_ids(a), unique_ids(b));
    let mut pairs: Vec<(usize, usize)> = ia
        .iter()
        .filter_map(|(id, &i)| Some((i?, (*ib.get(id)?)?)))
        .collect();
    pairs.sort_unstable();
    pairs
}

/// Each job id of `jobs` with the index of its job; `None` for an id that is not unique.
fn unique_ids(jobs: &[RunJob]) -> BTreeMap<&str, Option<usize>> {
    let mut by_id: BTreeMap<&str, Option<usize>> = BTreeMap::new();
    for (i, j) in jobs.iter().enumerate() {
        by_id
            .entry(j.id.as_str())
            .and_modify(|e| *e = None)
            .or_insert(Some(i));
    }
    by_id
}

/// Whether two runs ran one log, as far as their summaries say.
fn same_log(a: &Run, b: &Run) -> bool {
    match (&a.log, &b.log) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// The paired differences of each run from the first, over the jobs they share, and a
/// difference Gantt chart of each such pair.
fn paired_jobs_sections(
    runs: &[Run],
    jobs: &[&[RunJob]],
    view: ScheduleView,
) -> Result<Vec<Section>, String> {
    let mut rows = Vec::new();
    let mut series = Vec::new();
    let mut gantts = Vec::new();
    let mut left_out = Vec::new();
    for i in 1..runs.len() {
        let pairs = if same_log(&runs[0], &runs[i]) {
            shared_jobs(jobs[0], jobs[i])
        } else {
            Vec::new()
        };
        let name = format!("{} − {}", runs[i].label, runs[0].label);
        if pairs.is_empty() {
            left_out.push(runs[i].label.clone());
            continue;
        }
        let waits: Vec<f64> = pairs
            .iter()
            .map(|&(a, b)| (jobs[i][b].wait() - jobs[0][a].wait()) as f64)
            .collect();
        let slowdowns: Vec<f64> = pairs
            .iter()
            .map(|&(a, b)| jobs[i][b].bounded_slowdown - jobs[0][a].bounded_slowdown)
            .collect();
        let wait = MetricStats::of("wait", &waits);
        let bsld = MetricStats::of("bsld", &slowdowns);
        let mut sorted = waits.clone();
        sorted.sort_by(f64::total_cmp);
        let less = waits.iter().filter(|&&d| d < 0.0).count();
        let more = waits.iter().filter(|&&d| d > 0.0).count();
        rows.push(vec![
            name.clone(),
            count(pairs.len() as u64),
            hours(wait.mean),
            hours(ci95(wait.n, wait.sd)),
            hours(quantile(&sorted, 0.5)),
            count(less as u64),
            count((waits.len() - less - more) as u64),
            count(more as u64),
            sig3(bsld.mean),
            sig3(ci95(bsld.n, bsld.sd)),
        ]);
        series.push(RunSeries {
            label: name,
            run: i,
            points: cdf(&sorted, |d| d / HOUR as f64),
        });
        gantts.extend(difference_gantt(runs, jobs, (0, i), &pairs, view)?);
    }
    if rows.is_empty() {
        return Ok(vec![Section {
            title: "Paired differences".into(),
            text: format!(
                "None: no run shares jobs with {} (the same log, the same job ids).",
                runs[0].label
            ),
            ..Section::default()
        }]);
    }
    let chart = Overlay {
        title: format!("Wait difference from {}, per job", runs[0].label),
        x_label: "wait in the run − wait in the first (h)".into(),
        y_label: "jobs at most x (%)".into(),
        x_ticks: XTicks::Numbers,
        y_from_zero: true,
        series,
    };
    let figure = page::figure(
        "paired-wait.svg",
        format!(
            "Each shared job's wait in the run less its wait under {}: the share of jobs \
             whose difference is at most x (empirical distribution function). Left of \
             0, the jobs the run served sooner.",
            runs[0].label
        ),
        chart::overlay_svg(&chart),
    )?;
    let mut text = format!(
        "Runs of one log give each job its own wait under each scheduler: each row pairs \
         a run's jobs with the first run's ({}) by job id. Mean differences with the \
         half-width of their 95% confidence interval (Student's t over the jobs, which \
         are not independent: a scheduler's choice for one job moves the next ones, so \
         the interval is narrower than it would be for independent jobs).",
        runs[0].label
    );
    if !left_out.is_empty() {
        text.push_str(&format!(
            " Not paired, sharing no job with the first run: {}.",
            left_out.join(", ")
        ));
    }
    let mut sections = vec![Section {
        title: "Paired differences".into(),
        text,
        tables: vec![Table {
            head: [
                "run − first",
                "shared jobs",
                "mean Δ wait (h)",
                "± (95% CI, h)",
                "median Δ wait (h)",
                "jobs waiting less",
                "jobs waiting as long",
                "jobs waiting longer",
                "mean Δ bounded slowdown",
                "± (95% CI)",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            rows,
        }],
        figures: figure.into_iter().collect(),
        code: String::new(),
        links: Vec::new(),
    }];
    if !gantts.is_empty() {
        sections.push(Section {
            title: "Schedules compared".into(),
            text: "The same log replayed under two schedulers, over a day: the jobs the \
                   two runs started at different times, each drawn where each run placed \
                   it (paler, in its run's colour), the jobs both runs started at the \
                   same time on the same processors grey. --schedule-from and \
                   --schedule-length choose another window."
                .into(),
            figures: gantts,
            ..Section::default()
        });
    }
    Ok(sections)
}

/// Each job's processors in a run: its file's, else placed first-fit after the fact.
fn processors_of(jobs: &[RunJob], procs: u32) -> Vec<ProcSet> {
    if jobs.iter().all(|j| j.processors.is_some()) {
        return jobs
            .iter()
            .map(|j| j.processors.clone().unwrap_or_default())
            .collect();
    }
    let spans: Vec<(Time, Time, u32)> = jobs.iter().map(|j| (j.start, j.end, j.size)).collect();
    place(&spans, Allocator::new(procs)).0
}

/// The difference Gantt chart of runs `a` and `b` (indices into `runs`), over the jobs
/// `pairs` they share: over `view`'s window (by default the day, from the first
/// submission of `a`, in which most shared jobs started at different times), the jobs
/// either run started at another time than the other, drawn where each placed them,
/// the others grey; `None` when no job moved.
fn difference_gantt(
    runs: &[Run],
    jobs: &[&[RunJob]],
    (a, b): (usize, usize),
    pairs: &[(usize, usize)],
    view: ScheduleView,
) -> Result<Option<Figure>, String> {
    let (ja, jb) = (jobs[a], jobs[b]);
    let procs_of = |k: usize| runs[k].procs.unwrap_or_else(|| highest_processor(jobs[k]));
    let procs = procs_of(a).max(procs_of(b)).max(1);
    let (pa, pb) = (
        processors_of(ja, procs_of(a)),
        processors_of(jb, procs_of(b)),
    );
    let moved: Vec<&(usize, usize)> = pairs
        .iter()
        .filter(|&&(x, y)| ja[x].start != jb[y].start)
        .collect();
    if moved.is_empty() {
        return Ok(None);
    }
    let first = ja.iter().map(|j| j.submit).min().unwrap_or(0);
    let from = match view.from {
        Some(from) => first + from,
        None => {
            let mut by_day: BTreeMap<Time, usize> = BTreeMap::new();
            for &&(x, _) in &moved {
                *by_day
                    .entry((ja[x].start - first).div_euclid(DAY))
                    .or_default() += 1;
            }
            let busiest = by_day
                .iter()
                .max_by(|p, q| p.1.cmp(q.1).then(q.0.cmp(p.0)))
                .map_or(0, |(&day, _)| day);
            first + busiest * DAY
        }
    };
    let to = from + view.length.unwrap_or(DAY).max(1);
    let within = |j: &RunJob| j.start < to && j.end > from && j.end > j.start;
    let hour = |t: Time| (t - from) as f64 / HOUR as f64;
    let same = |x: usize, y: usize| ja[x].start == jb[y].start && pa[x] == pb[y];
    let mut paired_a = vec![None; ja.len()];
    let mut paired_b = vec![None; jb.len()];
    for &(x, y) in pairs {
        paired_a[x] = Some(y);
        paired_b[y] = Some(x);
    }
    // Legend entries: 0, run a's placement; 1, run b's; 2, the same in both (grey).
    let mut blocks = Vec::new();
    let mut add = |j: &RunJob, set: &ProcSet, entry: usize, title: String| {
        blocks.extend(set.ranges().iter().map(|&(lo, hi)| Block {
            from: hour(j.start),
            to: hour(j.end),
            first: f64::from(lo),
            count: f64::from(hi - lo + 1),
            colour: entry,
            waiting: entry < 2,
            title: title.clone(),
        }));
    };
    let label = |k: usize| runs[k].label.as_str();
    let when = |t: Time| format!("{:.2} h", hour(t));
    for (x, j) in ja.iter().enumerate() {
        if !within(j) {
            continue;
        }
        match paired_a[x] {
            Some(y) if same(x, y) => add(
                j,
                &pa[x],
                2,
                format!(
                    "job {}: started at {} in both, on {}",
                    j.id,
                    when(j.start),
                    pa[x]
                ),
            ),
            Some(y) => add(
                j,
                &pa[x],
                0,
                format!(
                    "job {} under {}: started at {} on {} (under {}: at {})",
                    j.id,
                    label(a),
                    when(j.start),
                    pa[x],
                    label(b),
                    when(jb[y].start)
                ),
            ),
            None => add(
                j,
                &pa[x],
                0,
                format!(
                    "job {} of {} alone: started at {}",
                    j.id,
                    label(a),
                    when(j.start)
                ),
            ),
        }
    }
    for (y, j) in jb.iter().enumerate() {
        if !within(j) || paired_b[y].is_some_and(|x| same(x, y)) {
            continue;
        }
        let other = match paired_b[y] {
            Some(x) => format!(" (under {}: at {})", label(a), when(ja[x].start)),
            None => format!(", of {} alone", label(b)),
        };
        add(
            j,
            &pb[y],
            1,
            format!(
                "job {} under {}: started at {} on {}{other}",
                j.id,
                label(b),
                when(j.start),
                pb[y]
            ),
        );
    }
    blocks.truncate(MOST_BLOCKS);
    let moved_here = moved
        .iter()
        .filter(|&&&(x, y)| within(&ja[x]) || within(&jb[y]))
        .count();
    let gantt = Gantt {
        title: format!("{} against {}", label(b), label(a)),
        x_label: format!(
            "hours from day {} of the run",
            (from - first).div_euclid(DAY)
        ),
        y_label: "processors".into(),
        x: 0.0..hour(to),
        procs: f64::from(procs),
        blocks,
        legend: vec![
            label(a).to_owned(),
            label(b).to_owned(),
            "same in both".to_owned(),
        ],
        colours: vec![a, b, RUN_COLOURS],
        below: 0.0,
        below_scale: 1.0,
        clock: None,
    };
    page::figure(
        &format!("diff-gantt-{}.svg", b + 1),
        format!(
            "Processors against time over {}: the {} shared jobs running in the window \
             that {} and {} started at different times ({} of the {} shared jobs over the \
             runs), each drawn where each run placed it; grey, the jobs both started at \
             the same time on the same processors. Each job's times in either run show \
             when the pointer rests on it.",
            if view.from.is_none() {
                "the day in which most shared jobs moved"
            } else {
                "the window asked for"
            },
            count(moved_here as u64),
            label(a),
            label(b),
            percent(moved.len() as f64 / pairs.len() as f64),
            count(pairs.len() as u64),
        ),
        chart::gantt_svg(&gantt),
    )
}

/// The sections of replicated runs: the metrics over the replications, their box
/// plots, the weekly series and the paired differences.
fn replicated_sections(runs: &[Run]) -> Result<Vec<Section>, String> {
    let reps: Vec<&Replications> = runs
        .iter()
        .filter_map(|r| match &r.data {
            Data::Replicated(reps) => Some(reps),
            Data::Jobs(..) => None,
        })
        .collect();
    let column = |reps: &Replications, name: &str| -> Vec<f64> {
        reps.values
            .iter()
            .filter_map(|row| row.iter().find(|(h, _)| h == name).map(|(_, v)| *v))
            .collect()
    };
    let mut head = vec!["metric".to_owned()];
    head.extend(runs.iter().map(|r| format!("{}: mean ± 95% CI", r.label)));
    let mut rows = Vec::new();
    let mut figures = Vec::new();
    for metric in &METRICS {
        let scale = metric.scale();
        let values: Vec<Vec<f64>> = reps
            .iter()
            .map(|r| {
                let mut v: Vec<f64> = column(r, metric.name)
                    .into_iter()
                    .map(|x| x * scale.factor)
                    .collect();
                v.sort_by(f64::total_cmp);
                v
            })
            .collect();
        if values.iter().all(Vec::is_empty) {
            continue;
        }
        let mut row = vec![metric.label(scale)];
        row.extend(values.iter().map(|v| {
            if v.is_empty() {
                return "—".to_owned();
            }
            let s = MetricStats::of(metric.name, v);
            format!("{} ± {}", sig3(s.mean), sig3(ci95(s.n, s.sd)))
        }));
        rows.push(row);
        // A box plot of one value (no user frustrated in any replication) shows nothing.
        let all = values.iter().flatten();
        if all
            .clone()
            .all(|v| Some(v) == values.iter().flatten().next())
        {
            continue;
        }
        let boxes = BoxPlot {
            title: format!("{} over the replications", metric.title),
            x_label: "run".into(),
            y_label: metric.label(scale),
            y_from_zero: metric.from_zero,
            boxes: runs
                .iter()
                .zip(&values)
                .enumerate()
                .filter(|(_, (_, v))| !v.is_empty())
                .map(|(i, (r, v))| box_of(&r.label, i, v))
                .collect(),
        };
        figures.extend(page::figure(
            &format!("box-{}.svg", metric.name.replace('_', "-")),
            format!(
                "{} over each run's replications (a box plot of each metric whose value \
                 varies): the box from the first to the third quartile, the median across it, the mean a black diamond; whiskers at \
                 the furthest replications within 1.5 interquartile ranges of the box.",
                metric.title
            ),
            chart::box_plot_svg(&boxes),
        )?);
    }
    let mut sections = vec![Section {
        title: "Over the replications".into(),
        text: "Each metric's mean over each run's replications with the half-width of its \
               95% confidence interval (Student's t), in one unit per metric."
            .into(),
        tables: vec![Table { head, rows }],
        figures,
        code: String::new(),
        links: Vec::new(),
    }];
    let mut weekly = Vec::new();
    for (k, column) in WEEKLY.iter().enumerate().take(2) {
        let series: Vec<RunSeries> = runs
            .iter()
            .zip(&reps)
            .enumerate()
            .filter_map(|(i, (r, reps))| {
                Some(RunSeries {
                    label: r.label.clone(),
                    run: i,
                    points: reps.weekly.as_ref()?[k].clone(),
                })
            })
            .collect();
        if series.is_empty() {
            continue;
        }
        let chart = Overlay {
            title: format!("{} per week", column.title),
            x_label: "weeks since the first submission".into(),
            y_label: column.y_label.into(),
            x_ticks: XTicks::Numbers,
            y_from_zero: true,
            series,
        };
        weekly.extend(page::figure(
            &format!("weekly-{}.svg", column.name.replace('_', "-")),
            format!(
                "{} per week: {}; each run's mean over its replications at each week's \
                 middle, over the weeks every replication ran whole.",
                column.title, column.meaning
            ),
            chart::overlay_svg(&chart),
        )?);
    }
    if !weekly.is_empty() {
        sections.push(Section {
            title: "Week by week".into(),
            text: "From each run's weekly.csv, warm-up and cool-down included.".into(),
            figures: weekly,
            ..Section::default()
        });
    }
    sections.push(paired_replications(runs, &reps));
    Ok(sections)
}

/// The paired differences of each run from the first over the replications that share
/// a seed (the same replication number and seed: common random numbers).
fn paired_replications(runs: &[Run], reps: &[&Replications]) -> Section {
    let mut tables = Vec::new();
    let mut unpaired = Vec::new();
    for i in 1..reps.len() {
        let pairs: Vec<(usize, usize)> = reps[0]
            .seeds
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.1.is_empty())
            .filter_map(|(x, s)| Some((x, reps[i].seeds.iter().position(|t| t == s)?)))
            .collect();
        if pairs.is_empty() {
            unpaired.push(runs[i].label.clone());
            continue;
        }
        let value = |r: &Replications, k: usize, name: &str| {
            r.values[k].iter().find(|(h, _)| h == name).map(|(_, v)| *v)
        };
        let rows = METRICS
            .iter()
            .filter_map(|metric| {
                let scale = metric.scale();
                let diffs: Vec<f64> = pairs
                    .iter()
                    .filter_map(|&(x, y)| {
                        Some(
                            (value(reps[i], y, metric.name)? - value(reps[0], x, metric.name)?)
                                * scale.factor,
                        )
                    })
                    .collect();
                (!diffs.is_empty()).then(|| {
                    let s = MetricStats::of(metric.name, &diffs);
                    vec![
                        metric.label(scale),
                        sig3(s.mean),
                        if s.n > 1 {
                            sig3(ci95(s.n, s.sd))
                        } else {
                            "—".into()
                        },
                        count(s.n),
                    ]
                })
            })
            .collect();
        tables.push(Table {
            head: [
                &format!("{} − {}", runs[i].label, runs[0].label),
                "mean Δ",
                "± (95% CI)",
                "pairs",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            rows,
        });
    }
    let mut text = format!(
        "Replications with the same number and seed drew the same population (common \
         random numbers): each metric's difference from {} over those pairs, its mean \
         with the half-width of its 95% confidence interval (Student's t over the pairs).",
        runs[0].label
    );
    if !unpaired.is_empty() {
        text.push_str(&format!(
            " Not paired, sharing no seed with the first run: {}.",
            unpaired.join(", ")
        ));
    }
    Section {
        title: "Paired differences".into(),
        text,
        tables,
        ..Section::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, wait: Time) -> RunJob {
        RunJob {
            id: id.into(),
            user: 1,
            submit: 0,
            start: wait,
            end: wait + 10,
            size: 1,
            estimate: 10,
            requested_runtime: 10,
            killed: false,
            bounded_slowdown: 1.0,
            processors: None,
        }
    }

    #[test]
    fn jobs_pair_by_unique_ids() {
        let a = [job("1", 0), job("2", 5), job("3", 0), job("3", 1)];
        let b = [job("2", 0), job("1", 9), job("3", 0), job("4", 0)];
        assert_eq!(shared_jobs(&a, &b), [(0, 1), (1, 0)]);
    }

    #[test]
    fn a_box_reaches_within_one_and_a_half_interquartile_ranges() {
        let v: Vec<f64> = (1..=8).map(f64::from).chain([100.0]).collect();
        let b = box_of("x", 0, &v);
        assert_eq!((b.q1, b.median, b.q3), (3.0, 5.0, 7.0));
        assert_eq!((b.low, b.high), (1.0, 8.0));
        assert!((b.mean - 136.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn a_distribution_function_counts_ties_at_their_value() {
        let points = cdf(&[0.0, 0.0, 1.0, 2.0], |x| x);
        assert_eq!(points, [(0.0, 50.0), (1.0, 75.0), (2.0, 100.0)]);
    }
}
