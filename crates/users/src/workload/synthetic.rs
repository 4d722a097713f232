//! A simple synthetic log for benchmarks and tests of scale, with its parameters in
//! `models/synthetic.toml`.
//!
//! This is **not** a workload model from the literature: it exists so that sitesim can be
//! measured on logs of any length without shipping data. Jobs arrive as a Poisson process
//! whose rate gives the requested offered load; sizes, runtimes, estimates and users follow
//! the simple distributions the model file describes.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Deserialize;

use crate::swf::{FIELD_NAMES, Ignored, Located, Records, SwfError, SwfRecord};
use crate::textfmt::short_number;
use crate::time::{LONGEST, Time};

/// The parameters of the synthetic workload (see `models/synthetic.toml`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticModel {
    /// Runtime distribution.
    pub runtime: RuntimeParams,
    /// Size distribution.
    pub size: SizeParams,
    /// Estimate distribution.
    pub estimate: EstimateParams,
    /// Users.
    pub users: UserParams,
}

/// Log-uniform runtimes.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeParams {
    /// Shortest runtime, seconds.
    pub min: f64,
    /// Longest runtime, seconds.
    pub max: f64,
}

/// Power-of-two sizes with geometric exponents.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeParams {
    /// Ratio of the probabilities of successive exponents.
    pub decay: f64,
    /// Share of sizes drawn uniformly up to the power of two.
    pub uniform_share: f64,
}

/// Estimates as multiples of the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateParams {
    /// Estimates are at most this multiple of the runtime (before rounding).
    pub max_factor: f64,
    /// Rounded up to a multiple of this many seconds.
    pub round: Time,
    /// Share of estimates shorter than the runtime.
    pub short_share: f64,
    /// Those are at least this fraction of the runtime.
    pub short_min: f64,
}

/// Users.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserParams {
    /// Number of users.
    pub count: i64,
}

/// The model file shipped in `models/synthetic.toml`.
pub const DEFAULT_MODEL: &str = crate::model_files::SYNTHETIC;

impl SyntheticModel {
    /// Parses a model file; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<Self, String> {
        let m: SyntheticModel =
            toml::from_str(text).map_err(|e| crate::textfmt::toml_error(name, text, &e))?;
        m.validate().map_err(|e| format!("{name}: {e}"))?;
        Ok(m)
    }

    fn validate(&self) -> Result<(), String> {
        let r = self.runtime;
        let s = self.size;
        let e = self.estimate;
        let checks = [
            (
                r.min >= 1.0 && r.max >= r.min && r.max <= crate::time::LONGEST as f64,
                "runtime: need 1 <= min <= max <= a century (3153600000 s)",
            ),
            (s.decay > 0.0, "size.decay must be positive"),
            (s.decay.is_finite(), "size.decay must be finite"),
            (
                (0.0..=1.0).contains(&s.uniform_share),
                "size.uniform_share must be in [0, 1]",
            ),
            (
                (1.0..=1000.0).contains(&e.max_factor),
                "estimate.max_factor must be from 1 to 1000",
            ),
            (
                (1..=crate::time::LONGEST).contains(&e.round),
                "estimate.round must be from 1 s to a century",
            ),
            (
                (0.0..=1.0).contains(&e.short_share),
                "estimate.short_share must be in [0, 1]",
            ),
            (
                (0.0..1.0).contains(&e.short_min),
                "estimate.short_min must be in [0, 1)",
            ),
            (self.users.count >= 1, "users.count must be at least 1"),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, msg)) => Err((*msg).to_owned()),
            None => Ok(()),
        }
    }
}

