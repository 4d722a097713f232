//! The report of a log itself (`sitesim analyze --report`): the workload's figures as
//! the Parallel Workloads Archive shows them (Feitelson, Tsafrir and Krakov 2014) and
//! its users' sessions (Feitelson 2021), written to `DIR/report/`: `index.html`, an SVG
//! and a CSV file of the plotted values per figure.
//!
//! - runtimes, job sizes and interarrival times over every job line of the log (the
//!   archive's distributions; sizes by processors, each power of two its own bar);
//! - estimate accuracy, runtime over requested time (Tsafrir et al. 2005), and the share
//!   of jobs that reach their estimate;
//! - arrivals by local hour of the day and day of the week, and jobs per week over the
//!   log's calendar (Talby 2006, §9; the clock of the header's `UnixStartTime` and zone,
//!   `localtime::SiteClock`);
//! - sessions and think times as `sitesim analyze` splits the users (Feitelson 2021,
//!   §3.4: a think time is a job's submission minus the previous job's end; a session
//!   ends at a think time over the threshold, 20 minutes by default);
//! - the users with the most processor-hours, and their share of the jobs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::page::{self, Figure, Link, Page, Section, Table, count, csv, percent, sig3};
use crate::localtime::{SiteClock, WEEKDAYS};
use crate::plot::chart::{self, Bar, BarChart, BarSeries, LineChart, Series, XTicks};
use crate::results::output::create_subfolder;
use crate::swf::{Located, SwfError};
use crate::time::{HOUR, Time, WEEK};
use crate::users::analysis::LogAnalysis;
use crate::workload::trace::Trace;

/// A job line of the log, as the figures read it.
#[derive(Debug, Clone, Copy)]
struct LogJob {
    submit: Time,
    /// Runtime, when the log gives one (field 4 at 0 or more).
    runtime: Option<Time>,
    /// Processors: allocated (field 5), else requested (field 8), when above 0.
    procs: Option<u32>,
    /// Requested time (field 9), when above 0.
    estimate: Option<Time>,
    user: i64,
}

/// What the page of a log is drawn from.
pub struct WorkloadInput<'a> {
    /// The log's file name.
    pub file: &'a str,
    /// Processors of the machine (`--procs`, else the header's `MaxProcs`).
    pub procs: u32,
    /// The log's clock; dates on the calendar axis when `dated`.
    pub clock: &'a SiteClock,
    /// Whether the header gives the log's start (`UnixStartTime`).
    pub dated: bool,
    /// The users' analysis (sessions, think times).
    pub analysis: &'a LogAnalysis,
    /// The log split into users and sessions.
    pub trace: &'a Trace,
}

/// Writes the report of the log whose job lines `records` reads into `out`; the files
/// written.
pub fn write_report(
    input: &WorkloadInput<'_>,
    records: impl Iterator<Item = Result<Located, SwfError>>,
    out: &Path,
) -> Result<Vec<PathBuf>, String> {
    let mut jobs = Vec::new();
    for r in records {
        let r = r.map_err(|e| e.to_string())?.record;
        let positive = |v: i64| (v > 0).then_some(v);
        jobs.push(LogJob {
            submit: r.submit,
            runtime: (r.run >= 0).then_some(r.run),
            procs: positive(r.alloc_procs)
                .or(positive(r.req_procs))
                .map(|p| p.min(i64::from(u32::MAX)) as u32),
            estimate: positive(r.req_time),
            user: r.user,
        });
    }
    if jobs.is_empty() {
        return Err(format!("{}: no job lines to report", input.file));
    }
    jobs.sort_by_key(|j| j.submit);
    create_subfolder(out)?;
    let mut written = Vec::new();
    let mut csvs = |name: &str, head: &[&str], rows: Vec<Vec<String>>| {
        let head: Vec<String> = head.iter().map(|h| h.to_string()).collect();
        written.push(page::write(&out.join(name), &csv(&head, rows)?)?);
        Ok::<Link, String>(Link {
            href: name.to_owned(),
            text: name.to_owned(),
        })
    };
    let sections = vec![
        distributions(&jobs, &mut csvs)?,
        estimates(&jobs, &mut csvs)?,
        cycles(&jobs, input, &mut csvs)?,
        sessions(input, &mut csvs)?,
        users(&jobs, &mut csvs)?,
    ];
    let page = Page {
        title: format!("{}: the workload", input.file),
        version: env!("CARGO_PKG_VERSION"),
        facts: facts(&jobs, input),
        sections,
    };
    written.append(&mut page.write(out)?);
    Ok(written)
}

