//! The model-based site in the closed loop: hand-made job layers with known answers,
//! the one-session-at-a-time rule, determinism over thread counts, and scenario files.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use sitesim::commands::model::{ModelFiles, ModelOptions, replicate, run_model};
use sitesim::commands::replay::ReplayOptions;
use sitesim::experiment::run::RunSummary;
use sitesim::experiment::scenario::{DEFAULT_SCENARIO, Scenario};
use sitesim::model::dist::Quantiles;
use sitesim::model::jobs::{ClassJobs, JobLayerFile};
use sitesim::model::{
    BusyUser, Calibrate, CollisionRoom, DayCycle, JobLayer, Lifetime, Parameterization, TalbyModel,
};
use sitesim::model::{PerSessionClass, SessionClass};
use sitesim::results::replicate::with_threads;
use sitesim::sched::Policy;
use sitesim::time::{DAY, HOUR, WEEK};
use sitesim::users::{Behaviour, ContinuationCurve, Patience};

/// Every session: two jobs of one processor and `runtime` seconds, starting Monday
/// 10:00-11:00; the second follows the first's end by 100 s, or, when `concurrent`, its
/// submission by 50 s.
fn two_job_sessions(runtime: f64, concurrent: bool) -> JobLayer {
    let class = ClassJobs {
        sessions: 1,
        start_hour: (0..24).map(|h| if h == 10 { 1.0 } else { 0.0 }).collect(),
        start_day: vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        jobs: vec![0.0, 1.0],
        repetition_exponent: 1.0,
        runtime: Quantiles(vec![runtime, runtime]),
        sizes: vec![(1, 100, 1.0)],
        estimate_factor: Quantiles(vec![1.0, 1.0]),
        concurrent: if concurrent { 1.0 } else { 0.0 },
        think: Quantiles(vec![100.0, 100.0]),
        gap: Quantiles(vec![50.0, 50.0]),
        duration: Quantiles(vec![600.0, 600.0]),
    };
    JobLayer::new(JobLayerFile {
        source: vec!["hand-made".into()],
        threshold: 1200,
        class: PerSessionClass::from_fn(|_| class.clone()),
    })
    .unwrap()
}

fn files(jobs: JobLayer) -> ModelFiles {
    ModelFiles::new(
        Arc::new(TalbyModel::shipped()),
        "models/talby2006.toml",
        Arc::new(jobs),
        "hand-made",
    )
}

fn options(procs: u32, weeks: i64) -> ModelOptions {
    ModelOptions {
        run: ReplayOptions {
            policy: Policy::Easy.into(),
            procs: Some(procs),
            check: true,
            ..ReplayOptions::default()
        },
        params: Parameterization::MachineSize(procs),
        day: DayCycle::Fitted,
        users: 1.0,
        behaviour: Behaviour::default(),
        length: weeks * WEEK,
        replications: 1,
        threads: Some(1),
        record_sessions: true,
        machine: None,
        // Hand-made job layers keep their runtimes; the shipped one is calibrated.
        calibrate: Calibrate::Off,
        room: CollisionRoom::OwnDuration,
        busy: BusyUser::Queue,
        lifetime: Lifetime::Never,
    }
}

#[test]
fn a_job_follows_the_previous_end_by_its_think_time() {
    // A machine far larger than the load: no job waits, so a session's second job is
    // submitted at start + runtime + think and the session ends 1000 s later.
    let r = replicate(
        &files(two_job_sessions(1000.0, false)),
        &options(2048, 3),
        0,
    )
    .unwrap();
    assert!(!r.sessions.is_empty());
    assert_eq!(r.figures.mean_wait, 0.0);
    for s in &r.sessions {
        assert_eq!(s.jobs, 2);
        assert_eq!(s.median_think, 100.0);
        assert_eq!(s.end - s.start, 1000 + 100 + 1000, "{s:?}");
        // Monday 10:00-11:00, possibly deferred by the user's previous session.
        assert!(s.start % WEEK >= 10 * HOUR, "{s:?}");
    }
}

