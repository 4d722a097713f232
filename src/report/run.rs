//! The report of one run: a results directory with `summary.json` and `jobs.csv` (a
//! replay, a feedback replay, a scenario's replay, feedback or model run with `--out`),
//! or Batsim's `_jobs.csv` (`results::jobs`).
//!
//! It reads the jobs back and shows, in hours, percent and counts:
//! - the run's figures: wait, response and bounded slowdown (exact percentiles over
//!   every job in `jobs.csv`);
//! - the same by runtime class (Feitelson 2021, Fig. 20's classes);
//! - time series over the run, per hour and per week: utilization, jobs waiting and the
//!   processor-hours they asked for, active users (a job waiting or running) and open
//!   sessions (a feedback run's `sessions.csv`);
//! - a schedule view: processors against time over a window (by default the day in
//!   which most jobs waited, a local calendar day when the log has a start time), each
//!   job on its processors (`jobs.csv`'s `processors`, else placed first-fit,
//!   `alloc::place`), coloured by its user (the six with the most processor-hours in
//!   the window named, the others grey) or by runtime class, with its id, user and times
//!   in a tooltip; the jobs waiting drawn under the machine;
//! - each user's service.
//!
//! Written to `DIR/report/`: `index.html`, the SVGs, `series-hourly.csv`,
//! `series-weekly.csv` and `users-service.csv`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::page::{self, Figure, Page, Section, Table, count, csv, hours, percent, sig3};
use super::series::Steps;
use crate::alloc::{Allocator, ProcSet, place};
use crate::job::RuntimeClass;
use crate::localtime::SiteClock;
use crate::metrics::Bsld;
use crate::plot::chart::{self, Bar, BarChart, BarSeries, Block, Gantt, LineChart, Series, XTicks};
use crate::results::jobs::{RunJob, read_batsim, read_sitesim};
use crate::results::output::create_subfolder;
use crate::swf::SwfReader;
use crate::time::{DAY, HOUR, Time, WEEK};

/// What the schedule view shows and how it colours jobs (`sitesim report` options).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScheduleView {
    /// Its start, from the first submission; `None`: the day in which most jobs waited.
    pub from: Option<Time>,
    /// Its length.
    pub length: Option<Time>,
    /// Colour jobs by runtime class instead of by user.
    pub by_class: bool,
}

/// The most jobs the schedule view draws (the first ones to start in its window).
const MOST_BLOCKS: usize = 20_000;

/// Users the schedule view names in its legend; the others are grey.
const NAMED_USERS: usize = 6;

type Job = RunJob;

/// A session as `sessions.csv` has it.
#[derive(Debug, Clone, Deserialize)]
struct Session {
    first_submit: Time,
    last_end: Time,
}

/// Reads the rows of the CSV file `path`.
fn read_rows<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, String> {
    let mut reader = crate::results::input::table(path)?;
    reader
        .deserialize()
        .enumerate()
        .map(|(i, row)| row.map_err(|e| format!("{}: row {}: {e}", path.display(), i + 2)))
        .collect()
}

/// What a run's page is drawn from.
struct RunInput {
    /// The page's title.
    title: String,
    /// Facts under the title, after the machine and the jobs.
    facts: Vec<(String, String)>,
    /// The jobs.
    jobs: Vec<Job>,
    /// A feedback run's sessions.
    sessions: Option<Vec<Session>>,
    /// Processors.
    procs: u32,
    /// The log's clock, when its header gives a start time.
    clock: Option<SiteClock>,
}

/// The clock of the log whose header `schedule.swf` in `dir` keeps, if it gives a start
/// time (`UnixStartTime`).
fn clock_of(dir: &Path) -> Option<SiteClock> {
    let path = dir.join("schedule.swf");
    let reader = SwfReader::open(&path).ok()?;
    let calendar = reader.header().calendar();
    calendar.unix_start_time?;
    SiteClock::of_log(calendar, None)
        .ok()
        .map(|(clock, _)| clock)
}

