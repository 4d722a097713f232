//! Estimate sources: what users declare as a job's runtime (its requested time, where the
//! `kill` policy ends it). `log` keeps the log's value; the others model estimates:
//!
//! * `exact`: the runtime itself (at least 1 s);
//! * `uniform:F`: uniform in [r, F·r] for runtime r, the model of Mu'alem and Feitelson
//!   (Mu'alem and Feitelson 2001, §4.2; F = 1 is exact);
//! * `scaled:K`: K times the log's estimate (Mu'alem and Feitelson 2001, §4.5 doubles them);
//! * `modal[:max=T,share=P]`: the modal model of Tsafrir, Etsion & Feitelson (Tsafrir et al. 2005),
//!   built for the log's job count and maximal estimate (or `max`), with `share` percent
//!   of jobs at the maximum (by default the log's own share).

use std::fmt;
use std::str::FromStr;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use super::modal::{ModalModel, ModalParams};
use crate::spec::{Item, Spec};
use crate::time::{LONGEST, Time, parse_duration};

/// Which estimates the jobs carry.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum EstimateModel {
    /// As recorded in the log.
    #[default]
    Log,
    /// The runtime.
    Exact,
    /// Uniform in [r, f·r].
    Uniform(f64),
    /// k times the log's estimate.
    Scaled(f64),
    /// The modal model.
    Modal {
        /// The maximal estimate; the log's when absent.
        max: Option<Time>,
        /// Percent of jobs at the maximum; the log's share when absent.
        share: Option<f64>,
    },
}

impl serde::Serialize for EstimateModel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for EstimateModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EstimateModel::Log => write!(f, "log"),
            EstimateModel::Exact => write!(f, "exact"),
            EstimateModel::Uniform(x) => write!(f, "uniform:{x}"),
            EstimateModel::Scaled(x) => write!(f, "scaled:{x}"),
            EstimateModel::Modal { max, share } => {
                write!(f, "modal")?;
                let mut sep = ':';
                if let Some(m) = max {
                    write!(f, "{sep}max={m}")?;
                    sep = ',';
                }
                if let Some(s) = share {
                    write!(f, "{sep}share={s}")?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for EstimateModel {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let spec = Spec::parse(text)?;
        let name = spec.name;
        let arg = match spec.items[..] {
            [Item::Bare(v)] => v,
            _ => "",
        };
        let number = |what: &str| -> Result<f64, String> {
            let v: f64 = arg.parse().map_err(|_| {
                format!("estimates {name}: '{arg}' is not a number (e.g. {name}:{what})")
            })?;
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(format!("estimates {name}: '{arg}' must be positive"))
            }
        };
        match name {
            "log" | "exact" if !spec.items.is_empty() => Err(format!(
                "estimates {name} takes no setting, not '{}'",
                text.split_once(':').map_or("", |(_, rest)| rest)
            )),
            "log" => Ok(EstimateModel::Log),
            "exact" => Ok(EstimateModel::Exact),
            "uniform" | "scaled" if spec.items.len() > 1 => Err(format!(
                "estimates {name}: one number after the colon (e.g. {name}:2), not '{text}'"
            )),
            "uniform" => {
                let f = number("2")?;
                if f < 1.0 {
                    return Err(format!("estimates uniform: f = {f} must be at least 1"));
                }
                Ok(EstimateModel::Uniform(f))
            }
            "scaled" => Ok(EstimateModel::Scaled(number("2")?)),
            "modal" => {
                let (mut max, mut share) = (None, None);
                for item in spec.settings(text)? {
                    match item {
                        ("max", v) => {
                            max = Some(
                                parse_duration(v)
                                    .map_err(|e| format!("estimates modal: max: {e}"))?,
                            );
                        }
                        ("share", v) => {
                            let p: f64 = v
                                .parse()
                                .ok()
                                .filter(|p: &f64| (0.0..100.0).contains(p))
                                .ok_or_else(|| format!("estimates modal: share '{v}' must be a percentage below 100"))?;
                            share = Some(p);
                        }
                        (k, _) => {
                            return Err(format!(
                                "estimates modal: '{k}' is not max=DURATION or share=PERCENT"
                            ));
                        }
                    }
                }
                Ok(EstimateModel::Modal { max, share })
            }
            _ => Err(format!(
                "'{text}' is not an estimate model (log, exact, uniform:F, scaled:K, modal[:max=T,share=P])"
            )),
        }
    }
}

/// What the modal model was built from, for the run summary.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ModalReport {
    /// Jobs.
    pub jobs: u64,
    /// Maximal estimate, seconds.
    pub max: Time,
    /// Percent of jobs at the maximum.
    pub share: f64,
    /// Distinct estimate values.
    pub values: usize,
    /// Jobs longer than every estimate left to them.
    pub short: u64,
}

/// Gives each job its estimate, in job order.
#[derive(Debug, Clone)]
pub struct Estimator {
    model: EstimateModel,
    rng: Xoshiro256PlusPlus,
    assigned: Vec<Time>,
    next: usize,
    report: Option<ModalReport>,
}

