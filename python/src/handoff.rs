//! Waiting for a message from another thread: spun for while spinning wins, else slept
//! for. The gym's environment and its simulation hand each decision back and forth, and
//! a Python scheduler's callbacks cross to the interpreter's thread and back ([`super::host`]).

use std::sync::mpsc::{Receiver, RecvError, TryRecvError};
use std::time::{Duration, Instant};

/// How long a side waits for the other by spinning before it sleeps, while spinning
/// wins: a decision and its action then cross between the threads in well under a
/// microsecond instead of the tens a sleeping thread takes to wake.
const SPIN: Duration = Duration::from_micros(200);
/// How long a side that has lost spins once every [`PROBE_EVERY`] hand-offs, to learn
/// whether the other side runs on a core of its own again.
const PROBE: Duration = Duration::from_micros(20);
/// Hand-offs between two probes.
const PROBE_EVERY: u32 = 64;

/// One side's waiting for the other. Spinning wins only while the other side runs at the
/// same time on another core; when it shares this one (two environments on one core,
/// more environments than cores), every spin is lost time, so after a spin that failed
/// the side sleeps at once, and tries a short spin only now and then.
#[derive(Debug)]
pub struct Handoff {
    /// Whether the latest spin found the message.
    winning: bool,
    /// Hand-offs since the latest spin.
    since_spin: u32,
}

impl Default for Handoff {
    /// A side starts by spinning, as if it had won.
    fn default() -> Self {
        Handoff {
            winning: true,
            since_spin: 0,
        }
    }
}

impl Handoff {
    /// The next message of `rx`: spun for while spinning wins, then waited for by
    /// `block` (`Receiver::recv`, or a wait with a timeout).
    pub fn receive<T, E: From<RecvError>>(
        &mut self,
        rx: &Receiver<T>,
        block: impl FnOnce(&Receiver<T>) -> Result<T, E>,
    ) -> Result<T, E> {
        let budget = if self.winning {
            SPIN
        } else if self.since_spin >= PROBE_EVERY {
            PROBE
        } else {
            Duration::ZERO
        };
        if budget.is_zero() {
            self.since_spin += 1;
        } else {
            self.since_spin = 0;
            let since = Instant::now();
            loop {
                match rx.try_recv() {
                    Ok(v) => {
                        self.winning = true;
                        return Ok(v);
                    }
                    Err(TryRecvError::Disconnected) => return Err(RecvError.into()),
                    Err(TryRecvError::Empty) if since.elapsed() > budget => break,
                    Err(TryRecvError::Empty) => std::hint::spin_loop(),
                }
            }
        }
        self.winning = false;
        block(rx)
    }
}
