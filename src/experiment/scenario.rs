//! Scenario files (TOML): everything one experiment needs, so that it can be rerun and
//! shared. `sitesim run [SCENARIO]` runs one; with no argument it runs the default
//! scenario shipped in `scenarios/default.toml`.
//!
//! Keys: `name`, `description`, `seed`; sections `[machine]`, `[scheduler]` (policy and
//! predictor), `[workload]` (`source = "swf"` for a log replayed open-loop, `source =
//! "feedback"` for a log replayed with feedback, with its user model in
//! `[workload.users]`, `source = "synthetic"` for the benchmark workload of
//! `models/synthetic.toml`; `estimates` for each), `[site]`, `[metrics]` and `[output]`.
//! Unknown keys are errors that name the key and its line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::feedback::{FeedbackOptions, FeedbackSummary, feedback, render_feedback};
use super::replay::{ReplayError, ReplayOptions, ReplaySummary, render, replay};
use crate::job::OverrunPolicy;
use crate::metrics::{Bsld, BsldForm};
use crate::sched::Policy;
use crate::swf::{SwfHeader, SwfReader};
use crate::time::{Time, parse_duration};
use crate::users::{NegativeThink, OpeningThink, Patience};
use crate::workload::questionable::{Policies, PolicySetting};
use crate::workload::trace::TraceConfig;
use crate::workload::{Synthetic, SyntheticConfig, SyntheticModel};

/// The default scenario, built into the binary so that `sitesim run` works anywhere.
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/default.toml");

/// A scenario file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A short name.
    pub name: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// The scenario's random seed (estimate models; the synthetic workload's default).
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// The machine.
    #[serde(default)]
    pub machine: MachineSection,
    /// The scheduler.
    pub scheduler: SchedulerSection,
    /// Where the jobs come from.
    pub workload: WorkloadSection,
    /// Site rules.
    #[serde(default)]
    pub site: SiteSection,
    /// What to measure.
    #[serde(default)]
    pub metrics: MetricsSection,
    /// Where results go.
    #[serde(default)]
    pub output: OutputSection,
}

/// `[machine]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSection {
    /// Processors; a log's own size when absent.
    pub procs: Option<u32>,
}

/// `[scheduler]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerSection {
    /// The policy.
    pub policy: Policy,
    /// A runtime predictor (`NAME[:key=value,...]`); the policy plans with estimates
    /// without one.
    pub predictor: Option<String>,
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
        #[serde(default = "log_estimates")]
        estimates: String,
        /// Interarrival scaling (see `sitesim replay --help`).
        #[serde(default = "one")]
        interarrival_factor: f64,
        /// Questionable-job policies, kind = action.
        #[serde(default)]
        questionable: BTreeMap<String, String>,
    },
    /// A log replayed with feedback: its users submit their jobs as the simulated
    /// machine finishes the ones they depend on (see `sitesim feedback --help`).
    Feedback {
        /// The log.
        path: PathBuf,
        /// The estimate model.
        #[serde(default = "log_estimates")]
        estimates: String,
        /// Questionable-job policies, kind = action.
        #[serde(default)]
        questionable: BTreeMap<String, String>,
        /// How users behave.
        #[serde(default)]
        users: Box<UsersSection>,
    },
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
        #[serde(default = "log_estimates")]
        estimates: String,
    },
}

/// `[workload.users]`: the user model of a feedback replay; every key is optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsersSection {
    /// Session threshold, as a duration (`"20m"`).
    pub threshold: Option<String>,
    /// `previous` or `latest`.
    pub session_rule: Option<String>,
    /// `submit` or `start`.
    pub dependence: Option<String>,
    /// `last-end` or `last-submit`.
    pub window_end: Option<String>,
    /// `capped`, `original` or `zero`.
    pub opening_think: Option<String>,
    /// `spacing` or `together`.
    pub negative_think: Option<String>,
    /// The site's zone.
    pub time_zone: Option<String>,
    /// A continuation curve file, or `"fit"`.
    pub continuation: Option<String>,
    /// Patience, as a duration; off when absent.
    pub patience: Option<String>,
    /// Waits over the patience after which a user leaves.
    pub strikes: Option<u32>,
}

