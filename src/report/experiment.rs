//! The report of an experiment: the plots and the page a reader needs from an
//! experiment's results directory (see [`crate::results::runs`]), written to
//! `RESULTS_DIR/report/`:
//!
//! ```text
//! capacity.svg                with a capacity search's capacity.json: its metric against
//!                             the machine sizes probed, the target and the answers marked
//! axis-<metric>.svg           against the swept axis (with a sweep): mean with 95% CI
//! paired-<figure>.svg         each scheduler minus the first, run by run (common random
//!                             numbers): mean difference with 95% CI, against the swept
//!                             axis (a line per scheduler) or, without a sweep, a bar each
//! hour-queue.svg              by local hour of the day, at the most loaded point
//! hour-utilization.svg
//! hour-queue-<x>.svg          by local hour at each other swept value, every scheduler
//! class-response.svg          response time by runtime class, at the same point
//! hist-<metric>-<n>-<s>.svg   over replications, per scheduler, at the same point
//! paired.csv                  the paired plots' values: the paired table at full precision
//! index.html                  scenario, table of every point, capacity search, plots
//! ```
//!
//! SVG names are words joined by `-` (a metric's `mean_wait` becomes `mean-wait`), as in
//! every other report.
//!
//! The report reads what is there: missing runs (an unfinished experiment) are counted and
//! listed, and a point without runs is left out of the plots. Statistics over
//! replications are [`MetricStats`] (mean, 95% confidence interval by Student's t). The
//! same results give byte-identical files. The plots are drawn by
//! [`crate::plot::chart`]; the page is the template `templates/report.html` laid out
//! from a `Page` this module computes (see `crate::plot::html`).

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::page::{self, sig3, write};
use crate::experiment::study::CapacityResult;
use crate::plot::chart::{
    self as chart, Band, Bar, BarChart, BarSeries, ErrorLineChart, ErrorSeries, Estimate,
    Histogram, LineChart, PlotError, RefAt, Reference, Series, XTicks,
};
use crate::plot::html;
use crate::results::metric::{
    JOBS_PER_SESSION, JOBS_PER_WEEK, MEAN_RESPONSE, MEAN_WAIT, Metric, MetricStats,
    PROC_HOURS_PER_WEEK, SESSION_HOURS, Scale, UTILIZATION, metric,
};
use crate::results::output::create_subfolder;
use crate::results::runs::{self, RunPlan, RunRecord};
use crate::textfmt::{significant, with_interval, write_csv};

/// The report's directory under the results directory.
pub const REPORT_DIR: &str = "report";

/// The optional result of a capacity search in the results directory.
pub const CAPACITY_FILE: &str = "capacity.json";

/// Writes the report of the experiment in `dir` to `dir/report/`: the SVG plots, then
/// `paired.csv` (when two schedulers have runs of the same replication), then
/// `index.html`. Returns the files written, in that order.
pub fn write_report(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let exp = Experiment::load(dir)?;
    let out = dir.join(REPORT_DIR);
    create_subfolder(&out)?;
    let diffs = PairedDiffs::of(&exp);
    let mut figures = match &diffs {
        Some(diffs) => paired_plots(&exp, diffs)?,
        None => Vec::new(),
    };
    figures.extend(self::figures(&exp)?);
    let mut written = Vec::with_capacity(figures.len() + 2);
    let mut also = Vec::with_capacity(figures.len());
    for figure in &figures {
        let mut file = page::Figure::new(
            figure.file.clone(),
            figure.caption.clone(),
            figure.svg.clone(),
        );
        written.append(&mut file.write(&out)?);
        also.push(file.also);
    }
    if let Some(diffs) = &diffs {
        written.push(write(&out.join(PAIRED_CSV), &paired_csv(&exp, diffs)?)?);
    }
    written.push(write(
        &out.join("index.html"),
        page(&exp, diffs.as_ref(), &figures, &also)?.as_bytes(),
    )?);
    Ok(written)
}

// ---------------------------------------------------------------------------------------
// The experiment as found on disk.

/// An experiment's plan and the runs found for it.
struct Experiment {
    plan: RunPlan,
    /// The runs of each point (in the plan's order), by replication.
    runs: Vec<Vec<RunRecord>>,
    /// The replications of each point without a run file.
    missing: Vec<Vec<u32>>,
    /// `capacity.json`, if present.
    capacity: Option<Value>,
}

impl Experiment {
    fn load(dir: &Path) -> Result<Experiment, String> {
        let plan = runs::read_plan(dir)?;
        let mut runs = vec![Vec::new(); plan.points.len()];
        let mut missing = vec![Vec::new(); plan.points.len()];
        for (p, r) in plan.runs() {
            match runs::read_run(dir, &plan.points[p].id, r)? {
                Some(record) => runs[p].push(record),
                None => missing[p].push(r),
            }
        }
        let path = dir.join(CAPACITY_FILE);
        let capacity = if fs::symlink_metadata(&path).is_ok() {
            let bytes = crate::results::input::read(&path, crate::results::input::MAX_JSON)?;
            Some(serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?)
        } else {
            None
        };
        Ok(Experiment {
            plan,
            runs,
            missing,
            capacity,
        })
    }

    /// Whether the plan sweeps a parameter.
    fn has_axis(&self) -> bool {
        self.plan.axis.is_some() && self.plan.points.iter().any(|p| p.x.is_some())
    }

    /// The swept parameter's axis label, with its unit.
    fn axis_label(&self) -> String {
        let axis = self.plan.axis.as_deref().unwrap_or("x");
        match self.plan.axis_unit.as_deref() {
            Some(unit) if !unit.is_empty() => format!("{axis} ({unit})"),
            _ => axis.to_string(),
        }
    }

    /// `axis = x`, for titles and notes.
    fn at(&self, x: f64) -> String {
        format!(
            "{} = {}",
            self.plan.axis.as_deref().unwrap_or("x"),
            number(x)
        )
    }

    /// The scheduler labels, in the plan's order.
    /// The colour of scheduler `label` in every chart: its place among the schedulers,
    /// so that a chart leaving some out (the paired differences, without the first) does
    /// not give it another's.
    fn colour_of(&self, label: &str) -> Option<usize> {
        self.schedulers().iter().position(|&l| l == label)
    }

