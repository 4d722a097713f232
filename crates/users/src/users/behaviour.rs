//! How users react to the service they get (Feitelson 2021, §4.3-4.4).
//!
//! **Continuation.** The longer a job's response time, the less likely its user is to
//! continue the session (Feitelson 2021, Fig. 18, after Shmueli & Feitelson 2007): the
//! [`ContinuationCurve`] of [`super::continuation`], fitted from a log, by which
//! [`super::reaction`] breaks sessions off and extends them. On by default.
//!
//! **Patience.** Users "abandon the system if it is too slow" (Feitelson 2021, §4.4): a
//! user whose jobs wait too long a given number of times leaves for good and is counted
//! as frustrated (§4.4, Table 1). On by default, fitted from the log
//! ([`Patience::of_waits`]): a wait counts against a user when it is longer than the
//! log's own service gave the job by more than the longest wait any of the log's users
//! put up with ([`Patience::strike`]). So the log's own service frustrates nobody and
//! gives back the log, a service twice as slow (every wait doubled) frustrates nobody
//! either (no job waits longer than the log's service gave it by more than its own
//! logged wait), and only congestion the site never saw drives users away. Why not a
//! curve of departures by response, as Fig. 18 is fitted for sessions: a log's own
//! departures do not depend on the service it gave (on KTH and the Curie sample the
//! share of results after which their user left for good is the same, 0.5%, after a
//! minute as after a day: the fitted logistic's slope is 0.03 and 0.07 per unit of
//! ln(response)), so the log gives no such curve; what it gives is how long its users
//! did wait. A limit nearer the bulk of the waits (their 99th percentile, 72 h on KTH)
//! would count the waits of KTH's heaviest users under a service twice as slow: 25 of
//! its 214 users, with 57% of its work, waited 72 h on average over three jobs in a row
//! in the log.

use std::str::FromStr;

use serde::Serialize;

use super::continuation::ContinuationCurve;
use crate::time::{Time, parse_duration};

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
    /// Waits over the limit after which a user leaves, unless set (ours: the seeds give
    /// no number).
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

    /// The patience of the users of a log whose jobs waited `waits`: the longest of the
    /// waits, the most its users ever put up with, and at least `threshold`, the session
    /// threshold (a wait shorter than a pause within a session costs a user nothing it
    /// would notice); `strikes` of them. `None` for a log without jobs.
    pub fn of_waits(
        waits: impl Iterator<Item = Time>,
        threshold: Time,
        strikes: u32,
    ) -> Option<Self> {
        waits.max().map(|longest| Patience {
            limit: longest.max(threshold),
            strikes,
        })
    }

    /// Counts a job's `wait` against a user with `strikes` so far, the job having waited
    /// `reference` under the log's own service (a trace user's logged wait; `None` for a
    /// model user, which has none, and counts from 0): a wait counts when it is longer
    /// than the reference by more than the limit. Whether the user leaves now.
    pub fn strike(&self, wait: Time, reference: Option<Time>, strikes: &mut u64) -> bool {
        if wait.saturating_sub(reference.unwrap_or(0)) > self.limit {
            *strikes += 1;
            *strikes >= u64::from(self.strikes)
        } else {
            false
        }
    }
}

/// Where the patience limit comes from (`--patience`, scenario `patience`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PatienceLimit {
    /// Fitted from the log ([`Patience::of_waits`]; for a model site, the log its
    /// continuation curve was fitted from, [`ContinuationCurve::patience`]): the default.
    #[default]
    Fit,
    /// No user ever leaves.
    Off,
    /// This many seconds.
    Given(Time),
}

impl FromStr for PatienceLimit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fit" => Ok(PatienceLimit::Fit),
            "off" => Ok(PatienceLimit::Off),
            _ => parse_duration(s)
                .map(PatienceLimit::Given)
                .map_err(|e| format!("'{s}' is not a patience ('fit', 'off' or a duration): {e}")),
        }
    }
}

impl std::fmt::Display for PatienceLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PatienceLimit::Fit => write!(f, "fit"),
            PatienceLimit::Off => write!(f, "off"),
            PatienceLimit::Given(t) => write!(f, "{t}"),
        }
    }
}

/// How users' patience is set: its limit and the waits over it after which they leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PatienceOption {
    /// The limit.
    pub limit: PatienceLimit,
    /// Waits over it after which a user leaves.
    pub strikes: u32,
}

impl Default for PatienceOption {
    fn default() -> Self {
        PatienceOption {
            limit: PatienceLimit::Fit,
            strikes: Patience::DEFAULT_STRIKES,
        }
    }
}

impl PatienceOption {
    /// The patience this option gives, `fitted` giving the fitted limit (its strikes are
    /// the option's).
    pub fn resolve(&self, fitted: impl FnOnce() -> Option<Patience>) -> Option<Patience> {
        match self.limit {
            PatienceLimit::Off => None,
            PatienceLimit::Given(limit) => Some(Patience {
                limit,
                strikes: self.strikes,
            }),
            PatienceLimit::Fit => fitted().map(|p| Patience {
                strikes: self.strikes,
                ..p
            }),
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

    #[test]
    fn patience_is_the_longest_wait_and_at_least_the_threshold() {
        let p = Patience::of_waits(0..200, 10, 3).unwrap();
        assert_eq!(
            p,
            Patience {
                limit: 199,
                strikes: 3
            }
        );
        assert_eq!(Patience::of_waits(0..200, 1000, 2).unwrap().limit, 1000);
        assert!(Patience::of_waits(std::iter::empty(), 1, 3).is_none());
    }

    #[test]
    fn waits_count_by_how_much_longer_they_are_than_the_logs() {
        let p = Patience {
            limit: 100,
            strikes: 2,
        };
        let mut strikes = 0;
        // 300 s longer than the log's 400: a strike; twice the log's 100 s: none.
        assert!(!p.strike(700, Some(400), &mut strikes));
        assert_eq!(strikes, 1);
        assert!(!p.strike(200, Some(100), &mut strikes));
        assert!(!p.strike(100, None, &mut strikes));
        assert_eq!(strikes, 1);
        // A user with no log counts from 0.
        assert!(p.strike(101, None, &mut strikes));
        assert_eq!(strikes, 2);
    }

    #[test]
    fn patience_options_read_and_resolve() {
        assert_eq!("fit".parse(), Ok(PatienceLimit::Fit));
        assert_eq!("off".parse(), Ok(PatienceLimit::Off));
        assert_eq!("2d".parse(), Ok(PatienceLimit::Given(172_800)));
        assert!(
            "soon"
                .parse::<PatienceLimit>()
                .unwrap_err()
                .contains("'fit', 'off'")
        );
        let fitted = || Patience::new(50, Some(9)).ok();
        let o = PatienceOption {
            limit: PatienceLimit::Fit,
            strikes: 4,
        };
        assert_eq!(
            o.resolve(fitted),
            Some(Patience {
                limit: 50,
                strikes: 4
            })
        );
        let o = PatienceOption {
            limit: PatienceLimit::Given(7),
            ..PatienceOption::default()
        };
        assert_eq!(
            o.resolve(fitted),
            Some(Patience {
                limit: 7,
                strikes: 3
            })
        );
        let o = PatienceOption {
            limit: PatienceLimit::Off,
            ..PatienceOption::default()
        };
        assert_eq!(o.resolve(fitted), None);
    }
}
