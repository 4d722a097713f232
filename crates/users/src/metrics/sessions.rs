//! Sessions and users as the simulated run produced them. A closed-loop user model says
//! which of its jobs open a session ([`JobRequest::opens_session`]): its users' own
//! sessions, as they lived them, are counted, so that a session the user opened while
//! its previous one's jobs still waited is a session of its own (the think-time rule
//! would join the two, and the session's length would absorb the wait). The jobs of an
//! open-loop source are split by the same think-time rule as the log's
//! ([`crate::session`]), on simulated times. In the closed loop sessions come out of the
//! run (Feitelson 2021, Table 1: throughput and session length are the main metrics); in
//! an open-loop replay they mostly echo the log.

use std::io::{self, Write};

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::Spread;
use crate::job::{JobOutcome, JobRequest};
use crate::sched::DENSE_USERS;
use crate::session::{SessionRule, SessionTracker};
use crate::sim::Observer;
use crate::textfmt::{Fixed, write_csv};
use crate::time::{HOUR, Time};

/// A simulated session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionRecord {
    /// The user.
    pub user: i64,
    /// Its index among the user's simulated sessions.
    pub index: u32,
    /// Its first submission.
    pub first_submit: Time,
    /// Its last submission.
    pub last_submit: Time,
    /// The last end among its jobs.
    pub last_end: Time,
    /// Jobs submitted in it.
    pub jobs: u32,
    /// Processor-seconds its jobs ran.
    pub work: i64,
}

impl SessionRecord {
    /// From its first submission to the last end of its jobs, seconds.
    pub fn duration(&self) -> Time {
        self.last_end - self.first_submit
    }

    /// Jobs per hour of the session (its duration taken as at least a second).
    pub fn productivity(&self) -> f64 {
        f64::from(self.jobs) * HOUR as f64 / self.duration().max(1) as f64
    }
}

/// One user's simulated jobs, in all.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UserRecord {
    /// The user.
    pub user: i64,
    /// Jobs that ended.
    pub jobs: u64,
    /// Simulated sessions.
    pub sessions: u32,
    /// Sum of waits, seconds.
    pub wait_sum: i64,
    /// Sum of response times, seconds.
    pub response_sum: i64,
    /// Processor-seconds run.
    pub work: i64,
    /// First submission.
    pub first_submit: Time,
    /// Last end.
    pub last_end: Time,
}

/// Session statistics of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SessionsSummary {
    /// Users who submitted.
    pub users: u64,
    /// Simulated sessions.
    pub sessions: u64,
    /// Jobs per session.
    pub jobs_per_session: Spread,
    /// Session durations, seconds (first submission to last end).
    pub duration: Spread,
    /// Mean productivity, jobs per session-hour.
    pub mean_productivity: f64,
}

#[derive(Debug, Default)]
struct UserSessions {
    tracker: SessionTracker,
    sessions: Vec<SessionRecord>,
    total: UserRecord,
}

/// A user number not yet given a place.
const NO_SLOT: u32 = u32::MAX;

/// Splits each user's simulated jobs into sessions.
#[derive(Debug)]
pub struct SessionRecorder {
    rule: SessionRule,
    threshold: Time,
    /// Each user's place in `users`: users 0 to [`DENSE_USERS`] by number (`NO_SLOT` for
    /// one not seen), the others in `slot_of`.
    slot_by_number: Vec<u32>,
    slot_of: FxHashMap<i64, u32>,
    users: Vec<UserSessions>,
    /// By submission number: the user's slot and the session index.
    session_of: Vec<(u32, u32)>,
}

impl SessionRecorder {
    /// Sessions by `rule` at `threshold`.
    pub fn new(rule: SessionRule, threshold: Time) -> Self {
        SessionRecorder {
            rule,
            threshold,
            slot_by_number: Vec::new(),
            slot_of: FxHashMap::default(),
            users: Vec::new(),
            session_of: Vec::new(),
        }
    }

    /// Every session, by user and index, and every user, by user number.
    pub fn records(&self) -> (Vec<SessionRecord>, Vec<UserRecord>) {
        let mut users: Vec<&UserSessions> = self.users.iter().collect();
        users.sort_by_key(|u| u.total.user);
        let sessions = users
            .iter()
            .flat_map(|u| u.sessions.iter().copied())
            .collect();
        let totals = users.iter().map(|u| u.total).collect();
        (sessions, totals)
    }

