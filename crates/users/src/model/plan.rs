//! The user and session layers in simulated time (Talby 2006, §13, Listing 5): who is active
//! each week and when their sessions start. Everything here is drawn from the plan's own
//! stream, week by week, independently of the simulation, so one seed gives the same
//! users and sessions under every scheduler (common random numbers); only what happens
//! inside sessions depends on the machine ([`super::site`]).
//!
//! - **Start** (§11.3, §12.4): the start-up users of Eq 13, each with a class (§11.4) and
//!   a week of activity (Eq 46).
//! - **Every week** (§11.2, §12.2-12.5): new users (log-logistic, rounded
//!   stochastically), each in its first week of activity; each user is active with the
//!   probability of Eq 24, and an active user draws a number of sessions (generalized
//!   Pareto), their classes (Eq 18, a Markov chain from its previous session's class),
//!   their start times by the weekly and daily cycle of each class, and their jobs
//!   (§13.2, [`super::jobs`]). Sessions of one user must not collide (Listing 5): each
//!   occupies its own duration on a machine that starts every job at once
//!   ([`idle_duration`]), or by choice its class's median duration, plus the collision
//!   gap. Users never leave; their weeks of activity advance.
//!
//! Simulated time 0 is a Monday at 00:00 local time (§11.1).

use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::dist::{Categorical, stochastic_round};
use super::jobs::RuntimeScale;
use super::jobs::{DayCycle, JobLayer, Scaled, SessionJob, idle_span};
use super::talby::{SiteParams, TalbyModel};
use super::{SessionClass, UserClass};
use crate::seed::mix;
use crate::time::{Time, WEEK};
use crate::users::TooManyUsers;

/// How the plan is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlanConfig {
    /// The site's parameters.
    pub site: SiteParams,
    /// When in the day sessions start (the number of sessions and the weekly cycle are
    /// the same whatever the choice).
    pub day: DayCycle,
    /// Multiplier on the users active at start-up and on new users per week.
    pub users: f64,
    /// The mapping of the job layer's runtimes ([`super::calibrate`]); sessions' jobs
    /// are sized for the site's machine (`site.procs`).
    pub runtime: RuntimeScale,
    /// What a session occupies in the collision rule.
    pub room: CollisionRoom,
    /// How long a user stays.
    pub lifetime: Lifetime,
}

/// How long a user of the site stays, and so who is there at the start.
///
/// The thesis's site is a machine's first year (§11.3, §12.4): the users active at
/// start-up (Eq 13) and the new users of every week (§11.2), none of whom ever leaves,
/// each inactive in a week with a probability that grows with its week of activity
/// (Eq 24) but never past 0.97. Every week's new users then add to the active ones for
/// good, and its load climbs through its year (at 128 processors from about 30% to 87%
/// in two years' run). A site of stationary load is a mature one: users come, and go.
/// The thesis's own assumption gives how long they stay: the users active at a log's
/// start "have been active at most one year" (Eq 57, which truncates their weeks of
/// activity at 52).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lifetime {
    /// A user leaves for good after this many weeks of activity, and the site starts
    /// mature: with the users of that many weeks of arrivals before it, each in its week
    /// of activity, instead of Eq 13's start-up users. Arrivals then balance departures
    /// and the population is stationary in expectation (the default, 52 weeks by Eq 57).
    Weeks(u32),
    /// Never: the thesis's site as it is, Eq 13's start-up users and every later one
    /// staying for good.
    Never,
}

impl Default for Lifetime {
    fn default() -> Self {
        Lifetime::Weeks(52)
    }
}

impl std::str::FromStr for Lifetime {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "never" {
            return Ok(Lifetime::Never);
        }
        let t = crate::time::parse_duration(s)?;
        if t < WEEK || t % WEEK != 0 {
            return Err(format!(
                "'{s}' is not a user lifetime: 'never', or a whole number of weeks, at least 1"
            ));
        }
        u32::try_from(t / WEEK)
            .map(Lifetime::Weeks)
            .map_err(|_| format!("'{s}' is more weeks than a lifetime holds"))
    }
}

impl std::fmt::Display for Lifetime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lifetime::Weeks(w) => write!(f, "{w}w"),
            Lifetime::Never => write!(f, "never"),
        }
    }
}