#[test]
fn a_concurrent_job_does_not_wait_for_the_previous_one() {
    let r = replicate(&files(two_job_sessions(1000.0, true)), &options(2048, 3), 0).unwrap();
    for s in &r.sessions {
        assert_eq!(s.median_think, 50.0 - 1000.0);
        assert_eq!(s.end - s.start, 50 + 1000, "{s:?}");
    }
}

#[test]
fn a_user_works_one_session_at_a_time() {
    // Sessions of 2 days of runtime each, all planned on Monday mornings: the plan
    // cannot keep a user's sessions apart, so its later ones queue, each opening once
    // the previous one is over plus the collision gap; none is lost but those still
    // queued at the horizon.
    let layer = files(two_job_sessions(DAY as f64, false));
    let r = replicate(&layer, &options(2048, 8), 0).unwrap();
    assert!(r.users.deferred > 0 && r.users.delay > 0, "{:?}", r.users);
    assert_eq!(r.users.skipped, 0);
    assert!(r.users.plan.collisions_kept > 0);
    // Records do not say the user, so check through the counts: every planned session
    // opened or was still queued at the end.
    let opened: u64 = r.users.sessions_by_class.iter().sum();
    let planned: u64 = r.users.plan.sessions_by_class.iter().sum();
    assert_eq!(opened + r.users.not_opened, planned);
    assert!(r.sessions.len() as u64 <= opened);
    for s in &r.sessions {
        assert_eq!(s.end - s.start, 2 * DAY + 100);
    }
    // The same plans with busy users skipping a session once their next is due: fewer
    // open, and every planned session is opened, skipped or still waiting.
    let skip = replicate(
        &layer,
        &ModelOptions {
            busy: BusyUser::Skip,
            ..options(2048, 8)
        },
        0,
    )
    .unwrap();
    assert_eq!(skip.users.plan, r.users.plan);
    assert!(skip.users.skipped > 0);
    let opened_skip: u64 = skip.users.sessions_by_class.iter().sum();
    assert!(opened_skip < opened);
    assert_eq!(
        opened_skip + skip.users.skipped + skip.users.not_opened,
        planned
    );
}

#[test]
fn the_plan_keeps_sessions_apart_by_their_own_duration() {
    // Sessions of two 1-hour jobs, starting at any hour of any day: the class's median
    // duration in the file (600 s) is far shorter, so under that room the plan lets
    // sessions overlap and the closed loop defers them even where nothing waits; under
    // their own duration the plan keeps them apart, and only the weeks it could not
    // place (users with many sessions) defer any (tests/model_components.rs checks the
    // plan's rule itself).
    let mut file = two_job_sessions(1.0 * HOUR as f64, false).file().clone();
    for c in [
        &mut file.class.iwd,
        &mut file.class.iwn,
        &mut file.class.iw,
        &mut file.class.bhp,
        &mut file.class.bhd,
    ] {
        c.start_hour = vec![1.0; 24];
        c.start_day = vec![1.0; 7];
    }
    let layer = files(JobLayer::new(file).unwrap());
    let own = replicate(&layer, &options(2048, 8), 0).unwrap();
    let median = replicate(
        &layer,
        &ModelOptions {
            room: CollisionRoom::ClassMedian,
            ..options(2048, 8)
        },
        0,
    )
    .unwrap();
    assert_eq!(own.figures.mean_wait, 0.0);
    assert!(
        median.users.deferred > own.users.deferred,
        "{:?} {:?}",
        median.users,
        own.users
    );
}

#[test]
fn a_slower_machine_stretches_sessions() {
    let jobs = files(two_job_sessions(3600.0, false));
    let big = replicate(&jobs, &options(2048, 4), 0).unwrap();
    // 100 processors, and every job needs one: still enough, but the same users and
    // sessions under a machine with fewer processors than concurrent jobs would wait.
    let small = replicate(&jobs, &options(100, 4), 0).unwrap();
    let mean = |r: &sitesim::commands::model::ModelReplication| {
        r.sessions
            .iter()
            .map(|s| (s.end - s.start) as f64)
            .sum::<f64>()
            / r.sessions.len() as f64
    };
    assert!(mean(&small) >= mean(&big));
    assert_eq!(mean(&big), (3600 + 100 + 3600) as f64);
}

