//! `sitesim feedback`: a log replayed with feedback (Feitelson 2021, §4.3). Every user of the log
//! submits its own jobs in log order, each once the jobs it depends on have ended on the
//! simulated machine, plus its think time, inside its session windows. Writes what
//! `replay` writes (the schedule being the generated workload, replayable open-loop)
//! plus per-user, per-session and hour-of-week records.

use std::fmt::Write as _;
use std::io::Write as _;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::commands::options::{ContinuationSource, UnknownWaits, UserOptions};
use crate::commands::replay::{
    InputInfo, Outputs, ReplayOptions, ReplaySummary, log_jobs, machine_size, render_run,
    schedule_note, site,
};
use crate::job::JobOutcome;
use crate::localtime::{SiteClock, ZoneSource};
use crate::metrics::{
    CycleRecorder, CycleSummary, MetricsConfig, Recorder, SessionRecord, SessionRecorder,
    SessionsSummary, UserRecord, write_sessions_csv,
};
use crate::options::name;
use crate::predict::estimates::{EstimateModel, ModalReport};
use crate::results::RunError;
use crate::results::lock::lock_folder;
use crate::results::terminal::verbose;
use crate::sched::BuildContext;
use crate::sim::Observer;
use crate::swf::{Ignored, KeptRecords, LogSource, Records, SwfHeader};
use crate::textfmt::{Fixed, write_csv};
use crate::time::{HOUR, Hms, Time, WEEK};
use crate::users::{
    Behaviour, ContinuationCurve, Drift, LatenessSummary, Patience, ThinkRules, UserConfig,
    UserState,
};
use crate::users::{PopulationSummary, TraceUsers};
use crate::workload::LogReplay;
use crate::workload::peak::MachineCheck;
use crate::workload::questionable::Report;
use crate::workload::trace::{Trace, TraceConfig};
use std::path::Path;

/// The logged waits an open-loop replay of the log gives its jobs, by log line.
#[derive(Default)]
struct WaitsByLine(FxHashMap<u64, Time>);

impl Observer for WaitsByLine {
    fn on_end(&mut self, j: &JobOutcome) {
        // An open-loop replay tags each job with its line.
        self.0.insert(j.tag, j.wait());
    }
}

/// Everything a feedback replay needs besides the log.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FeedbackOptions {
    /// The site, scheduler, estimates, predictor, metrics and outputs, as for `replay`
    /// (the interarrival factor must stay 1: users set the pace).
    pub run: ReplayOptions,
    /// The users: how the log is split into them, how they think, come back and react.
    pub users: UserOptions,
}

/// The user model of a run, as reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UserSettings {
    /// Sessions and dependencies.
    pub trace: TraceConfig,
    /// How they think and come back.
    #[serde(flatten)]
    pub rules: ThinkRules,
    /// The zone local times are taken in.
    pub time_zone: String,
    /// Where it came from.
    pub time_zone_source: ZoneSource,
    /// The continuation curve's source, if on.
    pub continuation: Option<String>,
    /// Patience, if on.
    pub patience: Option<Patience>,
    /// What jobs whose logged wait was unknown were given (`error`, `zero`,
    /// `replay:POLICY`).
    pub unknown_waits: UnknownWaits,
}

/// Throughput over the log's own span, from its first to its last submission: the
/// simulated run and the log side by side (the simulated run may go on after the span:
/// users delayed by the feedback finish later than in the log).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SpanThroughput {
    /// Weeks from the log's first to its last submission.
    pub weeks: f64,
    /// Jobs that ended in the span, in the simulation.
    pub jobs: u64,
    /// The same in the log.
    pub log_jobs: u64,
    /// Simulated jobs per week.
    pub jobs_per_week: f64,
    /// Logged jobs per week.
    pub log_jobs_per_week: f64,
    /// Simulated processor-hours per week.
    pub proc_hours_per_week: f64,
    /// Logged processor-hours per week.
    pub log_proc_hours_per_week: f64,
    /// The share of the log's work (processor-seconds) done by the log's last
    /// submission, in the simulation.
    pub work_share: f64,
    /// The same in the log.
    pub log_work_share: f64,
}

/// Counts the jobs that end by a bound.
struct EndsBy {
    bound: Time,
    jobs: u64,
    work: i128,
}

