//! Commands that run simulations and write their results.

pub mod calibrate;
pub mod feedback;
pub mod fit;
pub mod model;
pub mod output;
pub mod replay;
pub mod report;
pub mod resample;
pub mod results;
pub mod scenario;
pub mod study;