/// Writes the report of the run in `dir` into `out`; the files written.
pub fn write_report(dir: &Path, out: &Path, view: ScheduleView) -> Result<Vec<PathBuf>, String> {
    let summary_path = dir.join("summary.json");
    let text = crate::results::input::read(&summary_path, crate::results::input::MAX_JSON)?;
    let summary: Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", summary_path.display()))?;
    let jobs = read_sitesim(&dir.join("jobs.csv"))?;
    if jobs.is_empty() {
        return Err(format!(
            "{}: no jobs to report",
            dir.join("jobs.csv").display()
        ));
    }
    let sessions_path = dir.join("sessions.csv");
    let sessions: Option<Vec<Session>> = if sessions_path.is_file() {
        Some(read_rows(&sessions_path)?)
    } else {
        None
    };
    let procs = summary["procs"]
        .as_u64()
        .or_else(|| summary["machine"]["procs"].as_u64())
        .ok_or_else(|| format!("{}: no machine size (procs)", summary_path.display()))?
        as u32;
    let scheduler = summary["scheduler"].as_str().unwrap_or("?").to_owned();
    let log = summary["input"]["file"]
        .as_str()
        .or_else(|| summary["input"].as_str())
        .map(|f| {
            Path::new(f)
                .file_name()
                .map_or(f.to_owned(), |n| n.to_string_lossy().into_owned())
        });
    let mut facts = vec![("scheduler".to_owned(), scheduler.clone())];
    if let Some(log) = &log {
        facts.insert(0, ("log".to_owned(), log.clone()));
    }
    let kind = if sessions.is_some() {
        "feedback run"
    } else {
        "run"
    };
    let title = match &log {
        Some(log) => format!("{log}: {kind} under {scheduler}"),
        None => format!("{kind} under {scheduler}"),
    };
    let input = RunInput {
        title,
        facts,
        jobs,
        sessions,
        procs,
        clock: clock_of(dir),
    };
    write_page(input, out, view)
}

/// The machine size Batsim wrote beside its `PREFIX_jobs.csv` at `file`: the
/// `nb_computing_machines` of `PREFIX_schedule.csv`, if that file is there.
pub(super) fn batsim_machines(file: &Path) -> Option<u32> {
    let name = file.file_name()?.to_str()?;
    let prefix = name.strip_suffix("_jobs.csv")?;
    let path = file.with_file_name(format!("{prefix}_schedule.csv"));
    let mut reader = crate::results::input::table(&path).ok()?;
    let k = reader
        .headers()
        .ok()?
        .iter()
        .position(|h| h == "nb_computing_machines")?;
    let row = reader.records().next()?.ok()?;
    row.get(k)?.trim().parse().ok()
}

/// Writes the report of Batsim's `_jobs.csv` at `file` into `out` (as a run's, without
/// sessions or calendar); the files written. The machine is `nb_computing_machines` of
/// the `_schedule.csv` beside it, else as large as the highest processor a job held.
pub fn write_batsim_report(
    file: &Path,
    out: &Path,
    view: ScheduleView,
) -> Result<Vec<PathBuf>, String> {
    let read = read_batsim(file, Bsld::default())?;
    if read.jobs.is_empty() {
        return Err(format!("{}: no job that ran, to report", file.display()));
    }
    let highest = read
        .jobs
        .iter()
        .filter_map(|j| j.processors.as_ref()?.ranges().last().map(|r| r.1 + 1))
        .max()
        .unwrap_or(0);
    let largest = read.jobs.iter().map(|j| j.size).max().unwrap_or(1);
    let (procs, machine) = match batsim_machines(file) {
        Some(n) => (n, "nb_computing_machines of its _schedule.csv"),
        None => (highest.max(largest), "the highest processor a job held"),
    };
    let name = file.file_name().map_or(file.display().to_string(), |n| {
        n.to_string_lossy().into_owned()
    });
    let mut facts = vec![
        ("Batsim output".to_owned(), name.clone()),
        ("machine from".to_owned(), machine.to_owned()),
    ];
    if read.rejected > 0 {
        facts.push(("rejected jobs, left out".to_owned(), count(read.rejected)));
    }
    let input = RunInput {
        title: format!("{name}: a Batsim run"),
        facts,
        jobs: read.jobs,
        sessions: None,
        procs,
        clock: None,
    };
    write_page(input, out, view)
}

