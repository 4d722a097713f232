//! A configured policy: its name, its parameters and how to build it. It is made only by
//! resolving a name against the registry (`super::SchedulerSpec::new` and the parsers
//! beside it), so a spec always names a registered policy with parameters it takes.

use std::fmt;

use crate::sched::{BuildContext, Builder, Scheduler};

/// A configured policy: its name, its parameters and how to build it.
#[derive(Clone)]
pub struct SchedulerSpec {
    pub(super) name: String,
    pub(super) params: toml::Table,
    pub(super) builder: Builder,
}

impl SchedulerSpec {
    /// The policy's registered name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its parameters as given.
    pub fn params(&self) -> &toml::Table {
        &self.params
    }

    /// A fresh scheduler for `ctx`.
    pub fn build(&self, ctx: &BuildContext) -> Box<dyn Scheduler> {
        (self.builder)(ctx)
    }

    /// Whether the policy can plan with a runtime predictor's predictions (conservative
    /// and `logged` cannot: they plan with estimates, or with none). Asked of a machine of
    /// one processor, before any log is read.
    pub fn accepts_predictions(&self) -> bool {
        self.build(&BuildContext::new(1)).accepts_predictions()
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

impl serde::Serialize for SchedulerSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}
