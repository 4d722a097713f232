//! sitesim's core, the bottom of the layers of `docs/ARCHITECTURE.md`: [`time`],
//! [`textfmt`], [`options`], [`seed`], [`spec`], [`plot`] (small helpers, option readers,
//! the one spec syntax, charts) and [`model_files`] (the model files built into the
//! binary); [`engine`] (clock, event queue, run loop), [`session`] (the think-time session
//! rule), [`localtime`] (the site's clock) and [`alloc`] (the processors each job held); [`job`] (job records); [`sched`] (the
//! `Scheduler` trait and the policies) and [`predict`] (estimate models and runtime
//! predictors); [`sim`] (a site: workload + scheduler + machine); [`adaptive`] (the
//! adaptive meta-schedulers, which simulate their candidates); [`registry`] (policies by
//! name); [`swf`] (the Standard Workload Format). It knows nothing of users, workloads
//! or commands: the crates above it (`sitesim-users`, `sitesim`) do.

pub mod adaptive;
pub mod alloc;
pub mod engine;
pub mod job;
pub mod localtime;
pub mod model_files;
pub mod options;
pub mod plot;
pub mod predict;
pub mod registry;
pub mod sched;
pub mod seed;
pub mod session;
pub mod sim;
pub mod spec;
pub mod swf;
pub mod textfmt;
pub mod time;