    /// When each session opened (its first submission), user by user.
    pub fn opened(&self) -> impl Iterator<Item = Time> + '_ {
        self.users
            .iter()
            .flat_map(|u| u.sessions.iter().map(|s| s.first_submit))
    }

    /// The summary.
    pub fn summary(&self) -> SessionsSummary {
        SessionsSummary::of(
            self.users.iter().flat_map(|u| u.sessions.iter().copied()),
            self.users.len() as u64,
        )
    }
}

impl SessionsSummary {
    /// The statistics of `sessions`, of `users` users.
    pub fn of(sessions: impl Iterator<Item = SessionRecord>, users: u64) -> SessionsSummary {
        let mut jobs = Vec::new();
        let mut duration = Vec::new();
        let mut productivity = 0.0;
        for s in sessions {
            jobs.push(i64::from(s.jobs));
            duration.push(s.duration());
            productivity += s.productivity();
        }
        let n = jobs.len() as u64;
        SessionsSummary {
            users,
            sessions: n,
            jobs_per_session: Spread::of(jobs),
            duration: Spread::of(duration),
            mean_productivity: if n > 0 { productivity / n as f64 } else { 0.0 },
        }
    }
}

impl Observer for SessionRecorder {
    fn on_submit(&mut self, now: Time, job: &JobRequest) {
        let next = self.users.len() as u32;
        let slot = match usize::try_from(job.user) {
            Ok(u) if u < DENSE_USERS => {
                if u >= self.slot_by_number.len() {
                    self.slot_by_number.resize(u + 1, NO_SLOT);
                }
                let slot = &mut self.slot_by_number[u];
                if *slot == NO_SLOT {
                    *slot = next;
                }
                *slot
            }
            _ => *self.slot_of.entry(job.user).or_insert(next),
        };
        if slot == next {
            self.users.push(UserSessions {
                total: UserRecord {
                    user: job.user,
                    first_submit: now,
                    ..UserRecord::default()
                },
                ..UserSessions::default()
            });
        }
        let u = &mut self.users[slot as usize];
        let by_rule = u.tracker.submit(job.seq, now, self.rule, self.threshold);
        let (index, opened) = match job.opens_session {
            // The user model's own session: a new one where it opened one, or the user's
            // first.
            Some(opens) if opens || u.sessions.is_empty() => (u.sessions.len(), true),
            Some(_) => (u.sessions.len() - 1, false),
            None => by_rule,
        };
        if opened {
            u.sessions.push(SessionRecord {
                user: job.user,
                index: index as u32,
                first_submit: now,
                last_submit: now,
                last_end: now,
                jobs: 0,
                work: 0,
            });
            u.total.sessions += 1;
        }
        let s = &mut u.sessions[index];
        s.jobs += 1;
        s.last_submit = now;
        let seq = job.seq as usize;
        if self.session_of.len() <= seq {
            self.session_of.resize(seq + 1, (0, 0));
        }
        self.session_of[seq] = (slot, index as u32);
    }

    fn on_end(&mut self, j: &JobOutcome) {
        let (slot, index) = self.session_of[j.seq as usize];
        let u = &mut self.users[slot as usize];
        u.tracker.end(j.seq, j.end);
        let work = i64::from(j.size) * j.runtime();
        let s = &mut u.sessions[index as usize];
        s.last_end = s.last_end.max(j.end);
        s.work += work;
        let t = &mut u.total;
        t.jobs += 1;
        t.wait_sum += j.wait();
        t.response_sum += j.response();
        t.work += work;
        t.last_end = t.last_end.max(j.end);
    }
}

/// A row of `sessions.csv`.
#[derive(Serialize, Default)]
struct SessionRow {
    user: i64,
    session: u32,
    first_submit: Time,
    last_submit: Time,
    last_end: Time,
    jobs: u32,
    duration: Time,
    processor_seconds: i64,
    /// Jobs per session-hour.
    productivity: Fixed<3>,
}

