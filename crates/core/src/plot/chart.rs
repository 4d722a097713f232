//! SVG charts of results: lines against a numeric axis (optionally with error bars or
//! shaded error bands, and labelled reference lines), grouped bars with error bars, histograms with marked
//! values, and shares with their intervals against a logarithmic axis under a fitted
//! curve.
//!
//! Drawn with `plotters`; text is measured with an embedded subset of DejaVu Sans
//! (`assets/fonts`), so a chart is laid out the same on every machine, needs no system
//! font, and the same data give byte-identical files. Colours are the Okabe–Ito palette,
//! which stays distinct for colour-blind readers, and each series also has its own marker
//! shape (lines) or fill pattern (bars) so that series stay apart in greyscale print. A
//! chart of several series has its legend in a column right of the plot, where it hides
//! no data; one series' legend goes to the corner of the plot where it hides the least.
//!
//! Each chart kind has a `*_svg` function that returns the document; its callers write
//! the file (atomically: `results::output`, a layer above this one).

use std::cell::Cell;
use std::ops::Range;
use std::sync::Once;

use plotters::coord::combinators::LogCoord;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::element::{DashedPathElement, Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendCoord, DrawingErrorKind};

pub use super::export::FigureFormat;

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Nothing to draw.
    #[error("{file}: no data to plot")]
    Empty {
        /// The chart's file (its title when no file is involved).
        file: String,
    },
    /// A drawing or file error.
    #[error("{file}: {message}")]
    Draw {
        /// The chart's file (its title when no file is involved).
        file: String,
        /// What went wrong.
        message: String,
    },
}

/// One line of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its legend.
    pub label: String,
    /// Its points, in x order.
    pub points: Vec<(f64, f64)>,
}

/// How the x axis is labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XTicks {
    /// Plain numbers.
    #[default]
    Numbers,
    /// Hours of the week from Monday 00:00: ticks at each midnight, named by day.
    HourOfWeek,
    /// Hours of the day, 0–23: the axis spans the whole day, a tick every two hours.
    HourOfDay,
    /// A logarithmic axis drawn from base-10 logarithms: x values are log10 of the
    /// quantity, and whole powers are labelled by the quantity (1, 10, 100, ...).
    Log10,
    /// Calendar days: x values are days from 1970-01-01 (a local calendar's days),
    /// labelled by their dates (`1996-09-23`).
    Dates,
}

/// A line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// Title above the plot.
    pub title: String,
    /// The x axis' name, with its unit.
    pub x_label: String,
    /// The y axis' name, with its unit.
    pub y_label: String,
    /// How the x axis is labelled.
    pub x_ticks: XTicks,
    /// A logarithmic y axis (values at or below 0 are left out).
    pub log_y: bool,
    /// The y axis starts at 0 (ignored on a logarithmic axis).
    pub y_from_zero: bool,
    /// The lines.
    pub series: Vec<Series>,
}

/// An estimate with its uncertainty: a point of an [`ErrorSeries`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Where on the x axis.
    pub x: f64,
    /// The estimate (say, a mean over replications).
    pub y: f64,
    /// Half the error bar's length (say, the half-width of a 95% confidence interval);
    /// 0 draws no bar.
    pub error: f64,
}

/// One line of an [`ErrorLineChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorSeries {
    /// Its legend.
    pub label: String,
    /// Its points, in x order.
    pub points: Vec<Estimate>,
    /// Its colour and marker, by index into the palette, so that one thing (a scheduler)
    /// keeps them across charts that leave some out; `None`: its place in the chart.
    pub colour: Option<usize>,
}

/// A line chart of estimates: each point marked, with a vertical error bar.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorLineChart {
    /// Title above the plot.
    pub title: String,
    /// The x axis' name, with its unit.
    pub x_label: String,
    /// The y axis' name, with its unit.
    pub y_label: String,
    /// The y axis starts at 0.
    pub y_from_zero: bool,
    /// A horizontal line at y = 0, kept in the y range (for differences).
    pub zero_line: bool,
    /// The range of the quantity drawn (a share in [0, 100] %, a count of at least 0):
    /// error bars and bands end inside it, never where no value can be.
    pub y_range: Option<(f64, f64)>,
    /// The lines.
    pub series: Vec<ErrorSeries>,
    /// Labelled straight lines across the plot (a target, an answer read off the data),
    /// kept in the axes' ranges and drawn under the data; their labels go over it.
    pub references: Vec<Reference>,
}

/// Where a [`Reference`] line is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RefAt {
    /// A horizontal line at this y; its label sits above it at the plot's right end.
    Y(f64),
    /// A vertical line at this x; its label sits beside it at the top of the plot, the
    /// labels of several vertical lines one under another in their order, in room added
    /// above the data.
    X(f64),
}

/// A labelled straight line across an [`ErrorLineChart`]'s plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// Where it is (lines at a value that is not finite are left out).
    pub at: RefAt,
    /// Its label, written beside it inside the plot in its colour.
    pub label: String,
    /// The series whose colour it takes (by its index in the chart); black with `None`.
    pub series: Option<usize>,
    /// Dotted rather than dashed, to tell two kinds of line apart.
    pub dotted: bool,
}

/// A measured share with its interval: a point of a [`ShareChart`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proportion {
    /// Where on the x axis (above 0: the axis is logarithmic).
    pub x: f64,
    /// The share, 0 to 1.
    pub share: f64,
    /// The interval's lower end.
    pub lo: f64,
    /// The interval's upper end.
    pub hi: f64,
}

/// Shares (a y axis from 0 to 1) against a logarithmic x axis: measured shares marked
/// with their intervals (say, binomial 95% intervals), and optionally a fitted curve
/// drawn over them.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareChart {
    /// Title above the plot.
    pub title: String,
    /// The x axis' name, with its unit.
    pub x_label: String,
    /// The y axis' name.
    pub y_label: String,
    /// The measured shares' legend.
    pub label: String,
    /// The measured shares, in x order (points at or below 0 are left out).
    pub points: Vec<Proportion>,
    /// A fitted curve (points at or below 0 are left out).
    pub fitted: Option<Series>,
}

/// One bar of a [`BarSeries`]: a value and the half-length of its error bar (0: none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    /// The bar's height.
    pub value: f64,
    /// Half the error bar's length; 0 draws no bar.
    pub error: f64,
}

/// The bars of one series of a [`BarChart`], one per group (`None`: no bar).
#[derive(Debug, Clone, PartialEq)]
pub struct BarSeries {
    /// Its legend.
    pub label: String,
    /// Its colour and fill, by index into the palette and the fills, so that one thing
    /// (a scheduler) keeps them across charts that leave some out; `None`: its place in
    /// the chart.
    pub colour: Option<usize>,
    /// Its bar in each group, in the chart's group order.
    pub bars: Vec<Option<Bar>>,
}

/// A grouped bar chart: for each named group on the x axis, one bar per series side by
/// side, with error bars.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// Title above the plot.
    pub title: String,
    /// The x axis' name (what the groups are).
    pub x_label: String,
    /// The y axis' name, with its unit.
    pub y_label: String,
    /// The groups' names, left to right.
    pub groups: Vec<String>,
    /// A logarithmic y axis (bars at or below 0 are left out); bars rise from the axis'
    /// lower end.
    pub log_y: bool,
    /// A horizontal line at y = 0 (for differences, which bars show rising or falling
    /// from 0); not drawn on a logarithmic axis. Without it, the bars are of a quantity
    /// never below 0 (a count, a duration), and their error bars end at 0.
    pub zero_line: bool,
    /// The series.
    pub series: Vec<BarSeries>,
}

/// A histogram with optional marked values (say, the original log's).
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Title above the plot.
    pub title: String,
    /// The x axis' name, with its unit.
    pub x_label: String,
    /// The y axis' name.
    pub y_label: String,
    /// Bins: lower bound, upper bound, count.
    pub bins: Vec<(f64, f64, f64)>,
    /// Vertical lines with their legends.
    pub marks: Vec<(f64, String)>,
}

/// A shaded span of a histogram's x axis (say, a confidence interval), with its legend.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Its lower end.
    pub lo: f64,
    /// Its upper end.
    pub hi: f64,
    /// Its legend.
    pub label: String,
}

/// A rectangle of a [`Gantt`] chart: a job over a span of time, on a range of
/// processors, or, waiting, on a range under the machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// When it starts (x).
    pub from: f64,
    /// When it ends.
    pub to: f64,
    /// Its lowest point (y): its first processor, or below zero for a waiting job.
    pub first: f64,
    /// Its height: processors it covers.
    pub count: f64,
    /// Its colour: an entry of the chart's legend; past the legend, grey.
    pub colour: usize,
    /// Whether it is drawn paler: a job waiting, or a job of one of two schedules drawn
    /// over each other.
    pub waiting: bool,
    /// Its tooltip (an SVG `<title>`: the job's id, user, processors and times).
    pub title: String,
}

/// A schedule drawn as processors against time, one rectangle per job and block of
/// processors, each with its tooltip; the jobs waiting drawn under the machine (below
/// zero); the legend in a column right of the plot, where it hides no job.
#[derive(Debug, Clone, PartialEq)]
pub struct Gantt {
    /// Title above the plot.
    pub title: String,
    /// The x axis' name, with its unit.
    pub x_label: String,
    /// The y axis' name.
    pub y_label: String,
    /// The time span shown, hours.
    pub x: Range<f64>,
    /// Processors in the machine (a line marks it if the blocks go past it).
    pub procs: f64,
    /// The rectangles.
    pub blocks: Vec<Block>,
    /// The names of colours `0..legend.len()`: the palette's first six, then grey.
    pub legend: Vec<String>,
    /// The palette entry each legend entry is drawn in, when not its own place in the
    /// legend (each run's colour on a page comparing runs); an entry of
    /// [`RUN_COLOURS`] or more is grey. Empty: entry `k` is the palette's `k`-th.
    pub colours: Vec<usize>,
    /// How far below zero the waiting jobs reach (0: none drawn).
    pub below: f64,
    /// Processors per unit below zero, for the axis' labels (the waiting jobs may be
    /// drawn at a smaller scale than the machine).
    pub below_scale: f64,
    /// The local clock of the x axis: the Unix time at x = 0 and its zone; `None`, plain
    /// hours.
    pub clock: Option<(i64, jiff::tz::TimeZone)>,
}

/// The colours of a [`Gantt`] chart's legend; entries past them are grey. Also the most
/// runs a comparison tells apart by colour ([`Overlay`], [`BoxPlot`]): the palette's
/// first six, blue to black (its sky blue, near its blue, comes seventh).
pub const RUN_COLOURS: usize = 6;

/// The palette entries a [`Gantt`] chart's jobs are drawn in, by legend entry: the
/// first six but black, for sky blue, as a black job waiting (drawn paler) would pass
/// for the grey of the jobs past the legend.
const JOB_COLOURS: [usize; RUN_COLOURS] = [0, 1, 2, 3, 4, 6];

/// How large a chart is drawn, how large its text, and the files a report writes of it:
/// `--figure-width`, `--figure-height`, `--font-scale` and `--figure-format` of the
/// commands that write reports. Every chart drawn on a thread takes the style set there
/// by [`with_style`]: 800 × 450 pixels, text at scale 1, SVG, unless set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FigureStyle {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// Every text's size, times the default's.
    pub font_scale: f64,
    /// The format a report writes each figure in besides SVG.
    pub format: FigureFormat,
}

impl Default for FigureStyle {
    fn default() -> Self {
        FigureStyle {
            width: 800,
            height: 450,
            font_scale: 1.0,
            format: FigureFormat::Svg,
        }
    }
}

thread_local! {
    static STYLE: Cell<FigureStyle> = Cell::new(FigureStyle::default());
}

/// Runs `draw` with every chart it draws on this thread in `style`, then sets back the
/// style before (also when `draw` panics).
pub fn with_style<T>(style: FigureStyle, draw: impl FnOnce() -> T) -> T {
    struct Restore(FigureStyle);
    impl Drop for Restore {
        fn drop(&mut self) {
            STYLE.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(STYLE.with(|s| s.replace(style)));
    draw()
}

/// The style charts are drawn in on this thread ([`with_style`]).
pub fn figure_style() -> FigureStyle {
    STYLE.with(Cell::get)
}

/// `pixels` at the font scale of [`figure_style`] (at least 1).
fn scaled(pixels: u32) -> u32 {
    ((f64::from(pixels) * figure_style().font_scale).round() as u32).max(1)
}

const FONT: &str = "sans-serif";
const TITLE_SIZE: u32 = 26;
/// The smallest size a long title is shrunk to.
const MIN_TITLE_SIZE: u32 = 14;
/// The margin around a chart.
const MARGIN: u32 = 12;
const TEXT_SIZE: u32 = 20;

/// The size of axis labels, legends and tick labels, pixels.
fn text_size() -> u32 {
    scaled(TEXT_SIZE)
}
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 0, 0),       // black
    RGBColor(86, 180, 233),  // sky blue: last, as it is the nearest to the first
];
/// The plotting area's approximate size in pixels (the chart less its margins, title and
/// axis labels), for placing the legend.
fn plot_area() -> (f64, f64) {
    let size = figure_style();
    let s = size.font_scale;
    (
        (f64::from(size.width) - 100.0 * s).max(50.0),
        (f64::from(size.height) - 110.0 * s).max(50.0),
    )
}