    fn schedulers(&self) -> Vec<&str> {
        let mut labels: Vec<&str> = Vec::new();
        for p in &self.plan.points {
            if !labels.contains(&p.label.as_str()) {
                labels.push(&p.label);
            }
        }
        labels
    }

    /// A point's name in notes: its id, scheduler and swept value.
    fn describe(&self, p: usize) -> String {
        let point = &self.plan.points[p];
        match point.x {
            Some(x) if self.has_axis() => format!("{} ({}, {})", point.id, point.label, self.at(x)),
            _ => format!("{} ({})", point.id, point.label),
        }
    }

    /// The points plotted by hour, by runtime class and over replications: those with
    /// runs at the largest swept value (the most loaded point), or every point with runs
    /// without a sweep. `None` when no point has runs.
    fn focus(&self) -> Option<Focus> {
        if self.has_axis() {
            return self.swept_points().pop();
        }
        let points: Vec<usize> = (0..self.plan.points.len())
            .filter(|&p| !self.runs[p].is_empty())
            .collect();
        (!points.is_empty()).then_some(Focus { points, x: None })
    }

    /// The points with runs at each swept value, by increasing value; empty without a
    /// sweep.
    fn swept_points(&self) -> Vec<Focus> {
        if !self.has_axis() {
            return Vec::new();
        }
        let mut xs: Vec<f64> = (0..self.plan.points.len())
            .filter(|&p| !self.runs[p].is_empty())
            .filter_map(|p| self.plan.points[p].x)
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        xs.into_iter()
            .map(|x| Focus {
                points: (0..self.plan.points.len())
                    .filter(|&p| !self.runs[p].is_empty() && self.plan.points[p].x == Some(x))
                    .collect(),
                x: Some(x),
            })
            .collect()
    }

    /// `measure` over the runs of point `p` (scaled), `None` without runs.
    fn stats(&self, p: usize, measure: &Metric, scale: Scale) -> Option<MetricStats> {
        let values: Vec<f64> = self.runs[p]
            .iter()
            .map(|r| (measure.read)(&r.figures) * scale.factor)
            .collect();
        (!values.is_empty()).then(|| MetricStats::of(measure.name, &values))
    }
}

/// The points drawn by hour, by runtime class and over replications.
struct Focus {
    /// Their indices in the plan, one per scheduler.
    points: Vec<usize>,
    /// The swept value they share, if any.
    x: Option<f64>,
}

impl Focus {
    /// ` (axis = x)` for titles, empty without a sweep.
    fn suffix(&self, exp: &Experiment) -> String {
        self.x
            .map(|x| format!(" ({})", exp.at(x)))
            .unwrap_or_default()
    }
}

// ---------------------------------------------------------------------------------------
// What is measured, and in which unit: the metrics of [`crate::results::metric::METRICS`].

/// The measures plotted against the swept axis and shown in the table, in order.
const MEASURES: [&Metric; 7] = [
    &JOBS_PER_WEEK,
    &PROC_HOURS_PER_WEEK,
    &UTILIZATION,
    &MEAN_WAIT,
    &MEAN_RESPONSE,
    &SESSION_HOURS,
    &JOBS_PER_SESSION,
];

/// The metrics of [`MEASURES`].
fn measures() -> impl Iterator<Item = &'static Metric> {
    MEASURES.into_iter()
}

// ---------------------------------------------------------------------------------------
// The plots.

/// A drawn plot.
struct Figure {
    /// The section of the page it belongs to.
    section: String,
    /// Its file name in the report directory.
    file: String,
    /// One line saying what it shows.
    caption: String,
    /// The document.
    svg: String,
}

/// Every plot of the report, in page order.
fn figures(exp: &Experiment) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    if let Some(capacity) = exp.capacity.as_ref().and_then(capacity_result) {
        figures.extend(capacity_figure(&capacity)?);
    }
    if exp.has_axis() {
        figures.extend(axis_figures(exp)?);
    }
    if let Some(focus) = exp.focus() {
        figures.extend(hour_figures(exp, &focus)?);
        figures.extend(class_figure(exp, &focus)?);
        figures.extend(histogram_figures(exp, &focus)?);
    }
    Ok(figures)
}

