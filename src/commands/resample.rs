//! Resampled runs (`sitesim resample`, `sitesim sweep`; Feitelson 2021, §4.2, §4.4): many
//! statistically similar workloads drawn from one log's users, each user in closed-loop
//! interaction with the machine, in parallel replications.
//!
//! Replication `r` of a run seeded `s` draws its population from seed `mix(s, r)`,
//! whatever the scheduler, the multipliers or the thread count: the same seed gives the
//! same users under every scheduler (common random numbers), and replications come back
//! in order, so outputs are identical on any number of threads.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::commands::feedback::{
    FeedbackOptions, LogFigures, LogUsers, UserSettings, log_figures, log_users,
};
use crate::commands::replay::site;
use crate::localtime::SiteClock;
use crate::metrics::{
    ClassSummary, CycleRecorder, CycleSummary, LoadRecorder, LoadSummary, MetricsConfig,
    MetricsSummary, Recorder, SessionRecorder, UserLoad, WeeklySeries,
};
use crate::registry::SchedulerSpec;
use crate::results::RunError;
use crate::results::lock::lock_folder;
use crate::results::metric::Replication;
use crate::results::replicate::{
    Replicated, WeeklyCsv, in_parallel, in_parallel_each, render_stats, replication_seed,
    with_threads, write_replicated,
};
use crate::sched::BuildContext;
use crate::sim::Observer;
use crate::swf::{LogSource, Records, SwfHeader};
use crate::time::{Time, WEEK};
use crate::users::PopulationSummary;
use crate::users::pools::{PoolConfig, Pools};
use crate::users::population::{
    Population, PopulationConfig, RegenerateFrom, StartWeek, UserPools,
};
use crate::users::{Drift, UserConfig};
use crate::workload::peak::MachineCheck;
use crate::workload::trace::Trace;
use std::path::Path;

/// A resampled run's cool-down, seconds: one week when none is asked for (the default),
/// simulated after the measured weeks and not measured.
pub fn resampled_cooldown(cooldown: Time) -> Time {
    if cooldown == 0 { WEEK } else { cooldown }
}

/// Everything a resampled run needs besides the log.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ResampleOptions {
    /// The site, scheduler and user model, as for `feedback` (its warm-up and cool-down
    /// bound the measurement window; its seed is the run's).
    pub users: FeedbackOptions,
    /// How users are sorted into pools.
    pub pools: PoolConfig,
    /// Multipliers, weights and regeneration (its length is set from `weeks`).
    pub population: PopulationConfig,
    /// Measured weeks, after the warm-up and before the cool-down.
    pub weeks: u32,
    /// Replications.
    pub replications: u32,
    /// Worker threads; all cores when `None`.
    pub threads: Option<usize>,
    /// Users submit at their logged times, without feedback.
    pub open_loop: bool,
    /// Directory for output files.
    pub out: Option<PathBuf>,
}

/// Where a resampled run's users came from: the log, its pools and the user model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resampled {
    /// The log.
    pub input: String,
    /// Whether users reacted to the machine.
    pub feedback: bool,
    /// The user model.
    pub users: UserSettings,
    /// The log's pools.
    pub pools: Pools,
    /// The population.
    pub population: PopulationConfig,
    /// Measured weeks.
    pub weeks: u32,
    /// The simulated machine against the log's own schedule.
    pub machine: MachineCheck,
    /// Warnings about the input.
    pub warnings: Vec<String>,
}

/// The result of a resampled run: what `summary.json` holds.
pub type ResampleSummary = Replicated<Resampled>;

/// One replication in detail.
#[derive(Debug, Clone, PartialEq)]
pub struct ResampleRun {
    /// Its figures.
    pub figures: Replication,
    /// Arrivals, queue and utilization by local hour.
    pub cycles: CycleSummary,
    /// Job figures by runtime class.
    pub by_runtime_class: Vec<ClassSummary>,
    /// The users' submissions against their logged calendar.
    pub drift: Drift,
    /// The load of each log user's instances (by log user) and of each week from the
    /// run's start.
    pub load: LoadSummary,
}

