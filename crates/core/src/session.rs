//! Sessions: a user's jobs split where the user took a break.
//!
//! The **think time** of a job is its submission minus the termination of the user's
//! previous job; it is negative when that job was still running (the user did not wait
//! for it). A job opens a new **session** when its think time reaches a threshold, 20
//! minutes by default (Zilber, Amit & Talby 2005, used by Talby et al. 2006, §5 for SBH, by
//! Feitelson 2021, §4.4, for the user model and by Talby 2006, §9.2.1, where 15 and 30 minutes gave
//! "virtually the same results"). Which job is "the previous one" is not defined by the papers: the
//! job submitted just before ([`SessionRule::Previous`], the default), or the latest termination
//! among all the user's earlier jobs ([`SessionRule::Latest`]).
//!
//! One rule serves twice (notes §9.1): offline, on a log's own times
//! ([`think_time`]), to find the sessions and windows of trace users, and online, on
//! simulated times ([`SessionTracker`]), for SBH and for the simulated sessions the
//! metrics report. On the same times the two agree (tested).

use crate::time::{MINUTE, Time};

/// The default session threshold: 20 minutes.
pub const DEFAULT_THRESHOLD: Time = 20 * MINUTE;

/// Which earlier job a think time is measured from.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    clap::ValueEnum,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum SessionRule {
    /// The user's previous job in submission order (the papers' wording).
    #[default]
    Previous,
    /// The latest termination among all the user's earlier jobs.
    Latest,
}

/// The think time of a job submitted at `submit`, offline: `previous_end` is the end of
/// the user's previous job and `latest_end` the latest end among all earlier jobs (both
/// `None` for the user's first job, which has no think time).
pub fn think_time(
    rule: SessionRule,
    submit: Time,
    previous_end: Option<Time>,
    latest_end: Option<Time>,
) -> Option<Time> {
    match rule {
        SessionRule::Previous => previous_end.map(|e| submit - e),
        SessionRule::Latest => latest_end.map(|e| submit - e),
    }
}

/// Whether a job with think time `think` (`None`: the user's first job) opens a session.
pub fn opens_session(think: Option<Time>, threshold: Time) -> bool {
    think.is_none_or(|t| t >= threshold)
}

/// Assigns a user's jobs to sessions as they are submitted and end, on simulated time.
/// Ends at a time count before submissions at that time, as in the engine.
#[derive(Debug, Clone, Default)]
pub struct SessionTracker {
    sessions: usize,
    /// The previous job in submission order, and its end once it ended.
    previous: Option<(u64, Option<Time>)>,
    /// Jobs submitted and not yet ended.
    alive: usize,
    latest_end: Option<Time>,
}

impl SessionTracker {
    /// Job `seq` is submitted at `now`: the index of the session it joins (from 0) and
    /// whether it opened it.
    pub fn submit(
        &mut self,
        seq: u64,
        now: Time,
        rule: SessionRule,
        threshold: Time,
    ) -> (usize, bool) {
        let same = match (rule, self.previous) {
            (_, None) => false,
            (SessionRule::Previous, Some((_, None))) => true,
            (SessionRule::Previous, Some((_, Some(end)))) => now - end < threshold,
            (SessionRule::Latest, _) if self.alive > 0 => true,
            (SessionRule::Latest, _) => self.latest_end.is_some_and(|e| now - e < threshold),
        };
        if !same {
            self.sessions += 1;
        }
        self.previous = Some((seq, None));
        self.alive += 1;
        (self.sessions - 1, !same)
    }

    /// Job `seq` ended at `now`.
    pub fn end(&mut self, seq: u64, now: Time) {
        if let Some((s, end)) = &mut self.previous
            && *s == seq
        {
            *end = Some(now);
        }
        self.alive -= 1;
        self.latest_end = Some(self.latest_end.map_or(now, |e| e.max(now)));
    }

    /// Sessions opened so far.
    pub fn sessions(&self) -> usize {
        self.sessions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Offline sessions of jobs `(submit, end)` given in submission order.
    fn offline(jobs: &[(Time, Time)], rule: SessionRule, threshold: Time) -> Vec<usize> {
        let mut out = Vec::new();
        let mut sessions = 0;
        let mut latest: Option<Time> = None;
        for (i, &(submit, end)) in jobs.iter().enumerate() {
            let previous = i.checked_sub(1).map(|p| jobs[p].1);
            // An end at the submission's own second counts as before it.
            let think = think_time(rule, submit, previous, latest);
            if opens_session(think, threshold) {
                sessions += 1;
            }
            out.push(sessions - 1);
            latest = Some(latest.map_or(end, |l| l.max(end)));
        }
        out
    }

    /// The same, by replaying submissions and ends in time order through the tracker.
    fn online(jobs: &[(Time, Time)], rule: SessionRule, threshold: Time) -> Vec<usize> {
        // (time, ends before submissions, job); every job runs at least a second.
        let mut events: Vec<(Time, u8, usize)> = Vec::new();
        for (i, &(s, e)) in jobs.iter().enumerate() {
            events.push((s, 1, i));
            events.push((e, 0, i));
        }
        events.sort();
        let mut t = SessionTracker::default();
        let mut out = vec![0; jobs.len()];
        for (time, kind, i) in events {
            if kind == 1 {
                out[i] = t.submit(i as u64, time, rule, threshold).0;
            } else {
                t.end(i as u64, time);
            }
        }
        out
    }

    #[test]
    fn negative_think_time_stays_in_the_session() {
        // The second job is submitted while the first runs; the third comes 30 min after
        // the second ended.
        let jobs = [(0, 100), (50, 200), (2000, 2100)];
        assert_eq!(offline(&jobs, SessionRule::Previous, 1200), [0, 0, 1]);
        assert_eq!(online(&jobs, SessionRule::Previous, 1200), [0, 0, 1]);
        // By the latest end: a long first job still running keeps the session open.
        let jobs = [(0, 5000), (10, 20), (1300, 1400)];
        assert_eq!(offline(&jobs, SessionRule::Previous, 1200), [0, 0, 1]);
        assert_eq!(offline(&jobs, SessionRule::Latest, 1200), [0, 0, 0]);
        assert_eq!(online(&jobs, SessionRule::Latest, 1200), [0, 0, 0]);
    }

    proptest! {
        /// Offline analysis and the online tracker agree on the same times.
        #[test]
        fn offline_and_online_agree(
            steps in prop::collection::vec((0i64..3000, 1i64..4000), 1..40),
            latest in any::<bool>(),
        ) {
            let mut t = 0;
            let jobs: Vec<(Time, Time)> = steps
                .iter()
                .map(|&(gap, len)| {
                    t += gap;
                    (t, t + len)
                })
                .collect();
            let rule = if latest { SessionRule::Latest } else { SessionRule::Previous };
            prop_assert_eq!(offline(&jobs, rule, 1200), online(&jobs, rule, 1200));
        }
    }
}
