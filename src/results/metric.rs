//! The figures of one replicated run and the one list of metrics every output reads them
//! by: the summaries' statistics (`summary.json`), the CSV columns (`replications.csv`,
//! `runs.csv`), the terminal tables and the report's plots and tables all take a
//! metric's name, title and unit from [`METRICS`].
//!
//! A name is the JSON key and the CSV column; values are kept in the unit the name
//! says (seconds for waits and responses, a share in [0, 1] for the utilization, hours
//! for sessions), and only a display chooses another scale ([`Unit`]).

use serde::{Deserialize, Serialize};

use crate::metrics::{MetricsSummary, SessionsSummary, WeeklySeries};
use crate::time::{HOUR, Time};

/// The figures of one run of a replicated source (a resampled population, a model-based
/// site) or of one run of an experiment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Replication {
    /// Its number, from 0.
    pub replication: u32,
    /// The seed its population was drawn from (the same for every scheduler: common
    /// random numbers).
    pub seed: u64,
    /// Jobs submitted in the measurement window.
    pub jobs: u64,
    /// Jobs ended per week in the window: throughput.
    pub jobs_per_week: f64,
    /// Processor-hours ended per week in the window.
    pub proc_hours_per_week: f64,
    /// Share of the machine busy in the window.
    pub utilization: f64,
    /// Mean wait of the measured jobs, seconds.
    pub mean_wait: f64,
    /// Mean response time, seconds.
    pub mean_response: f64,
    /// Mean bounded slowdown.
    pub mean_bsld: f64,
    /// Sessions of the run (all weeks).
    pub sessions: u64,
    /// Jobs per session.
    pub jobs_per_session: f64,
    /// Mean session duration, hours.
    pub session_hours: f64,
    /// User instances started.
    pub users: u64,
    /// Users who left for good after long waits.
    pub frustrated: u64,
    /// Of them, the long-term users whose place went to a newcomer.
    #[serde(default)]
    pub replaced: u64,
    /// Temporary users that arrived during the run.
    pub arrivals: u64,
    /// Long-term users regenerated.
    pub regenerations: u64,
    /// Jobs cut to the size of a machine smaller than the one the population was sized
    /// for (`procs` sweeps and capacity searches).
    #[serde(default)]
    pub narrowed_jobs: u64,
    /// Median lateness of the jobs of a resampled population logged in the measured
    /// weeks (their submission minus their logged time, moved with their instance),
    /// seconds; 0 for a model-based site, which has no logged times.
    #[serde(default)]
    pub lateness_median: f64,
    /// Its 95th percentile, seconds.
    #[serde(default)]
    pub lateness_p95: f64,
    /// Its 99th percentile, seconds.
    #[serde(default)]
    pub lateness_p99: f64,
    /// The largest lateness, seconds.
    #[serde(default)]
    pub lateness_max: f64,
    /// Share of those jobs more than a week late (or not submitted a week after their
    /// logged time, when the run stopped taking submissions).
    #[serde(default)]
    pub late_over_week: f64,
    /// Jain's index of the users' mean bounded slowdowns in the window.
    #[serde(default)]
    pub user_fairness: f64,
    /// How fast the queue grows over the measured weeks: the least-squares slope of the
    /// weekly mean number of waiting jobs, jobs per week ([`WeeklySeries::queue_trend`]).
    /// About 0 once the run has settled, and for good in a saturated one.
    #[serde(default)]
    pub queue_trend: f64,
}

impl AsRef<Replication> for Replication {
    fn as_ref(&self) -> &Replication {
        self
    }
}

impl Replication {
    /// The figures of replication `replication` (drawn from `seed`) from its metrics and
    /// sessions; the population's figures are 0, for the caller to fill in.
    pub fn measured(
        replication: u32,
        seed: u64,
        m: &MetricsSummary,
        s: &SessionsSummary,
    ) -> Replication {
        Replication {
            replication,
            seed,
            jobs: m.jobs.jobs,
            jobs_per_week: m.throughput.jobs_per_week,
            proc_hours_per_week: m.throughput.proc_hours_per_week,
            utilization: m.utilization,
            mean_wait: m.jobs.wait.mean,
            mean_response: m.jobs.response.mean,
            mean_bsld: m.jobs.bounded_slowdown.mean,
            sessions: s.sessions,
            jobs_per_session: s.jobs_per_session.mean,
            session_hours: s.duration.mean / HOUR as f64,
            users: 0,
            frustrated: 0,
            replaced: 0,
            arrivals: 0,
            regenerations: 0,
            narrowed_jobs: 0,
            lateness_median: 0.0,
            lateness_p95: 0.0,
            lateness_p99: 0.0,
            lateness_max: 0.0,
            late_over_week: 0.0,
            user_fairness: m.jobs.user_fairness,
            queue_trend: 0.0,
        }
    }

