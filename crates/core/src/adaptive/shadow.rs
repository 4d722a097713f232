//! The shadow runs of PBAS (Talby 2006, §7.3): a candidate policy replayed in the
//! background over the last switch period, from the real machine state at the start of
//! the period, to measure how it would have done.
//!
//! A shadow run is a run of the site simulation itself ([`Simulation`]), started from a
//! [`Snapshot`] of the real state ([`Simulation::from_snapshot`]): the same rounds (at
//! each time, ends, then arrivals, then one scheduling pass, again at the same time if a
//! job of zero runtime ended), the same extra passes a policy asks for with
//! [`Scheduler::wake_at`]. The arrivals of the period are resubmitted at their submit
//! times as the site saw them ([`SourceCtx::resubmit`]): with their submission numbers,
//! their think times and the plans they had when they entered the period (at the
//! snapshot or on arrival), since prediction updates are not replayed. So the shadow runs
//! without a predictor (no deadline misses) and under the `overrun` policy (a job runs
//! exactly the runtime given here, its estimate as it was). What it cannot know it takes
//! as follows:
//!
//! * a job that really ended runs its real runtime;
//! * a job still running at the end of the period really runs at least until one second
//!   past it, so it runs `max(plan, end of period − real start + 1)`;
//! * any other job (still waiting at the end of the period) runs its plan.
//!
//! Ids are the simulation's own (slots, reused as jobs end, as in the real run), not the
//! real run's: the snapshot's jobs are given new ones, and no policy decides by id.

use rustc_hash::FxHashMap;

