//! Choosing a predictor on the command line: `NAME[:key=value,...]`, with defaults from
//! `models/predictors.toml`.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

use super::{
    Basis, Correction, Corrector, Criterion, Fallback, Perfect, Predictor, Ruh, RuhParams, Sbh,
    SbhParams, Search, Static, Statistic,
};
use crate::session::SessionRule;
use crate::spec::Spec;
use crate::time::{Time, parse_duration};

/// The shipped defaults.
pub const DEFAULT_PREDICTORS: &str = crate::model_files::PREDICTORS;

/// The predictor names, with what each is.
pub const NAMES: [(&str, &str); 8] = [
    ("perfect", "the actual runtime (an oracle)"),
    ("estimate", "the user's estimate, increments on a miss"),
    ("constant", "a constant (1 s), increments on a miss"),
    (
        "infoless",
        "the information-less predictor: constant 1 s with increments",
    ),
    ("ruh", "median of the user's last 3 terminated jobs"),
    (
        "easy++",
        "mean of the user's last 2 terminated jobs, capped at the estimate",
    ),
    ("sbh", "session-based history"),
    ("sbh-noest", "estimation-less session-based history"),
];

/// Defaults of every predictor (the contents of `models/predictors.toml`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictorDefaults {
    correction: CorrectionDefaults,
    sessions: SessionDefaults,
    constant: ConstantDefaults,
    ruh: RuhDefaults,
    easypp: RuhDefaults,
    sbh: SbhDefaults,
    #[serde(rename = "sbh-noest")]
    sbh_noest: SbhDefaults,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct CorrectionDefaults {
    increments: Vec<Time>,
    factor: Time,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionDefaults {
    threshold: Time,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConstantDefaults {
    value: Time,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuhDefaults {
    jobs: usize,
    statistic: String,
    cap_at_estimate: bool,
    propagate: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct SbhDefaults {
    criteria: Vec<String>,
    search: String,
    depth: usize,
    propagate: bool,
    #[serde(default)]
    cap: Time,
}

impl PredictorDefaults {
    /// Parses a defaults file; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<Self, String> {
        let d: PredictorDefaults =
            toml::from_str(text).map_err(|e| crate::textfmt::toml_error(name, text, &e))?;
        let inc = &d.correction.increments;
        if inc.is_empty() || inc[0] < 1 || inc.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!(
                "{name}: correction.increments must be increasing and positive"
            ));
        }
        if d.correction.factor < 2 || d.sessions.threshold < 1 || d.constant.value < 1 {
            return Err(format!(
                "{name}: need correction.factor >= 2, sessions.threshold >= 1, constant.value >= 1"
            ));
        }
        Ok(d)
    }
}

impl Default for PredictorDefaults {
    fn default() -> Self {
        PredictorDefaults::parse(DEFAULT_PREDICTORS, "models/predictors.toml")
            .expect("the shipped predictor defaults are valid")
    }
}

/// A predictor and its settings, as written on the command line:
/// `sbh:criteria=PE/P/E/*,search=bfs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredictorSpec {
    name: String,
    settings: Vec<(String, String)>,
}

impl serde::Serialize for PredictorSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for PredictorSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.settings.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

impl FromStr for PredictorSpec {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let parsed = Spec::parse(text)?;
        let spec = PredictorSpec {
            name: parsed.name.to_owned(),
            settings: parsed
                .settings(text)?
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.trim().to_owned()))
                .collect(),
        };
        spec.build(&PredictorDefaults::default())?;
        Ok(spec)
    }
}

/// Settings being read, each used at most once.
struct Settings<'a> {
    name: &'a str,
    left: Vec<(&'a str, &'a str)>,
}

