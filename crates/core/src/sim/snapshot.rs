//! The machine state at one time, as a scheduler sees it: what a simulation can start
//! from instead of an empty machine ([`Simulation::from_snapshot`](super::Simulation::from_snapshot)).

use crate::job::JobRequest;
use crate::sched::{RunningJob, SystemView, UserTable};
use crate::time::Time;

/// The machine state at a time, copied from a view: the jobs waiting, the jobs running
/// (with their starts and plans) and every user's session state.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// When it was taken.
    pub time: Time,
    /// The waiting jobs, in submission order.
    pub queue: Vec<JobRequest>,
    /// The running jobs, in no particular order.
    pub running: Vec<RunningJob>,
    /// Every user's session state.
    pub users: UserTable,
}

impl Snapshot {
    /// An empty machine at `time`.
    pub fn empty(time: Time) -> Self {
        Snapshot {
            time,
            queue: Vec::new(),
            running: Vec::new(),
            users: UserTable::new(),
        }
    }

    /// The state `view` shows (its users [frozen](UserTable::frozen), so that copies of the
    /// snapshot are cheap).
    pub fn of(view: &SystemView<'_>) -> Self {
        Snapshot {
            time: view.now,
            queue: view.queue().iter().copied().collect(),
            running: view.running().to_vec(),
            users: view.users().frozen(),
        }
    }
}
