//! SVG charts of results: lines against a numeric axis, and histograms with a marked value.
//!
//! Drawn with `plotters`; text is measured with an embedded subset of DejaVu Sans
//! (`assets/fonts`), so a chart is laid out the same on every machine, needs no system
//! font, and the same data give byte-identical files. Colours are the Okabe–Ito palette,
//! which stays distinct for colour-blind readers, and each series also has its own marker
//! shape so that the lines stay apart in greyscale print.

use std::ops::Range;
use std::path::Path;
use std::sync::Once;

use plotters::coord::combinators::LogCoord;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendCoord, DrawingErrorKind};

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Nothing to draw.
    #[error("{file}: no data to plot")]
    Empty {
        /// The chart's file.
        file: String,
    },
    /// A drawing or file error.
    #[error("{file}: {message}")]
    Draw {
        /// The chart's file.
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

const WIDTH: u32 = 800;
const HEIGHT: u32 = 450;
const FONT: &str = "sans-serif";
const TITLE_SIZE: u32 = 26;
const TEXT_SIZE: u32 = 20;
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
];

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../assets/fonts/DejaVuSans-subset.ttf");
        // The embedded font is known to parse (a unit test draws with it).
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, bytes);
    });
}

fn draw_error(path: &Path, e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw {
        file: path.display().to_string(),
        message: e.to_string(),
    }
}

/// A tick label: integers without decimals, others with up to three significant digits.
fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{v:.0e}");
    }
    if (v - v.round()).abs() < 1e-9 * a.max(1.0) {
        return format!("{}", v.round() as i64);
    }
    let decimals = (2 - a.log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
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

/// Writes `chart` to `path` as SVG.
pub fn write_line_chart(path: &Path, chart: &LineChart) -> Result<(), PlotError> {
    let usable = |&(_, y): &(f64, f64)| !chart.log_y || y > 0.0;
    let points = || {
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter(|p| usable(p)))
    };
    let empty = || PlotError::Empty {
        file: path.display().to_string(),
    };
    let (x_lo, x_hi) = bounds(points().map(|p| p.0)).ok_or_else(empty)?;
    let (y_lo, y_hi) = bounds(points().map(|p| p.1)).ok_or_else(empty)?;
    let x = match chart.x_ticks {
        XTicks::HourOfWeek => 0.0..168.0,
        XTicks::Numbers => padded(x_lo, x_hi, false),
    };
    if chart.log_y {
        let y = (y_lo / 1.5)..(y_hi * 1.5);
        draw_lines(path, chart, x, LogCoord::from(y.log_scale()))
    } else {
        let y: RangedCoordf64 = padded(y_lo, y_hi, chart.y_from_zero).into();
        draw_lines(path, chart, x, y)
    }
}

/// What every chart has around its data.
struct Frame<'f> {
    title: &'f str,
    x_label: &'f str,
    y_label: &'f str,
    x_ticks: XTicks,
    legend: bool,
}

type Context<'a, Y> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>;

