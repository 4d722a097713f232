//! Replay benchmarks: SWF parsing, whole open-loop replays of KTH, the CEA Curie sample
//! and a synthetic 1,000,000-job log under each policy, and KTH replayed with feedback.
//! Figures go to docs/PERFORMANCE.md.

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sitesim::commands::feedback::{FeedbackOptions, feedback};
use sitesim::commands::replay::{ReplayOptions, replay};
use sitesim::sched::Policy;
use sitesim::swf::{Located, LogSource, SwfReader, SwfWriter};
use sitesim::workload::{Synthetic, SyntheticConfig, SyntheticModel};

fn options(policy: Policy, procs: Option<u32>) -> ReplayOptions {
    ReplayOptions {
        policy: policy.into(),
        procs,
        check: false,
        ..ReplayOptions::default()
    }
}

fn replay_bytes(bytes: &[u8], opts: &ReplayOptions) -> u64 {
    let source = LogSource::text(bytes, "bench.swf").expect("header parses");
    let s = replay(&source, opts).expect("replay runs");
    s.counts.ended
}

fn synthetic(jobs: u64) -> Vec<Located> {
    Synthetic::new(
        SyntheticConfig {
            jobs,
            procs: 1024,
            load: 0.85,
            seed: 1,
        },
        &SyntheticModel::default(),
    )
    .map(|r| r.expect("synthetic records are valid"))
    .collect()
}

fn parsing(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse");
    let mut logs = Vec::new();
    if let Some(b) = common::shared_log("KTH-SP2-1996-2.swf") {
        logs.push(("kth", b));
    }
    let gen_ = Synthetic::new(
        SyntheticConfig {
            jobs: 100_000,
            procs: 1024,
            load: 0.85,
            seed: 1,
        },
        &SyntheticModel::default(),
    );
    let mut w = SwfWriter::new(Vec::new(), &gen_.header_lines()).unwrap();
    for r in gen_ {
        w.write(&r.unwrap().record).unwrap();
    }
    logs.push(("synthetic-100k", w.finish().unwrap()));
    for (name, bytes) in &logs {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(*name, |b| {
            b.iter(|| {
                let reader = SwfReader::new(black_box(bytes.as_slice()), "bench.swf").unwrap();
                reader.map(|r| r.unwrap().record.run).sum::<i64>()
            })
        });
    }
    g.finish();
    compressed(c);
}

