//! The shadow simulation of PBAS (seed 004 §7.3): a candidate policy replayed in the
//! background over the last switch period, from the real machine state at the start of
//! the period, to measure how it would have done.
//!
//! The shadow is a compact copy of the site simulation (`crate::sim`): the same rounds
//! (at each time, ends, then arrivals, then one scheduling pass, again at the same time
//! if a job of zero runtime ended), the same extra passes a policy asks for with
//! [`Scheduler::wake_at`]. What it cannot know it takes as follows:
//!
//! * a job that really ended runs its real runtime;
//! * a job still running at the end of the period really runs at least until one second
//!   past it, so it runs `max(plan, end of period − real start + 1)`;
//! * any other job (still waiting at the end of the period) runs its plan.
//!
//! Every job gets a fresh id (0, 1, 2, ... in the order running, waiting, arrivals), since
//! the site reuses the id of an ended job for a later arrival, and a policy (conservative
//! backfilling) indexes its tables by id. Plans are those each job had when it entered
//! the period (at the snapshot or on arrival): prediction updates are not replayed.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use rustc_hash::FxHashMap;

use super::{RunningJob, Scheduler, SystemView, UserTable};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// The machine state at the start of a switch period, copied from a view.
#[derive(Debug, Clone)]
pub(super) struct Snapshot {
    /// When it was taken.
    pub(super) time: Time,
    queue: Vec<JobRequest>,
    running: Vec<RunningJob>,
    users: UserTable,
}

impl Snapshot {
    /// An empty machine at `time`.
    pub(super) fn empty(time: Time) -> Self {
        Snapshot {
            time,
            queue: Vec::new(),
            running: Vec::new(),
            users: UserTable::new(),
        }
    }

    /// The state `view` shows.
    pub(super) fn of(view: &SystemView<'_>) -> Self {
        Snapshot {
            time: view.now,
            queue: view.queue().iter().copied().collect(),
            running: view.running().to_vec(),
            users: view.users().clone(),
        }
    }
}

/// What is known at the end of a period about how long jobs run.
#[derive(Debug, Clone)]
pub(super) struct KnownRuntimes<'a> {
    /// The real runtime of every job that ended, by submission number.
    ended: &'a FxHashMap<u64, Time>,
    /// The real start of every job running at the end of the period, by submission number.
    running: FxHashMap<u64, Time>,
    /// The end of the period.
    at: Time,
}

impl<'a> KnownRuntimes<'a> {
    /// The runtimes of the jobs in `ended`, and the starts of those running in `view` (at
    /// the end of the period).
    pub(super) fn new(ended: &'a FxHashMap<u64, Time>, view: &SystemView<'_>) -> Self {
        KnownRuntimes {
            ended,
            running: view
                .running()
                .iter()
                .map(|j| (j.request.seq, j.start))
                .collect(),
            at: view.now,
        }
    }

    /// The runtime `job` is given in the shadow.
    fn of(&self, job: &JobRequest) -> Time {
        if let Some(&run) = self.ended.get(&job.seq) {
            return run;
        }
        match self.running.get(&job.seq) {
            Some(&start) => job.plan.max(self.at - start + 1),
            None => job.plan,
        }
    }
}

/// One job's fate in a shadow run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ShadowJob {
    /// Submission number.
    pub(super) seq: u64,
    /// Submit time.
    pub(super) submit: Time,
    /// Processors.
    pub(super) size: u32,
    /// When it started (before the period for jobs running at the snapshot), if it did.
    pub(super) start: Option<Time>,
    /// Start plus the runtime it was given; past the period if it was still running then.
    pub(super) end: Option<Time>,
}

/// The outcome of a shadow run over `[from, until]`.
#[derive(Debug, Clone)]
pub(super) struct ShadowRun {
    /// The start of the period (the snapshot).
    pub(super) from: Time,
    /// Its end.
    pub(super) until: Time,
    /// Processors of the machine.
    pub(super) procs: u32,
    /// The jobs running at the snapshot come first, then those waiting, then the arrivals.
    pub(super) jobs: Vec<ShadowJob>,
    /// How many jobs were running at the snapshot.
    pub(super) already_running: usize,
}

impl ShadowRun {
    /// Jobs that were waiting at the snapshot or arrived during the period.
    pub(super) fn scheduled(&self) -> &[ShadowJob] {
        &self.jobs[self.already_running..]
    }

