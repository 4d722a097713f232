//! The report of replicated runs of one configuration: a results directory with
//! `summary.json` and `replications.csv` (`resample`, a scenario's resampled or model run
//! with `--out`, the default scenario among them).
//!
//! It shows each metric over the replications (mean with its 95% confidence interval,
//! standard deviation, extremes) in one unit per metric ([`Metric::scale`]), the series
//! of `weekly.csv` week by week (the mean over the replications in a band of its 95%
//! confidence interval; left out for a directory written before `weekly.csv` was), and a
//! histogram of each metric over the replications. Written to `DIR/report/`:
//! `index.html` and the SVGs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::page::{self, Link, Page, Section, Table, count};
use crate::plot::chart::{
    self, Band, ErrorLineChart, ErrorSeries, Estimate, Histogram, RefAt, Reference,
};
use crate::results::metric::{METRICS, Metric, MetricStats, USER_FAIRNESS, ci95};
use crate::results::replicate::MAX_REPLICATIONS;
use crate::time::{HOUR, MAX_WEEKS, WEEK};

/// A replication's values, by metric, as `replications.csv` has them: each metric's
/// column a finite number (a column sitesim does not know is left out; a table without
/// any metric is refused, as is a value that is not a finite number, by row and column).
pub(super) fn read_replications(path: &Path) -> Result<Vec<Vec<(String, f64)>>, String> {
    let mut reader = crate::results::input::table(path)?;
    let head: Vec<String> = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .iter()
        .map(str::to_owned)
        .collect();
    let known: Vec<usize> = (0..head.len())
        .filter(|&k| METRICS.iter().any(|m| m.name == head[k]))
        .collect();
    if known.is_empty() {
        return Err(format!(
            "{}: no column of a metric sitesim writes (jobs_per_week, mean_wait, ...): not \
             a replications table",
            path.display()
        ));
    }
    reader
        .records()
        .enumerate()
        .map(|(i, r)| {
            let r = r.map_err(|e| format!("{}: row {}: {e}", path.display(), i + 2))?;
            known
                .iter()
                .map(|&k| {
                    let text = r.get(k).unwrap_or_default();
                    match text.parse::<f64>() {
                        Ok(v) if v.is_finite() => Ok((head[k].clone(), v)),
                        _ => Err(format!(
                            "{}: row {}: {}: '{}' is not a finite number",
                            path.display(),
                            i + 2,
                            head[k],
                            crate::textfmt::excerpt(text, crate::textfmt::QUOTED)
                        )),
                    }
                })
                .collect()
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

/// A series of `weekly.csv` ([`crate::metrics::WeekSeries`]) as the report shows it.
pub(super) struct WeeklyColumn {
    /// Its column.
    pub(super) name: &'static str,
    /// Its title.
    pub(super) title: &'static str,
    /// Its axis label, with its unit.
    pub(super) y_label: &'static str,
    /// What a week's value is, for the caption.
    pub(super) meaning: &'static str,
    /// The largest value the quantity can take (the least is 0).
    most: f64,
}

/// The series of `weekly.csv`, in the order of its columns.
pub(super) const WEEKLY: [WeeklyColumn; 5] = [
    WeeklyColumn {
        name: "utilization_pct",
        title: "Utilization",
        y_label: "utilization (%)",
        meaning: "busy processor-time over the week's capacity",
        most: 100.0,
    },
    WeeklyColumn {
        name: "waiting_jobs",
        title: "Jobs waiting",
        y_label: "jobs waiting",
        meaning: "the jobs waiting (submitted, not started), time-weighted mean over the week",
        most: f64::INFINITY,
    },
    WeeklyColumn {
        name: "waiting_proc_hours",
        title: "Processor-hours asked by the jobs waiting",
        y_label: "processor-hours waiting",
        meaning: "the processor-hours the waiting jobs asked for (processors × estimate), \
                  time-weighted mean over the week",
        most: f64::INFINITY,
    },
    WeeklyColumn {
        name: "active_users",
        title: "Active users",
        y_label: "users",
        meaning: "users who submitted a job in the week",
        most: f64::INFINITY,
    },
    WeeklyColumn {
        name: "sessions_opened",
        title: "Sessions opened",
        y_label: "sessions",
        meaning: "sessions whose first job was submitted in the week (split as the \
                  sessions metric splits them)",
        most: f64::INFINITY,
    },
];

/// The running statistics of one series in one week over the replications read so far
/// (Welford's update), so that `weekly.csv` is read in one pass without keeping its rows:
/// a century of weeks for each of 100,000 replications would take tens of gigabytes. The
/// values themselves are kept for their quantiles while the file's are at most
/// [`SPREAD_VALUES`] in all.
#[derive(Debug, Clone, Default)]
pub(super) struct Running {
    n: u64,
    mean: f64,
    /// Sum of squared differences from the mean.
    m2: f64,
    /// A value was missing (`NaN`: the column is not in the file).
    missing: bool,
    /// The values, while they are kept.
    values: Vec<f64>,
}

/// The most values of `weekly.csv` kept for the replications' spread (64 MiB): 52 weeks
/// of 100 replications are 26,000 a series.
pub(super) const SPREAD_VALUES: usize = 8 << 20;

/// The quantiles of the replications' spread drawn around a weekly mean: the middle 80%.
const SPREAD: (f64, f64) = (0.1, 0.9);

impl Running {
    fn add(&mut self, v: f64, keep: bool) {
        if !v.is_finite() {
            self.missing = true;
            return;
        }
        self.n += 1;
        let d = v - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (v - self.mean);
        if keep {
            self.values.push(v);
        }
    }

    /// The `SPREAD` quantiles of the values (linear between order statistics), if every
    /// value was kept.
    fn spread(&self) -> Option<(f64, f64)> {
        if self.missing || self.n == 0 || self.values.len() as u64 != self.n {
            return None;
        }
        let mut v = self.values.clone();
        v.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let h = q * (v.len() - 1) as f64;
            let (i, f) = (h.floor() as usize, h.fract());
            v[i] + f * (v[(i + 1).min(v.len() - 1)] - v[i])
        };
        Some((at(SPREAD.0), at(SPREAD.1)))
    }

    /// The mean and the half-width of its 95% confidence interval, if every value was
    /// there.
    pub(super) fn estimate(&self, x: f64) -> Option<Estimate> {
        let sd = if self.n > 1 {
            (self.m2 / (self.n - 1) as f64).sqrt()
        } else {
            0.0
        };
        (!self.missing && self.n > 0).then(|| Estimate {
            x,
            y: self.mean,
            error: ci95(self.n, sd),
        })
    }
}

/// Each week's running statistics of [`WEEKLY`], and how many replications ran it whole.
pub(super) type Weeks = BTreeMap<u64, (u64, [Running; 5])>;

/// The rows of `weekly.csv`, read in one pass: each whole week's values of [`WEEKLY`]
/// (missing for a column it lacks), by week, over the replications; and how many
/// replications it has. The last week of a replication, cut at its end, is left out: it
/// would put a few hours of a draining machine beside whole weeks.
pub(super) fn read_weekly(path: &Path) -> Result<(Weeks, usize), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut reader = crate::results::input::table(path)?;
    let head = reader.headers().map_err(|e| err(&e))?.clone();
    let column = |name: &str| head.iter().position(|h| h == name);
    let need = |name: &str| column(name).ok_or_else(|| err(&format_args!("no {name} column")));
    let (replication, week, length) = (need("replication")?, need("week")?, need("length_hours")?);
    let columns: Vec<Option<usize>> = WEEKLY.iter().map(|c| column(c.name)).collect();
    let mut weeks = Weeks::new();
    let mut replications = BTreeSet::new();
    // Values kept for the spread: none once there would be more than `SPREAD_VALUES`.
    let mut kept = Some(0usize);
    let mut row = csv::StringRecord::new();
    for i in 0.. {
        if !reader.read_record(&mut row).map_err(|e| err(&e))? {
            break;
        }
        let field = |k: usize| row.get(k).unwrap_or_default();
        let bad = |k: usize| {
            err(&format_args!(
                "row {}: {}: '{}' is not a finite number",
                i + 2,
                &head[k],
                crate::textfmt::excerpt(field(k), crate::textfmt::QUOTED)
            ))
        };
        let number = |k: usize| {
            field(k)
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(k))
        };
        // Replications and weeks within what a run writes: a week number of millions
        // would hold a running statistic for each week up to it.
        let whole = |k: usize, max: u64| {
            let v = field(k).parse::<u64>().map_err(|_| bad(k))?;
            if v > max {
                return Err(err(&format_args!(
                    "row {}: {} {v}: more than the {max} a run writes",
                    i + 2,
                    &head[k]
                )));
            }
            Ok(v)
        };
        replications.insert(whole(replication, u64::from(MAX_REPLICATIONS))?);
        if number(length)? != (WEEK / HOUR) as f64 {
            continue;
        }
        let keeping = kept.is_some();
        kept = kept
            .map(|k| k + WEEKLY.len())
            .filter(|&k| k <= SPREAD_VALUES);
        if keeping && kept.is_none() {
            for (_, series) in weeks.values_mut() {
                series.iter_mut().for_each(|s| s.values = Vec::new());
            }
        }
        let (runs, series) = weeks.entry(whole(week, 2 * MAX_WEEKS as u64)?).or_default();
        *runs += 1;
        for (s, k) in series.iter_mut().zip(&columns) {
            let v = match *k {
                Some(k) => number(k)?,
                None => f64::NAN,
            };
            s.add(v, kept.is_some());
        }
    }
    Ok((weeks, replications.len()))
}

