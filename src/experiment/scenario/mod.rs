//! Scenario files (TOML): everything one experiment needs, so that it can be rerun and
//! shared. `sitesim run [SCENARIO]` runs one; with no argument it runs the default
//! scenario shipped in `scenarios/default.toml`.
//!
//! Keys: `name`, `description`, `seed`, and for replicated runs `duration` (simulated
//! time, warm-up and cool-down included), `replications` and `threads`; sections
//! `[machine]`, `[scheduler]` (policy and predictor), `[workload]`, `[population]`,
//! `[site]`, `[metrics]` (warm-up, cool-down) and `[output]`. The workload sources:
//! `source = "swf"` (a log replayed open-loop), `"feedback"` (a log replayed with
//! feedback, its user model in `[workload.users]`), `"resample"` (populations resampled
//! from a log's users, with feedback; multipliers in `[population]`), `"model"` (the
//! model-based site of Talby's thesis; its user multiplier in `[population]`) and
//! `"synthetic"` (the benchmark workload of `models/synthetic.toml`). Unknown keys are
//! errors that name the key and its line; keys that do not apply to the source are
//! errors too.
//!
//! This module only reads and checks scenarios and turns them into options: a scenario
//! is run by [`crate::experiment::run`] (one run, or the replications of one source) or by
//! [`crate::experiment::study`] (an `[experiment]`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

mod experiment;

pub use experiment::{CapacitySection, Contender, ExperimentSection, SweepSection, check_capacity};

use crate::commands::feedback::FeedbackOptions;
use crate::commands::model::{ModelFiles, ModelOptions};
use crate::commands::options::{
    ContinuationSource, MachineOptions, MetricsOptions, ModelSiteOptions, PopulationOptions,
    Reaction, SchedulerOptions, SiteOptions, UserOptions,
};
use crate::commands::replay::ReplayOptions;
use crate::commands::resample::{ResampleOptions, Resampler, resampled_cooldown};
use crate::model::{JobLayer, Parameterization, TalbyModel};
use crate::options;
use crate::predict::estimates::EstimateModel;
use crate::results::replicate::MAX_REPLICATIONS;
use crate::time::{Time, WEEK};
use crate::users::{Behaviour, ContinuationCurve, KTH_CONTINUATION, Patience};
use crate::workload::questionable::{self, Policies};

/// The default scenario, built into the binary so that `sitesim run` works anywhere.
pub const DEFAULT_SCENARIO: &str = include_str!("../../../scenarios/default.toml");

/// A scenario file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A short name.
    pub name: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// The scenario's random seed (estimate models, replications; the synthetic
    /// workload's default).
    #[serde(default = "one_u64", deserialize_with = "seed")]
    pub seed: u64,
    /// Simulated time of a model or resampled run, warm-up and cool-down included
    /// (`"52w"`, the default).
    #[serde(default, deserialize_with = "options::some_duration")]
    pub duration: Option<Time>,
    /// Replications of a model or resampled run (each from its own seed).
    pub replications: Option<u32>,
    /// Worker threads for replications; all cores when absent.
    pub threads: Option<usize>,
    /// The machine.
    #[serde(default)]
    pub machine: MachineOptions,
    /// The scheduler.
    #[serde(default)]
    pub scheduler: SchedulerOptions,
    /// Where the jobs come from.
    pub workload: WorkloadSection,
    /// Who the users are: multipliers of a model or resampled population.
    #[serde(default)]
    pub population: PopulationOptions,
    /// Site rules.
    #[serde(default)]
    pub site: SiteOptions,
    /// What to measure.
    #[serde(default)]
    pub metrics: MetricsOptions,
    /// Where results go.
    #[serde(default)]
    pub output: OutputSection,
    /// Several schedulers, a sweep or a capacity search (`sitesim run` runs it as an
    /// experiment; see [`crate::experiment::study`]).
    pub experiment: Option<ExperimentSection>,
}

