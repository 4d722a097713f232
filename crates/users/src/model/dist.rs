//! The distributions the model samples: the thesis's parametric ones (log-logistic
//! §11.2, generalized Pareto §12.3, uniform residuals §11.3), the empirical ones sitesim
//! fits from logs (quantile tables and weights), and the Zipf-like repetition of identical
//! jobs (§13.2, after Feitelson 2006). Every sampler takes uniform draws from the
//! caller's stream, so that one seed gives one workload.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

/// A uniform draw in the open interval (0, 1), safe for logarithms and ratios.
pub fn open01<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    loop {
        let u: f64 = rng.random();
        if u > 0.0 {
            return u;
        }
    }
}

/// Log-logistic with `ln X ~ Logistic(mu, sigma)` (§11.2: median `e^mu`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogLogistic {
    /// Location of `ln X`.
    pub mu: f64,
    /// Scale of `ln X`.
    pub sigma: f64,
}

impl LogLogistic {
    /// The mean `e^mu pi sigma / sin(pi sigma)`; `None` when it does not exist (sigma at
    /// least 1).
    pub fn mean(&self) -> Option<f64> {
        let b = std::f64::consts::PI * self.sigma;
        (self.sigma < 1.0).then(|| self.mu.exp() * b / b.sin())
    }

    /// The value with cumulative probability `u`.
    pub fn quantile(&self, u: f64) -> f64 {
        (self.mu + self.sigma * (u / (1.0 - u)).ln()).exp()
    }

    /// The cumulative probability of `x` (> 0).
    pub fn cdf(&self, x: f64) -> f64 {
        1.0 / (1.0 + (-(x.ln() - self.mu) / self.sigma).exp())
    }

    /// A draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.quantile(open01(rng))
    }
}

/// Generalized Pareto with shape `k`, scale `sigma` and location `mu` (Eq 35).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenPareto {
    /// Shape: a heavy tail when positive, a bounded support when negative.
    pub k: f64,
    /// Scale, positive.
    pub sigma: f64,
    /// Location.
    pub mu: f64,
}

impl GenPareto {
    /// The value with cumulative probability `u`.
    pub fn quantile(&self, u: f64) -> f64 {
        if self.k.abs() < 1e-12 {
            self.mu - self.sigma * (1.0 - u).ln()
        } else {
            self.mu + self.sigma / self.k * ((1.0 - u).powf(-self.k) - 1.0)
        }
    }

    /// The cumulative probability of `x`.
    pub fn cdf(&self, x: f64) -> f64 {
        let z = (x - self.mu) / self.sigma;
        if z <= 0.0 {
            return 0.0;
        }
        if self.k.abs() < 1e-12 {
            return 1.0 - (-z).exp();
        }
        let base = 1.0 + self.k * z;
        if base <= 0.0 {
            return 1.0;
        }
        1.0 - base.powf(-1.0 / self.k)
    }

    /// A draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.quantile(open01(rng))
    }
}

/// Rounds `x` (>= 0) up or down at random, so that the mean is kept: `2.3` is 3 with
/// probability 0.3 (the thesis leaves the rounding of its continuous counts open).
pub fn stochastic_round<R: Rng + ?Sized>(x: f64, rng: &mut R) -> u32 {
    let x = x.max(0.0);
    let floor = x.floor();
    let up = rng.random::<f64>() < x - floor;
    // At and past u32::MAX the count saturates there (callers bound their counts).
    (floor as u32).saturating_add(u32::from(up))
}

/// An empirical distribution as quantiles at equally spaced probabilities `0, 1/(n-1),
/// ..., 1`; draws interpolate linearly between neighbours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Quantiles(pub Vec<f64>);

impl Quantiles {
    /// `n` quantiles of `values` (at least one value, `n >= 2`), sorted in place.
    pub fn of(values: &mut [f64], n: usize) -> Quantiles {
        assert!(!values.is_empty() && n >= 2, "quantiles of nothing");
        values.sort_by(f64::total_cmp);
        let last = (values.len() - 1) as f64;
        Quantiles(
            (0..n)
                .map(|i| {
                    let pos = last * i as f64 / (n - 1) as f64;
                    let lo = pos.floor() as usize;
                    let hi = pos.ceil() as usize;
                    values[lo] + (values[hi] - values[lo]) * (pos - lo as f64)
                })
                .collect(),
        )
    }

    /// Checks that the table can be sampled: at least two finite, non-decreasing values.
    pub fn check(&self) -> Result<(), String> {
        if self.0.len() < 2 {
            return Err("needs at least two quantiles".into());
        }
        if self.0.iter().any(|v| !v.is_finite()) {
            return Err("quantiles must be finite numbers".into());
        }
        if self.0.windows(2).any(|w| w[1] < w[0]) {
            return Err("quantiles must not decrease".into());
        }
        Ok(())
    }

    /// The value with cumulative probability `u` in `[0, 1]`.
    pub fn quantile(&self, u: f64) -> f64 {
        let q = &self.0;
        let pos = u.clamp(0.0, 1.0) * (q.len() - 1) as f64;
        let lo = (pos.floor() as usize).min(q.len() - 2);
        q[lo] + (q[lo + 1] - q[lo]) * (pos - lo as f64)
    }

