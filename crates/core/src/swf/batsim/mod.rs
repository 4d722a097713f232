//! Batsim JSON workloads, read as logs and written from them.
//!
//! Batsim (Dutot et al. 2016; documentation: <https://batsim.readthedocs.io>, "Workload")
//! reads a workload as one JSON object: `nb_res`, the machine's number of resources;
//! `jobs`, each with a unique `id`, a submission time `subtime` (seconds), a number of
//! resources `res`, an optional `walltime` (seconds; absent or -1: never killed) and the
//! name of its `profile`; and `profiles`, a map from names to what a job does. The only
//! profile a log can describe is a delay: the job holds its resources for `delay`
//! seconds. Batsim ignores every other key of a job or of the workload, so the SWF fields
//! Batsim has no place for travel in each job's `extra_data`.
//!
//! The delay profile's type is spelt two ways:
//!
//! - `"delay"`: Batsim 4 and earlier, and what Batsim's own converter
//!   (`tools/swf_to_batsim_workload_delay.py` in the Batsim repository) writes; the
//!   workload loader of Batsim's batprotocol-era source (`src/profiles.cpp`) still reads
//!   this name;
//! - `"DelayProfile"`: the name of the delay profile in batprotocol, the protocol of
//!   Batsim 5 (its FlatBuffers schema's `table DelayProfile { delay: float64; }`).
//!
//! Both are read; [`ProfileStyle`] chooses which one is written.
//!
//! What sitesim writes and reads back:
//!
//! | Batsim | SWF field |
//! |---|---|
//! | `id` | the job's position in the workload, from 1 (unique, as Batsim requires) |
//! | `subtime` | 2, submit time |
//! | `res` | 5, allocated processors (8, requested, when 5 is unknown) |
//! | `walltime` | 9, requested time (absent when unknown) |
//! | `profile` | the delay profile of field 4, run time: one profile per distinct runtime, named by its seconds, as Batsim's converter shares them |
//! | `extra_data` | every other known field, by its SWF name in snake case ([`EXTRA_FIELDS`]) |
//!
//! sitesim also writes `description` and `swf_header` (the log's header lines, so that its
//! time zone and start time come back). Every number is written as an integer: SWF times
//! are whole seconds. Read back, `subtime`, `res` (as the allocated processors), the
//! delay and `walltime` (absent or -1: unknown) are what Batsim would run; the other
//! fields come from `extra_data`, an absent key being unknown (-1), and the job number,
//! without one there, is the `id` if it is a whole number, else the job's position.
//! Batsim does not require jobs in submission order; they are sorted by `subtime`, as
//! an SWF log is. Times and sizes must be whole numbers: a fractional `subtime`, `res`,
//! `walltime` or delay is an error, as is a job whose profile is missing or is not a
//! delay.

mod read;
mod write;

pub use read::{looks_like_json, read_workload};
pub use write::{BatsimExport, Skipped};

/// How the delay profile's type is spelt in a written workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileStyle {
    /// `"type": "delay"`, Batsim 4 (and Batsim's own SWF converter).
    Batsim4,
    /// `"type": "DelayProfile"`, the name batprotocol (Batsim 5) gives it.
    Batsim5,
}

impl ProfileStyle {
    /// The profile type written.
    pub fn delay_type(self) -> &'static str {
        match self {
            ProfileStyle::Batsim4 => DELAY_4,
            ProfileStyle::Batsim5 => DELAY_5,
        }
    }
}

/// Batsim 4's name of the delay profile type.
/// The bound on a workload's whole numbers (times in seconds, resources): its numbers are
/// read as doubles, which hold every whole number exactly only below 2^53 (about
/// 9.007e15). Values from this bound up are refused by the reader, so the writer leaves
/// out the jobs that reach it and refuses a machine that does.
const LARGEST: i64 = 9_000_000_000_000_000;

const DELAY_4: &str = "delay";
/// Batsim 5's (batprotocol's) name of the delay profile type.
const DELAY_5: &str = "DelayProfile";

/// The SWF fields kept in `extra_data`: 0-based field index and key (the field's name in
/// [`super::FIELD_NAMES`], lower case, words joined by `_`). Fields 2 (submit), 4 (run),
/// 5 (allocated processors) and 9 (requested time) are Batsim's own `subtime`, `profile`,
/// `res` and `walltime`.
pub const EXTRA_FIELDS: [(usize, &str); 14] = [
    (0, "job_number"),
    (2, "wait_time"),
    (5, "average_cpu_time"),
    (6, "used_memory"),
    (7, "requested_processors"),
    (9, "requested_memory"),
    (10, "status"),
    (11, "user_id"),
    (12, "group_id"),
    (13, "executable_number"),
    (14, "queue_number"),
    (15, "partition_number"),
    (16, "preceding_job_number"),
    (17, "think_time"),
];

#[cfg(test)]
mod tests {
    use super::super::FIELD_NAMES;
    use super::*;

    #[test]
    fn extra_keys_are_the_swf_field_names() {
        for (i, key) in EXTRA_FIELDS {
            assert_eq!(key, FIELD_NAMES[i].to_lowercase().replace(' ', "_"));
        }
    }
}
