//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own subset

pub mod lean;
pub mod naive;

use std::path::PathBuf;
use std::process::{Command, Output};

use sitesim::job::{JobOutcome, OverrunPolicy};
use sitesim::predict::estimates::Estimator;
use sitesim::predict::{PredictorDefaults, PredictorSpec};
use sitesim::registry::SchedulerSpec;
use sitesim::sched::{BuildContext, Policy};
use sitesim::sim::{Observer, SimCounts, SimError, Simulation, SiteConfig};
use sitesim::swf::SwfReader;
use sitesim::users::TraceUsers;
use sitesim::users::UserConfig;
use sitesim::workload::questionable::{Policies, PolicySetting};
use sitesim::workload::trace::{MissingWaits, Trace, TraceConfig};
use sitesim::workload::{LogReplay, ReplayConfig};

/// Collects every finished job.
#[derive(Default)]
pub struct Collect(pub Vec<JobOutcome>);

impl Observer for Collect {
    fn on_end(&mut self, job: &JobOutcome) {
        self.0.push(job.clone());
    }
}

/// A job line: number, submit, runtime, size, estimate (user 1, other fields unknown).
pub fn job(n: i64, submit: i64, run: i64, size: i64, estimate: i64) -> String {
    job_of(n, submit, run, size, estimate, 1, -1)
}

/// A job line with its user and executable.
pub fn job_of(
    n: i64,
    submit: i64,
    run: i64,
    size: i64,
    estimate: i64,
    user: i64,
    app: i64,
) -> String {
    format!(
        "{n} {submit} -1 {run} {size} -1 -1 {size} {estimate} -1 1 {user} 1 {app} -1 -1 -1 -1\n"
    )
}

/// Replays `swf` on `procs` processors with the invariant checker on; returns the ended
/// jobs sorted by submission order.
pub fn run_with(
    swf: &str,
    procs: u32,
    policy: impl Into<SchedulerSpec>,
    overrun: OverrunPolicy,
    settings: &[&str],
) -> Result<Vec<JobOutcome>, SimError> {
    run_full(swf, procs, policy, overrun, settings, "log", None).map(|(jobs, _)| jobs)
}

/// [`run_with`] with an estimate model and a predictor; also returns the counters.
pub fn run_full(
    swf: &str,
    procs: u32,
    policy: impl Into<SchedulerSpec>,
    overrun: OverrunPolicy,
    settings: &[&str],
    estimates: &str,
    predictor: Option<&str>,
) -> Result<(Vec<JobOutcome>, SimCounts), SimError> {
    let mut policies = Policies::default();
    for s in settings {
        policies.set(&s.parse::<PolicySetting>().expect("valid setting"));
    }
    let config = ReplayConfig {
        procs,
        policies,
        interarrival_factor: 1.0,
        max_runtime: None,
        keep_records: false,
    };
    let estimator = Estimator::new(&estimates.parse().expect("valid model"), 1, || {
        let reader = SwfReader::new(swf.as_bytes(), "case.swf").map_err(|e| e.to_string())?;
        LogReplay::new(reader, "case.swf", config)
            .admitted_jobs()
            .map_err(|e| e.to_string())
    })
    .expect("the estimate model builds");
    let reader = SwfReader::new(swf.as_bytes(), "case.swf").map_err(SimError::input)?;
    let workload = LogReplay::new(reader, "case.swf", config).with_estimator(estimator);
    let site = SiteConfig {
        procs,
        overrun,
        check: true,
    };
    let scheduler = policy.into().build(&BuildContext::new(procs));
    let mut sim = Simulation::new(site, scheduler, workload, Collect::default());
    if let Some(p) = predictor {
        let spec: PredictorSpec = p.parse().expect("valid predictor");
        sim = sim.with_predictor(spec.build(&PredictorDefaults::default()).unwrap())?;
    }
    let (_, Collect(mut jobs), counts) = sim.run(None)?;
    assert_eq!(counts.submitted, counts.ended, "every submitted job ends");
    jobs.sort_by_key(|j| j.seq);
    Ok((jobs, counts))
}

/// [`run_with`] with default questionable-job policies.
pub fn run(
    swf: &str,
    procs: u32,
    policy: impl Into<SchedulerSpec>,
    overrun: OverrunPolicy,
) -> Vec<JobOutcome> {
    run_with(swf, procs, policy, overrun, &[]).expect("the case runs")
}

