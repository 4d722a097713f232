//! sitesim's fuzzing harness, on the stable toolchain: a small structure-aware mutation
//! driver (no coverage feedback; no `cargo fuzz`, which needs nightly). Each target takes
//! bytes; the driver mutates seeds (shared logs cut short, `scenarios/`, `models/`, hand
//! cases and the committed regressions) with mutations that know the input's shape (SWF
//! lines and fields, TOML and JSON values, spec tokens), runs each input on a worker
//! thread under a time limit and counts the bytes it allocates, and reports:
//! - a panic (caught with `catch_unwind`);
//! - a hang: no answer within the time limit;
//! - a slowdown: an input that takes more than 100 times the seeds' median time per byte
//!   (scaled to its length), or for a target whose cost its arguments set, 100 times the
//!   slowest seed's time; confirmed by running it twice more;
//! - a memory peak past a limit; past the hard limit the process aborts on the refused
//!   allocation after writing the input to `fuzz/findings/`.
//!
//! `tests/fuzz.rs` runs a short deterministic campaign and the regressions;
//! `examples/fuzz.rs` runs long campaigns (`docs/RELIABILITY.md`, "Fuzzing").

pub mod alloc;
pub mod mutate;
pub mod targets;

use std::any::Any;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

pub use alloc::Counting;
use mutate::{Rng, Shape};
use targets::{Cost, Target};

/// What a campaign does.
#[derive(Debug, Clone)]
pub struct Config {
    /// The targets, by name; all when empty.
    pub targets: Vec<String>,
    /// The driver's random seed: the same seed gives the same inputs.
    pub seed: u64,
    /// Inputs per target (after the seeds and regressions).
    pub iterations: u64,
    /// Stop a target after this long, whatever `iterations` says.
    pub max_time: Option<Duration>,
    /// An input that has not returned after this long is a hang.
    pub time_limit: Duration,
    /// Report slow inputs and memory peaks as findings (the long campaign); the short
    /// campaign reports only panics and hangs, which do not depend on the machine.
    pub judge_speed: bool,
    /// Save findings under this folder (`fuzz/findings`); print them only when `None`.
    pub findings: Option<PathBuf>,
    /// Print progress to stderr.
    pub verbose: bool,
}

/// What went wrong with one input.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// The target panicked, with this message and location.
    Panic(String),
    /// The target did not return within the time limit.
    Hang(Duration),
    /// The target took this long, this many times its allowance.
    Slow(Duration, f64),
    /// The target's allocations peaked at this many bytes.
    Memory(usize),
}

impl Kind {
    fn tag(&self) -> &'static str {
        match self {
            Kind::Panic(_) => "panic",
            Kind::Hang(_) => "hang",
            Kind::Slow(..) => "slow",
            Kind::Memory(_) => "memory",
        }
    }
}

/// A finding: the target, the input, what went wrong.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The target's name.
    pub target: &'static str,
    /// The input.
    pub input: Vec<u8>,
    /// What went wrong.
    pub kind: Kind,
    /// Where it was saved, if it was.
    pub saved: Option<PathBuf>,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match &self.kind {
            Kind::Panic(m) => format!("panic: {m}"),
            Kind::Hang(d) => format!("no answer after {d:.1?}"),
            Kind::Slow(d, x) => format!("slow: {d:.1?}, {x:.0}x the allowance"),
            Kind::Memory(b) => format!("allocations peaked at {} MiB", b >> 20),
        };
        write!(f, "{}: {what} ({} bytes", self.target, self.input.len())?;
        match &self.saved {
            Some(p) => write!(f, ", saved as {})", p.display()),
            None => {
                let text = String::from_utf8_lossy(&self.input);
                let cut: String = text.chars().take(300).collect();
                let more = if cut.len() < text.len() { "..." } else { "" };
                write!(f, ": {cut:?}{more})")
            }
        }
    }
}