/// Writes a CSV file of the report (name, header, rows) and gives its link.
type Csvs<'c> = dyn FnMut(&str, &[&str], Vec<Vec<String>>) -> Result<Link, String> + 'c;

/// The facts under the title: jobs, users, span, machine, load, clock.
fn facts(jobs: &[LogJob], input: &WorkloadInput<'_>) -> Vec<(String, String)> {
    let first = jobs.first().map_or(0, |j| j.submit);
    let last = jobs.last().map_or(0, |j| j.submit);
    let span = (last - first).max(1);
    let work: f64 = jobs
        .iter()
        .filter_map(|j| Some(j.runtime? as f64 * f64::from(j.procs?)))
        .sum();
    let users = jobs
        .iter()
        .map(|j| j.user)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let when = |t: Time| input.clock.civil(t).strftime("%Y-%m-%d %H:%M").to_string();
    let span_text = if input.dated {
        format!(
            "{:.1} weeks, {} to {} ({})",
            span as f64 / WEEK as f64,
            when(first),
            when(last),
            input.clock.zone_name()
        )
    } else {
        format!(
            "{:.1} weeks from the first submission to the last (no UnixStartTime: no dates)",
            span as f64 / WEEK as f64
        )
    };
    vec![
        ("log".into(), input.file.to_owned()),
        ("jobs".into(), count(jobs.len() as u64)),
        ("users".into(), count(users as u64)),
        ("span".into(), span_text),
        (
            "machine".into(),
            format!("{} processors", count(u64::from(input.procs))),
        ),
        (
            "offered load".into(),
            format!(
                "{}% (processor-time of the jobs over the machine's, first to last submission)",
                percent(work / (f64::from(input.procs.max(1)) * span as f64))
            ),
        ),
        (
            "sessions".into(),
            format!(
                "{} (think-time threshold {} min)",
                count(input.analysis.sessions),
                input.trace.config.threshold / 60
            ),
        ),
    ]
}

/// Points of the distribution of `values` (above 0, sorted) on a log10 axis: the share
/// of values at or below each x, in percent, twenty steps a decade.
fn cdf(values: &[f64]) -> Vec<(f64, f64)> {
    let (Some(&lo), Some(&hi)) = (values.first(), values.last()) else {
        return Vec::new();
    };
    let (from, to) = (
        lo.log10().floor(),
        hi.log10().ceil().max(lo.log10().floor() + 1.0),
    );
    let steps = ((to - from) * 20.0).round() as usize;
    (0..=steps)
        .map(|k| {
            let x = from + (to - from) * k as f64 / steps as f64;
            let at = values.partition_point(|&v| v <= 10f64.powf(x) * (1.0 + 1e-12));
            (x, 100.0 * at as f64 / values.len() as f64)
        })
        .collect()
}

/// A distribution's chart: one line, x on a log10 axis.
fn cdf_chart(title: &str, x_label: &str, label: String, points: Vec<(f64, f64)>) -> LineChart {
    LineChart {
        title: title.into(),
        x_label: x_label.into(),
        y_label: "jobs at or below x (%)".into(),
        x_ticks: XTicks::Log10,
        log_y: false,
        y_from_zero: true,
        series: vec![Series { label, points }],
    }
}

/// The rows of a CSV file of distribution points: x (the quantity) and the share.
fn cdf_rows(points: &[(f64, f64)]) -> Vec<Vec<String>> {
    points
        .iter()
        .map(|&(x, share)| vec![sig3(10f64.powf(x)), format!("{share:.2}")])
        .collect()
}