    /// Jobs that ended during the period, whenever they started.
    pub(super) fn ended(&self) -> impl Iterator<Item = &ShadowJob> {
        self.jobs
            .iter()
            .filter(|j| j.end.is_some_and(|e| e <= self.until))
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    request: JobRequest,
    runtime: Time,
    start: Option<Time>,
    /// Whether it is in the queue.
    waiting: bool,
    /// Index in `running` while it runs.
    index: usize,
}

/// The shadow machine.
struct Shadow {
    procs: u32,
    free: u32,
    slots: Vec<Slot>,
    queue: VecDeque<JobRequest>,
    running: Vec<RunningJob>,
    users: UserTable,
    /// End events: `(time, order pushed, id)`.
    ends: BinaryHeap<Reverse<(Time, u64, JobId)>>,
    pushed: u64,
    /// Passes the policy asked for, and the latest one asked for.
    passes: BTreeSet<Time>,
    pending_pass: Option<Time>,
    starts: Vec<JobId>,
}

macro_rules! view {
    ($s:expr, $now:expr) => {
        SystemView::new($now, $s.procs, $s.free, &$s.queue, &$s.running, &$s.users)
    };
}

impl Shadow {
    fn push_end(&mut self, id: JobId, end: Time) {
        self.ends.push(Reverse((end, self.pushed, id)));
        self.pushed += 1;
    }

    fn end(&mut self, id: JobId, now: Time, scheduler: &mut dyn Scheduler) {
        let index = self.slots[id as usize].index;
        let job = self.running.swap_remove(index);
        if let Some(moved) = self.running.get(index) {
            self.slots[moved.request.id as usize].index = index;
        }
        self.free += job.request.size;
        self.users.ended(job.request.user, now);
        scheduler.on_end(&job, &view!(self, now));
    }

    fn arrive(&mut self, job: JobRequest, now: Time, scheduler: &mut dyn Scheduler) {
        self.slots[job.id as usize].waiting = true;
        self.queue.push_back(job);
        self.users.submitted(job.user, now);
        scheduler.on_submit(&job, &view!(self, now));
    }

