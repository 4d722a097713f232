//! The event queue alone: events per second under the "hold" model (pop the next event,
//! push one a random delay later) at several queue sizes, for the engine's binary heap and
//! for two alternatives measured against it (DESIGN.md asks for the comparison): a
//! `BTreeMap` keyed by (time, phase, sequence) and a radix heap on the same packed keys.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use sitesim::engine::EventQueue;

const OPS: u64 = 100_000;

/// Delays with the shape of a job mix: many short, some very long (log-uniform, 1 s to
/// 1.5 days), and a share of zero delays (simultaneous events).
fn delays(n: usize) -> Vec<i64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    (0..n)
        .map(|_| {
            if rng.random_bool(0.1) {
                0
            } else {
                (130_000f64.powf(rng.random::<f64>())) as i64
            }
        })
        .collect()
}

trait Queue {
    fn push(&mut self, t: i64, v: u32);
    fn pop(&mut self) -> Option<(i64, u32)>;
}

impl Queue for EventQueue<u32> {
    fn push(&mut self, t: i64, v: u32) {
        EventQueue::push(self, t, 0, v)
    }
    fn pop(&mut self) -> Option<(i64, u32)> {
        EventQueue::pop(self)
    }
}

#[derive(Default)]
struct BTree {
    map: BTreeMap<(i64, u64), u32>,
    seq: u64,
}

impl Queue for BTree {
    fn push(&mut self, t: i64, v: u32) {
        self.seq += 1;
        self.map.insert((t, self.seq), v);
    }
    fn pop(&mut self) -> Option<(i64, u32)> {
        self.map.pop_first().map(|((t, _), v)| (t, v))
    }
}

/// A monotone radix heap on (time, sequence) packed in a `u128`: valid here because the
/// hold model never pushes before the last popped key.
struct Radix {
    buckets: Vec<Vec<(u128, u32)>>,
    last: u128,
    len: usize,
    seq: u64,
}

impl Default for Radix {
    fn default() -> Self {
        Radix {
            buckets: (0..129).map(|_| Vec::new()).collect(),
            last: 0,
            len: 0,
            seq: 0,
        }
    }
}

impl Radix {
    fn bucket(&self, key: u128) -> usize {
        (128 - (key ^ self.last).leading_zeros()) as usize
    }
}

impl Queue for Radix {
    fn push(&mut self, t: i64, v: u32) {
        self.seq += 1;
        let key = ((t as u128) << 64) | u128::from(self.seq);
        let b = self.bucket(key);
        self.buckets[b].push((key, v));
        self.len += 1;
    }
    fn pop(&mut self) -> Option<(i64, u32)> {
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let i = (1..129)
                .find(|&i| !self.buckets[i].is_empty())
                .expect("non-empty");
            let items = std::mem::take(&mut self.buckets[i]);
            self.last = items.iter().map(|e| e.0).min().expect("non-empty");
            for e in items {
                let b = self.bucket(e.0);
                self.buckets[b].push(e);
            }
        }
        self.len -= 1;
        let (key, v) = self.buckets[0].pop().expect("bucket 0 holds the minimum");
        Some(((key >> 64) as i64, v))
    }
}

/// A queue holding `size` events.
fn filled<Q: Queue + Default>(size: usize, delays: &[i64]) -> Q {
    let mut q = Q::default();
    for i in 0..size {
        q.push(delays[i % delays.len()], i as u32);
    }
    q
}

/// `OPS` hold operations: pop the next event, push one a delay after it.
fn hold<Q: Queue>(q: &mut Q, delays: &[i64]) -> u64 {
    let mut sum = 0u64;
    for i in 0..OPS as usize {
        let (t, v) = q.pop().expect("the queue is never empty");
        sum = sum.wrapping_add(u64::from(v));
        q.push(t + delays[(i * 7 + 3) % delays.len()], v);
    }
    sum
}

fn bench_queue<Q: Queue + Default>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    size: usize,
    d: &[i64],
) {
    g.bench_with_input(BenchmarkId::new(name, size), &size, |b, &s| {
        b.iter_batched_ref(
            || filled::<Q>(s, d),
            |q| hold(q, black_box(d)),
            BatchSize::LargeInput,
        )
    });
}

fn event_queue(c: &mut Criterion) {
    let d = delays(1 << 16);
    let mut g = c.benchmark_group("event-queue-hold");
    g.throughput(Throughput::Elements(OPS));
    for size in [16usize, 1_024, 65_536] {
        bench_queue::<EventQueue<u32>>(&mut g, "binary-heap", size, &d);
        bench_queue::<BTree>(&mut g, "btree", size, &d);
        bench_queue::<Radix>(&mut g, "radix-heap", size, &d);
    }
    g.finish();
}

criterion_group!(benches, event_queue);
criterion_main!(benches);