/// Runtimes, sizes and interarrival times.
fn distributions(jobs: &[LogJob], csvs: &mut Csvs<'_>) -> Result<Section, String> {
    let mut figures = Vec::new();
    let mut links = Vec::new();
    // Runtimes.
    let mut runtimes: Vec<f64> = jobs
        .iter()
        .filter_map(|j| j.runtime)
        .map(|r| r as f64)
        .collect();
    runtimes.sort_by(f64::total_cmp);
    let zero = runtimes.partition_point(|&r| r <= 0.0);
    let points = cdf(&runtimes[zero..]);
    links.push(csvs(
        "runtime.csv",
        &["runtime_s", "jobs_at_or_below_pct"],
        cdf_rows(&points),
    )?);
    figures.extend(page::figure(
        "runtime.svg",
        format!(
            "Runtimes: the share of jobs that ran at most x seconds (log scale), over the {} \
             jobs with a runtime above 0 ({} of 0 s and {} without a runtime left out).",
            count((runtimes.len() - zero) as u64),
            count(zero as u64),
            count((jobs.len() - runtimes.len()) as u64)
        ),
        chart::line_chart_svg(&cdf_chart(
            "Runtime distribution",
            "runtime (s, log scale)",
            "jobs".into(),
            points,
        )),
    )?);
    // Sizes: every size in the CSV file; each power of two its own bar, the sizes between
    // two powers together.
    let mut sizes: BTreeMap<u32, u64> = BTreeMap::new();
    for p in jobs.iter().filter_map(|j| j.procs) {
        *sizes.entry(p).or_default() += 1;
    }
    let sized: u64 = sizes.values().sum();
    links.push(csvs(
        "sizes.csv",
        &["processors", "jobs"],
        sizes
            .iter()
            .map(|(p, n)| vec![p.to_string(), n.to_string()])
            .collect(),
    )?);
    let mut groups: Vec<(String, u64)> = Vec::new();
    for (&p, &n) in &sizes {
        let name = if p.is_power_of_two() {
            p.to_string()
        } else {
            let below = 1u32 << (31 - p.leading_zeros());
            let (from, to) = (below + 1, below.saturating_mul(2) - 1);
            if from == to {
                from.to_string()
            } else {
                format!("{from}-{to}")
            }
        };
        match groups.last_mut() {
            Some((last, m)) if *last == name => *m += n,
            _ => groups.push((name, n)),
        }
    }
    let powers: u64 = sizes
        .iter()
        .filter(|(p, _)| p.is_power_of_two())
        .map(|(_, n)| n)
        .sum();
    figures.extend(page::figure(
        "sizes.svg",
        format!(
            "Job sizes: the share of jobs by processors, each power of two its own bar and the \
             sizes between two powers together; {}% of the {} jobs with a size ask for a power \
             of two (every size in sizes.csv).",
            percent(powers as f64 / sized.max(1) as f64),
            count(sized)
        ),
        chart::bar_chart_svg(&BarChart {
            title: "Job sizes".into(),
            x_label: "processors".into(),
            y_label: "jobs (%)".into(),
            groups: groups.iter().map(|g| g.0.clone()).collect(),
            log_y: false,
            zero_line: false,
            series: vec![BarSeries {
                label: "jobs".into(),
                colour: None,
                bars: groups
                    .iter()
                    .map(|g| {
                        Some(Bar {
                            value: 100.0 * g.1 as f64 / sized.max(1) as f64,
                            error: 0.0,
                        })
                    })
                    .collect(),
            }],
        }),
    )?);
    // Interarrival times.
    let mut gaps: Vec<f64> = jobs
        .windows(2)
        .map(|w| (w[1].submit - w[0].submit) as f64)
        .collect();
    gaps.sort_by(f64::total_cmp);
    let zero = gaps.partition_point(|&g| g <= 0.0);
    let points = cdf(&gaps[zero..]);
    links.push(csvs(
        "interarrival.csv",
        &["interarrival_s", "jobs_at_or_below_pct"],
        cdf_rows(&points),
    )?);
    figures.extend(page::figure(
        "interarrival.svg",
        format!(
            "Interarrival times: the share of the {} gaps between successive submissions of \
             at most x seconds (log scale); {} submissions at the same second as the one \
             before left out.",
            count((gaps.len() - zero) as u64),
            count(zero as u64)
        ),
        chart::line_chart_svg(&cdf_chart(
            "Interarrival times",
            "time since the previous submission (s, log scale)",
            "gaps".into(),
            points,
        )),
    )?);
    Ok(Section {
        title: "Runtimes, sizes and arrivals".into(),
        text: "Every job line of the log, as the Parallel Workloads Archive shows a log's \
               distributions (Feitelson, Tsafrir and Krakov 2014)."
            .into(),
        tables: Vec::new(),
        figures,
        code: String::new(),
        links,
    })
}