/// Every session: two jobs that each take the whole machine for `runtime` seconds.
fn whole_machine_sessions(runtime: f64) -> JobLayer {
    let mut file = two_job_sessions(runtime, false).file().clone();
    for c in SessionClass::ALL {
        let class = match c {
            SessionClass::Iwd => &mut file.class.iwd,
            SessionClass::Iwn => &mut file.class.iwn,
            SessionClass::Iw => &mut file.class.iw,
            SessionClass::Bhp => &mut file.class.bhp,
            SessionClass::Bhd => &mut file.class.bhd,
        };
        class.sizes = vec![(100, 100, 1.0)];
    }
    JobLayer::new(file).unwrap()
}

#[test]
fn users_give_up_sessions_after_long_responses_and_leave_after_long_waits() {
    // Jobs of 30 s that queue behind each other for the whole machine: responses over a
    // minute make a user continue with probability 0.1 / 1.0 (jobs of 30 s continued
    // with share 1 under the reference service, so no session is extended).
    let jobs = files(whole_machine_sessions(30.0));
    let curve = ContinuationCurve::parse(
        "source = \"hand-made\"\nthreshold = 1200\npairs = 20\nconcurrent = 0\n\
         median_think = 60\n[logistic]\nintercept = 0.0\nslope = 0.0\n\
         [[bucket]]\nup_to = 60\ncontinue = 1.0\njobs = 10\ncontinued = 10\n\
         [[bucket]]\ncontinue = 0.1\njobs = 10\ncontinued = 1\n\
         [[slowdown]]\ncontinue = 0.55\njobs = 20\ncontinued = 11\n\
         [[runtime]]\nup_to = 60\ncontinue = 1.0\njobs = 10\ncontinued = 10\n\
         [[runtime]]\ncontinue = 0.1\njobs = 10\ncontinued = 1\n",
        "hand-made.toml",
    )
    .unwrap();
    let mut opts = options(100, 3);
    opts.users = 4.0;
    let base = replicate(&jobs, &opts, 0).unwrap();
    assert_eq!(base.users.gave_up, 0);
    assert!(base.figures.mean_wait > 30.0, "{}", base.figures.mean_wait);
    opts.behaviour.continuation = Some(curve);
    let r = replicate(&jobs, &opts, 0).unwrap();
    assert!(r.users.gave_up > 0);
    assert_eq!(
        r.users.dropped_jobs, r.users.gave_up,
        "one job left per session"
    );
    assert!(r.figures.jobs < base.figures.jobs);
    // Patience: a user leaves after 2 waits over 1 s.
    let mut opts = options(100, 3);
    opts.users = 4.0;
    opts.behaviour.patience = Some(Patience {
        limit: 1,
        strikes: 2,
    });
    let r = replicate(&jobs, &opts, 0).unwrap();
    assert!(r.users.frustrated > 0);
    assert!(r.figures.jobs < base.figures.jobs);
}

#[test]
fn replications_are_identical_on_any_thread_count() {
    let f = files(JobLayer::shipped());
    let mut opts = options(128, 8);
    opts.replications = 4;
    opts.run.check = false;
    opts.calibrate = Calibrate::Submitted;
    let stop = AtomicBool::new(false);
    let one = with_threads(Some(1), 4, || run_model(&f, &opts, &stop, &|| {}, None))
        .unwrap()
        .unwrap();
    let two = with_threads(Some(2), 4, || run_model(&f, &opts, &stop, &|| {}, None))
        .unwrap()
        .unwrap();
    assert_eq!(one, two);
    assert_eq!(one.replications.len(), 4);
    assert!(one.replications[0].figures.jobs > 0);
    // Different replications draw different users.
    assert_ne!(
        one.replications[0].figures.jobs,
        one.replications[1].figures.jobs
    );
}