/// Draws a chart on `x` and `y` into `path`: the frame, then `body`'s data, then the legend.
fn draw<Y>(
    path: &Path,
    frame: Frame,
    x: Range<f64>,
    y: Y,
    body: impl FnOnce(&mut Context<'_, Y>) -> Result<(), String>,
) -> Result<(), PlotError>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    register_font();
    let err = |e: &dyn std::fmt::Display| draw_error(path, e);
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut ctx = ChartBuilder::on(&root)
        .caption(frame.title, (FONT, TITLE_SIZE))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)
        .map_err(|e| err(&e))?;
    let x_fmt: &dyn Fn(&f64) -> String = match frame.x_ticks {
        XTicks::Numbers => &|v| tick(*v),
        XTicks::HourOfWeek => &|v| weekday_tick(*v),
    };
    let mut mesh = ctx.configure_mesh();
    mesh.x_desc(frame.x_label)
        .y_desc(frame.y_label)
        .label_style((FONT, TEXT_SIZE))
        .axis_desc_style((FONT, TEXT_SIZE))
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.12))
        .x_label_formatter(x_fmt)
        .y_label_formatter(&|v| tick(*v));
    if frame.x_ticks == XTicks::HourOfWeek {
        mesh.x_labels(169);
    }
    mesh.draw().map_err(|e| err(&e))?;
    body(&mut ctx).map_err(|e| err(&e))?;
    if frame.legend {
        ctx.configure_series_labels()
            .label_font((FONT, TEXT_SIZE))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

fn draw_lines<Y>(path: &Path, chart: &LineChart, x: Range<f64>, y: Y) -> Result<(), PlotError>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let frame = Frame {
        title: &chart.title,
        x_label: &chart.x_label,
        y_label: &chart.y_label,
        x_ticks: chart.x_ticks,
        legend: true,
    };
    draw(path, frame, x, y, |ctx| {
        for (i, s) in chart.series.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let style = ShapeStyle::from(colour).stroke_width(2);
            let points: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|&(_, y)| !chart.log_y || y > 0.0)
                .collect();
            ctx.draw_series(LineSeries::new(points.iter().copied(), style))
                .map_err(|e| e.to_string())?
                .label(&s.label)
                .legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (24, 0)], style)
                        + Marker::of(i, (12, 0), colour)
                });
            // Markers at a readable density: about 24 per series.
            let every = points.len().div_ceil(24).max(1);
            ctx.draw_series(
                points
                    .iter()
                    .step_by(every)
                    .map(|&p| EmptyElement::at(p) + Marker::of(i, (0, 0), colour)),
            )
            .map_err(|e| e.to_string())?;
        }
        Ok(())
    })
}

/// The marker of series `i`, centred on a pixel offset: circle, square, triangle,
/// cross, diamond in turn.
struct Marker {
    kind: usize,
    at: (i32, i32),
    colour: RGBColor,
}

impl Marker {
    fn of(i: usize, at: (i32, i32), colour: RGBColor) -> Marker {
        Marker {
            kind: i % 5,
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
            _ => backend.fill_polygon(
                vec![(x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y)],
                &filled,
            ),
        }
    }
}

/// Writes `hist` to `path` as SVG.
pub fn write_histogram(path: &Path, hist: &Histogram) -> Result<(), PlotError> {
    let empty = || PlotError::Empty {
        file: path.display().to_string(),
    };
    let bin_edges = hist.bins.iter().flat_map(|&(lo, hi, _)| [lo, hi]);
    let (x_lo, x_hi) = bounds(bin_edges.chain(hist.marks.iter().map(|m| m.0))).ok_or_else(empty)?;
    let y_hi = hist.bins.iter().map(|b| b.2).fold(0.0, f64::max);
    let frame = Frame {
        title: &hist.title,
        x_label: &hist.x_label,
        y_label: &hist.y_label,
        x_ticks: XTicks::Numbers,
        legend: !hist.marks.is_empty(),
    };
    let x = padded(x_lo, x_hi, false);
    let y: RangedCoordf64 = (0.0..(y_hi * 1.1).max(1.0)).into();
    draw(path, frame, x, y, |ctx| {
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

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sitesim-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(1200.0), "1200");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(1.23456), "1.23");
        assert_eq!(tick(-12.5), "-12.5");
        assert_eq!(tick(2.5e7), "2e7");
        assert_eq!(weekday_tick(48.0), "Wed");
        assert_eq!(weekday_tick(50.0), "");
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
        let a = scratch("a.svg");
        let b = scratch("b.svg");
        write_line_chart(&a, &chart).unwrap();
        write_line_chart(&b, &chart).unwrap();
        let svg = std::fs::read_to_string(&a).unwrap();
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
        assert_eq!(svg, std::fs::read_to_string(&b).unwrap());
        let log = LineChart {
            log_y: true,
            x_ticks: XTicks::HourOfWeek,
            ..chart
        };
        write_line_chart(&a, &log).unwrap();
        let svg = std::fs::read_to_string(&a).unwrap();
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
        let p = scratch("h.svg");
        write_histogram(&p, &hist).unwrap();
        let svg = std::fs::read_to_string(&p).unwrap();
        assert!(svg.contains("original log") && svg.contains("<rect"));
        let none = Histogram {
            bins: vec![],
            marks: vec![],
            ..hist
        };
        assert!(matches!(
            write_histogram(&p, &none),
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
            write_line_chart(&p, &empty),
            Err(PlotError::Empty { .. })
        ));
    }
}
