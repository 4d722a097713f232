//! What a predictor does when a job outlives its prediction (a **deadline miss**, Talby et al. 2006,
//! §3.1): it must give a new prediction beyond the job's elapsed runtime.

use rustc_hash::FxHashMap;

use crate::time::Time;

/// A deadline-miss correction policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correction {
    /// Gradual increments (ESTIMATE and CONSTANT predictors, Talby et al. 2006, §4).
    Increments,
    /// Raise to the user estimate if the prediction is below it, else gradual increments
    /// (RUH and SBH, Talby et al. 2006, §4).
    ToEstimateThenIncrements,
    /// Multiply by `factor` on every miss (estimation-less SBH, Talby et al. 2006, §6); with a cap,
    /// growth stops there and gradual increments take over.
    Multiply {
        /// The factor (10 in Talby et al. 2006).
        factor: Time,
        /// The cap, if any ("Balanced" when set).
        cap: Option<Time>,
    },
}

/// A correction policy with its increments, and the misses of each running job.
#[derive(Debug, Clone)]
pub struct Corrector {
    policy: Correction,
    increments: Vec<Time>,
    /// Per job (by submission number; hashed, never iterated): the prediction before the
    /// first increment, and how many increments have been used.
    state: FxHashMap<u64, (Time, usize)>,
}

impl Corrector {
    /// A corrector; `increments` must be increasing and non-empty.
    pub fn new(policy: Correction, increments: Vec<Time>) -> Self {
        debug_assert!(!increments.is_empty() && increments.windows(2).all(|w| w[0] < w[1]));
        Corrector {
            policy,
            increments,
            state: FxHashMap::default(),
        }
    }

    /// The policy.
    pub fn policy(&self) -> &Correction {
        &self.policy
    }

    /// The new prediction of job `seq`, whose prediction `prediction` has just been reached
    /// at `elapsed` seconds of runtime; `estimate` is its user estimate, if the predictor
    /// may use it. Always beyond `elapsed`.
    pub fn correct(
        &mut self,
        seq: u64,
        prediction: Time,
        elapsed: Time,
        estimate: Option<Time>,
    ) -> Time {
        let next = match self.policy {
            Correction::ToEstimateThenIncrements => match estimate {
                Some(e) if prediction < e && e > elapsed => e,
                _ => self.increment(seq, prediction, estimate),
            },
            Correction::Increments => self.increment(seq, prediction, estimate),
            Correction::Multiply { factor, cap } => {
                let grown = prediction.max(1).saturating_mul(factor);
                match cap {
                    Some(c) if grown > c && c > elapsed => c,
                    Some(c) if grown > c => self.increment(seq, prediction, None),
                    _ => grown,
                }
            }
        };
        next.max(elapsed + 1)
    }

    /// The k-th gradual increment: the prediction before the first increment plus the k-th
    /// value; past the end of the list, the last value is added again each time. Capped at
    /// the estimate while that is still ahead (a job killed there cannot need more).
    fn increment(&mut self, seq: u64, prediction: Time, estimate: Option<Time>) -> Time {
        let (base, used) = self.state.entry(seq).or_insert((prediction, 0));
        *used += 1;
        let last = *self.increments.last().expect("non-empty");
        let next = match self.increments.get(*used - 1) {
            Some(&inc) => *base + inc,
            None => prediction + last,
        };
        match estimate {
            Some(e) if next > e && e > prediction => e,
            _ => next,
        }
    }

    /// Forgets a job that ended.
    pub fn forget(&mut self, seq: u64) {
        self.state.remove(&seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INC: [Time; 3] = [60, 300, 900];

    #[test]
    fn increments_replace_then_accumulate() {
        let mut c = Corrector::new(Correction::Increments, INC.to_vec());
        // Predicted 1 s: misses at 1, 61, 301, 901, 1801.
        assert_eq!(c.correct(7, 1, 1, None), 61);
        assert_eq!(c.correct(7, 61, 61, None), 301);
        assert_eq!(c.correct(7, 301, 301, None), 901);
        assert_eq!(c.correct(7, 901, 901, None), 1801);
        assert_eq!(c.correct(7, 1801, 1801, None), 2701);
        c.forget(7);
        assert_eq!(c.correct(7, 1, 1, None), 61);
    }

    #[test]
    fn increments_stop_at_the_estimate() {
        let mut c = Corrector::new(Correction::Increments, INC.to_vec());
        assert_eq!(c.correct(1, 100, 100, Some(200)), 160);
        assert_eq!(c.correct(1, 160, 160, Some(200)), 200);
        // Past the estimate (a job allowed to overrun), increments go on.
        assert_eq!(c.correct(1, 200, 200, Some(200)), 1000);
    }

    #[test]
    fn raise_to_estimate_first() {
        let mut c = Corrector::new(Correction::ToEstimateThenIncrements, INC.to_vec());
        assert_eq!(c.correct(1, 50, 50, Some(3600)), 3600);
        assert_eq!(c.correct(1, 3600, 3600, Some(3600)), 3660);
        assert_eq!(c.correct(2, 50, 50, None), 110);
    }

    #[test]
    fn multiply_with_and_without_cap() {
        let mut c = Corrector::new(
            Correction::Multiply {
                factor: 10,
                cap: None,
            },
            INC.to_vec(),
        );
        assert_eq!(c.correct(1, 1, 1, Some(5)), 10);
        assert_eq!(c.correct(1, 10, 10, None), 100);
        let mut c = Corrector::new(
            Correction::Multiply {
                factor: 10,
                cap: Some(500),
            },
            INC.to_vec(),
        );
        assert_eq!(c.correct(1, 100, 100, None), 500);
        assert_eq!(c.correct(1, 500, 500, None), 560);
    }

    #[test]
    fn always_beyond_elapsed() {
        let mut c = Corrector::new(Correction::ToEstimateThenIncrements, INC.to_vec());
        // A stale prediction far below the elapsed time still yields one beyond it.
        assert!(c.correct(3, 10, 5000, Some(20)) > 5000);
    }
}
