//! Fitting the job layer ([`super::jobs`]) from logs: `sitesim fit`.
//!
//! A log is split into users and sessions at the think-time threshold (20 minutes by
//! default, Talby 2006, §9.2.1) by [`crate::workload::trace::Trace`]; each session is given
//! one of the five classes of Talby 2006, §9.3 (Table 21), and the job layer of each class
//! is fitted from its sessions, pooled over every log given.
//!
//! # Session classes
//!
//! The thesis found the classes by k-means over seven session variables (§9.3) and
//! publishes neither the centroids nor the standardization, so they cannot be applied to
//! a new log. sitesim classifies by documented rules instead, read off Table 21 and the
//! online rule of §9.6 (a session is tagged batch by its runtime or parallelism, else
//! classified "solely by the day of the week and the time of the day"). In order:
//!
//! 1. **BHP** (batch highly parallel) if the session's median job size is at least a
//!    quarter of its machine ([`BHP_SHARE`]). Table 21 gives BHP a median parallelism of
//!    64 of 128 processors and an interval of 60.6; the interactive classes' medians
//!    are 1.8-3.6 and their 90% intervals at most 21 of 128, so a quarter of the machine
//!    separates them with room on both sides (§9.6 suggests "half the machine's maximum,
//!    for example" for a request-based online rule; half would miss the BHP sessions
//!    just below 64 of 128).
//! 2. **BHD** (batch high duration) if the session's median runtime is at least 15 hours
//!    ([`BHD_RUNTIME`]) or its duration, from its first submission to the last end of its
//!    jobs, is at least 50 hours ([`BHD_DURATION`]). These are the upper ends of the 90%
//!    intervals of the interactive classes in Table 21, rounded: IWN's runtime median
//!    reaches 53,114 s (14.8 h) and its duration 179,584 s (49.9 h), IW's and IWD's
//!    less; so a session beyond either lies where only BHD sessions (duration median
//!    51.8 h, 90% interval to 346 h) are common. The first candidates, Table 21's BHD
//!    medians (runtime 3 h, duration 24 h), overlap the interactive classes widely
//!    (IWN's runtime mean is 3.1 h) and on KTH, whose 100 processors ran jobs of up to
//!    63 h, they make 27.5% of the sessions BHD against the thesis's 2.9%. Shares of
//!    KTH's 8,280 sessions that other pairs make BHD: 3 h / 24 h 27.5%, 12 h / 48 h 9.4%,
//!    15 h / 50 h 5.6%, 24 h / 48 h 5.3%, 50 h of duration alone 5.0%; on the CEA Curie
//!    sample 15 h / 50 h gives 8.1% (its jobs run up to 24 h, many of them that long).
//!    Runtime alone at 15 h would make 1.6% of KTH's sessions BHD, duration alone 5.0%.
//! 3. Otherwise the session is **interactive**, classified by where its time falls, in
//!    the site's local time (§9.2.2: workdays Monday-Friday, daytime 07:30-17:30): **IW**
//!    (weekend) if more than half of its time, from first submission to last end, falls
//!    on a Saturday or Sunday; else **IWD** (workday daytime) if more than half of it
//!    falls within 07:30-17:30; else **IWN** (workday night). A session of zero length is
//!    placed by its start. Table 21's %W and %D (the fractions of a session on workdays
//!    and in daytime) are the variables that separate these three classes: IWD's median
//!    %D is 1.00 and IWN's 0.00, IW's median %W 0.00 and the others' 1.00.
//!
//! # What is fitted
//!
//! For each class ([`fit`]): the number of sessions; the local hour and day of week of
//! their first submission; the number of jobs per session (1 to the largest observed,
//! at most [`MAX_JOBS`], larger sessions counted in the last bucket); the session's
//! **unique jobs**, two jobs being the same when they have the same size and runtimes
//! within 5% ([`similar`], the thesis's criterion for counting unique runtimes, §9.2.2),
//! each with its number of repetitions, to which the exponent of a Zipf-like law is
//! fitted by maximum likelihood ([`zipf_mle`], §13.2); the runtimes and sizes of unique
//! jobs; the estimate factor of the jobs with a known estimate; the share of later jobs
//! submitted before the previous one ended (concurrent), the think times of the others
//! and the gaps between submissions of the concurrent ones; and the sessions' durations.
//! Empirical distributions are kept as [`QUANTILES`] quantiles.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::dist::Quantiles;
#[cfg(test)]
use super::dist::Zipf;
use super::jobs::{ClassJobs, JobLayerFile};
use super::{PerSessionClass, SessionClass};
use crate::localtime::SiteClock;
use crate::swf::KeptRecords;
use crate::time::{HOUR, Hms, Time};
use crate::workload::trace::Trace;

