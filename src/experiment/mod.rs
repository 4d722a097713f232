//! An experiment and a scenario: the TOML scenario (`scenario`), the one executor of a
//! scenario's single run or replications (`run`), and the plan, runs, resumption and
//! capacity search of an `[experiment]` (`study`).

pub mod run;
pub mod scenario;
pub mod study;
