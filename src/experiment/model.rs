//! Model-based runs (`source = "model"` in a scenario): replications of a site whose
//! users come from Talby's model ([`crate::model`]), each in the closed loop.
//!
//! Replication `r` of a run seeded `s` draws its plan from [`replication_seed`]`(s, r)`,
//! whatever the scheduler or the thread count (common random numbers); replications
//! come back in order, so outputs are identical on any number of threads.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::metric::{MetricStats, Replication};
use super::replay::{ReplayError, ReplayOptions, site};
use super::replicate::{Replicated, RunHeader, in_parallel, render_stats, replication_seed};
use crate::localtime::SiteClock;
use crate::metrics::{
    ClassSummary, CycleRecorder, CycleSummary, MetricsConfig, Recorder, SessionRecorder,
};
use crate::model::plan::PlanConfig;
use crate::model::site::SessionRecord;
use crate::model::{
    BusyUser, Calibration, CollisionRoom, DayCycle, JobLayer, ModelSite, ModelSiteReport,
    Parameterization, SiteParams, SitePlan, TalbyModel, WorkloadFigures, calibrate,
};
use crate::sched::BuildContext;
use crate::session::SessionRule;
use crate::time::{DAY, Time, WEEK};
use crate::users::Behaviour;

/// Everything a model-based run needs besides its model files.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelOptions {
    /// The site and scheduler (`procs` is required); its seed is the run's, its warm-up
    /// and cool-down bound the measurement window.
    pub run: ReplayOptions,
    /// How the model is parameterized (its machine size is the site's).
    pub params: Parameterization,
    /// When in the day sessions start.
    pub day: DayCycle,
    /// Multiplier on start-up and new users.
    pub users: f64,
    /// Reactions to bad service.
    pub behaviour: Behaviour,
    /// Simulated time, warm-up and cool-down included, seconds.
    pub length: Time,
    /// Replications.
    pub replications: u32,
    /// Worker threads; all cores when `None`.
    pub threads: Option<usize>,
    /// Keep every session as it happened ([`ModelReplication::sessions`]).
    pub record_sessions: bool,
    /// Processors of the simulated machine when it is not the one the population was
    /// sized for (`run.procs`): capacity planning runs one population on several sizes.
    pub machine: Option<u32>,
    /// Fit the user counts and runtimes to the site's parameters
    /// ([`crate::model::calibrate`]); `false` keeps the thesis's user counts and the
    /// fitted runtimes.
    pub calibrate: bool,
    /// What a session occupies in the plan's collision rule.
    pub room: CollisionRoom,
    /// What a user does with a session due while it is busy.
    pub busy: BusyUser,
}

/// The model files of a run.
#[derive(Debug, Clone)]
pub struct ModelFiles {
    /// The user and session layers.
    pub talby: Arc<TalbyModel>,
    /// Its name.
    pub talby_name: String,
    /// The job layer.
    pub jobs: Arc<JobLayer>,
    /// Its name.
    pub jobs_name: String,
    /// Calibrations computed so far, by parameters and run length: each replication of
    /// a run, and each point of an experiment with the same site, reuses its own.
    calibrations: Arc<Mutex<Vec<Calibrated>>>,
}

/// A calibration and the parameters and run length it was computed for.
type Calibrated = ((Parameterization, Time), Calibration);

impl ModelFiles {
    /// The files of a run.
    pub fn new(
        talby: Arc<TalbyModel>,
        talby_name: impl Into<String>,
        jobs: Arc<JobLayer>,
        jobs_name: impl Into<String>,
    ) -> ModelFiles {
        ModelFiles {
            talby,
            talby_name: talby_name.into(),
            jobs,
            jobs_name: jobs_name.into(),
            calibrations: Arc::default(),
        }
    }

    /// The calibration of a site with parameters `params` over `length` seconds,
    /// computed once; an error when its targets cannot be reached.
    pub fn calibration(
        &self,
        params: Parameterization,
        length: Time,
    ) -> Result<Calibration, String> {
        let key = (params, length);
        let known = |c: &Vec<Calibrated>| c.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        if let Some(c) = known(&self.calibrations.lock().expect("not poisoned")) {
            return Ok(c);
        }
        let site = self.talby.site(params)?;
        let c = calibrate(&self.talby, &self.jobs, &site, site.procs, length)?;
        let mut cache = self.calibrations.lock().expect("not poisoned");
        if known(&cache).is_none() {
            cache.push((key, c));
        }
        Ok(c)
    }
}

