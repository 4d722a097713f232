//! The user and session layers of Talby's model (Talby 2006, chapters 10-12), with the
//! thesis's fitted parameters read from `models/talby2006.toml`.
//!
//! Where the thesis's formulas leave their valid range, sitesim corrects them (notes §9,
//! `docs/MODELS.md`): class shares (Table 30) and session-class probabilities (Eq 18) that
//! turn negative are clamped to 0 and the rest renormalized; inactivity probabilities
//! (Eq 24) are clamped to `[0, cap]`; the generalized Pareto scale of sessions per week
//! (Table 33) is floored, since STWD's turns negative from week 29, and its week of
//! activity is capped at the last fitted week; negative start-up user counts (Eq 13 at
//! loads over 0.73) are clamped to 0.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use super::dist::{Categorical, GenPareto, LogLogistic, stochastic_round};
use super::{PerSessionClass, SessionClass, UserClass};
use crate::time::Time;

/// One value per user class, written as `ltlu = ...` keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerUserClass<T> {
    /// Long-term light.
    pub ltlu: T,
    /// Long-term heavy.
    pub lthu: T,
    /// Short-term weekend.
    pub stwe: T,
    /// Short-term workday.
    pub stwd: T,
}

impl<T> PerUserClass<T> {
    /// The value of class `c`.
    pub fn get(&self, c: UserClass) -> &T {
        match c {
            UserClass::Ltlu => &self.ltlu,
            UserClass::Lthu => &self.lthu,
            UserClass::Stwe => &self.stwe,
            UserClass::Stwd => &self.stwd,
        }
    }
}

/// `[new_users]`: log-logistic new users per week (§11.2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewUsers {
    /// Location of the log.
    pub mu: f64,
    /// Scale of the log.
    pub sigma: f64,
}

/// `[startup_users]`: Eq 13 and §12.4.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartupUsers {
    /// Slope on CPU load.
    pub slope: f64,
    /// Intercept.
    pub intercept: f64,
    /// Half-width of the uniform residual.
    pub residual: f64,
    /// Largest week of activity of a start-up user.
    pub max_week: u32,
}

/// A linear share `cpu_work * Cm + load * CL + constant` (Table 30).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareFit {
    /// Coefficient of the median CPU work, seconds.
    pub cpu_work: f64,
    /// Coefficient of the CPU load.
    pub load: f64,
    /// Constant.
    pub constant: f64,
}

/// `[user_class]` (§11.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserClassMix {
    /// Probability that a new user has the previous user's class.
    pub repeat_previous: f64,
    /// Table 30.
    #[serde(flatten)]
    pub shares: PerUserClass<ShareFit>,
}

/// `a * ln(WoA) + b` (Table 32).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogFit {
    /// Slope on `ln(WoA)`.
    pub a: f64,
    /// Intercept.
    pub b: f64,
}

/// `[inactivity]` (§12.2, Eq 24).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inactivity {
    /// Adjustment in week 2.
    pub week2: f64,
    /// Adjustment in weeks 3 to 5.
    pub weeks3to5: f64,
    /// Largest probability from week 6 on.
    pub cap: f64,
    /// Table 32.
    #[serde(flatten)]
    pub fits: PerUserClass<LogFit>,
}

/// The sessions-per-week fit of one user class (Tables 33, 34).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionsFit {
    /// Slope of the shape on WoA.
    pub k_slope: f64,
    /// Intercept of the shape.
    pub k_intercept: f64,
    /// Slope of the scale on WoA.
    pub sigma_slope: f64,
    /// Intercept of the scale.
    pub sigma_intercept: f64,
    /// Shape in week 1 (Table 34).
    pub first_k: f64,
    /// Scale in week 1 (Table 34).
    pub first_sigma: f64,
}

/// `[sessions]` (§12.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sessions {
    /// Location of every fit.
    pub location: f64,
    /// The WoA of the formulas is capped here.
    pub last_week: u32,
    /// The scale is at least this.
    pub sigma_floor: f64,
    /// Tables 33 and 34.
    #[serde(flatten)]
    pub fits: PerUserClass<SessionsFit>,
}

/// `slope * WoA + intercept`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearFit {
    /// Slope.
    pub slope: f64,
    /// Intercept.
    pub intercept: f64,
}

/// `[session_class]` (§12.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionClassModel {
    /// Global shares, IWD, IWN, IW, BHP, BHD.
    pub overall: [f64; 5],
    /// Table 36.
    pub drift: PerSessionClass<LinearFit>,
    /// Table 35b-e, percent, by previous class.
    pub chain: PerUserClass<PerSessionClass<[f64; 5]>>,
}