/// Runtime over requested time.
fn estimates(jobs: &[LogJob], csvs: &mut Csvs<'_>) -> Result<Section, String> {
    const BINS: usize = 20;
    let mut bins = [0u64; BINS];
    let (mut with, mut reached) = (0u64, 0u64);
    for j in jobs {
        let (Some(r), Some(e)) = (j.runtime, j.estimate) else {
            continue;
        };
        with += 1;
        reached += u64::from(r >= e);
        let ratio = r as f64 / e as f64;
        bins[((ratio * BINS as f64) as usize).min(BINS - 1)] += 1;
    }
    let bound = |k: usize| k as f64 / BINS as f64;
    let link = csvs(
        "estimates.csv",
        &["accuracy_from", "accuracy_to", "jobs"],
        (0..BINS)
            .map(|k| vec![sig3(bound(k)), sig3(bound(k + 1)), bins[k].to_string()])
            .collect(),
    )?;
    let figure = page::figure(
        "estimates.svg",
        format!(
            "Estimate accuracy: the share of jobs by runtime over requested time, in bins of \
             {}; the last bin holds the jobs that reached their estimate (or ran past it), \
             {}% of the {} jobs with both.",
            sig3(1.0 / BINS as f64),
            percent(reached as f64 / with.max(1) as f64),
            count(with)
        ),
        chart::bar_chart_svg(&BarChart {
            title: "Estimate accuracy".into(),
            x_label: "runtime / requested time (bin's lower end)".into(),
            y_label: "jobs (%)".into(),
            groups: (0..BINS)
                .map(|k| {
                    if k % 2 == 0 {
                        sig3(bound(k))
                    } else {
                        String::new()
                    }
                })
                .collect(),
            log_y: false,
            zero_line: false,
            series: vec![BarSeries {
                label: "jobs".into(),
                colour: None,
                bars: bins
                    .iter()
                    .map(|&n| {
                        Some(Bar {
                            value: 100.0 * n as f64 / with.max(1) as f64,
                            error: 0.0,
                        })
                    })
                    .collect(),
            }],
        }),
    )?;
    Ok(Section {
        title: "Estimates".into(),
        text: format!(
            "How much of their requested time (SWF field 9, the user's estimate) jobs used, \
             over the {} jobs that give both a runtime and an estimate (Tsafrir et al. 2005: \
             the modal model's peaks); {}% reached their estimate.",
            count(with),
            percent(reached as f64 / with.max(1) as f64)
        ),
        tables: Vec::new(),
        figures: figure.into_iter().collect(),
        code: String::new(),
        links: vec![link],
    })
}

/// One series of bars named `groups`, the counts `values`.
fn count_bars(title: &str, x_label: &str, groups: Vec<String>, values: &[u64]) -> BarChart {
    BarChart {
        title: title.into(),
        x_label: x_label.into(),
        y_label: "jobs".into(),
        groups,
        log_y: false,
        zero_line: false,
        series: vec![BarSeries {
            label: "jobs submitted".into(),
            colour: None,
            bars: values
                .iter()
                .map(|&n| {
                    Some(Bar {
                        value: n as f64,
                        error: 0.0,
                    })
                })
                .collect(),
        }],
    }
}