/// One replication: its figures and what its users did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelReplication {
    /// The figures every replicated run has.
    #[serde(flatten)]
    pub figures: Replication,
    /// The workload the model generated: every job of every session planned to start
    /// in the run, opened by the closed loop or not.
    pub generated: WorkloadFigures,
    /// The jobs submitted to the machine.
    pub submitted: WorkloadFigures,
    /// What the users did.
    pub users: ModelSiteReport,
    /// Arrivals, queue and utilization by local hour of day and day of week.
    pub cycles: CycleSummary,
    /// Job figures by runtime class.
    pub by_runtime_class: Vec<ClassSummary>,
    /// Every session as it happened, if asked for (not written to `summary.json`).
    #[serde(skip)]
    pub sessions: Vec<SessionRecord>,
}

/// Where a model-based run's users came from: the model files, the site they were
/// fitted to, and the session rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSource {
    /// The model files.
    pub model: String,
    /// The job layer file.
    pub jobs_model: String,
    /// The site's parameters: the targets of the jobs per day, median CPU work and load.
    pub site: SiteParams,
    /// How the site was fitted to them.
    pub calibration: Calibration,
    /// The workload's figures over the replications: generated, submitted, delivered.
    pub workload: Vec<MetricStats>,
    /// Class shares of new users (Table 30, clamped).
    pub class_shares: [f64; 4],
    /// When in the day sessions start.
    pub day_cycle: DayCycle,
    /// What a session occupies in the plan's collision rule.
    pub collision_room: CollisionRoom,
    /// What a user does with a session due while it is busy.
    pub busy_user: BusyUser,
    /// Multiplier on users.
    pub users: f64,
    /// Simulated time, seconds.
    pub length: Time,
    /// The log the continuation curve users react to service by was fitted from; none
    /// if they do not react.
    pub continuation: Option<String>,
}

/// The result of a model-based run: what `summary.json` holds.
pub type ModelSummary = Replicated<ModelSource, ModelReplication>;

impl AsRef<Replication> for ModelReplication {
    fn as_ref(&self) -> &Replication {
        &self.figures
    }
}

/// The site's parameters and its calibration (none if `opts.calibrate` is off).
fn calibration(
    files: &ModelFiles,
    opts: &ModelOptions,
) -> Result<(SiteParams, Calibration), ReplayError> {
    let site = files
        .talby
        .site(opts.params)
        .map_err(ReplayError::Options)?;
    if !opts.calibrate {
        return Ok((site, Calibration::NONE));
    }
    let c = files
        .calibration(opts.params, opts.length)
        .map_err(ReplayError::Options)?;
    Ok((site, c))
}

/// The workload's figures over `reps`: the generated and the submitted jobs per day,
/// median runtime (Cm), median runtime x processors and load; the utilization delivered
/// in the measurement window; the shares of planned sessions skipped, of opened sessions
/// deferred, and of planned sessions not opened by the horizon, and the mean delay of an
/// opened session after its planned start (seconds).
fn workload_stats(reps: &[ModelReplication]) -> Vec<MetricStats> {
    if reps.is_empty() {
        return Vec::new();
    }
    let of = |name: &'static str, f: &dyn Fn(&ModelReplication) -> f64| {
        MetricStats::of(name, &reps.iter().map(f).collect::<Vec<f64>>())
    };
    let planned = |r: &ModelReplication| r.users.plan.sessions_by_class.iter().sum::<u64>() as f64;
    let opened = |r: &ModelReplication| r.users.sessions_by_class.iter().sum::<u64>() as f64;
    vec![
        of("generated_jobs_per_day", &|r| r.generated.jobs_per_day),
        of("generated_median_runtime", &|r| r.generated.median_runtime),
        of("generated_median_cpu_work", &|r| {
            r.generated.median_cpu_work
        }),
        of("generated_load", &|r| r.generated.load),
        of("submitted_jobs_per_day", &|r| r.submitted.jobs_per_day),
        of("submitted_median_runtime", &|r| r.submitted.median_runtime),
        of("submitted_median_cpu_work", &|r| {
            r.submitted.median_cpu_work
        }),
        of("submitted_load", &|r| r.submitted.load),
        of("utilization", &|r| r.figures.utilization),
        of("sessions_skipped", &|r| {
            r.users.skipped as f64 / planned(r).max(1.0)
        }),
        of("sessions_deferred", &|r| {
            r.users.deferred as f64 / opened(r).max(1.0)
        }),
        of("sessions_not_opened", &|r| {
            r.users.not_opened as f64 / planned(r).max(1.0)
        }),
        of("session_delay", &|r| {
            r.users.delay as f64 / opened(r).max(1.0)
        }),
        of("sessions_given_up", &|r| {
            r.users.gave_up as f64 / opened(r).max(1.0)
        }),
        of("repetitions_per_session", &|r| {
            r.users.extended as f64 / opened(r).max(1.0)
        }),
    ]
}

