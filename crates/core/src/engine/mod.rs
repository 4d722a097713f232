//! The discrete-event engine: the simulated clock, the event queue and the run loop.
//!
//! The engine knows nothing of jobs, users or schedulers. A [`Model`] handles the events it
//! scheduled for itself and is told when a timestamp is complete. The run loop applies
//! *every* event of a timestamp first and only then calls [`Model::settle`] once, which is
//! where a site model runs its single scheduling pass (DESIGN.md, "Invariants"). If settling
//! schedules new events at the same timestamp (a job of zero runtime ends the moment it
//! starts), the loop applies them and settles again before the clock moves on.

mod queue;

use std::sync::atomic::{AtomicBool, Ordering};

pub use queue::{EventQueue, Phase};

use crate::time::Time;

/// Set to abandon every run in the process: the run loop stops at its next check.
static ABANDON: AtomicBool = AtomicBool::new(false);

/// Rounds between two looks at [`ABANDON`]: a few microseconds of simulation.
const ABANDON_CHECK: u64 = 256;

/// Abandons every run in the process: each stops within [`ABANDON_CHECK`] rounds, its
/// [`RunCounts::abandoned`] set. Ctrl-C does this (the command line's and Python's), so
/// that even one long run stops at once; results writers and log readers look too
/// ([`abandoned`]).
pub fn abandon_runs() {
    ABANDON.store(true, Ordering::Relaxed);
}

/// Whether the runs of the process have been abandoned ([`abandon_runs`]): work that is
/// not a simulation (writing a generated log, reading a long one) stops too.
pub fn abandoned() -> bool {
    ABANDON.load(Ordering::Relaxed)
}

/// Lets runs go to their end again, before a host runs its next call.
pub fn clear_abandon() {
    ABANDON.store(false, Ordering::Relaxed);
}

/// A simulation driven by the engine.
pub trait Model {
    /// What an event carries.
    type Event;
    /// Why a run stops early.
    type Error;

    /// Applies one event at time `now`; may schedule further events at or after `now`.
    fn handle(
        &mut self,
        now: Time,
        event: Self::Event,
        queue: &mut EventQueue<Self::Event>,
    ) -> Result<(), Self::Error>;

    /// Called once all events at `now` have been applied.
    fn settle(&mut self, now: Time, queue: &mut EventQueue<Self::Event>)
    -> Result<(), Self::Error>;
}

/// Counters of one run of the engine.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RunCounts {
    /// Events applied.
    pub events: u64,
    /// Calls to [`Model::settle`] (distinct timestamps, plus repeated rounds).
    pub rounds: u64,
    /// The run stopped before its end because runs were abandoned ([`abandon_runs`]).
    pub abandoned: bool,
}

/// Runs `model` until no event is left, or until the next event would be later than
/// `horizon` (events at the horizon itself are still applied), or until runs are
/// abandoned ([`abandon_runs`]).
pub fn run<M: Model>(
    model: &mut M,
    queue: &mut EventQueue<M::Event>,
    horizon: Option<Time>,
) -> Result<RunCounts, M::Error> {
    let mut counts = RunCounts::default();
    while let Some(now) = queue.peek_time() {
        if horizon.is_some_and(|h| now > h) {
            break;
        }
        while queue.peek_time() == Some(now) {
            let (_, event) = queue.pop().expect("peeked event");
            model.handle(now, event, queue)?;
            counts.events += 1;
        }
        model.settle(now, queue)?;
        counts.rounds += 1;
        if counts.rounds % ABANDON_CHECK == 0 && ABANDON.load(Ordering::Relaxed) {
            counts.abandoned = true;
            break;
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what it saw; an event `n > 0` at time t schedules `n - 1` at t + 0 when
    /// settling, to exercise repeated rounds at one timestamp.
    #[derive(Default)]
    struct Recorder {
        log: Vec<String>,
        pending: Vec<u32>,
    }

    impl Model for Recorder {
        type Event = u32;
        type Error = ();
        fn handle(&mut self, now: Time, ev: u32, _: &mut EventQueue<u32>) -> Result<(), ()> {
            self.log.push(format!("{now}:e{ev}"));
            if ev > 0 {
                self.pending.push(ev - 1);
            }
            Ok(())
        }
        fn settle(&mut self, now: Time, q: &mut EventQueue<u32>) -> Result<(), ()> {
            self.log.push(format!("{now}:settle"));
            for ev in self.pending.drain(..) {
                q.push(now, 0, ev);
            }
            Ok(())
        }
    }

    #[test]
    fn all_events_of_a_timestamp_come_before_one_settle() {
        let mut m = Recorder::default();
        let mut q = EventQueue::new();
        q.push(1, 0, 0);
        q.push(2, 0, 0);
        q.push(1, 0, 0);
        let counts = run(&mut m, &mut q, None).unwrap();
        assert_eq!(m.log, ["1:e0", "1:e0", "1:settle", "2:e0", "2:settle"]);
        assert_eq!(
            counts,
            RunCounts {
                events: 3,
                rounds: 2,
                abandoned: false
            }
        );
    }

    #[test]
    fn events_scheduled_at_now_get_another_round() {
        let mut m = Recorder::default();
        let mut q = EventQueue::new();
        q.push(7, 0, 2);
        run(&mut m, &mut q, None).unwrap();
        assert_eq!(
            m.log,
            ["7:e2", "7:settle", "7:e1", "7:settle", "7:e0", "7:settle"]
        );
    }

    #[test]
    fn horizon_stops_before_later_events() {
        let mut m = Recorder::default();
        let mut q = EventQueue::new();
        q.push(1, 0, 0);
        q.push(5, 0, 0);
        q.push(6, 0, 0);
        run(&mut m, &mut q, Some(5)).unwrap();
        assert_eq!(m.log, ["1:e0", "1:settle", "5:e0", "5:settle"]);
        assert_eq!(q.peek_time(), Some(6));
    }
}