impl Observer for EndsBy {
    fn on_end(&mut self, j: &JobOutcome) {
        if j.end <= self.bound {
            self.jobs += 1;
            self.work += i128::from(j.size) * i128::from(j.runtime());
        }
    }
}

/// The log as its users produced it, for comparison with the simulated run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogFigures {
    /// Users.
    pub users: u64,
    /// Jobs.
    pub jobs: u64,
    /// Jobs whose logged wait was unknown (given one as the user model's
    /// `unknown_waits` says).
    pub unknown_wait: u64,
    /// First and last submit times.
    pub first_submit: Time,
    /// Last submit time.
    pub last_submit: Time,
    /// Jobs submitted per week.
    pub jobs_per_week: f64,
    /// Processor-seconds asked for over the machine's capacity between the first and
    /// last submission.
    pub offered_load: f64,
    /// The log's sessions.
    pub sessions: SessionsSummary,
}

/// The result of a feedback replay: what `summary.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeedbackSummary {
    /// The figures every run has.
    #[serde(flatten)]
    pub run: ReplaySummary,
    /// The user model.
    pub users: UserSettings,
    /// The log's own figures.
    pub log: LogFigures,
    /// Throughput over the log's span, simulated and logged.
    pub span_throughput: SpanThroughput,
    /// What became of the users and their jobs.
    pub population: PopulationSummary,
    /// Simulated sessions.
    pub sessions: SessionsSummary,
    /// Arrivals, queue and utilization by hour of day and day of week.
    pub cycles: CycleSummary,
    /// Warnings about the input.
    pub warnings: Vec<String>,
}

/// The log's sessions as records.
fn log_sessions(trace: &Trace) -> Vec<SessionRecord> {
    let mut out = Vec::with_capacity(trace.sessions());
    for u in &trace.users {
        for j in &u.jobs {
            let work = i64::from(j.spec.size) * j.spec.runtime;
            if j.opens_session {
                out.push(SessionRecord {
                    user: u.user,
                    index: j.session,
                    first_submit: j.submit,
                    last_submit: j.submit,
                    last_end: j.end,
                    jobs: 0,
                    work: 0,
                });
            }
            let s = out.last_mut().expect("a user's first job opens a session");
            s.jobs += 1;
            s.last_submit = j.submit;
            s.last_end = s.last_end.max(j.end);
            s.work += work;
        }
    }
    out
}

/// The log's own figures, on a machine of `procs` processors.
pub(crate) fn log_figures(trace: &Trace, procs: u32) -> LogFigures {
    let (first, last) = trace.span;
    let span = (last - first).max(1) as f64;
    let work: i128 = trace
        .users
        .iter()
        .flat_map(|u| &u.jobs)
        .map(|j| i128::from(j.spec.size) * i128::from(j.spec.runtime))
        .sum();
    LogFigures {
        users: trace.users.len() as u64,
        jobs: trace.jobs() as u64,
        unknown_wait: trace.unknown_wait,
        first_submit: first,
        last_submit: last,
        jobs_per_week: trace.jobs() as f64 / (span / WEEK as f64),
        offered_load: work as f64 / (f64::from(procs) * span),
        sessions: SessionsSummary::of(log_sessions(trace).into_iter(), trace.users.len() as u64),
    }
}

/// A row of `users.csv`: one user of the trace, with its simulated jobs and sessions,
/// where its submissions fell and how far they drifted from the log's times.
#[derive(Serialize, Default)]
struct UserRow {
    user: i64,
    state: &'static str,
    trace_jobs: usize,
    submitted: u64,
    ended: u64,
    log_sessions: usize,
    sessions: u32,
    mean_wait: Fixed<1>,
    mean_response: Fixed<1>,
    processor_seconds: i64,
    first_submit: Time,
    last_end: Time,
    inside_window: u64,
    next_window: u64,
    after_last_window: u64,
    flowed_forward: u64,
    after_own_window: u64,
    gave_up: u64,
    extended: u64,
    strikes: u64,
    on_time: u64,
    early: u64,
    late: u64,
    max_lead: Time,
    max_lateness: Time,
}

