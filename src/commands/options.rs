//! The options document: each group of options is one struct whose fields are both the
//! flags of the commands (`clap::Args`, flattened into each command's arguments) and the
//! keys of a scenario's section (serde), a flag being its key in kebab case, with their
//! defaults and checks in the flags' attributes alone (`crate::options`). The site's rules
//! are `[site]` ([`SiteOptions`]), what is measured `[metrics]` ([`MetricsOptions`]), a
//! log's users `[workload.users]` ([`UserOptions`], a model site's [`Reaction`]). The
//! models the users' options choose between are in `crate::users` and `docs/MODELS.md`,
//! "Users from a log".

use std::path::PathBuf;

use clap::Args;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::job::OverrunPolicy;
use crate::metrics::{Bsld, BsldForm};
use crate::model::{BusyUser, Calibrate, CollisionRoom, DayCycle, Lifetime};
use crate::options;
use crate::predict::PredictorSpec;
use crate::registry::SchedulerSpec;
use crate::session::SessionRule;
use crate::time::{Time, parse_duration};
use crate::users::pools::PoolConfig;
use crate::users::population::{PopulationConfig, RegenerateFrom, StartWeek};
use crate::users::{Patience, PatienceLimit, PatienceOption, ThinkRules};
use crate::workload::trace::{Dependence, MissingWaits, TraceConfig, WindowEnd};

/// The site's rules (`[site]`).
#[derive(Debug, Clone, PartialEq, Args, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SiteOptions {
    /// What happens to jobs that run longer than their estimate.
    #[arg(long, value_enum, default_value_t)]
    pub overrun: OverrunPolicy,
    /// Verify the scheduling invariants after every pass (always on in debug builds).
    #[arg(long)]
    pub check: bool,
}

impl Default for SiteOptions {
    fn default() -> Self {
        options::defaults()
    }
}

/// The machine (`[machine]`).
#[derive(Debug, Clone, PartialEq, Args, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct MachineOptions {
    /// Processors of the simulated machine [default: the log's MaxProcs].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    #[serde(deserialize_with = "some_processors")]
    pub procs: Option<u32>,
}

impl Default for MachineOptions {
    fn default() -> Self {
        options::defaults()
    }
}

/// `procs`, at least 1 as its flag takes it.
fn some_processors<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    options::at_least_one(d).map(Some)
}

/// The flags named after their section, with the key each stands for: a section's main
/// key takes the section's name as its flag. Every other flag is its key.
pub const NAMED_AFTER_SECTION: [(&str, &str); 1] = [("scheduler", "policy")];

/// The scheduler (`[scheduler]`): its policy, whose flag is the section's name
/// (`--scheduler`, the key `policy`: [`NAMED_AFTER_SECTION`]), and what it plans with.
#[derive(Debug, Clone, PartialEq, Args, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SchedulerOptions {
    /// The scheduling policy, `NAME[:key=value,...]` (`sitesim policies` lists them).
    #[arg(id = "scheduler", long = "scheduler", default_value = "easy")]
    pub policy: SchedulerSpec,
    /// Plan with a runtime predictor instead of estimates, as NAME[:key=value,...]:
    /// perfect, estimate, constant, infoless, ruh, easy++, sbh, sbh-noest (see
    /// models/predictors.toml for the settings). Not with conservative.
    #[arg(long, value_name = "NAME")]
    #[serde(deserialize_with = "options::some_from_text")]
    pub predictor: Option<PredictorSpec>,
}

impl Default for SchedulerOptions {
    fn default() -> Self {
        options::defaults()
    }
}

