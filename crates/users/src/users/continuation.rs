//! Session continuation: how likely a user is to submit again within the session
//! threshold, by the response time (and the slowdown) of its previous job (Feitelson 2021,
//! §4.3, Fig. 18, after Shmueli & Feitelson 2007, "Uncovering the effect of system
//! performance on user behavior from traces of parallel systems").
//!
//! **The measurement.** A pair is a job and the job its think time is measured from
//! (`TraceJob::think_from`: the previous job, or under the `latest` rule the
//! latest-ending earlier one). As Shmueli & Feitelson do, only pairs whose next job was
//! submitted after the previous one ended count (think time >= 0): a job submitted while
//! the previous one still ran could not react to its response, and would count as
//! "continued" whatever the response (on KTH about half the pairs, which flattens the
//! curve to 0.63-0.78 from 0.77 down to 0.05-0.09). Those concurrent pairs are a separate
//! part of the user model (`NegativeThink`); the file counts them (`concurrent`) but
//! leaves them out of every share. A pair is **continued** when its think time is below
//! the session threshold.
//!
//! **The curve.** The share of continued pairs by bucket of the previous job's response
//! time (`[[bucket]]`, the default form), by its bounded slowdown (`[[slowdown]]`,
//! response / max(runtime, 10 s), at least 1: the seed finds response time the better
//! predictor) and by its runtime (`[[runtime]]`: the share under the log's own service,
//! which a model user, having no logged response, compares its simulated response with),
//! each bucket with its pairs and continued pairs (from which [`wilson`] gives a 95%
//! interval); and a logistic in the log of the response ([`Logistic`]), fitted by maximum
//! likelihood on the individual pairs, the smooth alternative (`form = "logistic"`).

use serde::{Deserialize, Serialize};

use crate::time::{DAY, HOUR, MINUTE, Time};
use crate::workload::trace::Trace;

/// Upper bounds of the response-time (and runtime) buckets, seconds (the last bucket is
/// unbounded).
const TIME_BOUNDS: [Time; 10] = [
    MINUTE,
    5 * MINUTE,
    15 * MINUTE,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    4 * HOUR,
    8 * HOUR,
    16 * HOUR,
    DAY,
];

/// Upper bounds of the bounded-slowdown buckets (the last bucket is unbounded).
const SLOWDOWN_BOUNDS: [f64; 9] = [1.0, 1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0];

/// The runtime below which a job's slowdown is taken over this many seconds instead
/// (bounded slowdown).
const SLOWDOWN_FLOOR: Time = 10;

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// One bucket of a continuation curve: the pairs whose previous job's response time (or
/// slowdown, or runtime) is at most `up_to` and above the previous bucket's bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bucket<B> {
    /// Upper bound (seconds, or a slowdown); absent for the last bucket.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub up_to: Option<B>,
    /// Share of the pairs whose user continued the session (four decimals); an empty
    /// bucket takes the share of the nearest bucket below with pairs.
    #[serde(rename = "continue")]
    pub share: f64,
    /// Pairs in the bucket.
    pub jobs: u64,
    /// Of those, the continued ones.
    pub continued: u64,
}

impl<B> Bucket<B> {
    /// The 95% Wilson score interval of the bucket's share ([`wilson`]).
    pub fn interval(&self) -> (f64, f64) {
        wilson(self.continued, self.jobs)
    }
}

/// Which form of the curve [`ContinuationCurve::share`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    /// The response-time buckets.
    #[default]
    Buckets,
    /// The logistic.
    Logistic,
}

/// P(continue | response) = 1 / (1 + exp(-(intercept + slope * ln(max(response, 1 s))))).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Logistic {
    /// The log-odds at a response of 1 s.
    pub intercept: f64,
    /// The change of the log-odds per unit of ln(response).
    pub slope: f64,
}

impl Logistic {
    /// The probability at `x` = ln(response).
    pub fn at(&self, x: f64) -> f64 {
        1.0 / (1.0 + (-(self.intercept + self.slope * x)).exp())
    }

