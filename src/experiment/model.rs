//! Model-based runs (`source = "model"` in a scenario): replications of a site whose
//! users come from Talby's model ([`crate::model`]), each in the closed loop.
//!
//! Replication `r` of a run seeded `s` draws its plan from [`replication_seed`]`(s, r)`,
//! whatever the scheduler or the thread count (common random numbers); replications
//! come back in order, so outputs are identical on any number of threads.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::replay::{ReplayError, ReplayOptions, site};
use super::resample::{
    MetricStats, Replication, in_parallel, render_stats, replication_seed, stats_of,
    write_replicated,
};
use crate::localtime::SiteClock;
use crate::metrics::{
    ClassSummary, CycleRecorder, CycleSummary, MetricsConfig, Recorder, SessionRecorder,
};
use crate::model::plan::PlanConfig;
use crate::model::site::SessionRecord;
use crate::model::{
    DayCycle, JobLayer, ModelSite, ModelSiteReport, Parameterization, SitePlan, TalbyModel,
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
}

/// One replication: its figures and what its users did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelReplication {
    /// The figures every replicated run has.
    #[serde(flatten)]
    pub figures: Replication,
    /// Jobs submitted per day over the whole run (the thesis's JD).
    pub jobs_per_day: f64,
    /// Median CPU work of the submitted jobs, seconds (Cm).
    pub median_cpu_work: f64,
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

/// The result of a model-based run: what `summary.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSummary {
    /// sitesim's version.
    pub sitesim_version: &'static str,
    /// The model files.
    pub model: String,
    /// The job layer file.
    pub jobs_model: String,
    /// The site's parameters.
    pub site: crate::model::SiteParams,
    /// Class shares of new users (Table 30, clamped).
    pub class_shares: [f64; 4],
    /// Machine size.
    pub procs: u32,
    /// The policy.
    pub scheduler: String,
    /// When in the day sessions start.
    pub day_cycle: DayCycle,
    /// Multiplier on users.
    pub users: f64,
    /// Simulated time, seconds.
    pub length: Time,
    /// Warm-up, seconds.
    pub warmup: Time,
    /// Cool-down, seconds.
    pub cooldown: Time,
    /// The run's seed.
    pub seed: u64,
    /// Replications asked for.
    pub replications_asked: u32,
    /// Whether the run was stopped before every replication finished.
    pub interrupted: bool,
    /// Each finished replication, in order.
    pub replications: Vec<ModelReplication>,
    /// Every metric over the replications.
    pub stats: Vec<MetricStats>,
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
    let site_params = files
        .talby
        .site(opts.params)
        .map_err(ReplayError::Options)?;
    let seed = replication_seed(run.seed, r);
    let plan = SitePlan::new(
        files.talby.clone(),
        files.jobs.clone(),
        PlanConfig {
            site: site_params,
            day: opts.day,
            users: opts.users,
        },
        seed,
    );
    let population_procs = procs;
    let procs = opts.machine.unwrap_or(procs);
    let mut users = ModelSite::new(
        plan,
        files.jobs.clone(),
        population_procs,
        opts.behaviour.clone(),
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
    let days = opts.length as f64 / DAY as f64;
    Ok(ModelReplication {
        figures: Replication {
            users: users.plan().users().len() as u64,
            frustrated: report.frustrated,
            arrivals: report.plan.new_users,
            ..Replication::measured(r, seed, &m, &sessions.summary())
        },
        jobs_per_day: counts.submitted as f64 / days,
        median_cpu_work: users.median_cpu_work(),
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
    let site_params = files
        .talby
        .site(opts.params)
        .map_err(ReplayError::Options)?;
    let replications = in_parallel(opts.replications, stop, done, |r| replicate(files, opts, r))?;
    let figures: Vec<Replication> = replications.iter().map(|r| r.figures).collect();
    let run = &opts.run;
    Ok(ModelSummary {
        sitesim_version: env!("CARGO_PKG_VERSION"),
        model: files.talby_name.clone(),
        jobs_model: files.jobs_name.clone(),
        class_shares: files.talby.class_shares(&site_params),
        site: site_params,
        procs: site_params.procs,
        scheduler: run.policy.label(),
        day_cycle: opts.day,
        users: opts.users,
        length: opts.length,
        warmup: run.warmup,
        cooldown: run.cooldown,
        seed: run.seed,
        replications_asked: opts.replications,
        interrupted: (replications.len() as u32) < opts.replications,
        stats: stats_of(&figures),
        replications,
    })
}

/// Writes `summary.json` and `replications.csv` into `dir`.
pub fn write_model(dir: &std::path::Path, s: &ModelSummary) -> Result<(), ReplayError> {
    let figures: Vec<Replication> = s.replications.iter().map(|r| r.figures).collect();
    write_replicated(dir, &figures, s)
}

/// The terminal summary of a model-based run.
pub fn render_model(s: &ModelSummary) -> String {
    let mut out = format!(
        "model site ({} + {}): {} replications of {} weeks ({} weeks' warm-up), {} processors, {}, daily cycle {}\n",
        s.model,
        s.jobs_model,
        s.replications.len(),
        s.length / WEEK,
        s.warmup / WEEK,
        s.procs,
        s.scheduler,
        match s.day_cycle {
            DayCycle::Fitted => "fitted".to_owned(),
            DayCycle::Flat => "off".to_owned(),
            DayCycle::Window { from, to } => format!("sessions start {from:02}:00-{to:02}:00"),
        },
    );
    if s.interrupted {
        out.push_str(&format!(
            "  interrupted: {} of {} replications finished\n",
            s.replications.len(),
            s.replications_asked
        ));
    }
    out.push_str(&format!(
        "  parameters             median CPU work {:.0} s, load {:.3} (Table 28 expects {:.1} jobs/day); users x{}\n",
        s.site.cpu_work, s.site.load, s.site.jobs_per_day, s.users
    ));
    out.push_str(&format!(
        "  user classes           LTLU {:.3}, LTHU {:.3}, STWE {:.3}, STWD {:.3} (Table 30, clamped)\n",
        s.class_shares[0], s.class_shares[1], s.class_shares[2], s.class_shares[3]
    ));
    let n = s.replications.len().max(1) as f64;
    let mean = |f: fn(&ModelReplication) -> f64| s.replications.iter().map(f).sum::<f64>() / n;
    out.push_str(&format!(
        "  workload               {:.1} jobs/day submitted, median CPU work {:.0} s, {:.0} users\n",
        mean(|r| r.jobs_per_day),
        mean(|r| r.median_cpu_work),
        mean(|r| r.figures.users as f64),
    ));
    out.push_str(&render_stats(&s.stats));
    out
}
