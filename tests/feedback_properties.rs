//! Property tests of replay with feedback on random multi-user logs: users submit in log
//! order, after every termination their jobs depend on and their think times, inside
//! their windows; a log that a policy produced is reproduced exactly by feeding it back
//! to that policy; an instant machine keeps the sessions; a machine that never finishes
//! a job gets exactly the jobs that depend on no termination.

mod common;

use common::{Collect, feedback_run, logged, run, trace_of, users_of};
use proptest::prelude::*;
use sitesim::job::{JobOutcome, OverrunPolicy};
use sitesim::sched::Policy;
use sitesim::session::{opens_session, think_time};
use sitesim::sim::{Simulation, SiteConfig};
use sitesim::users::TraceUsers;
use sitesim::users::{OpeningThink, Return, ThinkRules, UserConfig};
use sitesim::workload::trace::{Dependence, Trace, TraceConfig, TraceUser};

/// A logged job: user, submit, wait, runtime, size.
type Logged = (i64, i64, i64, i64, i64);

/// A random log of a few users on a machine of `procs` processors: bursts (gaps of 0),
/// pauses within sessions, breaks of hours; logged waits; runtimes including zero.
fn log() -> impl Strategy<Value = (u32, Vec<Logged>)> {
    (1u32..=12).prop_flat_map(|procs| {
        let job = (
            1i64..=4,
            prop_oneof![3 => Just(0i64), 4 => 1i64..600, 2 => 1_000i64..30_000],
            prop_oneof![3 => Just(0i64), 2 => 1i64..5_000],
            prop_oneof![1 => Just(0i64), 6 => 1i64..4_000],
            1u32..=procs,
        );
        (Just(procs), prop::collection::vec(job, 1..40)).prop_map(|(procs, jobs)| {
            let mut t = 0;
            let jobs = jobs
                .into_iter()
                .map(|(user, gap, wait, run, size)| {
                    t += gap;
                    (user, t, wait, run, i64::from(size))
                })
                .collect();
            (procs, jobs)
        })
    })
}

fn text(jobs: &[Logged]) -> String {
    jobs.iter()
        .enumerate()
        .map(|(i, &(user, submit, wait, run, size))| {
            logged(i as i64 + 1, user, submit, wait, run, size)
        })
        .collect()
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    ProptestConfig::with_cases(cases)
}

