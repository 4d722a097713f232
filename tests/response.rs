//! The closed loop's response to the service on the real logs in `../shared/workloads`
//! (skipped when missing, except under CI; docs/VALIDATION.md, "The response to the
//! service" and "Saturation"): users make up time by the rules they lose it, so a better
//! service than the log's adds work as a worse one takes it away; and under many added
//! users the loop settles, users leaving and being replaced.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use common::shared_log;
use sitesim::commands::feedback::{FeedbackOptions, feedback};
use sitesim::commands::replay::ReplayOptions;
use sitesim::commands::resample::{ResampleOptions, Resampler};
use sitesim::results::metric::{MetricStats, Replication};
use sitesim::swf::LogSource;
use sitesim::time::WEEK;
use sitesim::users::pools::PoolConfig;
use sitesim::users::population::PopulationConfig;

/// KTH and the Curie sample: the shared logs that name their users and record their
/// waits, each with the replications and measured weeks it is resampled for. KTH for a
/// year; the 23-day Curie sample for half a year: its long-term users come back every
/// three weeks or so, a whole number of weeks later, so that over a few weeks its
/// throughput steps with when they come back (its response to a service twice as fast,
/// over 4, 6, 10, 16 and 26 weeks: +185, +46, +61, +63, +98 jobs a week).
fn logs_with_waits() -> Vec<(PathBuf, u32, u32)> {
    ["KTH-SP2-1996-2.swf", "CEA-Curie-sample.swf"]
        .iter()
        .filter_map(|name| shared_log(name))
        .map(|p| {
            let (replications, weeks) = if p.ends_with("KTH-SP2-1996-2.swf") {
                (12, 52)
            } else {
                (8, 26)
            };
            (p, replications, weeks)
        })
        .collect()
}

/// Resampled at `population` times the log's users, `replications` populations of
/// `weeks` measured weeks after a warm-up of `warmup` weeks, under `policy` on `procs`
/// processors (the log's by default), with common random numbers (seed 5).
fn resampled(
    log: &Path,
    policy: &str,
    procs: Option<u32>,
    (population, replications, warmup, weeks): (f64, u32, i64, u32),
) -> Vec<Replication> {
    resampled_with(
        log,
        policy,
        procs,
        (population, replications, warmup, weeks),
        false,
    )
}

/// As [`resampled`], with feedback or, `open_loop`, without (users submit at their
/// logged times, shifted).
fn resampled_with(
    log: &Path,
    policy: &str,
    procs: Option<u32>,
    (population, replications, warmup, weeks): (f64, u32, i64, u32),
    open_loop: bool,
) -> Vec<Replication> {
    let opts = ResampleOptions {
        users: FeedbackOptions {
            run: ReplayOptions {
                policy: policy.parse().unwrap(),
                procs,
                check: false,
                warmup: warmup * WEEK,
                cooldown: WEEK,
                seed: 5,
                ..ReplayOptions::default()
            },
            ..FeedbackOptions::default()
        },
        pools: PoolConfig::default(),
        population: PopulationConfig {
            long_term: population,
            temporary: population,
            ..PopulationConfig::default()
        },
        weeks,
        replications,
        threads: None,
        open_loop,
        out: None,
    };
    let r = Resampler::new(&LogSource::file(log).unwrap(), &opts).unwrap();
    let stop = AtomicBool::new(false);
    r.replications(
        &opts,
        &opts.users.run.policy,
        &opts.population,
        replications,
        &stop,
        &|| {},
    )
    .unwrap()
}

/// The paired differences `a - b`, replication by replication, of `f`.
fn paired(a: &[Replication], b: &[Replication], f: fn(&Replication) -> f64) -> MetricStats {
    let d: Vec<f64> = a.iter().zip(b).map(|(a, b)| f(a) - f(b)).collect();
    MetricStats::of("difference", &d)
}

const JOBS: fn(&Replication) -> f64 = |r| r.jobs_per_week;
const WORK: fn(&Replication) -> f64 = |r| r.proc_hours_per_week;

