//! How far a trace user's submissions drift from its logged calendar, and which rule of
//! the user model set each one (`docs/MODELS.md`, "Calibration").
//!
//! Under the log's own service (`logged`) every job should be submitted at its logged
//! time; a job that is not is counted under the rule that decided its time, so a user
//! model that does not give back the log says why. Under other service the same counts
//! say where the simulated users part from the log's.

use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize as DeriveSerialize};

use crate::time::{DAY, Time, WEEK};

/// What decided when a trace user submitted a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    /// The previous submission (the order constraint), plus the logged spacing of a job
    /// submitted while the previous one ran.
    Order,
    /// The result its think time is measured from, plus that think time.
    Think,
    /// The latest of its termination dependencies, plus the dependency think time.
    Dependency,
    /// A break of the session threshold or more after a result, as the opening-think
    /// rule sets it.
    Break,
    /// It was ready before the moment its time was decided (the result came then).
    Clock,
    /// Held back to the window before its own session's: it may flow forward into the
    /// previous session only.
    FlowLimit,
    /// Ready between windows: submitted when the next window opened.
    Window,
    /// Ready between windows: submitted at the user's next usual hour.
    UsualHour,
    /// The user gave up the session after a long response (continuation model).
    GaveUp,
    /// The user went on after a short response where the log took a break: the job
    /// flowed forward (continuation model).
    Extended,
}

impl Rule {
    /// Every rule, in the order of the counts.
    pub const ALL: [Rule; 10] = [
        Rule::Order,
        Rule::Think,
        Rule::Dependency,
        Rule::Break,
        Rule::Clock,
        Rule::FlowLimit,
        Rule::Window,
        Rule::UsualHour,
        Rule::GaveUp,
        Rule::Extended,
    ];

    /// The rule's name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Order => "order",
            Rule::Think => "think",
            Rule::Dependency => "dependency",
            Rule::Break => "break",
            Rule::Clock => "clock",
            Rule::FlowLimit => "flow-limit",
            Rule::Window => "window",
            Rule::UsualHour => "usual-hour",
            Rule::GaveUp => "gave-up",
            Rule::Extended => "extended",
        }
    }
}

/// Submissions against the logged calendar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drift {
    /// Jobs submitted at their logged time.
    pub on_time: u64,
    /// Jobs submitted before their logged time, by the rule that set their time.
    pub early: [u64; Rule::ALL.len()],
    /// Jobs submitted after their logged time, by the rule that set their time.
    pub late: [u64; Rule::ALL.len()],
    /// The largest lead over the logged time, seconds.
    pub max_lead: Time,
    /// The largest delay behind the logged time, seconds.
    pub max_lateness: Time,
    /// Jobs whose lead exceeded the response time the user had been saved so far (the
    /// sum, over its ended jobs, of the logged response minus the simulated one, where
    /// positive).
    pub lead_beyond_saved: u64,
}

impl Drift {
    /// A job logged at `logged` was submitted at `at`, its time set by `rule`, after its
    /// user had been saved `saved` seconds of response time.
    pub fn record(&mut self, at: Time, logged: Time, rule: Rule, saved: Time) {
        let i = rule as usize;
        if at == logged {
            self.on_time += 1;
        } else if at < logged {
            self.early[i] += 1;
            self.max_lead = self.max_lead.max(logged - at);
            self.lead_beyond_saved += u64::from(logged - at > saved);
        } else {
            self.late[i] += 1;
            self.max_lateness = self.max_lateness.max(at - logged);
        }
    }

    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &Drift) {
        self.on_time += o.on_time;
        for i in 0..Rule::ALL.len() {
            self.early[i] += o.early[i];
            self.late[i] += o.late[i];
        }
        self.max_lead = self.max_lead.max(o.max_lead);
        self.max_lateness = self.max_lateness.max(o.max_lateness);
        self.lead_beyond_saved += o.lead_beyond_saved;
    }

    /// Jobs submitted before their logged time.
    pub fn early(&self) -> u64 {
        self.early.iter().sum()
    }

    /// Jobs submitted after their logged time.
    pub fn late(&self) -> u64 {
        self.late.iter().sum()
    }

    /// `(rule, early, late)` for every rule that moved a job.
    pub fn by_rule(&self) -> impl Iterator<Item = (Rule, u64, u64)> + '_ {
        Rule::ALL
            .into_iter()
            .map(|r| (r, self.early[r as usize], self.late[r as usize]))
            .filter(|&(_, e, l)| e + l > 0)
    }
}

