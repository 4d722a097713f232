//! The parameters of one spec, read by type, and how a policy checks them.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::Arc;

use super::spec::SchedulerSpec;
use crate::sched::Builder;
use crate::time::{LONGEST, Time, longer_than_a_century, parse_duration};

/// Checks a policy's parameters and returns its [`Builder`].
pub type Configure = Arc<dyn Fn(&Params) -> Result<Builder, String> + Send + Sync>;

/// Resolves a policy given as a TOML value (a name, `NAME:key=value`, or a table)
/// against the registry.
pub type Resolve = fn(&toml::Value) -> Result<SchedulerSpec, String>;

/// The parameters of one spec, read by type; [`Params::finish`] refuses keys nobody read.
pub struct Params {
    policy: String,
    table: toml::Table,
    read: RefCell<BTreeSet<String>>,
    /// How nested specs (an adaptive policy's candidates) are resolved.
    resolve: Resolve,
}

impl Params {
    /// The parameters `table` of `policy`, nested specs resolved by `resolve`.
    pub(super) fn new(policy: &str, table: toml::Table, resolve: Resolve) -> Self {
        Params {
            policy: policy.to_owned(),
            table,
            read: RefCell::new(BTreeSet::new()),
            resolve,
        }
    }

    /// A policy given by name.
    fn named(&self, name: &str) -> Result<SchedulerSpec, String> {
        (self.resolve)(&toml::Value::String(name.to_owned()))
    }

    fn get(&self, key: &str) -> Option<&toml::Value> {
        self.read.borrow_mut().insert(key.to_owned());
        self.table.get(key)
    }

    fn error(&self, key: &str, what: &str) -> String {
        format!("policy '{}': {key} {what}", self.policy)
    }

    /// A number (integers are taken as numbers too).
    pub fn f64(&self, key: &str, default: f64) -> Result<f64, String> {
        match self.get(key) {
            None => Ok(default),
            Some(toml::Value::Float(x)) => Ok(*x),
            Some(toml::Value::Integer(x)) => Ok(*x as f64),
            Some(v) => Err(self.error(key, &format!("must be a number, not {v}"))),
        }
    }

    /// A whole number of 0 or more.
    pub fn u64(&self, key: &str, default: u64) -> Result<u64, String> {
        match self.get(key) {
            None => Ok(default),
            Some(toml::Value::Integer(x)) if *x >= 0 => Ok(*x as u64),
            Some(v) => Err(self.error(key, &format!("must be a whole number >= 0, not {v}"))),
        }
    }

    /// A duration: seconds, or a string such as `"20m"`; `"none"` gives `None`.
    pub fn duration(&self, key: &str, default: Option<Time>) -> Result<Option<Time>, String> {
        match self.get(key) {
            None => Ok(default),
            // Seconds past a century overflowed a policy's clock (`wbas:period=2^63-1`,
            // fuzzing): refused as `parse_duration` refuses them.
            Some(toml::Value::Integer(x)) if *x > LONGEST => Err(self.error(
                key,
                &format!(
                    "is not a duration: {}",
                    longer_than_a_century(&x.to_string())
                ),
            )),
            Some(toml::Value::Integer(x)) => Ok(Some(*x)),
            Some(toml::Value::String(s)) if s == "none" => Ok(None),
            Some(toml::Value::String(s)) => parse_duration(s)
                .map(Some)
                .map_err(|e| self.error(key, &format!("is not a duration: {e}"))),
            Some(v) => Err(self.error(key, &format!("must be a duration, not {v}"))),
        }
    }

    /// A string.
    pub fn string(&self, key: &str, default: &str) -> Result<String, String> {
        match self.get(key) {
            None => Ok(default.to_owned()),
            Some(toml::Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(self.error(key, &format!("must be a string, not {v}"))),
        }
    }

    /// A policy spec (a name, `NAME:key=value`, or a table).
    pub fn spec(&self, key: &str, default: &str) -> Result<SchedulerSpec, String> {
        match self.get(key) {
            None => self.named(default),
            Some(v) => (self.resolve)(v).map_err(|e| self.error(key, &e)),
        }
    }

    /// A list of policy specs.
    pub fn specs(&self, key: &str, default: &[&str]) -> Result<Vec<SchedulerSpec>, String> {
        match self.get(key) {
            None => default.iter().map(|s| self.named(s)).collect(),
            Some(toml::Value::Array(items)) => items
                .iter()
                .map(|v| (self.resolve)(v).map_err(|e| self.error(key, &e)))
                .collect(),
            Some(v) => Err(self.error(key, &format!("must be a list of policies, not {v}"))),
        }
    }

    /// Fails on a key no reader asked for.
    pub fn finish(&self) -> Result<(), String> {
        let read = self.read.borrow();
        match self.table.keys().find(|k| !read.contains(*k)) {
            Some(k) => Err(format!(
                "policy '{}' {NO_PARAMETER} '{k}'{}",
                self.policy,
                if read.is_empty() {
                    " (it takes none)".to_owned()
                } else {
                    format!(
                        " (it takes {})",
                        read.iter().cloned().collect::<Vec<_>>().join(", ")
                    )
                }
            )),
            None => Ok(()),
        }
    }
}

/// The words of [`Params::finish`]'s error for a parameter the policy does not take.
const NO_PARAMETER: &str = "has no parameter";

/// Whether `error` (from [`SchedulerSpec::new`]) says the policy does not take a
/// parameter it was given, rather than that a value is wrong.
pub fn is_unknown_parameter(error: &str) -> bool {
    error.contains(NO_PARAMETER)
}