impl<'a> Settings<'a> {
    fn take(&mut self, key: &str) -> Option<&'a str> {
        let i = self.left.iter().position(|(k, _)| *k == key)?;
        Some(self.left.remove(i).1)
    }
    fn err(&self, key: &str, problem: impl fmt::Display) -> String {
        format!("predictor {}: {key}: {problem}", self.name)
    }
    fn duration(&mut self, key: &str, default: Time) -> Result<Time, String> {
        match self.take(key) {
            Some(v) => parse_duration(v).map_err(|e| self.err(key, e)),
            None => Ok(default),
        }
    }
    fn number(&mut self, key: &str, default: usize) -> Result<usize, String> {
        match self.take(key) {
            Some(v) => v
                .parse()
                .map_err(|_| self.err(key, format!("'{v}' is not a count"))),
            None => Ok(default),
        }
    }
    fn flag(&mut self, key: &str, default: bool) -> Result<bool, String> {
        match self.take(key) {
            Some("true" | "yes" | "on") => Ok(true),
            Some("false" | "no" | "off") => Ok(false),
            Some(v) => Err(self.err(key, format!("'{v}' is not true or false"))),
            None => Ok(default),
        }
    }
    fn statistic(&mut self, default: &str) -> Result<Statistic, String> {
        let v = self.take("statistic").unwrap_or(default);
        Statistic::parse(v).map_err(|e| self.err("statistic", e))
    }
    fn done(&self) -> Result<(), String> {
        match self.left.first() {
            Some((k, _)) => Err(format!("predictor {} has no setting '{k}'", self.name)),
            None => Ok(()),
        }
    }
}