/// The section of the series of `weekly.csv` in `dir`, if it has one: each series'
/// mean per week over the replications in the band of its 95% confidence interval, over
/// the weeks every replication ran whole, the end of the warm-up (`warmup` seconds)
/// marked.
fn weekly_section(dir: &Path, warmup: f64) -> Result<Option<Section>, String> {
    let path = dir.join("weekly.csv");
    if !path.is_file() {
        return Ok(None);
    }
    let (weeks, n) = read_weekly(&path)?;
    let mut figures = Vec::new();
    for (i, column) in WEEKLY.iter().enumerate() {
        let whole = || weeks.iter().filter(|(_, (runs, _))| *runs == n as u64);
        let mut points: Vec<Estimate> = whole()
            .filter_map(|(&week, (_, series))| series[i].estimate(week as f64 + 0.5))
            .collect();
        // The replications' spread, if kept for every week drawn (none for one).
        let mut spread: Vec<(f64, f64, f64)> = whole()
            .filter_map(|(&week, (_, series))| {
                let (lo, hi) = series[i].spread()?;
                Some((week as f64 + 0.5, lo, hi))
            })
            .collect();
        let spread_drawn = n > 1 && spread.len() == points.len();
        if !spread_drawn {
            spread.clear();
        }
        // Axis ticks of a million or more are written with one digit (2e8): millions
        // keep them apart.
        let largest = points
            .iter()
            .map(|p| p.y.abs() + p.error)
            .chain(spread.iter().map(|s| s.2.abs()))
            .fold(0.0, f64::max);
        let y_label = if largest >= 1e6 {
            for p in &mut points {
                p.y /= 1e6;
                p.error /= 1e6;
            }
            for s in &mut spread {
                (s.1, s.2) = (s.1 / 1e6, s.2 / 1e6);
            }
            format!("{} (millions)", column.y_label)
        } else {
            column.y_label.to_owned()
        };
        let chart = ErrorLineChart {
            title: format!("{} per week", column.title),
            x_label: "weeks since the first submission".into(),
            y_label,
            y_from_zero: true,
            zero_line: false,
            y_range: Some((0.0, column.most)),
            series: vec![ErrorSeries {
                label: format!("mean over {n} replications"),
                colour: None,
                points,
            }],
            references: (warmup > 0.0)
                .then(|| Reference {
                    at: RefAt::X(warmup / WEEK as f64),
                    label: "end of warm-up".into(),
                    series: None,
                    dotted: true,
                })
                .into_iter()
                .collect(),
        };
        figures.extend(page::figure(
            &format!("weekly-{}.svg", column.name.replace('_', "-")),
            format!(
                "{} per week: {}. The line is the mean over the replications at each \
                 week's middle; the dark band, its 95% confidence interval (Student's t \
                 with n − 1 degrees of freedom, as in the table), cut where the quantity \
                 ends (at 0{}){}.",
                column.title,
                column.meaning,
                if column.most.is_finite() {
                    " and at 100%"
                } else {
                    ""
                },
                match (spread_drawn, n > 1) {
                    (true, _) => format!(
                        "; the light band, where the replications themselves lie: the \
                         middle {:.0}% of their values each week ({:.0}th to {:.0}th \
                         percentile)",
                        (SPREAD.1 - SPREAD.0) * 100.0,
                        SPREAD.0 * 100.0,
                        SPREAD.1 * 100.0
                    ),
                    (false, true) => format!(
                        "; the replications' spread is not drawn: weekly.csv holds more \
                         than the {SPREAD_VALUES} values kept for it"
                    ),
                    (false, false) => String::new(),
                }
            ),
            chart::spread_band_chart_svg(&chart, std::slice::from_ref(&spread)),
        )?);
    }
    if figures.is_empty() {
        return Ok(None);
    }
    Ok(Some(Section {
        title: "Week by week".into(),
        text: "Each series per week of the run, counted from the first submission, \
               warm-up and cool-down included, over the weeks every replication ran \
               whole (the machine draining after the last submissions can run into \
               a few more). weekly.csv has every week of every replication, the last \
               cut at the run's end."
            .into(),
        tables: Vec::new(),
        figures,
        code: String::new(),
        links: vec![Link {
            href: "../weekly.csv".into(),
            text: "weekly.csv".into(),
        }],
    }))
}

