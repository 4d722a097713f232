//! Experiments from one scenario file: several schedulers side by side under common
//! random numbers, a sweep over the population, the processors or a policy parameter,
//! and capacity planning by search (Feitelson 2021, §4.4: throughput, saturation and the
//! maximal load a machine supports come out of closed-loop runs).
//!
//! An experiment is a set of *points* (a scheduler at one value of the swept axis) times
//! replications. Every run is independent: replication `r` draws its users from the same
//! seed whatever the scheduler and the point, so schedulers face the same users making
//! the same choices (common random numbers), and a run's result depends on nothing but
//! its point and replication. Each run is written to its own file as it finishes
//! ([`crate::results::runs`]), so an experiment can be interrupted and resumed, split into
//! shards (`--shard K/N`) run on different machines, and merged (`sitesim merge`) into
//! the same results one process gives.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::commands::model::{ModelFiles, ModelOptions, replicate};
use crate::commands::resample::{ResampleOptions, Resampler};
use crate::experiment::scenario::{
    CapacitySection, Contender, ExperimentSection, Scenario, SweepSection, WorkloadSection,
    check_capacity,
};
use crate::metrics::{ClassSummary, CycleSummary};
use crate::registry::{SchedulerSpec, is_unknown_parameter};
use crate::results::lock::lock_folder;
use crate::results::metric::{MetricStats, Replication, Scale, metric};
use crate::results::output::{is_partial_of, write_durable};
use crate::results::runs::{
    ClassFigures, HourFigures, Point, RunFile, RunPlan, RunRecord, read_plan, run_file, run_path,
    same_scenario, write_plan, write_run,
};
use crate::results::summary::{metric_values, summarize};
use crate::results::{RunError, Units};
use crate::textfmt::significant;
use std::time::Instant;

use crate::results::replicate::{in_parallel, with_threads};
use crate::results::summary::render_summary;
use crate::results::terminal::{progress, report_elapsed, spinner, stop_flag, warn};

/// Which runs a process takes: shard `index` (from 1) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// From 1.
    pub index: u32,
    /// Shards in all.
    pub count: u32,
}

impl Shard {
    /// Every run.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// Whether run number `i` (point-major order) is this shard's.
    pub fn takes(&self, i: usize) -> bool {
        i % self.count as usize == (self.index - 1) as usize
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `K/N`, 1 <= K <= N.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("'{s}' is not a shard K/N with 1 <= K <= N <= {}", u32::MAX);
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Where an experiment's users come from: a model-based site or a log's resampled
/// users.
enum Source {
    /// The model files.
    Model(ModelFiles),
    /// The log, read into pools.
    Resample(Box<Resampler>),
}

/// The options of one point (or the scenario's, as the base of every point).
#[derive(Debug, Clone)]
enum Setup {
    /// A model-based site's.
    Model(ModelOptions),
    /// A resampled population's (its multipliers in `opts.population`).
    Resample(ResampleOptions),
}

impl Setup {
    /// The policy.
    fn policy(&self) -> &SchedulerSpec {
        match self {
            Setup::Model(o) => &o.run.policy,
            Setup::Resample(o) => &o.users.run.policy,
        }
    }

    fn set_policy(&mut self, spec: SchedulerSpec) {
        match self {
            Setup::Model(o) => o.run.policy = spec,
            Setup::Resample(o) => o.users.run.policy = spec,
        }
    }
}

/// One point's options.
#[derive(Debug, Clone)]
struct Variant {
    point: Point,
    setup: Setup,
}

/// An experiment ready to run: its plan and the options of each point.
pub struct Study {
    source: Source,
    base: Setup,
    /// The machine the population is sized for (the log's for a resampled one).
    procs: u32,
    contenders: Vec<Contender>,
    capacity: Option<CapacitySection>,
    plan: RunPlan,
    variants: Vec<Variant>,
}

/// What a call to [`Study::run`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Progress {
    /// Runs of this shard in the plan.
    pub runs: u64,
    /// Runs found already written (resumed): their files parse as their records and
    /// carry their checksums.
    pub resumed: u64,
    /// Files of this shard's runs that were not taken for finished runs, each a warning
    /// naming it and why: not a run's record (truncated, another run's), a checksum
    /// missing or not matching the content (edited, damaged), a link. Each run is done
    /// again and its file replaced.
    pub rejected: Vec<String>,
    /// Temporary `.partial` files left by a process killed mid-write, each a note naming
    /// it (removed).
    pub discarded: Vec<String>,
    /// Runs done now.
    pub done: u64,
    /// Whether it stopped early on request.
    pub interrupted: bool,
}

/// The unit of the swept axis, for plots.
fn axis_unit(axis: &str) -> String {
    match axis {
        "population" => "users ×".into(),
        "procs" => "processors".into(),
        _ => String::new(),
    }
}

impl Study {
    /// The experiment of `scenario` (whose file's text is `text`, kept in the results).
    pub fn new(scenario: &Scenario, text: &str) -> Result<Study, String> {
        scenario.check_counts()?;
        let section = scenario
            .experiment
            .clone()
            .ok_or("the scenario has no [experiment] section")?;
        let (source, base, procs) = match scenario.workload {
            WorkloadSection::Model { .. } => {
                let (files, base, _) = scenario.model_setup()?;
                let procs = base.run.procs.ok_or("[machine] procs is required")?;
                (Source::Model(files), Setup::Model(base), procs)
            }
            WorkloadSection::Resample { .. } => {
                let (resampler, base) = scenario.resample_setup()?;
                let procs = resampler.procs();
                (
                    Source::Resample(Box::new(resampler)),
                    Setup::Resample(base),
                    procs,
                )
            }
            _ => {
                return Err(
                    "experiments run replicated sites: source = \"model\" or \"resample\"".into(),
                );
            }
        };
        let plan = RunPlan {
            sitesim_version: env!("CARGO_PKG_VERSION").to_owned(),
            name: scenario.name.clone().unwrap_or_else(|| "experiment".into()),
            scenario: text.to_owned(),
            axis: None,
            axis_unit: None,
            replications: scenario.runs(),
            points: Vec::new(),
        };
        Study::build(source, base, procs, &section, plan)
    }