/// Arrivals by local hour and weekday, and jobs per week over the log's calendar.
fn cycles(
    jobs: &[LogJob],
    input: &WorkloadInput<'_>,
    csvs: &mut Csvs<'_>,
) -> Result<Section, String> {
    let clock = input.clock;
    let zone = clock.zone_name();
    let (mut by_hour, mut by_day) = ([0u64; 24], [0u64; 7]);
    for j in jobs {
        let l = clock.local(j.submit);
        by_hour[usize::from(l.hour)] += 1;
        by_day[usize::from(l.weekday)] += 1;
    }
    let mut figures = Vec::new();
    let mut links = vec![
        csvs(
            "hours.csv",
            &["hour", "jobs"],
            (0..24)
                .map(|h| vec![h.to_string(), by_hour[h].to_string()])
                .collect(),
        )?,
        csvs(
            "weekdays.csv",
            &["weekday", "jobs"],
            (0..7)
                .map(|d| vec![WEEKDAYS[d].to_owned(), by_day[d].to_string()])
                .collect(),
        )?,
    ];
    figures.extend(page::figure(
        "hours.svg",
        format!("Jobs submitted by hour of the day, local time ({zone}), over the whole log."),
        chart::bar_chart_svg(&count_bars(
            "Arrivals by hour of the day",
            &format!("hour ({zone})"),
            (0..24).map(|h| h.to_string()).collect(),
            &by_hour,
        )),
    )?);
    figures.extend(page::figure(
        "weekdays.svg",
        format!("Jobs submitted by day of the week, local time ({zone}), over the whole log."),
        chart::bar_chart_svg(&count_bars(
            "Arrivals by day of the week",
            "day of the week",
            WEEKDAYS.iter().map(|d| d.to_string()).collect(),
            &by_day,
        )),
    )?);
    // Jobs per week: weeks from the first submission; with a calendar, each week at its
    // first local day.
    let first = jobs.first().map_or(0, |j| j.submit);
    let mut weeks: BTreeMap<i64, u64> = BTreeMap::new();
    for j in jobs {
        *weeks
            .entry((j.submit - first).div_euclid(WEEK))
            .or_default() += 1;
    }
    let last_week = weeks.keys().next_back().copied().unwrap_or(0);
    let x_of = |w: i64| {
        if input.dated {
            clock.local_day(first + w * WEEK) as f64
        } else {
            w as f64
        }
    };
    let points: Vec<(f64, f64)> = (0..=last_week)
        .map(|w| (x_of(w), weeks.get(&w).copied().unwrap_or(0) as f64))
        .collect();
    let date = |w: i64| clock.civil(first + w * WEEK).date().to_string();
    links.push(csvs(
        "weeks.csv",
        &["week", "first_day", "jobs"],
        (0..=last_week)
            .map(|w| {
                vec![
                    w.to_string(),
                    if input.dated { date(w) } else { String::new() },
                    weeks.get(&w).copied().unwrap_or(0).to_string(),
                ]
            })
            .collect(),
    )?);
    figures.extend(page::figure(
        "weeks.svg",
        if input.dated {
            format!(
                "Jobs submitted per week over the log's calendar ({zone}), each week from the \
                 first submission's day of the week, at its first day."
            )
        } else {
            "Jobs submitted per week, weeks from the first submission (the log gives no \
             UnixStartTime, so no dates)."
                .to_owned()
        },
        chart::line_chart_svg(&LineChart {
            title: "Jobs per week".into(),
            x_label: if input.dated {
                "week's first day".into()
            } else {
                "week of the log".into()
            },
            y_label: "jobs".into(),
            x_ticks: if input.dated {
                XTicks::Dates
            } else {
                XTicks::Numbers
            },
            log_y: false,
            y_from_zero: true,
            series: vec![Series {
                label: "jobs per week".into(),
                points,
            }],
        }),
    )?);
    Ok(Section {
        title: "Daily and weekly cycles".into(),
        text: format!(
            "Submissions in the site's local time ({zone}, from the header's time zone; \
             --time-zone overrides it): the daily and weekly cycles of Talby 2006, §9."
        ),
        tables: Vec::new(),
        figures,
        code: String::new(),
        links,
    })
}