/// A simulated replication: its figures, its weeks, what they came from, and the extra
/// observer.
struct Run<O> {
    figures: Replication,
    weekly: WeeklySeries,
    metrics: MetricsSummary,
    population: PopulationSummary,
    users: Population,
    observer: O,
}

/// A log read into pools, shared by the replications.
#[derive(Clone)]
pub struct Resampler {
    pools: Arc<UserPools>,
    procs: u32,
    /// The log's header and the zone override, for the site's clock.
    header: SwfHeader,
    time_zone: Option<String>,
    settings: UserSettings,
    user_cfg: UserConfig,
    warnings: Vec<String>,
    machine: MachineCheck,
    input: String,
    /// The log's own figures.
    log: LogFigures,
    /// The log's own load, by user and by week of the log.
    log_load: LoadSummary,
}

/// The load of a log's users and weeks as the log recorded it (its waits included).
fn log_load(trace: &Trace) -> LoadSummary {
    let mut recorder = LoadRecorder::new(trace.span.0);
    for u in &trace.users {
        for j in &u.jobs {
            recorder.record(
                u.user,
                j.submit,
                j.start - j.submit,
                j.spec.size,
                j.spec.runtime,
            );
        }
    }
    recorder.finish()
}

/// Simulated time of a run: warm-up, measured weeks and cool-down.
fn simulated_length(opts: &ResampleOptions) -> Time {
    let run = &opts.users.run;
    run.warmup + i64::from(opts.weeks) * WEEK + run.cooldown
}

impl Resampler {
    /// The users of the log `swf` read into pools as `opts` says.
    pub fn open(swf: &Path, opts: &ResampleOptions) -> Result<Resampler, String> {
        let source = LogSource::file(swf).map_err(|e| e.to_string())?;
        Resampler::new(&source, opts).map_err(|e| e.to_string())
    }

    /// Reads the log that `open` reads into pools.
    pub fn new<I: Records>(
        source: &LogSource<'_, I>,
        opts: &ResampleOptions,
    ) -> Result<Resampler, RunError> {
        let users = log_users(source, &opts.users)?;
        Resampler::of(source.name(), source.header(), users, opts)
    }

    /// The users `users` of the log named `file`, with header `header` (read as
    /// `opts.users` says: [`log_users`]), in pools as `opts` says.
    pub(crate) fn of(
        file: &str,
        header: &SwfHeader,
        users: LogUsers,
        opts: &ResampleOptions,
    ) -> Result<Resampler, RunError> {
        let LogUsers {
            trace,
            procs,
            settings,
            mut user_cfg,
            mut warnings,
            machine,
            ..
        } = users;
        user_cfg.open_loop = opts.open_loop;
        let log = log_figures(&trace, procs);
        let log_load = log_load(&trace);
        let pools = UserPools::new(trace, opts.pools);
        for (user, weight) in &opts.population.weights {
            if !pools.pools.users.iter().any(|u| u.user == *user) {
                warnings.push(format!(
                    "the weight {weight} of user {user} is ignored: the log has no user {user}"
                ));
            }
        }
        if pools.pools.long_term + pools.pools.temporary == 0 {
            return Err(RunError::Options(format!(
                "{file}: no user to resample (every user lies within {} of an end of the log){}",
                crate::time::Hms(pools.pools.edge),
                machine
                    .warning(file)
                    .map_or_else(String::new, |w| format!("; and {w}"))
            )));
        }
        Ok(Resampler {
            pools: Arc::new(pools),
            procs,
            header: header.clone(),
            time_zone: opts.users.users.split.time_zone.clone(),
            settings,
            user_cfg,
            warnings,
            machine,
            input: file.to_owned(),
            log,
            log_load,
        })
    }

    /// The simulated machine against the log's own schedule.
    pub fn machine(&self) -> &MachineCheck {
        &self.machine
    }