    /// One scheduling pass at `now`, and the pass the policy asks for next.
    fn pass(&mut self, now: Time, scheduler: &mut dyn Scheduler) {
        let mut starts = std::mem::take(&mut self.starts);
        starts.clear();
        scheduler.schedule(&view!(self, now), &mut starts);
        for &id in &starts {
            let slot = self.slots[id as usize];
            if !slot.waiting || slot.request.size > self.free {
                debug_assert!(
                    false,
                    "shadow of '{}' started job {id} wrongly",
                    scheduler.name()
                );
                continue;
            }
            self.free -= slot.request.size;
            self.users.started(slot.request.user);
            self.running.push(RunningJob {
                request: slot.request,
                start: now,
            });
            let slot = &mut self.slots[id as usize];
            slot.start = Some(now);
            slot.waiting = false;
            slot.index = self.running.len() - 1;
            let end = now + slot.runtime;
            self.push_end(id, end);
        }
        if !starts.is_empty() {
            let slots = &self.slots;
            self.queue.retain(|j| slots[j.id as usize].waiting);
        }
        self.starts = starts;
        if let Some(t) = scheduler.wake_at()
            && t > now
            && self.pending_pass.is_none_or(|p| p <= now || t < p)
        {
            self.passes.insert(t);
            self.pending_pass = Some(t);
        }
    }
}

/// Runs `scheduler` from `snapshot` to `until`, feeding it `arrivals` (in submission
/// order, submitted at or after the snapshot) at their submit times, with the runtimes
/// `known` gives. The scheduler is first synced to the snapshot ([`Scheduler::sync`]).
/// Rounds at times before `until` are played in full; at `until` itself no pass is run
/// (the real pass there belongs to the next period), but jobs ending then count as ended.
pub(super) fn simulate(
    scheduler: &mut dyn Scheduler,
    procs: u32,
    snapshot: &Snapshot,
    arrivals: &[JobRequest],
    known: &KnownRuntimes<'_>,
    until: Time,
) -> ShadowRun {
    let from = snapshot.time;
    let total = snapshot.running.len() + snapshot.queue.len() + arrivals.len();
    let mut s = Shadow {
        procs,
        free: procs,
        slots: Vec::with_capacity(total),
        queue: VecDeque::with_capacity(snapshot.queue.len()),
        running: Vec::with_capacity(snapshot.running.len()),
        users: snapshot.users.clone(),
        ends: BinaryHeap::new(),
        pushed: 0,
        passes: BTreeSet::new(),
        pending_pass: None,
        starts: Vec::new(),
    };
    let slot = |s: &mut Shadow, job: &JobRequest, start: Option<Time>| -> JobRequest {
        let request = JobRequest {
            id: s.slots.len() as JobId,
            ..*job
        };
        s.slots.push(Slot {
            request,
            runtime: known.of(job),
            start,
            waiting: false,
            index: 0,
        });
        request
    };
    let mut by_start: Vec<&RunningJob> = snapshot.running.iter().collect();
    by_start.sort_by_key(|j| (j.start, j.request.seq));
    for job in by_start {
        let request = slot(&mut s, &job.request, Some(job.start));
        s.slots[request.id as usize].index = s.running.len();
        s.running.push(RunningJob {
            request,
            start: job.start,
        });
        s.free -= request.size;
        let end = (job.start + s.slots[request.id as usize].runtime).max(from);
        s.push_end(request.id, end);
    }
    for job in &snapshot.queue {
        let request = slot(&mut s, job, None);
        s.slots[request.id as usize].waiting = true;
        s.queue.push_back(request);
    }
    let first_arrival = s.slots.len();
    for job in arrivals {
        debug_assert!(job.submit >= from, "an arrival before the snapshot");
        slot(&mut s, job, None);
    }

    scheduler.sync(&view!(s, from));
    let mut next_arrival = first_arrival;
    let mut now = from;
    s.pass(now, scheduler);
    loop {
        let next = [
            s.ends.peek().map(|Reverse((t, _, _))| *t),
            s.slots.get(next_arrival).map(|j| j.request.submit),
            s.passes.first().copied(),
        ]
        .into_iter()
        .flatten()
        .min();
        match next {
            Some(t) if t < until => now = t,
            _ => break,
        }
        while let Some(&Reverse((t, _, id))) = s.ends.peek()
            && t == now
        {
            s.ends.pop();
            s.end(id, now, scheduler);
        }
        while let Some(job) = s.slots.get(next_arrival).map(|j| j.request)
            && job.submit == now
        {
            next_arrival += 1;
            s.arrive(job, now, scheduler);
        }
        while s.passes.first().is_some_and(|&t| t <= now) {
            s.passes.pop_first();
        }
        s.pass(now, scheduler);
    }

    ShadowRun {
        from,
        until,
        procs,
        already_running: first_arrival - snapshot.queue.len(),
        jobs: s
            .slots
            .iter()
            .map(|j| ShadowJob {
                seq: j.request.seq,
                submit: j.request.submit,
                size: j.request.size,
                start: j.start,
                end: j.start.map(|t| t + j.runtime),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{JobOutcome, JobSpec, OverrunPolicy};
    use crate::sched::{Conservative, Easy, Fcfs};
    use crate::sim::{Observer, SimError, Simulation, SiteConfig, SourceCtx, Workload};

    /// Jobs `(submit, size, runtime, estimate)` submitted at their times, user = index % 3.
    struct Jobs(Vec<(Time, u32, Time, Time)>);

    impl Workload for Jobs {
        fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
            for (i, j) in self.0.iter().enumerate() {
                ctx.wake_at(j.0, i as u64);
            }
            Ok(())
        }
        fn on_wake(&mut self, token: u64, ctx: &mut SourceCtx) -> Result<(), SimError> {
            let (_, size, runtime, estimate) = self.0[token as usize];
            ctx.submit(JobSpec {
                size,
                runtime,
                estimate,
                user: token as i64 % 3,
                app: -1,
                job: token as i64,
                tag: token,
                record: None,
                logged_wait: None,
            });
            Ok(())
        }
    }

    /// The ended jobs and the jobs as submitted.
    #[derive(Default)]
    struct Record {
        ended: Vec<JobOutcome>,
        submitted: Vec<JobRequest>,
    }

    impl Observer for Record {
        fn on_submit(&mut self, _now: Time, job: &JobRequest) {
            self.submitted.push(*job);
        }
        fn on_end(&mut self, job: &JobOutcome) {
            self.ended.push(job.clone());
        }
    }

    /// A policy that keeps a snapshot of the state before the first of its passes at or
    /// after `at` that starts jobs, as PBAS takes one at a switch time.
    #[derive(Clone)]
    struct Capture {
        inner: Box<dyn Scheduler>,
        at: Time,
        snapshot: std::sync::Arc<std::sync::Mutex<Option<Snapshot>>>,
    }

    impl Scheduler for Capture {
        fn name(&self) -> &str {
            self.inner.name()
        }
        fn sync(&mut self, view: &SystemView<'_>) {
            self.inner.sync(view);
        }
        fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
            self.inner.on_submit(job, view);
        }
        fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
            self.inner.on_end(job, view);
        }
        fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
            let before = Snapshot::of(view);
            self.inner.schedule(view, starts);
            let mut snapshot = self.snapshot.lock().unwrap();
            if snapshot.is_none() && view.now >= self.at && !starts.is_empty() {
                *snapshot = Some(before);
            }
        }
        fn wake_at(&self) -> Option<Time> {
            self.inner.wake_at()
        }
        fn promises(&self, out: &mut Vec<(JobId, Time)>) {
            self.inner.promises(out);
        }
    }