impl<'de> Deserialize<'de> for Lifetime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// What a planned session occupies in the collision rule of Listing 5 (Talby 2006, §13.1),
/// besides the collision gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum CollisionRoom {
    /// Its submissions, its jobs run at once ([`idle_span`]): from its first to its last
    /// submission (the default). Listing 5 draws a session as its start and its jobs'
    /// "intra-session arrival times", and keeps the sessions of a week apart by their end
    /// times: in the thesis's open-loop model, the session's last arrival. A session's
    /// last jobs may still run when its user's next session opens, as concurrent jobs do.
    #[default]
    Submissions,
    /// Its own duration, its jobs run at once ([`idle_span`]), up to its last job's end:
    /// session's own end, its jobs and their arrival times being drawn with it, so
    /// that "all separate sessions are indeed sessions, i.e. they are at least 20
    /// minutes apart". Weeks of long sessions seldom fit, so redrawing them until they
    /// do keeps the short ones.
    OwnDuration,
    /// Its class's median fitted duration, whatever its jobs: long sessions outlast
    /// their room, and the closed loop must defer or skip the next ones. Reproduces the
    /// runs of sitesim's first model site (with [`super::site::BusyUser::Skip`]).
    ClassMedian,
}

/// A user of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ModelUser {
    /// Its class.
    pub class: UserClass,
    /// Its week of activity in the week being planned (1 in its first week).
    pub week_of_activity: u32,
    /// The simulated week it arrived in (0 for start-up users).
    pub arrived: u32,
    /// Whether it was active at start-up.
    pub startup: bool,
    /// The class of its latest planned session.
    pub last_session: Option<SessionClass>,
    /// The end of its planned sessions so far (start plus room; under
    /// [`CollisionRoom::ClassMedian`], of the latest by start).
    busy_until: Time,
}

/// A planned session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedSession {
    /// Its planned start, seconds from the run's start.
    pub start: Time,
    /// The user, an index into [`SitePlan::users`].
    pub user: u32,
    /// Its class.
    pub class: SessionClass,
    /// Its jobs, drawn with it (Listing 5's GenerateSession) from its own stream.
    pub jobs: Vec<SessionJob>,
    /// Its own stream after its jobs: the user's reactions inside it.
    pub rng: Xoshiro256PlusPlus,
}

/// What the plan drew.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlanCounts {
    /// Users at the start (a mature site's: the arrivals of its users' lifetime before
    /// it).
    pub startup_users: u64,
    /// Users that left for good at the end of their lifetime.
    pub departed_users: u64,
    /// Users that arrived later.
    pub new_users: u64,
    /// Users by class (IWD order of [`UserClass::ALL`]).
    pub users_by_class: [u64; 4],
    /// Weeks in which a user was active.
    pub active_weeks: u64,
    /// Weeks in which a user was inactive.
    pub inactive_weeks: u64,
    /// Sessions planned, by class.
    pub sessions_by_class: [u64; 5],
    /// Weeks whose sessions still collided after every redraw (kept as drawn).
    pub collisions_kept: u64,
}

/// The plan of a model site: its users, and their sessions week by week.
#[derive(Debug, Clone)]
pub struct SitePlan {
    model: Arc<TalbyModel>,
    jobs: Arc<JobLayer>,
    cfg: PlanConfig,
    /// The user layer's stream: arrivals, classes, weekly activity.
    rng: Xoshiro256PlusPlus,
    seed: u64,
    shares: Categorical,
    users: Vec<ModelUser>,
    /// The first of `users` still at the site: users leave in the order they came.
    present_from: usize,
    last_class: Option<UserClass>,
    week: u32,
    /// The median duration of each session class (a session's room in the collision
    /// rule under [`CollisionRoom::ClassMedian`]).
    class_median: [Time; 5],
    /// The job layer on the plan's machine.
    scaled: Scaled,
    counts: PlanCounts,
}

