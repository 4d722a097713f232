//! Users under bad service (seed 003 §4.3-4.4; optional, off by default).
//!
//! **Continuation.** The longer a job's response time, the less likely its user is to
//! continue the session, that is, to submit again within the session threshold (seed
//! 003 Fig. 18, after Shmueli & Feitelson). The curve is fitted from a log itself: for
//! every job followed by another of the same user, the share of next think times below
//! the threshold, by bucket of the job's response time ([`ContinuationCurve::fit`]). A
//! trace user continued in the log after a response `r_log`; after a simulated response
//! `r_sim` it continues with probability `min(1, p(r_sim) / p(r_log))`, so a simulated
//! service no worse than the log's changes nothing, and a worse one breaks sessions the
//! log kept. A user who gives up goes away until its next window.
//!
//! **Patience.** A user whose jobs wait longer than a patience limit, a given number of
//! times, leaves for good and is counted as frustrated (seed 003 §4.4, Table 1).

use serde::{Deserialize, Serialize};

use crate::time::{DAY, HOUR, MINUTE, Time};
use crate::workload::trace::Trace;

/// The curve fitted from KTH, built in: the default of model-based sites.
pub const KTH_CONTINUATION: &str = include_str!("../../models/continuation-kth.toml");

/// Upper bounds of the response-time buckets, seconds (the last bucket is unbounded).
const BUCKETS: [Time; 10] = [
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

/// One bucket of a continuation curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bucket {
    /// Upper bound of the response time, seconds; absent for the last bucket.
    pub up_to: Option<Time>,
    /// Share of jobs whose user continued the session.
    #[serde(rename = "continue")]
    pub share: f64,
    /// Jobs in the bucket.
    pub jobs: u64,
}

/// The probability of continuing a session, by the response time of the last job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContinuationCurve {
    /// The log it was fitted from.
    pub source: String,
    /// The session threshold, seconds.
    pub threshold: Time,
    /// The buckets, by increasing bound.
    #[serde(rename = "bucket")]
    pub buckets: Vec<Bucket>,
}

impl ContinuationCurve {
    /// Fits the curve from `trace` (named `source`). Buckets with no job take the share
    /// of the nearest bucket below that has jobs.
    pub fn fit(trace: &Trace, source: &str) -> ContinuationCurve {
        let mut counts = [(0u64, 0u64); BUCKETS.len() + 1];
        for u in &trace.users {
            for pair in u.jobs.windows(2) {
                let c = &mut counts[bucket_of(pair[0].response())];
                c.0 += 1;
                c.1 += u64::from(!pair[1].opens_session);
            }
        }
        let mut last_share = 1.0;
        let buckets = counts
            .iter()
            .enumerate()
            .map(|(i, &(jobs, continued))| {
                if jobs > 0 {
                    // Four decimals: the curve is an estimate, and its file stays readable.
                    last_share = (continued as f64 / jobs as f64 * 1e4).round() / 1e4;
                }
                Bucket {
                    up_to: BUCKETS.get(i).copied(),
                    share: last_share,
                    jobs,
                }
            })
            .collect();
        ContinuationCurve {
            source: source.to_owned(),
            threshold: trace.config.threshold,
            buckets,
        }
    }

    /// Reads a curve file (TOML), checking it.
    pub fn parse(text: &str, name: &str) -> Result<ContinuationCurve, String> {
        let c: ContinuationCurve = toml::from_str(text).map_err(|e| format!("{name}: {e}"))?;
        let bounds: Vec<Option<Time>> = c.buckets.iter().map(|b| b.up_to).collect();
        let ok_bounds = bounds.last().is_some_and(Option::is_none)
            && bounds[..bounds.len() - 1]
                .windows(2)
                .all(|w| matches!(w, [Some(a), Some(b)] if a < b))
            && bounds[..bounds.len() - 1].iter().all(Option::is_some);
        if !ok_bounds {
            return Err(format!(
                "{name}: buckets need increasing up_to bounds, the last one without"
            ));
        }
        if let Some(b) = c.buckets.iter().find(|b| !(0.0..=1.0).contains(&b.share)) {
            return Err(format!(
                "{name}: continue = {} is not a probability",
                b.share
            ));
        }
        Ok(c)
    }

