//! Schedulers written in Python: `sitesim.Scheduler` subclasses run wherever a policy is.
//!
//! An instance is registered (`register_scheduler`) in sitesim's registry of policies
//! under `py.NAME`; each run builds its own scheduler from a `copy.deepcopy` of it, so
//! replications, adaptive candidates and runs on any thread count start from the same
//! state and give the same results. [`PyScheduler`] is that scheduler: the Rust
//! [`Scheduler`] whose passes call the instance's `schedule(view)`.
//!
//! What the Python side sees is read-only: a [`View`] of the pass (its clock, free
//! processors, the waiting jobs as [`Job`]s in submission order, the running ones with
//! their expected ends) and the backfillers' helpers on it (the shadow time, the earliest
//! start in the estimate profile). The simulation's own checks apply to what it returns:
//! a job that is not waiting, is named twice or does not fit ends the run with an error
//! naming the job and the rule. An exception in a callback ends the run too; its
//! registration keeps the exception, which the Python side raises again with its
//! traceback.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use sitesim::job::{JobId, JobRequest};
use sitesim::registry::register;
use sitesim::sched::{RunningJob, Scheduler, SystemView, easy_pass, shadow};
use sitesim::time::Time;

use crate::host;

/// A job as a Python scheduler sees it; the same object for a job from its submission to
/// its end.
#[pyclass(frozen, get_all, module = "sitesim", name = "Job")]
pub struct Job {
    /// The job's submission number: unique in a run, growing with submission time.
    id: u64,
    /// Its user.
    user: i64,
    /// Processors it needs.
    size: u32,
    /// The user's runtime estimate, in seconds.
    estimate: Time,
    /// What the scheduler plans with, in seconds: the estimate, or the predictor's
    /// prediction.
    plan: Time,
    /// When it was submitted.
    submit: Time,
}

#[pymethods]
impl Job {
    fn __repr__(&self) -> String {
        format!(
            "Job(id={}, user={}, size={}, estimate={}, plan={}, submit={})",
            self.id, self.user, self.size, self.estimate, self.plan, self.submit
        )
    }
}

impl Job {
    fn of(r: &JobRequest) -> Self {
        Job {
            id: r.seq,
            user: r.user,
            size: r.size,
            estimate: r.estimate,
            plan: r.plan,
            submit: r.submit,
        }
    }
}

/// A running job: the job, when it started, and when the scheduler expects it to end.
#[pyclass(frozen, get_all, module = "sitesim", name = "RunningJob")]
pub struct Running {
    /// The job.
    job: Py<Job>,
    /// When it started.
    start: Time,
    /// Start plus plan, or one second from now if it has outlived its plan.
    expected_end: Time,
}

#[pymethods]
impl Running {
    fn __repr__(&self) -> String {
        format!(
            "RunningJob(job={}, start={}, expected_end={})",
            self.job.get().__repr__(),
            self.start,
            self.expected_end
        )
    }
}

/// The `Job` of every waiting and running job a scheduler has seen, by submission
/// number: the same object for a job from its submission to its end.
#[derive(Default)]
struct Jobs(HashMap<u64, Py<Job>>);

impl Jobs {
    /// The `Job` of `r`, made at first sight (or again if its plan changed).
    fn of(&mut self, py: Python<'_>, r: &JobRequest) -> PyResult<Py<Job>> {
        if let Some(j) = self.0.get(&r.seq)
            && j.get().plan == r.plan
        {
            return Ok(j.clone_ref(py));
        }
        let j = Py::new(py, Job::of(r))?;
        self.0.insert(r.seq, j.clone_ref(py));
        Ok(j)
    }
}

/// What a [`View`] reads during its pass: the simulation's own view, and the scheduler's
/// `Job`s. Both live on the stack of the thread that runs the pass, which waits while
/// the callback runs; [`Pass::end`] forgets them before that stack frame goes.
struct Live {
    view: *const SystemView<'static>,
    jobs: *const Mutex<Jobs>,
}

// SAFETY: `SystemView` is `Sync` and `Jobs` is behind a mutex; the pointers are read only
// while the pass that made them runs (see `Pass`).
unsafe impl Send for Live {}
unsafe impl Sync for Live {}

/// A pass's link from its [`View`] to the simulation, cut when the pass ends.
#[derive(Clone, Default)]
struct Pass(Arc<Mutex<Option<Live>>>);