/// The log of a run, as it would be recorded: each job with its simulated submit time,
/// wait and runtime.
fn recorded(jobs: &[JobOutcome]) -> Vec<Logged> {
    jobs.iter()
        .map(|j| (j.user, j.submit, j.wait(), j.runtime(), i64::from(j.size)))
        .collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn users_follow_order_dependencies_think_times_and_windows((procs, jobs) in log()) {
        let swf = text(&jobs);
        for (dependence, away, policy) in Dependence::ALL
            .into_iter()
            .flat_map(|d| [Return::UsualHour, Return::NextWindow].map(|a| (d, a)))
            .flat_map(|(d, a)| Policy::ALL.map(|p| (d, a, p)))
        {
            let cfg = TraceConfig { dependence, ..TraceConfig::default() };
            let users = UserConfig { rules: ThinkRules { away, ..ThinkRules::default() }, ..users_of(&cfg) };
            let trace = trace_of(&swf, procs, cfg);
            let (population, ended) =
                feedback_run(trace.clone(), procs, policy, users.clone(), None);
            let (_, again) = feedback_run(trace.clone(), procs, policy, users.clone(), None);
            prop_assert_eq!(&ended, &again, "not deterministic");
            prop_assert_eq!(ended.len(), jobs.len(), "every job is submitted and ends");
            let by_number = |n: usize| &ended[ended.iter().position(|j| j.job == n as i64).unwrap()];
            for u in &trace.users {
                let mut last_submit = i64::MIN;
                let hours = usual_hours(u);
                for (k, tj) in u.jobs.iter().enumerate() {
                    let sim = by_number(tj.spec.job as usize);
                    // The order constraint.
                    prop_assert!(sim.submit >= last_submit, "user {} out of order", u.user);
                    last_submit = sim.submit;
                    // Every job of the user whose result it waits for, by the rule, has
                    // ended in the simulation before it was submitted.
                    let waits_for: Vec<usize> = match dependence {
                        Dependence::Submit => (0..k).filter(|&e| u.jobs[e].end < tj.submit).collect(),
                        Dependence::Start => (0..k).filter(|&e| u.jobs[e].end < tj.start).collect(),
                        Dependence::Think | Dependence::Sessions => {
                            u.dep_jobs(tj).iter().map(|&e| e as usize).collect()
                        }
                    };
                    for e in waits_for {
                        prop_assert!(by_number(u.jobs[e].spec.job as usize).end <= sim.submit);
                    }
                    // The think time after the previous job, a break capped at the
                    // threshold.
                    if let Some(think) = tj.think.filter(|&t| t > 0) {
                        let previous = by_number(u.jobs[k - 1].spec.job as usize);
                        let pause = think.min(cfg.threshold);
                        prop_assert!(sim.submit >= previous.end + pause);
                    }
                    // Inside a window, at a window's start, after the last one, or (by
                    // default) in one of the user's usual hours.
                    let w = &u.windows;
                    let placed = w.iter().any(|w| (w.start..=w.end).contains(&sim.submit))
                        || sim.submit > w.last().unwrap().end
                        || (away == Return::UsualHour && hours.contains(&hour_of_week(sim.submit)));
                    prop_assert!(placed, "user {} submitted at {} outside its windows", u.user, sim.submit);
                }
            }
            let s = population.summary();
            prop_assert_eq!(s.jobs.submitted as usize, jobs.len());
            prop_assert_eq!(s.done, s.users);
        }
    }

    #[test]
    fn a_log_produced_by_a_policy_is_reproduced_by_feeding_it_back((procs, jobs) in log()) {
        let swf = text(&jobs);
        for policy in Policy::ALL {
            // Open-loop replay under the policy records a log...
            let open = run(&swf, procs, policy, OverrunPolicy::Kill);
            let produced = text(&recorded(&open));
            // ...which, replayed with feedback under the same policy, comes out unchanged.
            let cfg = TraceConfig::default();
            let (_, fed) = feedback_run(trace_of(&produced, procs, cfg), procs, policy, users_of(&cfg), None);
            let times = |js: &[JobOutcome]| -> Vec<(i64, i64)> {
                let mut v: Vec<_> = js.iter().map(|j| (j.submit, j.start)).collect();
                v.sort_unstable();
                v
            };
            prop_assert_eq!(times(&fed), times(&open), "under {}", policy.name());
        }
    }

    #[test]
    fn a_machine_that_never_finishes_gets_the_jobs_that_wait_for_nothing((procs, jobs) in log()) {
        let swf = text(&jobs);
        let cfg = TraceConfig::default();
        let mut trace = trace_of(&swf, procs, cfg);
        let expected: usize = trace
            .users
            .iter()
            .map(|u| u.jobs.iter().take_while(|j| j.dep_think.is_none()).count())
            .sum();
        never_ending(&mut trace);
        let horizon = trace.span.1 + 100 * 86_400;
        let site = SiteConfig { procs: 1 << 20, overrun: OverrunPolicy::Kill, check: true };
        let sim = Simulation::new(
            site,
            Policy::Fcfs.build(1 << 20),
            TraceUsers::new(trace, users_of(&cfg), 1),
            Collect::default(),
        );
        let (users, _, counts) = sim.run(Some(horizon)).unwrap();
        prop_assert_eq!(counts.submitted as usize, expected);
        prop_assert_eq!(users.summary().jobs.submitted as usize, expected);
    }

    #[test]
    fn an_instant_machine_keeps_the_sessions(sessions in prop::collection::vec(
        prop::collection::vec((0i64..1_000, 1i64..300, 0i64..300), 1..6), 1..6)
    ) {
        // One sequential user: each job submitted after the previous one ended (think
        // times below the threshold within a session), breaks of at least a day between
        // sessions, longer than any session.
        let mut jobs = Vec::new();
        let mut t = 0;
        for s in &sessions {
            for &(think, run, wait) in s {
                t += think;
                jobs.push((1, t, wait, run, 1));
                t += wait + run;
            }
            t += 86_400;
        }
        let swf = text(&jobs);
        let cfg = TraceConfig::default();
        let mut trace = trace_of(&swf, 1, cfg);
        let logged: Vec<(usize, Vec<i64>)> = session_sizes(&jobs);
        for j in &mut trace.users[0].jobs {
            j.spec.runtime = 0;
        }
        // By the literal rule: the user comes back only at its next window.
        let users = UserConfig { rules: ThinkRules { opening_think: OpeningThink::Original, away: Return::NextWindow, ..ThinkRules::default() }, ..users_of(&cfg) };
        let (_, ended) = feedback_run(trace, 1, Policy::Fcfs, users, None);
        let simulated: Vec<Logged> = ended.iter().map(|j| (1, j.submit, 0, 0, 1)).collect();
        // The same sessions, each opening at its logged time.
        let sim_sessions = session_sizes(&simulated);
        prop_assert_eq!(
            sim_sessions.iter().map(|s| s.0).collect::<Vec<_>>(),
            logged.iter().map(|s| s.0).collect::<Vec<_>>()
        );
        prop_assert_eq!(
            sim_sessions.iter().map(|s| s.1[0]).collect::<Vec<_>>(),
            logged.iter().map(|s| s.1[0]).collect::<Vec<_>>()
        );
    }
}

/// The hour of the week of `t`, counted from time 0.
fn hour_of_week(t: i64) -> i64 {
    t.div_euclid(3600).rem_euclid(168)
}

/// The hours of the week a user's sessions spanned in the log, from their first to
/// their last submission.
fn usual_hours(u: &TraceUser) -> Vec<i64> {
    let mut hours = Vec::new();
    for (k, w) in u.windows.iter().enumerate() {
        let last = (u.jobs.iter().filter(|j| j.session as usize == k))
            .map(|j| j.submit)
            .max()
            .unwrap();
        let mut h = w.start.div_euclid(3600);
        while h <= last.div_euclid(3600) && hours.len() < 10_000 {
            hours.push(hour_of_week(h * 3600));
            h += 1;
        }
    }
    hours
}

/// Makes every job of `trace` run (and be estimated) for ever.
fn never_ending(trace: &mut Trace) {
    for j in trace.users.iter_mut().flat_map(|u| &mut u.jobs) {
        j.spec.runtime = 1 << 40;
        j.spec.estimate = 1 << 40;
    }
}

/// The sessions of one user's jobs (in order), by the default rule: (jobs, submit times).
fn session_sizes(jobs: &[Logged]) -> Vec<(usize, Vec<i64>)> {
    let mut out: Vec<(usize, Vec<i64>)> = Vec::new();
    let mut previous_end = None;
    for &(_, submit, wait, run, _) in jobs {
        let think = think_time(Default::default(), submit, previous_end, None);
        if opens_session(think, sitesim::session::DEFAULT_THRESHOLD) {
            out.push((0, Vec::new()));
        }
        let s = out.last_mut().unwrap();
        s.0 += 1;
        s.1.push(submit);
        previous_end = Some(submit + wait + run);
    }
    out
}
