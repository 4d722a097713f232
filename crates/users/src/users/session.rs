//! A user working through one session of planned jobs: the part of the user model that
//! model-based users (`crate::model::site`) share with trace users besides the reactions
//! (Feitelson 2021, §4.3, Fig. 13: think and submit, wait).
//!
//! The session's first job is submitted when it opens; each later job follows the
//! previous job's **end** by its think time, or, if concurrent, the previous
//! **submission** by its gap, or that job's end if it comes first (the user does not wait
//! past a result it was not waiting for). After each result of its latest submission the
//! user reacts to the service ([`super::reaction`]): a next job that follows by a think
//! time is a planned go-on, no next job a planned end, a concurrent next job is already
//! decided. A user who gives up drops the rest of the session; one who extends it goes
//! on with one more job, which the source draws ([`OpenSession::extend`]). Where the jobs
//! come from, and when sessions open, is the source's.

use rand_xoshiro::Xoshiro256PlusPlus;

use super::continuation::ContinuationCurve;
use super::reaction::{Planned, Reaction, react};
use crate::time::Time;

/// How a session's job is submitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// The session's first job, at the session's start.
    First,
    /// This long after the previous job ended.
    Think(Time),
    /// This long after the previous job's submission, whether it ended or not.
    Concurrent(Time),
}

/// One job of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionJob {
    /// Processors.
    pub size: u32,
    /// Runtime, seconds.
    pub runtime: Time,
    /// Estimate, seconds, at least the runtime.
    pub estimate: Time,
    /// When it is submitted.
    pub follow: Follow,
}

/// An open session.
#[derive(Debug, Clone)]
pub struct OpenSession {
    jobs: Vec<SessionJob>,
    /// The next job to submit.
    next: usize,
    /// Jobs submitted and not ended.
    running: u32,
    last_submit: Time,
    /// End of each job, once ended.
    ends: Vec<Option<Time>>,
    /// Submission of each submitted job.
    submits: Vec<Time>,
    /// The time a submission of `next` is planned for, if it is.
    planned: Option<Time>,
    /// The user's stream for its reactions in this session, and the jobs it adds.
    rng: Xoshiro256PlusPlus,
    /// The jobs the session was drawn with; those after them were added by extensions.
    drawn: usize,
    /// Its user dropped what it had left to submit ([`OpenSession::drop_rest`]).
    given_up: bool,
}

/// The most jobs a user adds to one session by extending it (ours: a safety bound, not
/// part of the model). A continuation curve that goes on after nearly every response
/// the simulation gives (a share of 1, as a curve fitted from a handful of jobs has)
/// would otherwise extend a session for ever.
pub const MAX_EXTENSIONS: usize = 1000;

impl OpenSession {
    /// The session of `jobs` opening at `now`, its user drawing from `rng`; its first job
    /// is due at once.
    pub fn open(jobs: Vec<SessionJob>, rng: Xoshiro256PlusPlus, now: Time) -> Self {
        OpenSession {
            drawn: jobs.len(),
            given_up: false,
            ends: vec![None; jobs.len()],
            submits: Vec::with_capacity(jobs.len()),
            jobs,
            next: 0,
            running: 0,
            last_submit: now,
            planned: Some(now),
            rng,
        }
    }

    /// The next job to submit, if it is planned for `now` (a plan moved earlier leaves a
    /// stale wake-up behind), with its index.
    pub fn due(&self, now: Time) -> Option<(usize, SessionJob)> {
        (self.planned == Some(now)).then(|| (self.next, self.jobs[self.next]))
    }

    /// The job [`OpenSession::due`] gave was submitted at `now`.
    pub fn submitted(&mut self, now: Time) {
        self.submits.push(now);
        self.next += 1;
        self.running += 1;
        self.last_submit = now;
        self.planned = None;
    }

