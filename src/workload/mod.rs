//! Turning logs into workloads: open-loop replay, questionable-job policies, and a
//! synthetic log for benchmarks.

pub mod questionable;
mod replay;
mod synthetic;

pub use replay::{LogReplay, ReplayConfig};
pub use synthetic::{Synthetic, SyntheticConfig, SyntheticModel};