/// The charts' font: the DejaVu Sans subset of `assets/fonts`.
pub(crate) const FONT_BYTES: &[u8] =
    include_bytes!("../../../../assets/fonts/DejaVuSans-subset.ttf");

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The embedded font is known to parse (a unit test draws with it).
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES);
    });
}

fn draw_error(name: &str, e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw {
        file: name.to_string(),
        message: e.to_string(),
    }
}

fn empty(name: &str) -> PlotError {
    PlotError::Empty {
        file: name.to_string(),
    }
}

/// A tick label: integers without decimals (from a million, their digits grouped by
/// threes: 1,000,000), others with up to three significant digits (0.00025), never in
/// exponent form, which a reader takes for a typo; past 10^15 or below 10^-12, rounded to
/// a whole power of ten in exponent form all the same.
fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-12..1e15).contains(&a) {
        return format!("{v:.0e}");
    }
    if (v - v.round()).abs() < 1e-9 * a.max(1.0) {
        let digits = (v.round() as i64).unsigned_abs().to_string();
        let mut grouped = String::new();
        for (i, d) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) && digits.len() > 6 {
                grouped.push(',');
            }
            grouped.push(d);
        }
        return if v < 0.0 {
            format!("-{grouped}")
        } else {
            grouped
        };
    }
    let decimals = (2 - a.log10().floor() as i32).clamp(0, 14) as usize;
    let s = format!("{v:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A tick label of an axis spanning `span`: [`tick`], but a value within a billionth of
/// the span of zero is 0 (ticks stepped in floating point put zero at -3e-17).
fn axis_tick(v: f64, span: f64) -> String {
    if v.abs() <= span.abs() * 1e-9 {
        "0".into()
    } else {
        tick(v)
    }
}

fn weekday_tick(h: f64) -> String {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let h = h.round() as i64;
    if h.rem_euclid(24) == 0 && (0..168).contains(&h) {
        DAYS[(h / 24) as usize].to_string()
    } else {
        String::new()
    }
}

fn hour_tick(h: f64) -> String {
    let r = h.round();
    if (h - r).abs() < 1e-6 && (0.0..24.0).contains(&r) && r as i64 % 2 == 0 {
        format!("{}", r as i64)
    } else {
        String::new()
    }
}

/// The label at `v` on a [`XTicks::Log10`] axis: `10^v` at whole powers, else none.
fn power_tick(v: f64) -> String {
    let r = v.round();
    if (v - r).abs() < 1e-6 {
        tick(10f64.powf(r))
    } else {
        String::new()
    }
}

/// The date `days` after 1970-01-01, as `YYYY-MM-DD`; none out of the calendar's range.
fn date_tick(days: f64) -> String {
    let epoch = jiff::civil::date(1970, 1, 1);
    jiff::Span::new()
        .try_days(days.round() as i64)
        .ok()
        .and_then(|span| epoch.checked_add(span).ok())
        .map_or_else(String::new, |d| d.strftime("%Y-%m-%d").to_string())
}

/// The name of the group at `v` on a bar chart's x axis (groups sit at 0, 1, 2, ...).
fn group_tick(names: &[String], v: f64) -> String {
    let r = v.round();
    if (v - r).abs() < 1e-6 && r >= 0.0 {
        names.get(r as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

/// The span of `values` with a margin, never empty.
fn padded(lo: f64, hi: f64, from_zero: bool) -> Range<f64> {
    let lo = if from_zero { lo.min(0.0) } else { lo };
    let pad = if hi > lo { (hi - lo) * 0.05 } else { 1.0 };
    let lo = if from_zero && lo >= 0.0 { lo } else { lo - pad };
    lo..hi + pad
}

fn bounds(points: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    points
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// The x span of a chart with these ticks, given the data's span.
fn x_span(ticks: XTicks, lo: f64, hi: f64) -> Range<f64> {
    match ticks {
        XTicks::HourOfWeek => 0.0..168.0,
        XTicks::HourOfDay => -0.5..23.5,
        XTicks::Numbers | XTicks::Log10 | XTicks::Dates => padded(lo, hi, false),
    }
}

/// Maps data to fractions of the plotting area (0 at the left and bottom, 1 at the right
/// and top), to find where the legend hides the least.
struct Frac {
    x: Range<f64>,
    y: Range<f64>,
    log_y: bool,
}

impl Frac {
    fn of(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let fx = (x - self.x.start) / (self.x.end - self.x.start);
        let fy = if self.log_y {
            (y.max(self.y.start).ln() - self.y.start.ln()) / (self.y.end.ln() - self.y.start.ln())
        } else {
            (y - self.y.start) / (self.y.end - self.y.start)
        };
        (fx, fy)
    }

    /// Points along the segments joining `points`, as fractions.
    fn along(&self, points: &[(f64, f64)]) -> Vec<(f64, f64)> {
        const STEPS: usize = 16;
        let fr: Vec<(f64, f64)> = points.iter().map(|&p| self.of(p)).collect();
        let mut out = fr.clone();
        for w in fr.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            out.extend((1..STEPS).map(|k| {
                let t = k as f64 / STEPS as f64;
                (x0 + t * (x1 - x0), y0 + t * (y1 - y0))
            }));
        }
        out
    }
}

/// The corner of the plot whose legend-sized box covers the fewest of `occupied`
/// (fractions of the plotting area, see [`Frac`]); upper right on a tie.
fn legend_corner(occupied: &[(f64, f64)], labels: &[&str]) -> SeriesLabelPosition {
    legend_place(occupied, labels).0
}

/// [`legend_corner`]'s corner, how many of the `occupied` points it covers, and the
/// legend's height as a fraction of the plot's.
fn legend_place(occupied: &[(f64, f64)], labels: &[&str]) -> (SeriesLabelPosition, usize, f64) {
    let chars = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let (text, area) = (f64::from(text_size()), plot_area());
    let w = (chars as f64 * 0.6 * text + 60.0) / area.0;
    let h = (labels.len() as f64 * (text + 6.0) + 16.0) / area.1;
    let corners = [
        (
            SeriesLabelPosition::UpperRight,
            1.0 - w..1.01,
            1.0 - h..1.01,
        ),
        (SeriesLabelPosition::UpperLeft, -0.01..w, 1.0 - h..1.01),
        (SeriesLabelPosition::LowerRight, 1.0 - w..1.01, -0.01..h),
        (SeriesLabelPosition::LowerLeft, -0.01..w, -0.01..h),
    ];
    let covered = |xs: &Range<f64>, ys: &Range<f64>| {
        occupied
            .iter()
            .filter(|(x, y)| xs.contains(x) && ys.contains(y))
            .count()
    };
    let mut best = (SeriesLabelPosition::UpperRight, usize::MAX);
    for (pos, xs, ys) in corners {
        let n = covered(&xs, &ys);
        if n < best.1 {
            best = (pos, n);
        }
    }
    (best.0, best.1, h)
}

/// `chart` as an SVG document.
pub fn line_chart_svg(chart: &LineChart) -> Result<String, PlotError> {
    render_line_chart(&chart.title, chart)
}

fn render_line_chart(name: &str, chart: &LineChart) -> Result<String, PlotError> {
    let usable = |&(_, y): &(f64, f64)| !chart.log_y || y > 0.0;
    let points = || {
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter(|p| usable(p)))
    };
    let (x_lo, x_hi) = bounds(points().map(|p| p.0)).ok_or_else(|| empty(name))?;
    let (y_lo, y_hi) = bounds(points().map(|p| p.1)).ok_or_else(|| empty(name))?;
    let x = x_span(chart.x_ticks, x_lo, x_hi);
    let y = if chart.log_y {
        (y_lo / 1.5)..(y_hi * 1.5)
    } else {
        padded(y_lo, y_hi, chart.y_from_zero)
    };
    let lines: Vec<Line> = chart
        .series
        .iter()
        .enumerate()
        .map(|(key, s)| Line {
            label: &s.label,
            key,
            points: s.points.iter().copied().filter(usable).collect(),
            errors: Vec::new(),
        })
        .collect();
    // A single series dense enough to fill every corner (an hourly utilization) gets
    // room above it for the legend, which then covers none of it; several series have
    // theirs right of the plot.
    let labels: Vec<&str> = lines.iter().map(|l| l.label).collect();
    let frac = Frac {
        x: x.clone(),
        y: y.clone(),
        log_y: chart.log_y,
    };
    let (_, covered, h) = legend_place(&lines_occupied(&lines, &frac), &labels);
    let y = if !several(&lines) && covered > 0 && h < 0.5 {
        let keep = 1.0 - (1.2 * h + 0.03);
        if chart.log_y {
            y.start..y.start * (y.end / y.start).powf(1.0 / keep)
        } else {
            y.start..y.start + (y.end - y.start) / keep
        }
    } else {
        y
    };
    let frame = lines_frame(
        [&chart.title, &chart.x_label, &chart.y_label],
        chart.x_ticks,
        &lines,
        Frac {
            x: x.clone(),
            y: y.clone(),
            log_y: chart.log_y,
        },
    );
    if chart.log_y {
        draw(name, frame, x, LogCoord::from(y.log_scale()), |ctx| {
            draw_lines(ctx, &lines, false)
        })
    } else {
        let y: RangedCoordf64 = y.into();
        draw(name, frame, x, y, |ctx| draw_lines(ctx, &lines, false))
    }
}

/// `chart` as an SVG document.
pub fn error_line_chart_svg(chart: &ErrorLineChart) -> Result<String, PlotError> {
    render_error_line_chart(&chart.title, chart, false, &[])
}

/// `chart` as an SVG document, each series' errors shaded as a band around its line (in
/// its colour, pinched to the line where a point has no error) instead of drawn as
/// bars: for many close points, such as the weeks of a year.
pub fn error_band_chart_svg(chart: &ErrorLineChart) -> Result<String, PlotError> {
    render_error_line_chart(&chart.title, chart, true, &[])
}

/// `chart` as [`error_band_chart_svg`] draws it, with what each series' points are the
/// mean of spread around them as a lighter band beneath: `spreads[i]` holds series `i`'s
/// `(x, lo, hi)` (quantiles of the replications, say), kept inside the quantity's range
/// like the errors; an empty one draws no band.
pub fn spread_band_chart_svg(
    chart: &ErrorLineChart,
    spreads: &[Vec<(f64, f64, f64)>],
) -> Result<String, PlotError> {
    render_error_line_chart(&chart.title, chart, true, spreads)
}

/// Draws `chart`, its errors as bars, or as bands when `shaded`, over the `spreads`.
fn render_error_line_chart(
    name: &str,
    chart: &ErrorLineChart,
    shaded: bool,
    spreads: &[Vec<(f64, f64, f64)>],
) -> Result<String, PlotError> {
    let usable = |e: &&Estimate| e.x.is_finite() && e.y.is_finite();
    let estimates = || {
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter(usable))
    };
    let references: Vec<&Reference> = chart
        .references
        .iter()
        .filter(|r| match r.at {
            RefAt::X(v) | RefAt::Y(v) => v.is_finite(),
        })
        .collect();
    let ref_xs = references.iter().filter_map(|r| match r.at {
        RefAt::X(x) => Some(x),
        RefAt::Y(_) => None,
    });
    let ref_ys = references.iter().filter_map(|r| match r.at {
        RefAt::Y(y) => Some(y),
        RefAt::X(_) => None,
    });
    let (x_lo, x_hi) = bounds(estimates().map(|e| e.x)).ok_or_else(|| empty(name))?;
    let (x_lo, x_hi) = bounds(ref_xs).map_or((x_lo, x_hi), |(lo, hi)| (x_lo.min(lo), x_hi.max(hi)));
    // An error's ends, kept inside the quantity's range.
    let (floor, ceiling) = chart.y_range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let span = |e: &Estimate| {
        let err = if e.error.is_finite() {
            e.error.abs()
        } else {
            0.0
        };
        ((e.y - err).max(floor), (e.y + err).min(ceiling))
    };
    let spreads: Vec<Vec<(f64, f64, f64)>> = spreads
        .iter()
        .map(|band| {
            band.iter()
                .filter(|(x, lo, hi)| x.is_finite() && lo.is_finite() && hi.is_finite())
                .map(|&(x, lo, hi)| (x, lo.max(floor), hi.min(ceiling)))
                .collect()
        })
        .collect();
    let ends = estimates()
        .flat_map(|e| {
            let (lo, hi) = span(e);
            [lo, hi]
        })
        .chain(spreads.iter().flatten().flat_map(|&(_, lo, hi)| [lo, hi]));
    let (y_lo, y_hi) = bounds(ends.chain(ref_ys)).ok_or_else(|| empty(name))?;
    let x = padded(x_lo, x_hi, false);
    let y = if chart.zero_line {
        padded(y_lo.min(0.0), y_hi.max(0.0), false)
    } else {
        padded(y_lo, y_hi, chart.y_from_zero)
    };
    // Room above the data for the vertical lines' labels, a row each (at most 60% of
    // the plot).
    let rows = references
        .iter()
        .filter(|r| matches!(r.at, RefAt::X(_)))
        .count();
    let room = ((rows as f64 * label_row() + 6.0) / plot_area().1).min(0.6);
    let y = if rows > 0 {
        y.start..(y.end - room * y.start) / (1.0 - room)
    } else {
        y
    };
    let lines: Vec<Line> = chart
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let kept: Vec<&Estimate> = s.points.iter().filter(usable).collect();
            Line {
                label: &s.label,
                key: s.colour.unwrap_or(i),
                points: kept.iter().map(|e| (e.x, e.y)).collect(),
                errors: kept
                    .iter()
                    .filter(|e| shaded || (e.error.is_finite() && e.error > 0.0))
                    .map(|e| {
                        let (lo, hi) = span(e);
                        (e.x, lo, hi)
                    })
                    .collect(),
            }
        })
        .collect();
    let frac = Frac {
        x: x.clone(),
        y: y.clone(),
        log_y: false,
    };
    let mut occupied = lines_occupied(&lines, &frac);
    for &(x, lo, hi) in spreads.iter().flatten() {
        occupied.extend(frac.along(&[(x, lo), (x, hi)]));
    }
    for (k, r) in references.iter().enumerate() {
        occupied.extend(reference_occupies(r, rows_above(&references, k), &frac));
    }
    let labels: Vec<&str> = lines.iter().map(|l| l.label).collect();
    let frame = Frame {
        title: &chart.title,
        x_label: &chart.x_label,
        y_label: &chart.y_label,
        x_ticks: XTicks::Numbers,
        x_names: &[],
        legend: if several(&lines) {
            Legend::Right(line_keys(&lines))
        } else {
            Legend::Corner(legend_corner(&occupied, &labels))
        },
        counts: false,
        right: 0,
        x_fmt: None,
        y_fmt: None,
    };
    let y: RangedCoordf64 = y.into();
    draw(name, frame, x, y, |ctx| {
        for r in &references {
            draw_reference_line(ctx, r)?;
        }
        if chart.zero_line {
            draw_zero_line(ctx)?;
        }
        for (i, band) in spreads.iter().enumerate() {
            draw_band(ctx, band, PALETTE[i % PALETTE.len()], SPREAD_OPACITY)?;
        }
        if shaded {
            for line in &lines {
                let colour = PALETTE[line.key % PALETTE.len()];
                draw_band(ctx, &line.errors, colour, BAND_OPACITY)?;
            }
            let bare: Vec<Line> = lines
                .iter()
                .map(|l| Line {
                    label: l.label,
                    key: l.key,
                    points: l.points.clone(),
                    errors: Vec::new(),
                })
                .collect();
            draw_lines(ctx, &bare, false)?;
        } else {
            draw_lines(ctx, &lines, true)?;
        }
        for (k, r) in references.iter().enumerate() {
            draw_reference_label(ctx, r, rows_above(&references, k))?;
        }
        Ok(())
    })
}

