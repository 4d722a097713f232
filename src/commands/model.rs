//! Model-based runs (`source = "model"` in a scenario): replications of a site whose
//! users come from Talby's model ([`crate::model`]), each in the closed loop.
//!
//! Replication `r` of a run seeded `s` draws its plan from [`replication_seed`]`(s, r)`,
//! whatever the scheduler or the thread count (common random numbers); replications
//! come back in order, so outputs are identical on any number of threads.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::commands::replay::{ReplayOptions, site};
use crate::localtime::SiteClock;
use crate::metrics::{
    ClassSummary, CycleRecorder, CycleSummary, MetricsConfig, Recorder, SessionRecorder,
    WeeklySeries,
};
use crate::model::calibrate::{Calibrate, ClosedLoopFit, Expected};
use crate::model::plan::{Lifetime, PlanConfig};
use crate::model::site::SessionRecord;
use crate::model::tally::generated;
use crate::model::{
    BusyUser, Calibration, CollisionRoom, DayCycle, JobLayer, ModelSite, ModelSiteReport,
    Parameterization, SiteParams, SitePlan, TalbyModel, UserClass, WorkloadFigures, calibrate,
};
use crate::results::RunError;
use crate::results::metric::{MetricStats, Replication};
use crate::results::replicate::{
    Replicated, WeeklyCsv, in_parallel_each, render_stats, replication_seed,
};
use crate::sched::BuildContext;
use crate::session::SessionRule;
use crate::textfmt::{hours, percent};
use crate::time::{DAY, Time, WEEK};
use crate::users::Behaviour;
use rayon::prelude::*;

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
    /// How the user counts and runtimes are fitted to the site's parameters
    /// ([`crate::model::calibrate`]).
    pub calibrate: Calibrate,
    /// What a session occupies in the plan's collision rule.
    pub room: CollisionRoom,
    /// What a user does with a session due while it is busy.
    pub busy: BusyUser,
    /// How long a user stays at the site.
    pub lifetime: Lifetime,
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
    /// Calibrations computed so far, by what they depend on: each replication of a run,
    /// and each point of an experiment with the same site, reuses its own.
    calibrations: Arc<Mutex<Vec<(CalibrationKey, Calibration)>>>,
}

/// What a site's calibration depends on besides its model files.
#[derive(Debug, Clone, PartialEq)]
struct CalibrationKey {
    params: Parameterization,
    length: Time,
    calibrate: Calibrate,
    /// What the closed loop's trials depend on.
    day: DayCycle,
    room: CollisionRoom,
    busy: BusyUser,
    behaviour: Behaviour,
    lifetime: Lifetime,
}

