//! Small cases whose schedules are worked out by hand, one per rule that simulators get
//! wrong (`notes/anchors-simulators.md` §3.5). Each comment gives the derivation.

mod common;

use common::{job, run, run_full, run_with, starts};
use sitesim::job::OverrunPolicy::{Extend, Kill, Overrun};
use sitesim::sched::Policy::{Conservative, Easy, Fcfs, Sjbf};

/// 10 processors. A (6 procs, ends at 100) runs; B (8) must wait: shadow 100, and at 100
/// there are 10 free, so 2 extra processors. C (2 procs, 500 s) runs past the shadow but
/// fits the extra processors: it is backfilled and uses them up. D (2 procs, 500 s) would
/// also fit the 2 free processors, but no extra ones are left, and it does not end by the
/// shadow: it waits. E (2 procs, 50 s) ends by the shadow: backfilled. B starts at 100 as
/// promised; D at 200 when B ends. An EASY that forgets to consume the extra processors
/// starts D at 3 and delays B.
#[test]
fn easy_extra_processors_are_consumed() {
    let swf = [
        job(1, 0, 100, 6, 100),
        job(2, 1, 100, 8, 100),
        job(3, 2, 500, 2, 500),
        job(4, 3, 500, 2, 500),
        job(5, 4, 50, 2, 50),
    ]
    .concat();
    let jobs = run(&swf, 10, Easy, Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 100), (3, 2), (4, 200), (5, 4)]);
    let backfilled: Vec<_> = jobs.iter().map(|j| j.backfilled).collect();
    assert_eq!(backfilled, [false, false, true, false, true]);
}

/// 10 processors. A (5 procs, estimate 1000) and X (5 procs, 500 s) start at 0. B (10)
/// waits: shadow 1000 (when A's estimate runs out). C (5 procs, 600 s) arrives at 2 and
/// cannot start (nothing free). A ends early at 100: the pass at 100 must recompute the
/// shadow, now 500 (X's end), with no extra processors, so C, which would end at 700, may
/// not backfill. B starts at 500; C at 600 when B ends. With the stale shadow (1000) C would
/// start at 100 and B at 700.
#[test]
fn easy_reservation_is_recomputed_after_an_early_end() {
    let swf = [
        job(1, 0, 100, 5, 1000),
        job(2, 0, 500, 5, 500),
        job(3, 1, 100, 10, 100),
        job(4, 2, 600, 5, 600),
    ]
    .concat();
    let jobs = run(&swf, 10, Easy, Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 0), (3, 500), (4, 600)]);
}

/// 10 processors. A (all 10, estimate 1000) ends early at 100. Reservations made at
/// arrival: B (6 procs, 200 s) at 1000, C (4 procs, 300 s) at 1000 beside it, D (10 procs,
/// 50 s) at 1300 after both, E (4 procs, 100 s) at 1200 in the 6 processors B leaves.
/// At 100 the schedule is compressed in submission order: B and C to 100, D to 400 (after
/// C), E to 300 (beside C, ending as D starts). No job moves later.
#[test]
fn conservative_compresses_in_submission_order() {
    let swf = [
        job(1, 0, 100, 10, 1000),
        job(2, 1, 200, 6, 200),
        job(3, 2, 300, 4, 300),
        job(4, 3, 50, 10, 50),
        job(5, 4, 100, 4, 100),
    ]
    .concat();
    let jobs = run(&swf, 10, Conservative, Kill);
    assert_eq!(
        starts(&jobs),
        [(1, 0), (2, 100), (3, 100), (4, 400), (5, 300)]
    );
}

/// Conservative backfilling starts a job early only if no reservation is delayed: on 10
/// processors A (6, 100 s) runs, B (8, 100 s) is reserved at 100; C (2, 500 s) would hold
/// 2 processors past 100, where B needs 8 of the 10: 2 + 8 = 10, so it still fits and starts
/// at 2; D (2, 500 s) would leave only 6 for B: reserved after B, at 200 (B ends) — there C and
/// D fit beside each other.
#[test]
fn conservative_backfills_only_without_delay() {
    let swf = [
        job(1, 0, 100, 6, 100),
        job(2, 1, 100, 8, 100),
        job(3, 2, 500, 2, 500),
        job(4, 3, 500, 2, 500),
    ]
    .concat();
    let jobs = run(&swf, 10, Conservative, Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 100), (3, 2), (4, 200)]);
}