/// The height of a row of reference labels, pixels.
fn label_row() -> f64 {
    f64::from(text_size()) + 6.0
}

/// The vertical lines before `references[k]`: the row of its label, if it is one.
fn rows_above(references: &[&Reference], k: usize) -> usize {
    references[..k]
        .iter()
        .filter(|r| matches!(r.at, RefAt::X(_)))
        .count()
}

/// The colour of `r`.
fn reference_colour(r: &Reference) -> RGBColor {
    r.series.map_or(BLACK, |i| PALETTE[i % PALETTE.len()])
}

/// The width of `label` in the charts' text font, pixels.
fn label_width(label: &str) -> f64 {
    register_font();
    let size = text_size();
    FontDesc::from((FONT, size)).box_size(label).map_or(
        label.chars().count() as f64 * 0.6 * f64::from(size),
        |(w, _)| f64::from(w),
    )
}

/// The padding around a reference label, pixels.
const LABEL_PAD: f64 = 3.0;

/// The width of `r`'s label with its padding, as a fraction of the plot's width.
fn label_frac(r: &Reference) -> f64 {
    (label_width(&r.label) + 3.0 * LABEL_PAD) / plot_area().0
}

/// Whether the label `w` wide (a fraction of the plot's width) of a vertical line at
/// x fraction `fx` goes left of the line: when it does not fit on the right, where there
/// is more room.
fn label_left_of(fx: f64, w: f64) -> bool {
    fx + w > 1.0 && fx > 1.0 - fx
}

/// Points (fractions of the plotting area, see [`Frac`]) that reference `r`'s line and
/// label cover, its label in row `row` if it is vertical.
fn reference_occupies(r: &Reference, row: usize, frac: &Frac) -> Vec<(f64, f64)> {
    let w = label_frac(r);
    let h = label_row() / plot_area().1;
    let (line, corner) = match r.at {
        RefAt::Y(y) => {
            let (_, fy) = frac.of((frac.x.start, y));
            let line = frac.along(&[(frac.x.start, y), (frac.x.end, y)]);
            (line, (1.0 - w, fy))
        }
        RefAt::X(x) => {
            let (fx, _) = frac.of((x, frac.y.start));
            let line = frac.along(&[(x, frac.y.start), (x, frac.y.end)]);
            let left = if label_left_of(fx, w) { fx - w } else { fx };
            (line, (left, 1.0 - (row + 1) as f64 * h))
        }
    };
    let mut out = line;
    for i in 0..=4 {
        for j in 0..=2 {
            out.push((
                corner.0 + w * f64::from(i) / 4.0,
                corner.1 + h * f64::from(j) / 2.0,
            ));
        }
    }
    out
}

/// Draws `r`'s line across the plot, dashed or dotted.
fn draw_reference_line(ctx: &mut Context<'_, RangedCoordf64>, r: &Reference) -> Result<(), String> {
    let (x, y) = (ctx.x_range(), ctx.y_range());
    let ends = match r.at {
        RefAt::Y(v) => [(x.start, v), (x.end, v)],
        RefAt::X(v) => [(v, y.start), (v, y.end)],
    };
    let (dash, gap) = if r.dotted { (2, 4) } else { (8, 5) };
    let style = ShapeStyle::from(reference_colour(r)).stroke_width(2);
    ctx.draw_series(std::iter::once(DashedPathElement::new(
        ends, dash, gap, style,
    )))
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Draws `r`'s label on a white ground, over the data: above a horizontal line at the
/// plot's right end, beside a vertical line at the top of the plot in row `row`.
fn draw_reference_label(
    ctx: &mut Context<'_, RangedCoordf64>,
    r: &Reference,
    row: usize,
) -> Result<(), String> {
    let pad = LABEL_PAD as i32;
    let colour = reference_colour(r);
    let w = label_width(&r.label).round() as i32;
    let h = text_size() as i32;
    let (x, y) = (ctx.x_range(), ctx.y_range());
    let (anchor, (dx, dy)) = match r.at {
        RefAt::Y(v) => ((x.end, v), (-w - 3 * pad, -h - 2 * pad)),
        RefAt::X(v) => {
            let fx = (v - x.start) / (x.end - x.start);
            let dx = if label_left_of(fx, label_frac(r)) {
                -w - 3 * pad
            } else {
                pad
            };
            ((v, y.end), (dx, pad + row as i32 * label_row() as i32))
        }
    };
    let label = EmptyElement::at(anchor)
        + Rectangle::new(
            [(dx, dy), (dx + w + 2 * pad, dy + h + pad)],
            WHITE.mix(0.85).filled(),
        )
        + Text::new(
            r.label.clone(),
            (dx + pad, dy + pad),
            TextStyle::from((FONT, text_size()).into_font()).color(&colour),
        );
    ctx.draw_series(std::iter::once(label))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The band `(x, low, high)` shaded in a light tint of `colour`, kept in the y range.
/// How opaque a band of errors is; the spread beneath it is fainter.
const BAND_OPACITY: f64 = 0.25;
const SPREAD_OPACITY: f64 = 0.1;

fn draw_band(
    ctx: &mut Context<'_, RangedCoordf64>,
    band: &[(f64, f64, f64)],
    colour: RGBColor,
    opacity: f64,
) -> Result<(), String> {
    if band.len() < 2 {
        return Ok(());
    }
    let y = ctx.y_range();
    let upper = band.iter().map(|&(x, _, hi)| (x, hi.min(y.end)));
    let lower = band.iter().rev().map(|&(x, lo, _)| (x, lo.max(y.start)));
    let outline: Vec<(f64, f64)> = upper.chain(lower).collect();
    ctx.draw_series(std::iter::once(Polygon::new(
        outline,
        colour.mix(opacity).filled(),
    )))
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// A thin black horizontal line at y = 0 across the plot, under the data.
fn draw_zero_line(ctx: &mut Context<'_, RangedCoordf64>) -> Result<(), String> {
    let x = ctx.x_range();
    ctx.draw_series(std::iter::once(PathElement::new(
        vec![(x.start, 0.0), (x.end, 0.0)],
        BLACK.mix(0.7).stroke_width(1),
    )))
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// `chart` as an SVG document.
pub fn share_chart_svg(chart: &ShareChart) -> Result<String, PlotError> {
    render_share_chart(&chart.title, chart)
}

fn render_share_chart(name: &str, chart: &ShareChart) -> Result<String, PlotError> {
    let measured: Vec<&Proportion> = chart
        .points
        .iter()
        .filter(|p| p.x > 0.0 && p.share.is_finite())
        .collect();
    let fitted: Vec<(f64, f64)> = chart
        .fitted
        .iter()
        .flat_map(|f| {
            f.points
                .iter()
                .filter(|p| p.0 > 0.0 && p.1.is_finite())
                .map(|p| (p.0.log10(), p.1))
        })
        .collect();
    let xs = measured
        .iter()
        .map(|p| p.x.log10())
        .chain(fitted.iter().map(|p| p.0));
    let (x_lo, x_hi) = bounds(xs).ok_or_else(|| empty(name))?;
    let x = x_span(XTicks::Log10, x_lo, x_hi);
    let y = -0.02..1.02;
    let mut lines = vec![Line {
        label: &chart.label,
        key: 0,
        points: measured.iter().map(|p| (p.x.log10(), p.share)).collect(),
        errors: measured.iter().map(|p| (p.x.log10(), p.lo, p.hi)).collect(),
    }];
    if let Some(f) = &chart.fitted {
        lines.push(Line {
            label: &f.label,
            key: 1,
            points: fitted,
            errors: Vec::new(),
        });
    }
    let mut frame = lines_frame(
        [&chart.title, &chart.x_label, &chart.y_label],
        XTicks::Log10,
        &lines,
        Frac {
            x: x.clone(),
            y: y.clone(),
            log_y: false,
        },
    );
    if let Legend::Right(keys) = &mut frame.legend
        && let Some(fitted) = keys.get_mut(1)
    {
        fitted.swatch = KeySwatch::Plain;
    }
    let y: RangedCoordf64 = y.into();
    draw(name, frame, x, y, |ctx| {
        draw_lines(ctx, &lines[..1], false)?;
        // The fitted curve: a plain line in the next colour, no markers.
        if let Some(curve) = lines.get(1) {
            let style = ShapeStyle::from(PALETTE[1]).stroke_width(2);
            ctx.draw_series(LineSeries::new(curve.points.iter().copied(), style))
                .map_err(|e| e.to_string())?
                .label(curve.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
        }
        Ok(())
    })
}

/// What every chart has around its data.
struct Frame<'f> {
    title: &'f str,
    x_label: &'f str,
    y_label: &'f str,
    x_ticks: XTicks,
    /// Names of the x axis' groups at 0, 1, 2, ... (bar charts); empty otherwise.
    x_names: &'f [String],
    /// Where the legend goes.
    legend: Legend<'f>,
    /// The y axis counts: only whole numbers are labelled.
    counts: bool,
    /// Pixels kept free right of the plot (a legend drawn there).
    right: u32,
    /// The x axis' labels, instead of `x_ticks`' (a Gantt chart's clock).
    x_fmt: Option<&'f dyn Fn(&f64) -> String>,
    /// The y axis' labels, instead of plain numbers.
    y_fmt: Option<&'f dyn Fn(&f64) -> String>,
}

/// Where a chart's legend goes.
enum Legend<'k> {
    /// No legend.
    None,
    /// Inside the plot, in the corner where it hides the least data (a chart of one
    /// series, whose small legend fits there).
    Corner(SeriesLabelPosition),
    /// In a column right of the plot, where it hides no data (a chart of several
    /// series): an entry per series.
    Right(Vec<Key<'k>>),
}

/// An entry of a legend column right of the plot: a series' swatch and label.
struct Key<'k> {
    label: &'k str,
    colour: RGBColor,
    swatch: KeySwatch,
}

/// How a [`Key`] shows its series.
#[derive(Clone, Copy)]
enum KeySwatch {
    /// A line with its marker of [`Marker::of`] (the key).
    Line(usize),
    /// A plain line (a fitted curve, drawn without markers).
    Plain,
    /// A bar with its fill of [`HatchedBar`] (the kind).
    Bar(usize),
}

/// Draws a legend column for `keys` on `root` from its x pixel `left`, an entry a row
/// from the top of the plot down: the swatch, then the label (cut to fit the column).
fn draw_key_column(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    keys: &[Key],
    left: u32,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let (row, font) = (legend_row(), scaled(LEGEND_TEXT as u32));
    let style =
        TextStyle::from((FONT, font).into_font()).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ));
    for (k, key) in keys.iter().enumerate() {
        let at = (left as i32, (legend_entry_top(k) + row / 2) as i32);
        let line = ShapeStyle::from(key.colour).stroke_width(2);
        match key.swatch {
            KeySwatch::Line(marker) => root.draw(
                &(EmptyElement::at(at)
                    + PathElement::new(vec![(0, 0), (24, 0)], line)
                    + Marker::of(marker, (12, 0), key.colour)),
            )?,
            KeySwatch::Plain => {
                root.draw(&(EmptyElement::at(at) + PathElement::new(vec![(0, 0), (24, 0)], line)))?
            }
            KeySwatch::Bar(kind) => root.draw(
                &(EmptyElement::at(at)
                    + HatchedBar {
                        corners: [(0, -8), (22, 8)],
                        kind,
                        colour: key.colour,
                    }),
            )?,
        }
        root.draw(&Text::new(
            fit_label(key.label),
            (at.0 + row as i32 + scaled(6) as i32, at.1),
            style.clone(),
        ))?;
    }
    Ok(())
}

/// Whether `lines` are several with points: their legend goes right of the plot.
fn several(lines: &[Line]) -> bool {
    lines.iter().filter(|l| !l.points.is_empty()).count() > 1
}

/// The legend entries of `lines` with points, in their order.
fn line_keys<'k>(lines: &[Line<'k>]) -> Vec<Key<'k>> {
    lines
        .iter()
        .filter(|l| !l.points.is_empty())
        .map(|l| Key {
            label: l.label,
            colour: PALETTE[l.key % PALETTE.len()],
            swatch: KeySwatch::Line(l.key),
        })
        .collect()
}