impl SchedulerOptions {
    /// The combination no run can have, if this predictor is given with one of
    /// `schedulers` (this policy, or the ones a sweep compares): a predictor for a policy
    /// that plans with estimates (conservative, logged). Refused before any log is read.
    pub fn planning_conflict<'a>(
        &self,
        mut schedulers: impl Iterator<Item = &'a SchedulerSpec>,
    ) -> Option<String> {
        let predictor = self.predictor.as_ref()?;
        let s = schedulers.find(|s| !s.accepts_predictions())?;
        Some(format!(
            "the scheduler '{s}' plans with estimates and cannot use --predictor {predictor}"
        ))
    }

    /// [`SchedulerOptions::planning_conflict`] of this policy, as an error.
    pub fn refuse_conflicts(&self) -> Result<(), String> {
        self.planning_conflict(std::iter::once(&self.policy))
            .map_or(Ok(()), Err)
    }
}

/// A model-based site (Talby 2006; `docs/MODELS.md`): the `[workload]` of a scenario whose
/// `source = "model"`, and the flags of `sitesim model`. Its users' reaction to service is
/// its `[workload.users]` table, whose flags are flattened with the others.
#[derive(Debug, Clone, PartialEq, Args, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelSiteOptions {
    /// The user and session layers [default: the shipped models/talby2006.toml].
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// The job layer (`sitesim fit`) [default: the shipped models/kth-sessions.toml].
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,
    /// Sessions start by their class's daily cycle; false: at any hour alike.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub daily_cycle: bool,
    /// Sessions start only in these local hours, FROM,TO (8,18: 08:00 to 18:00), at any
    /// of them alike.
    #[arg(long, value_delimiter = ',', value_name = "FROM,TO")]
    pub work_hours: Option<Vec<u8>>,
    /// What keeps to --work-hours: sessions (their openings) or jobs (every arrival:
    /// Feitelson 2021, Fig. 21's simple model) [default: sessions].
    #[arg(long, value_enum)]
    pub work_hours_for: Option<WorkHoursFor>,
    /// Median CPU work per job, seconds; with --load, parameterizes the model instead of
    /// the machine size alone.
    #[arg(long, value_parser = options::positive_factor, requires = "load")]
    #[serde(deserialize_with = "some_positive")]
    pub cpu_work: Option<f64>,
    /// CPU load, with --cpu-work.
    #[arg(long, value_parser = options::positive_factor, requires = "cpu_work")]
    #[serde(deserialize_with = "some_positive")]
    pub load: Option<f64>,
    /// Fit the user counts and the job layer's runtimes to the jobs per day, median CPU
    /// work and load: of what the users submit in the closed loop (submitted), of what
    /// the plan generates (generated), or not at all (off: the thesis's user counts and
    /// the fitted runtimes). A scenario also takes true (submitted) and false (off).
    #[arg(long, value_enum, default_value_t)]
    #[serde(deserialize_with = "calibrate_setting")]
    pub calibrate: Calibrate,
    /// What a planned session occupies in the collision rule (Talby 2006, Listing 5).
    #[arg(long, value_enum, default_value_t)]
    pub collision_room: CollisionRoom,
    /// What a user does with a session due while it is busy.
    #[arg(long, value_enum, default_value_t)]
    pub busy_user: BusyUser,
    /// Weeks of activity after which a user leaves for good, the site starting with the
    /// users of that many weeks of arrivals; never: the thesis's first year of a site.
    #[arg(long, default_value = "52w", value_name = "DURATION")]
    #[serde(deserialize_with = "options::from_text")]
    pub user_lifetime: Lifetime,
    /// How the users react to service (`[workload.users]`).
    #[command(flatten)]
    pub users: Reaction,
}

impl Default for ModelSiteOptions {
    fn default() -> Self {
        options::defaults()
    }
}

/// What keeps to a model site's work hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkHoursFor {
    /// The sessions' openings.
    Sessions,
    /// Every arrival.
    Jobs,
}