/// A drawn chart, `None` if it had nothing to draw.
fn drawn(svg: Result<String, PlotError>) -> Result<Option<String>, String> {
    match svg {
        Ok(svg) => Ok(Some(svg)),
        Err(PlotError::Empty { .. }) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// The line of `label` through `(x, mean, half-width)` estimates, by x; estimates with
/// no x are left out, and a line with no point is none.
fn error_series(
    label: &str,
    colour: Option<usize>,
    estimates: impl IntoIterator<Item = (Option<f64>, f64, f64)>,
) -> Option<ErrorSeries> {
    let mut points: Vec<Estimate> = estimates
        .into_iter()
        .filter_map(|(x, y, error)| Some(Estimate { x: x?, y, error }))
        .collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    (!points.is_empty()).then(|| ErrorSeries {
        label: label.to_string(),
        colour,
        points,
    })
}

/// Each measure against the swept axis: a line per scheduler, mean with 95% CI bars.
fn axis_figures(exp: &Experiment) -> Result<Vec<Figure>, String> {
    let axis = exp.plan.axis.as_deref().unwrap_or("x");
    let mut figures = Vec::new();
    for measure in measures() {
        let scale = measure.scale();
        let series: Vec<ErrorSeries> = exp
            .schedulers()
            .into_iter()
            .filter_map(|label| {
                error_series(
                    label,
                    exp.colour_of(label),
                    (0..exp.plan.points.len())
                        .filter(|&p| exp.plan.points[p].label == label)
                        .filter_map(|p| {
                            let s = exp.stats(p, measure, scale)?;
                            Some((exp.plan.points[p].x, s.mean, s.ci95))
                        }),
                )
            })
            .collect();
        let chart = ErrorLineChart {
            title: format!("{} against {axis}", measure.title),
            x_label: exp.axis_label(),
            y_label: measure.label(scale),
            y_from_zero: measure.from_zero,
            zero_line: false,
            y_range: None,
            series,
            references: Vec::new(),
        };
        if let Some(svg) = drawn(chart::error_line_chart_svg(&chart))? {
            figures.push(Figure {
                section: format!("Against {axis}"),
                file: svg_name(&["axis", measure.name]),
                caption: format!(
                    "{} ({}, {}) against {}, one line per scheduler: mean over \
                     replications, error bars the 95% confidence interval.",
                    measure.title,
                    measure.meaning,
                    scale.unit,
                    exp.axis_label()
                ),
                svg,
            });
        }
    }
    Ok(figures)
}

/// The section of the page the capacity plot belongs to: under the capacity search's
/// tables.
const CAPACITY_SECTION: &str = "Capacity search";

/// What a vertical line of the capacity plot marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marked {
    /// The answer alone.
    Answer,
    /// The answer, which is also the size for 95% confidence.
    Both,
    /// The size for 95% confidence, another than the answer.
    Confident,
}

/// `capacity.json` as a capacity search writes it, `None` if it is something else.
fn capacity_result(capacity: &Value) -> Option<CapacityResult> {
    serde_json::from_value(capacity.clone()).ok()
}

/// The capacity search: its metric against the machine sizes probed, a line per
/// scheduler (mean with 95% CI bars), a dashed line at the target, and each answer
/// marked by a vertical line in its scheduler's colour (black for a size several
/// schedulers share): dashed at the answer, dotted at the size for 95% confidence when
/// that is another. The metric is shown in the scale of the search's printed answer.
fn capacity_figure(capacity: &CapacityResult) -> Result<Option<Figure>, String> {
    let known = metric(&capacity.metric).ok();
    let scale = capacity.scale().unwrap_or(Scale {
        unit: "",
        factor: 1.0,
    });
    let with_unit = |v: f64| {
        let v = number(v * scale.factor);
        if scale.unit.is_empty() {
            v
        } else {
            format!("{v} {}", scale.unit)
        }
    };
    let series: Vec<ErrorSeries> = capacity
        .answers
        .iter()
        .filter_map(|a| {
            error_series(
                &a.scheduler,
                None,
                a.probes.iter().map(|p| {
                    (
                        Some(f64::from(p.procs)),
                        p.mean * scale.factor,
                        p.ci95 * scale.factor,
                    )
                }),
            )
        })
        .collect();
    let below = capacity.below();
    let mut references = vec![Reference {
        at: RefAt::Y(capacity.target * scale.factor),
        label: format!(
            "target {} {}",
            if below { "≤" } else { "≥" },
            with_unit(capacity.target)
        ),
        series: None,
        dotted: false,
    }];
    // The sizes to mark, each with what it is and the schedulers that name it, in the
    // answers' order.
    let mut marks: Vec<(u32, Marked, Vec<&str>)> = Vec::new();
    let mut said = Vec::new();
    for a in &capacity.answers {
        let sizes = capacity.sizes(a);
        let confident = sizes.confident.map(|p| p.procs);
        let mut mark = |procs: u32, what: Marked| {
            if let Some(m) = marks.iter_mut().find(|m| (m.0, m.1) == (procs, what)) {
                m.2.push(&a.scheduler);
            } else {
                marks.push((procs, what, vec![&a.scheduler]));
            }
        };
        let answer = match (sizes.mean, confident) {
            (Some(p), Some(c)) if c == p.procs => {
                mark(c, Marked::Both);
                format!("{c} processors, also for 95% confidence")
            }
            (Some(p), Some(c)) => {
                mark(p.procs, Marked::Answer);
                mark(c, Marked::Confident);
                format!("{} processors, {c} for 95% confidence", p.procs)
            }
            (Some(p), None) => {
                mark(p.procs, Marked::Answer);
                format!("{} processors, none probed for 95% confidence", p.procs)
            }
            (None, _) => "no machine in the range searched".to_owned(),
        };
        said.push(format!("{}: {answer}", a.scheduler));
    }
    for (procs, what, names) in marks {
        let listed = names.join(", ");
        references.push(Reference {
            at: RefAt::X(f64::from(procs)),
            label: match what {
                Marked::Answer => format!("{listed}: {procs}"),
                Marked::Both => format!("{listed}: {procs}, also for 95% confidence"),
                Marked::Confident => format!("{listed} for 95% confidence: {procs}"),
            },
            series: match names.as_slice() {
                [one] => series.iter().position(|s| s.label == *one),
                _ => None,
            },
            dotted: what == Marked::Confident,
        });
    }
    let quantity = known.map_or(capacity.metric.as_str(), |m| m.quantity);
    let chart = ErrorLineChart {
        title: format!("Capacity search: {quantity} by machine size"),
        x_label: "machine size (processors)".into(),
        y_label: known.map_or_else(|| capacity.metric.clone(), |m| m.label(scale)),
        y_from_zero: known.is_some_and(|m| m.from_zero),
        zero_line: false,
        y_range: None,
        series,
        references,
    };
    let caption = format!(
        "The capacity search: {quantity} of each machine size probed, one line per \
         scheduler: mean over replications, error bars the 95% confidence interval. The \
         dashed horizontal line is the target (the mean {} {}); a dashed vertical line \
         marks the answer, the smallest machine whose mean meets it, and a dotted one, \
         where it is another, the smallest whose whole interval meets it (the answer for \
         95% confidence, of the sizes probed). {}.",
        if below { "at most" } else { "at least" },
        with_unit(capacity.target),
        said.join("; ")
    );
    let svg = drawn(chart::error_line_chart_svg(&chart))?;
    Ok(svg.map(|svg| Figure {
        section: CAPACITY_SECTION.into(),
        file: "capacity.svg".into(),
        caption,
        svg,
    }))
}

/// What is drawn by local hour: a figure of [`runs::HourFigures`].
struct HourKind {
    /// The file name without `.svg`.
    file: &'static str,
    title: &'static str,
    y_label: &'static str,
    get: fn(&runs::HourFigures) -> f64,
    /// What it is, for captions.
    what: &'static str,
}

const HOUR_QUEUE: HourKind = HourKind {
    file: "hour-queue",
    title: "Queue length by hour of day",
    y_label: "mean queue length (jobs waiting)",
    get: |h| h.mean_queue,
    what: "Mean number of jobs waiting",
};

const HOUR_UTILIZATION: HourKind = HourKind {
    file: "hour-utilization",
    title: "Utilization by hour of day",
    y_label: "utilization (%)",
    get: |h| h.utilization * 100.0,
    what: "Mean share of the processors busy (%)",
};

/// Mean queue length and utilization by local hour at the focus, a line per scheduler;
/// with a sweep, the queue length at every other swept value too, every scheduler of
/// the point on one plot (Feitelson 2021, Fig. 21 compares EASY's queue with CREASY's).
fn hour_figures(exp: &Experiment, focus: &Focus) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    for kind in [HOUR_QUEUE, HOUR_UTILIZATION] {
        let caption = format!(
            "{} in each local hour of the day{}, one line per scheduler: mean over \
             replications.",
            kind.what,
            at_focus(exp, focus)
        );
        figures.extend(hour_figure(exp, focus, &kind, kind.file.into(), caption)?);
    }
    for other in exp.swept_points().iter().filter(|p| p.x != focus.x) {
        let Some(x) = other.x else { continue };
        let caption = format!(
            "{} in each local hour of the day at {}, one line per scheduler: mean over \
             replications.",
            HOUR_QUEUE.what,
            exp.at(x)
        );
        let file = format!("{}-{}", HOUR_QUEUE.file, slug(&number(x)));
        figures.extend(hour_figure(exp, other, &HOUR_QUEUE, file, caption)?);
    }
    Ok(figures)
}