/// Sessions and think times as `analyze` splits the users.
fn sessions(input: &WorkloadInput<'_>, csvs: &mut Csvs<'_>) -> Result<Section, String> {
    let a = input.analysis;
    let mut durations = Vec::new();
    let mut lengths = Vec::new();
    for u in &input.trace.users {
        let mut session: Option<(Time, Time, u64)> = None;
        for j in &u.jobs {
            if j.opens_session
                && let Some((s, e, n)) = session.take()
            {
                durations.push((e - s) as f64 / HOUR as f64);
                lengths.push(n as f64);
            }
            let s = session.get_or_insert((j.submit, j.end, 0));
            s.1 = s.1.max(j.end);
            s.2 += 1;
        }
        if let Some((s, e, n)) = session {
            durations.push((e - s) as f64 / HOUR as f64);
            lengths.push(n as f64);
        }
    }
    durations.sort_by(f64::total_cmp);
    lengths.sort_by(f64::total_cmp);
    let short = durations.partition_point(|&d| d <= 0.0);
    let duration_points = cdf(&durations[short..]);
    let length_points = cdf(&lengths);
    let t = &a.think_times;
    let mut links = vec![
        csvs(
            "session-hours.csv",
            &["session_h", "sessions_at_or_below_pct"],
            cdf_rows(&duration_points),
        )?,
        csvs(
            "session-jobs.csv",
            &["jobs", "sessions_at_or_below_pct"],
            cdf_rows(&length_points),
        )?,
    ];
    links.push(csvs(
        "think-times.csv",
        &["think_time", "jobs"],
        t.ranges
            .iter()
            .map(|(r, n)| vec![r.clone(), n.to_string()])
            .collect(),
    )?);
    let mut figures = Vec::new();
    let session_chart = |title: &str, x_label: &str, label: &str, points| LineChart {
        y_label: "sessions at or below x (%)".into(),
        ..cdf_chart(title, x_label, label.into(), points)
    };
    figures.extend(page::figure(
        "think-times.svg",
        format!(
            "Think times (a job's submission minus the end of its user's previous job; \
             negative: submitted while it ran) of the {} jobs that have one (every job but \
             each user's first), by range.",
            count(t.jobs)
        ),
        chart::bar_chart_svg(&BarChart {
            title: "Think times".into(),
            x_label: "think time".into(),
            y_label: "jobs (%)".into(),
            groups: t.ranges.iter().map(|r| r.0.clone()).collect(),
            log_y: false,
            zero_line: false,
            series: vec![BarSeries {
                label: "jobs".into(),
                colour: None,
                bars: t
                    .ranges
                    .iter()
                    .map(|r| {
                        Some(Bar {
                            value: 100.0 * r.1 as f64 / t.jobs.max(1) as f64,
                            error: 0.0,
                        })
                    })
                    .collect(),
            }],
        }),
    )?);
    figures.extend(page::figure(
        "session-hours.svg",
        format!(
            "Session lengths, from the session's first submission to its last job's end, \
             hours (log scale), over {} sessions ({} of 0 s left out).",
            count((durations.len() - short) as u64),
            count(short as u64)
        ),
        chart::line_chart_svg(&session_chart(
            "Session length",
            "session length (h, log scale)",
            "sessions",
            duration_points,
        )),
    )?);
    figures.extend(page::figure(
        "session-jobs.svg",
        format!(
            "Jobs per session (log scale), over {} sessions.",
            count(lengths.len() as u64)
        ),
        chart::line_chart_svg(&session_chart(
            "Jobs per session",
            "jobs in the session (log scale)",
            "sessions",
            length_points,
        )),
    )?);
    let hms = |s: f64| format!("{:.2}", s / HOUR as f64);
    let spread_row = |name: &str, s: &crate::metrics::Spread, time: bool| {
        let v = |x: f64| if time { hms(x) } else { sig3(x) };
        vec![
            name.to_owned(),
            count(s.count),
            v(s.mean),
            v(s.median as f64),
            v(s.p90 as f64),
            v(s.max as f64),
        ]
    };
    let table = Table {
        head: [
            "quantity",
            "count",
            "mean",
            "median",
            "90th percentile",
            "maximum",
        ]
        .map(String::from)
        .to_vec(),
        rows: vec![
            spread_row("sessions per user", &a.sessions_per_user, false),
            spread_row("jobs per session", &a.jobs_per_session, false),
            spread_row("session length (h)", &a.session_duration, true),
            spread_row("think time within sessions (h)", &t.within_sessions, true),
        ],
    };
    Ok(Section {
        title: "Users' sessions".into(),
        text: format!(
            "Each user's jobs split into sessions at think times over {} minutes, and think \
             times, as in Feitelson 2021, §3.4 (sitesim analyze prints the same figures and \
             the continuation curve, Fig. 18); {} sessions of {} users.",
            input.trace.config.threshold / 60,
            count(a.sessions),
            count(a.users)
        ),
        tables: vec![table],
        figures,
        code: String::new(),
        links,
    })
}

