//! A distribution of one per-job metric: exact count, mean and maximum, and percentiles
//! from an HDR histogram (three significant digits).
//!
//! Recording is on the per-job path of every run, so a value is counted straight into an
//! array laid out as the HDR histogram's counts (`hdrhistogram`'s own index: a bucket per
//! power of two, 1,024 sub-buckets in each but the first), a handful of instructions; the
//! histogram itself is built from those counts when a summary is asked for, and answers
//! the percentiles exactly as if every value had been recorded into it.

use hdrhistogram::Histogram;
use serde::Serialize;

/// Significant decimal digits of the histogram.
const SIGFIG: u8 = 3;
/// log2 of half the sub-buckets per bucket for [`SIGFIG`] (2,048 sub-buckets: the smallest
/// power of two above 2 * 10^3), as `hdrhistogram` computes it.
const HALF_MAGNITUDE: u32 = 10;
/// Sub-buckets in the upper half of a bucket.
const HALF_COUNT: u64 = 1 << HALF_MAGNITUDE;
/// Values below this share bucket 0.
const SUB_BUCKET_MASK: u64 = 2 * HALF_COUNT - 1;
/// Bits of a value that bucket 0 covers, subtracted from 64: `hdrhistogram`'s
/// `leading_zero_count_base` for a lowest discernible value of 1.
const LEADING_ZERO_BASE: u32 = 64 - (HALF_MAGNITUDE + 1);
/// The largest value the histogram is sized for up front (2^32 units: 136 years of
/// seconds, a bounded slowdown of four million at scale 1000).
const HIGH: u64 = 1 << 32;
/// Counts of the buckets that cover [`HIGH`]: 23 buckets (the first one twice as wide).
const COUNTS: usize = 24 << HALF_MAGNITUDE;

/// `hdrhistogram`'s counts index of `value`.
#[inline]
fn index_of(value: u64) -> usize {
    let bucket = LEADING_ZERO_BASE - (value | SUB_BUCKET_MASK).leading_zeros();
    let sub_bucket = value >> bucket;
    (((u64::from(bucket) + 1) << HALF_MAGNITUDE) + sub_bucket - HALF_COUNT) as usize
}

/// The lowest value of counts index `index` (the inverse of [`index_of`]).
fn value_of(index: usize) -> u64 {
    let bucket = (index >> HALF_MAGNITUDE) as u32;
    let sub_bucket = (index as u64 & (HALF_COUNT - 1)) + HALF_COUNT;
    match bucket.checked_sub(1) {
        Some(b) => sub_bucket << b,
        None => sub_bucket - HALF_COUNT,
    }
}

