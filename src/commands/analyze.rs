//! `sitesim analyze`: a log's users (sessions, think times, daily and weekly cycles,
//! flurries, the continuation curve of Feitelson 2021, Fig. 18 and its plots) and the pools
//! resampling draws from.

use std::path::{Path, PathBuf};

use crate::commands::feedback::read_trace;
use crate::commands::options::LogSplit;
use crate::commands::replay::{ReplayOptions, machine_size};
use crate::localtime::SiteClock;
use crate::plot::chart::{
    FigureStyle, Proportion, Series, ShareChart, share_chart_svg, with_style,
};
use crate::report::{REPORT_DIR, WorkloadInput, write_workload_report};
use crate::results::output::write_named;
use crate::results::terminal::{note, warn};
use crate::sched::BuildContext;
use crate::swf::LogSource;
use crate::users::ContinuationCurve;
use crate::users::analysis::LogAnalysis;
use crate::users::continuation::Bucket;
use crate::users::pools::{PoolConfig, Pools};
use crate::workload::peak::MachineCheck;
use crate::workload::questionable::Policies;
use crate::workload::trace::Trace;

/// What `sitesim analyze` reads and prints.
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// Processors, for the oversize check [default: the log's MaxProcs].
    pub procs: Option<u32>,
    /// The questionable-job policies.
    pub questionable: Policies,
    /// How the log is split into users, sessions and dependencies.
    pub split: LogSplit,
    /// The flurry threshold ([`crate::users::analysis::DEFAULT_FLURRY_FACTOR`]).
    pub flurry_factor: f64,
    /// How users are sorted into resampling pools.
    pub pools: PoolConfig,
    /// Print JSON instead of text.
    pub json: bool,
    /// Write the fitted continuation curve to this file.
    pub fit_continuation: Option<PathBuf>,
    /// Plot the continuation curve (Feitelson 2021, Fig. 18) to this SVG file, by response time,
    /// and by slowdown to the same name ending in `-slowdown.svg`.
    pub plot_continuation: Option<PathBuf>,
    /// Write the workload's report into `DIR/report/` (`report/workload.rs`).
    pub report: Option<PathBuf>,
    /// How the report's figures are drawn and written.
    pub figures: FigureStyle,
}

/// A log's users analysed, and the pools resampling draws from them.
pub struct Analyzed {
    /// The log's name as read.
    pub name: String,
    /// Its file name, by which the curve and its plots name it.
    pub file: String,
    /// Sessions, think times, cycles, flurries and the continuation curve.
    pub analysis: LogAnalysis,
    /// The pools resampling draws from.
    pub pools: Pools,
    /// The machine against the log's own schedule.
    pub machine: MachineCheck,
    /// What the header's clock said about the log.
    pub warnings: Vec<String>,
    /// The log split into users and sessions.
    pub trace: Trace,
    /// The log's clock.
    pub clock: SiteClock,
    /// Whether the header gives the log's start (`UnixStartTime`).
    pub dated: bool,
}

impl Analyzed {
    /// The analysis and pools as `sitesim analyze` prints them.
    pub fn text(&self) -> String {
        let mut text = self.analysis.render(&self.name);
        text.push_str(&format!(
            "  machine                {}\n",
            self.machine.render()
        ));
        text.push_str(&self.pools.render());
        text
    }

    /// The analysis and pools as JSON (`sitesim analyze --json`).
    pub fn json(&self) -> String {
        #[derive(serde::Serialize)]
        struct Analysis<'a> {
            #[serde(flatten)]
            users: &'a LogAnalysis,
            pools: &'a Pools,
            machine: &'a MachineCheck,
        }
        let both = Analysis {
            users: &self.analysis,
            pools: &self.pools,
            machine: &self.machine,
        };
        serde_json::to_string_pretty(&both).expect("analyses serialize")
    }
}

/// Analyses the users of the log `swf` and sorts them into pools, as `opts` say.
pub fn analyze_log(swf: &Path, opts: &AnalyzeOptions) -> Result<Analyzed, String> {
    let source = LogSource::file(swf).map_err(|e| e.to_string())?;
    let (header, name) = (source.header(), source.name().to_owned());
    let procs = match opts.procs {
        Some(p) => p,
        None => machine_size(&name, header).map_err(|e| e.to_string())?,
    };
    let (clock, warnings) = SiteClock::of_log(header.calendar(), opts.split.time_zone.as_deref())?;
    let ctx = BuildContext {
        procs,
        clock: clock.clone(),
    };
    let dated = header.unix_start_time.is_some();
    let run = ReplayOptions {
        questionable: opts.questionable,
        ..ReplayOptions::default()
    };
    let (trace, _, _) = read_trace(
        &source,
        &ctx,
        &run,
        opts.split.trace(),
        &opts.split.unknown_waits,
    )
    .map_err(|e| e.to_string())?;
    // The curve and its plots name the log by its file name, wherever it was read from.
    let file = swf
        .file_name()
        .map_or(name.clone(), |f| f.to_string_lossy().into_owned());
    Ok(Analyzed {
        machine: MachineCheck::new(procs, header.max_procs, trace.logged_peak),
        analysis: LogAnalysis::of(&trace, &file, &clock, opts.flurry_factor),
        pools: Pools::of(&trace, opts.pools),
        name,
        file,
        warnings,
        trace,
        clock,
        dated,
    })
}