/// FCFS never lets a job pass an earlier one: C (2 procs) would fit at 2 but waits for B.
#[test]
fn fcfs_keeps_submission_order() {
    let swf = [
        job(1, 0, 100, 6, 100),
        job(2, 1, 100, 8, 100),
        job(3, 2, 10, 2, 10),
    ]
    .concat();
    let jobs = run(&swf, 10, Fcfs, Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 100), (3, 100)]);
    assert!(jobs.iter().all(|j| !j.backfilled));
    // EASY backfills C at once.
    let jobs = run(&swf, 10, Easy, Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 100), (3, 2)]);
}

/// All events of a timestamp are applied before the one scheduling pass: B, submitted when
/// A ends, starts at once on A's processors, under every policy. C and D, submitted at the
/// same second, keep their file order.
#[test]
fn equal_timestamps() {
    let swf = [
        job(1, 0, 10, 4, 10),
        job(2, 10, 10, 4, 10),
        job(3, 30, 5, 4, 5),
        job(4, 30, 5, 4, 5),
    ]
    .concat();
    for policy in [Fcfs, Easy, Conservative] {
        let jobs = run(&swf, 4, policy, Kill);
        assert_eq!(
            starts(&jobs),
            [(1, 0), (2, 10), (3, 30), (4, 35)],
            "{policy:?}"
        );
    }
}

/// A job of zero runtime starts and ends at the same second; the processors it held are
/// free again in a second round at that second.
#[test]
fn zero_runtime_job_frees_its_processors_at_once() {
    let swf = [job(1, 0, 0, 4, 10), job(2, 0, 10, 4, 10)].concat();
    for policy in [Fcfs, Easy, Conservative] {
        let jobs = run(&swf, 4, policy, Kill);
        assert_eq!(starts(&jobs), [(1, 0), (2, 0)], "{policy:?}");
        assert_eq!(jobs[0].end, 0);
    }
}

/// 10 processors. A (6 procs) asks for 100 s and runs 150; B (10 procs, 50 s) waits for it;
/// C (4 procs, 10 s) arrives at 120.
/// * kill: A is killed at 100; B runs 100-150; C waits for B and starts at 150.
/// * extend: A's estimate is 150, so nothing overruns; B starts at 150. C, ending at 130,
///   ends before B's reservation: EASY and conservative backfill it at 120; FCFS starts it
///   after B, at 200.
/// * overrun: A runs to 150. At 120 the scheduler expects A to end any second (its expected
///   end is never in the past), so C, which would hold 4 processors past that, may not
///   start before B; B starts at 150 when A really ends, C at 200.
#[test]
fn overrunning_job_under_each_policy() {
    let swf = [
        job(1, 0, 150, 6, 100),
        job(2, 1, 50, 10, 50),
        job(3, 120, 10, 4, 10),
    ]
    .concat();
    for policy in [Fcfs, Easy, Conservative] {
        let killed = run(&swf, 10, policy, Kill);
        assert_eq!(
            starts(&killed),
            [(1, 0), (2, 100), (3, 150)],
            "{policy:?} kill"
        );
        assert!(killed[0].killed);
        assert_eq!((killed[0].end, killed[0].requested_runtime), (100, 150));

        let extended = run(&swf, 10, policy, Extend);
        let c = if policy == Fcfs { 200 } else { 120 };
        assert_eq!(
            starts(&extended),
            [(1, 0), (2, 150), (3, c)],
            "{policy:?} extend"
        );
        assert_eq!(extended[0].estimate, 150);
        assert!(!extended[0].killed);

        let overrun = run(&swf, 10, policy, Overrun);
        assert_eq!(
            starts(&overrun),
            [(1, 0), (2, 150), (3, 200)],
            "{policy:?} overrun"
        );
        assert_eq!((overrun[0].end, overrun[0].estimate), (150, 100));
    }
}