    /// When the next job is due, if that is known and earlier than any time planned so
    /// far (which it then becomes), at `now` or later; `None` also when the session has
    /// no job left to submit (see [`OpenSession::is_over`]).
    pub fn plan_next(&mut self, now: Time, arrival: impl Fn(Time) -> Time) -> Option<Time> {
        let job = self.jobs.get(self.next)?;
        let previous_end = self.ends[self.next - 1];
        let at = match job.follow {
            Follow::First => Some(now),
            Follow::Concurrent(gap) => Some(
                previous_end.map_or(self.last_submit + gap, |e| (self.last_submit + gap).min(e)),
            ),
            Follow::Think(think) => previous_end.map(|end| end + think),
        }?;
        let at = arrival(at.max(now));
        if self.planned.is_none_or(|p| at < p) {
            self.planned = Some(at);
            return Some(at);
        }
        None
    }

    /// Whether every job is submitted and has ended.
    pub fn is_over(&self) -> bool {
        self.next == self.jobs.len() && self.running == 0
    }

    /// Job `j` ended at `now` after `response`: the user reacts by `curve` against the
    /// share `reference` of the service its plan was made under. An extension and a
    /// give-up are the caller's to apply ([`OpenSession::extend`],
    /// [`OpenSession::drop_rest`]).
    pub fn ended(
        &mut self,
        j: usize,
        now: Time,
        response: Time,
        curve: Option<(&ContinuationCurve, f64)>,
    ) -> Reaction {
        self.ends[j] = Some(now);
        self.running -= 1;
        let planned = match self.jobs.get(self.next).map(|n| n.follow) {
            _ if j + 1 != self.next => None,
            Some(Follow::Think(_)) => Some(Planned::GoOn),
            None => Some(Planned::Break),
            Some(Follow::Concurrent(_) | Follow::First) => None,
        };
        let (Some((curve, reference)), Some(planned)) = (curve, planned) else {
            return Reaction::AsPlanned;
        };
        react(curve, planned, response, reference, &mut self.rng)
    }

    /// The user goes on with one more job, drawn by `draw` from the session's stream
    /// (it follows the last one by its think time); false, and nothing added, once the
    /// session has [`MAX_EXTENSIONS`] added jobs, or once its user gave it up (a job of
    /// it still running may end after the user dropped the rest).
    pub fn extend(&mut self, draw: impl FnOnce(&mut Xoshiro256PlusPlus) -> SessionJob) -> bool {
        if self.given_up || self.jobs.len() - self.drawn >= MAX_EXTENSIONS {
            return false;
        }
        let job = draw(&mut self.rng);
        self.jobs.push(job);
        self.ends.push(None);
        true
    }

    /// Whether it still has jobs to submit.
    pub fn has_jobs_to_submit(&self) -> bool {
        self.next < self.jobs.len()
    }

    /// Drops the jobs not submitted yet; how many.
    pub fn drop_rest(&mut self) -> u64 {
        self.given_up = true;
        let dropped = (self.jobs.len() - self.next) as u64;
        self.jobs.truncate(self.next);
        dropped
    }