    /// The same figures with the queue's trend over the weeks of `weekly` that lie in
    /// the measurement window `[from, to)`.
    pub fn with_queue_trend(self, weekly: &WeeklySeries, from: Time, to: Time) -> Replication {
        Replication {
            queue_trend: weekly.queue_trend(from, to),
            ..self
        }
    }

    /// The same figures with the lateness of `l`.
    pub fn with_lateness(self, l: &crate::users::LatenessSummary) -> Replication {
        Replication {
            lateness_median: l.median as f64,
            lateness_p95: l.p95 as f64,
            lateness_p99: l.p99 as f64,
            lateness_max: l.max as f64,
            late_over_week: l.over_week,
            ..self
        }
    }
}

/// How a metric's values are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// As they are, in this unit (empty for a ratio).
    Fixed(&'static str),
    /// A share in [0, 1], shown in percent.
    Share,
    /// Seconds, shown in hours: every duration a person reads (tables, plots, the
    /// terminal) is in hours, whatever its size.
    Seconds,
}

/// One metric of a run.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Its JSON key and CSV column.
    pub name: &'static str,
    /// Its title in headings.
    pub title: &'static str,
    /// Its name on axes and in table headers.
    pub quantity: &'static str,
    /// What it is, for captions.
    pub meaning: &'static str,
    /// Its unit.
    pub unit: Unit,
    /// Whether a plot of it starts at 0.
    pub from_zero: bool,
    /// The least value it takes: 0 for a count, a duration, a rate or a share.
    pub least: f64,
    /// Its value in a run.
    pub read: fn(&Replication) -> f64,
}

/// A scale a metric is shown in: its unit and the factor from the stored values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// The unit shown.
    pub unit: &'static str,
    /// Shown value = stored value × factor.
    pub factor: f64,
}

impl Metric {
    /// The unit of the stored values, as files hold them.
    pub fn stored_unit(&self) -> &'static str {
        match self.unit {
            Unit::Fixed(unit) => unit,
            Unit::Share => "share",
            Unit::Seconds => "s",
        }
    }

    /// The scale it is shown in: one per metric for every table, plot and command, so a
    /// duration is never in hours in one place and minutes or seconds in another.
    pub fn scale(&self) -> Scale {
        match self.unit {
            Unit::Fixed(unit) => Scale { unit, factor: 1.0 },
            Unit::Share => Scale {
                unit: "%",
                factor: 100.0,
            },
            Unit::Seconds => Scale {
                unit: "h",
                factor: 1.0 / HOUR as f64,
            },
        }
    }

    /// The values it can take, in `scale`: from [`Metric::least`], and up to 100% for
    /// a share. An interval drawn around a mean is cut there (Student's t knows no
    /// bounds).
    pub fn range(&self, scale: Scale) -> (f64, f64) {
        let low = self.least * scale.factor;
        let high = match self.unit {
            Unit::Share => scale.factor,
            _ => f64::INFINITY,
        };
        (low, high)
    }

    /// `quantity (unit)`, or the quantity alone for a ratio or when it names its unit
    /// (`jobs per session`, not `jobs per session (jobs)`).
    pub fn label(&self, scale: Scale) -> String {
        if scale.unit.is_empty() || self.quantity.split_whitespace().any(|w| w == scale.unit) {
            self.quantity.to_owned()
        } else {
            format!("{} ({})", self.quantity, scale.unit)
        }
    }
}

/// The `jobs_per_week` metric: jobs ended per week.
pub const JOBS_PER_WEEK: Metric = Metric {
    name: "jobs_per_week",
    title: "Throughput",
    quantity: "throughput",
    meaning: "jobs ended per week",
    unit: Unit::Fixed("jobs/week"),
    from_zero: false,
    least: 0.0,
    read: |r| r.jobs_per_week,
};

