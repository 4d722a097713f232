//! The response and saturation figures of `docs/VALIDATION.md` ("The response to the
//! service", "Saturation: the loop settles"): how much work resampled users get done as
//! the service runs from instant to four times the log's waits, and as KTH's users are
//! multiplied under EASY over two years.
//!
//! The response curve runs each log with waits resampled at its own size under
//! `logged:scale=S` for S = 0, 0.25, 0.5, 1, 2, 4 (every wait S times the log's), with
//! common random numbers, and gives the paired change from S = 1 in jobs and
//! processor-hours per week. The saturation curve runs KTH's users multiplied by 1 to 8
//! under EASY for 104 weeks and measures the second year: work, utilization, mean wait,
//! the queue's weekly trend, the users who left frustrated and those who replaced them;
//! then five times the users with patience off (nobody leaves).
//!
//! ```text
//! cargo run --release --example response_curve -- [REPLICATIONS] [WORKLOADS_DIR] [PLOT_DIR] [PARTS]
//! ```
//!
//! REPLICATIONS defaults to 40 (KTH: 52 measured weeks; the Curie sample: 26), the
//! saturation curve runs half as many; WORKLOADS_DIR to ../shared/workloads, PLOT_DIR to
//! docs/img; PARTS is `response`, `saturation` or `all` (the default).

use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use sitesim::commands::feedback::FeedbackOptions;
use sitesim::commands::replay::ReplayOptions;
use sitesim::commands::resample::{ResampleOptions, Resampler};
use sitesim::plot::chart::{ErrorLineChart, ErrorSeries, Estimate, error_line_chart_svg};
use sitesim::results::metric::{MetricStats, Replication};
use sitesim::results::output::write_atomic;
use sitesim::swf::LogSource;
use sitesim::time::{HOUR, WEEK};
use sitesim::users::PatienceLimit;
use sitesim::users::pools::PoolConfig;
use sitesim::users::population::PopulationConfig;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The services of the response curve: every logged wait times S.
const SCALES: [f64; 6] = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0];

/// The population factors of the saturation curve.
const POPULATIONS: [f64; 7] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0];

/// The seed of every run: the same populations under every service (common random
/// numbers).
const SEED: u64 = 5;

/// A resampled run: the log, the policy, the population factor, replications, warm-up
/// and measured weeks.
struct Run<'a> {
    log: &'a Path,
    policy: String,
    population: f64,
    replications: u32,
    warmup: u32,
    weeks: u32,
}

impl Run<'_> {
    fn options(&self) -> Result<ResampleOptions> {
        Ok(ResampleOptions {
            users: FeedbackOptions {
                run: ReplayOptions {
                    policy: self.policy.parse()?,
                    check: false,
                    warmup: i64::from(self.warmup) * WEEK,
                    cooldown: WEEK,
                    seed: SEED,
                    ..ReplayOptions::default()
                },
                ..FeedbackOptions::default()
            },
            pools: PoolConfig::default(),
            population: PopulationConfig {
                long_term: self.population,
                temporary: self.population,
                ..PopulationConfig::default()
            },
            weeks: self.weeks,
            replications: self.replications,
            threads: None,
            open_loop: false,
            out: None,
        })
    }

    /// The replications, with `change` applied to the options first.
    fn replications(&self, change: impl FnOnce(&mut ResampleOptions)) -> Result<Vec<Replication>> {
        let mut opts = self.options()?;
        change(&mut opts);
        let r = Resampler::new(&LogSource::file(self.log)?, &opts)?;
        let stop = AtomicBool::new(false);
        Ok(r.replications(
            &opts,
            &opts.users.run.policy,
            &opts.population,
            self.replications,
            &stop,
            &|| {},
        )?)
    }
}

fn stats(reps: &[Replication], f: fn(&Replication) -> f64) -> MetricStats {
    MetricStats::of("figure", &reps.iter().map(f).collect::<Vec<f64>>())
}

