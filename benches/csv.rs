//! `jobs.csv` on KTH, hand-written against the csv crate: the rows of KTH's EASY replay
//! written by `PerJobWriter` (rows in one buffer, digits in place) and by a
//! `csv::Writer` serializing a `#[derive(Serialize)]` row (three-decimal fields through a
//! newtype), both into a `Vec<u8>`; the csv crate also told never to quote (numbers never
//! need quotes), which skips its per-field scan; and the whole replay with its outputs
//! written (to a temporary directory) for scale. The two writers' bytes are checked equal
//! first. Figures go to docs/PERFORMANCE.md and the module doc of `metrics::per_job`.

mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde::{Serialize, Serializer};
use sitesim::commands::replay::{ReplayOptions, replay};
use sitesim::job::JobOutcome;
use sitesim::localtime::SiteClock;
use sitesim::metrics::{Bsld, CSV_HEADER, PerJobWriter};
use sitesim::registry::SchedulerSpec;
use sitesim::sched::{BuildContext, Policy};
use sitesim::sim::{Observer, Simulation, SiteConfig};
use sitesim::swf::{Located, LogSource, SwfReader};
use sitesim::workload::{LogReplay, ReplayConfig};

/// Every finished job, in the order the run ends them.
#[derive(Default)]
struct Collect(Vec<JobOutcome>);

impl Observer for Collect {
    fn on_end(&mut self, j: &JobOutcome) {
        self.0.push(j.clone());
    }
}

/// A value written with exactly three decimals, as `Text::push_milli` writes it.
struct Milli(f64);

impl Serialize for Milli {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Digits written backwards into a stack buffer: as cheap as `push_milli`.
        let m = (self.0 * 1000.0).round() as i64;
        let mut u = m.unsigned_abs();
        let mut buf = [0u8; 24];
        let mut i = buf.len();
        for k in 0.. {
            if k == 3 {
                i -= 1;
                buf[i] = b'.';
            }
            i -= 1;
            buf[i] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 && k >= 3 {
                break;
            }
        }
        if m < 0 {
            i -= 1;
            buf[i] = b'-';
        }
        s.serialize_bytes(&buf[i..])
    }
}

/// One row of `jobs.csv`.
#[derive(Serialize)]
struct Row {
    job: i64,
    seq: u64,
    user: i64,
    submit: i64,
    wait: i64,
    start: i64,
    end: i64,
    runtime: i64,
    size: u32,
    estimate: i64,
    requested_runtime: i64,
    killed: u8,
    backfilled: u8,
    response: i64,
    bounded_slowdown: Milli,
    prediction: i64,
    absolute_inaccuracy: Milli,
    relative_accuracy: Milli,
    deadline_misses: u32,
    /// Empty: the jobs here are pushed without being started, so none is placed.
    processors: &'static str,
}

impl Row {
    fn of(j: &JobOutcome, bsld: Bsld) -> Row {
        let a = &j.accuracy;
        Row {
            job: j.job,
            seq: j.seq,
            user: j.user,
            submit: j.submit,
            wait: j.wait(),
            start: j.start,
            end: j.end,
            runtime: j.runtime(),
            size: j.size,
            estimate: j.estimate,
            requested_runtime: j.requested_runtime,
            killed: u8::from(j.killed),
            backfilled: u8::from(j.backfilled),
            response: j.response(),
            bounded_slowdown: Milli(bsld.of(j.wait(), j.runtime())),
            prediction: a.first_plan,
            absolute_inaccuracy: Milli(a.absolute_inaccuracy),
            relative_accuracy: Milli(a.relative_accuracy),
            deadline_misses: a.misses,
            processors: "",
        }
    }
}

/// `jobs.csv` by the hand-written writer, jobs taken in the order they ended.
fn hand_written(ended: &[JobOutcome], bsld: Bsld) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w: PerJobWriter<&mut Vec<u8>, std::io::Sink> =
        PerJobWriter::new(Some(&mut out), None, bsld, 100).unwrap();
    for j in ended {
        w.push(j).unwrap();
    }
    w.finish().unwrap();
    out
}

/// `jobs.csv` by the csv crate, jobs taken in submission order, fields quoted in `style`.
fn csv_crate(in_order: &[&JobOutcome], bsld: Bsld, style: csv::QuoteStyle) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .quote_style(style)
        .from_writer(Vec::new());
    w.write_record(CSV_HEADER.trim_end().split(',')).unwrap();
    for j in in_order {
        w.serialize(Row::of(j, bsld)).unwrap();
    }
    w.into_inner().unwrap()
}

fn jobs_csv(c: &mut Criterion) {
    let Some(bytes) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let reader = SwfReader::new(bytes.as_slice(), "kth").unwrap();
    let header = reader.header().clone();
    let records: Vec<Located> = reader.map(|r| r.unwrap()).collect();
    let procs = header.max_procs.unwrap() as u32;
    let opts = ReplayOptions {
        policy: Policy::Easy.into(),
        check: false,
        ..ReplayOptions::default()
    };
    let cfg = ReplayConfig {
        procs,
        policies: opts.questionable,
        interarrival_factor: 1.0,
        max_runtime: header.max_runtime,
        keep_records: false,
    };
    let ctx = BuildContext {
        procs,
        clock: SiteClock::utc(),
    };
    let site = SiteConfig {
        procs,
        overrun: opts.overrun,
        check: false,
    };
    let workload = LogReplay::new(records.iter().copied().map(Ok), "kth", cfg);
    let spec = SchedulerSpec::from(Policy::Easy);
    let (_, Collect(ended), _) =
        Simulation::new(site, spec.build(&ctx), workload, Collect::default())
            .run(None)
            .unwrap();
    let mut in_order: Vec<&JobOutcome> = ended.iter().collect();
    in_order.sort_by_key(|j| j.seq);
    let bsld = opts.bsld;
    let hand = hand_written(&ended, bsld);
    assert_eq!(
        String::from_utf8(csv_crate(&in_order, bsld, csv::QuoteStyle::Necessary)).unwrap(),
        String::from_utf8(hand.clone()).unwrap(),
        "the two writers differ"
    );

    let mut g = c.benchmark_group("jobs-csv-kth");
    g.throughput(Throughput::Elements(ended.len() as u64));
    g.bench_function("hand-written", |b| {
        b.iter(|| hand_written(black_box(&ended), bsld).len())
    });
    g.bench_function("csv-serde", |b| {
        b.iter(|| csv_crate(black_box(&in_order), bsld, csv::QuoteStyle::Necessary).len())
    });
    // Numbers never need quotes: the csv crate without its per-field check.
    g.bench_function("csv-serde-unquoted", |b| {
        b.iter(|| csv_crate(black_box(&in_order), bsld, csv::QuoteStyle::Never).len())
    });
    g.finish();

    // The whole replay with its outputs (jobs.csv, schedule.swf, summary.json) written.
    let dir = std::env::temp_dir().join(format!("sitesim-bench-csv-{}", std::process::id()));
    let with_out = ReplayOptions {
        out: Some(dir.clone()),
        ..opts
    };
    let mut g = c.benchmark_group("replay-kth-with-outputs");
    g.sample_size(30);
    g.throughput(Throughput::Elements(ended.len() as u64));
    let source = LogSource::text(bytes.as_slice(), "kth").expect("KTH reads");
    g.bench_function("easy", |b| {
        b.iter(|| replay(black_box(&source), &with_out).unwrap().counts.ended)
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, jobs_csv);
criterion_main!(benches);
