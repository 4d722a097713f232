//! `sitesim fit`: the job layer of the session model ([`crate::model::fit`]) fitted from
//! one or more SWF logs, each read into users and sessions as `sitesim analyze` and
//! `sitesim feedback` read it (default questionable-job policies, the default
//! [`TraceConfig`]: a 20-minute threshold), on its own machine size and local time.

use std::path::{Path, PathBuf};

use crate::commands::feedback::estimate_waits;
use crate::commands::options::UnknownWaits;
use crate::commands::replay::{ReplayOptions, machine_size};
use crate::localtime::SiteClock;
use crate::model::JobLayer;
use crate::model::fit::{FitLog, fit};
use crate::model::fit::{render_summary, to_toml};
use crate::model::jobs::JobLayerFile;
use crate::results::output::write_named;
use crate::results::terminal::{note, warn};
use crate::sched::BuildContext;
use crate::swf::LogSource;
use crate::workload::questionable::Policies;
use crate::workload::trace::{Trace, TraceConfig};
use crate::workload::{LogReplay, ReplayConfig};

/// The sessions of the log at `path`, in the local time of its header or of `time_zone`,
/// with warnings about its clock (each naming the file). The log is recorded under its
/// file name, so that a fit does not depend on where the log lies. Jobs whose logged wait
/// is unknown get one as `unknown` says. Errors name the file.
pub fn read_log(
    path: &Path,
    time_zone: Option<&str>,
    unknown: &UnknownWaits,
) -> Result<(FitLog, Vec<String>), String> {
    let source = LogSource::file(path).map_err(|e| e.to_string())?;
    let (file, header) = (source.name().to_owned(), source.header().clone());
    let procs = machine_size(&file, &header).map_err(|e| e.to_string())?;
    let (clock, warnings) =
        SiteClock::of_log(header.calendar(), time_zone).map_err(|e| format!("{file}: {e}"))?;
    let ctx = BuildContext {
        procs,
        clock: clock.clone(),
    };
    let estimated = estimate_waits(&source, &ctx, &ReplayOptions::default(), unknown)
        .map_err(|e| e.to_string())?;
    let mut log = LogReplay::new(
        source.open().map_err(|e| e.to_string())?,
        &file,
        ReplayConfig {
            procs,
            policies: Policies::default(),
            interarrival_factor: 1.0,
            max_runtime: header.max_runtime,
            // The records tell which estimates the log gives.
            keep_records: true,
        },
    );
    let config = TraceConfig::default();
    let trace = Trace::read(&mut log, config, unknown.missing(estimated.as_ref()))
        .map_err(|e| e.to_string())?;
    if trace.jobs() == 0 {
        return Err(format!("{file}: the log has no job to fit"));
    }
    if trace.users.iter().all(|u| u.user < 0) {
        return Err(format!(
            "{file}: the log gives no user ids (every job's user is -1), so it has no sessions"
        ));
    }
    let name = path
        .file_name()
        .map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned());
    let fit_log = FitLog::from_trace(&name, &trace, log.kept_records().as_ref(), procs, clock);
    Ok((
        fit_log,
        warnings
            .into_iter()
            .map(|w| format!("{file}: {w}"))
            .collect(),
    ))
}

/// The job layer fitted from the logs at `paths` (pooled, each on its own machine size
/// and clock, `time_zone` overriding every header's zone, unknown waits given as
/// `unknown` says), with warnings about the logs.
pub fn fit_logs(
    paths: &[PathBuf],
    time_zone: Option<&str>,
    unknown: &UnknownWaits,
) -> Result<(JobLayerFile, Vec<String>), String> {
    if paths.is_empty() {
        return Err("give at least one log to fit".into());
    }
    let mut logs = Vec::with_capacity(paths.len());
    let mut warnings = Vec::new();
    for p in paths {
        let (log, w) = read_log(p, time_zone, unknown)?;
        logs.push(log);
        warnings.extend(w);
    }
    let file = fit(&logs, TraceConfig::default().threshold)?;
    Ok((file, warnings))
}

/// `sitesim fit`: fits the job layer to the logs `swf` and writes it to `out`, after
/// checking that it reads back; `command` is the command line, kept in the file.
pub fn fit_command(
    swf: &[PathBuf],
    time_zone: Option<&str>,
    unknown: &UnknownWaits,
    out: &Path,
) -> Result<(), String> {
    let (file, warnings) = fit_logs(swf, time_zone, unknown)?;
    let mut command = String::from("sitesim fit");
    for p in swf {
        command.push_str(&format!(" --swf {}", p.display()));
    }
    if let Some(z) = time_zone {
        command.push_str(&format!(" --time-zone {z}"));
    }
    command.push_str(&format!(" --out {}", out.display()));
    let text = to_toml(&file, Some(&command), &warnings);
    let name = out.display().to_string();
    JobLayer::parse(&text, &name).map_err(|e| format!("the fit does not read back: {e}"))?;
    write_named(out, text.as_bytes()).map_err(|e| format!("{name}: {e}"))?;
    print!("{}", render_summary(&file));
    for w in &warnings {
        warn(w);
    }
    note(format_args!("wrote {name}"));
    Ok(())
}
