//! EASY's and SJBF's indexed and scanning passes (`crates/core/src/sched/backfill.rs`,
//! the index built and dropped as the queue crosses its threshold) against the scan:
//! random sequences of arrivals, ends, replans, resyncs and passes drive the schedulers as
//! a simulation would, and at every pass the jobs started, in their order, and the
//! reservation are those of the straightforward scan of the queue (`sched::easy_pass` over
//! the queue in EASY's or SJBF's order, and `sched::shadow` for the reservation).

use proptest::prelude::*;
use sitesim::job::{JobId, JobRequest};
use sitesim::sched::{
    Easy, Queue, RunningJob, Scheduler, SystemView, UserTable, easy_pass, shadow,
};
use sitesim::time::Time;

/// What happens next to the machine.
#[derive(Debug, Clone)]
enum Op {
    /// A job of this size (a share of the machine, per mille) and plan arrives.
    Submit { size: u32, plan: Time },
    /// Jobs arrive.
    Burst(Vec<(u32, Time)>),
    /// Time moves on, then the running job picked by `which` ends.
    End { which: usize, after: Time },
    /// Time moves on.
    Wait(Time),
    /// A waiting (or running, if `running`) job picked by `which` gets a new plan.
    Replan {
        which: usize,
        running: bool,
        plan: Time,
    },
    /// A scheduling pass.
    Pass,
    /// The scheduler forgets everything and adopts the machine's state.
    Sync,
}

/// A job's size (per mille of the machine) and plan: any, or larger with a shorter plan
/// (long staircases in the index).
fn job() -> impl Strategy<Value = (u32, Time)> {
    prop_oneof![
        2 => (prop_oneof![3 => 1u32..=60, 2 => 1u32..=1000, 1 => Just(1000u32)], 1i64..2000),
        1 => (1u32..=1000, 0i64..50).prop_map(|(size, noise)| (size, 2100 - 2 * i64::from(size) + noise)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => job().prop_map(|(size, plan)| Op::Submit { size, plan }),
        // Many arrivals at once: queues of several blocks of the index.
        1 => prop::collection::vec(job(), 10..100).prop_map(Op::Burst),
        4 => (any::<usize>(), prop_oneof![Just(0i64), 1i64..500])
            .prop_map(|(which, after)| Op::End { which, after }),
        1 => (1i64..300).prop_map(Op::Wait),
        1 => (any::<usize>(), any::<bool>(), 1i64..2000)
            .prop_map(|(which, running, plan)| Op::Replan { which, running, plan }),
        4 => Just(Op::Pass),
        1 => Just(Op::Sync),
    ]
}

/// A machine driven by hand around one scheduler.
struct Machine {
    procs: u32,
    now: Time,
    queue: Queue,
    running: Vec<RunningJob>,
    users: UserTable,
    next_seq: u64,
    /// Submission numbers out of submission order (a policy under `limits` sees its queue
    /// in the order of release).
    shuffled: bool,
    free_ids: Vec<JobId>,
    next_id: JobId,
}

impl Machine {
    fn free(&self) -> u32 {
        self.procs - self.running.iter().map(|r| r.request.size).sum::<u32>()
    }

    fn view(&self) -> SystemView<'_> {
        SystemView::new(
            self.now,
            self.procs,
            self.free(),
            &self.queue,
            &self.running,
            &self.users,
        )
    }

    fn submit(&mut self, size: u32, plan: Time) -> JobRequest {
        let n = self.next_seq;
        self.next_seq += 1;
        let seq = if self.shuffled {
            n.wrapping_mul(2_654_435_761) % (1 << 32)
        } else {
            n
        };
        let id = self.free_ids.pop().unwrap_or_else(|| {
            self.next_id += 1;
            self.next_id - 1
        });
        let job = JobRequest {
            id,
            seq,
            submit: self.now,
            size: (size * self.procs).div_ceil(1000).max(1),
            estimate: plan,
            plan,
            user: 1,
            app: -1,
            think: Time::MAX,
            logged_wait: None,
            opens_session: None,
        };
        self.queue.push_back(job);
        job
    }

    /// The scan's starts: EASY over the queue in its order; SJBF over the jobs that fit in
    /// queue order, the first that does not, and the others in ascending plan.
    fn reference(&self, sjbf: bool) -> Vec<JobId> {
        let mut order: Vec<JobRequest> = self.queue.iter().copied().collect();
        if sjbf {
            let mut free = self.free();
            let fitting = order
                .iter()
                .take_while(|j| {
                    let fits = j.size <= free;
                    free = free.saturating_sub(j.size);
                    fits
                })
                .count();
            if fitting < order.len() {
                order[fitting + 1..].sort_by_key(|j| (j.plan, j.seq));
            }
        }
        let jobs: Vec<(u32, Time)> = order.iter().map(|j| (j.size, j.plan)).collect();
        let ends: Vec<(Time, u32)> = self
            .running
            .iter()
            .map(|r| (r.planned_end(), r.request.size))
            .collect();
        easy_pass(&jobs, self.free(), self.now, &ends)
            .into_iter()
            .map(|i| order[i].id)
            .collect()
    }

    fn start(&mut self, id: JobId) {
        let job = *self.queue.iter().find(|j| j.id == id).expect("waiting");
        assert!(self.queue.remove(job.id, job.seq));
        self.running.push(RunningJob {
            request: job,
            start: self.now,
        });
    }

    /// The reservation the scan would hold after a pass: the first waiting job's, from the
    /// running jobs' planned ends.
    fn reservation(&self) -> Option<(JobId, Time)> {
        let head = self.queue.front()?;
        let mut ends: Vec<(Time, u32)> = self
            .running
            .iter()
            .map(|r| (r.planned_end(), r.request.size))
            .collect();
        ends.sort_unstable();
        let (at, _) =
            shadow(head.size, self.free(), self.now, ends).expect("fits an empty machine");
        Some((head.id, at))
    }
}