/// `kind` by local hour at the points of `at`, a line per scheduler, in `file`.svg.
fn hour_figure(
    exp: &Experiment,
    at: &Focus,
    kind: &HourKind,
    file: String,
    caption: String,
) -> Result<Option<Figure>, String> {
    let series = at
        .points
        .iter()
        .map(|&p| Series {
            label: exp.plan.points[p].label.clone(),
            points: hourly_means(&exp.runs[p], kind.get),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let chart = LineChart {
        title: format!("{}{}", kind.title, at.suffix(exp)),
        x_label: "local hour of day (h)".into(),
        y_label: kind.y_label.into(),
        x_ticks: XTicks::HourOfDay,
        log_y: false,
        y_from_zero: true,
        series,
    };
    Ok(drawn(chart::line_chart_svg(&chart))?.map(|svg| Figure {
        section: "By hour of day".into(),
        file: format!("{file}.svg"),
        caption,
        svg,
    }))
}

/// `get` of each hour 0-23, averaged over `runs` (hours no run has are left out).
fn hourly_means(runs: &[RunRecord], get: fn(&runs::HourFigures) -> f64) -> Vec<(f64, f64)> {
    let mut sums = [(0.0, 0u32); 24];
    for hour in runs.iter().flat_map(|r| &r.by_hour) {
        if let Some(slot) = sums.get_mut(usize::from(hour.hour)) {
            slot.0 += get(hour);
            slot.1 += 1;
        }
    }
    (0..24)
        .filter(|&h| sums[h].1 > 0)
        .map(|h| (h as f64, sums[h].0 / f64::from(sums[h].1)))
        .collect()
}

/// ` at axis = x` for captions, empty without a sweep.
fn at_focus(exp: &Experiment, focus: &Focus) -> String {
    focus
        .x
        .map(|x| format!(" at {} (the largest swept value)", exp.at(x)))
        .unwrap_or_default()
}

/// Mean response time by runtime class: a group per class, a bar per scheduler.
fn class_figure(exp: &Experiment, focus: &Focus) -> Result<Option<Figure>, String> {
    // The classes in the order the runs list them, named by their bounds.
    let mut classes: Vec<(&str, &str)> = Vec::new();
    for c in focus
        .points
        .iter()
        .flat_map(|&p| &exp.runs[p])
        .flat_map(|r| &r.by_runtime_class)
    {
        if !classes.iter().any(|(id, _)| *id == c.class) {
            let name = if c.label.is_empty() {
                &c.class
            } else {
                &c.label
            };
            classes.push((&c.class, name));
        }
    }
    let responses = |p: usize, class: &str| -> Vec<f64> {
        exp.runs[p]
            .iter()
            .flat_map(|r| &r.by_runtime_class)
            .filter(|c| c.class == class && c.jobs > 0 && c.mean_response.is_finite())
            .map(|c| c.mean_response)
            .collect()
    };
    let scale = MEAN_RESPONSE.scale();
    let series: Vec<BarSeries> = focus
        .points
        .iter()
        .map(|&p| BarSeries {
            label: exp.plan.points[p].label.clone(),
            bars: classes
                .iter()
                .map(|(id, _)| {
                    let v: Vec<f64> = responses(p, id).iter().map(|r| r * scale.factor).collect();
                    (!v.is_empty()).then(|| {
                        let s = MetricStats::of("mean_response", &v);
                        Bar {
                            value: s.mean,
                            error: s.ci95,
                        }
                    })
                })
                .collect(),
        })
        .collect();
    let means = series
        .iter()
        .flat_map(|s| s.bars.iter().flatten().map(|b| b.value));
    let positive: Vec<f64> = means.filter(|v| *v > 0.0).collect();
    let (lo, hi) = positive
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let log_y = positive.len() > 1 && hi / lo > 100.0;
    let chart = BarChart {
        title: format!("Response time by runtime class{}", focus.suffix(exp)),
        x_label: "job runtime class".into(),
        y_label: format!("mean response time ({})", scale.unit),
        groups: classes.iter().map(|(_, name)| name.to_string()).collect(),
        log_y,
        zero_line: false,
        series,
    };
    let Some(svg) = drawn(chart::bar_chart_svg(&chart))? else {
        return Ok(None);
    };
    Ok(Some(Figure {
        section: "By runtime class".into(),
        file: "class-response.svg".into(),
        caption: format!(
            "Mean response time of the jobs of each runtime class{}, one bar per \
             scheduler: mean over replications, whiskers the 95% confidence interval{}.",
            at_focus(exp, focus),
            if log_y { "; logarithmic scale" } else { "" }
        ),
        svg,
    }))
}

/// Throughput and mean wait over replications: a histogram per scheduler with the mean
/// and its 95% confidence interval marked.
fn histogram_figures(exp: &Experiment, focus: &Focus) -> Result<Vec<Figure>, String> {
    let schedulers = exp.schedulers();
    let mut figures = Vec::new();
    for measure in [&JOBS_PER_WEEK, &PROC_HOURS_PER_WEEK, &MEAN_WAIT] {
        let scale = measure.scale();
        for &p in &focus.points {
            let Some(stats) = exp.stats(p, measure, scale) else {
                continue;
            };
            let label = &exp.plan.points[p].label;
            let n = schedulers.iter().position(|s| s == label).unwrap_or(p);
            let chart = Histogram {
                title: format!("{}: {label}{}", measure.title, focus.suffix(exp)),
                x_label: measure.label(scale),
                y_label: "replications".into(),
                bins: bins(&stats),
                marks: vec![(stats.mean, format!("mean {}", number(stats.mean)))],
            };
            let band = Band {
                lo: stats.mean - stats.ci95,
                hi: stats.mean + stats.ci95,
                label: "95% CI of the mean".into(),
            };
            if let Some(svg) = drawn(chart::histogram_svg(&chart, Some(&band)))? {
                figures.push(Figure {
                    section: "Over replications".into(),
                    file: svg_name(&["hist", measure.name, &n.to_string(), &slug(label)]),
                    caption: format!(
                        "{} ({}) of {label} in each of {} replications{}: the line marks \
                         the mean, the shaded band its 95% confidence interval.",
                        measure.title,
                        scale.unit,
                        stats.n,
                        at_focus(exp, focus)
                    ),
                    svg,
                });
            }
        }
    }
    Ok(figures)
}

/// The histogram's bins as drawn; a single value gets a narrow bin around it.
fn bins(stats: &MetricStats) -> Vec<(f64, f64, f64)> {
    if stats.max > stats.min {
        return stats
            .histogram
            .iter()
            .map(|b| (b.lo, b.hi, b.count as f64))
            .collect();
    }
    let half = if stats.mean == 0.0 {
        0.5
    } else {
        stats.mean.abs() * 0.01
    };
    vec![(stats.mean - half, stats.mean + half, stats.n as f64)]
}

/// The longest [`slug`]: file names hold 255 bytes, and the scheduler's number in a
/// figure's name keeps it apart from others (a label of 4,806 digits made a name too
/// long for the file system, a fuzzing finding).
const SLUG_MAX: usize = 40;

/// An SVG file's name: `parts` joined by `-`, each `_` a `-` too, as every report names
/// its figures (`["axis", "mean_wait"]`: `axis-mean-wait.svg`).
fn svg_name(parts: &[&str]) -> String {
    format!("{}.svg", parts.join("-").replace('_', "-"))
}

/// `label` reduced to lowercase letters, digits and `-`, for file names, at most
/// [`SLUG_MAX`] of them.
fn slug(label: &str) -> String {
    let mut s = String::new();
    for c in label.chars() {
        if s.len() == SLUG_MAX {
            break;
        }
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_matches('-');
    if s.is_empty() { "s".into() } else { s.into() }
}

// ---------------------------------------------------------------------------------------
// Numbers as text.

/// A value for titles and tables: integers without decimals, others with four
/// significant digits at most.
fn number(v: f64) -> String {
    significant(v, 4)
}

/// `mean ± ci` of a point's runs ([`with_interval`]).
fn mean_ci(stats: &MetricStats) -> String {
    let ci = if stats.n > 1 { stats.ci95 } else { 0.0 };
    with_interval(stats.mean, ci)
}

// ---------------------------------------------------------------------------------------
// The page: `templates/report.html` laid out from a [`Page`] (see [`crate::plot::html`]).

/// Everything `index.html` shows, as text and numbers ready to print.
#[derive(Serialize)]
struct Page<'a> {
    /// The experiment's name.
    name: &'a str,
    /// The sitesim that ran the experiment.
    version: &'a str,
    /// This sitesim, when it is another.
    report_version: Option<&'static str>,
    points: usize,
    replications: u32,
    /// The swept parameter's axis label, `None` without a sweep.
    axis: Option<String>,
    unfinished: Option<Unfinished>,
    /// The scenario file.
    scenario: &'a str,
    table: PointsTable,
    paired: Option<PairedTable>,
    /// The plots of the paired differences, under their table.
    paired_figures: Vec<PageFigure<'a>>,
    capacity: Option<CapacityTables>,
    /// The capacity search's plot, under its tables.
    capacity_figures: Vec<PageFigure<'a>>,
    /// The other plots, by section in page order.
    sections: Vec<Section<'a>>,
}

/// Consecutive plots of one section.
#[derive(Serialize)]
struct Section<'a> {
    title: &'a str,
    figures: Vec<PageFigure<'a>>,
}

/// A plot as the page shows it.
#[derive(Serialize)]
struct PageFigure<'a> {
    file: &'a str,
    caption: &'a str,
    width: u32,
    height: u32,
    /// The same plot in the `--figure-format` asked for besides SVG.
    also: Option<&'a str>,
}

