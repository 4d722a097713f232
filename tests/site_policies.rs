//! The policies sites run and seed 004 compares: Flex (Talby and Feitelson 1999) and Maui
//! (Jackson et al. 2001), as Talby 2006 §2 simulates them, the fair-share multifactor
//! priority (Slurm's `priority/multifactor`) and per-user limits over any policy. Hand cases whose schedules are worked out in the
//! comments, and properties on random workloads: Maui's default is EASY job for job, the
//! invariant checker passes under every overrun policy, and no user ever runs more than
//! its limits allow.

mod common;

use common::{job, job_of, run, starts};
use proptest::prelude::*;
use sitesim::job::OverrunPolicy;
use sitesim::job::OverrunPolicy::Kill;
use sitesim::registry::SchedulerSpec;
use sitesim::sched::Policy;

fn spec(text: &str) -> SchedulerSpec {
    text.parse().expect("a registered policy")
}

/// 10 processors. A (all 10, 100 s) runs from 0; B (10 procs, estimate 1000) arrives at
/// 1, C (10 procs, estimate 10) at 2. Maui's default ranks by queue time: B at 100 and C
/// at 1100, as EASY. Weighing the expansion factor only, at 100 B's is
/// (99 + 1000) / 1000 = 1.1 and C's (98 + 10) / 10 = 10.8: C starts at 100, B at 110.
#[test]
fn maui_ranks_by_its_priority_function() {
    let swf = [
        job(1, 0, 100, 10, 100),
        job(2, 1, 1000, 10, 1000),
        job(3, 2, 10, 10, 10),
    ]
    .concat();
    let default = run(&swf, 10, spec("maui"), Kill);
    assert_eq!(starts(&default), [(1, 0), (2, 100), (3, 1100)]);
    assert_eq!(starts(&run(&swf, 10, Policy::Easy, Kill)), starts(&default));
    let xfactor = run(&swf, 10, spec("maui:queue_time=0,xfactor=1"), Kill);
    assert_eq!(starts(&xfactor), [(1, 0), (2, 110), (3, 100)]);
}

/// 10 processors. User 1's A (all 10, 1000 s) runs from 0; user 1's B (10 procs, 100 s)
/// arrives at 1 and user 2's C (10 procs, 100 s) at 2. At 1000 user 1 has used all
/// 10,000 processor-seconds, U = 1, and two users hold S = 1/2 each: user 1's fair-share
/// factor is 2^(-1/0.5) = 0.25, user 2's 2^0 = 1. With age nearly 0 (a thousand seconds of
/// seven days) C outranks B: C at 1000, B at 1100. EASY runs B first.
#[test]
fn fairshare_favours_the_user_with_less_recent_usage() {
    let swf = [
        job_of(1, 0, 1000, 10, 1000, 1, -1),
        job_of(2, 1, 100, 10, 100, 1, -1),
        job_of(3, 2, 100, 10, 100, 2, -1),
    ]
    .concat();
    let jobs = run(&swf, 10, spec("fairshare"), Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 1100), (3, 1000)]);
    let easy = run(&swf, 10, Policy::Easy, Kill);
    assert_eq!(starts(&easy), [(1, 0), (2, 1000), (3, 1100)]);
    // Without the fair-share weight, age alone keeps the arrival order.
    let age = run(&swf, 10, spec("fairshare:fairshare=0"), Kill);
    assert_eq!(starts(&age), starts(&easy));
}

