//! sitesim: a closed-loop, site-level simulator for parallel job scheduling on HPC
//! machines.
//!
//! The layers follow `docs/ARCHITECTURE.md`: [`engine`] (clock, event queue, run loop),
//! [`swf`] (the Standard Workload Format), [`job`] (job records), [`sched`] (the
//! `Scheduler` trait and the policies), [`sim`] (a site: workload + scheduler + machine),
//! [`predict`] (estimate models and runtime predictors), [`users`] (simulated users),
//! [`workload`] (logs turned into workloads), [`metrics`] (observers and summaries) and
//! [`experiment`] (commands that run and report); [`session`] (the think-time session
//! rule), [`localtime`] (the site's clock), [`time`] and [`textfmt`] are small helpers.

pub mod engine;
pub mod experiment;
pub mod job;
pub mod localtime;
pub mod metrics;
pub mod model;
pub mod plot;
pub mod predict;
pub mod sched;
pub mod seed;
pub mod session;
pub mod sim;
pub mod swf;
pub mod textfmt;
pub mod time;
pub mod users;
pub mod workload;