fn write_users_csv(
    w: &mut impl std::io::Write,
    users: &TraceUsers,
    records: &[UserRecord],
) -> std::io::Result<()> {
    // Both are in user order; a user appears in `records` once a job of it was submitted.
    let mut records = records.iter().peekable();
    let rows = users.agents().iter().map(|a| {
        let r = records
            .next_if(|r| r.user == a.user())
            .copied()
            .unwrap_or_default();
        let c = a.counts();
        let mean = |sum: i64| {
            Fixed(if r.jobs > 0 {
                sum as f64 / r.jobs as f64
            } else {
                0.0
            })
        };
        UserRow {
            user: a.user(),
            state: match a.state() {
                UserState::Done => "done",
                UserState::Left => "frustrated",
                UserState::Waiting | UserState::Ready(..) => "active",
            },
            trace_jobs: a.trace().jobs.len(),
            submitted: c.submitted,
            ended: r.jobs,
            log_sessions: a.trace().windows.len(),
            sessions: r.sessions,
            mean_wait: mean(r.wait_sum),
            mean_response: mean(r.response_sum),
            processor_seconds: r.work,
            first_submit: r.first_submit,
            last_end: r.last_end,
            inside_window: c.inside_window,
            next_window: c.next_window,
            after_last_window: c.after_last_window,
            flowed_forward: c.flowed_forward,
            after_own_window: c.after_own_window,
            gave_up: c.gave_up,
            extended: c.extended,
            strikes: c.strikes,
            on_time: c.drift.on_time,
            early: c.drift.early(),
            late: c.drift.late(),
            max_lead: c.drift.max_lead,
            max_lateness: c.drift.max_lateness,
        }
    });
    write_csv(w, rows)
}

/// A log read into users, with everything a run of them needs: read once, and cloned
/// for each run of one command that needs them (`calibrate`'s resampled rows and its
/// feedback replay).
#[derive(Clone)]
pub(crate) struct LogUsers {
    /// The users.
    pub trace: Trace,
    /// Machine size.
    pub procs: u32,
    /// The site's local time.
    pub clock: SiteClock,
    /// The user model, as reported.
    pub settings: UserSettings,
    /// The user model, as the agents use it.
    pub user_cfg: UserConfig,
    /// Questionable jobs met while reading.
    pub questionable: Report,
    /// Columns past the 18 standard ones.
    pub extra: Ignored,
    /// What the modal estimate model was built from, if used.
    pub modal_estimates: Option<ModalReport>,
    /// Warnings about the input.
    pub warnings: Vec<String>,
    /// The simulated machine against the log's own schedule.
    pub machine: MachineCheck,
    /// The jobs' log records by the tags their agents give them
    /// ([`TraceUsers::records_by_tag`]), when the run writes a schedule.
    pub records: Option<KeptRecords>,
}

/// Reads the log that `open` reads (named `file`, with header `header`) into a trace
/// as `config` says, the jobs admitted and given estimates as `run` says for a machine
/// of `ctx.procs` processors; jobs whose logged wait is unknown get one as `unknown`
/// says (an open-loop replay under its policy runs on `ctx` first). Returns the log
/// reader too, for what it counted.
pub fn read_trace<I: Records>(
    source: &LogSource<'_, I>,
    ctx: &BuildContext,
    run: &ReplayOptions,
    config: TraceConfig,
    unknown: &UnknownWaits,
) -> Result<(Trace, LogReplay<I>, Option<ModalReport>), RunError> {
    let estimated = estimate_waits(source, ctx, run, unknown)?;
    let (mut log, modal) = log_jobs(source, ctx.procs, run)?;
    let trace = Trace::read(&mut log, config, unknown.missing(estimated.as_ref()))?;
    Ok((trace, log, modal))
}

/// With [`UnknownWaits::Replay`], the wait each job of the log gets in an open-loop
/// replay under that policy on `ctx`'s machine (its jobs admitted as `run` says), by log
/// line; `None` otherwise.
pub fn estimate_waits<I: Records>(
    source: &LogSource<'_, I>,
    ctx: &BuildContext,
    run: &ReplayOptions,
    unknown: &UnknownWaits,
) -> Result<Option<FxHashMap<u64, Time>>, RunError> {
    let UnknownWaits::Replay(policy) = unknown else {
        return Ok(None);
    };
    let (log, _) = log_jobs(source, ctx.procs, run)?;
    let opts = ReplayOptions {
        policy: policy.clone(),
        out: None,
        ..run.clone()
    };
    let (_, waits, _) = site(log, WaitsByLine::default(), ctx, &opts)?.run(None)?;
    Ok(Some(waits.0))
}

