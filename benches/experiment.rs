//! The scenarios of the performance targets, run on all cores as `sitesim run` does: the
//! default scenario (40 replications of a year of the default site, 128 processors under
//! EASY, with the closed-loop calibration of its users), and the saturation sweep of 10
//! population multipliers (0.5 to 5) times 20 replications of it, each run written to its
//! own file. Figures go to docs/PERFORMANCE.md.

use std::sync::atomic::AtomicBool;

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, criterion_group, criterion_main};
use sitesim::experiment::scenario::{DEFAULT_SCENARIO, Scenario};
use sitesim::experiment::study::{Shard, Study};

fn sweep_text() -> String {
    let from = "replications = 40 ";
    assert!(
        DEFAULT_SCENARIO.contains(from),
        "the default scenario's replications moved"
    );
    let mut text = DEFAULT_SCENARIO.replace(from, "replications = 20 ");
    text.push_str(
        "\n[experiment]\n[experiment.sweep]\naxis = \"population\"\n\
         values = [0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5]\n",
    );
    text
}

/// Benchmarks the experiment of `text`, from parsing to its files, which must be `runs`.
fn bench_study(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, text: &str, runs: u64) {
    let scenario = Scenario::parse(text, "bench.toml").expect("the scenario parses");
    let dir = std::env::temp_dir().join(format!("sitesim-bench-{name}-{}", std::process::id()));
    g.bench_function(name, |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_dir_all(&dir);
                Study::new(&scenario, text).expect("the scenario is valid")
            },
            |mut study| {
                let p = study
                    .run(&dir, Shard::ALL, &AtomicBool::new(false), &|| {})
                    .expect("the scenario runs");
                assert_eq!(p.done, runs);
            },
            BatchSize::PerIteration,
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
}

fn experiments(c: &mut Criterion) {
    let mut g = c.benchmark_group("experiment");
    g.sample_size(10);
    let default = Scenario::parse(DEFAULT_SCENARIO, "default.toml").expect("it parses");
    g.bench_function("default_scenario", |b| {
        b.iter(|| {
            let summary = default
                .run(&AtomicBool::new(false), &|| {})
                .expect("the default scenario runs");
            assert!(summary.single().is_none(), "40 replications, not one run");
        })
    });
    bench_study(
        &mut g,
        "saturation_sweep_10x20_default_site_year",
        &sweep_text(),
        200,
    );
    g.finish();
}

criterion_group!(benches, experiments);
criterion_main!(benches);