    /// A random-looking but fixed workload on 16 processors, busy enough to backfill.
    fn workload() -> Vec<(Time, u32, Time, Time)> {
        let mut x: u64 = 12345;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut t = 0;
        (0..120)
            .map(|_| {
                t += next(40) as Time;
                let size = 1 + next(16) as u32;
                let run = next(600) as Time;
                let estimate = (run + next(400) as Time).max(1);
                (t, size, run, estimate)
            })
            .collect()
    }

    /// Runs `scheduler`; returns what happened and the snapshot taken at `snap_at`.
    fn real_run(scheduler: Box<dyn Scheduler>, snap_at: Time) -> (Record, Snapshot) {
        let site = SiteConfig {
            procs: 16,
            overrun: OverrunPolicy::Kill,
            check: true,
        };
        let capture = Capture {
            inner: scheduler,
            at: snap_at,
            snapshot: Default::default(),
        };
        let snapshot = capture.snapshot.clone();
        let sim = Simulation::new(site, Box::new(capture), Jobs(workload()), Record::default());
        let (_, mut record, _) = sim.run(None).unwrap();
        record.ended.sort_by_key(|j| j.seq);
        let snapshot = snapshot.lock().unwrap().take().unwrap();
        (record, snapshot)
    }

    /// The shadow of a policy over a window where every runtime is known reproduces the
    /// real schedule: from an empty machine for every policy, and from a snapshot taken
    /// in the middle of the run (before a pass that starts jobs) for the policies whose
    /// `sync` is exact.
    #[test]
    fn shadow_reproduces_the_real_schedule() {
        let policies: [(Box<dyn Scheduler>, bool); 4] = [
            (Box::new(Easy::new()), true),
            (Box::new(Easy::sjbf()), true),
            (Box::new(Fcfs), true),
            (Box::new(Conservative::new(16)), false),
        ];
        for (policy, mid_run) in policies {
            let name = policy.name().to_owned();
            let (real, middle) = real_run(policy.clone(), 1500);
            let ended: FxHashMap<u64, Time> = real
                .ended
                .iter()
                .map(|j| (j.seq, j.end - j.start))
                .collect();
            let until = real.ended.iter().map(|j| j.end).max().unwrap() + 1;
            let known = KnownRuntimes {
                ended: &ended,
                running: FxHashMap::default(),
                at: until,
            };
            let first = real.submitted[0].submit;
            assert!(
                !middle.running.is_empty() && !middle.queue.is_empty(),
                "{name}"
            );
            let started_then = real.ended.iter().filter(|j| j.start == middle.time).count();
            assert!(
                started_then > 0,
                "{name}: the snapshot is before a pass that starts jobs"
            );
            let snapshots = [Some(Snapshot::empty(first)), mid_run.then_some(middle)];
            for snapshot in snapshots.into_iter().flatten() {
                let arrivals: Vec<JobRequest> = real
                    .submitted
                    .iter()
                    .filter(|j| {
                        !snapshot.queue.iter().any(|q| q.seq == j.seq)
                            && !snapshot.running.iter().any(|r| r.request.seq == j.seq)
                            && j.submit >= snapshot.time
                    })
                    .copied()
                    .collect();
                assert!(!arrivals.is_empty());
                let mut s = policy.clone();
                let run = simulate(&mut *s, 16, &snapshot, &arrivals, &known, until);
                let starts: Vec<Time> = run.jobs.iter().map(|j| j.start.unwrap()).collect();
                let expected: Vec<Time> = run
                    .jobs
                    .iter()
                    .map(|j| real.ended[j.seq as usize].start)
                    .collect();
                assert_eq!(starts, expected, "{name} from {}", snapshot.time);
                assert!(run.ended().count() == run.jobs.len());
            }
        }
    }

    /// Censoring: a job still running at the end of the period runs at least one second
    /// past it; a job still waiting runs its plan; an ended job its real runtime.
    #[test]
    fn runtimes_are_censored_at_the_end_of_the_period() {
        let job = |seq: u64, plan: Time| JobRequest {
            id: 0,
            seq,
            submit: 0,
            size: 1,
            estimate: plan,
            plan,
            user: 0,
            app: -1,
            think: Time::MAX,
            logged_wait: None,
        };
        let ended: FxHashMap<u64, Time> = [(1, 7)].into_iter().collect();
        let known = KnownRuntimes {
            ended: &ended,
            running: [(2, 50)].into_iter().collect(),
            at: 100,
        };
        assert_eq!(known.of(&job(1, 30)), 7);
        assert_eq!(
            known.of(&job(2, 30)),
            51,
            "ran 50 s and is still running at 100"
        );
        assert_eq!(known.of(&job(2, 80)), 80);
        assert_eq!(known.of(&job(3, 30)), 30);
    }
}