/// Reads the log `source` into users as `opts` says. A log that needs more than one pass
/// (its unknown waits estimated by a replay, or the modal estimate model, which needs
/// every job before the run) is read into memory once, and the passes read it there.
pub(crate) fn log_users<I: Records>(
    source: &LogSource<'_, I>,
    opts: &FeedbackOptions,
) -> Result<LogUsers, RunError> {
    let several_passes = matches!(opts.users.split.unknown_waits, UnknownWaits::Replay(_))
        || matches!(opts.run.estimates, EstimateModel::Modal { .. });
    if !several_passes {
        return read_users(source, opts);
    }
    let mut reader = source.open()?;
    let records = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    let extra = reader.ignored();
    let memory = LogSource::records(source.name(), source.header().clone(), &records, extra);
    read_users(&memory, opts)
}

/// [`log_users`], each pass reading `source`.
fn read_users<I: Records>(
    source: &LogSource<'_, I>,
    opts: &FeedbackOptions,
) -> Result<LogUsers, RunError> {
    let file = source.name();
    let header = source.header();
    let (run, users) = (&opts.run, &opts.users);
    let trace_config = users.split.trace();
    let patience = users.reaction.patience();
    if run.interarrival_factor != 1.0 {
        return Err(RunError::Options(
            "a run of users takes no interarrival factor: its users set the pace".into(),
        ));
    }
    let procs = match run.procs {
        Some(p) => p,
        None => machine_size(file, header)?,
    };
    let (clock, warnings) = SiteClock::of_log(header.calendar(), users.split.time_zone.as_deref())
        .map_err(RunError::Options)?;
    let ctx = BuildContext {
        procs,
        clock: clock.clone(),
    };
    let (trace, log, modal_estimates) =
        read_trace(source, &ctx, run, trace_config, &users.split.unknown_waits)?;
    let extra = log.records().ignored();
    let questionable = *log.report();
    let records = log
        .kept_records()
        .map(|by_line| TraceUsers::records_by_tag(&trace, &by_line.borrow()));
    drop(log);
    let machine = MachineCheck::new(procs, header.max_procs, trace.logged_peak);
    let patience = patience.resolve(|| {
        Patience::of_waits(
            trace
                .users
                .iter()
                .flat_map(|u| &u.jobs)
                .map(|j| j.start - j.submit),
            trace_config.threshold,
            Patience::DEFAULT_STRIKES,
        )
    });
    let continuation = match &users.reaction.continuation {
        ContinuationSource::Off => None,
        ContinuationSource::Fit => Some(ContinuationCurve::fit(&trace, file)),
        ContinuationSource::File(p) => {
            let text = crate::model_files::read(p).map_err(|e| {
                RunError::Options(format!(
                    "{e} (--continuation takes a curve file such as \
                     models/continuation-kth.toml, 'fit' or 'off')"
                ))
            })?;
            Some(
                ContinuationCurve::parse(&text, &p.display().to_string())
                    .map_err(RunError::Options)?,
            )
        }
    };
    let settings = UserSettings {
        trace: trace_config,
        rules: users.rules,
        time_zone: clock.zone_name().to_owned(),
        time_zone_source: clock.source(),
        continuation: match (&users.reaction.continuation, &continuation) {
            (ContinuationSource::Fit, _) => Some(format!("fitted from {file}")),
            (ContinuationSource::File(p), Some(c)) => {
                Some(format!("{} (fitted from {})", p.display(), c.source))
            }
            _ => None,
        },
        patience,
        unknown_waits: users.split.unknown_waits.clone(),
    };
    let user_cfg = UserConfig {
        rules: users.rules,
        threshold: trace_config.threshold,
        behaviour: Behaviour {
            continuation,
            patience,
        },
        open_loop: false,
    };
    Ok(LogUsers {
        trace,
        procs,
        clock,
        settings,
        user_cfg,
        questionable,
        extra,
        modal_estimates,
        warnings,
        machine,
        records,
    })
}

