//! A living population resampled from a log's users (Feitelson 2021, §4.2, after Zakay &
//! Feitelson 2014; notes §8.6): a semi-open system of users, each in closed-loop
//! interaction with the machine.
//!
//! - **Start**: every long-term user of the log (times the long-term multiplier), and the
//!   log's average number of temporary users active in a week (times the temporary
//!   multiplier), each started at a random week of its own activity.
//! - **Every simulated week** a Poisson number of new temporary users arrives, around the
//!   log's weekly rate (times the multiplier), drawn without replacement that week (a
//!   user may come back in a later week, never twice in one), each from its first job.
//! - **A long-term user whose trace ends** is regenerated from its first job after an
//!   interval. The seed gives no value; by default it is the part of the log the user
//!   was not active in (the log's span minus the user's), so that each long-term user is
//!   active for the same share of the time as in the log, and the population offers the
//!   log's load; a fixed interval is an option. The interval runs from when the
//!   instance submitted its last job ([`RegenerateFrom`]): a user that got through its
//!   work early under better service comes back that much sooner, one that fell behind
//!   that much later, so that users gain time as they lose it. Each instance is shifted
//!   by the whole number of weeks nearest to its
//!   ideal shift, which is carried from instance to instance, so the rounding does not
//!   lengthen a user's cycle (on a log of a few weeks, rounding up would lengthen it by
//!   half a week on average); an instance is shifted at least a week past the one before,
//!   so a user comes back at most once a week, as temporary users do.
//!
//! Every instance is shifted by whole weeks, so its jobs keep their day of the week and
//! time of day, and replays its jobs with the dependencies and fluid model of the
//! feedback replay ([`crate::users`]). Each instance submits under its own user number
//! (long-term slot `s` is user `s + 1` through its regenerations; temporary users follow),
//! so schedulers and session metrics see distinct users. All draws come from the
//! population's own stream, before and independently of the simulation, so one seed gives
//! the same users under every scheduler (common random numbers).

use std::sync::Arc;

use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use super::feedback::TraceUsers;
use super::pools::{Pool, PoolConfig, Pools};
use crate::job::JobOutcome;
use crate::seed::mix;
use crate::sim::{SimError, SourceCtx, Workload};
use crate::time::{Time, WEEK};
use crate::users::{MAX_USERS, TooManyUsers, TraceAgent, UserConfig, UserState};
use crate::workload::trace::{Trace, TraceConfig, TraceUser};

/// The population's wake-up token (the users' own is 0).
const WEEK_TOKEN: u64 = 1;

/// How the population is made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PopulationConfig {
    /// Simulated time from the log's first submission, seconds.
    pub length: Time,
    /// Multiplier on the number of long-term users.
    pub long_term: f64,
    /// Multiplier on the temporary users at the start and on their weekly arrival rate.
    pub temporary: f64,
    /// Least time between the end of a long-term user's trace and its regeneration;
    /// `None`: the time the user was inactive in the log.
    pub regenerate_after: Option<Time>,
    /// What that time runs from.
    pub regenerate_from: RegenerateFrom,
    /// Weights of chosen log users (by user number): 0 excludes a user, 3 makes it three
    /// times as likely to be drawn (and a long-term user three times as many).
    pub weights: Vec<(i64, f64)>,
    /// The weight of every user with a flurry ([`super::pools::PoolUser::flurry`]) not
    /// given one in `weights`; `None`: 1, like any user.
    pub flurry_weight: Option<f64>,
    /// Where the long-term users start.
    pub start_week: StartWeek,
}

impl Default for PopulationConfig {
    fn default() -> Self {
        PopulationConfig {
            length: 52 * WEEK,
            long_term: 1.0,
            temporary: 1.0,
            regenerate_after: None,
            regenerate_from: RegenerateFrom::default(),
            weights: Vec::new(),
            flurry_weight: None,
            start_week: StartWeek::default(),
        }
    }
}

/// What a long-term user's regeneration interval runs from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum RegenerateFrom {
    /// When the instance actually submitted its last job (the default): a user that
    /// finished its stream ahead of its log comes back as much sooner as one that fell
    /// behind comes back later, so a faster service lets long-term users do more work
    /// as a slower one makes them do less (Feitelson 2021, §4.4: "if the simulated system
    /// is more powerful, the users would be expected to submit more jobs, and vice
    /// versa"). Under the log's own service it is the calendar.
    #[default]
    Finish,
    /// The end of the instance on the log's calendar, or its actual finish if later: a
    /// user behind its calendar comes back later, one ahead waits for its calendar, so
    /// a head start never becomes more users while a delay becomes fewer.
    Calendar,
}

