//! A lean reference for FCFS, EASY and SJBF, written apart from sitesim's simulation core and
//! schedulers: a simulator that does nothing but schedule (no general event queue, no
//! observers, no metrics, jobs as four numbers). The tests check that sitesim gives every
//! job the start it gives (`tests/properties.rs`, `tests/real_logs.rs`); the `floor`
//! benchmark times it beside sitesim on KTH, as a lower bound for the simulation's cost.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use sitesim::job::OverrunPolicy;
use sitesim::sched::Policy;
use sitesim::swf::Located;

/// A job as the references need it.
#[derive(Debug, Clone, Copy)]
pub struct Job {
    pub submit: i64,
    pub size: u32,
    /// The runtime it will have (under `kill`, its logged runtime cut at its estimate).
    pub run: i64,
    pub estimate: i64,
}

/// What the lean replay measured: each job's start, and the jobs backfilled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub starts: Vec<i64>,
    pub backfilled: u64,
}

/// The shadow time and extra processors of the first waiting job.
#[derive(Debug, Clone, Copy)]
struct Reservation {
    shadow: i64,
    extra: u32,
}

/// FCFS, EASY (Mu'alem and Feitelson 2001, §2.2) or SJBF (EASY trying the candidates
/// shortest estimate first, Talby et al. 2006, §3.2), with sitesim's rules: every event
/// of a second is applied before one pass; under EASY and SJBF a pass after arrivals
/// only tries the new jobs while the reservation holds; a job of zero runtime ends in the second it
/// starts, and another pass follows.
pub struct Lean<'a> {
    jobs: &'a [Job],
    /// FCFS, EASY or SJBF.
    policy: Policy,
    /// Scratch: backfilling candidates.
    candidates: Vec<u32>,
    free: u32,
    /// Actual ends: `(end, job)`.
    ends: BinaryHeap<Reverse<(i64, u32)>>,
    /// Running jobs by expected end: `(start + estimate, job, size)`, sorted.
    running: VecDeque<(i64, u32, u32)>,
    queue: VecDeque<u32>,
    arrivals: Vec<u32>,
    dirty: bool,
    reservation: Option<Reservation>,
    /// Jobs started in the pass under way.
    started: Vec<u32>,
    /// Whether each job has started.
    has_started: Vec<bool>,
    out: Outcome,
}

impl<'a> Lean<'a> {
    /// Replays `jobs` (in submission order) on `procs` processors.
    pub fn run(jobs: &'a [Job], procs: u32, policy: Policy) -> Outcome {
        assert!(matches!(policy, Policy::Fcfs | Policy::Easy | Policy::Sjbf));
        let mut s = Lean {
            jobs,
            policy,
            candidates: Vec::new(),
            free: procs,
            ends: BinaryHeap::new(),
            running: VecDeque::new(),
            queue: VecDeque::new(),
            arrivals: Vec::new(),
            dirty: false,
            reservation: None,
            started: Vec::new(),
            has_started: vec![false; jobs.len()],
            out: Outcome {
                starts: vec![0; jobs.len()],
                backfilled: 0,
            },
        };
        let mut next = 0;
        loop {
            let arrival = jobs.get(next).map(|j| j.submit);
            let end = s.ends.peek().map(|e| e.0.0);
            let now = match (arrival, end) {
                (Some(a), Some(e)) => a.min(e),
                (Some(t), None) | (None, Some(t)) => t,
                (None, None) => break,
            };
            loop {
                while let Some(&Reverse((t, j))) = s.ends.peek()
                    && t == now
                {
                    s.ends.pop();
                    s.end(j);
                }
                while next < jobs.len() && jobs[next].submit == now {
                    s.queue.push_back(next as u32);
                    s.arrivals.push(next as u32);
                    next += 1;
                }
                s.pass(now);
                if s.ends.peek().is_none_or(|e| e.0.0 > now) {
                    break;
                }
            }
        }
        s.out
    }

    fn end(&mut self, j: u32) {
        let job = &self.jobs[j as usize];
        self.free += job.size;
        let at = self
            .running
            .iter()
            .position(|r| r.1 == j)
            .expect("an ending job is running");
        self.running.remove(at);
        self.dirty = true;
    }

    fn start(&mut self, j: u32, now: i64) {
        let job = &self.jobs[j as usize];
        self.free -= job.size;
        self.out.starts[j as usize] = now;
        self.ends.push(Reverse((now + job.run, j)));
        let key = (now + job.estimate, j);
        let at = self.running.partition_point(|r| (r.0, r.1) < key);
        self.running.insert(at, (key.0, j, job.size));
        self.started.push(j);
        self.has_started[j as usize] = true;
    }

