//! Questionable jobs in a log and what to do with them.
//!
//! Real logs hold jobs a simulator cannot take as they are: unknown or zero runtimes,
//! unknown sizes, jobs larger than the simulated machine, missing estimates, and jobs that
//! ran longer than they asked for (`notes/anchors-simulators.md` §3.5: KTH has 8 jobs with
//! a runtime or size of at most zero and 475 that overran). Each kind has a policy the user
//! chooses; every job it touches is counted and reported, none is dropped silently.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::options;

/// What to do with one kind of questionable job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Simulate the job as it is.
    Keep,
    /// Leave the job out (counted).
    Skip,
    /// Stop with an error naming file, line and field.
    Error,
    /// Cut the size down to the machine.
    Clamp,
    /// Use the requested processors (field 8) when the allocated ones (field 5) are unknown;
    /// skip the job if both are.
    Fallback,
    /// Use the runtime as the estimate.
    Runtime,
    /// Use the header's `MaxRuntime` as the estimate.
    MaxRuntime,
}

/// The kinds of questionable job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Runtime below zero (unknown, `-1`).
    NegativeRuntime,
    /// Runtime of exactly zero.
    ZeroRuntime,
    /// Allocated processors at most zero (unknown).
    BadSize,
    /// More processors than the simulated machine has.
    Oversize,
    /// Requested time at most zero (unknown).
    MissingEstimate,
}

impl Kind {
    /// Every kind, in the order they are checked.
    pub const ALL: [Kind; 5] = [
        Kind::NegativeRuntime,
        Kind::BadSize,
        Kind::Oversize,
        Kind::ZeroRuntime,
        Kind::MissingEstimate,
    ];

    /// The actions that make sense for this kind; the first is the default.
    pub fn actions(self) -> &'static [Action] {
        match self {
            Kind::NegativeRuntime => &[Action::Skip, Action::Error],
            Kind::ZeroRuntime => &[Action::Keep, Action::Skip, Action::Error],
            Kind::BadSize => &[Action::Fallback, Action::Skip, Action::Error],
            Kind::Oversize => &[Action::Skip, Action::Clamp, Action::Error],
            Kind::MissingEstimate => &[
                Action::Runtime,
                Action::MaxRuntime,
                Action::Skip,
                Action::Error,
            ],
        }
    }
}

/// One value for every kind of questionable job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct PerKind<T> {
    /// Runtime below zero.
    pub negative_runtime: T,
    /// Runtime of zero.
    pub zero_runtime: T,
    /// Unknown allocated processors.
    pub bad_size: T,
    /// Larger than the machine.
    pub oversize: T,
    /// Unknown requested time.
    pub missing_estimate: T,
}

impl<T> PerKind<T> {
    /// The value `f` gives each kind.
    pub fn from_fn(f: impl Fn(Kind) -> T) -> Self {
        PerKind {
            negative_runtime: f(Kind::NegativeRuntime),
            zero_runtime: f(Kind::ZeroRuntime),
            bad_size: f(Kind::BadSize),
            oversize: f(Kind::Oversize),
            missing_estimate: f(Kind::MissingEstimate),
        }
    }

    /// The value for `kind`.
    pub fn get(&self, kind: Kind) -> &T {
        match kind {
            Kind::NegativeRuntime => &self.negative_runtime,
            Kind::ZeroRuntime => &self.zero_runtime,
            Kind::BadSize => &self.bad_size,
            Kind::Oversize => &self.oversize,
            Kind::MissingEstimate => &self.missing_estimate,
        }
    }

    /// The value for `kind`, to change.
    pub fn get_mut(&mut self, kind: Kind) -> &mut T {
        match kind {
            Kind::NegativeRuntime => &mut self.negative_runtime,
            Kind::ZeroRuntime => &mut self.zero_runtime,
            Kind::BadSize => &mut self.bad_size,
            Kind::Oversize => &mut self.oversize,
            Kind::MissingEstimate => &mut self.missing_estimate,
        }
    }
}

/// The chosen action for every kind of questionable job.
pub type Policies = PerKind<Action>;

impl Default for Policies {
    /// The first action each kind lists.
    fn default() -> Self {
        PerKind::from_fn(|kind| kind.actions()[0])
    }
}

impl Policies {
    /// Applies one `kind=action` setting.
    pub fn set(&mut self, setting: &PolicySetting) {
        *self.get_mut(setting.kind) = setting.action;
    }