    /// The same log, its users submitting at their logged times (`true`, no feedback)
    /// or with feedback.
    pub fn with_open_loop(&self, open_loop: bool) -> Resampler {
        let mut r = self.clone();
        r.user_cfg.open_loop = open_loop;
        r
    }

    /// The log's own figures.
    pub fn log(&self) -> &LogFigures {
        &self.log
    }

    /// The log's own load, by user and by week from its first submission.
    pub fn log_load(&self) -> &LoadSummary {
        &self.log_load
    }

    /// What a scheduler is built for: the machine and the log's clock.
    pub(crate) fn build_context(&self) -> BuildContext {
        let clock = SiteClock::of_log(self.header.calendar(), self.time_zone.as_deref())
            .map_or_else(|_| SiteClock::utc(), |(c, _)| c);
        BuildContext {
            procs: self.procs,
            clock,
        }
    }

    /// Processors of the simulated machine.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// The log's pools.
    pub fn pools(&self) -> &Pools {
        &self.pools.pools
    }

    /// Runs one replication under `policy` with `population`, its users drawn from
    /// `seed`.
    pub fn replicate(
        &self,
        opts: &ResampleOptions,
        policy: &SchedulerSpec,
        population: &PopulationConfig,
        replication: u32,
    ) -> Result<Replication, RunError> {
        let ctx = self.build_context();
        self.run(opts, policy, population, replication, &ctx, ())
            .map(|r| r.figures)
    }

    /// [`Resampler::replicate`], with the run's daily cycle and its figures by runtime
    /// class (for experiments).
    pub fn replicate_in_detail(
        &self,
        opts: &ResampleOptions,
        policy: &SchedulerSpec,
        population: &PopulationConfig,
        replication: u32,
    ) -> Result<ResampleRun, RunError> {
        let ctx = self.build_context();
        let recorders = (
            CycleRecorder::new(ctx.clock.clone(), self.procs),
            LoadRecorder::new(self.pools.pools.span.0),
        );
        let r = self.run(opts, policy, population, replication, &ctx, recorders)?;
        let (cycles, load) = r.observer;
        Ok(ResampleRun {
            figures: r.figures,
            cycles: cycles.summary(),
            by_runtime_class: r.metrics.by_runtime_class,
            drift: r.population.jobs.drift,
            load: by_log_user(load.finish(), &r.users.log_user_of()),
        })
    }

    /// Simulates replication `replication` with `observer` watching besides the
    /// recorders of its figures: [`Resampler::replicate`] runs it with none, so that
    /// the 1,000 replications of a histogram pay for no recorder they do not report.
    fn run<O: Observer>(
        &self,
        opts: &ResampleOptions,
        policy: &SchedulerSpec,
        population: &PopulationConfig,
        replication: u32,
        ctx: &BuildContext,
        observer: O,
    ) -> Result<Run<O>, RunError> {
        let seed = replication_seed(opts.users.run.seed, replication);
        let run = &opts.users.run;
        let population = PopulationConfig {
            length: simulated_length(opts),
            ..population.clone()
        };
        let multipliers = (population.long_term, population.temporary);
        let users = Population::new(self.pools.clone(), population, self.user_cfg.clone(), seed)
            .measuring(run.warmup, run.cooldown);
        let metrics = MetricsConfig {
            procs: self.procs,
            bsld: run.bsld,
            warmup: run.warmup,
            cooldown: run.cooldown,
        };
        let trace = &self.settings.trace;
        let observers = (
            Recorder::summary_only(metrics),
            (SessionRecorder::new(trace.rule, trace.threshold), observer),
        );
        let run_opts = crate::commands::replay::ReplayOptions {
            policy: policy.clone(),
            ..run.clone()
        };
        let (users, (recorder, (sessions, observer)), _) =
            site(users, observers, ctx, &run_opts)?.run(None)?;
        if !recorder.any_submitted() {
            return Err(RunError::Options(format!(
                "no job was submitted by long-term users x{} and temporary users x{} of the \
                 log's (--long-term, --temporary, --population)",
                multipliers.0, multipliers.1
            )));
        }
        let mut m = recorder.finish().map_err(RunError::Options)?;
        let mut weekly = std::mem::take(&mut m.by_week);
        weekly.count_sessions(sessions.opened());
        let population = users.users().summary();
        let report = users.report();
        let window = (
            weekly.origin + run.warmup,
            weekly.origin + run.warmup + Time::from(opts.weeks) * WEEK,
        );
        Ok(Run {
            figures: Replication {
                users: report.instances,
                frustrated: population.frustrated,
                replaced: report.replaced,
                arrivals: report.arrivals,
                regenerations: report.regenerations,
                ..Replication::measured(replication, seed, &m, &sessions.summary())
                    .with_lateness(&population.lateness)
                    .with_queue_trend(&weekly, window.0, window.1)
            },
            weekly,
            metrics: m,
            population,
            users,
            observer,
        })
    }