use crate::job::{JobRequest, JobSpec, OverrunPolicy};
use crate::sched::{RunningJob, Scheduler};
use crate::sim::{Kept, Observer, SimError, Simulation, SiteConfig, Snapshot, SourceCtx, Workload};
use crate::time::Time;

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
    /// The runtimes of the jobs in `ended`, and the starts of those `running` at `at`, the
    /// end of the period.
    pub(super) fn new(ended: &'a FxHashMap<u64, Time>, running: &[RunningJob], at: Time) -> Self {
        KnownRuntimes {
            ended,
            running: running.iter().map(|j| (j.request.seq, j.start)).collect(),
            at,
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
    /// The jobs running at the snapshot come first (by start, then submission), then
    /// those waiting, then the arrivals (both in submission order).
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

/// A period prepared for its shadow runs: what every candidate's run starts from.
pub(super) struct Period<'a> {
    procs: u32,
    snapshot: Snapshot,
    /// In submission order, submitted at or after the snapshot.
    arrivals: &'a [JobRequest],
    until: Time,
    /// The jobs as every run starts with them, as in [`ShadowRun::jobs`]: the running
    /// ones with their starts and ends.
    jobs: Vec<ShadowJob>,
    /// How many jobs were running at the snapshot; from there on, in `jobs`, submission
    /// numbers grow.
    first: usize,
    /// The runtime of every job from `first` on, in the order of `jobs`.
    runtimes: Vec<Time>,
    /// The runtime of every job of the snapshot, by submission number.
    snapshot_runtimes: Vec<(u64, Time)>,
}

impl<'a> Period<'a> {
    /// The period from `snapshot` to `until` on `procs` processors, with the jobs that
    /// arrived in it, `arrivals` (in submission order, submitted at or after the
    /// snapshot), and the runtimes `known` gives.
    pub(super) fn new(
        procs: u32,
        snapshot: Snapshot,
        arrivals: &'a [JobRequest],
        known: &KnownRuntimes<'_>,
        until: Time,
    ) -> Self {
        debug_assert!(
            arrivals.first().is_none_or(|j| j.submit >= snapshot.time),
            "an arrival before the snapshot"
        );
        let mut running: Vec<(Time, &JobRequest)> = snapshot
            .running
            .iter()
            .map(|j| (j.start, &j.request))
            .collect();
        running.sort_by_key(|&(start, j)| (start, j.seq));
        let scheduled = snapshot.queue.len() + arrivals.len();
        let mut jobs = Vec::with_capacity(running.len() + scheduled);
        let mut runtimes = Vec::with_capacity(scheduled);
        let job = |request: &JobRequest, start: Option<Time>, runtime: Time| ShadowJob {
            seq: request.seq,
            submit: request.submit,
            size: request.size,
            start,
            end: start.map(|t| t + runtime),
        };
        let mut snapshot_runtimes = Vec::with_capacity(running.len() + snapshot.queue.len());
        for (start, request) in running {
            let runtime = known.of(request);
            jobs.push(job(request, Some(start), runtime));
            snapshot_runtimes.push((request.seq, runtime));
        }
        for (i, request) in snapshot.queue.iter().chain(arrivals).enumerate() {
            let runtime = known.of(request);
            jobs.push(job(request, None, runtime));
            runtimes.push(runtime);
            if i < snapshot.queue.len() {
                snapshot_runtimes.push((request.seq, runtime));
            }
        }
        snapshot_runtimes.sort_unstable_by_key(|&(seq, _)| seq);
        let first = snapshot.running.len();
        debug_assert!(jobs[first..].is_sorted_by_key(|j| j.seq));
        Period {
            procs,
            snapshot,
            arrivals,
            until,
            jobs,
            first,
            runtimes,
            snapshot_runtimes,
        }
    }

    /// The runtime of `job`, of the snapshot.
    fn snapshot_runtime(&self, job: &JobRequest) -> Time {
        let i = self
            .snapshot_runtimes
            .binary_search_by_key(&job.seq, |&(seq, _)| seq)
            .expect("a job of the snapshot");
        self.snapshot_runtimes[i].1
    }

    /// Runs `scheduler` over the period: from the snapshot (to which it is first synced,
    /// [`Scheduler::sync`], and where it makes one pass), with the arrivals resubmitted at
    /// their submit times. Rounds at times before the end of the period are played in
    /// full; at the end itself no pass is run (the real pass there belongs to the next
    /// period), but jobs ending then count as ended.
    ///
    /// `None` if the simulation fails: a policy that misbehaves (starts a job that is not
    /// waiting or does not fit, or leaves jobs waiting with nothing left to happen) gets
    /// no score.
    pub(super) fn simulate(&self, scheduler: Box<dyn Scheduler>) -> Option<ShadowRun> {
        self.simulate_from(self.snapshot.clone(), self.jobs.clone(), scheduler)
    }

    /// [`Period::simulate`] for the last run of the period, which takes the snapshot and
    /// the jobs rather than copies.
    pub(super) fn simulate_last(mut self, scheduler: Box<dyn Scheduler>) -> Option<ShadowRun> {
        let empty = Snapshot::empty(self.snapshot.time);
        let snapshot = std::mem::replace(&mut self.snapshot, empty);
        let jobs = std::mem::take(&mut self.jobs);
        self.simulate_from(snapshot, jobs, scheduler)
    }

    /// A run from `snapshot`, filling in `jobs` (the period's, as they start): the
    /// snapshot and jobs of the period are not read.
    fn simulate_from(
        &self,
        snapshot: Snapshot,
        jobs: Vec<ShadowJob>,
        scheduler: Box<dyn Scheduler>,
    ) -> Option<ShadowRun> {
        let from = snapshot.time;
        let site = SiteConfig {
            procs: self.procs,
            overrun: OverrunPolicy::Overrun,
            check: false,
        };
        let workload = Arrivals {
            jobs: self.arrivals,
            runtimes: &self.runtimes[self.runtimes.len() - self.arrivals.len()..],
            next: 0,
        };
        let alive = jobs.len();
        let starts = Starts {
            jobs,
            first: self.first,
            runtimes: &self.runtimes,
        };
        let sim = Simulation::new(site, scheduler, workload, starts)
            .reserve(alive)
            .from_snapshot(snapshot, |j| self.snapshot_runtime(j));
        let (_, starts, _) = sim.run(Some(self.until - 1)).ok()?;
        Some(ShadowRun {
            from,
            until: self.until,
            procs: self.procs,
            jobs: starts.jobs,
            already_running: self.first,
        })
    }
}

/// The period's arrivals, resubmitted at their submit times as the site saw them.
struct Arrivals<'a> {
    /// In submission order.
    jobs: &'a [JobRequest],
    /// Their runtimes.
    runtimes: &'a [Time],
    /// The next to submit.
    next: usize,
}