/// `sitesim analyze`: analyses the users of the log `swf` and prints the analysis and
/// its pools (as text or JSON); writes the continuation curve and its plots when asked.
pub fn analyze_command(swf: &Path, opts: &AnalyzeOptions) -> Result<(), String> {
    let analyzed = analyze_log(swf, opts)?;
    if opts.json {
        println!("{}", analyzed.json());
    } else {
        print!("{}", analyzed.text());
        for w in &analyzed.warnings {
            warn(w);
        }
    }
    let curve = &analyzed.analysis.continuation;
    if let Some(path) = &opts.fit_continuation {
        write_named(path, curve.to_toml().as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        note(format_args!("wrote {}", path.display()));
    }
    if let Some(path) = &opts.plot_continuation {
        for written in plot_continuation(curve, &analyzed.file, path)? {
            note(format_args!("wrote {}", written.display()));
        }
    }
    if let Some(dir) = &opts.report {
        let input = WorkloadInput {
            file: &analyzed.file,
            procs: analyzed.machine.simulated,
            clock: &analyzed.clock,
            dated: analyzed.dated,
            analysis: &analyzed.analysis,
            trace: &analyzed.trace,
        };
        let records = LogSource::file(swf)
            .and_then(|s| s.open())
            .map_err(|e| e.to_string())?;
        let files = with_style(opts.figures, || write_workload_report(&input, records, dir))?;
        note(format_args!(
            "wrote {} file(s); open {}",
            files.len(),
            dir.join(REPORT_DIR).join("index.html").display()
        ));
    }
    Ok(())
}

/// Where each bucket is drawn on a logarithmic axis: the geometric middle of its bounds,
/// the first bucket's lower bound taken a bucket's ratio below its upper one (at least
/// 1), the last bucket's upper bound twice its lower one.
fn midpoints(up_to: &[Option<f64>]) -> Vec<f64> {
    let bounds: Vec<f64> = up_to.iter().flatten().copied().collect();
    let mut lo = match bounds.as_slice() {
        [a, b, ..] => (a * a / b).max(1.0),
        [a] => (a / 2.0).max(1.0),
        [] => 1.0,
    };
    up_to
        .iter()
        .map(|u| {
            let hi = u.unwrap_or(2.0 * lo).max(lo);
            let mid = (lo * hi).sqrt();
            lo = hi;
            mid
        })
        .collect()
}

/// The measured shares of `buckets` (those with pairs) with their 95% Wilson intervals,
/// each bound made a number by `value`.
fn proportions<B: Copy>(buckets: &[Bucket<B>], value: impl Fn(B) -> f64) -> Vec<Proportion> {
    let up_to: Vec<Option<f64>> = buckets.iter().map(|b| b.up_to.map(&value)).collect();
    buckets
        .iter()
        .zip(midpoints(&up_to))
        .filter(|(b, _)| b.jobs > 0)
        .map(|(b, x)| {
            let (lo, hi) = b.interval();
            Proportion {
                x,
                share: b.continued as f64 / b.jobs as f64,
                lo,
                hi,
            }
        })
        .collect()
}

/// Draws `curve` (fitted from the log `name`) as Feitelson 2021, Fig. 18: the share of
/// continued sessions by the previous job's response time, with the logistic, to
/// `path`, and by its bounded slowdown to `path` ending in `-slowdown.svg`; returns the
/// files written.
pub fn plot_continuation(
    curve: &ContinuationCurve,
    name: &str,
    path: &Path,
) -> Result<Vec<PathBuf>, String> {
    if curve.pairs == 0 {
        return Err(format!(
            "{}: no pairs of jobs with a think time of 0 or more in {name}: nothing to plot",
            path.display()
        ));
    }
    let y_label = format!("next think time < {} s (share)", curve.threshold());
    let by_response = proportions(&curve.buckets, |t| t as f64);
    let (lo, hi) = by_response
        .iter()
        .fold((f64::MAX, 1.0f64), |(lo, hi), p| (lo.min(p.x), hi.max(p.x)));
    let lo = lo.min(hi);
    let steps = 100;
    let logistic = Series {
        label: format!(
            "logistic {:.2} {:+.3} ln r",
            curve.logistic.intercept, curve.logistic.slope
        ),
        points: (0..=steps)
            .map(|i| {
                let x = lo.ln() + (hi.ln() - lo.ln()) * f64::from(i) / f64::from(steps);
                (x.exp(), curve.logistic.at(x))
            })
            .collect(),
    };
    let response = ShareChart {
        title: format!("Session continuation by response time ({name})"),
        x_label: "response time of the previous job (s, log scale)".into(),
        y_label: y_label.clone(),
        label: format!("{} pairs, 95% intervals", curve.pairs),
        points: by_response,
        fitted: Some(logistic),
    };
    let slowdown = ShareChart {
        title: format!("Session continuation by slowdown ({name})"),
        x_label: "bounded slowdown of the previous job (log scale)".into(),
        y_label,
        label: format!("{} pairs, 95% intervals", curve.pairs),
        points: proportions(&curve.slowdown, |s| s),
        fitted: None,
    };
    let stem = path.with_extension("");
    let slowdown_path = PathBuf::from(format!("{}-slowdown.svg", stem.display()));
    let mut written = Vec::new();
    for (chart, p) in [(&response, path.to_path_buf()), (&slowdown, slowdown_path)] {
        let svg = share_chart_svg(chart).map_err(|e| format!("{}: {e}", p.display()))?;
        write_named(&p, svg.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))?;
        written.push(p);
    }
    Ok(written)
}