    /// Runs replications `0..n` under `policy` with `population` on the current rayon
    /// pool; `done` is called as each finishes; stops starting new ones once `stop` is
    /// set. Returns the finished ones in order.
    pub fn replications(
        &self,
        opts: &ResampleOptions,
        policy: &SchedulerSpec,
        population: &PopulationConfig,
        n: u32,
        stop: &AtomicBool,
        done: &(dyn Fn() + Sync),
    ) -> Result<Vec<Replication>, RunError> {
        in_parallel(0..n, stop, done, |r| {
            self.replicate(opts, policy, population, r)
        })
    }

    /// [`Resampler::replications`] of `opts` (its policy, population and number), each
    /// with its weeks, which go to `weekly`, if given, as they finish.
    pub fn weekly_replications(
        &self,
        opts: &ResampleOptions,
        stop: &AtomicBool,
        done: &(dyn Fn() + Sync),
        mut weekly: Option<&mut WeeklyCsv>,
    ) -> Result<Vec<Replication>, RunError> {
        let (policy, population) = (&opts.users.run.policy, &opts.population);
        let mut replications = Vec::new();
        in_parallel_each(
            0..opts.replications,
            stop,
            done,
            |r| self.run(opts, policy, population, r, &self.build_context(), ()),
            |run| {
                if let Some(csv) = weekly.as_deref_mut() {
                    csv.add(run.figures.replication, &run.weekly)?;
                }
                replications.push(run.figures);
                Ok(())
            },
        )?;
        Ok(replications)
    }

    /// The summary of a resampled run under `opts`.
    pub fn summary(
        &self,
        opts: &ResampleOptions,
        replications: Vec<Replication>,
    ) -> ResampleSummary {
        let run = &opts.users.run;
        let header = run.run_header(self.procs, opts.replications);
        let source = Resampled {
            input: self.input.clone(),
            feedback: !opts.open_loop,
            users: self.settings.clone(),
            pools: self.pools.pools.clone(),
            population: PopulationConfig {
                length: simulated_length(opts),
                ..opts.population.clone()
            },
            weeks: opts.weeks,
            machine: self.machine,
            warnings: self.warnings.clone(),
        };
        header.summary(source, replications)
    }
}

/// `load` recorded by simulated user, added up by the log user each one replays.
fn by_log_user(load: LoadSummary, log_user_of: &FxHashMap<i64, i64>) -> LoadSummary {
    let mut users: Vec<(i64, UserLoad)> = load
        .users
        .iter()
        .map(|&(u, l)| (log_user_of.get(&u).copied().unwrap_or(u), l))
        .collect();
    users.sort_unstable_by_key(|u| u.0);
    users.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1.add(&later.1);
        }
        same
    });
    let mut user_weeks: Vec<((i64, u32), f64)> = load
        .user_weeks
        .iter()
        .map(|&((u, w), work)| ((log_user_of.get(&u).copied().unwrap_or(u), w), work))
        .collect();
    user_weeks.sort_unstable_by_key(|u| u.0);
    user_weeks.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 += later.1;
        }
        same
    });
    LoadSummary {
        users,
        user_weeks,
        ..load
    }
}