    /// The head's reservation when it needs `need` processors: the first expected end
    /// (at least a second ahead) by which enough are free, and the processors free then
    /// beyond its need, counting every job expected to end at that time.
    fn reservation(&self, need: u32, now: i64) -> Reservation {
        let ends = |i: usize| self.running[i].0.max(now + 1);
        let mut avail = self.free;
        let mut i = 0;
        while avail < need {
            avail += self.running[i].2;
            i += 1;
        }
        let shadow = ends(i - 1);
        while i < self.running.len() && ends(i) == shadow {
            avail += self.running[i].2;
            i += 1;
        }
        Reservation {
            shadow,
            extra: avail - need,
        }
    }

    /// Starts job `j` if it may be backfilled under reservation `r`.
    fn admit(&mut self, r: &mut Reservation, j: u32, now: i64) {
        let job = self.jobs[j as usize];
        if job.size > self.free {
            return;
        }
        let by_shadow = now + job.estimate <= r.shadow;
        if !by_shadow && job.size > r.extra.min(self.free) {
            return;
        }
        if !by_shadow {
            r.extra -= job.size;
        }
        self.start(j, now);
    }

    fn pass(&mut self, now: i64) {
        self.started.clear();
        if let Some(mut r) = self.reservation
            && !self.dirty
            && r.shadow > now
        {
            let mut arrivals = std::mem::take(&mut self.arrivals);
            if self.policy == Policy::Sjbf {
                arrivals.sort_unstable_by_key(|&j| (self.jobs[j as usize].estimate, j));
            }
            for &j in &arrivals {
                if self.free == 0 {
                    break;
                }
                self.admit(&mut r, j, now);
            }
            self.arrivals = arrivals;
            self.reservation = Some(r);
        } else {
            self.reservation = None;
            while let Some(&j) = self.queue.front() {
                let size = self.jobs[j as usize].size;
                if size > self.free {
                    if self.policy != Policy::Fcfs {
                        self.reservation = Some(self.reservation(size, now));
                    }
                    break;
                }
                self.queue.pop_front();
                self.start(j, now);
            }
            // Those started from the front are out of the queue and not backfilled.
            self.started.clear();
            if let Some(mut r) = self.reservation {
                if self.policy == Policy::Sjbf {
                    // Shortest estimate first, ties by submission.
                    let mut candidates = std::mem::take(&mut self.candidates);
                    candidates.clear();
                    candidates.extend(self.queue.iter().skip(1));
                    candidates.sort_unstable_by_key(|&j| (self.jobs[j as usize].estimate, j));
                    for &j in &candidates {
                        if self.free == 0 {
                            break;
                        }
                        self.admit(&mut r, j, now);
                    }
                    self.candidates = candidates;
                } else {
                    for i in 1..self.queue.len() {
                        if self.free == 0 {
                            break;
                        }
                        self.admit(&mut r, self.queue[i], now);
                    }
                }
                self.reservation = Some(r);
            }
        }
        self.arrivals.clear();
        self.dirty = false;
        if !self.started.is_empty() {
            let has_started = &self.has_started;
            self.queue.retain(|&j| !has_started[j as usize]);
            // Jobs are numbered in submission order.
            let first = self.queue.front().copied().unwrap_or(u32::MAX);
            self.out.backfilled += self.started.iter().filter(|&&j| j > first).count() as u64;
        }
    }
}

/// The jobs of `records` as sitesim replays them under `overrun`: under `kill` each is
/// cut at its estimate, under `extend` each estimate is raised to the runtime, and under
/// `overrun` each runs its full runtime past the estimate the scheduler keeps (the
/// reservation then takes it to end a second from now: [`Lean::reservation`]); and how
/// many are killed. Every record must know its processors, runtime and requested time,
/// so that no questionable-job policy applies.
pub fn jobs_of(records: &[Located], overrun: OverrunPolicy) -> (Vec<Job>, u64) {
    let mut killed = 0;
    let jobs = records
        .iter()
        .map(|l| {
            let r = &l.record;
            assert!(r.alloc_procs > 0 && r.run >= 0 && r.req_time > 0, "{r:?}");
            let (run, estimate) = match overrun {
                OverrunPolicy::Kill => {
                    killed += u64::from(r.run > r.req_time);
                    (r.run.min(r.req_time), r.req_time)
                }
                OverrunPolicy::Extend => (r.run, r.req_time.max(r.run)),
                OverrunPolicy::Overrun => (r.run, r.req_time),
            };
            Job {
                submit: r.submit,
                size: r.alloc_procs as u32,
                run,
                estimate,
            }
        })
        .collect();
    (jobs, killed)
}