/// One line on the submissions against the logged calendar: how many were on time,
/// early and late, by how much at most, and which rule moved them.
pub fn render_drift(d: &Drift) -> String {
    let mut line = format!(
        "{} jobs at their logged time, {} early (by up to {}), {} late (by up to {})",
        d.on_time,
        d.early(),
        Hms(d.max_lead),
        d.late(),
        Hms(d.max_lateness)
    );
    if d.lead_beyond_saved > 0 {
        let _ = write!(
            line,
            ", {} ahead by more than the response time saved",
            d.lead_beyond_saved
        );
    }
    let rules: Vec<String> = d
        .by_rule()
        .map(|(r, e, l)| format!("{} {e}/{l}", r.name()))
        .collect();
    if !rules.is_empty() && verbose() {
        let _ = write!(line, "; set by (early/late) {}", rules.join(", "));
    }
    line
}

/// A lateness distribution in one line: quantiles as durations (a lead with a minus
/// sign), shares of the jobs late by more than a day, a week and 30 days.
pub fn render_lateness(l: &LatenessSummary) -> String {
    let signed = |t: Time| Hms(t).to_string();
    let mut line = format!(
        "median {}, p95 {}, p99 {}, max {}; {:.2}% of jobs more than a day late, {:.2}% more than a week, {:.2}% more than 30 days",
        signed(l.median),
        signed(l.p95),
        signed(l.p99),
        signed(l.max),
        100.0 * l.over_day,
        100.0 * l.over_week,
        100.0 * l.over_30_days,
    );
    if l.censored > 0 {
        let _ = write!(
            line,
            " ({} not submitted by the end, counted as late as they were then)",
            l.censored
        );
    }
    line
}

/// Replays the log that `open` reads (named `file`, with header `header`) with feedback.
pub fn feedback<I: Records>(
    source: &LogSource<'_, I>,
    opts: &FeedbackOptions,
) -> Result<FeedbackSummary, RunError> {
    let users = log_users(source, opts)?;
    feedback_of(source.name(), source.header(), users, opts)
}

