//! Commands that run simulations and write their results.

pub mod feedback;
pub mod fit;
pub mod model;
pub mod output;
pub mod replay;
pub mod resample;
pub mod scenario;