/// The jobs of `swf` for the references under `overrun`.
fn reference_jobs(swf: &str, overrun: OverrunPolicy) -> Vec<lean::Job> {
    let records: Vec<_> = SwfReader::new(swf.as_bytes(), "case.swf")
        .expect("the header parses")
        .map(|r| r.expect("the record parses"))
        .collect();
    lean::jobs_of(&records, overrun).0
}

/// The starts the lean reference (FCFS, EASY or SJBF) gives the jobs of `swf` on `procs`
/// processors under `overrun`, in submission order, and the number
/// of jobs it backfilled.
pub fn lean_starts(
    swf: &str,
    procs: u32,
    overrun: OverrunPolicy,
    policy: Policy,
) -> (Vec<i64>, u64) {
    let out = lean::Lean::run(&reference_jobs(swf, overrun), procs, policy);
    (out.starts, out.backfilled)
}

/// The starts the naive conservative reference gives the jobs of `swf` on `procs`
/// processors under `overrun`, in submission order.
pub fn conservative_reference_starts(swf: &str, procs: u32, overrun: OverrunPolicy) -> Vec<i64> {
    naive::conservative_starts(&reference_jobs(swf, overrun), procs)
}

/// `(job number, start)` of every job.
pub fn starts(jobs: &[JobOutcome]) -> Vec<(i64, i64)> {
    jobs.iter().map(|j| (j.job, j.start)).collect()
}

/// A log in `../shared/workloads`. Under CI (`CI=true`) a missing log fails the test with
/// a clear message; elsewhere the test is skipped (returns `None`).
pub fn shared_log(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/workloads")
        .join(name);
    if path.exists() {
        return Some(path);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} is missing: CI needs ../shared beside the checkout (README, \"Quick start\")",
            path.display()
        );
    }
    skipped(&format!("{} not found", path.display()));
    None
}

/// Says on the terminal, past the test harness's capture of `eprintln!`, that a test is
/// skipped and why, so that a skipped test does not pass unseen.
pub fn skipped(why: &str) {
    use std::io::Write;
    let name = std::thread::current().name().unwrap_or("a test").to_owned();
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {name}: {why}");
}

/// A job line with a logged wait: number, user, submit, wait, runtime, size (estimate:
/// ten times the runtime, at least 100 s).
pub fn logged(n: i64, user: i64, submit: i64, wait: i64, run: i64, size: i64) -> String {
    format!(
        "{n} {submit} {wait} {run} {size} -1 -1 {size} {} -1 1 {user} 1 -1 -1 -1 -1 -1\n",
        (10 * run).max(100)
    )
}

/// The users of log text `swf`, split by `config`, for a machine of `procs` processors.
pub fn trace_of(swf: &str, procs: u32, config: TraceConfig) -> Trace {
    let reader = SwfReader::new(swf.as_bytes(), "case.swf").expect("the case's header parses");
    let mut log = LogReplay::new(
        reader,
        "case.swf",
        ReplayConfig {
            procs,
            policies: Policies::default(),
            interarrival_factor: 1.0,
            max_runtime: None,
            keep_records: false,
        },
    );
    Trace::read(&mut log, config, MissingWaits::Refuse).expect("the case reads")
}

/// Replays `trace` with feedback on `procs` processors under `policy` (invariant checker
/// on), up to `horizon` if given; returns the users and the ended jobs by submission.
pub fn feedback_run(
    trace: Trace,
    procs: u32,
    policy: impl Into<SchedulerSpec>,
    users: UserConfig,
    horizon: Option<i64>,
) -> (TraceUsers, Vec<JobOutcome>) {
    let site = SiteConfig {
        procs,
        overrun: OverrunPolicy::Kill,
        check: true,
    };
    let workload = TraceUsers::new(trace, users, 1);
    let scheduler = policy.into().build(&BuildContext::new(procs));
    let sim = Simulation::new(site, scheduler, workload, Collect::default());
    let (users, Collect(mut jobs), _) = sim.run(horizon).expect("the feedback run works");
    jobs.sort_by_key(|j| j.seq);
    (users, jobs)
}

/// The default user model, with the session threshold of `config`.
pub fn users_of(config: &TraceConfig) -> UserConfig {
    UserConfig {
        threshold: config.threshold,
        ..UserConfig::default()
    }
}

/// Runs this build's `sitesim` binary with `args`.
pub fn sitesim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args(args)
        .output()
        .expect("sitesim runs")
}

/// A command's stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `name` in a scratch folder of test binary `test`, made for this process.
pub fn scratch(test: &str, name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sitesim-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
