//! Commands that run simulations and write their results.

pub mod analyze;
pub mod calibrate;
pub mod estimates;
pub mod export;
pub mod feedback;
pub mod fit;
pub mod generate;
pub mod metric;
pub mod model;
pub mod output;
pub mod replay;
pub mod replicate;
pub mod report;
pub mod resample;
pub mod results;
pub mod run;
pub mod scenario;
pub mod study;
pub mod summary;
pub mod terminal;
