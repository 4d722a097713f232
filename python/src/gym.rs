//! The simulation behind `sitesim.gym.ClosedLoopEnv`: an episode is one run (a replay,
//! a feedback replay or a resampled population) whose scheduler is an agent in Python.
//!
//! The run goes on in a thread of its own, the scheduler of which is an [`Agent`]: at each
//! decision it sends the state to the environment and waits for the action, so the
//! simulation's loop is the same as every other run's, and the users' feedback (their
//! next jobs after their results) is in the episode. A decision is asked whenever jobs
//! wait and none is reserved: the action picks one of the first `window` waiting jobs
//! (in submission order); it starts now if it fits, else it is reserved and starts as
//! soon as it does, while (with `backfill`) later jobs that do not delay it start by
//! EASY's rule. With `wait`, one more action starts nothing until the next event (offered
//! only while a job runs, so that an event is sure to come). An action outside those
//! offered picks the first job and is counted. An episode on autopilot picks the first
//! job at every decision without asking (EASY with backfilling, FCFS without): the
//! baseline an agent's return is measured against.
//!
//! The observation is `3 + 6 * window` numbers in [0, 1] (documented in
//! `python/sitesim/gym.py`); the counters from which the environment computes its
//! reward are cumulative: jobs submitted, jobs ended, processor-hours ended, the sum of
//! ended jobs' bounded slowdowns, hours waited by all jobs, and invalid actions.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use sitesim::job::{JobId, JobRequest};
use sitesim::registry::{register, unregister};
use sitesim::sched::{RunningJob, Scheduler, SystemView, easy_pass};
use sitesim::time::Time;

use crate::SitesimError;
use crate::handoff::Handoff;

/// Features of the machine in an observation.
const MACHINE: usize = 3;
/// Features of each offered job.
const PER_JOB: usize = 6;
/// Times (plan, wait) are scaled as `ln(1 + t) / ln(1 + CAP)`, clamped at 1.
const CAP: f64 = 30.0 * 86_400.0;
/// A user with a job running, or whose latest job ended this recently, is in a session
/// (the think-time threshold of Zakay and Feitelson's session split, 20 minutes).
const SESSION_GAP: Time = 20 * 60;
/// The runtime below which bounded slowdown counts a job as this long (10 s).
const BSLD_BOUND: f64 = 10.0;

/// Cumulative counters, in the order the environment reads them.
#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    submitted: f64,
    ended: f64,
    proc_hours: f64,
    bsld: f64,
    wait_hours: f64,
    invalid: f64,
}

impl Counters {
    fn list(&self) -> [f64; 6] {
        [
            self.submitted,
            self.ended,
            self.proc_hours,
            self.bsld,
            self.wait_hours,
            self.invalid,
        ]
    }
}

/// What the run tells the environment.
enum ToEnv {
    /// A decision is due: the observation, which of the window's slots hold a job, the
    /// counters, the clock.
    Decide(Vec<f32>, Vec<u8>, Counters, Time),
    /// The run ended: its summary as JSON, or its error, and the final counters.
    Done(Result<String, String>, Counters),
}

/// The agent's end of an episode's channels.
struct Link {
    to_env: SyncSender<ToEnv>,
    from_env: Receiver<u32>,
    /// The counters so far, which the run's thread sends at the end.
    counters: Counters,
    handoff: Handoff,
}

/// The scheduler of an episode: it asks the environment at each decision.
#[derive(Clone)]
struct Agent {
    name: String,
    link: Arc<Mutex<Link>>,
    window: usize,
    backfill: bool,
    /// Whether the agent may wait (the action `window`).
    wait: bool,
    /// Whether the first job is picked without asking.
    autopilot: bool,
    /// The job chosen that did not fit, by submission number.
    reserved: Option<u64>,
    /// Waiting jobs after the latest pass, and its time (for the hours waited).
    waiting: usize,
    last: Option<Time>,
    fault: Option<String>,
}