impl Default for SyntheticModel {
    fn default() -> Self {
        SyntheticModel::parse(DEFAULT_MODEL, "models/synthetic.toml")
            .expect("the shipped model file is valid")
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticConfig {
    /// Number of jobs.
    pub jobs: u64,
    /// Machine size.
    pub procs: u32,
    /// Offered load (processor-seconds submitted per processor-second).
    pub load: f64,
    /// Random seed.
    pub seed: u64,
}

/// The synthetic log as a stream of records, line numbers being job numbers.
pub struct Synthetic {
    cfg: SyntheticConfig,
    model: SyntheticModel,
    rng: Xoshiro256PlusPlus,
    /// Cumulative probabilities of the size exponents 0, 1, ...
    exp_cdf: Vec<f64>,
    mean_interarrival: f64,
    clock: f64,
    emitted: u64,
}

impl Synthetic {
    /// A generator; `procs` must be at least 1 and `load` positive.
    pub fn new(cfg: SyntheticConfig, model: &SyntheticModel) -> Self {
        let max_exp = cfg.procs.max(1).ilog2();
        let decay = model.size.decay;
        let uniform = model.size.uniform_share;
        let weights: Vec<f64> = (0..=max_exp).map(|k| decay.powi(k as i32)).collect();
        let total: f64 = weights.iter().sum();
        let exp_cdf = weights
            .iter()
            .scan(0.0, |acc, w| {
                *acc += w / total;
                Some(*acc)
            })
            .collect();
        let mean_size: f64 = weights
            .iter()
            .enumerate()
            .map(|(k, w)| {
                let p = f64::from(1u32 << k);
                w / total * ((1.0 - uniform) * p + uniform * (p + 1.0) / 2.0)
            })
            .sum();
        let (lo, hi) = (model.runtime.min, model.runtime.max);
        let mean_runtime = if hi > lo {
            (hi - lo) / (hi / lo).ln()
        } else {
            lo
        };
        let rate = cfg.load * f64::from(cfg.procs.max(1)) / (mean_size * mean_runtime);
        Synthetic {
            cfg,
            model: model.clone(),
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed),
            exp_cdf,
            mean_interarrival: 1.0 / rate,
            clock: 0.0,
            emitted: 0,
        }
    }

    fn record(&mut self) -> SwfRecord {
        let m = &self.model;
        let rng = &mut self.rng;
        self.clock += -self.mean_interarrival * (1.0 - rng.random::<f64>()).ln();
        let u = rng.random::<f64>();
        let k = self
            .exp_cdf
            .iter()
            .position(|&c| u < c)
            .unwrap_or(self.exp_cdf.len() - 1);
        let mut size = 1i64 << k;
        if rng.random_bool(m.size.uniform_share) {
            size = rng.random_range(1..=size);
        }
        let (lo, hi) = (m.runtime.min, m.runtime.max);
        let runtime = (lo * (hi / lo).powf(rng.random::<f64>())).round() as Time;
        let e = m.estimate;
        let estimate = if rng.random_bool(e.short_share) {
            ((runtime as f64 * rng.random_range(e.short_min..1.0)) as Time).max(1)
        } else {
            let raw = (runtime as f64 * rng.random_range(1.0..=e.max_factor)).ceil() as Time;
            (raw + e.round - 1) / e.round * e.round
        };
        self.emitted += 1;
        SwfRecord {
            job: self.emitted as i64,
            submit: self.clock as Time,
            run: runtime,
            alloc_procs: size,
            req_procs: size,
            req_time: estimate,
            status: 1,
            user: rng.random_range(1..=m.users.count),
            ..SwfRecord::UNKNOWN
        }
    }

    /// The log's name in summaries and errors.
    pub fn name(&self) -> String {
        let c = self.cfg;
        format!(
            "synthetic({} jobs, load {}, seed {})",
            c.jobs,
            short_number(c.load),
            c.seed
        )
    }

    /// The SWF header lines of this log.
    pub fn header_lines(&self) -> Vec<String> {
        let c = self.cfg;
        vec![
            "; Version: 2.2".into(),
            format!(
                "; Note: synthetic log from sitesim (models/synthetic.toml, not a published \
                 model): {} jobs, load {}, seed {}",
                c.jobs, c.load, c.seed
            ),
            format!("; MaxJobs: {}", c.jobs),
            format!("; MaxRecords: {}", c.jobs),
            format!("; MaxNodes: {}", c.procs),
            format!("; MaxProcs: {}", c.procs),
        ]
    }
}

impl Records for Synthetic {
    /// A generated log has only the standard columns.
    fn ignored(&self) -> Ignored {
        Ignored::default()
    }
}

impl Iterator for Synthetic {
    type Item = Result<Located, SwfError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.emitted >= self.cfg.jobs {
            return None;
        }
        let record = self.record();
        if self.clock > LONGEST as f64 {
            // A load so low that the jobs are spaced past the longest time sitesim takes
            // (a load of 1e-300 put every job at the largest time there is).
            self.emitted = self.cfg.jobs;
            let c = self.cfg;
            return Some(Err(SwfError::Field {
                file: self.name(),
                line: record.job as u64,
                field: 2,
                name: FIELD_NAMES[1],
                problem: format!(
                    "the job would be submitted after 100 years ({LONGEST} s), the longest \
                     time sitesim takes: a load of {} on {} processors spaces the jobs too \
                     far apart",
                    short_number(c.load),
                    c.procs
                ),
            }));
        }
        Some(Ok(Located {
            line: self.emitted,
            record,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fuzzing: an infinite `max_factor` panicked in `random_range`
    /// (`fuzz/regressions/synthetic/`); values past their bounds are refused by name.
    #[test]
    fn values_past_their_bounds_are_refused_by_name() {
        for (from, to, problem) in [
            (
                "max_factor = 4.0",
                "max_factor = inf",
                "max_factor must be from 1 to 1000",
            ),
            (
                "max_factor = 4.0",
                "max_factor = 1e308",
                "max_factor must be from 1 to 1000",
            ),
            ("max = 129600", "max = 1e300", "max <= a century"),
            ("decay = 0.75", "decay = inf", "decay must be finite"),
        ] {
            let text = DEFAULT_MODEL.replace(from, to);
            let e = SyntheticModel::parse(&text, "s.toml").unwrap_err();
            assert!(e.contains(problem), "{to}: {e}");
        }
    }

    /// Fuzzing `generate`: a load of 1e-300 put every job at the largest time
    /// there is (the cast saturates), a log no reader takes back; jobs past a century are
    /// refused by name, and the stream ends there.
    #[test]
    fn jobs_past_a_century_are_refused_by_name() {
        assert_eq!(
            [1e-300, 5e-5, 0.8, 1.0].map(short_number),
            ["1e-300", "0.00005", "0.8", "1"]
        );
        for (load, ok) in [(1e-300, 0), (5e-5, 1)] {
            let cfg = SyntheticConfig {
                jobs: 1000,
                procs: 1,
                load,
                seed: 3,
            };
            let jobs: Vec<_> = Synthetic::new(cfg, &SyntheticModel::default()).collect();
            let first_error = jobs.iter().position(Result::is_err).unwrap();
            assert!(first_error >= ok && first_error == jobs.len() - 1, "{load}");
            assert!(jobs[..first_error].iter().all(|j| {
                let r = j.as_ref().unwrap().record;
                (0..=LONGEST).contains(&r.submit)
            }));
            let e = jobs[first_error].as_ref().unwrap_err().to_string();
            assert!(
                e.starts_with(&format!(
                    "synthetic(1000 jobs, load {}, seed 3):{}: field 2 (submit time): \
                     the job would be submitted after 100 years",
                    short_number(load),
                    first_error + 1
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn offered_load_is_close_to_the_target() {
        const N: u64 = 1_000_000;
        let cfg = SyntheticConfig {
            jobs: N,
            procs: 1024,
            load: 0.8,
            seed: 7,
        };
        let (mut work, mut short, mut last) = (0.0, 0u64, 0);
        for r in Synthetic::new(cfg, &SyntheticModel::default()) {
            let r = r.unwrap().record;
            assert!(r.submit >= last, "submit times never decrease");
            assert!((1..=1024).contains(&r.alloc_procs) && r.run >= 10 && r.req_time >= 1);
            last = r.submit;
            work += (r.alloc_procs * r.run) as f64;
            short += u64::from(r.req_time < r.run);
        }
        let load = work / (1024.0 * last as f64);
        // Per-job work (size x runtime) has a coefficient of variation of 7.7 (size CV 3.43
        // for this size mix, runtime CV 1.93 for log-uniform on [10 s, 36 h]), so the mean
        // work of 1M jobs has a relative standard error of 7.7 / 1000 = 0.77%, and the load
        // one of 0.8 x 0.77% = 0.0062; the span, a sum of exponentials, adds 0.1%.
        // Four standard errors: 0.025.
        assert!((load - 0.8).abs() < 0.025, "offered load {load}");
        // Binomial share with p = 0.05: standard error sqrt(0.05 x 0.95 / 1M) = 0.00022.
        let short = short as f64 / N as f64;
        assert!(
            (short - 0.05).abs() < 0.001,
            "share of short estimates {short}"
        );
    }

    #[test]
    fn same_seed_same_log() {
        let cfg = SyntheticConfig {
            jobs: 1000,
            procs: 64,
            load: 0.7,
            seed: 3,
        };
        let model = SyntheticModel::default();
        let a: Vec<_> = Synthetic::new(cfg, &model).map(|r| r.unwrap()).collect();
        let b: Vec<_> = Synthetic::new(cfg, &model).map(|r| r.unwrap()).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn model_files_are_checked() {
        let bad = DEFAULT_MODEL.replace("decay = 0.75", "decay = -1");
        assert_eq!(
            SyntheticModel::parse(&bad, "m.toml").unwrap_err(),
            "m.toml: size.decay must be positive"
        );
        let unknown = format!("{DEFAULT_MODEL}\n[extra]\nx = 1\n");
        let err = SyntheticModel::parse(&unknown, "m.toml").unwrap_err();
        assert!(err.contains("unknown field `extra`"), "{err}");
        assert!(
            err.starts_with("m.toml:") && err.contains("(at `extra`)"),
            "{err}"
        );
    }
}