#[test]
fn the_same_seed_gives_the_same_plan_under_every_scheduler() {
    let f = files(JobLayer::shipped());
    let mut opts = options(128, 6);
    opts.run.check = false;
    opts.calibrate = Calibrate::Submitted;
    let easy = replicate(&f, &opts, 0).unwrap();
    opts.run.policy = Policy::Fcfs.into();
    let fcfs = replicate(&f, &opts, 0).unwrap();
    assert_eq!(easy.users.plan, fcfs.users.plan);
}

#[test]
fn the_daily_cycle_can_be_switched_off() {
    let f = files(JobLayer::shipped());
    let mut opts = options(128, 10);
    opts.run.check = false;
    // Fitted to what it generates, the site has the same users with and without the
    // cycle (fitted to what they submit, each site to its own closed loop).
    opts.calibrate = Calibrate::Generated;
    let cycle = replicate(&f, &opts, 0).unwrap();
    opts.day = DayCycle::Flat;
    let flat = replicate(&f, &opts, 0).unwrap();
    // The same users and numbers of sessions, at other hours (classes may differ a
    // little: the chain follows the sessions in time order).
    let total = |r: &sitesim::commands::model::ModelReplication| -> u64 {
        r.users.plan.sessions_by_class.iter().sum()
    };
    assert_eq!(total(&cycle), total(&flat));
    assert_eq!(
        cycle.users.plan.users_by_class,
        flat.users.plan.users_by_class
    );
    let night = |r: &sitesim::commands::model::ModelReplication| {
        r.cycles.by_hour[..6]
            .iter()
            .map(|p| p.arrivals)
            .sum::<f64>()
            / r.cycles.by_hour.iter().map(|p| p.arrivals).sum::<f64>()
    };
    // KTH's sessions seldom start between midnight and 06:00; flat, a quarter do.
    assert!(night(&cycle) < 0.12, "{}", night(&cycle));
    assert!(night(&flat) > 0.18, "{}", night(&flat));
}

fn run(text: &str) -> Result<RunSummary, String> {
    Scenario::parse(text, "s.toml")?.run(&AtomicBool::new(false), &|| {})
}

#[test]
fn the_default_scenario_is_a_model_site() {
    let text = DEFAULT_SCENARIO
        .replace("duration = \"52w\"", "duration = \"6w\"")
        .replace("replications = 40", "replications = 2");
    let RunSummary::Model(s) = run(&text).unwrap() else {
        panic!("not a model run");
    };
    assert_eq!(s.run.procs, 128);
    assert_eq!(s.run.scheduler, "easy");
    assert_eq!(s.replications.len(), 2);
    assert!(
        s.stats
            .iter()
            .any(|m| m.metric == "jobs_per_week" && m.mean > 0.0)
    );
    // The targets of Table 28 beside what was generated, submitted and delivered.
    assert!((s.source.site.jobs_per_day - 46.0).abs() < 0.1);
    assert!(s.source.calibration.users > 0.0 && s.source.calibration.users < 1.0);
    for m in [
        "generated_jobs_per_day",
        "generated_median_runtime",
        "generated_load",
        "submitted_jobs_per_day",
        "submitted_load",
        "utilization",
        "sessions_skipped",
        "sessions_deferred",
        "sessions_not_opened",
        "session_delay",
    ] {
        assert!(s.source.workload.iter().any(|w| w.metric == m), "{m}");
    }
    let text = sitesim::commands::model::render_model(&s);
    assert!(
        text.contains("46.0 jobs/day, median CPU work 539 s, load 69.9%"),
        "{text}"
    );
    assert!(text.contains("utilization (delivered)"), "{text}");
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"calibration\"") && json.contains("\"generated_load\""));
}