impl PredictorSpec {
    /// The predictor's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Builds the predictor, filling what the spec leaves out from `defaults`.
    pub fn build(&self, defaults: &PredictorDefaults) -> Result<Box<dyn Predictor>, String> {
        let mut s = Settings {
            name: &self.name,
            left: self
                .settings
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
        };
        let increments = match s.take("increments") {
            Some(v) => {
                let list: Result<Vec<Time>, _> = v.split('/').map(parse_duration).collect();
                let list = list.map_err(|e| s.err("increments", e))?;
                if list.is_empty() || list[0] < 1 || list.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(s.err(
                        "increments",
                        "must be increasing and positive, e.g. 60/300/900",
                    ));
                }
                list
            }
            None => defaults.correction.increments.clone(),
        };
        let factor = s.duration("factor", defaults.correction.factor)?;
        let correction_key = s.take("correction");
        let corrector = |default: Correction, cap: Option<Time>| -> Result<Corrector, String> {
            let policy = match correction_key {
                None => default,
                Some("increments") => Correction::Increments,
                Some("to-estimate") => Correction::ToEstimateThenIncrements,
                Some("multiply") => Correction::Multiply { factor, cap },
                Some(v) => {
                    return Err(format!(
                        "predictor {}: correction: '{v}' is not increments, to-estimate or multiply",
                        self.name
                    ));
                }
            };
            if factor < 2 {
                return Err(format!(
                    "predictor {}: factor must be at least 2",
                    self.name
                ));
            }
            Ok(Corrector::new(policy, increments.clone()))
        };
        let predictor: Box<dyn Predictor> = match self.name.as_str() {
            "perfect" => Box::new(Perfect),
            "estimate" => Box::new(Static::new(
                Basis::Estimate,
                corrector(Correction::Increments, None)?,
            )),
            "constant" | "infoless" => {
                let value = s.duration("value", defaults.constant.value)?.max(1);
                Box::new(Static::new(
                    Basis::Constant(value),
                    corrector(Correction::Increments, None)?,
                ))
            }
            "ruh" | "easy++" => {
                let (d, name) = if self.name == "ruh" {
                    (&defaults.ruh, "ruh")
                } else {
                    (&defaults.easypp, "easy++")
                };
                let params = RuhParams {
                    jobs: s.number("jobs", d.jobs)?.max(1),
                    statistic: s.statistic(&d.statistic)?,
                    cap_at_estimate: s.flag("cap", d.cap_at_estimate)?,
                    propagate: s.flag("propagate", d.propagate)?,
                };
                Box::new(Ruh::new(
                    name,
                    params,
                    corrector(Correction::ToEstimateThenIncrements, None)?,
                ))
            }
            "sbh" | "sbh-noest" => {
                let noest = self.name == "sbh-noest";
                let d = if noest {
                    &defaults.sbh_noest
                } else {
                    &defaults.sbh
                };
                let criteria: Vec<String> = match s.take("criteria") {
                    Some(v) => v.split('/').map(str::to_owned).collect(),
                    None => d.criteria.clone(),
                };
                let criteria = criteria
                    .iter()
                    .map(|c| Criterion::parse(c))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| s.err("criteria", e))?;
                if criteria.is_empty() {
                    return Err(s.err("criteria", "at least one criterion is needed"));
                }
                if noest && criteria.iter().any(Criterion::uses_estimate) {
                    return Err(s.err("criteria", "the estimation-less predictor cannot use E"));
                }
                let search = match s.take("search").unwrap_or(&d.search) {
                    "dfs" => Search::DepthFirst,
                    "bfs" => Search::BreadthFirst,
                    v => return Err(s.err("search", format!("'{v}' is not dfs or bfs"))),
                };
                let rule = s.take("rule").unwrap_or("previous");
                let rule = crate::options::parse::<SessionRule>("a session rule", rule)
                    .map_err(|e| s.err("rule", e))?;
                let params = SbhParams {
                    criteria,
                    search,
                    depth: s.number("depth", d.depth)?,
                    threshold: s.duration("threshold", defaults.sessions.threshold)?.max(1),
                    rule,
                    statistic: s.statistic("median")?,
                    fallback: if noest {
                        Fallback::Constant(s.duration("fallback", 1)?.max(1))
                    } else {
                        Fallback::Estimate
                    },
                    propagate: s.flag("propagate", d.propagate)?,
                };
                let (name, correction) = if noest {
                    let cap = s.duration("cap", d.cap)?;
                    let cap = (cap > 0).then_some(cap);
                    (
                        "sbh-noest",
                        corrector(Correction::Multiply { factor, cap }, cap)?,
                    )
                } else {
                    (
                        "sbh",
                        corrector(Correction::ToEstimateThenIncrements, None)?,
                    )
                };
                Box::new(Sbh::new(name, params, correction))
            }
            other => {
                let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "unknown predictor '{other}' (predictors: {})",
                    names.join(", ")
                ));
            }
        };
        s.done()?;
        Ok(predictor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_refuse_nonsense() {
        for ok in [
            "perfect",
            "estimate",
            "constant:value=10",
            "infoless",
            "ruh:jobs=5,statistic=mean",
            "easy++",
            "sbh:criteria=PEX/PX/EX,search=bfs,depth=30,propagate=false",
            "sbh-noest:cap=1d",
            "estimate:correction=multiply,factor=4",
        ] {
            let spec: PredictorSpec = ok.parse().unwrap_or_else(|e| panic!("{ok}: {e}"));
            assert_eq!(spec.to_string(), ok);
        }
        for (bad, needle) in [
            ("oracle", "unknown predictor 'oracle'"),
            ("ruh:k=3", "has no setting 'k'"),
            ("sbh:criteria=PQ", "'PQ' is not a criterion"),
            ("sbh-noest:criteria=PE", "cannot use E"),
            ("sbh:search=random", "not dfs or bfs"),
            ("constant:increments=300/60", "increasing"),
            ("ruh:propagate=maybe", "not true or false"),
            ("ruh:jobs", "not key=value"),
        ] {
            let err = bad.parse::<PredictorSpec>().unwrap_err();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }

    #[test]
    fn shipped_defaults_parse() {
        let d = PredictorDefaults::default();
        assert_eq!(d.correction.increments.len(), 11);
        assert_eq!(d.sessions.threshold, 1200);
        assert_eq!(d.sbh.criteria, ["PE", "P", "E", "*"]);
    }
}
