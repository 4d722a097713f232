//! The model-based site: the user-and-session workload model of Talby's thesis (seed
//! 004, chapters 9-13), run in the closed loop.
//!
//! Three layers (§6, §13.1): **users** of four classes arrive every week and are active
//! in some weeks ([`talby`], the thesis's fitted parameters in `models/talby2006.toml`);
//! an active user opens a number of **sessions** of five classes, each starting by the
//! daily and weekly cycle of its class ([`plan`]); a session is a run of **jobs** whose
//! distributions sitesim fits itself from logs ([`jobs`], `sitesim fit`, [`fit`]),
//! because the thesis publishes none. Within a session each job follows the previous
//! one's completion by a think time ([`site`]): the loop the thesis leaves open (§14.2).

pub mod calibrate;
pub mod dist;
pub mod fit;
pub mod jobs;
pub mod plan;
pub mod site;
pub mod talby;
pub mod tally;

pub use calibrate::{Calibrate, Calibration, ClosedLoopFit, calibrate};
pub use jobs::{DayCycle, JobLayer, RuntimeScale};
pub use plan::{CollisionRoom, Lifetime, PlanConfig, PlannedSession, SitePlan};
pub use site::{BusyUser, ModelSite, ModelSiteReport};
pub use talby::{Parameterization, SiteParams, TalbyModel};
pub use tally::{Tally, WorkloadFigures};

use serde::{Deserialize, Serialize};

/// The four user classes (Talby 2006, §9.5, Table 23).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UserClass {
    /// Long-term light users, 55%.
    Ltlu,
    /// Long-term heavy users, 20%: most of the load.
    Lthu,
    /// Short-term weekend users, 10%.
    Stwe,
    /// Short-term workday users, 15%.
    Stwd,
}

impl UserClass {
    /// Every class, in the thesis's order.
    pub const ALL: [UserClass; 4] = [
        UserClass::Ltlu,
        UserClass::Lthu,
        UserClass::Stwe,
        UserClass::Stwd,
    ];

    /// Its position in [`UserClass::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The thesis's abbreviation.
    pub fn name(self) -> &'static str {
        ["LTLU", "LTHU", "STWE", "STWD"][self.index()]
    }

    /// What the class is, in words (Talby 2006, §9.2).
    pub fn description(self) -> &'static str {
        [
            "long-term light",
            "long-term heavy",
            "short-term weekend",
            "short-term workday",
        ][self.index()]
    }
}

/// The five session classes (Talby 2006, §9.3, Table 21).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionClass {
    /// Interactive workday daytime, 43%.
    Iwd,
    /// Interactive workday night, 29%.
    Iwn,
    /// Interactive weekend, 21%.
    Iw,
    /// Batch highly parallel, 4%.
    Bhp,
    /// Batch high duration, 3%.
    Bhd,
}

impl SessionClass {
    /// Every class, in the order of Table 21.
    pub const ALL: [SessionClass; 5] = [
        SessionClass::Iwd,
        SessionClass::Iwn,
        SessionClass::Iw,
        SessionClass::Bhp,
        SessionClass::Bhd,
    ];

    /// Its position in [`SessionClass::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The thesis's abbreviation.
    pub fn name(self) -> &'static str {
        ["IWD", "IWN", "IW", "BHP", "BHD"][self.index()]
    }

    /// What the class is, in words (Talby 2006, Table 21).
    pub fn description(self) -> &'static str {
        [
            "interactive, workday daytime",
            "interactive, workday night",
            "interactive, weekend",
            "batch, highly parallel",
            "batch, long",
        ][self.index()]
    }
}

/// One value per session class, written in model files as `[iwd]`, `[iwn]`, ... tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerSessionClass<T> {
    /// Interactive workday daytime.
    pub iwd: T,
    /// Interactive workday night.
    pub iwn: T,
    /// Interactive weekend.
    pub iw: T,
    /// Batch highly parallel.
    pub bhp: T,
    /// Batch high duration.
    pub bhd: T,
}

impl<T> PerSessionClass<T> {
    /// The value of class `c`.
    pub fn get(&self, c: SessionClass) -> &T {
        match c {
            SessionClass::Iwd => &self.iwd,
            SessionClass::Iwn => &self.iwn,
            SessionClass::Iw => &self.iw,
            SessionClass::Bhp => &self.bhp,
            SessionClass::Bhd => &self.bhd,
        }
    }

    /// The values with their classes, in the order of Table 21.
    pub fn iter(&self) -> impl Iterator<Item = (SessionClass, &T)> {
        SessionClass::ALL.into_iter().map(move |c| (c, self.get(c)))
    }

    /// Builds one value per class with `f`.
    pub fn from_fn(mut f: impl FnMut(SessionClass) -> T) -> Self {
        PerSessionClass {
            iwd: f(SessionClass::Iwd),
            iwn: f(SessionClass::Iwn),
            iw: f(SessionClass::Iw),
            bhp: f(SessionClass::Bhp),
            bhd: f(SessionClass::Bhd),
        }
    }

    /// Applies `f` to every value.
    pub fn map<U>(&self, mut f: impl FnMut(SessionClass, &T) -> U) -> PerSessionClass<U> {
        PerSessionClass::from_fn(|c| f(c, self.get(c)))
    }
}