/// Replays the users `users` of the log named `file`, with header `header` (read as
/// `opts` says: [`log_users`]), with feedback under `opts`.
pub(crate) fn feedback_of(
    file: &str,
    header: &SwfHeader,
    users: LogUsers,
    opts: &FeedbackOptions,
) -> Result<FeedbackSummary, RunError> {
    let run = &opts.run;
    let LogUsers {
        trace,
        procs,
        clock,
        settings,
        user_cfg,
        questionable,
        extra,
        modal_estimates,
        warnings,
        machine,
        records,
    } = users;
    let log_figures = log_figures(&trace, procs);
    let trace_span = trace.span;
    let log_work: i128 = trace
        .users
        .iter()
        .flat_map(|u| &u.jobs)
        .map(|j| i128::from(j.spec.size) * i128::from(j.spec.runtime))
        .sum();
    let log_in_span = trace
        .users
        .iter()
        .flat_map(|u| &u.jobs)
        .filter(|j| j.end <= trace_span.1)
        .fold((0u64, 0i128), |(n, w), j| {
            (
                n + 1,
                w + i128::from(j.spec.size) * i128::from(j.spec.runtime),
            )
        });
    let users = TraceUsers::new(trace, user_cfg, run.seed);
    let metrics = MetricsConfig {
        procs,
        bsld: run.bsld,
        warmup: run.warmup,
        cooldown: run.cooldown,
    };
    let (outputs, per_job) = match &run.out {
        Some(dir) => {
            let note = schedule_note("workload generated with feedback", procs, run);
            let (o, w) = Outputs::per_job(dir, header, procs, note, run.bsld)?;
            (Some(o), Some(w.with_records(records)))
        }
        None => (None, None),
    };
    let (first, last) = trace_span;
    let observers = (
        Recorder::new(metrics, per_job),
        (
            (
                SessionRecorder::new(settings.trace.rule, settings.trace.threshold),
                CycleRecorder::new(clock.clone(), procs),
            ),
            EndsBy {
                bound: last,
                jobs: 0,
                work: 0,
            },
        ),
    );
    let (users, (recorder, ((sessions, cycles), in_span)), counts) =
        site(users, observers, &BuildContext { procs, clock }, run)?.run(None)?;
    let weeks = ((last - first).max(1) as f64) / WEEK as f64;
    let span_throughput = SpanThroughput {
        weeks,
        jobs: in_span.jobs,
        log_jobs: log_in_span.0,
        jobs_per_week: in_span.jobs as f64 / weeks,
        log_jobs_per_week: log_in_span.0 as f64 / weeks,
        proc_hours_per_week: in_span.work as f64 / HOUR as f64 / weeks,
        log_proc_hours_per_week: log_in_span.1 as f64 / HOUR as f64 / weeks,
        work_share: in_span.work as f64 / log_work.max(1) as f64,
        log_work_share: log_in_span.1 as f64 / log_work.max(1) as f64,
    };
    let metrics = recorder
        .finish()
        .map_err(|e| RunError::Options(format!("{file}: {e}")))?;
    let population = users.summary();
    let input = InputInfo {
        file: file.to_owned(),
        machine,
        jobs: population.jobs.submitted,
        ignored: extra,
    };
    let sessions_summary = sessions.summary();
    let mut measured = ReplaySummary::new(
        run,
        input,
        procs,
        modal_estimates,
        questionable,
        counts,
        metrics,
    );
    measured.metrics.by_week.count_sessions(sessions.opened());
    measured.measure(Some(&sessions_summary));
    let summary = FeedbackSummary {
        run: measured,
        users: settings,
        log: log_figures,
        span_throughput,
        population,
        sessions: sessions_summary,
        cycles: cycles.summary(),
        warnings,
    };
    if let Some(mut o) = outputs {
        let (session_records, user_records) = sessions.records();
        // The writers' errors name their files.
        let mut w = o.create("users.csv")?;
        write_users_csv(&mut w, &users, &user_records).map_err(RunError::Written)?;
        w.flush().map_err(RunError::Written)?;
        let mut w = o.create("sessions.csv")?;
        write_sessions_csv(&mut w, &session_records).map_err(RunError::Written)?;
        w.flush().map_err(RunError::Written)?;
        let mut w = o.create("cycles.csv")?;
        cycles.write_csv(&mut w).map_err(RunError::Written)?;
        w.flush().map_err(RunError::Written)?;
        o.commit_with_weekly(&summary, &summary.run.metrics.by_week)?;
    }
    Ok(summary)
}

/// A lateness as words: `2d 01:43:45 early`, `04:00:00 late`, `on time`.
fn early_or_late(t: Time) -> String {
    match t.cmp(&0) {
        std::cmp::Ordering::Less => format!("{} early", Hms(-t)),
        std::cmp::Ordering::Equal => "on time".into(),
        std::cmp::Ordering::Greater => format!("{} late", Hms(t)),
    }
}