/// The frame of a chart of `lines` titled `[title, x label, y label]`, its legend placed
/// by [`lines_legend`] on `frac`.
fn lines_frame<'f>(
    [title, x_label, y_label]: [&'f str; 3],
    x_ticks: XTicks,
    lines: &[Line<'f>],
    frac: Frac,
) -> Frame<'f> {
    Frame {
        title,
        x_label,
        y_label,
        x_ticks,
        x_names: &[],
        legend: lines_legend(lines, &frac),
        counts: false,
        right: 0,
        x_fmt: None,
        y_fmt: None,
    }
}

type Context<'a, Y> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>;

/// Draws a chart on `x` and `y`: the frame, then `body`'s data, then the legend. `name`
/// identifies the chart in errors.
fn draw<Y>(
    name: &str,
    frame: Frame,
    x: Range<f64>,
    y: Y,
    body: impl FnOnce(&mut Context<'_, Y>) -> Result<(), String>,
) -> Result<String, PlotError>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    register_font();
    let err = |e: &dyn std::fmt::Display| draw_error(name, e);
    // An axis whose span is not a finite number (values near ±1e308, from results files
    // edited by hand, say) would never finish placing its ticks.
    for (axis, r) in [("x", x.clone()), ("y", y.range())] {
        if !(r.end - r.start).is_finite() {
            return Err(err(&format_args!(
                "the {axis} values run from {} to {}, too wide a span to plot",
                r.start, r.end
            )));
        }
    }
    let size = figure_style();
    let text = text_size();
    let column = match &frame.legend {
        Legend::Right(keys) => legend_width(keys.iter().map(|k| k.label)),
        _ => 0,
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (size.width, size.height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        // The title's size: the largest up to TITLE_SIZE at which it fits the width.
        let mut title_size = scaled(TITLE_SIZE);
        while title_size > scaled(MIN_TITLE_SIZE)
            && root
                .estimate_text_size(
                    frame.title,
                    &TextStyle::from((FONT, title_size).into_font()),
                )
                .is_ok_and(|(w, _)| w + 2 * MARGIN > size.width)
        {
            title_size -= 1;
        }
        let mut ctx = ChartBuilder::on(&root)
            .caption(frame.title, (FONT, title_size))
            .margin(MARGIN)
            // Room for the last x tick's label, centred on the axis' end.
            .margin_right(MARGIN + scaled(24) + frame.right + column)
            .x_label_area_size(scaled(48))
            .y_label_area_size(scaled(72))
            .build_cartesian_2d(x, y)
            .map_err(|e| err(&e))?;
        let names = frame.x_names;
        let group_fmt = |v: &f64| group_tick(names, *v);
        let x_span = ctx.x_range().end - ctx.x_range().start;
        let y_span = ctx.y_range().end - ctx.y_range().start;
        let x_number = |v: &f64| axis_tick(*v, x_span);
        let y_number = |v: &f64| axis_tick(*v, y_span);
        let x_fmt: &dyn Fn(&f64) -> String = if !names.is_empty() {
            &group_fmt
        } else if let Some(f) = frame.x_fmt {
            f
        } else {
            match frame.x_ticks {
                XTicks::Numbers => &x_number,
                XTicks::HourOfWeek => &|v| weekday_tick(*v),
                XTicks::HourOfDay => &|v| hour_tick(*v),
                XTicks::Log10 => &|v| power_tick(*v),
                XTicks::Dates => &|v| date_tick(*v),
            }
        };
        let y_top = ctx.y_range().end;
        let mut mesh = ctx.configure_mesh();
        mesh.x_desc(frame.x_label)
            .y_desc(frame.y_label)
            .label_style((FONT, text))
            .axis_desc_style((FONT, text))
            .light_line_style(WHITE)
            .bold_line_style(BLACK.mix(0.12))
            .x_label_formatter(x_fmt)
            .y_label_formatter(if let Some(f) = frame.y_fmt {
                f
            } else if frame.counts {
                &|v: &f64| {
                    if v.fract() == 0.0 {
                        tick(*v)
                    } else {
                        String::new()
                    }
                }
            } else {
                &y_number
            });
        if !names.is_empty() {
            // One tick per group, no vertical grid lines through the bars.
            mesh.x_labels(names.len()).disable_x_mesh();
        } else if frame.x_ticks == XTicks::HourOfWeek {
            mesh.x_labels(169);
        } else if frame.x_ticks == XTicks::HourOfDay {
            mesh.x_labels(13);
        } else if frame.x_ticks == XTicks::Dates {
            // Dates are long: fewer of them, the narrower the chart or the larger its text.
            let room = f64::from(size.width) / (160.0 * size.font_scale);
            mesh.x_labels((room as usize).clamp(2, 8));
        }
        if frame.counts {
            // Whole steps: at most ten labels, one per count when there are fewer.
            mesh.y_labels((y_top.max(0.0).floor() as usize + 1).min(10));
        }
        mesh.draw().map_err(|e| err(&e))?;
        body(&mut ctx).map_err(|e| err(&e))?;
        match &frame.legend {
            Legend::None => {}
            Legend::Corner(position) => ctx
                .configure_series_labels()
                .label_font((FONT, text))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .position(position.clone())
                .draw()
                .map_err(|e| err(&e))?,
            Legend::Right(keys) => {
                let left = size.width.saturating_sub(column);
                draw_key_column(&root, keys, left).map_err(|e| err(&e))?;
            }
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

/// The label of `hours` past `origin` (Unix seconds) in `zone`: `HH:MM`, or the date at
/// midnight (`Sep 24`).
fn clock_tick(origin: i64, zone: &jiff::tz::TimeZone, hours: f64) -> String {
    let second = origin.saturating_add((hours * 3600.0).round() as i64);
    let Ok(at) = jiff::Timestamp::from_second(second) else {
        return String::new();
    };
    let local = at.to_zoned(zone.clone());
    if local.hour() == 0 && local.minute() == 0 {
        local.strftime("%b %-d").to_string()
    } else {
        local.strftime("%H:%M").to_string()
    }
}

/// Escapes `text` for SVG content.
fn escape_xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The `#rrggbb` of run `run`'s colour in a comparison ([`Overlay`], [`BoxPlot`],
/// [`Gantt::colours`]), as its legends write it.
pub fn run_colour(run: usize) -> String {
    hex(PALETTE[run % PALETTE.len()])
}

/// The `#rrggbb` of `c`.
fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The least width of a legend column right of the plot, pixels.
const LEGEND_COLUMN: u32 = 170;
/// The greatest width of a legend column; longer labels are cut with an ellipsis.
const MOST_LEGEND_COLUMN: u32 = 300;
/// The size of a legend column's text.
const LEGEND_TEXT: f64 = 15.0;

/// The width of a legend column right of the plot for `labels`: the longest one's, with
/// its swatch, between [`LEGEND_COLUMN`] and [`MOST_LEGEND_COLUMN`].
fn legend_width<'a>(labels: impl Iterator<Item = &'a str>) -> u32 {
    let widest = labels
        .map(|l| label_width(l) * LEGEND_TEXT / TEXT_SIZE as f64)
        .fold(0.0, f64::max);
    let scale = figure_style().font_scale;
    (((widest + 36.0) * scale).ceil().max(0.0) as u32)
        .clamp(scaled(LEGEND_COLUMN), scaled(MOST_LEGEND_COLUMN))
}

/// `label`, cut with an ellipsis to fit a legend column.
fn fit_label(label: &str) -> String {
    let room = f64::from(MOST_LEGEND_COLUMN) - 36.0;
    if label_width(label) * LEGEND_TEXT / TEXT_SIZE as f64 <= room {
        return label.to_owned();
    }
    let mut cut: String = label.to_owned();
    while !cut.is_empty() && label_width(&format!("{cut}…")) * LEGEND_TEXT / TEXT_SIZE as f64 > room
    {
        cut.pop();
    }
    format!("{cut}…")
}

/// The height of an entry of a legend column right of the plot, pixels.
fn legend_row() -> u32 {
    scaled(24)
}

/// The top of entry `k` of a legend column right of the plot, pixels: the first level
/// with the plot's top.
fn legend_entry_top(k: usize) -> u32 {
    scaled(60) + legend_row() * k as u32
}

/// An entry of a legend column: a swatch of a colour (a block, or a line) and its label.
struct Swatch<'s> {
    colour: RGBColor,
    label: &'s str,
    /// The block's fill opacity.
    opacity: &'s str,
    /// A line rather than a block.
    line: bool,
}

/// A legend column whose left edge is at `left`, right of the plot: a swatch and a label
/// per entry, one under another from the top of the plot, as SVG elements.
fn legend_column(entries: &[Swatch], left: u32) -> String {
    let mut legend = String::new();
    let (row, width, height, font) = (legend_row(), scaled(18), scaled(14), scaled(15));
    for (k, e) in entries.iter().enumerate() {
        let y = legend_entry_top(k);
        let swatch = if e.line {
            format!(
                "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" \
                 stroke-width=\"{}\"/>",
                y + height / 2,
                left + width,
                y + height / 2,
                hex(e.colour),
                scaled(3)
            )
        } else {
            format!(
                "<rect x=\"{left}\" y=\"{y}\" width=\"{width}\" height=\"{height}\" \
                 fill=\"{}\" fill-opacity=\"{}\"/>",
                hex(e.colour),
                e.opacity
            )
        };
        legend.push_str(&format!(
            "{swatch}<text x=\"{}\" y=\"{}\" font-family=\"{FONT}\" font-size=\"{font}\" \
             fill=\"#000000\">{}</text>\n",
            left + row,
            y + scaled(12),
            escape_xml(&fit_label(e.label))
        ));
    }
    legend
}

/// `gantt` as an SVG document. The rectangles are written as SVG `<rect>` elements, each
/// with its `<title>` (a browser shows it as a tooltip), over the axes drawn by
/// `plotters`; the legend is a column right of the plot.
pub fn gantt_svg(gantt: &Gantt) -> Result<String, PlotError> {
    let name = gantt.title.as_str();
    if gantt.blocks.is_empty() || gantt.x.end <= gantt.x.start {
        return Err(empty(name));
    }
    let top = gantt
        .blocks
        .iter()
        .filter(|b| !b.waiting)
        .map(|b| b.first + b.count)
        .fold(gantt.procs, f64::max);
    let scale = gantt.below_scale;
    let column = legend_width(gantt.legend.iter().map(String::as_str));
    let y_fmt = move |v: &f64| {
        if *v < 0.0 {
            tick((-v * scale).round())
        } else {
            tick(*v)
        }
    };
    let x_fmt = |v: &f64| match &gantt.clock {
        Some((origin, zone)) => clock_tick(*origin, zone, *v),
        None => tick(*v),
    };
    let frame = Frame {
        title: &gantt.title,
        x_label: &gantt.x_label,
        y_label: &gantt.y_label,
        x_ticks: XTicks::Numbers,
        x_names: &[],
        legend: Legend::None,
        counts: false,
        right: column,
        x_fmt: Some(&x_fmt),
        y_fmt: Some(&y_fmt),
    };
    let colour = |entry: usize| -> RGBColor {
        let key = gantt.colours.get(entry).copied().unwrap_or(entry);
        if key < RUN_COLOURS {
            PALETTE[JOB_COLOURS[key]]
        } else {
            RGBColor(160, 160, 160)
        }
    };
    let low = if gantt.below > 0.0 {
        -gantt.below - top * 0.02
    } else {
        0.0
    };
    let y: RangedCoordf64 = (low..top * 1.02).into();
    let mut rects = String::new();
    let mut svg = draw(name, frame, gantt.x.clone(), y, |ctx| {
        // The machine's floor, above the jobs waiting, and its size, past which the
        // log's own service may go.
        let line = ShapeStyle::from(BLACK).stroke_width(1);
        if gantt.below > 0.0 {
            ctx.draw_series(LineSeries::new(
                [(gantt.x.start, 0.0), (gantt.x.end, 0.0)],
                line,
            ))
            .map_err(|e| e.to_string())?;
        }
        if top > gantt.procs {
            ctx.draw_series(LineSeries::new(
                [(gantt.x.start, gantt.procs), (gantt.x.end, gantt.procs)],
                line.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?;
        }
        for b in &gantt.blocks {
            let (x0, y0) = ctx.backend_coord(&(b.from.max(gantt.x.start), b.first + b.count));
            let (x1, y1) = ctx.backend_coord(&(b.to.min(gantt.x.end), b.first));
            let opacity = if b.waiting { "0.45" } else { "1" };
            rects.push_str(&format!(
                "<rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\" fill=\"{}\" \
                 fill-opacity=\"{opacity}\" stroke=\"#ffffff\" stroke-opacity=\"0.6\">\
                 <title>{}</title></rect>\n",
                (x1 - x0).max(1),
                (y1 - y0).max(1),
                hex(colour(b.colour)),
                escape_xml(&b.title)
            ));
        }
        Ok(())
    })?;
    // The legend: a swatch and a name per colour, and the waiting jobs' paler swatch.
    let mut entries: Vec<Swatch> = gantt
        .legend
        .iter()
        .enumerate()
        .map(|(k, label)| Swatch {
            colour: colour(k),
            label,
            opacity: "1",
            line: false,
        })
        .collect();
    if gantt.below > 0.0 {
        entries.push(Swatch {
            colour: RGBColor(120, 120, 120),
            label: "waiting",
            opacity: "0.45",
            line: false,
        });
    }
    let legend = legend_column(&entries, figure_style().width.saturating_sub(column));
    let end = svg
        .rfind("</svg>")
        .ok_or_else(|| draw_error(name, "no </svg> in the document"))?;
    svg.insert_str(
        end,
        &format!("<g class=\"jobs\">\n{rects}</g>\n<g class=\"legend\">\n{legend}</g>\n"),
    );
    Ok(svg)
}

/// A run's line in an [`Overlay`].
#[derive(Debug, Clone, PartialEq)]
pub struct RunSeries {
    /// Its legend: the run's name.
    pub label: String,
    /// The run's colour and marker: its place among the runs compared, below
    /// [`RUN_COLOURS`], the same in every figure.
    pub run: usize,
    /// Its points, in x order.
    pub points: Vec<(f64, f64)>,
}

/// Several runs' lines over one another (distribution functions, series over time):
/// each run in its own colour and marker, the legend in a column right of the plot,
/// where it hides no data.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    /// Title above the plot.
    pub title: String,
    /// The x axis' name, with its unit.
    pub x_label: String,
    /// The y axis' name, with its unit.
    pub y_label: String,
    /// How the x axis is labelled ([`XTicks::Log10`]: x values are base-10 logarithms).
    pub x_ticks: XTicks,
    /// The y axis starts at 0.
    pub y_from_zero: bool,
    /// The lines.
    pub series: Vec<RunSeries>,
}

/// `chart` as an SVG document.
pub fn overlay_svg(chart: &Overlay) -> Result<String, PlotError> {
    let name = chart.title.as_str();
    let usable = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite();
    let points = || {
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter(usable))
    };
    let (x_lo, x_hi) = bounds(points().map(|p| p.0)).ok_or_else(|| empty(name))?;
    let (y_lo, y_hi) = bounds(points().map(|p| p.1)).ok_or_else(|| empty(name))?;
    let lines: Vec<Line> = chart
        .series
        .iter()
        .map(|s| Line {
            label: &s.label,
            key: s.run,
            points: s.points.iter().filter(usable).copied().collect(),
            errors: Vec::new(),
        })
        .collect();
    let column = legend_width(lines.iter().map(|l| l.label));
    let frame = Frame {
        title: &chart.title,
        x_label: &chart.x_label,
        y_label: &chart.y_label,
        x_ticks: chart.x_ticks,
        x_names: &[],
        legend: Legend::None,
        counts: false,
        right: column,
        x_fmt: None,
        y_fmt: None,
    };
    let y: RangedCoordf64 = padded(y_lo, y_hi, chart.y_from_zero).into();
    let x = x_span(chart.x_ticks, x_lo, x_hi);
    let svg = draw(name, frame, x, y, |ctx| draw_lines(ctx, &lines, false))?;
    let entries: Vec<Swatch> = lines
        .iter()
        .map(|l| Swatch {
            colour: PALETTE[l.key % PALETTE.len()],
            label: l.label,
            opacity: "1",
            line: true,
        })
        .collect();
    with_legend(
        name,
        svg,
        &legend_column(&entries, figure_style().width.saturating_sub(column)),
    )
}

/// One run's values summarized as a box of a [`BoxPlot`]: whiskers, quartiles, median
/// and mean.
#[derive(Debug, Clone, PartialEq)]
pub struct RunBox {
    /// The run's name, in the legend and under its box.
    pub label: String,
    /// The run's colour: its place among the runs compared, below [`RUN_COLOURS`].
    pub run: usize,
    /// The lower whisker's end.
    pub low: f64,
    /// The first quartile: the box's bottom.
    pub q1: f64,
    /// The median: a line across the box.
    pub median: f64,
    /// The third quartile: the box's top.
    pub q3: f64,
    /// The upper whisker's end.
    pub high: f64,
    /// The mean: a black diamond.
    pub mean: f64,
}

/// Box plots of several runs side by side, each box in its run's colour, the legend in
/// a column right of the plot. What the whiskers reach is the caller's to say.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxPlot {
    /// Title above the plot.
    pub title: String,
    /// The x axis' name.
    pub x_label: String,
    /// The y axis' name, with its unit.
    pub y_label: String,
    /// The y axis starts at 0.
    pub y_from_zero: bool,
    /// The boxes, left to right.
    pub boxes: Vec<RunBox>,
}

/// `chart` as an SVG document.
pub fn box_plot_svg(chart: &BoxPlot) -> Result<String, PlotError> {
    let name = chart.title.as_str();
    let values = chart
        .boxes
        .iter()
        .flat_map(|b| [b.low, b.q1, b.median, b.q3, b.high, b.mean]);
    let (lo, hi) = bounds(values).ok_or_else(|| empty(name))?;
    let column = legend_width(chart.boxes.iter().map(|b| b.label.as_str()));
    // Each box's name under it when every name fits the room a box has, with a gap;
    // else none (names cut alike, `CREASY …`, would tell nothing), and the legend, in
    // the same order, names the boxes.
    let room = f64::from(figure_style().width.saturating_sub(column + 120))
        / chart.boxes.len().max(1) as f64
        - f64::from(scaled(12));
    let fits = chart.boxes.iter().all(|b| label_width(&b.label) <= room);
    let names: Vec<String> = chart
        .boxes
        .iter()
        .map(|b| if fits { b.label.clone() } else { String::new() })
        .collect();
    let frame = Frame {
        title: &chart.title,
        x_label: &chart.x_label,
        y_label: &chart.y_label,
        x_ticks: XTicks::Numbers,
        x_names: &names,
        legend: Legend::None,
        counts: false,
        right: column,
        x_fmt: None,
        y_fmt: None,
    };
    let x = -0.5..chart.boxes.len() as f64 - 0.5;
    let y: RangedCoordf64 = padded(lo, hi, chart.y_from_zero).into();
    let svg = draw(name, frame, x, y, |ctx| {
        for (i, b) in chart.boxes.iter().enumerate() {
            let at = i as f64;
            let colour = PALETTE[b.run % PALETTE.len()];
            let err = |e: DrawingAreaErrorKind<_>| e.to_string();
            ctx.draw_series([
                Whisker {
                    ends: [(at, b.q3), (at, b.high)],
                    colour,
                },
                Whisker {
                    ends: [(at, b.low), (at, b.q1)],
                    colour,
                },
            ])
            .map_err(err)?;
            ctx.draw_series([
                Rectangle::new(
                    [(at - 0.3, b.q1), (at + 0.3, b.q3)],
                    colour.mix(0.3).filled(),
                ),
                Rectangle::new(
                    [(at - 0.3, b.q1), (at + 0.3, b.q3)],
                    ShapeStyle::from(colour).stroke_width(2),
                ),
            ])
            .map_err(err)?;
            ctx.draw_series(std::iter::once(PathElement::new(
                vec![(at - 0.3, b.median), (at + 0.3, b.median)],
                BLACK.stroke_width(3),
            )))
            .map_err(err)?;
            ctx.draw_series(std::iter::once(
                EmptyElement::at((at, b.mean)) + Marker::of(4, (0, 0), BLACK),
            ))
            .map_err(err)?;
        }
        Ok(())
    })?;
    let entries: Vec<Swatch> = chart
        .boxes
        .iter()
        .map(|b| Swatch {
            colour: PALETTE[b.run % PALETTE.len()],
            label: &b.label,
            opacity: "1",
            line: false,
        })
        .collect();
    with_legend(
        name,
        svg,
        &legend_column(&entries, figure_style().width.saturating_sub(column)),
    )
}

/// `svg` with the legend column `legend` (see [`legend_column`]) added at its end.
fn with_legend(name: &str, mut svg: String, legend: &str) -> Result<String, PlotError> {
    let end = svg
        .rfind("</svg>")
        .ok_or_else(|| draw_error(name, "no </svg> in the document"))?;
    svg.insert_str(end, &format!("<g class=\"legend\">\n{legend}</g>\n"));
    Ok(svg)
}

/// A line to draw: its legend, its colour and marker (the palette's and the markers'
/// entry), its points and its error bars `(x, low, high)`.
struct Line<'l> {
    label: &'l str,
    key: usize,
    points: Vec<(f64, f64)>,
    errors: Vec<(f64, f64, f64)>,
}