/// The lateness of the jobs logged in the measured weeks, each quantile and share the
/// mean over the replications.
pub fn render_mean_lateness(reps: &[Replication]) -> String {
    let n = reps.len().max(1) as f64;
    let mean = |f: fn(&Replication) -> f64| reps.iter().map(f).sum::<f64>() / n;
    let signed = |t: f64| crate::time::Hms(t.round() as Time).to_string();
    format!(
        "median {}, p95 {}, p99 {}, max {}; {:.2}% of jobs more than a week late (means over the replications)",
        signed(mean(|r| r.lateness_median)),
        signed(mean(|r| r.lateness_p95)),
        signed(mean(|r| r.lateness_p99)),
        signed(mean(|r| r.lateness_max)),
        100.0 * mean(|r| r.late_over_week),
    )
}

/// The terminal summary of a resampled run.
pub fn render_resample(s: &ResampleSummary) -> String {
    let mut out = format!(
        "{}: {} replications of {} weeks ({}), {} processors, {}, {}\n",
        s.source.input,
        s.replications.len(),
        s.source.weeks,
        crate::time::warm_up(s.run.warmup),
        s.run.procs,
        s.run.scheduler,
        if s.source.feedback {
            "with feedback"
        } else {
            "open-loop (no feedback)"
        },
    );
    if s.run.interrupted {
        out.push_str(&format!(
            "  interrupted: {} of {} replications finished\n",
            s.replications.len(),
            s.run.replications_asked
        ));
    }
    out.push_str(&format!(
        "  machine                {}\n",
        s.source.machine.render()
    ));
    out.push_str(&s.source.pools.render());
    out.push_str(&format!(
        "  population             long-term users x{}, temporary users x{}; a long-term user starts {}, and when its jobs run out comes back after {}, counted from {}\n",
        s.source.population.long_term,
        s.source.population.temporary,
        match s.source.population.start_week {
            StartWeek::Activity => "in a random week of its activity in the log",
            StartWeek::Cycle => "at a random point of its cycle of activity and absence",
        },
        match s.source.population.regenerate_after {
            Some(t) => crate::time::Span(t).to_string(),
            None => "as long as it was away in the log".into(),
        },
        match s.source.population.regenerate_from {
            RegenerateFrom::Calendar => "its last job's logged time (or its own last submission, if later)",
            RegenerateFrom::Finish => "its own last submission",
        },
    ));
    out.push_str(&render_stats(&s.stats));
    if s.source.feedback {
        out.push_str(&format!(
            "  lateness               {}\n",
            render_mean_lateness(&s.replications)
        ));
    }
    out
}

/// The replications of `opts` over the users of the log `swf`, on `opts.threads`
/// threads; stops starting replications once `stop` is set and calls `done` as each
/// finishes; writes `summary.json`, `replications.csv` and `weekly.csv` into `opts.out`,
/// which it holds for this process from the start ([`lock_folder`]).
pub fn resample_file(
    swf: &Path,
    opts: &ResampleOptions,
    stop: &AtomicBool,
    done: &(dyn Fn() + Sync),
) -> Result<ResampleSummary, String> {
    let _lock = opts.out.as_deref().map(lock_folder).transpose()?;
    let resampler = Resampler::open(swf, opts)?;
    let mut weekly = opts
        .out
        .as_deref()
        .map(WeeklyCsv::create)
        .transpose()
        .map_err(|e| e.to_string())?;
    let reps = with_threads(opts.threads, u64::from(opts.replications), || {
        resampler.weekly_replications(opts, stop, done, weekly.as_mut())
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    let summary = resampler.summary(opts, reps);
    if let (Some(dir), Some(weekly)) = (&opts.out, weekly) {
        write_replicated(dir, &summary, weekly).map_err(|e| e.to_string())?;
    }
    Ok(summary)
}