/// Runs replication `r`.
pub fn replicate(
    files: &ModelFiles,
    opts: &ModelOptions,
    r: u32,
) -> Result<ModelReplication, ReplayError> {
    let run = &opts.run;
    let procs = run
        .procs
        .ok_or_else(|| ReplayError::Options("a model-based site needs a machine size".into()))?;
    let (site_params, calibration) = calibration(files, opts)?;
    let seed = replication_seed(run.seed, r);
    let plan = SitePlan::new(
        files.talby.clone(),
        files.jobs.clone(),
        PlanConfig {
            site: site_params,
            day: opts.day,
            users: opts.users * calibration.users,
            runtime: calibration.runtime,
            room: opts.room,
        },
        seed,
    )
    .map_err(|e| ReplayError::Options(e.to_string()))?;
    let procs = opts.machine.unwrap_or(procs);
    let mut users = ModelSite::new(
        plan,
        opts.behaviour.clone(),
        opts.busy,
        files.talby.collision.gap,
        opts.length,
    )
    .on_machine(procs);
    if opts.record_sessions {
        users = users.recording_sessions();
    }
    let metrics = MetricsConfig {
        procs,
        bsld: run.bsld,
        warmup: run.warmup,
        cooldown: run.cooldown,
    };
    let observers = (
        Recorder::summary_only(metrics),
        (
            SessionRecorder::new(SessionRule::Previous, files.talby.collision.gap),
            CycleRecorder::new(SiteClock::model(), procs),
        ),
    );
    let (mut users, (recorder, (sessions, cycles)), counts) = site(
        users,
        observers,
        &BuildContext {
            procs,
            clock: SiteClock::model(),
        },
        run,
    )?
    .run(None)?;
    let m = recorder.finish().map_err(ReplayError::Options)?;
    let report = users.report();
    let (generated, submitted) = users.figures();
    debug_assert_eq!(
        (submitted.jobs_per_day * opts.length as f64 / DAY as f64).round(),
        counts.submitted as f64
    );
    Ok(ModelReplication {
        figures: Replication {
            users: users.plan().users().len() as u64,
            frustrated: report.frustrated,
            arrivals: report.plan.new_users,
            ..Replication::measured(r, seed, &m, &sessions.summary())
        },
        generated,
        submitted,
        users: report,
        cycles: cycles.summary(),
        by_runtime_class: m.by_runtime_class.clone(),
        sessions: users.records().to_vec(),
    })
}

/// Runs replications `0..opts.replications` on the current rayon pool; `done` is called
/// as each finishes; stops starting new ones once `stop` is set. Returns the summary of
/// the finished ones, in order.
pub fn run_model(
    files: &ModelFiles,
    opts: &ModelOptions,
    stop: &AtomicBool,
    done: &(dyn Fn() + Sync),
) -> Result<ModelSummary, ReplayError> {
    let (site_params, calibration) = calibration(files, opts)?;
    let replications = in_parallel(opts.replications, stop, done, |r| replicate(files, opts, r))?;
    let run = &opts.run;
    let header = RunHeader::new(site_params.procs, run, opts.replications);
    let source = ModelSource {
        model: files.talby_name.clone(),
        jobs_model: files.jobs_name.clone(),
        class_shares: files.talby.class_shares(&site_params),
        site: site_params,
        calibration,
        workload: workload_stats(&replications),
        day_cycle: opts.day,
        collision_room: opts.room,
        busy_user: opts.busy,
        users: opts.users,
        length: opts.length,
        continuation: opts
            .behaviour
            .continuation
            .as_ref()
            .map(|c| c.source.clone()),
    };
    Ok(header.summary(source, replications))
}

