//! Python callbacks on the interpreter's own thread, so that Ctrl-C reaches them.
//!
//! CPython runs signal handlers only in the main thread, between bytecodes or when a
//! blocking call there is interrupted. A run goes on in threads of its own (rayon's pool
//! for replications, a thread per call otherwise), and a scheduler's `schedule()` that
//! loops or sleeps in one of them could not be stopped. So while a call runs, the
//! thread that made it (the host) waits for callbacks ([`call`]), runs each with the
//! GIL and hands the result back: a loop or a `time.sleep` in a callback then runs where
//! Ctrl-C raises `KeyboardInterrupt`, and between callbacks the host looks for a pending
//! signal every 100 ms ([`Host::serve`]).
//!
//! A callback made where no call is hosted (a gym episode's thread, a scheduler built
//! outside a run) runs where it is made.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender, channel, sync_channel};
use std::sync::{Mutex, PoisonError};
use std::thread::ThreadId;
use std::time::Duration;

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

use crate::handoff::Handoff;

/// How often a host with nothing to run looks for a pending signal (Ctrl-C).
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// A callback waiting to run on the host: a pointer to a closure on the stack of the
/// thread that made it, which waits for `done` (sent once the closure has run) before
/// its stack frame goes. A request dropped unrun drops `done`, and the caller runs the
/// closure itself.
struct Request {
    task: *mut (dyn FnMut() + Send),
    done: SyncSender<()>,
}

// SAFETY: the closure is `Send`, and the thread that made it blocks until `done` is sent
// or dropped, so it outlives every use of the pointer on the host.
unsafe impl Send for Request {}

/// What a host receives.
enum Message {
    Call(Request),
    /// The call's run has ended.
    Finished,
}

/// The hosts of the calls now running, the latest last: each is the thread that waits
/// and where its callbacks go.
static HOSTS: Mutex<Vec<(ThreadId, Sender<Message>)>> = Mutex::new(Vec::new());

thread_local! {
    /// How this thread waits for its callbacks to run on the host.
    static WAITING: RefCell<Handoff> = RefCell::new(Handoff::default());
}

/// `KeyboardInterrupt` that a callback raised on its host, for the host to raise again.
static INTERRUPTED: Mutex<Option<PyErr>> = Mutex::new(None);

/// Set once a host has been interrupted (Ctrl-C), until the next call: no callback runs
/// any more (one that loops or sleeps would hold the stopping call).
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Runs `f` with the GIL on the host of the running call, or here if there is none (or
/// this is it); `None`, without running it, once the call is stopping at Ctrl-C. `f`
/// must not call into the host again.
pub fn call<R: Send>(f: impl FnOnce(Python<'_>) -> R + Send) -> Option<R> {
    if STOPPING.load(Ordering::Relaxed) {
        return None;
    }
    let me = std::thread::current().id();
    let host = HOSTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .last()
        .filter(|(id, _)| *id != me)
        .map(|(_, tx)| tx.clone());
    let mut f = Some(f);
    let mut out = None;
    if let Some(host) = host {
        let mut task = || {
            if let Some(f) = f.take() {
                out = Some(Python::attach(f));
            }
        };
        let task: &mut (dyn FnMut() + Send + '_) = &mut task;
        // SAFETY: the lifetime is erased for the trip to the host; this thread waits below
        // until the host has run the closure or dropped the request unrun, so the
        // closure and what it borrows outlive every use of the pointer.
        let task: *mut (dyn FnMut() + Send + 'static) = unsafe { std::mem::transmute(task) };
        let (done, ran) = sync_channel(1);
        if host.send(Message::Call(Request { task, done })).is_ok() {
            let _ = WAITING.with_borrow_mut(|w| w.receive(&ran, Receiver::recv));
        }
    }
    match (out, f) {
        (Some(out), _) => Some(out),
        // Refused by a stopping host: not run at all.
        (None, Some(_)) if STOPPING.load(Ordering::Relaxed) => None,
        // No host, or one that left: run here.
        (None, Some(f)) => Some(Python::attach(f)),
        (None, None) => unreachable!("a callback taken is run to its end"),
    }
}

/// A callback raised `e`: if it is `KeyboardInterrupt`, the host stops the call.
pub fn note_interrupt(py: Python<'_>, e: &PyErr) {
    if e.is_instance_of::<PyKeyboardInterrupt>(py) {
        let mut slot = INTERRUPTED.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(e.clone_ref(py));
        }
    }
}

/// This thread as the host of a call, from [`Host::new`] until it is dropped.
pub struct Host {
    me: ThreadId,
    /// In a mutex only to be shared with the GIL released; only this thread receives.
    rx: Mutex<(Receiver<Message>, Handoff)>,
    tx: Sender<Message>,
}

impl Host {
    /// Makes this thread the host of callbacks until dropped.
    pub fn new() -> Self {
        STOPPING.store(false, Ordering::Relaxed);
        let (tx, rx) = channel();
        let me = std::thread::current().id();
        HOSTS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((me, tx.clone()));
        Host {
            me,
            rx: Mutex::new((rx, Handoff::default())),
            tx,
        }
    }

    /// What the run's thread sends when it ends: a sender of [`Host::finished`].
    pub fn finisher(&self) -> impl FnOnce() + Send + use<> {
        let tx = self.tx.clone();
        move || {
            let _ = tx.send(Message::Finished);
        }
    }

    /// Runs callbacks until the run ends; `interrupted` is called once, with the
    /// exception, when a signal handler or a callback raises (Ctrl-C), and the run is
    /// then waited for as it stops.
    pub fn serve(&self, py: Python<'_>, mut interrupted: impl FnMut(PyErr)) {
        let mut stopping = false;
        loop {
            let message = py.detach(|| {
                let mut rx = self.rx.lock().unwrap_or_else(PoisonError::into_inner);
                let (rx, handoff) = &mut *rx;
                handoff.receive(rx, |rx| rx.recv_timeout(SIGNAL_CHECK))
            });
            match message {
                Ok(Message::Finished) | Err(RecvTimeoutError::Disconnected) => return,
                // Stopping: the request is dropped unrun, and its caller runs nothing.
                Ok(Message::Call(request)) if stopping => drop(request),
                Ok(Message::Call(request)) => {
                    // SAFETY: see `Request`: the closure is alive until `done` is sent.
                    unsafe { (*request.task)() };
                    let _ = request.done.send(());
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if stopping {
                continue;
            }
            let raised = INTERRUPTED
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(e) = raised.or_else(|| py.check_signals().err()) {
                stopping = true;
                STOPPING.store(true, Ordering::Relaxed);
                interrupted(e);
            }
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        STOPPING.store(false, Ordering::Relaxed);
        let mut hosts = HOSTS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = hosts.iter().rposition(|(id, _)| *id == self.me) {
            hosts.remove(at);
        }
        // Requests sent before the host left go with its receiver, unrun: their callers
        // run them.
    }
}