    /// A population sweep of the users resampled from a log (`sitesim sweep`, the
    /// scenario form's `[experiment.sweep] axis = "population"` built from command-line
    /// options): each of `schedulers` at each multiplier of `populations` (which
    /// multiply the base population of `opts`). `name` and `text` (the command line)
    /// identify the experiment in its results, for resuming and merging.
    pub fn population_sweep(
        resampler: Resampler,
        opts: ResampleOptions,
        schedulers: Vec<Contender>,
        populations: Vec<f64>,
        name: &str,
        text: &str,
    ) -> Result<Study, String> {
        let section = ExperimentSection {
            schedulers,
            sweep: Some(SweepSection {
                axis: "population".into(),
                values: populations,
            }),
            capacity: None,
        };
        let plan = RunPlan {
            sitesim_version: env!("CARGO_PKG_VERSION").to_owned(),
            name: name.to_owned(),
            scenario: text.to_owned(),
            axis: None,
            axis_unit: None,
            replications: opts.replications,
            points: Vec::new(),
        };
        let procs = resampler.procs();
        Study::build(
            Source::Resample(Box::new(resampler)),
            Setup::Resample(opts),
            procs,
            &section,
            plan,
        )
    }

    /// The points of `section` over `source` (the users), from the options `base`, for
    /// a population sized for `procs` processors; `plan` names the experiment.
    fn build(
        source: Source,
        base: Setup,
        procs: u32,
        section: &ExperimentSection,
        plan: RunPlan,
    ) -> Result<Study, String> {
        let contenders = if section.schedulers.is_empty() {
            let spec = base.policy().clone();
            vec![Contender {
                label: spec.label(),
                spec,
            }]
        } else {
            section.schedulers.clone()
        };
        for (i, c) in contenders.iter().enumerate() {
            if contenders[..i].iter().any(|d| d.label == c.label) {
                return Err(format!(
                    "[experiment] two schedulers are labelled '{}'; give each its own label",
                    c.label
                ));
            }
        }
        if section.sweep.is_some() && section.capacity.is_some() {
            return Err("[experiment] takes a sweep or a capacity search, not both".into());
        }
        if let Some(c) = &section.capacity {
            check_capacity(c)?;
            if matches!(source, Source::Resample(_)) {
                return Err(
                    "[experiment.capacity] needs a model-based site: a resampled \
                            population keeps its log's machine"
                        .into(),
                );
            }
        }
        let mut study = Study {
            source,
            base,
            procs,
            contenders,
            capacity: section.capacity.clone(),
            plan,
            variants: Vec::new(),
        };
        match (&section.sweep, &section.capacity) {
            (Some(sweep), _) => {
                if sweep.values.is_empty() {
                    return Err("[experiment.sweep] values is empty".into());
                }
                if !["population", "procs"].contains(&sweep.axis.as_str())
                    && !study.contenders.iter().any(|c| {
                        !c.spec
                            .with(&sweep.axis, toml::Value::Float(sweep.values[0]))
                            .is_err_and(|e| is_unknown_parameter(&e))
                    })
                {
                    return Err(format!(
                        "[experiment.sweep] no scheduler takes '{}' (axis is population, procs \
                         or a parameter of one of the schedulers)",
                        sweep.axis
                    ));
                }
                study.plan.axis = Some(sweep.axis.clone());
                study.plan.axis_unit = Some(axis_unit(&sweep.axis));
                for &x in &sweep.values {
                    for c in study.contenders.clone() {
                        let v = study.variant(&c, &sweep.axis, x)?;
                        study.push(v);
                    }
                }
            }
            (None, Some(_)) => {
                study.plan.axis = Some("procs".into());
                study.plan.axis_unit = Some(axis_unit("procs"));
            }
            (None, None) => {
                for c in study.contenders.clone() {
                    let v = study.variant(&c, "procs", f64::from(procs))?;
                    study.push(Variant {
                        point: Point { x: None, ..v.point },
                        setup: v.setup,
                    });
                }
            }
        }
        Ok(study)
    }

