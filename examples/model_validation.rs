//! Reproduces the "Model-based site" section of `docs/VALIDATION-SITE.md`, and the tables of
//! `docs/MODELS.md`, "Model-based site" (the calibrations, the closed loop's rules, the
//! runtime mapping's alternatives, with their intervals): the site of 128
//! processors as the thesis and the fit give its layers (not calibrated, users not
//! reacting; EASY, 52 weeks with one week of warm-up, seed 1) for 20 replications with
//! every session recorded, with and without the daily cycle, beside the targets of
//! Talby's thesis (2006) and KTH SP2's own log; then the site with its defaults against
//! Table 28 at every size, the calibrations and the closed loop's rules compared.
//! Prints Markdown tables and writes two SVG plots.
//!
//! ```text
//! cargo run --release --example model_validation -- [LOG] [PLOT_DIR]
//! ```
//!
//! `LOG` defaults to `../shared/workloads/KTH-SP2-1996-2.swf`, `PLOT_DIR` to `docs/img`.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use rayon::prelude::*;
use sitesim::commands::fit::read_log;
use sitesim::commands::model::{
    ModelFiles, ModelOptions, ModelReplication, ModelSummary, run_model,
};
use sitesim::commands::options::UnknownWaits;
use sitesim::commands::replay::ReplayOptions;
use sitesim::localtime::{LocalTime, SiteClock, WEEKDAYS};
use sitesim::model::fit::{DAYTIME_END, DAYTIME_START, FitLog, classify};
use sitesim::model::plan::PlanConfig;
use sitesim::model::tally::generated;
use sitesim::model::{
    BusyUser, Calibrate, CollisionRoom, DayCycle, JobLayer, Lifetime, Parameterization,
    RuntimeScale, SessionClass, SitePlan, TalbyModel, UserClass, WorkloadFigures, calibrate,
};
use sitesim::plot::chart::{LineChart, Series, XTicks, line_chart_svg};
use sitesim::results::metric::MetricStats;
use sitesim::results::output::write_atomic;
use sitesim::results::replicate::{WeeklyCsv, replication_seed};
use sitesim::sched::Policy;
use sitesim::time::{Time, WEEK};
use sitesim::users::{Behaviour, ContinuationCurve, KTH_CONTINUATION, TooManyUsers};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const PROCS: u32 = 128;
const REPLICATIONS: u32 = 20;
const SEED: u64 = 1;
const LENGTH: Time = 52 * WEEK;

/// The thesis's pooled user-class shares (§9.5, Table 31 "All"), LTLU, LTHU, STWE, STWD.
const THESIS_USERS: [f64; 4] = [0.55, 0.20, 0.10, 0.15];
/// The thesis's session-class shares (§9.3, Figure 23), IWD, IWN, IW, BHP, BHD.
const THESIS_SESSIONS: [f64; 5] = [0.43, 0.29, 0.21, 0.04, 0.03];

/// Table 21, per class: J mean, J median, D median, Rm median, Pm median (of 128), Tm
/// median, ?D mean, ?W mean.
const TABLE_21: [[f64; 8]; 5] = [
    [3.4, 2.0, 2626.0, 383.0, 3.56, 0.0, 0.95, 1.00],
    [5.0, 2.0, 16452.0, 2008.0, 2.56, 0.0, 0.37, 0.95],
    [4.2, 2.0, 4186.0, 485.0, 1.78, 0.0, 0.72, 0.02],
    [2.5, 1.0, 20713.0, 2774.0, 64.0, 0.0, 0.67, 0.78],
    [22.4, 6.0, 186533.0, 10828.0, 6.00, -4034.0, 0.66, 0.73],
];

