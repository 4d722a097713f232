//! Property tests on random workloads: for every policy and every overrun policy, the
//! invariant checker (processors never over-committed, EASY's reservation and every
//! conservative reservation kept) passes, and the outcomes obey the rules of the site.

mod common;

use common::{conservative_reference_starts, lean_starts, run, run_full};
use proptest::prelude::*;
use sitesim::job::OverrunPolicy;
use sitesim::sched::Policy;

/// A random log on a machine of `procs` processors: arrival gaps (often zero, for equal
/// timestamps), sizes skewed small, runtimes including zero, and estimates that are exact,
/// too long or too short.
fn workload() -> impl Strategy<Value = (u32, String)> {
    (1u32..=24).prop_flat_map(|procs| {
        let job = (
            prop_oneof![3 => Just(0i64), 7 => 0i64..120],
            prop_oneof![2 => Just(1u32), 3 => 1u32..=procs, 1 => Just(procs)],
            prop_oneof![1 => Just(0i64), 9 => 1i64..400],
            prop_oneof![Just(0u8), Just(1u8), Just(2u8)],
            1u32..=500,
            (1i64..=3, prop_oneof![Just(-1i64), 1i64..=3]),
        );
        (Just(procs), prop::collection::vec(job, 1..50)).prop_map(|(procs, jobs)| {
            let mut t = 0;
            let mut text = String::new();
            for (i, (gap, size, run, kind, pct, (user, app))) in jobs.into_iter().enumerate() {
                t += gap;
                let estimate = match kind {
                    0 => run.max(1),
                    1 => (run * i64::from(100 + pct) / 100).max(1),
                    _ => (run * i64::from(pct % 100) / 100).max(1),
                };
                text.push_str(&common::job_of(
                    i as i64 + 1,
                    t,
                    run,
                    i64::from(size),
                    estimate,
                    user,
                    app,
                ));
            }
            (procs, text)
        })
    })
}

const POLICIES: [Policy; 4] = Policy::ALL;
const OVERRUNS: [OverrunPolicy; 3] = [
    OverrunPolicy::Kill,
    OverrunPolicy::Extend,
    OverrunPolicy::Overrun,
];

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

    /// sitesim's FCFS, EASY and SJBF give every job the start that the lean reference
    /// (`tests/common/lean.rs`), written apart from sitesim's simulation core and
    /// schedulers, gives it, and backfill the same jobs, under every overrun policy.
    #[test]
    fn fcfs_easy_and_sjbf_agree_with_the_lean_reference((procs, swf) in workload()) {
        for overrun in OVERRUNS {
            for policy in [Policy::Fcfs, Policy::Easy, Policy::Sjbf] {
                let (jobs, counts) = run_full(&swf, procs, policy, overrun, &[], "log", None)
                    .expect("the case runs");
                let (starts, backfilled) = lean_starts(&swf, procs, overrun, policy);
                let sitesim: Vec<i64> = jobs.iter().map(|j| j.start).collect();
                prop_assert_eq!(sitesim, starts, "{} {:?}", policy.name(), overrun);
                prop_assert_eq!(counts.backfilled, backfilled, "{} {:?}", policy.name(), overrun);
            }
        }
    }

    /// sitesim's conservative backfilling, with its profile, compression shortcuts and
    /// timers, gives every job the start that the naive reference
    /// (`tests/common/naive.rs`: every earliest fit tried against every interval) gives
    /// it, under every overrun policy (under `overrun`, with the repair rule and the
    /// timers of a schedule whose jobs outlive their estimates).
    #[test]
    fn conservative_agrees_with_the_naive_reference((procs, swf) in workload()) {
        for overrun in OVERRUNS {
            let jobs = run(&swf, procs, Policy::Conservative, overrun);
            let sitesim: Vec<i64> = jobs.iter().map(|j| j.start).collect();
            prop_assert_eq!(sitesim, conservative_reference_starts(&swf, procs, overrun), "{:?}", overrun);
        }
    }

    #[test]
    fn invariants_hold_for_every_policy((procs, swf) in workload()) {
        for policy in POLICIES {
            for overrun in OVERRUNS {
                // `run` has the invariant checker on and fails if a job never ends.
                let jobs = run(&swf, procs, policy, overrun);
                let again = run(&swf, procs, policy, overrun);
                prop_assert_eq!(&jobs, &again, "not deterministic");

                let mut usage = Vec::new();
                for j in &jobs {
                    prop_assert!(j.start >= j.submit && j.end >= j.start);
                    match overrun {
                        OverrunPolicy::Kill => {
                            prop_assert_eq!(j.runtime(), j.requested_runtime.min(j.estimate));
                            prop_assert_eq!(j.killed, j.requested_runtime > j.estimate);
                        }
                        OverrunPolicy::Extend => {
                            prop_assert_eq!(j.runtime(), j.requested_runtime);
                            prop_assert!(j.estimate >= j.requested_runtime && !j.killed);
                        }
                        OverrunPolicy::Overrun => {
                            prop_assert_eq!(j.runtime(), j.requested_runtime);
                            prop_assert!(!j.killed);
                        }
                    }
                    if j.end > j.start {
                        usage.push((j.start, i64::from(j.size)));
                        usage.push((j.end, -i64::from(j.size)));
                    }
                }
                // Processors in use never exceed the machine (ends before starts at a time).
                usage.sort();
                let mut busy = 0;
                for (_, d) in usage {
                    busy += d;
                    prop_assert!(busy <= i64::from(procs), "over-committed under {policy:?}");
                }
                if policy == Policy::Fcfs {
                    prop_assert!(jobs.windows(2).all(|w| w[0].start <= w[1].start), "FCFS out of order");
                    prop_assert!(jobs.iter().all(|j| !j.backfilled));
                }
            }
        }
    }

    /// With exact estimates no job is killed or overruns, so the three overrun policies
    /// must give the same schedule.
    #[test]
    fn overrun_policies_agree_on_exact_estimates((procs, swf) in workload()) {
        let exact: String = swf
            .lines()
            .map(|l| {
                let mut f: Vec<String> = l.split_whitespace().map(str::to_owned).collect();
                f[8] = f[3].parse::<i64>().unwrap().max(1).to_string();
                f.join(" ") + "\n"
            })
            .collect();
        for policy in POLICIES {
            let kill = run(&exact, procs, policy, OverrunPolicy::Kill);
            prop_assert_eq!(&kill, &run(&exact, procs, policy, OverrunPolicy::Extend));
            prop_assert_eq!(&kill, &run(&exact, procs, policy, OverrunPolicy::Overrun));
        }
    }
}

