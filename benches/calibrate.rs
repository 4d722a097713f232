//! `sitesim calibrate` of KTH with 50 replications per resampled row (three rows: the
//! log's own service, EASY with feedback, EASY without), on all cores, as the command
//! runs it: the target is under 15 s on 2 cores. And one replication-year of
//! resampled KTH with feedback under EASY on one core (`resample-kth-year`), with the
//! default user model (`easy`: users react to service by the curve fitted from the log)
//! and with reactions off (`easy-no-reactions`). Figures go to
//! docs/PERFORMANCE.md.

mod common;

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use sitesim::commands::calibrate::calibrate;
use sitesim::commands::feedback::FeedbackOptions;
use sitesim::commands::options::ContinuationSource;
use sitesim::commands::replay::ReplayOptions;
use sitesim::commands::resample::{ResampleOptions, Resampler};
use sitesim::results::replicate::with_threads;
use sitesim::swf::LogSource;
use sitesim::time::WEEK;
use sitesim::users::pools::PoolConfig;
use sitesim::users::population::PopulationConfig;

/// KTH resampled for a year under EASY with feedback (4 weeks of warm-up, 52 measured,
/// one of cool-down), `replications` of it on `threads`.
fn resample_options(replications: u32, threads: Option<usize>) -> ResampleOptions {
    ResampleOptions {
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
        replications,
        threads,
        open_loop: false,
        out: None,
    }
}

fn calibrate_kth(c: &mut Criterion) {
    let Some(bytes) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let source = LogSource::text(bytes.as_slice(), "KTH-SP2-1996-2.swf").expect("the log reads");
    let opts = resample_options(50, None);
    let mut g = c.benchmark_group("calibrate");
    g.sample_size(10);
    g.bench_function("kth_50_replications_per_row", |b| {
        b.iter(|| {
            let s = with_threads(opts.threads, u64::from(opts.replications), || {
                calibrate(&source, &opts, &AtomicBool::new(false), &|| {})
            })
            .expect("threads start")
            .expect("KTH calibrates");
            assert_eq!(s.rows.len(), 3);
        })
    });
    g.finish();
}

/// One replication-year of resampled KTH with feedback under EASY, on one core; the log
/// read into pools beforehand (and the continuation curve fitted from it, when on).
fn resample_year(c: &mut Criterion) {
    let Some(bytes) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let source = LogSource::text(bytes.as_slice(), "KTH-SP2-1996-2.swf").expect("the log reads");
    let mut g = c.benchmark_group("resample-kth-year");
    g.sample_size(20);
    let defaults = resample_options(1, Some(1));
    let off = {
        let mut o = defaults.clone();
        o.users.users.reaction.continuation = ContinuationSource::Off;
        o
    };
    for (id, opts) in [("easy", defaults), ("easy-no-reactions", off)] {
        let resampler = Resampler::new(&source, &opts).expect("KTH resamples");
        let policy = opts.users.run.policy.clone();
        let run = || {
            resampler
                .replicate(&opts, &policy, &opts.population, 0)
                .expect("the replication runs")
        };
        let r = run();
        eprintln!(
            "resampled KTH, {id}: {} measured jobs, {} sessions in a year",
            r.jobs, r.sessions
        );
        g.bench_function(id, |b| b.iter(|| black_box(run().jobs)));
    }
    g.finish();
}

criterion_group!(benches, calibrate_kth, resample_year);
criterion_main!(benches);