/// Writes the page of `input` into `out`; the files written.
fn write_page(input: RunInput, out: &Path, view: ScheduleView) -> Result<Vec<PathBuf>, String> {
    let RunInput {
        title,
        facts: mut more,
        jobs,
        sessions,
        procs,
        clock,
    } = input;
    let start = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let end = jobs
        .iter()
        .map(|j| j.end)
        .max()
        .unwrap_or(start)
        .max(start + 1);
    create_subfolder(out)?;
    let mut written = Vec::new();
    let (series_section, hourly, weekly) = series(&jobs, sessions.as_deref(), procs, start, end)?;
    written.push(page::write(&out.join("series-hourly.csv"), &hourly)?);
    written.push(page::write(&out.join("series-weekly.csv"), &weekly)?);
    let (users_section, users_csv) = users(&jobs)?;
    written.push(page::write(&out.join("users-service.csv"), &users_csv)?);
    let sections = vec![
        figures(&jobs)?,
        classes(&jobs)?,
        series_section,
        schedule(&jobs, procs, (start, end), clock.as_ref(), view)?,
        users_section,
    ];
    let mut facts = std::mem::take(&mut more);
    facts.extend([
        ("processors".to_owned(), count(u64::from(procs))),
        ("jobs".to_owned(), count(jobs.len() as u64)),
        (
            "span".to_owned(),
            format!(
                "{:.1} days, from the first submission to the last end",
                (end - start) as f64 / DAY as f64
            ),
        ),
    ]);
    let page = Page {
        title,
        version: env!("CARGO_PKG_VERSION"),
        facts,
        sections,
    };
    let mut files = page.write(out)?;
    written.append(&mut files);
    Ok(written)
}

/// The nearest-rank `p` quantile of sorted `v`.
pub(super) fn quantile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// Mean, median, 90th and 99th percentiles and maximum of `values`.
fn describe(mut values: Vec<f64>) -> [f64; 5] {
    values.sort_by(f64::total_cmp);
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    [
        mean,
        quantile(&values, 0.5),
        quantile(&values, 0.9),
        quantile(&values, 0.99),
        values.last().copied().unwrap_or(f64::NAN),
    ]
}

const STATS_HEAD: [&str; 5] = [
    "mean",
    "median",
    "90th percentile",
    "99th percentile",
    "maximum",
];

/// The run's figures: wait, response and bounded slowdown over every job.
fn figures(jobs: &[Job]) -> Result<Section, String> {
    let mut head = vec!["quantity".to_owned()];
    head.extend(STATS_HEAD.iter().map(|s| s.to_string()));
    let row = |name: &str, v: [f64; 5], fmt: fn(f64) -> String| {
        let mut r = vec![name.to_owned()];
        r.extend(v.iter().map(|&x| fmt(x)));
        r
    };
    let table = Table {
        head,
        rows: vec![
            row(
                "wait (h)",
                describe(jobs.iter().map(|j| j.wait() as f64).collect()),
                hours,
            ),
            row(
                "response (h)",
                describe(jobs.iter().map(|j| j.response() as f64).collect()),
                hours,
            ),
            row(
                "bounded slowdown",
                describe(jobs.iter().map(|j| j.bounded_slowdown).collect()),
                sig3,
            ),
        ],
    };
    Ok(Section {
        title: "The jobs' service".into(),
        text: format!(
            "Over all {} jobs of jobs.csv; percentiles are exact (nearest rank). The \
             summary's figures (summary.json) leave out the jobs of a warm-up or cool-down.",
            count(jobs.len() as u64)
        ),
        tables: vec![table],
        figures: Vec::new(),
        code: String::new(),
        links: Vec::new(),
    })
}

