//! One module per command that runs or reads a log or a model: its options, its run and
//! its terminal summary (`replay`, `feedback`, `resample`, `model`, `calibrate`, `fit`,
//! `analyze`, `estimates`, `export`, `generate`), and the options document they share
//! (`options`: each group of options one struct, both flags and scenario keys). A
//! scenario (`crate::experiment`) runs them; they write through `crate::results`.

pub mod analyze;
pub mod calibrate;
pub mod estimates;
pub mod export;
pub mod feedback;
pub mod fit;
pub mod generate;
pub mod model;
pub mod options;
pub mod replay;
pub mod resample;