impl Agent {
    /// The observation of `view` with the jobs of `offered`, and their mask.
    fn observe(
        &self,
        view: &SystemView<'_>,
        free: u32,
        offered: &[&JobRequest],
    ) -> (Vec<f32>, Vec<u8>) {
        let total = f64::from(view.total.max(1));
        let scale = |t: Time| ((1.0 + t.max(0) as f64).ln() / (1.0 + CAP).ln()).min(1.0) as f32;
        let q = view.queue().len() as f64;
        let mut obs = Vec::with_capacity(MACHINE + PER_JOB * self.window);
        obs.push((f64::from(free) / total) as f32);
        obs.push((q / (q + self.window as f64)) as f32);
        obs.push((view.now.rem_euclid(86_400) as f64 / 86_400.0) as f32);
        let mut mask = vec![0u8; self.window + usize::from(self.wait)];
        if self.wait && !view.running().is_empty() {
            mask[self.window] = 1;
        }
        for (slot, job) in offered.iter().enumerate() {
            let user = view.user(job.user);
            let in_session =
                user.running > 0 || user.last_end.is_some_and(|e| view.now - e <= SESSION_GAP);
            obs.extend([
                1.0,
                (f64::from(job.size) / total) as f32,
                scale(job.plan),
                scale(view.now - job.submit),
                f32::from(u8::from(job.size <= free)),
                f32::from(u8::from(in_session)),
            ]);
            mask[slot] = 1;
        }
        obs.resize(MACHINE + PER_JOB * self.window, 0.0);
        (obs, mask)
    }

    /// Asks the environment; `None` if it has gone.
    fn ask(&mut self, obs: Vec<f32>, mask: Vec<u8>, now: Time) -> Option<u32> {
        let mut link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
        link.to_env
            .send(ToEnv::Decide(obs, mask, link.counters, now))
            .ok()?;
        let Link {
            from_env, handoff, ..
        } = &mut *link;
        handoff.receive(from_env, Receiver::recv).ok()
    }

    /// Updates the counters.
    fn count(&self, update: impl FnOnce(&mut Counters)) {
        update(
            &mut self
                .link
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .counters,
        );
    }

    /// EASY's backfilling around the reserved job `head` (`sched::easy_pass` over the head
    /// and the jobs after it): later jobs that fit and do not delay it start now.
    fn backfill(
        &self,
        view: &SystemView<'_>,
        head: &JobRequest,
        free: &mut u32,
        starts: &mut Vec<JobId>,
        started: &mut Vec<u64>,
    ) {
        let waiting = view.queue();
        let ends: Vec<(Time, u32)> = view
            .running()
            .iter()
            .map(|r| (r.planned_end(), r.request.size))
            .chain(
                waiting
                    .iter()
                    .filter(|j| started.contains(&j.seq))
                    .map(|j| (view.now + j.plan, j.size)),
            )
            .collect();
        let order: Vec<&JobRequest> = std::iter::once(head)
            .chain(
                waiting
                    .iter()
                    .filter(|j| j.seq != head.seq && !started.contains(&j.seq)),
            )
            .collect();
        let jobs: Vec<(u32, Time)> = order.iter().map(|j| (j.size, j.plan)).collect();
        for i in easy_pass(&jobs, *free, view.now, &ends) {
            let job = order[i];
            *free -= job.size;
            starts.push(job.id);
            started.push(job.seq);
        }
    }
}

impl Scheduler for Agent {
    fn name(&self) -> &str {
        &self.name
    }

    fn sync(&mut self, _view: &SystemView<'_>) {
        self.reserved = None;
    }

