//! Replay with feedback: hand cases with known answers for each rule of the fluid user
//! model and each kind of dependency.

mod common;

use common::{feedback_run, logged, trace_of, users_of};
use sitesim::job::JobOutcome;
use sitesim::registry::SchedulerSpec;
use sitesim::sched::Policy;
use sitesim::users::{
    Behaviour, ContinuationCurve, FlowForward, NegativeThink, OpeningThink, Return, Rule,
    ThinkRules, UserConfig,
};
use sitesim::workload::trace::{Dependence, TraceConfig};

/// `(job number, simulated submit)` of user `user`'s jobs.
fn submits(jobs: &[JobOutcome], user: i64) -> Vec<(i64, i64)> {
    jobs.iter()
        .filter(|j| j.user == user)
        .map(|j| (j.job, j.submit))
        .collect()
}

/// A job of user 0 (submitted first at time 0) that holds the single processor for `run`
/// seconds.
fn blocker(n: i64, run: i64) -> String {
    logged(n, 0, 0, 0, run, 1)
}

#[test]
fn a_job_ready_after_its_window_closed_waits_for_the_users_return() {
    // User 1's first session: jobs 2 and 3, window [0, 250], submitted within the hour
    // from time 0 (its usual hour); second session: job 4 at 10000, window [10000,
    // 10100]. The blocker delays job 2 to [1000, 1100]; job 3 is ready at 1100 + 50,
    // after its window closed. By the literal rule it goes to the next window's start,
    // and job 4 (a break after job 3's end at 10100) is ready a threshold later, after
    // the user's last window: it is submitted then. By default the user is back within
    // its usual hour: job 3 comes at once, and job 4 keeps its logged session start.
    let log = [
        blocker(1, 1000),
        logged(2, 1, 0, 0, 100, 1),
        logged(3, 1, 150, 0, 100, 1),
        logged(4, 1, 10_000, 0, 100, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let run = |away| {
        let users = UserConfig {
            rules: ThinkRules {
                away,
                ..ThinkRules::default()
            },
            ..users_of(&config)
        };
        feedback_run(trace_of(&log, 1, config), 1, Policy::Fcfs, users, None)
    };
    let (users, jobs) = run(Return::NextWindow);
    assert_eq!(submits(&jobs, 1), [(2, 0), (3, 10_000), (4, 11_300)]);
    // Counts include the blocker's job, submitted inside its window.
    let c = users.summary().jobs;
    assert_eq!(
        (c.inside_window, c.next_window, c.after_last_window),
        (2, 1, 1)
    );
    assert_eq!((c.after_own_window, c.flowed_forward), (2, 0));
    let (users, jobs) = run(Return::UsualHour);
    assert_eq!(submits(&jobs, 1), [(2, 0), (3, 1150), (4, 10_000)]);
    let c = users.summary().jobs;
    assert_eq!((c.inside_window, c.usual_hour, c.next_window), (3, 1, 0));
    assert_eq!(c.drift.late[Rule::UsualHour as usize], 0);
    assert_eq!(users.summary().lateness.max, 1000);
}

#[test]
fn a_faster_machine_lets_the_next_session_flow_forward() {
    // In the log job 1 waited 5000 s, so the first window is [0, 5250]. On an empty
    // machine job 2 is ready at 150 and job 3, which opened the next session after a
    // 14750 s break, at 250 + 1200: inside the first window, it flows forward.
    let log = [
        logged(1, 1, 0, 5000, 100, 1),
        logged(2, 1, 5150, 0, 100, 1),
        logged(3, 1, 20_000, 0, 100, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let run = |opening| {
        let users = UserConfig {
            rules: ThinkRules {
                opening_think: opening,
                ..ThinkRules::default()
            },
            ..users_of(&config)
        };
        feedback_run(trace_of(&log, 1, config), 1, Policy::Fcfs, users, None)
    };
    let (users, jobs) = run(OpeningThink::Capped);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 150), (3, 1450)]);
    assert_eq!(users.summary().jobs.flowed_forward, 1);
    // With the logged break, the opener is ready at 250 + 14750 = 15000: between
    // windows, it comes at the user's next usual hour, 18000 (the user opened its second
    // session at 20000, in the hour from 18000), before its own window.
    let (_, jobs) = run(OpeningThink::Original);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 150), (3, 18_000)]);
    // With no think time at all it follows job 2 at once.
    let (_, jobs) = run(OpeningThink::Zero);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 150), (3, 250)]);
    // The default lengthens the break after an early result by up to its room beyond the
    // threshold (13550 s): job 2 was saved 5000 s, so the next session opens at its
    // logged start, 20000, and no job is further ahead than the response time saved.
    let (users, jobs) = run(OpeningThink::Calendar);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 150), (3, 20_000)]);
    let d = users.summary().jobs.drift;
    assert_eq!((d.early(), d.max_lead, d.lead_beyond_saved), (1, 5000, 0));
    // Keeping the logged break after an early result keeps the lead: the next session is
    // ready 5000 s ahead of its logged start and comes at the usual hour.
    let (users, jobs) = run(OpeningThink::KeepLead);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 150), (3, 18_000)]);
    let d = users.summary().jobs.drift;
    assert_eq!((d.early(), d.max_lead, d.lead_beyond_saved), (2, 5000, 0));
}