/// Fair-share's one reservation, for the job first in priority. 10 processors. User 1's
/// A (all 10, 1000 s) runs from 0. Then Y (user 3, 5 procs, 1500 s) at 1, C (user 1,
/// 5 procs, 2000 s) at 2, B (user 2, all 10, 100 s) at 3, D (user 1, 5 procs, 1000 s)
/// at 4. At 1000 users 2 and 3 have no usage and outrank user 1: Y starts (ends 2500),
/// B does not fit and is reserved at 2500; C would end at 3000, past the reservation, on
/// processors B needs: refused; D ends at 2000: backfilled. B at 2500, C at 2600. EASY
/// starts C with Y at 1000 and holds B to 3000.
#[test]
fn fairshare_reserves_for_the_first_job_in_priority() {
    let swf = [
        job_of(1, 0, 1000, 10, 1000, 1, -1),
        job_of(2, 1, 1500, 5, 1500, 3, -1),
        job_of(3, 2, 2000, 5, 2000, 1, -1),
        job_of(4, 3, 100, 10, 100, 2, -1),
        job_of(5, 4, 1000, 5, 1000, 1, -1),
    ]
    .concat();
    let jobs = run(&swf, 10, spec("fairshare"), Kill);
    assert_eq!(
        starts(&jobs),
        [(1, 0), (2, 1000), (3, 2600), (4, 2500), (5, 1000)]
    );
    let easy = run(&swf, 10, Policy::Easy, Kill);
    assert_eq!(
        starts(&easy),
        [(1, 0), (2, 1000), (3, 1000), (4, 3000), (5, 3100)]
    );
}

/// No job waits without bound under a stream of higher-priority arrivals. 10 processors,
/// `max_age` one day. User 1's A (all 10, 1 h) runs from 0; user 1's H (all 10, 1 h)
/// arrives at 1. Every hour from 2 a new user submits a job on all 10 processors for 1 h,
/// 72 in all: a new user has no usage and outranks user 1, so the machine is always
/// taken. H starves from 86,401 (a day of waiting, where its age factor stops) and goes
/// first at the next end, 90,000. With `starve = none` (Slurm's rule) it waits for the
/// end of the stream, 262,800.
#[test]
fn fairshare_ends_starvation_after_starve() {
    let mut swf = job_of(1, 0, 3600, 10, 3600, 1, -1) + &job_of(2, 1, 3600, 10, 3600, 1, -1);
    for k in 0..72 {
        swf += &job_of(3 + k, 2 + 3600 * k, 3600, 10, 3600, 100 + k, -1);
    }
    let start_of_h = |text: &str| {
        let jobs = run(&swf, 10, spec(text), Kill);
        starts(&jobs)[1]
    };
    assert_eq!(start_of_h("fairshare:max_age=1d"), (2, 90_000));
    assert_eq!(start_of_h("fairshare:max_age=1d,starve=none"), (2, 262_800));
}

/// 10 processors, at most two running jobs per user. User 1 submits three 1-processor
/// jobs of 100 s at 0: two start, the third is held until one ends at 100. User 2's job
/// at 1 starts at once: the held job does not block the queue.
#[test]
fn limits_hold_a_users_extra_jobs_without_blocking_others() {
    let swf = [
        job_of(1, 0, 100, 1, 100, 1, -1),
        job_of(2, 0, 100, 1, 100, 1, -1),
        job_of(3, 0, 100, 1, 100, 1, -1),
        job_of(4, 1, 100, 1, 100, 2, -1),
    ]
    .concat();
    let jobs = run(&swf, 10, spec("limits:jobs=2"), Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 0), (3, 100), (4, 1)]);
    // A processor limit of 2 does the same here; a 3-processor job runs alone.
    let jobs = run(&swf, 10, spec("limits:policy=conservative,procs=2"), Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 0), (3, 100), (4, 1)]);
    let big = [
        job_of(1, 0, 100, 1, 100, 1, -1),
        job_of(2, 1, 100, 3, 100, 1, -1),
    ]
    .concat();
    let jobs = run(&big, 10, spec("limits:procs=2"), Kill);
    assert_eq!(starts(&jobs), [(1, 0), (2, 100)]);
}

