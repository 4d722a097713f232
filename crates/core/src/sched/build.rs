//! How a scheduler is built: for a machine and its clock ([`BuildContext`]), by a
//! [`Builder`]. The registry of policies by name (`crate::registry`) hands out builders;
//! adaptive meta-schedulers (`crate::adaptive`) build their candidates with them.

use std::sync::Arc;

use super::Scheduler;
use crate::localtime::SiteClock;

/// What a policy is built for: the machine and its clock.
#[derive(Debug, Clone)]
pub struct BuildContext {
    /// Processors.
    pub procs: u32,
    /// The site's local time (for policies that follow the time of day).
    pub clock: SiteClock,
}

impl BuildContext {
    /// A machine of `procs` processors on a UTC clock.
    pub fn new(procs: u32) -> Self {
        BuildContext {
            procs,
            clock: SiteClock::utc(),
        }
    }
}

/// Builds a fresh scheduler of a configured policy.
pub type Builder = Arc<dyn Fn(&BuildContext) -> Box<dyn Scheduler> + Send + Sync>;

/// A [`Builder`] from a function returning a concrete scheduler.
pub fn builder<S: Scheduler + 'static>(
    build: impl Fn(&BuildContext) -> S + Send + Sync + 'static,
) -> Builder {
    Arc::new(move |ctx| Box::new(build(ctx)))
}
