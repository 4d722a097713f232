//! sitesim's workloads and users, the middle of the layers of `docs/ARCHITECTURE.md`, on
//! `sitesim-core` (whose modules it re-exports, so that a path is the same in every
//! crate): [`metrics`] (observers and summaries) and [`workload`] (logs turned into jobs
//! and per-user streams); [`users`] (simulated users and the closed-loop sources that
//! drive them); [`model`] (the model-based site). It knows nothing of results folders,
//! commands or scenarios: the `sitesim` crate above it does.

pub use sitesim_core::{
    adaptive, alloc, engine, job, localtime, model_files, options, plot, predict, registry, sched,
    seed, session, sim, spec, swf, textfmt, time,
};

pub mod metrics;
pub mod model;
pub mod users;
pub mod workload;
