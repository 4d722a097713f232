//! Adaptive meta-schedulers (Talby 2006, ch. 7): time-of-day switching, PBAS (§7.3) and
//! WBAS (§7.4). Hand cases show each switch where it happens; property tests check that a
//! meta-scheduler of one policy is that policy, and that every configuration keeps the
//! site's invariants (the checker is on in every run here).

mod common;

use std::sync::{Arc, Mutex};

use clap::ValueEnum;
use common::{Collect, job, job_of};
use proptest::prelude::*;
use sitesim::adaptive::{
    AdaptiveReport, Pbas, PbasMetric, PbasParams, TimeOfDay, TimeOfDayParams, Wbas, WbasParams,
};
use sitesim::job::{JobId, JobOutcome, JobRequest, OverrunPolicy};
use sitesim::predict::{PredictorDefaults, PredictorSpec};
use sitesim::registry::SchedulerSpec;
use sitesim::sched::{BuildContext, RunningJob, Scheduler, SystemView};
use sitesim::sim::{Observer, SimError, Simulation, SiteConfig};
use sitesim::swf::SwfReader;
use sitesim::time::{DAY, HOUR, Time};
use sitesim::workload::questionable::Policies;
use sitesim::workload::{LogReplay, ReplayConfig};

/// Replays `swf` on `procs` processors under `scheduler` (UTC clock, invariant checker
/// on), with `predictor` if given; returns the ended jobs by submission order.
fn run_with(
    swf: &str,
    procs: u32,
    scheduler: Box<dyn Scheduler>,
    overrun: OverrunPolicy,
    predictor: Option<&str>,
) -> Result<Vec<JobOutcome>, SimError> {
    let config = ReplayConfig {
        procs,
        policies: Policies::default(),
        interarrival_factor: 1.0,
        max_runtime: None,
        keep_records: false,
    };
    let reader = SwfReader::new(swf.as_bytes(), "case.swf").map_err(SimError::input)?;
    let workload = LogReplay::new(reader, "case.swf", config);
    let site = SiteConfig {
        procs,
        overrun,
        check: true,
    };
    let mut sim = Simulation::new(site, scheduler, workload, Collect::default());
    if let Some(p) = predictor {
        let spec: PredictorSpec = p.parse().expect("valid predictor");
        sim = sim.with_predictor(spec.build(&PredictorDefaults::default()).unwrap())?;
    }
    let (_, Collect(mut jobs), counts) = sim.run(None)?;
    assert_eq!(counts.submitted, counts.ended, "every submitted job ends");
    jobs.sort_by_key(|j| j.seq);
    Ok(jobs)
}

/// [`run_with`] under the policy `spec` names.
fn run_spec(swf: &str, procs: u32, spec: &str, overrun: OverrunPolicy) -> Vec<JobOutcome> {
    let spec: SchedulerSpec = spec.parse().expect("valid spec");
    run_with(
        swf,
        procs,
        spec.build(&BuildContext::new(procs)),
        overrun,
        None,
    )
    .unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// `(job number, start)` of every job.
fn starts(jobs: &[JobOutcome]) -> Vec<(i64, Time)> {
    jobs.iter().map(|j| (j.job, j.start)).collect()
}

/// `(submission, start, end)` of every job: what must agree between equal schedules.
fn schedule(jobs: &[JobOutcome]) -> Vec<(u64, Time, Time)> {
    jobs.iter().map(|j| (j.seq, j.start, j.end)).collect()
}

/// A meta-scheduler's report.
trait Reports {
    fn report(&self) -> AdaptiveReport;
}

impl Reports for Pbas {
    fn report(&self) -> AdaptiveReport {
        Pbas::report(self)
    }
}

impl Reports for Wbas {
    fn report(&self) -> AdaptiveReport {
        Wbas::report(self)
    }
}

impl Reports for TimeOfDay {
    fn report(&self) -> AdaptiveReport {
        TimeOfDay::report(self)
    }
}

/// Forwards everything to a meta-scheduler and keeps its report after every pass, with
/// the pass's time, where the test can read them after the run (the simulation owns the
/// scheduler).
#[derive(Clone)]
struct Spy<S> {
    inner: S,
    reports: Arc<Mutex<Vec<(Time, AdaptiveReport)>>>,
}

impl<S: Scheduler + Reports + Clone + 'static> Scheduler for Spy<S> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn sync(&mut self, view: &SystemView<'_>) {
        self.inner.sync(view);
    }
    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        self.inner.on_submit(job, view);
    }
    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        self.inner.on_end(job, view);
    }
    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        self.inner.on_replan(job, old_plan, started, view);
    }
    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        self.inner.schedule(view, starts);
        let report = self.inner.report();
        self.reports.lock().unwrap().push((view.now, report));
    }
    fn accepts_predictions(&self) -> bool {
        self.inner.accepts_predictions()
    }
    fn wake_at(&self) -> Option<Time> {
        self.inner.wake_at()
    }
    fn promises(&self, out: &mut Vec<(JobId, Time)>) {
        self.inner.promises(out);
    }
}