    /// The probability after a response of `response` seconds.
    pub fn share(&self, response: Time) -> f64 {
        self.at(ln_response(response))
    }

    /// The maximum-likelihood fit to `(x, continued)` observations, by Newton-Raphson
    /// (iteratively reweighted least squares) from the constant model, each step halved
    /// until the likelihood does not fall. With no observations, or all alike (where no
    /// maximum exists), the parameters are where the steps stop mattering.
    pub fn fit(points: &[(f64, bool)]) -> Logistic {
        let log_lik = |l: &Logistic| -> f64 {
            points
                .iter()
                .map(|&(x, y)| {
                    let eta = l.intercept + l.slope * x;
                    // ln p = -ln(1 + e^-eta), ln(1 - p) = -ln(1 + e^eta), computed stably.
                    let t = if y { -eta } else { eta };
                    -(t.max(0.0) + (-t.abs()).exp().ln_1p())
                })
                .sum()
        };
        let n = points.len() as f64;
        let k = points.iter().filter(|p| p.1).count() as f64;
        let mean = ((k + 0.5) / (n + 1.0)).clamp(1e-6, 1.0 - 1e-6);
        let mut l = Logistic {
            intercept: (mean / (1.0 - mean)).ln(),
            slope: 0.0,
        };
        let mut ll = log_lik(&l);
        for _ in 0..100 {
            // Gradient g and information matrix [a b; b c] of the log-likelihood.
            let (mut g0, mut g1, mut a, mut b, mut c) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for &(x, y) in points {
                let p = l.at(x);
                let r = f64::from(u8::from(y)) - p;
                let w = p * (1.0 - p);
                g0 += r;
                g1 += r * x;
                a += w;
                b += w * x;
                c += w * x * x;
            }
            let det = a * c - b * b;
            if det.abs() <= f64::MIN_POSITIVE {
                break;
            }
            let (d0, d1) = ((c * g0 - b * g1) / det, (a * g1 - b * g0) / det);
            let mut step = 1.0;
            let mut moved = false;
            while step > 1e-6 {
                let next = Logistic {
                    intercept: l.intercept + step * d0,
                    slope: l.slope + step * d1,
                };
                let next_ll = log_lik(&next);
                if next_ll >= ll {
                    moved = next_ll - ll > 1e-12 * (1.0 + ll.abs());
                    l = next;
                    ll = next_ll;
                    break;
                }
                step /= 2.0;
            }
            if !moved {
                break;
            }
        }
        l
    }
}

/// The 95% Wilson score interval of a share of `successes` in `trials` (Wilson 1927):
/// `(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`; `(0, 1)` with no trials.
pub fn wilson(successes: u64, trials: u64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The probability of continuing a session, by the response time of the previous job
/// (Feitelson 2021, Fig. 18; Shmueli & Feitelson 2007): see the module doc for the measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContinuationCurve {
    /// The log it was fitted from.
    pub source: String,
    /// The session threshold, seconds: a think time below it continues the session.
    pub threshold: Time,
    /// Which form [`ContinuationCurve::share`] uses.
    #[serde(default)]
    pub form: Form,
    /// Pairs counted: the next job submitted after the previous one ended.
    pub pairs: u64,
    /// Pairs left out: the next job submitted while the previous one ran.
    pub concurrent: u64,
    /// Median think time of the continued pairs, seconds, at least 1.
    pub median_think: Time,
    /// The longest wait the log's users put up with, seconds (at least the threshold):
    /// the patience users fitted to this log have ([`crate::users::Patience::of_waits`]),
    /// written by `sitesim analyze --fit-continuation`. Absent: no fitted patience.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patience: Option<Time>,
    /// The logistic in ln(response).
    pub logistic: Logistic,
    /// By the previous job's response time, by increasing bound.
    #[serde(rename = "bucket")]
    pub buckets: Vec<Bucket<Time>>,
    /// By the previous job's bounded slowdown, by increasing bound.
    pub slowdown: Vec<Bucket<f64>>,
    /// By the previous job's runtime, by increasing bound.
    pub runtime: Vec<Bucket<Time>>,
    /// The response and runtime buckets' shares made non-increasing ([`non_increasing`]):
    /// what [`ContinuationCurve::share`] and [`ContinuationCurve::runtime_share`] read.
    #[serde(skip)]
    fitted: [Vec<f64>; 2],
}

