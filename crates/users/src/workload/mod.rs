//! Turning logs into workloads: open-loop replay, questionable-job policies, logs split
//! into users (`trace`) and replayed with feedback, resampled populations of those users
//! (`pools`, `population`), and a synthetic log for benchmarks.

pub mod peak;
pub mod questionable;
mod replay;
mod synthetic;
pub mod trace;

pub use replay::{Admitted, LogReplay, ReplayConfig};
pub use synthetic::{Synthetic, SyntheticConfig, SyntheticModel};