    /// The jobs submitted so far, with their submission times and ends.
    pub fn submitted_jobs(&self) -> impl Iterator<Item = (&SessionJob, Time, Option<Time>)> {
        self.jobs
            .iter()
            .zip(&self.submits)
            .zip(&self.ends)
            .map(|((j, &s), &e)| (j, s, e))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// Share 1 after responses of at most 60 s, 0 after longer ones; median think 100 s.
    fn step_curve() -> ContinuationCurve {
        ContinuationCurve::parse(
            "source = \"hand-made\"\nthreshold = 1200\npairs = 2\nconcurrent = 0\n\
             median_think = 100\n[logistic]\nintercept = 0.0\nslope = 0.0\n\
             [[bucket]]\nup_to = 60\ncontinue = 1.0\njobs = 1\ncontinued = 1\n\
             [[bucket]]\ncontinue = 0.0\njobs = 1\ncontinued = 0\n\
             [[slowdown]]\ncontinue = 0.5\njobs = 2\ncontinued = 1\n\
             [[runtime]]\ncontinue = 0.5\njobs = 2\ncontinued = 1\n",
            "hand-made.toml",
        )
        .unwrap()
    }

    fn job(follow: Follow) -> SessionJob {
        SessionJob {
            size: 1,
            runtime: 30,
            estimate: 60,
            follow,
        }
    }

    fn session(jobs: &[SessionJob]) -> OpenSession {
        OpenSession::open(jobs.to_vec(), Xoshiro256PlusPlus::seed_from_u64(1), 0)
    }

    #[test]
    fn jobs_follow_ends_by_their_think_time_and_submissions_by_their_gap() {
        let mut s = session(&[
            job(Follow::First),
            job(Follow::Concurrent(10)),
            job(Follow::Think(50)),
        ]);
        assert_eq!(s.due(0), Some((0, job(Follow::First))));
        s.submitted(0);
        // The concurrent job: 10 s after the first submission.
        assert_eq!(s.plan_next(0, |t| t), Some(10));
        assert_eq!(s.due(10).map(|d| d.0), Some(1));
        s.submitted(10);
        // The third waits for the second's end.
        assert_eq!(s.plan_next(10, |t| t), None);
        assert_eq!(s.ended(0, 30, 30, None), Reaction::AsPlanned);
        assert_eq!(s.ended(1, 40, 30, None), Reaction::AsPlanned);
        assert_eq!(s.plan_next(40, |t| t), Some(90));
        // Arrivals held to later hours move the plan.
        let mut held = session(&[job(Follow::First), job(Follow::Think(50))]);
        held.submitted(0);
        held.ended(0, 30, 30, None);
        assert_eq!(held.plan_next(30, |t| t.max(1000)), Some(1000));
    }

    #[test]
    fn a_long_response_gives_up_a_short_one_extends_the_session() {
        let curve = step_curve();
        // Planned go-on, response 100 s (share 0) against a reference of 0.5: given up
        // with probability 1; the rest is dropped.
        let mut s = session(&[job(Follow::First), job(Follow::Think(50))]);
        s.submitted(0);
        assert_eq!(s.ended(0, 100, 100, Some((&curve, 0.5))), Reaction::GiveUp);
        assert_eq!(s.drop_rest(), 1);
        assert!(s.is_over());
        // Planned end, response 30 s (share 1) against 0.5: extended with probability
        // (1 - 0.5) / (1 - 0.5) = 1, by the job the caller draws.
        let mut s = session(&[job(Follow::First)]);
        s.submitted(0);
        assert_eq!(s.ended(0, 30, 30, Some((&curve, 0.5))), Reaction::Extend);
        assert!(s.is_over());
        let added = SessionJob {
            size: 4,
            runtime: 7,
            estimate: 9,
            follow: Follow::Think(100),
        };
        assert!(s.extend(|_| added));
        assert!(!s.is_over());
        assert_eq!(s.plan_next(30, |t| t), Some(130));
        assert_eq!(s.due(130), Some((1, added)));
        // A concurrent next job is already decided: no reaction.
        let mut s = session(&[job(Follow::First), job(Follow::Concurrent(5))]);
        s.submitted(0);
        assert_eq!(
            s.ended(0, 100, 100, Some((&curve, 0.5))),
            Reaction::AsPlanned
        );
    }

    #[test]
    fn a_session_given_up_is_not_extended() {
        // Two jobs at once, the session given up after the first ends: the second's end
        // finds nothing left, and the user does not go on with more.
        let mut s = session(&[
            job(Follow::First),
            job(Follow::Concurrent(0)),
            job(Follow::Think(1)),
        ]);
        s.submitted(0);
        assert_eq!(s.plan_next(0, |t| t), Some(0));
        s.submitted(0);
        s.ended(0, 30, 30, None);
        assert_eq!(s.drop_rest(), 1);
        assert_eq!(
            s.ended(1, 40, 40, Some((&step_curve(), 0.5))),
            Reaction::Extend
        );
        assert!(!s.extend(|_| job(Follow::Think(1))));
        assert!(s.is_over());
    }

    #[test]
    fn extensions_stop_at_the_bound() {
        let mut s = session(&[job(Follow::First)]);
        let mut added = 0;
        while s.extend(|_| job(Follow::Think(1))) {
            added += 1;
        }
        assert_eq!(added, MAX_EXTENSIONS);
        assert!(!s.extend(|_| job(Follow::Think(1))));
    }
}
