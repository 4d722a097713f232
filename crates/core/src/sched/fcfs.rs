//! First come, first served: start jobs in submission order while the first one fits.

use super::{Scheduler, SystemView};
use crate::job::JobId;

/// First come, first served without backfilling (Mu'alem and Feitelson 2001, §2).
#[derive(Debug, Clone, Copy, Default)]
pub struct Fcfs;

impl Scheduler for Fcfs {
    fn name(&self) -> &str {
        "fcfs"
    }

    fn sync(&mut self, _view: &SystemView<'_>) {}

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let mut free = view.free;
        for job in view.queue() {
            if job.size > free {
                break;
            }
            free -= job.size;
            starts.push(job.id);
        }
    }
}