/// The legend of `lines`: right of the plot for several, else in the corner where it
/// covers the fewest points of the line and its error bars.
fn lines_legend<'k>(lines: &[Line<'k>], frac: &Frac) -> Legend<'k> {
    if several(lines) {
        return Legend::Right(line_keys(lines));
    }
    let labels: Vec<&str> = lines.iter().map(|l| l.label).collect();
    Legend::Corner(legend_corner(&lines_occupied(lines, frac), &labels))
}

/// Points along `lines` and their error bars, as fractions (see [`Frac`]).
fn lines_occupied(lines: &[Line], frac: &Frac) -> Vec<(f64, f64)> {
    let mut occupied = Vec::new();
    for line in lines {
        occupied.extend(frac.along(&line.points));
        for &(x, lo, hi) in &line.errors {
            occupied.extend(frac.along(&[(x, lo), (x, hi)]));
        }
    }
    occupied
}

/// Draws `lines`; with `dodge`, each line is shifted sideways by a few pixels from the
/// next, so that lines, markers and error bars at the same x stay apart.
fn draw_lines<Y>(ctx: &mut Context<'_, Y>, lines: &[Line], dodge: bool) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    const DODGE_PIXELS: f64 = 7.0;
    let y_range = ctx.y_range();
    let x_range = ctx.x_range();
    let pixels = f64::from(ctx.plotting_area().dim_in_pixel().0.max(1));
    let per_pixel = (x_range.end - x_range.start) / pixels;
    let middle = (lines.len() as f64 - 1.0) / 2.0;
    for (i, line) in lines.iter().enumerate() {
        if line.points.is_empty() {
            // A series without data keeps its colour (its key) and takes no entry.
            continue;
        }
        let colour = PALETTE[line.key % PALETTE.len()];
        let key = line.key;
        let style = ShapeStyle::from(colour).stroke_width(2);
        let shift = if dodge {
            (i as f64 - middle) * DODGE_PIXELS * per_pixel
        } else {
            0.0
        };
        // Error bars first, so that lines and markers are drawn over them.
        ctx.draw_series(line.errors.iter().map(|&(x, lo, hi)| Whisker {
            ends: [
                (x + shift, lo.max(y_range.start)),
                (x + shift, hi.min(y_range.end)),
            ],
            colour,
        }))
        .map_err(|e| e.to_string())?;
        let points: Vec<(f64, f64)> = line.points.iter().map(|&(x, y)| (x + shift, y)).collect();
        ctx.draw_series(LineSeries::new(points.iter().copied(), style))
            .map_err(|e| e.to_string())?
            .label(line.label)
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (24, 0)], style)
                    + Marker::of(key, (12, 0), colour)
            });
        // Markers at a readable density: about 24 per series.
        let every = points.len().div_ceil(24).max(1);
        ctx.draw_series(
            points
                .iter()
                .step_by(every)
                .map(|&p| EmptyElement::at(p) + Marker::of(key, (0, 0), colour)),
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The marker of series `i`, centred on a pixel offset: circle, square, triangle,
/// cross, diamond, triangle pointing down in turn.
struct Marker {
    kind: usize,
    at: (i32, i32),
    colour: RGBColor,
}

impl Marker {
    fn of(i: usize, at: (i32, i32), colour: RGBColor) -> Marker {
        Marker {
            kind: i % 6,
            at,
            colour,
        }
    }
}

impl<'a> PointCollection<'a, (i32, i32)> for &'a Marker {
    type Point = &'a (i32, i32);
    type IntoIter = std::iter::Once<&'a (i32, i32)>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<DB: DrawingBackend> Drawable<DB> for Marker {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = points.next() else {
            return Ok(());
        };
        let filled = ShapeStyle::from(self.colour).filled();
        let line = ShapeStyle::from(self.colour).stroke_width(2);
        match self.kind {
            0 => backend.draw_circle((x, y), 4, &filled, true),
            1 => backend.draw_rect((x - 4, y - 4), (x + 4, y + 4), &filled, true),
            2 => backend.fill_polygon(vec![(x, y - 5), (x + 5, y + 4), (x - 5, y + 4)], &filled),
            3 => {
                backend.draw_line((x - 4, y - 4), (x + 4, y + 4), &line)?;
                backend.draw_line((x - 4, y + 4), (x + 4, y - 4), &line)
            }
            4 => backend.fill_polygon(
                vec![(x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y)],
                &filled,
            ),
            _ => backend.fill_polygon(vec![(x, y + 5), (x + 5, y - 4), (x - 5, y - 4)], &filled),
        }
    }
}