/// Where a long-term user starts the run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum StartWeek {
    /// In a random week of its traced activity (the default; Feitelson 2021, §4.2: "each user
    /// is started in some arbitrary week of his traced activity"): every long-term user
    /// is active at the start.
    #[default]
    Activity,
    /// At a random point of its whole cycle, its activity and the interval before its
    /// regeneration: active with the share of the time it is active in steady state,
    /// else starting from its first job once a random part of the interval has passed.
    Cycle,
}

/// A long-term slot: one long-term user kept through the run, and its current instance.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// The pool user.
    user: usize,
    /// Times it was regenerated.
    regenerations: u32,
    /// The current instance's shift from the log, seconds (whole weeks).
    shift: Time,
    /// The shift it would have without rounding to whole weeks.
    ideal: Time,
}

/// `t` rounded to the nearest whole week (halves up).
fn nearest_week(t: Time) -> Time {
    (t + WEEK / 2).div_euclid(WEEK) * WEEK
}

/// The users resampling draws from: the log's traces and their pools. Shared, read-only,
/// by every replication.
#[derive(Debug)]
pub struct UserPools {
    /// The pools.
    pub pools: Pools,
    /// Each user's stream, analysed once: an instance of a whole stream shares it
    /// ([`TraceAgent::shifted`]), since moving every job by one shift changes no think
    /// time, session or dependency.
    traces: Vec<Arc<TraceUser>>,
    config: TraceConfig,
}

impl UserPools {
    /// The pools of `trace`.
    pub fn new(trace: Trace, config: PoolConfig) -> Self {
        let pools = Pools::of(&trace, config);
        let traces = trace.users;
        UserPools {
            pools,
            traces: traces.into_iter().map(Arc::new).collect(),
            config: trace.config,
        }
    }

    /// The log week (from the log's first submission) of time `t`.
    fn week(&self, t: Time) -> i64 {
        (t - self.pools.span.0).div_euclid(WEEK)
    }

    /// User `u`'s stream from log time `from` on, unshifted: the shared stream when
    /// `from` cuts none of its jobs, else the rest analysed anew (the first jobs left
    /// out, its think times, sessions and dependencies start over).
    fn stream_from(&self, u: usize, from: Time) -> Option<Arc<TraceUser>> {
        let whole = &self.traces[u];
        if whole.jobs.iter().all(|j| j.submit >= from) {
            return (!whole.jobs.is_empty()).then(|| whole.clone());
        }
        let jobs: Vec<_> = (whole.jobs.iter())
            .filter(|j| j.submit >= from)
            .cloned()
            .collect();
        (!jobs.is_empty()).then(|| Arc::new(TraceUser::analyse(whole.user, jobs, &self.config)))
    }
}

/// What the population did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PopulationReport {
    /// Long-term slots (users kept through the run).
    pub long_term_slots: u64,
    /// Temporary users at the start.
    pub initial_temporary: u64,
    /// Temporary users that arrived during the run.
    pub arrivals: u64,
    /// Long-term users regenerated.
    pub regenerations: u64,
    /// Long-term users who left for good and whose place went to a newcomer.
    pub replaced: u64,
    /// User instances started in all.
    pub instances: u64,
    /// New temporary users in each simulated week (week 0: the start).
    pub arrivals_by_week: Vec<u32>,
}

/// A resampled population: the [`Workload`] of a resampled run.
pub struct Population {
    pools: Arc<UserPools>,
    cfg: PopulationConfig,
    users: TraceUsers,
    rng: Xoshiro256PlusPlus,
    seed: u64,
    horizon: Time,
    next_week: i64,
    /// Weight of each pool user.
    weights: Vec<f64>,
    /// Long-term slots.
    slots: Vec<Slot>,
    /// For each agent: its pool user, and its long-term slot if it has one.
    agents: Vec<(usize, Option<u32>)>,
    next_temporary_id: i64,
    report: PopulationReport,
}