/// `[workload]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "source", rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadSection {
    /// A log replayed open-loop.
    Swf {
        /// The log.
        path: PathBuf,
        /// The estimate model.
        #[serde(default, deserialize_with = "options::from_text")]
        estimates: EstimateModel,
        /// Interarrival scaling (see `sitesim replay --help`).
        #[serde(default = "one", deserialize_with = "options::positive")]
        interarrival_factor: f64,
        /// Questionable-job policies, kind = action.
        #[serde(default, deserialize_with = "questionable::table")]
        questionable: Policies,
    },
    /// A log replayed with feedback: its users submit their jobs as the simulated
    /// machine finishes the ones they depend on (see `sitesim feedback --help`).
    Feedback {
        /// The log.
        path: PathBuf,
        /// The estimate model.
        #[serde(default, deserialize_with = "options::from_text")]
        estimates: EstimateModel,
        /// Questionable-job policies, kind = action.
        #[serde(default, deserialize_with = "questionable::table")]
        questionable: Policies,
        /// How users behave.
        #[serde(default)]
        users: Box<UserOptions>,
    },
    /// Populations resampled from a log's users, each user with feedback (Feitelson 2021,
    /// §4.2; see `sitesim resample --help`).
    Resample {
        /// The log.
        path: PathBuf,
        /// The estimate model.
        #[serde(default, deserialize_with = "options::from_text")]
        estimates: EstimateModel,
        /// Questionable-job policies, kind = action.
        #[serde(default, deserialize_with = "questionable::table")]
        questionable: Policies,
        /// How users behave.
        #[serde(default)]
        users: Box<UserOptions>,
        /// Users submit at their logged times, without feedback.
        #[serde(default)]
        open_loop: bool,
    },
    /// The model-based site of Talby's thesis (2006; `docs/MODELS.md`; see
    /// `sitesim model --help`).
    Model(Box<ModelSiteOptions>),
    /// The synthetic benchmark workload.
    Synthetic {
        /// Number of jobs.
        jobs: u64,
        /// Offered load.
        load: f64,
        /// Random seed; the scenario's seed when absent.
        seed: Option<u64>,
        /// Model file; the shipped `models/synthetic.toml` when absent.
        model: Option<PathBuf>,
        /// The estimate model.
        #[serde(default, deserialize_with = "options::from_text")]
        estimates: EstimateModel,
    },
}

/// How the users of a model site react to service (its `[workload.users]`): a continuation
/// curve that is `fit` stands for the curve fitted from KTH that is built in
/// (`models/continuation-kth.toml`), whose patience a `fit` patience is.
fn model_behaviour(reaction: &Reaction) -> Result<Behaviour, String> {
    let kth = || {
        ContinuationCurve::parse(KTH_CONTINUATION, "models/continuation-kth.toml")
            .expect("the built-in curve parses")
    };
    let continuation = match &reaction.continuation {
        ContinuationSource::Off => None,
        ContinuationSource::Fit => Some(kth()),
        ContinuationSource::File(p) => {
            let text = crate::model_files::read(p)?;
            Some(ContinuationCurve::parse(&text, &p.display().to_string())?)
        }
    };
    let patience = reaction.patience().resolve(|| {
        let fitted = |c: &ContinuationCurve| c.patience.map(|limit| Patience { limit, strikes: 1 });
        match &continuation {
            Some(c) => fitted(c),
            None => fitted(&kth()),
        }
    });
    Ok(Behaviour {
        continuation,
        patience,
    })
}

fn one() -> f64 {
    1.0
}

fn one_u64() -> u64 {
    1
}

