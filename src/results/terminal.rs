//! What a command shows while and after it runs: progress bars, the Ctrl-C stop flag,
//! the run time, and the files it wrote. `--quiet` silences the bars and the notes on
//! stderr; results and errors are printed whatever it says.

use std::fmt;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

/// Set by Ctrl-C (or SIGTERM): no new run starts, and the running ones are abandoned.
static STOP: AtomicBool = AtomicBool::new(false);

/// Set when the host (Python) keeps its own Ctrl-C handler: none is installed.
static HOST_HANDLES_INTERRUPTS: AtomicBool = AtomicBool::new(false);

/// Leaves Ctrl-C to the program sitesim runs in (the Python interpreter): [`stop_flag`]
/// installs no handler, so the host's own still runs.
pub fn leave_interrupts_to_host() {
    HOST_HANDLES_INTERRUPTS.store(true, Ordering::Relaxed);
}

/// The flag Ctrl-C and SIGTERM set, with their handler installed unless the host handles
/// Ctrl-C ([`leave_interrupts_to_host`]): no new run starts, and the running simulations
/// are abandoned within a few hundred events ([`crate::engine::abandon_runs`]), so that
/// even one long run stops at once; the files of runs that finished are kept, and those
/// being written are removed.
pub fn stop_flag() -> &'static AtomicBool {
    if HOST_HANDLES_INTERRUPTS.load(Ordering::Relaxed) {
        return &STOP;
    }
    // A second handler cannot be set; the first one already sets this flag.
    let _ = ctrlc::set_handler(|| {
        STOP.store(true, Ordering::Relaxed);
        crate::engine::abandon_runs();
        eprintln!("\nstopping: the running simulations are abandoned, what finished is kept");
    });
    &STOP
}

/// Clears the flag [`stop_flag`] gives, before a host that runs several commands in one
/// process (the Python interpreter) runs the next.
pub fn clear_stop() {
    STOP.store(false, Ordering::Relaxed);
}

/// Whether Ctrl-C stopped the command: what it printed and wrote is kept, but it is not a
/// success (exit code 130, as a shell gives a program ended by SIGINT).
pub fn interrupted() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Set by `--verbose`: the simulation's internal counters in the terminal too.
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Shows the internal counters (`--verbose`) for the rest of the process.
pub fn set_verbose(verbose: bool) {
    VERBOSE.store(verbose, Ordering::Relaxed);
}

/// Whether the terminal shows the internal counters (the user model's options, which
/// rule set each submission's time); summary.json always has them.
pub fn verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
}

/// Set by `--quiet`: no progress bars, no notes on stderr.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences progress bars and notes (`--quiet`) for the rest of the process.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether progress is drawn: not under `--quiet`, and only on a terminal (a bar in a
/// file or a pipe is noise, and under a batch system stderr is a file).
fn shows_progress() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// A note on stderr (a file written, the time taken), unless `--quiet`.
pub fn note(message: fmt::Arguments<'_>) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("{message}");
    }
}

/// A warning on stderr, even under `--quiet`: an input ignored or a request not
/// honoured (the summary's `warnings` say it too).
pub fn warn(message: &str) {
    eprintln!("warning: {message}");
}

/// A progress bar over `total` steps of `what`; hidden unless [`shows_progress`].
pub fn progress(total: u64, what: &str) -> ProgressBar {
    if !shows_progress() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta} left)")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_owned());
    bar
}

/// A progress bar over `total` steps of `what`, hidden for a single step.
pub fn progress_of(total: u64, what: &str) -> ProgressBar {
    if total > 1 {
        progress(total, what)
    } else {
        ProgressBar::hidden()
    }
}

/// After a single run's summary: its wall time and `jobs` per second (and whether the
/// invariants were `checked`), and the files it wrote into `out` (a feedback run writes
/// the users' files too).
pub fn report_single_run(
    started: Instant,
    (jobs, checked): (u64, bool),
    out: Option<&Path>,
    feedback: bool,
) {
    let elapsed = started.elapsed();
    println!(
        "  time          {:.1} ms ({:.0} jobs/s{})",
        elapsed.as_secs_f64() * 1e3,
        jobs as f64 / elapsed.as_secs_f64(),
        if checked { ", invariants checked" } else { "" }
    );
    if let Some(dir) = out {
        println!(
            "  written       {0}/summary.json, {0}/jobs.csv, {0}/schedule.swf{1}",
            dir.display(),
            if feedback {
                format!(
                    ", {0}/users.csv, {0}/sessions.csv, {0}/cycles.csv",
                    dir.display()
                )
            } else {
                String::new()
            }
        );
    }
}

/// A spinner for work of unknown length, showing `what`; hidden unless
/// [`shows_progress`].
pub fn spinner(what: &str) -> ProgressBar {
    if !shows_progress() {
        return ProgressBar::hidden();
    }
    let spinner = ProgressBar::new_spinner();
    spinner.set_message(what.to_owned());
    spinner
}

/// The wall time of a replicated run, a note on stderr.
pub fn report_elapsed(started: Instant) {
    note(format_args!(
        "  ran in {:.2} s",
        started.elapsed().as_secs_f64()
    ));
}

/// Why a command failed, by its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The command cannot mean what it was asked to: a usage error (exit code 2).
    Usage(String),
    /// It failed (exit code 1).
    Failed(String),
}

impl Failure {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Failure::Usage(m) | Failure::Failed(m) => m,
        }
    }

    /// The process's exit code.
    pub fn code(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Failed(_) => 1,
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Failed(message)
    }
}