    /// The plan (for a capacity search, the probes made so far).
    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// Whether this is a capacity search.
    pub fn is_capacity_search(&self) -> bool {
        self.capacity.is_some()
    }

    fn push(&mut self, mut v: Variant) {
        v.point.id = format!("p{:03}", self.variants.len());
        self.plan.points.push(v.point.clone());
        self.variants.push(v);
    }

    /// The options of `contender` at `axis = x`.
    fn variant(&self, contender: &Contender, axis: &str, x: f64) -> Result<Variant, String> {
        let mut setup = self.base.clone();
        let mut spec = contender.spec.clone();
        let label = contender.label.clone();
        let procs = self.procs;
        let mut machine = procs;
        match axis {
            "population" => {
                if !(x.is_finite() && x >= 0.0) {
                    return Err(format!("population {x} must be a number of 0 or more"));
                }
                match &mut setup {
                    Setup::Model(o) => o.users *= x,
                    Setup::Resample(o) => {
                        o.population.long_term *= x;
                        o.population.temporary *= x;
                    }
                }
            }
            "procs" => {
                if !(x >= 1.0 && x.fract() == 0.0 && x <= f64::from(u32::MAX)) {
                    return Err(format!("procs {x} must be a whole number of 1 or more"));
                }
                machine = x as u32;
                match &mut setup {
                    Setup::Model(o) => o.machine = (machine != procs).then_some(machine),
                    Setup::Resample(_) => {
                        return Err("[experiment.sweep] a resampled population keeps its log's \
                                    machine: sweep population or a policy parameter"
                            .into());
                    }
                }
            }
            param => {
                let value = if x.fract() == 0.0 && x.abs() < 1e15 {
                    toml::Value::Integer(x as i64)
                } else {
                    toml::Value::Float(x)
                };
                match spec.with(param, value) {
                    Ok(s) => spec = s,
                    Err(e) if is_unknown_parameter(&e) => {}
                    Err(e) => return Err(format!("[experiment.sweep] {param} = {x}: {e}")),
                }
            }
        }
        setup.set_policy(spec.clone());
        let population = match &setup {
            Setup::Model(o) => o.users,
            Setup::Resample(o) => o.population.long_term,
        };
        Ok(Variant {
            point: Point {
                id: String::new(),
                scheduler: spec.label(),
                label,
                procs: machine,
                population,
                x: Some(x),
            },
            setup,
        })
    }

    /// Runs replication `r` of point `v`.
    fn replicate(&self, v: &Variant, r: u32) -> Result<RunRecord, RunError> {
        let id = &v.point.id;
        match (&self.source, &v.setup) {
            (Source::Model(files), Setup::Model(opts)) => {
                let rep = replicate(files, opts, r)?;
                Ok(record(
                    id,
                    &rep.figures,
                    &rep.cycles,
                    &rep.by_runtime_class,
                    rep.users.narrowed_jobs,
                ))
            }
            (Source::Resample(resampler), Setup::Resample(opts)) => {
                let rep = resampler.replicate_in_detail(
                    opts,
                    &opts.users.run.policy,
                    &opts.population,
                    r,
                )?;
                Ok(record(
                    id,
                    &rep.figures,
                    &rep.cycles,
                    &rep.by_runtime_class,
                    0,
                ))
            }
            _ => unreachable!("a point's options are of its study's source"),
        }
    }