/// One target's campaign.
#[derive(Debug, Clone)]
pub struct TargetReport {
    /// The target's name.
    pub target: &'static str,
    /// Inputs run (seeds and regressions included).
    pub inputs: u64,
    /// Inputs the target accepted (the rest were refused with an error).
    pub accepted: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// The slowest input's time.
    pub slowest: Duration,
    /// The largest allocation peak of one input, bytes.
    pub peak: usize,
    /// What was found.
    pub findings: Vec<Finding>,
}

impl std::fmt::Display for TargetReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:<12} {:>9} inputs ({:>5.1}% accepted) in {:>7.1?}; slowest {:>8.1?}; peak {:>6} KiB; {} findings",
            self.target,
            self.inputs,
            100.0 * self.accepted as f64 / self.inputs.max(1) as f64,
            self.elapsed,
            self.slowest,
            self.peak >> 10,
            self.findings.len()
        )
    }
}

/// The repository's `fuzz` folder.
pub fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The committed regression inputs of `target`: `fuzz/regressions/<target>/*`.
pub fn regressions(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = fuzz_dir().join("regressions").join(target);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => return Vec::new(),
    };
    files.sort();
    files
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect()
}

/// Runs `target` once on `input`; the time it took and whether it was accepted, or the
/// panic's message (`examples/fuzz.rs --run`, to reproduce a finding).
pub fn run_one(target: &str, input: Vec<u8>) -> Result<(Duration, Result<bool, String>), String> {
    quiet_panics();
    let t = targets::all()
        .iter()
        .find(|t| t.name == target)
        .ok_or_else(|| format!("no target '{target}'"))?;
    let answer = Worker::new(t)
        .run(&Arc::new(input), Duration::from_secs(3600))
        .ok_or("no answer within an hour")?;
    Ok((answer.time, answer.result))
}

/// The names of every target.
pub fn target_names() -> Vec<&'static str> {
    targets::all().iter().map(|t| t.name).collect()
}

/// Runs the campaign `cfg` asks for, target after target.
pub fn run(cfg: &Config) -> Result<Vec<TargetReport>, String> {
    let all = targets::all();
    for name in &cfg.targets {
        if !all.iter().any(|t| t.name == name) {
            return Err(format!(
                "no target '{name}' (targets: {})",
                target_names().join(", ")
            ));
        }
    }
    Ok(all
        .iter()
        .filter(|t| cfg.targets.is_empty() || cfg.targets.iter().any(|n| n == t.name))
        .map(|t| {
            let report = campaign(t, cfg);
            if cfg.verbose {
                eprintln!("{report}");
            }
            report
        })
        .collect())
}

thread_local! {
    /// The message of the last panic on this thread, when the thread is fuzzing.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Whether this thread runs fuzz inputs (its panics are caught and recorded quietly).
    static FUZZING: RefCell<bool> = const { RefCell::new(false) };
}

/// Installs a panic hook that records the message and location of a fuzzing thread's
/// panic instead of printing it; other threads' panics print as before.
fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if FUZZING.with(|f| *f.borrow()) {
                let at = info
                    .location()
                    .map(|l| format!(" at {}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                let msg = payload_text(info.payload());
                PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{at}")));
            } else {
                previous(info);
            }
        }));
    });
}

fn payload_text(payload: &dyn Any) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".into())
}

/// What one run of one input gave.
struct Answer {
    result: Result<bool, String>,
    time: Duration,
    peak: usize,
}

/// A worker that runs a target on the inputs it is sent: a rayon pool of one thread, so
/// that sitesim's parallel work for an input (replications, an experiment's runs) runs on
/// that thread too, where its allocations are counted (`alloc.rs`).
struct Worker {
    pool: rayon::ThreadPool,
    name: &'static str,
    run: fn(&[u8]) -> bool,
    answers: mpsc::Sender<Answer>,
    recv: mpsc::Receiver<Answer>,
}

