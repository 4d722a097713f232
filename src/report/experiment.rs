//! The report of an experiment: the plots and the page a reader needs from an
//! experiment's results directory (see [`crate::results::runs`]), written to
//! `RESULTS_DIR/report/`:
//!
//! ```text
//! paired.csv                  the paired plots' values: the paired table at full precision
//! paired-<figure>.svg         each scheduler minus the first, run by run (common random
//!                             numbers): mean difference with 95% CI, against the swept
//!                             axis (a line per scheduler) or, without a sweep, a bar each
//! capacity.svg                with a capacity search's capacity.json: its metric against
//!                             the machine sizes probed, the target and the answers marked
//! axis-<metric>.svg           against the swept axis (with a sweep): mean with 95% CI
//! hour-queue.svg              by local hour of the day, at the focus (below)
//! hour-utilization.svg
//! class-response.svg          response time by runtime class, at the focus
//! box-<metric>.svg            over replications, a box per scheduler, at the focus
//! index.html                  table of every point, capacity search, plots, scenario
//! ```
//!
//! The focus, the point drawn by hour, runtime class and replication, is every point
//! without a sweep; along a population sweep, the first population at which a
//! scheduler's throughput levels off (Feitelson 2021, §4.4: where schedulers part,
//! before every one is saturated); along another axis, its middle value. Every
//! scheduler keeps one colour and marker in every plot, and the legends stand right of
//! the plots. SVG names are words joined by `-` (a metric's `mean_wait` becomes
//! `mean-wait`), as in every other report.
//!
//! The report reads what is there: missing runs (an unfinished experiment) are counted and
//! listed, and a point without runs is left out of the plots. Statistics over
//! replications are [`MetricStats`] (mean, 95% confidence interval by Student's t). The
//! same results give byte-identical files. The plots are drawn by
//! [`crate::plot::chart`]; the page is a [`page::Page`], laid out by the template of
//! every report (`templates/run.html`).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::compare::box_of;
use super::page::{self, Link, Section, Table, sig3, write};
use crate::experiment::study::CapacityResult;
use crate::plot::chart::{
    self as chart, Bar, BarChart, BarSeries, BoxPlot, ErrorLineChart, ErrorSeries, Estimate,
    LineChart, PlotError, RefAt, Reference, Series, XTicks,
};
use crate::results::metric::{
    JOBS_PER_SESSION, JOBS_PER_WEEK, MEAN_RESPONSE, MEAN_WAIT, Metric, MetricStats,
    PROC_HOURS_PER_WEEK, SESSION_HOURS, Scale, UTILIZATION, metric,
};
use crate::results::output::create_subfolder;
use crate::results::runs::{self, RunPlan, RunRecord};
use crate::textfmt::{significant, with_interval, write_csv};
use crate::time::{WEEK, parse_duration};

/// The report's directory under the results directory.
pub const REPORT_DIR: &str = "report";

/// The optional result of a capacity search in the results directory.
pub const CAPACITY_FILE: &str = "capacity.json";