/// `floor(x)`, plus one with probability `x - floor(x)`: an integer count of mean `x`.
fn count_of(x: f64, rng: &mut impl Rng) -> u64 {
    let whole = x.floor();
    whole as u64 + u64::from(rng.random::<f64>() < x - whole)
}

/// A Poisson draw of mean `mean` (exponential gaps within one unit of time; means here
/// are a few users per week), counted up to `at_most`: a draw is linear in its count, and
/// a run refuses a mean past [`MAX_USERS`] before it draws (the log's rate is at most its
/// pool a week, [`super::pools::Pools::temporary_arrivals_per_week`]).
fn poisson(mean: f64, at_most: u64, rng: &mut impl Rng) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    let mut n = 0;
    let mut t = 0.0;
    while n < at_most {
        t -= (1.0 - rng.random::<f64>()).ln() / mean;
        if t > 1.0 {
            return n;
        }
        n += 1;
    }
    n
}

impl Population {
    /// A population drawn from `pools` with `cfg`, its users behaving as `users`;
    /// `seed` seeds every draw.
    pub fn new(pools: Arc<UserPools>, cfg: PopulationConfig, users: UserConfig, seed: u64) -> Self {
        let weights = pools
            .pools
            .users
            .iter()
            .map(|u| {
                let default = match cfg.flurry_weight {
                    Some(w) if u.flurry => w,
                    _ => 1.0,
                };
                let w = cfg
                    .weights
                    .iter()
                    .find(|(id, _)| *id == u.user)
                    .map_or(default, |w| w.1);
                if u.pool == Pool::Excluded { 0.0 } else { w }
            })
            .collect::<Vec<f64>>();
        let horizon = pools.pools.span.0 + cfg.length;
        Population {
            users: TraceUsers::empty(users, horizon),
            rng: Xoshiro256PlusPlus::seed_from_u64(mix(seed, 0x706f_7075_6c61_7469)),
            seed,
            horizon,
            next_week: 1,
            weights,
            slots: Vec::new(),
            agents: Vec::new(),
            next_temporary_id: 0,
            report: PopulationReport::default(),
            pools,
            cfg,
        }
    }

    /// Counts the lateness of the jobs logged after the `warmup` and before the
    /// `cooldown` only: the measured weeks.
    pub fn measuring(mut self, warmup: Time, cooldown: Time) -> Self {
        let from = self.pools.pools.span.0 + warmup;
        self.users = self.users.measuring(from, self.horizon - cooldown);
        self
    }

    /// The users.
    pub fn users(&self) -> &TraceUsers {
        &self.users
    }

    /// What the population did.
    pub fn report(&self) -> &PopulationReport {
        &self.report
    }

