//! Reproduces the "Replay with feedback" section of `docs/VALIDATION.md`: the tables
//! (printed as Markdown) and the SVG plots.
//!
//! ```text
//! cargo run --release --example feedback_validation -- [LOG] [PLOT_DIR]
//! ```
//!
//! `LOG` defaults to `../shared/workloads/KTH-SP2-1996-2.swf`, `PLOT_DIR` to `docs/img`.

use std::error::Error;
use std::path::{Path, PathBuf};

use sitesim::commands::feedback::{FeedbackOptions, FeedbackSummary, feedback};
use sitesim::commands::options::ContinuationSource;
use sitesim::commands::options::{Reaction, UserOptions};
use sitesim::commands::replay::{ReplayOptions, ReplaySummary, machine_size, replay};
use sitesim::metrics::Week;
use sitesim::plot::chart::{LineChart, Series, XTicks, line_chart_svg};
use sitesim::results::output::write_atomic;
use sitesim::sched::Policy;
use sitesim::swf::{LogSource, SwfReader};
use sitesim::time::{DAY, HOUR, WEEK};
use sitesim::workload::trace::{MissingWaits, Trace, TraceConfig};
use sitesim::workload::{LogReplay, ReplayConfig};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn run_feedback(
    log: &Path,
    policy: Policy,
    procs: u32,
    continuation: bool,
    out: Option<PathBuf>,
) -> Result<FeedbackSummary> {
    let opts = FeedbackOptions {
        run: ReplayOptions {
            policy: policy.into(),
            procs: Some(procs),
            out,
            check: false,
            ..ReplayOptions::default()
        },
        users: UserOptions {
            reaction: Reaction {
                continuation: if continuation {
                    ContinuationSource::Fit
                } else {
                    ContinuationSource::Off
                },
                ..Reaction::default()
            },
            ..UserOptions::default()
        },
    };
    Ok(feedback(&LogSource::file(log)?, &opts)?)
}

fn run_replay(
    log: &Path,
    policy: Policy,
    procs: Option<u32>,
    out: Option<PathBuf>,
) -> Result<ReplaySummary> {
    let opts = ReplayOptions {
        policy: policy.into(),
        procs,
        out,
        check: false,
        ..ReplayOptions::default()
    };
    Ok(replay(&LogSource::file(log)?, &opts)?)
}

/// Jobs ended per week of the log, counted from its first submission as the runs count.
fn log_weekly(log: &Path, procs: u32) -> Result<Vec<u64>> {
    let mut replay = LogReplay::new(
        SwfReader::open(log)?,
        &log.display().to_string(),
        ReplayConfig {
            procs,
            policies: Default::default(),
            interarrival_factor: 1.0,
            max_runtime: None,
            keep_records: false,
        },
    );
    let trace = Trace::read(&mut replay, TraceConfig::default(), MissingWaits::Refuse)?;
    let mut weeks = Vec::new();
    for j in trace.users.iter().flat_map(|u| &u.jobs) {
        let w = ((j.end - trace.span.0) / WEEK) as usize;
        if weeks.len() <= w {
            weeks.resize(w + 1, 0);
        }
        weeks[w] += 1;
    }
    Ok(weeks)
}

/// Cumulative thousands of jobs ended at the end of each week.
fn cumulative(weeks: impl Iterator<Item = u64>) -> Vec<(f64, f64)> {
    let mut total = 0;
    weeks
        .enumerate()
        .map(|(w, n)| {
            total += n;
            ((w + 1) as f64, total as f64 / 1000.0)
        })
        .collect()
}

/// The largest lead and the largest lag (as a positive count) of a run's cumulative
/// completed jobs over the log's, in jobs, with the week each occurs in (0 when never).
fn lead(log: &[(f64, f64)], run: &[(f64, f64)]) -> ((i64, usize), (i64, usize)) {
    let at = |s: &[(f64, f64)], i: usize| s.get(i).or(s.last()).map_or(0.0, |p| p.1);
    let (mut ahead, mut behind) = ((0, 0), (0, 0));
    for i in 0..log.len().max(run.len()) {
        let d = ((at(run, i) - at(log, i)) * 1000.0).round() as i64;
        if d > ahead.0 {
            ahead = (d, i + 1);
        }
        if -d > behind.0 {
            behind = (-d, i + 1);
        }
    }
    (ahead, behind)
}

fn jobs(weekly: &[Week]) -> impl Iterator<Item = u64> + '_ {
    weekly.iter().map(|w| w.jobs)
}

/// `(submit, wait)` of every job of a `jobs.csv`.
fn waits(csv: &Path) -> Result<Vec<(i64, i64)>> {
    let text = std::fs::read_to_string(csv)?;
    let mut rows = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.splitn(6, ',').collect();
        rows.push((f[3].parse()?, f[4].parse()?));
    }
    Ok(rows)
}

