//! Per-user session state, as user-aware schedulers see it: how many jobs each user has
//! waiting and running, and when its last job was submitted and ended.
//!
//! The simulation keeps this table from job events alone, so it is the same whatever
//! made the jobs (a replayed log, feedback users, a model). A user is *in an active
//! session* while it has a job in the system or its last job ended less than a session
//! gap ago: the 20-minute think-time boundary of seed 003 §4.4 (after Shmueli and
//! Feitelson), within which a user is taken to be waiting at the terminal.

use rustc_hash::FxHashMap;

use crate::time::Time;

/// One user's jobs in the system and its latest activity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserActivity {
    /// Jobs waiting.
    pub waiting: u32,
    /// Jobs running.
    pub running: u32,
    /// When its latest job was submitted.
    pub last_submit: Option<Time>,
    /// When its latest job ended.
    pub last_end: Option<Time>,
}

impl UserActivity {
    /// Jobs waiting or running.
    pub fn in_system(&self) -> u32 {
        self.waiting + self.running
    }

    /// Whether the user is in an active session at `now`: it has a job waiting or
    /// running, or its last job ended less than `gap` seconds before.
    pub fn in_session(&self, now: Time, gap: Time) -> bool {
        self.in_system() > 0 || self.last_end.is_some_and(|e| now - e < gap)
    }

    /// The think time before a job this user submits at `now` (before it is counted):
    /// 0 if another of its jobs is in the system, the time since its last job ended
    /// otherwise, [`Time::MAX`] if it never had a job end.
    pub fn think_before(&self, now: Time) -> Time {
        if self.in_system() > 0 {
            return 0;
        }
        self.last_end.map_or(Time::MAX, |e| now - e)
    }
}

/// Every user's [`UserActivity`], kept by the simulation.
#[derive(Debug, Clone, Default)]
pub struct UserTable {
    users: FxHashMap<i64, UserActivity>,
}

impl UserTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The activity of `user` (all zero for a user never seen).
    pub fn get(&self, user: i64) -> UserActivity {
        self.users.get(&user).copied().unwrap_or_default()
    }

    /// A job of `user` joined the queue at `now`.
    pub fn submitted(&mut self, user: i64, now: Time) {
        let u = self.users.entry(user).or_default();
        u.waiting += 1;
        u.last_submit = Some(now);
    }

    /// A waiting job of `user` started.
    pub fn started(&mut self, user: i64) {
        let u = self.users.entry(user).or_default();
        debug_assert!(
            u.waiting > 0,
            "user {user} started a job it was not waiting for"
        );
        u.waiting -= 1;
        u.running += 1;
    }

    /// A running job of `user` ended at `now`.
    pub fn ended(&mut self, user: i64, now: Time) {
        let u = self.users.entry(user).or_default();
        debug_assert!(u.running > 0, "user {user} ended a job it was not running");
        u.running -= 1;
        u.last_end = Some(now);
    }

    /// Users with a job in the system or seen before, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, UserActivity)> + '_ {
        self.users.iter().map(|(&u, &a)| (u, a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_lasts_while_jobs_are_in_the_system_and_one_gap_after() {
        let mut t = UserTable::new();
        assert_eq!(t.get(7).think_before(100), Time::MAX, "a first job");
        t.submitted(7, 100);
        assert!(t.get(7).in_session(100, 1200));
        t.started(7);
        assert_eq!(t.get(7).think_before(150), 0, "a job is running");
        t.submitted(7, 150);
        t.started(7);
        t.ended(7, 200);
        t.ended(7, 300);
        let a = t.get(7);
        assert_eq!((a.waiting, a.running, a.last_end), (0, 0, Some(300)));
        assert!(a.in_session(1499, 1200));
        assert!(!a.in_session(1500, 1200));
        assert_eq!(a.think_before(1000), 700);
        assert_eq!(t.get(8), UserActivity::default());
    }
}