/// Runs `scheduler` on `swf` (kill policy) and returns the jobs and its final report.
fn spy_run<S: Scheduler + Reports + Clone + 'static>(
    swf: &str,
    procs: u32,
    scheduler: S,
) -> (Vec<JobOutcome>, AdaptiveReport) {
    let (jobs, mut reports) = spy_passes(swf, procs, scheduler, OverrunPolicy::Kill);
    let (_, report) = reports.pop().expect("at least one pass");
    (jobs, report)
}

/// A meta-scheduler's report after every pass, with the pass's time.
type Passes = Vec<(Time, AdaptiveReport)>;

/// Runs `scheduler` on `swf` under `overrun` and returns the jobs and its report after
/// every pass, with the pass's time.
fn spy_passes<S: Scheduler + Reports + Clone + 'static>(
    swf: &str,
    procs: u32,
    scheduler: S,
    overrun: OverrunPolicy,
) -> (Vec<JobOutcome>, Passes) {
    let reports = Arc::new(Mutex::new(Vec::new()));
    let spy = Spy {
        inner: scheduler,
        reports: reports.clone(),
    };
    let jobs = run_with(swf, procs, Box::new(spy), overrun, None).unwrap();
    let reports = std::mem::take(&mut *reports.lock().unwrap());
    (jobs, reports)
}

fn spec(s: &str) -> SchedulerSpec {
    s.parse().unwrap()
}

/// 10 processors, day = FCFS over local hours [8, 18), night = EASY (UTC: time 0 is
/// midnight). At 17:50 A (6 procs, 2000 s) starts and B (8 procs) waits for it; C
/// (2 procs, 10 s) arrives at 17:50:02. EASY would backfill C at once; FCFS by day does
/// not. At 18:00 no job arrives or ends, but the night policy takes over in a pass asked
/// for then, and backfills C (it ends long before A's end, B's shadow time). B starts when
/// A ends.
#[test]
fn time_of_day_backfills_only_at_night() {
    let t = 17 * HOUR + 50 * 60;
    let swf = [
        job(1, t, 2000, 6, 2000),
        job(2, t + 1, 100, 8, 100),
        job(3, t + 2, 10, 2, 10),
    ]
    .concat();
    let evening = [(1, t), (2, t + 2000), (3, 18 * HOUR)];
    let params = TimeOfDayParams {
        day: spec("fcfs").into(),
        night: spec("easy").into(),
        day_start: 8,
        day_end: 18,
    };
    let (jobs, report) = spy_run(&swf, 10, TimeOfDay::new(&params, &BuildContext::new(10)));
    assert_eq!(starts(&jobs), evening);
    // The pass asked for at 8:00 the next morning, while B was running, still comes:
    // the day policy takes over then, on an empty machine.
    assert_eq!((report.active, report.switches_taken), (0, 2), "{report:?}");
    let active: Vec<Time> = report.candidates.iter().map(|c| c.seconds_active).collect();
    assert_eq!(active, [10 * 60, 14 * HOUR], "{report:?}");
    // The same through the registry; and the plain policies differ.
    let by_name = "time-of-day:day=fcfs,night=easy,day_start=8,day_end=18";
    assert_eq!(
        starts(&run_spec(&swf, 10, by_name, OverrunPolicy::Kill)),
        evening
    );
    let easy = run_spec(&swf, 10, "easy", OverrunPolicy::Kill);
    assert_eq!(starts(&easy)[2], (3, t + 2), "EASY backfills C at once");
    let fcfs = run_spec(&swf, 10, "fcfs", OverrunPolicy::Kill);
    assert_eq!(starts(&fcfs)[2], (3, t + 2000), "FCFS starts C with B");
    // With the boundary at 19:00, C waits for B as under FCFS.
    let late = "time-of-day:day=fcfs,night=easy,day_start=8,day_end=19";
    assert_eq!(
        starts(&run_spec(&swf, 10, late, OverrunPolicy::Kill)),
        starts(&fcfs)
    );
}

