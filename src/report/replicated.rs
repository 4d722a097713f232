//! The report of replicated runs of one configuration: a results directory with
//! `summary.json` and `replications.csv` (`resample`, a scenario's resampled or model run
//! with `--out`, the default scenario among them).
//!
//! It shows each metric over the replications (mean with its 95% confidence interval,
//! standard deviation, extremes) in one unit per metric ([`Metric::scale`]) and a
//! histogram of each over the replications. Written to `DIR/report/`: `index.html` and
//! the SVGs.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::page::{self, Page, Section, Table, count};
use crate::plot::chart::{self, Band, Histogram};
use crate::results::metric::{METRICS, Metric, MetricStats};

/// A replication's values, by metric, as `replications.csv` has them.
fn read_replications(path: &Path) -> Result<Vec<Vec<(String, f64)>>, String> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let head: Vec<String> = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .iter()
        .map(str::to_owned)
        .collect();
    reader
        .records()
        .enumerate()
        .map(|(i, r)| {
            let r = r.map_err(|e| format!("{}: row {}: {e}", path.display(), i + 2))?;
            Ok(head
                .iter()
                .zip(r.iter())
                .filter_map(|(h, v)| v.parse::<f64>().ok().map(|v| (h.clone(), v)))
                .collect())
        })
        .collect()
}

/// The values of `metric` over the replications.
fn values(reps: &[Vec<(String, f64)>], metric: &Metric) -> Vec<f64> {
    reps.iter()
        .filter_map(|r| r.iter().find(|(h, _)| h == metric.name).map(|(_, v)| *v))
        .filter(|v| v.is_finite())
        .collect()
}

/// Writes the report of the replicated runs in `dir` into `out`; the files written.
pub fn write_report(dir: &Path, out: &Path) -> Result<Vec<PathBuf>, String> {
    let summary_path = dir.join("summary.json");
    let text = std::fs::read_to_string(&summary_path)
        .map_err(|e| format!("{}: {e}", summary_path.display()))?;
    let summary: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", summary_path.display()))?;
    let reps = read_replications(&dir.join("replications.csv"))?;
    if reps.is_empty() {
        return Err(format!(
            "{}: no replications to report",
            dir.join("replications.csv").display()
        ));
    }
    let mut rows = Vec::new();
    let mut figures = Vec::new();
    for metric in &METRICS {
        let v = values(&reps, metric);
        if v.is_empty() {
            continue;
        }
        let stats = MetricStats::of(metric.name, &v);
        let scale = metric.scale();
        let shown = |x: f64| page::sig3(x * scale.factor);
        rows.push(vec![
            metric.label(scale),
            shown(stats.mean),
            if stats.n > 1 {
                shown(stats.ci95)
            } else {
                "—".into()
            },
            shown(stats.sd),
            shown(stats.min),
            shown(stats.max),
        ]);
        if stats.n > 1 && stats.max > stats.min {
            let hist = Histogram {
                title: format!("{} over {} replications", metric.title, stats.n),
                x_label: metric.label(scale),
                y_label: "replications".into(),
                bins: stats
                    .histogram
                    .iter()
                    .map(|b| (b.lo * scale.factor, b.hi * scale.factor, b.count as f64))
                    .collect(),
                marks: Vec::new(),
            };
            let band = Band {
                lo: (stats.mean - stats.ci95) * scale.factor,
                hi: (stats.mean + stats.ci95) * scale.factor,
                label: "mean's 95% CI".into(),
            };
            figures.extend(page::figure(
                &format!("hist-{}.svg", metric.name.replace('_', "-")),
                format!(
                    "{} over the replications ({} bins, Sturges' rule), the mean's 95% \
                     confidence interval shaded.",
                    metric.title,
                    stats.histogram.len()
                ),
                chart::histogram_svg(&hist, Some(&band)),
            )?);
        }
    }
    let n = reps.len();
    let table = Table {
        head: [
            "metric",
            "mean",
            "± (95% CI)",
            "standard deviation",
            "minimum",
            "maximum",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    };
    let mut facts = Vec::new();
    for (name, key) in [("scheduler", "scheduler"), ("log", "input")] {
        if let Some(v) = summary[key].as_str() {
            let v = if key == "input" {
                Path::new(v)
                    .file_name()
                    .map_or(v.to_owned(), |n| n.to_string_lossy().into_owned())
            } else {
                v.to_owned()
            };
            facts.push((name.to_owned(), v));
        }
    }
    if let Some(p) = summary["procs"].as_u64() {
        facts.push(("processors".to_owned(), count(p)));
    }
    facts.push(("replications".to_owned(), count(n as u64)));
    if let Some(w) = summary["weeks"].as_f64() {
        facts.push(("weeks per replication".to_owned(), page::sig3(w)));
    }
    let title = match (summary["input"].as_str(), summary["scheduler"].as_str()) {
        (Some(log), Some(s)) => format!(
            "{}: {n} replications under {s}",
            Path::new(log)
                .file_name()
                .map_or(log.into(), |f| f.to_string_lossy())
        ),
        (_, Some(s)) => format!("{n} replications under {s}"),
        _ => format!("{n} replications"),
    };
    let page = Page {
        title,
        version: env!("CARGO_PKG_VERSION"),
        facts,
        sections: vec![
            Section {
                title: "Over the replications".into(),
                text: "Each metric's mean over the replications with the half-width of its \
                       95% confidence interval (Student's t), in one unit per metric."
                    .into(),
                tables: vec![table],
                figures: Vec::new(),
            },
            Section {
                title: "Distributions".into(),
                text: String::new(),
                tables: Vec::new(),
                figures,
            },
        ],
    };
    page.write(out)
}