/// A seed: any `u64`, as a TOML integer up to `i64::MAX` (TOML's largest) or as a string
/// of its digits (`seed = "18446744073709551615"`, as `--seed` and a sweep's page write
/// those past it).
fn seed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Seed {
        Number(u64),
        Text(String),
    }
    let whole = || {
        serde::de::Error::custom(format!(
            "a seed is a whole number from 0 to {} (past {} written as a string of its digits)",
            u64::MAX,
            i64::MAX
        ))
    };
    match Seed::deserialize(d).map_err(|_: D::Error| whole())? {
        Seed::Number(n) => Ok(n),
        Seed::Text(t) => t.trim().parse().map_err(|_| whole()),
    }
}

/// `[output]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Directory for summary.json, jobs.csv and schedule.swf.
    pub dir: Option<PathBuf>,
}

/// The key and line of an unknown field the parser reported: inside the tagged
/// `[workload]` table the parser knows only the table's line.
fn unknown_key_line(text: &str, error: &str) -> Option<(String, usize)> {
    let rest = error.split("unknown field `").nth(1)?;
    let key = &rest[..rest.find('`')?];
    let line = text.lines().position(|l| {
        l.trim_start()
            .strip_prefix(key)
            .is_some_and(|r| r.trim_start().starts_with('=') || r.starts_with('.'))
    })?;
    Some((key.to_owned(), line + 1))
}

/// A scenario's `[workload.users]` table, and whether its source is a model site.
fn users_table(doc: &toml::Table) -> Option<(bool, &toml::Table)> {
    let workload = doc.get("workload")?;
    let model = workload.get("source").and_then(|s| s.as_str()) == Some("model");
    Some((model, workload.get("users")?.as_table()?))
}

/// The key of `[workload.users]` whose value the parser refused, with why: inside the
/// tagged `[workload]` table the parser names neither key nor line, so each key is read
/// alone.
fn refused_user_key(text: &str) -> Option<(String, String)> {
    let doc: toml::Table = text.parse().ok()?;
    let (model, users) = users_table(&doc)?;
    users.iter().find_map(|(key, value)| {
        let alone = toml::Value::Table(toml::Table::from_iter([(key.clone(), value.clone())]));
        let refused = if model {
            alone.try_into::<Reaction>().err()
        } else {
            alone.try_into::<UserOptions>().err()
        };
        refused.map(|e| (key.clone(), e.message().to_owned()))
    })
}

/// Refuses a key of `[workload.users]` that is not one of [`UserOptions`] (serde cannot
/// refuse them itself in a struct that flattens others), naming its line.
fn check_user_keys(text: &str, name: &str) -> Result<(), String> {
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Ok(());
    };
    let users = users_table(&doc).and_then(|(model, users)| (!model).then_some(users));
    let keys = options::keys::<UserOptions>();
    match users
        .into_iter()
        .flat_map(|u| u.keys())
        .find(|k| !keys.contains(k))
    {
        None => Ok(()),
        Some(key) => {
            let error = format!("unknown field `{key}`");
            let at = unknown_key_line(text, &error)
                .map_or_else(String::new, |(_, line)| format!(" at line {line}"));
            Err(format!(
                "{name}: unknown key `{key}`{at} of [workload.users]; it takes {}",
                keys.join(", ")
            ))
        }
    }
}

impl Scenario {
    /// Parses a scenario; `name` names the file in errors, which give the key and line.
    pub fn parse(text: &str, name: &str) -> Result<Scenario, String> {
        let scenario = toml::from_str(text).map_err(|e: toml::de::Error| {
            // A section every scenario needs, missing: said by its name, not at line 1.
            if let Some(field) = e
                .message()
                .strip_prefix("missing field `")
                .and_then(|m| m.strip_suffix('`'))
                && e.span().is_none_or(|s| s.start == 0)
            {
                return format!(
                    "{name}: the scenario has no `{field}` (a [{field}] section or key every \
                     scenario needs; scenarios/default.toml has them all)"
                );
            }
            if let Some((key, refused)) = refused_user_key(text) {
                let at = unknown_key_line(text, &format!("unknown field `{key}`"))
                    .map_or_else(String::new, |(_, line)| format!(" at line {line}"));
                return format!("{name}: [workload.users] {key}{at}: {refused}");
            }
            // The parser's own text quotes the whole line: a position and a short
            // excerpt instead (docs/RELIABILITY.md).
            match unknown_key_line(text, e.message()) {
                Some((key, line)) => format!(
                    "{name}: unknown key `{key}` at line {line}; {}",
                    e.message().trim_end()
                ),
                None => crate::textfmt::toml_error(name, text, &e),
            }
        })?;
        check_user_keys(text, name)?;
        Ok(scenario)
    }