/// `index.html`: the scenario, a table of every point, the capacity search and the plots.
fn page(
    exp: &Experiment,
    diffs: Option<&PairedDiffs>,
    figures: &[Figure],
    also: &[Option<String>],
) -> Result<String, String> {
    let plan = &exp.plan;
    let this = env!("CARGO_PKG_VERSION");
    let mut paired_figures = Vec::new();
    let mut capacity_figures = Vec::new();
    let mut sections: Vec<Section> = Vec::new();
    let style = crate::plot::chart::figure_style();
    for (f, also) in figures.iter().zip(also) {
        let figure = PageFigure {
            file: &f.file,
            caption: &f.caption,
            width: style.width,
            height: style.height,
            also: also.as_deref(),
        };
        match sections.last_mut() {
            _ if f.section == PAIRED_SECTION => paired_figures.push(figure),
            _ if f.section == CAPACITY_SECTION => capacity_figures.push(figure),
            Some(s) if s.title == f.section => s.figures.push(figure),
            _ => sections.push(Section {
                title: &f.section,
                figures: vec![figure],
            }),
        }
    }
    let page = Page {
        name: &plan.name,
        version: &plan.sitesim_version,
        report_version: (plan.sitesim_version != this).then_some(this),
        points: plan.points.len(),
        replications: plan.replications,
        axis: exp.has_axis().then(|| exp.axis_label()),
        unfinished: unfinished(exp),
        scenario: plan.scenario.trim_end(),
        table: points_table(exp),
        paired: diffs.map(|d| paired_table(exp, d)),
        paired_figures,
        capacity: exp.capacity.as_ref().map(capacity_tables),
        capacity_figures,
        sections,
    };
    html::render("report.html", &page)
}

/// Missing runs, and the schedulers left out of the plots at the focus.
#[derive(Serialize)]
struct Unfinished {
    missing: u64,
    expected: u64,
    /// The points with runs missing.
    points: Vec<MissingRuns>,
    absent: Option<Absent>,
}