/// 10 processors. Jobs 1 and 2 (all 10, 100 s) arrive at 0: 1 runs at once, 2 waits to
/// 100, so by 150 the mean wait is 50 s. Job 3 (all 10, estimate 1000) arrives at 150:
/// reserved at 200, when 2 ends; guarantee 200 + slack. Job 4 (all 10, estimate 10)
/// arrives at 151: last it would start at 1200; first, at 200, with 3 at 210. Planned
/// waits: last, 1049 + 50; first, 49 + 60. With slack_factor 1, 3's guarantee is 250 and
/// 4 goes first; with 0.1 (slack 5 s) 3 may not move to 210 and 4 goes last, as under
/// conservative backfilling.
#[test]
fn flex_takes_the_best_place_its_slacks_allow() {
    let swf = [
        job(1, 0, 100, 10, 100),
        job(2, 0, 100, 10, 100),
        job(3, 150, 1000, 10, 1000),
        job(4, 151, 10, 10, 10),
    ]
    .concat();
    let flex = run(&swf, 10, spec("flex"), Kill);
    assert_eq!(starts(&flex), [(1, 0), (2, 100), (3, 210), (4, 200)]);
    let tight = run(&swf, 10, spec("flex:slack_factor=0.1"), Kill);
    assert_eq!(starts(&tight), [(1, 0), (2, 100), (3, 200), (4, 1200)]);
    let conservative = run(&swf, 10, Policy::Conservative, Kill);
    assert_eq!(starts(&conservative), starts(&tight));
    // Graded by the jobs that must wait, both places make two wait: a tie, and the tie
    // keeps the new job last.
    let waiting = run(&swf, 10, spec("flex:grade=waiting"), Kill);
    assert_eq!(starts(&waiting), starts(&tight));
    // The talby2006 preset's slack, 0.2 mean waits (10 s), still lets 3 move to 210; a key
    // given with the preset overrides it.
    let preset = run(&swf, 10, spec("flex:preset=talby2006"), Kill);
    assert_eq!(starts(&preset), starts(&flex));
    let overridden = run(
        &swf,
        10,
        spec("flex:preset=talby2006,slack_factor=0.1"),
        Kill,
    );
    assert_eq!(starts(&overridden), starts(&tight));
    let e = "flex:preset=best".parse::<SchedulerSpec>().unwrap_err();
    assert!(
        e.contains("'best' is not a preset (none, talby2006)"),
        "{e}"
    );
}

/// Slack by size (Talby and Feitelson 1999: "heavy" jobs get little slack). The case
/// above: job 3 takes the whole machine, so its slack is 0 and 4 goes last, as under
/// conservative backfilling. On 5 of the 10 processors it keeps half the mean wait
/// (25 s): its guarantee is 225, 4 first moves it to 210, and 4 goes first again.
#[test]
fn flex_by_size_gives_wide_jobs_little_slack() {
    let swf = |width| {
        [
            job(1, 0, 100, 10, 100),
            job(2, 0, 100, 10, 100),
            job(3, 150, 1000, width, 1000),
            job(4, 151, 10, 10, 10),
        ]
        .concat()
    };
    let wide = run(&swf(10), 10, spec("flex:slack=size"), Kill);
    assert_eq!(starts(&wide), [(1, 0), (2, 100), (3, 200), (4, 1200)]);
    let half = run(&swf(5), 10, spec("flex:slack=size"), Kill);
    assert_eq!(starts(&half), [(1, 0), (2, 100), (3, 210), (4, 200)]);
    // A tenth of the mean wait on half the machine, 2.5 s, does not cover the 10 s move.
    let tight = run(&swf(5), 10, spec("flex:slack=size,slack_factor=0.1"), Kill);
    assert_eq!(starts(&tight), [(1, 0), (2, 100), (3, 200), (4, 1200)]);
    let e = "flex:slack=heavy".parse::<SchedulerSpec>().unwrap_err();
    assert!(e.contains("slack"), "{e}");
}