    fn on_submit(&mut self, _job: &JobRequest, _view: &SystemView<'_>) {
        self.count(|c| c.submitted += 1.0);
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        let runtime = (view.now - job.start) as f64;
        let response = (view.now - job.request.submit) as f64;
        self.count(|c| {
            c.ended += 1.0;
            c.proc_hours += f64::from(job.request.size) * runtime / 3600.0;
            c.bsld += (response / runtime.max(BSLD_BOUND)).max(1.0);
        });
    }

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        if let Some(last) = self.last {
            let hours = self.waiting as f64 * (view.now - last) as f64 / 3600.0;
            self.count(|c| c.wait_hours += hours);
        }
        self.last = Some(view.now);
        let mut free = view.free;
        let mut started: Vec<u64> = Vec::new();
        while self.fault.is_none() {
            if let Some(seq) = self.reserved {
                match view.queue().iter().find(|j| j.seq == seq) {
                    Some(head) if head.size <= free => {
                        free -= head.size;
                        starts.push(head.id);
                        started.push(seq);
                        self.reserved = None;
                        continue;
                    }
                    Some(head) => {
                        if self.backfill {
                            self.backfill(view, head, &mut free, starts, &mut started);
                        }
                        break;
                    }
                    None => self.reserved = None,
                }
            }
            let offered: Vec<&JobRequest> = view
                .queue()
                .iter()
                .filter(|j| !started.contains(&j.seq))
                .take(self.window)
                .collect();
            if offered.is_empty() {
                break;
            }
            let action = if self.autopilot {
                0
            } else {
                let (obs, mask) = self.observe(view, free, &offered);
                let may_wait = mask.get(self.window) == Some(&1);
                let Some(action) = self.ask(obs, mask, view.now) else {
                    self.fault = Some("the environment was closed".into());
                    break;
                };
                if may_wait && action as usize == self.window {
                    // Wait: nothing more starts before the next event.
                    break;
                }
                action as usize
            };
            let job = match offered.get(action) {
                Some(job) => job,
                None => {
                    self.count(|c| c.invalid += 1.0);
                    offered[0]
                }
            };
            if job.size <= free {
                free -= job.size;
                starts.push(job.id);
                started.push(job.seq);
            } else {
                self.reserved = Some(job.seq);
            }
        }
        if self.fault.is_some() {
            starts.clear();
        }
        self.waiting = view.queue().len() - started.len();
    }

    fn fault(&self) -> Option<String> {
        self.fault.clone()
    }
}

/// Episodes so far, for the agents' names in the registry.
static EPISODES: AtomicU64 = AtomicU64::new(0);

/// One episode: a run in its own thread, driven by [`Episode::advance`].
#[pyclass(module = "sitesim._sitesim")]
pub struct Episode {
    name: String,
    from_sim: Mutex<Receiver<ToEnv>>,
    to_sim: Option<SyncSender<u32>>,
    thread: Option<JoinHandle<()>>,
    /// Whether the run has ended (its result has been taken).
    ended: bool,
    handoff: Handoff,
}

/// What [`Episode::advance`] returns: whether the run ended, the observation (f32
/// bytes), the mask (u8 bytes), the counters, the clock and, at the end, the summary.
type Step<'py> = (
    bool,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    [f64; 6],
    Time,
    Option<String>,
);