/// Wait, response and bounded slowdown by runtime class.
fn classes(jobs: &[Job]) -> Result<Section, String> {
    let mut head = vec!["runtime class".to_owned(), "jobs".to_owned()];
    for q in ["wait (h)", "response (h)", "bounded slowdown"] {
        head.push(format!("mean {q}"));
        head.push(format!("median {q}"));
        head.push(format!("90th percentile {q}"));
    }
    let mut rows = Vec::new();
    let mut bars: [Vec<Option<Bar>>; 3] = Default::default();
    for class in RuntimeClass::ALL {
        let of: Vec<&Job> = jobs
            .iter()
            .filter(|j| RuntimeClass::of(j.runtime()) == class)
            .collect();
        let mut row = vec![class.label().to_owned(), count(of.len() as u64)];
        if of.is_empty() {
            row.extend(std::iter::repeat_n("—".to_owned(), 9));
            rows.push(row);
            bars.iter_mut().for_each(|b| b.push(None));
            continue;
        }
        let wait = describe(of.iter().map(|j| j.wait() as f64).collect());
        let response = describe(of.iter().map(|j| j.response() as f64).collect());
        let bsld = describe(of.iter().map(|j| j.bounded_slowdown).collect());
        for (v, fmt) in [
            (wait, hours as fn(f64) -> String),
            (response, hours),
            (bsld, sig3),
        ] {
            row.extend([fmt(v[0]), fmt(v[1]), fmt(v[2])]);
        }
        rows.push(row);
        for (k, b) in bars.iter_mut().enumerate() {
            b.push(Some(Bar {
                value: wait[[0, 1, 2][k]] / 3600.0,
                error: 0.0,
            }));
        }
    }
    let chart = BarChart {
        title: "Wait by runtime class".into(),
        x_label: "runtime class".into(),
        y_label: "wait (h)".into(),
        groups: RuntimeClass::ALL
            .iter()
            .map(|c| c.label().to_owned())
            .collect(),
        log_y: false,
        zero_line: false,
        series: ["mean", "median", "90th percentile"]
            .iter()
            .zip(bars)
            .map(|(label, bars)| BarSeries {
                label: label.to_string(),
                colour: None,
                bars,
            })
            .collect(),
    };
    let figure = page::figure(
        "class-wait.svg",
        "Wait by runtime class: mean, median and 90th percentile (h).".into(),
        chart::bar_chart_svg(&chart),
    )?;
    Ok(Section {
        title: "By runtime class".into(),
        text: "Jobs by their runtime: at most a minute, up to ten minutes, longer (Feitelson \
               2021, Fig. 20)."
            .into(),
        tables: vec![Table { head, rows }],
        figures: figure.into_iter().collect(),
        code: String::new(),
        links: Vec::new(),
    })
}

/// The quantities over time, each a step function of the run: its name (of the SVG),
/// its CSV column (with its unit), its axis label and its title.
const SERIES: [(&str, &str, &str, &str); 5] = [
    (
        "utilization",
        "utilization_pct",
        "utilization (%)",
        "Utilization",
    ),
    (
        "waiting_jobs",
        "waiting_jobs",
        "jobs waiting",
        "Jobs waiting",
    ),
    (
        "waiting_proc_hours",
        "waiting_proc_hours",
        "processor-hours waiting",
        "Processor-hours asked by the jobs waiting",
    ),
    (
        "active_users",
        "active_users",
        "users",
        "Active users (a job waiting or running)",
    ),
    (
        "open_sessions",
        "open_sessions",
        "sessions",
        "Open sessions",
    ),
];

