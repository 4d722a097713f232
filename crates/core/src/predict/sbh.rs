//! SBH, session-based history (Talby et al. 2006, §5, Listing 4), and its estimation-less variant
//! (§6).
//!
//! Each user's jobs are split into sessions: a job joins its predecessor's session when
//! the think time between them (submission minus the predecessor's termination) is below a
//! threshold, 20 minutes by default, or when the predecessor is still running (a negative
//! think time). A new job is predicted from the user's terminated jobs that match it on a
//! list of similarity criteria (subsets of processors P, estimate E and executable X, or
//! `*` for any job), searched newest session first: depth-first takes the criteria in
//! order and, for each, the newest session with a match; breadth-first takes the newest
//! session with any match and, in it, the first matching criterion. The prediction is the
//! median runtime of the matches in that session. Without any match it falls back to the
//! estimate (SBH) or to one second (estimation-less SBH).

use rustc_hash::FxHashMap;

use super::{Corrector, LiveJobs, Oracle, PredCtx, PredJob, Predictor, Statistic};
use crate::session::{SessionRule, SessionTracker};
use crate::time::Time;

/// A similarity criterion: the attributes a past job must share with the new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Criterion {
    procs: bool,
    estimate: bool,
    executable: bool,
}

impl Criterion {
    /// Parses `PEX`, `PE`, `X`, ... or `*` (any job).
    pub fn parse(text: &str) -> Result<Criterion, String> {
        let mut c = Criterion {
            procs: false,
            estimate: false,
            executable: false,
        };
        if text == "*" {
            return Ok(c);
        }
        if text.is_empty() {
            return Err("an empty similarity criterion (use * for any job)".into());
        }
        for ch in text.chars() {
            let flag = match ch {
                'P' => &mut c.procs,
                'E' => &mut c.estimate,
                'X' => &mut c.executable,
                _ => {
                    return Err(format!(
                        "'{text}' is not a criterion: use letters P, E, X, or *"
                    ));
                }
            };
            if *flag {
                return Err(format!("'{text}' repeats '{ch}'"));
            }
            *flag = true;
        }
        Ok(c)
    }

    /// Whether the criterion looks at the estimate.
    pub fn uses_estimate(&self) -> bool {
        self.estimate
    }

    /// The attributes compared, unused ones blanked. An unknown executable (`-1`) matches
    /// another unknown executable.
    fn key(&self, job: &PredJob) -> (u32, Time, i64) {
        (
            if self.procs { job.size } else { 0 },
            if self.estimate { job.estimate } else { -2 },
            if self.executable { job.app } else { -2 },
        )
    }
}

/// The order of the search over criteria and sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// Criteria outside, sessions inside (the better one in Talby et al. 2006, §5.3).
    DepthFirst,
    /// Sessions outside, criteria inside.
    BreadthFirst,
}

/// What to predict when no past job matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// The user's estimate (SBH).
    Estimate,
    /// A constant (estimation-less SBH: 1 second).
    Constant(Time),
}

/// SBH's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SbhParams {
    /// Similarity criteria, in order.
    pub criteria: Vec<Criterion>,
    /// Search order.
    pub search: Search,
    /// How many of the newest sessions to search; 0 means all.
    pub depth: usize,
    /// Session threshold on think time, seconds.
    pub threshold: Time,
    /// Session rule.
    pub rule: SessionRule,
    /// The statistic over matching runtimes.
    pub statistic: Statistic,
    /// When nothing matches.
    pub fallback: Fallback,
    /// Re-predict the user's other jobs when one terminates.
    pub propagate: bool,
}

/// By criterion and key: the newest session with a terminated match, and the runtimes of
/// its matches, sorted. Only the newest session is ever searched: sessions are searched
/// newest first and stop at the first match, a depth limit counts back from the user's
/// newest session, and a job ending late in an older session cannot make that session the
/// newest.
type Index = Vec<FxHashMap<(u32, Time, i64), (usize, Vec<Time>)>>;

#[derive(Debug, Clone, Default)]
struct UserHistory {
    sessions: SessionTracker,
    index: Index,
}

/// The session-based history predictor, with or without estimates.
#[derive(Debug, Clone)]
pub struct Sbh {
    name: &'static str,
    params: SbhParams,
    corrector: Corrector,
    users: FxHashMap<i64, UserHistory>,
    /// The session of each live job, by its slot in the job table.
    session_of: Vec<usize>,
    live: LiveJobs,
}