impl ModelSiteOptions {
    /// The day cycle of `daily_cycle`, `work_hours` and `work_hours_for`.
    pub fn day_cycle(&self) -> Result<DayCycle, String> {
        let all_jobs = match (&self.work_hours, self.work_hours_for) {
            (_, None | Some(WorkHoursFor::Sessions)) => false,
            (Some(_), Some(WorkHoursFor::Jobs)) => true,
            (None, Some(_)) => return Err("[workload] work_hours_for needs work_hours".into()),
        };
        match (self.daily_cycle, self.work_hours.as_deref()) {
            (true, None) => Ok(DayCycle::Fitted),
            (false, None) => Ok(DayCycle::Flat),
            (true, Some(&[from, to])) if from < to && to <= 24 => {
                Ok(DayCycle::Window { from, to, all_jobs })
            }
            (true, Some(_)) => {
                Err("[workload] work_hours is [from, to] with 0 <= from < to <= 24".into())
            }
            (false, Some(_)) => {
                Err("[workload] work_hours needs daily_cycle = true (it is a daily cycle)".into())
            }
        }
    }
}

/// An optional key whose value [`options::positive_factor`] reads.
fn some_positive<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    options::positive(d).map(Some)
}

/// `calibrate = true | false | "submitted" | "generated" | "off"`.
fn calibrate_setting<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Calibrate, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Setting {
        Flag(bool),
        Name(String),
    }
    match Setting::deserialize(d)? {
        Setting::Flag(true) => Ok(Calibrate::Submitted),
        Setting::Flag(false) => Ok(Calibrate::Off),
        Setting::Name(s) => options::parse("a calibration", &s).map_err(serde::de::Error::custom),
    }
}

/// What a run measures (`[metrics]`): the bounded slowdown (Feitelson et al. 1997;
/// Mu'alem and Feitelson 2001, §3.1) and the jobs left out at either end.
#[derive(Debug, Clone, PartialEq, Args, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct MetricsOptions {
    /// Bounded slowdown form.
    #[arg(long, value_enum, default_value_t)]
    pub bsld: BsldForm,
    /// Bounded slowdown threshold, seconds.
    #[arg(long, default_value_t = Bsld::DEFAULT_THRESHOLD, value_parser = bsld_threshold, allow_negative_numbers = true)]
    #[serde(deserialize_with = "bsld_threshold_key")]
    pub bsld_threshold: Time,
    /// Exclude jobs submitted during this long after the first submission (e.g. 1w).
    #[arg(long, default_value = "0", value_parser = parse_duration, value_name = "DURATION")]
    #[serde(deserialize_with = "options::duration")]
    pub warmup: Time,
    /// Exclude jobs submitted during this long before the last submission (e.g. 1w).
    #[arg(long, default_value = "0", value_parser = parse_duration, value_name = "DURATION")]
    #[serde(deserialize_with = "options::duration")]
    pub cooldown: Time,
}

impl Default for MetricsOptions {
    fn default() -> Self {
        options::defaults()
    }
}

impl MetricsOptions {
    /// The bounded slowdown measured.
    pub fn bsld(&self) -> Result<Bsld, String> {
        Bsld::new(self.bsld, self.bsld_threshold)
    }
}

/// A bounded slowdown threshold: a whole number of seconds, at least 1.
fn bsld_threshold(text: &str) -> Result<Time, String> {
    let t = text
        .parse()
        .map_err(|_| format!("'{text}' is not a whole number of seconds"))?;
    Bsld::new(BsldForm::default(), t).map(|_| t)
}

fn bsld_threshold_key<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
    let t = Time::deserialize(d)?;
    Bsld::new(BsldForm::default(), t)
        .map(|_| t)
        .map_err(serde::de::Error::custom)
}