/// A point's missing runs.
#[derive(Serialize)]
struct MissingRuns {
    /// The point's id, scheduler and swept value.
    point: String,
    missing: usize,
    replications: u32,
    /// The missing replications (`r0002`).
    runs: Vec<String>,
    /// Whether the point has no run at all, and so no plot.
    left_out: bool,
}

/// Schedulers without runs at the focus point.
#[derive(Serialize)]
struct Absent {
    /// `axis = x` of the focus, `None` without a sweep.
    at: Option<String>,
    schedulers: Vec<String>,
}

/// Missing runs and points left out of the plots, `None` when every run is there.
fn unfinished(exp: &Experiment) -> Option<Unfinished> {
    let expected = exp.plan.points.len() as u64 * u64::from(exp.plan.replications);
    let missing: u64 = exp.missing.iter().map(|m| m.len() as u64).sum();
    if missing == 0 {
        return None;
    }
    let points = exp
        .missing
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.is_empty())
        .map(|(p, m)| MissingRuns {
            point: exp.describe(p),
            missing: m.len(),
            replications: exp.plan.replications,
            runs: m.iter().map(|r| format!("r{r:04}")).collect(),
            left_out: exp.runs[p].is_empty(),
        })
        .collect();
    let absent = exp.focus().and_then(|focus| {
        let shown: Vec<&str> = focus
            .points
            .iter()
            .map(|&p| exp.plan.points[p].label.as_str())
            .collect();
        let schedulers: Vec<String> = exp
            .schedulers()
            .into_iter()
            .filter(|s| !shown.contains(s))
            .map(str::to_owned)
            .collect();
        (!schedulers.is_empty()).then(|| Absent {
            at: focus.x.map(|x| exp.at(x)),
            schedulers,
        })
    });
    Some(Unfinished {
        missing,
        expected,
        points,
        absent,
    })
}

/// Every point: scheduler, swept value, runs found, and the measures' means with their
/// 95% confidence intervals.
#[derive(Serialize)]
struct PointsTable {
    /// Whether a point's policy differs from its label: a column of policies.
    policies: bool,
    /// The measures' headers, with their units.
    measures: Vec<String>,
    rows: Vec<PointRow>,
}

#[derive(Serialize)]
struct PointRow {
    id: String,
    label: String,
    /// The scheduler spec.
    policy: String,
    /// The swept value.
    x: String,
    /// Runs found.
    found: usize,
    /// Fewer runs found than planned.
    incomplete: bool,
    /// Each measure's `mean ± ci`.
    cells: Vec<String>,
}

/// The table of every point.
fn points_table(exp: &Experiment) -> PointsTable {
    let plan = &exp.plan;
    let measures: Vec<&Metric> = measures().collect();
    let scales: Vec<Scale> = measures.iter().map(|m| m.scale()).collect();
    let rows = plan
        .points
        .iter()
        .enumerate()
        .map(|(p, point)| {
            let found = exp.runs[p].len();
            PointRow {
                id: point.id.clone(),
                label: point.label.clone(),
                policy: point.scheduler.clone(),
                x: swept(point.x),
                found,
                incomplete: found < plan.replications as usize,
                cells: measures
                    .iter()
                    .zip(&scales)
                    .map(|(m, s)| {
                        exp.stats(p, m, *s)
                            .map_or_else(|| NONE.into(), |st| mean_ci(&st))
                    })
                    .collect(),
            }
        })
        .collect();
    PointsTable {
        policies: plan.points.iter().any(|p| p.scheduler != p.label),
        measures: measures
            .iter()
            .zip(&scales)
            .map(|(m, s)| m.label(*s))
            .collect(),
        rows,
    }
}

/// A cell without a value.
const NONE: &str = "—";

/// A point's swept value as a cell.
fn swept(x: Option<f64>) -> String {
    x.map(number).unwrap_or_else(|| NONE.into())
}

/// A figure compared run by run.
struct PairedFigure {
    /// Its key in file names (`jobs_per_week`, `response_short`, ...).
    key: String,
    /// What it is, without its unit (`mean wait`).
    quantity: String,
    /// The unit it is shown in (`min`), empty for none.
    unit: &'static str,
    /// Its value in a run, in that unit.
    read: Box<dyn Fn(&RunRecord) -> f64>,
}

impl PairedFigure {
    /// `quantity (unit)`, or the quantity alone without a unit.
    fn header(&self) -> String {
        if self.unit.is_empty() {
            self.quantity.clone()
        } else {
            format!("{} ({})", self.quantity, self.unit)
        }
    }
}

/// The figures compared run by run, each metric in its scale (the class responses in
/// that of the mean response).
fn paired_figures() -> Vec<PairedFigure> {
    let mut out: Vec<PairedFigure> = [
        &JOBS_PER_WEEK,
        &PROC_HOURS_PER_WEEK,
        &UTILIZATION,
        &MEAN_WAIT,
        &JOBS_PER_SESSION,
    ]
    .into_iter()
    .map(|m| {
        let scale = m.scale();
        let read = m.read;
        PairedFigure {
            key: m.name.into(),
            quantity: m.quantity.into(),
            unit: scale.unit,
            read: Box::new(move |r| read(&r.figures) * scale.factor),
        }
    })
    .collect();
    let response = MEAN_RESPONSE.scale();
    for (class, what) in [("short", "runtime <= 1 min"), ("long", "runtime > 10 min")] {
        out.push(PairedFigure {
            key: format!("response_{class}"),
            quantity: format!("response of jobs of {what}"),
            unit: response.unit,
            read: Box::new(move |r| class_response(r, class) * response.factor),
        });
    }
    out
}

/// The mean response time of a run's jobs of runtime class `class`, seconds.
fn class_response(r: &RunRecord, class: &str) -> f64 {
    r.by_runtime_class
        .iter()
        .find(|c| c.class == class)
        .map_or(f64::NAN, |c| c.mean_response)
}

/// Differences from the first scheduler at the same point, replication by replication:
/// what the paired table shows and the paired plots draw. Replication r of every
/// scheduler faces the same users (common random numbers), so the paired differences
/// have much narrower intervals than the means' difference.
struct PairedDiffs {
    /// The first scheduler, the reference.
    first: String,
    figures: Vec<PairedFigure>,
    rows: Vec<PairedDiffRow>,
}

