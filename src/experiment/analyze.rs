//! `sitesim analyze`: a log's users (sessions, think times, daily and weekly cycles,
//! flurries, the continuation curve) and the pools resampling draws from.

use std::path::{Path, PathBuf};

use super::feedback::{UnknownWaits, read_trace};
use super::output::write_atomic;
use super::replay::{ReplayOptions, machine_size, open_log};
use crate::localtime::SiteClock;
use crate::sched::BuildContext;
use crate::swf::SwfReader;
use crate::workload::analysis::LogAnalysis;
use crate::workload::pools::{PoolConfig, Pools};
use crate::workload::questionable::Policies;
use crate::workload::trace::TraceConfig;

/// What `sitesim analyze` reads and prints.
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// Processors, for the oversize check [default: the log's MaxProcs].
    pub procs: Option<u32>,
    /// The questionable-job policies.
    pub questionable: Policies,
    /// How the log is split into sessions and dependencies.
    pub trace: TraceConfig,
    /// The site's time zone, overriding the header's.
    pub time_zone: Option<String>,
    /// What to do with jobs whose logged wait is unknown.
    pub unknown_waits: UnknownWaits,
    /// The flurry threshold ([`crate::workload::analysis::DEFAULT_FLURRY_FACTOR`]).
    pub flurry_factor: f64,
    /// How users are sorted into resampling pools.
    pub pools: PoolConfig,
    /// Print JSON instead of text.
    pub json: bool,
    /// Write the fitted continuation curve to this file.
    pub fit_continuation: Option<PathBuf>,
}

/// `sitesim analyze`: analyses the users of the log `swf` and prints the analysis and
/// its pools (as text or JSON); writes the continuation curve when asked.
pub fn analyze_command(swf: &Path, opts: &AnalyzeOptions) -> Result<(), String> {
    let (header, name) = open_log(swf)?;
    let procs = match opts.procs {
        Some(p) => p,
        None => machine_size(&name, &header).map_err(|e| e.to_string())?,
    };
    let (clock, warnings) = SiteClock::from_header(&header, opts.time_zone.as_deref())?;
    let ctx = BuildContext {
        procs,
        clock: clock.clone(),
    };
    let run = ReplayOptions {
        questionable: opts.questionable,
        ..ReplayOptions::default()
    };
    let (trace, _, _) = read_trace(
        &|| SwfReader::open(swf),
        &name,
        &header,
        &ctx,
        &run,
        opts.trace,
        &opts.unknown_waits,
    )
    .map_err(|e| e.to_string())?;
    let analysis = LogAnalysis::of(&trace, &name, &clock, opts.flurry_factor);
    let pools = Pools::of(&trace, opts.pools);
    if opts.json {
        #[derive(serde::Serialize)]
        struct Analysis<'a> {
            #[serde(flatten)]
            users: &'a LogAnalysis,
            pools: &'a Pools,
        }
        let both = Analysis {
            users: &analysis,
            pools: &pools,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&both).expect("analyses serialize")
        );
    } else {
        print!("{}", analysis.render(&name));
        print!("{}", pools.render());
        for w in warnings {
            println!("  warning: {w}");
        }
    }
    if let Some(path) = &opts.fit_continuation {
        write_atomic(path, analysis.continuation.to_toml().as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