    /// This shard's runs that `dir` does not hold yet (0 for a capacity search, whose
    /// probes are not known in advance).
    pub fn pending(&self, dir: &Path, shard: Shard) -> u64 {
        if self.capacity.is_some() {
            return 0;
        }
        self.plan
            .runs()
            .enumerate()
            .filter(|&(i, (p, r))| {
                shard.takes(i) && run_file(dir, &self.plan.points[p].id, r) != RunFile::Finished
            })
            .count() as u64
    }

    /// The most runs [`Study::run`] has to do at once: this shard's pending runs, or
    /// a capacity search's replications of one probe (threads past it could only wait).
    pub fn runs_at_once(&self, dir: &Path, shard: Shard) -> u64 {
        if self.capacity.is_some() {
            u64::from(self.plan.replications)
        } else {
            self.pending(dir, shard)
        }
    }

    /// Runs this shard's runs that `dir` does not hold yet, in parallel, writing each
    /// as it finishes; stops starting runs once `stop` is set; `done` is called after
    /// each. A capacity search runs its probes one after another (it cannot be
    /// sharded). Writes the plan first, and the summary when every run is there.
    ///
    /// A run counts as held only if its file parses as its record and carries its
    /// checksum; any other file in its place (truncated by a crash of an older sitesim,
    /// edited by hand) is listed in [`Progress::rejected`] and replaced by the run done
    /// again. The `.partial` files of this shard's runs, left by a process killed while
    /// writing them, are removed (noted in [`Progress::discarded`]), as are those of the
    /// experiment's own files when it runs whole.
    ///
    /// `dir` is held for this process while it runs ([`lock_folder`]). A directory that
    /// holds another experiment is refused; one of the same scenario given other
    /// settings that do not change results (its threads; see
    /// [`crate::results::runs::same_scenario`]) resumes, and keeps its plan's text.
    pub fn run(
        &mut self,
        dir: &Path,
        shard: Shard,
        stop: &AtomicBool,
        done: &(dyn Fn() + Sync),
    ) -> Result<Progress, String> {
        let _lock = lock_folder(dir)?;
        if dir.join("experiment.json").exists() {
            let old = read_plan(dir)?;
            if !same_scenario(&old.scenario, &self.plan.scenario)
                || old.replications != self.plan.replications
            {
                return Err(format!(
                    "{} holds the results of another scenario; give another --out",
                    dir.display()
                ));
            }
            if old.sitesim_version != self.plan.sitesim_version {
                return Err(format!(
                    "{} holds runs of sitesim {}, not {}: resuming would mix results of two \
                     versions; give another --out",
                    dir.display(),
                    old.sitesim_version,
                    self.plan.sitesim_version
                ));
            }
            // The same results whatever the text says of threads: the plan written stays
            // the one the runs were planned by, byte for byte.
            self.plan.scenario = old.scenario;
        }
        if self.capacity.is_some() {
            if shard != Shard::ALL {
                return Err(
                    "a capacity search runs its probes in order and cannot be sharded".into(),
                );
            }
            let removed = remove_partial(dir, EXPERIMENT_FILES.iter().map(|f| dir.join(f)))?;
            let mut progress = self.search(dir, stop, done)?;
            progress.discarded.splice(0..0, removed);
            return Ok(progress);
        }
        let mut removed = Vec::new();
        if shard == Shard::ALL {
            removed = remove_partial(dir, EXPERIMENT_FILES.iter().map(|f| dir.join(f)))?;
        }
        write_plan(dir, &self.plan)?;
        let mut progress = self.run_points(dir, 0..self.variants.len(), shard, stop, done)?;
        progress.discarded.splice(0..0, removed);
        if !progress.interrupted && shard == Shard::ALL {
            summarize(dir)?;
        }
        Ok(progress)
    }