/// Flex compares the queues at an end too (Talby 2006, §2). 10 processors. A (all 10,
/// estimate 1000) ends early at 100. B (all 10, 1000 s) arrives at 1, reserved at 1000;
/// C (all 10, 10 s) at 2: ahead of B it would push B past its guarantee (the slack is 0:
/// no job has waited yet), so it goes last, at 2000. At A's end the compression moves B
/// to 100 and C to 1100; compared again, C first (at 100, B at 110, within B's guarantee
/// of 1000) makes 98 + 109 s of waiting against 99 + 1098, and wins. Compared at arrivals
/// only (the default), the compressed schedule stays, as under conservative backfilling.
#[test]
fn flex_at_every_event_compares_the_queues_again_when_a_job_ends_early() {
    let swf = [
        job(1, 0, 100, 10, 1000),
        job(2, 1, 1000, 10, 1000),
        job(3, 2, 10, 10, 10),
    ]
    .concat();
    let events = run(&swf, 10, spec("flex:regrade=events"), Kill);
    assert_eq!(starts(&events), [(1, 0), (2, 110), (3, 100)]);
    let arrivals = run(&swf, 10, spec("flex"), Kill);
    assert_eq!(starts(&arrivals), [(1, 0), (2, 100), (3, 1100)]);
    let conservative = run(&swf, 10, Policy::Conservative, Kill);
    assert_eq!(starts(&conservative), starts(&arrivals));
}

/// The summary carries what the scheduler said of its run: the jobs limits held, and
/// an adaptive scheduler's candidates, each with its time active.
#[test]
fn summaries_report_held_jobs_and_candidates() {
    use sitesim::commands::replay::{ReplayOptions, replay};
    use sitesim::swf::LogSource;
    let swf = [
        job_of(1, 0, 100, 1, 100, 1, -1),
        job_of(2, 0, 100, 1, 100, 1, -1),
        job_of(3, 0, 100, 1, 100, 1, -1),
        job_of(4, 1, 100, 1, 100, 2, -1),
    ]
    .concat();
    let text = format!("; MaxProcs: 10\n{swf}");
    let summary = |policy: &str| {
        let source = LogSource::text(text.as_bytes(), "case.swf").unwrap();
        let opts = ReplayOptions {
            policy: spec(policy),
            ..ReplayOptions::default()
        };
        replay(&source, &opts).unwrap().metrics.scheduler
    };
    let limits = summary("limits:jobs=2").expect("a report");
    assert_eq!(limits["limits"]["held_jobs"], 1);
    assert_eq!(limits["limits"]["released"], 1);
    let pbas = summary("pbas:period=1m").expect("a report");
    let candidates = pbas["candidates"].as_array().unwrap();
    assert_eq!(candidates[0]["policy"], "flex");
    assert_eq!(candidates[1]["policy"], "maui");
    assert_eq!(summary("easy"), None);
    let e = "limits:policy=pbas,jobs=2"
        .parse::<SchedulerSpec>()
        .unwrap_err();
    assert!(e.contains("candidates"), "{e}");
}

#[test]
fn limits_need_a_limit_and_name_their_parameters() {
    let e = "limits".parse::<SchedulerSpec>().unwrap_err();
    assert!(e.contains("give jobs or procs"), "{e}");
    let e = "limits:jobs=2,queue=1"
        .parse::<SchedulerSpec>()
        .unwrap_err();
    assert!(e.contains("'queue'"), "{e}");
    let e = "maui:half_life=0".parse::<SchedulerSpec>().unwrap_err();
    assert!(e.contains("half_life"), "{e}");
    let e = "fairshare:age=-1".parse::<SchedulerSpec>().unwrap_err();
    assert!(e.contains("weights"), "{e}");
    let e = "flex:grade=fast".parse::<SchedulerSpec>().unwrap_err();
    assert!(
        e.contains("grade") && e.contains("wait, bsld, waiting"),
        "{e}"
    );
    let e = "flex:slack_factor=-1".parse::<SchedulerSpec>().unwrap_err();
    assert!(e.contains("slack_factor"), "{e}");
}

