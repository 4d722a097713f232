//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::PathBuf;

use sitesim::job::{JobOutcome, OverrunPolicy};
use sitesim::sched::Policy;
use sitesim::sim::{Observer, SimError, Simulation, SiteConfig};
use sitesim::swf::SwfReader;
use sitesim::workload::questionable::{Policies, PolicySetting};
use sitesim::workload::{LogReplay, ReplayConfig};

/// Collects every finished job.
#[derive(Default)]
pub struct Collect(pub Vec<JobOutcome>);

impl Observer for Collect {
    fn on_end(&mut self, job: &JobOutcome) {
        self.0.push(job.clone());
    }
}

/// A job line: number, submit, runtime, size, estimate (other fields unknown).
pub fn job(n: i64, submit: i64, run: i64, size: i64, estimate: i64) -> String {
    format!("{n} {submit} -1 {run} {size} -1 -1 {size} {estimate} -1 1 1 1 -1 -1 -1 -1 -1\n")
}

/// Replays `swf` on `procs` processors with the invariant checker on; returns the ended
/// jobs sorted by submission order.
pub fn run_with(
    swf: &str,
    procs: u32,
    policy: Policy,
    overrun: OverrunPolicy,
    settings: &[&str],
) -> Result<Vec<JobOutcome>, SimError> {
    let mut policies = Policies::default();
    for s in settings {
        policies.set(&s.parse::<PolicySetting>().expect("valid setting"));
    }
    let reader = SwfReader::new(swf.as_bytes(), "case.swf")?;
    let workload = LogReplay::new(
        reader,
        "case.swf",
        ReplayConfig {
            procs,
            policies,
            interarrival_factor: 1.0,
            max_runtime: None,
            keep_records: false,
        },
    );
    let site = SiteConfig {
        procs,
        overrun,
        check: true,
    };
    let (_, Collect(mut jobs), counts) =
        Simulation::new(site, policy.build(procs), workload, Collect::default()).run(None)?;
    assert_eq!(counts.submitted, counts.ended, "every submitted job ends");
    jobs.sort_by_key(|j| j.seq);
    Ok(jobs)
}

/// [`run_with`] with default questionable-job policies.
pub fn run(swf: &str, procs: u32, policy: Policy, overrun: OverrunPolicy) -> Vec<JobOutcome> {
    run_with(swf, procs, policy, overrun, &[]).expect("the case runs")
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
            "{} is missing: CI needs ../shared beside the checkout (see README, 'Tests')",
            path.display()
        );
    }
    eprintln!("skipping: {} not found", path.display());
    None
}