    /// Runs the missing runs of points `points` that belong to `shard`.
    fn run_points(
        &self,
        dir: &Path,
        points: std::ops::Range<usize>,
        shard: Shard,
        stop: &AtomicBool,
        done: &(dyn Fn() + Sync),
    ) -> Result<Progress, String> {
        let reps = self.plan.replications;
        let mut todo = Vec::new();
        let mut progress = Progress::default();
        let mine = points.flat_map(|p| (0..reps).map(move |r| (p, r)));
        let mine: Vec<(usize, u32)> = mine
            .filter(|&(p, r)| shard.takes(p * reps as usize + r as usize))
            .collect();
        let paths = mine
            .iter()
            .map(|&(p, r)| run_path(dir, &self.variants[p].point.id, r));
        progress.discarded = remove_partial(dir, paths)?;
        for (p, r) in mine {
            progress.runs += 1;
            match run_file(dir, &self.variants[p].point.id, r) {
                RunFile::Finished => progress.resumed += 1,
                RunFile::Missing => todo.push((p, r)),
                RunFile::Unreadable(why) => {
                    progress
                        .rejected
                        .push(format!("{why}: not a finished run; running it again"));
                    todo.push((p, r));
                }
            }
        }
        let finished = in_parallel(&todo, stop, done, |&(p, r)| {
            let v = &self.variants[p];
            self.replicate(v, r)
                .map_err(|e| {
                    let at = match (&self.plan.axis, v.point.x) {
                        (Some(axis), Some(x)) => format!(", {axis} = {x}"),
                        _ => String::new(),
                    };
                    let (id, label) = (&v.point.id, &v.point.label);
                    format!("{id} ({label}{at}) replication {r}: {e}")
                })
                .and_then(|rec| write_run(dir, &rec))
        })?;
        progress.done += finished.len() as u64;
        progress.interrupted = finished.len() < todo.len();
        Ok(progress)
    }

    /// The capacity search: for each scheduler, bisection over machine sizes for the
    /// smallest one whose mean metric meets the target, assuming the metric improves
    /// with the machine. Every probe is a point of the plan; `capacity.json` holds the
    /// answers.
    fn search(
        &mut self,
        dir: &Path,
        stop: &AtomicBool,
        done: &(dyn Fn() + Sync),
    ) -> Result<Progress, String> {
        let c = self.capacity.clone().expect("a capacity search");
        // The probes of an earlier call on this study: searched again from the start,
        // they take the same points (and find their runs done) instead of new ones.
        self.variants.clear();
        self.plan.points.clear();
        let mut total = Progress::default();
        let mut answers = Vec::new();
        for contender in self.contenders.clone() {
            let mut probes: BTreeMap<u32, Probe> = BTreeMap::new();
            let mut probe = |study: &mut Study, procs: u32| -> Result<Option<Probe>, String> {
                if let Some(p) = probes.get(&procs) {
                    return Ok(Some(p.clone()));
                }
                let v = study.variant(&contender, "procs", f64::from(procs))?;
                study.push(v);
                let i = study.variants.len() - 1;
                write_plan(dir, &study.plan)?;
                let p = study.run_points(dir, i..i + 1, Shard::ALL, stop, done)?;
                total.runs += p.runs;
                total.resumed += p.resumed;
                total.done += p.done;
                total.rejected.extend(p.rejected);
                total.discarded.extend(p.discarded);
                if p.interrupted {
                    total.interrupted = true;
                    return Ok(None);
                }
                let mean_of = |name: &str| -> Result<MetricStats, String> {
                    let values =
                        metric_values(dir, &study.plan.points[i], study.plan.replications, name)?;
                    Ok(MetricStats::of("probe", &values))
                };
                let stats = mean_of(&c.metric)?;
                let passes = match c.goal.as_str() {
                    "above" => stats.mean >= c.target,
                    _ => stats.mean <= c.target,
                };
                let result = Probe {
                    procs,
                    mean: stats.mean,
                    ci95: stats.ci95,
                    passes,
                    jobs_per_week: mean_of("jobs_per_week")?.mean,
                    proc_hours_per_week: mean_of("proc_hours_per_week")?.mean,
                };
                probes.insert(procs, result.clone());
                Ok(Some(result))
            };
            let step = c.step.max(1);
            let mut lo = c.min_procs.div_ceil(step);
            let mut hi = c.max_procs / step;
            let mut answer = None;
            // The largest machine first: if it fails, no machine in range will do.
            match probe(self, hi * step)? {
                None => break,
                Some(p) if !p.passes => {}
                Some(_) => {
                    answer = Some(hi * step);
                    while lo < hi {
                        let mid = lo + (hi - lo) / 2;
                        match probe(self, mid * step)? {
                            None => break,
                            Some(p) if p.passes => {
                                hi = mid;
                                answer = Some(mid * step);
                            }
                            Some(_) => lo = mid + 1,
                        }
                    }
                }
            }
            if total.interrupted {
                break;
            }
            answers.push(CapacityAnswer {
                scheduler: contender.label.clone(),
                procs: answer,
                probes: probes.into_values().collect(),
            });
        }
        if !total.interrupted {
            let out = CapacityResult {
                units: Units::FILES,
                metric: c.metric.clone(),
                target: c.target,
                goal: c.goal.clone(),
                population_procs: self.procs,
                answers,
            };
            let json = serde_json::to_vec_pretty(&out).map_err(|e| e.to_string())?;
            let path = dir.join("capacity.json");
            write_durable(&path, &json).map_err(|e| format!("{}: {e}", path.display()))?;
            summarize(dir)?;
        }
        Ok(total)
    }
}

/// The files of a results directory besides the runs', which only a whole experiment
/// writes (`experiment.json` is written by every shard, but before any run).
const EXPERIMENT_FILES: [&str; 4] = [
    "experiment.json",
    "summary.json",
    "runs.csv",
    "capacity.json",
];

/// Removes the temporary files of `paths` (`NAME.PID.partial`, whatever the PID) that a
/// process killed mid-write left in `dir`, a note naming each. Each folder is read
/// once; the folder is held ([`lock_folder`]), so no other process is writing them.
fn remove_partial(dir: &Path, paths: impl Iterator<Item = PathBuf>) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    if !dir.exists() {
        return Ok(notes);
    }
    let mut names: BTreeMap<PathBuf, Vec<std::ffi::OsString>> = BTreeMap::new();
    for path in paths {
        if let (Some(folder), Some(name)) = (path.parent(), path.file_name()) {
            names
                .entry(folder.to_owned())
                .or_default()
                .push(name.to_owned());
        }
    }
    for (folder, finals) in names {
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", folder.display())),
        };
        let mut stale = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", folder.display()))?;
            let name = entry.file_name();
            if finals.iter().any(|f| is_partial_of(&name, f)) {
                stale.push(entry.path());
            }
        }
        stale.sort();
        for partial in stale {
            match std::fs::remove_file(&partial) {
                Ok(()) => notes.push(format!(
                    "{}: unfinished (its writer was killed); removed",
                    partial.display()
                )),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("{}: {e}", partial.display())),
            }
        }
    }
    Ok(notes)
}

