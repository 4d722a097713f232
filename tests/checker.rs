//! The invariant checker over every registered policy, every overrun policy and every
//! shared log in `../shared/workloads`. Under CI (`CI=true`) a missing
//! log fails the test with a clear message; elsewhere these tests are skipped.
//!
//! Each case replays a log as `sitesim replay --check` does (the machine and clock of the
//! log's header, its estimates, default questionable-job policies) and an [`Audit`]
//! observer checks, independently of the simulation's own checker, that every job read is
//! simulated or skipped, is submitted once, starts once, no earlier than its submission,
//! and ends once, no earlier than its start; that the processors in use never exceed the
//! machine; and that the end follows the overrun policy (killed at the estimate under
//! `kill`, the whole runtime otherwise).
//!
//! What is covered: the full cross product of [`POLICIES`] (17 configurations: every
//! registered policy with its defaults (per-user limits need one: 4 jobs), and EASY,
//! SJBF and PBAS with predictors) × the 3 overrun policies × the whole of each of the 3
//! logs, 153 runs, one test per log so that they run in parallel (about 4 minutes of CPU
//! in a debug build, 2.7 minutes on 2 cores). `the_matrix_has_every_registered_policy`
//! fails when a policy joins the registry but not the matrix.

mod common;

use std::path::Path;
use std::time::Instant;

use common::shared_log;
use sitesim::commands::replay::machine_size;
use sitesim::job::{JobOutcome, JobRequest, OverrunPolicy};
use sitesim::localtime::SiteClock;
use sitesim::predict::{PredictorDefaults, PredictorSpec};
use sitesim::registry::SchedulerSpec;
use sitesim::sched::{BuildContext, SystemView};
use sitesim::sim::{Observer, SimCounts, SimError, Simulation, SiteConfig};
use sitesim::swf::SwfReader;
use sitesim::time::Time;
use sitesim::workload::questionable::Policies;
use sitesim::workload::{LogReplay, ReplayConfig};

/// Every registered policy with its defaults, and the ones that take a predictor with
/// one (`conservative` and `logged` take none): `(policy spec, predictor)`.
const POLICIES: [(&str, Option<&str>); 17] = [
    ("fcfs", None),
    ("easy", None),
    ("easy", Some("sbh")),
    ("conservative", None),
    ("sjbf", None),
    ("sjbf", Some("sbh")),
    ("sjbf", Some("perfect")),
    ("creasy", None),
    ("logged", None),
    ("pbas", None),
    (r#"pbas:candidates=["easy","sjbf"]"#, Some("ruh")),
    ("wbas", None),
    ("time-of-day", None),
    ("flex", None),
    ("maui", None),
    ("fairshare", None),
    ("limits:jobs=4", None),
];

const OVERRUNS: [OverrunPolicy; 3] = [
    OverrunPolicy::Kill,
    OverrunPolicy::Extend,
    OverrunPolicy::Overrun,
];

/// What a job went through, by submission number.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    submit: Option<Time>,
    start: Option<Time>,
    ended: bool,
}

/// Checks every job's life and the processors in use as the run goes, independently of
/// the simulation's checker; the first violation is kept and reported after the run.
struct Audit {
    procs: i64,
    /// The machine is unbounded (the `logged` policy): no capacity check.
    unbounded: bool,
    overrun: OverrunPolicy,
    jobs: Vec<Seen>,
    busy: i64,
    max_busy: i64,
    violation: Option<String>,
}

impl Audit {
    fn new(procs: u32, unbounded: bool, overrun: OverrunPolicy) -> Self {
        Audit {
            procs: i64::from(procs),
            unbounded,
            overrun,
            jobs: Vec::new(),
            busy: 0,
            max_busy: 0,
            violation: None,
        }
    }

    fn fail(&mut self, what: String) {
        self.violation.get_or_insert(what);
    }

    fn slot(&mut self, seq: u64) -> &mut Seen {
        let i = seq as usize;
        if self.jobs.len() <= i {
            self.jobs.resize(i + 1, Seen::default());
        }
        &mut self.jobs[i]
    }
}