#[test]
fn model_scenarios_are_checked() {
    let with = |from: &str, to: &str| {
        assert!(
            DEFAULT_SCENARIO.contains(from),
            "the default scenario has no '{from}'"
        );
        DEFAULT_SCENARIO.replace(from, to)
    };
    let cases: BTreeMap<&str, String> = [
        ("procs = 64", with("procs = 128 ", "procs = 64 ")),
        (
            "cpu_work and load go together",
            with("# cpu_work = 539", "cpu_work = 539"),
        ),
        (
            "loads of 0.4 to 0.8",
            with("# cpu_work = 539", "cpu_work = 539").replace("# load = 0.7", "load = 0.9"),
        ),
        (
            "[population] long_term does not apply to source = \"model\"",
            with("users = 1.0", "long_term = 2.0"),
        ),
        (
            "'-1' is not a number of 0 or more",
            with("users = 1.0", "users = -1.0"),
        ),
        (
            "replications must be at least 1",
            with("replications = 40", "replications = 0"),
        ),
        (
            "'1y' counts years",
            with("duration = \"52w\"", "duration = \"1y\""),
        ),
        (
            "unknown variant `drop`",
            with("# busy_user = \"waiting\"", "busy_user = \"drop\""),
        ),
        (
            "'3d' is not a user lifetime",
            with("# user_lifetime = \"52w\"", "user_lifetime = \"3d\""),
        ),
        (
            "'soon' is not a patience",
            with("# patience = \"fit\"", "patience = \"soon\""),
        ),
        (
            "unknown variant `mean`",
            with(
                "# collision_room = \"submissions\"",
                "collision_room = \"mean\"",
            ),
        ),
    ]
    .into_iter()
    .collect();
    for (want, text) in cases {
        let err = run(&text).unwrap_err();
        let want = if want == "procs = 64" {
            "valid for 100 to 2048 processors (Talby 2006, §14.1), not 64"
        } else {
            want
        };
        assert!(err.contains(want), "want '{want}', got '{err}'");
    }
    // A key that does not exist names its line.
    let text = with("daily_cycle = true", "daily_cycles = true");
    let err = Scenario::parse(&text, "s.toml").unwrap_err();
    let line = 1 + text
        .lines()
        .position(|l| l.starts_with("daily_cycles"))
        .unwrap();
    assert!(
        err.contains(&format!("unknown key `daily_cycles` at line {line}")),
        "{err}"
    );
    // Keys of replicated runs are refused by a single replay.
    let text = "replications = 3\n[scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"swf\"\npath = \"x.swf\"\n";
    let err = run(text).unwrap_err();
    assert!(
        err.contains("replications applies to source = \"model\""),
        "{err}"
    );
}

#[test]
fn a_resample_scenario_runs() {
    let Some(kth) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let text = format!(
        "duration = \"6w\"\nreplications = 2\nthreads = 2\n[scheduler]\npolicy = \"easy\"\n\
         [workload]\nsource = \"resample\"\npath = \"{}\"\n[population]\nlong_term = 1.0\n\
         temporary = 0.5\n[metrics]\nwarmup = \"1w\"\n",
        kth.display()
    );
    let RunSummary::Resample(s) = run(&text).unwrap() else {
        panic!("not a resampled run");
    };
    assert_eq!(s.replications.len(), 2);
    assert_eq!(s.source.weeks, 4);
    assert_eq!(s.source.population.temporary, 0.5);
}

/// Jobs per opened session of a model-site run.
fn jobs_per_opened_session(r: &sitesim::commands::model::ModelReplication) -> f64 {
    let jobs: u64 = r.users.jobs_by_class.iter().sum();
    let sessions: u64 = r.users.sessions_by_class.iter().sum();
    jobs as f64 / sessions as f64
}