#[pymethods]
impl Episode {
    /// Starts `sitesim COMMAND ARGV...` (replay, feedback or resample) with the agent as
    /// its scheduler (`--scheduler` is added), offering `window` jobs per decision, and
    /// waiting as one more action with `wait`; on `autopilot`, the first job is picked at
    /// every decision and the first `advance` gives the end of the run.
    #[new]
    #[pyo3(signature = (command, argv, window, backfill, wait = false, autopilot = false))]
    fn new(
        command: String,
        mut argv: Vec<String>,
        window: usize,
        backfill: bool,
        wait: bool,
        autopilot: bool,
    ) -> PyResult<Self> {
        if window == 0 {
            return Err(SitesimError::new_err("the window offers at least one job"));
        }
        let name = format!("gym.agent-{}", EPISODES.fetch_add(1, Ordering::Relaxed));
        let (to_env, from_sim) = sync_channel(1);
        let (to_sim, from_env) = sync_channel(1);
        let link = Arc::new(Mutex::new(Link {
            to_env: to_env.clone(),
            from_env,
            counters: Counters::default(),
            handoff: Handoff::default(),
        }));
        let agent = Agent {
            name: name.clone(),
            link: link.clone(),
            window,
            backfill,
            wait,
            autopilot,
            reserved: None,
            waiting: 0,
            last: None,
            fault: None,
        };
        register(&name, "an agent of sitesim.gym", move |params| {
            params.finish()?;
            let agent = agent.clone();
            Ok(Arc::new(move |_ctx| {
                Box::new(agent.clone()) as Box<dyn Scheduler>
            }))
        });
        argv.extend(["--scheduler".to_owned(), name.clone()]);
        let thread = std::thread::Builder::new()
            .name(name.clone())
            .spawn(move || {
                let result = crate::command(&command, &argv);
                let counters = link.lock().unwrap_or_else(PoisonError::into_inner).counters;
                let _ = to_env.send(ToEnv::Done(result, counters));
            })
            .map_err(|e| SitesimError::new_err(format!("the episode's thread: {e}")))?;
        Ok(Episode {
            name,
            from_sim: Mutex::new(from_sim),
            to_sim: Some(to_sim),
            thread: Some(thread),
            ended: false,
            handoff: Handoff::default(),
        })
    }

    /// Sends `action` (none before the first decision) and waits for the next decision
    /// or the end of the run.
    #[pyo3(signature = (action = None))]
    fn advance<'py>(&mut self, py: Python<'py>, action: Option<u32>) -> PyResult<Step<'py>> {
        if self.ended {
            return Err(SitesimError::new_err(
                "the episode has ended: reset the environment",
            ));
        }
        let (from_sim, to_sim, handoff) = (&self.from_sim, &self.to_sim, &mut self.handoff);
        let message = py.detach(|| {
            if let (Some(a), Some(to_sim)) = (action, to_sim) {
                to_sim.send(a).ok()?;
            }
            handoff
                .receive(
                    &from_sim.lock().unwrap_or_else(PoisonError::into_inner),
                    Receiver::recv,
                )
                .ok()
        });
        match message {
            Some(ToEnv::Decide(obs, mask, counters, now)) => {
                let bytes: Vec<u8> = obs.iter().flat_map(|x| x.to_ne_bytes()).collect();
                Ok((
                    false,
                    PyBytes::new(py, &bytes),
                    PyBytes::new(py, &mask),
                    counters.list(),
                    now,
                    None,
                ))
            }
            Some(ToEnv::Done(result, counters)) => {
                self.ended = true;
                self.finish();
                let summary = result.map_err(SitesimError::new_err)?;
                Ok((
                    true,
                    PyBytes::new(py, &[]),
                    PyBytes::new(py, &[]),
                    counters.list(),
                    0,
                    Some(summary),
                ))
            }
            None => {
                self.ended = true;
                self.finish();
                Err(SitesimError::new_err(
                    "the episode's run stopped without a result",
                ))
            }
        }
    }

    /// Stops the run if it is still going, and waits for its thread.
    fn close(&mut self, py: Python<'_>) {
        py.detach(|| self.finish());
    }
}

impl Episode {
    fn finish(&mut self) {
        // The agent kept by the registry holds a channel to the environment too.
        unregister(&self.name);
        // Closing the agent's channel ends its run at its next decision.
        self.to_sim = None;
        if let Some(thread) = self.thread.take() {
            if !self.ended {
                // Take what the run still sends until it ends, so that it never blocks.
                let from_sim = self.from_sim.lock().unwrap_or_else(PoisonError::into_inner);
                while let Ok(ToEnv::Decide(..)) = from_sim.recv() {}
            }
            let _ = thread.join();
        }
    }
}

impl Drop for Episode {
    fn drop(&mut self) {
        self.finish();
    }
}