impl Estimator {
    /// An estimator for `model`. The modal model needs every job's (runtime, logged
    /// estimate) first, which `jobs` is called to provide; the others never call it.
    pub fn new(
        model: &EstimateModel,
        seed: u64,
        jobs: impl FnOnce() -> Result<Vec<(Time, Time)>, String>,
    ) -> Result<Estimator, String> {
        let mut e = Estimator {
            model: model.clone(),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            assigned: Vec::new(),
            next: 0,
            report: None,
        };
        if let EstimateModel::Modal { max, share } = model {
            let jobs = jobs()?;
            let n = jobs.len() as u64;
            let max = match max {
                Some(m) => *m,
                None => jobs.iter().map(|j| j.1).max().filter(|&m| m > 0).ok_or(
                    "estimates modal: the log has no estimates; give the maximum as modal:max=DURATION",
                )?,
            };
            let share = share.unwrap_or_else(|| {
                let at_max = jobs.iter().filter(|j| j.1 == max).count();
                100.0 * at_max as f64 / n.max(1) as f64
            });
            let model = ModalModel::build(&ModalParams::default(), n, max, &[(max, share)], seed)
                .map_err(|e| format!("estimates modal: {e}"))?;
            let runtimes: Vec<Time> = jobs.iter().map(|j| j.0).collect();
            let (assigned, short) = model.assign(&runtimes, seed ^ 0x5eed);
            e.assigned = assigned;
            e.report = Some(ModalReport {
                jobs: n,
                max,
                share,
                values: model.k,
                short,
            });
        }
        Ok(e)
    }

    /// The model.
    pub fn model(&self) -> &EstimateModel {
        &self.model
    }

    /// What the modal model was built from, if it is the model.
    pub fn report(&self) -> Option<ModalReport> {
        self.report
    }

    /// The estimate of the next job, whose runtime is `runtime` and whose log gives
    /// `logged`. A modelled estimate is at most [`LONGEST`] (`uniform:1e308` gives every
    /// long job a century, not an overflow).
    pub fn estimate(&mut self, runtime: Time, logged: Time) -> Time {
        let longest = LONGEST as f64;
        let r = runtime.clamp(0, LONGEST) as f64;
        let e = match self.model {
            EstimateModel::Log => logged,
            EstimateModel::Exact => runtime,
            EstimateModel::Uniform(f) => {
                self.rng.random_range(r..=(f * r).min(longest)).round() as Time
            }
            EstimateModel::Scaled(k) => (k * logged as f64).round().min(longest) as Time,
            EstimateModel::Modal { .. } => {
                let e = self.assigned.get(self.next).copied().unwrap_or(logged);
                self.next += 1;
                e
            }
        };
        e.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> Result<Vec<(Time, Time)>, String> {
        panic!("only the modal model asks for the jobs")
    }

    #[test]
    fn huge_factors_give_a_century_not_a_panic() {
        for text in ["uniform:1e308", "scaled:1e308"] {
            let model: EstimateModel = text.parse().unwrap();
            let mut e = Estimator::new(&model, 1, none).unwrap();
            for (run, logged) in [(0, 1), (1, 1), (LONGEST, LONGEST), (3_600, 7_200)] {
                let estimate = e.estimate(run, logged);
                assert!((1..=LONGEST).contains(&estimate), "{text}: {estimate}");
            }
        }
    }

    #[test]
    fn models_parse_and_print() {
        for text in [
            "log",
            "exact",
            "uniform:4",
            "scaled:2",
            "modal",
            "modal:max=14400,share=12.5",
        ] {
            let m: EstimateModel = text.parse().unwrap();
            assert_eq!(m.to_string(), text);
        }
        for bad in [
            "uniform",
            "uniform:0.5",
            "scaled:-1",
            "modal:share=100",
            "modal:tmax=4h",
            "feit",
            "log:2",
        ] {
            assert!(bad.parse::<EstimateModel>().is_err(), "{bad}");
        }
        assert_eq!(
            "modal:max=4h".parse::<EstimateModel>().unwrap(),
            EstimateModel::Modal {
                max: Some(14_400),
                share: None
            }
        );
    }

    #[test]
    fn per_job_models() {
        let mut e = Estimator::new(&EstimateModel::Exact, 1, none).unwrap();
        assert_eq!((e.estimate(50, 900), e.estimate(0, 900)), (50, 1));
        let mut e = Estimator::new(&EstimateModel::Scaled(2.0), 1, none).unwrap();
        assert_eq!(e.estimate(50, 900), 1800);
        let mut e = Estimator::new(&EstimateModel::Uniform(3.0), 1, none).unwrap();
        for r in [1, 10, 1000] {
            for _ in 0..100 {
                let v = e.estimate(r, 5);
                assert!((r..=3 * r).contains(&v), "{v} for runtime {r}");
            }
        }
    }

    #[test]
    fn modal_uses_the_logs_maximum_and_share() {
        let jobs: Vec<(Time, Time)> = (0..2000)
            .map(|i| (i % 7000, if i % 8 == 0 { 14_400 } else { 3600 }))
            .collect();
        let model = EstimateModel::Modal {
            max: None,
            share: None,
        };
        let mut e = Estimator::new(&model, 4, || Ok(jobs.clone())).unwrap();
        let r = e.report().unwrap();
        assert_eq!((r.jobs, r.max, r.share), (2000, 14_400, 12.5));
        let est: Vec<Time> = jobs.iter().map(|j| e.estimate(j.0, j.1)).collect();
        assert!(est.iter().zip(&jobs).all(|(&e, j)| e >= j.0));
        assert_eq!(est.iter().filter(|&&e| e == 14_400).count(), 250);
    }
}