impl Observer for Audit {
    fn on_submit(&mut self, now: Time, job: &JobRequest) {
        let seen = *self.slot(job.seq);
        if seen.submit.is_some() {
            self.fail(format!("job {} submitted twice", job.seq));
        }
        if job.submit != now {
            self.fail(format!(
                "job {} submitted at {now}, not {}",
                job.seq, job.submit
            ));
        }
        self.slot(job.seq).submit = Some(now);
    }

    fn on_start(&mut self, now: Time, job: &JobRequest) {
        let seen = *self.slot(job.seq);
        match seen.submit {
            None => self.fail(format!("job {} started unsubmitted", job.seq)),
            Some(s) if now < s => self.fail(format!("job {} started at {now} < {s}", job.seq)),
            _ => {}
        }
        if seen.start.is_some() {
            self.fail(format!("job {} started twice", job.seq));
        }
        if self.unbounded && Some(now) != job.logged_wait.map(|w| job.submit + w) {
            self.fail(format!(
                "job {} started at {now}, not its logged start",
                job.seq
            ));
        }
        self.slot(job.seq).start = Some(now);
        self.busy += i64::from(job.size);
        self.max_busy = self.max_busy.max(self.busy);
        if !self.unbounded && self.busy > self.procs {
            self.fail(format!("{} processors busy at {now}", self.busy));
        }
    }

    fn on_end(&mut self, job: &JobOutcome) {
        let seen = *self.slot(job.seq);
        if seen.ended {
            self.fail(format!("job {} ended twice", job.seq));
        }
        if seen.start != Some(job.start) || seen.submit != Some(job.submit) {
            self.fail(format!(
                "job {}: outcome {job:?} but seen {seen:?}",
                job.seq
            ));
        }
        let runtime = job.end - job.start;
        // The log's own service runs every job its logged runtime, whatever its estimate.
        let expected = match self.overrun {
            OverrunPolicy::Kill if !self.unbounded => job.requested_runtime.min(job.estimate),
            _ => job.requested_runtime,
        };
        if runtime != expected || job.killed != (runtime < job.requested_runtime) {
            self.fail(format!(
                "job {} ran {runtime} s (killed: {}), expected {expected} s under {:?}",
                job.seq, job.killed, self.overrun
            ));
        }
        self.slot(job.seq).ended = true;
        self.busy -= i64::from(job.size);
    }

    fn on_pass(&mut self, view: &SystemView<'_>) {
        let running: i64 = view
            .running()
            .iter()
            .map(|r| i64::from(r.request.size))
            .sum();
        if running != self.busy {
            self.fail(format!(
                "{running} processors running at {}, {} by the events",
                view.now, self.busy
            ));
        }
    }
}

/// A case's result: the counters, the audit, the jobs read and skipped.
struct Outcome {
    counts: SimCounts,
    audit: Audit,
    read: u64,
    submitted: u64,
    skipped: u64,
}

/// Replays `path` under `policy` (with `predictor`) and `overrun`, with the invariant
/// checker on, as `sitesim replay --check` does.
fn replay_checked(
    path: &Path,
    policy: &str,
    predictor: Option<&str>,
    overrun: OverrunPolicy,
) -> Result<Outcome, SimError> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let reader = SwfReader::open(path).expect("the log opens");
    let header = reader.header().clone();
    let procs = machine_size(&name, &header).expect("the header gives the machine");
    let read = SwfReader::open(path).unwrap().count() as u64;
    let config = ReplayConfig {
        procs,
        policies: Policies::default(),
        interarrival_factor: 1.0,
        max_runtime: header.max_runtime,
        keep_records: false,
    };
    let workload = LogReplay::new(reader, &name, config);
    let ctx = BuildContext {
        procs,
        clock: SiteClock::of_log(header.calendar(), None)
            .map_or_else(|_| SiteClock::utc(), |c| c.0),
    };
    let spec: SchedulerSpec = policy.parse().expect("a registered policy");
    let scheduler = spec.build(&ctx);
    let audit = Audit::new(procs, scheduler.logged_service(), overrun);
    let site = SiteConfig {
        procs,
        overrun,
        check: true,
    };
    let mut sim = Simulation::new(site, scheduler, workload, audit);
    if let Some(p) = predictor {
        let p: PredictorSpec = p.parse().expect("a known predictor");
        sim = sim.with_predictor(p.build(&PredictorDefaults::default()).unwrap())?;
    }
    let (workload, audit, counts) = sim.run(None)?;
    Ok(Outcome {
        counts,
        audit,
        read,
        submitted: workload.submitted(),
        skipped: workload.report().skipped(),
    })
}

