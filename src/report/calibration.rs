//! The report of a calibration (`calibrate.json`, written by `sitesim calibrate --out`):
//! the log, its replay and the resampled rows side by side in one unit per quantity,
//! where the log's replay falls among the resampled runs (Feitelson 2021, Fig. 15), their
//! throughput (Fig. 17), the weekly offered load and the users with the largest shares
//! of the waits. Written to `DIR/report/` (`index.html` and its SVGs) by `calibrate`
//! as it runs and by `sitesim report DIR`, from `calibrate.json` alone.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::page::{self, Link, Page, Section, Table, count, hours, percent, sig3};
use crate::plot::chart::{self, Histogram};
use crate::results::metric::{JOBS_PER_WEEK, MEAN_WAIT, Metric};
use crate::textfmt::with_interval;

/// The users the page lists, by their share of the resampled waits.
const TOP_USERS: usize = 10;

/// A number of `v`, `NaN` when it is none (a figure that does not apply).
fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// A cell of `v` by `show`, `—` when it is not a finite number.
fn cell(v: f64, show: impl Fn(f64) -> String) -> String {
    if v.is_finite() { show(v) } else { "—".into() }
}

/// The statistics of `metric` in a resampled row of `calibrate.json`.
fn stat<'a>(row: &'a Value, metric: &str) -> Option<&'a Value> {
    row["stats"]
        .as_array()?
        .iter()
        .find(|s| s["metric"].as_str() == Some(metric))
}

/// `mean ± ci` of `metric` in `row`, times `factor`.
fn mean_ci(row: &Value, metric: &str, factor: f64) -> String {
    stat(row, metric).map_or_else(
        || "—".into(),
        |s| with_interval(num(&s["mean"]) * factor, num(&s["ci95"]) * factor),
    )
}

/// The histogram of `metric` over a row's replications, in the metric's unit, with
/// `marks` given as stored.
fn histogram(
    row: &Value,
    metric: &Metric,
    title: String,
    marks: Vec<(f64, String)>,
) -> Option<Histogram> {
    let s = stat(row, metric.name)?;
    let f = metric.scale().factor;
    let bins: Vec<(f64, f64, f64)> = s["histogram"]
        .as_array()?
        .iter()
        .map(|b| (num(&b["lo"]) * f, num(&b["hi"]) * f, num(&b["count"])))
        .filter(|b| b.0.is_finite() && b.1.is_finite() && b.2.is_finite())
        .collect();
    Some(Histogram {
        title,
        x_label: metric.label(metric.scale()),
        y_label: "replications".into(),
        bins,
        marks: marks
            .into_iter()
            .filter(|(v, _)| v.is_finite())
            .map(|(v, l)| (v * f, l))
            .collect(),
    })
}

/// What a resampled row is, from its label, scheduler and feedback.
fn row_name(row: &Value) -> String {
    let scheduler = row["scheduler"].as_str().unwrap_or("?");
    match (scheduler, row["feedback"].as_bool().unwrap_or(false)) {
        ("logged", _) => row["label"].as_str().unwrap_or("resampled").to_owned(),
        (s, true) => format!("resampled, {s}, feedback"),
        (s, false) => format!("resampled, {s}, no feedback"),
    }
}