#[test]
fn a_job_flows_forward_into_the_session_before_its_own_only() {
    // User 1's sessions: job 1 at 0, which waited 100000 s in the log: window
    // [0, 100100]; job 2 at 102000, after a break of 1900 s: window [102000, 102100];
    // job 3 at 200000, after a break of 97900 s. Served at once, job 1 ends at 100: job 2
    // is ready at 100 + 1900, inside the first window, and flows forward into the
    // session before its own. Job 3 is ready at 2100 + 97900 = 100000, still inside the
    // first window, two sessions before its own: the seed's rule holds it back to the
    // start of the second window; `any` lets it in.
    let log = [
        logged(1, 1, 0, 100_000, 100, 1),
        logged(2, 1, 102_000, 0, 100, 1),
        logged(3, 1, 200_000, 0, 100, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    // The logged break after each early result, so that only the flow rule holds a job.
    let run = |flow| {
        let users = UserConfig {
            rules: ThinkRules {
                flow_forward: flow,
                opening_think: OpeningThink::KeepLead,
                ..ThinkRules::default()
            },
            ..users_of(&config)
        };
        feedback_run(
            trace_of(&log, 1, config),
            1,
            "logged:scale=0".parse::<SchedulerSpec>().unwrap(),
            users,
            None,
        )
    };
    let (users, jobs) = run(FlowForward::Next);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 2000), (3, 102_000)]);
    let d = users.summary().jobs.drift;
    assert_eq!((d.early(), d.lead_beyond_saved), (2, 0));
    assert_eq!(d.early[Rule::Break as usize], 1);
    assert_eq!(d.early[Rule::FlowLimit as usize], 1);
    let (_, jobs) = run(FlowForward::Any);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 2000), (3, 100_000)]);
}

#[test]
fn a_late_user_keeps_its_next_session_start_or_comes_back_a_threshold_after_its_result() {
    // Three times the logged waits. Job 1 ends at 3100 instead of 1100; job 2 opened the
    // next session at 5000 after a 3900 s break: still its logged start. Job 2 ends at
    // 17100 instead of 9100; job 3 opened the last session at 11000 after a 1900 s
    // break: 20 minutes after the late result, at 18300, not a whole break after it.
    let log = [
        logged(1, 1, 0, 1000, 100, 1),
        logged(2, 1, 5000, 4000, 100, 1),
        logged(3, 1, 11_000, 0, 100, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let run = |opening| {
        let users = UserConfig {
            rules: ThinkRules {
                opening_think: opening,
                ..ThinkRules::default()
            },
            ..users_of(&config)
        };
        feedback_run(
            trace_of(&log, 1, config),
            1,
            "logged:scale=3".parse::<SchedulerSpec>().unwrap(),
            users,
            None,
        )
    };
    let (users, jobs) = run(OpeningThink::Calendar);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 5000), (3, 18_300)]);
    let d = users.summary().jobs.drift;
    assert_eq!((d.on_time, d.late(), d.max_lateness), (2, 1, 7300));
    // The logged break after the late results: the delays pile up.
    let (_, jobs) = run(OpeningThink::Original);
    assert_eq!(submits(&jobs, 1), [(1, 0), (2, 7000), (3, 21_000)]);
}