    /// The defaults with `settings` applied in turn, as the repeated flag
    /// `--questionable KIND=ACTION` gives them.
    pub fn of(settings: &[PolicySetting]) -> Policies {
        let mut policies = Policies::default();
        settings.iter().for_each(|s| policies.set(s));
        policies
    }
}

/// The policies of a scenario's `questionable` table, `{ zero-runtime = "skip" }`, each
/// entry read as the flag `--questionable zero-runtime=skip` reads it.
pub fn table<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Policies, D::Error> {
    let settings =
        <std::collections::BTreeMap<String, String> as serde::Deserialize>::deserialize(d)?
            .into_iter()
            .map(|(kind, action)| format!("{kind}={action}").parse())
            .collect::<Result<Vec<PolicySetting>, String>>()
            .map_err(serde::de::Error::custom)?;
    Ok(Policies::of(&settings))
}

/// One `kind=action` setting from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicySetting {
    /// The kind of job.
    pub kind: Kind,
    /// What to do with it.
    pub action: Action,
}

impl FromStr for PolicySetting {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let kinds = || {
            Kind::ALL
                .iter()
                .map(options::name)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (k, a) = text.split_once('=').ok_or_else(|| {
            format!(
                "expected KIND=ACTION, e.g. zero-runtime=skip (kinds: {})",
                kinds()
            )
        })?;
        let kind = Kind::ALL
            .into_iter()
            .find(|kind| options::name(kind) == k)
            .ok_or_else(|| format!("unknown kind '{k}' (kinds: {})", kinds()))?;
        let allowed = || {
            kind.actions()
                .iter()
                .map(options::name)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let action = <Action as clap::ValueEnum>::from_str(a, false)
            .ok()
            .filter(|a| kind.actions().contains(a))
            .ok_or_else(|| format!("'{a}' is not an action for {k} (use {})", allowed()))?;
        Ok(PolicySetting { kind, action })
    }
}

/// How many jobs of one kind were met, and what was done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Jobs of this kind.
    pub jobs: u64,
    /// Of those, left out.
    pub skipped: u64,
    /// Line of the first one.
    pub first_line: u64,
}

impl Tally {
    pub(crate) fn add(&mut self, line: u64, skipped: bool) {
        if self.jobs == 0 {
            self.first_line = line;
        }
        self.jobs += 1;
        self.skipped += u64::from(skipped);
    }
}

/// Counts of questionable jobs in one replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Report {
    /// By kind.
    #[serde(flatten)]
    pub kinds: PerKind<Tally>,
    /// Ran longer than requested (handled by the overrun policy).
    pub runtime_over_estimate: Tally,
}

impl Default for Report {
    fn default() -> Self {
        Report {
            kinds: PerKind::from_fn(|_| Tally::default()),
            runtime_over_estimate: Tally::default(),
        }
    }
}

impl Report {
    /// Jobs left out, over all kinds.
    pub fn skipped(&self) -> u64 {
        Kind::ALL.iter().map(|&k| self.kinds.get(k).skipped).sum()
    }
}

impl fmt::Display for Report {
    /// One line per kind that occurred.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for kind in Kind::ALL {
            let t = self.kinds.get(kind);
            if t.jobs > 0 {
                writeln!(
                    f,
                    "  {:<22} {:>8} jobs, {:>8} skipped (first at line {})",
                    options::name(&kind),
                    t.jobs,
                    t.skipped,
                    t.first_line
                )?;
            }
        }
        let t = self.runtime_over_estimate;
        if t.jobs > 0 {
            writeln!(
                f,
                "  {:<22} {:>8} jobs (first at line {})",
                "runtime-over-estimate", t.jobs, t.first_line
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_refuse_nonsense() {
        let s: PolicySetting = "oversize=clamp".parse().unwrap();
        assert_eq!((s.kind, s.action), (Kind::Oversize, Action::Clamp));
        let e = "oversize=fallback".parse::<PolicySetting>().unwrap_err();
        assert_eq!(
            e,
            "'fallback' is not an action for oversize (use skip, clamp, error)"
        );
        let e = "size=skip".parse::<PolicySetting>().unwrap_err();
        assert!(e.starts_with("unknown kind 'size'"), "{e}");
        assert!("oversize".parse::<PolicySetting>().is_err());
    }

    #[test]
    fn defaults_are_the_first_listed_actions() {
        let p = Policies::default();
        assert_eq!(p.negative_runtime, Action::Skip);
        assert_eq!(p.zero_runtime, Action::Keep);
        assert_eq!(p.bad_size, Action::Fallback);
        assert_eq!(p.oversize, Action::Skip);
        assert_eq!(p.missing_estimate, Action::Runtime);
    }
}