/// One point of another scheduler than the first, against the first's at the same
/// point.
struct PairedDiffRow {
    /// The point's index in the plan.
    point: usize,
    /// Replications with a run of both schedulers.
    pairs: usize,
    /// Each figure's differences over the pairs, `None` when a run lacks the figure.
    stats: Vec<Option<MetricStats>>,
}

impl PairedDiffs {
    /// The differences, `None` without a pair.
    fn of(exp: &Experiment) -> Option<PairedDiffs> {
        let plan = &exp.plan;
        let first = plan.points.first()?.label.clone();
        let reference = |p: usize| {
            let pt = &plan.points[p];
            plan.points.iter().position(|q| {
                q.label == first
                    && q.x == pt.x
                    && q.procs == pt.procs
                    && q.population == pt.population
            })
        };
        let figures = paired_figures();
        let mut rows = Vec::new();
        for p in 0..plan.points.len() {
            let Some(base) = reference(p).filter(|&b| b != p) else {
                continue;
            };
            let pairs: Vec<(&RunRecord, &RunRecord)> = exp.runs[p]
                .iter()
                .filter_map(|r| {
                    exp.runs[base]
                        .iter()
                        .find(|b| b.figures.replication == r.figures.replication)
                        .map(|b| (r, b))
                })
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let stats = figures
                .iter()
                .map(|f| {
                    let d: Vec<f64> = pairs
                        .iter()
                        .map(|(r, b)| (f.read)(r) - (f.read)(b))
                        .collect();
                    d.iter()
                        .all(|v| v.is_finite())
                        .then(|| MetricStats::of("difference", &d))
                })
                .collect();
            rows.push(PairedDiffRow {
                point: p,
                pairs: pairs.len(),
                stats,
            });
        }
        (!rows.is_empty()).then_some(PairedDiffs {
            first,
            figures,
            rows,
        })
    }

    /// The schedulers compared with the first, in the plan's order.
    fn others<'e>(&self, exp: &'e Experiment) -> Vec<&'e str> {
        exp.schedulers()
            .into_iter()
            .filter(|s| {
                self.rows
                    .iter()
                    .any(|r| exp.plan.points[r.point].label == *s)
            })
            .collect()
    }
}

/// Differences from the first scheduler at the same point, as the page's table shows
/// them.
#[derive(Serialize)]
struct PairedTable {
    /// The first scheduler, the reference.
    first: String,
    /// The figures' headers, with their units.
    columns: Vec<String>,
    rows: Vec<PairedRow>,
}

#[derive(Serialize)]
struct PairedRow {
    label: String,
    /// The swept value.
    x: String,
    /// Replications with a run of both schedulers.
    pairs: usize,
    /// Each figure's mean difference ± ci.
    cells: Vec<String>,
}

/// The paired table of `diffs`.
fn paired_table(exp: &Experiment, diffs: &PairedDiffs) -> PairedTable {
    PairedTable {
        first: diffs.first.clone(),
        columns: diffs.figures.iter().map(PairedFigure::header).collect(),
        rows: diffs
            .rows
            .iter()
            .map(|row| {
                let point = &exp.plan.points[row.point];
                PairedRow {
                    label: point.label.clone(),
                    x: swept(point.x),
                    pairs: row.pairs,
                    cells: row
                        .stats
                        .iter()
                        .map(|s| s.as_ref().map_or_else(|| NONE.into(), mean_ci))
                        .collect(),
                }
            })
            .collect(),
    }
}

/// The section of the page the paired plots belong to: under the paired table.
const PAIRED_SECTION: &str = "Paired differences";

/// The file the paired plots are drawn from.
const PAIRED_CSV: &str = "paired.csv";

/// A row of [`PAIRED_CSV`]: one scheduler's mean difference from the first at one
/// point, in one figure, with the half-width of its 95% interval, as plotted.
#[derive(Serialize, Default)]
struct PairedCsvRow {
    figure: String,
    unit: String,
    scheduler: String,
    reference: String,
    /// The swept value, empty without a sweep.
    x: Option<f64>,
    pairs: usize,
    mean: f64,
    ci95: f64,
}

/// [`PAIRED_CSV`]'s text: every cell of the paired table with a value, at full
/// precision.
fn paired_csv(exp: &Experiment, diffs: &PairedDiffs) -> Result<Vec<u8>, String> {
    let rows = diffs.figures.iter().enumerate().flat_map(|(f, figure)| {
        diffs.rows.iter().filter_map(move |row| {
            let stats = row.stats[f].as_ref()?;
            let point = &exp.plan.points[row.point];
            Some(PairedCsvRow {
                figure: figure.key.clone(),
                unit: figure.unit.into(),
                scheduler: point.label.clone(),
                reference: diffs.first.clone(),
                x: point.x.filter(|_| exp.has_axis()),
                pairs: row.pairs,
                mean: stats.mean,
                ci95: stats.ci95,
            })
        })
    });
    let mut out = Vec::new();
    write_csv(&mut out, rows).map_err(|e| format!("{PAIRED_CSV}: {e}"))?;
    Ok(out)
}