/// Runs `ops` on a machine of `procs` processors against EASY (or SJBF) indexing its
/// candidates from `index_from` waiting jobs on (0: always; the queue then crosses the
/// threshold both ways).
fn check(
    procs: u32,
    shuffled: bool,
    ops: &[Op],
    sjbf: bool,
    index_from: usize,
) -> Result<(), TestCaseError> {
    let mut m = Machine {
        procs,
        now: 0,
        queue: Queue::new(),
        running: Vec::new(),
        users: UserTable::new(),
        next_seq: 0,
        shuffled,
        free_ids: Vec::new(),
        next_id: 0,
    };
    let mut s = if sjbf { Easy::sjbf() } else { Easy::new() }.index_from(index_from);
    for op in ops {
        match *op {
            Op::Submit { size, plan } => {
                let job = m.submit(size, plan);
                s.on_submit(&job, &m.view());
            }
            Op::Burst(ref jobs) => {
                for &(size, plan) in jobs {
                    let job = m.submit(size, plan);
                    s.on_submit(&job, &m.view());
                }
            }
            Op::End { which, after } => {
                if m.running.is_empty() {
                    continue;
                }
                m.now += after;
                let job = m.running.swap_remove(which % m.running.len());
                m.free_ids.push(job.request.id);
                s.on_end(&job, &m.view());
            }
            Op::Wait(t) => m.now += t,
            Op::Replan {
                which,
                running,
                plan,
            } => {
                if running && !m.running.is_empty() {
                    let i = which % m.running.len();
                    let old = m.running[i].request.plan;
                    m.running[i].request.plan = plan;
                    let (job, start) = (m.running[i].request, m.running[i].start);
                    s.on_replan(&job, old, Some(start), &m.view());
                } else if !running && !m.queue.is_empty() {
                    let job = *m.queue.iter().nth(which % m.queue.len()).unwrap();
                    let waiting = m.queue.get_mut(job.id, job.seq).unwrap();
                    waiting.plan = plan;
                    let replanned = *waiting;
                    s.on_replan(&replanned, job.plan, None, &m.view());
                }
            }
            Op::Pass => {
                let expected = m.reference(sjbf);
                let mut starts = Vec::new();
                s.schedule(&m.view(), &mut starts);
                prop_assert_eq!(&starts, &expected, "at {}", m.now);
                for id in starts {
                    m.start(id);
                }
                let mut promises = Vec::new();
                s.promises(&mut promises);
                prop_assert_eq!(promises.first().copied(), m.reservation(), "at {}", m.now);
            }
            Op::Sync => s.sync(&m.view()),
        }
    }
    Ok(())
}

/// 200 cases by default; `PROPTEST_CASES` raises it for a longer search.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn easy_starts_what_the_scan_starts(
        procs in prop_oneof![Just(1u32), 2u32..=16, 17u32..=256],
        shuffled in any::<bool>(),
        ops in prop::collection::vec(op(), 1..400),
        index_from in prop_oneof![Just(0usize), 1usize..80],
    ) {
        check(procs, shuffled, &ops, false, index_from)?;
    }

    #[test]
    fn sjbf_starts_what_the_scan_starts(
        procs in prop_oneof![Just(1u32), 2u32..=16, 17u32..=256],
        shuffled in any::<bool>(),
        ops in prop::collection::vec(op(), 1..400),
        index_from in prop_oneof![Just(0usize), 1usize..80],
    ) {
        check(procs, shuffled, &ops, true, index_from)?;
    }
}