impl Pass {
    /// Links `view` and `jobs` for the pass under way.
    fn begin(view: &SystemView<'_>, jobs: &Mutex<Jobs>) -> Self {
        let view: *const SystemView<'_> = view;
        // SAFETY: the lifetime is erased only for the pass: `end` is called before the
        // view goes, and nothing reads the pointer after it.
        let view = unsafe {
            std::mem::transmute::<*const SystemView<'_>, *const SystemView<'static>>(view)
        };
        Pass(Arc::new(Mutex::new(Some(Live { view, jobs }))))
    }

    /// Ends the pass: the view reads nothing more from the simulation.
    fn end(&self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// Calls `f` with the simulation's view and the jobs, if the pass is under way.
    fn with<R>(&self, f: impl FnOnce(&SystemView<'_>, &mut Jobs) -> R) -> PyResult<R> {
        let live = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(live) = live.as_ref() else {
            return Err(PyRuntimeError::new_err(
                "this view's pass has ended: a view reads the machine only during its pass \
                 (keep view.queue or view.running, read during the pass, to keep them)",
            ));
        };
        // SAFETY: the pass is under way (see `Pass::begin`).
        let (view, jobs) = unsafe { (&*live.view, &*live.jobs) };
        let mut jobs = jobs.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(f(view, &mut jobs))
    }
}

/// A running job as a view keeps it: `(planned end, processors, start, job)`.
type RunningEntry = (Time, u32, Time, Py<Job>);

/// One scheduling pass as a Python scheduler sees it: read-only, and read from the
/// simulation only as the scheduler asks (a pass costs what it reads, not the queue's
/// length). What was read during the pass stays readable after it.
#[pyclass(frozen, module = "sitesim", name = "View")]
pub struct View {
    /// The site's clock, in seconds.
    #[pyo3(get)]
    now: Time,
    /// Processors free now.
    #[pyo3(get)]
    free: u32,
    /// Processors in the machine.
    #[pyo3(get)]
    total: u32,
    pass: Pass,
    /// The waiting jobs, once read.
    queue: OnceLock<Py<PyTuple>>,
    /// The running jobs by planned end, once read.
    running: OnceLock<Vec<RunningEntry>>,
}

impl View {
    /// The running jobs, read once.
    fn running_jobs(&self, py: Python<'_>) -> PyResult<&[RunningEntry]> {
        if let Some(r) = self.running.get() {
            return Ok(r);
        }
        let running = self.pass.with(|v, jobs| {
            let mut running = v
                .running()
                .iter()
                .map(|r| {
                    Ok((
                        r.planned_end(),
                        r.request.size,
                        r.start,
                        jobs.of(py, &r.request)?,
                    ))
                })
                .collect::<PyResult<Vec<_>>>()?;
            running.sort_unstable_by_key(|r| (r.0, r.3.get().id));
            Ok::<_, PyErr>(running)
        })??;
        Ok(self.running.get_or_init(|| running))
    }

    /// The running jobs' planned ends and sizes, by planned end (read from the
    /// simulation during the pass, without making their `Job`s).
    fn ends(&self, py: Python<'_>) -> PyResult<Vec<(Time, u32)>> {
        if self.running.get().is_none()
            && let Ok(ends) = self.pass.with(|v, _| {
                let mut ends: Vec<(Time, u64, u32)> = v
                    .running()
                    .iter()
                    .map(|r| (r.planned_end(), r.request.seq, r.request.size))
                    .collect();
                ends.sort_unstable();
                ends.into_iter().map(|(end, _, size)| (end, size)).collect()
            })
        {
            return Ok(ends);
        }
        Ok(self.running_jobs(py)?.iter().map(|r| (r.0, r.1)).collect())
    }
}

#[pymethods]
impl View {
    /// The waiting jobs, in submission order (a tuple of `Job`); under `limits`, the
    /// jobs it has released, in the order it released them.
    #[getter]
    fn queue(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        if let Some(q) = self.queue.get() {
            return Ok(q.clone_ref(py));
        }
        let queue = self.pass.with(|v, jobs| {
            let queue = v
                .queue()
                .iter()
                .map(|r| jobs.of(py, r))
                .collect::<PyResult<Vec<_>>>()?;
            Ok::<_, PyErr>(PyTuple::new(py, queue)?.unbind())
        })??;
        Ok(self.queue.get_or_init(|| queue).clone_ref(py))
    }

    /// The running jobs, in ascending order of expected end (a tuple of `RunningJob`).
    #[getter]
    fn running<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let now = self.now;
        let jobs = self
            .running_jobs(py)?
            .iter()
            .map(|(end, _, start, job)| {
                Py::new(
                    py,
                    Running {
                        job: job.clone_ref(py),
                        start: *start,
                        expected_end: (*end).max(now + 1),
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, jobs)
    }

    /// EASY's reservation for `job`: `(shadow_time, extra_processors)`, when enough
    /// processors will be free for it if the running jobs end as planned (and the jobs of
    /// `starting`, started in this pass, run their plan from now), and how many are free
    /// then beyond what it needs. The shadow time is `now` if it fits now.
    #[pyo3(signature = (job, starting = None))]
    fn shadow(
        &self,
        py: Python<'_>,
        job: &Bound<'_, Job>,
        starting: Option<Vec<Bound<'_, Job>>>,
    ) -> PyResult<(Time, u32)> {
        let need = job.get().size;
        let starting = starting.unwrap_or_default();
        let taken: u64 = starting.iter().map(|j| u64::from(j.get().size)).sum();
        let Some(free) = u64::from(self.free)
            .checked_sub(taken)
            .and_then(|f| u32::try_from(f).ok())
        else {
            return Err(PyValueError::new_err(format!(
                "the jobs of starting need {taken} processors; only {} are free",
                self.free
            )));
        };
        if free >= need {
            return Ok((self.now, free - need));
        }
        let mut ends = self.ends(py)?;
        if !starting.is_empty() {
            ends.extend(
                starting
                    .iter()
                    .map(|j| (self.now + j.get().plan, j.get().size)),
            );
            ends.sort_unstable();
        }
        shadow(need, free, self.now, ends).ok_or_else(|| {
            PyValueError::new_err(format!(
                "job {} needs {need} processors, more than the machine's {}",
                job.get().id,
                self.total
            ))
        })
    }

    /// The earliest time `job` can start in the estimate profile: now if it fits, else
    /// its shadow time (see `shadow`).
    #[pyo3(signature = (job, starting = None))]
    fn earliest_start(
        &self,
        py: Python<'_>,
        job: &Bound<'_, Job>,
        starting: Option<Vec<Bound<'_, Job>>>,
    ) -> PyResult<Time> {
        Ok(self.shadow(py, job, starting)?.0)
    }

    /// One EASY pass over `order` (default: the queue, in submission order): the jobs to
    /// start now. They start in that order while they fit; the first that does not gets
    /// EASY's reservation; the others start if they fit and end by its shadow time or
    /// use only its extra processors. Given the queue in a priority order, this is the
    /// pass of priority schedulers (CREASY, Maui, fair-share); given the queue, EASY's.
    #[pyo3(signature = (order = None))]
    fn easy<'py>(
        &self,
        py: Python<'py>,
        order: Option<Vec<Bound<'py, Job>>>,
    ) -> PyResult<Vec<Bound<'py, Job>>> {
        let ends = self.ends(py)?;
        // The order given, else the queue if it was read.
        let order = order.or_else(|| {
            self.queue.get().map(|q| {
                q.bind(py)
                    .iter()
                    .filter_map(|j| j.cast_into::<Job>().ok())
                    .collect()
            })
        });
        if let Some(order) = order {
            let jobs: Vec<(u32, Time)> =
                order.iter().map(|j| (j.get().size, j.get().plan)).collect();
            return Ok(easy_pass(&jobs, self.free, self.now, &ends)
                .into_iter()
                .map(|i| order[i].clone())
                .collect());
        }
        // The queue as the simulation holds it: only the jobs chosen become `Job`s.
        self.pass.with(|v, jobs| {
            let queue: Vec<&JobRequest> = v.queue().iter().collect();
            let sizes: Vec<(u32, Time)> = queue.iter().map(|j| (j.size, j.plan)).collect();
            easy_pass(&sizes, self.free, self.now, &ends)
                .into_iter()
                .map(|i| Ok(jobs.of(py, queue[i])?.into_bound(py)))
                .collect()
        })?
    }

    /// The number of waiting jobs (without reading them).
    #[getter]
    fn waiting(&self, py: Python<'_>) -> PyResult<usize> {
        match self.queue.get() {
            Some(q) => Ok(q.bind(py).len()),
            None => self.pass.with(|v, _| v.queue().len()),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let waiting = self
            .waiting(py)
            .map_or_else(|_| "?".into(), |n| n.to_string());
        let running = self
            .running
            .get()
            .map(Vec::len)
            .or_else(|| self.pass.with(|v, _| v.running().len()).ok())
            .map_or_else(|| "?".into(), |n| n.to_string());
        format!(
            "View(now={}, free={}, total={}, {waiting} waiting, {running} running)",
            self.now, self.free, self.total
        )
    }
}

/// Which optional callbacks the Python scheduler defines.
#[derive(Debug, Clone, Copy)]
struct Hooks {
    on_submit: bool,
    on_end: bool,
    sync: bool,
    wake_at: bool,
}

/// Why a scheduler stops once its call is interrupted (Ctrl-C).
const STOPPED: &str = "stopped by Ctrl-C";

/// Where a run's first Python exception is kept for the Python side to raise again.
type ErrorSlot = Arc<Mutex<Option<PyErr>>>;

/// The instances the runs have used (each run's deep copy), in the order they were made.
type Instances = Arc<Mutex<Vec<Py<PyAny>>>>;

/// A registered Python scheduler: after a run that failed, `take_error()` gives the
/// exception a callback raised, if one did; after any run, `take_instances()` the
/// instance each run used.
#[pyclass(frozen, module = "sitesim._sitesim")]
pub struct Registration {
    /// The policy's name in the registry.
    #[pyo3(get)]
    name: String,
    error: ErrorSlot,
    instances: Instances,
}

#[pymethods]
impl Registration {
    /// The instances the runs used since the last call (one per run, or per candidate of
    /// an adaptive policy), in the order they were made, with the state they ended in.
    fn take_instances(&self) -> Vec<Py<PyAny>> {
        std::mem::take(
            &mut *self
                .instances
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The exception a callback raised since the last call, if any.
    fn take_error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let e = self
            .error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        e.map(|e| e.into_value(py).into_any())
    }
}

/// Registers the Python scheduler `prototype` as policy `name`, its optional callbacks
/// `hooks` (on_submit, on_end, sync, wake_at) as its class defines them.
#[pyfunction]
pub fn register_scheduler(
    name: String,
    prototype: Py<PyAny>,
    hooks: (bool, bool, bool, bool),
) -> Registration {
    let error = ErrorSlot::default();
    let hooks = Hooks {
        on_submit: hooks.0,
        on_end: hooks.1,
        sync: hooks.2,
        wake_at: hooks.3,
    };
    let prototype = Arc::new(prototype);
    let instances = Instances::default();
    let (label, slot, used) = (name.clone(), error.clone(), instances.clone());
    register(&name, "a scheduler written in Python", move |params| {
        params.finish()?;
        let (prototype, label, slot, used) =
            (prototype.clone(), label.clone(), slot.clone(), used.clone());
        Ok(Arc::new(move |_ctx| {
            Box::new(PyScheduler::new(&label, &prototype, hooks, &slot, &used))
                as Box<dyn Scheduler>
        }))
    });
    Registration {
        name,
        error,
        instances,
    }
}

/// `value` as an integer: an `int`, or a `float` with no fractional part (as numpy and
/// arithmetic on times give); `None` for anything else.
fn integer<T: for<'py> FromPyObjectOwned<'py> + TryFrom<i64>>(
    value: &Bound<'_, PyAny>,
) -> Option<T> {
    if let Ok(v) = value.extract::<T>() {
        return Some(v);
    }
    let f: f64 = value.extract().ok()?;
    let whole = f.is_finite() && f.fract() == 0.0 && f.abs() < 2f64.powi(53);
    whole.then(|| T::try_from(f as i64).ok()).flatten()
}

/// `copy.deepcopy(obj)`.
fn deepcopy(py: Python<'_>, obj: &Py<PyAny>) -> PyResult<Py<PyAny>> {
    Ok(py
        .import("copy")?
        .call_method1("deepcopy", (obj.bind(py),))?
        .unbind())
}

/// A Python scheduler in a run: a deep copy of the registered instance.
pub struct PyScheduler {
    name: String,
    obj: Py<PyAny>,
    hooks: Hooks,
    /// The `Job` of every waiting and running job it has seen.
    jobs: Mutex<Jobs>,
    /// Why it cannot go on: a callback raised, or a pass broke a rule.
    fault: Option<String>,
    error: ErrorSlot,
    /// What `wake_at()` answered after the latest pass.
    wake: Option<Time>,
}

impl PyScheduler {
    fn new(
        name: &str,
        prototype: &Py<PyAny>,
        hooks: Hooks,
        error: &ErrorSlot,
        used: &Instances,
    ) -> Self {
        let made = host::call(|py| {
            let mut s = PyScheduler {
                name: name.to_owned(),
                obj: prototype.clone_ref(py),
                hooks,
                jobs: Mutex::default(),
                fault: None,
                error: error.clone(),
                wake: None,
            };
            match deepcopy(py, prototype) {
                Ok(obj) => {
                    used.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(obj.clone_ref(py));
                    s.obj = obj;
                }
                Err(e) => s.raised(py, "copy.deepcopy of the scheduler", e),
            }
            s
        });
        made.unwrap_or_else(|| PyScheduler::stopped(name, prototype, hooks, error))
    }

    /// A scheduler made while its call stops at Ctrl-C: faulted at once, never called.
    fn stopped(name: &str, obj: &Py<PyAny>, hooks: Hooks, error: &ErrorSlot) -> Self {
        PyScheduler {
            name: name.to_owned(),
            obj: Python::attach(|py| obj.clone_ref(py)),
            hooks,
            jobs: Mutex::default(),
            fault: Some(STOPPED.into()),
            error: error.clone(),
            wake: None,
        }
    }

    /// A callback raised `e`: the run ends, and the exception is kept for Python.
    fn raised(&mut self, py: Python<'_>, callback: &str, e: PyErr) {
        host::note_interrupt(py, &e);
        if self.fault.is_none() {
            self.fault = Some(format!("its {callback} raised {e}"));
            let mut slot = self.error.lock().unwrap_or_else(PoisonError::into_inner);
            if slot.is_none() {
                *slot = Some(e);
            }
        }
    }

    /// The `Job` of `r`, made at first sight (or again if its plan changed).
    fn job(&mut self, py: Python<'_>, r: &JobRequest) -> PyResult<Py<Job>> {
        self.jobs
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .of(py, r)
    }

    /// The view of pass `v`, read from it as the scheduler asks until [`Pass::end`].
    fn view(&self, py: Python<'_>, v: &SystemView<'_>) -> PyResult<(Py<View>, Pass)> {
        let pass = Pass::begin(v, &self.jobs);
        let view = Py::new(
            py,
            View {
                now: v.now,
                free: v.free,
                total: v.total,
                pass: pass.clone(),
                queue: OnceLock::new(),
                running: OnceLock::new(),
            },
        )?;
        Ok((view, pass))
    }

    /// The pass: calls `schedule(view)` and checks what it returns; then asks
    /// `wake_at()`. The error names the callback that raised.
    fn pass(
        &mut self,
        py: Python<'_>,
        v: &SystemView<'_>,
        starts: &mut Vec<JobId>,
    ) -> Result<Result<(), String>, (&'static str, PyErr)> {
        let (view, pass) = self.view(py, v).map_err(|e| ("schedule()", e))?;
        let chosen = self.obj.bind(py).call_method1("schedule", (view,));
        pass.end();
        let chosen = chosen.map_err(|e| ("schedule()", e))?;
        if chosen.is_none() {
            return Ok(Err(
                "schedule() returned None: it returns the jobs to start now \
                 (an empty list to start none); is its `return` missing?"
                    .into(),
            ));
        }
        let mut free = v.free;
        let mut seen: Vec<u64> = Vec::new();
        let items = chosen.try_iter().map_err(|_| {
            (
                "schedule()",
                PyTypeError::new_err(format!(
                    "schedule() returned {}, not a list of jobs or job ids",
                    chosen
                        .get_type()
                        .name()
                        .map_or_else(|_| "?".into(), |n| n.to_string())
                )),
            )
        })?;
        for item in items {
            let item = item.map_err(|e| ("schedule()", e))?;
            let seq = match item.cast::<Job>() {
                Ok(j) => j.get().id,
                Err(_) => match integer(&item) {
                    Some(seq) => seq,
                    None => {
                        return Ok(Err(format!(
                            "schedule() returned {item}, which is not a Job or a job id"
                        )));
                    }
                },
            };
            // By a binary search in submission order; by a scan for a policy under
            // `limits`, which gets its jobs in the order it releases them.
            let Some(job) = v.queue().find(seq) else {
                return Ok(Err(format!(
                    "started job {seq}, which is not waiting (not submitted yet, already \
                     started, or not a job)"
                )));
            };
            if seen.contains(&seq) {
                return Ok(Err(format!("started job {seq} twice in one pass")));
            }
            if job.size > free {
                return Ok(Err(format!(
                    "started job {seq} of {} processors with only {free} free (after the \
                     jobs before it in this pass)",
                    job.size
                )));
            }
            free -= job.size;
            seen.push(seq);
            starts.push(job.id);
        }
        if self.hooks.wake_at {
            let wake = self
                .obj
                .bind(py)
                .call_method0("wake_at")
                .map_err(|e| ("wake_at()", e))?;
            self.wake = if wake.is_none() {
                None
            } else {
                match integer(&wake) {
                    Some(t) => Some(t),
                    None => {
                        return Ok(Err(format!(
                            "wake_at() returned {wake}, which is not a time in seconds (an \
                             integer) or None"
                        )));
                    }
                }
            };
        }
        Ok(Ok(()))
    }

    /// Calls the hook `name(job, now)`; an exception ends the run.
    fn hook(&mut self, py: Python<'_>, name: &str, job: PyResult<Py<Job>>, now: Time) {
        let called = job.and_then(|j| self.obj.bind(py).call_method1(name, (j, now)));
        if let Err(e) = called {
            self.raised(py, &format!("{name}()"), e);
        }
    }
}

impl Clone for PyScheduler {
    /// A deep copy, its state included (an adaptive scheduler's candidates).
    fn clone(&self) -> Self {
        let copied = host::call(|py| {
            let mut s = PyScheduler {
                name: self.name.clone(),
                obj: self.obj.clone_ref(py),
                hooks: self.hooks,
                jobs: Mutex::new(Jobs(
                    self.jobs
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                        .iter()
                        .map(|(k, v)| (*k, v.clone_ref(py)))
                        .collect(),
                )),
                fault: self.fault.clone(),
                error: self.error.clone(),
                wake: self.wake,
            };
            match deepcopy(py, &self.obj) {
                Ok(obj) => s.obj = obj,
                Err(e) => s.raised(py, "copy.deepcopy of the scheduler", e),
            }
            s
        });
        copied
            .unwrap_or_else(|| PyScheduler::stopped(&self.name, &self.obj, self.hooks, &self.error))
    }
}

impl Scheduler for PyScheduler {
    fn name(&self) -> &str {
        &self.name
    }

    fn sync(&mut self, view: &SystemView<'_>) {
        if self.fault.is_some() {
            return;
        }
        let called = host::call(|py| {
            self.jobs
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .0
                .clear();
            if self.hooks.sync {
                let r = self.view(py, view).and_then(|(v, pass)| {
                    let called = self.obj.bind(py).call_method1("sync", (v,)).map(drop);
                    pass.end();
                    called
                });
                if let Err(e) = r {
                    self.raised(py, "sync()", e);
                }
            }
        });
        if called.is_none() {
            self.fault = Some(STOPPED.into());
        }
    }

    fn on_submit(&mut self, job: &JobRequest, view: &SystemView<'_>) {
        if self.hooks.on_submit && self.fault.is_none() {
            let called = host::call(|py| {
                let j = self.job(py, job);
                self.hook(py, "on_submit", j, view.now);
            });
            if called.is_none() {
                self.fault = Some(STOPPED.into());
            }
        }
    }

    fn on_end(&mut self, job: &RunningJob, view: &SystemView<'_>) {
        let known = self
            .jobs
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .0
            .remove(&job.request.seq);
        if self.hooks.on_end && self.fault.is_none() {
            let called = host::call(|py| {
                let j = known.map_or_else(|| Py::new(py, Job::of(&job.request)), Ok);
                self.hook(py, "on_end", j, view.now);
            });
            if called.is_none() {
                self.fault = Some(STOPPED.into());
            }
        }
    }

    /// Calls `schedule(view)` when a waiting job fits in the free processors (no other
    /// pass can start anything).
    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        if self.fault.is_some() || !view.queue().iter().any(|j| j.size <= view.free) {
            return;
        }
        let called = host::call(|py| match self.pass(py, view, starts) {
            Ok(Ok(())) => {}
            Ok(Err(rule)) => {
                starts.clear();
                self.fault = Some(rule);
            }
            Err((callback, e)) => {
                starts.clear();
                self.raised(py, callback, e);
            }
        });
        if called.is_none() {
            starts.clear();
            self.fault = Some(STOPPED.into());
        }
    }

    fn wake_at(&self) -> Option<Time> {
        self.wake
    }

    fn fault(&self) -> Option<String> {
        self.fault.clone()
    }
}
