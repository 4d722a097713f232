//! sitesim: a closed-loop, site-level simulator for parallel job scheduling on HPC
//! machines.
//!
//! The layers follow `docs/ARCHITECTURE.md`, in three crates whose dependencies are the
//! layers' (an upward import is a compile error): `sitesim-core`, `sitesim-users` and this
//! one, which re-exports the modules of the two below, so that a path is the same
//! everywhere. From the bottom: [`time`], [`textfmt`], [`options`],
//! [`seed`] (small helpers) and [`model_files`] (the model files built into the binary);
//! [`swf`] (the Standard Workload Format), [`engine`] (clock, event queue, run loop),
//! [`session`] (the think-time session rule) and [`localtime`] (the site's clock); [`job`]
//! (job records); [`sched`] (the `Scheduler` trait and the policies) and [`predict`]
//! (estimate models and runtime predictors); [`sim`] (a site: workload + scheduler +
//! machine); [`adaptive`] (the adaptive meta-schedulers, which simulate their
//! candidates); [`registry`] (policies by name); [`metrics`] (observers and summaries)
//! and [`workload`] (logs turned into jobs and per-user streams); [`users`] (simulated
//! users and the closed-loop sources that drive them); [`model`] (the model-based site);
//! [`report`] (charts and pages); [`experiment`] (each command's code, and the one-way
//! pipeline of an experiment: scenario, plan, runs, records, summary, report); [`cli`]
//! (the command line). A module uses only modules of its own layer or below.

pub use sitesim_users::{
    adaptive, alloc, engine, job, localtime, metrics, model, model_files, options, plot, predict,
    registry, sched, seed, session, sim, spec, swf, textfmt, time, users, workload,
};

pub mod cli;
pub mod commands;
pub mod experiment;
pub mod report;
pub mod results;