/// Under `overrun`, a job the scheduler expected to end long ago still holds its
/// processors: on 10 processors A (10 procs) asks 10 s and runs 1000. B (5 procs, 100 s)
/// arrives at 500 and can only start at 1000; C (5 procs, 20 s) at 600 fits beside B.
#[test]
fn long_overrun_keeps_processors_busy() {
    let swf = [
        job(1, 0, 1000, 10, 10),
        job(2, 500, 100, 5, 100),
        job(3, 600, 20, 5, 20),
    ]
    .concat();
    for policy in [Fcfs, Easy, Conservative] {
        let jobs = run(&swf, 10, policy, Overrun);
        assert_eq!(starts(&jobs), [(1, 0), (2, 1000), (3, 1000)], "{policy:?}");
    }
}

/// A job larger than the machine is skipped and counted by default, run on the whole
/// machine with `oversize=clamp`, and an error naming file, line and field with
/// `oversize=error`.
#[test]
fn job_larger_than_the_machine() {
    let swf = [
        job(1, 0, 10, 4, 10),
        job(2, 1, 10, 16, 10),
        job(3, 2, 10, 4, 10),
    ]
    .concat();
    for policy in [Fcfs, Easy, Conservative] {
        let jobs = run(&swf, 8, policy, Kill);
        assert_eq!(starts(&jobs), [(1, 0), (3, 2)], "{policy:?} skip");

        let jobs = run_with(&swf, 8, policy, Kill, &["oversize=clamp"]).unwrap();
        assert_eq!(
            starts(&jobs),
            [(1, 0), (2, 10), (3, 20)],
            "{policy:?} clamp"
        );
        assert_eq!(jobs[1].size, 8);

        let err = run_with(&swf, 8, policy, Kill, &["oversize=error"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "case.swf:2: field 5 (allocated processors): 16 processors on a machine of 8 \
             (policy oversize=error)"
        );
    }
}

/// Conservative reservations are timers. 10 processors. R1 (4 procs, 300 s) and R2
/// (6 procs, estimate 1000, ends at 100) run. B (7 procs, 500 s) is reserved at 1000, when
/// R2's estimate runs out; C (4 procs, 200 s) fits before it at 300, beside R2. At 100 R2
/// ends early and the schedule is compressed in submission order: B cannot fit before C's
/// slot ends (6 free until 300, then 6 beside C), so it moves to 500, the end of C's slot;
/// then C moves to 100 and starts. At 300 R1 and C end on time, which compresses nothing,
/// and no job ends at 500: B starts there only because the policy asked for a pass at its
/// reservation.
#[test]
fn conservative_reservations_are_timers() {
    let swf = [
        job(1, 0, 300, 4, 300),
        job(2, 0, 100, 6, 1000),
        job(3, 1, 500, 7, 500),
        job(4, 2, 200, 4, 200),
    ]
    .concat();
    let jobs = run(&swf, 10, Conservative, Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 0), (3, 500), (4, 100)]);
}

/// SJBF backfills the shortest candidate first. 10 processors: A (8 procs, 200 s) and E
/// (2 procs, 50 s) fill the machine; B (10 procs) waits for 200; C (2 procs, 120 s) and D
/// (2 procs, 30 s) wait. At 50 E ends and 2 processors free up. EASY tries C first (ends at
/// 170, before the shadow time 200): C starts, and D follows at 170 (ends at 200). SJBF
/// tries D first: D runs 50-80, then C fits at 80 (ends at 200). B starts at 200 either way.
#[test]
fn sjbf_backfills_shortest_first() {
    let swf = [
        job(1, 0, 200, 8, 200),
        job(2, 0, 50, 2, 50),
        job(3, 1, 50, 10, 50),
        job(4, 2, 120, 2, 120),
        job(5, 3, 30, 2, 30),
    ]
    .concat();
    let easy = run(&swf, 10, Easy, Kill);
    assert_eq!(starts(&easy), [(1, 0), (2, 0), (3, 200), (4, 50), (5, 170)]);
    let sjbf = run(&swf, 10, Sjbf, Kill);
    assert_eq!(starts(&sjbf), [(1, 0), (2, 0), (3, 200), (4, 80), (5, 50)]);
}