const PREDICTORS: [&str; 9] = [
    "perfect",
    "estimate",
    "infoless",
    "constant:value=100",
    "ruh",
    "ruh:propagate=true",
    "easy++",
    "sbh",
    "sbh-noest:cap=600",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(config().cases / 4 + 1))]

    /// With every predictor, EASY and SJBF keep the invariants (the checker is on: a
    /// deadline miss or a raised prediction is the only excuse for a broken reservation),
    /// every job ends, jobs are killed at their estimate and never at their prediction,
    /// and a running job's prediction stays beyond its elapsed time (or it would have
    /// missed its deadline, which the miss count reflects).
    #[test]
    fn predictors_keep_the_invariants((procs, swf) in workload()) {
        for predictor in PREDICTORS {
            for policy in [Policy::Easy, Policy::Sjbf] {
                for overrun in OVERRUNS {
                    let (jobs, counts) =
                        run_full(&swf, procs, policy, overrun, &[], "log", Some(predictor)).unwrap();
                    for j in &jobs {
                        match overrun {
                            OverrunPolicy::Kill => {
                                prop_assert_eq!(j.runtime(), j.requested_runtime.min(j.estimate));
                            }
                            _ => prop_assert_eq!(j.runtime(), j.requested_runtime),
                        }
                        prop_assert!(j.accuracy.first_plan >= 1);
                        prop_assert!((0.0..=1.0).contains(&j.accuracy.relative_accuracy));
                    }
                    let misses: u64 = jobs.iter().map(|j| u64::from(j.accuracy.misses)).sum();
                    prop_assert_eq!(misses, counts.deadline_misses);
                    if predictor == "perfect" {
                        prop_assert_eq!(misses, 0);
                    }
                }
            }
        }
    }

    /// EASY planning with the perfect predictor on exact estimates is EASY with exact
    /// estimates: the same schedule, job for job.
    #[test]
    fn perfect_predictor_on_exact_estimates_is_exact_easy((procs, swf) in workload()) {
        for policy in [Policy::Easy, Policy::Sjbf] {
            let exact = run_full(&swf, procs, policy, OverrunPolicy::Kill, &[], "exact", None).unwrap().0;
            let perfect =
                run_full(&swf, procs, policy, OverrunPolicy::Kill, &[], "exact", Some("perfect")).unwrap().0;
            let key = |jobs: &[sitesim::job::JobOutcome]| jobs.iter().map(|j| (j.seq, j.start, j.end)).collect::<Vec<_>>();
            prop_assert_eq!(key(&exact), key(&perfect));
        }
    }
}
