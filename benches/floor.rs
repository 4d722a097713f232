//! The floor of a replay of KTH: the lean reference simulator (`tests/common/lean.rs`:
//! FCFS or EASY and nothing else) beside sitesim's simulation of the same parsed log. Its
//! schedule is checked to be sitesim's (the mean wait, the backfilled and killed counts;
//! `tests/real_logs.rs` checks every start) before anything is timed, so the two figures
//! measure the same schedule: the gap between them is what a leaner design could win at
//! most, and the lean figure is a lower bound for the simulation part of the replay
//! targets (docs/PERFORMANCE.md, "The floor: a lean reference").

mod common;
#[path = "../tests/common/lean.rs"]
mod lean;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lean::{Lean, jobs_of};
use sitesim::commands::replay::{ReplayOptions, replay};
use sitesim::job::OverrunPolicy;
use sitesim::sched::Policy;
use sitesim::swf::{Located, LogSource, SwfReader};

fn floor(c: &mut Criterion) {
    let Some(bytes) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let reader = SwfReader::new(bytes.as_slice(), "kth").unwrap();
    let header = reader.header().clone();
    let procs = header.max_procs.expect("KTH gives MaxProcs") as u32;
    let records: Vec<Located> = reader.map(|r| r.unwrap()).collect();
    let (jobs, killed) = jobs_of(&records, OverrunPolicy::Kill);
    for policy in [Policy::Fcfs, Policy::Easy] {
        let opts = ReplayOptions {
            policy: policy.into(),
            check: false,
            ..ReplayOptions::default()
        };
        let sitesim_run = || {
            replay(
                &LogSource::records("kth", header.clone(), &records, Default::default()),
                &opts,
            )
            .unwrap()
        };
        let lean = Lean::run(&jobs, procs, policy);
        let summary = sitesim_run();
        let n = summary.counts.ended;
        assert_eq!(n, jobs.len() as u64);
        assert_eq!(killed, summary.counts.killed);
        assert_eq!(lean.backfilled, summary.counts.backfilled);
        let waits: i64 = jobs
            .iter()
            .zip(&lean.starts)
            .map(|(j, s)| s - j.submit)
            .sum();
        assert_eq!(
            waits as f64 / n as f64,
            summary.metrics.jobs.wait.mean,
            "the lean schedule is not sitesim's under {}",
            policy.name()
        );
        let mut g = c.benchmark_group(format!("floor-kth-{}", policy.name()));
        g.throughput(Throughput::Elements(n));
        g.bench_function("lean", |b| {
            b.iter(|| Lean::run(black_box(&jobs), procs, policy))
        });
        g.bench_function("sitesim", |b| b.iter(|| sitesim_run().counts.ended));
        g.finish();
    }
}

criterion_group!(benches, floor);
criterion_main!(benches);