/// The terminal summary of a feedback replay.
pub fn render_feedback(s: &FeedbackSummary) -> String {
    let r = &s.run;
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "feedback replay of {} on {} processors: {}{}, overrun policy {}, estimates {}",
        r.input.file,
        r.procs,
        r.scheduler,
        r.predictor
            .as_ref()
            .map_or(String::new(), |p| format!(" with predictor {p}")),
        name(&r.overrun),
        r.estimates,
    );
    let u = &s.users;
    let reaction = u
        .continuation
        .as_ref()
        .map_or("; users do not react to the service".into(), |c| {
            format!("; users react to the service (continuation curve {c})")
        });
    let patience = u.patience.map_or(String::new(), |p| {
        format!(
            "; they give up after {} strikes of waits over {}",
            p.strikes,
            crate::time::Span(p.limit)
        )
    });
    let _ = writeln!(
        w,
        "  user model    a pause of more than {} between jobs starts a new session; local time {}{reaction}{patience}",
        crate::time::Span(u.trace.threshold),
        u.time_zone,
    );
    if verbose() {
        let _ = writeln!(
            w,
            "  user options  session rule {}, dependencies up to {}, windows end at {}, opener think time {}, negative think time {}, flow forward {}, calendar {}, away until {}",
            name(&u.trace.rule),
            name(&u.trace.dependence),
            name(&u.trace.window_end),
            name(&u.rules.opening_think),
            name(&u.rules.negative_think),
            name(&u.rules.flow_forward),
            name(&u.rules.calendar_shift),
            name(&u.rules.away),
        );
    }
    let p = &s.population;
    let t = &s.span_throughput;
    let _ = writeln!(
        w,
        "  service       by the log's last submission its users had {:.1}% of the log's work done ({:.1}% in the log); their jobs came {} in the median, {} at p99; {} of {} users finished their work more than a day late (the median user {})",
        100.0 * t.work_share,
        100.0 * t.log_work_share,
        early_or_late(p.lateness.median),
        early_or_late(p.lateness.p99),
        p.finished_late,
        p.users,
        early_or_late(p.finish_lateness_median),
    );
    render_run(r, w);
    let _ = writeln!(
        w,
        "  users         {} users: {} done, {} frustrated ({} jobs never submitted); {} of {} jobs submitted",
        p.users, p.done, p.frustrated, p.never_submitted, p.jobs.submitted, p.trace_jobs
    );
    let j = &p.jobs;
    let _ = writeln!(
        w,
        "  submissions   {} as soon as their user was ready, {} held to the user's next working hours, {} after the user's last logged session",
        j.inside_window,
        j.next_window + j.usual_hour,
        j.after_last_window,
    );
    if verbose() {
        let _ = writeln!(
            w,
            "  fluid model   {} inside a window, {} at the next window, {} at a usual hour, {} after the last window; {} flowed forward, {} after their own window",
            j.inside_window,
            j.next_window,
            j.usual_hour,
            j.after_last_window,
            j.flowed_forward,
            j.after_own_window,
        );
    }
    let _ = writeln!(
        w,
        "  reactions     {} sessions given up after long responses; {} sessions the log broke off went on after short ones",
        j.gave_up, j.extended
    );
    let _ = writeln!(w, "  calendar      {}", render_drift(&j.drift));
    let _ = writeln!(w, "  lateness      {}", render_lateness(&p.lateness));
    let l = &s.log;
    let sessions = |w: &mut String, name: &str, x: &SessionsSummary| {
        let _ = writeln!(
            w,
            "  {name:<13} {} sessions, {:.2} jobs each (median {}), lasting {} on average (median {})",
            x.sessions,
            x.jobs_per_session.mean,
            x.jobs_per_session.median,
            Hms(x.duration.mean.round() as Time),
            Hms(x.duration.median),
        );
    };
    sessions(w, "sessions", &s.sessions);
    sessions(w, "log sessions", &l.sessions);
    let _ = writeln!(
        w,
        "  log span      {:.1} weeks: {} jobs ended ({:.1}/week, {:.0} processor-hours/week) vs {} in the log ({:.1}/week, {:.0} processor-hours/week); log offered load {:.2}%. These are the trace's: its users submit every job of the log, so a service changes them only by the work it pushes past the span (the `service` line)",
        t.weeks,
        t.jobs,
        t.jobs_per_week,
        t.proc_hours_per_week,
        t.log_jobs,
        t.log_jobs_per_week,
        t.log_proc_hours_per_week,
        100.0 * l.offered_load,
    );
    let peak = s
        .cycles
        .by_hour
        .iter()
        .max_by(|a, b| a.mean_queue.total_cmp(&b.mean_queue));
    let low = s
        .cycles
        .by_hour
        .iter()
        .min_by(|a, b| a.mean_queue.total_cmp(&b.mean_queue));
    if let (Some(hi), Some(lo)) = (peak, low) {
        let _ = writeln!(
            w,
            "  daily cycle   queue longest at {}:00 ({:.1} jobs, {:.0}% busy), shortest at {}:00 ({:.1} jobs, {:.0}% busy), {}",
            hi.label,
            hi.mean_queue,
            100.0 * hi.utilization,
            lo.label,
            lo.mean_queue,
            100.0 * lo.utilization,
            s.cycles.time_zone
        );
    }
    out
}

/// Replays the log `swf` with feedback under `opts`, holding the folder of its outputs
/// for this process ([`lock_folder`]).
pub fn feedback_file(swf: &Path, opts: &FeedbackOptions) -> Result<FeedbackSummary, String> {
    let _lock = opts.run.out.as_deref().map(lock_folder).transpose()?;
    let source = LogSource::file(swf).map_err(|e| e.to_string())?;
    feedback(&source, opts).map_err(|e| e.to_string())
}