/// Time series over the run: the section, and the hourly and weekly CSV files.
fn series(
    jobs: &[Job],
    sessions: Option<&[Session]>,
    procs: u32,
    start: Time,
    end: Time,
) -> Result<(Section, Vec<u8>, Vec<u8>), String> {
    let mut steps: Vec<Steps> = vec![Steps::default(); 5];
    for j in jobs {
        steps[0].span(
            j.start,
            j.end,
            100.0 * f64::from(j.size) / f64::from(procs.max(1)),
        );
        steps[1].span(j.submit, j.start, 1.0);
        steps[2].span(
            j.submit,
            j.start,
            f64::from(j.size) * j.estimate as f64 / 3600.0,
        );
    }
    // A user is active while it has a job in the system: from the earliest submission to
    // the latest end of its overlapping jobs.
    let mut by_user: BTreeMap<i64, Vec<(Time, Time)>> = BTreeMap::new();
    for j in jobs {
        by_user.entry(j.user).or_default().push((j.submit, j.end));
    }
    for spans in by_user.values_mut() {
        spans.sort_unstable();
        let mut current: Option<(Time, Time)> = None;
        for &(from, to) in spans.iter() {
            match &mut current {
                Some((_, e)) if from <= *e => *e = (*e).max(to),
                _ => {
                    if let Some((f, e)) = current {
                        steps[3].span(f, e, 1.0);
                    }
                    current = Some((from, to));
                }
            }
        }
        if let Some((f, e)) = current {
            steps[3].span(f, e, 1.0);
        }
    }
    let shown = if let Some(sessions) = sessions {
        for s in sessions {
            steps[4].span(s.first_submit, s.last_end, 1.0);
        }
        5
    } else {
        4
    };
    let per = |width: Time| -> Vec<Vec<f64>> {
        steps[..shown]
            .iter()
            .map(|s| s.clone().means(start, end, width))
            .collect()
    };
    let hourly = per(HOUR);
    let weekly = per(WEEK);
    // The finer line: hourly means over at most 1,000 hours, else daily ones (the hourly
    // ones are in series-hourly.csv).
    let (fine_width, fine_label) = if end - start <= 1_000 * HOUR {
        (HOUR, "hourly mean")
    } else {
        (DAY, "daily mean")
    };
    let fine = if fine_width == HOUR {
        hourly.clone()
    } else {
        per(DAY)
    };
    let table = |width: Time, values: &[Vec<f64>], unit: &str| -> Result<Vec<u8>, String> {
        let mut head = vec![format!("{unit}_from_first_submission")];
        head.extend(SERIES[..shown].iter().map(|s| s.1.to_owned()));
        let rows = (0..values[0].len()).map(|k| {
            let mut r =
                vec![((k as Time * width) / if unit == "hours" { HOUR } else { WEEK }).to_string()];
            r.extend(values.iter().map(|v| format!("{:.4}", v[k])));
            r
        });
        csv(&head, rows)
    };
    let mut figures = Vec::new();
    for (i, (file, _, y_label, title)) in SERIES[..shown].iter().enumerate() {
        let points = |values: &[f64], width: Time| -> Vec<(f64, f64)> {
            values
                .iter()
                .enumerate()
                .map(|(k, &v)| (((k as f64 + 0.5) * width as f64) / DAY as f64, v))
                .collect()
        };
        let chart = LineChart {
            title: title.to_string(),
            x_label: "days since the first submission".into(),
            y_label: y_label.to_string(),
            x_ticks: XTicks::Numbers,
            log_y: false,
            y_from_zero: true,
            series: vec![
                Series {
                    label: fine_label.into(),
                    points: points(&fine[i], fine_width),
                },
                Series {
                    label: "weekly mean".into(),
                    points: points(&weekly[i], WEEK),
                },
            ],
        };
        figures.extend(page::figure(
            &format!("series-{}.svg", file.replace('_', "-")),
            format!("{title}: {fine_label}s and weekly means over the run."),
            chart::line_chart_svg(&chart),
        )?);
    }
    let section = Section {
        title: "Over time".into(),
        text: "Each quantity's mean per hour (per day over a long run) and per week, from the \
               jobs' submissions, starts and ends; series-hourly.csv and series-weekly.csv \
               have the hourly and weekly means."
            .into(),
        tables: Vec::new(),
        figures,
        code: String::new(),
        links: Vec::new(),
    };
    Ok((
        section,
        table(HOUR, &hourly, "hours")?,
        table(WEEK, &weekly, "weeks")?,
    ))
}

/// How the schedule view writes a time: the local date and time when the log has a
/// calendar, else the day since the first submission and the time of that day.
struct Clock<'c> {
    /// The first submission.
    start: Time,
    /// The log's clock.
    clock: Option<&'c SiteClock>,
}

