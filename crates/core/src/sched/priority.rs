//! EASY backfilling over a priority order: the pass that CREASY, Maui and the fair-share
//! multifactor policy share. Each pass sorts the waiting jobs by priority (higher first,
//! ties by submission), starts them in that order while they fit, reserves processors
//! for the first that does not (its shadow time and extra processors, as EASY does,
//! Mu'alem and Feitelson 2001, §2.2), and backfills the rest in priority order if they
//! end by the shadow time or fit in the extra processors. With priorities that rank the
//! queue in submission order it is EASY, pass for pass: a policy configured so (Maui's
//! default, CREASY with `alpha = 0`) runs EASY itself, with its index of the waiting jobs
//! (`backfill.rs`), and is spared the sort and the scan of the queue at every pass.

use super::easy::{Easy, Reservation};
use super::{RunningByEnd, RunningJob, Scheduler, SystemView};
use crate::job::{JobId, JobRequest};
use crate::time::Time;

/// A priority function over the waiting jobs (higher goes first).
pub type Priority<'a> = &'a dyn Fn(&JobRequest) -> f64;

/// How a policy ranks the queue for [`PriorityEasy`]: its priority function and what it
/// learns from the jobs that come and go. A policy file holds only its rule.
pub trait Rank: std::fmt::Debug + Clone + Send + 'static {
    /// The policy's name, as given on the command line.
    const NAME: &'static str;

    /// Whether the priority ranks the queue in submission order, so that the passes are
    /// EASY's own and the head's reservation is EASY's promise.
    fn by_arrival(&self) -> bool;

    /// Adopts the machine in `view` (what was learned of jobs ended before is lost).
    fn sync(&mut self, _view: &SystemView<'_>) {}

    /// A job has joined the queue.
    fn on_submit(&mut self, _job: &JobRequest) {}

    /// A running job ended at `now`.
    fn on_end(&mut self, _job: &RunningJob, _now: Time) {}

    /// Hands `pass` the priority of each waiting job at `view` (higher goes first).
    fn rank(&self, view: &SystemView<'_>, pass: &mut dyn FnMut(Priority<'_>));
}

/// EASY backfilling over the priority order of the rule `R`.
#[derive(Debug, Clone)]
pub struct PriorityEasy<R: Rank> {
    rule: R,
    pass: Pass,
}

impl<R: Rank> PriorityEasy<R> {
    /// The policy of `rule`.
    pub fn with_rule(rule: R) -> Self {
        let pass = Pass::new(!rule.by_arrival());
        PriorityEasy { rule, pass }
    }

    /// Its rule.
    pub fn rule(&self) -> &R {
        &self.rule
    }
}

impl<R: Rank> Scheduler for PriorityEasy<R> {
    fn name(&self) -> &str {
        R::NAME
    }

    fn sync(&mut self, view: &SystemView<'_>) {
        self.pass.sync(view);
        self.rule.sync(view);
    }

    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        self.pass.on_submit(job, view);
        self.rule.on_submit(job);
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        self.pass.on_end(job, view);
        self.rule.on_end(job, view.now);
    }

    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        self.pass.on_replan(job, old_plan, started, view);
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let PriorityEasy { rule, pass } = self;
        rule.rank(view, &mut |priority| pass.pass(view, priority, starts));
    }

    /// Ranked by arrival, the head's reservation is EASY's promise; otherwise a job of
    /// higher priority may take the head's place, so nothing is promised.
    fn promises(&self, out: &mut Vec<(JobId, Time)>) {
        if self.rule.by_arrival()
            && let Some(r) = self.pass.reservation()
        {
            out.push((r.head, r.shadow));
        }
    }
}

/// An EASY pass in priority order, or in the queue's order.
#[derive(Debug, Clone)]
enum Pass {
    /// Ranked by a priority at every pass: the running jobs, the reservation, and scratch
    /// space for the ranking (the jobs' priorities and places in the queue).
    Ranked {
        running: RunningByEnd,
        reservation: Option<Reservation>,
        ranked: Vec<(f64, usize)>,
    },
    /// In the queue's order: EASY.
    InOrder(Box<Easy>),
}

impl Pass {
    /// Passes ranked by priority, or (`ranked` false) in the queue's order.
    fn new(ranked: bool) -> Self {
        if ranked {
            Pass::Ranked {
                running: RunningByEnd::new(),
                reservation: None,
                ranked: Vec::new(),
            }
        } else {
            Pass::InOrder(Box::new(Easy::new()))
        }
    }

    /// Adopts the state of `view`.
    fn sync(&mut self, view: &SystemView<'_>) {
        match self {
            Pass::Ranked {
                running,
                reservation,
                ..
            } => {
                *running = RunningByEnd::new();
                for job in view.running() {
                    let r = &job.request;
                    running.insert(job.planned_end(), r.seq, r.id, r.size);
                }
                *reservation = None;
            }
            Pass::InOrder(easy) => easy.sync(view),
        }
    }

    /// A job has joined the queue.
    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        if let Pass::InOrder(easy) = self {
            easy.on_submit(job, view);
        }
    }

    /// A running job ended.
    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        match self {
            Pass::Ranked { running, .. } => running.remove(job.planned_end(), job.request.seq),
            Pass::InOrder(easy) => easy.on_end(job, view),
        }
    }

    /// A job's plan changed; a running one is held until its new planned end.
    fn on_replan(
        &mut self,
        job: &JobRequest,
        old_plan: Time,
        started: Option<Time>,
        view: &SystemView<'_>,
    ) {
        match self {
            Pass::Ranked { running, .. } => {
                if let Some(start) = started {
                    running.remove(start + old_plan, job.seq);
                    running.insert(start + job.plan, job.seq, job.id, job.size);
                }
            }
            Pass::InOrder(easy) => easy.on_replan(job, old_plan, started, view),
        }
    }

    /// The head's reservation after the last pass.
    fn reservation(&self) -> Option<Reservation> {
        match self {
            Pass::Ranked { reservation, .. } => *reservation,
            Pass::InOrder(easy) => easy.reservation(),
        }
    }

    /// One pass over `view`'s queue ranked by `priority` (in the queue's order, `priority`
    /// unused, for passes in order).
    fn pass(
        &mut self,
        view: &SystemView<'_>,
        priority: &dyn Fn(&JobRequest) -> f64,
        starts: &mut Vec<JobId>,
    ) {
        let (running, reservation, ranked) = match self {
            Pass::Ranked {
                running,
                reservation,
                ranked,
            } => (running, reservation, ranked),
            Pass::InOrder(easy) => return easy.schedule(view, starts),
        };
        let queue = view.queue();
        ranked.clear();
        ranked.extend(queue.places().map(|(at, job)| (priority(job), at)));
        // Places are in the queue's order: ties go to the earlier submission.
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let now = view.now;
        *reservation = None;
        let mut free = view.free;
        let mut rest = ranked.iter().map(|&(_, at)| queue.at(at));
        for job in rest.by_ref() {
            if job.size <= free {
                free -= job.size;
                start(running, job, now, starts);
                continue;
            }
            *reservation = Some(Reservation::of(job.id, job.size, running, now, free));
            break;
        }
        if let Some(res) = reservation {
            for job in rest {
                if free == 0 {
                    break;
                }
                if res.admit(job.size, job.plan, now, &mut free) {
                    start(running, job, now, starts);
                }
            }
        }
    }
}

/// Starts `job` now.
fn start(running: &mut RunningByEnd, job: &JobRequest, now: Time, starts: &mut Vec<JobId>) {
    running.insert(now + job.plan, job.seq, job.id, job.size);
    starts.push(job.id);
}