    /// One setting of the command line, `KEY=VALUE` (`sitesim run --set`), as the
    /// `(key, value)` that [`Scenario::with_settings`] applies.
    pub fn setting(s: &str) -> Result<(String, String), String> {
        match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
            _ => Err(format!("'{s}' is not KEY=VALUE")),
        }
    }

    /// The text of a scenario with `settings` applied: each `(key, value)` sets the key
    /// (dotted for a table's: `population.users`, `workload.users.continuation`) to the
    /// value, read as TOML (`2`, `true`, `[8, 18]`, `"easy"`) or else as a string. The
    /// scenario's comments are dropped when anything is set.
    pub fn with_settings(
        text: &str,
        name: &str,
        settings: &[(String, String)],
    ) -> Result<String, String> {
        if settings.is_empty() {
            return Ok(text.to_owned());
        }
        let mut doc: toml::Table = text.parse().map_err(|e| format!("{name}: {e}"))?;
        for (key, value) in settings {
            let value = format!("v = {value}")
                .parse::<toml::Table>()
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(value.clone()));
            let mut parts: Vec<&str> = key.split('.').collect();
            let last = parts.pop().filter(|k| !k.is_empty());
            let Some(last) = last else {
                return Err(format!("--set {key}: a key is needed before '='"));
            };
            let mut table = &mut doc;
            for part in parts {
                table = table
                    .entry(part)
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                    .as_table_mut()
                    .ok_or_else(|| format!("--set {key}: '{part}' is not a table"))?;
            }
            table.insert(last.to_owned(), value);
        }
        toml::to_string(&doc).map_err(|e| format!("{name}: {e}"))
    }

    /// Reads a scenario file. Its input files (logs, model files, continuation curves)
    /// are found from the scenario file's folder when their paths are relative, so a
    /// scenario runs from any working directory; `[output] dir` stays relative to the
    /// working directory, where results are looked for.
    /// Returns the file's text with it (an experiment records it).
    pub fn load(path: &Path) -> Result<(Scenario, String), String> {
        Scenario::load_with(path, &[])
    }

    /// [`Scenario::load`] with `settings` applied ([`Scenario::with_settings`]).
    pub fn load_with(
        path: &Path,
        settings: &[(String, String)],
    ) -> Result<(Scenario, String), String> {
        let name = path.display().to_string();
        let own = crate::model_files::read_text(path).map_err(|e| format!("{name}: {e}"))?;
        let (mut scenario, text) = Scenario::parse_with(&own, &name, settings)?;
        scenario.resolve_inputs(path.parent().unwrap_or(Path::new("")));
        scenario.check_inputs(&name, &own)?;
        Ok((scenario, text))
    }

    /// Refuses a scenario whose input file is missing, naming the scenario, the key and
    /// the line of the scenario's own text (`own`) that names the file, or the `--set`
    /// that did (the file's own errors, when it is read, name the file's line and field).
    fn check_inputs(&self, name: &str, own: &str) -> Result<(), String> {
        let mut inputs: Vec<(&str, &Path)> = Vec::new();
        fn curve(c: &ContinuationSource) -> Option<(&'static str, &Path)> {
            match c {
                ContinuationSource::File(p) => Some(("users.continuation", p)),
                ContinuationSource::Fit | ContinuationSource::Off => None,
            }
        }
        match &self.workload {
            WorkloadSection::Swf { path, .. } => inputs.push(("path", path)),
            WorkloadSection::Feedback { path, users, .. }
            | WorkloadSection::Resample { path, users, .. } => {
                inputs.extend(curve(&users.reaction.continuation));
                inputs.push(("path", path));
            }
            WorkloadSection::Model(site) => {
                inputs.extend(curve(&site.users.continuation));
                inputs.extend(site.model.iter().map(|m| ("model", m.as_path())));
                inputs.extend(site.jobs.iter().map(|j| ("jobs", j.as_path())));
            }
            WorkloadSection::Synthetic { model, .. } => {
                inputs.extend(model.iter().map(|m| ("model", m.as_path())));
            }
        }
        let missing = |p: &Path| {
            p.as_os_str() != "-" && !p.exists() && crate::model_files::builtin_for(p).is_none()
        };
        match inputs.iter().find(|(_, p)| missing(p)) {
            Some((key, path)) => Err(format!(
                "{name}: [workload] {key}: {}: no such file (a relative path is taken from \
                 the scenario's folder)\n{}",
                path.display(),
                naming_line(own, key, path)
                    .unwrap_or_else(|| "  (set on the command line with --set)".into())
            )),
            None => Ok(()),
        }
    }

    /// Parses the scenario `text` (named `name`) with `settings` applied
    /// ([`Scenario::with_settings`]); returns it with the text it was parsed from. An
    /// error after settings names them: its line is one of the scenario as they left it.
    pub fn parse_with(
        text: &str,
        name: &str,
        settings: &[(String, String)],
    ) -> Result<(Scenario, String), String> {
        let text = Scenario::with_settings(text, name, settings)?;
        if settings.is_empty() {
            return Ok((Scenario::parse(&text, name)?, text));
        }
        let set: Vec<String> = settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let named = format!("{name} with {} set", set.join(", "));
        match toml::from_str::<Scenario>(&text) {
            Ok(scenario) => {
                check_user_keys(&text, &named)?;
                Ok((scenario, text))
            }
            Err(e) => {
                // A setting the scenario refuses is named, in the scenario's words and
                // not at a line of the text rewritten with it.
                // The key on the line the error points at, in the rewritten text.
                let at = e.span().and_then(|span| {
                    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
                    let line = text[start..].lines().next()?;
                    Some(line.split('=').next()?.trim().trim_matches('"').to_owned())
                });
                let culprit = settings.iter().find(|(k, _)| {
                    let leaf = k.rsplit('.').next().unwrap_or(k);
                    at.as_deref() == Some(leaf) || e.message().contains(&format!("`{leaf}`"))
                });
                match culprit {
                    Some((k, v)) => Err(format!("--set {k}={v}: {}", e.message())),
                    None => Scenario::parse(&text, &named).map(|s| (s, text)),
                }
            }
        }
    }

    /// Makes the relative paths of the scenario's input files relative to `base`.
    fn resolve_inputs(&mut self, base: &Path) {
        let file = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        // A curve names a file unless it is a keyword.
        let curve = |c: &mut ContinuationSource| {
            if let ContinuationSource::File(p) = c {
                file(p);
            }
        };
        match &mut self.workload {
            WorkloadSection::Swf { path, .. } => file(path),
            WorkloadSection::Feedback { path, users, .. }
            | WorkloadSection::Resample { path, users, .. } => {
                file(path);
                curve(&mut users.reaction.continuation);
            }
            WorkloadSection::Model(site) => {
                site.model.iter_mut().for_each(file);
                site.jobs.iter_mut().for_each(file);
                curve(&mut site.users.continuation);
            }
            WorkloadSection::Synthetic { model, .. } => model.iter_mut().for_each(file),
        }
    }

    /// The replay options this scenario stands for (for the workload given separately).
    pub fn replay_options(&self) -> Result<ReplayOptions, String> {
        self.scheduler
            .refuse_conflicts()
            .map_err(|e| format!("[scheduler] predictor: {e}"))?;
        let (estimates, questionable, interarrival_factor) = match &self.workload {
            WorkloadSection::Swf {
                estimates,
                questionable,
                interarrival_factor,
                ..
            } => (estimates.clone(), *questionable, *interarrival_factor),
            WorkloadSection::Feedback {
                estimates,
                questionable,
                ..
            }
            | WorkloadSection::Resample {
                estimates,
                questionable,
                ..
            } => (estimates.clone(), *questionable, 1.0),
            WorkloadSection::Synthetic { estimates, .. } => {
                (estimates.clone(), Policies::default(), 1.0)
            }
            // The job layer gives each job its estimate.
            WorkloadSection::Model(_) => (EstimateModel::Log, Policies::default(), 1.0),
        };
        Ok(ReplayOptions {
            policy: self.scheduler.policy.clone(),
            procs: self.machine.procs,
            overrun: self.site.overrun,
            questionable,
            interarrival_factor,
            bsld: self
                .metrics
                .bsld()
                .map_err(|e| format!("[metrics] bsld_threshold: {e}"))?,
            warmup: self.metrics.warmup,
            cooldown: self.metrics.cooldown,
            estimates,
            predictor: self.scheduler.predictor.clone(),
            seed: self.seed,
            check: self.site.check || cfg!(debug_assertions),
            out: self.output.dir.clone(),
        })
    }

    /// The options of a `source = "feedback"` scenario, a single run.
    pub fn feedback_options(&self) -> Result<FeedbackOptions, String> {
        let WorkloadSection::Feedback { users, .. } = &self.workload else {
            return Err("the scenario's source is not \"feedback\"".into());
        };
        self.single_run("feedback")?;
        Ok(FeedbackOptions {
            run: self.replay_options()?,
            users: (**users).clone(),
        })
    }

    /// Refuses replications and threads outside what sitesim takes: at least 1, and at
    /// most [`MAX_REPLICATIONS`] replications.
    pub fn check_counts(&self) -> Result<(), String> {
        match self.replications {
            Some(0) => return Err("replications must be at least 1".into()),
            Some(n) if n > MAX_REPLICATIONS => {
                return Err(format!(
                    "replications = {n}: at most {MAX_REPLICATIONS} replications are taken"
                ));
            }
            _ => {}
        }
        if self.threads == Some(0) {
            return Err("threads must be at least 1".into());
        }
        Ok(())
    }

    /// Replications the scenario runs (1 for a single run).
    pub fn runs(&self) -> u32 {
        match self.workload {
            WorkloadSection::Model(_) | WorkloadSection::Resample { .. } => {
                self.replications.unwrap_or(1)
            }
            _ => 1,
        }
    }

    /// Simulated time of a replicated run, seconds (52 weeks by default).
    fn length(&self) -> Time {
        self.duration.unwrap_or(52 * WEEK)
    }

    /// Refuses the keys of replicated runs for a single run.
    pub(crate) fn single_run(&self, source: &str) -> Result<(), String> {
        let given = [
            ("duration", self.duration.is_some()),
            ("replications", self.replications.is_some()),
            ("threads", self.threads.is_some()),
        ];
        if let Some((k, _)) = given.iter().find(|g| g.1) {
            return Err(format!(
                "{k} applies to source = \"model\" and \"resample\", not \"{source}\""
            ));
        }
        self.population_keys(source, &[])
    }

    /// Refuses the keys of `[population]` set to other than their defaults that `source`
    /// does not take (`allowed` are the ones it does).
    fn population_keys(&self, source: &str, allowed: &[&str]) -> Result<(), String> {
        let p = &self.population;
        let users = (p.users != PopulationOptions::default().users).then_some("users");
        match users
            .into_iter()
            .chain(p.resampling_keys())
            .find(|k| !allowed.contains(k))
        {
            Some(k) => Err(format!(
                "[population] {k} does not apply to source = \"{source}\""
            )),
            None => Ok(()),
        }
    }

    /// The resampler and options of a `source = "resample"` scenario (its output
    /// directory in the options' `out`).
    pub fn resample_setup(&self) -> Result<(Resampler, ResampleOptions), String> {
        let ropts = self.resample_options()?;
        let WorkloadSection::Resample { path, .. } = &self.workload else {
            unreachable!("resample_options checked the source");
        };
        Ok((Resampler::open(path, &ropts)?, ropts))
    }

    /// The options of a `source = "resample"` scenario (its output directory in their
    /// `out`).
    pub fn resample_options(&self) -> Result<ResampleOptions, String> {
        let WorkloadSection::Resample {
            users, open_loop, ..
        } = &self.workload
        else {
            return Err("the scenario's source is not \"resample\"".into());
        };
        let opts = self.replay_options()?;

        let mut fopts = FeedbackOptions {
            run: opts,
            users: (**users).clone(),
        };
        fopts.run.cooldown = resampled_cooldown(fopts.run.cooldown);
        let out = fopts.run.out.take();
        let measured = self.length() - fopts.run.warmup - fopts.run.cooldown;
        if measured < WEEK || measured % WEEK != 0 {
            return Err(format!(
                "duration: a resampled run measures whole weeks; duration minus warm-up \
                         and cool-down (1 week when 0) is {measured} s"
            ));
        }
        let (population, pools) = self.population.resampled();
        Ok(ResampleOptions {
            users: fopts,
            pools,
            population,
            weeks: (measured / WEEK) as u32,
            replications: self.runs(),
            threads: self.threads,
            open_loop: *open_loop,
            out,
        })
    }

    /// The model files and options of a `source = "model"` scenario, and its output
    /// directory.
    pub fn model_setup(&self) -> Result<(ModelFiles, ModelOptions, Option<PathBuf>), String> {
        let WorkloadSection::Model(site) = &self.workload else {
            return Err("the scenario's source is not \"model\"".into());
        };
        let opts = self.replay_options()?;
        self.population_keys("model", &["users"])?;
        let procs = opts
            .procs
            .ok_or("[machine] procs is required for a model-based site")?;
        let params = match (site.cpu_work, site.load) {
            (None, None) => Parameterization::MachineSize(procs),
            (Some(cpu_work), Some(load)) => Parameterization::Explicit {
                procs,
                cpu_work,
                load,
            },
            _ => return Err("[workload] cpu_work and load go together".into()),
        };
        let read = crate::model_files::read;
        let (talby, talby_name) = match &site.model {
            Some(p) => (
                TalbyModel::parse(&read(p)?, &p.display().to_string())?,
                p.display().to_string(),
            ),
            None => (TalbyModel::shipped(), "models/talby2006.toml".to_owned()),
        };
        let (jobs, jobs_name) = match &site.jobs {
            Some(p) => (
                JobLayer::parse(&read(p)?, &p.display().to_string())?,
                p.display().to_string(),
            ),
            None => (JobLayer::shipped(), "models/kth-sessions.toml".to_owned()),
        };
        talby
            .site(params)
            .map_err(|e| format!("[machine]/[workload]: {e}"))?;
        let length = self.length();
        if length <= opts.warmup + opts.cooldown {
            return Err("duration must be longer than warm-up plus cool-down".into());
        }
        let files = ModelFiles::new(Arc::new(talby), talby_name, Arc::new(jobs), jobs_name);
        let mut run = opts;
        let out = run.out.take();
        let mopts = ModelOptions {
            run,
            params,
            day: site.day_cycle()?,
            users: self.population.users,
            behaviour: model_behaviour(&site.users)?,
            length,
            replications: self.runs(),
            threads: self.threads,
            record_sessions: false,
            machine: None,
            calibrate: site.calibrate,
            room: site.collision_room,
            busy: site.busy_user,
            lifetime: site.user_lifetime,
        };
        // A site whose targets cannot be reached is refused here, by its keys (the
        // closed loop's trial runs wait for the run).
        files
            .check_calibration(&mopts)
            .map_err(|e| format!("[machine]/[workload]: {e}"))?;
        Ok((files, mopts, out))
    }
}

