//! Property tests on random workloads: for every policy and every overrun policy, the
//! invariant checker (processors never over-committed, EASY's reservation and every
//! conservative reservation kept) passes, and the outcomes obey the rules of the site.

mod common;

use common::run;
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
        );
        (Just(procs), prop::collection::vec(job, 1..50)).prop_map(|(procs, jobs)| {
            let mut t = 0;
            let mut text = String::new();
            for (i, (gap, size, run, kind, pct)) in jobs.into_iter().enumerate() {
                t += gap;
                let estimate = match kind {
                    0 => run.max(1),
                    1 => (run * i64::from(100 + pct) / 100).max(1),
                    _ => (run * i64::from(pct % 100) / 100).max(1),
                };
                text.push_str(&common::job(
                    i as i64 + 1,
                    t,
                    run,
                    i64::from(size),
                    estimate,
                ));
            }
            (procs, text)
        })
    })
}

const POLICIES: [Policy; 3] = Policy::ALL;
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
