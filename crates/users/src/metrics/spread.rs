//! Exact quantiles of a list of whole numbers, for summaries over few items (sessions,
//! users) where keeping the values is cheaper than a histogram.

use serde::Serialize;

use crate::time::Time;

/// Quantiles of a list of values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Spread {
    /// How many values.
    pub count: u64,
    /// Their mean.
    pub mean: f64,
    /// Median (lower middle value).
    pub median: Time,
    /// 90th percentile.
    pub p90: Time,
    /// Largest.
    pub max: Time,
}

impl Spread {
    /// The spread of `v` (zeros when empty).
    pub fn of(mut v: Vec<Time>) -> Spread {
        if v.is_empty() {
            return Spread::default();
        }
        v.sort_unstable();
        let n = v.len();
        let at = |q: f64| v[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        Spread {
            count: n as u64,
            mean: v.iter().map(|&x| x as f64).sum::<f64>() / n as f64,
            median: at(0.5),
            p90: at(0.9),
            max: v[n - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads() {
        let s = Spread::of(vec![5, 1, 3, 2, 4]);
        assert_eq!((s.count, s.median, s.p90, s.max), (5, 3, 5, 5));
        assert_eq!(s.mean, 3.0);
        assert_eq!(Spread::of(Vec::new()).count, 0);
    }
}