/// The information-less predictor on a job of 100 s: it predicts 1 s, misses at 1 (new
/// prediction 1 + 60 = 61) and at 61 (1 + 300 = 301), and the job ends at 100; the miss
/// that would have come at 301 never fires. Time-weighted over its 100 s of life:
/// |R - P| = (1 x 99 + 60 x 39 + 39 x 201) / 100 = 102.78, and accuracy
/// (1 x 0.01 + 60 x 0.61 + 39 x 100/301) / 100.
#[test]
fn information_less_predictor_misses_with_increments() {
    let swf = job(1, 0, 100, 1, 1000);
    let (jobs, counts) = run_full(&swf, 4, Easy, Kill, &[], "log", Some("infoless")).unwrap();
    let a = jobs[0].accuracy;
    assert_eq!((a.misses, a.first_plan, counts.deadline_misses), (2, 1, 2));
    assert!(
        (a.absolute_inaccuracy - 102.78).abs() < 1e-9,
        "{}",
        a.absolute_inaccuracy
    );
    let ra = (0.01 + 60.0 * 0.61 + 39.0 * 100.0 / 301.0) / 100.0;
    assert!((a.relative_accuracy - ra).abs() < 1e-12);
    assert_eq!(jobs[0].end, 100);
}

/// Raise to the estimate, then increments (RUH). With history of one job (jobs=1): X runs
/// 50 s, so A (500 s, estimate 1000) is predicted 50 and its deadline armed at 110. B
/// (30 s) ends at 90 and propagation re-predicts A from it: 30, kept beyond A's 30 s of
/// elapsed time, so 31, armed at 91; the deadline armed at 110 is stale and must not fire.
/// At 91 A misses and is raised to its estimate, 1000; it ends at 560 after one miss.
#[test]
fn stale_deadlines_do_not_fire() {
    let swf = [
        job(1, 0, 50, 1, 1000),
        job(2, 60, 500, 1, 1000),
        job(3, 60, 30, 1, 1000),
    ]
    .concat();
    let (jobs, counts) = run_full(
        &swf,
        4,
        Easy,
        Kill,
        &[],
        "log",
        Some("ruh:jobs=1,statistic=mean,propagate=true"),
    )
    .unwrap();
    let a = jobs[1].accuracy;
    assert_eq!((a.first_plan, a.misses, jobs[1].end), (50, 1, 560));
    assert_eq!(counts.deadline_misses, 1);
    assert_eq!(counts.prediction_updates, 2, "the propagation and the miss");
}

/// Conservative backfilling keeps its promises with estimates and takes no predictor.
#[test]
fn conservative_refuses_predictors() {
    let swf = job(1, 0, 10, 1, 10);
    let err = run_full(&swf, 4, Conservative, Kill, &[], "log", Some("ruh")).unwrap_err();
    assert!(
        err.to_string().contains("cannot use the 'ruh' predictor"),
        "{err}"
    );
}

/// The log's own service (`logged`): on 2 processors, three jobs of 2 processors each,
/// submitted at 0, 0 and 5 with logged waits 0, 10 and 0, start at 0, 10 and 5 whatever
/// the machine holds (it is unbounded: up to 6 processors run at once here), and run
/// their logged 100 s although they asked for 50 (no kill). With `scale=3` the second
/// starts at 30.
#[test]
fn the_logs_own_service_starts_each_job_its_logged_wait_after_submission() {
    let swf = [
        common::logged(1, 1, 0, 0, 100, 2),
        common::logged(2, 2, 0, 10, 100, 2),
        common::logged(3, 3, 5, 0, 100, 2),
    ]
    .concat()
    .replace(" 1000 -1 1 ", " 50 -1 1 ");
    for (policy, second) in [("logged", 10), ("logged:scale=3", 30)] {
        let spec: sitesim::registry::SchedulerSpec = policy.parse().unwrap();
        let jobs = run_with(&swf, 2, spec, Kill, &[]).expect("the log's service runs");
        assert_eq!(starts(&jobs), [(1, 0), (2, second), (3, 5)], "{policy}");
        assert!(jobs.iter().all(|j| j.runtime() == 100 && !j.killed));
        assert!(jobs.iter().all(|j| j.estimate == 50));
    }
}