fn options(flat_day: bool) -> ModelOptions {
    ModelOptions {
        run: ReplayOptions {
            policy: Policy::Easy.into(),
            procs: Some(PROCS),
            warmup: WEEK,
            seed: SEED,
            check: false,
            ..ReplayOptions::default()
        },
        params: Parameterization::MachineSize(PROCS),
        day: if flat_day {
            DayCycle::Flat
        } else {
            DayCycle::Fitted
        },
        users: 1.0,
        behaviour: Behaviour::default(),
        length: LENGTH,
        replications: REPLICATIONS,
        threads: None,
        record_sessions: true,
        machine: None,
        // Sections 1-4 compare the model's layers as the thesis and the fit give them;
        // section 5 calibrates the site to Table 28.
        calibrate: Calibrate::Off,
        room: CollisionRoom::Submissions,
        busy: BusyUser::default(),
        lifetime: Lifetime::default(),
    }
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn shares<const N: usize>(counts: [f64; N]) -> [f64; N] {
    let total: f64 = counts.iter().sum();
    counts.map(|c| c / total.max(f64::MIN_POSITIVE))
}

/// Per-session statistics of one class, as Table 21 lists them.
#[derive(Default)]
struct ClassStats {
    jobs: Vec<f64>,
    duration: Vec<f64>,
    runtime: Vec<f64>,
    size: Vec<f64>,
    think: Vec<f64>,
    /// Tm of the sessions of more than one job.
    multi_think: Vec<f64>,
    daytime: u64,
    workday: u64,
}

impl ClassStats {
    fn add(&mut self, jobs: u32, duration: f64, rm: f64, pm: f64, tm: f64, start: LocalTime) {
        self.jobs.push(f64::from(jobs));
        self.duration.push(duration);
        self.runtime.push(rm);
        self.size.push(pm);
        self.think.push(tm);
        if jobs > 1 {
            self.multi_think.push(tm);
        }
        if (DAYTIME_START..=DAYTIME_END).contains(&start.second_of_day) {
            self.daytime += 1;
        }
        if start.weekday < 5 {
            self.workday += 1;
        }
    }

    fn n(&self) -> usize {
        self.jobs.len()
    }

    /// J mean, J median, D median, Rm median, Pm median, Tm median, ?D, ?W.
    fn row(&mut self) -> [f64; 8] {
        let n = self.n().max(1) as f64;
        [
            mean(&self.jobs),
            median(&mut self.jobs),
            median(&mut self.duration),
            median(&mut self.runtime),
            median(&mut self.size),
            median(&mut self.think),
            self.daytime as f64 / n,
            self.workday as f64 / n,
        ]
    }
}

/// The session statistics of every recorded session of a run.
fn model_stats(s: &ModelSummary) -> [ClassStats; 5] {
    let clock = SiteClock::model();
    let mut out: [ClassStats; 5] = Default::default();
    for r in s.replications.iter().flat_map(|r| &r.sessions) {
        out[r.class.index()].add(
            r.jobs,
            (r.end - r.start) as f64,
            r.median_runtime,
            r.median_size * 128.0 / f64::from(PROCS),
            r.median_think,
            clock.local(r.start),
        );
    }
    out
}

/// The session statistics of a log's sessions, classified by `sitesim fit`'s rules.
fn log_stats(log: &FitLog) -> [ClassStats; 5] {
    let mut out: [ClassStats; 5] = Default::default();
    for s in &log.sessions {
        let c = classify(s, log.procs, &log.clock);
        let mut rt: Vec<f64> = s.jobs.iter().map(|j| j.runtime as f64).collect();
        let mut sz: Vec<f64> = s
            .jobs
            .iter()
            .map(|j| f64::from(j.size) * 128.0 / f64::from(log.procs))
            .collect();
        let mut th: Vec<f64> = s
            .jobs
            .iter()
            .filter_map(|j| j.think)
            .map(|t| t as f64)
            .collect();
        let tm = if th.is_empty() { 0.0 } else { median(&mut th) };
        out[c.index()].add(
            s.jobs.len() as u32,
            s.duration() as f64,
            median(&mut rt),
            median(&mut sz),
            tm,
            log.clock.local(s.start()),
        );
    }
    out
}

/// What the plan of one replication drew, redrawn outside the simulation (the plan does
/// not depend on it): sessions by class, the classes Eq 18 expects for the same users'
/// weeks, the Table 36 drift alone, and the sum of the sessions' weeks of activity.
#[derive(Default, Clone, Copy)]
struct PlanMirror {
    sessions: [f64; 5],
    expected: [f64; 5],
    drift: [f64; 5],
    woa: f64,
    woa_le_8: f64,
    woa_gt_52: f64,
    /// Planned starts in daytime (07:30-17:30) and on a workday, by class.
    daytime: [f64; 5],
    workday: [f64; 5],
    /// Active user-weeks, and those whose sessions still collided after every redraw.
    active_weeks: f64,
    collided: f64,
}

impl PlanMirror {
    fn add(mut self, o: PlanMirror) -> PlanMirror {
        for i in 0..5 {
            self.sessions[i] += o.sessions[i];
            self.expected[i] += o.expected[i];
            self.drift[i] += o.drift[i];
            self.daytime[i] += o.daytime[i];
            self.workday[i] += o.workday[i];
        }
        self.active_weeks += o.active_weeks;
        self.collided += o.collided;
        self.woa += o.woa;
        self.woa_le_8 += o.woa_le_8;
        self.woa_gt_52 += o.woa_gt_52;
        self
    }
}

/// Redraws replication `r`'s plan with the user and session layers `talby`: the weeks
/// the site plans (0 to 51).
fn mirror(files: &ModelFiles, talby: &Arc<TalbyModel>, r: u32) -> Result<PlanMirror> {
    let site = talby.site(Parameterization::MachineSize(PROCS))?;
    let clock = SiteClock::model();
    let mut plan = SitePlan::new(
        talby.clone(),
        files.jobs.clone(),
        PlanConfig {
            site,
            day: DayCycle::Fitted,
            users: 1.0,
            runtime: RuntimeScale::FITTED,
            room: CollisionRoom::OwnDuration,
            lifetime: Lifetime::default(),
        },
        replication_seed(SEED, r),
    )?;
    let mut m = PlanMirror::default();
    for _ in 0..(LENGTH / WEEK) {
        let before: Vec<(u32, Option<SessionClass>)> = plan
            .users()
            .iter()
            .map(|u| (u.week_of_activity, u.last_session))
            .collect();
        let sessions = plan.next_week()?;
        let mut per_user = vec![0u32; plan.users().len()];
        for s in &sessions {
            per_user[s.user as usize] += 1;
            let i = s.class.index();
            m.sessions[i] += 1.0;
            let l = clock.local(s.start);
            if (DAYTIME_START..=DAYTIME_END).contains(&l.second_of_day) {
                m.daytime[i] += 1.0;
            }
            if l.weekday < 5 {
                m.workday[i] += 1.0;
            }
        }
        for (u, &n) in per_user.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let class = plan.users()[u].class;
            let (woa, previous) = before.get(u).copied().unwrap_or((1, None));
            let w = f64::from(woa) * f64::from(n);
            m.woa += w;
            if woa <= 8 {
                m.woa_le_8 += f64::from(n);
            }
            if woa > 52 {
                m.woa_gt_52 += f64::from(n);
            }
            let drift = talby.raw_session_class(class, woa, None);
            // The chain of Eq 18 run n steps from the user's previous class, in
            // expectation.
            let mut state: Option<[f64; 5]> = previous.map(|p| {
                let mut v = [0.0; 5];
                v[p.index()] = 1.0;
                v
            });
            for _ in 0..n {
                let p = match state {
                    None => talby.session_class(class, woa, None),
                    Some(prev) => {
                        let mut p = [0.0; 5];
                        for (k, &w) in prev.iter().enumerate() {
                            if w > 0.0 {
                                let row =
                                    talby.session_class(class, woa, Some(SessionClass::ALL[k]));
                                for i in 0..5 {
                                    p[i] += w * row[i];
                                }
                            }
                        }
                        p
                    }
                };
                for i in 0..5 {
                    m.expected[i] += p[i];
                    m.drift[i] += drift[i];
                }
                state = Some(p);
            }
        }
    }
    m.active_weeks = plan.counts().active_weeks as f64;
    m.collided = plan.counts().collisions_kept as f64;
    Ok(m)
}