/// Under the log's own service with every wait halved (`logged:scale=0.5`) users gain at
/// least half of what they lose with every wait doubled, in jobs and in processor-hours
/// per week, on every log with waits: the response is smooth through the log's point
/// (the measured curve: docs/VALIDATION.md, "The response to the service").
#[test]
fn halving_the_waits_gains_at_least_half_what_doubling_them_loses() {
    for (log, replications, weeks) in logs_with_waits() {
        let name = log.display();
        let run = |scale: &str| {
            resampled(
                &log,
                &format!("logged:scale={scale}"),
                None,
                (1.0, replications, 4, weeks),
            )
        };
        let (half, own, double) = (run("0.5"), run("1"), run("2"));
        for (what, f) in [("jobs", JOBS), ("processor-hours", WORK)] {
            let gain = paired(&half, &own, f);
            let loss = paired(&own, &double, f);
            assert!(
                gain.mean > 0.0 && gain.mean >= 0.5 * loss.mean,
                "{name}: {what} per week gained at 0.5: {} ± {}, lost at 2: {} ± {}",
                gain.mean,
                gain.ci95,
                loss.mean,
                loss.ci95
            );
        }
    }
}

/// KTH's users resampled on a machine twice the log's size do more work than on the
/// log's own, under EASY: the paired 95% interval of the difference lies above zero, in
/// processor-hours and in jobs per week.
#[test]
fn a_machine_twice_as_large_lets_the_users_do_more() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let size = (1.0, 12, 4, 52);
    let (own, twice) = (
        resampled(&kth, "easy", None, size),
        resampled(&kth, "easy", Some(200), size),
    );
    for (what, f) in [("jobs", JOBS), ("processor-hours", WORK)] {
        let d = paired(&twice, &own, f);
        assert!(
            d.mean - d.ci95 > 0.0,
            "{what} per week: {} ± {}",
            d.mean,
            d.ci95
        );
    }
}

/// Five times KTH's users under EASY for two years: in the second the weekly queue has
/// no trend (the 95% interval of its slope holds 0, or lies under half a job a week),
/// the machine stays below capacity, and users have left and been replaced.
#[test]
fn under_five_times_the_users_the_loop_settles() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let reps = resampled(&kth, "easy", None, (5.0, 16, 52, 52));
    let of = |f: fn(&Replication) -> f64| {
        MetricStats::of("figure", &reps.iter().map(f).collect::<Vec<f64>>())
    };
    let trend = of(|r| r.queue_trend);
    assert!(
        trend.mean - trend.ci95 <= 0.0 || trend.mean + trend.ci95 < 0.5,
        "the queue grows: {} ± {} jobs a week",
        trend.mean,
        trend.ci95
    );
    let utilization = of(|r| r.utilization);
    assert!(utilization.max < 0.999, "{utilization:?}");
    assert!(reps.iter().all(|r| r.frustrated > 0 && r.replaced > 0));
    // Under the log's own service nobody leaves, and a service twice as slow drives no
    // user away: no job waits longer than the log's service gave it by more than the
    // longest wait of the log.
    for policy in ["logged", "logged:scale=2"] {
        let reps = resampled(&kth, policy, None, (1.0, 4, 4, 52));
        assert!(reps.iter().all(|r| r.frustrated == 0), "{policy}");
    }
    // Without feedback users submit at their logged times whatever the service, so
    // nobody leaves, even under FCFS, whose waits run to weeks.
    let reps = resampled_with(&kth, "fcfs", None, (1.0, 4, 4, 52), true);
    assert!(reps.iter().all(|r| r.frustrated == 0));
    assert!(reps.iter().any(|r| r.mean_wait > 86_400.0));
}

/// A feedback replay leads with what tells services apart on a finite trace: under FCFS
/// KTH's users get less of the log's work done by its last submission than under EASY,
/// their jobs come later and more of them finish late; under the log's own service, all
/// of it, on time.
#[test]
fn a_feedback_replay_tells_services_apart_by_the_work_done_in_the_span() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let run = |policy: &str| {
        let opts = FeedbackOptions {
            run: ReplayOptions {
                policy: policy.parse().unwrap(),
                check: false,
                ..ReplayOptions::default()
            },
            ..FeedbackOptions::default()
        };
        feedback(&LogSource::file(&kth).unwrap(), &opts).unwrap()
    };
    let (own, easy, fcfs) = (run("logged"), run("easy"), run("fcfs"));
    let t = &own.span_throughput;
    assert_eq!(t.work_share, t.log_work_share);
    assert_eq!(own.population.finished_late, 0);
    assert!(fcfs.span_throughput.work_share < easy.span_throughput.work_share);
    assert!(fcfs.population.lateness.median > easy.population.lateness.median);
    assert!(fcfs.population.finished_late > 4 * easy.population.finished_late);
}
