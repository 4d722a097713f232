//! The saturation sweep of the performance target: 10 population multipliers
//! (0.5 to 5) times 20 replications of one simulated year of the default site (128
//! processors, EASY), run as one experiment on all cores, each run written to its own
//! file as `sitesim run` does. Figures go to docs/PERFORMANCE.md.

use std::sync::atomic::AtomicBool;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
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

fn saturation_sweep(c: &mut Criterion) {
    let text = sweep_text();
    let scenario = Scenario::parse(&text, "bench.toml").expect("the sweep parses");
    let dir = std::env::temp_dir().join(format!("sitesim-bench-sweep-{}", std::process::id()));
    let mut g = c.benchmark_group("experiment");
    g.sample_size(10);
    g.bench_function("saturation_sweep_10x20_default_site_year", |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_dir_all(&dir);
                Study::new(&scenario, &text).expect("the sweep is valid")
            },
            |mut study| {
                let p = study
                    .run(&dir, Shard::ALL, &AtomicBool::new(false), &|| {})
                    .expect("the sweep runs");
                assert_eq!(p.done, 200);
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, saturation_sweep);
criterion_main!(benches);
