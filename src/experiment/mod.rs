//! Commands that run simulations and write their results.

pub mod output;
pub mod replay;
pub mod scenario;