fn arrivals_by(s: &ModelSummary, hours: bool) -> Vec<f64> {
    let n = if hours { 24 } else { 7 };
    let mut v = vec![0.0; n];
    for r in &s.replications {
        let points = if hours {
            &r.cycles.by_hour
        } else {
            &r.cycles.by_weekday
        };
        for (i, p) in points.iter().enumerate() {
            v[i] += p.arrivals;
        }
    }
    let total: f64 = v.iter().sum();
    v.iter().map(|x| x / total).collect()
}

fn ci(values: &[f64], scale: f64, decimals: usize) -> String {
    let m = MetricStats::of("x", values);
    format!(
        "{:.d$} ± {:.d$}",
        m.mean * scale,
        m.ci95 * scale,
        d = decimals
    )
}

/// The generated workloads of `REPLICATIONS` plans at `procs` processors with user
/// multiplier `users` and runtimes mapped by `scale`, each week drawn once, without
/// simulating the machine.
fn generate(
    files: &ModelFiles,
    procs: u32,
    users: f64,
    scale: RuntimeScale,
) -> Result<Vec<WorkloadFigures>> {
    let site = files.talby.site(Parameterization::MachineSize(procs))?;
    let once = Arc::new(files.talby.without_redraws());
    Ok((0..REPLICATIONS)
        .into_par_iter()
        .map(|r| {
            let mut plan = SitePlan::new(
                once.clone(),
                files.jobs.clone(),
                PlanConfig {
                    site,
                    day: DayCycle::Fitted,
                    users,
                    runtime: scale,
                    room: CollisionRoom::Submissions,
                    lifetime: Lifetime::default(),
                },
                replication_seed(SEED, r),
            )?;
            generated(&mut plan, LENGTH)
        })
        .collect::<std::result::Result<_, TooManyUsers>>()?)
}

fn skipped(r: &ModelReplication) -> f64 {
    r.users.skipped as f64 / r.users.plan.sessions_by_class.iter().sum::<u64>() as f64
}

fn deferred(r: &ModelReplication) -> f64 {
    r.users.deferred as f64 / r.users.sessions_by_class.iter().sum::<u64>() as f64
}

fn superseded(r: &ModelReplication) -> f64 {
    r.users.superseded as f64 / r.users.sessions_by_class.iter().sum::<u64>() as f64
}

fn not_opened(r: &ModelReplication) -> f64 {
    r.users.not_opened as f64 / r.users.plan.sessions_by_class.iter().sum::<u64>() as f64
}

/// Hours.
fn delay(r: &ModelReplication) -> f64 {
    r.users.delay as f64 / r.users.sessions_by_class.iter().sum::<u64>() as f64 / 3600.0
}

/// Processors of a machine on which no job of the model sites waits.
const NO_WAIT: u32 = 1 << 20;

/// Machine sizes of Table 28's worked values (notes §2.7).
const TABLE_28_SIZES: [u32; 8] = [100, 128, 256, 416, 512, 1024, 1152, 2048];

/// The model's users as the default site has them: reacting to service by the curve
/// fitted from KTH.
fn reacting() -> Behaviour {
    Behaviour {
        continuation: Some(
            ContinuationCurve::parse(KTH_CONTINUATION, "models/continuation-kth.toml")
                .expect("the built-in curve parses"),
        ),
        ..Behaviour::default()
    }
}

