//! The job layer of the model (Talby 2006, §13.2): what happens inside a session of each
//! class. The thesis describes the method (start day and time by class, a number of
//! unique jobs each repeated a Zipf-like number of times, job attributes drawn from the
//! class alone) but publishes no fitted distribution, so sitesim fits its own from logs
//! (`sitesim fit`, [`super::fit`]) and reads them from a model file such as
//! `models/kth-sessions.toml`.
//!
//! Within a session the loop is closed (notes §10): the first job is submitted when the
//! session starts; each later one either follows the previous job's **completion** by a
//! think time (below the session threshold), or, with the class's share of **concurrent**
//! submissions (negative think times in the log), follows the previous **submission** by
//! a gap without waiting for it.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use super::dist::{Categorical, Quantiles, Zipf};
use super::{PerSessionClass, SessionClass};
use crate::time::{DAY, HOUR, Time};
pub use crate::users::session::{Follow, SessionJob};

/// How generated runtimes are mapped: `median x (r / fitted_median)^spread`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RuntimeScale {
    /// The median runtime of the fitted job layer over the site's session classes, s.
    pub fitted_median: f64,
    /// The median runtime of the site (Cm), s.
    pub median: f64,
    /// The exponent on runtimes relative to the median (1 keeps their spread).
    pub spread: f64,
}

impl RuntimeScale {
    /// Runtimes as fitted.
    pub const FITTED: RuntimeScale = RuntimeScale {
        fitted_median: 1.0,
        median: 1.0,
        spread: 1.0,
    };

    /// The runtime of a job drawn as `r` seconds.
    pub fn apply(&self, r: f64) -> f64 {
        self.median * (r.max(0.0) / self.fitted_median).powf(self.spread)
    }
}

/// The job layer of one session class, as a model file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassJobs {
    /// Sessions of this class in the logs it was fitted from.
    pub sessions: u64,
    /// Weights of the local hour of day a session starts in, 0-23.
    pub start_hour: Vec<f64>,
    /// Weights of the local day a session starts on, Monday first.
    pub start_day: Vec<f64>,
    /// Weights of the number of jobs in a session: entry `i` is `i + 1` jobs.
    pub jobs: Vec<f64>,
    /// Exponent of the Zipf-like law of repetitions of identical jobs, `P(r) ∝ r^-a`.
    pub repetition_exponent: f64,
    /// Runtime quantiles of the session's unique jobs, seconds.
    pub runtime: Quantiles,
    /// Sizes of unique jobs: `[processors, machine size of its log, share]`.
    pub sizes: Vec<(u32, u32, f64)>,
    /// Quantiles of estimate / runtime.
    pub estimate_factor: Quantiles,
    /// Share of a session's later jobs submitted before the previous job ended.
    pub concurrent: f64,
    /// Quantiles of the think time (previous end to submission) of the others, seconds.
    pub think: Quantiles,
    /// Quantiles of the gap (previous submission to submission) of concurrent jobs.
    pub gap: Quantiles,
    /// Quantiles of session duration (first submission to last end) in the logs, seconds.
    pub duration: Quantiles,
}

/// A model file of fitted job layers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobLayerFile {
    /// The logs it was fitted from.
    pub source: Vec<String>,
    /// The session threshold of the fit, seconds.
    pub threshold: Time,
    /// One job layer per session class.
    pub class: PerSessionClass<ClassJobs>,
}

/// A class's job layer, ready to sample.
#[derive(Debug, Clone)]
struct ClassSampler {
    start_hour: Categorical,
    start_day: Categorical,
    jobs: Categorical,
    repetitions: Zipf,
    sizes: Categorical,
    fit: ClassJobs,
}

/// The fitted job layers, ready to sample.
#[derive(Debug, Clone)]
pub struct JobLayer {
    file: JobLayerFile,
    classes: PerSessionClass<ClassSampler>,
}