/// The users with the most processor-hours, and their jobs.
fn users(jobs: &[LogJob], csvs: &mut Csvs<'_>) -> Result<Section, String> {
    const TOP: usize = 10;
    let mut by_user: BTreeMap<i64, (u64, f64)> = BTreeMap::new();
    for j in jobs {
        let e = by_user.entry(j.user).or_default();
        e.0 += 1;
        e.1 += match (j.runtime, j.procs) {
            (Some(r), Some(p)) => r as f64 * f64::from(p) / HOUR as f64,
            _ => 0.0,
        };
    }
    let total_jobs = jobs.len() as f64;
    let total_hours: f64 = by_user.values().map(|u| u.1).sum();
    let mut ranked: Vec<(i64, u64, f64)> = by_user.iter().map(|(&u, &(n, h))| (u, n, h)).collect();
    ranked.sort_by(|a, b| b.2.total_cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    let row = |&(u, n, h): &(i64, u64, f64)| {
        vec![
            u.to_string(),
            count(n),
            percent(n as f64 / total_jobs),
            format!("{h:.1}"),
            percent(h / total_hours.max(f64::MIN_POSITIVE)),
        ]
    };
    let link = csvs(
        "users.csv",
        &[
            "user",
            "jobs",
            "jobs_pct",
            "processor_hours",
            "processor_hours_pct",
        ],
        ranked
            .iter()
            .map(|r| {
                let mut cells = row(r);
                cells[1] = r.1.to_string();
                cells
            })
            .collect(),
    )?;
    let top = &ranked[..ranked.len().min(TOP)];
    let share_bars = |f: &dyn Fn(&(i64, u64, f64)) -> f64| {
        top.iter()
            .map(|u| {
                Some(Bar {
                    value: f(u),
                    error: 0.0,
                })
            })
            .collect()
    };
    let figure = page::figure(
        "users.svg",
        format!(
            "The {} users with the most processor-hours: their share of the log's \
             processor-hours and of its jobs (%).",
            top.len()
        ),
        chart::bar_chart_svg(&BarChart {
            title: "Top users".into(),
            x_label: "user".into(),
            y_label: "share of the log (%)".into(),
            groups: top.iter().map(|u| u.0.to_string()).collect(),
            log_y: false,
            zero_line: false,
            series: vec![
                BarSeries {
                    label: "processor-hours".into(),
                    colour: None,
                    bars: share_bars(&|u| 100.0 * u.2 / total_hours.max(f64::MIN_POSITIVE)),
                },
                BarSeries {
                    label: "jobs".into(),
                    colour: None,
                    bars: share_bars(&|u| 100.0 * u.1 as f64 / total_jobs),
                },
            ],
        }),
    )?;
    Ok(Section {
        title: "Top users".into(),
        text: format!(
            "The {} users with the most processor-hours (runtime times processors) of {}; \
             users.csv has every user.",
            top.len(),
            count(ranked.len() as u64)
        ),
        tables: vec![Table {
            head: [
                "user",
                "jobs",
                "jobs (%)",
                "processor-hours",
                "processor-hours (%)",
            ]
            .map(String::from)
            .to_vec(),
            rows: top.iter().map(row).collect(),
        }],
        figures: figure.into_iter().collect::<Vec<Figure>>(),
        code: String::new(),
        links: vec![link],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_distribution_rises_to_every_value() {
        let points = cdf(&[1.0, 10.0, 10.0, 100.0]);
        assert_eq!(points.first(), Some(&(0.0, 25.0)));
        assert_eq!(points.last(), Some(&(2.0, 100.0)));
        let at_ten = points.iter().find(|p| (p.0 - 1.0).abs() < 1e-9).unwrap();
        assert_eq!(at_ten.1, 75.0);
        assert!(cdf(&[]).is_empty());
    }
}
