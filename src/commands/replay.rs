//! `sitesim replay`: open-loop replay of a log under one policy, with a terminal summary
//! and, optionally, a JSON summary, a per-job CSV and the simulated schedule as SWF.

use std::fmt::Write as _;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::job::OverrunPolicy;
use crate::localtime::SiteClock;
use crate::metrics::{
    Bsld, BsldForm, MetricsConfig, MetricsSummary, PerJobWriter, Recorder, SessionsSummary,
    WeeklySeries,
};
use crate::predict::estimates::{EstimateModel, Estimator, ModalReport};
use crate::predict::{PredictorDefaults, PredictorSpec};
use crate::registry::SchedulerSpec;
use crate::results::lock::lock_folder;
use crate::results::metric::{MetricStats, Replication, stats_of};
use crate::results::output::{AtomicFile, Durability, Named, write_atomic};
use crate::results::replicate::{RunHeader, WeeklyCsv};
use crate::results::{RunError, Units};
use crate::sched::{BuildContext, Policy};
use crate::sim::{Observer, SimCounts, Simulation, SiteConfig, Workload};
use crate::swf::{Ignored, LogSource, Records, SwfHeader, SwfWriter};
use crate::textfmt::significant;
use crate::time::{Hms, Time};
use crate::workload::peak::MachineCheck;
use crate::workload::questionable::{Policies, Report};
use crate::workload::{LogReplay, ReplayConfig};

/// Everything a replay needs besides the log.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReplayOptions {
    /// The policy.
    pub policy: SchedulerSpec,
    /// Machine size; `None` takes the log's `MaxProcs`.
    pub procs: Option<u32>,
    /// Jobs running past their estimate.
    pub overrun: OverrunPolicy,
    /// Questionable jobs.
    pub questionable: Policies,
    /// Interarrival scaling.
    pub interarrival_factor: f64,
    /// Bounded slowdown settings.
    pub bsld: Bsld,
    /// Warm-up, seconds.
    pub warmup: Time,
    /// Cool-down, seconds.
    pub cooldown: Time,
    /// What the jobs' estimates are.
    pub estimates: EstimateModel,
    /// What the scheduler plans with; estimates when `None`.
    pub predictor: Option<PredictorSpec>,
    /// Seed of the estimate models' randomness.
    pub seed: u64,
    /// Run the invariant checker.
    pub check: bool,
    /// Directory for output files.
    pub out: Option<PathBuf>,
}

impl ReplayOptions {
    /// The header of a replicated run on `procs` processors under these options' policy,
    /// window and seed, asking for `replications`; not interrupted until
    /// [`RunHeader::summary`] finds replications missing.
    pub fn run_header(&self, procs: u32, replications: u32) -> RunHeader {
        RunHeader {
            sitesim_version: env!("CARGO_PKG_VERSION"),
            units: Units::FILES,
            procs,
            scheduler: self.policy.label(),
            warmup: self.warmup,
            cooldown: self.cooldown,
            seed: self.seed,
            replications_asked: replications,
            interrupted: false,
        }
    }
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            policy: Policy::Easy.into(),
            procs: None,
            overrun: OverrunPolicy::Kill,
            questionable: Policies::default(),
            interarrival_factor: 1.0,
            bsld: Bsld::default(),
            warmup: 0,
            cooldown: 0,
            estimates: EstimateModel::Log,
            predictor: None,
            seed: 1,
            check: cfg!(debug_assertions),
            out: None,
        }
    }
}

/// The input of a replay, as reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputInfo {
    /// The log, as named on the command line.
    pub file: String,
    /// The simulated machine beside the header's `MaxProcs` and the peak of processors
    /// the log's own schedule keeps busy.
    pub machine: MachineCheck,
    /// Jobs submitted to the simulation.
    pub jobs: u64,
    /// What the reader ignored: columns past the 18 of SWF, comments after the header.
    pub ignored: Ignored,
}

impl InputInfo {
    /// What the run ignored or could not honour in its input: a machine smaller than
    /// the log's own schedule, columns past the 18 of SWF, comments after the header.
    pub fn warnings(&self) -> Vec<String> {
        let x = self.ignored;
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        let mut warnings: Vec<String> = self.machine.warning(&self.file).into_iter().collect();
        if x.lines > 0 {
            warnings.push(format!(
                "{}: {} line{} had more than 18 columns (up to {}; first at line {}); the extra columns were ignored",
                self.file,
                x.lines,
                plural(x.lines),
                x.max_columns,
                x.first_line
            ));
        }
        if x.comments_after_jobs > 0 {
            warnings.push(format!(
                "{}: {} comment line{} after the first job line were ignored (only the header block is read)",
                self.file,
                x.comments_after_jobs,
                plural(x.comments_after_jobs)
            ));
        }
        warnings
    }
}