    /// The curve as a file, with a comment saying what it is.
    pub fn to_toml(&self) -> String {
        format!(
            "# Share of jobs whose user submitted again within the session threshold, by the\n\
             # job's response time (seed 003 Fig. 18), fitted from the log `source` with\n\
             #   sitesim analyze --swf LOG --fit-continuation FILE\n\
             # `up_to` is each bucket's upper bound in seconds; the last bucket has none.\n{}",
            toml::to_string(self).expect("curves serialize")
        )
    }

    /// The probability of continuing after a job of response time `response`.
    pub fn share(&self, response: Time) -> f64 {
        self.buckets
            .iter()
            .find(|b| b.up_to.is_none_or(|u| response <= u))
            .map_or(1.0, |b| b.share)
    }

    /// PROVISIONAL: P(continue | runtime) under the log's service.
    pub fn runtime_share(&self, runtime: Time) -> f64 {
        self.share(runtime)
    }

    /// PROVISIONAL: median think time of continued pairs.
    pub fn continued_think(&self) -> Time {
        300
    }

    /// The probability that a user who continued after `logged` continues after
    /// `simulated`.
    pub fn continue_probability(&self, simulated: Time, logged: Time) -> f64 {
        let before = self.share(logged);
        if before <= 0.0 {
            return 1.0;
        }
        (self.share(simulated) / before).min(1.0)
    }
}

fn bucket_of(response: Time) -> usize {
    BUCKETS.partition_point(|&b| b < response)
}

/// When users leave for good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Patience {
    /// A wait longer than this counts against the user, seconds.
    pub limit: Time,
    /// Waits over the limit after which the user leaves.
    pub strikes: u32,
}

impl Patience {
    /// Counts a job's `wait` against a user with `strikes` so far; whether the user
    /// leaves now.
    pub fn strike(&self, wait: Time, strikes: &mut u64) -> bool {
        if wait > self.limit {
            *strikes += 1;
            *strikes >= u64::from(self.strikes)
        } else {
            false
        }
    }
}

/// How users react to the service they get.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Behaviour {
    /// Sessions broken after long responses, if on.
    pub continuation: Option<ContinuationCurve>,
    /// Users leaving after long waits, if on.
    pub patience: Option<Patience>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::TraceConfig;
    use crate::workload::trace::tests::trace_of;

    #[test]
    fn fit_counts_continuations_by_response() {
        // Two short jobs continued, one short job followed after a break, one long job
        // followed after a break.
        let t = trace_of(
            &[
                (1, 0, 0, 10),
                (1, 20, 0, 10),
                (1, 40, 0, 10),
                (1, 5000, 0, 7000),
                (1, 20000, 0, 10),
            ],
            TraceConfig::default(),
        );
        let c = ContinuationCurve::fit(&t, "t.swf");
        assert_eq!(c.buckets[0].jobs, 3);
        assert_eq!(c.share(10), 0.6667);
        // 7000 s falls in (1 h, 2 h]: nobody continued. Empty buckets copy the one below.
        assert_eq!(c.share(7000), 0.0);
        assert_eq!(c.share(100_000), 0.0);
        assert_eq!(c.share(120), 0.6667);
        assert_eq!(c.continue_probability(7000, 10), 0.0);
        assert_eq!(c.continue_probability(10, 7000), 1.0);
        let back = ContinuationCurve::parse(&c.to_toml(), "c.toml").unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn bad_curve_files_are_errors() {
        let text = "source = \"x\"\nthreshold = 1200\n[[bucket]]\nup_to = 60\ncontinue = 1.5\njobs = 1\n[[bucket]]\ncontinue = 0.5\njobs = 1\n";
        assert!(
            ContinuationCurve::parse(text, "c.toml")
                .unwrap_err()
                .contains("not a probability")
        );
        let text =
            "source = \"x\"\nthreshold = 1200\n[[bucket]]\nup_to = 60\ncontinue = 0.5\njobs = 1\n";
        assert!(
            ContinuationCurve::parse(text, "c.toml")
                .unwrap_err()
                .contains("increasing")
        );
    }
}
