//! Fits a model site to its parameters (Talby 2006, §10.3-10.5, §11.1): the jobs per day
//! (JD), the median CPU work (Cm) and the CPU load (CL) that Table 28 gives for the
//! machine size, or that the scenario sets.
//!
//! The thesis places workloads on two axes (§10.2-10.3): the **Multiple Jobs** axis (JD,
//! CL) and the **Single Job** axis (Cm, with Rm, Ri, Pm, ... following it, Table 24).
//! sitesim moves each by the layer the thesis assigns it to:
//!
//! - **JD, the user layer** (§10.1, §10.4: load acts "at the user and session levels"):
//!   the users active at start-up (Eq 13) and the new users of every week (§11.2) are
//!   multiplied by one factor, so that the expected jobs per day of the generated
//!   workload is JD. The expectation is computed from the model's own formulas (below),
//!   not by trial runs.
//! - **Cm, the job layer**: the fitted runtimes are mapped so that their median, over the
//!   site's mix of session classes, is Cm. Table 2 measures Cm as the median CPU time
//!   per processor (the runtime where a log records no CPU time: KTH's Cm, 847 s, is its
//!   median runtime, while its median runtime x processors is 2,909 s), and the model's
//!   jobs use their processors fully (§10.4), so the median runtime is Cm.
//! - **CL, the spread of the job layer**: with JD and Cm fixed, the load is the mean work
//!   per job, `CL x 86,400 x MS / JD`, a mean that the median does not fix. The runtimes
//!   are mapped as `Cm x (r / m)^k` (`m` the fitted median): `k` widens or narrows their
//!   spread in log space around the median, and is solved so that the expected load is
//!   CL. The thesis ties the spread to the Single Job axis too (Table 24's Ri), but its
//!   Table 28 fixes JD, Cm and CL together, which leaves the spread as the one free
//!   quantity (`docs/MODELS.md`, "Parameterization").
//!
//! The expectations: start-up users `E[max(0, AUS)]` (Eq 13), new users the log-logistic
//! mean `e^mu pi sigma / sin(pi sigma)` a week (§11.2); each user class in its Table 30
//! share; a user of class `c` in week of activity `w` is active with probability
//! `1 - P(S = 0)` (Eq 24) and then opens `E[round(GPD)]` sessions (Tables 33-34), whose
//! classes follow the stationary distribution of its Eq 18 chain in that week. Each
//! session class brings its fitted mean number of jobs, and its jobs' runtimes and sizes
//! are independent draws from the class's fitted distributions (§13.1), so the work per
//! job of a class is its mean runtime times its mean size.

use serde::Serialize;

use super::dist::Quantiles;
use super::jobs::{JobLayer, RuntimeScale, scale_size};
use super::plan::Lifetime;
use super::talby::{SiteParams, TalbyModel};
use super::{SessionClass, UserClass};
use crate::time::{DAY, Time, WEEK};

/// What a model site's user counts and runtimes are fitted to (scenario key
/// `calibrate`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Calibrate {
    /// What its users submit in the closed loop, reacting to service under EASY (the
    /// default): the site's figures are what a log of it would show.
    #[default]
    Submitted,
    /// What its plan generates, in expectation ([`calibrate`]): the users then submit
    /// less where the machine makes them give sessions up, and more where it serves them
    /// better than the log their reactions were measured in.
    Generated,
    /// Nothing: the thesis's user counts and the fitted runtimes.
    Off,
}

/// What a site is fitted to and how.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Calibration {
    /// Multiplier on start-up and new users, so that the expected jobs per day is JD.
    pub users: f64,
    /// The mapping of runtimes, for Cm and CL.
    pub runtime: RuntimeScale,
    /// Expected jobs per day of the uncalibrated population (multiplier 1).
    pub base_jobs_per_day: f64,
    /// Expected jobs per day, median runtime and load of the calibrated workload.
    pub expected: Expected,
    /// How the targets of the generated workload were fitted so that the closed loop
    /// submits the site's figures; none when the generated workload is fitted to them.
    pub closed_loop: Option<ClosedLoopFit>,
}