#[test]
fn concurrent_submissions_keep_their_spacing_or_go_together() {
    // Job 2 was submitted 300 s after job 1, which was still waiting: a negative think
    // time. Job 1 runs at once here, so only the spacing rule decides.
    let log = [
        logged(1, 1, 0, 1000, 500, 1),
        logged(2, 1, 300, 1200, 100, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let run = |negative| {
        let users = UserConfig {
            rules: ThinkRules {
                negative_think: negative,
                ..ThinkRules::default()
            },
            ..users_of(&config)
        };
        feedback_run(trace_of(&log, 2, config), 2, Policy::Fcfs, users, None).1
    };
    assert_eq!(submits(&run(NegativeThink::Spacing), 1), [(1, 0), (2, 300)]);
    assert_eq!(submits(&run(NegativeThink::Together), 1), [(1, 0), (2, 0)]);
}

#[test]
fn the_order_constraint_holds_back_a_job_with_nothing_to_wait_for() {
    // Job 3 depends on no termination (submitted 10 s after job 2 while everything ran),
    // but job 2 waits for job 1, which the blocker delays: job 3 follows job 2's late
    // submission at its logged spacing.
    let log = [
        blocker(1, 1000),
        logged(2, 1, 0, 0, 100, 1),
        logged(3, 1, 110, 0, 500, 1),
        logged(4, 1, 120, 0, 500, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let (_, jobs) = feedback_run(
        trace_of(&log, 1, config),
        1,
        Policy::Fcfs,
        users_of(&config),
        None,
    );
    // Job 2 ends at 1100; job 3 is ready 10 s later; job 4, submitted in the log while
    // job 3 ran, keeps its 10 s spacing after job 3.
    assert_eq!(submits(&jobs, 1), [(2, 0), (3, 1110), (4, 1120)]);
}

#[test]
fn a_job_waits_for_the_last_job_of_an_earlier_session() {
    // Job 2 is a long job of the first session; job 3 opens a later session (its
    // predecessor, job 2, ended 100000 s before). The blocker delays job 2 to
    // [5000, 105000]: job 3 waits for it, then for its think time (capped at 1200).
    let log = [
        blocker(1, 5000),
        logged(2, 1, 0, 0, 100_000, 1),
        logged(3, 1, 200_000, 0, 10, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let (_, jobs) = feedback_run(
        trace_of(&log, 1, config),
        1,
        Policy::Fcfs,
        users_of(&config),
        None,
    );
    // Job 2's window is [0, 100000]; job 3 is ready at 106200, between windows: it waits
    // for its own window at 200000.
    assert_eq!(submits(&jobs, 1), [(2, 0), (3, 200_000)]);
    // A longer delay: job 3 becomes ready after its window, and is submitted then.
    let log = [
        blocker(1, 150_000),
        logged(2, 1, 0, 0, 100_000, 1),
        logged(3, 1, 200_000, 0, 10, 1),
    ]
    .concat();
    let (_, jobs) = feedback_run(
        trace_of(&log, 1, config),
        1,
        Policy::Fcfs,
        users_of(&config),
        None,
    );
    assert_eq!(submits(&jobs, 1), [(2, 0), (3, 251_200)]);
}

#[test]
fn dependence_by_start_waits_for_jobs_that_ended_while_a_job_waited() {
    // Job 3 was submitted at 50 while job 2 ran (until 100) and started at 250: it
    // depends on job 2 by its start, not by its submission. The blocker delays job 2 to
    // [1000, 1100].
    let log = [
        blocker(1, 1000),
        logged(2, 1, 0, 0, 100, 1),
        logged(3, 1, 50, 200, 10, 1),
    ]
    .concat();
    let by = |dependence| {
        let config = TraceConfig {
            dependence,
            ..TraceConfig::default()
        };
        feedback_run(
            trace_of(&log, 2, config),
            1,
            Policy::Fcfs,
            users_of(&config),
            None,
        )
        .1
    };
    assert_eq!(submits(&by(Dependence::Submit), 1), [(2, 0), (3, 50)]);
    // By start it waits for job 2's end at 1100; its dependency think time is negative
    // (it was submitted before job 2 ended), taken as 0.
    assert_eq!(submits(&by(Dependence::Start), 1), [(2, 0), (3, 1100)]);
}

/// A continuation curve of two steps: share `short` after responses (and runtimes) of at
/// most 60 s, 0 after longer ones; median think time of continued pairs 100 s.
fn step_curve(short: f64) -> ContinuationCurve {
    let text = format!(
        "source = \"hand-made\"\nthreshold = 1200\npairs = 2\nconcurrent = 0\n\
         median_think = 100\n[logistic]\nintercept = 0.0\nslope = 0.0\n\
         [[bucket]]\nup_to = 60\ncontinue = {short}\njobs = 1\ncontinued = 1\n\
         [[bucket]]\ncontinue = 0.0\njobs = 1\ncontinued = 0\n\
         [[slowdown]]\ncontinue = 0.5\njobs = 2\ncontinued = 1\n\
         [[runtime]]\nup_to = 60\ncontinue = {short}\njobs = 1\ncontinued = 1\n\
         [[runtime]]\ncontinue = 0.0\njobs = 1\ncontinued = 0\n"
    );
    ContinuationCurve::parse(&text, "hand-made.toml").expect("the hand-made curve parses")
}

/// The default user model reacting to service by `curve`.
fn reacting(config: &TraceConfig, curve: ContinuationCurve) -> UserConfig {
    UserConfig {
        behaviour: Behaviour {
            continuation: Some(curve),
            patience: None,
        },
        ..users_of(config)
    }
}

#[test]
fn a_user_gives_up_a_session_after_a_longer_response_than_the_logs() {
    // In the log job 2 responded in 50 s (share 1) and its user went on 100 s later with
    // job 3, whose 3000 s keep the window open to 3150. The blocker delays job 2 to
    // [1000, 1050]: after a response of 1050 s the share is 0, so the user gives up (with
    // probability 1 - 0/1): job 3 waits for the user to come back to work, at the start
    // of its next block of usual hours a threshold on (18000: its second session opened
    // in the hour from 18000), before its next window (job 4's at 20000), which the
    // literal rule waits for. Without the reaction job 3 is submitted at 1150, inside its
    // window.
    let log = [
        blocker(1, 1000),
        logged(2, 1, 0, 0, 50, 1),
        logged(3, 1, 150, 0, 3000, 1),
        logged(4, 1, 20_000, 0, 50, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let run = |users| feedback_run(trace_of(&log, 1, config), 1, Policy::Fcfs, users, None);
    let (_, jobs) = run(users_of(&config));
    assert_eq!(submits(&jobs, 1)[..2], [(2, 0), (3, 1150)]);
    let (users, jobs) = run(reacting(&config, step_curve(1.0)));
    assert_eq!(submits(&jobs, 1)[..2], [(2, 0), (3, 18_000)]);
    let c = users.summary().jobs;
    assert_eq!((c.gave_up, c.extended), (1, 0));
    assert_eq!(c.drift.late[Rule::GaveUp as usize], 1);
    let literal = UserConfig {
        rules: ThinkRules {
            away: Return::NextWindow,
            ..ThinkRules::default()
        },
        ..reacting(&config, step_curve(1.0))
    };
    let (_, jobs) = run(literal);
    assert_eq!(submits(&jobs, 1)[..2], [(2, 0), (3, 20_000)]);
}

#[test]
fn a_user_goes_on_with_its_next_job_after_a_shorter_response_than_the_logs() {
    // In the log job 1 waited 5000 s (response 5050 s, share 0) and its user came back a
    // day later with jobs 3 and 4. On the idle machine job 1 responds in 50 s (share 1):
    // the user goes on (probability (1 - 0) / (1 - 0)) with its next job, which flows
    // forward from its session to the median think time (100 s) after job 1's end, 150;
    // job 4 follows job 3's end (200) by its logged 100 s. No job is added: the next
    // session's jobs come early.
    let log = [
        logged(1, 1, 0, 5000, 50, 1),
        logged(3, 1, 90_000, 0, 50, 1),
        logged(4, 1, 90_150, 0, 50, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let (users, jobs) = feedback_run(
        trace_of(&log, 1, config),
        1,
        Policy::Fcfs,
        reacting(&config, step_curve(1.0)),
        None,
    );
    assert_eq!(submits(&jobs, 1), [(1, 0), (3, 150), (4, 300)]);
    let c = users.summary().jobs;
    assert_eq!((c.gave_up, c.extended, c.submitted), (0, 1, 3));
    assert_eq!(c.drift.early[Rule::Extended as usize], 1);
    assert_eq!(c.flowed_forward, 2);
    // The user went on where the log broke off, whatever the curve would have it do
    // after job 3 (its next job was planned within the session): nothing repeats.
    assert_eq!(users.summary().lateness.min, 150 - 90_000);
}

#[test]
fn a_user_goes_on_at_most_into_the_session_before_its_own() {
    // As above, with a third session at 200,000: after job 3 (now at 150) the user again
    // went on where the log broke off, but job 4 opens the session two after job 1's: it
    // flows forward no further than the window of the session before its own, job 3's
    // logged one at 90,000.
    let log = [
        logged(1, 1, 0, 5000, 50, 1),
        logged(3, 1, 90_000, 5000, 50, 1),
        logged(4, 1, 200_000, 0, 50, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let next = UserConfig {
        rules: ThinkRules {
            flow_forward: FlowForward::Next,
            ..ThinkRules::default()
        },
        ..reacting(&config, step_curve(1.0))
    };
    let (users, jobs) = feedback_run(trace_of(&log, 1, config), 1, Policy::Fcfs, next, None);
    assert_eq!(submits(&jobs, 1), [(1, 0), (3, 150), (4, 90_000)]);
    let c = users.summary().jobs;
    assert_eq!(c.extended, 2);
    assert_eq!(c.drift.early[Rule::FlowLimit as usize], 1);
}

#[test]
fn a_user_keeps_the_time_it_gains_or_loses_by_reacting() {
    // Going on: as above (jobs 1, 3 and 4 a session each, each of the first two waiting
    // 5000 s in the log). Job 3 comes 89850 s ahead of its log, and its user's calendar
    // moves with it: job 4, after job 3's 50 s response, would open its session 89850 s
    // ahead of its logged start; the user goes on again, at 300, and has done in 300 s
    // the work of three sessions.
    let log = [
        logged(1, 1, 0, 5000, 50, 1),
        logged(3, 1, 90_000, 5000, 50, 1),
        logged(4, 1, 200_000, 0, 50, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let (users, jobs) = feedback_run(
        trace_of(&log, 1, config),
        1,
        Policy::Fcfs,
        reacting(&config, step_curve(1.0)),
        None,
    );
    assert_eq!(submits(&jobs, 1), [(1, 0), (3, 150), (4, 300)]);
    assert_eq!(users.summary().jobs.extended, 2);
    // Giving up: the blocker makes job 2 respond in 1050 s and its user break off; job 3
    // comes when it is back to work, at the start of its next block of usual hours
    // (28800: its second session opened in the hour from 28800), 27650 s late. Its
    // calendar moves with it: job 4 opens its session that much after its logged start,
    // at 57650. Without the reaction nothing is late: job 3 follows job 2 at 1150 and
    // job 4 keeps its logged start.
    let log = [
        blocker(1, 1000),
        logged(2, 1, 0, 0, 50, 1),
        logged(3, 1, 150, 0, 3000, 1),
        logged(4, 1, 30_000, 0, 50, 1),
    ]
    .concat();
    let run = |users| feedback_run(trace_of(&log, 1, config), 1, Policy::Fcfs, users, None);
    let (users, jobs) = run(reacting(&config, step_curve(1.0)));
    assert_eq!(submits(&jobs, 1), [(2, 0), (3, 28_800), (4, 57_650)]);
    assert_eq!(users.summary().jobs.gave_up, 1);
    let (_, jobs) = run(users_of(&config));
    assert_eq!(submits(&jobs, 1), [(2, 0), (3, 1150), (4, 30_000)]);
}

#[test]
fn under_the_logs_own_service_users_do_not_react() {
    // The same log under its own service (`logged`): every response is the logged one,
    // so no session is given up or extended, and every job comes at its logged time.
    let log = [
        logged(1, 1, 0, 5000, 50, 1),
        logged(2, 0, 100, 0, 1000, 1),
        logged(3, 1, 90_000, 0, 50, 1),
        logged(4, 1, 90_150, 0, 50, 1),
    ]
    .concat();
    let config = TraceConfig::default();
    let logged_service: SchedulerSpec = "logged".parse().unwrap();
    let (users, jobs) = feedback_run(
        trace_of(&log, 2, config),
        2,
        logged_service,
        reacting(&config, step_curve(0.5)),
        None,
    );
    let c = users.summary().jobs;
    assert_eq!((c.gave_up, c.extended), (0, 0));
    assert_eq!(c.drift.on_time, 4);
    assert_eq!(submits(&jobs, 1), [(1, 0), (3, 90_000), (4, 90_150)]);
}