    /// The cumulative probability of `x` (the inverse of [`Quantiles::quantile`] where the
    /// table is strictly increasing).
    pub fn cdf(&self, x: f64) -> f64 {
        let q = &self.0;
        if x < q[0] {
            return 0.0;
        }
        if x >= q[q.len() - 1] {
            return 1.0;
        }
        let i = q.partition_point(|&v| v <= x) - 1;
        let span = q[i + 1] - q[i];
        let within = if span > 0.0 { (x - q[i]) / span } else { 1.0 };
        (i as f64 + within) / (q.len() - 1) as f64
    }

    /// A draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.quantile(rng.random())
    }

    /// The median.
    pub fn median(&self) -> f64 {
        self.quantile(0.5)
    }
}

/// The outcomes up to which [`Categorical::sample`] scans instead of searching.
const SCAN: usize = 32;

/// A discrete distribution over `0..n` by weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Categorical {
    cumulative: Vec<f64>,
}

impl Categorical {
    /// The distribution with these weights (non-negative, finite, not all zero).
    pub fn new(weights: &[f64]) -> Result<Categorical, String> {
        if weights.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err("weights must be finite and non-negative".into());
        }
        let mut total = 0.0;
        let cumulative: Vec<f64> = weights
            .iter()
            .map(|w| {
                total += w;
                total
            })
            .collect();
        if total <= 0.0 {
            return Err("weights must not all be zero".into());
        }
        Ok(Categorical {
            cumulative: cumulative.into_iter().map(|c| c / total).collect(),
        })
    }

    /// The probability of outcome `i`.
    pub fn probability(&self, i: usize) -> f64 {
        let below = if i == 0 { 0.0 } else { self.cumulative[i - 1] };
        self.cumulative.get(i).map_or(0.0, |c| c - below)
    }

    /// Outcomes.
    pub fn len(&self) -> usize {
        self.cumulative.len()
    }

    /// Whether there are no outcomes (never, once built).
    pub fn is_empty(&self) -> bool {
        self.cumulative.is_empty()
    }

    /// A draw: the first outcome whose cumulative probability exceeds a uniform draw. The
    /// outcomes at or below it are counted by a scan when they are few (a day's hours, a
    /// week's days: faster than a binary search's mispredicted branches), else found by
    /// binary search; the cumulative probabilities are sorted, so both give the same.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let u: f64 = rng.random();
        let below = if self.cumulative.len() <= SCAN {
            self.cumulative.iter().filter(|&&c| c <= u).count()
        } else {
            self.cumulative.partition_point(|&c| c <= u)
        };
        below.min(self.cumulative.len() - 1)
    }
}

/// The Zipf-like number of repetitions of a job (§13.2): `P(r) ∝ r^-exponent` for `r` in
/// `1..=max`.
#[derive(Debug, Clone, PartialEq)]
pub struct Zipf {
    repetitions: Categorical,
}

impl Zipf {
    /// The distribution with `exponent` (finite) on `1..=max` (`max >= 1`).
    pub fn new(exponent: f64, max: u32) -> Result<Zipf, String> {
        if !exponent.is_finite() || max == 0 {
            return Err("a Zipf law needs a finite exponent and a maximum of at least 1".into());
        }
        let weights: Vec<f64> = (1..=max).map(|r| f64::from(r).powf(-exponent)).collect();
        Ok(Zipf {
            repetitions: Categorical::new(&weights)?,
        })
    }

    /// The probability of `r` repetitions.
    pub fn probability(&self, r: u32) -> f64 {
        r.checked_sub(1)
            .map_or(0.0, |i| self.repetitions.probability(i as usize))
    }

    /// A draw, at least 1.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        self.repetitions.sample(rng) as u32 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn quantiles_interpolate_and_invert() {
        let q = Quantiles::of(&mut [4.0, 0.0, 2.0, 1.0, 3.0], 5);
        assert_eq!(q.0, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(q.quantile(0.5), 2.0);
        assert_eq!(q.quantile(0.625), 2.5);
        assert_eq!(q.cdf(2.5), 0.625);
        assert_eq!(q.cdf(-1.0), 0.0);
        assert_eq!(q.cdf(9.0), 1.0);
        assert!(Quantiles(vec![1.0, 0.0]).check().is_err());
    }

    #[test]
    fn parametric_quantiles_invert_their_cdfs() {
        let ll = LogLogistic {
            mu: 1.25,
            sigma: 0.2214,
        };
        assert!((ll.quantile(0.5) - 1.25f64.exp()).abs() < 1e-12);
        for k in [-0.3, 0.0, 0.2] {
            let g = GenPareto {
                k,
                sigma: 2.0,
                mu: 0.6,
            };
            for u in [0.1, 0.5, 0.9] {
                assert!((g.cdf(g.quantile(u)) - u).abs() < 1e-9, "k {k} u {u}");
            }
        }
    }

    #[test]
    fn stochastic_rounding_keeps_the_mean() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let n = 100_000;
        let total: u64 = (0..n)
            .map(|_| u64::from(stochastic_round(2.3, &mut rng)))
            .sum();
        let mean = total as f64 / f64::from(n);
        // Bernoulli(0.3) part: sd 0.458/sqrt(n); 4 sd.
        assert!(
            (mean - 2.3).abs() < 4.0 * 0.458 / f64::from(n).sqrt(),
            "{mean}"
        );
    }

    #[test]
    fn categorical_refuses_bad_weights() {
        assert!(Categorical::new(&[0.0, 0.0]).is_err());
        assert!(Categorical::new(&[1.0, -1.0]).is_err());
        let c = Categorical::new(&[1.0, 3.0]).unwrap();
        assert_eq!(c.probability(1), 0.75);
    }
}