/// A calibration fitted in the closed loop: trial runs of the site under a reference
/// scheduler measure what its users submit against what its plan generates, and the
/// generated workload's targets are the site's divided by those ratios.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClosedLoopFit {
    /// The reference scheduler of the trials.
    pub scheduler: &'static str,
    /// Trial replications per round.
    pub trials: u32,
    /// Rounds: each measures the ratios at the previous round's calibration.
    pub rounds: u32,
    /// Submitted over generated jobs per day, median runtime and load in the last
    /// round's trials (the generated workload drawn from the same plans without the
    /// collision rule's redraws, whose expectation the calibration computes).
    pub ratios: Expected,
}

impl Expected {
    /// `f` of `a` and `b`, figure by figure.
    pub fn each(a: &Expected, b: &Expected, f: impl Fn(f64, f64) -> f64) -> Expected {
        Expected {
            jobs_per_day: f(a.jobs_per_day, b.jobs_per_day),
            median_runtime: f(a.median_runtime, b.median_runtime),
            load: f(a.load, b.load),
        }
    }
}

/// Expected figures of a generated workload, or the figures a calibration aims at.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Expected {
    /// Jobs per day.
    pub jobs_per_day: f64,
    /// Median runtime (CPU time per processor), seconds.
    pub median_runtime: f64,
    /// Offered load: runtime x processors over the machine's capacity.
    pub load: f64,
}

impl Calibration {
    /// No calibration: the thesis's user counts and the fitted runtimes.
    pub const NONE: Calibration = Calibration {
        users: 1.0,
        runtime: RuntimeScale::FITTED,
        base_jobs_per_day: f64::NAN,
        expected: Expected {
            jobs_per_day: f64::NAN,
            median_runtime: f64::NAN,
            load: f64::NAN,
        },
        closed_loop: None,
    };

    /// Whether this is [`Calibration::NONE`] (the model runs as fitted).
    pub fn is_none(&self) -> bool {
        self.base_jobs_per_day.is_nan()
    }
}

impl SiteParams {
    /// Its jobs per day, median CPU work and load, as targets of a calibration.
    pub fn targets(&self) -> Expected {
        Expected {
            jobs_per_day: self.jobs_per_day,
            median_runtime: self.cpu_work,
            load: self.load,
        }
    }
}

/// Probability points per segment of a quantile table in the work integrals.
const POINTS: usize = 16;
/// The range of the spread exponent searched.
const SPREAD: [f64; 2] = [0.25, 4.0];

/// The number of sessions in an active week, `E[round(X)]` clamped to `1..=1000` as
/// [`TalbyModel::sessions_in_week`] draws it.
fn mean_sessions(model: &TalbyModel, c: UserClass, woa: u32) -> f64 {
    let g = model.sessions(c, woa);
    let mut below = 0.0;
    let mut mean = 0.0;
    for n in 1..1000u32 {
        let cdf = g.cdf(f64::from(n) + 0.5);
        mean += f64::from(n) * (cdf - below);
        below = cdf;
        if 1.0 - below < 1e-12 {
            return mean;
        }
    }
    mean + 1000.0 * (1.0 - below)
}

/// The stationary distribution of the session-class chain (Eq 18) of a user of class `c`
/// in week of activity `woa`.
fn stationary_classes(model: &TalbyModel, c: UserClass, woa: u32) -> [f64; 5] {
    let rows = SessionClass::ALL.map(|p| model.session_class(c, woa, Some(p)));
    let mut v = model.session_class(c, woa, None);
    for _ in 0..200 {
        let mut next = [0.0; 5];
        for (i, row) in rows.iter().enumerate() {
            for j in 0..5 {
                next[j] += v[i] * row[j];
            }
        }
        let change: f64 = next.iter().zip(&v).map(|(a, b)| (a - b).abs()).sum();
        v = next;
        if change < 1e-13 {
            break;
        }
    }
    v
}

/// `E[max(0, m + U(-h, h))]`.
fn mean_clamped_uniform(m: f64, h: f64) -> f64 {
    if h <= 0.0 {
        return m.max(0.0);
    }
    let hi = m + h;
    if hi <= 0.0 {
        return 0.0;
    }
    let lo = (m - h).max(0.0);
    (hi * hi - lo * lo) / (4.0 * h)
}