/// The paired differences `a - b`, replication by replication, of `f`.
fn paired(a: &[Replication], b: &[Replication], f: fn(&Replication) -> f64) -> MetricStats {
    let d: Vec<f64> = a.iter().zip(b).map(|(a, b)| f(a) - f(b)).collect();
    MetricStats::of("difference", &d)
}

const JOBS: fn(&Replication) -> f64 = |r| r.jobs_per_week;
const WORK: fn(&Replication) -> f64 = |r| r.proc_hours_per_week;

/// Writes `chart` to `dir/name`.
fn save(dir: &Path, name: &str, chart: &ErrorLineChart) -> Result<()> {
    let path = dir.join(name);
    write_atomic(&path, error_line_chart_svg(chart)?.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// The response curve of each log: a table, and the paired changes in percent of the
/// log's own service as two charts.
fn response(logs: &[(PathBuf, u32)], replications: u32, plots: &Path) -> Result<()> {
    let mut jobs_series = Vec::new();
    let mut work_series = Vec::new();
    for (log, weeks) in logs {
        let name = log.file_name().unwrap_or_default().to_string_lossy();
        println!("\n#### {name}: {replications} populations of {weeks} weeks, paired with S = 1\n");
        println!(
            "| S | jobs/week | change | processor-h/week | change | mean wait (h) | frustrated |"
        );
        println!("|---:|---:|---:|---:|---:|---:|---:|");
        let runs: Vec<Vec<Replication>> = SCALES
            .iter()
            .map(|s| {
                Run {
                    log,
                    policy: format!("logged:scale={s}"),
                    population: 1.0,
                    replications,
                    warmup: 4,
                    weeks: *weeks,
                }
                .replications(|_| {})
            })
            .collect::<Result<_>>()?;
        let own = &runs[SCALES.iter().position(|s| *s == 1.0).unwrap_or_default()];
        let (own_jobs, own_work) = (stats(own, JOBS).mean, stats(own, WORK).mean);
        let mut jobs_points = Vec::new();
        let mut work_points = Vec::new();
        for (s, reps) in SCALES.iter().zip(&runs) {
            let (dj, dw) = (paired(reps, own, JOBS), paired(reps, own, WORK));
            println!(
                "| {s} | {:.1} | {:+.1} ± {:.1} | {:.0} | {:+.0} ± {:.0} | {:.2} | {:.1} |",
                stats(reps, JOBS).mean,
                dj.mean,
                dj.ci95,
                stats(reps, WORK).mean,
                dw.mean,
                dw.ci95,
                stats(reps, |r| r.mean_wait).mean / HOUR as f64,
                stats(reps, |r| r.frustrated as f64).mean,
            );
            let percent = |d: &MetricStats, of: f64| Estimate {
                x: *s,
                y: 100.0 * d.mean / of,
                error: 100.0 * d.ci95 / of,
            };
            jobs_points.push(percent(&dj, own_jobs));
            work_points.push(percent(&dw, own_work));
        }
        let half = |f| paired(&runs[2], own, f).mean;
        let double = |f| paired(own, &runs[4], f).mean;
        println!(
            "\nGained at S = 0.5 over lost at S = 2: jobs {:.2}, processor-hours {:.2}.",
            half(JOBS) / double(JOBS),
            half(WORK) / double(WORK)
        );
        let label = name.trim_end_matches(".swf").to_string();
        jobs_series.push(ErrorSeries {
            label: label.clone(),
            points: jobs_points,
            colour: None,
        });
        work_series.push(ErrorSeries {
            label,
            points: work_points,
            colour: None,
        });
    }
    for (file, what, series) in [
        ("response-jobs.svg", "jobs", jobs_series),
        ("response-work.svg", "processor-hours", work_series),
    ] {
        save(
            plots,
            file,
            &ErrorLineChart {
                title: format!("Resampled users' {what} per week against the service"),
                x_label: "every logged wait times S".into(),
                y_label: format!("change in {what}/week from S = 1 (%)"),
                y_from_zero: false,
                zero_line: true,
                y_range: None,
                series,
                references: Vec::new(),
            },
        )?;
    }
    Ok(())
}

/// One row of the saturation table.
fn saturation_row(label: &str, reps: &[Replication]) {
    let m = |f: fn(&Replication) -> f64| stats(reps, f);
    let trend = m(|r| r.queue_trend);
    println!(
        "| {label} | {:.1} | {:.0} | {:.1}% | {:.1} | {:+.2} ± {:.2} | {:.0} | {:.0} |",
        m(JOBS).mean,
        m(WORK).mean,
        100.0 * m(|r| r.utilization).mean,
        m(|r| r.mean_wait).mean / HOUR as f64,
        trend.mean,
        trend.ci95,
        m(|r| r.frustrated as f64).mean,
        m(|r| r.replaced as f64).mean,
    );
}

/// The saturation curve of KTH under EASY, and five times its users with patience off.
fn saturation(kth: &Path, replications: u32, plots: &Path) -> Result<()> {
    println!("\n#### KTH under EASY, the second of two years ({replications} populations each)\n");
    println!(
        "| population | jobs/week | processor-h/week | utilization | mean wait (h) | queue \
         trend (jobs/week) | frustrated | replaced |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let run = |population| Run {
        log: kth,
        policy: "easy".into(),
        population,
        replications,
        warmup: 52,
        weeks: 52,
    };
    let mut curves: [Vec<Estimate>; 4] = Default::default();
    for p in POPULATIONS {
        let reps = run(p).replications(|_| {})?;
        saturation_row(&format!("×{p}"), &reps);
        let fs: [fn(&Replication) -> f64; 4] = [
            WORK,
            |r| 100.0 * r.utilization,
            |r| r.mean_wait / HOUR as f64,
            |r| r.frustrated as f64,
        ];
        for (curve, f) in curves.iter_mut().zip(fs) {
            let s = stats(&reps, f);
            curve.push(Estimate {
                x: p,
                y: s.mean,
                error: s.ci95,
            });
        }
    }
    // Five times the users with nobody leaving: the queue has nothing to settle it.
    saturation_row(
        "×5, patience off",
        &run(5.0).replications(|o| o.users.users.reaction.patience = PatienceLimit::Off)?,
    );
    let [work, utilization, wait, frustrated] = curves;
    for (file, title, y_label, points) in [
        (
            "settling-work.svg",
            "Work done as KTH's users are multiplied (EASY, second year)",
            "processor-hours/week",
            work,
        ),
        (
            "settling-utilization.svg",
            "Utilization as KTH's users are multiplied (EASY, second year)",
            "utilization (%)",
            utilization,
        ),
        (
            "settling-wait.svg",
            "Mean wait as KTH's users are multiplied (EASY, second year)",
            "mean wait (h)",
            wait,
        ),
        (
            "settling-frustrated.svg",
            "Users who left frustrated (EASY, second year)",
            "users a year",
            frustrated,
        ),
    ] {
        save(
            plots,
            file,
            &ErrorLineChart {
                title: title.into(),
                x_label: "population (times KTH's users)".into(),
                y_label: y_label.into(),
                y_from_zero: true,
                zero_line: false,
                y_range: None,
                series: vec![ErrorSeries {
                    label: "EASY".into(),
                    points,
                    colour: None,
                }],
                references: Vec::new(),
            },
        )?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let replications: u32 = args.first().map_or(Ok(40), |r| r.parse())?;
    let dir = Path::new(args.get(1).map_or("../shared/workloads", String::as_str));
    let plots = PathBuf::from(args.get(2).map_or("docs/img", String::as_str));
    let parts = args.get(3).map_or("all", String::as_str);
    let kth = dir.join("KTH-SP2-1996-2.swf");
    let curie = dir.join("CEA-Curie-sample.swf");
    for log in [&kth, &curie] {
        if !log.exists() {
            return Err(format!("{}: no such log", log.display()).into());
        }
    }
    std::fs::create_dir_all(&plots)?;
    if parts != "saturation" {
        response(&[(kth.clone(), 52), (curie, 26)], replications, &plots)?;
    }
    if parts != "response" {
        saturation(&kth, replications.div_ceil(2), &plots)?;
    }
    Ok(())
}