/// A session is BHP when its median job size is at least this share of its machine.
pub const BHP_SHARE: f64 = 0.25;
/// A session is BHD when its median runtime is at least this long, seconds...
pub const BHD_RUNTIME: Time = 15 * HOUR;
/// ... or when it lasts at least this long, from first submission to last end.
pub const BHD_DURATION: Time = 50 * HOUR;
/// Daytime starts at 07:30 local time (seconds since midnight), Talby 2006, §9.2.2.
pub const DAYTIME_START: u32 = 7 * 3600 + 1800;
/// Daytime ends at 17:30 local time.
pub const DAYTIME_END: u32 = 17 * 3600 + 1800;
/// Two runtimes are the same when they differ by at most this share (§9.2.2).
pub const SIMILARITY: f64 = 0.05;
/// The number of quantiles an empirical distribution is kept as.
pub const QUANTILES: usize = 65;
/// The largest number of jobs per session a fit distinguishes.
pub const MAX_JOBS: usize = 200;
/// The range searched for the Zipf exponent.
pub const ZIPF_RANGE: (f64, f64) = (0.01, 6.0);

/// One job of a logged session, as a fit sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggedJob {
    /// Logged submit time.
    pub submit: Time,
    /// Logged end time.
    pub end: Time,
    /// Runtime, seconds.
    pub runtime: Time,
    /// Processors.
    pub size: u32,
    /// The user's estimate, when the log gives one.
    pub estimate: Option<Time>,
    /// Its submission minus the previous job's end (negative when that job still ran);
    /// `None` for the session's first job.
    pub think: Option<Time>,
}

/// A logged session: one user's jobs, in submission order, none of them after a think
/// time at or above the threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedSession {
    /// Its jobs, at least one.
    pub jobs: Vec<LoggedJob>,
}

impl LoggedSession {
    /// Its first submission.
    pub fn start(&self) -> Time {
        self.jobs[0].submit
    }

    /// The last end of its jobs.
    pub fn end(&self) -> Time {
        self.jobs
            .iter()
            .map(|j| j.end)
            .max()
            .unwrap_or(self.start())
    }

    /// From its first submission to the last end of its jobs, seconds.
    pub fn duration(&self) -> Time {
        (self.end() - self.start()).max(0)
    }
}

/// One log's sessions, with what classifying them needs.
#[derive(Debug, Clone)]
pub struct FitLog {
    /// The log's name, as the model file records it.
    pub name: String,
    /// Its machine size.
    pub procs: u32,
    /// Its local time.
    pub clock: SiteClock,
    /// Its sessions.
    pub sessions: Vec<LoggedSession>,
}

impl FitLog {
    /// The sessions of `trace`, a log named `name` run on `procs` processors in the
    /// local time of `clock`. A job's estimate is its logged requested time when its log
    /// record is in `records` (by its tag, its line: [`crate::workload::LogReplay::kept_records`])
    /// and the log gives one, else the job's estimate as read.
    pub fn from_trace(
        name: &str,
        trace: &Trace,
        records: Option<&KeptRecords>,
        procs: u32,
        clock: SiteClock,
    ) -> FitLog {
        let records = records.map(|r| r.borrow());
        let mut sessions = Vec::with_capacity(trace.sessions());
        for u in &trace.users {
            let mut current: Option<(u32, LoggedSession)> = None;
            for j in &u.jobs {
                let record = records.as_ref().and_then(|r| r.get(&j.spec.tag));
                let estimate = match record {
                    Some(r) => (r.req_time > 0).then_some(r.req_time),
                    None => Some(j.spec.estimate),
                };
                let mut job = LoggedJob {
                    submit: j.submit,
                    end: j.end,
                    runtime: j.spec.runtime,
                    size: j.spec.size,
                    estimate,
                    think: j.think,
                };
                match &mut current {
                    Some((s, session)) if *s == j.session => session.jobs.push(job),
                    _ => {
                        job.think = None;
                        if let Some((_, done)) = current.take() {
                            sessions.push(done);
                        }
                        current = Some((j.session, LoggedSession { jobs: vec![job] }));
                    }
                }
            }
            if let Some((_, done)) = current {
                sessions.push(done);
            }
        }
        FitLog {
            name: name.to_owned(),
            procs,
            clock,
            sessions,
        }
    }
}