impl UsersSection {
    /// The feedback options this section stands for, on top of `run`.
    fn options(&self, run: ReplayOptions) -> Result<FeedbackOptions, String> {
        fn pick<T: std::str::FromStr<Err = String>>(
            key: &str,
            v: &Option<String>,
            default: T,
        ) -> Result<T, String> {
            match v {
                Some(v) => v
                    .parse()
                    .map_err(|e| format!("[workload.users] {key}: {e}")),
                None => Ok(default),
            }
        }
        let duration = |key: &str, v: &str| {
            parse_duration(v).map_err(|e| format!("[workload.users] {key}: {e}"))
        };
        let d = TraceConfig::default();
        let threshold = match &self.threshold {
            Some(t) => duration("threshold", t)?,
            None => d.threshold,
        };
        if threshold < 1 {
            return Err("[workload.users] threshold must be at least 1 second".into());
        }
        let patience = match &self.patience {
            Some(p) => Some(Patience {
                limit: duration("patience", p)?,
                strikes: self.strikes.unwrap_or(3).max(1),
            }),
            None => None,
        };
        Ok(FeedbackOptions {
            run,
            trace: TraceConfig {
                threshold,
                rule: pick("session_rule", &self.session_rule, d.rule)?,
                cutoff: pick("dependence", &self.dependence, d.cutoff)?,
                window_end: pick("window_end", &self.window_end, d.window_end)?,
            },
            opening: pick(
                "opening_think",
                &self.opening_think,
                OpeningThink::default(),
            )?,
            negative: pick(
                "negative_think",
                &self.negative_think,
                NegativeThink::default(),
            )?,
            time_zone: self.time_zone.clone(),
            continuation: match &self.continuation {
                Some(c) => Some(
                    c.parse()
                        .map_err(|e| format!("[workload.users] continuation: {e}"))?,
                ),
                None => None,
            },
            patience,
        })
    }
}

/// What a scenario's run produced.
#[derive(Debug, Clone, PartialEq)]
pub enum RunSummary {
    /// An open-loop replay.
    Replay(Box<ReplaySummary>),
    /// A replay with feedback.
    Feedback(Box<FeedbackSummary>),
}

impl RunSummary {
    /// The terminal summary.
    pub fn render(&self) -> String {
        match self {
            RunSummary::Replay(s) => render(s),
            RunSummary::Feedback(s) => render_feedback(s),
        }
    }

    /// The figures every run has.
    pub fn run(&self) -> &ReplaySummary {
        match self {
            RunSummary::Replay(s) => s,
            RunSummary::Feedback(s) => &s.run,
        }
    }
}

fn one() -> f64 {
    1.0
}
fn one_u64() -> u64 {
    1
}
fn log_estimates() -> String {
    "log".into()
}

/// `[site]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteSection {
    /// Jobs running past their estimate.
    #[serde(default = "kill")]
    pub overrun: OverrunPolicy,
    /// Run the invariant checker.
    #[serde(default)]
    pub check: bool,
}

fn kill() -> OverrunPolicy {
    OverrunPolicy::Kill
}

impl Default for SiteSection {
    fn default() -> Self {
        SiteSection {
            overrun: OverrunPolicy::Kill,
            check: false,
        }
    }
}

/// `[metrics]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsSection {
    /// Bounded slowdown form.
    #[serde(default = "clamped")]
    pub bsld: BsldForm,
    /// Bounded slowdown threshold, seconds.
    #[serde(default = "ten")]
    pub bsld_threshold: Time,
    /// Warm-up, as a duration (`"1w"`).
    #[serde(default = "zero")]
    pub warmup: String,
    /// Cool-down, as a duration.
    #[serde(default = "zero")]
    pub cooldown: String,
}