/// The result of a replay: what `summary.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplaySummary {
    /// sitesim's version.
    pub sitesim_version: &'static str,
    /// What the numbers are in.
    pub units: Units,
    /// The log.
    pub input: InputInfo,
    /// Machine size.
    pub procs: u32,
    /// The policy.
    pub scheduler: SchedulerSpec,
    /// Jobs running past their estimate.
    pub overrun: OverrunPolicy,
    /// Interarrival scaling.
    pub interarrival_factor: f64,
    /// The estimate model.
    pub estimates: EstimateModel,
    /// What the modal estimate model was built from, if it was used.
    pub modal_estimates: Option<ModalReport>,
    /// The predictor, if any.
    pub predictor: Option<PredictorSpec>,
    /// Seed of the estimate models.
    pub seed: u64,
    /// Questionable-job policies.
    pub questionable_policies: Policies,
    /// Questionable jobs met.
    pub questionable: Report,
    /// Simulation counters.
    pub counts: SimCounts,
    /// The figures.
    pub metrics: MetricsSummary,
    /// The run's figures under the names of a replicated run's rows (`replications.csv`):
    /// every run has one shape.
    pub figures: Replication,
    /// Their statistics over this one run (`n` = 1), as a replicated run's `stats`: the
    /// metrics the run measures (a replay has no sessions; no run of a log has users who
    /// leave for good).
    pub stats: Vec<MetricStats>,
    /// What the run ignored or could not honour in its input ([`InputInfo::warnings`]).
    pub warnings: Vec<String>,
}

fn out_err(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Output {
        path: path.display().to_string(),
        source,
    }
}

type FileOut = Named<BufWriter<File>>;

/// Per-job output files being written, committed when the run succeeds.
pub(crate) struct Outputs {
    dir: PathBuf,
    files: Vec<(PathBuf, AtomicFile)>,
}

impl Outputs {
    /// Creates `dir` and opens `jobs.csv` and `schedule.swf` in it (the schedule's header
    /// is `header`'s for a machine of `procs` with `note` added), returning the writer the
    /// recorder feeds.
    pub(crate) fn per_job(
        dir: &Path,
        header: &SwfHeader,
        procs: u32,
        note: String,
        bsld: Bsld,
    ) -> Result<(Outputs, PerJobWriter<FileOut, FileOut>), RunError> {
        std::fs::create_dir_all(dir).map_err(out_err(dir))?;
        let mut o = Outputs {
            dir: dir.to_owned(),
            files: Vec::new(),
        };
        let csv = o.create("jobs.csv")?;
        let swf = o.create("schedule.swf")?;
        let swf = SwfWriter::new(swf, &header.lines_for_output(i64::from(procs), &[note]))
            .map_err(RunError::Written)?;
        let writer =
            PerJobWriter::new(Some(csv), Some(swf), bsld, procs).map_err(RunError::Written)?;
        Ok((o, writer))
    }

    /// Opens one more file, `name`, in the output directory; the writer's errors name
    /// the file.
    pub(crate) fn create(&mut self, name: &str) -> Result<FileOut, RunError> {
        let path = self.dir.join(name);
        let (file, w) = AtomicFile::create(&path, Durability::Renamed).map_err(out_err(&path))?;
        let w = Named::new(w, &path);
        self.files.push((path, file));
        Ok(w)
    }

    /// Writes `weekly.csv` (the run week by week, as a replicated run's, its one
    /// replication numbered 0), then `summary.json`, and commits every file.
    pub(crate) fn commit_with_weekly(
        self,
        summary: &impl Serialize,
        weekly: &WeeklySeries,
    ) -> Result<(), RunError> {
        let mut csv = WeeklyCsv::create(&self.dir)?;
        csv.add(0, weekly)?;
        csv.commit()?;
        self.commit(summary)
    }

    /// Writes `summary.json` and commits every file.
    pub(crate) fn commit(self, summary: &impl Serialize) -> Result<(), RunError> {
        for (path, f) in self.files {
            f.commit().map_err(out_err(&path))?;
        }
        let json = serde_json::to_vec_pretty(summary).expect("summaries serialize");
        let path = self.dir.join("summary.json");
        write_atomic(&path, &json).map_err(out_err(&path))?;
        Ok(())
    }
}

