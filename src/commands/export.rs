//! `sitesim export`: a log (SWF, plain or gzip, or a Batsim workload; an open-loop or
//! feedback run's `schedule.swf` among them) written as a Batsim JSON workload, or a
//! run's jobs (`jobs.csv`) written as Batsim's `_jobs.csv`, which Evalys draws.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::alloc::{Allocator, place};
use crate::results::jobs::{read_sitesim, write_batsim};
use crate::results::output::AtomicFile;
use crate::results::terminal::note;
use crate::swf::SwfReader;
use crate::swf::batsim::{BatsimExport, ProfileStyle};

/// What `sitesim export --batsim` writes, and where.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// How the delay profile's type is spelt.
    pub style: ProfileStyle,
    /// The workload file; standard output if `None`.
    pub output: Option<PathBuf>,
}

/// `sitesim export --batsim`: reads the log `swf` and writes it as a Batsim workload to
/// `opts.output` (atomically) or standard output. Jobs Batsim cannot run (unknown submit
/// time, runtime or size, or a runtime of zero) are left out and counted on standard
/// error, as are jobs larger than `nb_res`.
pub fn export_command(swf: &Path, opts: &ExportOptions) -> Result<(), String> {
    let mut reader = SwfReader::open(swf).map_err(|e| e.to_string())?;
    let mut export = BatsimExport::new(opts.style);
    for located in reader.by_ref() {
        export.add(&located.map_err(|e| e.to_string())?.record);
    }
    let header = reader.header();
    let description = format!(
        "{} written as a Batsim workload by sitesim {}",
        swf.display(),
        env!("CARGO_PKG_VERSION")
    );
    // The log's own values the workload cannot hold are the log's error; the others are
    // the output's.
    let failed = |to: &dyn std::fmt::Display, e: std::io::Error| match e.kind() {
        std::io::ErrorKind::InvalidData => format!("{}: {e}", swf.display()),
        _ => format!("{to}: {e}"),
    };
    let to = match &opts.output {
        Some(path) => {
            let err = |e: std::io::Error| failed(&path.display(), e);
            let (file, w) = AtomicFile::create_named(path).map_err(err)?;
            drop(export.write(w, header, &description).map_err(err)?);
            file.commit().map_err(err)?;
            path.display().to_string()
        }
        None => {
            // A reader that closes stdout early ends the process quietly (SIGPIPE, see
            // `main`), so a write error here is a real one.
            let out = BufWriter::new(std::io::stdout().lock());
            let err = |e: std::io::Error| failed(&"stdout", e);
            export
                .write(out, header, &description)
                .map_err(err)?
                .flush()
                .map_err(err)?;
            "standard output".to_owned()
        }
    };
    note(format_args!(
        "wrote {} jobs and {} delay profiles (type \"{}\") for {} resources to {to}",
        export.jobs(),
        export.profiles(),
        opts.style.delay_type(),
        export.nb_res(header),
    ));
    // What was left out is reported even under --quiet: it changes the workload.
    let skipped = export.skipped();
    if skipped.total() > 0 {
        eprintln!(
            "skipped {} jobs Batsim cannot run: {}",
            skipped.total(),
            skipped.describe()
        );
    }
    let oversize = export.oversize(header);
    if oversize > 0 {
        eprintln!(
            "warning: {oversize} jobs ask for more than nb_res = {} resources",
            export.nb_res(header)
        );
    }
    Ok(())
}

/// `sitesim export --run DIR --batsim-jobs`: writes the jobs of the run whose results
/// directory (or `jobs.csv`) is `run` as Batsim's `_jobs.csv` (`results::jobs`) to
/// `output` (atomically) or standard output. A `jobs.csv` written before it had its
/// `processors` column is placed first-fit on the machine of the run's `summary.json`.
pub fn export_jobs_command(run: &Path, output: Option<&Path>) -> Result<(), String> {
    let (dir, file) = if run.is_dir() {
        (run.to_owned(), run.join("jobs.csv"))
    } else {
        let dir = run
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_owned);
        (dir, run.to_owned())
    };
    let mut jobs = read_sitesim(&file)?;
    if jobs.iter().any(|j| j.processors.is_none()) {
        let summary = dir.join("summary.json");
        let text = crate::results::input::read(&summary, crate::results::input::MAX_JSON)?;
        let procs = serde_json::from_slice::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v["procs"].as_u64())
            .and_then(|p| u32::try_from(p).ok())
            .ok_or_else(|| {
                format!(
                    "{}: no machine size (procs), to place the jobs of {}, which has no \
                     processors column",
                    summary.display(),
                    file.display()
                )
            })?;
        let spans: Vec<_> = jobs.iter().map(|j| (j.start, j.end, j.size)).collect();
        let (placed, _) = place(&spans, Allocator::new(procs));
        for (j, set) in jobs.iter_mut().zip(placed) {
            j.processors.get_or_insert(set);
        }
    }
    let failed = |e: String| format!("{}: {e}", file.display());
    let to = match output {
        Some(path) => {
            let err = |e: std::io::Error| format!("{}: {e}", path.display());
            let (atomic, w) = AtomicFile::create_named(path).map_err(err)?;
            let mut w = write_batsim(&jobs, w).map_err(failed)?;
            w.flush().map_err(err)?;
            drop(w);
            atomic.commit().map_err(err)?;
            path.display().to_string()
        }
        None => {
            let out = BufWriter::new(std::io::stdout().lock());
            write_batsim(&jobs, out)
                .map_err(failed)?
                .flush()
                .map_err(|e| format!("stdout: {e}"))?;
            "standard output".to_owned()
        }
    };
    let scattered = jobs
        .iter()
        .filter(|j| j.processors.as_ref().is_some_and(|p| !p.is_contiguous()))
        .count();
    note(format_args!(
        "wrote {} jobs as Batsim's _jobs.csv to {to} ({scattered} on processors in more than \
         one block)",
        jobs.len()
    ));
    Ok(())
}
