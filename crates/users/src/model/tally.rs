//! The figures by which the thesis places a workload (Talby 2006, §10, Table 2): jobs per
//! day (JD), the median CPU work per job (Cm: the median CPU time per processor, which
//! for the model's jobs, using their processors fully, is the median runtime) and the
//! load (CL: runtime x processors over the machine's capacity). Also the median of
//! runtime x processors, which Table 2 does not use but other work calls CPU work.

use serde::Serialize;

use super::plan::{PlannedSession, SitePlan};
use crate::time::{DAY, Time, WEEK};
use crate::users::TooManyUsers;

/// Jobs counted into the figures.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    runtimes: Vec<Time>,
    works: Vec<i64>,
    work: f64,
}

/// The figures of a workload over a span.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WorkloadFigures {
    /// Jobs per day.
    pub jobs_per_day: f64,
    /// Median runtime, seconds (the thesis's Cm).
    pub median_runtime: f64,
    /// Median runtime x processors, seconds.
    pub median_cpu_work: f64,
    /// Runtime x processors over the machine's processors x the span.
    pub load: f64,
}

/// The median of `v` (0 when empty); reorders `v`.
fn median(v: &mut [i64]) -> f64 {
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    let (_, hi, _) = v.select_nth_unstable(n / 2);
    let hi = *hi as f64;
    if n % 2 == 1 {
        return hi;
    }
    let lo = *v[..n / 2].iter().max().expect("n >= 2");
    (lo as f64 + hi) / 2.0
}

impl Tally {
    /// Counts a job of `runtime` seconds on `size` processors.
    pub fn add(&mut self, runtime: Time, size: u32) {
        let work = runtime * i64::from(size);
        self.runtimes.push(runtime);
        self.works.push(work);
        self.work += work as f64;
    }

    /// Counts every job of the `sessions` that start by `horizon`, as the plan drew
    /// them, whether the closed loop will open them or not.
    pub fn add_planned(&mut self, sessions: &[PlannedSession], horizon: Time) {
        for s in sessions.iter().filter(|s| s.start <= horizon) {
            for j in &s.jobs {
                self.add(j.runtime, j.size);
            }
        }
    }

    /// Jobs counted.
    pub fn jobs(&self) -> usize {
        self.runtimes.len()
    }

    /// The figures over `span` seconds on `procs` processors.
    pub fn figures(&mut self, procs: u32, span: Time) -> WorkloadFigures {
        let days = span as f64 / DAY as f64;
        WorkloadFigures {
            jobs_per_day: self.jobs() as f64 / days,
            median_runtime: median(&mut self.runtimes),
            median_cpu_work: median(&mut self.works),
            load: self.work / (f64::from(procs) * span as f64),
        }
    }
}

/// The figures of the workload `plan` generates up to `horizon`, without simulating
/// the machine: the weeks a site plans ([`super::ModelSite`]), every session's jobs, on
/// the plan's machine; refused as the plan refuses a week with too many users.
pub fn generated(plan: &mut SitePlan, horizon: Time) -> Result<WorkloadFigures, TooManyUsers> {
    let mut tally = Tally::default();
    loop {
        let sessions = plan.next_week()?;
        tally.add_planned(&sessions, horizon);
        if Time::from(plan.week()) * WEEK >= horizon {
            return Ok(tally.figures(plan.config().site.procs, horizon));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_of_a_known_workload() {
        let mut t = Tally::default();
        for (r, p) in [(10, 1), (20, 4), (30, 2), (40, 8)] {
            t.add(r, p);
        }
        let f = t.figures(10, 2 * DAY);
        assert_eq!(f.jobs_per_day, 2.0);
        assert_eq!(f.median_runtime, 25.0);
        assert_eq!(f.median_cpu_work, (60.0 + 80.0) / 2.0);
        assert_eq!(
            f.load,
            (10 + 80 + 60 + 320) as f64 / (10.0 * 2.0 * DAY as f64)
        );
    }
}