/// Writes the report of the experiment in `dir` to `dir/report/`: `paired.csv` (when
/// two schedulers have runs of the same replication), the SVG plots, then `index.html`.
/// Returns the files written, in that order.
pub fn write_report(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let exp = Experiment::load(dir)?;
    let out = dir.join(REPORT_DIR);
    create_subfolder(&out)?;
    let diffs = PairedDiffs::of(&exp);
    let mut written = Vec::new();
    let mut figures = Vec::new();
    if let Some(diffs) = &diffs {
        written.push(write(&out.join(PAIRED_CSV), &paired_csv(&exp, diffs)?)?);
        figures = paired_plots(&exp, diffs)?;
    }
    let focus = exp.focus();
    figures.extend(self::figures(&exp, focus.as_ref())?);
    written.extend(page(&exp, diffs.as_ref(), focus.as_ref(), figures).write(&out)?);
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

    /// The colour of scheduler `label` in every chart: its place among the schedulers,
    /// so that a chart leaving some out (the paired differences, without the first) does
    /// not give it another's.
    fn colour_of(&self, label: &str) -> Option<usize> {
        self.schedulers().iter().position(|&l| l == label)
    }

    /// The scheduler labels, in the plan's order.
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

    /// The points plotted by hour, by runtime class and over replications: every point
    /// with runs without a sweep; with one, those at the swept value of [`Self::focus_x`].
    /// `None` when no point has runs.
    fn focus(&self) -> Option<Focus> {
        if !self.has_axis() {
            let points: Vec<usize> = (0..self.plan.points.len())
                .filter(|&p| !self.runs[p].is_empty())
                .collect();
            return (!points.is_empty()).then_some(Focus {
                points,
                x: None,
                why: "",
            });
        }
        let (x, why) = self.focus_x()?;
        let points = (0..self.plan.points.len())
            .filter(|&p| !self.runs[p].is_empty() && self.plan.points[p].x == Some(x))
            .collect();
        Some(Focus {
            points,
            x: Some(x),
            why,
        })
    }

    /// The swept value the focus is at, and why: along a population sweep, the first
    /// population at which a scheduler's mean throughput comes within 5% of the most it
    /// reaches on the sweep (where it levels off, as `summary.json`'s `plateau_from`
    /// says), so that the schedulers are compared where they part rather than where all
    /// are saturated; along another axis, the middle of the values with runs (the lower
    /// of two).
    fn focus_x(&self) -> Option<(f64, &'static str)> {
        let with_runs = |p: &usize| !self.runs[*p].is_empty();
        let mut xs: Vec<f64> = (0..self.plan.points.len())
            .filter(with_runs)
            .filter_map(|p| self.plan.points[p].x)
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        if self.plan.axis.as_deref() != Some("population") {
            return xs
                .get(xs.len().saturating_sub(1) / 2)
                .map(|&x| (x, "the middle swept value"));
        }
        let scale = JOBS_PER_WEEK.scale();
        let levels_off = |label: &str| -> Option<f64> {
            let means: Vec<(f64, f64)> = (0..self.plan.points.len())
                .filter(with_runs)
                .filter(|&p| self.plan.points[p].label == label)
                .filter_map(|p| {
                    Some((
                        self.plan.points[p].x?,
                        self.stats(p, &JOBS_PER_WEEK, scale)?.mean,
                    ))
                })
                .collect();
            let top = means.iter().map(|m| m.1).fold(f64::NEG_INFINITY, f64::max);
            means
                .iter()
                .filter(|m| m.1 >= 0.95 * top)
                .map(|m| m.0)
                .min_by(f64::total_cmp)
        };
        let first = self
            .schedulers()
            .into_iter()
            .filter_map(levels_off)
            .min_by(f64::total_cmp)?;
        Some(if Some(&first) == xs.last() {
            (
                first,
                "the largest population: no scheduler's throughput levels off before",
            )
        } else {
            (
                first,
                "the first population at which a scheduler's throughput levels off",
            )
        })
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
    /// Why that value, for captions (empty without a sweep).
    why: &'static str,
}

impl Focus {
    /// The focus point of scheduler `label`, if it has runs there.
    fn of(&self, exp: &Experiment, label: &str) -> Option<usize> {
        self.points
            .iter()
            .copied()
            .find(|&p| exp.plan.points[p].label == label)
    }

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
fn figures(exp: &Experiment, focus: Option<&Focus>) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    if let Some(capacity) = exp.capacity.as_ref().and_then(capacity_result) {
        figures.extend(capacity_figure(&capacity)?);
    }
    if exp.has_axis() {
        figures.extend(axis_figures(exp)?);
    }
    if let Some(focus) = focus {
        figures.extend(hour_figures(exp, focus)?);
        figures.extend(class_figure(exp, focus)?);
        figures.extend(box_figures(exp, focus)?);
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
            y_range: Some(measure.range(scale)),
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
        y_range: known.map(|m| m.range(scale)),
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

/// Mean queue length and utilization by local hour at the focus, a line per scheduler
/// (Feitelson 2021, Fig. 21 compares EASY's queue with CREASY's).
fn hour_figures(exp: &Experiment, focus: &Focus) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    for kind in [HOUR_QUEUE, HOUR_UTILIZATION] {
        let caption = format!(
            "{} in each local hour of the day{}, one line per scheduler: mean over \
             replications.",
            kind.what,
            at_focus(exp, focus)
        );
        figures.extend(hour_figure(exp, focus, &kind, caption)?);
    }
    Ok(figures)
}

/// `kind` by local hour at the points of `at`, a line per scheduler in its colour (a
/// scheduler without runs there keeps its colour and has no line).
fn hour_figure(
    exp: &Experiment,
    at: &Focus,
    kind: &HourKind,
    caption: String,
) -> Result<Option<Figure>, String> {
    let series = exp
        .schedulers()
        .into_iter()
        .map(|label| Series {
            label: label.to_owned(),
            points: at
                .of(exp, label)
                .map(|p| hourly_means(&exp.runs[p], kind.get))
                .unwrap_or_default(),
        })
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
        file: format!("{}.svg", kind.file),
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
        .map(|x| format!(" at {} ({})", exp.at(x), focus.why))
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
    // A bar series per scheduler with runs at the focus, in its colour.
    let series: Vec<BarSeries> = exp
        .schedulers()
        .into_iter()
        .filter_map(|label| Some((label, focus.of(exp, label)?)))
        .map(|(label, p)| BarSeries {
            label: label.to_owned(),
            colour: exp.colour_of(label),
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

/// Throughput, work and mean wait over replications: a box per scheduler, in its
/// colour.
fn box_figures(exp: &Experiment, focus: &Focus) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    for measure in [&JOBS_PER_WEEK, &PROC_HOURS_PER_WEEK, &MEAN_WAIT] {
        let scale = measure.scale();
        let boxes: Vec<_> = exp
            .schedulers()
            .into_iter()
            .filter_map(|label| {
                let p = focus.of(exp, label)?;
                let mut values: Vec<f64> = exp.runs[p]
                    .iter()
                    .map(|r| (measure.read)(&r.figures) * scale.factor)
                    .filter(|v| v.is_finite())
                    .collect();
                values.sort_by(f64::total_cmp);
                let colour = exp.colour_of(label)?;
                (!values.is_empty()).then(|| box_of(label, colour, &values))
            })
            .collect();
        let chart = BoxPlot {
            title: format!("{} over replications{}", measure.title, focus.suffix(exp)),
            x_label: "scheduler".into(),
            y_label: measure.label(scale),
            y_from_zero: measure.from_zero,
            boxes,
        };
        if let Some(svg) = drawn(chart::box_plot_svg(&chart))? {
            figures.push(Figure {
                section: "Over replications".into(),
                file: svg_name(&["box", measure.name]),
                caption: format!(
                    "{} ({}) of each scheduler's {} replications{}: the box from the first \
                     to the third quartile, the median across it, the mean a black diamond; \
                     whiskers at the furthest replications within 1.5 interquartile ranges \
                     of the box (Tukey). The table gives each mean's 95% confidence interval.",
                    measure.title,
                    scale.unit,
                    exp.plan.replications,
                    at_focus(exp, focus)
                ),
                svg,
            });
        }
    }
    Ok(figures)
}

/// An SVG file's name: `parts` joined by `-`, each `_` a `-` too, as every report names
/// its figures (`["axis", "mean_wait"]`: `axis-mean-wait.svg`).
fn svg_name(parts: &[&str]) -> String {
    format!("{}.svg", parts.join("-").replace('_', "-"))
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
// The page: a [`page::Page`] laid out by `templates/run.html`, as every other report's.

/// `index.html`: the runs missing, a table of every point, the paired differences, the
/// capacity search, the plots by section, then the scenario.
fn page(
    exp: &Experiment,
    diffs: Option<&PairedDiffs>,
    focus: Option<&Focus>,
    figures: Vec<Figure>,
) -> page::Page {
    let plan = &exp.plan;
    let mut paired_figures = Vec::new();
    let mut capacity_figures = Vec::new();
    let mut plots: Vec<Section> = Vec::new();
    for f in figures {
        let figure = page::Figure::new(f.file, f.caption, f.svg);
        match plots.last_mut() {
            _ if f.section == PAIRED_SECTION => paired_figures.push(figure),
            _ if f.section == CAPACITY_SECTION => capacity_figures.push(figure),
            Some(s) if s.title == f.section => s.figures.push(figure),
            _ => plots.push(Section {
                title: f.section,
                figures: vec![figure],
                ..Section::default()
            }),
        }
    }
    let mut facts = vec![
        ("points".to_string(), plan.points.len().to_string()),
        (
            "replications per point".into(),
            plan.replications.to_string(),
        ),
    ];
    let procs = plan.points.iter().map(|p| p.procs);
    if let (Some(least), Some(most)) = (procs.clone().min(), procs.max()) {
        let machine = if least == most {
            format!("{least} processors")
        } else {
            format!("{least} to {most} processors")
        };
        facts.push(("machine".into(), machine));
    }
    if let Some(weeks) = scenario_weeks(&plan.scenario) {
        facts.push((
            "duration".into(),
            format!("{} weeks per run", number(weeks)),
        ));
    }
    if exp.has_axis() {
        facts.push(("swept".into(), exp.axis_label()));
    }
    if let Some(focus) = focus
        && let Some(x) = focus.x
    {
        facts.push((
            "by hour, runtime class and replication".into(),
            format!("at {} ({})", exp.at(x), focus.why),
        ));
    }
    facts.push(("run by".into(), format!("sitesim {}", plan.sitesim_version)));
    let mut sections: Vec<Section> = unfinished(exp, focus).into_iter().collect();
    sections.push(points_section(exp));
    if let Some(diffs) = diffs {
        sections.push(paired_section(exp, diffs, paired_figures));
    }
    if let Some(capacity) = &exp.capacity {
        sections.extend(capacity_sections(capacity, capacity_figures));
    }
    if plots.is_empty() {
        plots.push(Section {
            title: "Plots".into(),
            text: "No runs found: nothing to plot.".into(),
            ..Section::default()
        });
    }
    sections.extend(plots);
    sections.push(Section {
        title: "Scenario".into(),
        text: "The scenario file the experiment ran.".into(),
        code: plan.scenario.trim_end().into(),
        ..Section::default()
    });
    page::Page {
        title: plan.name.clone(),
        version: env!("CARGO_PKG_VERSION"),
        facts,
        sections,
    }
}

/// A run's length in weeks, from the scenario's `duration`; `None` when it gives none.
fn scenario_weeks(scenario: &str) -> Option<f64> {
    let table: toml::Table = toml::from_str(scenario).ok()?;
    let duration = parse_duration(table.get("duration")?.as_str()?).ok()?;
    Some(duration as f64 / WEEK as f64)
}

/// The runs missing, and the schedulers left out of the plots at the focus: a section,
/// `None` when every run is there.
fn unfinished(exp: &Experiment, focus: Option<&Focus>) -> Option<Section> {
    let expected = exp.plan.points.len() as u64 * u64::from(exp.plan.replications);
    let missing: u64 = exp.missing.iter().map(|m| m.len() as u64).sum();
    if missing == 0 {
        return None;
    }
    let rows = exp
        .missing
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.is_empty())
        .map(|(p, m)| {
            let runs: Vec<String> = m.iter().map(|r| format!("r{r:04}")).collect();
            vec![
                exp.describe(p),
                format!("{} of {}", m.len(), exp.plan.replications),
                runs.join(", "),
                if exp.runs[p].is_empty() {
                    "no runs: left out of the plots"
                } else {
                    "over the runs found"
                }
                .into(),
            ]
        })
        .collect();
    let mut text =
        format!("{missing} of {expected} runs missing; statistics are over the runs found.");
    if let Some(focus) = focus {
        let shown: Vec<&str> = focus
            .points
            .iter()
            .map(|&p| exp.plan.points[p].label.as_str())
            .collect();
        let absent: Vec<&str> = exp
            .schedulers()
            .into_iter()
            .filter(|s| !shown.contains(s))
            .collect();
        if !absent.is_empty() {
            let at = focus
                .x
                .map(|x| format!(" at {}", exp.at(x)))
                .unwrap_or_default();
            text.push_str(&format!(
                " No runs{at} for {}: not in the plots by hour, by runtime class and over \
                 replications.",
                absent.join(", ")
            ));
        }
    }
    Some(Section {
        title: "Unfinished".into(),
        text,
        tables: vec![Table {
            head: vec![
                "point".into(),
                "runs missing".into(),
                "replications missing".into(),
                "statistics".into(),
            ],
            rows,
        }],
        ..Section::default()
    })
}

/// Every point: scheduler, swept value, runs found, and the measures' means with their
/// 95% confidence intervals.
fn points_section(exp: &Experiment) -> Section {
    let plan = &exp.plan;
    let policies = plan.points.iter().any(|p| p.scheduler != p.label);
    let measures: Vec<&Metric> = measures().collect();
    let scales: Vec<Scale> = measures.iter().map(|m| m.scale()).collect();
    let mut head = vec!["point".to_string(), "scheduler".into()];
    if policies {
        head.push("policy".into());
    }
    if exp.has_axis() {
        head.push(exp.axis_label());
    }
    head.push("runs found / expected".into());
    head.extend(measures.iter().zip(&scales).map(|(m, s)| m.label(*s)));
    let rows = plan
        .points
        .iter()
        .enumerate()
        .map(|(p, point)| {
            let mut cells = vec![point.id.clone(), point.label.clone()];
            if policies {
                cells.push(point.scheduler.clone());
            }
            if exp.has_axis() {
                cells.push(swept(point.x));
            }
            cells.push(format!("{} / {}", exp.runs[p].len(), plan.replications));
            cells.extend(measures.iter().zip(&scales).map(|(m, s)| {
                exp.stats(p, m, *s)
                    .map_or_else(|| NONE.into(), |st| mean_ci(&st))
            }));
            cells
        })
        .collect();
    Section {
        title: "Points".into(),
        text: "Means over the replications found ± the half-width of their 95% confidence \
               interval (Student's t); a single run shows its value alone."
            .into(),
        tables: vec![Table { head, rows }],
        ..Section::default()
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

/// The section of the paired differences: their table (mean difference ± the
/// half-width of its 95% interval per figure), its CSV file and `figures`, its plots.
fn paired_section(exp: &Experiment, diffs: &PairedDiffs, figures: Vec<page::Figure>) -> Section {
    let first = &diffs.first;
    let mut head = vec!["scheduler".to_string()];
    if exp.has_axis() {
        head.push(exp.axis_label());
    }
    head.push("pairs".into());
    head.extend(diffs.figures.iter().map(|f| format!("Δ {}", f.header())));
    let rows = diffs
        .rows
        .iter()
        .map(|row| {
            let point = &exp.plan.points[row.point];
            let mut cells = vec![point.label.clone()];
            if exp.has_axis() {
                cells.push(swept(point.x));
            }
            cells.push(row.pairs.to_string());
            cells.extend(
                row.stats
                    .iter()
                    .map(|s| s.as_ref().map_or_else(|| NONE.into(), mean_ci)),
            );
            cells
        })
        .collect();
    Section {
        title: format!("Paired differences from {first}"),
        text: format!(
            "Each scheduler's run minus {first}'s run of the same replication (the same \
             users: common random numbers); mean over the pairs ± the half-width of its \
             95% confidence interval."
        ),
        tables: vec![Table { head, rows }],
        figures,
        links: vec![Link {
            href: PAIRED_CSV.into(),
            text: PAIRED_CSV.into(),
        }],
        ..Section::default()
    }
}

/// The section of the page the paired plots belong to: under the paired table.
const PAIRED_SECTION: &str = "Paired differences";

/// The file the paired plots are drawn from.
const PAIRED_CSV: &str = "paired.csv";

/// A row of [`PAIRED_CSV`]: one scheduler's mean difference from the first at one
/// point, in one figure, with the half-width of its 95% interval, as plotted.
#[derive(serde::Serialize, Default)]
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
            // One group, a bar per scheduler in its colour.
            let series = others
                .iter()
                .map(|&label| BarSeries {
                    label: label.to_owned(),
                    colour: exp.colour_of(label),
                    bars: vec![
                        estimates(label)
                            .first()
                            .map(|&(_, value, error)| Bar { value, error }),
                    ],
                })
                .collect();
            drawn(chart::bar_chart_svg(&BarChart {
                title,
                x_label: "scheduler".into(),
                y_label,
                groups: vec![format!("minus {first}: mean, 95% CI")],
                log_y: false,
                zero_line: true,
                series,
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
/// population was sized for) and the answers as tables in a section with `figures`, then
/// each scheduler's probes by machine size in a section of its own; the metric in its
/// scale (durations in hours), every header with its unit. A file that is not a capacity
/// search's result is said to be one.
fn capacity_sections(capacity: &Value, figures: Vec<page::Figure>) -> Vec<Section> {
    let mut search = Section {
        title: CAPACITY_SECTION.into(),
        figures,
        ..Section::default()
    };
    let c = match serde_json::from_value::<CapacityResult>(capacity.clone()) {
        Ok(c) => c,
        Err(e) => {
            search.text = format!("{CAPACITY_FILE} is not the result of a capacity search: {e}");
            return vec![search];
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
    search.text = "The smallest machine whose mean meets the target, and the smallest whose \
                   whole 95% confidence interval does, of the sizes probed."
        .into();
    let the_search = Table {
        head: vec![
            "metric".into(),
            "target".into(),
            "population sized for (processors)".into(),
        ],
        rows: vec![vec![
            format!("{quantity} ({})", c.metric),
            format!(
                "{} {}",
                if c.below() { "at most" } else { "at least" },
                with_unit(c.target)
            ),
            c.population_procs.to_string(),
        ]],
    };
    let answers = Table {
        head: vec![
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
    search.tables = vec![the_search, answers];
    let mut sections = vec![search];
    for a in &c.answers {
        let mut probes: Vec<_> = a.probes.iter().collect();
        probes.sort_by_key(|p| p.procs);
        sections.push(Section {
            title: format!("Machines probed for {}", a.scheduler),
            tables: vec![Table {
                head: vec![
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
            }],
            ..Section::default()
        });
    }
    sections
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
}