/// Section 5: the site with its defaults (calibrated to what its users submit under
/// EASY, reacting to service) against Table 28 at every size of its worked values; the
/// calibrations compared; the closed loop's rules; and the generated workloads of the
/// alternatives to the calibration.
fn table_28(files: &ModelFiles) -> Result<String> {
    use std::fmt::Write;
    let stop = AtomicBool::new(false);
    let run = |procs: u32, f: &dyn Fn(&mut ModelOptions)| -> Result<ModelSummary> {
        let mut o = options(false);
        o.run.procs = Some(procs);
        o.params = Parameterization::MachineSize(procs);
        o.record_sessions = false;
        o.calibrate = Calibrate::Submitted;
        o.behaviour = reacting();
        f(&mut o);
        Ok(run_model(files, &o, &stop, &|| {}, None)?)
    };
    let col = |s: &ModelSummary, f: &dyn Fn(&ModelReplication) -> f64, scale: f64, d: usize| {
        ci(
            &s.replications.iter().map(f).collect::<Vec<f64>>(),
            scale,
            d,
        )
    };
    let mut out = String::from("### The model site against Table 28\n\n");
    writeln!(
        out,
        "The site with its defaults (calibrated to what its users submit, reacting to \
         service by the curve fitted from KTH, EASY), {REPLICATIONS} replications of 52 \
         weeks after a week of warm-up, seed {SEED}, at every size of Table 28's worked \
         values; mean ± half-width of the 95% confidence interval of what the users \
         submitted; utilization delivered after the warm-up. Skipped: of planned sessions, \
         those due while their user had jobs waiting (`busy_user = \"waiting\"`); given \
         up: of opened sessions, those whose user gave up what it had left when its next \
         session opened; kept colliding: of active user-weeks, those the plan could not \
         draw apart after every redraw.\n"
    )?;
    writeln!(
        out,
        "| processors | JD | submitted | Cm (s) | submitted | CL (%) | submitted | utilization (%) | skipped (%) | given up when the next opened (%) | kept colliding (%) | calibration: users, runtimes | submitted / generated without redraws (JD, Cm, CL) |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")?;
    let mut sites = Vec::new();
    for procs in TABLE_28_SIZES {
        let site = files.talby.site(Parameterization::MachineSize(procs))?;
        let s = run(procs, &|_| {})?;
        let c = s.source.calibration;
        let r = c.closed_loop.map(|f| f.ratios);
        writeln!(
            out,
            "| {procs} | {:.1} | {} | {:.0} | {} | {:.1} | {} | {} | {} | {} | {} | x{:.3}, {:.0} s x (r / {:.0} s)^{:.3} | {} |",
            site.jobs_per_day,
            col(&s, &|r| r.submitted.jobs_per_day, 1.0, 1),
            site.cpu_work,
            col(&s, &|r| r.submitted.median_runtime, 1.0, 0),
            100.0 * site.load,
            col(&s, &|r| r.submitted.load, 100.0, 1),
            col(&s, &|r| r.figures.utilization, 100.0, 1),
            col(&s, &skipped, 100.0, 1),
            col(&s, &superseded, 100.0, 1),
            col(
                &s,
                &|r| r.users.plan.collisions_kept as f64 / r.users.plan.active_weeks.max(1) as f64,
                100.0,
                1
            ),
            c.users,
            c.runtime.median,
            c.runtime.fitted_median,
            c.runtime.spread,
            r.map_or("-".into(), |r| format!(
                "{:.3}, {:.3}, {:.3}",
                r.jobs_per_day, r.median_runtime, r.load
            )),
        )?;
        if procs == PROCS || procs == 1024 {
            sites.push((procs, s));
        }
    }
    // The calibrations compared.
    writeln!(
        out,
        "\nThe calibrations compared (`[workload] calibrate`; the same users reacting, EASY):\n"
    )?;
    writeln!(
        out,
        "| processors | calibrate | users | runtimes | generated JD | submitted JD | generated Cm (s) | submitted Cm (s) | generated CL (%) | submitted CL (%) |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|---|---|")?;
    for (procs, submitted) in &sites {
        for calibrate in [Calibrate::Submitted, Calibrate::Generated, Calibrate::Off] {
            let s = if calibrate == Calibrate::Submitted {
                submitted.clone()
            } else {
                run(*procs, &|o| o.calibrate = calibrate)?
            };
            let c = s.source.calibration;
            writeln!(
                out,
                "| {procs} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                sitesim::options::name(&calibrate),
                if c.is_none() {
                    "x1 (the thesis's)".to_owned()
                } else {
                    format!("x{:.3}", c.users)
                },
                if c.is_none() {
                    "as fitted".to_owned()
                } else {
                    format!(
                        "{:.0} s x (r / {:.0} s)^{:.3}",
                        c.runtime.median, c.runtime.fitted_median, c.runtime.spread
                    )
                },
                col(&s, &|r| r.generated.jobs_per_day, 1.0, 1),
                col(&s, &|r| r.submitted.jobs_per_day, 1.0, 1),
                col(&s, &|r| r.generated.median_runtime, 1.0, 0),
                col(&s, &|r| r.submitted.median_runtime, 1.0, 0),
                col(&s, &|r| r.generated.load, 100.0, 1),
                col(&s, &|r| r.submitted.load, 100.0, 1),
            )?;
        }
    }
    // The closed loop's rules, on the plans of the generated calibration (the same
    // users for every rule), users not reacting: under EASY and where nothing waits.
    writeln!(
        out,
        "\nThe closed loop's rules at {PROCS} processors (`collision_room`, `busy_user`; \
         the defaults first), on the site fitted to what it generates (the same users \
         under every rule), users not reacting, under EASY and on a machine of 2^20 \
         processors where no job waits (the plan's own share of the losses). Submitted \
         load on the machine the population was sized for; the share of submissions \
         between 08:00 and 17:59 pooled over the replications (KTH's log: 74.4%):\n"
    )?;
    writeln!(
        out,
        "| collision room | busy user | machine | deferred (% of opened) | given up when the next opened (% of opened) | skipped (% of planned) | not opened by the horizon (% of planned) | mean delay (h) | generated load (%) | submitted jobs/day | submitted load (%) | utilization (%) | mean wait (s) | submissions 08:00-17:59 |"
    )?;
    writeln!(
        out,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )?;
    for (room, busy) in [
        (CollisionRoom::Submissions, BusyUser::Waiting),
        (CollisionRoom::Submissions, BusyUser::GiveUp),
        (CollisionRoom::Submissions, BusyUser::Queue),
        (CollisionRoom::OwnDuration, BusyUser::GiveUp),
        (CollisionRoom::OwnDuration, BusyUser::Queue),
        (CollisionRoom::ClassMedian, BusyUser::Skip),
    ] {
        for machine in [None, Some(NO_WAIT)] {
            let s = run(PROCS, &|o| {
                o.calibrate = Calibrate::Generated;
                o.behaviour = Behaviour::default();
                o.room = room;
                o.busy = busy;
                o.machine = machine;
            })?;
            let share = f64::from(machine.unwrap_or(PROCS)) / f64::from(PROCS);
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                serde_json::to_string(&room)?.trim_matches('"'),
                serde_json::to_string(&busy)?.trim_matches('"'),
                if machine.is_some() {
                    "none waits"
                } else {
                    "EASY"
                },
                col(&s, &deferred, 100.0, 1),
                col(&s, &superseded, 100.0, 1),
                col(&s, &skipped, 100.0, 1),
                col(&s, &not_opened, 100.0, 1),
                col(&s, &delay, 1.0, 1),
                col(&s, &|r| r.generated.load, 100.0, 1),
                col(&s, &|r| r.submitted.jobs_per_day, 1.0, 1),
                col(&s, &|r| r.submitted.load * share, 100.0, 1),
                if machine.is_some() {
                    "-".into()
                } else {
                    col(&s, &|r| r.figures.utilization, 100.0, 1)
                },
                if machine.is_some() {
                    "-".into()
                } else {
                    col(&s, &|r| r.figures.mean_wait, 1.0, 0)
                },
                pct(arrivals_by(&s, true)[8..18].iter().sum()),
            )?;
        }
    }
    stationarity(files, &mut out)?;
    // The alternatives to the calibration's runtime mapping, generated only (each week
    // drawn once, the workload whose expectation the calibration computes).
    writeln!(
        out,
        "\nThe alternatives to the runtime mapping, generated workloads only (the same \
         {REPLICATIONS} plans, each week drawn once, users multiplied as the generated \
         calibration has them):\n"
    )?;
    writeln!(
        out,
        "| processors | choice | runtimes | jobs/day | median runtime (s) | median runtime x processors (s) | load (%) |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|")?;
    for procs in [PROCS, 1024] {
        let site = files.talby.site(Parameterization::MachineSize(procs))?;
        let c = calibrate(
            &files.talby,
            &files.jobs,
            &site,
            &site.targets(),
            procs,
            (LENGTH, Lifetime::default()),
        )?;
        let m0 = c.runtime.fitted_median;
        let keep = RuntimeScale {
            fitted_median: m0,
            median: m0,
            spread: 1.0,
        };
        let fitted = generate(files, procs, c.users, keep)?;
        let rp0 = MetricStats::of(
            "x",
            &fitted.iter().map(|f| f.median_cpu_work).collect::<Vec<_>>(),
        )
        .mean;
        let variants = [
            ("calibrated (users, median, spread)", c.runtime),
            (
                "spread kept (users, median only)",
                RuntimeScale {
                    spread: 1.0,
                    ..c.runtime
                },
            ),
            (
                "Cm read as median runtime x processors (users, median only)",
                RuntimeScale {
                    fitted_median: m0,
                    median: m0 * site.cpu_work / rp0,
                    spread: 1.0,
                },
            ),
        ];
        for (name, scale) in variants {
            let g = generate(files, procs, c.users, scale)?;
            let col = |f: fn(&WorkloadFigures) -> f64, scale: f64, d: usize| {
                ci(&g.iter().map(f).collect::<Vec<f64>>(), scale, d)
            };
            writeln!(
                out,
                "| {procs} | {name} | {:.0} s x (r / {:.0} s)^{:.3} | {} | {} | {} | {} |",
                scale.median,
                scale.fitted_median,
                scale.spread,
                col(|f| f.jobs_per_day, 1.0, 1),
                col(|f| f.median_runtime, 1.0, 0),
                col(|f| f.median_cpu_work, 1.0, 0),
                col(|f| f.load, 100.0, 1),
            )?;
        }
    }
    Ok(out)
}

