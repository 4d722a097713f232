//! What a user does after a result: the reaction to service that every closed-loop user
//! shares, trace, resampled and model-based alike (Feitelson 2021, §4.4, Fig. 18, after
//! Shmueli & Feitelson 2007).
//!
//! After a job ends, its user either goes on with the session (submits again within the
//! session threshold) or takes a break. The probability of going on is the continuation
//! curve's share at the job's response time, `p_sim = p(r_sim)`. A user's stream says
//! what it did under the reference service, whose share is `p_ref`: a trace user's
//! logged response (`p_ref = p(r_log)`), or for a model user, which has no logged
//! response, the share at the job's runtime under the log's own service
//! ([`ContinuationCurve::runtime_share`]). The reaction moves the stream's plan by the
//! least that makes the probability of going on `p_sim`:
//! - **planned to go on** (the next job follows within the threshold): it goes on with
//!   probability `min(1, p_sim / p_ref)`, else it takes a break;
//! - **planned to break** (the next job opens a later session, or the session has no
//!   next job): it goes on with probability `max(0, (p_sim - p_ref) / (1 - p_ref))`,
//!   with more of its own work (Feitelson 2021, §4.3: faster service lets "jobs that
//!   were submitted originally in the next session ... flow forward"): a trace user's
//!   next logged job comes the curve's median in-session think time after the result;
//!   a model user draws the next job of its session's class. Copying the job that just
//!   ended instead would not look like the logs: an in-session next job repeats the
//!   last one's size and runtime (within 5%) in 14.5% of KTH's pairs and 17.4% of the
//!   Curie sample's, and the users' own streams already hold those repetitions.
//!
//! Over the two cases the probability of going on is `p_ref · min(1, p_sim/p_ref) +
//! (1 - p_ref) · max(0, (p_sim - p_ref)/(1 - p_ref)) = p_sim`, so the share of sessions
//! that go on follows the service in both directions, and under the reference service
//! (`p_sim = p_ref`) nothing changes and no random number is drawn: trace users then
//! give back the log.

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::continuation::ContinuationCurve;
use crate::time::Time;

/// What a user's stream had it do after a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planned {
    /// Submit again within the session threshold.
    GoOn,
    /// Take a break, or end the session.
    Break,
}

/// What the user does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    /// As planned.
    AsPlanned,
    /// It planned to go on and takes a break instead (gives the session up).
    GiveUp,
    /// It planned a break and submits one more job instead (extends the session).
    Extend,
}

/// The probability that a user whose stream planned `planned` under the reference share
/// `reference` changes its plan at the simulated share `simulated`.
pub fn change_probability(planned: Planned, simulated: f64, reference: f64) -> f64 {
    match planned {
        Planned::GoOn if reference > simulated => 1.0 - simulated / reference,
        Planned::Break if simulated > reference && reference < 1.0 => {
            (simulated - reference) / (1.0 - reference)
        }
        _ => 0.0,
    }
}

/// The reaction of a user who planned `planned` after a job of simulated response
/// `simulated` whose reference share is `reference`; draws from `rng` only when the plan
/// may change.
pub fn react(
    curve: &ContinuationCurve,
    planned: Planned,
    simulated: Time,
    reference: f64,
    rng: &mut Xoshiro256PlusPlus,
) -> Reaction {
    let p = change_probability(planned, curve.share(simulated), reference);
    if p > 0.0 && rng.random::<f64>() < p {
        match planned {
            Planned::GoOn => Reaction::GiveUp,
            Planned::Break => Reaction::Extend,
        }
    } else {
        Reaction::AsPlanned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_service_changes_nothing() {
        for p in [0.0, 0.2, 0.77, 1.0] {
            assert_eq!(change_probability(Planned::GoOn, p, p), 0.0);
            assert_eq!(change_probability(Planned::Break, p, p), 0.0);
        }
    }

    #[test]
    fn worse_service_breaks_sessions_better_service_extends_them() {
        // Reference 0.5: at 0.25 half the planned continuations break, no break is
        // extended; at 0.75 half the planned breaks are extended.
        assert_eq!(change_probability(Planned::GoOn, 0.25, 0.5), 0.5);
        assert_eq!(change_probability(Planned::Break, 0.25, 0.5), 0.0);
        assert_eq!(change_probability(Planned::Break, 0.75, 0.5), 0.5);
        assert_eq!(change_probability(Planned::GoOn, 0.75, 0.5), 0.0);
        // Degenerate references never divide by zero.
        assert_eq!(change_probability(Planned::GoOn, 0.3, 0.0), 0.0);
        assert_eq!(change_probability(Planned::Break, 0.3, 1.0), 0.0);
    }

    #[test]
    fn going_on_has_the_simulated_share() {
        // p_ref · P(keep going | planned go on) + (1 - p_ref) · P(extend | planned break)
        // = p_sim, for any pair of shares.
        for (sim, reference) in [(0.1, 0.6), (0.6, 0.1), (0.5, 0.5), (0.9, 0.3), (0.0, 0.7)] {
            let go_on = reference * (1.0 - change_probability(Planned::GoOn, sim, reference))
                + (1.0 - reference) * change_probability(Planned::Break, sim, reference);
            assert!((go_on - sim).abs() < 1e-12, "{sim} {reference}: {go_on}");
        }
    }
}