/// `[collision]` (Listing 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Collision {
    /// Least time between two sessions of a user, seconds.
    pub gap: Time,
    /// Redraws of a week's session times.
    pub tries: u32,
    /// Redraws of a week's session classes.
    pub class_tries: u32,
}

/// A power law `coefficient * MS^exponent`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerFit {
    /// Coefficient.
    pub coefficient: f64,
    /// Exponent.
    pub exponent: f64,
}

/// `[machine_size]` (Table 28).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSizeFits {
    /// Median CPU work.
    pub cpu_work: PowerFit,
    /// Jobs per day, linear in MS.
    pub jobs_per_day: LinearFit,
    /// CPU load, linear in ln(MS).
    pub load: LinearFit,
}

/// `[valid]` (§14.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidRange {
    /// Processors.
    pub procs: [u32; 2],
    /// CPU load.
    pub load: [f64; 2],
    /// Median CPU work, seconds.
    pub cpu_work: [f64; 2],
}

/// The thesis's user and session layers, as `models/talby2006.toml` holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TalbyModel {
    /// New users per week.
    pub new_users: NewUsers,
    /// Users active at start-up.
    pub startup_users: StartupUsers,
    /// User classes.
    pub user_class: UserClassMix,
    /// Weekly inactivity.
    pub inactivity: Inactivity,
    /// Sessions per active week.
    pub sessions: Sessions,
    /// Session classes.
    pub session_class: SessionClassModel,
    /// The collision rule.
    pub collision: Collision,
    /// Parameters from machine size.
    pub machine_size: MachineSizeFits,
    /// The valid range.
    pub valid: ValidRange,
}

/// The model file shipped in `models/talby2006.toml`, built into the binary.
pub const TALBY2006: &str = crate::model_files::TALBY2006;

/// How a site is parameterized (§10.5, §11.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Parameterization {
    /// By machine size alone: median CPU work, jobs per day and load from Table 28.
    MachineSize(u32),
    /// By machine size, median CPU work (seconds) and CPU load.
    Explicit {
        /// Processors.
        procs: u32,
        /// Median CPU work per job, seconds.
        cpu_work: f64,
        /// CPU load.
        load: f64,
    },
}

/// The parameters of a site.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SiteParams {
    /// Processors (MS).
    pub procs: u32,
    /// Median CPU work per job, seconds (Cm).
    pub cpu_work: f64,
    /// CPU load (CL).
    pub load: f64,
    /// Jobs per day (JD) of a machine this size by Table 28: the target of the user
    /// counts ([`super::calibrate`]).
    pub jobs_per_day: f64,
    /// Whether Cm and CL were given rather than computed from the machine size.
    pub explicit: bool,
}

/// Shares clamped to be non-negative and renormalized; all zero gives equal shares.
fn clamp_renormalize<const N: usize>(mut p: [f64; N]) -> [f64; N] {
    for v in &mut p {
        *v = v.max(0.0);
    }
    let total: f64 = p.iter().sum();
    if total > 0.0 {
        p.map(|v| v / total)
    } else {
        [1.0 / N as f64; N]
    }
}

impl TalbyModel {
    /// Parses a model file; errors name the file and the key and line at fault.
    pub fn parse(text: &str, name: &str) -> Result<TalbyModel, String> {
        let m: TalbyModel =
            toml::from_str(text).map_err(|e| crate::textfmt::toml_error(name, text, &e))?;
        m.check().map_err(|e| format!("{name}: {e}"))?;
        Ok(m)
    }

    /// The shipped model.
    pub fn shipped() -> TalbyModel {
        TalbyModel::parse(TALBY2006, "models/talby2006.toml").expect("the shipped model parses")
    }

    /// The same model drawing each week's sessions once, whatever their collisions: the
    /// workload whose expectation [`super::calibrate()`] computes, beside which the
    /// closed-loop calibration measures the one the collision rule's redraws keep.
    pub fn without_redraws(&self) -> TalbyModel {
        TalbyModel {
            collision: Collision {
                tries: 1,
                class_tries: 1,
                ..self.collision
            },
            ..self.clone()
        }
    }