/// The mean utilization of each week over the replications of `dir/weekly.csv`, percent.
fn weekly_utilization(dir: &Path) -> Result<Vec<f64>> {
    let mut sums: Vec<(f64, u32)> = Vec::new();
    let mut rows = csv::Reader::from_path(dir.join("weekly.csv"))?;
    let header = rows.headers()?.clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("weekly.csv: no column {name}"))
    };
    let (week, utilization) = (column("week")?, column("utilization_pct")?);
    for row in rows.records() {
        let row = row?;
        let w: usize = row[week].parse()?;
        if sums.len() <= w {
            sums.resize(w + 1, (0.0, 0));
        }
        sums[w].0 += row[utilization].parse::<f64>()?;
        sums[w].1 += 1;
    }
    Ok(sums.iter().map(|&(s, n)| s / f64::from(n.max(1))).collect())
}

/// Is the default site stationary, and what makes it so: its utilization by quarter
/// (weeks 1-13, 14-26, 27-39, 40-52 after the week of warm-up), against the thesis's
/// site whose users never leave (`user_lifetime = "never"`) and against users who keep
/// their calendar whatever waits (`busy_user = "give-up"`); each calibrated to what its
/// users submit, reacting, under EASY.
fn stationarity(files: &ModelFiles, out: &mut String) -> Result<()> {
    use std::fmt::Write;
    writeln!(
        out,
        "\nThe site's load through its year at {PROCS} processors ({REPLICATIONS} \
         replications, calibrated to what its users submit, reacting, EASY): utilization \
         by quarter, the weekly queue's trend (jobs a week) and the users who left \
         frustrated, against the alternatives:\n"
    )?;
    writeln!(
        out,
        "| user_lifetime | busy_user | submitted jobs/day | utilization (%) | Q1 | Q2 | Q3 | Q4 | queue trend | frustrated |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|---|---|")?;
    let stop = AtomicBool::new(false);
    for (lifetime, busy) in [
        (Lifetime::default(), BusyUser::default()),
        (Lifetime::Never, BusyUser::default()),
        (Lifetime::default(), BusyUser::GiveUp),
        (Lifetime::Never, BusyUser::GiveUp),
    ] {
        let mut o = options(false);
        o.record_sessions = false;
        o.calibrate = Calibrate::Submitted;
        o.behaviour = reacting();
        o.lifetime = lifetime;
        o.busy = busy;
        let dir = std::env::temp_dir().join(format!("sitesim-quarters-{}", std::process::id()));
        let mut csv = WeeklyCsv::create(&dir)?;
        let s = run_model(files, &o, &stop, &|| {}, Some(&mut csv))?;
        csv.commit()?;
        let weeks = weekly_utilization(&dir)?;
        std::fs::remove_dir_all(&dir)?;
        let quarters: Vec<String> = weeks
            .get(1..53)
            .unwrap_or_default()
            .chunks(13)
            .map(|q| format!("{:.1}", q.iter().sum::<f64>() / q.len() as f64))
            .collect();
        let col = |f: &dyn Fn(&ModelReplication) -> f64, scale: f64, d: usize| {
            ci(
                &s.replications.iter().map(f).collect::<Vec<f64>>(),
                scale,
                d,
            )
        };
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            lifetime,
            serde_json::to_string(&busy)?.trim_matches('"'),
            col(&|r| r.submitted.jobs_per_day, 1.0, 1),
            col(&|r| r.figures.utilization, 100.0, 1),
            quarters.join(" | "),
            col(&|r| r.figures.queue_trend, 1.0, 2),
            col(&|r| r.figures.frustrated as f64, 1.0, 1),
        )?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log_path = PathBuf::from(
        args.first()
            .map_or("../shared/workloads/KTH-SP2-1996-2.swf", String::as_str),
    );
    let plots = PathBuf::from(args.get(1).map_or("docs/img", String::as_str));
    if !log_path.exists() {
        return Err(format!(
            "{}: no such log; the KTH comparison needs KTH-SP2-1996-2.swf (the SWF logs live \
             in ../shared/workloads), or give its path as the first argument",
            log_path.display()
        )
        .into());
    }
    std::fs::create_dir_all(&plots)?;

    let files = ModelFiles::new(
        Arc::new(TalbyModel::shipped()),
        "models/talby2006.toml",
        Arc::new(JobLayer::shipped()),
        "models/kth-sessions.toml",
    );
    let site = files.talby.site(Parameterization::MachineSize(PROCS))?;
    let stop = AtomicBool::new(false);
    let on = run_model(&files, &options(false), &stop, &|| {}, None)?;
    let off = run_model(&files, &options(true), &stop, &|| {}, None)?;
    let simulated = started.elapsed();
    let redraw = |talby: &Arc<TalbyModel>| -> Result<PlanMirror> {
        let mirrors: Vec<PlanMirror> = (0..REPLICATIONS)
            .into_par_iter()
            .map(|r| mirror(&files, talby, r).map_err(|e| e.to_string()))
            .collect::<std::result::Result<_, _>>()?;
        Ok(mirrors.iter().fold(PlanMirror::default(), |a, &b| a.add(b)))
    };
    let plan = redraw(&files.talby)?;
    // Diagnostic: the same plans with colliding sessions kept as first drawn.
    let mut once = (*files.talby).clone();
    once.collision.tries = 1;
    once.collision.class_tries = 1;
    let plan_once = redraw(&Arc::new(once))?;
    let planned_starts = |m: &PlanMirror| {
        SessionClass::ALL
            .map(|c| {
                let i = c.index();
                format!(
                    "{} {:.2} / {:.2}",
                    c.name(),
                    m.daytime[i] / m.sessions[i],
                    m.workday[i] / m.sessions[i]
                )
            })
            .join(", ")
    };
    let (kth, warnings) = read_log(&log_path, None, &UnknownWaits::Error)?;
    for w in warnings {
        eprintln!("warning: {w}");
    }

    println!(
        "Default model site: {PROCS} processors, EASY, {} weeks ({} week warm-up), seed {SEED}, \
         {} replications; Table 28 parameters at {PROCS} processors: Cm {:.0} s, CL {:.3}, \
         JD {:.1}.\n",
        LENGTH / WEEK,
        on.run.warmup / WEEK,
        on.replications.len(),
        site.cpu_work,
        site.load,
        site.jobs_per_day
    );

    // 1. User classes.
    let users = UserClass::ALL.map(|c| {
        on.replications
            .iter()
            .map(|r| r.users.plan.users_by_class[c.index()] as f64)
            .sum()
    });
    let user_shares = shares(users);
    let table30 = files.talby.class_shares(&site);
    let raw30 = files.talby.raw_class_shares(&site);
    let n_users: f64 = users.iter().sum();
    let startup: f64 = on
        .replications
        .iter()
        .map(|r| r.users.plan.startup_users as f64)
        .sum();
    println!("### User classes\n");
    println!(
        "{} users over {} replications ({:.1} per replication: {:.1} active at start-up, {:.1} \
         arrived later).\n",
        n_users,
        REPLICATIONS,
        n_users / f64::from(REPLICATIONS),
        startup / f64::from(REPLICATIONS),
        (n_users - startup) / f64::from(REPLICATIONS)
    );
    println!("| class | users | generated | Table 30 at this site | thesis, pooled |");
    println!("|---|---|---|---|---|");
    for c in UserClass::ALL {
        let i = c.index();
        println!(
            "| {} | {} | {} | {} (raw {:.3}) | {} |",
            c.name(),
            users[i],
            pct(user_shares[i]),
            pct(table30[i]),
            raw30[i],
            pct(THESIS_USERS[i])
        );
    }
    println!();

    // 2. Session classes.
    let planned = SessionClass::ALL.map(|c| {
        on.replications
            .iter()
            .map(|r| r.users.plan.sessions_by_class[c.index()] as f64)
            .sum::<f64>()
    });
    let opened = SessionClass::ALL.map(|c| {
        on.replications
            .iter()
            .map(|r| r.users.sessions_by_class[c.index()] as f64)
            .sum::<f64>()
    });
    let recorded = on
        .replications
        .iter()
        .map(|r| r.sessions.len())
        .sum::<usize>();
    let kth_classes = {
        let mut v = [0.0; 5];
        for s in &kth.sessions {
            v[classify(s, kth.procs, &kth.clock).index()] += 1.0;
        }
        v
    };
    let (p_planned, p_opened, p_expected, p_drift, p_kth) = (
        shares(planned),
        shares(opened),
        shares(plan.expected),
        shares(plan.drift),
        shares(kth_classes),
    );
    let (p_once, p_once_expected) = (shares(plan_once.sessions), shares(plan_once.expected));
    let n_plan: f64 = plan.sessions.iter().sum();
    let mean_woa = plan.woa / n_plan;
    println!("### Session classes\n");
    println!(
        "Plan redrawn outside the simulation: {} sessions (the runs' plans: {}); mean week of \
         activity of a session {:.1}; {} of sessions in weeks 1-8, {} after week 52.\n",
        n_plan,
        planned.iter().sum::<f64>(),
        mean_woa,
        pct(plan.woa_le_8 / n_plan),
        pct(plan.woa_gt_52 / n_plan)
    );
    println!(
        "| class | planned | opened | planned share | opened share | Eq 18 expected | Table 36 \
         drift alone | no redraws: planned (Eq 18 expected) | thesis | KTH sessions \
         (fit rules) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for c in SessionClass::ALL {
        let i = c.index();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} |",
            c.name(),
            planned[i],
            opened[i],
            pct(p_planned[i]),
            pct(p_opened[i]),
            pct(p_expected[i]),
            pct(p_drift[i]),
            pct(p_once[i]),
            pct(p_once_expected[i]),
            pct(THESIS_SESSIONS[i]),
            pct(p_kth[i])
        );
    }
    let drift_at = |w: f64| {
        SessionClass::ALL
            .map(|c| {
                let d = files.talby.session_class.drift.get(c);
                format!("{} {}", c.name(), pct(d.slope * w + d.intercept))
            })
            .join(", ")
    };
    println!();
    for w in [1.0, 26.0, 52.0, mean_woa] {
        println!("- Table 36 at week of activity {w:.1}: {}", drift_at(w));
    }
    let sum = |f: fn(&sitesim::model::ModelSiteReport) -> u64, s: &ModelSummary| {
        s.replications.iter().map(|r| f(&r.users)).sum::<u64>()
    };
    let total_planned: f64 = planned.iter().sum();
    let total_opened: f64 = opened.iter().sum();
    println!(
        "- Closed loop (daily cycle on): {} sessions planned, {} opened ({}), {} of them \
         deferred ({}), {} skipped ({}), {} never opened (still waiting at the horizon); {} recorded as closed ({} still \
         open at the horizon); weeks kept with colliding sessions {}.",
        total_planned,
        total_opened,
        pct(total_opened / total_planned),
        sum(|u| u.deferred, &on),
        pct(sum(|u| u.deferred, &on) as f64 / total_opened),
        sum(|u| u.skipped, &on),
        pct(sum(|u| u.skipped, &on) as f64 / total_planned),
        total_planned - total_opened - sum(|u| u.skipped, &on) as f64,
        recorded,
        total_opened - recorded as f64,
        sum(|u| u.plan.collisions_kept, &on),
    );
    let off_planned: u64 = off
        .replications
        .iter()
        .map(|r| r.users.plan.sessions_by_class.iter().sum::<u64>())
        .sum();
    let off_opened: u64 = off
        .replications
        .iter()
        .map(|r| r.users.sessions_by_class.iter().sum::<u64>())
        .sum();
    println!(
        "- Active user-weeks {}; weeks whose sessions collided at first draw (kept so in the \
         no-redraw diagnostic) {} ({}); weeks still colliding after every redraw {}.",
        plan.active_weeks,
        plan_once.collided,
        pct(plan_once.collided / plan_once.active_weeks),
        plan.collided
    );
    println!(
        "- Daily cycle off: {} planned, {} opened, {} deferred, {} skipped.",
        off_planned,
        off_opened,
        sum(|u| u.deferred, &off),
        sum(|u| u.skipped, &off)
    );
    let jobs_submitted: u64 = on
        .replications
        .iter()
        .map(|r| r.users.jobs_by_class.iter().sum::<u64>())
        .sum();
    let jobs_recorded: u64 = on
        .replications
        .iter()
        .flat_map(|r| &r.sessions)
        .map(|s| u64::from(s.jobs))
        .sum();
    let resplit: u64 = on.replications.iter().map(|r| r.figures.sessions).sum();
    println!(
        "- Jobs submitted {jobs_submitted}, jobs in recorded sessions {jobs_recorded}.\n\
         - The submitted jobs split into sessions by the 20-minute rule, as a log's would be: \
         {resplit} ({:+.1}% on the {total_opened} sessions opened).\n",
        100.0 * (resplit as f64 / total_opened - 1.0)
    );

    // 3. Per-class session statistics.
    let mut model = model_stats(&on);
    let mut flat = model_stats(&off);
    let mut log = log_stats(&kth);
    println!("### Session statistics against Table 21\n");
    println!(
        "Model: every recorded session of the {REPLICATIONS} replications. KTH: the log's \
         sessions (20-minute threshold), classified by `sitesim fit`'s rules. Pm is normalized \
         to 128 processors; Tm is 0 for a single-job session.\n"
    );
    println!(
        "| class | source | sessions | J mean | J median | D median (s) | Rm median (s) | Pm \
         median | Tm median (s) | ?D | ?W |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let fmt = |row: [f64; 8]| {
        format!(
            "{:.1} | {:.1} | {:.0} | {:.0} | {:.2} | {:.0} | {:.2} | {:.2}",
            row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7]
        )
    };
    for c in SessionClass::ALL {
        let i = c.index();
        println!(
            "| {} | model | {} | {} |",
            c.name(),
            model[i].n(),
            fmt(model[i].row())
        );
        println!(
            "| {} | model, no daily cycle | {} | {} |",
            c.name(),
            flat[i].n(),
            fmt(flat[i].row())
        );
        println!(
            "| {} | KTH log | {} | {} |",
            c.name(),
            log[i].n(),
            fmt(log[i].row())
        );
        println!("| {} | Table 21 | | {} |", c.name(), fmt(TABLE_21[i]));
    }
    let negative_durations = on
        .replications
        .iter()
        .flat_map(|r| &r.sessions)
        .filter(|s| s.end < s.start || s.median_runtime < 0.0 || s.median_size < 1.0)
        .count();
    println!();
    println!(
        "- ?D / ?W of the planned starts (before deferral): {}; with colliding sessions kept as \
         first drawn: {}.",
        planned_starts(&plan),
        planned_starts(&plan_once)
    );
    let long_think = |stats: &[ClassStats; 5]| {
        SessionClass::ALL
            .map(|c| {
                let s = &stats[c.index()];
                let n = s.think.iter().filter(|&&t| t >= 1200.0).count();
                format!("{} {}", c.name(), pct(n as f64 / s.n().max(1) as f64))
            })
            .join(", ")
    };
    println!(
        "- Sessions whose median think time is 20 min or more: model {}; KTH {}.",
        long_think(&model),
        long_think(&log)
    );
    let singles = |stats: &mut [ClassStats; 5]| {
        SessionClass::ALL
            .map(|c| {
                let s = &mut stats[c.index()];
                let one = s.n() - s.multi_think.len();
                format!(
                    "{} {} / {:.0} s",
                    c.name(),
                    pct(one as f64 / s.n().max(1) as f64),
                    median(&mut s.multi_think)
                )
            })
            .join(", ")
    };
    println!(
        "- Single-job sessions, and the Tm median of the others: model {}; KTH {}.",
        singles(&mut model),
        singles(&mut log)
    );
    let started_by_day = |stats: &[ClassStats; 5]| {
        let n: usize = stats.iter().map(ClassStats::n).sum();
        stats.iter().map(|s| s.daytime).sum::<u64>() as f64 / n as f64
    };
    println!(
        "- Sessions starting in daytime, all classes: model {} (planned {}), KTH {}.",
        pct(started_by_day(&model)),
        pct(plan.daytime.iter().sum::<f64>() / plan.sessions.iter().sum::<f64>()),
        pct(started_by_day(&log))
    );
    println!(
        "- Sessions with a negative duration or runtime, or no processor: {negative_durations}.\n"
    );

    // 4. Arrivals by hour of day and by weekday.
    let kth_arrivals = |hours: bool| {
        let mut v = vec![0.0; if hours { 24 } else { 7 }];
        for j in kth.sessions.iter().flat_map(|s| &s.jobs) {
            let l = kth.clock.local(j.submit);
            v[if hours {
                usize::from(l.hour)
            } else {
                usize::from(l.weekday)
            }] += 1.0;
        }
        let total: f64 = v.iter().sum();
        v.iter().map(|x| x / total).collect::<Vec<f64>>()
    };
    let hours = [
        arrivals_by(&on, true),
        arrivals_by(&off, true),
        kth_arrivals(true),
    ];
    let days = [
        arrivals_by(&on, false),
        arrivals_by(&off, false),
        kth_arrivals(false),
    ];
    let labels = [
        "model, daily cycle".to_string(),
        "model, no daily cycle".to_string(),
        format!("KTH log ({})", kth.clock.zone_name()),
    ];
    println!("### Job submissions by hour of day and day of week (local time)\n");
    println!("| hour | {} | {} | {} |", labels[0], labels[1], labels[2]);
    println!("|---|---|---|---|");
    for (h, ((a, b), c)) in hours[0].iter().zip(&hours[1]).zip(&hours[2]).enumerate() {
        println!("| {h:02} | {} | {} | {} |", pct(*a), pct(*b), pct(*c));
    }
    let daytime = |v: &[f64]| v[8..18].iter().sum::<f64>();
    println!(
        "| 08:00-17:59 | {} | {} | {} |\n",
        pct(daytime(&hours[0])),
        pct(daytime(&hours[1])),
        pct(daytime(&hours[2]))
    );
    println!("| day | {} | {} | {} |", labels[0], labels[1], labels[2]);
    println!("|---|---|---|---|");
    for (d, name) in WEEKDAYS.iter().enumerate() {
        println!(
            "| {name} | {} | {} | {} |",
            pct(days[0][d]),
            pct(days[1][d]),
            pct(days[2][d])
        );
    }
    let weekend = |v: &[f64]| v[5] + v[6];
    println!(
        "| Sat+Sun | {} | {} | {} |\n",
        pct(weekend(&days[0])),
        pct(weekend(&days[1])),
        pct(weekend(&days[2]))
    );
    // Short legends keep the legend box clear of the afternoon peak.
    let legends = ["model", "no daily cycle", "KTH log"];
    let series = |v: &[Vec<f64>; 3], x: &dyn Fn(usize) -> f64| {
        v.iter()
            .zip(legends)
            .map(|(v, l)| Series {
                label: l.into(),
                points: v
                    .iter()
                    .enumerate()
                    .map(|(i, y)| (x(i), 100.0 * y))
                    .collect(),
            })
            .collect::<Vec<Series>>()
    };
    let charts = [
        (
            "model-arrivals-hour.svg",
            LineChart {
                title: "Model site and KTH: job submissions by hour of day".into(),
                x_label: format!("hour of day (local time; KTH: {})", kth.clock.zone_name()),
                y_label: "share of submissions (%)".into(),
                x_ticks: XTicks::Numbers,
                log_y: false,
                y_from_zero: true,
                series: series(&hours, &|h| h as f64),
            },
        ),
        (
            "model-arrivals-weekday.svg",
            LineChart {
                title: "Model site and KTH: job submissions by day of week".into(),
                x_label: "day of week (local time; points at midday)".into(),
                y_label: "share of submissions (%)".into(),
                x_ticks: XTicks::HourOfWeek,
                log_y: false,
                y_from_zero: true,
                series: series(&days, &|d| (d * 24 + 12) as f64),
            },
        ),
    ];

    // 5. The site against Table 28 at every size.
    let table28 = table_28(&files)?;
    println!("{table28}");

    for (name, chart) in charts {
        let path = plots.join(name);
        write_atomic(&path, line_chart_svg(&chart)?.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    println!(
        "\nrun time: {:.1} s ({:.1} s for the {} simulated years)",
        started.elapsed().as_secs_f64(),
        simulated.as_secs_f64(),
        2 * REPLICATIONS
    );
    Ok(())
}