/// Reading KTH from a file, plain and compressed (gzip, bzip2, xz: `LogInput`), and each
/// decompression alone: reading a compressed log should cost at most 1.5 times the plain
/// file's read plus the decompression. Throughput is in bytes of the plain log.
fn compressed(c: &mut Criterion) {
    use std::io::{Read, Write};
    let Some(bytes) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("sitesim-bench-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join("kth.swf");
    std::fs::write(&plain, &bytes).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&bytes).unwrap();
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(&bytes).unwrap();
    let packed = [
        ("gzip", dir.join("kth.swf.gz"), gz.finish().unwrap()),
        ("bzip2", dir.join("kth.swf.bz2"), bz.finish().unwrap()),
        ("xz", dir.join("kth.swf.xz"), xz.finish().unwrap()),
    ];
    for (_, path, data) in &packed {
        std::fs::write(path, data).unwrap();
    }
    let mut g = c.benchmark_group("parse_file");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("kth-plain", |b| {
        b.iter(|| {
            let reader = SwfReader::open(black_box(&plain)).unwrap();
            reader.map(|r| r.unwrap().record.run).sum::<i64>()
        })
    });
    for (format, path, _) in &packed {
        g.bench_function(format!("kth-{format}"), |b| {
            b.iter(|| {
                let reader = SwfReader::open(black_box(path)).unwrap();
                reader.map(|r| r.unwrap().record.run).sum::<i64>()
            })
        });
        g.bench_function(format!("kth-{format}-decompress-only"), |b| {
            b.iter(|| {
                let mut input = sitesim::swf::LogInput::open(black_box(path)).unwrap();
                std::io::copy(&mut input, &mut std::io::sink()).unwrap()
            })
        });
        let mut check = Vec::new();
        sitesim::swf::LogInput::open(path)
            .unwrap()
            .read_to_end(&mut check)
            .unwrap();
        assert_eq!(check, bytes, "{format}");
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The simulation alone: a log parsed beforehand, replayed from memory (summary metrics
/// on, no per-job outputs), under each policy and with predictors.
fn simulation_only(c: &mut Criterion) {
    let Some(bytes) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let reader = SwfReader::new(bytes.as_slice(), "kth").unwrap();
    let header = reader.header().clone();
    let records: Vec<Located> = reader.map(|r| r.unwrap()).collect();
    let mut g = c.benchmark_group("simulate-kth");
    g.throughput(Throughput::Elements(records.len() as u64));
    let mut runs: Vec<(String, ReplayOptions)> = Policy::ALL
        .iter()
        .map(|&p| (p.name().to_owned(), options(p, None)))
        .collect();
    for predictor in ["ruh", "sbh"] {
        let opts = ReplayOptions {
            predictor: Some(predictor.parse().unwrap()),
            ..options(Policy::Sjbf, None)
        };
        runs.push((format!("sjbf-{predictor}"), opts));
    }
    for spec in ["maui", "flex", "fairshare", "limits:jobs=8"] {
        let opts = ReplayOptions {
            policy: spec.parse().unwrap(),
            ..options(Policy::Easy, None)
        };
        runs.push((spec.to_owned(), opts));
    }
    let source = LogSource::records("kth", header, &records, Default::default());
    for (name, opts) in &runs {
        g.bench_with_input(BenchmarkId::from_parameter(name), opts, |b, o| {
            b.iter(|| replay(&source, o).unwrap().counts.ended)
        });
    }
    g.finish();
}

fn real_logs(c: &mut Criterion) {
    for (name, file, procs) in [
        ("kth", "KTH-SP2-1996-2.swf", None),
        ("curie", "CEA-Curie-sample.swf", None),
    ] {
        let Some(bytes) = common::shared_log(file) else {
            continue;
        };
        let mut g = c.benchmark_group(format!("replay-{name}"));
        g.sample_size(20);
        for policy in Policy::ALL {
            let opts = options(policy, procs);
            let jobs = replay_bytes(&bytes, &opts);
            g.throughput(Throughput::Elements(jobs));
            g.bench_with_input(BenchmarkId::from_parameter(policy.name()), &opts, |b, o| {
                b.iter(|| replay_bytes(black_box(&bytes), o))
            });
        }
        g.finish();
    }
}

/// Replay with feedback of KTH beside the open-loop replay of the same log, both from
/// bytes in memory: the users, their dependencies and the fluid model against the plain
/// log reader (target: within 2x).
fn feedback_kth(c: &mut Criterion) {
    let Some(bytes) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let source = LogSource::text(bytes.as_slice(), "kth").unwrap();
    let mut g = c.benchmark_group("feedback-kth");
    g.sample_size(30);
    for policy in [Policy::Fcfs, Policy::Easy] {
        let run = options(policy, None);
        g.throughput(Throughput::Elements(replay_bytes(&bytes, &run)));
        g.bench_with_input(
            BenchmarkId::new("open-loop", policy.name()),
            &run,
            |b, o| b.iter(|| replay_bytes(black_box(&bytes), o)),
        );
        let opts = FeedbackOptions {
            run,
            ..FeedbackOptions::default()
        };
        g.bench_with_input(
            BenchmarkId::new("feedback", policy.name()),
            &opts,
            |b, o| {
                b.iter(|| {
                    feedback(black_box(&source), o)
                        .unwrap()
                        .population
                        .jobs
                        .submitted
                })
            },
        );
    }
    g.finish();
}

fn synthetic_million(c: &mut Criterion) {
    let records = synthetic(1_000_000);
    let header = sitesim::swf::SwfHeader {
        max_procs: Some(1024),
        ..Default::default()
    };
    let mut g = c.benchmark_group("replay-synthetic-1M");
    g.sample_size(10);
    g.throughput(Throughput::Elements(records.len() as u64));
    let source = LogSource::records("synthetic", header, &records, Default::default());
    for policy in Policy::ALL {
        let opts = options(policy, Some(1024));
        g.bench_with_input(BenchmarkId::from_parameter(policy.name()), &opts, |b, o| {
            b.iter(|| {
                let s = replay(&source, o).unwrap();
                s.counts.ended
            })
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    parsing,
    simulation_only,
    real_logs,
    feedback_kth,
    synthetic_million
);
criterion_main!(benches);