/// Expected sessions of each class over `length` seconds, with user multiplier 1, of a
/// site whose users stay for `lifetime`.
fn expected_sessions(
    model: &TalbyModel,
    site: &SiteParams,
    length: Time,
    lifetime: Lifetime,
) -> Result<[f64; 5], String> {
    let su = &model.startup_users;
    let startup = match lifetime {
        Lifetime::Never => mean_clamped_uniform(su.slope * site.load + su.intercept, su.residual),
        Lifetime::Weeks(_) => 0.0,
    };
    let arrivals = model.new_users().mean().ok_or_else(|| {
        format!(
            "[new_users] sigma must be below 1 for the mean of new users to exist, is {}",
            model.new_users.sigma
        )
    })?;
    // Weeks planned and the share of each inside the run.
    let weeks = ((length + WEEK - 1) / WEEK).max(0) as u32;
    let inside = |t: u32| ((length - Time::from(t) * WEEK) as f64 / WEEK as f64).clamp(0.0, 1.0);
    let shares = model.class_shares(site);
    let mut out = [0.0; 5];
    for c in UserClass::ALL {
        let share = shares[c.index()];
        if share <= 0.0 {
            continue;
        }
        let startup_week = model.startup_week(c);
        let last = match lifetime {
            Lifetime::Never => su.max_week + weeks,
            Lifetime::Weeks(l) => l,
        };
        // Expected sessions in week of activity w of one user, by w (the fits of sessions
        // per week stop at the last fitted week).
        let capped = model.sessions.last_week;
        let per_active: Vec<f64> = (1..=capped.min(last))
            .map(|w| mean_sessions(model, c, w))
            .collect();
        let per_week: Vec<f64> = (0..=last)
            .map(|w| {
                if w == 0 {
                    0.0
                } else {
                    (1.0 - model.inactive(c, w)) * per_active[(w.min(capped) - 1) as usize]
                }
            })
            .collect();
        // Weight of each week of activity over the run: start-up users from their drawn
        // week, new users from week 1 in the week they arrive; on a mature site, every
        // week holds the new users of each of the lifetime's weeks.
        let mut weight = vec![0.0; per_week.len()];
        match lifetime {
            Lifetime::Never => {
                for w0 in 1..=su.max_week {
                    let p = startup_week.probability(w0 as usize - 1);
                    for t in 0..weeks {
                        weight[(w0 + t) as usize] += startup * p * inside(t);
                    }
                }
                for t in 0..weeks {
                    for age in 0..=t {
                        weight[(age + 1) as usize] += arrivals * inside(t);
                    }
                }
            }
            Lifetime::Weeks(l) => {
                let run: f64 = (0..weeks).map(inside).sum();
                for w in weight.iter_mut().take(l as usize + 1).skip(1) {
                    *w += arrivals * run;
                }
            }
        }
        for (w, (&wt, &s)) in weight.iter().zip(&per_week).enumerate() {
            if wt > 0.0 && s > 0.0 {
                let mix = stationary_classes(model, c, w as u32);
                for (o, m) in out.iter_mut().zip(mix) {
                    *o += share * wt * s * m;
                }
            }
        }
    }
    Ok(out)
}

/// A session class's job layer in the terms of the calibration.
struct ClassWork {
    /// Share of the workload's jobs.
    share: f64,
    /// Mean size on the machine.
    size: f64,
    /// The fitted runtime quantiles.
    runtime: Quantiles,
    /// Runtimes at equally spaced probabilities (midpoints), for means over the class.
    points: Vec<f64>,
}

impl ClassWork {
    /// The mean of `f(runtime)` over the class's runtime distribution.
    fn mean_of(&self, f: impl Fn(f64) -> f64) -> f64 {
        self.points.iter().map(|&r| f(r)).sum::<f64>() / self.points.len() as f64
    }
}