/// An error bar between two points of the same x: a vertical line with a cap at each end.
struct Whisker<C> {
    ends: [C; 2],
    colour: RGBColor,
}

impl<'a, C: 'a> PointCollection<'a, C> for &'a Whisker<C> {
    type Point = &'a C;
    type IntoIter = std::slice::Iter<'a, C>;
    fn point_iter(self) -> Self::IntoIter {
        self.ends.iter()
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for Whisker<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        const CAP: i32 = 6;
        let (Some(a), Some(b)) = (points.next(), points.next()) else {
            return Ok(());
        };
        let style = ShapeStyle::from(self.colour).stroke_width(2);
        backend.draw_line(a, b, &style)?;
        for (x, y) in [a, b] {
            backend.draw_line((x - CAP, y), (x + CAP, y), &style)?;
        }
        Ok(())
    }
}

/// A bar of series `kind` between two corners: each series has its own fill (solid,
/// tinted, or tinted and hatched in one of several directions) so that series stay apart
/// in greyscale print.
struct HatchedBar<C> {
    corners: [C; 2],
    kind: usize,
    colour: RGBColor,
}

/// Fill patterns of [`HatchedBar`].
const PATTERNS: usize = 6;

impl<'a, C: 'a> PointCollection<'a, C> for &'a HatchedBar<C> {
    type Point = &'a C;
    type IntoIter = std::slice::Iter<'a, C>;
    fn point_iter(self) -> Self::IntoIter {
        self.corners.iter()
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for HatchedBar<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        const GAP: i32 = 7;
        let (Some(a), Some(b)) = (points.next(), points.next()) else {
            return Ok(());
        };
        let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
        let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
        let kind = self.kind % PATTERNS;
        let fill = match kind {
            0 => self.colour.filled(),
            5 => self.colour.mix(0.55).filled(),
            _ => self.colour.mix(0.2).filled(),
        };
        backend.draw_rect((x0, y0), (x1, y1), &fill, true)?;
        let line = ShapeStyle::from(self.colour).stroke_width(1);
        let mut hatch = |from: BackendCoord, to: BackendCoord| backend.draw_line(from, to, &line);
        // Rising lines x + y = c, falling lines x - y = c, both clipped to the bar.
        if matches!(kind, 1 | 3) {
            let mut c = (x0 + y0).div_euclid(GAP) * GAP + GAP;
            while c < x1 + y1 {
                let (xs, xe) = ((c - y1).max(x0), (c - y0).min(x1));
                if xs < xe {
                    hatch((xs, c - xs), (xe, c - xe))?;
                }
                c += GAP;
            }
        }
        if matches!(kind, 2 | 3) {
            let mut c = (x0 - y1).div_euclid(GAP) * GAP + GAP;
            while c < x1 - y0 {
                let (xs, xe) = ((c + y0).max(x0), (c + y1).min(x1));
                if xs < xe {
                    hatch((xs, xs - c), (xe, xe - c))?;
                }
                c += GAP;
            }
        }
        if kind == 4 {
            let mut y = y0 + GAP / 2;
            while y < y1 {
                hatch((x0, y), (x1, y))?;
                y += GAP / 2 + 1;
            }
        }
        let outline = ShapeStyle::from(self.colour).stroke_width(2);
        backend.draw_rect((x0, y0), (x1, y1), &outline, false)
    }
}

/// `chart` as an SVG document.
pub fn bar_chart_svg(chart: &BarChart) -> Result<String, PlotError> {
    render_bar_chart(&chart.title, chart)
}

/// A bar as drawn: its series, its horizontal span and its value and error bar.
struct PlacedBar {
    series: usize,
    x: Range<f64>,
    bar: Bar,
}

fn render_bar_chart(name: &str, chart: &BarChart) -> Result<String, PlotError> {
    let usable = |b: &Bar| b.value.is_finite() && (!chart.log_y || b.value > 0.0);
    let n = chart.series.len().max(1) as f64;
    let width = 0.8 / n;
    let placed: Vec<PlacedBar> = chart
        .series
        .iter()
        .enumerate()
        .flat_map(|(j, s)| {
            s.bars
                .iter()
                .take(chart.groups.len())
                .enumerate()
                .filter_map(move |(g, b)| b.filter(usable).map(|b| (j, g, b)))
        })
        .map(|(j, g, bar)| {
            let left = g as f64 - 0.4 + j as f64 * width;
            PlacedBar {
                series: j,
                x: left + 0.06 * width..left + 0.94 * width,
                bar,
            }
        })
        .collect();
    let error = |b: &Bar| {
        if b.error.is_finite() {
            b.error.abs()
        } else {
            0.0
        }
    };
    let tops = placed.iter().map(|p| p.bar.value + error(&p.bar));
    let (_, top) = bounds(tops).ok_or_else(|| empty(name))?;
    let x = -0.5..chart.groups.len() as f64 - 0.5;
    // Where error bars end below: nowhere for differences, else at 0.
    let floor = if chart.zero_line {
        f64::NEG_INFINITY
    } else {
        0.0
    };
    // The series with bars: several have their legend right of the plot; one has it
    // inside, with head room above the bars.
    let shown: Vec<Key> = chart
        .series
        .iter()
        .enumerate()
        .filter(|(j, _)| placed.iter().any(|p| p.series == *j))
        .map(|(j, s)| {
            let key = s.colour.unwrap_or(j);
            Key {
                label: &s.label,
                colour: PALETTE[key % PALETTE.len()],
                swatch: KeySwatch::Bar(key),
            }
        })
        .collect();
    let room = if shown.len() > 1 { 0.05 } else { 0.35 };
    let y = if chart.log_y {
        let lows = placed.iter().flat_map(|p| {
            let low = p.bar.value - error(&p.bar);
            [p.bar.value, if low > 0.0 { low } else { p.bar.value }]
        });
        let (low, _) = bounds(lows).ok_or_else(|| empty(name))?;
        let low = low / 1.5;
        low..top * (top / low).powf(room)
    } else {
        let (low, _) = bounds(
            placed
                .iter()
                .map(|p| (p.bar.value - error(&p.bar)).max(floor)),
        )
        .ok_or_else(|| empty(name))?;
        // Bars rise or fall from 0, which stays in the range.
        let (low, top) = (low.min(0.0), top.max(0.0));
        low..top + (top - low) * room
    };
    let base = if chart.log_y { y.start } else { 0.0 };
    let frac = Frac {
        x: x.clone(),
        y: y.clone(),
        log_y: chart.log_y,
    };
    let mut occupied = Vec::new();
    for p in &placed {
        let high = p.bar.value + error(&p.bar);
        for x in [p.x.start, (p.x.start + p.x.end) / 2.0, p.x.end] {
            occupied.extend(frac.along(&[(x, base), (x, high)]));
        }
    }
    let labels: Vec<&str> = chart.series.iter().map(|s| s.label.as_str()).collect();
    let frame = Frame {
        title: &chart.title,
        x_label: &chart.x_label,
        y_label: &chart.y_label,
        x_ticks: XTicks::Numbers,
        x_names: &chart.groups,
        legend: if shown.len() > 1 {
            Legend::Right(shown)
        } else {
            Legend::Corner(legend_corner(&occupied, &labels))
        },
        counts: false,
        right: 0,
        x_fmt: None,
        y_fmt: None,
    };
    if chart.log_y {
        let y = LogCoord::from(y.log_scale());
        draw(name, frame, x, y, |ctx| {
            draw_bars(ctx, chart, &placed, base, floor)
        })
    } else {
        let y: RangedCoordf64 = y.into();
        draw(name, frame, x, y, |ctx| {
            if chart.zero_line {
                draw_zero_line(ctx)?;
            }
            draw_bars(ctx, chart, &placed, base, floor)
        })
    }
}

/// Draws the `placed` bars of `chart` rising from `base`, their error bars ending no
/// lower than `floor`.
fn draw_bars<Y>(
    ctx: &mut Context<'_, Y>,
    chart: &BarChart,
    placed: &[PlacedBar],
    base: f64,
    floor: f64,
) -> Result<(), String>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let y = ctx.y_range();
    for (j, s) in chart.series.iter().enumerate() {
        let kind = s.colour.unwrap_or(j);
        let colour = PALETTE[kind % PALETTE.len()];
        let mut mine = placed.iter().filter(|p| p.series == j).peekable();
        if mine.peek().is_none() {
            // A series without bars keeps its colour (its place) and takes no entry.
            continue;
        }
        ctx.draw_series(mine.map(|p| HatchedBar {
            corners: [(p.x.start, base), (p.x.end, p.bar.value)],
            kind,
            colour,
        }))
        .map_err(|e| e.to_string())?
        .label(&s.label)
        .legend(move |(x, y)| {
            EmptyElement::at((x, y))
                + HatchedBar {
                    corners: [(0, -8), (22, 8)],
                    kind,
                    colour,
                }
        });
    }
    // Error bars in black over every bar, so that they show on any fill.
    let whiskers = placed.iter().filter(|p| p.bar.error > 0.0).map(|p| {
        let mid = (p.x.start + p.x.end) / 2.0;
        Whisker {
            ends: [
                (mid, (p.bar.value - p.bar.error).max(y.start).max(floor)),
                (mid, (p.bar.value + p.bar.error).min(y.end)),
            ],
            colour: BLACK,
        }
    });
    ctx.draw_series(whiskers).map_err(|e| e.to_string())?;
    Ok(())
}

/// `hist` as an SVG document, with `band` shaded behind the bins.
pub fn histogram_svg(hist: &Histogram, band: Option<&Band>) -> Result<String, PlotError> {
    render_histogram(&hist.title, hist, band)
}