/// When in the day sessions start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DayCycle {
    /// By each session class's fitted daily cycle (Talby 2006, §11.2).
    Fitted,
    /// At any hour alike: no daily cycle.
    Flat,
    /// Only in the local hours `[from, to)`, alike: planned sessions start then, and a
    /// session its user could open only later (it was busy) waits for the next
    /// `from`. With `all_jobs`, every job arrives then, as in Feitelson 2021, Fig. 21's
    /// "simple model where jobs arrive only between 8 AM and 6 PM": a job due after
    /// `to` waits for the next `from` (the user went home).
    Window {
        /// First hour, 0-23.
        from: u8,
        /// Hour after the last, `from + 1` to 24.
        to: u8,
        /// Whether every job, not only session openings, keeps to the hours.
        all_jobs: bool,
    },
}

impl DayCycle {
    /// The first time from `at` (seconds from a Monday 00:00 local) at which a session
    /// may open.
    pub fn opening(self, at: Time) -> Time {
        match self {
            DayCycle::Window { from, to, .. } => in_hours(at, from, to),
            DayCycle::Fitted | DayCycle::Flat => at,
        }
    }

    /// The first time from `at` at which a job may arrive in an open session.
    pub fn arrival(self, at: Time) -> Time {
        match self {
            DayCycle::Window {
                from,
                to,
                all_jobs: true,
            } => in_hours(at, from, to),
            _ => at,
        }
    }
}

/// The first time from `at` within the local hours `[from, to)` of a day.
fn in_hours(at: Time, from: u8, to: u8) -> Time {
    let day = at.div_euclid(DAY) * DAY;
    let (open, close) = (day + Time::from(from) * HOUR, day + Time::from(to) * HOUR);
    if at < open {
        open
    } else if at >= close {
        open + DAY
    } else {
        at
    }
}

/// The size on a machine of `target` processors of a job of `procs` processors on a
/// machine of `machine`: serial jobs stay serial, powers of two stay powers of two, and
/// other sizes keep their share of the machine; at least 1, at most `target`.
pub fn scale_size(procs: u32, machine: u32, target: u32) -> u32 {
    if procs <= 1 || machine == 0 {
        return 1;
    }
    let scaled = f64::from(procs) * f64::from(target) / f64::from(machine);
    let size = if procs.is_power_of_two() {
        2f64.powf(scaled.max(1.0).log2().round())
    } else {
        scaled.round()
    };
    (size as u32).clamp(1, target)
}

/// The job layer fitted from KTH SP2 (`models/kth-sessions.toml`), built into the
/// binary: the default of a model-based site.
pub const KTH_SESSIONS: &str = crate::model_files::KTH_SESSIONS;

impl JobLayer {
    /// The shipped job layer fitted from KTH SP2.
    pub fn shipped() -> JobLayer {
        JobLayer::parse(KTH_SESSIONS, "models/kth-sessions.toml").expect("the shipped fit parses")
    }

    /// Parses a model file; errors name the file, and the key or class at fault.
    pub fn parse(text: &str, name: &str) -> Result<JobLayer, String> {
        let file: JobLayerFile =
            toml::from_str(text).map_err(|e| crate::textfmt::toml_error(name, text, &e))?;
        JobLayer::new(file).map_err(|e| format!("{name}: {e}"))
    }

    /// Checks a file and prepares its samplers.
    pub fn new(file: JobLayerFile) -> Result<JobLayer, String> {
        let mut classes = Vec::new();
        for (c, f) in file.class.iter() {
            let key = |k: &str| format!("[class.{}] {k}", c.name().to_lowercase());
            let weights = |k: &str, w: &[f64], n: Option<usize>| {
                if let Some(n) = n
                    && w.len() != n
                {
                    return Err(format!("{}: needs {n} weights, has {}", key(k), w.len()));
                }
                Categorical::new(w).map_err(|e| format!("{}: {e}", key(k)))
            };
            for (k, q) in [
                ("runtime", &f.runtime),
                ("estimate_factor", &f.estimate_factor),
                ("think", &f.think),
                ("gap", &f.gap),
                ("duration", &f.duration),
            ] {
                q.check().map_err(|e| format!("{}: {e}", key(k)))?;
                if q.0[0] < 0.0 {
                    return Err(format!("{}: quantiles must not be negative", key(k)));
                }
            }
            if !(0.0..=1.0).contains(&f.concurrent) {
                return Err(format!("{}: must be a share in [0, 1]", key("concurrent")));
            }
            if f.sizes.iter().any(|&(p, m, _)| p == 0 || m == 0 || p > m) {
                return Err(format!(
                    "{}: every entry needs 1 <= processors <= machine size",
                    key("sizes")
                ));
            }
            let shares: Vec<f64> = f.sizes.iter().map(|s| s.2).collect();
            classes.push(ClassSampler {
                start_hour: weights("start_hour", &f.start_hour, Some(24))?,
                start_day: weights("start_day", &f.start_day, Some(7))?,
                jobs: weights("jobs", &f.jobs, None)?,
                repetitions: Zipf::new(f.repetition_exponent, f.jobs.len() as u32)
                    .map_err(|e| format!("{}: {e}", key("repetition_exponent")))?,
                sizes: weights("sizes", &shares, None)?,
                fit: f.clone(),
            });
        }
        let mut it = classes.into_iter();
        let mut next = || it.next().expect("five classes");
        let classes = PerSessionClass {
            iwd: next(),
            iwn: next(),
            iw: next(),
            bhp: next(),
            bhd: next(),
        };
        Ok(JobLayer { file, classes })
    }