/// Who the users are (`[population]`): multipliers of a resampled population (Feitelson
/// 2021, §4.2) or of a model site's users (Talby 2006, §14.2), and how a log's users are
/// sorted into the pools resampling draws from.
#[derive(Debug, Clone, PartialEq, Args, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct PopulationOptions {
    /// Multiplier on the whole population: a resampled run's long-term users and
    /// temporary arrivals (unless --long-term or --temporary say otherwise), a model
    /// site's start-up users and new users per week (also --population).
    #[arg(long, visible_alias = "population", default_value_t = 1.0, value_parser = options::non_negative_factor, value_name = "FACTOR")]
    #[serde(deserialize_with = "options::non_negative")]
    pub users: f64,
    /// Multiplier on the long-term users [default: --users].
    #[arg(long, value_parser = options::non_negative_factor, value_name = "FACTOR")]
    #[serde(deserialize_with = "options::some_non_negative")]
    pub long_term: Option<f64>,
    /// Multiplier on the temporary users and their weekly arrivals [default: --users].
    #[arg(long, value_parser = options::non_negative_factor, value_name = "FACTOR")]
    #[serde(deserialize_with = "options::some_non_negative")]
    pub temporary: Option<f64>,
    /// A long-term user whose trace ended comes back after at least this long
    /// [default: the time it was inactive in the log].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    #[serde(deserialize_with = "options::some_duration")]
    pub regenerate_after: Option<Time>,
    /// That time runs from the user's actual finish, ahead of its log or behind (finish),
    /// or from the end of its trace on the log's calendar, or its actual finish if later
    /// (calendar).
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub regenerate_from: RegenerateFrom,
    /// Long-term users start in a random week of their activity (activity, the seed's)
    /// or at a random point of their cycle of activity and regeneration interval (cycle).
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub start_week: StartWeek,
    /// A user is long-term when its activity spans at least this share of the log.
    #[arg(long, default_value_t = PoolConfig::default().long_term_share, value_parser = options::share)]
    #[serde(deserialize_with = "options::share_key")]
    pub long_term_share: f64,
    /// Users whose whole activity lies within this long of either end of the log are
    /// left out [default: 2 weeks, or a 24th of the log's span if that is shorter].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    #[serde(deserialize_with = "options::some_duration")]
    pub edge: Option<Time>,
    /// Weight of one log user, as USER=WEIGHT (0 leaves it out, 3 draws it three times as
    /// often); repeatable. As a key, a table: `weight = { "17" = 0 }`.
    #[arg(long, value_name = "USER=WEIGHT", value_parser = options::user_weight)]
    #[serde(deserialize_with = "options::user_weights")]
    pub weight: Vec<(i64, f64)>,
    /// Weight of every user with a flurry (a week of more than twice the jobs of every
    /// other user's busiest week, as `analyze` lists them) not given one by --weight:
    /// 0 leaves them out (Feitelson 2021, Fig. 6) [default: 1, like any user].
    #[arg(long, value_name = "WEIGHT", value_parser = options::non_negative_factor)]
    #[serde(deserialize_with = "options::some_non_negative")]
    pub flurry_weight: Option<f64>,
}

impl Default for PopulationOptions {
    fn default() -> Self {
        options::defaults()
    }
}

impl PopulationOptions {
    /// The keys set to other than their defaults that a model site does not take: all
    /// but `users`.
    pub fn resampling_keys(&self) -> Vec<&'static str> {
        let d = PopulationOptions::default();
        [
            ("long_term", self.long_term != d.long_term),
            ("temporary", self.temporary != d.temporary),
            (
                "regenerate_after",
                self.regenerate_after != d.regenerate_after,
            ),
            ("regenerate_from", self.regenerate_from != d.regenerate_from),
            ("start_week", self.start_week != d.start_week),
            ("long_term_share", self.long_term_share != d.long_term_share),
            ("edge", self.edge != d.edge),
            ("weight", self.weight != d.weight),
            ("flurry_weight", self.flurry_weight != d.flurry_weight),
        ]
        .into_iter()
        .filter_map(|(key, set)| set.then_some(key))
        .collect()
    }

    /// The resampled population and the pools it is drawn from.
    pub fn resampled(&self) -> (PopulationConfig, PoolConfig) {
        (
            PopulationConfig {
                long_term: self.long_term.unwrap_or(self.users),
                temporary: self.temporary.unwrap_or(self.users),
                regenerate_after: self.regenerate_after,
                regenerate_from: self.regenerate_from,
                weights: self.weight.clone(),
                flurry_weight: self.flurry_weight,
                start_week: self.start_week,
                ..PopulationConfig::default()
            },
            PoolConfig {
                long_term_share: self.long_term_share,
                edge: self.edge,
            },
        )
    }
}

