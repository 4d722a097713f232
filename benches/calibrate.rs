//! `sitesim calibrate` of KTH with 50 replications per resampled row (three rows: the
//! log's own service, EASY with feedback, EASY without), on all cores, as the command
//! runs it: the target is under 15 s on 2 cores. Figures go to
//! docs/PERFORMANCE.md.

mod common;

use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use sitesim::experiment::calibrate::calibrate;
use sitesim::experiment::feedback::FeedbackOptions;
use sitesim::experiment::replay::ReplayOptions;
use sitesim::experiment::replicate::with_threads;
use sitesim::experiment::resample::ResampleOptions;
use sitesim::swf::SwfReader;
use sitesim::time::WEEK;
use sitesim::workload::pools::PoolConfig;
use sitesim::workload::population::PopulationConfig;

fn calibrate_kth(c: &mut Criterion) {
    let Some(bytes) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let open = || SwfReader::new(bytes.as_slice(), "KTH-SP2-1996-2.swf");
    let header = open().expect("KTH reads").header().clone();
    let opts = ResampleOptions {
        users: FeedbackOptions {
            run: ReplayOptions {
                policy: "easy".parse().expect("easy"),
                check: false,
                warmup: 4 * WEEK,
                cooldown: WEEK,
                ..ReplayOptions::default()
            },
            ..FeedbackOptions::default()
        },
        pools: PoolConfig::default(),
        population: PopulationConfig::default(),
        weeks: 52,
        replications: 50,
        threads: None,
        open_loop: false,
        out: None,
    };
    let mut g = c.benchmark_group("calibrate");
    g.sample_size(10);
    g.bench_function("kth_50_replications_per_row", |b| {
        b.iter(|| {
            let s = with_threads(opts.threads, || {
                calibrate(
                    open,
                    "KTH-SP2-1996-2.swf",
                    &header,
                    |r| r.extra_columns(),
                    &opts,
                    &AtomicBool::new(false),
                    &|| {},
                )
            })
            .expect("threads start")
            .expect("KTH calibrates");
            assert_eq!(s.rows.len(), 3);
        })
    });
    g.finish();
}

criterion_group!(benches, calibrate_kth);
criterion_main!(benches);