/// 10 processors, PBAS over FCFS and EASY by mean wait, switching every 1000 s. A
/// (8 procs, 3000 s) starts at 0 and B (10 procs) waits for it; twenty small jobs (2 procs,
/// 50 s) arrive from 10 to 960. FCFS, active first, starts none of them. At 1000 the
/// shadow of FCFS has every small job waiting, that of EASY has backfilled each at its
/// arrival: EASY's mean wait is lower, so it takes over and backfills the small jobs from
/// 1000 on, one at a time on the 2 free processors. B starts at 3000 as under both.
#[test]
fn pbas_switches_to_the_candidate_that_waited_less() {
    let mut swf = job(1, 0, 3000, 8, 3000) + &job(2, 1, 100, 10, 100);
    for i in 0..20 {
        swf += &job(3 + i, 10 + 50 * i, 50, 2, 50);
    }
    let params = PbasParams {
        candidates: vec![spec("fcfs").into(), spec("easy").into()],
        period: 1000,
        metric: PbasMetric::Wait,
    };
    let (jobs, report) = spy_run(&swf, 10, Pbas::new(&params, &BuildContext::new(10)));
    let small: Vec<Time> = jobs[2..].iter().map(|j| j.start).collect();
    let expected: Vec<Time> = (0..20).map(|i| 1000 + 50 * i).collect();
    assert_eq!(small, expected);
    assert_eq!(jobs[1].start, 3000);
    assert_eq!(report.active, 1, "{report:?}");
    assert_eq!(report.switches_taken, 1, "{report:?}");
    assert!(
        report.switches_evaluated >= 3,
        "at 1000, 2000 and 3000: {report:?}"
    );
    // At 3000 both shadows only had B waiting, since 2000.
    let (fcfs, easy) = (&report.candidates[0], &report.candidates[1]);
    assert_eq!(fcfs.last_score, easy.last_score, "{report:?}");
    assert_eq!(fcfs.seconds_active, 1000);
    // The registry builds the same scheduler.
    let by_name = r#"pbas:candidates=["fcfs","easy"],period=1000,metric=wait"#;
    assert_eq!(
        schedule(&run_spec(&swf, 10, by_name, OverrunPolicy::Kill)),
        schedule(&jobs)
    );
    // As FCFS all along, the small jobs wait for B; with EASY first, PBAS stays EASY.
    let fcfs = run_spec(&swf, 10, "fcfs", OverrunPolicy::Kill);
    assert!(
        fcfs[2..].iter().all(|j| j.start >= 3100),
        "{:?}",
        starts(&fcfs)
    );
    let easy_first = r#"pbas:candidates=["easy","fcfs"],period=1000,metric=wait"#;
    assert_eq!(
        schedule(&run_spec(&swf, 10, easy_first, OverrunPolicy::Kill)),
        schedule(&run_spec(&swf, 10, "easy", OverrunPolicy::Kill))
    );
}

/// 10 processors, WBAS with high = EASY, low = FCFS, switching every 1000 s, MAF 10.
/// Narrow jobs (1 proc) arrive in [0, 1000), then W1 (8 procs, 2000 s) at 1000, which
/// counts in the period ending then (it arrives before the pass): the period's mean,
/// 18/11, is below the average, 1.7, so FCFS stays. Wide jobs W2-W4 (8 procs) arrive
/// just after and wait for W1. At 2000 their mean (8) is above the average (which moved
/// only part of the way towards 8, to 3.4), so EASY takes over. S (2 procs, 10 s) arriving
/// at 2500 is backfilled at once. At 3000 the period's mean is 2, below the average:
/// FCFS again.
#[test]
fn wbas_switches_to_high_after_wide_jobs() {
    let mut swf = String::new();
    for i in 0..10 {
        swf += &job(1 + i, 100 * i, 10, 1, 10);
    }
    swf += &job(11, 1000, 2000, 8, 2000);
    for i in 0..3 {
        swf += &job(12 + i, 1001 + i, 100, 8, 100);
    }
    swf += &job(15, 2500, 10, 2, 10);
    let params = WbasParams {
        high: spec("easy").into(),
        low: spec("fcfs").into(),
        period: 1000,
        maf: 10.0,
    };
    let wbas = Wbas::new(&params, &BuildContext::new(10));
    let (jobs, report) = spy_run(&swf, 10, wbas);
    assert_eq!(jobs[14].start, 2500, "S is backfilled under EASY");
    assert_eq!(report.switches_taken, 2, "{report:?}");
    assert_eq!(report.active, 1, "back to FCFS at 3000: {report:?}");
    assert_eq!(report.candidates[0].seconds_active, 1000, "{report:?}");
    let by_name = r#"wbas:high=easy,low=fcfs,period=1000,maf=10"#;
    assert_eq!(
        schedule(&run_spec(&swf, 10, by_name, OverrunPolicy::Kill)),
        schedule(&jobs)
    );
    // As FCFS all along, S would wait for the wide jobs.
    let fcfs = run_spec(&swf, 10, "fcfs", OverrunPolicy::Kill);
    assert!(fcfs[14].start >= 3000);
}

