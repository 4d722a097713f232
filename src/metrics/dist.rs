//! A distribution of one per-job metric: exact count, mean and maximum, and percentiles
//! from an HDR histogram (three significant digits).

use hdrhistogram::Histogram;
use serde::Serialize;

/// Values are recorded as integers of `1 / scale` units (seconds: scale 1; bounded
/// slowdown: scale 1000, i.e. to 0.001).
#[derive(Debug, Clone)]
pub struct Dist {
    hist: Histogram<u64>,
    scale: f64,
    count: u64,
    sum: f64,
    max: f64,
}

/// What a summary reports of a [`Dist`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DistSummary {
    /// Number of values.
    pub count: u64,
    /// Exact mean.
    pub mean: f64,
    /// Median, to three significant digits.
    pub median: f64,
    /// 90th percentile, to three significant digits.
    pub p90: f64,
    /// 99th percentile, to three significant digits.
    pub p99: f64,
    /// Exact maximum.
    pub max: f64,
}

impl Dist {
    /// An empty distribution recording values to `1 / scale`.
    pub fn new(scale: f64) -> Self {
        // Sized up front for values up to 2^32 units (136 years of seconds, a bounded
        // slowdown of four million at scale 1000), so recording never reallocates in
        // practice; it still grows if a value is larger.
        let mut hist = Histogram::new_with_max(1 << 32, 3).expect("valid histogram bounds");
        hist.auto(true);
        Dist {
            hist,
            scale,
            count: 0,
            sum: 0.0,
            max: 0.0,
        }
    }

    /// Records one value (negative values count as zero in the histogram).
    pub fn record(&mut self, value: f64) {
        self.count_value(value);
        self.record_units((value * self.scale).round().max(0.0) as u64);
    }

    /// Records a whole number of seconds (for a distribution of scale 1).
    pub fn record_secs(&mut self, value: i64) {
        debug_assert_eq!(self.scale, 1.0);
        self.count_value(value as f64);
        self.record_units(value.max(0) as u64);
    }

    fn count_value(&mut self, value: f64) {
        self.count += 1;
        self.sum += value;
        if self.count == 1 || value > self.max {
            self.max = value;
        }
    }

    fn record_units(&mut self, units: u64) {
        // An auto-resizing histogram only fails beyond u64's range; saturate there.
        if self.hist.record(units).is_err() {
            self.hist.saturating_record(units);
        }
    }

    fn quantile(&self, q: f64) -> f64 {
        self.hist.value_at_quantile(q) as f64 / self.scale
    }

    /// The summary; all zeros when empty.
    pub fn summary(&self) -> DistSummary {
        if self.count == 0 {
            return DistSummary {
                count: 0,
                mean: 0.0,
                median: 0.0,
                p90: 0.0,
                p99: 0.0,
                max: 0.0,
            };
        }
        DistSummary {
            count: self.count,
            mean: self.sum / self.count as f64,
            median: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            max: self.max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_integers_are_exact() {
        let mut d = Dist::new(1.0);
        for v in 1..=100 {
            d.record(f64::from(v));
        }
        let s = d.summary();
        assert_eq!(s.count, 100);
        assert_eq!(s.mean, 50.5);
        assert_eq!(s.median, 50.0);
        assert_eq!(s.p90, 90.0);
        assert_eq!(s.p99, 99.0);
        assert_eq!(s.max, 100.0);
    }

    #[test]
    fn large_values_keep_three_significant_digits() {
        let mut d = Dist::new(1000.0);
        d.record(123_456.789);
        let s = d.summary();
        assert!(
            (s.median - 123_456.789).abs() / 123_456.789 < 1e-3,
            "{}",
            s.median
        );
        assert_eq!(s.max, 123_456.789);
    }
}