/// The median of `values` (the mean of the middle two for an even count), sorting them.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The shares of `[start, end]` that fall on a weekend (Saturday or Sunday) and in
/// daytime (07:30-17:30) in the local time of `clock`; a span of zero length counts by
/// its start (daytime bounds included).
pub fn time_shares(start: Time, end: Time, clock: &SiteClock) -> (f64, f64) {
    if end <= start {
        let l = clock.local(start);
        let weekend = l.weekday >= 5;
        let day = (DAYTIME_START..=DAYTIME_END).contains(&l.second_of_day);
        return (f64::from(u8::from(weekend)), f64::from(u8::from(day)));
    }
    let (mut weekend, mut day) = (0, 0);
    let mut t = start;
    while t < end {
        // Within a local hour the offset does not change.
        let next = clock.next_hour(t).min(end);
        let l = clock.local(t);
        let len = next - t;
        if l.weekday >= 5 {
            weekend += len;
        }
        let from = Time::from(l.second_of_day);
        day += ((from + len).min(Time::from(DAYTIME_END)) - from.max(Time::from(DAYTIME_START)))
            .max(0);
        t = next;
    }
    let total = (end - start) as f64;
    (weekend as f64 / total, day as f64 / total)
}

/// The class of `session`, on a machine of `procs` processors with local time `clock`
/// (the rules in the module's documentation).
pub fn classify(session: &LoggedSession, procs: u32, clock: &SiteClock) -> SessionClass {
    let mut sizes: Vec<f64> = session.jobs.iter().map(|j| f64::from(j.size)).collect();
    if median(&mut sizes) >= BHP_SHARE * f64::from(procs) {
        return SessionClass::Bhp;
    }
    let mut runtimes: Vec<f64> = session.jobs.iter().map(|j| j.runtime as f64).collect();
    if median(&mut runtimes) >= BHD_RUNTIME as f64 || session.duration() >= BHD_DURATION {
        return SessionClass::Bhd;
    }
    let (weekend, day) = time_shares(session.start(), session.end(), clock);
    if weekend > 0.5 {
        SessionClass::Iw
    } else if day > 0.5 {
        SessionClass::Iwd
    } else {
        SessionClass::Iwn
    }
}

/// Whether runtimes `a` and `b` are the same by the thesis's 5% criterion: they differ
/// by at most [`SIMILARITY`] of the larger.
pub fn similar(a: Time, b: Time) -> bool {
    (a - b).abs() as f64 <= SIMILARITY * a.max(b) as f64
}

/// The unique jobs of a session: for each, the index of its first occurrence and how
/// many jobs repeat it (itself included). A job repeats the first earlier unique job of
/// the same size whose runtime is [`similar`] to its own; jobs are compared with that
/// first occurrence, so a slow drift of runtimes makes new unique jobs.
pub fn unique_jobs(jobs: &[LoggedJob]) -> Vec<(usize, u32)> {
    let mut unique: Vec<(usize, u32)> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        match unique
            .iter_mut()
            .find(|(k, _)| jobs[*k].size == j.size && similar(jobs[*k].runtime, j.runtime))
        {
            Some((_, n)) => *n += 1,
            None => unique.push((i, 1)),
        }
    }
    unique
}

/// The maximum-likelihood exponent `a` of `P(r) ∝ r^-a` on `1..=max` for the
/// repetition counts `reps` (each in `1..=max`), by golden-section search over
/// [`ZIPF_RANGE`] (the log-likelihood is concave in `a`). Counts of only 1 give the upper
/// end of the range.
pub fn zipf_mle(reps: &[u32], max: u32) -> f64 {
    assert!(!reps.is_empty() && max >= 1, "a Zipf fit needs counts");
    let n = reps.len() as f64;
    let sum_log: f64 = reps.iter().map(|&r| f64::from(r).ln()).sum();
    let log_lik = |a: f64| {
        let h: f64 = (1..=max).map(|k| f64::from(k).powf(-a)).sum();
        -a * sum_log - n * h.ln()
    };
    let (mut lo, mut hi) = ZIPF_RANGE;
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = hi - ratio * (hi - lo);
    let mut x2 = lo + ratio * (hi - lo);
    let (mut f1, mut f2) = (log_lik(x1), log_lik(x2));
    while hi - lo > 1e-7 {
        if f1 < f2 {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = log_lik(x2);
        } else {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = log_lik(x1);
        }
    }
    (lo + hi) / 2.0
}

