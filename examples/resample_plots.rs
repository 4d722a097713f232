//! Draws the resampling plots of `docs/VALIDATION.md` from the outputs of `sitesim
//! resample --out` and `sitesim sweep --out`.
//!
//! ```text
//! cargo run --release --example resample_plots -- EASY_DIR FCFS_DIR EASY_OPEN_DIR FCFS_OPEN_DIR SWEEP_DIR LOG_WAIT PLOT_DIR
//! ```

use std::error::Error;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sitesim::plot::chart::{Histogram, LineChart, Series, XTicks, histogram_svg, line_chart_svg};
use sitesim::results::output::write_atomic;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Writes the drawn chart `svg` to `path`, atomically.
fn save(
    path: &Path,
    svg: std::result::Result<String, sitesim::plot::chart::PlotError>,
) -> Result<()> {
    write_atomic(path, svg?.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

fn summary(dir: &str) -> Result<Value> {
    let path = Path::new(dir).join("summary.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(serde_json::from_str(&text)?)
}

/// The histogram of `metric` in a resample summary, as bins.
fn bins(s: &Value, metric: &str) -> Result<Vec<(f64, f64, f64)>> {
    let stats = s["stats"].as_array().ok_or("no stats")?;
    let m = stats
        .iter()
        .find(|m| m["metric"] == metric)
        .ok_or_else(|| format!("no {metric}"))?;
    Ok(m["histogram"]
        .as_array()
        .ok_or("no histogram")?
        .iter()
        .map(|b| {
            let f = |k: &str| b[k].as_f64().unwrap_or(0.0);
            (f("lo"), f("hi"), f("count"))
        })
        .collect())
}

fn main() -> Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() != 7 {
        return Err(
            "give EASY_DIR FCFS_DIR EASY_OPEN_DIR FCFS_OPEN_DIR SWEEP_DIR LOG_WAIT PLOT_DIR".into(),
        );
    }
    let out = PathBuf::from(&a[6]);
    std::fs::create_dir_all(&out)?;
    let log_wait: f64 = a[5].parse()?;
    let easy_open = summary(&a[2])?;
    save(
        &out.join("resample-easy-wait.svg"),
        histogram_svg(
            &Histogram {
                title: "EASY on resampled KTH (no feedback): mean wait".into(),
                x_label: "mean wait of a replication (h)".into(),
                y_label: "replications".into(),
                bins: bins(&easy_open, "mean_wait")?
                    .into_iter()
                    .map(|(lo, hi, n)| (lo / 3600.0, hi / 3600.0, n))
                    .collect(),
                marks: vec![(log_wait / 3600.0, "the log, replayed as is".into())],
            },
            None,
        ),
    )?;
    for (file, title, fb_dirs) in [
        (
            "resample-throughput-feedback.svg",
            "With feedback",
            [&a[0], &a[1]],
        ),
        (
            "resample-throughput-open.svg",
            "Without feedback",
            [&a[2], &a[3]],
        ),
    ] {
        // Two histograms as lines of counts at bin centres, on one axis.
        let mut series = Vec::new();
        for (dir, name) in fb_dirs.iter().zip(["EASY", "FCFS"]) {
            let b = bins(&summary(dir)?, "jobs_per_week")?;
            series.push(Series {
                label: name.into(),
                points: b.iter().map(|&(lo, hi, n)| ((lo + hi) / 2.0, n)).collect(),
            });
        }
        save(
            &out.join(file),
            line_chart_svg(&LineChart {
                title: format!("{title}: throughput over 100 resampled KTH workloads"),
                x_label: "jobs per week".into(),
                y_label: "replications per bin".into(),
                x_ticks: XTicks::Numbers,
                log_y: false,
                y_from_zero: true,
                series,
            }),
        )?;
    }
    let sweep = summary(&a[4])?;
    let points = sweep["points"].as_array().ok_or("no points")?;
    for (file, metric, label, scale) in [
        (
            "saturation-throughput.svg",
            "jobs_per_week",
            "jobs per week",
            1.0,
        ),
        (
            "saturation-utilization.svg",
            "utilization",
            "utilization (%)",
            100.0,
        ),
    ] {
        let mut series: Vec<Series> = Vec::new();
        for p in points {
            let name = p["scheduler"].as_str().unwrap_or("?").to_uppercase();
            let x = p["population"].as_f64().unwrap_or(0.0);
            let y = p["stats"]
                .as_array()
                .and_then(|s| s.iter().find(|m| m["metric"] == metric))
                .and_then(|m| m["mean"].as_f64())
                .unwrap_or(f64::NAN);
            match series.iter_mut().find(|s| s.label == name) {
                Some(s) => s.points.push((x, y * scale)),
                None => series.push(Series {
                    label: name,
                    points: vec![(x, y * scale)],
                }),
            }
        }
        save(
            &out.join(file),
            line_chart_svg(&LineChart {
                title: format!("Resampled KTH with feedback: {label} against population"),
                x_label: "population multiplier".into(),
                y_label: label.into(),
                x_ticks: XTicks::Numbers,
                log_y: false,
                y_from_zero: true,
                series,
            }),
        )?;
    }
    println!("wrote the plots into {}", out.display());
    Ok(())
}