/// A long job alone: 4 of 10 processors from 0 to 864,030 s (ten days and 30 s). The
/// switch at 60 s passes over an empty queue in a quiet period, so the machine is frozen:
/// no pass is asked for the next 14,399 switch times (120 to 864,000 s), each of which
/// would keep the active candidate. The job's end reaches them, and the pass the last of
/// them had asked for still comes, at 864,060 on the empty machine: 14,401 switches in
/// all. PBAS scores that last period by utilization from the state at its start, 864,000:
/// the job's last 30 s on 4 processors, 120 of 600 processor-seconds.
#[test]
fn switch_times_over_an_empty_queue_ask_for_no_pass() {
    let swf = job(1, 0, 864_030, 4, 864_030);
    let candidates = || (spec("easy").into(), spec("fcfs").into());
    let (easy, fcfs) = candidates();
    let pbas = Pbas::new(
        &PbasParams {
            candidates: vec![easy, fcfs],
            period: 60,
            metric: PbasMetric::Utilization,
        },
        &BuildContext::new(10),
    );
    let (high, low) = candidates();
    let wbas = Wbas::new(
        &WbasParams {
            high,
            low,
            period: 60,
            maf: 10.0,
        },
        &BuildContext::new(10),
    );
    let (_, pbas) = spy_passes(&swf, 10, pbas, OverrunPolicy::Kill);
    let (_, wbas) = spy_passes(&swf, 10, wbas, OverrunPolicy::Kill);
    for passes in [&pbas, &wbas] {
        let times: Vec<Time> = passes.iter().map(|(t, _)| *t).collect();
        assert_eq!(times, [0, 60, 864_030, 864_060]);
        let report = &passes.last().unwrap().1;
        assert_eq!(report.switches_evaluated, 14_401, "{report:?}");
        assert_eq!(report.switches_taken, 0, "{report:?}");
    }
    let scores: Vec<_> = pbas[3].1.candidates.iter().map(|c| c.last_score).collect();
    assert_eq!(scores, [Some(0.2), Some(0.2)]);
}

