//! CREASY (Feitelson 2021, §4.4): hand-made cases with known answers, and the property that
//! `alpha = 0` is exactly EASY, open-loop and closed-loop, with estimates and with
//! predictions.

mod common;

use common::{job_of, run, run_full, starts};
use proptest::prelude::*;
use sitesim::job::OverrunPolicy;
use sitesim::registry::SchedulerSpec;
use sitesim::sched::Policy;

fn spec(s: &str) -> SchedulerSpec {
    s.parse().expect("a valid spec")
}

/// Four processors. A (user 1, 3 procs, 100 s) and C1 (user 3, 1 proc, 5 s) start at 0;
/// B (user 2, the whole machine, 1000 s) arrives at 1 and waits for A; C2 (user 3, 2
/// procs, 50 s, estimate `c2_estimate`) arrives at 10, 5 s after C1 ended: within user
/// 3's session, so critical if its estimate is short.
fn case(c2_estimate: i64) -> String {
    [
        job_of(1, 0, 100, 3, 100, 1, -1),
        job_of(2, 0, 5, 1, 5, 3, -1),
        job_of(3, 1, 1000, 4, 1000, 2, -1),
        job_of(4, 10, 50, 2, c2_estimate, 3, -1),
    ]
    .concat()
}

#[test]
fn a_critical_interactive_job_goes_before_an_older_one() {
    let easy = starts(&run(&case(300), 4, Policy::Easy, OverrunPolicy::Kill));
    assert_eq!(easy, vec![(1, 0), (2, 0), (3, 100), (4, 1100)]);
    for alpha in ["0.5", "1"] {
        let creasy = starts(&run(
            &case(300),
            4,
            spec(&format!("creasy:alpha={alpha}")),
            OverrunPolicy::Kill,
        ));
        // C2 takes half the machine at 100; B waits for it (its shadow time is 150).
        assert_eq!(
            creasy,
            vec![(1, 0), (2, 0), (3, 150), (4, 100)],
            "alpha {alpha}"
        );
    }
    let zero = starts(&run(
        &case(300),
        4,
        spec("creasy:alpha=0"),
        OverrunPolicy::Kill,
    ));
    assert_eq!(zero, easy, "alpha = 0 is EASY");
}

#[test]
fn a_long_or_session_opening_job_is_not_critical() {
    let easy = starts(&run(&case(900), 4, Policy::Easy, OverrunPolicy::Kill));
    // Predicted longer than 10 minutes: not critical.
    let long = starts(&run(
        &case(900),
        4,
        spec("creasy:alpha=1"),
        OverrunPolicy::Kill,
    ));
    assert_eq!(long, easy);
    // A shorter `short` threshold makes the 300 s estimate long too.
    let strict = starts(&run(
        &case(300),
        4,
        spec("creasy:alpha=1,short=4m"),
        OverrunPolicy::Kill,
    ));
    assert_eq!(strict[2..], [(3, 100), (4, 1100)]);
    // A session gap shorter than C2's 5 s think time: C2 opens a new session.
    let gap = starts(&run(
        &case(300),
        4,
        spec("creasy:alpha=1,session_gap=5"),
        OverrunPolicy::Kill,
    ));
    assert_eq!(gap[2..], [(3, 100), (4, 1100)]);
}

#[test]
fn criticality_fades_and_waiting_time_wins() {
    // With a 1 s half-life C2's criticality is gone by t = 100 (90 s of waiting), and
    // B has waited longer.
    let faded = starts(&run(
        &case(300),
        4,
        spec("creasy:alpha=0.5,half_life=1"),
        OverrunPolicy::Kill,
    ));
    assert_eq!(faded[2..], [(3, 100), (4, 1100)]);
}

/// A random log (as in tests/properties.rs) with a few users who submit in sessions.
fn workload() -> impl Strategy<Value = (u32, String)> {
    (1u32..=16).prop_flat_map(|procs| {
        let job = (
            prop_oneof![3 => Just(0i64), 7 => 0i64..400],
            prop_oneof![2 => Just(1u32), 3 => 1u32..=procs, 1 => Just(procs)],
            prop_oneof![1 => Just(0i64), 9 => 1i64..1500],
            1i64..=300,
            1i64..=4,
        );
        (Just(procs), prop::collection::vec(job, 1..60)).prop_map(|(procs, jobs)| {
            let mut t = 0;
            let mut text = String::new();
            for (i, (gap, size, run, pct, user)) in jobs.into_iter().enumerate() {
                t += gap;
                let estimate = (run * pct / 100).max(1);
                text.push_str(&job_of(
                    i as i64 + 1,
                    t,
                    run,
                    i64::from(size),
                    estimate,
                    user,
                    -1,
                ));
            }
            (procs, text)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn alpha_zero_is_exactly_easy((procs, swf) in workload()) {
        for overrun in [OverrunPolicy::Kill, OverrunPolicy::Overrun] {
            let easy = run(&swf, procs, Policy::Easy, overrun);
            let creasy = run(&swf, procs, spec("creasy:alpha=0"), overrun);
            prop_assert_eq!(starts(&easy), starts(&creasy));
        }
        // EASY++: the same with a predictor whose plans change while jobs wait and run.
        let predicted = |s: SchedulerSpec| {
            run_full(&swf, procs, s, OverrunPolicy::Kill, &[], "log", Some("sbh"))
                .expect("the case runs")
                .0
        };
        prop_assert_eq!(
            starts(&predicted(Policy::Easy.into())),
            starts(&predicted(spec("creasy:alpha=0")))
        );
    }

    #[test]
    fn creasy_keeps_the_site_invariants((procs, swf) in workload(), alpha in 0.0f64..=1.0) {
        // `run` has the invariant checker on (processors never over-committed) and fails
        // if a job never starts.
        let jobs = run(&swf, procs, spec(&format!("creasy:alpha={alpha}")), OverrunPolicy::Kill);
        let again = run(&swf, procs, spec(&format!("creasy:alpha={alpha}")), OverrunPolicy::Kill);
        prop_assert_eq!(&jobs, &again, "not deterministic");
        for j in &jobs {
            prop_assert!(j.start >= j.submit);
        }
    }
}