    /// The log user each agent replays, by agent.
    pub fn log_users(&self) -> impl Iterator<Item = i64> + '_ {
        self.agents
            .iter()
            .map(|&(u, _)| self.pools.pools.users[u].user)
    }

    /// The log user behind each simulated user number (a long-term slot keeps its
    /// number through its regenerations), by simulated user number.
    pub fn log_user_of(&self) -> rustc_hash::FxHashMap<i64, i64> {
        self.users
            .agents()
            .iter()
            .map(TraceAgent::user)
            .zip(self.log_users())
            .collect()
    }

    /// Starts an instance of pool user `u` as user `id`: its stream from log time `from`
    /// on, shifted by `shift`; none if no job is left.
    fn spawn(
        &mut self,
        u: usize,
        slot: Option<u32>,
        id: i64,
        (from, shift): (Time, Time),
        ctx: &mut SourceCtx,
    ) {
        let Some(trace) = self.pools.stream_from(u, from) else {
            return;
        };
        let agent_seed = match slot {
            Some(s) => mix(
                self.seed,
                (u64::from(s) << 32) | u64::from(self.slots[s as usize].regenerations),
            ),
            None => mix(self.seed, 1 << 63 | id as u64),
        };
        self.agents.push((u, slot));
        self.report.instances += 1;
        let agent = TraceAgent::shifted(trace, shift, id, agent_seed);
        self.users.add(agent, ctx);
    }

    /// Starts pool user `u` at a random week of its activity, as user `id`.
    fn spawn_midway(&mut self, u: usize, slot: Option<u32>, id: i64, ctx: &mut SourceCtx) {
        let p = self.pools.clone();
        let user = &p.pools.users[u];
        let (w0, w1) = (p.week(user.first), p.week(user.last));
        let w = self.rng.random_range(w0..=w1);
        self.spawn_at_week(u, slot, id, w, ctx);
    }

    /// Starts pool user `u` at log week `w` of its activity, as user `id`.
    fn spawn_at_week(&mut self, u: usize, slot: Option<u32>, id: i64, w: i64, ctx: &mut SourceCtx) {
        let p = self.pools.clone();
        let from = p.pools.span.0 + w * WEEK;
        if let Some(s) = slot {
            let s = &mut self.slots[s as usize];
            (s.shift, s.ideal) = (-w * WEEK, -w * WEEK);
        }
        self.spawn(u, slot, id, (from, -w * WEEK), ctx);
    }

    /// Starts the long-term slot `slot` (pool user `u`) at a random point of its cycle:
    /// its weeks of activity, then its regeneration interval ([`StartWeek::Cycle`]).
    fn spawn_in_cycle(&mut self, u: usize, slot: u32, ctx: &mut SourceCtx) {
        let p = self.pools.clone();
        let user = &p.pools.users[u];
        let (w0, w1) = (p.week(user.first), p.week(user.last));
        let active = (w1 - w0 + 1) * WEEK;
        let interval = self.cfg.regenerate_after.unwrap_or(self.inactive(u));
        let x = (self.rng.random::<f64>() * (active + interval) as f64) as Time;
        let id = i64::from(slot) + 1;
        if x < active {
            self.spawn_at_week(u, Some(slot), id, w0 + x / WEEK, ctx);
            return;
        }
        // In the interval: the first instance starts from its first job once the rest of
        // it has passed.
        let ideal = p.pools.span.0 + (active + interval - x) - user.first;
        let mut shift = nearest_week(ideal);
        while user.first + shift < p.pools.span.0 {
            shift += WEEK;
        }
        let s = &mut self.slots[slot as usize];
        (s.shift, s.ideal) = (shift, ideal);
        if user.first + shift <= self.horizon {
            self.spawn(u, Some(slot), id, (Time::MIN, shift), ctx);
        }
    }

    /// The time pool user `u` was inactive in the log: the log's span minus its own.
    fn inactive(&self, u: usize) -> Time {
        let span = self.pools.pools.span;
        let user = &self.pools.pools.users[u];
        (span.1 - span.0) - (user.last - user.first)
    }

    /// Draws `n` distinct users of `pool` by weight; `present`: users present in a random
    /// week, each weighted by its weeks of activity too.
    fn draw(&mut self, pool: Pool, n: u64, present: bool) -> Vec<usize> {
        let mut rng = self.rng.clone();
        let chosen = self.draw_with(&mut rng, pool, n, present);
        self.rng = rng;
        chosen
    }

    /// [`Population::draw`] from the stream `rng`.
    fn draw_with(
        &self,
        rng: &mut Xoshiro256PlusPlus,
        pool: Pool,
        n: u64,
        present: bool,
    ) -> Vec<usize> {
        let p = self.pools.clone();
        let mut weights: Vec<(usize, f64)> = (p.pools.users.iter().enumerate())
            .filter(|(i, u)| u.pool == pool && self.weights[*i] > 0.0)
            .map(|(i, u)| {
                let weeks = if present {
                    (p.week(u.last) - p.week(u.first) + 1) as f64
                } else {
                    1.0
                };
                (i, self.weights[i] * weeks)
            })
            .collect();
        let all = weights.clone();
        let pick = |weights: &[(usize, f64)], rng: &mut Xoshiro256PlusPlus| {
            let total: f64 = weights.iter().map(|w| w.1).sum();
            let mut r = rng.random::<f64>() * total;
            weights
                .iter()
                .position(|w| {
                    r -= w.1;
                    r < 0.0
                })
                .unwrap_or(weights.len() - 1)
        };
        let mut chosen = Vec::new();
        while (chosen.len() as u64) < n && !weights.is_empty() {
            let k = pick(&weights, rng);
            chosen.push(weights.swap_remove(k).0);
        }
        // Past the pool (a multiplier larger than the pool allows), users are drawn again,
        // with replacement: each drawn user is one more instance of the pool's user, so
        // that a multiplier acts however large (a saturation curve is then no artefact
        // of the pool's size).
        while (chosen.len() as u64) < n && !all.is_empty() {
            let k = pick(&all, rng);
            chosen.push(all[k].0);
        }
        chosen.sort_unstable();
        chosen
    }

    fn temporary_id(&mut self) -> i64 {
        self.next_temporary_id += 1;
        self.slots.len() as i64 + self.next_temporary_id
    }

    /// The new temporary users of week `week`, each from its first job.
    fn arrive(&mut self, week: i64, ctx: &mut SourceCtx) {
        let mean = self.pools.pools.temporary_arrivals_per_week * self.cfg.temporary;
        // The mean was checked against `MAX_USERS` at the start (`Population::start`).
        let n = poisson(mean, MAX_USERS, &mut self.rng);
        let chosen = self.draw(Pool::Temporary, n, false);
        self.report.arrivals += chosen.len() as u64;
        self.report.arrivals_by_week.push(chosen.len() as u32);
        for u in chosen {
            let id = self.temporary_id();
            let p = self.pools.clone();
            let shift = (week - p.week(p.pools.users[u].first)) * WEEK;
            self.spawn(u, None, id, (Time::MIN, shift), ctx);
        }
    }

    /// Regenerates the long-term users whose traces have ended, and replaces those who
    /// left for good.
    fn regenerate_finished(&mut self, ctx: &mut SourceCtx) {
        for agent in self.users.take_finished() {
            let (u, Some(slot)) = self.agents[agent as usize] else {
                continue;
            };
            match self.users.agents()[agent as usize].state() {
                UserState::Done => {}
                UserState::Left => {
                    self.replace(slot, ctx);
                    continue;
                }
                UserState::Waiting | UserState::Ready(..) => continue,
            }
            let p = self.pools.clone();
            let user = &p.pools.users[u];
            let first = user.first;
            let inactive = self.inactive(u);
            let s = self.slots[slot as usize];
            // How much later than its calendar the instance finished (negative: earlier).
            let behind = ctx.now() - (user.last + s.shift);
            let behind = match self.cfg.regenerate_from {
                RegenerateFrom::Calendar => behind.max(0),
                RegenerateFrom::Finish => behind,
            };
            let ideal = s.ideal
                + (user.last - first)
                + self.cfg.regenerate_after.unwrap_or(inactive)
                + behind;
            // The nearest whole week may fall before the previous instance finished (a user
            // inactive for less than half a week): its first jobs then come as soon as it
            // has, a little late, rather than a week late. It is at least a week past the
            // previous instance's: on a log shorter than half a week the nearest week
            // would not move, and a user whose jobs do not wait for one another came
            // back, all of them at once, each time it had submitted them (millions of
            // jobs a week from a log of a second; a fuzzing finding).
            let shift = nearest_week(ideal).max(s.shift + WEEK);
            if first + shift > self.horizon {
                continue;
            }
            self.slots[slot as usize] = Slot {
                regenerations: s.regenerations + 1,
                shift,
                ideal,
                ..s
            };
            self.report.regenerations += 1;
            self.spawn(u, Some(slot), i64::from(slot) + 1, (Time::MIN, shift), ctx);
        }
    }

    /// The long-term slot `slot`, whose user left for good (frustrated), goes to a
    /// newcomer: a long-term user drawn from the pool by weight, from its first job, after
    /// its regeneration interval (the time it was inactive in the log, or the one given)
    /// from now, as a regenerated user comes back after its own (Feitelson 2021, §4.2:
    /// "the population of long-term users is constant"). The draw comes from a stream of
    /// the slot's own, so that the users who arrive every week are the same whoever
    /// left.
    fn replace(&mut self, slot: u32, ctx: &mut SourceCtx) {
        let s = self.slots[slot as usize];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(mix(
            self.seed,
            0x6e65_7763_6f6d_6572 ^ ((u64::from(slot) << 32) | u64::from(s.regenerations)),
        ));
        let Some(&u) = self.draw_with(&mut rng, Pool::LongTerm, 1, false).first() else {
            return;
        };
        let p = self.pools.clone();
        let first = p.pools.users[u].first;
        let now = ctx.now();
        let ideal = now + self.cfg.regenerate_after.unwrap_or(self.inactive(u)) - first;
        let mut shift = nearest_week(ideal);
        while first + shift < now {
            shift += WEEK;
        }
        self.report.replaced += 1;
        if first + shift > self.horizon {
            return;
        }
        self.slots[slot as usize] = Slot {
            user: u,
            regenerations: s.regenerations + 1,
            shift,
            ideal,
        };
        self.spawn(u, Some(slot), i64::from(slot) + 1, (Time::MIN, shift), ctx);
    }
}