/// The `proc_hours_per_week` metric: processor-hours of the jobs ended per week.
pub const PROC_HOURS_PER_WEEK: Metric = Metric {
    name: "proc_hours_per_week",
    title: "Work done",
    quantity: "work done",
    meaning: "processor-hours of the jobs ended per week",
    unit: Unit::Fixed("processor-hours/week"),
    from_zero: false,
    least: 0.0,
    read: |r| r.proc_hours_per_week,
};

/// The `utilization` metric: share of the processors busy.
pub const UTILIZATION: Metric = Metric {
    name: "utilization",
    title: "Utilization",
    quantity: "utilization",
    meaning: "share of the processors busy",
    unit: Unit::Share,
    from_zero: false,
    least: 0.0,
    read: |r| r.utilization,
};

/// The `mean_wait` metric: mean time from submission to start.
pub const MEAN_WAIT: Metric = Metric {
    name: "mean_wait",
    title: "Mean wait",
    quantity: "mean wait",
    meaning: "mean time from submission to start",
    unit: Unit::Seconds,
    from_zero: true,
    least: 0.0,
    read: |r| r.mean_wait,
};

/// The `mean_response` metric: mean time from submission to end.
pub const MEAN_RESPONSE: Metric = Metric {
    name: "mean_response",
    title: "Mean response time",
    quantity: "mean response time",
    meaning: "mean time from submission to end",
    unit: Unit::Seconds,
    from_zero: true,
    least: 0.0,
    read: |r| r.mean_response,
};

/// The `mean_bsld` metric: mean of (wait + runtime) / max(runtime, threshold), at least 1.
pub const MEAN_BSLD: Metric = Metric {
    name: "mean_bsld",
    title: "Mean bounded slowdown",
    quantity: "mean bounded slowdown",
    meaning: "mean of (wait + runtime) / max(runtime, threshold), at least 1",
    unit: Unit::Fixed("ratio"),
    from_zero: false,
    least: 0.0,
    read: |r| r.mean_bsld,
};

/// The `sessions` metric: users' working sessions in the run.
pub const SESSIONS: Metric = Metric {
    name: "sessions",
    title: "Sessions",
    quantity: "sessions",
    meaning: "users' working sessions in the run",
    unit: Unit::Fixed("sessions"),
    from_zero: false,
    least: 0.0,
    read: |r| r.sessions as f64,
};

/// The `jobs_per_session` metric: mean jobs submitted in a session.
pub const JOBS_PER_SESSION: Metric = Metric {
    name: "jobs_per_session",
    title: "Jobs per session",
    quantity: "jobs per session",
    meaning: "mean jobs submitted in a session",
    unit: Unit::Fixed("jobs"),
    from_zero: false,
    least: 0.0,
    read: |r| r.jobs_per_session,
};

/// The `session_hours` metric: mean length of a user's working session.
pub const SESSION_HOURS: Metric = Metric {
    name: "session_hours",
    title: "Mean session length",
    quantity: "mean session length",
    meaning: "mean length of a user's working session",
    unit: Unit::Fixed("h"),
    from_zero: false,
    least: 0.0,
    read: |r| r.session_hours,
};

/// The `frustrated` metric: users who left for good after long waits.
pub const FRUSTRATED: Metric = Metric {
    name: "frustrated",
    title: "Frustrated users",
    quantity: "frustrated users",
    meaning: "users who left for good after long waits",
    unit: Unit::Fixed("users"),
    from_zero: true,
    least: 0.0,
    read: |r| r.frustrated as f64,
};

/// The `replaced` metric: long-term users who left for good and whose place went to a
/// newcomer.
pub const REPLACED: Metric = Metric {
    name: "replaced",
    title: "Replaced users",
    quantity: "replaced users",
    meaning: "long-term users who left for good and whose place went to a newcomer",
    unit: Unit::Fixed("users"),
    from_zero: true,
    least: 0.0,
    read: |r| r.replaced as f64,
};

/// The `queue_trend` metric: how fast the queue grows over the measured weeks.
pub const QUEUE_TREND: Metric = Metric {
    name: "queue_trend",
    title: "Queue trend",
    quantity: "queue trend",
    meaning: "growth of the weekly mean number of waiting jobs over the measured weeks \
              (least-squares slope): about 0 once the run has settled",
    unit: Unit::Fixed("jobs/week"),
    from_zero: false,
    least: f64::NEG_INFINITY,
    read: |r| r.queue_trend,
};