    /// The file it was read from.
    pub fn file(&self) -> &JobLayerFile {
        &self.file
    }

    /// The fitted job layer of class `c`.
    pub fn class(&self, c: SessionClass) -> &ClassJobs {
        &self.classes.get(c).fit
    }

    /// The start of a session of class `c`, in seconds from Monday 00:00 local time: a
    /// day by the class's weekly cycle, an hour by `cycle`, and a second uniformly
    /// within it.
    pub fn start_in_week<R: Rng + ?Sized>(
        &self,
        c: SessionClass,
        cycle: DayCycle,
        rng: &mut R,
    ) -> Time {
        let s = self.classes.get(c);
        let day = s.start_day.sample(rng) as Time;
        let hour = match cycle {
            DayCycle::Fitted => s.start_hour.sample(rng) as Time,
            DayCycle::Flat => rng.random_range(0..24),
            DayCycle::Window { from, to, .. } => Time::from(rng.random_range(from..to)),
        };
        day * DAY + hour * HOUR + rng.random_range(0..HOUR)
    }

    /// The sizes of each class's unique jobs on a machine of `procs` processors, and the
    /// mapping of runtimes `runtime` ([`super::calibrate`]): what drawing a site's jobs
    /// needs, computed once per site.
    pub fn scaled(&self, procs: u32, runtime: RuntimeScale) -> Scaled {
        Scaled {
            sizes: self.file.class.map(|_, c| {
                c.sizes
                    .iter()
                    .map(|&(p, m, _)| scale_size(p, m, procs))
                    .collect()
            }),
            runtime,
        }
    }

    /// The jobs of a session of class `c` on the site `site`.
    pub fn session<R: Rng + ?Sized>(
        &self,
        c: SessionClass,
        site: &Scaled,
        rng: &mut R,
    ) -> Vec<SessionJob> {
        let s = self.classes.get(c);
        let sizes = site.sizes.get(c);
        let n = s.jobs.sample(rng) + 1;
        let mut jobs = Vec::with_capacity(n);
        while jobs.len() < n {
            let (size, runtime, estimate) = s.unique_job(sizes, &site.runtime, rng);
            let left = (n - jobs.len()) as u32;
            let repeats = (0..100)
                .map(|_| s.repetitions.sample(rng))
                .find(|&r| r <= left)
                .unwrap_or(1);
            for _ in 0..repeats {
                let follow = if jobs.is_empty() {
                    Follow::First
                } else {
                    s.follow(rng)
                };
                jobs.push(SessionJob {
                    size,
                    runtime,
                    estimate,
                    follow,
                });
            }
        }
        jobs
    }

    /// One more job of a session of class `c` on the site `site` (a user who goes on past
    /// the session's drawn jobs, [`crate::users::reaction`]): a unique job of the class,
    /// following the previous one as the class's later jobs do.
    pub fn next_job<R: Rng + ?Sized>(
        &self,
        c: SessionClass,
        site: &Scaled,
        rng: &mut R,
    ) -> SessionJob {
        let s = self.classes.get(c);
        let (size, runtime, estimate) = s.unique_job(site.sizes.get(c), &site.runtime, rng);
        SessionJob {
            size,
            runtime,
            estimate,
            follow: s.follow(rng),
        }
    }
}