/// The machine a log ran on: its header's `MaxProcs`, or `MaxNodes` when that is the only
/// size it gives (as in the Lublin-Feitelson model's logs).
pub fn machine_size(file: &str, header: &SwfHeader) -> Result<u32, RunError> {
    let (key, value) = match (header.max_procs, header.max_nodes) {
        (Some(p), _) if p > 0 => ("MaxProcs", p),
        (_, Some(n)) if n > 0 => ("MaxNodes", n),
        _ => {
            return Err(RunError::Options(format!(
                "{file}: the header gives no MaxProcs or MaxNodes; say how many processors \
                 to simulate with --procs"
            )));
        }
    };
    u32::try_from(value)
        .map_err(|_| RunError::Options(format!("{file}: {key} {value} is too large")))
}

/// The log read as jobs under `opts` (questionable-job policies and estimate model), on
/// a machine of `procs`; `open` is called once more first when the modal estimate model
/// needs every job before the run.
pub(crate) fn log_jobs<I: Records>(
    source: &LogSource<'_, I>,
    procs: u32,
    opts: &ReplayOptions,
) -> Result<(LogReplay<I>, Option<ModalReport>), RunError> {
    let file = source.name();
    let header = source.header();
    let open = || source.open();
    let config = ReplayConfig {
        procs,
        policies: opts.questionable,
        interarrival_factor: opts.interarrival_factor,
        max_runtime: header.max_runtime,
        keep_records: opts.out.is_some(),
    };
    let estimator = Estimator::new(&opts.estimates, opts.seed, || {
        let records = open().map_err(|e| e.to_string())?;
        LogReplay::new(records, file, config)
            .admitted_jobs()
            .map_err(|e| e.to_string())
    })
    .map_err(RunError::Options)?;
    let modal = estimator.report();
    Ok((
        LogReplay::new(open()?, file, config).with_estimator(estimator),
        modal,
    ))
}

/// The simulation of `workload` observed by `observer` under `opts` on `procs`
/// processors, with the predictor if one is asked for.
pub(crate) fn site<W: Workload, O: Observer>(
    workload: W,
    observer: O,
    ctx: &BuildContext,
    opts: &ReplayOptions,
) -> Result<Simulation<W, O>, RunError> {
    let site = SiteConfig {
        procs: ctx.procs,
        overrun: opts.overrun,
        check: opts.check,
    };
    let sim = Simulation::new(site, opts.policy.build(ctx), workload, observer);
    match &opts.predictor {
        Some(spec) => {
            let p = spec
                .build(&PredictorDefaults::default())
                .map_err(RunError::Options)?;
            Ok(sim.with_predictor(p)?)
        }
        None => Ok(sim),
    }
}

/// The note a simulated schedule's header gets.
pub(crate) fn schedule_note(what: &str, procs: u32, opts: &ReplayOptions) -> String {
    format!(
        "{what} by sitesim {}: scheduler {}, overrun {}, {} processors, \
         interarrival factor {}; fields 2-5 and 9 hold simulated values",
        env!("CARGO_PKG_VERSION"),
        opts.policy.name(),
        crate::options::name(&opts.overrun),
        procs,
        opts.interarrival_factor
    )
}

/// Replays the log that `open` reads (named `file`, with header `header`) with `opts`.
/// `open` is called once, and once more first when the modal estimate model needs every
/// job before the run.
pub fn replay<I: Records>(
    source: &LogSource<'_, I>,
    opts: &ReplayOptions,
) -> Result<ReplaySummary, RunError> {
    let file = source.name();
    let header = source.header();
    let procs = match opts.procs {
        Some(p) => p,
        None => machine_size(file, header)?,
    };
    let (workload, modal_estimates) = log_jobs(source, procs, opts)?;
    let metrics = MetricsConfig {
        procs,
        bsld: opts.bsld,
        warmup: opts.warmup,
        cooldown: opts.cooldown,
    };
    let (outputs, per_job) = match &opts.out {
        Some(dir) => {
            let note = schedule_note("simulated", procs, opts);
            let (o, w) = Outputs::per_job(dir, header, procs, note, opts.bsld)?;
            (Some(o), Some(w.with_records(workload.kept_records())))
        }
        None => (None, None),
    };
    let recorder = Recorder::new(metrics, per_job);
    let ctx = BuildContext {
        procs,
        clock: SiteClock::of_log(header.calendar(), None)
            .map_or_else(|_| SiteClock::utc(), |c| c.0),
    };
    let (workload, recorder, counts) = site(workload, recorder, &ctx, opts)?.run(None)?;
    let metrics = recorder
        .finish()
        .map_err(|e| RunError::Options(format!("{file}: {e}")))?;
    let input = InputInfo {
        file: file.to_owned(),
        machine: MachineCheck::new(procs, header.max_procs, workload.logged_peak()),
        jobs: workload.submitted(),
        ignored: workload.records().ignored(),
    };
    let questionable = *workload.report();
    let summary = ReplaySummary::new(
        opts,
        input,
        procs,
        modal_estimates,
        questionable,
        counts,
        metrics,
    );
    if let Some(o) = outputs {
        o.commit_with_weekly(&summary, &summary.metrics.by_week)?;
    }
    Ok(summary)
}