/// The job of [`switch_times_over_an_empty_queue_ask_for_no_pass`] with the run stopped at
/// 500,030 s: the switch times up to the horizon are reached as if passed (60 to 499,980
/// s, 8,333), observers see the machine at the last, and PBAS's scores are those of its
/// period, [499,920, 499,980], the job on 4 of 10 processors throughout.
#[test]
fn switch_times_up_to_the_horizon_are_reached() {
    #[derive(Default)]
    struct Last {
        pass: Option<Time>,
        report: Option<serde_json::Value>,
    }
    impl Observer for Last {
        fn on_pass(&mut self, view: &SystemView<'_>) {
            self.pass = Some(view.now);
        }
        fn on_report(&mut self, report: &serde_json::Value) {
            self.report = Some(report.clone());
        }
    }
    let swf = job(1, 0, 864_030, 4, 864_030);
    let pbas = spec(r#"pbas:candidates=["easy","fcfs"],period=60,metric=utilization"#);
    let reader = SwfReader::new(swf.as_bytes(), "case.swf").unwrap();
    let config = ReplayConfig {
        procs: 10,
        policies: Policies::default(),
        interarrival_factor: 1.0,
        max_runtime: None,
        keep_records: false,
    };
    let site = SiteConfig {
        procs: 10,
        overrun: OverrunPolicy::Kill,
        check: true,
    };
    let workload = LogReplay::new(reader, "case.swf", config);
    let scheduler = pbas.build(&BuildContext::new(10));
    let sim = Simulation::new(site, scheduler, workload, Last::default());
    let (_, last, counts) = sim.run(Some(500_030)).unwrap();
    assert_eq!(last.pass, Some(499_980));
    assert_eq!(counts.passes, 2, "passes at 0 and 60 only");
    let report = last.report.expect("a report");
    assert_eq!(report["switches_evaluated"], 8_333, "{report}");
    for candidate in report["candidates"].as_array().unwrap() {
        assert_eq!(candidate["last_score"], 0.4, "{report}");
    }
    let seconds: Vec<_> = report["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["seconds_active"].clone())
        .collect();
    assert_eq!(
        seconds,
        [499_980, 0],
        "from the first event to the last switch time"
    );
}

/// WBAS's first weeks: the long-term average starts as the running mean of the arrivals,
/// not as the first job's size. 10 processors, high = EASY, low = FCFS, period 1000 s,
/// MAF 100. A wide first job (8 procs) and nine narrow ones (1 proc) arrive in [0, 1000):
/// the average is their mean, 1.7, and so is the period's, so FCFS stays. Three jobs of 3
/// procs arrive in [1000, 2000): the average moves to 26/13 = 2, below the period's 3, so
/// EASY takes over at 2000. Started from the first job (8) and moving by 1/100 an arrival,
/// the average would still be above 7 and FCFS would stay.
#[test]
fn wbas_average_starts_as_the_mean_of_the_first_arrivals() {
    let mut swf = job(1, 0, 10, 8, 10);
    for i in 0..9 {
        swf += &job(2 + i, 100 * (i + 1), 10, 1, 10);
    }
    for i in 0..3 {
        swf += &job(11 + i, 1100 + 100 * i, 1500, 3, 1500);
    }
    let params = WbasParams {
        high: spec("easy").into(),
        low: spec("fcfs").into(),
        period: 1000,
        maf: 100.0,
    };
    let (_, report) = spy_run(&swf, 10, Wbas::new(&params, &BuildContext::new(10)));
    assert_eq!(report.switches_taken, 1, "{report:?}");
    assert_eq!(report.active, 0, "EASY from 2000: {report:?}");
}

#[test]
fn parameters_are_checked_and_errors_name_them() {
    let err = |s: &str| s.parse::<SchedulerSpec>().unwrap_err();
    for (spec, needle) in [
        ("pbas:metric=foo", "metric"),
        ("pbas:period=0", "period must be at least 60 s"),
        ("pbas:period=59", "period must be at least 60 s, not 59"),
        ("wbas:period=1", "wbas: period must be at least 60 s"),
        ("pbas:period=none", "period cannot be none"),
        ("pbas:candidates=[]", "candidates"),
        (r#"pbas:candidates=["nope"]"#, "unknown policy 'nope'"),
        ("pbas:foo=1", "no parameter 'foo'"),
        ("wbas:maf=0.5", "maf must be at least 1"),
        ("wbas:period=0", "wbas: period"),
        ("wbas:hihg=easy", "no parameter 'hihg'"),
        ("time-of-day:day_start=25", "day_start"),
        ("time-of-day:day_end=7.5", "day_end"),
        ("time-of-day:night=nope", "unknown policy 'nope'"),
        (r#"time-of-day:day="pbas:metric=foo""#, "metric"),
    ] {
        let e = err(spec);
        assert!(e.contains(needle), "{spec}: {e}");
    }
    let s = spec(r#"pbas:candidates=["fcfs","creasy:alpha=0"],period=1h,metric=bsld"#);
    assert_eq!(s.build(&BuildContext::new(4)).name(), "pbas");
    assert_eq!(s.to_string().parse::<SchedulerSpec>().unwrap(), s);
    for name in ["pbas", "wbas", "time-of-day"] {
        assert!(sitesim::registry::policies().iter().any(|(n, _)| n == name));
        assert_eq!(spec(name).build(&BuildContext::new(4)).name(), name);
    }
    // A predictor is for policies that all take one.
    let ctx = BuildContext::new(4);
    assert!(
        spec(r#"pbas:candidates=["easy","sjbf"]"#)
            .build(&ctx)
            .accepts_predictions()
    );
    // Flex plans with estimates: PBAS and WBAS over their defaults, Flex and Maui, too.
    assert!(!spec("pbas").build(&ctx).accepts_predictions());
    assert!(!spec("wbas").build(&ctx).accepts_predictions());
    assert!(
        !spec(r#"pbas:candidates=["easy","conservative"]"#)
            .build(&ctx)
            .accepts_predictions()
    );
    assert!(
        !spec("wbas:low=conservative")
            .build(&ctx)
            .accepts_predictions()
    );
}

/// A random log: `(procs, text)`, times scaled by `scale` (see `tests/properties.rs`).
fn workload(scale: i64) -> impl Strategy<Value = (u32, String)> {
    (1u32..=16).prop_flat_map(move |procs| {
        let job = (
            prop_oneof![3 => Just(0i64), 7 => 0i64..120],
            prop_oneof![2 => Just(1u32), 3 => 1u32..=procs, 1 => Just(procs)],
            prop_oneof![1 => Just(0i64), 9 => 1i64..400],
            prop_oneof![Just(0u8), Just(1u8), Just(2u8)],
            1u32..=500,
            1i64..=3,
        );
        (Just(procs), prop::collection::vec(job, 1..40)).prop_map(move |(procs, jobs)| {
            let mut t = 0;
            let mut text = String::new();
            for (i, (gap, size, run, kind, pct, user)) in jobs.into_iter().enumerate() {
                t += gap * scale;
                let run = run * scale;
                let estimate = match kind {
                    0 => run.max(1),
                    1 => (run * i64::from(100 + pct) / 100).max(1),
                    _ => (run * i64::from(pct % 100) / 100).max(1),
                };
                let (n, size) = (i as i64 + 1, i64::from(size));
                text.push_str(&job_of(n, t, run, size, estimate, user, -1));
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

/// 32 cases by default; `PROPTEST_CASES` raises it for a longer search. Failures are
/// reported, not persisted.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(cases)
    }
}

proptest! {
    #![proptest_config(config())]

    /// PBAS whose candidates are all one policy never switches (ties keep the active
    /// candidate), so it schedules exactly as that policy, while it simulates its
    /// candidates in the background at every switch time. The passes it asks for at
    /// switch times change nothing as long as no job outlives its plan; under `overrun`
    /// a pass sees a job past its estimate as ending one second later, so an extra pass
    /// can shift a start by a second, and only `kill` and `extend` are compared.
    #[test]
    fn pbas_of_one_policy_is_that_policy(
        (procs, swf) in workload(1),
        period in 60i64..2000,
        metric in 0usize..4,
    ) {
        let metric = sitesim::options::name(&PbasMetric::value_variants()[metric]);
        for policy in ["easy", "sjbf", "fcfs", "conservative"] {
            for overrun in [OverrunPolicy::Kill, OverrunPolicy::Extend] {
                let plain = run_spec(&swf, procs, policy, overrun);
                let pbas = format!(
                    r#"pbas:candidates=["{policy}","{policy}"],period={period},metric={metric}"#
                );
                let adaptive = run_spec(&swf, procs, &pbas, overrun);
                prop_assert_eq!(schedule(&adaptive), schedule(&plain), "{} {:?}", pbas, overrun);
            }
        }
    }

    /// Time-of-day switching between two copies of EASY is EASY: at each boundary a fresh
    /// EASY synced to the machine decides as the old one would. (Under `overrun` a pass
    /// at a boundary may see a job past its estimate where no pass would have been, so
    /// only `kill` and `extend` are compared.)
    #[test]
    fn time_of_day_of_one_policy_is_that_policy(
        (procs, swf) in workload(40),
        day_start in 0u8..24,
        length in 1u8..23,
    ) {
        let day_end = (day_start + length) % 24;
        for policy in ["easy", "sjbf", "fcfs"] {
            for overrun in [OverrunPolicy::Kill, OverrunPolicy::Extend] {
                let plain = run_spec(&swf, procs, policy, overrun);
                let tod = format!(
                    "time-of-day:day={policy},night={policy},day_start={day_start},day_end={day_end}"
                );
                let adaptive = run_spec(&swf, procs, &tod, overrun);
                prop_assert_eq!(schedule(&adaptive), schedule(&plain), "{} {:?}", tod, overrun);
            }
        }
    }

    /// Every adaptive configuration keeps the site's invariants (the checker is on, and
    /// every job ends), whatever the candidates, period and overrun policy; with a
    /// predictor too when all candidates take one.
    #[test]
    fn adaptive_policies_keep_the_invariants(
        (procs, swf) in workload(3),
        period in 60i64..3000,
        metric in 0usize..4,
        hours in (0u8..=24, 0u8..=24),
    ) {
        let metric = sitesim::options::name(&PbasMetric::value_variants()[metric]);
        let specs = [
            format!(
                r#"pbas:candidates=["fcfs","easy","sjbf","conservative","creasy"],period={period},metric={metric}"#
            ),
            format!(r#"wbas:high=conservative,low=fcfs,period={period},maf=3"#),
            format!(r#"wbas:high=creasy,low=sjbf,period={period},maf=1"#),
            format!(
                "time-of-day:day=conservative,night=easy,day_start={},day_end={}",
                hours.0, hours.1
            ),
            format!(
                r#"pbas:candidates=["easy",{{name="wbas",period={period},high="fcfs"}}],period={},metric={metric}"#,
                period * 2 + 1
            ),
            format!(
                r#"pbas:candidates=[{{name="pbas",candidates=["fcfs","sjbf"],period={period}}},{{name="time-of-day",day="conservative",day_start=1,day_end=2}}],period={},metric={metric}"#,
                period / 2 + sitesim::adaptive::MIN_PERIOD
            ),
        ];
        for spec in &specs {
            for overrun in OVERRUNS {
                run_spec(&swf, procs, spec, overrun);
            }
        }
        let pbas = format!(r#"pbas:candidates=["easy","sjbf","creasy"],period={period},metric={metric}"#);
        let pbas: SchedulerSpec = pbas.parse().unwrap();
        for overrun in OVERRUNS {
            let jobs = run_with(&swf, procs, pbas.build(&BuildContext::new(procs)), overrun, Some("easy++"));
            prop_assert!(jobs.is_ok(), "{:?}", jobs.err());
        }
    }
}

/// Checks the outcomes of a run against the site's rules, independently of the
/// simulation's checker: every job once, started no earlier than its submission, ended
/// as `overrun` says, and never more processors in use than the machine has.
fn check_outcomes(
    jobs: &[JobOutcome],
    procs: u32,
    overrun: OverrunPolicy,
) -> Result<(), TestCaseError> {
    prop_assert!(jobs.windows(2).all(|w| w[0].seq < w[1].seq), "a job twice");
    let mut usage = Vec::new();
    for j in jobs {
        prop_assert!(j.start >= j.submit && j.end >= j.start, "{:?}", j);
        let runtime = match overrun {
            OverrunPolicy::Kill => j.requested_runtime.min(j.estimate),
            OverrunPolicy::Extend | OverrunPolicy::Overrun => j.requested_runtime,
        };
        prop_assert_eq!(j.end - j.start, runtime, "{:?}", j);
        if j.end > j.start {
            usage.push((j.start, i64::from(j.size)));
            usage.push((j.end, -i64::from(j.size)));
        }
    }
    // Ends before starts at one time.
    usage.sort();
    let mut busy = 0;
    for (t, d) in usage {
        busy += d;
        prop_assert!(
            busy <= i64::from(procs),
            "{} processors busy at {}",
            busy,
            t
        );
    }
    Ok(())
}

/// Checks what a meta-scheduler's report claims, after every pass (`reports`, by time):
/// passes in time order; the counters never go back and a switch taken is one evaluated; the
/// active candidate changes exactly at the passes that take a switch; the candidates'
/// seconds active add up to the time from the first event (the first submission) to the
/// pass; and, with a `period`, switch times are at least a period after the first event
/// and after each other (several reached at one pass were skipped over an empty queue,
/// where they kept the active candidate: at most the last, at the pass, switches).
fn check_reports(
    jobs: &[JobOutcome],
    reports: &[(Time, AdaptiveReport)],
    period: Option<Time>,
) -> Result<(), TestCaseError> {
    let Some(first) = jobs.iter().map(|j| j.submit).min() else {
        return Ok(());
    };
    prop_assert!(!reports.is_empty());
    let mut last_switch = first;
    for (i, (t, r)) in reports.iter().enumerate() {
        prop_assert!(r.active < r.candidates.len(), "{:?}", r);
        prop_assert!(r.switches_taken <= r.switches_evaluated, "{:?}", r);
        let active: Time = r.candidates.iter().map(|c| c.seconds_active).sum();
        prop_assert_eq!(active, t - first, "seconds active at {}: {:?}", t, r);
        let Some((before, prev)) = i.checked_sub(1).map(|i| &reports[i]) else {
            prop_assert_eq!((r.switches_evaluated, r.switches_taken), (0, 0));
            continue;
        };
        // A second pass at one time follows a job of zero runtime (`docs/MODELS.md`).
        prop_assert!(t >= before, "a pass at {} after one at {}", t, before);
        let taken = r.switches_taken - prev.switches_taken;
        let evaluated = r.switches_evaluated - prev.switches_evaluated;
        prop_assert!(taken <= 1 && taken <= evaluated, "at {}: {:?}", t, r);
        prop_assert_eq!(taken == 1, r.active != prev.active, "at {}: {:?}", t, r);
        if let Some(period) = period.filter(|_| evaluated > 0) {
            let n = evaluated as Time;
            prop_assert!(
                *t >= last_switch + n * period,
                "{} switch times by {} after {}",
                n,
                t,
                last_switch
            );
            // The last falls at this pass, or was skipped (so came after the last pass):
            // a lower bound of it.
            last_switch = (last_switch + n * period).max(before + 1 + (n - 1) * period);
        }
    }
    Ok(())
}

/// PBAS's choice at every switch time: no candidate scored strictly better than the
/// one it activates (a candidate without a score is worse than any with one), and it
/// leaves the active candidate only for a strictly better one (ties keep it).
fn check_pbas_choices(
    reports: &[(Time, AdaptiveReport)],
    metric: PbasMetric,
) -> Result<(), TestCaseError> {
    let better = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if metric == PbasMetric::Utilization => a > b,
        (Some(a), Some(b)) => a < b,
        (Some(_), None) => true,
        (None, _) => false,
    };
    for pair in reports.windows(2) {
        let ((_, prev), (t, r)) = (&pair[0], &pair[1]);
        if r.switches_evaluated == prev.switches_evaluated {
            continue;
        }
        let scores: Vec<Option<f64>> = r.candidates.iter().map(|c| c.last_score).collect();
        let chosen = scores[r.active];
        prop_assert!(
            !scores.iter().any(|&s| better(s, chosen)),
            "at {}: {:?}",
            t,
            r
        );
        if r.active != prev.active {
            prop_assert!(better(chosen, scores[prev.active]), "at {}: {:?}", t, r);
        }
    }
    Ok(())
}

/// Runs `scheduler` twice on `swf` under `overrun` and checks that the two runs agree
/// (jobs, and the reports after every pass); returns the first.
fn run_twice<S: Scheduler + Reports + Clone + 'static>(
    swf: &str,
    procs: u32,
    scheduler: S,
    overrun: OverrunPolicy,
) -> Result<(Vec<JobOutcome>, Passes), TestCaseError> {
    let (jobs, reports) = spy_passes(swf, procs, scheduler.clone(), overrun);
    let (again, again_reports) = spy_passes(swf, procs, scheduler, overrun);
    prop_assert_eq!(&jobs, &again, "not deterministic");
    // Scores may be NaN (never equal to themselves): compare the reports as printed.
    prop_assert_eq!(
        format!("{reports:?}"),
        format!("{again_reports:?}"),
        "reports not deterministic"
    );
    Ok((jobs, reports))
}

proptest! {
    #![proptest_config(config())]

    /// What the three meta-schedulers claim, on random workloads under every overrun
    /// policy: the site's rules hold (checked from the outcomes, besides the checker),
    /// runs are deterministic, switching never loses or repeats a job, the reports are
    /// consistent pass by pass (`check_reports`), PBAS activates the best-scoring
    /// candidate (`check_pbas_choices`), and time-of-day has the policy of the hour (UTC)
    /// active at every pass. Times are scaled by 1, 20 or 300, so that periods and hours
    /// fall within busy spells, between them and across idle days.
    #[test]
    fn meta_schedulers_keep_their_claims(
        (procs, swf) in prop_oneof![workload(1), workload(20), workload(300)],
        period in 1i64..20_000,
        metric in 0usize..4,
        hours in (0u8..=24, 0u8..=24),
    ) {
        let ctx = BuildContext::new(procs);
        let metric = PbasMetric::value_variants()[metric];
        let pbas = Pbas::new(
            &PbasParams {
                candidates: vec![spec("fcfs").into(), spec("easy").into(), spec("conservative").into()],
                period,
                metric,
            },
            &ctx,
        );
        let wbas = Wbas::new(
            &WbasParams {
                high: spec("conservative").into(),
                low: spec("sjbf").into(),
                period,
                maf: 3.0,
            },
            &ctx,
        );
        let (day_start, day_end) = hours;
        let tod = TimeOfDay::new(
            &TimeOfDayParams {
                day: spec("fcfs").into(),
                night: spec("easy").into(),
                day_start,
                day_end,
            },
            &ctx,
        );
        let is_day = |t: Time| {
            let hour = (t.rem_euclid(DAY) / HOUR) as u8;
            if day_start <= day_end {
                (day_start..day_end).contains(&hour)
            } else {
                hour >= day_start || hour < day_end
            }
        };
        for overrun in OVERRUNS {
            let (jobs, reports) = run_twice(&swf, procs, pbas.clone(), overrun)?;
            check_outcomes(&jobs, procs, overrun)?;
            check_reports(&jobs, &reports, Some(period))?;
            check_pbas_choices(&reports, metric)?;

            let (jobs, reports) = run_twice(&swf, procs, wbas.clone(), overrun)?;
            check_outcomes(&jobs, procs, overrun)?;
            check_reports(&jobs, &reports, Some(period))?;

            let (jobs, reports) = run_twice(&swf, procs, tod.clone(), overrun)?;
            check_outcomes(&jobs, procs, overrun)?;
            check_reports(&jobs, &reports, None)?;
            for (t, r) in &reports {
                prop_assert_eq!(r.active, usize::from(!is_day(*t)), "at {}: {:?}", t, r);
            }
        }
    }

    /// WBAS whose `high` and `low` are one policy is that policy: at each switch a fresh
    /// copy synced to the machine decides as the old one would (as for time-of-day;
    /// `kill` and `extend` only, for the same reason).
    #[test]
    fn wbas_of_one_policy_is_that_policy(
        (procs, swf) in workload(1),
        period in 60i64..2000,
        maf in 1.0f64..10.0,
    ) {
        for policy in ["easy", "sjbf", "fcfs"] {
            for overrun in [OverrunPolicy::Kill, OverrunPolicy::Extend] {
                let plain = run_spec(&swf, procs, policy, overrun);
                let wbas = format!("wbas:high={policy},low={policy},period={period},maf={maf}");
                let adaptive = run_spec(&swf, procs, &wbas, overrun);
                prop_assert_eq!(schedule(&adaptive), schedule(&plain), "{} {:?}", wbas, overrun);
            }
        }
    }
}