/// Writes sessions as CSV rows.
pub fn write_sessions_csv(w: &mut impl Write, sessions: &[SessionRecord]) -> io::Result<()> {
    write_csv(
        w,
        sessions.iter().map(|s| SessionRow {
            user: s.user,
            session: s.index,
            first_submit: s.first_submit,
            last_submit: s.last_submit,
            last_end: s.last_end,
            jobs: s.jobs,
            duration: s.duration(),
            processor_seconds: s.work,
            productivity: Fixed(s.productivity()),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(seq: u64, user: i64) -> JobRequest {
        JobRequest {
            id: 0,
            seq,
            submit: 0,
            size: 2,
            estimate: 100,
            plan: 100,
            user,
            app: -1,
            think: Time::MAX,
            logged_wait: None,
            opens_session: None,
        }
    }

    fn outcome(seq: u64, user: i64, submit: Time, start: Time, end: Time) -> JobOutcome {
        JobOutcome {
            seq,
            submit,
            start,
            end,
            size: 2,
            estimate: 100,
            requested_runtime: end - start,
            killed: false,
            backfilled: false,
            user,
            job: seq as i64,
            tag: seq,
            accuracy: Default::default(),
        }
    }

    #[test]
    fn sessions_split_on_simulated_think_times() {
        let mut r = SessionRecorder::new(SessionRule::Previous, 1200);
        r.on_submit(0, &request(0, 5));
        r.on_submit(10, &request(1, 7));
        r.on_end(&outcome(0, 5, 0, 0, 100));
        r.on_submit(200, &request(2, 5)); // think 100: same session
        r.on_end(&outcome(1, 7, 10, 10, 50));
        r.on_end(&outcome(2, 5, 200, 300, 400));
        r.on_submit(5000, &request(3, 5)); // think 4600: new session
        r.on_end(&outcome(3, 5, 5000, 5000, 5100));
        let (sessions, users) = r.records();
        let brief: Vec<_> = sessions
            .iter()
            .map(|s| (s.user, s.index, s.jobs, s.duration(), s.work))
            .collect();
        assert_eq!(
            brief,
            [
                (5, 0, 2, 400, 2 * 200),
                (5, 1, 1, 100, 200),
                (7, 0, 1, 40, 80)
            ]
        );
        assert_eq!(users[0].user, 5);
        assert_eq!(
            (users[0].jobs, users[0].sessions, users[0].wait_sum),
            (3, 2, 100)
        );
        let mut opened: Vec<Time> = r.opened().collect();
        opened.sort_unstable();
        assert_eq!(opened, [0, 10, 5000]);
        let s = r.summary();
        assert_eq!((s.users, s.sessions), (2, 3));
        assert!((s.jobs_per_session.mean - 4.0 / 3.0).abs() < 1e-12);
        assert!((sessions[0].productivity() - 18.0).abs() < 1e-12);
    }

    #[test]
    fn a_user_models_own_sessions_are_counted_where_it_marks_them() {
        // User 5 submits job 1 while job 0 still runs (the think-time rule would join
        // them) but its model opened a new session with it; job 2, 9000 s after job 1
        // ended (the rule would split there), continues that session.
        let mark = |seq, opens| JobRequest {
            opens_session: Some(opens),
            ..request(seq, 5)
        };
        let mut r = SessionRecorder::new(SessionRule::Previous, 1200);
        r.on_submit(0, &mark(0, true));
        r.on_submit(50, &mark(1, true));
        r.on_end(&outcome(0, 5, 0, 0, 100));
        r.on_end(&outcome(1, 5, 50, 50, 1000));
        r.on_submit(10_000, &mark(2, false));
        r.on_end(&outcome(2, 5, 10_000, 10_000, 10_100));
        let (sessions, users) = r.records();
        let brief: Vec<_> = sessions.iter().map(|s| (s.index, s.jobs)).collect();
        assert_eq!(brief, [(0, 1), (1, 2)]);
        assert_eq!(users[0].sessions, 2);
    }

    #[test]
    fn users_numbered_anyhow_keep_their_own_sessions() {
        let mut r = SessionRecorder::new(SessionRule::Previous, 1200);
        let users = [-1, 0, 3, DENSE_USERS as i64, 1 << 40];
        for (seq, &u) in users.iter().chain(users.iter().rev()).enumerate() {
            let seq = seq as u64;
            r.on_submit(0, &request(seq, u));
            r.on_end(&outcome(seq, u, 0, 0, 10));
        }
        let (sessions, totals) = r.records();
        let seen: Vec<_> = totals.iter().map(|t| (t.user, t.jobs)).collect();
        assert_eq!(seen, users.map(|u| (u, 2)));
        assert!(sessions.iter().all(|s| s.jobs == 2));
    }
}