/// The calibration of `site` for a run of `length` seconds on `procs` processors whose
/// generated workload is expected to have the figures `target` (the site's own, or
/// others that the closed loop turns into the site's); an error naming the parameter
/// when they cannot be reached. The site's Cm and CL still set its user classes and
/// start-up users, as the thesis's parameters do.
pub fn calibrate(
    model: &TalbyModel,
    jobs: &JobLayer,
    site: &SiteParams,
    target: &Expected,
    procs: u32,
    (length, lifetime): (Time, Lifetime),
) -> Result<Calibration, String> {
    let sessions = expected_sessions(model, site, length, lifetime)?;
    let days = length as f64 / DAY as f64;
    let classes: Vec<ClassWork> = SessionClass::ALL
        .iter()
        .map(|&c| {
            let f = jobs.class(c);
            let total: f64 = f.jobs.iter().sum();
            let mean_jobs = f
                .jobs
                .iter()
                .enumerate()
                .map(|(i, w)| (i + 1) as f64 * w)
                .sum::<f64>()
                / total;
            let shares: f64 = f.sizes.iter().map(|s| s.2).sum();
            let size = f
                .sizes
                .iter()
                .map(|&(p, m, s)| f64::from(scale_size(p, m, procs)) * s)
                .sum::<f64>()
                / shares;
            let n = (f.runtime.0.len() - 1) * POINTS;
            ClassWork {
                share: sessions[c.index()] * mean_jobs,
                size,
                runtime: f.runtime.clone(),
                points: (0..n)
                    .map(|i| f.runtime.quantile((i as f64 + 0.5) / n as f64))
                    .collect(),
            }
        })
        .collect();
    let jobs_total: f64 = classes.iter().map(|c| c.share).sum();
    let base_jobs_per_day = jobs_total / days;
    if base_jobs_per_day.is_nan() || base_jobs_per_day <= 0.0 {
        return Err("the model generates no jobs: cannot reach the jobs per day".into());
    }
    let classes: Vec<ClassWork> = classes
        .into_iter()
        .map(|c| ClassWork {
            share: c.share / jobs_total,
            ..c
        })
        .collect();
    // The median runtime of the mixture.
    let cdf = |x: f64| {
        classes
            .iter()
            .map(|c| c.share * c.runtime.cdf(x))
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (
        0.0f64,
        classes
            .iter()
            .map(|c| c.runtime.0[c.runtime.0.len() - 1])
            .fold(0.0, f64::max),
    );
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if cdf(mid) < 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let fitted_median = hi;
    if fitted_median.is_nan() || fitted_median <= 0.0 {
        return Err(
            "the job layer's median runtime is 0: cannot scale it to the median CPU work".into(),
        );
    }
    let target_work = target.load * DAY as f64 * f64::from(procs) / target.jobs_per_day;
    let work = |spread: f64| {
        let scale = RuntimeScale {
            fitted_median,
            median: target.median_runtime,
            spread,
        };
        classes
            .iter()
            .map(|c| c.share * c.size * c.mean_of(|r| scale.apply(r).round().max(1.0)))
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (SPREAD[0], SPREAD[1]);
    let (w_lo, w_hi) = (work(lo), work(hi));
    if !(w_lo <= target_work && target_work <= w_hi) {
        let load = |w: f64| w * target.jobs_per_day / (DAY as f64 * f64::from(procs));
        return Err(format!(
            "load {:.3} cannot be reached at {} processors with a median CPU work of {:.0} s \
             and {:.1} jobs per day: the job layer gives loads of {:.3} to {:.3}",
            target.load,
            procs,
            target.median_runtime,
            target.jobs_per_day,
            load(w_lo),
            load(w_hi)
        ));
    }
    while hi - lo > 1e-6 {
        let mid = 0.5 * (lo + hi);
        if work(mid) < target_work {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let spread = 0.5 * (lo + hi);
    let users = target.jobs_per_day / base_jobs_per_day;
    Ok(Calibration {
        users,
        runtime: RuntimeScale {
            fitted_median,
            median: target.median_runtime,
            spread,
        },
        base_jobs_per_day,
        expected: Expected {
            jobs_per_day: target.jobs_per_day,
            median_runtime: target.median_runtime,
            load: work(spread) * target.jobs_per_day / (DAY as f64 * f64::from(procs)),
        },
        closed_loop: None,
    })
}