/// The non-increasing fit of the buckets' shares (pool adjacent violators, each bucket
/// weighted by its pairs): the least-squares curve that falls with the response, as
/// Fig. 18's finding says it does ("the longer the response time, the lower the
/// probability that the session continues"). A sparse bucket above one of shorter
/// responses (on KTH, 8.9% of 450 pairs at 16 h to a day against 4.7% at 8-16 h) is
/// sampling noise; read as it is, it would have users give up sessions after a shorter
/// response than the log's, and go on after a longer one.
fn non_increasing<B>(buckets: &[Bucket<B>]) -> Vec<f64> {
    // Blocks of pooled buckets: (weighted share, weight, buckets).
    let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(buckets.len());
    for b in buckets {
        let mut block = (b.share, (b.jobs as f64).max(f64::MIN_POSITIVE), 1);
        while let Some(&(share, weight, n)) = blocks.last()
            && share < block.0
        {
            blocks.pop();
            let w = weight + block.1;
            block = ((share * weight + block.0 * block.1) / w, w, n + block.2);
        }
        blocks.push(block);
    }
    blocks
        .iter()
        .flat_map(|&(share, _, n)| std::iter::repeat_n(share, n))
        .collect()
}

/// ln(max(response, 1 s)): the logistic's variable.
fn ln_response(response: Time) -> f64 {
    (response.max(1) as f64).ln()
}

/// The bounded slowdown of a job: response / max(runtime, 10 s), at least 1.
fn slowdown(response: Time, runtime: Time) -> f64 {
    (response as f64 / runtime.max(SLOWDOWN_FLOOR) as f64).max(1.0)
}

/// Counts per bucket into buckets, by the bucket bounds `bounds` (the last unbounded).
fn buckets<B: Copy>(bounds: &[B], counts: &[(u64, u64)]) -> Vec<Bucket<B>> {
    let mut last_share = 1.0;
    counts
        .iter()
        .enumerate()
        .map(|(i, &(jobs, continued))| {
            if jobs > 0 {
                // Four decimals: the curve is an estimate, and its file stays readable.
                last_share = (continued as f64 / jobs as f64 * 1e4).round() / 1e4;
            }
            Bucket {
                up_to: bounds.get(i).copied(),
                share: last_share,
                jobs,
                continued,
            }
        })
        .collect()
}

/// The share of the bucket `value` falls in, from `shares` (one per bucket).
fn lookup<B: Copy + PartialOrd>(buckets: &[Bucket<B>], shares: &[f64], value: B) -> f64 {
    buckets
        .iter()
        .position(|b| b.up_to.is_none_or(|u| value <= u))
        .map_or(1.0, |i| shares[i])
}