fn clamped() -> BsldForm {
    BsldForm::Clamped
}
fn ten() -> Time {
    10
}
fn zero() -> String {
    "0".into()
}

impl Default for MetricsSection {
    fn default() -> Self {
        MetricsSection {
            bsld: BsldForm::Clamped,
            bsld_threshold: 10,
            warmup: zero(),
            cooldown: zero(),
        }
    }
}

/// `[output]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Directory for summary.json, jobs.csv and schedule.swf.
    pub dir: Option<PathBuf>,
}

impl Scenario {
    /// Parses a scenario; `name` names the file in errors, which give the key and line.
    pub fn parse(text: &str, name: &str) -> Result<Scenario, String> {
        toml::from_str(text).map_err(|e| format!("{name}: {e}"))
    }

    /// Reads a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Scenario::parse(&text, &path.display().to_string())
    }

    /// The replay options this scenario stands for (for the workload given separately).
    pub fn replay_options(&self) -> Result<ReplayOptions, String> {
        let duration =
            |key: &str, v: &str| parse_duration(v).map_err(|e| format!("[metrics] {key}: {e}"));
        if self.metrics.bsld_threshold < 1 {
            return Err("[metrics] bsld_threshold must be at least 1 second".into());
        }
        if self.machine.procs == Some(0) {
            return Err("[machine] procs must be at least 1".into());
        }
        let mut questionable = Policies::default();
        let mut interarrival_factor = 1.0;
        let estimates = match &self.workload {
            WorkloadSection::Swf { estimates, .. }
            | WorkloadSection::Feedback { estimates, .. }
            | WorkloadSection::Synthetic { estimates, .. } => estimates
                .parse()
                .map_err(|e| format!("[workload] estimates: {e}"))?,
        };
        let predictor = match &self.scheduler.predictor {
            Some(p) => Some(
                p.parse()
                    .map_err(|e| format!("[scheduler] predictor: {e}"))?,
            ),
            None => None,
        };
        let settings = match &self.workload {
            WorkloadSection::Swf { questionable, .. }
            | WorkloadSection::Feedback { questionable, .. } => Some(questionable),
            WorkloadSection::Synthetic { .. } => None,
        };
        for (kind, action) in settings.into_iter().flatten() {
            let s: PolicySetting = format!("{kind}={action}")
                .parse()
                .map_err(|e| format!("[workload.questionable] {e}"))?;
            questionable.set(&s);
        }
        if let WorkloadSection::Swf {
            interarrival_factor: f,
            ..
        } = &self.workload
        {
            if !(f.is_finite() && *f > 0.0) {
                return Err("[workload] interarrival_factor must be a positive number".into());
            }
            interarrival_factor = *f;
        }
        Ok(ReplayOptions {
            policy: self.scheduler.policy,
            procs: self.machine.procs,
            overrun: self.site.overrun,
            questionable,
            interarrival_factor,
            bsld: Bsld {
                form: self.metrics.bsld,
                threshold: self.metrics.bsld_threshold,
            },
            warmup: duration("warmup", &self.metrics.warmup)?,
            cooldown: duration("cooldown", &self.metrics.cooldown)?,
            estimates,
            predictor,
            seed: self.seed,
            check: self.site.check || cfg!(debug_assertions),
            out: self.output.dir.clone(),
        })
    }

    /// Runs the scenario.
    pub fn run(&self) -> Result<RunSummary, String> {
        let opts = self.replay_options()?;
        let err = |e: ReplayError| e.to_string();
        let log = |path: &Path| -> Result<(SwfHeader, String), String> {
            let header = SwfReader::open(path)
                .map_err(|e| e.to_string())?
                .header()
                .clone();
            Ok((header, path.display().to_string()))
        };
        match &self.workload {
            WorkloadSection::Swf { path, .. } => {
                let (header, name) = log(path)?;
                replay(
                    || SwfReader::open(path),
                    &name,
                    &header,
                    |r| r.extra_columns(),
                    &opts,
                )
                .map(|s| RunSummary::Replay(Box::new(s)))
                .map_err(err)
            }
            WorkloadSection::Feedback { path, users, .. } => {
                let (header, name) = log(path)?;
                let fopts = users.options(opts)?;
                feedback(
                    || SwfReader::open(path),
                    &name,
                    &header,
                    |r| r.extra_columns(),
                    &fopts,
                )
                .map(|s| RunSummary::Feedback(Box::new(s)))
                .map_err(err)
            }
            WorkloadSection::Synthetic {
                jobs,
                load,
                seed,
                model,
                ..
            } => {
                let model = match model {
                    Some(p) => {
                        let text = std::fs::read_to_string(p)
                            .map_err(|e| format!("{}: {e}", p.display()))?;
                        SyntheticModel::parse(&text, &p.display().to_string())?
                    }
                    None => SyntheticModel::default(),
                };
                let procs = opts
                    .procs
                    .ok_or("[machine] procs is required for a synthetic workload")?;
                if !(load.is_finite() && *load > 0.0) || *jobs == 0 {
                    return Err("[workload] needs jobs >= 1 and a positive load".into());
                }
                let seed = seed.unwrap_or(self.seed);
                let cfg = SyntheticConfig {
                    jobs: *jobs,
                    procs,
                    load: *load,
                    seed,
                };
                let header = SwfHeader {
                    lines: Synthetic::new(cfg, &model).header_lines(),
                    max_procs: Some(i64::from(procs)),
                    ..SwfHeader::default()
                };
                let name = format!("synthetic({jobs} jobs, load {load}, seed {seed})");
                replay(
                    || Ok(Synthetic::new(cfg, &model)),
                    &name,
                    &header,
                    |_| Default::default(),
                    &opts,
                )
                .map(|s| RunSummary::Replay(Box::new(s)))
                .map_err(err)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_parses() {
        let s = Scenario::parse(DEFAULT_SCENARIO, "default.toml").unwrap();
        assert_eq!(s.scheduler.policy, Policy::Easy);
        assert_eq!(s.machine.procs, Some(128));
        let o = s.replay_options().unwrap();
        assert_eq!(o.warmup, 604_800);
    }

    #[test]
    fn errors_name_the_key_and_line() {
        let text = DEFAULT_SCENARIO.replace("policy = \"easy\"", "policy = \"sjf\"");
        let err = Scenario::parse(&text, "s.toml").unwrap_err();
        let line = 1 + text.lines().position(|l| l.starts_with("policy")).unwrap();
        assert!(
            err.starts_with("s.toml: TOML parse error at line "),
            "{err}"
        );
        assert!(
            err.contains(&format!("line {line},")) && err.contains("sjf"),
            "{err}"
        );
        let text = format!("{DEFAULT_SCENARIO}\n[machine2]\nprocs = 4\n");
        let err = Scenario::parse(&text, "s.toml").unwrap_err();
        assert!(err.contains("unknown field `machine2`"), "{err}");
        let text = DEFAULT_SCENARIO.replace("warmup = \"1w\"", "warmup = \"1y\"");
        let err = Scenario::parse(&text, "s.toml")
            .unwrap()
            .replay_options()
            .unwrap_err();
        assert!(err.starts_with("[metrics] warmup:"), "{err}");
    }

    #[test]
    fn questionable_settings_are_checked() {
        let text = "[scheduler]\npolicy = \"fcfs\"\n[workload]\nsource = \"swf\"\npath = \"x\"\n\
                    [workload.questionable]\noversize = \"fallback\"\n";
        let err = Scenario::parse(text, "s.toml")
            .unwrap()
            .replay_options()
            .unwrap_err();
        assert!(
            err.contains("'fallback' is not an action for oversize"),
            "{err}"
        );
    }
}