/// One plot per paired figure: the mean difference from the first scheduler, with the
/// 95% interval of the paired differences, and a line at 0. Against the swept axis, a
/// line per other scheduler; without a sweep, a bar per other scheduler.
fn paired_plots(exp: &Experiment, diffs: &PairedDiffs) -> Result<Vec<Figure>, String> {
    let others = diffs.others(exp);
    let first = &diffs.first;
    let mut figures = Vec::new();
    for (f, figure) in diffs.figures.iter().enumerate() {
        let title = format!("Δ {} against {first}", figure.quantity);
        let y_label = if figure.unit.is_empty() {
            format!("Δ {}", figure.quantity)
        } else {
            format!("Δ {} ({})", figure.quantity, figure.unit)
        };
        // A scheduler's rows: swept value, mean difference and its interval.
        let estimates = |label: &str| -> Vec<(Option<f64>, f64, f64)> {
            diffs
                .rows
                .iter()
                .filter(|r| exp.plan.points[r.point].label == label)
                .filter_map(|r| {
                    let s = r.stats[f].as_ref()?;
                    Some((exp.plan.points[r.point].x, s.mean, s.ci95))
                })
                .collect()
        };
        let svg = if exp.has_axis() {
            let series = others
                .iter()
                .filter_map(|&label| error_series(label, exp.colour_of(label), estimates(label)))
                .collect();
            drawn(chart::error_line_chart_svg(&ErrorLineChart {
                title,
                x_label: exp.axis_label(),
                y_label,
                y_from_zero: false,
                zero_line: true,
                y_range: None,
                series,
                references: Vec::new(),
            }))?
        } else {
            let bars = others
                .iter()
                .map(|&label| {
                    estimates(label)
                        .first()
                        .map(|&(_, value, error)| Bar { value, error })
                })
                .collect();
            drawn(chart::bar_chart_svg(&BarChart {
                title,
                x_label: "scheduler".into(),
                y_label,
                groups: others.iter().map(|s| s.to_string()).collect(),
                log_y: false,
                zero_line: true,
                series: vec![BarSeries {
                    label: format!("minus {first}: mean, 95% CI"),
                    bars,
                }],
            }))?
        };
        let Some(svg) = svg else { continue };
        let against = if exp.has_axis() {
            format!(" against {}, one line per scheduler", exp.axis_label())
        } else {
            ", one bar per scheduler".into()
        };
        figures.push(Figure {
            section: PAIRED_SECTION.into(),
            file: svg_name(&["paired", &figure.key]),
            caption: format!(
                "Difference in {}: each scheduler's run minus {first}'s run of the same \
                 replication{against}: mean over the pairs, error bars the 95% confidence \
                 interval of the paired differences; the line marks no difference.",
                figure.header()
            ),
            svg,
        });
    }
    Ok(figures)
}

/// `capacity.json` as the page shows it: the search (metric, target, the machine the
/// population was sized for) as one table, the answers as another, and each scheduler's
/// probes by machine size; the metric in its scale (durations in hours), every header
/// with its unit. A file that is not a capacity search's result is said to be one.
#[derive(Serialize)]
struct CapacityTables {
    /// Why the file could not be read as a capacity search's result.
    text: Option<String>,
    fields: Vec<CapacityField>,
    tables: Vec<CapacityTable>,
}

/// A line of the search's table: what and its value, with its unit.
#[derive(Serialize)]
struct CapacityField {
    name: String,
    value: String,
}

/// A table: its name, headers (with units) and cells.
#[derive(Serialize)]
struct CapacityTable {
    name: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// The capacity search's tables.
fn capacity_tables(capacity: &Value) -> CapacityTables {
    let c = match serde_json::from_value::<CapacityResult>(capacity.clone()) {
        Ok(c) => c,
        Err(e) => {
            return CapacityTables {
                text: Some(format!(
                    "{CAPACITY_FILE} is not the result of a capacity search: {e}"
                )),
                fields: Vec::new(),
                tables: Vec::new(),
            };
        }
    };
    let known = metric(&c.metric).ok();
    let scale = c.scale().unwrap_or(Scale {
        unit: "",
        factor: 1.0,
    });
    let value = |v: f64| sig3(v * scale.factor);
    // As the terminal prints the answers: the mean is compared with the target, so it
    // keeps its three digits whatever its interval.
    let mean_ci =
        |p: &crate::experiment::study::Probe| format!("{} ± {}", value(p.mean), value(p.ci95));
    let with_unit = |v: f64| match scale.unit {
        "" => value(v),
        unit => format!("{} {unit}", value(v)),
    };
    let quantity = known.map_or(c.metric.as_str(), |m| m.quantity);
    let header = format!(
        "{}, mean ± 95% CI",
        known.map_or_else(|| c.metric.clone(), |m| m.label(scale))
    );
    let fields = vec![
        CapacityField {
            name: "metric".into(),
            value: format!("{quantity} ({})", c.metric),
        },
        CapacityField {
            name: "target".into(),
            value: format!(
                "{} {}",
                if c.below() { "at most" } else { "at least" },
                with_unit(c.target)
            ),
        },
        CapacityField {
            name: "population sized for".into(),
            value: format!("{} processors", c.population_procs),
        },
    ];
    let answers = CapacityTable {
        name: "Answers".into(),
        columns: vec![
            "scheduler".into(),
            "machine (processors)".into(),
            header.clone(),
            "for 95% confidence (processors)".into(),
        ],
        rows: c
            .answers
            .iter()
            .map(|a| {
                let sizes = c.sizes(a);
                vec![
                    a.scheduler.clone(),
                    sizes
                        .mean
                        .map_or_else(|| "none in range".into(), |p| p.procs.to_string()),
                    sizes.mean.map_or_else(|| NONE.into(), mean_ci),
                    sizes
                        .confident
                        .map_or_else(|| "none probed".into(), |p| p.procs.to_string()),
                ]
            })
            .collect(),
    };
    let mut tables = vec![answers];
    for a in &c.answers {
        let mut probes: Vec<_> = a.probes.iter().collect();
        probes.sort_by_key(|p| p.procs);
        tables.push(CapacityTable {
            name: format!("Machines probed for {}", a.scheduler),
            columns: vec![
                "machine (processors)".into(),
                header.clone(),
                "mean meets the target".into(),
                "throughput (jobs/week)".into(),
                "work done (processor-hours/week)".into(),
            ],
            rows: probes
                .into_iter()
                .map(|p| {
                    vec![
                        p.procs.to_string(),
                        mean_ci(p),
                        if p.passes { "yes" } else { "no" }.into(),
                        sig3(p.jobs_per_week),
                        sig3(p.proc_hours_per_week),
                    ]
                })
                .collect(),
        });
    }
    CapacityTables {
        text: None,
        fields,
        tables,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(number(4.0), "4");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(1.234567), "1.235");
        assert_eq!(number(1234.5678), "1235");
    }

    #[test]
    fn means_carry_the_precision_of_their_interval() {
        let s = MetricStats::of("x", &[10.0, 20.0, 30.0]);
        assert_eq!(mean_ci(&s), "20 ± 25");
        let s = MetricStats::of("x", &[1.0, 1.1, 1.2]);
        assert_eq!(mean_ci(&s), "1.10 ± 0.25");
        let s = MetricStats::of("x", &[12.345]);
        assert_eq!(mean_ci(&s), "12.3");
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("EASY (α=0.5)"), "easy-0-5");
        assert_eq!(slug("ßß"), "s");
        assert_eq!(slug(&"9".repeat(4806)), "9".repeat(SLUG_MAX));
    }
}