/// Checks one bucket list of a curve file.
fn check_buckets<B: Copy + PartialOrd + std::fmt::Display>(
    buckets: &[Bucket<B>],
    table: &str,
    pairs: u64,
    name: &str,
) -> Result<(), String> {
    let Some((last, bounded)) = buckets.split_last() else {
        return Err(format!("{name}: [[{table}]] needs at least one bucket"));
    };
    let increasing = bounded
        .windows(2)
        .all(|w| matches!((w[0].up_to, w[1].up_to), (Some(a), Some(b)) if a < b));
    if last.up_to.is_some() || bounded.iter().any(|b| b.up_to.is_none()) || !increasing {
        return Err(format!(
            "{name}: [[{table}]] buckets need increasing up_to bounds, the last one without"
        ));
    }
    for b in buckets {
        let bound = b
            .up_to
            .map_or("the last".to_owned(), |u| format!("up_to = {u}"));
        if !(0.0..=1.0).contains(&b.share) {
            return Err(format!(
                "{name}: [[{table}]] {bound}: continue = {} is not a probability",
                b.share
            ));
        }
        if b.continued > b.jobs {
            return Err(format!(
                "{name}: [[{table}]] {bound}: continued = {} is more than jobs = {}",
                b.continued, b.jobs
            ));
        }
    }
    // Summed wide: a file's counts near 2^64 overflowed a u64 sum (fuzzing).
    let total: u128 = buckets.iter().map(|b| u128::from(b.jobs)).sum();
    if total != u128::from(pairs) {
        return Err(format!(
            "{name}: the [[{table}]] buckets hold {total} jobs, not pairs = {pairs}"
        ));
    }
    Ok(())
}

impl ContinuationCurve {
    /// Fits the curve from `trace` (named `source`) over the pairs of its think-time rule
    /// whose think time is at least 0 (see the module doc).
    pub fn fit(trace: &Trace, source: &str) -> ContinuationCurve {
        let threshold = trace.config.threshold;
        let mut by_response = [(0u64, 0u64); TIME_BOUNDS.len() + 1];
        let mut by_slowdown = [(0u64, 0u64); SLOWDOWN_BOUNDS.len() + 1];
        let mut by_runtime = [(0u64, 0u64); TIME_BOUNDS.len() + 1];
        let mut points = Vec::new();
        let mut thinks = Vec::new();
        let mut concurrent = 0;
        for u in &trace.users {
            for j in &u.jobs {
                let (Some(think), Some(from)) = (j.think, j.think_from) else {
                    continue;
                };
                if think < 0 {
                    concurrent += 1;
                    continue;
                }
                let previous = &u.jobs[from as usize];
                let response = previous.response();
                let runtime = previous.spec.runtime;
                let continued = think < threshold;
                let sd = slowdown(response, runtime);
                for (c, i) in [
                    (&mut by_response[..], bucket_of(&TIME_BOUNDS, response)),
                    (&mut by_slowdown[..], bucket_of(&SLOWDOWN_BOUNDS, sd)),
                    (&mut by_runtime[..], bucket_of(&TIME_BOUNDS, runtime)),
                ] {
                    c[i].0 += 1;
                    c[i].1 += u64::from(continued);
                }
                points.push((ln_response(response), continued));
                if continued {
                    thinks.push(think);
                }
            }
        }
        let median_think = if thinks.is_empty() {
            1
        } else {
            let mid = (thinks.len() - 1) / 2;
            *thinks.select_nth_unstable(mid).1
        };
        let fitted = Logistic::fit(&points);
        // Six decimals, as in the file.
        let round = |v: f64| (v * 1e6).round() / 1e6;
        ContinuationCurve {
            source: source.to_owned(),
            threshold,
            form: Form::Buckets,
            pairs: points.len() as u64,
            concurrent,
            median_think: median_think.max(1),
            patience: None,
            logistic: Logistic {
                intercept: round(fitted.intercept),
                slope: round(fitted.slope),
            },
            buckets: buckets(&TIME_BOUNDS, &by_response),
            slowdown: buckets(&SLOWDOWN_BOUNDS, &by_slowdown),
            runtime: buckets(&TIME_BOUNDS, &by_runtime),
            fitted: Default::default(),
        }
        .with_fitted_shares()
    }

    /// The curve with the patience limit `patience`, seconds
    /// ([`ContinuationCurve::patience`]).
    pub fn with_patience(self, patience: Option<Time>) -> Self {
        ContinuationCurve { patience, ..self }
    }

    /// The curve with its non-increasing shares computed.
    fn with_fitted_shares(mut self) -> Self {
        self.fitted = [non_increasing(&self.buckets), non_increasing(&self.runtime)];
        self
    }