/// A random log on up to 24 processors for three users (the shape of
/// `tests/properties.rs`, smaller).
fn workload() -> impl Strategy<Value = (u32, String)> {
    (1u32..=24).prop_flat_map(|procs| {
        let job = (
            prop_oneof![3 => Just(0i64), 7 => 0i64..120],
            prop_oneof![2 => Just(1u32), 3 => 1u32..=procs, 1 => Just(procs)],
            prop_oneof![1 => Just(0i64), 9 => 1i64..400],
            prop_oneof![Just(0u8), Just(1u8), Just(2u8)],
            1u32..=500,
            1i64..=3,
        );
        (Just(procs), prop::collection::vec(job, 1..40)).prop_map(|(procs, jobs)| {
            let mut t = 0;
            let mut text = String::new();
            for (i, (gap, size, run, kind, pct, user)) in jobs.into_iter().enumerate() {
                t += gap;
                let estimate = match kind {
                    0 => run.max(1),
                    1 => (run * i64::from(100 + pct) / 100).max(1),
                    _ => (run * i64::from(pct % 100) / 100).max(1),
                };
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

const OVERRUNS: [OverrunPolicy; 3] = [
    OverrunPolicy::Kill,
    OverrunPolicy::Extend,
    OverrunPolicy::Overrun,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(150)
    ))]

    /// Maui's default configuration is EASY, job for job.
    #[test]
    fn maui_by_default_is_easy((procs, swf) in workload()) {
        for overrun in OVERRUNS {
            let maui = run(&swf, procs, spec("maui"), overrun);
            let easy = run(&swf, procs, Policy::Easy, overrun);
            prop_assert_eq!(starts(&maui), starts(&easy), "{:?}", overrun);
        }
    }

    /// The checker passes (`run` has it on) and no user exceeds its limits.
    #[test]
    fn the_checker_passes_and_limits_hold((procs, swf) in workload()) {
        let half = (procs / 2).max(1);
        let limited = [
            ("limits:jobs=1".to_owned(), Some(1), None),
            ("limits:policy=conservative,jobs=2".to_owned(), Some(2), None),
            (format!("limits:policy=sjbf,procs={half}"), None, Some(half)),
            (format!("limits:policy=maui,jobs=2,procs={half}"), Some(2), Some(half)),
            (format!("limits:policy=flex,procs={half}"), None, Some(half)),
        ];
        for overrun in OVERRUNS {
            // Under Flex the checker holds every job to its guarantee: no job is delayed
            // past its slack (unless a job ran past its estimate).
            for text in [
                "maui:xfactor=5,size=1,fairshare=2",
                "fairshare",
                "fairshare:size=100,max_age=60",
                "flex",
                "flex:grade=bsld,slack_factor=3",
                "flex:grade=waiting,depth=2",
                "flex:slack_factor=0",
                "flex:slack=size,slack_factor=2",
            ] {
                run(&swf, procs, spec(text), overrun);
            }
            for (text, jobs_limit, procs_limit) in &limited {
                let jobs = run(&swf, procs, spec(text), overrun);
                // Jobs of no duration hold no processor over time; at equal seconds the
                // simulation ends jobs before it starts others.
                for j in jobs.iter().filter(|j| j.end > j.start) {
                    // The user's other jobs running when j starts (those ending then have
                    // left), and j.
                    let others: Vec<_> = jobs
                        .iter()
                        .filter(|o| {
                            o.seq != j.seq && o.user == j.user && o.end > o.start && o.start <= j.start && j.start < o.end
                        })
                        .collect();
                    let running = others.len() as u32 + 1;
                    let used: u32 = j.size + others.iter().map(|o| o.size).sum::<u32>();
                    if let Some(n) = jobs_limit {
                        prop_assert!(running <= *n, "{text}: user {} runs {running} jobs", j.user);
                    }
                    if let Some(p) = procs_limit {
                        prop_assert!(used <= *p || running == 1, "{text}: user {} uses {used} processors", j.user);
                    }
                }
            }
        }
    }
}
