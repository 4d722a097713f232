//! Choosing a policy by name: the registry of policies and the [`SchedulerSpec`] a
//! scenario or the command line gives.
//!
//! A spec is written `NAME[:key=value,...]` (`creasy:alpha=0.5,short=5m`) or, in a
//! scenario, as a table (`{ name = "pbas", candidates = ["easy", "sjbf"] }`). It is
//! resolved against the registry when it is read, so a misspelt name or key is an error
//! before anything runs. The registry holds the built-in policies (`builtin.rs`: the
//! scheduling layer's; `adaptive.rs`: the adaptive meta-schedulers, whose candidates are
//! specs too); a program adds its own with [`register`] before it reads scenarios:
//!
//! ```
//! use sitesim::registry::{SchedulerSpec, register};
//! use sitesim::sched::{Fcfs, builder};
//! register("my-fcfs", "FCFS under another name", |params| {
//!     params.finish()?;
//!     Ok(builder(|_ctx| Fcfs))
//! });
//! let spec: SchedulerSpec = "my-fcfs".parse().unwrap();
//! assert_eq!(spec.name(), "my-fcfs");
//! ```
//!
//! The registry is the layer above the adaptive meta-schedulers (`crate::adaptive`),
//! since it builds them; what a scheduler is built for and by ([`BuildContext`],
//! [`Builder`]) is the scheduling layer's own (`crate::sched`).

mod adaptive;
mod builtin;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, LazyLock, RwLock};

use crate::sched::{BuildContext, Builder, Policy, Scheduler};
use crate::time::{Time, parse_duration};

/// Checks a policy's parameters and returns its [`Builder`].
pub type Configure = Arc<dyn Fn(&Params) -> Result<Builder, String> + Send + Sync>;

struct Entry {
    about: String,
    configure: Configure,
}

static REGISTRY: LazyLock<RwLock<BTreeMap<String, Entry>>> = LazyLock::new(|| {
    let mut map = BTreeMap::new();
    for (name, about, configure) in builtin::entries().into_iter().chain(adaptive::entries()) {
        map.insert(
            name.to_owned(),
            Entry {
                about: about.to_owned(),
                configure,
            },
        );
    }
    RwLock::new(map)
});

/// Registers policy `name` (replacing one of that name): `configure` checks the
/// parameters a spec gives and returns how to build the scheduler.
pub fn register(
    name: &str,
    about: &str,
    configure: impl Fn(&Params) -> Result<Builder, String> + Send + Sync + 'static,
) {
    REGISTRY.write().unwrap_or_else(|e| e.into_inner()).insert(
        name.to_owned(),
        Entry {
            about: about.to_owned(),
            configure: Arc::new(configure),
        },
    );
}

/// The registered policies: `(name, what it is)`, by name.
pub fn policies() -> Vec<(String, String)> {
    let map = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    map.iter()
        .map(|(k, e)| (k.clone(), e.about.clone()))
        .collect()
}

/// The parameters of one spec, read by type; [`Params::finish`] refuses keys nobody read.
pub struct Params {
    policy: String,
    table: toml::Table,
    read: RefCell<BTreeSet<String>>,
}

impl Params {
    fn new(policy: &str, table: toml::Table) -> Self {
        Params {
            policy: policy.to_owned(),
            table,
            read: RefCell::new(BTreeSet::new()),
        }
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

    /// A duration: seconds, or a string such as `"20m"`; `"none"` gives `None`.
    pub fn duration(&self, key: &str, default: Option<Time>) -> Result<Option<Time>, String> {
        match self.get(key) {
            None => Ok(default),
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
            None => default.parse(),
            Some(v) => SchedulerSpec::from_value(v).map_err(|e| self.error(key, &e)),
        }
    }

    /// A list of policy specs.
    pub fn specs(&self, key: &str, default: &[&str]) -> Result<Vec<SchedulerSpec>, String> {
        match self.get(key) {
            None => default.iter().map(|s| s.parse()).collect(),
            Some(toml::Value::Array(items)) => items
                .iter()
                .map(|v| SchedulerSpec::from_value(v).map_err(|e| self.error(key, &e)))
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

/// A configured policy: its name, its parameters and how to build it.
#[derive(Clone)]
pub struct SchedulerSpec {
    name: String,
    params: toml::Table,
    builder: Builder,
}

impl SchedulerSpec {
    /// Resolves `name` with `params` against the registry.
    pub fn new(name: &str, params: toml::Table) -> Result<Self, String> {
        let configure = {
            let map = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
            match map.get(name) {
                Some(e) => e.configure.clone(),
                None => {
                    return Err(format!(
                        "unknown policy '{name}' (known: {})",
                        map.keys().cloned().collect::<Vec<_>>().join(", ")
                    ));
                }
            }
        };
        let p = Params::new(name, params.clone());
        let builder = configure(&p)?;
        p.finish()?;
        Ok(SchedulerSpec {
            name: name.to_owned(),
            params,
            builder,
        })
    }

    /// From a TOML value: a string spec or a table with `name` and parameters.
    pub fn from_value(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::String(s) => s.parse(),
            toml::Value::Table(t) => {
                let mut t = t.clone();
                match t.remove("name") {
                    Some(toml::Value::String(name)) => SchedulerSpec::new(&name, t),
                    _ => Err("a policy table needs name = \"...\"".into()),
                }
            }
            v => Err(format!("a policy is a name or a table, not {v}")),
        }
    }

    /// The policy's registered name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its parameters as given.
    pub fn params(&self) -> &toml::Table {
        &self.params
    }

    /// The same policy with `key` set to `value`.
    pub fn with(&self, key: &str, value: toml::Value) -> Result<Self, String> {
        let mut params = self.params.clone();
        params.insert(key.to_owned(), value);
        SchedulerSpec::new(&self.name, params)
    }

    /// A fresh scheduler for `ctx`.
    pub fn build(&self, ctx: &BuildContext) -> Box<dyn Scheduler> {
        (self.builder)(ctx)
    }

    /// Name and parameters, as `NAME[:key=value,...]`.
    pub fn label(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for SchedulerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            // A string is written bare when it reads back as the same string, quoted
            // otherwise (a nested spec with its own parameters, say).
            let v = match v {
                toml::Value::String(s)
                    if !s.contains([',', '=', ':', '[', '{', '"'])
                        && toml::from_str::<toml::Table>(&format!("v = {s}")).is_err() =>
                {
                    s.clone()
                }
                v => v.to_string(),
            };
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

impl fmt::Debug for SchedulerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SchedulerSpec({self})")
    }
}

impl PartialEq for SchedulerSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.params == other.params
    }
}

impl From<Policy> for SchedulerSpec {
    fn from(p: Policy) -> Self {
        SchedulerSpec::new(p.name(), toml::Table::new())
            .expect("the classic policies are registered and take no parameters")
    }
}

/// Splits `a=1,b=[x,y]` at the commas outside brackets and quotes.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut quoted, mut from) = (0i32, false, 0);
    let mut parts = Vec::new();
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                parts.push(&s[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[from..]);
    parts
}

impl FromStr for SchedulerSpec {
    type Err = String;