impl SitePlan {
    /// The plan drawn from `seed`, with its start-up users; refused if they would be more
    /// than [`MAX_USERS`](crate::users::MAX_USERS).
    pub fn new(
        model: Arc<TalbyModel>,
        jobs: Arc<JobLayer>,
        cfg: PlanConfig,
        seed: u64,
    ) -> Result<Self, TooManyUsers> {
        let shares =
            Categorical::new(&model.class_shares(&cfg.site)).expect("clamped shares sum to 1");
        let class_median =
            SessionClass::ALL.map(|c| jobs.class(c).duration.median().round() as Time);
        let mut plan = SitePlan {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            seed,
            shares,
            users: Vec::new(),
            present_from: 0,
            last_class: None,
            week: 0,
            class_median,
            scaled: jobs.scaled(cfg.site.procs, cfg.runtime),
            counts: PlanCounts::default(),
            model,
            jobs,
            cfg,
        };
        match cfg.lifetime {
            Lifetime::Never => {
                let n = plan
                    .model
                    .startup_mean(cfg.site.load, cfg.users, &mut plan.rng);
                TooManyUsers::check(|| "the start-up users".into(), n)?;
                let n = stochastic_round(n, &mut plan.rng);
                let weeks = UserClass::ALL.map(|c| plan.model.startup_week(c));
                for _ in 0..n {
                    let class = plan.new_user_class();
                    let woa = weeks[class.index()].sample(&mut plan.rng) as u32 + 1;
                    plan.add_user(class, woa, true);
                }
            }
            Lifetime::Weeks(weeks) => {
                // Each of the `weeks` weeks before the start brought its new users, now
                // in their week of activity, the oldest first.
                let mean = plan.model.new_users().mean().unwrap_or(f64::INFINITY);
                TooManyUsers::check(
                    || "the users at the start".into(),
                    f64::from(weeks) * mean * cfg.users,
                )?;
                for woa in (1..=weeks).rev() {
                    let arrivals = plan.model.new_users().sample(&mut plan.rng) * cfg.users;
                    for _ in 0..stochastic_round(arrivals, &mut plan.rng) {
                        let class = plan.new_user_class();
                        plan.add_user(class, woa, true);
                    }
                }
            }
        }
        Ok(plan)
    }

    fn new_user_class(&mut self) -> UserClass {
        let c = self
            .model
            .user_class(self.last_class, &self.shares, &mut self.rng);
        self.last_class = Some(c);
        c
    }

    fn add_user(&mut self, class: UserClass, woa: u32, startup: bool) {
        self.users.push(ModelUser {
            class,
            week_of_activity: woa,
            arrived: self.week,
            startup,
            last_session: None,
            busy_until: Time::MIN,
        });
        self.counts.users_by_class[class.index()] += 1;
        if startup {
            self.counts.startup_users += 1;
        } else {
            self.counts.new_users += 1;
        }
    }

    /// The users so far.
    pub fn users(&self) -> &[ModelUser] {
        &self.users
    }

    /// How the plan is drawn.
    pub fn config(&self) -> &PlanConfig {
        &self.cfg
    }

    /// What was drawn so far.
    pub fn counts(&self) -> &PlanCounts {
        &self.counts
    }

    /// The next week to plan, from 0.
    pub fn week(&self) -> u32 {
        self.week
    }

    /// One more job of a session of class `c` ([`JobLayer::next_job`]), drawn from `rng`
    /// as the plan's sessions' jobs are: sized for the plan's machine, runtimes mapped by
    /// its calibration.
    pub fn next_job(&self, c: SessionClass, rng: &mut Xoshiro256PlusPlus) -> SessionJob {
        self.jobs.next_job(c, &self.scaled, rng)
    }

    /// Plans the next week: its new users, and every session starting in it, by start
    /// time (ties by user). Refused if its new users would make the users more than
    /// [`MAX_USERS`](crate::users::MAX_USERS).
    pub fn next_week(&mut self) -> Result<Vec<PlannedSession>, TooManyUsers> {
        let arrivals = self.model.new_users().sample(&mut self.rng) * self.cfg.users;
        TooManyUsers::check(
            || format!("the users by week {}", self.week),
            self.users.len() as f64 + arrivals,
        )?;
        let arrivals = stochastic_round(arrivals, &mut self.rng);
        for _ in 0..arrivals {
            let class = self.new_user_class();
            self.add_user(class, 1, false);
        }
        if let Lifetime::Weeks(weeks) = self.cfg.lifetime {
            while self
                .users
                .get(self.present_from)
                .is_some_and(|u| u.week_of_activity > weeks)
            {
                self.present_from += 1;
                self.counts.departed_users += 1;
            }
        }
        let mut sessions = Vec::new();
        for u in self.present_from..self.users.len() {
            let user = self.users[u];
            if self.rng.random::<f64>() < self.model.inactive(user.class, user.week_of_activity) {
                self.counts.inactive_weeks += 1;
            } else {
                self.counts.active_weeks += 1;
                self.plan_user_week(u as u32, &mut sessions);
            }
            self.users[u].week_of_activity += 1;
        }
        self.week += 1;
        sessions.sort_by_key(|s| (s.start, s.user));
        Ok(sessions)
    }

