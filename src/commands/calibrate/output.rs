//! The calibration's outputs: the text of `sitesim calibrate`, `calibrate.csv`,
//! `users.csv` and `calibrate.json`, and with them its report (`crate::report`).

use std::fmt::Write as _;
use std::path::Path;

use super::{CalibrateSummary, Figures, ResampledRow};
use crate::commands::feedback::render_drift;
use crate::commands::resample::render_mean_lateness;
use crate::results::RunError;
use crate::results::metric::MetricStats;
use crate::results::output::write_atomic;
use crate::textfmt::{hours, percent, with_interval};
use crate::time::{HOUR, Hms};
use crate::users::pools::Pool;

/// Users the text lists, by their share of the resampled waits.
const TOP_USERS: usize = 10;

/// `x ± ci` of a metric ([`scaled`] by 1).
fn stat(s: Option<&MetricStats>) -> String {
    scaled(s, 1.0)
}

/// The mean ± its 95% CI times `factor` (seconds to hours, shares to percents), to two
/// significant digits of the interval ([`with_interval`]).
fn scaled(s: Option<&MetricStats>, factor: f64) -> String {
    s.map_or("-".into(), |s| {
        with_interval(s.mean * factor, s.ci95 * factor)
    })
}

/// The calibration as text.
pub fn render_calibrate(s: &CalibrateSummary) -> String {
    let mut w = String::new();
    let _ = writeln!(
        w,
        "calibration of {} on {} processors against {}: {} replications of {} weeks \
         ({}) per resampled row{}",
        s.source.input,
        s.run.procs,
        s.run.scheduler,
        s.run.replications_asked,
        s.source.weeks,
        crate::time::warm_up(s.run.warmup),
        if s.run.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    );
    let _ = writeln!(w, "  machine      {}", s.source.machine.render());
    let _ = writeln!(
        w,
        "  {:<36} {:>16} {:>20} {:>15} {:>18} {:>14} {:>14}",
        "",
        "jobs/week",
        "processor-h/week",
        "utilization (%)",
        "mean wait (h)",
        "jobs/session",
        "session (h)"
    );
    let single = |w: &mut String, name: &str, f: &Figures, note: &str| {
        let _ = writeln!(
            w,
            "  {:<36} {:>16.1} {:>20.0} {:>15.2} {:>18.3} {:>14} {:>14}{note}",
            name,
            f.jobs_per_week,
            f.proc_hours_per_week,
            100.0 * f.utilization,
            f.mean_wait / HOUR as f64,
            if f.jobs_per_session.is_finite() {
                format!("{:.2}", f.jobs_per_session)
            } else {
                "-".into()
            },
            if f.session_hours.is_finite() {
                format!("{:.1}", f.session_hours)
            } else {
                "-".into()
            },
        );
    };
    single(&mut w, "the log", &s.log, "  (offered load; logged waits)");
    single(
        &mut w,
        &format!("open-loop replay, {}", s.run.scheduler),
        &s.replay,
        "",
    );
    let _ = writeln!(
        w,
        "  {:<36} {:>16.1} {:>20.0}   (over the log's span)",
        "feedback replay, the log's service",
        s.identity.jobs_per_week,
        s.identity.proc_hours_per_week
    );
    for r in &s.rows {
        let _ = writeln!(
            w,
            "  {:<36} {:>16} {:>20} {:>15} {:>18} {:>14} {:>14}",
            match (r.scheduler.as_str(), r.feedback) {
                ("logged", _) => r.label.clone(),
                (_, true) => format!("resampled, {}, feedback", r.scheduler),
                (_, false) => format!("resampled, {}, no feedback", r.scheduler),
            },
            stat(r.stat("jobs_per_week")),
            stat(r.stat("proc_hours_per_week")),
            scaled(r.stat("utilization"), 100.0),
            scaled(r.stat("mean_wait"), 1.0 / HOUR as f64),
            stat(r.stat("jobs_per_session")),
            stat(r.stat("session_hours")),
        );
    }
    if !s.rows.is_empty() {
        let _ = writeln!(
            w,
            "  {:<36} (± is the half-width of the mean's 95% confidence interval over the replications)",
            ""
        );
    }
    let _ = writeln!(
        w,
        "  identity     the log's own service, fed back: {}",
        render_drift(&s.identity.drift)
    );
    if let Some(l) = s.logged() {
        let _ = writeln!(
            w,
            "  resampling   under the log's own service: jobs/week {:+.1}%, processor-hours/week {:+.1}% \
             against the log",
            100.0 * l.jobs_per_week_change,
            100.0 * l.proc_hours_per_week_change
        );
    }
    if let (Some(l), Some(f)) = (s.logged(), s.under_scheduler(true)) {
        let wait = |r: &ResampledRow| r.stat("mean_wait").map_or(f64::NAN, |m| m.mean);
        let jobs = f.drift.on_time + f.drift.early() + f.drift.late();
        let pct = |n: u64| 100.0 * n as f64 / jobs.max(1) as f64;
        let _ = writeln!(
            w,
            "  under {}    throughput {:+.1}% against the log ({:+.1}% against its own service): \
             jobs wait {} on average against {} under the log's service; {:.1}% of \
             jobs came before their logged time (up to {}), {:.1}% after (up to {})",
            f.scheduler,
            100.0 * f.jobs_per_week_change,
            100.0 * ((1.0 + f.jobs_per_week_change) / (1.0 + l.jobs_per_week_change) - 1.0),
            hours(wait(f)),
            hours(wait(l)),
            pct(f.drift.early()),
            Hms(f.drift.max_lead),
            pct(f.drift.late()),
            Hms(f.drift.max_lateness),
        );
    }
    for r in s.rows.iter().filter(|r| r.feedback) {
        let _ = writeln!(
            w,
            "  lateness     resampled, {}: {}",
            r.scheduler,
            render_mean_lateness(&r.replications)
        );
    }
    for (name, p) in [
        ("without feedback", &s.wait_without_feedback),
        ("with feedback", &s.wait_with_feedback),
    ] {
        if let Some(p) = p {
            let _ = writeln!(
                w,
                "  Fig. 15      the log replayed open-loop waits {} on average: percentile {:.0} of \
                 the resampled runs {name} (body {} to {}): {}",
                hours(s.replay.mean_wait),
                100.0 * p.percentile,
                hours(p.body.0),
                hours(p.body.1),
                if p.inside { "inside" } else { "OUTSIDE" }
            );
        }
    }
    for l in &s.weekly_load {
        let _ = writeln!(
            w,
            "  weekly load  {:<28} {} weeks: mean {}, median {}, p90 {}, max {}; {} \
             ({:.1}%) above the machine's capacity, {} ({:.1}%) busier than the log's busiest",
            l.label,
            l.weeks,
            percent(l.mean),
            percent(l.median),
            percent(l.p90),
            percent(l.max),
            l.over_capacity,
            100.0 * l.over_capacity as f64 / l.weeks.max(1) as f64,
            l.above_log_max,
            100.0 * l.above_log_max as f64 / l.weeks.max(1) as f64,
        );
    }
    let _ = writeln!(
        w,
        "  users        largest shares of the resampled waits (no feedback), as % of each total \
         (busy weeks: the work of weeks busier than the log's busiest):"
    );
    let _ = writeln!(
        w,
        "    {:>8} {:<10} {:>8} {:>8} {:>10} {:>12} {:>10} {:>10} {:>10} {:>10}",
        "user",
        "pool",
        "log jobs",
        "log work",
        "log wait",
        "jobs/replic.",
        "work",
        "wait",
        "busy weeks",
        "fb wait"
    );
    for c in s.contributions.iter().take(TOP_USERS) {
        let _ = writeln!(
            w,
            "    {:>8} {:<10} {:>7.1}% {:>7.1}% {:>9.1}% {:>12.0} {:>9.1}% {:>9.1}% {:>9.1}% {:>9.1}%{}",
            c.user,
            match c.pool {
                Pool::LongTerm => "long-term",
                Pool::Temporary => "temporary",
                Pool::Excluded => "excluded",
            },
            100.0 * c.log_jobs,
            100.0 * c.log_work,
            100.0 * c.replay_wait,
            c.resampled_jobs,
            100.0 * c.resampled_work,
            100.0 * c.resampled_wait,
            100.0 * c.overload_work,
            100.0 * c.feedback_wait,
            if c.flurry { "  flurry" } else { "" }
        );
    }
    let outside = [&s.wait_without_feedback, &s.wait_with_feedback]
        .iter()
        .any(|p| p.is_some_and(|p| !p.inside));
    if outside {
        let _ = writeln!(
            w,
            "  remedies     (Feitelson 2021) feedback; --weight USER=W to down-weight (W < 1) or \
             leave out (0) a user; --flurry-weight W for every user with a flurry"
        );
    }
    w
}