/// Trial runs per round of a closed-loop calibration. Every site size draws its trial
/// plans from the same seeds, so their sampling error moves every size alike: with 8,
/// sites of 256 to 2,048 processors all submitted 2 to 5% more than Table 28; with 16,
/// within 4.1% at every size (docs/VALIDATION-SITE.md, "The model site against Table 28").
const TRIALS: u32 = 16;
/// Plans per round of a closed-loop calibration (the first [`TRIALS`] of them run).
const PLANS: u32 = 16;
/// Rounds of a closed-loop calibration.
const ROUNDS: u32 = 4;
/// The seed the trials' plans are drawn from (theirs alone: a calibration depends on the
/// site and its rules, not on the run's seed).
const TRIAL_SEED: u64 = 0x7472_6961_6c73;

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

    /// Whether the site of `opts` can be calibrated: its targets can be reached by the
    /// workload its plan generates (without the trial runs the closed loop's calibration
    /// adds, which may still find what its users submit out of reach).
    pub fn check_calibration(&self, opts: &ModelOptions) -> Result<(), String> {
        if opts.calibrate == Calibrate::Off {
            return Ok(());
        }
        let site = self.talby.site(opts.params)?;
        self.fit(&site, &site.targets(), (opts.length, opts.lifetime))
            .map(|_| ())
    }

    /// The calibration that makes the workload `site`'s plan generates over `length`
    /// meet `target` in expectation ([`calibrate`]).
    fn fit(
        &self,
        site: &SiteParams,
        target: &Expected,
        run: (Time, Lifetime),
    ) -> Result<Calibration, String> {
        calibrate(&self.talby, &self.jobs, site, target, site.procs, run)
    }

    /// The calibration of the site of `opts` ([`ModelOptions::calibrate`]), computed
    /// once; an error when its targets cannot be reached.
    pub fn calibration(&self, opts: &ModelOptions) -> Result<Calibration, String> {
        let key = CalibrationKey {
            params: opts.params,
            length: opts.length,
            calibrate: opts.calibrate,
            day: opts.day,
            room: opts.room,
            busy: opts.busy,
            behaviour: opts.behaviour.clone(),
            lifetime: opts.lifetime,
        };
        let known = |c: &Vec<(CalibrationKey, Calibration)>| {
            c.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
        };
        if let Some(c) = known(&self.calibrations.lock().expect("not poisoned")) {
            return Ok(c);
        }
        let site = self.talby.site(opts.params)?;
        let c = match opts.calibrate {
            Calibrate::Off => Calibration::NONE,
            Calibrate::Generated => {
                self.fit(&site, &site.targets(), (opts.length, opts.lifetime))?
            }
            Calibrate::Submitted => self.closed_loop(opts, &site)?,
        };
        let mut cache = self.calibrations.lock().expect("not poisoned");
        if known(&cache).is_none() {
            cache.push((key, c));
        }
        Ok(c)
    }

    /// The calibration whose users submit the site's figures in the closed loop: the
    /// generated workload's targets are the site's divided by what trial runs under EASY
    /// submit against what the same plans generate ([`ClosedLoopFit`]).
    ///
    /// Each round measures the ratios at the current calibration and divides the site's
    /// figures by them: a fixed-point iteration, since the ratios fall as the targets
    /// rise (more work makes users give up more of it, and the plan keep fewer long
    /// sessions), [`ROUNDS`] times.
    fn closed_loop(&self, opts: &ModelOptions, site: &SiteParams) -> Result<Calibration, String> {
        let fit = |target: &Expected| self.fit(site, target, (opts.length, opts.lifetime));
        let goal = site.targets();
        let mut c = fit(&goal)?;
        let mut ratios = Expected::each(&goal, &goal, |_, _| 1.0);
        for _ in 0..ROUNDS {
            ratios = self.trial_ratios(opts, site, &c)?;
            c = fit(&Expected::each(&goal, &ratios, |g, r| g / r))?;
        }
        Ok(Calibration {
            closed_loop: Some(ClosedLoopFit {
                scheduler: "easy",
                trials: TRIALS,
                rounds: ROUNDS,
                ratios,
            }),
            ..c
        })
    }

    /// What the site of `opts` calibrated by `c` submits in the closed loop over what its
    /// plan would generate without the collision rule's redraws (whose expectation the
    /// calibration computes), as the product of two ratios each taken between figures
    /// of the same plans: what [`TRIALS`] trial runs under EASY on the site's machine, at
    /// its own population, submit over what their plans generate, and what [`PLANS`]
    /// plans generate over what the same plans generate without redraws.
    fn trial_ratios(
        &self,
        opts: &ModelOptions,
        site: &SiteParams,
        c: &Calibration,
    ) -> Result<Expected, String> {
        let unfitted = Arc::new(self.talby.without_redraws());
        let trial = ModelOptions {
            run: ReplayOptions {
                policy: crate::sched::Policy::Easy.into(),
                procs: Some(site.procs),
                check: false,
                ..ReplayOptions::default()
            },
            users: 1.0,
            machine: None,
            record_sessions: false,
            ..opts.clone()
        };
        // Each plan: what it generates without and with redraws, and, for the first
        // TRIALS, with redraws what the closed loop submits of it.
        type Figures = (WorkloadFigures, WorkloadFigures, Option<WorkloadFigures>);
        let plans: Vec<Figures> = (0..PLANS)
            .into_par_iter()
            .map(|r| {
                let seed = crate::seed::mix(TRIAL_SEED, u64::from(r));
                let generate = |talby: &Arc<TalbyModel>| {
                    let mut plan = plan_of(talby, &self.jobs, &trial, site, c, seed)?;
                    generated(&mut plan, trial.length).map_err(|e| e.to_string())
                };
                let unfitted = generate(&unfitted)?;
                if r < TRIALS {
                    let (run, _) = simulate(self, &trial, site, c, seed, r)?;
                    Ok((unfitted, run.generated, Some(run.submitted)))
                } else {
                    Ok((unfitted, generate(&self.talby)?, None))
                }
            })
            .collect::<Result<_, String>>()?;
        let total = |f: fn(&WorkloadFigures) -> f64,
                     pick: &dyn Fn(&Figures) -> Option<WorkloadFigures>| {
            plans.iter().filter_map(pick).map(|w| f(&w)).sum::<f64>()
        };
        let ratio = |f: fn(&WorkloadFigures) -> f64| {
            let tried = |p: &Figures| p.2.map(|_| p.1);
            (total(f, &|p| p.2) / total(f, &tried))
                * (total(f, &|p| Some(p.1)) / total(f, &|p| Some(p.0)))
        };
        Ok(Expected {
            jobs_per_day: ratio(|w| w.jobs_per_day),
            median_runtime: ratio(|w| w.median_runtime),
            load: ratio(|w| w.load),
        })
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

/// The site's parameters and its calibration ([`ModelOptions::calibrate`]).
fn calibration(
    files: &ModelFiles,
    opts: &ModelOptions,
) -> Result<(SiteParams, Calibration), RunError> {
    let site = files.talby.site(opts.params).map_err(RunError::Options)?;
    let c = files.calibration(opts).map_err(RunError::Options)?;
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
        of("sessions_superseded", &|r| {
            r.users.superseded as f64 / opened(r).max(1.0)
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
        of("extensions_per_session", &|r| {
            r.users.extended as f64 / opened(r).max(1.0)
        }),
    ]
}

/// Runs replication `r`.
pub fn replicate(
    files: &ModelFiles,
    opts: &ModelOptions,
    r: u32,
) -> Result<ModelReplication, RunError> {
    replicate_by_week(files, opts, r).map(|(replication, _)| replication)
}

/// Runs replication `r`: its figures, and the run week by week (for `weekly.csv`).
fn replicate_by_week(
    files: &ModelFiles,
    opts: &ModelOptions,
    r: u32,
) -> Result<(ModelReplication, WeeklySeries), RunError> {
    let (site_params, calibration) = calibration(files, opts)?;
    let seed = replication_seed(opts.run.seed, r);
    simulate(files, opts, &site_params, &calibration, seed, r).map_err(RunError::Options)
}

/// The plan of the site `site` calibrated by `c` as `opts` draws it from `seed`, its
/// user and session layers from `talby`.
fn plan_of(
    talby: &Arc<TalbyModel>,
    jobs: &Arc<JobLayer>,
    opts: &ModelOptions,
    site: &SiteParams,
    c: &Calibration,
    seed: u64,
) -> Result<SitePlan, String> {
    SitePlan::new(
        talby.clone(),
        jobs.clone(),
        PlanConfig {
            site: *site,
            day: opts.day,
            users: opts.users * c.users,
            runtime: c.runtime,
            room: opts.room,
            lifetime: opts.lifetime,
        },
        seed,
    )
    .map_err(|e| e.to_string())
}

/// Simulates the site `site_params` calibrated by `calibration` as `opts` runs it, its
/// plan drawn from `seed`, as replication `r`; and the run week by week.
fn simulate(
    files: &ModelFiles,
    opts: &ModelOptions,
    site_params: &SiteParams,
    calibration: &Calibration,
    seed: u64,
    r: u32,
) -> Result<(ModelReplication, WeeklySeries), String> {
    let run = &opts.run;
    let plan = plan_of(
        &files.talby,
        &files.jobs,
        opts,
        site_params,
        calibration,
        seed,
    )?;
    let procs = opts.machine.unwrap_or(site_params.procs);
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
    )
    .map_err(|e| e.to_string())?
    .run(None)
    .map_err(|e| e.to_string())?;
    let mut m = recorder.finish()?;
    let mut weekly = std::mem::take(&mut m.by_week);
    weekly.count_sessions(sessions.opened());
    let report = users.report();
    let (generated, submitted) = users.figures();
    debug_assert_eq!(
        (submitted.jobs_per_day * opts.length as f64 / DAY as f64).round(),
        counts.submitted as f64
    );
    Ok((
        ModelReplication {
            figures: Replication {
                users: users.plan().users().len() as u64,
                frustrated: report.frustrated,
                arrivals: report.plan.new_users,
                ..Replication::measured(r, seed, &m, &sessions.summary()).with_queue_trend(
                    &weekly,
                    weekly.origin + run.warmup,
                    opts.length - run.cooldown,
                )
            },
            generated,
            submitted,
            users: report,
            cycles: cycles.summary(),
            by_runtime_class: m.by_runtime_class.clone(),
            sessions: users.records().to_vec(),
        },
        weekly,
    ))
}

/// Runs replications `0..opts.replications` on the current rayon pool; `done` is called
/// as each finishes; stops starting new ones once `stop` is set. Returns the summary of
/// the finished ones, in order; their weeks go to `weekly`, if given, as they finish.
pub fn run_model(
    files: &ModelFiles,
    opts: &ModelOptions,
    stop: &AtomicBool,
    done: &(dyn Fn() + Sync),
    mut weekly: Option<&mut WeeklyCsv>,
) -> Result<ModelSummary, RunError> {
    let (site_params, calibration) = calibration(files, opts)?;
    let mut replications = Vec::new();
    in_parallel_each(
        0..opts.replications,
        stop,
        done,
        |r| replicate_by_week(files, opts, r),
        |(replication, weeks)| {
            if let Some(csv) = weekly.as_deref_mut() {
                csv.add(replication.figures.replication, &weeks)?;
            }
            replications.push(replication);
            Ok(())
        },
    )?;
    let run = &opts.run;
    let header = run.run_header(site_params.procs, opts.replications);
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
        "model site ({} + {}): {} replications of {} weeks ({}), {} processors, {}, daily cycle {}\n",
        s.source.model,
        s.source.jobs_model,
        s.replications.len(),
        s.source.length / WEEK,
        crate::time::warm_up(s.run.warmup),
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
        "  targets                {:.1} jobs/day, median CPU work {:.0} s, load {} ({}); population x{}\n",
        s.source.site.jobs_per_day,
        s.source.site.cpu_work,
        percent(s.source.site.load),
        if s.source.site.explicit {
            "CPU work and load given, jobs/day by Talby 2006, Table 28"
        } else {
            "Talby 2006, Table 28"
        },
        s.source.users
    ));
    if c.is_none() {
        out.push_str(
            "  calibration            none: the thesis's user counts, the fitted runtimes\n",
        );
    } else {
        out.push_str(&format!(
            "  calibration            user counts x{:.3} (they would submit {:.1} jobs/day unscaled); runtimes r become {:.0} s x (r / {:.0} s)^{:.3}\n",
            c.users,
            c.base_jobs_per_day,
            c.runtime.median,
            c.runtime.fitted_median,
            c.runtime.spread
        ));
    }
    let classes: Vec<String> = UserClass::ALL
        .iter()
        .map(|&k| {
            format!(
                "{} {}",
                k.description(),
                percent(s.source.class_shares[k.index()])
            )
        })
        .collect();
    out.push_str(&format!(
        "  user classes           {} (Talby 2006, Table 30, clamped)\n",
        classes.join(", ")
    ));
    let stat = |name: &str| s.source.workload.iter().find(|m| m.metric == name);
    let cell = |name: &str, decimals: usize| {
        stat(name).map_or_else(
            || "-".to_owned(),
            |m| format!("{:.*} ± {:.*}", decimals, m.mean, decimals, m.ci95),
        )
    };
    let share = |name: &str| {
        stat(name).map_or_else(
            || "-".to_owned(),
            |m| format!("{} ± {}", percent(m.mean), percent(m.ci95)),
        )
    };
    out.push_str(&format!(
        "  {:<26} {:>10} {:>20} {:>20}\n",
        "workload (± 95% CI)", "target", "generated", "submitted"
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
        "load",
        percent(s.source.site.load),
        share("generated_load"),
        share("submitted_load"),
    ));
    out.push_str(&format!(
        "  {:<26} {:>10} {:>20} {:>20}\n",
        "utilization (delivered)",
        percent(s.source.site.load),
        "",
        share("utilization")
    ));
    out.push_str(&format!(
        "  sessions               kept apart by {}; when a user's next session is due before the last one ends, {}\n",
        match s.source.collision_room {
            CollisionRoom::Submissions => "their submissions",
            CollisionRoom::OwnDuration => "their own duration",
            CollisionRoom::ClassMedian => "their class's median duration",
        },
        match s.source.busy_user {
            BusyUser::Waiting => "the next is skipped while the user has jobs waiting, else it opens on time and the user gives up the rest of the last",
            BusyUser::GiveUp => "the next opens on time and the user gives up the rest of the last",
            BusyUser::Queue => "the next waits for the last to end",
            BusyUser::Skip => "the next is skipped",
        },
    ));
    let delay = stat("session_delay").map_or_else(
        || "-".to_owned(),
        |m| format!("{} ± {}", hours(m.mean), hours(m.ci95)),
    );
    out.push_str(&format!(
        "  {:<22} {} of sessions opened late (by {delay} on average), {} cut short when the next opened; of the sessions planned, {} skipped and {} not reached by the end of the run\n",
        "",
        share("sessions_deferred"),
        share("sessions_superseded"),
        share("sessions_skipped"),
        share("sessions_not_opened"),
    ));
    out.push_str(&format!(
        "  {:<22} {}\n",
        "reactions",
        match &s.source.continuation {
            Some(c) => format!(
                "{} of sessions ended early after long responses, {} jobs per session added after short ones (how users continue, fitted from {c})",
                share("sessions_given_up"),
                cell("extensions_per_session", 3),
            ),
            None => "none: sessions keep the length the model draws".into(),
        }
    ));
    out.push_str(&render_stats(&s.stats));
    out
}