/// The `user_fairness` metric: Jain's index of the users' mean bounded slowdowns.
pub const USER_FAIRNESS: Metric = Metric {
    name: "user_fairness",
    title: "Fairness between users",
    quantity: "fairness between users",
    meaning: "Jain's index of the users' mean bounded slowdowns: 1 when all are slowed alike",
    unit: Unit::Fixed("index"),
    from_zero: false,
    least: 0.0,
    read: |r| r.user_fairness,
};

/// Every metric summarized over replications, in the order of summaries and CSV files.
pub const METRICS: [Metric; 13] = [
    JOBS_PER_WEEK,
    PROC_HOURS_PER_WEEK,
    UTILIZATION,
    MEAN_WAIT,
    MEAN_RESPONSE,
    MEAN_BSLD,
    SESSIONS,
    JOBS_PER_SESSION,
    SESSION_HOURS,
    FRUSTRATED,
    REPLACED,
    QUEUE_TREND,
    USER_FAIRNESS,
];

/// The metric named `name`.
pub fn metric(name: &str) -> Result<&'static Metric, String> {
    METRICS.iter().find(|m| m.name == name).ok_or_else(|| {
        format!(
            "unknown metric '{name}' (known: {})",
            METRICS.map(|m| m.name).join(", ")
        )
    })
}

/// One bin of a histogram.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bin {
    /// Lower bound (inclusive).
    pub lo: f64,
    /// Upper bound (exclusive, inclusive for the last bin).
    pub hi: f64,
    /// Replications in it.
    pub count: u64,
}

/// A metric over replications.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricStats {
    /// The metric.
    pub metric: &'static str,
    /// Replications.
    pub n: u64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// Half-width of the 95% confidence interval of the mean (Student's t).
    pub ci95: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// The distribution: 20 equal bins from the smallest to the largest value.
    pub histogram: Vec<Bin>,
}

/// The most bins of a histogram.
const BINS: usize = 20;

/// Bins of a histogram of `n` values: Sturges' rule, `ceil(log2 n) + 1` (4 values: 3
/// bins; 20: 6; 1,000: 11), at most [`BINS`].
fn bins_for(n: usize) -> usize {
    ((n.max(1) as f64).log2().ceil() as usize + 1).min(BINS)
}

/// The half-width of the 95% confidence interval of the mean of `n` values of sample
/// standard deviation `sd` (Student's t with n − 1 degrees of freedom; 0 for one value).
pub fn ci95(n: u64, sd: f64) -> f64 {
    if n < 2 {
        return 0.0;
    }
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .expect("degrees of freedom are positive")
        .inverse_cdf(0.975);
    t * sd / (n as f64).sqrt()
}

impl MetricStats {
    /// The statistics of `values` (at least one).
    pub fn of(metric: &'static str, values: &[f64]) -> MetricStats {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let ci95 = ci95(n as u64, sd);
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let wanted = bins_for(n);
        let width = (max - min) / wanted as f64;
        let mut counts = [0u64; BINS];
        for v in values {
            let i = if width > 0.0 {
                (((v - min) / width) as usize).min(wanted - 1)
            } else {
                0
            };
            counts[i] += 1;
        }
        let bins = if width > 0.0 { wanted } else { 1 };
        MetricStats {
            metric,
            n: n as u64,
            mean,
            sd,
            ci95,
            min,
            max,
            histogram: (0..bins)
                .map(|i| Bin {
                    lo: min + i as f64 * width,
                    hi: if i + 1 == bins {
                        max
                    } else {
                        min + (i + 1) as f64 * width
                    },
                    count: counts[i],
                })
                .collect(),
        }
    }
}

/// The statistics of every metric over `reps` (empty when there are none).
pub fn stats_of(reps: &[Replication]) -> Vec<MetricStats> {
    if reps.is_empty() {
        return Vec::new();
    }
    METRICS
        .iter()
        .map(|m| {
            let v: Vec<f64> = reps.iter().map(m.read).collect();
            MetricStats::of(m.name, &v)
        })
        .collect()
}

/// A CSV writer to `out` whose header, written first, is `leading`, then the fields of
/// `row`'s type (the header the csv crate writes before a first row), for rows
/// serialized as `(leading values, row)`.
pub(crate) fn csv_with_header<T: Serialize, W: std::io::Write>(
    leading: &[&str],
    row: &T,
    out: W,
) -> std::io::Result<csv::Writer<W>> {
    let mut names = csv::Writer::from_writer(Vec::new());
    names.serialize(row).expect("writing to memory cannot fail");
    let names = names.into_inner().expect("writing to memory cannot fail");
    let header = String::from_utf8(names).expect("field names are text");
    let header = header.lines().next().expect("a header line");
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(out);
    writer.write_record(leading.iter().copied().chain(header.split(',')))?;
    Ok(writer)
}