impl Clock<'_> {
    /// `t` as the view writes it.
    fn at(&self, t: Time) -> String {
        match self.clock {
            Some(c) => c.civil(t).strftime("%a %Y-%m-%d %H:%M").to_string(),
            None => {
                let s = t - self.start;
                let (day, of_day) = (s.div_euclid(DAY), s.rem_euclid(DAY));
                format!("day {day} {:02}:{:02}", of_day / HOUR, of_day % HOUR / 60)
            }
        }
    }

    /// The start of the day (a local midnight with a calendar, else a whole number of
    /// days from the first submission) in which `t` falls.
    fn day_of(&self, t: Time) -> Time {
        match self.clock {
            Some(c) => t - Time::from(c.local(t).second_of_day),
            None => t - (t - self.start).rem_euclid(DAY),
        }
    }
}

/// `n` processors, in words.
fn processors_text(n: u32) -> String {
    if n == 1 {
        "1 processor".to_owned()
    } else {
        format!("{n} processors")
    }
}

/// The schedule view over `view`'s window: the jobs running, each on its processors,
/// and the jobs waiting under the machine.
fn schedule(
    jobs: &[Job],
    procs: u32,
    (start, end): (Time, Time),
    clock: Option<&SiteClock>,
    view: ScheduleView,
) -> Result<Section, String> {
    let clock = Clock { start, clock };
    let length = view.length.unwrap_or(DAY).max(1);
    let from = match view.from {
        Some(from) => start + from,
        None => {
            // The day in which most jobs waited.
            let first_day = clock.day_of(start);
            let mut waiting = Steps::default();
            for j in jobs {
                waiting.span(j.submit, j.start, 1.0);
            }
            let days = waiting.means(first_day, end, DAY);
            let best = days
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
                .map_or(0, |(k, _)| k);
            // Whole days of 24 hours drift from local midnights across a change of
            // time; the day starts at the midnight it falls in.
            clock.day_of(first_day + best as Time * DAY + DAY / 2)
        }
    };
    let to = from + length;
    // Each job's processors: its file's, else placed first-fit after the fact.
    let fallback = if jobs.iter().any(|j| j.processors.is_none()) {
        let spans: Vec<(Time, Time, u32)> = jobs.iter().map(|j| (j.start, j.end, j.size)).collect();
        place(&spans, Allocator::new(procs)).0
    } else {
        Vec::new()
    };
    let processors =
        |i: usize| -> &ProcSet { jobs[i].processors.as_ref().unwrap_or_else(|| &fallback[i]) };
    let scattered = (0..jobs.len())
        .filter(|&i| !processors(i).is_contiguous())
        .count();

    let mut running: Vec<usize> = (0..jobs.len())
        .filter(|&i| jobs[i].start < to && jobs[i].end > from && jobs[i].end > jobs[i].start)
        .collect();
    running.sort_by_key(|&i| (jobs[i].start, i));
    let mut waiting: Vec<usize> = (0..jobs.len())
        .filter(|&i| jobs[i].submit < to && jobs[i].start > from && jobs[i].start > jobs[i].submit)
        .collect();
    waiting.sort_by_key(|&i| (jobs[i].submit, i));
    let cut = running.len() > MOST_BLOCKS || waiting.len() > MOST_BLOCKS;
    running.truncate(MOST_BLOCKS);
    waiting.truncate(MOST_BLOCKS);

    // Colours: by runtime class, or the users with the most processor-hours in the
    // window (running or waiting) each its own, the others grey.
    let within = |a: Time, b: Time| (b.min(to) - a.max(from)).max(0) as f64;
    let class_of = |j: &Job| {
        RuntimeClass::ALL
            .iter()
            .position(|&c| c == RuntimeClass::of(j.runtime()))
            .unwrap_or(0)
    };
    let mut work: BTreeMap<i64, f64> = BTreeMap::new();
    for &i in &running {
        let j = &jobs[i];
        *work.entry(j.user).or_default() += f64::from(j.size) * within(j.start, j.end);
    }
    for &i in &waiting {
        let j = &jobs[i];
        *work.entry(j.user).or_default() += f64::from(j.size) * within(j.submit, j.start);
    }
    let mut by_work: Vec<(i64, f64)> = work.into_iter().collect();
    by_work.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let named: BTreeMap<i64, usize> = by_work
        .iter()
        .take(NAMED_USERS)
        .enumerate()
        .map(|(k, &(user, _))| (user, k))
        .collect();
    let user_name = |user: i64| {
        if user < 0 {
            "unknown user".to_owned()
        } else {
            format!("user {user}")
        }
    };
    let legend: Vec<String> = if view.by_class {
        RuntimeClass::ALL
            .iter()
            .map(|c| c.label().to_owned())
            .collect()
    } else {
        let mut names: Vec<String> = by_work
            .iter()
            .take(NAMED_USERS)
            .map(|&(user, _)| user_name(user))
            .collect();
        if by_work.len() > NAMED_USERS {
            names.push("other users".to_owned());
        }
        names
    };
    let colour = |j: &Job| {
        if view.by_class {
            class_of(j)
        } else {
            named.get(&j.user).copied().unwrap_or(NAMED_USERS)
        }
    };

    let hour = |t: Time| (t - from) as f64 / HOUR as f64;
    let mut blocks = Vec::new();
    for &i in &running {
        let j = &jobs[i];
        let set = processors(i);
        let title = format!(
            "job {}, {}: {} ({set}); submitted {}, started {} after {} h, ended {}{}",
            j.id,
            user_name(j.user),
            processors_text(j.size),
            clock.at(j.submit),
            clock.at(j.start),
            hours(j.wait() as f64),
            clock.at(j.end),
            if j.killed {
                ", killed at its estimate"
            } else {
                ""
            }
        );
        blocks.extend(set.ranges().iter().map(|&(first, last)| Block {
            from: hour(j.start),
            to: hour(j.end),
            first: f64::from(first),
            count: f64::from(last - first + 1),
            colour: colour(j),
            waiting: false,
            title: title.clone(),
        }));
    }
    // The jobs waiting, stacked under the machine: each on a block of "processors" of
    // an unbounded queue from its submission to its start, as deep as the processors
    // they ask; at most half as deep as the machine is high, or drawn to a smaller
    // scale.
    let spans: Vec<(Time, Time, u32)> = waiting
        .iter()
        .map(|&i| (jobs[i].submit, jobs[i].start, jobs[i].size))
        .collect();
    let (queued, _) = place(&spans, Allocator::unbounded());
    let depth = queued
        .iter()
        .filter_map(|s| s.ranges().last().map(|r| f64::from(r.1) + 1.0))
        .fold(0.0, f64::max);
    let scale = (2.0 * depth / f64::from(procs.max(1))).max(1.0);
    for (&i, set) in waiting.iter().zip(&queued) {
        let j = &jobs[i];
        let title = format!(
            "job {}, {}, waiting: {} asked; submitted {}, starts {} after {} h",
            j.id,
            user_name(j.user),
            processors_text(j.size),
            clock.at(j.submit),
            clock.at(j.start),
            hours(j.wait() as f64),
        );
        blocks.extend(set.ranges().iter().map(|&(first, last)| Block {
            from: hour(j.submit),
            to: hour(j.start),
            first: -(f64::from(last) + 1.0) / scale,
            count: f64::from(last - first + 1) / scale,
            colour: colour(j),
            waiting: true,
            title: title.clone(),
        }));
    }
    let gantt = Gantt {
        title: format!("Schedule from {} to {}", clock.at(from), clock.at(to)),
        x_label: match clock.clock {
            Some(c) => format!("local time ({})", c.zone_name()),
            None => format!("hours from {}", clock.at(from)),
        },
        y_label: "processors; waiting, asked".into(),
        x: 0.0..hour(to),
        procs: f64::from(procs),
        blocks,
        legend,
        colours: Vec::new(),
        below: depth / scale,
        below_scale: scale,
        clock: clock
            .clock
            .map(|c| (c.unix_start() + from, c.zone().clone())),
    };
    let coloured = if view.by_class {
        "by runtime class"
    } else {
        "by user (the six with the most processor-hours in the window; the others grey)"
    };
    let figure = page::figure(
        "schedule.svg",
        format!(
            "Processors against time: each job on its processors, coloured {coloured};              under the machine, paler, the jobs waiting, as many processors deep as they              ask{}. Each job's id, user and times show when the pointer rests on it{}.",
            if scale > 1.0 {
                format!(" (drawn at 1:{})", sig3(scale))
            } else {
                String::new()
            },
            if cut {
                format!(" (the first {MOST_BLOCKS} jobs of the window)")
            } else {
                String::new()
            }
        ),
        chart::gantt_svg(&gantt),
    )?;
    Ok(Section {
        title: "Schedule".into(),
        text: format!(
            "{} jobs ran and {} waited in this window{}; {} of the run's {} jobs ({}%) could              not be given contiguous processors when they started, none being free in              one block, and are drawn on each of their blocks. `sitesim report              --schedule-from DURATION --schedule-length DURATION --colour class` shows              another window.",
            count(running.len() as u64),
            count(waiting.len() as u64),
            if view.from.is_none() {
                " (the day in which most jobs waited)"
            } else {
                ""
            },
            count(scattered as u64),
            count(jobs.len() as u64),
            percent(scattered as f64 / jobs.len().max(1) as f64),
        ),
        tables: Vec::new(),
        figures: figure.into_iter().collect(),
        code: String::new(),
        links: Vec::new(),
    })
}