/// Runs one case and asserts everything the audit and the counters can tell. With
/// `refused`, the case must instead fail with the error that names the missing logged
/// waits (the `logged` policy on a log without them).
fn check_case(
    path: &Path,
    policy: &str,
    predictor: Option<&str>,
    overrun: OverrunPolicy,
    refused: bool,
) {
    let what = format!(
        "{}, {policy} with predictor {predictor:?}, overrun {overrun:?}",
        path.display()
    );
    let t = Instant::now();
    let o = match replay_checked(path, policy, predictor, overrun) {
        Err(e) if refused => {
            assert!(e.to_string().contains("has no logged wait"), "{what}: {e}");
            return;
        }
        Ok(_) if refused => panic!("{what}: ran, but the log has no logged waits"),
        Ok(o) => o,
        Err(e) => panic!("{what}: {e}"),
    };
    eprintln!("{what}: {:.2} s", t.elapsed().as_secs_f64());
    if let Some(v) = &o.audit.violation {
        panic!("{what}: {v}");
    }
    let c = &o.counts;
    assert!(o.submitted > 0, "{what}: no job");
    assert_eq!(o.submitted + o.skipped, o.read, "{what}: jobs lost");
    assert_eq!(c.submitted, o.submitted, "{what}");
    assert_eq!((c.started, c.ended), (c.submitted, c.submitted), "{what}");
    let seen = &o.audit.jobs;
    assert_eq!(seen.len() as u64, c.submitted, "{what}");
    assert!(
        seen.iter().all(|s| s.submit.is_some() && s.ended),
        "{what}: a job never ended"
    );
    assert_eq!(o.audit.busy, 0, "{what}: processors left busy");
    assert!(c.passes > 0, "{what}");
    assert_eq!(
        c.checked_passes, c.passes,
        "{what}: the checker skipped passes"
    );
    if !o.audit.unbounded {
        assert!(o.audit.max_busy <= o.audit.procs, "{what}");
    }
    if overrun != OverrunPolicy::Kill {
        assert_eq!(c.killed, 0, "{what}");
    }
}

/// The cross product on one shared log; `refused` is the one policy the log cannot run
/// (`logged`, on a log without logged waits), which must be refused by name.
fn every_policy_on(log: &str, refused: Option<&str>) {
    let Some(path) = shared_log(log) else {
        return;
    };
    let t = Instant::now();
    for (policy, predictor) in POLICIES {
        for overrun in OVERRUNS {
            check_case(&path, policy, predictor, overrun, refused == Some(policy));
        }
    }
    eprintln!("{log}: {:.1} s", t.elapsed().as_secs_f64());
}

/// The registry's policies are all in [`POLICIES`]: a new one must join the matrix.
#[test]
fn the_matrix_has_every_registered_policy() {
    for (name, _) in sitesim::registry::policies() {
        assert!(
            POLICIES
                .iter()
                .any(|(p, _)| p.split(':').next() == Some(name.as_str())),
            "policy '{name}' is not in tests/checker.rs's matrix"
        );
    }
}

/// Every policy and overrun policy on the whole of KTH (28,489 jobs, 100 processors).
#[test]
fn every_policy_on_kth() {
    every_policy_on("KTH-SP2-1996-2.swf", None);
}

/// Every policy and overrun policy on the whole Curie sample (29,998 jobs, 93,312
/// processors).
#[test]
fn every_policy_on_curie() {
    every_policy_on("CEA-Curie-sample.swf", None);
}

/// Every policy and overrun policy on the whole Lublin-Feitelson log (10,000 jobs, 256
/// processors, no estimates); it has no logged waits, so `logged` refuses it.
#[test]
fn every_policy_on_lublin() {
    every_policy_on("lublin_256.swf", Some("logged"));
}