/// The terminal summary of a replay.
pub fn render(s: &ReplaySummary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "replay of {} on {} processors: {}{}, overrun policy {}, estimates {}{}",
        s.input.file,
        s.procs,
        s.scheduler,
        s.predictor
            .as_ref()
            .map_or(String::new(), |p| format!(" with predictor {p}")),
        crate::options::name(&s.overrun),
        s.estimates,
        if s.interarrival_factor == 1.0 {
            String::new()
        } else {
            format!(", interarrival times x{}", s.interarrival_factor)
        }
    );
    render_run(s, &mut out);
    out
}

/// What the scheduler said of its run, in the terminal's words: an adaptive scheduler's
/// candidates by share of the time active and its switches, the jobs per-user limits held.
fn render_scheduler_report(report: &serde_json::Value, w: &mut String) {
    if let Some(limits) = report.get("limits") {
        let n = |k: &str| limits.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        let _ = writeln!(
            w,
            "  limits        {} jobs held by their users' limits, {} of them released later",
            n("held_jobs"),
            n("released")
        );
    }
    let adaptive = report.get("inner").unwrap_or(report);
    if let Some(candidates) = adaptive.get("candidates").and_then(|c| c.as_array()) {
        let secs = |c: &serde_json::Value| c["seconds_active"].as_f64().unwrap_or(0.0);
        let total: f64 = candidates.iter().map(secs).sum::<f64>().max(1.0);
        let shares: Vec<String> = candidates
            .iter()
            .map(|c| {
                let name = c["policy"].as_str().unwrap_or("?");
                format!("{name} {:.1}%", 100.0 * secs(c) / total)
            })
            .collect();
        let n = |k: &str| adaptive.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        let _ = writeln!(
            w,
            "  candidates    active {} of the time; {} of {} switch times changed the policy",
            shares.join(", "),
            n("switches_taken"),
            n("switches_evaluated")
        );
    }
}

/// The figures of a run, after its title line.
pub(crate) fn render_run(s: &ReplaySummary, w: &mut String) {
    let m = &s.metrics;
    if let Some(report) = &m.scheduler {
        render_scheduler_report(report, w);
    }
    if let Some(m) = s.modal_estimates {
        let _ = writeln!(
            w,
            "  estimates     modal model: {} values for {} jobs, maximum {} s held by {:.2}%; {} jobs longer than every estimate left",
            m.values, m.jobs, m.max, m.share, m.short
        );
    }
    let _ = writeln!(w, "  machine       {}", s.input.machine.render());
    let skipped = s.questionable.skipped();
    let _ = writeln!(
        w,
        "  jobs          {} simulated, {} skipped; {} measured, {} backfilled, {} killed at their estimate",
        s.input.jobs, skipped, m.jobs.jobs, m.jobs.backfilled, m.jobs.killed
    );
    // Durations as [days] hours:minutes:seconds, as every duration in the terminal;
    // percentiles come from a histogram of 3 significant digits, marked approximate.
    let duration = |w: &mut String, name: &str, d: &crate::metrics::DistSummary| {
        let hms = |v: f64| Hms(v.round() as Time).to_string();
        let _ = writeln!(
            w,
            "  {name:<13} mean {:>11}  median ≈{:>12}  p90 ≈{:>12}  p99 ≈{:>12}",
            hms(d.mean),
            hms(d.median),
            hms(d.p90),
            hms(d.p99),
        );
    };
    duration(w, "wait", &m.jobs.wait);
    duration(w, "response", &m.jobs.response);
    let b = &m.jobs.bounded_slowdown;
    let _ = writeln!(
        w,
        "  {:<13} mean {:>11.2}  median ≈{:>12}  p90 ≈{:>12}  p99 ≈{:>12}",
        "bsld",
        b.mean,
        significant(b.median, 3),
        significant(b.p90, 3),
        significant(b.p99, 3),
    );
    let _ = writeln!(
        w,
        "                (≈: percentiles to 3 significant digits)"
    );
    let _ = writeln!(
        w,
        "                (bounded slowdown: {} form, threshold {} s)",
        match m.bounded_slowdown.form {
            BsldForm::Clamped => "max(1, (w+r)/max(r,t))",
            BsldForm::Unclamped => "(w+r)/max(r,t)",
        },
        m.bounded_slowdown.threshold
    );
    let a = &m.jobs.accuracy;
    let _ = writeln!(
        w,
        "  prediction    mean |runtime - {}| {}, mean accuracy (runtime / {0}) {:.1}%; {} jobs ({:.2}%) outlived a prediction",
        if s.predictor.is_some() {
            "prediction"
        } else {
            "estimate"
        },
        Hms(a.mean_absolute_inaccuracy.round() as Time),
        100.0 * a.mean_relative_accuracy,
        a.jobs_with_misses,
        100.0 * a.share_with_misses
    );
    let _ = writeln!(
        w,
        "  utilization   {:.2}% (offered load {:.2}%)",
        100.0 * m.utilization,
        100.0 * m.offered_load
    );
    let _ = writeln!(
        w,
        "  throughput    {:.1} jobs/day, {:.1} processor-hours/day",
        m.throughput.jobs_per_day, m.throughput.proc_hours_per_day
    );
    let _ = writeln!(w, "  makespan      {}", Hms(m.makespan));
    if m.window.warmup > 0 || m.window.cooldown > 0 {
        let _ = writeln!(
            w,
            "  window        [{}, {}] (warm-up {}, cool-down {})",
            Hms(m.window.start),
            Hms(m.window.end),
            Hms(m.window.warmup),
            Hms(m.window.cooldown)
        );
    }
    let _ = writeln!(w, "  by runtime    jobs     mean wait    mean bsld");
    for c in &m.by_runtime_class {
        let _ = writeln!(
            w,
            "    {:<10} {:>8} {:>13} {:>12.2}",
            c.label,
            c.stats.jobs,
            Hms(c.stats.mean_wait.round() as Time).to_string(),
            c.stats.mean_bounded_slowdown
        );
    }
    let q = s.questionable.to_string();
    if !q.is_empty() {
        let _ = writeln!(w, "  questionable jobs:");
        w.push_str(&q);
    }
}