fn render_histogram(
    name: &str,
    hist: &Histogram,
    band: Option<&Band>,
) -> Result<String, PlotError> {
    let bin_edges = hist.bins.iter().flat_map(|&(lo, hi, _)| [lo, hi]);
    let band_edges = band.iter().flat_map(|b| [b.lo, b.hi]);
    let marks = hist.marks.iter().map(|m| m.0);
    let (x_lo, x_hi) =
        bounds(bin_edges.chain(marks).chain(band_edges)).ok_or_else(|| empty(name))?;
    let y_hi = hist.bins.iter().map(|b| b.2).fold(0.0, f64::max);
    let x = padded(x_lo, x_hi, false);
    // Head room above the bins for the legend, if any.
    let room = if hist.marks.is_empty() && band.is_none() {
        1.1
    } else {
        1.4
    };
    let top = (y_hi * room).max(1.0);
    let y = 0.0..top;
    let frac = Frac {
        x: x.clone(),
        y: y.clone(),
        log_y: false,
    };
    let mut occupied = Vec::new();
    for &(lo, hi, n) in &hist.bins {
        for x in [lo, (lo + hi) / 2.0, hi] {
            occupied.extend(frac.along(&[(x, 0.0), (x, n)]));
        }
    }
    for &(at, _) in &hist.marks {
        occupied.extend(frac.along(&[(at, 0.0), (at, y_hi * 1.05)]));
    }
    let mut labels: Vec<&str> = hist.marks.iter().map(|m| m.1.as_str()).collect();
    labels.extend(band.map(|b| b.label.as_str()));
    let frame = Frame {
        title: &hist.title,
        x_label: &hist.x_label,
        y_label: &hist.y_label,
        x_ticks: XTicks::Numbers,
        x_names: &[],
        legend: if labels.is_empty() {
            Legend::None
        } else {
            Legend::Corner(legend_corner(&occupied, &labels))
        },
        counts: true,
        right: 0,
        x_fmt: None,
        y_fmt: None,
    };
    let y: RangedCoordf64 = y.into();
    draw(name, frame, x, y, |ctx| {
        if let Some(band) = band {
            let shade = BLACK.mix(0.12).filled();
            let edge = ShapeStyle::from(BLACK.mix(0.5)).stroke_width(1);
            ctx.draw_series([Rectangle::new([(band.lo, 0.0), (band.hi, top)], shade)])
                .map_err(|e| e.to_string())?
                .label(&band.label)
                .legend(move |(x, y)| Rectangle::new([(x, y - 8), (x + 24, y + 8)], shade));
            for at in [band.lo, band.hi] {
                ctx.draw_series(LineSeries::new([(at, 0.0), (at, top)], edge))
                    .map_err(|e| e.to_string())?;
            }
        }
        let bar = PALETTE[0];
        let bars = |style: ShapeStyle| {
            hist.bins
                .iter()
                .map(move |&(lo, hi, n)| Rectangle::new([(lo, 0.0), (hi, n)], style))
        };
        ctx.draw_series(bars(ShapeStyle::from(bar.mix(0.6)).filled()))
            .map_err(|e| e.to_string())?;
        ctx.draw_series(bars(ShapeStyle::from(bar)))
            .map_err(|e| e.to_string())?;
        for (i, (at, label)) in hist.marks.iter().enumerate() {
            let colour = PALETTE[(i + 1) % PALETTE.len()];
            let style = ShapeStyle::from(colour).stroke_width(3);
            ctx.draw_series(LineSeries::new([(*at, 0.0), (*at, y_hi * 1.05)], style))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(1200.0), "1200");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(1.23456), "1.23");
        assert_eq!(tick(-12.5), "-12.5");
        assert_eq!(tick(2.5e7), "25,000,000");
        assert_eq!(tick(1e6), "1,000,000");
        assert_eq!(tick(-2e9), "-2,000,000,000");
        assert_eq!(tick(999_999.0), "999999");
        assert_eq!(tick(2.5e-5), "0.000025");
        assert_eq!(tick(1e20), "1e20");
        // Zero stepped to in floating point, on a paired plot's axis.
        assert_eq!(axis_tick(-3e-17, 0.4), "0");
        assert_eq!(axis_tick(-1e-16, 2.0), "0");
        assert_eq!(axis_tick(1e-4, 2e-4), "0.0001");
        assert_eq!(weekday_tick(48.0), "Wed");
        assert_eq!(weekday_tick(50.0), "");
    }

    #[test]
    fn a_legend_never_covers_a_series_that_fills_every_corner() {
        // Hourly utilization swinging between 0 and 100% all along: no corner is free,
        // so the legend gets room above the data.
        let chart = LineChart {
            title: "Utilization".into(),
            x_label: "days".into(),
            y_label: "utilization (%)".into(),
            x_ticks: XTicks::Numbers,
            log_y: false,
            y_from_zero: true,
            series: vec![Series {
                label: "hourly".into(),
                points: (0..300)
                    .map(|h| (f64::from(h) / 24.0, if h % 2 == 0 { 0.0 } else { 100.0 }))
                    .collect(),
            }],
        };
        let svg = line_chart_svg(&chart).unwrap();
        let legend = svg
            .split('<')
            .find(|e| e.starts_with("rect") && e.contains("opacity=\"0.85\""))
            .expect("a legend box");
        let (x0, y0) = (attr(legend, "x"), attr(legend, "y"));
        let (x1, y1) = (x0 + attr(legend, "width"), y0 + attr(legend, "height"));
        let data_end = svg.find("opacity=\"0.85\"").unwrap();
        let covered = polyline_points(&svg[..data_end])
            .into_iter()
            .filter(|&(x, y)| x > x0 + 1.0 && x < x1 - 1.0 && y > y0 + 1.0 && y < y1 - 1.0)
            .count();
        assert_eq!(covered, 0, "legend at ({x0}, {y0})-({x1}, {y1})");
    }

    /// The value of attribute `name` of the SVG element `e`.
    fn attr(e: &str, name: &str) -> f64 {
        let at = e.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        e[at..].split('"').next().unwrap().parse().unwrap()
    }

    /// The points of the coloured (not black) polylines of `svg`, pixels.
    fn polyline_points(svg: &str) -> Vec<(f64, f64)> {
        svg.split("<polyline")
            .skip(1)
            .filter(|e| !e.contains("#000000"))
            .flat_map(|e| {
                let points = e
                    .split("points=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                points
                    .split_whitespace()
                    .filter_map(|p| {
                        let (x, y) = p.split_once(',')?;
                        Some((x.parse::<f64>().ok()?, y.parse::<f64>().ok()?))
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn boxes_are_named_under_them_only_when_every_name_fits() {
        let chart = |labels: &[&str]| BoxPlot {
            title: "Wait".into(),
            x_label: "scheduler".into(),
            y_label: "wait (h)".into(),
            y_from_zero: true,
            boxes: labels
                .iter()
                .enumerate()
                .map(|(run, label)| RunBox {
                    label: label.to_string(),
                    run,
                    low: 1.0,
                    q1: 2.0,
                    median: 3.0,
                    q3: 4.0,
                    high: 5.0,
                    mean: 3.5,
                })
                .collect(),
        };
        // Under its box and in the legend.
        let svg = box_plot_svg(&chart(&["EASY", "FCFS"])).unwrap();
        assert_eq!(svg.matches("EASY").count(), 2);
        // Six long names would be cut alike: the legend alone names them, in order.
        let long = [
            "CREASY α=0.5",
            "CREASY α=0.9",
            "CREASY α=0.99",
            "CREASY α=0.999",
        ];
        let svg = box_plot_svg(&chart(&[&long[..], &["CREASY α=1", "EASY"]].concat())).unwrap();
        for label in long {
            assert_eq!(svg.matches(&format!(">{label}<")).count(), 1, "{label}");
        }
        assert!(!svg.contains('…'));
    }

    #[test]
    fn several_series_have_their_legend_right_of_the_plot() {
        let series = |label: &str, at: f64| ErrorSeries {
            label: label.into(),
            colour: None,
            points: (0..=10)
                .map(|x| Estimate {
                    x: f64::from(x),
                    y: at + f64::from(x),
                    error: 1.0,
                })
                .collect(),
        };
        let chart = ErrorLineChart {
            title: "Wait".into(),
            x_label: "population".into(),
            y_label: "wait (h)".into(),
            y_from_zero: true,
            zero_line: false,
            y_range: None,
            series: vec![series("EASY", 0.0), series("conservative", 5.0)],
            references: Vec::new(),
        };
        let svg = error_line_chart_svg(&chart).unwrap();
        // No legend box inside the plot: the entries are text right of every point.
        assert!(!svg.contains("opacity=\"0.85\""));
        // The data: drawn before the legend's first entry.
        let right = polyline_points(&svg[..svg.find("EASY").unwrap()])
            .into_iter()
            .fold(0.0, |m: f64, (x, _)| m.max(x));
        assert!(right > 400.0, "the data reach {right}");
        for label in ["EASY", "conservative"] {
            let text = svg
                .split("<text")
                .find(|e| e.contains(&format!(">\n{label}\n")) || e.contains(&format!(">{label}<")))
                .unwrap_or_else(|| panic!("no entry {label}"));
            assert!(
                attr(text, "x") > right,
                "{label} at {} over data to {right}",
                attr(text, "x")
            );
        }
        // A series without data keeps no entry.
        let mut one = chart.clone();
        one.series[1].points.clear();
        let svg = error_line_chart_svg(&one).unwrap();
        assert!(!svg.contains("conservative"));
    }

    #[test]
    fn a_line_chart_names_its_axes_and_series_and_is_reproducible() {
        let chart = LineChart {
            title: "Jobs per week".into(),
            x_label: "week".into(),
            y_label: "jobs".into(),
            x_ticks: XTicks::Numbers,
            log_y: false,
            y_from_zero: true,
            series: vec![
                Series {
                    label: "log".into(),
                    points: (0..50).map(|w| (w as f64, (w * w) as f64)).collect(),
                },
                Series {
                    label: "EASY".into(),
                    points: (0..50).map(|w| (w as f64, (w * 40) as f64)).collect(),
                },
            ],
        };
        let svg = line_chart_svg(&chart).unwrap();
        assert!(svg.starts_with("<svg"));
        for text in [
            "Jobs per week",
            "\nweek\n",
            "\njobs\n",
            "\nEASY\n",
            "\nlog\n",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert_eq!(svg, line_chart_svg(&chart).unwrap());
        let log = LineChart {
            log_y: true,
            x_ticks: XTicks::HourOfWeek,
            ..chart
        };
        let svg = line_chart_svg(&log).unwrap();
        assert!(svg.contains("\nMon\n") && svg.contains("\nSun\n"));
    }

    #[test]
    fn a_histogram_marks_its_values_and_nothing_is_an_error() {
        let hist = Histogram {
            title: "Mean wait over replications".into(),
            x_label: "mean wait (s)".into(),
            y_label: "replications".into(),
            bins: vec![(0.0, 10.0, 3.0), (10.0, 20.0, 7.0), (20.0, 30.0, 1.0)],
            marks: vec![(12.0, "original log".into())],
        };
        let svg = histogram_svg(&hist, None).unwrap();
        assert!(svg.contains("original log") && svg.contains("<rect"));
        let none = Histogram {
            bins: vec![],
            marks: vec![],
            ..hist
        };
        assert!(matches!(
            histogram_svg(&none, None),
            Err(PlotError::Empty { .. })
        ));
        let empty = LineChart {
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            x_ticks: XTicks::Numbers,
            log_y: true,
            y_from_zero: false,
            series: vec![Series {
                label: "zero".into(),
                points: vec![(1.0, 0.0)],
            }],
        };
        assert!(matches!(
            line_chart_svg(&empty),
            Err(PlotError::Empty { .. })
        ));
    }

    /// Values near ±1e308 (a results file edited by hand: the `results` fuzz target) made
    /// plotters place ticks over an infinite span forever; the chart is refused instead.
    #[test]
    fn a_span_too_wide_to_plot_is_an_error_not_a_hang() {
        let chart = |points: Vec<(f64, f64)>| LineChart {
            title: "Utilization by hour".into(),
            x_label: "hour".into(),
            y_label: "share busy".into(),
            x_ticks: XTicks::Numbers,
            log_y: false,
            y_from_zero: false,
            series: vec![Series {
                label: "EASY".into(),
                points,
            }],
        };
        for points in [
            vec![(0.0, -1e308), (1.0, 1e308)],
            vec![(0.0, 0.5), (1.0, f64::MAX)],
            vec![(-1e308, 0.5), (1e308, 0.6)],
        ] {
            match line_chart_svg(&chart(points.clone())) {
                Err(PlotError::Draw { file, message }) => {
                    assert_eq!(file, "Utilization by hour");
                    assert!(message.contains("too wide a span to plot"), "{message}");
                }
                other => panic!("{points:?}: {other:?}"),
            }
        }
        assert!(line_chart_svg(&chart(vec![(0.0, -1e300), (1.0, 1e300)])).is_ok());
    }

    #[test]
    fn a_share_chart_has_its_intervals_its_curve_and_power_ticks() {
        let chart = ShareChart {
            title: "Session continuation".into(),
            x_label: "response time (s)".into(),
            y_label: "share continued".into(),
            label: "measured".into(),
            points: vec![
                Proportion {
                    x: 30.0,
                    share: 0.8,
                    lo: 0.75,
                    hi: 0.85,
                },
                Proportion {
                    x: 5000.0,
                    share: 0.2,
                    lo: 0.1,
                    hi: 0.3,
                },
            ],
            fitted: Some(Series {
                label: "logistic".into(),
                points: (1..=50)
                    .map(|i| (10f64.powf(i as f64 / 10.0), 1.0 / i as f64))
                    .collect(),
            }),
        };
        let svg = share_chart_svg(&chart).unwrap();
        for text in [
            "Session continuation",
            "\nmeasured\n",
            "\nlogistic\n",
            "\n100\n",
            "\n1000\n",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert_eq!(svg, share_chart_svg(&chart).unwrap());
        assert_eq!(power_tick(2.0), "100");
        assert_eq!(power_tick(2.5), "");
        let none = ShareChart {
            points: vec![],
            fitted: None,
            ..chart
        };
        assert!(matches!(
            share_chart_svg(&none),
            Err(PlotError::Empty { .. })
        ));
    }

    #[test]
    fn hour_and_group_ticks() {
        assert_eq!(hour_tick(0.0), "0");
        assert_eq!(hour_tick(22.0), "22");
        assert_eq!(hour_tick(3.0), "");
        assert_eq!(hour_tick(24.0), "");
        let names = ["a".to_string(), "b".to_string()];
        assert_eq!(group_tick(&names, 1.0), "b");
        assert_eq!(group_tick(&names, 0.5), "");
        assert_eq!(group_tick(&names, 2.0), "");
    }

    #[test]
    fn the_legend_goes_where_the_data_is_not() {
        // A line rising to the upper right leaves the upper left free.
        let rising: Vec<(f64, f64)> = (0..=20)
            .map(|i| (i as f64 / 20.0, i as f64 / 20.0))
            .collect();
        assert_eq!(
            legend_corner(&rising, &["EASY"]),
            SeriesLabelPosition::UpperLeft
        );
        // Nothing in the way: upper right.
        assert_eq!(
            legend_corner(&[(0.5, 0.5)], &["EASY"]),
            SeriesLabelPosition::UpperRight
        );
    }

    #[test]
    fn an_error_line_chart_has_its_bars_and_is_reproducible() {
        let chart = ErrorLineChart {
            title: "Throughput".into(),
            x_label: "population (users ×)".into(),
            y_label: "throughput (jobs/day)".into(),
            y_from_zero: true,
            zero_line: false,
            y_range: None,
            series: ["EASY", "FCFS"]
                .iter()
                .enumerate()
                .map(|(i, label)| ErrorSeries {
                    label: label.to_string(),
                    colour: None,
                    points: (1..=4)
                        .map(|x| Estimate {
                            x: x as f64,
                            y: (x * 100 + i * 30) as f64,
                            error: 12.0,
                        })
                        .collect(),
                })
                .collect(),
            references: Vec::new(),
        };
        let svg = error_line_chart_svg(&chart).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        for text in [
            "\nThroughput\n",
            "population (users ×)",
            "\nEASY\n",
            "\nFCFS\n",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert_eq!(svg, error_line_chart_svg(&chart).unwrap());
        let without: ErrorLineChart = ErrorLineChart {
            series: chart
                .series
                .iter()
                .map(|s| ErrorSeries {
                    points: s
                        .points
                        .iter()
                        .map(|p| Estimate { error: 0.0, ..*p })
                        .collect(),
                    ..s.clone()
                })
                .collect(),
            ..chart.clone()
        };
        // Each error bar is three lines: one vertical, two caps.
        let lines = |s: &str| s.matches("<line").count();
        assert!(lines(&svg) >= lines(&error_line_chart_svg(&without).unwrap()) + 3 * 8);
        assert_eq!(error_line_chart_svg(&chart).unwrap(), svg);
        let none = ErrorLineChart {
            series: vec![],
            ..chart
        };
        assert!(matches!(
            error_line_chart_svg(&none),
            Err(PlotError::Empty { .. })
        ));
    }

    #[test]
    fn a_band_stays_inside_the_quantitys_range() {
        // A utilization near 100% and a queue near 0 with wide intervals: the band is cut
        // at 100% and at 0, and the axis goes no further.
        let chart = |y: f64, range: Option<(f64, f64)>| ErrorLineChart {
            title: "t".into(),
            x_label: "weeks".into(),
            y_label: "y".into(),
            y_from_zero: false,
            zero_line: false,
            y_range: range,
            series: vec![ErrorSeries {
                label: "mean".into(),
                colour: None,
                points: (0..10)
                    .map(|k| Estimate {
                        x: f64::from(k),
                        y,
                        error: 30.0,
                    })
                    .collect(),
            }],
            references: vec![],
        };
        let ticks = |svg: &str| -> Vec<f64> {
            svg.split("<text")
                .filter_map(|t| t.split('>').nth(1)?.split('<').next()?.trim().parse().ok())
                .collect()
        };
        let top = |svg: &str| ticks(svg).into_iter().fold(f64::MIN, f64::max);
        let bottom = |svg: &str| ticks(svg).into_iter().fold(f64::MAX, f64::min);
        let free = error_band_chart_svg(&chart(90.0, None)).unwrap();
        let kept = error_band_chart_svg(&chart(90.0, Some((0.0, 100.0)))).unwrap();
        assert!(
            top(&free) >= 120.0 && top(&kept) <= 100.0,
            "{} {}",
            top(&free),
            top(&kept)
        );
        let free = error_band_chart_svg(&chart(5.0, None)).unwrap();
        let kept = error_band_chart_svg(&chart(5.0, Some((0.0, f64::INFINITY)))).unwrap();
        assert!(
            bottom(&free) <= -20.0 && bottom(&kept) >= 0.0,
            "{} {}",
            bottom(&free),
            bottom(&kept)
        );
    }

    #[test]
    fn a_spread_is_drawn_fainter_beneath_the_band_and_inside_the_range() {
        // Means of 50 with intervals of ±2, the replications spread from 20 to 110: the
        // spread widens the axis to its ends, but no further than 100.
        let chart = ErrorLineChart {
            title: "t".into(),
            x_label: "weeks".into(),
            y_label: "y".into(),
            y_from_zero: false,
            zero_line: false,
            y_range: Some((0.0, 100.0)),
            series: vec![ErrorSeries {
                label: "mean".into(),
                colour: None,
                points: (0..10)
                    .map(|k| Estimate {
                        x: f64::from(k),
                        y: 50.0,
                        error: 2.0,
                    })
                    .collect(),
            }],
            references: vec![],
        };
        let spread: Vec<(f64, f64, f64)> = (0..10).map(|k| (f64::from(k), 20.0, 110.0)).collect();
        let plain = error_band_chart_svg(&chart).unwrap();
        let wide = spread_band_chart_svg(&chart, &[spread]).unwrap();
        assert_eq!(spread_band_chart_svg(&chart, &[vec![]]).unwrap(), plain);
        let opacities = |svg: &str| -> Vec<String> {
            svg.split("<polygon opacity=\"")
                .skip(1)
                .map(|t| t.split('"').next().unwrap().to_owned())
                .collect()
        };
        assert_eq!(opacities(&plain), ["0.25"]);
        assert_eq!(
            opacities(&wide),
            ["0.1", "0.25"],
            "the spread first, fainter"
        );
        let ticks: Vec<f64> = wide
            .split("<text")
            .filter_map(|t| t.split('>').nth(1)?.split('<').next()?.trim().parse().ok())
            .collect();
        let top = ticks.iter().copied().fold(f64::MIN, f64::max);
        let bottom = ticks
            .iter()
            .copied()
            .filter(|&t| t > 1.0)
            .fold(f64::MAX, f64::min);
        assert!((90.0..=100.0).contains(&top), "{ticks:?}");
        assert!(bottom <= 20.0, "{ticks:?}");
    }

    #[test]
    fn an_error_band_chart_shades_its_errors_instead_of_bars() {
        let chart = ErrorLineChart {
            title: "Utilization per week".into(),
            x_label: "weeks since the first submission".into(),
            y_label: "utilization (%)".into(),
            y_from_zero: true,
            zero_line: false,
            y_range: None,
            series: vec![ErrorSeries {
                label: "mean over 5 replications".into(),
                colour: None,
                points: (0..52)
                    .map(|k| Estimate {
                        x: k as f64 + 0.5,
                        y: 60.0 + (k % 7) as f64,
                        // No error in the first week: the band pinches to the line.
                        error: if k == 0 { 0.0 } else { 4.0 },
                    })
                    .collect(),
            }],
            references: vec![Reference {
                at: RefAt::X(1.0),
                label: "end of warm-up".into(),
                series: None,
                dotted: true,
            }],
        };
        let svg = error_band_chart_svg(&chart).unwrap();
        assert_eq!(svg.matches("<polygon").count(), 1, "one band");
        assert!(svg.contains("end of warm-up") && svg.contains("mean over 5 replications"));
        assert_eq!(svg, error_band_chart_svg(&chart).unwrap());
        // No whiskers: the same chart with bars has three lines more for each of the 51
        // errors.
        let lines = |s: &str| s.matches("<line").count();
        assert!(lines(&error_line_chart_svg(&chart).unwrap()) > lines(&svg) + 3 * 50);
    }

    #[test]
    fn reference_lines_have_their_labels_and_stay_in_the_axes() {
        let chart = ErrorLineChart {
            title: "Capacity search".into(),
            x_label: "machine size (processors)".into(),
            y_label: "mean wait (min)".into(),
            y_from_zero: true,
            zero_line: false,
            y_range: None,
            series: ["EASY", "FCFS"]
                .iter()
                .enumerate()
                .map(|(i, label)| ErrorSeries {
                    label: label.to_string(),
                    colour: None,
                    points: [64, 128, 256]
                        .iter()
                        .map(|&x| Estimate {
                            x: f64::from(x),
                            y: 6400.0 / f64::from(x) + 10.0 * i as f64,
                            error: 5.0,
                        })
                        .collect(),
                })
                .collect(),
            references: vec![
                Reference {
                    at: RefAt::Y(30.0),
                    label: "target ≤ 30 min".into(),
                    series: None,
                    dotted: false,
                },
                Reference {
                    at: RefAt::X(144.0),
                    label: "EASY: 144".into(),
                    series: Some(0),
                    dotted: false,
                },
                // Beyond the data: the x axis reaches it.
                Reference {
                    at: RefAt::X(600.0),
                    label: "FCFS for 95% confidence: 600".into(),
                    series: Some(1),
                    dotted: true,
                },
                Reference {
                    at: RefAt::X(f64::NAN),
                    label: "nowhere".into(),
                    series: None,
                    dotted: false,
                },
            ],
        };
        let svg = error_line_chart_svg(&chart).unwrap();
        for text in [
            "\ntarget ≤ 30 min\n",
            "\nEASY: 144\n",
            "\nFCFS for 95% confidence: 600\n",
            "\n600\n",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert!(!svg.contains("nowhere"));
        // Each label in its line's colour.
        assert!(svg.contains("fill=\"#0072B2\">\nEASY: 144\n"));
        assert!(svg.contains("fill=\"#D55E00\">\nFCFS for 95% confidence: 600\n"));
        assert!(svg.contains("fill=\"#000000\">\ntarget ≤ 30 min\n"));
        assert_eq!(svg, error_line_chart_svg(&chart).unwrap());
        // The lines are drawn in dashes, each a path of its own.
        let without = ErrorLineChart {
            references: Vec::new(),
            ..chart.clone()
        };
        let paths = |s: &str| s.matches("<polyline").count();
        assert!(paths(&svg) > paths(&error_line_chart_svg(&without).unwrap()) + 3 * 10);
        // References alone are nothing to plot.
        let none = ErrorLineChart {
            series: Vec::new(),
            ..chart
        };
        assert!(matches!(
            error_line_chart_svg(&none),
            Err(PlotError::Empty { .. })
        ));
    }

    #[test]
    fn a_bar_chart_names_its_groups_and_series_on_both_scales() {
        let chart = BarChart {
            title: "Response time by runtime class".into(),
            x_label: "job runtime class".into(),
            y_label: "mean response time (min)".into(),
            groups: vec!["≤ 1 min".into(), "1–10 min".into(), "> 10 min".into()],
            log_y: false,
            zero_line: false,
            series: vec![
                BarSeries {
                    label: "EASY".into(),
                    colour: None,
                    bars: vec![
                        Some(Bar {
                            value: 2.0,
                            error: 0.5,
                        }),
                        Some(Bar {
                            value: 20.0,
                            error: 3.0,
                        }),
                        Some(Bar {
                            value: 400.0,
                            error: 50.0,
                        }),
                    ],
                },
                BarSeries {
                    label: "FCFS".into(),
                    colour: None,
                    bars: vec![
                        None,
                        Some(Bar {
                            value: 30.0,
                            error: 0.0,
                        }),
                        Some(Bar {
                            value: 500.0,
                            error: 10.0,
                        }),
                    ],
                },
            ],
        };
        for log_y in [false, true] {
            let chart = BarChart {
                log_y,
                ..chart.clone()
            };
            let svg = bar_chart_svg(&chart).unwrap();
            for text in [
                "Response time by runtime class",
                "job runtime class",
                "mean response time (min)",
                "≤ 1 min",
                "1–10 min",
                "&gt; 10 min",
                "\nEASY\n",
                "\nFCFS\n",
            ] {
                assert!(svg.contains(text), "{text} missing (log {log_y})");
            }
            assert_eq!(svg, bar_chart_svg(&chart).unwrap());
        }
        assert!(bar_chart_svg(&chart).unwrap().contains("<rect"));
        let none = BarChart {
            series: vec![],
            ..chart
        };
        assert!(matches!(bar_chart_svg(&none), Err(PlotError::Empty { .. })));
    }

    #[test]
    fn differences_get_a_zero_line_and_fall_below_it() {
        // Every value below 0: the range still reaches 0, where the line is drawn.
        let line = ErrorLineChart {
            title: "Δ mean wait against EASY".into(),
            x_label: "population (users ×)".into(),
            y_label: "Δ mean wait (h)".into(),
            y_from_zero: false,
            zero_line: true,
            y_range: None,
            series: vec![ErrorSeries {
                label: "CREASY".into(),
                colour: None,
                points: (1..=3)
                    .map(|x| Estimate {
                        x: f64::from(x),
                        y: -5.0 * f64::from(x),
                        error: 1.0,
                    })
                    .collect(),
            }],
            references: Vec::new(),
        };
        let bars = BarChart {
            title: "Δ mean wait against EASY".into(),
            x_label: "scheduler".into(),
            y_label: "Δ mean wait (h)".into(),
            groups: vec!["CREASY".into(), "FCFS".into()],
            log_y: false,
            zero_line: true,
            series: vec![BarSeries {
                label: "mean, 95% CI".into(),
                colour: None,
                bars: vec![
                    Some(Bar {
                        value: -3.0,
                        error: 1.0,
                    }),
                    Some(Bar {
                        value: -1.0,
                        error: 0.5,
                    }),
                ],
            }],
        };
        let with_line = [
            error_line_chart_svg(&line).unwrap(),
            bar_chart_svg(&bars).unwrap(),
        ];
        let without = [
            error_line_chart_svg(&ErrorLineChart {
                zero_line: false,
                y_range: None,
                ..line.clone()
            })
            .unwrap(),
            bar_chart_svg(&BarChart {
                zero_line: false,
                ..bars.clone()
            })
            .unwrap(),
        ];
        let zero = "opacity=\"0.7\" stroke=\"#000000\"";
        for (a, b) in with_line.iter().zip(&without) {
            assert!(a.contains("Δ mean wait"));
            assert_eq!(a.matches(zero).count(), 1, "no zero line");
            assert!(!b.contains(zero));
            // A tick labelled 0: 0 is in the range.
            assert!(a.contains("\n0\n"), "no 0 tick");
        }
    }

    #[test]
    fn a_histogram_can_shade_an_interval() {
        let hist = Histogram {
            title: "Throughput over replications".into(),
            x_label: "throughput (jobs/day)".into(),
            y_label: "replications".into(),
            bins: vec![(0.0, 10.0, 3.0), (10.0, 20.0, 7.0), (20.0, 30.0, 1.0)],
            marks: vec![(12.0, "mean".into())],
        };
        let band = Band {
            lo: 9.0,
            hi: 15.0,
            label: "95% CI of the mean".into(),
        };
        let svg = histogram_svg(&hist, Some(&band)).unwrap();
        assert!(svg.contains("95% CI of the mean") && svg.contains("\nmean\n"));
        assert!(!histogram_svg(&hist, None).unwrap().contains("95% CI"));
        assert_eq!(svg, histogram_svg(&hist, Some(&band)).unwrap());
    }

    #[test]
    fn an_hour_of_day_chart_spans_the_day() {
        let chart = LineChart {
            title: "Queue by hour".into(),
            x_label: "local hour of day (h)".into(),
            y_label: "jobs waiting".into(),
            x_ticks: XTicks::HourOfDay,
            log_y: false,
            y_from_zero: true,
            series: vec![Series {
                label: "EASY".into(),
                points: (0..24).map(|h| (h as f64, (h % 7) as f64)).collect(),
            }],
        };
        let svg = line_chart_svg(&chart).unwrap();
        for text in ["\n0\n", "\n12\n", "\n22\n"] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert!(!svg.contains("\n23\n"));
    }
}