/// Each job's **lateness**: its simulated submission minus its logged one (moved with its
/// instance in a resampled run), seconds; negative for a job that came early. Under the
/// log's own service every lateness is 0; a user model that treats lost and gained time
/// alike keeps the distribution's tails short under a service that is statistically the
/// same (`docs/MODELS.md`, "Calibration").
#[derive(Debug, Clone)]
pub struct Lateness {
    /// Only jobs logged in `[from, to)` count (a resampled run's measured weeks).
    from: Time,
    to: Time,
    values: Vec<Time>,
    /// Jobs not submitted by the end of the run, each late by at least the value kept.
    censored: u64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness::within(Time::MIN, Time::MAX)
    }
}

impl Lateness {
    /// Counting only the jobs logged in `[from, to)`.
    pub fn within(from: Time, to: Time) -> Self {
        Lateness {
            from,
            to,
            values: Vec::new(),
            censored: 0,
        }
    }

    fn counts(&self, logged: Time) -> bool {
        (self.from..self.to).contains(&logged)
    }

    /// A job logged at `logged` was submitted at `at`.
    pub fn record(&mut self, at: Time, logged: Time) {
        if self.counts(logged) {
            self.values.push(at - logged);
        }
    }

    /// A job logged at `logged` was still not submitted when the run stopped taking
    /// submissions at `end`: late by at least `end - logged`, counted so.
    pub fn censored(&mut self, end: Time, logged: Time) {
        if self.counts(logged) {
            self.values.push((end - logged).max(0));
            self.censored += 1;
        }
    }

    /// The distribution.
    pub fn summary(&self) -> LatenessSummary {
        let mut v = self.values.clone();
        if v.is_empty() {
            return LatenessSummary::default();
        }
        let n = v.len();
        let share = |over: Time| v.iter().filter(|&&x| x > over).count() as f64 / n as f64;
        let (early, late) = (
            v.iter().filter(|&&x| x < 0).count() as f64 / n as f64,
            share(0),
        );
        let (over_day, over_week, over_30_days) = (share(DAY), share(WEEK), share(30 * DAY));
        let (min, max) = (v.iter().min().copied(), v.iter().max().copied());
        // Nearest ranks, selected in turn: each rank above the last is in the part
        // above it, without sorting every job.
        let rank = |q: f64| ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
        let mut below = 0;
        let [median, p95, p99] = [0.5, 0.95, 0.99].map(|q| {
            let r = rank(q);
            let (_, &mut x, _) = v[below..].select_nth_unstable(r - below);
            below = r;
            x
        });
        LatenessSummary {
            jobs: n as u64,
            censored: self.censored,
            early,
            late,
            min: min.expect("not empty"),
            median,
            p95,
            p99,
            max: max.expect("not empty"),
            over_day,
            over_week,
            over_30_days,
        }
    }
}

/// What a run reports of its jobs' [`Lateness`]: quantiles by nearest rank, shares of
/// the jobs.
#[derive(Debug, Clone, Copy, Default, PartialEq, DeriveSerialize, Deserialize)]
pub struct LatenessSummary {
    /// Jobs counted.
    pub jobs: u64,
    /// Of them, jobs not submitted by the end of the run (counted at the least lateness
    /// they have).
    pub censored: u64,
    /// Share of jobs submitted before their logged time.
    pub early: f64,
    /// Share submitted after it.
    pub late: f64,
    /// The largest lead, as a negative lateness (0 if no job came early), seconds.
    pub min: Time,
    /// Median lateness, seconds.
    pub median: Time,
    /// 95th percentile, seconds.
    pub p95: Time,
    /// 99th percentile, seconds.
    pub p99: Time,
    /// The largest, seconds.
    pub max: Time,
    /// Share of jobs more than a day late.
    pub over_day: f64,
    /// Share of jobs more than a week late.
    pub over_week: f64,
    /// Share of jobs more than 30 days late.
    pub over_30_days: f64,
}