impl ReplaySummary {
    /// The summary of a run of the log `input` under `opts` on `procs` processors (the
    /// jobs admitted by the questionable-job policies as `questionable` counts): its
    /// counters and figures.
    pub(crate) fn new(
        opts: &ReplayOptions,
        input: InputInfo,
        procs: u32,
        modal_estimates: Option<ModalReport>,
        questionable: Report,
        counts: SimCounts,
        metrics: MetricsSummary,
    ) -> Self {
        let mut summary = ReplaySummary {
            sitesim_version: env!("CARGO_PKG_VERSION"),
            units: Units::FILES,
            warnings: input.warnings(),
            input,
            procs,
            scheduler: opts.policy.clone(),
            overrun: opts.overrun,
            interarrival_factor: opts.interarrival_factor,
            estimates: opts.estimates.clone(),
            modal_estimates,
            predictor: opts.predictor.clone(),
            seed: opts.seed,
            questionable_policies: opts.questionable,
            questionable,
            counts,
            figures: Replication::default(),
            stats: Vec::new(),
            metrics,
        };
        summary.measure(None);
        summary
    }

    /// Sets `figures` and `stats` from the metrics and, for a run with users, their
    /// `sessions`.
    pub(crate) fn measure(&mut self, sessions: Option<&SessionsSummary>) {
        let m = &self.metrics;
        self.figures =
            Replication::measured(0, self.seed, m, &sessions.copied().unwrap_or_default())
                .with_queue_trend(&m.by_week, m.window.start, m.window.end);
        let unmeasured: &[&str] = match sessions {
            Some(_) => &["frustrated", "replaced"],
            None => &[
                "sessions",
                "jobs_per_session",
                "session_hours",
                "frustrated",
                "replaced",
            ],
        };
        self.stats = stats_of(std::slice::from_ref(&self.figures));
        self.stats.retain(|s| !unmeasured.contains(&s.metric));
    }

    /// The jobs of the input, and whether the invariants were checked.
    pub fn jobs_checked(&self) -> (u64, bool) {
        (self.input.jobs, self.counts.checked_passes > 0)
    }
}

/// Replays the log `swf` open-loop under `opts`, holding the folder of its outputs for
/// this process ([`lock_folder`]).
pub fn replay_file(swf: &Path, opts: &ReplayOptions) -> Result<ReplaySummary, String> {
    let _lock = opts.out.as_deref().map(lock_folder).transpose()?;
    let source = LogSource::file(swf).map_err(|e| e.to_string())?;
    replay(&source, opts).map_err(|e| e.to_string())
}