/// The page's title: what ran (the log, or the model site), with how many users, on how
/// many processors, for how long, how many times, under which policy.
fn page_title(summary: &Value, n: usize) -> String {
    let source = match (summary["input"].as_str(), summary["model"].as_str()) {
        (Some(log), _) => Path::new(log)
            .file_name()
            .map_or(log.into(), |f| f.to_string_lossy().into_owned()),
        (None, Some(_)) => "The model site".to_owned(),
        _ => "Replicated runs".to_owned(),
    };
    let mut parts = vec![source];
    let users = summary["population"]["long_term"]
        .as_f64()
        .zip(summary["population"]["temporary"].as_f64())
        .map(|(l, t)| {
            if l == t {
                format!("{}× the users", page::sig3(l))
            } else {
                format!(
                    "{}× long-term, {}× temporary users",
                    page::sig3(l),
                    page::sig3(t)
                )
            }
        })
        .or_else(|| {
            summary["users"]
                .as_f64()
                .map(|u| format!("{}× the users", page::sig3(u)))
        });
    parts.extend(users);
    if let Some(p) = summary["procs"].as_u64() {
        parts.push(format!("{} processors", count(p)));
    }
    let weeks = summary["weeks"]
        .as_f64()
        .or_else(|| summary["length"].as_f64().map(|s| s / WEEK as f64));
    parts.extend(weeks.map(|w| format!("{} weeks", page::sig3(w))));
    let policy = summary["scheduler"]
        .as_str()
        .map_or_else(String::new, |s| format!(" under {s}"));
    format!("{}: {n} replications{policy}", parts.join(", "))
}