impl Workload for Population {
    fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let p = self.pools.clone();
        let long_term = (p.pools.users.iter().zip(&self.weights))
            .filter(|(user, _)| user.pool == Pool::LongTerm)
            .map(|(_, w)| w * self.cfg.long_term)
            .sum::<f64>();
        TooManyUsers::check(|| "the long-term users at the start".into(), long_term)
            .map_err(|e| SimError::Workload(e.to_string()))?;
        for (u, user) in p.pools.users.iter().enumerate() {
            if user.pool == Pool::LongTerm && self.weights[u] > 0.0 {
                let copies = count_of(self.weights[u] * self.cfg.long_term, &mut self.rng);
                for _ in 0..copies {
                    self.slots.push(Slot {
                        user: u,
                        regenerations: 0,
                        shift: 0,
                        ideal: 0,
                    });
                }
            }
        }
        self.report.long_term_slots = self.slots.len() as u64;
        let temporary_at_start = p.pools.temporary_per_week * self.cfg.temporary;
        let weekly = p.pools.temporary_arrivals_per_week * self.cfg.temporary;
        TooManyUsers::check(
            || "the temporary users at the start".into(),
            temporary_at_start,
        )
        .and_then(|()| {
            TooManyUsers::check(|| "the temporary users arriving each week".into(), weekly)
        })
        .map_err(|e| SimError::Workload(e.to_string()))?;
        let initial = count_of(temporary_at_start, &mut self.rng);
        // The users present in a week of the log: each as likely as the weeks it is
        // active, so that the start looks like any week and not like a week of arrivals.
        let temporary = self.draw(Pool::Temporary, initial, true);
        self.report.initial_temporary = temporary.len() as u64;
        self.report.arrivals_by_week.push(temporary.len() as u32);
        for slot in 0..self.slots.len() {
            let u = self.slots[slot].user;
            match self.cfg.start_week {
                StartWeek::Activity => {
                    self.spawn_midway(u, Some(slot as u32), slot as i64 + 1, ctx)
                }
                StartWeek::Cycle => self.spawn_in_cycle(u, slot as u32, ctx),
            }
        }
        for u in temporary {
            let id = self.temporary_id();
            self.spawn_midway(u, None, id, ctx);
        }
        let week_start = p.pools.span.0 + WEEK;
        if week_start < self.horizon {
            ctx.wake_at(week_start, WEEK_TOKEN);
        }
        Ok(())
    }

    fn on_wake(&mut self, token: u64, ctx: &mut SourceCtx) -> Result<(), SimError> {
        if token == WEEK_TOKEN {
            self.arrive(self.next_week, ctx);
            self.next_week += 1;
            let next = self.pools.pools.span.0 + self.next_week * WEEK;
            if next < self.horizon {
                ctx.wake_at(next, WEEK_TOKEN);
            }
        } else {
            self.users.on_wake(token, ctx)?;
        }
        self.regenerate_finished(ctx);
        Ok(())
    }

    fn on_job_end(&mut self, job: &JobOutcome, ctx: &mut SourceCtx) -> Result<(), SimError> {
        self.users.on_job_end(job, ctx)?;
        self.regenerate_finished(ctx);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn a_poisson_draw_counts_no_further_than_the_pool() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        // A rate of 10^12 a week (temporary users who all came within a microsecond)
        // from a pool of 5: 5 arrive, at once (counting on would take hours).
        assert_eq!(poisson(1e12, 5, &mut rng), 5);
        assert_eq!(poisson(0.0, 5, &mut rng), 0);
        // Under the cap the draw is the plain Poisson draw: mean 3 over 20,000 draws.
        let mean = (0..20_000)
            .map(|_| poisson(3.0, 1000, &mut rng))
            .sum::<u64>() as f64
            / 2e4;
        assert!((mean - 3.0).abs() < 0.05, "{mean}");
    }
}