impl Worker {
    fn new(target: &'static Target) -> Worker {
        Worker::of(target.name, target.run)
    }

    /// A worker that runs `run`, its allocations counted under `name`.
    fn of(name: &'static str, run: fn(&[u8]) -> bool) -> Worker {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(move |_| format!("fuzz-{name}"))
            .stack_size(16 << 20)
            .start_handler(|_| FUZZING.with(|f| *f.borrow_mut() = true))
            .build()
            .expect("a fuzz worker thread starts");
        let (answers, recv) = mpsc::channel();
        Worker {
            pool,
            name,
            run,
            answers,
            recv,
        }
    }

    /// Runs `input`; `None` when it has not returned within `limit` (the worker is then
    /// lost: a thread cannot be stopped).
    fn run(&self, input: &Arc<Vec<u8>>, limit: Duration) -> Option<Answer> {
        let (name, run, input) = (self.name, self.run, Arc::clone(input));
        let answers = self.answers.clone();
        self.pool.spawn(move || {
            alloc::watch(name, &input);
            let started = Instant::now();
            let result = std::panic::catch_unwind(|| run(&input)).map_err(|payload| {
                PANIC
                    .with(|p| p.borrow_mut().take())
                    .unwrap_or_else(|| payload_text(&*payload))
            });
            let time = started.elapsed();
            let peak = alloc::unwatch();
            let _ = answers.send(Answer { result, time, peak });
        });
        self.recv.recv_timeout(limit).ok()
    }
}

/// Memory peak of one input that is a finding in the long campaign.
const MEMORY_FINDING: usize = 256 << 20;

/// Runs one target's campaign.
fn campaign(target: &'static Target, cfg: &Config) -> TargetReport {
    quiet_panics();
    let started = Instant::now();
    let mut rng = Rng::new(cfg.seed ^ mutate::hash(target.name.as_bytes()));
    let mut report = TargetReport {
        target: target.name,
        inputs: 0,
        accepted: 0,
        elapsed: Duration::ZERO,
        slowest: Duration::ZERO,
        peak: 0,
        findings: Vec::new(),
    };
    let mut corpus: Vec<Vec<u8>> = (target.seeds)();
    corpus.extend(regressions(target.name).into_iter().map(|(_, b)| b));
    let worker = Worker::new(target);
    // The seeds and regressions, twice: the first pass warms caches and lazy statics, the
    // second sets the speed allowance (seconds per unit of cost).
    let mut per_unit = Vec::new();
    for pass in 0..2 {
        for seed in &corpus {
            let input = Arc::new(seed.clone());
            let Some(answer) = judge(target, cfg, &worker, &input, None, &mut report) else {
                report.elapsed = started.elapsed();
                return report;
            };
            if pass == 1 {
                per_unit.push(answer.time.as_secs_f64() / units(target, &input));
            }
        }
    }
    per_unit.sort_by(f64::total_cmp);
    let allowance = match target.cost {
        Cost::PerByte => per_unit.get(per_unit.len() / 2),
        Cost::Asked => per_unit.last(),
    }
    .copied()
    .unwrap_or(1e-6);
    let shape: Shape = target.shape;
    let mut i = 0;
    while i < cfg.iterations && cfg.max_time.is_none_or(|m| started.elapsed() < m) {
        i += 1;
        let input = Arc::new(mutate::mutate(shape, &corpus, &mut rng));
        let Some(answer) = judge(target, cfg, &worker, &input, Some(allowance), &mut report) else {
            break;
        };
        // Inputs the target accepts join the corpus now and then (a crude stand-in for
        // coverage feedback: accepted inputs go deeper than refused ones).
        if answer.result == Ok(true) && corpus.len() < 4096 && rng.below(8) == 0 {
            corpus.push(input.to_vec());
        }
        if cfg.verbose && i.is_multiple_of(20_000) {
            eprintln!("  {}: {i} inputs, {:.0?}", target.name, started.elapsed());
        }
    }
    report.elapsed = started.elapsed();
    report
}