/// One machine size tried by a capacity search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// Processors.
    pub procs: u32,
    /// The metric's mean over replications.
    pub mean: f64,
    /// Half-width of its 95% confidence interval.
    pub ci95: f64,
    /// Whether the mean meets the target.
    pub passes: bool,
    /// The mean throughput there, jobs per week.
    pub jobs_per_week: f64,
    /// The mean work done there, processor-hours per week.
    pub proc_hours_per_week: f64,
}

/// A scheduler's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityAnswer {
    /// The scheduler.
    pub scheduler: String,
    /// The smallest machine that meets the target, `None` if none in range does.
    pub procs: Option<u32>,
    /// Every machine tried, by size.
    pub probes: Vec<Probe>,
}

/// `capacity.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityResult {
    /// What the numbers are in (the metric's as every file's; read back as they are
    /// written, whatever a file says).
    #[serde(skip_deserializing, default = "files_units")]
    pub units: Units,
    /// The metric.
    pub metric: String,
    /// The target, in the metric's unit in files (seconds for a duration).
    pub target: f64,
    /// `below` or `above`.
    pub goal: String,
    /// The machine the population was sized for.
    pub population_procs: u32,
    /// One answer per scheduler.
    pub answers: Vec<CapacityAnswer>,
}

/// The machine sizes a scheduler's capacity answer names, each with its probe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerSizes<'a> {
    /// The answer: the smallest machine whose mean meets the target; `None` if none in
    /// the range searched does.
    pub mean: Option<&'a Probe>,
    /// The smallest machine probed whose whole 95% interval meets the target (the
    /// answer for 95% confidence, of the sizes probed); `None` if no probe's does.
    pub confident: Option<&'a Probe>,
}

/// The units of sitesim's files, as a capacity search's result states them.
fn files_units() -> Units {
    Units::FILES
}

impl CapacityResult {
    /// How the metric is shown (durations in hours, like everywhere); `None` for a
    /// metric sitesim does not know, shown as stored.
    pub fn scale(&self) -> Option<Scale> {
        metric(&self.metric).ok().map(|m| m.scale())
    }

    /// Whether the goal is to stay at or below the target (else at or above it).
    pub fn below(&self) -> bool {
        self.goal == "below"
    }

