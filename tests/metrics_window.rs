//! The measurement window: warm-up and cool-down exclusion, exact utilization over the
//! window, throughput, and the weekly series, on a case worked out by hand.

mod common;

use common::job;
use sitesim::commands::replay::{ReplayOptions, ReplaySummary, replay};
use sitesim::metrics::{Bsld, BsldForm};
use sitesim::sched::Policy;
use sitesim::swf::LogSource;

/// Replays `swf` on one processor with `opts`.
fn replay_text(swf: &str, opts: ReplayOptions) -> Result<ReplaySummary, String> {
    let opts = ReplayOptions {
        procs: Some(1),
        check: true,
        ..opts
    };
    let source = LogSource::text(swf.as_bytes(), "w.swf").map_err(|e| e.to_string())?;
    replay(&source, &opts).map_err(|e| e.to_string())
}

/// One processor; four 10-second jobs submitted at 0, 100, 200 and 300.
fn four_jobs(warmup: i64, cooldown: i64) -> ReplaySummary {
    let swf = [
        job(1, 0, 10, 1, 10),
        job(2, 100, 10, 1, 10),
        job(3, 200, 10, 1, 10),
        job(4, 300, 10, 1, 10),
    ]
    .concat();
    let opts = ReplayOptions {
        policy: Policy::Fcfs.into(),
        warmup,
        cooldown,
        ..ReplayOptions::default()
    };
    replay_text(&swf, opts).unwrap()
}

#[test]
fn whole_run_without_exclusion() {
    let m = four_jobs(0, 0).metrics;
    assert_eq!((m.window.start, m.window.end), (0, 310));
    assert_eq!(m.jobs.jobs, 4);
    assert_eq!(m.makespan, 310);
    assert!((m.utilization - 40.0 / 310.0).abs() < 1e-12);
    assert!((m.offered_load - 40.0 / 300.0).abs() < 1e-12);
    assert_eq!(m.throughput.jobs, 4);
    assert!((m.throughput.jobs_per_day - 4.0 * 86_400.0 / 310.0).abs() < 1e-9);
    assert!((m.throughput.proc_hours - 40.0 / 3600.0).abs() < 1e-12);
}

/// Warm-up 50 s and cool-down 50 s: the window is [50, 250]; jobs submitted in it (at 100
/// and 200) are measured; 20 busy processor-seconds over 200 seconds of one processor.
#[test]
fn warmup_and_cooldown_cut_the_window() {
    let m = four_jobs(50, 50).metrics;
    assert_eq!((m.window.start, m.window.end), (50, 250));
    assert_eq!(m.jobs.jobs, 2);
    assert!((m.utilization - 0.1).abs() < 1e-12);
    assert_eq!(m.throughput.jobs, 2);
    assert!((m.throughput.jobs_per_day - 2.0 * 86_400.0 / 200.0).abs() < 1e-9);
    // The window cuts through no job here; move it to cut one in half: [105, 205].
    let m = four_jobs(105, 95).metrics;
    assert_eq!((m.window.start, m.window.end), (105, 205));
    assert!(
        (m.utilization - 10.0 / 100.0).abs() < 1e-12,
        "{}",
        m.utilization
    );
    assert_eq!(m.jobs.jobs, 1);
}

#[test]
fn a_window_left_empty_is_an_error() {
    let swf = [job(1, 0, 10, 1, 10), job(2, 100, 10, 1, 10)].concat();
    let opts = ReplayOptions {
        warmup: 60,
        cooldown: 60,
        ..ReplayOptions::default()
    };
    let err = replay_text(&swf, opts).unwrap_err();
    assert!(err.contains("leave no measurement window"), "{err}");
}

/// Weekly series count every job by the week it ended, and bounded slowdown follows the
/// chosen form.
#[test]
fn weekly_series_and_bsld_forms() {
    let week = 7 * 86_400;
    let swf = [
        job(1, 0, 5, 1, 5),
        job(2, week + 10, 5, 1, 5),
        job(3, week + 10, 5, 1, 5),
    ]
    .concat();
    let run = |form| {
        let bsld = Bsld {
            form,
            threshold: 10,
        };
        let opts = ReplayOptions {
            bsld,
            ..ReplayOptions::default()
        };
        replay_text(&swf, opts).unwrap().metrics
    };
    let m = run(BsldForm::Clamped);
    let weeks: Vec<_> = m.weekly.iter().map(|w| (w.week, w.jobs)).collect();
    assert_eq!(weeks, [(0, 1), (1, 2)]);
    // Jobs 1 and 2 do not wait: (0 + 5) / 10 = 0.5, clamped to 1; job 3 waits 5 s: 1.0.
    assert_eq!(m.jobs.bounded_slowdown.mean, 1.0);
    let m = run(BsldForm::Unclamped);
    assert!((m.jobs.bounded_slowdown.mean - (0.5 + 0.5 + 1.0) / 3.0).abs() < 1e-12);
}