/// How a log is split into users, sessions and dependencies (Feitelson 2021, §4.3; notes
/// §8.3-8.5): `analyze`'s flags, and part of [`UserOptions`].
#[derive(Debug, Clone, PartialEq, Args, Deserialize, Serialize)]
#[serde(default)]
pub struct LogSplit {
    /// Session threshold: a think time this long or longer starts a new session.
    #[arg(long, default_value = "20m", value_parser = session_threshold, value_name = "DURATION")]
    #[serde(deserialize_with = "threshold_key")]
    pub threshold: Time,
    /// Think time measured from the previous job's end (previous) or from the latest end
    /// among all earlier jobs (latest).
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub session_rule: SessionRule,
    /// The earlier results a job waits for: the one its think time is measured from
    /// (think), the last to end in each earlier session (sessions, the seed's shortcut),
    /// every one that had ended by its submission (submit) or by its start (start, the
    /// seed's literal wording).
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub dependence: Dependence,
    /// Session windows end at the last end of the session's jobs (last-end) or at its
    /// last submission (last-submit).
    #[arg(long, value_enum, default_value_t, value_name = "END")]
    pub window_end: WindowEnd,
    /// The site's time zone (UTC, an IANA name, +HH:MM or seconds east of UTC)
    /// [default: the log header's TimeZoneString, else TimeZone, else UTC].
    #[arg(long, value_name = "ZONE", value_parser = zone_name)]
    pub time_zone: Option<String>,
    /// Jobs whose logged wait is unknown (-1): refuse the log (error), take them as 0
    /// (zero), or estimate them by an open-loop replay under a policy
    /// (replay[:POLICY], EASY by default).
    #[arg(long, default_value = "error", value_name = "RULE")]
    #[serde(deserialize_with = "options::from_text")]
    pub unknown_waits: UnknownWaits,
}

impl Default for LogSplit {
    fn default() -> Self {
        options::defaults()
    }
}

/// A session threshold: a duration of at least 1 second.
fn session_threshold(text: &str) -> Result<Time, String> {
    TraceConfig::with_threshold(parse_duration(text)?).map(|c| c.threshold)
}

fn threshold_key<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
    options::parsed(d, session_threshold)
}

impl LogSplit {
    /// How the log is split into users.
    pub fn trace(&self) -> TraceConfig {
        TraceConfig {
            threshold: self.threshold,
            rule: self.session_rule,
            dependence: self.dependence,
            window_end: self.window_end,
        }
    }
}

/// The users of a log and how they think, come back and react to service (Feitelson
/// 2021, §4.3-4.4): the flags of `feedback`, `resample`, `calibrate` and `sweep`, and the
/// keys of a scenario's `[workload.users]`.
#[derive(Debug, Clone, PartialEq, Args, Deserialize, Serialize)]
#[serde(default)]
pub struct UserOptions {
    /// How the log is split into users.
    #[command(flatten)]
    #[serde(flatten)]
    pub split: LogSplit,
    /// How they think and come back.
    #[command(flatten)]
    #[serde(flatten)]
    pub rules: ThinkRules,
    /// How users react to service.
    #[command(flatten)]
    #[serde(flatten)]
    pub reaction: Reaction,
}