/// The line of scenario text `own` that gives input `key` the file `path`, quoted with
/// its number (`  6 | path = "nosuch.swf"`); `None` if no line does (the value came from
/// `--set`). A line matches when it holds the key's last part and the file's name.
fn naming_line(own: &str, key: &str, path: &Path) -> Option<String> {
    let leaf = key.rsplit('.').next().unwrap_or(key);
    let file = path.file_name()?.to_string_lossy();
    own.lines().enumerate().find_map(|(i, line)| {
        let code = line.split('#').next().unwrap_or("");
        (code.contains(leaf) && code.contains(file.as_ref())).then(|| {
            format!(
                "  {} | {}",
                i + 1,
                crate::textfmt::excerpt(line.trim_end(), 120)
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_parses() {
        let s = Scenario::parse(DEFAULT_SCENARIO, "default.toml").unwrap();
        assert_eq!(s.scheduler.policy.name(), "easy");
        assert_eq!(s.machine.procs, Some(128));
        let o = s.replay_options().unwrap();
        assert_eq!(o.warmup, 604_800);
    }

    #[test]
    fn errors_name_the_key_and_line() {
        let text = DEFAULT_SCENARIO.replace("policy = \"easy\"", "policy = \"sjf\"");
        let err = Scenario::parse(&text, "s.toml").unwrap_err();
        let line = 1 + text.lines().position(|l| l.starts_with("policy")).unwrap();
        // The position and the offending value, never the line itself.
        assert!(
            err.starts_with(&format!("s.toml:{line}:")) && err.contains("(at `\"sjf\"`)"),
            "{err}"
        );
        let text = format!("{DEFAULT_SCENARIO}\n[machine2]\nprocs = 4\n");
        let err = Scenario::parse(&text, "s.toml").unwrap_err();
        assert!(err.contains("unknown field `machine2`"), "{err}");
        let text = DEFAULT_SCENARIO.replace("warmup = \"1w\"", "warmup = \"1y\"");
        let err = Scenario::parse(&text, "s.toml").unwrap_err();
        let line = 1 + text.lines().position(|l| l.starts_with("warmup")).unwrap();
        assert!(
            err.starts_with(&format!("s.toml:{line}:")) && err.contains("'1y' counts years"),
            "{err}"
        );
    }

    #[test]
    fn questionable_settings_are_checked() {
        let text = "[scheduler]\npolicy = \"fcfs\"\n[workload]\nsource = \"swf\"\npath = \"x\"\n\
                    [workload.questionable]\noversize = \"fallback\"\n";
        let err = Scenario::parse(text, "s.toml").unwrap_err();
        assert!(
            err.starts_with("s.toml:3:")
                && err.contains("'fallback' is not an action for oversize"),
            "{err}"
        );
    }

    #[test]
    fn a_predictor_for_a_policy_that_plans_with_estimates_is_refused() {
        let scenario = |policy: &str| {
            format!(
                "[scheduler]\npolicy = \"{policy}\"\npredictor = \"sbh\"\n\
                 [workload]\nsource = \"swf\"\npath = \"x\"\n"
            )
        };
        let err = Scenario::parse(&scenario("conservative"), "s.toml")
            .unwrap()
            .replay_options()
            .unwrap_err();
        assert!(
            err.starts_with("[scheduler] predictor: the scheduler 'conservative' plans"),
            "{err}"
        );
        let easy = Scenario::parse(&scenario("easy"), "s.toml").unwrap();
        assert!(easy.replay_options().unwrap().predictor.is_some());
    }
}