/// What one class's sessions add up to.
#[derive(Default)]
struct Acc {
    sessions: u64,
    start_hour: [u64; 24],
    start_day: [u64; 7],
    jobs: Vec<usize>,
    repetitions: Vec<u32>,
    runtime: Vec<f64>,
    sizes: BTreeMap<(u32, u32), u64>,
    estimate_factor: Vec<f64>,
    later: u64,
    concurrent: u64,
    think: Vec<f64>,
    gap: Vec<f64>,
    duration: Vec<f64>,
}

impl Acc {
    fn add(&mut self, s: &LoggedSession, procs: u32, clock: &SiteClock) {
        self.sessions += 1;
        let l = clock.local(s.start());
        self.start_hour[usize::from(l.hour)] += 1;
        self.start_day[usize::from(l.weekday)] += 1;
        self.jobs.push(s.jobs.len());
        for (i, n) in unique_jobs(&s.jobs) {
            let j = &s.jobs[i];
            self.repetitions.push(n);
            self.runtime.push(j.runtime as f64);
            *self.sizes.entry((j.size, procs)).or_default() += 1;
        }
        for (k, j) in s.jobs.iter().enumerate() {
            if let Some(e) = j.estimate {
                self.estimate_factor
                    .push(e as f64 / j.runtime.max(1) as f64);
            }
            if k == 0 {
                continue;
            }
            self.later += 1;
            match j.think {
                Some(t) if t < 0 => {
                    self.concurrent += 1;
                    self.gap.push((j.submit - s.jobs[k - 1].submit) as f64);
                }
                Some(t) => self.think.push(t as f64),
                None => {}
            }
        }
        self.duration.push(s.duration() as f64);
    }

    fn finish(mut self) -> ClassJobs {
        let q = |v: &mut Vec<f64>, empty: f64| {
            if v.is_empty() {
                Quantiles(vec![empty; QUANTILES])
            } else {
                Quantiles::of(v, QUANTILES)
            }
        };
        let largest = self.jobs.iter().copied().max().unwrap_or(1).min(MAX_JOBS);
        let mut jobs = vec![0.0; largest];
        for &n in &self.jobs {
            jobs[n.min(largest) - 1] += 1.0;
        }
        let max = largest as u32;
        let reps: Vec<u32> = self.repetitions.iter().map(|&r| r.min(max)).collect();
        let unique = self.runtime.len() as f64;
        ClassJobs {
            sessions: self.sessions,
            start_hour: self.start_hour.iter().map(|&n| n as f64).collect(),
            start_day: self.start_day.iter().map(|&n| n as f64).collect(),
            jobs,
            repetition_exponent: zipf_mle(&reps, max),
            runtime: q(&mut self.runtime, 0.0),
            sizes: self
                .sizes
                .iter()
                .map(|(&(p, m), &n)| (p, m, n as f64 / unique))
                .collect(),
            estimate_factor: q(&mut self.estimate_factor, 1.0),
            concurrent: if self.later == 0 {
                0.0
            } else {
                self.concurrent as f64 / self.later as f64
            },
            think: q(&mut self.think, 0.0),
            gap: q(&mut self.gap, 0.0),
            duration: q(&mut self.duration, 0.0),
        }
    }
}

/// The job layer of each session class, fitted from the sessions of `logs` pooled (split
/// at `threshold`, which the file records). Each class needs at least one session: the
/// error names the classes that have none. A class without a later job (only sessions of
/// one job) gets think times and gaps of 0 (and a concurrent share of 0); jobs without a
/// known estimate are left out of the estimate factor, which is 1 when no job has one.
pub fn fit(logs: &[FitLog], threshold: Time) -> Result<JobLayerFile, String> {
    let mut acc: PerSessionClass<Acc> = PerSessionClass::from_fn(|_| Acc::default());
    for log in logs {
        for s in &log.sessions {
            let c = classify(s, log.procs, &log.clock);
            let a = match c {
                SessionClass::Iwd => &mut acc.iwd,
                SessionClass::Iwn => &mut acc.iwn,
                SessionClass::Iw => &mut acc.iw,
                SessionClass::Bhp => &mut acc.bhp,
                SessionClass::Bhd => &mut acc.bhd,
            };
            a.add(s, log.procs, &log.clock);
        }
    }
    let missing: Vec<&str> = acc
        .iter()
        .filter(|(_, a)| a.sessions == 0)
        .map(|(c, _)| c.name())
        .collect();
    if !missing.is_empty() {
        let names: Vec<&str> = logs.iter().map(|l| l.name.as_str()).collect();
        return Err(format!(
            "{}: no session of class {} to fit",
            names.join(", "),
            missing.join(", ")
        ));
    }
    let PerSessionClass {
        iwd,
        iwn,
        iw,
        bhp,
        bhd,
    } = acc;
    Ok(JobLayerFile {
        source: logs.iter().map(|l| l.name.clone()).collect(),
        threshold,
        class: PerSessionClass {
            iwd: iwd.finish(),
            iwn: iwn.finish(),
            iw: iw.finish(),
            bhp: bhp.finish(),
            bhd: bhd.finish(),
        },
    })
}

