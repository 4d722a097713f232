//! Replay with feedback on the KTH log (`../shared/workloads`; skipped when missing,
//! except under CI): the validation claims of `docs/VALIDATION.md`, "Replay with
//! feedback", as tests.

mod common;

use std::path::{Path, PathBuf};

use common::{Collect, shared_log, users_of};
use sitesim::commands::feedback::{FeedbackOptions, FeedbackSummary, feedback};
use sitesim::commands::options::ContinuationSource;
use sitesim::commands::options::{Reaction, UserOptions};
use sitesim::commands::replay::{ReplayOptions, ReplaySummary, replay};
use sitesim::job::OverrunPolicy;
use sitesim::sched::Policy;
use sitesim::sim::{Simulation, SiteConfig};
use sitesim::swf::{LogSource, SwfReader};
use sitesim::users::TraceUsers;
use sitesim::workload::questionable::Policies;
use sitesim::workload::trace::{MissingWaits, Trace, TraceConfig};
use sitesim::workload::{LogReplay, ReplayConfig};

fn run_feedback(
    path: &Path,
    policy: Policy,
    procs: Option<u32>,
    out: Option<PathBuf>,
) -> FeedbackSummary {
    run_feedback_with(path, policy, procs, out, ContinuationSource::Fit)
}

/// [`run_feedback`] with users reacting to service by `continuation`.
fn run_feedback_with(
    path: &Path,
    policy: Policy,
    procs: Option<u32>,
    out: Option<PathBuf>,
    continuation: ContinuationSource,
) -> FeedbackSummary {
    let opts = FeedbackOptions {
        users: UserOptions {
            reaction: Reaction {
                continuation,
                ..Reaction::default()
            },
            ..UserOptions::default()
        },
        run: ReplayOptions {
            policy: policy.into(),
            procs,
            out,
            check: false,
            ..ReplayOptions::default()
        },
    };
    feedback(&LogSource::file(path).unwrap(), &opts).expect("the feedback replay runs")
}

fn run_replay(path: &Path, policy: Policy, out: Option<PathBuf>) -> ReplaySummary {
    let opts = ReplayOptions {
        policy: policy.into(),
        out,
        check: false,
        ..ReplayOptions::default()
    };
    replay(&LogSource::file(path).unwrap(), &opts).expect("the replay runs")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sitesim-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// `(job, submit, start)` of every row of a `jobs.csv`, by job number.
fn times(csv: &Path) -> Vec<(i64, i64, i64)> {
    let text = std::fs::read_to_string(csv).expect("jobs.csv");
    let mut rows: Vec<(i64, i64, i64)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<i64> = l.split(',').take(6).map(|v| v.parse().unwrap()).collect();
            (f[0], f[3], f[5])
        })
        .collect();
    rows.sort_unstable();
    rows
}

fn kth_trace() -> Option<(Trace, u32)> {
    let kth = shared_log("KTH-SP2-1996-2.swf")?;
    let reader = SwfReader::open(&kth).unwrap();
    let mut log = LogReplay::new(
        reader,
        "kth",
        ReplayConfig {
            procs: 100,
            policies: Policies::default(),
            interarrival_factor: 1.0,
            max_runtime: None,
            keep_records: false,
        },
    );
    Some((
        Trace::read(&mut log, TraceConfig::default(), MissingWaits::Refuse).unwrap(),
        100,
    ))
}

