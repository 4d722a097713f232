//! A new scheduling policy in a few dozen lines, registered by name and run on any
//! scenario.
//!
//! "fair-start" starts waiting jobs in order of how many jobs their user already runs
//! (fewest first, then submission order), while they fit; the first that does not fit
//! blocks the rest, as in FCFS. Its parameter `max_running` caps the jobs one user may
//! run at once. It reads only the public scheduler API: the queue, the free processors
//! and each user's session state in the [`SystemView`].
//!
//! ```text
//! cargo run --release --example custom_policy -- scenarios/default.toml
//! cargo run --release --example custom_policy -- my-scenario.toml "fair-start:max_running=2"
//! ```
//! The first runs the scenario under its own policy and under fair-start, side by side;
//! a scenario file may also name `fair-start` anywhere a policy goes (`[scheduler]`,
//! `[experiment] schedulers`) once the program that reads it has registered the policy.

use std::sync::atomic::AtomicBool;

use sitesim::experiment::scenario::Scenario;
use sitesim::job::JobId;
use sitesim::registry::register;
use sitesim::sched::{Scheduler, SystemView, builder};

/// The policy: stateless, so `Clone` and an empty `sync` are all adaptive schedulers need.
#[derive(Debug, Clone)]
struct FairStart {
    max_running: u32,
}

impl Scheduler for FairStart {
    fn name(&self) -> &str {
        "fair-start"
    }

    fn sync(&mut self, _view: &SystemView<'_>) {}

    fn schedule(&mut self, view: &SystemView<'_>, starts: &mut Vec<JobId>) {
        let mut order: Vec<_> = view.queue().iter().collect();
        order.sort_by_key(|j| (view.user(j.user).running, j.seq));
        let mut free = view.free;
        let mut started_by: Vec<(i64, u32)> = Vec::new();
        for job in order {
            let already = started_by
                .iter()
                .find(|(u, _)| *u == job.user)
                .map_or(0, |s| s.1);
            if view.user(job.user).running + already >= self.max_running {
                continue;
            }
            if job.size > free {
                break;
            }
            free -= job.size;
            starts.push(job.id);
            match started_by.iter_mut().find(|(u, _)| *u == job.user) {
                Some(s) => s.1 += 1,
                None => started_by.push((job.user, 1)),
            }
        }
    }
}

fn main() -> Result<(), String> {
    register(
        "fair-start",
        "users with the fewest running jobs first, FCFS blocking (max_running)",
        |params| {
            let max_running = params.f64("max_running", 4.0)?;
            if !(max_running >= 1.0 && max_running.fract() == 0.0) {
                return Err("fair-start: max_running must be a whole number of 1 or more".into());
            }
            let max_running = max_running as u32;
            Ok(builder(move |_ctx| FairStart { max_running }))
        },
    );
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "scenarios/default.toml".into());
    let policy = args.next().unwrap_or_else(|| "fair-start".into());
    let (scenario, _) = Scenario::load(std::path::Path::new(&path))?;
    let mut ours = scenario.clone();
    ours.scheduler.policy = policy.parse()?;
    // A policy of our own cannot plan with the scenario's predictor unless it says so;
    // fair-start does not look at plans at all, so the predictor is harmless.
    for s in [&scenario, &ours] {
        println!("== {} under {}", path, s.scheduler.policy);
        let summary = s.run(&AtomicBool::new(false), &|| {})?;
        print!("{}", summary.render());
    }
    Ok(())
}