/// A job layer's sizes on one machine and its mapping of runtimes
/// ([`JobLayer::scaled`]).
#[derive(Debug, Clone)]
pub struct Scaled {
    /// Each class's sizes of unique jobs, in the order of its fitted sizes.
    sizes: PerSessionClass<Vec<u32>>,
    runtime: RuntimeScale,
}

impl ClassSampler {
    /// A unique job's size (one of `sizes`, the fitted sizes on the site's machine),
    /// runtime and estimate.
    fn unique_job<R: Rng + ?Sized>(
        &self,
        sizes: &[u32],
        scale: &RuntimeScale,
        rng: &mut R,
    ) -> (u32, Time, Time) {
        let size = sizes[self.sizes.sample(rng)];
        let runtime = scale.apply(self.fit.runtime.sample(rng)).round().max(1.0) as Time;
        let factor = self.fit.estimate_factor.sample(rng).max(1.0);
        (size, runtime, (runtime as f64 * factor).ceil() as Time)
    }

    /// How a later job follows the previous one: concurrent with the class's share, by
    /// its gap after the previous submission, else by a think time after its end.
    fn follow<R: Rng + ?Sized>(&self, rng: &mut R) -> Follow {
        if rng.random::<f64>() < self.fit.concurrent {
            Follow::Concurrent(self.fit.gap.sample(rng).round() as Time)
        } else {
            Follow::Think(self.fit.think.sample(rng).round() as Time)
        }
    }
}

/// A session of `jobs` on a machine that starts every job at once, each job submitted as
/// the closed loop submits it ([`Follow`]; a concurrent job at its gap after the previous
/// submission, or at the previous job's end if that comes first): `(last submission, last
/// end)`, from its first submission. The thesis draws a session's jobs and their arrival
/// times with it, with no machine to wait for (Talby 2006, §13.1).
pub fn idle_span(jobs: &[SessionJob]) -> (Time, Time) {
    let (mut submit, mut end, mut last) = (0, 0, 0);
    for job in jobs {
        submit = match job.follow {
            Follow::First => 0,
            Follow::Think(think) => end + think,
            Follow::Concurrent(gap) => (submit + gap).min(end),
        };
        end = submit + job.runtime;
        last = last.max(end);
    }
    (submit, last)
}

/// How long a session of `jobs` lasts on a machine that starts every job at once, from
/// its first submission to its last job's end ([`idle_span`]).
pub fn idle_duration(jobs: &[SessionJob]) -> Time {
    idle_span(jobs).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_scale_to_the_machine() {
        assert_eq!(scale_size(1, 100, 1024), 1);
        assert_eq!(scale_size(64, 128, 1024), 512);
        assert_eq!(scale_size(32, 100, 128), 32);
        assert_eq!(scale_size(50, 100, 128), 64);
        assert_eq!(scale_size(30, 100, 128), 38);
        assert_eq!(scale_size(100, 100, 128), 128);
        assert_eq!(scale_size(256, 93_312, 128), 1);
    }

    #[test]
    fn idle_durations_follow_the_closed_loop() {
        let job = |runtime, follow| SessionJob {
            size: 1,
            runtime,
            estimate: runtime,
            follow,
        };
        assert_eq!(idle_duration(&[]), 0);
        assert_eq!(idle_duration(&[job(100, Follow::First)]), 100);
        // Think: 100 + 50 + 30.
        let chain = [job(100, Follow::First), job(30, Follow::Think(50))];
        assert_eq!(idle_duration(&chain), 180);
        // A concurrent job 10 s after a long one: the session lasts as long as the
        // long one; the next after the concurrent one's end.
        let overlap = [
            job(1000, Follow::First),
            job(20, Follow::Concurrent(10)),
            job(5, Follow::Think(0)),
        ];
        assert_eq!(idle_duration(&overlap), 1000);
        // A gap longer than the previous job: submitted at its end.
        let late = [job(100, Follow::First), job(100, Follow::Concurrent(500))];
        assert_eq!(idle_duration(&late), 200);
        // Its submissions: the last at 100.
        assert_eq!(idle_span(&late), (100, 200));
        assert_eq!(idle_span(&overlap), (30, 1000));
    }
}