/// Replications as CSV, one row each, after `leading` columns that every row fills in
/// with its own values (`runs.csv` puts the point first): `replications.csv` and
/// `runs.csv` have the same replication columns, the fields of [`Replication`], named
/// as in [`METRICS`] and `summary.json`. Numbers are written in full (the shortest text
/// that reads back as the same value).
pub struct ReplicationsCsv {
    writer: csv::Writer<Vec<u8>>,
}

impl ReplicationsCsv {
    /// A file whose rows start with the columns `leading`.
    pub fn new(leading: &[&str]) -> ReplicationsCsv {
        ReplicationsCsv {
            writer: csv_with_header(leading, &Replication::default(), Vec::new())
                .expect("writing to memory cannot fail"),
        }
    }

    /// A row: the leading values, then `r`'s.
    pub fn row(&mut self, leading: &[String], r: &Replication) {
        self.writer
            .serialize((leading, r))
            .expect("writing to memory cannot fail");
    }

    /// The file's bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.writer
            .into_inner()
            .expect("writing to memory cannot fail")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_over_replications() {
        let s = MetricStats::of("x", &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.mean, 2.5);
        assert!((s.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        // t(0.975, 3) = 3.182446...
        assert!((s.ci95 - 3.182_446 * s.sd / 2.0).abs() < 1e-5);
        assert_eq!(s.histogram.len(), 3);
        assert_eq!(s.histogram.iter().map(|b| b.count).sum::<u64>(), 4);
        assert_eq!(s.histogram[0].count, 1);
        assert_eq!(s.histogram[2].count, 2);
        assert_eq!(
            (bins_for(1), bins_for(20), bins_for(1000), bins_for(1 << 30)),
            (1, 6, 11, BINS)
        );
        let one = MetricStats::of("x", &[5.0, 5.0]);
        assert_eq!((one.sd, one.ci95, one.histogram.len()), (0.0, 0.0, 1));
    }

    #[test]
    fn every_metric_is_named_once_and_found_by_name() {
        for m in &METRICS {
            assert_eq!(metric(m.name).unwrap().name, m.name);
            assert_eq!(METRICS.iter().filter(|n| n.name == m.name).count(), 1);
        }
        assert!(
            metric("jobs_per_day")
                .unwrap_err()
                .contains("jobs_per_week")
        );
    }

    #[test]
    fn durations_share_one_scale() {
        let wait = metric("mean_wait").unwrap();
        assert_eq!(wait.scale().unit, "h");
        assert_eq!(wait.scale().factor * 1800.0, 0.5);
        assert_eq!(wait.label(wait.scale()), "mean wait (h)");
        let session = metric("session_hours").unwrap();
        assert_eq!(session.scale().unit, wait.scale().unit);
        let bsld = metric("mean_bsld").unwrap();
        assert_eq!(bsld.label(bsld.scale()), "mean bounded slowdown (ratio)");
    }

    #[test]
    fn csv_rows_quote_what_needs_it() {
        let mut csv = ReplicationsCsv::new(&["label"]);
        let r = Replication {
            replication: 1,
            seed: 7,
            jobs: 3,
            jobs_per_week: 2.5,
            proc_hours_per_week: 0.0,
            utilization: 0.5,
            mean_wait: 10.0,
            mean_response: 20.0,
            mean_bsld: 1.0,
            sessions: 1,
            jobs_per_session: 3.0,
            session_hours: 0.25,
            users: 1,
            frustrated: 0,
            replaced: 0,
            arrivals: 0,
            regenerations: 0,
            narrowed_jobs: 0,
            ..Replication::default()
        };
        csv.row(&["a, \"b\"".into()], &r);
        let text = String::from_utf8(csv.into_bytes()).unwrap();
        let mut lines = text.lines();
        assert!(
            lines
                .next()
                .unwrap()
                .starts_with("label,replication,seed,jobs,")
        );
        assert_eq!(
            lines.next().unwrap(),
            "\"a, \"\"b\"\"\",1,7,3,2.5,0.0,0.5,10.0,20.0,1.0,1,3.0,0.25,1,0,0,0,0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0"
        );
    }
}