/// The units of cost of `input` that its time is judged by: its length (at least 64
/// bytes), or one run.
fn units(target: &Target, input: &[u8]) -> f64 {
    match target.cost {
        Cost::PerByte => input.len().max(64) as f64,
        Cost::Asked => 1.0,
    }
}

/// Runs `input` and records what went wrong; `None` when the worker is lost to a hang.
/// `allowance`: the seeds' seconds per unit of cost ([`units`]), when slowdowns are
/// judged.
fn judge(
    target: &'static Target,
    cfg: &Config,
    worker: &Worker,
    input: &Arc<Vec<u8>>,
    allowance: Option<f64>,
    report: &mut TargetReport,
) -> Option<Answer> {
    report.inputs += 1;
    let finding = |kind: Kind, report: &mut TargetReport| {
        let mut f = Finding {
            target: target.name,
            input: input.to_vec(),
            kind,
            saved: None,
        };
        if let Some(dir) = &cfg.findings {
            f.saved = save(dir, &f);
        }
        if cfg.verbose {
            eprintln!("FINDING {f}");
        }
        report.findings.push(f);
    };
    let Some(answer) = worker.run(input, cfg.time_limit) else {
        finding(Kind::Hang(cfg.time_limit), report);
        return None;
    };
    report.slowest = report.slowest.max(answer.time);
    report.peak = report.peak.max(answer.peak);
    match &answer.result {
        Ok(accepted) => report.accepted += u64::from(*accepted),
        Err(msg) => finding(Kind::Panic(msg.clone()), report),
    }
    if cfg.judge_speed {
        if answer.peak > MEMORY_FINDING {
            finding(Kind::Memory(answer.peak), report);
        }
        if let Some(per_unit) = allowance {
            // 100 times the seeds' time per unit, never below 20 ms (timer and scheduler
            // noise); confirmed by the fastest of two more runs.
            let allowed = (100.0 * per_unit * units(target, input)).max(0.02);
            if answer.time.as_secs_f64() > allowed {
                let again = (0..2)
                    .filter_map(|_| worker.run(input, cfg.time_limit))
                    .map(|a| a.time)
                    .min();
                if let Some(t) = again.filter(|t| t.as_secs_f64() > allowed) {
                    finding(Kind::Slow(t, t.as_secs_f64() / allowed), report);
                }
            }
        }
    }
    Some(answer)
}

/// Saves a finding as `DIR/<target>/<kind>-<hash>.bin` with a `.txt` beside it.
fn save(dir: &Path, f: &Finding) -> Option<PathBuf> {
    let dir = dir.join(f.target);
    std::fs::create_dir_all(&dir).ok()?;
    let stem = format!("{}-{:016x}", f.kind.tag(), mutate::hash(&f.input));
    let path = dir.join(format!("{stem}.bin"));
    std::fs::write(&path, &f.input).ok()?;
    let shown = Finding {
        saved: None,
        ..f.clone()
    };
    std::fs::write(dir.join(format!("{stem}.txt")), format!("{shown}\n")).ok()?;
    Some(path)
}

/// Runs every committed regression input of every target once, under `limit`; returns
/// what failed.
pub fn replay_regressions(limit: Duration) -> Vec<String> {
    quiet_panics();
    let mut failed = Vec::new();
    for target in targets::all() {
        let files = regressions(target.name);
        if files.is_empty() {
            continue;
        }
        let worker = Worker::new(target);
        for (path, bytes) in files {
            match worker.run(&Arc::new(bytes), limit) {
                None => {
                    failed.push(format!("{}: no answer after {limit:?}", path.display()));
                    break;
                }
                Some(Answer {
                    result: Err(msg), ..
                }) => failed.push(format!("{}: panic: {msg}", path.display())),
                Some(_) => {}
            }
        }
    }
    failed
}