/// Values are recorded as integers of `1 / scale` units (seconds: scale 1; bounded
/// slowdown: scale 1000, i.e. to 0.001).
#[derive(Debug, Clone)]
pub struct Dist {
    /// Counts in the histogram's layout, for values below `2 * HIGH`.
    counts: Vec<u64>,
    /// The values beyond `counts`, recorded into the histogram as it grows.
    beyond: Vec<u64>,
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
        Dist {
            counts: vec![0; COUNTS],
            beyond: Vec::new(),
            scale,
            count: 0,
            sum: 0.0,
            max: 0.0,
        }
    }

    /// Records one value (negative values count as zero in the histogram).
    #[inline]
    pub fn record(&mut self, value: f64) {
        self.count_value(value);
        self.record_units((value * self.scale).round().max(0.0) as u64);
    }

    /// Records a whole number of seconds (for a distribution of scale 1).
    #[inline]
    pub fn record_secs(&mut self, value: i64) {
        debug_assert_eq!(self.scale, 1.0);
        self.count_value(value as f64);
        self.record_units(value.max(0) as u64);
    }

    #[inline]
    fn count_value(&mut self, value: f64) {
        self.count += 1;
        self.sum += value;
        if self.count == 1 || value > self.max {
            self.max = value;
        }
    }

    #[inline]
    fn record_units(&mut self, units: u64) {
        match self.counts.get_mut(index_of(units)) {
            Some(c) => *c += 1,
            None => self.beyond.push(units),
        }
    }

    /// The histogram of the values recorded: sized for [`HIGH`] and growing beyond it, as
    /// if each value had been recorded into it.
    fn histogram(&self) -> Histogram<u64> {
        let mut hist = Histogram::new_with_max(HIGH, SIGFIG).expect("valid histogram bounds");
        hist.auto(true);
        for (i, &n) in self.counts.iter().enumerate() {
            if n > 0 {
                hist.record_n(value_of(i), n)
                    .expect("a value below the histogram's bounds");
            }
        }
        for &units in &self.beyond {
            // An auto-resizing histogram only fails beyond u64's range; saturate there.
            if hist.record(units).is_err() {
                hist.saturating_record(units);
            }
        }
        hist
    }

    /// The values at quantiles `qs` (ascending, each in (0, 1]), in units, as
    /// `Histogram::value_at_quantile` gives them: the highest value equivalent to the
    /// first one at which the running count reaches `ceil(q * count)`. Read off the counts
    /// in one pass when every value is in them, else from the histogram.
    fn quantiles<const N: usize>(&self, qs: [f64; N]) -> [u64; N] {
        if !self.beyond.is_empty() {
            let hist = self.histogram();
            return qs.map(|q| hist.value_at_quantile(q));
        }
        let targets = qs.map(|q| ((q * self.count as f64).ceil() as u64).max(1));
        let mut out = [0; N];
        let mut next = 0;
        let mut total = 0;
        for (i, &n) in self.counts.iter().enumerate() {
            total += n;
            while next < N && total >= targets[next] {
                // The highest value of index i: one below the lowest of the next index.
                out[next] = value_of(i + 1) - 1;
                next += 1;
            }
            if next == N {
                break;
            }
        }
        out
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
        let [median, p90, p99] = self
            .quantiles([0.5, 0.9, 0.99])
            .map(|u| u as f64 / self.scale);
        DistSummary {
            count: self.count,
            mean: self.sum / self.count as f64,
            median,
            p90,
            p99,
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

    /// Counting by index gives the percentiles, and the histogram, that recording every
    /// value into the histogram gives, beyond the size set up front too.
    #[test]
    fn counts_give_the_histogram_and_its_quantiles() {
        let qs = [0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0];
        let mut values: Vec<u64> = (0..5000).collect();
        let mut x: u64 = 1;
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            values.push((x >> 31) >> (x % 22));
        }
        let mut d = Dist::new(1.0);
        let mut direct = Histogram::<u64>::new_with_max(HIGH, SIGFIG).unwrap();
        direct.auto(true);
        let check = |d: &Dist, direct: &Histogram<u64>| {
            assert_eq!(d.quantiles(qs), qs.map(|q| direct.value_at_quantile(q)));
            let rebuilt = d.histogram();
            assert_eq!(rebuilt.len(), direct.len());
            assert!(rebuilt.iter_recorded().eq(direct.iter_recorded()));
        };
        for (n, &v) in values.iter().enumerate() {
            d.count_value(v as f64);
            d.record_units(v);
            direct.record(v).unwrap();
            if n.is_multiple_of(997) {
                check(&d, &direct);
            }
        }
        assert!(d.beyond.is_empty());
        check(&d, &direct);
        for v in [HIGH - 1, HIGH, 2 * HIGH - 1, 2 * HIGH, u64::MAX] {
            d.count_value(v as f64);
            d.record_units(v);
            if direct.record(v).is_err() {
                direct.saturating_record(v);
            }
        }
        assert_eq!(d.beyond.len(), 2);
        check(&d, &direct);
        for i in 0..COUNTS {
            assert_eq!(index_of(value_of(i)), i);
        }
    }
}