/// The columns of `calibrate.csv`.
const CSV_COLUMNS: [&str; 17] = [
    "row",
    "scheduler",
    "feedback",
    "replications",
    "jobs_per_week",
    "jobs_per_week_ci95",
    "proc_hours_per_week",
    "proc_hours_per_week_ci95",
    "utilization",
    "utilization_ci95",
    "mean_wait",
    "mean_wait_ci95",
    "jobs_per_session",
    "session_hours",
    "jobs_per_week_change",
    "early",
    "late",
];

/// `records` as CSV (fields quoted where they need it: labels hold commas).
fn to_csv<const N: usize>(header: [&str; N], records: Vec<[String; N]>) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let written: csv::Result<()> = std::iter::once(header.map(str::to_owned))
        .chain(records)
        .try_for_each(|r| w.write_record(&r));
    written.expect("writing to memory cannot fail");
    w.into_inner().expect("writing to memory cannot fail")
}

/// The rows as CSV: the log, its open-loop replay, its feedback replay under its own
/// service, and the resampled rows (empty cells where a figure does not apply).
fn rows_csv(s: &CalibrateSummary) -> Vec<u8> {
    let n = |v: f64| v.to_string();
    let f = &s.log;
    let mut records = vec![[
        "log".into(),
        String::new(),
        String::new(),
        "0".into(),
        n(f.jobs_per_week),
        "0".into(),
        n(f.proc_hours_per_week),
        "0".into(),
        n(f.utilization),
        "0".into(),
        n(f.mean_wait),
        "0".into(),
        n(f.jobs_per_session),
        n(f.session_hours),
        "0".into(),
        "0".into(),
        "0".into(),
    ]];
    let r = &s.replay;
    records.push([
        "open-loop replay".into(),
        s.run.scheduler.clone(),
        "false".into(),
        "1".into(),
        n(r.jobs_per_week),
        "0".into(),
        n(r.proc_hours_per_week),
        "0".into(),
        n(r.utilization),
        "0".into(),
        n(r.mean_wait),
        "0".into(),
        String::new(),
        String::new(),
        n(r.jobs_per_week / f.jobs_per_week - 1.0),
        "0".into(),
        "0".into(),
    ]);
    let i = &s.identity;
    records.push([
        "feedback replay".into(),
        "logged".into(),
        "true".into(),
        "1".into(),
        n(i.jobs_per_week),
        "0".into(),
        n(i.proc_hours_per_week),
        "0".into(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        n(i.jobs_per_week / f.jobs_per_week - 1.0),
        i.drift.early().to_string(),
        i.drift.late().to_string(),
    ]);
    for row in &s.rows {
        let m = |k: &str| {
            row.stat(k)
                .map_or((f64::NAN, f64::NAN), |x| (x.mean, x.ci95))
        };
        let (j, jc) = m("jobs_per_week");
        let (p, pc) = m("proc_hours_per_week");
        let (u, uc) = m("utilization");
        let (mw, mwc) = m("mean_wait");
        records.push([
            row.label.clone(),
            row.scheduler.clone(),
            row.feedback.to_string(),
            row.replications.len().to_string(),
            n(j),
            n(jc),
            n(p),
            n(pc),
            n(u),
            n(uc),
            n(mw),
            n(mwc),
            n(m("jobs_per_session").0),
            n(m("session_hours").0),
            n(row.jobs_per_week_change),
            row.drift.early().to_string(),
            row.drift.late().to_string(),
        ]);
    }
    to_csv(CSV_COLUMNS, records)
}

/// Every user's part as CSV.
fn users_csv(s: &CalibrateSummary) -> Vec<u8> {
    let records = s
        .contributions
        .iter()
        .map(|c| {
            [
                c.user.to_string(),
                serde_json::to_value(c.pool)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                c.flurry.to_string(),
                c.log_jobs.to_string(),
                c.log_work.to_string(),
                c.replay_wait.to_string(),
                c.resampled_jobs.to_string(),
                c.resampled_work.to_string(),
                c.resampled_wait.to_string(),
                c.overload_work.to_string(),
                c.feedback_wait.to_string(),
            ]
        })
        .collect();
    to_csv(
        [
            "user",
            "pool",
            "flurry",
            "log_jobs",
            "log_work",
            "replay_wait",
            "resampled_jobs",
            "resampled_work",
            "resampled_wait",
            "overload_work",
            "feedback_wait",
        ],
        records,
    )
}

/// Writes `calibrate.json`, `calibrate.csv`, `users.csv` into `dir` and the report
/// (`report/index.html` with its histograms: [`crate::report::write_calibration_report`]).
pub fn write_calibrate(dir: &Path, s: &CalibrateSummary) -> Result<(), RunError> {
    let io = |p: &Path, source: std::io::Error| RunError::Output {
        path: p.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let json = serde_json::to_string_pretty(s)
        .map_err(|e| RunError::Options(format!("calibrate.json: {e}")))?;
    for (name, bytes) in [
        ("calibrate.json", (json + "\n").into_bytes()),
        ("calibrate.csv", rows_csv(s)),
        ("users.csv", users_csv(s)),
    ] {
        let p = dir.join(name);
        write_atomic(&p, &bytes).map_err(|e| io(&p, e))?;
    }
    crate::report::write_calibration_report(dir)
        .map(|_| ())
        .map_err(RunError::Options)
}