    /// The sizes `answer` names under this search's target and goal.
    pub fn sizes<'a>(&self, answer: &'a CapacityAnswer) -> AnswerSizes<'a> {
        let at = |procs: u32| answer.probes.iter().find(|p| p.procs == procs);
        let confident = |p: &&Probe| {
            if self.below() {
                p.mean + p.ci95 <= self.target
            } else {
                p.mean - p.ci95 >= self.target
            }
        };
        AnswerSizes {
            mean: answer.procs.and_then(at),
            confident: answer
                .probes
                .iter()
                .filter(confident)
                .min_by_key(|p| p.procs),
        }
    }

    /// The answers as a person reads them: per scheduler, the smallest machine whose
    /// mean meets the target, and the smallest whose whole 95% interval does (the
    /// answer for 95% confidence), each with its mean ± half-width in the metric's unit.
    pub fn render(&self) -> String {
        let (unit, factor) = self.scale().map_or(("", 1.0), |s| (s.unit, s.factor));
        let show = |v: f64| {
            let space = if unit.is_empty() { "" } else { " " };
            format!("{}{space}{unit}", significant(v * factor, 3))
        };
        let mut out = format!(
            "  capacity      smallest machine with {} {} {} over the replications (the population was sized for {} processors):\n",
            metric(&self.metric).map_or(self.metric.as_str(), |m| m.quantity),
            if self.below() { "at most" } else { "at least" },
            show(self.target),
            self.population_procs
        );
        for a in &self.answers {
            let sizes = self.sizes(a);
            let answer = match sizes.mean {
                Some(p) => format!(
                    "{} processors ({} ± {}; {:.1} jobs/week, {:.0} processor-hours/week)",
                    p.procs,
                    show(p.mean),
                    show(p.ci95),
                    p.jobs_per_week,
                    p.proc_hours_per_week
                ),
                None => "none in the range searched".to_owned(),
            };
            let sure = match sizes.confident {
                Some(p) => format!(
                    "{} for 95% confidence, of the sizes probed ({} ± {})",
                    p.procs,
                    show(p.mean),
                    show(p.ci95)
                ),
                None => "no machine probed meets it with 95% confidence".to_owned(),
            };
            out.push_str(&format!(
                "                {}: {answer}; {sure}\n",
                a.scheduler
            ));
        }
        out
    }
}

/// The run record of a replication from its figures, its daily cycle, its runtime
/// classes and the jobs cut to the machine.
fn record(
    point: &str,
    f: &Replication,
    cycles: &CycleSummary,
    classes: &[ClassSummary],
    narrowed_jobs: u64,
) -> RunRecord {
    RunRecord {
        point: point.to_owned(),
        figures: Replication {
            narrowed_jobs,
            ..*f
        },
        by_hour: cycles
            .by_hour
            .iter()
            .enumerate()
            .map(|(h, c)| HourFigures {
                hour: h as u8,
                arrivals: c.arrivals,
                mean_queue: c.mean_queue,
                utilization: c.utilization,
            })
            .collect(),
        by_runtime_class: classes
            .iter()
            .map(|c| ClassFigures {
                class: format!("{:?}", c.class).to_lowercase(),
                label: c.label.to_owned(),
                jobs: c.stats.jobs,
                mean_wait: c.stats.mean_wait,
                mean_response: c.stats.mean_response,
                mean_bsld: c.stats.mean_bounded_slowdown,
            })
            .collect(),
    }
}