/// How users react to the service they get (Feitelson 2021, §4.4 and Fig. 18): part of
/// [`UserOptions`], and the keys of a model site's `[workload.users]`.
#[derive(Debug, Clone, PartialEq, Args, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Reaction {
    /// How users react to service: the continuation curve that breaks sessions after
    /// long responses and extends them after short ones ('fit': fitted from the log, the
    /// default, or for a model site the curve fitted from KTH that is built in; a file
    /// such as models/continuation-kth.toml; 'off': no reaction, every session keeps its
    /// logged jobs, and its length in time follows the service).
    #[arg(long, default_value = "fit", value_name = "FILE|fit|off")]
    #[serde(deserialize_with = "options::from_text")]
    pub continuation: ContinuationSource,
    /// A user whose jobs wait longer than the log's own service gave them by more than
    /// this, --strikes times, leaves for good (frustrated): 'fit' (the default), the
    /// log's longest wait, at least the session threshold; a duration; or 'off'.
    #[arg(long, default_value = "fit", value_name = "DURATION|fit|off")]
    #[serde(deserialize_with = "options::from_text")]
    pub patience: PatienceLimit,
    /// Waits over --patience after which a user leaves.
    #[arg(long, default_value_t = Patience::DEFAULT_STRIKES, value_parser = clap::value_parser!(u32).range(1..))]
    #[serde(deserialize_with = "options::at_least_one")]
    pub strikes: u32,
}

impl Default for Reaction {
    fn default() -> Self {
        options::defaults()
    }
}

impl Reaction {
    /// Patience as chosen (its limit resolved when the log is read).
    pub fn patience(&self) -> PatienceOption {
        PatienceOption {
            limit: self.patience,
            strikes: self.strikes,
        }
    }
}

impl Default for UserOptions {
    fn default() -> Self {
        options::defaults()
    }
}

/// A time zone as `--time-zone` takes it, checked when the command line is read (a zone
/// that is not one is a usage error).
fn zone_name(text: &str) -> Result<String, String> {
    crate::localtime::parse_zone(text).map(|_| text.to_owned())
}

/// Where the continuation curve that makes users react to service comes from
/// ([`crate::users::reaction`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ContinuationSource {
    /// Fitted from the log being replayed (the default: users react as the log's own
    /// users did).
    #[default]
    Fit,
    /// Read from a file (see `models/`).
    File(PathBuf),
    /// No reaction: every session keeps its logged jobs whatever the service, and its
    /// length in time follows the service (for comparison).
    Off,
}

impl std::str::FromStr for ContinuationSource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fit" => Ok(ContinuationSource::Fit),
            "off" => Ok(ContinuationSource::Off),
            "" => Err("give a curve file, 'fit' or 'off'".into()),
            path => Ok(ContinuationSource::File(path.into())),
        }
    }
}

/// What a run of a log's users takes for jobs whose logged wait is unknown (SWF field 3
/// is -1): the log's own service, from which its users' think times are measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum UnknownWaits {
    /// Refuse the log, naming the first such line (the default: never 0 silently).
    #[default]
    Error,
    /// Take them as 0.
    Zero,
    /// Estimate them by an open-loop replay of the log under this policy, on the
    /// simulated machine.
    Replay(SchedulerSpec),
}

impl std::str::FromStr for UnknownWaits {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "error" => Ok(UnknownWaits::Error),
            "zero" => Ok(UnknownWaits::Zero),
            "replay" => Ok(UnknownWaits::Replay("easy".parse()?)),
            _ => match s.strip_prefix("replay:") {
                Some(spec) => Ok(UnknownWaits::Replay(spec.parse()?)),
                None => Err(format!(
                    "'{s}' is not a rule for unknown waits (error, zero, replay[:POLICY])"
                )),
            },
        }
    }
}

impl UnknownWaits {
    /// What [`Trace::read`] gives jobs whose wait is unknown, `estimated` being the
    /// replay's waits under [`UnknownWaits::Replay`].
    pub fn missing<'a>(&self, estimated: Option<&'a FxHashMap<u64, Time>>) -> MissingWaits<'a> {
        match (self, estimated) {
            (_, Some(waits)) => MissingWaits::Estimated(waits),
            (UnknownWaits::Zero, None) => MissingWaits::Zero,
            (UnknownWaits::Error | UnknownWaits::Replay(_), None) => MissingWaits::Refuse,
        }
    }
}