    fn check(&self) -> Result<(), String> {
        let share = |key: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("{key} must be in [0, 1], is {v}"))
            }
        };
        share(
            "[user_class] repeat_previous",
            self.user_class.repeat_previous,
        )?;
        share("[inactivity] cap", self.inactivity.cap)?;
        if !(self.new_users.sigma.is_finite() && self.new_users.sigma > 0.0) {
            return Err("[new_users] sigma must be positive".into());
        }
        let residual = self.startup_users.residual;
        if !(residual.is_finite() && residual >= 0.0) || self.startup_users.max_week == 0 {
            return Err("[startup_users] needs residual >= 0 and max_week >= 1".into());
        }
        let floor = self.sessions.sigma_floor;
        if !(floor.is_finite() && floor > 0.0) || self.sessions.last_week == 0 {
            return Err("[sessions] needs sigma_floor > 0 and last_week >= 1".into());
        }
        for (c, row) in UserClass::ALL
            .iter()
            .flat_map(|&u| self.session_class.chain.get(u).iter().map(move |r| (u, r)))
        {
            if row.1.iter().any(|v| !(v.is_finite() && *v >= 0.0))
                || row.1.iter().sum::<f64>() <= 0.0
            {
                return Err(format!(
                    "[session_class.chain.{}] {}: needs non-negative percentages, not all zero",
                    c.name().to_lowercase(),
                    row.0.name().to_lowercase()
                ));
            }
        }
        if self.collision.gap < 0 || self.collision.tries == 0 || self.collision.class_tries == 0 {
            return Err("[collision] needs gap >= 0, tries >= 1 and class_tries >= 1".into());
        }
        let v = &self.valid;
        if v.procs[0] > v.procs[1] || v.load[0] > v.load[1] || v.cpu_work[0] > v.cpu_work[1] {
            return Err("[valid] each range must be [low, high]".into());
        }
        Ok(())
    }

    /// The site's parameters; an error outside the valid range.
    pub fn site(&self, p: Parameterization) -> Result<SiteParams, String> {
        let v = &self.valid;
        let procs = match p {
            Parameterization::MachineSize(m) | Parameterization::Explicit { procs: m, .. } => m,
        };
        if procs < v.procs[0] || procs > v.procs[1] {
            return Err(format!(
                "the model is valid for {} to {} processors (Talby 2006, §14.1), not {procs}",
                v.procs[0], v.procs[1]
            ));
        }
        let ms = f64::from(procs);
        let t = &self.machine_size;
        let jobs_per_day = t.jobs_per_day.slope * ms + t.jobs_per_day.intercept;
        let (cpu_work, load) = match p {
            Parameterization::MachineSize(_) => (
                t.cpu_work.coefficient * ms.powf(t.cpu_work.exponent),
                t.load.slope * ms.ln() + t.load.intercept,
            ),
            Parameterization::Explicit { cpu_work, load, .. } => {
                if !(v.load[0]..=v.load[1]).contains(&load) {
                    return Err(format!(
                        "the model is valid for loads of {} to {} (Talby 2006, §14.1), not {load}",
                        v.load[0], v.load[1]
                    ));
                }
                if !(v.cpu_work[0]..=v.cpu_work[1]).contains(&cpu_work) {
                    return Err(format!(
                        "the model is valid for a median CPU work of {} to {} s (the model logs \
                         of Talby 2006, Table 2), not {cpu_work}",
                        v.cpu_work[0], v.cpu_work[1]
                    ));
                }
                (cpu_work, load)
            }
        };
        Ok(SiteParams {
            procs,
            cpu_work,
            load,
            jobs_per_day,
            explicit: matches!(p, Parameterization::Explicit { .. }),
        })
    }

    /// The new-user distribution (§11.2).
    pub fn new_users(&self) -> LogLogistic {
        LogLogistic {
            mu: self.new_users.mu,
            sigma: self.new_users.sigma,
        }
    }

    /// Users active at start-up at load `load` (Eq 13), times `factor`, at least 0.
    pub fn startup_users<R: Rng + ?Sized>(&self, load: f64, factor: f64, rng: &mut R) -> u32 {
        let mean = self.startup_mean(load, factor, rng);
        stochastic_round(mean, rng)
    }

    /// The count [`TalbyModel::startup_users`] rounds: Eq 13 at load `load` with its
    /// residual drawn, times `factor`, at least 0.
    pub fn startup_mean<R: Rng + ?Sized>(&self, load: f64, factor: f64, rng: &mut R) -> f64 {
        let s = &self.startup_users;
        let r = if s.residual > 0.0 {
            rng.random_range(-s.residual..s.residual)
        } else {
            0.0
        };
        (s.slope * load + s.intercept + r).max(0.0) * factor
    }

    /// The raw class shares of Table 30, before clamping.
    pub fn raw_class_shares(&self, site: &SiteParams) -> [f64; 4] {
        UserClass::ALL.map(|c| {
            let f = self.user_class.shares.get(c);
            f.cpu_work * site.cpu_work + f.load * site.load + f.constant
        })
    }

    /// The class shares of new users (Table 30), clamped and renormalized.
    pub fn class_shares(&self, site: &SiteParams) -> [f64; 4] {
        clamp_renormalize(self.raw_class_shares(site))
    }

    /// The class of a new user: the previous user's with probability `repeat_previous`
    /// (§11.4), else by `shares`.
    pub fn user_class<R: Rng + ?Sized>(
        &self,
        previous: Option<UserClass>,
        shares: &Categorical,
        rng: &mut R,
    ) -> UserClass {
        match previous {
            Some(p) if rng.random::<f64>() < self.user_class.repeat_previous => p,
            _ => UserClass::ALL[shares.sample(rng)],
        }
    }

    /// The probability that a user of class `c` has no session in its week of activity
    /// `woa` (Eq 24), clamped to `[0, cap]`.
    pub fn inactive(&self, c: UserClass, woa: u32) -> f64 {
        if woa <= 1 {
            return 0.0;
        }
        let i = &self.inactivity;
        let f = i.fits.get(c);
        let p = f.a * f64::from(woa).ln() + f.b;
        let p = match woa {
            2 => p + i.week2,
            3..=5 => p + i.weeks3to5,
            _ => p,
        };
        p.clamp(0.0, i.cap)
    }

    /// The raw (unclamped) shape and scale of Table 33/34 in week `woa`.
    pub fn raw_sessions_fit(&self, c: UserClass, woa: u32) -> (f64, f64) {
        let f = self.sessions.fits.get(c);
        if woa <= 1 {
            return (f.first_k, f.first_sigma);
        }
        let w = f64::from(woa);
        (
            f.k_slope * w + f.k_intercept,
            f.sigma_slope * w + f.sigma_intercept,
        )
    }

    /// The distribution of sessions in an active week `woa` of a user of class `c`
    /// (§12.3), with the week capped at the last fitted one and the scale floored.
    pub fn sessions(&self, c: UserClass, woa: u32) -> GenPareto {
        let s = &self.sessions;
        let (k, sigma) = self.raw_sessions_fit(c, woa.min(s.last_week));
        GenPareto {
            k,
            sigma: sigma.max(s.sigma_floor),
            mu: s.location,
        }
    }

    /// A number of sessions in an active week: the continuous draw rounded to the nearest
    /// integer, at least 1.
    pub fn sessions_in_week<R: Rng + ?Sized>(&self, c: UserClass, woa: u32, rng: &mut R) -> u32 {
        let x = self.sessions(c, woa).sample(rng);
        (x.round().clamp(1.0, 1000.0)) as u32
    }

    /// The week of activity of a start-up user of class `c` (Eq 46/57): `P(w)` proportional
    /// to the probability of a session in weeks `w..w+11`, over `1..=max_week`.
    pub fn startup_week(&self, c: UserClass) -> Categorical {
        let weights: Vec<f64> = (1..=self.startup_users.max_week)
            .map(|w| 1.0 - (w..w + 12).map(|x| self.inactive(c, x)).product::<f64>())
            .collect();
        Categorical::new(&weights).expect("week weights are positive: week 1 is always active")
    }

    /// The raw session-class probabilities of Eq 18, before clamping; the drift alone for
    /// a user's first session.
    pub fn raw_session_class(
        &self,
        c: UserClass,
        woa: u32,
        previous: Option<SessionClass>,
    ) -> [f64; 5] {
        let m = &self.session_class;
        let w = f64::from(woa);
        let drift = SessionClass::ALL.map(|s| {
            let d = m.drift.get(s);
            d.slope * w + d.intercept
        });
        match previous {
            None => drift,
            Some(p) => {
                let row = m.chain.get(c).get(p);
                let total: f64 = row.iter().sum();
                let mut out = drift;
                for i in 0..5 {
                    out[i] += row[i] / total - m.overall[i];
                }
                out
            }
        }
    }

    /// The probabilities of the class of a session (Eq 18), clamped and renormalized.
    pub fn session_class(
        &self,
        c: UserClass,
        woa: u32,
        previous: Option<SessionClass>,
    ) -> [f64; 5] {
        clamp_renormalize(self.raw_session_class(c, woa, previous))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_model_parses_and_reproduces_worked_values() {
        let m = TalbyModel::shipped();
        // Notes §2.7: MS 128 -> Cm 539, JD 46.0, CL 0.699.
        let s = m.site(Parameterization::MachineSize(128)).unwrap();
        assert!((s.cpu_work - 539.0).abs() < 1.0, "{}", s.cpu_work);
        assert!((s.jobs_per_day - 46.0).abs() < 0.1);
        assert!((s.load - 0.699).abs() < 0.001);
        // The thesis's worked example of Eq 18: LTLU, WoA 10, previous IW -> IWD 51.87%.
        let raw = m.raw_session_class(UserClass::Ltlu, 10, Some(SessionClass::Iw));
        assert!((raw[0] - 0.5187).abs() < 1e-9, "{raw:?}");
        // Notes §2.11: LTLU inactivity 0.427 in week 2 and 0.682 in week 6.
        assert!((m.inactive(UserClass::Ltlu, 2) - 0.427).abs() < 0.001);
        assert!((m.inactive(UserClass::Ltlu, 6) - 0.682).abs() < 0.001);
        assert_eq!(m.inactive(UserClass::Stwe, 52), 0.97);
        // Notes §2.10: Cm 264, CL 0.6 -> LTHU .203, LTLU .558, STWE .091, STWD .149.
        let shares = m.class_shares(&SiteParams {
            procs: 128,
            cpu_work: 264.0,
            load: 0.6,
            jobs_per_day: 0.0,
            explicit: true,
        });
        for (got, want) in shares.iter().zip([0.558, 0.203, 0.091, 0.149]) {
            assert!((got - want).abs() < 0.001, "{shares:?}");
        }
    }

    #[test]
    fn clamps_apply_where_the_raw_formulas_go_negative() {
        let m = TalbyModel::shipped();
        // Notes §2.14: LTLU, previous IWD, WoA 1 -> P(BHD) = -0.0075 raw.
        let raw = m.raw_session_class(UserClass::Ltlu, 1, Some(SessionClass::Iwd));
        assert!(raw[4] < 0.0, "{raw:?}");
        let p = m.session_class(UserClass::Ltlu, 1, Some(SessionClass::Iwd));
        assert_eq!(p[4], 0.0);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // STWD's scale is negative from week 29 (notes §2.12); it is floored.
        assert!(m.raw_sessions_fit(UserClass::Stwd, 40).1 < 0.0);
        assert_eq!(
            m.sessions(UserClass::Stwd, 40).sigma,
            m.sessions.sigma_floor
        );
        // A big median CPU work sends LTLU's share negative (notes §2.10).
        let site = SiteParams {
            procs: 128,
            cpu_work: 3000.0,
            load: 0.8,
            jobs_per_day: 0.0,
            explicit: true,
        };
        assert!(m.raw_class_shares(&site)[0] < 0.0);
        let shares = m.class_shares(&site);
        assert_eq!(shares[0], 0.0);
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn parameters_outside_the_valid_range_are_errors() {
        let m = TalbyModel::shipped();
        let e = m.site(Parameterization::MachineSize(64)).unwrap_err();
        assert!(e.contains("100 to 2048 processors"), "{e}");
        let e = m
            .site(Parameterization::Explicit {
                procs: 512,
                cpu_work: 100.0,
                load: 0.95,
            })
            .unwrap_err();
        assert!(e.contains("loads of 0.4 to 0.8"), "{e}");
        let e = m
            .site(Parameterization::Explicit {
                procs: 512,
                cpu_work: 5000.0,
                load: 0.6,
            })
            .unwrap_err();
        assert!(e.contains("CPU work"), "{e}");
    }

    #[test]
    fn model_file_errors_name_the_key_and_line() {
        let text = TALBY2006.replace("repeat_previous = 0.10", "repeat_previous = 1.5");
        let e = TalbyModel::parse(&text, "m.toml").unwrap_err();
        assert!(e.contains("repeat_previous must be in [0, 1]"), "{e}");
        let text = TALBY2006.replace("cap = 0.97", "cap = 0.97\nbogus = 1");
        let e = TalbyModel::parse(&text, "m.toml").unwrap_err();
        assert!(e.contains("bogus"), "{e}");
        let text = TALBY2006.replace("mu = 1.25", "mu = \"x\"");
        let e = TalbyModel::parse(&text, "m.toml").unwrap_err();
        let line = 1 + text.lines().position(|l| l.starts_with("mu =")).unwrap();
        assert!(e.starts_with(&format!("m.toml:{line}:")), "{e}");
    }
}