impl Arrivals<'_> {
    /// Asks to be woken at the next arrival's time.
    fn wake(&self, ctx: &mut SourceCtx) {
        if let Some(job) = self.jobs.get(self.next) {
            ctx.wake_at(job.submit, 0);
        }
    }
}

impl Workload for Arrivals<'_> {
    fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
        self.wake(ctx);
        Ok(())
    }

    fn on_wake(&mut self, _token: u64, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let now = ctx.now();
        while let Some(job) = self.jobs.get(self.next)
            && job.submit == now
        {
            let spec = JobSpec {
                size: job.size,
                runtime: self.runtimes[self.next],
                estimate: job.estimate,
                user: job.user,
                app: job.app,
                job: job.seq as i64,
                tag: job.seq,
                logged_wait: job.logged_wait,
                opens_session: job.opens_session,
            };
            let kept = Kept {
                seq: job.seq,
                plan: job.plan,
                think: job.think,
            };
            ctx.resubmit(spec, kept);
            self.next += 1;
        }
        self.wake(ctx);
        Ok(())
    }
}

/// Fills in the starts of the jobs scheduled in the period.
struct Starts<'a> {
    /// Every job, as in [`ShadowRun::jobs`].
    jobs: Vec<ShadowJob>,
    /// Where the scheduled jobs begin in `jobs`.
    first: usize,
    /// Their runtimes.
    runtimes: &'a [Time],
}

impl Observer for Starts<'_> {
    fn on_start(&mut self, now: Time, job: &JobRequest) {
        let scheduled = &mut self.jobs[self.first..];
        let i = scheduled
            .binary_search_by_key(&job.seq, |j| j.seq)
            .expect("a job of the period");
        scheduled[i].start = Some(now);
        scheduled[i].end = Some(now + self.runtimes[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{JobId, JobOutcome};
    use crate::sched::{Conservative, Easy, Fcfs, SystemView};

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
                logged_wait: None,
                opens_session: None,
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
                let run = Period::new(16, snapshot.clone(), &arrivals, &known, until)
                    .simulate(policy.clone())
                    .expect("the shadow runs");
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

    /// The last run of a period, which takes the snapshot, is the same as the others,
    /// which copy it; and a run that fails (a policy that starts a job that does not fit)
    /// gives no result.
    #[test]
    fn every_run_of_a_period_starts_from_the_same_state() {
        let (real, middle) = real_run(Box::new(Easy::new()), 1500);
        let ended: FxHashMap<u64, Time> = real
            .ended
            .iter()
            .map(|j| (j.seq, j.end - j.start))
            .collect();
        let until = middle.time + 2000;
        let known = KnownRuntimes {
            ended: &ended,
            running: FxHashMap::default(),
            at: until,
        };
        let arrivals: Vec<JobRequest> = real
            .submitted
            .iter()
            .filter(|j| j.submit >= middle.time && j.submit <= until)
            .filter(|j| !middle.queue.iter().any(|q| q.seq == j.seq))
            .copied()
            .collect();
        assert!(!arrivals.is_empty());
        let period = Period::new(16, middle, &arrivals, &known, until);
        let first = period.simulate(Box::new(Easy::new())).unwrap();
        let second = period.simulate(Box::new(Easy::new())).unwrap();
        assert_eq!(first.jobs, second.jobs);
        assert!(period.simulate(Box::new(Greedy)).is_none());
        let last = period.simulate_last(Box::new(Easy::new())).unwrap();
        assert_eq!(first.jobs, last.jobs);
        assert_eq!(
            (first.from, first.until, first.already_running),
            (last.from, last.until, last.already_running)
        );
    }

    /// Starts every waiting job, whether it fits or not.
    #[derive(Clone)]
    struct Greedy;

    impl Scheduler for Greedy {
        fn name(&self) -> &str {
            "greedy"
        }
        fn sync(&mut self, _view: &SystemView<'_>) {}
        fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
            starts.extend(view.queue().iter().map(|j| j.id));
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
            opens_session: None,
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