impl Serialize for UnknownWaits {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl std::fmt::Display for ContinuationSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContinuationSource::Fit => f.write_str("fit"),
            ContinuationSource::Off => f.write_str("off"),
            ContinuationSource::File(p) => write!(f, "{}", p.display()),
        }
    }
}

impl Serialize for ContinuationSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl std::fmt::Display for UnknownWaits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnknownWaits::Error => f.write_str("error"),
            UnknownWaits::Zero => f.write_str("zero"),
            UnknownWaits::Replay(spec) => write!(f, "replay:{spec}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use clap::{Command, FromArgMatches};
    use serde::de::DeserializeOwned;

    use super::*;

    /// The flags of the group `G`: each one's key and its default as the key's value.
    fn flags<G: Args>() -> Vec<(String, Option<toml::Value>)> {
        let command = G::augment_args(Command::new("group"));
        command
            .get_arguments()
            .map(|arg| {
                let id = arg.get_id().as_str();
                assert_eq!(
                    arg.get_long(),
                    Some(id.replace('_', "-").as_str()),
                    "the flag of `{id}` is its id"
                );
                let key = NAMED_AFTER_SECTION
                    .iter()
                    .find(|(flag, _)| *flag == id)
                    .map_or(id, |(_, key)| key)
                    .to_owned();
                let default = match arg.get_default_values() {
                    [] => None,
                    [v] => {
                        let text = v.to_str().expect("a default is text");
                        Some(match text.parse::<i64>() {
                            Ok(n) => toml::Value::Integer(n),
                            Err(_) => match text.parse::<bool>() {
                                Ok(b) => toml::Value::Boolean(b),
                                Err(_) => toml::Value::String(text.to_owned()),
                            },
                        })
                    }
                    more => panic!("`{key}` has several defaults: {more:?}"),
                };
                (key, default)
            })
            .collect()
    }

    /// Every flag of `G` is a key of its section: each flag's default, written as its key,
    /// reads back as the group's default.
    fn flags_are_keys<G>() -> Vec<String>
    where
        G: Args + FromArgMatches + DeserializeOwned + Default + PartialEq + Debug,
    {
        let flags = flags::<G>();
        let table: toml::Table = flags
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.clone()?)))
            .collect();
        let read: G = toml::Value::Table(table.clone())
            .try_into()
            .unwrap_or_else(|e| panic!("{table}: {e}"));
        assert_eq!(read, G::default(), "{table}");
        flags.into_iter().map(|(k, _)| k).collect()
    }

    /// The keys a section of `G` takes, from the error on a key it does not take.
    fn keys_of<G: DeserializeOwned + Debug>() -> Vec<String> {
        let unknown = toml::Value::Table(toml::Table::from_iter([(
            "no_such_key".to_owned(),
            toml::Value::Boolean(true),
        )]));
        let e = unknown
            .try_into::<G>()
            .expect_err("an unknown key is refused");
        let message = e.message();
        // "expected `a`", "expected `a` or `b`", "expected one of `a`, `b`, `c`".
        let expected = message
            .split("expected ")
            .nth(1)
            .unwrap_or_else(|| panic!("{message}"));
        expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_key_is_a_flag_and_every_flag_a_key() {
        assert_eq!(flags_are_keys::<SiteOptions>(), keys_of::<SiteOptions>());
        assert_eq!(
            flags_are_keys::<MachineOptions>(),
            keys_of::<MachineOptions>()
        );
        assert_eq!(
            flags_are_keys::<SchedulerOptions>(),
            keys_of::<SchedulerOptions>()
        );
        assert_eq!(
            flags_are_keys::<MetricsOptions>(),
            keys_of::<MetricsOptions>()
        );
        assert_eq!(flags_are_keys::<Reaction>(), keys_of::<Reaction>());
        assert_eq!(
            flags_are_keys::<PopulationOptions>(),
            keys_of::<PopulationOptions>()
        );
        // A model site's reaction is its `users` table, whose flags are flattened.
        let reaction = flags_are_keys::<Reaction>();
        let model: Vec<(String, Option<toml::Value>)> = flags::<ModelSiteOptions>()
            .into_iter()
            .filter(|(k, _)| !reaction.contains(k))
            .collect();
        let mut table: toml::Table = model
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.clone()?)))
            .collect();
        table.insert("users".into(), toml::Value::Table(toml::Table::new()));
        let read: ModelSiteOptions = toml::Value::Table(table).try_into().unwrap();
        assert_eq!(read, ModelSiteOptions::default());
        let mut keys: Vec<String> = model.into_iter().map(|(k, _)| k).collect();
        keys.push("users".into());
        keys.sort();
        let mut expected = keys_of::<ModelSiteOptions>();
        expected.sort();
        assert_eq!(keys, expected);
        // `UserOptions` flattens `LogSplit` and `Reaction`, which serde cannot refuse
        // unknown keys in: the scenario checks them against the flags
        // (`crate::options::keys`), so its keys are its flags by construction.
        let users = flags_are_keys::<UserOptions>();
        assert_eq!(users, options::keys::<UserOptions>());
        let split = flags_are_keys::<LogSplit>();
        assert!(split.iter().all(|k| users.contains(k)));
    }

    #[test]
    fn keys_are_read_as_their_flags_read_them() {
        let users: UserOptions = toml::from_str(
            "threshold = 900\nopening_think = \"keep-lead\"\ncontinuation = \"off\"\n\
             patience = \"2d\"\nunknown_waits = \"replay:fcfs\"",
        )
        .unwrap();
        assert_eq!(users.split.threshold, 900);
        assert_eq!(
            users.rules.opening_think,
            crate::users::OpeningThink::KeepLead
        );
        assert_eq!(users.reaction.continuation, ContinuationSource::Off);
        assert_eq!(users.reaction.patience, PatienceLimit::Given(2 * 86_400));
        assert_eq!(users.split.unknown_waits.to_string(), "replay:fcfs");
        let population: PopulationOptions = toml::from_str(
            "users = 2\ntemporary = 0.5\nweight = { \"17\" = 0, \"3\" = 2.5 }\nedge = \"1d\"",
        )
        .unwrap();
        let (config, pools) = population.resampled();
        // `users` sets the multipliers not given; the table reads as --weight does.
        assert_eq!((config.long_term, config.temporary), (2.0, 0.5));
        assert_eq!(config.weights, [(17, 0.0), (3, 2.5)]);
        assert_eq!(pools.edge, Some(86_400));
        assert_eq!(
            population.resampling_keys(),
            ["temporary", "edge", "weight"]
        );
        for (text, refused) in [
            ("users = -1", "not a number of 0 or more"),
            ("weight = { \"x\" = 1 }", "not a user number"),
            ("long_term_share = 0", "not a share"),
        ] {
            let e = toml::from_str::<PopulationOptions>(text).unwrap_err();
            assert!(e.message().contains(refused), "{text}: {e}");
        }
        let metrics: MetricsOptions = toml::from_str("warmup = \"1w\"\ncooldown = 0").unwrap();
        assert_eq!((metrics.warmup, metrics.cooldown), (604_800, 0));
        for (text, refused) in [
            ("bsld_threshold = 0", "at least 1 second"),
            ("warmup = \"soon\"", "not a duration"),
        ] {
            let e = toml::from_str::<MetricsOptions>(text).unwrap_err();
            assert!(e.message().contains(refused), "{text}: {e}");
        }
    }
}
