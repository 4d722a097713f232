//! How far a trace user's submissions drift from its logged calendar, and which rule of
//! the user model set each one (`docs/MODELS.md`, "Calibration").
//!
//! Under the log's own service (`logged`) every job should be submitted at its logged
//! time; a job that is not is counted under the rule that decided its time, so a user
//! model that does not give back the log says why. Under other service the same counts
//! say where the simulated users part from the log's.

use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};

use crate::time::Time;

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
    /// The user gave up the session after a long response (continuation model).
    GaveUp,
}

impl Rule {
    /// Every rule, in the order of the counts.
    pub const ALL: [Rule; 8] = [
        Rule::Order,
        Rule::Think,
        Rule::Dependency,
        Rule::Break,
        Rule::Clock,
        Rule::FlowLimit,
        Rule::Window,
        Rule::GaveUp,
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
            Rule::GaveUp => "gave-up",
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