    /// Reads a curve file (TOML) named `name`, checking it.
    pub fn parse(text: &str, name: &str) -> Result<ContinuationCurve, String> {
        let c: ContinuationCurve =
            toml::from_str(text).map_err(|e| crate::textfmt::toml_error(name, text, &e))?;
        if c.threshold < 1 {
            return Err(format!("{name}: threshold must be at least 1 second"));
        }
        if c.median_think < 1 {
            return Err(format!("{name}: median_think must be at least 1 second"));
        }
        if c.patience.is_some_and(|p| p < 0) {
            return Err(format!("{name}: patience must be at least 0 seconds"));
        }
        if !(c.logistic.intercept.is_finite() && c.logistic.slope.is_finite()) {
            return Err(format!(
                "{name}: [logistic] needs finite intercept and slope"
            ));
        }
        check_buckets(&c.buckets, "bucket", c.pairs, name)?;
        check_buckets(&c.slowdown, "slowdown", c.pairs, name)?;
        check_buckets(&c.runtime, "runtime", c.pairs, name)?;
        Ok(c.with_fitted_shares())
    }

    /// The curve as a file, with a comment saying what it is.
    pub fn to_toml(&self) -> String {
        format!(
            "# Session continuation (Feitelson 2021, Fig. 18, after Shmueli & Feitelson 2007): of the\n\
             # pairs of a user's jobs whose next job was submitted after the previous one ended\n\
             # (think time >= 0; `concurrent` pairs, submitted while it ran, are left out), the\n\
             # share whose think time was below `threshold` seconds, by the previous job's\n\
             # response time ([[bucket]]), bounded slowdown ([[slowdown]]: response /\n\
             # max(runtime, 10 s)) and runtime ([[runtime]]). `up_to` is each bucket's upper\n\
             # bound; the last bucket has none. [logistic]: p(r) = 1 / (1 + exp(-(intercept +\n\
             # slope * ln(max(r, 1))))), the maximum-likelihood fit to the pairs; `form`\n\
             # chooses which of buckets and logistic the simulation uses; the users react to\n\
             # the buckets made non-increasing (pooled where a share rises). `patience`: the\n\
             # log's longest wait, at least the threshold, seconds. Fitted from the log\n\
             # `source` with\n\
             #   sitesim analyze --swf LOG --fit-continuation FILE\n{}",
            toml::to_string(self).expect("curves serialize")
        )
    }

    /// P(continue | response), in the curve's chosen form: the response buckets' shares
    /// made non-increasing ([`non_increasing`], the default), or the logistic.
    pub fn share(&self, response: Time) -> f64 {
        match self.form {
            Form::Buckets => lookup(&self.buckets, &self.fitted[0], response),
            Form::Logistic => self.logistic.share(response),
        }
    }

    /// P(continue | runtime), measured over the same pairs under the log's own service
    /// and made non-increasing as [`ContinuationCurve::share`] is: the reference a model
    /// user (which has no logged response) compares its simulated response's share with.
    pub fn runtime_share(&self, runtime: Time) -> f64 {
        lookup(&self.runtime, &self.fitted[1], runtime)
    }

    /// Median think time of the continued pairs (think in [0, threshold)), seconds, >= 1.
    pub fn continued_think(&self) -> Time {
        self.median_think
    }

    /// The session threshold, seconds.
    pub fn threshold(&self) -> Time {
        self.threshold
    }
}

