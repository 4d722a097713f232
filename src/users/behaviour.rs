//! How users react to the service they get (Feitelson 2021, §4.3-4.4).
//!
//! **Continuation.** The longer a job's response time, the less likely its user is to
//! continue the session (Feitelson 2021, Fig. 18, after Shmueli & Feitelson 2007): the
//! [`ContinuationCurve`] of [`super::continuation`], fitted from a log, by which
//! [`super::reaction`] breaks sessions off and extends them. On by default.
//!
//! **Patience.** A user whose jobs wait longer than a patience limit, a given number of
//! times, leaves for good and is counted as frustrated (Feitelson 2021, §4.4, Table 1).

use serde::Serialize;

use super::continuation::ContinuationCurve;
use crate::time::Time;

/// The curve fitted from KTH, built in: the default of model-based sites.
pub const KTH_CONTINUATION: &str = crate::model_files::CONTINUATION_KTH;

/// When users leave for good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Patience {
    /// A wait longer than this counts against the user, seconds.
    pub limit: Time,
    /// Waits over the limit after which the user leaves.
    pub strikes: u32,
}

impl Patience {
    /// Waits over the limit after which a user leaves, unless set.
    pub const DEFAULT_STRIKES: u32 = 3;

    /// Users leave after `strikes` waits (3 unless given) longer than `limit`; refuses
    /// no strike at all.
    pub fn new(limit: Time, strikes: Option<u32>) -> Result<Patience, String> {
        let strikes = strikes.unwrap_or(Self::DEFAULT_STRIKES);
        if strikes == 0 {
            return Err("strikes must be at least 1".into());
        }
        Ok(Patience { limit, strikes })
    }

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