/// A note when the queue grows through the measured weeks (the replications' queue trend
/// is above 0 beyond its 95% interval, and by at least a job a week): the run is
/// saturated, and its waits depend on how long it ran.
fn saturation_note(summary: &Value) -> Option<String> {
    let trend = summary["stats"]
        .as_array()?
        .iter()
        .find(|s| s["metric"] == "queue_trend")?;
    let (mean, ci) = (
        trend["mean"].as_f64()?,
        trend["ci95"].as_f64().unwrap_or(0.0),
    );
    (mean - ci > 0.0 && mean >= 1.0).then(|| {
        format!(
            "Saturated: the queue grows through the measured weeks, by {} jobs a week on \
             average (queue_trend, ± {}): waits and slowdowns depend on the run's length, \
             and the machine does not keep up with these users.",
            page::sig3(mean),
            page::sig3(ci)
        )
    })
}

/// Writes the report of the replicated runs in `dir` into `out`; the files written.
pub fn write_report(dir: &Path, out: &Path) -> Result<Vec<PathBuf>, String> {
    let summary_path = dir.join("summary.json");
    let text = crate::results::input::read(&summary_path, crate::results::input::MAX_JSON)?;
    let summary: Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", summary_path.display()))?;
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
    let title = page_title(&summary, n);
    // A metric that is an index of sitesim's choosing is defined where it is shown.
    let fairness = if values(&reps, &USER_FAIRNESS).is_empty() {
        String::new()
    } else {
        format!(
            " The {} (index) is {}, 1/n when one of n users bears all the slowdown.",
            USER_FAIRNESS.quantity, USER_FAIRNESS.meaning
        )
    };
    let mut sections = vec![Section {
        title: "Over the replications".into(),
        text: format!(
            "Each metric's mean over the replications with the half-width of its 95% \
             confidence interval (Student's t), in one unit per metric.{fairness}"
        ),
        tables: vec![table],
        figures: Vec::new(),
        code: String::new(),
        links: Vec::new(),
    }];
    let warmup = summary["warmup"].as_f64().unwrap_or(0.0);
    if let Some(note) = saturation_note(&summary) {
        sections[0].text = format!("{note} {}", sections[0].text);
    }
    sections.extend(weekly_section(dir, warmup)?);
    sections.push(Section {
        title: "Distributions".into(),
        text: String::new(),
        tables: Vec::new(),
        figures,
        code: String::new(),
        links: Vec::new(),
    });
    let page = Page {
        title,
        version: env!("CARGO_PKG_VERSION"),
        facts,
        sections,
    };
    page.write(out)
}