    /// `NAME[:key=value,...]`; a value is read as TOML (`0.5`, `true`, `["easy","sjbf"]`)
    /// or else taken as a string (`20m`).
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, rest) = s.split_once(':').unwrap_or((s, ""));
        let mut params = toml::Table::new();
        for kv in split_top(rest).into_iter().filter(|p| !p.trim().is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("'{kv}' in '{s}' is not key=value"))?;
            let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(v.trim().to_owned()));
            if params.insert(k.trim().to_owned(), value).is_some() {
                return Err(format!("'{}' is given twice in '{s}'", k.trim()));
            }
        }
        SchedulerSpec::new(name.trim(), params)
    }
}

impl<'de> serde::Deserialize<'de> for SchedulerSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        SchedulerSpec::from_value(&v).map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for SchedulerSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_resolve_and_print() {
        let s: SchedulerSpec = "creasy:alpha=0.25,short=5m".parse().unwrap();
        assert_eq!(s.name(), "creasy");
        assert_eq!(s.to_string(), "creasy:alpha=0.25,short=5m");
        assert_eq!(s.to_string().parse::<SchedulerSpec>().unwrap(), s);
        assert_eq!(s.build(&BuildContext::new(8)).name(), "creasy");
        let e = "creasy:alpah=0.2".parse::<SchedulerSpec>().unwrap_err();
        assert!(e.contains("no parameter 'alpah'"), "{e}");
        let e = "creasy:alpha=2".parse::<SchedulerSpec>().unwrap_err();
        assert!(e.contains("alpha must be in [0, 1]"), "{e}");
        let e = "sjf".parse::<SchedulerSpec>().unwrap_err();
        assert!(e.contains("unknown policy 'sjf'"), "{e}");
        let e = "easy:x=1".parse::<SchedulerSpec>().unwrap_err();
        assert!(e.contains("takes none"), "{e}");
        assert_eq!(SchedulerSpec::from(Policy::Sjbf).label(), "sjbf");
        let e = "creasy:alpha=0.1,alpha=0.2"
            .parse::<SchedulerSpec>()
            .unwrap_err();
        assert!(e.contains("given twice"), "{e}");
        // A nested spec with parameters prints quoted and reads back.
        let nested: SchedulerSpec = "time-of-day:day=\"creasy:alpha=1,short=5m\""
            .parse()
            .unwrap();
        assert_eq!(nested.label().parse::<SchedulerSpec>().unwrap(), nested);
        assert_eq!(
            "time-of-day:day=sjbf"
                .parse::<SchedulerSpec>()
                .unwrap()
                .label(),
            "time-of-day:day=sjbf"
        );
    }

    #[test]
    fn specs_come_from_tables_too() {
        let v: toml::Value = toml::from_str::<toml::Table>("s = { name = \"creasy\", alpha = 1 }")
            .unwrap()
            .remove("s")
            .unwrap();
        let s = SchedulerSpec::from_value(&v).unwrap();
        assert_eq!(s.to_string(), "creasy:alpha=1");
        assert_eq!(
            s.with("alpha", toml::Value::Float(0.0))
                .unwrap()
                .to_string(),
            "creasy:alpha=0.0"
        );
    }
}
