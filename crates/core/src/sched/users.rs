//! Per-user session state, as user-aware schedulers see it: how many jobs each user has
//! waiting and running, and when its last job was submitted and ended.
//!
//! The simulation keeps this table from job events alone, so it is the same whatever
//! made the jobs (a replayed log, feedback users, a model). A user is *in an active
//! session* while it has a job in the system or its last job ended less than a session
//! gap ago: the 20-minute think-time boundary of Feitelson 2021, §4.4 (after Shmueli and
//! Feitelson), within which a user is taken to be waiting at the terminal.

use std::sync::Arc;

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

/// Users numbered below this are kept in a vector indexed by number (logs and populations
/// number their users from 1 up); others in a hash map.
pub const DENSE_USERS: usize = 1 << 16;

/// Every user's [`UserActivity`], kept by the simulation.
///
/// A [`frozen`](UserTable::frozen) copy shares its users with its own copies (the
/// snapshots of PBAS's shadow runs): each copy then holds only the users it changed.
/// A table of its own (not a copy) keeps users numbered 0 to [`DENSE_USERS`] in a vector
/// by number, which spares the simulation a hash lookup on each submission, start and
/// end.
#[derive(Debug, Clone, Default)]
pub struct UserTable {
    /// Users 0 up by number, in a table with no `base` (all default if never seen).
    dense: Vec<UserActivity>,
    /// The other users.
    users: FxHashMap<i64, UserActivity>,
    /// Users read through when not in `users`, shared by copies.
    base: Option<Arc<FxHashMap<i64, UserActivity>>>,
}

impl UserTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The activity of `user` (all zero for a user never seen).
    pub fn get(&self, user: i64) -> UserActivity {
        if let Some(a) = usize::try_from(user).ok().and_then(|i| self.dense.get(i)) {
            return *a;
        }
        match self.users.get(&user) {
            Some(a) => *a,
            None => self.shared(user),
        }
    }

    /// `user`'s activity in the shared part (all zero if none).
    fn shared(&self, user: i64) -> UserActivity {
        shared(&self.base, user)
    }

    /// `user`'s own entry, copied from the shared part when it has none yet.
    #[inline]
    fn entry(&mut self, user: i64) -> &mut UserActivity {
        if self.base.is_none()
            && let Ok(i) = usize::try_from(user)
            && i < DENSE_USERS
        {
            if i >= self.dense.len() {
                self.dense.resize(i + 1, UserActivity::default());
            }
            return &mut self.dense[i];
        }
        let base = &self.base;
        self.users.entry(user).or_insert_with(|| shared(base, user))
    }

    /// Makes room for `users` more users of its own.
    pub fn reserve(&mut self, users: usize) {
        self.users.reserve(users);
    }

    /// The same table, its users shared by its copies, which are then cheap.
    pub fn frozen(&self) -> Self {
        let all = match &self.base {
            None => {
                let mut all = self.users.clone();
                all.extend(self.dense_users());
                all
            }
            Some(base) if self.users.is_empty() => {
                return UserTable {
                    dense: Vec::new(),
                    users: FxHashMap::default(),
                    base: Some(base.clone()),
                };
            }
            Some(base) => {
                let mut all = FxHashMap::clone(base);
                all.extend(self.users.iter().map(|(&u, &a)| (u, a)));
                all
            }
        };
        UserTable {
            dense: Vec::new(),
            users: FxHashMap::default(),
            base: Some(Arc::new(all)),
        }
    }

    /// The users seen in the vector part (a user seen has submitted: it is not all
    /// default).
    fn dense_users(&self) -> impl Iterator<Item = (i64, UserActivity)> + '_ {
        self.dense
            .iter()
            .enumerate()
            .filter(|(_, a)| **a != UserActivity::default())
            .map(|(u, &a)| (u as i64, a))
    }

    /// A job of `user` joined the queue at `now`.
    pub fn submitted(&mut self, user: i64, now: Time) {
        let u = self.entry(user);
        u.waiting += 1;
        u.last_submit = Some(now);
    }

    /// A waiting job of `user` started.
    pub fn started(&mut self, user: i64) {
        let u = self.entry(user);
        debug_assert!(
            u.waiting > 0,
            "user {user} started a job it was not waiting for"
        );
        u.waiting -= 1;
        u.running += 1;
    }

    /// A running job of `user` ended at `now`.
    pub fn ended(&mut self, user: i64, now: Time) {
        let u = self.entry(user);
        debug_assert!(u.running > 0, "user {user} ended a job it was not running");
        u.running -= 1;
        u.last_end = Some(now);
    }

    /// Users with a job in the system or seen before, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, UserActivity)> + '_ {
        let shared = self.base.iter().flat_map(|b| {
            b.iter()
                .filter(|(u, _)| !self.users.contains_key(u))
                .map(|(&u, &a)| (u, a))
        });
        self.dense_users()
            .chain(self.users.iter().map(|(&u, &a)| (u, a)))
            .chain(shared)
    }
}

/// `user`'s activity in `base` (all zero if none).
#[cold]
fn shared(base: &Option<Arc<FxHashMap<i64, UserActivity>>>, user: i64) -> UserActivity {
    base.as_ref()
        .and_then(|b| b.get(&user).copied())
        .unwrap_or_default()
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

    #[test]
    fn users_numbered_anyhow_are_kept_apart() {
        let mut t = UserTable::new();
        let users = [
            0,
            3,
            -1,
            1 << 20,
            i64::MAX,
            i64::MIN,
            DENSE_USERS as i64 - 1,
        ];
        for (k, &u) in users.iter().enumerate() {
            for _ in 0..=k {
                t.submitted(u, 10 * k as i64);
            }
            t.started(u);
        }
        for (k, &u) in users.iter().enumerate() {
            let a = t.get(u);
            assert_eq!((a.waiting, a.running), (k as u32, 1), "user {u}");
            assert_eq!(a.last_submit, Some(10 * k as i64));
        }
        assert_eq!(t.get(2), UserActivity::default());
        let frozen = t.frozen();
        let mut copy = frozen.clone();
        copy.ended(3, 99);
        assert_eq!(copy.get(3).last_end, Some(99));
        assert_eq!(frozen.get(3), t.get(3));
        assert_eq!(frozen.get(1 << 20), t.get(1 << 20));
        let mut seen: Vec<i64> = t.iter().map(|(u, _)| u).collect();
        seen.sort();
        let mut expected = users.to_vec();
        expected.sort();
        assert_eq!(seen, expected);
    }

    #[test]
    fn copies_of_a_frozen_table_change_apart() {
        let mut t = UserTable::new();
        t.submitted(1, 10);
        t.submitted(2, 20);
        let frozen = t.frozen();
        let mut copy = frozen.clone();
        copy.started(1);
        copy.submitted(3, 30);
        assert_eq!((copy.get(1).waiting, copy.get(1).running), (0, 1));
        assert_eq!(copy.get(2), t.get(2));
        assert_eq!(frozen.get(1), t.get(1), "the frozen table is unchanged");
        assert_eq!(frozen.get(3), UserActivity::default());
        let mut users: Vec<i64> = copy.iter().map(|(u, _)| u).collect();
        users.sort();
        assert_eq!(users, [1, 2, 3]);
        let again = copy.frozen();
        assert_eq!(again.get(1), copy.get(1));
        assert_eq!(again.get(3), copy.get(3));
    }
}