/// `sitesim run` on an experiment, and `sitesim sweep`: runs `shard` (every run without
/// one) of `study`'s runs missing from `dir` on `threads` threads, resuming what is
/// there; prints its progress and, once every run is there, the table of means. `dir`
/// is held for this process from the start ([`lock_folder`]).
pub fn experiment_command(
    study: &mut Study,
    dir: &Path,
    shard: Option<Shard>,
    threads: Option<usize>,
    started: Instant,
) -> Result<(), String> {
    let _lock = lock_folder(dir)?;
    let shard = shard.unwrap_or(Shard::ALL);
    let plan = study.plan();
    let total = study.pending(dir, shard);
    // Handled from the first line on, which tells a waiting script the runs are starting.
    let stop = stop_flag();
    println!(
        "experiment {}: {} {} replication(s){}, results in {}",
        plan.name,
        if study.is_capacity_search() {
            "a capacity search by bisection,".to_owned()
        } else {
            format!("{} point(s) x", plan.points.len())
        },
        plan.replications,
        if shard == Shard::ALL {
            String::new()
        } else {
            format!(", shard {}/{}", shard.index, shard.count)
        },
        dir.display()
    );
    let bar = if study.is_capacity_search() {
        spinner("capacity search: runs")
    } else {
        progress(total, "runs")
    };
    let runs = study.runs_at_once(dir, shard);
    let p = with_threads(threads, runs, || {
        study.run(dir, shard, stop, &|| bar.inc(1))
    })
    .map_err(|e| e.to_string())??;
    bar.finish_and_clear();
    for note in &p.discarded {
        eprintln!("note: {note}");
    }
    for rejected in &p.rejected {
        warn(rejected);
    }
    println!(
        "  runs          {} of this shard: {} done now, {} found from before{}",
        p.runs,
        p.done,
        p.resumed,
        match p.rejected.len() {
            0 => String::new(),
            n => format!(", {n} file(s) not taken for finished runs (see the warnings)"),
        }
    );
    if p.interrupted {
        println!("  interrupted   run the same command again to resume");
    } else if shard == Shard::ALL {
        print!("{}", render_summary(&summarize(dir)?));
        println!(
            "  written       {0}/summary.json, {0}/runs.csv; plots: sitesim report {0}",
            dir.display()
        );
        if study.is_capacity_search() {
            let path = dir.join("capacity.json");
            let bytes = crate::results::input::read(&path, crate::results::input::MAX_JSON)?;
            let result: CapacityResult =
                serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            print!("{}", result.render());
            println!("  written       {}", path.display());
        }
    } else {
        println!("  merge         sitesim merge --out DIR <the shards' directories>");
    }
    report_elapsed(started);
    Ok(())
}

/// `sitesim sweep`: the thin front of a population sweep, the experiment a scenario
/// writes as `[experiment.sweep] axis = "population"` over `source = "resample"`: each
/// of `schedulers` (the options' own policy without any) at each multiplier of
/// `populations` over the users of the log `swf`, into the results directory `out`
/// (default `results/sweep-LOG`), resumable and shardable as any experiment.
/// `command` is the command line, which identifies the experiment for resuming and
/// merging.
pub fn sweep_command(
    swf: &Path,
    opts: &ResampleOptions,
    schedulers: &[SchedulerSpec],
    populations: &[f64],
    out: Option<PathBuf>,
    shard: Option<Shard>,
    command: &str,
) -> Result<(), String> {
    let started = Instant::now();
    let resampler = Resampler::open(swf, opts)?;
    let contenders = schedulers
        .iter()
        .map(|spec| Contender {
            label: spec.label(),
            spec: spec.clone(),
        })
        .collect();
    let log = swf
        .file_stem()
        .map_or("log".into(), |s| s.to_string_lossy().into_owned());
    let name = format!("sweep-{log}");
    let dir = out.unwrap_or_else(|| PathBuf::from("results").join(&name));
    let mut study = Study::population_sweep(
        resampler,
        ResampleOptions {
            out: None,
            ..opts.clone()
        },
        contenders,
        populations.to_vec(),
        &name,
        command,
    )?;
    experiment_command(&mut study, &dir, shard, opts.threads, started)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_runs_without_overlap() {
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for i in 0..30 {
            assert_eq!(shards.iter().filter(|s| s.takes(i)).count(), 1);
        }
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn capacity_answers_read_with_their_units_and_the_confident_size() {
        let probe = |procs, mean, ci95| Probe {
            procs,
            mean,
            ci95,
            passes: mean <= 1800.0,
            jobs_per_week: 300.0,
            proc_hours_per_week: f64::from(procs) * 50.0,
        };
        let result = CapacityResult {
            units: Units::FILES,
            metric: "mean_wait".into(),
            target: 1800.0,
            goal: "below".into(),
            population_procs: 128,
            answers: vec![CapacityAnswer {
                scheduler: "EASY".into(),
                procs: Some(144),
                probes: vec![
                    probe(136, 2400.0, 900.0),
                    probe(144, 1740.0, 780.0),
                    probe(152, 1300.0, 540.0),
                    probe(176, 600.0, 240.0),
                ],
            }],
        };
        let text = result.render();
        assert!(text.contains("mean wait at most 0.5 h"), "{text}");
        assert!(
            text.contains(
                "EASY: 144 processors (0.483 h ± 0.217 h; 300.0 jobs/week, 7200 \
                 processor-hours/week)"
            ),
            "{text}"
        );
        assert!(text.contains("176 for 95% confidence"), "{text}");
    }
}