    /// The jobs of a session of class `c` from the stream `seed`, and the stream after
    /// them.
    fn session_jobs(&self, c: SessionClass, seed: u64) -> (Vec<SessionJob>, Xoshiro256PlusPlus) {
        let mut stream = Xoshiro256PlusPlus::seed_from_u64(seed);
        let jobs = self.jobs.session(c, &self.scaled, &mut stream);
        (jobs, stream)
    }

    /// Draws the classes, starts and jobs of `n` sessions of `user` in the week starting
    /// at `week_start` as Listing 5 does (Talby 2006, §13.1): the classes, then up to
    /// `tries` times every session's start and (under [`CollisionRoom::OwnDuration`])
    /// jobs, until no two sessions collide; after `tries` failures the classes again, up
    /// to `class_tries` times (the thesis loops for ever). Returns the sessions, in the
    /// order their classes were drawn, their starts by time (ties by class, then by that
    /// order), and false if they still collide (the last draw is kept). The `t`-th
    /// drawing of session `k`'s jobs comes from the stream `mix(week_seed, t << 32 | k +
    /// 1)`, so the first one is the same whatever the redraws of the starts.
    fn draw_sessions(
        &self,
        user: &ModelUser,
        n: usize,
        week_start: Time,
        week_seed: u64,
        rng: &mut Xoshiro256PlusPlus,
    ) -> (Vec<Drawn>, Vec<(Time, SessionClass, usize)>, bool) {
        let gap = self.model.collision.gap;
        let mut sessions: Vec<Drawn> = Vec::with_capacity(n);
        let mut classes = Vec::with_capacity(n);
        let mut starts = Vec::with_capacity(n);
        let mut times = Vec::with_capacity(n);
        let mut drawing: u64 = 0;
        let mut attempt_left = self.model.collision.class_tries * self.model.collision.tries;
        for _ in 0..self.model.collision.class_tries {
            classes.clear();
            let mut previous = user.last_session;
            for _ in 0..n {
                let p = self
                    .model
                    .session_class(user.class, user.week_of_activity, previous);
                let class = SessionClass::ALL[Categorical::new(&p)
                    .expect("clamped probabilities sum to 1")
                    .sample(rng)];
                previous = Some(class);
                classes.push(class);
            }
            for _ in 0..self.model.collision.tries {
                sessions.clear();
                starts.clear();
                // Listing 5 draws every session's start and jobs, then checks every pair:
                // of two sessions, the one that starts first must end a gap before the
                // other starts (and a session from last week that runs into this one is an
                // earlier one). In order of start it is enough that each ends a gap
                // before the next starts. The starts are drawn first, and the jobs, in
                // order of start, only while no collision is found: the same accepted
                // draws, without drawing what a refused attempt does not need.
                starts.extend(
                    (classes.iter().enumerate())
                        .map(|(k, &class)| (self.start(class, week_start, rng), class, k)),
                );
                // Whether two starts collide depends on the times alone, which sort faster
                // than the starts: most attempts of a busy week end here.
                times.clear();
                times.extend(starts.iter().map(|&(at, ..)| at));
                times.sort_unstable();
                let mut free_from = user.busy_until.saturating_add(gap);
                let mut collides = times.iter().any(|&at| {
                    let hit = at < free_from;
                    free_from = at.saturating_add(gap);
                    hit
                });
                if collides && attempt_left > 1 {
                    attempt_left -= 1;
                    drawing += 1;
                    continue;
                }
                starts.sort_unstable();
                let mut drawn: Vec<Option<Drawn>> = (0..n).map(|_| None).collect();
                for (i, &(at, class, k)) in starts.iter().enumerate() {
                    if collides {
                        break;
                    }
                    let d = self.draw_one(class, k, drawing, week_seed);
                    collides = starts
                        .get(i + 1)
                        .is_some_and(|&(next, ..)| at.saturating_add(d.room + gap) > next);
                    drawn[k] = Some(d);
                }
                if !collides {
                    sessions.extend(drawn.into_iter().map(|d| d.expect("every session drawn")));
                    return (sessions, starts, true);
                }
                if attempt_left == 1 {
                    // The last attempt is kept: its sessions not drawn yet drawn.
                    for &(_, class, k) in &starts {
                        if drawn[k].is_none() {
                            drawn[k] = Some(self.draw_one(class, k, drawing, week_seed));
                        }
                    }
                    sessions.extend(drawn.into_iter().map(|d| d.expect("every session drawn")));
                }
                attempt_left -= 1;
                drawing += 1;
            }
        }
        (sessions, starts, false)
    }

