//! sitesim: a closed-loop, site-level simulator for parallel job scheduling on HPC
//! machines.
//!
//! The layers follow `docs/ARCHITECTURE.md`, from the bottom: [`time`], [`textfmt`], [`options`],
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
//! (the command line). A module uses only modules of its own layer or below
//! (`tests/layers.rs` checks it).

pub mod adaptive;
pub mod cli;
pub mod commands;
pub mod engine;
pub mod experiment;
pub mod job;
pub mod localtime;
pub mod metrics;
pub mod model;
pub mod model_files;
pub mod options;
pub mod plot;
pub mod predict;
pub mod registry;
pub mod report;
pub mod results;
pub mod sched;
pub mod seed;
pub mod session;
pub mod sim;
pub mod spec;
pub mod swf;
pub mod textfmt;
pub mod time;
pub mod users;
pub mod workload;