#[test]
fn model_users_sessions_shrink_as_their_responses_grow() {
    // The shipped site sized for 128 processors, run on 128 and on 80 processors with the
    // same users (same seeds): responses grow on the smaller machine. Even without
    // reactions a session's jobs (submitted per opened session) change a little with the
    // machine (the horizon cuts late sessions, busy users defer theirs); with the
    // built-in KTH curve the users also react, so sessions must shrink by more. Paired
    // over 8 replications of 16 weeks, the mean of (drop with reactions - drop without)
    // must exceed t(0.995, 7) = 3.499 standard errors (a one-sided test at 0.5%).
    let files = ModelFiles::new(
        Arc::new(TalbyModel::shipped()),
        "models/talby2006.toml",
        Arc::new(JobLayer::shipped()),
        "models/kth-sessions.toml",
    );
    let curve = ContinuationCurve::parse(
        sitesim::users::KTH_CONTINUATION,
        "models/continuation-kth.toml",
    )
    .unwrap();
    let drop = |r: u32, continuation: Option<ContinuationCurve>| {
        let mut opts = options(128, 16);
        opts.calibrate = Calibrate::Submitted;
        opts.run.check = false;
        opts.behaviour.continuation = continuation;
        let large = jobs_per_opened_session(&replicate(&files, &opts, r).unwrap());
        opts.machine = Some(80);
        let small = jobs_per_opened_session(&replicate(&files, &opts, r).unwrap());
        large - small
    };
    let diffs: Vec<f64> = (0..8)
        .map(|r| drop(r, Some(curve.clone())) - drop(r, None))
        .collect();
    let n = diffs.len() as f64;
    let mean = diffs.iter().sum::<f64>() / n;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (var / n).sqrt();
    assert!(mean > 3.499 * se, "{mean} ± {se} jobs per session");
}

#[test]
fn work_hours_hold_for_deferred_sessions_and_optionally_for_every_job() {
    // The hand-made sessions start Monday 10:00-11:00; with work hours 10:00-11:00 a
    // session deferred by its busy user also opens only then, and with `all_jobs` no job
    // arrives outside those hours. Jobs of 2 h for the whole machine queue behind each
    // other and keep users busy past 11:00, so sessions are deferred.
    let jobs = files(whole_machine_sessions(7200.0));
    let mut opts = options(100, 4);
    opts.users = 4.0;
    let hour_of = |t: i64| (t.rem_euclid(DAY)) / HOUR;
    for all_jobs in [false, true] {
        opts.day = DayCycle::Window {
            from: 10,
            to: 11,
            all_jobs,
        };
        let r = replicate(&jobs, &opts, 0).unwrap();
        assert!(r.users.deferred > 0, "{:?}", r.users);
        for s in &r.sessions {
            assert_eq!(hour_of(s.start), 10, "{s:?}");
        }
        let outside: f64 = r
            .cycles
            .by_hour
            .iter()
            .enumerate()
            .filter(|&(h, _)| h != 10)
            .map(|(_, c)| c.arrivals)
            .sum();
        if all_jobs {
            assert_eq!(outside, 0.0, "{:?}", r.cycles.by_hour);
        } else {
            // A session's second job follows its first's end (2 h later) at any hour.
            assert!(outside > 0.0);
        }
    }
}

#[test]
fn a_scenario_finds_its_input_files_from_its_own_folder() {
    // A scenario in a folder of its own naming a job-layer file beside it, loaded from
    // another working directory: the file is found from the scenario's folder.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sitesim-scenario-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/kth-sessions.toml");
    std::fs::copy(shipped, dir.join("models/mine.toml")).unwrap();
    let text = "seed = 1\nduration = \"2w\"\nreplications = 1\n[machine]\nprocs = 128\n\
                [scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\njobs = \"models/mine.toml\"\n\
                [workload.users]\ncontinuation = \"off\"\n";
    let path = dir.join("s.toml");
    std::fs::write(&path, text).unwrap();
    let (scenario, back) = Scenario::load(&path).unwrap();
    assert_eq!(back, text);
    let (files, ..) = scenario.model_setup().unwrap();
    assert!(
        files.jobs_name.ends_with("models/mine.toml"),
        "{}",
        files.jobs_name
    );
    assert!(std::path::Path::new(&files.jobs_name).exists());
    // Parsed from text, with no file, paths stay as written.
    let parsed = Scenario::parse(text, "s.toml").unwrap();
    assert!(parsed.model_setup().is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
