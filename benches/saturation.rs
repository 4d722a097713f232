//! Saturation at scale: the cost of an event with a given number of jobs waiting, on 128
//! processors. The synthetic log (`models/synthetic.toml`) arrives at an offered load of 4
//! until that many jobs are in the system (untimed), so that the queue is what an
//! overloaded machine leaves waiting; from then on the loop is closed, one new job from
//! the log submitted at each end, and the queue keeps its length. After 1,000 ends more
//! (untimed), criterion times batches of 1,000 ends: an iteration is 1,000 events, each an
//! end, a submission and a full pass. Figures go to docs/PERFORMANCE.md ("Saturation at
//! scale").
//!
//! `cargo bench --bench saturation -- 'saturation/easy/'` for one policy; the slower
//! policies run only at the lengths where a batch takes seconds at most.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sitesim::job::{JobOutcome, JobSpec, OverrunPolicy};
use sitesim::registry::SchedulerSpec;
use sitesim::sched::BuildContext;
use sitesim::sim::{SimError, Simulation, SiteConfig, SourceCtx, Workload};
use sitesim::swf::SwfRecord;
use sitesim::workload::{Synthetic, SyntheticConfig, SyntheticModel};

const PROCS: u32 = 128;
/// Ends after the loop closes and before the timing starts.
const WARMUP: u64 = 1_000;
/// Ends an iteration times.
const BATCH: u64 = 1_000;

/// The synthetic log at its own times until `jobs` jobs are in the system, then one job
/// at each end; after `WARMUP + timed` ends of the closed loop, records how long the timed
/// ones took and stops the run (with an error: the bench's way out of a run that would
/// otherwise drain the whole queue).
struct Saturating {
    log: Synthetic,
    next: Option<SwfRecord>,
    jobs: u64,
    live: u64,
    closed: bool,
    ends: u64,
    timed: u64,
    start: Option<Instant>,
    took: Rc<Cell<Duration>>,
}

impl Saturating {
    fn draw(&mut self) -> SwfRecord {
        self.log
            .next()
            .expect("jobs enough")
            .expect("synthetic records are valid")
            .record
    }

    fn submit(&mut self, r: SwfRecord, ctx: &mut SourceCtx) {
        ctx.submit(JobSpec {
            size: r.alloc_procs as u32,
            runtime: r.run,
            estimate: r.req_time,
            user: r.user,
            app: -1,
            job: r.job,
            tag: r.job as u64,
            logged_wait: None,
            opens_session: None,
        });
        self.live += 1;
    }
}

impl Workload for Saturating {
    fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let first = self.draw();
        ctx.wake_at(first.submit, 0);
        self.next = Some(first);
        Ok(())
    }

    fn on_wake(&mut self, _token: u64, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let r = self.next.take().expect("a wake-up for the next job");
        self.submit(r, ctx);
        if self.live >= self.jobs {
            self.closed = true;
        } else {
            let next = self.draw();
            ctx.wake_at(next.submit.max(ctx.now()), 0);
            self.next = Some(next);
        }
        Ok(())
    }

    fn on_job_end(&mut self, _job: &JobOutcome, ctx: &mut SourceCtx) -> Result<(), SimError> {
        self.live -= 1;
        if !self.closed {
            return Ok(());
        }
        self.ends += 1;
        if self.ends == WARMUP {
            self.start = Some(Instant::now());
        }
        if self.ends == WARMUP + self.timed {
            self.took.set(self.start.expect("timing started").elapsed());
            return Err(SimError::Workload("enough ends timed".into()));
        }
        let r = self.draw();
        self.submit(r, ctx);
        Ok(())
    }
}

/// How long `timed` ends take under `policy` with about `queue` jobs waiting.
fn time_ends(policy: &SchedulerSpec, queue: u64, timed: u64) -> Duration {
    let took = Rc::new(Cell::new(Duration::ZERO));
    let log = Synthetic::new(
        SyntheticConfig {
            jobs: u64::MAX,
            procs: PROCS,
            load: 4.0,
            seed: 1,
        },
        &SyntheticModel::default(),
    );
    let workload = Saturating {
        log,
        next: None,
        jobs: queue,
        live: 0,
        closed: false,
        ends: 0,
        timed,
        start: None,
        took: Rc::clone(&took),
    };
    let cfg = SiteConfig {
        procs: PROCS,
        overrun: OverrunPolicy::Kill,
        check: false,
    };
    let sim = Simulation::new(cfg, policy.build(&BuildContext::new(PROCS)), workload, ());
    let stopped = sim.run(None).err().expect("the workload stops the run");
    assert!(
        stopped.to_string().contains("enough ends timed"),
        "{stopped}"
    );
    took.get()
}

fn saturation(c: &mut Criterion) {
    let mut g = c.benchmark_group("saturation");
    g.sample_size(10);
    g.throughput(Throughput::Elements(BATCH));
    let lengths: [(&str, &[u64]); 7] = [
        ("easy", &[1_000, 10_000, 100_000, 1_000_000]),
        // Shortest first keeps the queue shorter: a million waiting takes more jobs than
        // the synthetic log has before its century runs out.
        ("sjbf", &[1_000, 10_000, 100_000]),
        ("maui", &[1_000, 10_000, 100_000]),
        ("creasy", &[1_000, 10_000]),
        ("fairshare", &[1_000, 10_000]),
        ("limits:jobs=8", &[1_000, 10_000]),
        ("conservative", &[1_000]),
    ];
    for (name, queues) in lengths {
        let policy: SchedulerSpec = name.parse().expect("a built-in policy");
        for &queue in queues {
            g.bench_function(BenchmarkId::new(name, queue), |b| {
                b.iter_custom(|iters| time_ends(&policy, queue, iters * BATCH))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, saturation);
criterion_main!(benches);