    /// A start of a session of class `class` in the week starting at `week_start`.
    fn start(&self, class: SessionClass, week_start: Time, rng: &mut Xoshiro256PlusPlus) -> Time {
        week_start + self.jobs.start_in_week(class, self.cfg.day, rng)
    }

    /// Session `k` of class `class`, drawn for the `drawing`-th time: its jobs from the
    /// stream `mix(week_seed, drawing << 32 | k + 1)` when its room needs them.
    fn draw_one(&self, class: SessionClass, k: usize, drawing: u64, week_seed: u64) -> Drawn {
        match self.cfg.room {
            room @ (CollisionRoom::Submissions | CollisionRoom::OwnDuration) => {
                let stream = mix(week_seed, drawing << 32 | (k as u64 + 1));
                let (jobs, stream) = self.session_jobs(class, stream);
                let (last_submit, last_end) = idle_span(&jobs);
                Drawn {
                    room: match room {
                        CollisionRoom::Submissions => last_submit,
                        _ => last_end,
                    },
                    jobs: Some((jobs, stream)),
                }
            }
            CollisionRoom::ClassMedian => Drawn {
                room: self.class_median[class.index()],
                jobs: None,
            },
        }
    }

    /// Draws the sessions of user `u` in an active week (Listing 5), from the user-week's
    /// own stream: the number of sessions, their classes and their jobs do not depend on
    /// how many start times the collision rule redrew, so a site with and without the
    /// daily cycle has the same sessions at other times. Under
    /// [`CollisionRoom::ClassMedian`] the plan needs no jobs to place the sessions, and
    /// the `i`-th session by start draws them from the stream `mix(week_seed, i + 1)`
    /// once placed, as sitesim's first model site did, whose runs that rule reproduces.
    fn plan_user_week(&mut self, u: u32, out: &mut Vec<PlannedSession>) {
        let user = self.users[u as usize];
        let week_seed = mix(self.seed, (u64::from(u) << 32) | u64::from(self.week));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(week_seed);
        let n = self
            .model
            .sessions_in_week(user.class, user.week_of_activity, &mut rng) as usize;
        let week_start = Time::from(self.week) * WEEK;
        let (sessions, starts, placed) =
            self.draw_sessions(&user, n, week_start, week_seed, &mut rng);
        if !placed {
            self.counts.collisions_kept += 1;
        }
        let mut sessions: Vec<Option<Drawn>> = sessions.into_iter().map(Some).collect();
        for (i, &(start, class, k)) in starts.iter().enumerate() {
            let d = sessions[k].take().expect("each session has one start");
            let (jobs, rng) = d
                .jobs
                .unwrap_or_else(|| self.session_jobs(class, mix(week_seed, i as u64 + 1)));
            let user = &mut self.users[u as usize];
            user.last_session = Some(class);
            user.busy_until = match self.cfg.room {
                // Listing 5: later sessions must not collide with any earlier one.
                CollisionRoom::Submissions | CollisionRoom::OwnDuration => {
                    user.busy_until.max(start + d.room)
                }
                // As the first model site did: with the last one by start.
                CollisionRoom::ClassMedian => start + d.room,
            };
            self.counts.sessions_by_class[class.index()] += 1;
            out.push(PlannedSession {
                start,
                user: u,
                class,
                jobs,
                rng,
            });
        }
    }
}

/// A session drawn for a week, before its start.
struct Drawn {
    /// What it occupies in the collision rule.
    room: Time,
    /// Its jobs and its stream after them, if drawn.
    jobs: Option<(Vec<SessionJob>, Xoshiro256PlusPlus)>,
}
