//! The `[experiment]` section of a scenario: the schedulers compared, and a sweep or a
//! capacity search (`super::super::study` runs it).

use serde::Deserialize;

use crate::registry::SchedulerSpec;
use crate::results::metric::metric;

/// A scheduler of an experiment, with the label its results carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Contender {
    /// The policy.
    pub spec: SchedulerSpec,
    /// Its label in tables and plots (the spec when not given).
    pub label: String,
}

impl<'de> Deserialize<'de> for Contender {
    /// A spec string, or a table with `name`, the policy's parameters and an optional
    /// `label`.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut v = toml::Value::deserialize(d)?;
        let label = match &mut v {
            toml::Value::Table(t) => match t.remove("label") {
                Some(toml::Value::String(l)) => Some(l),
                Some(_) => return Err(serde::de::Error::custom("label must be a string")),
                None => None,
            },
            _ => None,
        };
        let spec = SchedulerSpec::from_value(&v).map_err(serde::de::Error::custom)?;
        Ok(Contender {
            label: label.unwrap_or_else(|| spec.label()),
            spec,
        })
    }
}

/// `[experiment]`: what to compare and what to vary.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSection {
    /// The schedulers, compared under common random numbers; `[scheduler] policy` when
    /// empty.
    #[serde(default)]
    pub schedulers: Vec<Contender>,
    /// A sweep.
    pub sweep: Option<SweepSection>,
    /// A capacity search, instead of a sweep.
    pub capacity: Option<CapacitySection>,
}

/// `[experiment.sweep]`: one axis and its values.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSection {
    /// `population` (a multiplier on the users), `procs` (the machine, the population
    /// staying the one sized for `[machine] procs`), or a policy parameter such as
    /// `alpha` (set on every scheduler that takes it; the others run unchanged at every
    /// value, as references).
    pub axis: String,
    /// The values.
    pub values: Vec<f64>,
}

/// `[experiment.capacity]`: the smallest machine that keeps a metric on the right side
/// of a target for the scenario's population, found by bisection.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacitySection {
    /// The metric (a name of [`crate::results::metric::METRICS`], mean over
    /// replications).
    pub metric: String,
    /// The target.
    pub target: f64,
    /// `below` (the default: the mean must not exceed the target) or `above`.
    #[serde(default = "below")]
    pub goal: String,
    /// Smallest machine tried.
    pub min_procs: u32,
    /// Largest machine tried.
    pub max_procs: u32,
    /// Machine sizes are multiples of this (1 by default).
    #[serde(default = "one")]
    pub step: u32,
}

fn below() -> String {
    "below".into()
}
fn one() -> u32 {
    1
}

/// Checks a capacity section.
pub fn check_capacity(c: &CapacitySection) -> Result<(), String> {
    metric(&c.metric).map_err(|e| format!("[experiment.capacity] {e}"))?;
    if c.goal != "below" && c.goal != "above" {
        return Err("[experiment.capacity] goal is \"below\" or \"above\"".into());
    }
    if c.min_procs < 1
        || c.min_procs > c.max_procs
        || c.step < 1
        || c.max_procs / c.step < c.min_procs.div_ceil(c.step)
    {
        return Err(
            "[experiment.capacity] needs 1 <= min_procs <= max_procs and a multiple of step between them"
                .into(),
        );
    }
    if !c.target.is_finite() {
        return Err("[experiment.capacity] target must be a number".into());
    }
    Ok(())
}