/// A duration in the largest whole unit: `50 h`, `20 min`, `90 s`.
fn span(t: Time) -> String {
    if t % HOUR == 0 {
        format!("{} h", t / HOUR)
    } else if t % 60 == 0 {
        format!("{} min", t / 60)
    } else {
        format!("{t} s")
    }
}

/// `file` as model-file TOML, with a header comment: the logs and threshold it was fitted
/// with, the classification rules, `command` (how to regenerate it) and `notes` (such as
/// warnings about the logs' clocks).
pub fn to_toml(file: &JobLayerFile, command: Option<&str>, notes: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The job layer of Talby's session model (Talby 2006, §13.2), fitted by sitesim from\n\
         # {}.\n\
         # These are sitesim's own fitted numbers, not the thesis's: it publishes none.\n\
         #\n\
         # Sessions: a user's jobs split at think times of {} or more (§9.2.1).\n\
         # Classes (src/model/fit.rs): BHP if the median job size is at least {}% of the\n\
         # machine; else BHD if the median runtime is at least {} or the session lasts at\n\
         # least {} (first submission to last end); else IW if more than half of the\n\
         # session's time is on a Saturday or Sunday, IWD if more than half is in daytime\n\
         # (07:30-17:30 local time), else IWN.\n\
         # Unique jobs: same size and runtimes within {}%. The weights of start_hour,\n\
         # start_day and jobs are counts of sessions; sizes are shares of unique jobs.",
        file.source.join(", "),
        span(file.threshold),
        BHP_SHARE * 100.0,
        span(BHD_RUNTIME),
        span(BHD_DURATION),
        SIMILARITY * 100.0,
    );
    for n in notes {
        let _ = writeln!(out, "# Note: {n}");
    }
    if let Some(c) = command {
        let _ = writeln!(out, "#\n# Regenerate with (from the repository):\n#   {c}");
    }
    out.push('\n');
    out.push_str(&toml::to_string(file).expect("job layers serialize"));
    out
}

/// The median number of jobs of a class's sessions.
fn median_jobs(c: &ClassJobs) -> usize {
    let total: f64 = c.jobs.iter().sum();
    let mut seen = 0.0;
    for (i, w) in c.jobs.iter().enumerate() {
        seen += w;
        if seen >= total / 2.0 {
            return i + 1;
        }
    }
    c.jobs.len()
}

/// The median size of a class's unique jobs, as `(processors, machine)`, by share of the
/// machine.
fn median_size(c: &ClassJobs) -> (u32, u32) {
    let mut sizes = c.sizes.clone();
    sizes.sort_by(|a, b| {
        (f64::from(a.0) / f64::from(a.1)).total_cmp(&(f64::from(b.0) / f64::from(b.1)))
    });
    let total: f64 = sizes.iter().map(|s| s.2).sum();
    let mut seen = 0.0;
    for &(p, m, w) in &sizes {
        seen += w;
        if seen >= total / 2.0 {
            return (p, m);
        }
    }
    sizes.last().map_or((1, 1), |&(p, m, _)| (p, m))
}