/// The terminal summary of a model-based run.
pub fn render_model(s: &ModelSummary) -> String {
    let mut out = format!(
        "model site ({} + {}): {} replications of {} weeks ({} weeks' warm-up), {} processors, {}, daily cycle {}\n",
        s.source.model,
        s.source.jobs_model,
        s.replications.len(),
        s.source.length / WEEK,
        s.run.warmup / WEEK,
        s.run.procs,
        s.run.scheduler,
        match s.source.day_cycle {
            DayCycle::Fitted => "fitted".to_owned(),
            DayCycle::Flat => "off".to_owned(),
            DayCycle::Window {
                from,
                to,
                all_jobs: false,
            } => format!("sessions start {from:02}:00-{to:02}:00"),
            DayCycle::Window {
                from,
                to,
                all_jobs: true,
            } => format!("jobs arrive {from:02}:00-{to:02}:00"),
        },
    );
    if s.run.interrupted {
        out.push_str(&format!(
            "  interrupted: {} of {} replications finished\n",
            s.replications.len(),
            s.run.replications_asked
        ));
    }
    let c = &s.source.calibration;
    out.push_str(&format!(
        "  targets                {:.1} jobs/day, median CPU work {:.0} s, load {:.3} ({}); population x{}\n",
        s.source.site.jobs_per_day,
        s.source.site.cpu_work,
        s.source.site.load,
        if s.source.site.explicit {
            "Cm and load given, jobs/day by Table 28"
        } else {
            "Table 28"
        },
        s.source.users
    ));
    if c.users.is_nan() {
        out.push_str(
            "  calibration            none: the thesis's user counts, the fitted runtimes\n",
        );
    } else {
        out.push_str(&format!(
            "  calibration            users x{:.3} ({:.1} jobs/day at x1), runtimes {:.0} s x (r / {:.0} s)^{:.3}\n",
            c.users,
            c.base_jobs_per_day,
            c.runtime.median,
            c.runtime.fitted_median,
            c.runtime.spread
        ));
    }
    out.push_str(&format!(
        "  user classes           LTLU {:.3}, LTHU {:.3}, STWE {:.3}, STWD {:.3} (Table 30, clamped)\n",
        s.source.class_shares[0], s.source.class_shares[1], s.source.class_shares[2], s.source.class_shares[3]
    ));
    let stat = |name: &str| s.source.workload.iter().find(|m| m.metric == name);
    let cell = |name: &str, decimals: usize| {
        stat(name).map_or_else(
            || "-".to_owned(),
            |m| format!("{:.*} ± {:.*}", decimals, m.mean, decimals, m.ci95),
        )
    };
    out.push_str(&format!(
        "  {:<26} {:>10} {:>20} {:>20}\n",
        "workload (95% CI)", "target", "generated", "submitted"
    ));
    for (label, target, key, decimals) in [
        (
            "jobs/day",
            format!("{:.1}", s.source.site.jobs_per_day),
            "jobs_per_day",
            1,
        ),
        (
            "median CPU work (s)",
            format!("{:.0}", s.source.site.cpu_work),
            "median_runtime",
            0,
        ),
        (
            "median runtime x procs (s)",
            "-".to_owned(),
            "median_cpu_work",
            0,
        ),
        ("load", format!("{:.3}", s.source.site.load), "load", 3),
    ] {
        out.push_str(&format!(
            "  {:<26} {:>10} {:>20} {:>20}\n",
            label,
            target,
            cell(&format!("generated_{key}"), decimals),
            cell(&format!("submitted_{key}"), decimals),
        ));
    }
    out.push_str(&format!(
        "  {:<26} {:>10} {:>20} {:>20}\n",
        "utilization (delivered)",
        format!("{:.3}", s.source.site.load),
        "",
        cell("utilization", 3)
    ));
    out.push_str(&format!(
        "  closed loop            sessions kept apart by {}; a busy user's sessions {}\n",
        match s.source.collision_room {
            CollisionRoom::OwnDuration => "their own duration",
            CollisionRoom::ClassMedian => "their class's median duration",
        },
        match s.source.busy_user {
            BusyUser::Queue => "queue",
            BusyUser::Skip => "are skipped once its next is due",
        },
    ));
    let delay = stat("session_delay").map_or_else(
        || "-".to_owned(),
        |m| format!("{:.1} ± {:.1} h", m.mean / 3600.0, m.ci95 / 3600.0),
    );
    out.push_str(&format!(
        "  {:<22} {} of opened sessions deferred (mean delay of an opened session {delay}); of planned ones {} skipped, {} not opened by the horizon\n",
        "",
        cell("sessions_deferred", 3),
        cell("sessions_skipped", 3),
        cell("sessions_not_opened", 3),
    ));
    out.push_str(&format!(
        "  {:<22} {}\n",
        "reactions",
        match &s.source.continuation {
            Some(c) => format!(
                "{} of opened sessions given up after long responses, {} repetitions per session added after short ones (continuation curve fitted from {c})",
                cell("sessions_given_up", 3),
                cell("repetitions_per_session", 3),
            ),
            None => "none: sessions keep the length the model draws".into(),
        }
    ));
    out.push_str(&render_stats(&s.stats));
    out
}