/// Counts by rule name, every rule present.
struct ByRule<'a>(&'a [u64; Rule::ALL.len()]);

impl Serialize for ByRule<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(Rule::ALL.len()))?;
        for r in Rule::ALL {
            m.serialize_entry(r.name(), &self.0[r as usize])?;
        }
        m.end()
    }
}

impl Serialize for Drift {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Drift", 7)?;
        st.serialize_field("on_time", &self.on_time)?;
        st.serialize_field("early", &self.early())?;
        st.serialize_field("late", &self.late())?;
        st.serialize_field("early_by_rule", &ByRule(&self.early))?;
        st.serialize_field("late_by_rule", &ByRule(&self.late))?;
        st.serialize_field("max_lead", &self.max_lead)?;
        st.serialize_field("max_lateness", &self.max_lateness)?;
        st.serialize_field("lead_beyond_saved", &self.lead_beyond_saved)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn lateness_quantiles_are_the_sorted_nearest_ranks(
            values in prop::collection::vec(-1000i64..1000, 1..200),
        ) {
            let mut l = Lateness::default();
            for &v in &values {
                l.record(v, 0);
            }
            let s = l.summary();
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let n = sorted.len();
            let at = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
            prop_assert_eq!((s.min, s.max), (sorted[0], sorted[n - 1]));
            prop_assert_eq!((s.median, s.p95, s.p99), (at(0.5), at(0.95), at(0.99)));
        }
    }

    #[test]
    fn lateness_quantiles_and_shares() {
        let mut l = Lateness::default();
        assert_eq!(l.summary(), LatenessSummary::default());
        for (at, logged) in [(90, 100), (100, 100), (100 + DAY + 1, 100), (0, 0)] {
            l.record(at, logged);
        }
        l.censored(10 * WEEK, 2 * WEEK);
        let s = l.summary();
        assert_eq!((s.jobs, s.censored, s.min, s.max), (5, 1, -10, 8 * WEEK));
        // Sorted: -10, 0, 0, DAY + 1, 8 weeks.
        assert_eq!((s.median, s.p95, s.p99), (0, 8 * WEEK, 8 * WEEK));
        assert_eq!((s.early, s.late), (0.2, 0.4));
        assert_eq!((s.over_day, s.over_week, s.over_30_days), (0.4, 0.2, 0.2));
    }

    #[test]
    fn drift_counts_by_rule_and_bounds_the_lead() {
        let mut d = Drift::default();
        d.record(100, 100, Rule::Think, 0);
        d.record(90, 100, Rule::Dependency, 20);
        d.record(50, 100, Rule::Break, 20);
        d.record(130, 100, Rule::Window, 0);
        assert_eq!((d.on_time, d.early(), d.late()), (1, 2, 1));
        assert_eq!(
            (d.max_lead, d.max_lateness, d.lead_beyond_saved),
            (50, 30, 1)
        );
        let rules: Vec<_> = d.by_rule().collect();
        assert_eq!(
            rules,
            [
                (Rule::Dependency, 1, 0),
                (Rule::Break, 1, 0),
                (Rule::Window, 0, 1)
            ]
        );
        let mut sum = Drift::default();
        sum.add(&d);
        sum.add(&d);
        assert_eq!((sum.on_time, sum.early(), sum.max_lead), (2, 4, 50));
        let json = serde_json::to_string(&d).unwrap();
        assert!(json.contains("\"early_by_rule\":{\"order\":0,\"think\":0,\"dependency\":1"));
    }
}