impl Sbh {
    /// A predictor named `name` (`sbh` or `sbh-noest`).
    pub fn new(name: &'static str, params: SbhParams, corrector: Corrector) -> Self {
        Sbh {
            name,
            live: LiveJobs::new(params.propagate),
            params,
            corrector,
            users: FxHashMap::default(),
            session_of: Vec::new(),
        }
    }

    /// The session a new job of `user` submitted at `now` joins.
    fn join_session(&mut self, job: &PredJob, now: Time) -> usize {
        let p = &self.params;
        let h = self.users.entry(job.user).or_default();
        h.sessions.submit(job.seq, now, p.rule, p.threshold).0
    }

    fn predict(&self, job: &PredJob) -> Time {
        Self::predict_with(&self.params, &self.users, job)
    }

    fn predict_with(p: &SbhParams, users: &FxHashMap<i64, UserHistory>, job: &PredJob) -> Time {
        let fallback = match p.fallback {
            Fallback::Estimate => job.estimate,
            Fallback::Constant(c) => c,
        };
        let Some(h) = users.get(&job.user) else {
            return fallback;
        };
        let oldest = match p.depth {
            0 => 0,
            d => h.sessions.sessions().saturating_sub(d),
        };
        let newest_match = |ci: usize| {
            let c = &p.criteria[ci];
            let (s, runtimes) = h.index.get(ci)?.get(&c.key(job))?;
            (*s >= oldest).then_some((*s, runtimes))
        };
        let found = match p.search {
            Search::DepthFirst => (0..p.criteria.len()).find_map(newest_match),
            Search::BreadthFirst => (0..p.criteria.len()).filter_map(newest_match).fold(
                None,
                |best: Option<(usize, &Vec<Time>)>, m| match best {
                    Some(b) if b.0 >= m.0 => Some(b),
                    _ => Some(m),
                },
            ),
        };
        match found {
            Some((_, runtimes)) => p.statistic.of_sorted(runtimes),
            None => fallback,
        }
    }
}

impl Predictor for Sbh {
    fn name(&self) -> &str {
        self.name
    }

    fn on_submit(&mut self, job: &PredJob, _oracle: Oracle, ctx: &mut PredCtx) -> Time {
        let session = self.join_session(job, ctx.now);
        let slot = job.id as usize;
        if self.session_of.len() <= slot {
            self.session_of.resize(slot + 1, 0);
        }
        self.session_of[slot] = session;
        let p = self.predict(job);
        self.live.submit(job, p);
        p
    }

    fn on_start(&mut self, job: &PredJob, ctx: &mut PredCtx) {
        self.live.start(job, ctx.now);
    }

    fn on_end(&mut self, job: &PredJob, runtime: Time, ctx: &mut PredCtx) {
        self.live.end(job, &mut self.corrector);
        let session = self.session_of[job.id as usize];
        let criteria = &self.params.criteria;
        let h = self
            .users
            .get_mut(&job.user)
            .expect("a submitted job has a user");
        h.sessions.end(job.seq, ctx.now);
        h.index.resize_with(criteria.len(), FxHashMap::default);
        for (ci, c) in criteria.iter().enumerate() {
            let (newest, runtimes) = h.index[ci]
                .entry(c.key(job))
                .or_insert((session, Vec::new()));
            if session > *newest {
                *newest = session;
                runtimes.clear();
            }
            if session == *newest {
                let at = runtimes.partition_point(|&r| r <= runtime);
                runtimes.insert(at, runtime);
            }
        }
        if self.params.propagate {
            let (params, users) = (&self.params, &self.users);
            self.live
                .propagate(job.user, ctx, |j| Self::predict_with(params, users, j));
        }
    }

    fn on_miss(
        &mut self,
        job: &PredJob,
        prediction: Time,
        elapsed: Time,
        _ctx: &mut PredCtx,
    ) -> Time {
        let estimate = match self.params.fallback {
            Fallback::Estimate => Some(job.estimate),
            Fallback::Constant(_) => None,
        };
        self.live
            .miss(&mut self.corrector, job, prediction, elapsed, estimate)
    }
}