/// Each user's service: the section (the users with the most processor-hours) and the
/// CSV file of every user.
fn users(jobs: &[Job]) -> Result<(Section, Vec<u8>), String> {
    #[derive(Default)]
    struct Service {
        jobs: u64,
        proc_hours: f64,
        waits: Vec<f64>,
        bsld: f64,
    }
    let mut users: BTreeMap<i64, Service> = BTreeMap::new();
    for j in jobs {
        let s = users.entry(j.user).or_default();
        s.jobs += 1;
        s.proc_hours += f64::from(j.size) * j.runtime() as f64 / 3600.0;
        s.waits.push(j.wait() as f64);
        s.bsld += j.bounded_slowdown;
    }
    let total: f64 = users.values().map(|s| s.proc_hours).sum();
    let mut rows: Vec<(i64, Vec<String>, f64)> = users
        .into_iter()
        .map(|(user, mut s)| {
            s.waits.sort_by(f64::total_cmp);
            let mean_wait = s.waits.iter().sum::<f64>() / s.jobs as f64;
            (
                user,
                vec![
                    user.to_string(),
                    count(s.jobs),
                    format!("{:.1}", s.proc_hours),
                    percent(if total > 0.0 {
                        s.proc_hours / total
                    } else {
                        0.0
                    }),
                    hours(mean_wait),
                    hours(quantile(&s.waits, 0.5)),
                    sig3(s.bsld / s.jobs as f64),
                ],
                s.proc_hours,
            )
        })
        .collect();
    rows.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    let head: Vec<String> = [
        "user",
        "jobs",
        "processor-hours",
        "share of processor-hours (%)",
        "mean wait (h)",
        "median wait (h)",
        "mean bounded slowdown",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let csv_head: Vec<String> = [
        "user",
        "jobs",
        "proc_hours",
        "proc_hours_percent",
        "mean_wait_hours",
        "median_wait_hours",
        "mean_bounded_slowdown",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let file = csv(
        &csv_head,
        rows.iter()
            .map(|r| r.1.iter().map(|c| c.replace('\u{2009}', "")).collect()),
    )?;
    let n = rows.len();
    let section = Section {
        title: "Users".into(),
        text: format!(
            "The {} users with the most processor-hours, of {} (every user in \
             users-service.csv).",
            n.min(15),
            count(n as u64)
        ),
        tables: vec![Table {
            head,
            rows: rows.into_iter().take(15).map(|r| r.1).collect(),
        }],
        figures: Vec::<Figure>::new(),
        code: String::new(),
        links: Vec::new(),
    };
    Ok((section, file))
}