/// Writes the report of the calibration in `dir` into `out`; the files written.
pub fn write_report(dir: &Path, out: &Path) -> Result<Vec<PathBuf>, String> {
    let path = dir.join("calibrate.json");
    let bytes = crate::results::input::read(&path, crate::results::input::MAX_JSON)?;
    let s: Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if !s.is_object() {
        return Err(format!("{}: not a calibration's summary", path.display()));
    }
    let scheduler = s["scheduler"].as_str().unwrap_or("?").to_owned();
    let input = s["input"].as_str().unwrap_or("?");
    let log = Path::new(input)
        .file_name()
        .map_or(input.to_owned(), |f| f.to_string_lossy().into_owned());
    let rows: Vec<&Value> = s["rows"]
        .as_array()
        .map_or(Vec::new(), |r| r.iter().collect());

    // The rows side by side.
    let single = |name: String, f: &Value, note: &str| {
        vec![
            name,
            cell(num(&f["jobs_per_week"]), |v| format!("{v:.1}")),
            cell(num(&f["proc_hours_per_week"]), |v| format!("{v:.0}")),
            cell(num(&f["utilization"]), percent),
            cell(num(&f["mean_wait"]), hours),
            cell(num(&f["jobs_per_session"]), |v| format!("{v:.2}")),
            cell(num(&f["session_hours"]), |v| format!("{v:.1}")),
            note.to_owned(),
        ]
    };
    let mut table = vec![
        single("the log".into(), &s["log"], "offered load; logged waits"),
        single(format!("open-loop replay, {scheduler}"), &s["replay"], ""),
        single(
            "feedback replay, the log's own service".into(),
            &s["identity"],
            "over the log's span",
        ),
    ];
    for row in &rows {
        table.push(vec![
            row_name(row),
            mean_ci(row, "jobs_per_week", 1.0),
            mean_ci(row, "proc_hours_per_week", 1.0),
            mean_ci(row, "utilization", 100.0),
            mean_ci(row, "mean_wait", 1.0 / 3600.0),
            mean_ci(row, "jobs_per_session", 1.0),
            mean_ci(row, "session_hours", 1.0),
            format!(
                "{} replications",
                row["replications"].as_array().map_or(0, Vec::len)
            ),
        ]);
    }
    let head = [
        "",
        "throughput (jobs/week)",
        "work done (processor-hours/week)",
        "utilization (%)",
        "mean wait (h)",
        "jobs per session",
        "mean session length (h)",
        "",
    ];
    let drift = &s["identity"]["drift"];
    let mut sections = vec![Section {
        title: "The log, its replay and resampled populations".into(),
        text: format!(
            "The log's own figures; the log replayed open-loop under {scheduler}; its users \
             fed back the log's own service (the identity: {} jobs at their logged time, {} \
             early, {} late); and populations resampled from its users under the log's own \
             service, under {scheduler} with feedback and without. A resampled row is the \
             mean over its replications ± the half-width of its 95% confidence interval \
             (Student's t).",
            count(drift["on_time"].as_u64().unwrap_or(0)),
            count(drift["early"].as_u64().unwrap_or(0)),
            count(drift["late"].as_u64().unwrap_or(0)),
        ),
        tables: vec![Table {
            head: head.iter().map(|h| h.to_string()).collect(),
            rows: table,
        }],
        figures: Vec::new(),
        code: String::new(),
        links: vec![
            Link {
                href: "../calibrate.csv".into(),
                text: "calibrate.csv".into(),
            },
            Link {
                href: "../calibrate.json".into(),
                text: "calibrate.json".into(),
            },
        ],
    }];

    // Fig. 15: the replay's mean wait among the resampled runs'.
    let replay_wait = num(&s["replay"]["mean_wait"]);
    let mut placed = Vec::new();
    let mut wait_figures = Vec::new();
    for (key, feedback, file) in [
        ("wait_without_feedback", false, "wait-without-feedback.svg"),
        ("wait_with_feedback", true, "wait-with-feedback.svg"),
    ] {
        let p = &s[key];
        if p.is_object() {
            placed.push(format!(
                "{}: percentile {:.0} of the resampled runs (body {} h to {} h), {}",
                if feedback {
                    "with feedback"
                } else {
                    "without feedback"
                },
                100.0 * num(&p["percentile"]),
                cell(num(&p["body"][0]), hours),
                cell(num(&p["body"][1]), hours),
                if p["inside"].as_bool() == Some(true) {
                    "inside"
                } else {
                    "outside"
                }
            ));
        }
        let row = rows.iter().find(|r| {
            r["scheduler"].as_str() != Some("logged") && r["feedback"].as_bool() == Some(feedback)
        });
        if let Some(row) = row
            && let Some(h) = histogram(
                row,
                &MEAN_WAIT,
                format!(
                    "Mean wait of {} resampled workloads under {}, {}",
                    row["replications"].as_array().map_or(0, Vec::len),
                    row["scheduler"].as_str().unwrap_or("?"),
                    if feedback {
                        "with feedback"
                    } else {
                        "without feedback"
                    }
                ),
                vec![(replay_wait, format!("the log replayed under {scheduler}"))],
            )
        {
            wait_figures.extend(page::figure(
                file,
                format!(
                    "The mean wait (h) of each resampled workload under {scheduler} {}; the \
                     line marks the log's open-loop replay (Feitelson 2021, Fig. 15).",
                    if feedback {
                        "with feedback"
                    } else {
                        "without feedback"
                    }
                ),
                chart::histogram_svg(&h, None),
            )?);
        }
    }
    sections.push(Section {
        title: "Where the log's replay falls (Fig. 15)".into(),
        text: format!(
            "The log replayed open-loop waits {} h on average; among the resampled runs' \
             mean waits, {}. The body is the central 95% of the runs.",
            cell(replay_wait, hours),
            if placed.is_empty() {
                "no resampled run".into()
            } else {
                placed.join("; ")
            }
        ),
        figures: wait_figures,
        ..Section::default()
    });

    // Fig. 17: throughput over the replications of each row.
    let mut throughput = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let title = format!(
            "Jobs per week of {} resampled workloads: {}",
            row["replications"].as_array().map_or(0, Vec::len),
            row_name(row)
        );
        let marks = vec![(num(&s["log"]["jobs_per_week"]), "the log".to_owned())];
        if let Some(h) = histogram(row, &JOBS_PER_WEEK, title, marks) {
            throughput.extend(page::figure(
                [
                    "throughput-logged.svg",
                    "throughput-feedback.svg",
                    "throughput-no-feedback.svg",
                ][i.min(2)],
                format!(
                    "Throughput (jobs/week) of each resampled workload, {}; the line marks the \
                     log's (Feitelson 2021, Fig. 17).",
                    row_name(row)
                ),
                chart::histogram_svg(&h, None),
            )?);
        }
    }
    sections.push(Section {
        title: "Throughput (Fig. 17)".into(),
        figures: throughput,
        ..Section::default()
    });

    // The weekly offered load.
    let loads: Vec<Vec<String>> = s["weekly_load"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|l| {
            let weeks = l["weeks"].as_u64().unwrap_or(0);
            let share = |n: u64| percent(n as f64 / weeks.max(1) as f64);
            vec![
                l["label"].as_str().unwrap_or("?").to_owned(),
                count(weeks),
                cell(num(&l["mean"]), percent),
                cell(num(&l["median"]), percent),
                cell(num(&l["p90"]), percent),
                cell(num(&l["max"]), percent),
                share(l["over_capacity"].as_u64().unwrap_or(0)),
                share(l["above_log_max"].as_u64().unwrap_or(0)),
            ]
        })
        .collect();
    sections.push(Section {
        title: "Weekly offered load".into(),
        text: "The work submitted in each week over the machine's capacity in the week.".into(),
        tables: vec![Table {
            head: [
                "",
                "weeks",
                "mean (%)",
                "median (%)",
                "90th percentile (%)",
                "maximum (%)",
                "weeks above capacity (%)",
                "weeks busier than the log's busiest (%)",
            ]
            .iter()
            .map(|h| h.to_string())
            .collect(),
            rows: loads,
        }],
        ..Section::default()
    });

    // The users with the largest shares of the resampled waits.
    let users: Vec<Vec<String>> = s["contributions"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .take(TOP_USERS)
        .map(|c| {
            let share = |k: &str| cell(num(&c[k]), percent);
            vec![
                c["user"].as_i64().map_or("?".into(), |u| u.to_string()),
                format!(
                    "{}{}",
                    c["pool"].as_str().unwrap_or("?"),
                    if c["flurry"].as_bool() == Some(true) {
                        ", flurry"
                    } else {
                        ""
                    }
                ),
                share("log_jobs"),
                share("log_work"),
                share("replay_wait"),
                cell(num(&c["resampled_jobs"]), |v| format!("{v:.0}")),
                share("resampled_work"),
                share("resampled_wait"),
                share("overload_work"),
                share("feedback_wait"),
            ]
        })
        .collect();
    sections.push(Section {
        title: "Users".into(),
        text: format!(
            "The {TOP_USERS} log users with the largest shares of the resampled waits without \
             feedback, each share a percentage of its total; busy weeks: the work of the \
             weeks busier than the log's busiest (Feitelson 2021, §3.4). Remedies for a log \
             replay outside the body: feedback; --weight USER=W to down-weight (W < 1) or \
             leave out (0) a user; --flurry-weight W for every user with a flurry."
        ),
        tables: vec![Table {
            head: [
                "user",
                "pool",
                "log jobs (%)",
                "log work (%)",
                "log wait (%)",
                "jobs per replication",
                "work (%)",
                "wait (%)",
                "busy weeks' work (%)",
                "wait with feedback (%)",
            ]
            .iter()
            .map(|h| h.to_string())
            .collect(),
            rows: users,
        }],
        code: String::new(),
        links: vec![Link {
            href: "../users.csv".into(),
            text: "users.csv".into(),
        }],
        ..Section::default()
    });

    let facts = vec![
        ("log".to_owned(), log.clone()),
        ("scheduler".to_owned(), scheduler.clone()),
        (
            "processors".to_owned(),
            s["procs"].as_u64().map_or("?".into(), count),
        ),
        (
            "replications per resampled row".to_owned(),
            s["replications_asked"].as_u64().map_or("?".into(), count),
        ),
        (
            "measured weeks".to_owned(),
            s["weeks"].as_u64().map_or("?".into(), count),
        ),
        (
            "warm-up (weeks)".to_owned(),
            cell(num(&s["warmup"]) / 604_800.0, sig3),
        ),
    ];
    Page {
        title: format!("Calibration of {log} against {scheduler}"),
        version: env!("CARGO_PKG_VERSION"),
        facts,
        sections,
    }
    .write(out)
}