/// Mean wait in hours of the jobs submitted in each week.
fn weekly_wait(rows: &[(i64, i64)]) -> Vec<(f64, f64)> {
    let first = rows.iter().map(|r| r.0).min().unwrap_or(0);
    let mut sums: Vec<(f64, u64)> = Vec::new();
    for &(submit, wait) in rows {
        let w = ((submit - first) / WEEK) as usize;
        if sums.len() <= w {
            sums.resize(w + 1, (0.0, 0));
        }
        sums[w].0 += wait as f64;
        sums[w].1 += 1;
    }
    sums.iter()
        .enumerate()
        .filter(|(_, s)| s.1 > 0)
        .map(|(w, s)| (w as f64, s.0 / s.1 as f64 / HOUR as f64))
        .collect()
}

fn upper(p: Policy) -> String {
    p.name().to_uppercase()
}

fn hms(seconds: f64) -> String {
    let s = seconds.round() as i64;
    let sign = if s < 0 { "-" } else { "" };
    let s = s.abs();
    format!("{sign}{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log = PathBuf::from(
        args.first()
            .map_or("../shared/workloads/KTH-SP2-1996-2.swf", String::as_str),
    );
    let plots = PathBuf::from(args.get(1).map_or("docs/img", String::as_str));
    if !log.exists() {
        return Err(format!(
            "{}: no such log (the SWF logs live in ../shared/workloads)",
            log.display()
        )
        .into());
    }
    std::fs::create_dir_all(&plots)?;
    let scratch = std::env::temp_dir().join(format!("sitesim-validation-{}", std::process::id()));
    let source = LogSource::file(&log)?;
    let base = machine_size(source.name(), source.header())?;
    let sizes = [base, base * 3 / 2, base * 2];

    println!("### Throughput and sessions, feedback and open-loop\n");
    println!(
        "| policy | processors | run | jobs/week in the log's span | processor-hours/week | \
         utilization | makespan (days) | mean wait (s) | sessions | jobs/session | \
         mean session duration | jobs flowed forward | lateness: median, p99, share over a week |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut runs = Vec::new();
    for policy in [Policy::Easy, Policy::Fcfs] {
        for &procs in &sizes {
            let out = (procs == base).then(|| scratch.join(policy.name()));
            let s = run_feedback(&log, policy, procs, false, out)?;
            let t = &s.span_throughput;
            let l = s.population.lateness;
            println!(
                "| {} | {procs} | feedback | {:.1} | {:.0} | {:.1}% | {:.1} | {:.0} | {} | {:.2} | {} | {} | {}, {}, {:.2}% |",
                policy.name(),
                t.jobs_per_week,
                t.proc_hours_per_week,
                100.0 * s.run.metrics.utilization,
                s.run.metrics.makespan as f64 / DAY as f64,
                s.run.metrics.jobs.wait.mean,
                s.sessions.sessions,
                s.sessions.jobs_per_session.mean,
                hms(s.sessions.duration.mean),
                s.population.jobs.flowed_forward,
                hms(l.median as f64),
                hms(l.p99 as f64),
                100.0 * l.over_week,
            );
            runs.push((policy, procs, s));
        }
        for &procs in &sizes {
            let r = run_replay(&log, policy, Some(procs), None)?;
            let m = &r.metrics;
            println!(
                "| {} | {procs} | open-loop | {:.1} | {:.0} | {:.1}% | {:.1} | {:.0} | | | | | |",
                policy.name(),
                m.throughput.jobs_per_week,
                m.throughput.proc_hours_per_week,
                100.0 * m.utilization,
                m.makespan as f64 / DAY as f64,
                m.jobs.wait.mean,
            );
        }
    }
    let log_figures = &runs[0].2.log;
    println!(
        "| log | {base} | as logged | {:.1} | {:.0} | {:.1}% offered | {:.1} | | {} | {:.2} | {} | | |\n",
        runs[0].2.span_throughput.log_jobs_per_week,
        runs[0].2.span_throughput.log_proc_hours_per_week,
        100.0 * log_figures.offered_load,
        (log_figures.last_submit - log_figures.first_submit) as f64 / DAY as f64,
        log_figures.sessions.sessions,
        log_figures.sessions.jobs_per_session.mean,
        hms(log_figures.sessions.duration.mean),
    );

    println!(
        "### Sessions when users give up after long responses (continuation fitted from the log)\n"
    );
    println!(
        "| policy | jobs/week in the log's span | sessions | jobs/session | mean session duration | \
         median session duration | sessions given up |"
    );
    println!("|---|---|---|---|---|---|---|");
    for policy in [Policy::Easy, Policy::Fcfs] {
        let s = run_feedback(&log, policy, base, true, None)?;
        println!(
            "| {} | {:.1} | {} | {:.2} | {} | {} | {} |",
            policy.name(),
            s.span_throughput.jobs_per_week,
            s.sessions.sessions,
            s.sessions.jobs_per_session.mean,
            hms(s.sessions.duration.mean),
            hms(s.sessions.duration.median as f64),
            s.population.jobs.gave_up,
        );
    }
    println!();

    println!("### Cross-simulation (Feitelson 2021, Figure 8)\n");
    println!(
        "| generated under | replayed open-loop on | mean wait (s) | mean bounded slowdown | \
         utilization | makespan (days) |"
    );
    println!("|---|---|---|---|---|---|");
    let mut cross = Vec::new();
    for generated in [Policy::Easy, Policy::Fcfs] {
        let schedule = scratch.join(generated.name()).join("schedule.swf");
        for on in [Policy::Easy, Policy::Fcfs] {
            let out = scratch.join(format!("{}-on-{}", generated.name(), on.name()));
            let r = run_replay(&schedule, on, None, Some(out.clone()))?;
            let m = &r.metrics;
            println!(
                "| {} | {} | {:.0} | {:.1} | {:.1}% | {:.1} |",
                generated.name(),
                on.name(),
                m.jobs.wait.mean,
                m.jobs.bounded_slowdown.mean,
                100.0 * m.utilization,
                m.makespan as f64 / DAY as f64,
            );
            cross.push(Series {
                label: format!("{} log on {}", upper(generated), upper(on)),
                points: weekly_wait(&waits(&out.join("jobs.csv"))?),
            });
        }
    }
    println!();

    let label = |p: Policy, procs: u32| format!("{} feedback, {procs} processors", upper(p));
    let mut completed = vec![Series {
        label: "log".into(),
        points: cumulative(log_weekly(&log, base)?.into_iter()),
    }];
    for (p, procs, s) in &runs {
        if *p == Policy::Fcfs && *procs != base {
            continue;
        }
        completed.push(Series {
            label: label(*p, *procs),
            points: cumulative(jobs(&s.run.metrics.weekly)),
        });
    }
    println!("### Jobs completed against the log's, at the end of each week\n");
    println!("| run | most ahead (jobs) | in week | most behind (jobs) | in week |");
    println!("|---|---|---|---|---|");
    for run in &completed[1..] {
        let (ahead, behind) = lead(&completed[0].points, &run.points);
        println!(
            "| {} | {} | {} | {} | {} |",
            run.label, ahead.0, ahead.1, behind.0, behind.1
        );
    }
    println!();
    let files = [
        (
            "feedback-completed-jobs.svg",
            LineChart {
                title: "KTH SP2: jobs completed, log and replay with feedback".into(),
                x_label: "weeks since the log's first submission".into(),
                y_label: "jobs completed (thousands)".into(),
                x_ticks: XTicks::Numbers,
                log_y: false,
                y_from_zero: true,
                series: completed,
            },
        ),
        (
            "feedback-queue-by-hour.svg",
            LineChart {
                title: "KTH SP2 with feedback: waiting jobs by hour of day".into(),
                x_label: "hour of day (local time)".into(),
                y_label: "mean jobs waiting".into(),
                x_ticks: XTicks::Numbers,
                log_y: false,
                y_from_zero: true,
                series: by_hour(&runs, base, |p| p.mean_queue),
            },
        ),
        (
            "feedback-utilization-by-hour.svg",
            LineChart {
                title: "KTH SP2 with feedback: utilization by hour of day".into(),
                x_label: "hour of day (local time)".into(),
                y_label: "processors busy (%)".into(),
                x_ticks: XTicks::Numbers,
                log_y: false,
                y_from_zero: true,
                series: by_hour(&runs, base, |p| 100.0 * p.utilization),
            },
        ),
        (
            "cross-simulation-wait.svg",
            LineChart {
                title: "Cross-simulation: generated logs replayed open-loop".into(),
                x_label: "week of submission".into(),
                y_label: "mean wait (hours, log scale)".into(),
                x_ticks: XTicks::Numbers,
                log_y: true,
                y_from_zero: false,
                series: cross,
            },
        ),
    ];
    for (name, chart) in files {
        let path = plots.join(name);
        write_atomic(&path, line_chart_svg(&chart)?.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// One series per policy on the log's machine: a cycle figure by hour of day.
fn by_hour(
    runs: &[(Policy, u32, FeedbackSummary)],
    base: u32,
    figure: impl Fn(&sitesim::metrics::CyclePoint) -> f64,
) -> Vec<Series> {
    runs.iter()
        .filter(|r| r.1 == base)
        .map(|(p, _, s)| Series {
            label: upper(*p),
            points: s
                .cycles
                .by_hour
                .iter()
                .enumerate()
                .map(|(h, c)| (h as f64, figure(c)))
                .collect(),
        })
        .collect()
}