/// The bucket of `value` under `bounds` (the last bucket is past every bound).
fn bucket_of<B: PartialOrd>(bounds: &[B], value: B) -> usize {
    bounds.partition_point(|b| *b < value)
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    /// Fuzzing: bucket counts near 2^64 overflowed the check's sum
    /// (`fuzz/regressions/continuation/`); now the file is refused by name.
    #[test]
    fn huge_bucket_counts_are_refused_not_overflowed() {
        let text = include_str!("../../../../models/continuation-kth.toml").replacen(
            "jobs = 2357",
            "jobs = 18446744073709551615",
            1,
        );
        let e = ContinuationCurve::parse(&text, "c.toml").unwrap_err();
        assert!(e.contains("the [[bucket]] buckets hold"), "{e}");
    }
    use crate::workload::trace::TraceConfig;
    use crate::workload::trace::tests::trace_of;

    #[test]
    fn concurrent_pairs_are_left_out_and_shares_count_the_rest() {
        // SWF lines (user, submit, wait, runtime). User 1:
        //   job 0 [0, 10];
        //   job 1 [20, 30]: think 10 after a response of 10 s, continued;
        //   job 2 [25, 35]: submitted while job 1 ran (think -5), left out;
        //   job 3 [230, 240] (waited 30): think 165 after job 2's 10 s, continued;
        //   job 4 [5000, 12000]: think 4760 after job 3's 40 s (slowdown 4), not continued;
        //   job 5 at 20000: think 8000 after job 4's 7000 s, not continued.
        // User 2: job 0 [30000, 30100]; job 1 [30050, 30150] (concurrent); job 2 at
        // 30400: think 250 after job 1's 100 s, continued.
        let t = trace_of(
            &[
                (1, 0, 0, 10),
                (1, 20, 0, 10),
                (1, 25, 0, 10),
                (1, 200, 30, 10),
                (1, 5000, 0, 7000),
                (1, 20_000, 0, 10),
                (2, 30_000, 0, 100),
                (2, 30_050, 0, 100),
                (2, 30_400, 0, 10),
            ],
            TraceConfig::default(),
        );
        let c = ContinuationCurve::fit(&t, "t.swf");
        assert_eq!((c.pairs, c.concurrent), (5, 2));
        // Up to a minute: responses 10, 10 and 40; two continued.
        assert_eq!((c.buckets[0].jobs, c.buckets[0].continued), (3, 2));
        assert_eq!(c.buckets[0].share, 0.6667);
        // (1 min, 5 min]: user 2's pair, continued.
        assert_eq!((c.buckets[1].jobs, c.buckets[1].continued), (1, 1));
        assert_eq!(c.buckets[1].share, 1.0);
        // The users read the two pooled, the curve falling with the response: 3 of 4.
        let pooled = (3.0 * 0.6667 + 1.0) / 4.0;
        for r in [10, 100] {
            assert!((c.share(r) - pooled).abs() < 1e-12, "{}", c.share(r));
        }
        // Empty buckets copy the one below; 7000 s falls in (1 h, 2 h], not continued.
        assert!((c.share(900) - pooled).abs() < 1e-12);
        assert_eq!(c.share(7000), 0.0);
        assert_eq!(c.share(100_000), 0.0);
        // Continued think times 10, 165 and 250.
        assert_eq!(c.continued_think(), 165);
        // Runtimes: 10 s three times (two continued), 100 s (continued), pooled as the
        // responses are; 7000 s.
        assert_eq!((c.runtime[0].share, c.runtime[1].share), (0.6667, 1.0));
        assert!((c.runtime_share(10) - pooled).abs() < 1e-12);
        assert!((c.runtime_share(100) - pooled).abs() < 1e-12);
        assert_eq!(c.runtime_share(7000), 0.0);
        // Slowdown 1 but for job 3 (40 / 10 = 4, in (2, 4]).
        assert_eq!((c.slowdown[0].jobs, c.slowdown[0].continued), (4, 3));
        assert_eq!((c.slowdown[3].jobs, c.slowdown[3].continued), (1, 0));
        assert_eq!(c.slowdown[0].share, 0.75);
        let back = ContinuationCurve::parse(&c.to_toml(), "c.toml").unwrap();
        assert_eq!(back, c);
        let logistic = ContinuationCurve {
            form: Form::Logistic,
            ..c
        };
        assert_eq!(logistic.share(10), logistic.logistic.share(10));
        let back = ContinuationCurve::parse(&logistic.to_toml(), "c.toml").unwrap();
        assert_eq!(back, logistic);
    }

    #[test]
    fn the_latest_rule_measures_from_the_latest_ending_job() {
        // Job 0 runs [0, 1000], job 1 [10, 20] (concurrent with job 0 under both rules),
        // job 2 at 100: under `previous` its think is 80 after job 1, under `latest` it
        // was submitted while job 0 ran.
        let jobs = [(1, 0, 0, 1000), (1, 10, 0, 10), (1, 100, 0, 10)];
        let c = ContinuationCurve::fit(&trace_of(&jobs, TraceConfig::default()), "t.swf");
        assert_eq!((c.pairs, c.concurrent), (1, 1));
        let latest = TraceConfig {
            rule: crate::session::SessionRule::Latest,
            ..TraceConfig::default()
        };
        let c = ContinuationCurve::fit(&trace_of(&jobs, latest), "t.swf");
        assert_eq!((c.pairs, c.concurrent), (0, 2));
    }

    #[test]
    fn wilson_interval_by_hand() {
        // 7 of 10: p = 0.7, z² = 3.8415, centre = (0.7 + 0.19207) / 1.38415 = 0.64449,
        // half = 1.95996 / 1.38415 * sqrt(0.021 + 0.0096036) = 0.24772.
        let (lo, hi) = wilson(7, 10);
        assert!((lo - 0.396_77).abs() < 1e-4, "{lo}");
        assert!((hi - 0.892_21).abs() < 1e-4, "{hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
        let (lo, hi) = wilson(0, 20);
        assert!(lo < 1e-12, "{lo}");
        assert!((hi - 0.161_13).abs() < 1e-4, "{hi}");
    }

    #[test]
    fn logistic_fit_reproduces_two_groups_exactly() {
        // Two x values: the saturated model, whose MLE reproduces both empirical shares.
        let mut points = vec![(0.0, true); 7];
        points.extend([(0.0, false); 3]);
        let x = 100f64.ln();
        points.extend([(x, true); 5]);
        points.extend([(x, false); 15]);
        let l = Logistic::fit(&points);
        assert!((l.share(1) - 0.7).abs() < 1e-9, "{l:?}");
        assert!((l.share(100) - 0.25).abs() < 1e-9, "{l:?}");
        // Closed form: intercept = logit(0.7), slope = (logit(0.25) - logit(0.7)) / x.
        let logit = |p: f64| (p / (1.0 - p)).ln();
        assert!((l.intercept - logit(0.7)).abs() < 1e-8);
        assert!((l.slope - (logit(0.25) - logit(0.7)) / x).abs() < 1e-8);
    }

    #[test]
    fn logistic_fit_recovers_a_known_curve() {
        let truth = Logistic {
            intercept: 2.0,
            slope: -0.4,
        };
        let n = 20_000;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(18);
        let points: Vec<(f64, bool)> = (0..n)
            .map(|_| {
                let x = rng.random::<f64>() * 12.0;
                (x, rng.random::<f64>() < truth.at(x))
            })
            .collect();
        let l = Logistic::fit(&points);
        // Standard errors from the inverse of the Fisher information at the truth.
        let (mut a, mut b, mut c) = (0.0, 0.0, 0.0);
        for &(x, _) in &points {
            let p = truth.at(x);
            let w = p * (1.0 - p);
            a += w;
            b += w * x;
            c += w * x * x;
        }
        let det = a * c - b * b;
        let (se0, se1) = ((c / det).sqrt(), (a / det).sqrt());
        assert!(
            (l.intercept - truth.intercept).abs() < 4.0 * se0,
            "{l:?} (se {se0})"
        );
        assert!(
            (l.slope - truth.slope).abs() < 4.0 * se1,
            "{l:?} (se {se1})"
        );
        // And the tolerance is tight: a few hundredths.
        assert!(se0 < 0.05 && se1 < 0.01, "{se0} {se1}");
    }

    #[test]
    fn bad_curve_files_are_errors() {
        let good = "source = \"x\"\nthreshold = 1200\npairs = 2\nconcurrent = 0\n\
                    median_think = 30\n[logistic]\nintercept = 1.0\nslope = -0.1\n\
                    [[bucket]]\nup_to = 60\ncontinue = 1.0\njobs = 1\ncontinued = 1\n\
                    [[bucket]]\ncontinue = 0.0\njobs = 1\ncontinued = 0\n\
                    [[slowdown]]\ncontinue = 0.5\njobs = 2\ncontinued = 1\n\
                    [[runtime]]\ncontinue = 0.5\njobs = 2\ncontinued = 1\n";
        let c = ContinuationCurve::parse(good, "c.toml").unwrap();
        assert_eq!(c.form, Form::Buckets);
        assert_eq!((c.share(60), c.share(61)), (1.0, 0.0));
        assert_eq!(c.runtime_share(5), 0.5);
        let err = |text: &str| ContinuationCurve::parse(text, "c.toml").unwrap_err();
        let e = err(&good.replace("continue = 1.0", "continue = 1.5"));
        assert!(
            e.contains("c.toml") && e.contains("not a probability"),
            "{e}"
        );
        let e = err(&good.replace("up_to = 60\n", ""));
        assert!(e.contains("[[bucket]]") && e.contains("increasing"), "{e}");
        let e = err(&good.replace("pairs = 2", "pairs = 3"));
        assert!(e.contains("not pairs = 3"), "{e}");
        let e = err(&good.replace("continued = 1\n[[bucket]]", "continued = 2\n[[bucket]]"));
        assert!(e.contains("more than jobs"), "{e}");
        let e = err(&good.replace("median_think = 30", "median_think = 30\nextra = 1"));
        assert!(e.contains("c.toml") && e.contains("extra"), "{e}");
        let e = err(&good.replace("source = \"x\"\n", "source = \"x\"\nform = \"spline\"\n"));
        assert!(e.contains("spline"), "{e}");
        let e = err(&good.replace("[[runtime]]\ncontinue = 0.5\njobs = 2\ncontinued = 1\n", ""));
        assert!(e.contains("runtime"), "{e}");
        let logistic = ContinuationCurve::parse(
            &good.replace("source = \"x\"\n", "source = \"x\"\nform = \"logistic\"\n"),
            "c.toml",
        )
        .unwrap();
        assert!((logistic.share(1) - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
    }

    #[test]
    fn shares_are_pooled_where_they_rise() {
        let b = |share: f64, jobs: u64| Bucket {
            up_to: Some(1),
            share,
            jobs,
            continued: 0,
        };
        // Falling already: unchanged.
        assert_eq!(
            non_increasing(&[b(0.8, 10), b(0.5, 10), b(0.1, 5)]),
            [0.8, 0.5, 0.1]
        );
        // A rise is pooled with what it rises above, by pairs, back as far as needed.
        assert_eq!(
            non_increasing(&[b(0.8, 10), b(0.2, 30), b(0.6, 10), b(0.05, 5)]),
            [0.8, 0.3, 0.3, 0.05]
        );
        let pooled = non_increasing(&[b(0.4, 10), b(0.2, 10), b(0.9, 20)]);
        assert!(
            pooled.iter().all(|&p| (p - 0.6).abs() < 1e-12),
            "{pooled:?}"
        );
        // KTH's curve: the 16 h to a day bucket (8.9%) pooled with the one before (4.7%).
        let kth = ContinuationCurve::parse(crate::model_files::CONTINUATION_KTH, "kth").unwrap();
        let shares: Vec<f64> = [
            30, 120, 600, 1200, 3000, 6000, 12_000, 20_000, 40_000, 80_000, 200_000,
        ]
        .iter()
        .map(|&r| kth.share(r))
        .collect();
        assert!(shares.windows(2).all(|w| w[0] >= w[1]), "{shares:?}");
        assert!(kth.buckets[9].share > kth.buckets[8].share);
    }
}