/// A terminal table of a fit: per class, its sessions and share, and the medians of its
/// jobs per session, unique jobs' runtime and size, and its concurrent share.
pub fn render_summary(file: &JobLayerFile) -> String {
    let total: u64 = file.class.iter().map(|(_, c)| c.sessions).sum();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "job layer fitted from {} ({} sessions, threshold {})",
        file.source.join(", "),
        total,
        Hms(file.threshold)
    );
    let _ = writeln!(
        out,
        "  session class                       sessions   share  median jobs  median runtime  median size  concurrent  repetition exponent"
    );
    for (c, j) in file.class.iter() {
        let (p, m) = median_size(j);
        let _ = writeln!(
            out,
            "  {:<35} {:>8} {:>6.1}% {:>12} {:>15} {:>12} {:>10.1}% {:>20.2}",
            format!("{} ({})", c.description(), c.name()),
            j.sessions,
            100.0 * j.sessions as f64 / total.max(1) as f64,
            median_jobs(j),
            Hms(j.runtime.median().round() as Time).to_string(),
            format!("{p} of {m}"),
            100.0 * j.concurrent,
            j.repetition_exponent,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::model::JobLayer;
    use crate::time::DAY;

    /// Monday 1970-01-05 00:00 UTC, in the time of [`SiteClock::utc`].
    const MON: Time = 4 * DAY;
    const SAT: Time = MON + 5 * DAY;

    /// A job: submit, runtime, size; its end is its submit plus its runtime, its estimate
    /// twice its runtime.
    fn job(submit: Time, runtime: Time, size: u32) -> LoggedJob {
        LoggedJob {
            submit,
            end: submit + runtime,
            runtime,
            size,
            estimate: Some(2 * runtime.max(1)),
            think: None,
        }
    }

    /// A session of `jobs`, each later one's think time taken from the one before.
    fn session(mut jobs: Vec<LoggedJob>) -> LoggedSession {
        for k in 1..jobs.len() {
            jobs[k].think = Some(jobs[k].submit - jobs[k - 1].end);
        }
        LoggedSession { jobs }
    }

    fn class_of(jobs: Vec<LoggedJob>) -> SessionClass {
        classify(&session(jobs), 128, &SiteClock::utc())
    }

    #[test]
    fn sessions_fall_in_the_five_classes() {
        let h = HOUR;
        // Half the machine, or a quarter, is highly parallel; just below is not.
        assert_eq!(class_of(vec![job(MON + 10 * h, 60, 64)]), SessionClass::Bhp);
        assert_eq!(
            class_of(vec![job(MON + 10 * h, 60, 32), job(MON + 10 * h, 60, 32)]),
            SessionClass::Bhp
        );
        assert_eq!(class_of(vec![job(MON + 10 * h, 60, 31)]), SessionClass::Iwd);
        // Long runtimes, or a long session of short jobs, are high duration.
        assert_eq!(
            class_of(vec![job(MON + 10 * h, 15 * h, 4)]),
            SessionClass::Bhd
        );
        assert_eq!(
            class_of(vec![
                job(MON + 10 * h, 60, 1),
                job(MON + 10 * h + 10, 60, 1),
                job(MON + 10 * h + 20, 51 * h, 1),
            ]),
            SessionClass::Bhd
        );
        assert_eq!(
            class_of(vec![job(MON + 16 * h, 14 * h, 4)]),
            SessionClass::Iwn
        );
        // Interactive sessions by where their time falls.
        assert_eq!(class_of(vec![job(SAT + 10 * h, h, 1)]), SessionClass::Iw);
        assert_eq!(class_of(vec![job(MON + 10 * h, h, 1)]), SessionClass::Iwd);
        assert_eq!(class_of(vec![job(MON + 20 * h, h, 1)]), SessionClass::Iwn);
        // 17:00-19:00: a quarter in daytime; 07:00-10:00: five sixths.
        assert_eq!(
            class_of(vec![job(MON + 17 * h, 2 * h, 1)]),
            SessionClass::Iwn
        );
        assert_eq!(
            class_of(vec![job(MON + 7 * h, 3 * h, 1)]),
            SessionClass::Iwd
        );
        // Friday 20:00 to Sunday 10:00: 34 of 38 hours on the weekend.
        assert_eq!(
            class_of(vec![job(SAT - 4 * h, 60, 1), job(SAT + 34 * h - 60, 60, 1)]),
            SessionClass::Iw
        );
        // Zero length: by the start, daytime bounds included.
        assert_eq!(class_of(vec![job(SAT + 3 * h, 0, 1)]), SessionClass::Iw);
        assert_eq!(
            class_of(vec![job(MON + 17 * h + 1800, 0, 1)]),
            SessionClass::Iwd
        );
        assert_eq!(
            class_of(vec![job(MON + 17 * h + 1801, 0, 1)]),
            SessionClass::Iwn
        );
    }

    #[test]
    fn time_shares_follow_the_local_clock() {
        let clock = SiteClock::utc();
        assert_eq!(
            time_shares(MON + 7 * HOUR, MON + 8 * HOUR, &clock),
            (0.0, 0.5)
        );
        assert_eq!(time_shares(SAT, SAT + DAY, &clock), (1.0, 10.0 / 24.0));
        assert_eq!(
            time_shares(SAT - DAY, SAT + DAY, &clock),
            (0.5, 10.0 / 24.0)
        );
        // Stockholm in summer (UTC+2): 05:30-06:30 UTC is 07:30-08:30 local.
        let header = crate::swf::SwfHeader {
            unix_start_time: Some(843_436_800), // Mon 1996-09-23 00:00 UTC
            time_zone_string: Some("Europe/Stockholm".into()),
            ..crate::swf::SwfHeader::default()
        };
        let (stockholm, _) = SiteClock::of_log(header.calendar(), None).unwrap();
        let t = 5 * HOUR + 1800;
        assert_eq!(time_shares(t, t + HOUR, &stockholm), (0.0, 1.0));
        assert_eq!(time_shares(t - HOUR, t, &stockholm), (0.0, 0.0));
    }

    #[test]
    fn repetitions_count_jobs_of_one_size_within_five_percent() {
        assert!(similar(100, 105) && similar(105, 100) && !similar(100, 106));
        assert!(similar(0, 0) && !similar(0, 1));
        let jobs: Vec<LoggedJob> = [
            (100, 4), // unique 0
            (104, 4), // repeats 0
            (100, 8), // another size: unique 2
            (108, 4), // 8% from job 0: unique 3 (not compared with job 1)
            (95, 4),  // repeats 0 (5% of 100)
            (110, 4), // repeats 3 (within 5% of 108)
        ]
        .iter()
        .map(|&(r, p)| job(0, r, p))
        .collect();
        assert_eq!(unique_jobs(&jobs), [(0, 3), (2, 1), (3, 2)]);
    }

    #[test]
    fn zipf_fit_recovers_the_exponent() {
        for (a, max) in [(1.0, 50), (2.2, 200), (3.5, 20)] {
            let z = Zipf::new(a, max).unwrap();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
            let n = 20_000;
            let reps: Vec<u32> = (0..n).map(|_| z.sample(&mut rng)).collect();
            let fitted = zipf_mle(&reps, max);
            // The MLE's standard error: 1 / sqrt(n I(a)), the Fisher information I(a)
            // being the variance of ln r under the law. Four standard errors.
            let (mut m1, mut m2) = (0.0, 0.0);
            for r in 1..=max {
                let p = z.probability(r);
                let l = f64::from(r).ln();
                m1 += p * l;
                m2 += p * l * l;
            }
            let se = 1.0 / (f64::from(n) * (m2 - m1 * m1)).sqrt();
            assert!((fitted - a).abs() < 4.0 * se, "a {a}: {fitted} (se {se})");
        }
        // No repetition at all: the top of the range.
        assert!(zipf_mle(&[1, 1, 1], 10) > ZIPF_RANGE.1 - 1e-3);
    }

    /// One session of each class on a machine of 128, in UTC.
    fn five_sessions() -> FitLog {
        let h = HOUR;
        FitLog {
            name: "hand.swf".into(),
            procs: 128,
            clock: SiteClock::utc(),
            sessions: vec![
                // IWD, Monday 10:00: a job of 60 s repeated (61 s) after 30 s of thought,
                // then one submitted 10 s into the previous one; 120 s of thought later,
                // another size.
                session(vec![
                    job(MON + 10 * h, 60, 2),
                    job(MON + 10 * h + 90, 61, 2),
                    job(MON + 10 * h + 100, 60, 2),
                    job(MON + 10 * h + 280, 600, 8),
                ]),
                // IWN, Tuesday 20:00.
                session(vec![job(MON + DAY + 20 * h, 100, 1)]),
                // IW, Saturday 11:00.
                session(vec![job(SAT + 11 * h, 100, 1)]),
                // BHP, Wednesday 03:00.
                session(vec![job(MON + 2 * DAY + 3 * h, 1000, 128)]),
                // BHD, Thursday 09:00.
                session(vec![job(MON + 3 * DAY + 9 * h, 20 * h, 16)]),
            ],
        }
    }

    #[test]
    fn a_fit_counts_what_it_was_given() {
        let mut log = five_sessions();
        // A job without an estimate.
        log.sessions[0].jobs[3].estimate = None;
        let f = fit(&[log], 1200).unwrap();
        assert_eq!(f.source, ["hand.swf"]);
        assert_eq!(f.threshold, 1200);
        for (c, j) in f.class.iter() {
            assert_eq!(j.sessions, 1, "{}", c.name());
        }
        let iwd = &f.class.iwd;
        let mut hours = vec![0.0; 24];
        hours[10] = 1.0;
        assert_eq!(iwd.start_hour, hours);
        assert_eq!(iwd.start_day, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(iwd.jobs, [0.0, 0.0, 0.0, 1.0]);
        // Two unique jobs: (60 s, 2 processors) three times and (600 s, 8) once.
        assert_eq!(iwd.runtime.0[0], 60.0);
        assert_eq!(iwd.runtime.0[QUANTILES - 1], 600.0);
        assert_eq!(iwd.sizes, [(2, 128, 0.5), (8, 128, 0.5)]);
        // Later jobs: think 30 (job 2), -51 (job 3, 10 s after job 2's submission),
        // 120 (job 4).
        assert!((iwd.concurrent - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!((iwd.think.0[0], iwd.think.0[QUANTILES - 1]), (30.0, 120.0));
        assert_eq!(iwd.gap.0, vec![10.0; QUANTILES]);
        assert_eq!(iwd.duration.0, vec![880.0; QUANTILES]);
        // Estimates of twice the runtime, the fourth job's unknown.
        assert_eq!(iwd.estimate_factor.0, vec![2.0; QUANTILES]);
        // Repetitions 3 and 1 on 1..=4: the likelihood's maximum.
        let a = iwd.repetition_exponent;
        let ll = |a: f64| {
            let h: f64 = (1..=4).map(|k| f64::from(k).powf(-a)).sum();
            -a * 3f64.ln() - 2.0 * h.ln()
        };
        assert!(ll(a) >= ll(a - 1e-3) && ll(a) >= ll(a + 1e-3), "{a}");
        // A class of one-job sessions: no later job.
        let iwn = &f.class.iwn;
        assert_eq!(iwn.jobs, [1.0]);
        assert_eq!(iwn.concurrent, 0.0);
        assert_eq!(iwn.think.0, vec![0.0; QUANTILES]);
        assert_eq!(f.class.bhp.sizes, [(128, 128, 1.0)]);
        assert_eq!(f.class.bhd.runtime.median(), 72_000.0);
        assert_eq!(f.class.iw.start_day[5], 1.0);
        // The file reads back as a model.
        let text = to_toml(&f, Some("sitesim fit --swf hand.swf --out x"), &[]);
        assert!(text.contains("not the thesis's"), "{text}");
        let layer = JobLayer::parse(&text, "x").unwrap();
        assert_eq!(layer.file(), &f);
        assert!(render_summary(&f).contains("IWD"));
    }

    #[test]
    fn a_missing_class_is_named() {
        let mut log = five_sessions();
        log.sessions.remove(4);
        log.sessions.remove(1);
        let e = fit(&[log], 1200).unwrap_err();
        assert!(e.contains("hand.swf") && e.contains("IWN, BHD"), "{e}");
    }

    #[test]
    fn sizes_pool_over_logs_by_machine() {
        let a = five_sessions();
        let mut b = five_sessions();
        b.name = "other.swf".into();
        b.procs = 256;
        let f = fit(&[a, b], 1200).unwrap();
        assert_eq!(f.source, ["hand.swf", "other.swf"]);
        assert_eq!(f.class.iwd.sessions, 2);
        // 128 processors are half of 256: BHP there too.
        assert_eq!(f.class.bhp.sizes, [(128, 128, 0.5), (128, 256, 0.5)]);
    }

    #[test]
    fn sessions_come_from_the_trace() {
        use crate::workload::trace::TraceConfig;
        use crate::workload::trace::tests::trace_of;
        // User 1: two jobs in one session (the second 50 s after the first ended), a
        // third after two hours; user 2: one job.
        let t = trace_of(
            &[
                (1, 0, 0, 100),
                (2, 10, 0, 5),
                (1, 150, 0, 10),
                (1, 7_300, 0, 10),
            ],
            TraceConfig::default(),
        );
        let log = FitLog::from_trace("t.swf", &t, None, 8, SiteClock::utc());
        let shape: Vec<Vec<(Time, Option<Time>)>> = log
            .sessions
            .iter()
            .map(|s| s.jobs.iter().map(|j| (j.submit, j.think)).collect())
            .collect();
        assert_eq!(
            shape,
            [
                vec![(0, None), (150, Some(50))],
                vec![(7_300, None)],
                vec![(10, None)]
            ]
        );
        // Without records, the estimate is the job's (ten times the runtime here).
        assert_eq!(log.sessions[0].jobs[0].estimate, Some(1000));
    }
}