/// A log a policy produced, replayed with feedback under that policy, comes out exactly
/// as it went in: on a machine that does what the log says, users do what the log says.
#[test]
fn kth_schedule_fed_back_to_its_own_policy_is_reproduced() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let dir = scratch("fixed-point");
    run_replay(&kth, Policy::Easy, Some(dir.join("open")));
    let produced = dir.join("open/schedule.swf");
    let s = run_feedback(&produced, Policy::Easy, None, Some(dir.join("fed")));
    assert_eq!(
        times(&dir.join("fed/jobs.csv")),
        times(&dir.join("open/jobs.csv"))
    );
    let j = s.population.jobs;
    assert_eq!((j.flowed_forward, j.after_own_window), (0, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// KTH ran EASY: with feedback and users who do not react to service, EASY keeps the
/// log's weekly throughput and its calendar (EASY is faster than the log's machine:
/// most jobs come early, none more than a week late); under FCFS users fall days behind
/// and sessions take longer; a larger machine finishes the log sooner. With reactions
/// (the default), users go on more often than they give up under EASY and give up more
/// under FCFS, and the extra work is the log's own: no job is added.
#[test]
fn kth_throughput_follows_the_machine() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let off = |policy, procs| run_feedback_with(&kth, policy, procs, None, ContinuationSource::Off);
    let easy = off(Policy::Easy, None);
    let t = easy.span_throughput;
    assert_eq!(t.log_jobs, 28_486);
    assert!(
        (t.jobs_per_week - t.log_jobs_per_week).abs() < 0.02 * t.log_jobs_per_week,
        "EASY {} jobs/week vs the log's {}",
        t.jobs_per_week,
        t.log_jobs_per_week
    );
    let late = easy.population.lateness;
    assert!(late.median <= 0 && late.p99 < 7 * 86_400, "{late:?}");
    let fcfs = off(Policy::Fcfs, None);
    let fcfs_late = fcfs.population.lateness;
    assert!(fcfs_late.median > 86_400, "{fcfs_late:?}");
    assert!(fcfs.sessions.duration.mean > 1.2 * easy.sessions.duration.mean);
    assert!(fcfs.run.metrics.makespan > easy.run.metrics.makespan);
    let big = off(Policy::Easy, Some(150));
    let bigger = off(Policy::Easy, Some(200));
    assert!(big.span_throughput.jobs >= t.jobs);
    assert!(bigger.span_throughput.jobs >= big.span_throughput.jobs);
    assert!(big.run.metrics.makespan <= easy.run.metrics.makespan);
    assert!(bigger.sessions.duration.mean < big.sessions.duration.mean);
    assert!(big.sessions.duration.mean < easy.sessions.duration.mean);
    assert!(big.population.lateness.p99 < late.p99);
    // Reacting users.
    let reacting = run_feedback(&kth, Policy::Easy, None, None);
    let j = reacting.population.jobs;
    assert!(reacting.run.metrics.jobs.wait.mean < easy.run.metrics.jobs.wait.mean * 1.1);
    assert!(j.extended > j.gave_up, "{j:?}");
    assert_eq!(j.submitted, reacting.population.trace_jobs);
    assert!(reacting.population.lateness.median < easy.population.lateness.median);
    let fcfs_reacting = run_feedback(&kth, Policy::Fcfs, None, None).population.jobs;
    assert!(fcfs_reacting.gave_up > j.gave_up, "{fcfs_reacting:?}");
}

/// Feitelson 2021, Fig. 8: the log users generate under EASY, replayed open-loop under FCFS,
/// overloads FCFS (waits that keep growing, longer than the log's own under FCFS); the
/// log generated under FCFS gives EASY no more throughput (the same jobs at the same
/// times: the same utilization).
#[test]
fn kth_cross_simulation() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let dir = scratch("cross");
    // The workloads of users who do not react: what Feitelson 2021, Fig. 8 compares.
    let off = ContinuationSource::Off;
    run_feedback_with(
        &kth,
        Policy::Easy,
        None,
        Some(dir.join("easy")),
        off.clone(),
    );
    run_feedback_with(&kth, Policy::Fcfs, None, Some(dir.join("fcfs")), off);
    let easy_log = dir.join("easy/schedule.swf");
    let fcfs_log = dir.join("fcfs/schedule.swf");
    let on_fcfs = run_replay(&easy_log, Policy::Fcfs, Some(dir.join("easy-on-fcfs")));
    let on_easy = run_replay(&easy_log, Policy::Easy, None);
    let log_on_fcfs = run_replay(&kth, Policy::Fcfs, None);
    assert!(on_fcfs.metrics.jobs.wait.mean > log_on_fcfs.metrics.jobs.wait.mean);
    assert!(on_fcfs.metrics.jobs.wait.mean > 50.0 * on_easy.metrics.jobs.wait.mean);
    // The waits grow through the log (the queue does not drain until the log's
    // submissions thin out): the second and third quarters of submissions wait a fifth
    // longer than the first at least (1.50 and 1.34 times, measured; 110 h in the first).
    let rows = times(&dir.join("easy-on-fcfs/jobs.csv"));
    let mut by_submit: Vec<(i64, i64)> = rows.iter().map(|&(_, s, st)| (s, st - s)).collect();
    by_submit.sort_unstable();
    let q = by_submit.len() / 4;
    let mean =
        |part: &[(i64, i64)]| part.iter().map(|p| p.1 as f64).sum::<f64>() / part.len() as f64;
    assert!(mean(&by_submit[q..2 * q]) > 1.2 * mean(&by_submit[..q]));
    assert!(mean(&by_submit[2 * q..3 * q]) > 1.2 * mean(&by_submit[..q]));
    let fcfs_on_easy = run_replay(&fcfs_log, Policy::Easy, None);
    let fcfs_on_fcfs = run_replay(&fcfs_log, Policy::Fcfs, None);
    assert!((fcfs_on_easy.metrics.utilization - fcfs_on_fcfs.metrics.utilization).abs() < 1e-3);
    assert_eq!(fcfs_on_easy.metrics.makespan, fcfs_on_fcfs.metrics.makespan);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same scenario gives byte-identical files.
#[test]
fn kth_feedback_outputs_are_deterministic() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let dir = scratch("determinism");
    run_feedback(&kth, Policy::Easy, None, Some(dir.join("a")));
    run_feedback(&kth, Policy::Easy, None, Some(dir.join("b")));
    for f in [
        "summary.json",
        "jobs.csv",
        "schedule.swf",
        "users.csv",
        "sessions.csv",
        "cycles.csv",
    ] {
        let a = std::fs::read(dir.join("a").join(f)).unwrap();
        let b = std::fs::read(dir.join("b").join(f)).unwrap();
        assert!(a == b, "{f} differs between two runs");
        assert!(!a.is_empty(), "{f} is empty");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A machine that never finishes a job receives exactly the jobs that depend on no
/// termination; an instant machine never makes a user later than the log.
#[test]
fn kth_users_on_machines_that_never_or_instantly_finish() {
    let Some((trace, _)) = kth_trace() else {
        return;
    };
    let cfg = TraceConfig::default();
    let independent: usize = trace
        .users
        .iter()
        .map(|u| u.jobs.iter().take_while(|j| j.dep_think.is_none()).count())
        .sum();
    let site = SiteConfig {
        procs: 1 << 20,
        overrun: OverrunPolicy::Kill,
        check: false,
    };
    let mut never = trace.clone();
    for j in never.users.iter_mut().flat_map(|u| &mut u.jobs) {
        j.spec.runtime = 1 << 40;
        j.spec.estimate = 1 << 40;
    }
    let horizon = never.span.1 + 365 * 86_400;
    let sim = Simulation::new(
        site,
        Policy::Fcfs.build(site.procs),
        TraceUsers::new(never, users_of(&cfg), 1),
        Collect::default(),
    );
    let (_, _, counts) = sim.run(Some(horizon)).unwrap();
    assert_eq!(counts.submitted as usize, independent);
    assert!(independent >= trace.users.len() && independent < trace.jobs());

    let mut instant = trace.clone();
    let logged: std::collections::HashMap<i64, i64> = instant
        .users
        .iter()
        .flat_map(|u| &u.jobs)
        .map(|j| (j.spec.job, j.submit))
        .collect();
    for j in instant.users.iter_mut().flat_map(|u| &mut u.jobs) {
        j.spec.runtime = 0;
    }
    let sim = Simulation::new(
        site,
        Policy::Fcfs.build(site.procs),
        TraceUsers::new(instant, users_of(&cfg), 1),
        Collect::default(),
    );
    let (_, Collect(jobs), _) = sim.run(None).unwrap();
    assert_eq!(jobs.len(), trace.jobs());
    assert!(
        jobs.iter()
            .all(|j| j.wait() == 0 && j.submit <= logged[&j.job])
    );
    assert!(jobs.iter().any(|j| j.submit < logged[&j.job]));
}
