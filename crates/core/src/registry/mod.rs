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
//! use sitesim_core::registry::{SchedulerSpec, register};
//! use sitesim_core::sched::{Fcfs, builder};
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
mod params;
mod spec;

pub use params::{Configure, Params, is_unknown_parameter};
pub use spec::SchedulerSpec;

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::{Arc, LazyLock, RwLock};

use crate::sched::{Builder, Policy};
use crate::spec::Spec;

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

/// Removes policy `name` from the registry (a program's own, registered for one run);
/// whether it was there.
pub fn unregister(name: &str) -> bool {
    REGISTRY
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .remove(name)
        .is_some()
}

/// The registered policies: `(name, what it is)`, by name.
pub fn policies() -> Vec<(String, String)> {
    let map = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    map.iter()
        .map(|(k, e)| (k.clone(), e.about.clone()))
        .collect()
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
        let p = Params::new(name, params.clone(), SchedulerSpec::from_value);
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

    /// The same policy with `key` set to `value`.
    pub fn with(&self, key: &str, value: toml::Value) -> Result<Self, String> {
        let mut params = self.params.clone();
        params.insert(key.to_owned(), value);
        SchedulerSpec::new(&self.name, params)
    }
}

impl From<Policy> for SchedulerSpec {
    fn from(p: Policy) -> Self {
        SchedulerSpec::new(p.name(), toml::Table::new())
            .expect("the classic policies are registered and take no parameters")
    }
}

impl FromStr for SchedulerSpec {
    type Err = String;

    /// `NAME[:key=value,...]`; a value is read as TOML (`0.5`, `true`, `["easy","sjbf"]`)
    /// or else taken as a string (`20m`).
    fn from_str(s: &str) -> Result<Self, String> {
        let spec = Spec::parse(s)?;
        let mut params = toml::Table::new();
        for (k, v) in spec.settings(s)? {
            let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(v.trim().to_owned()));
            params.insert(k.to_owned(), value);
        }
        SchedulerSpec::new(spec.name, params)
    }
}

impl<'de> serde::Deserialize<'de> for SchedulerSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        SchedulerSpec::from_value(&v).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::BuildContext;

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
        assert!(!unregister("sjf"));
        register("sjf-for-now", "for a moment", |params| {
            params.finish()?;
            Ok(crate::sched::builder(|_| crate::sched::Fcfs))
        });
        assert_eq!(
            "sjf-for-now".parse::<SchedulerSpec>().unwrap().name(),
            "sjf-for-now"
        );
        assert!(unregister("sjf-for-now"));
        assert!("sjf-for-now".parse::<SchedulerSpec>().is_err());
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

    /// Fuzzing: `wbas:period=9223372036854775807` overflowed the
    /// time of the next switch; durations given as seconds are bounded as typed ones are.
    #[test]
    fn durations_past_a_century_are_refused_by_key() {
        for spec in [
            "wbas:period=9223372036854775807",
            "pbas:period=3153600001",
            "wbas:period=\"200000w\"",
        ] {
            let e = spec.parse::<SchedulerSpec>().unwrap_err();
            assert!(
                e.contains("period") && e.contains("longer than 100 years"),
                "{spec}: {e}"
            );
        }
        assert!("wbas:period=3153600000".parse::<SchedulerSpec>().is_ok());
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
