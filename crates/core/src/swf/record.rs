//! One job record of the Standard Workload Format (SWF, version 2.2 of the Parallel
//! Workloads Archive): 18 whitespace-separated fields, `-1` meaning "unknown".

use crate::time::LONGEST;

/// The 18 fields of an SWF job line, in file order. Fields 6, 7 and 10 may be fractional in
/// some logs; every other field is an integer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwfRecord {
    /// 1. Job number.
    pub job: i64,
    /// 2. Submit time, seconds from the start of the log.
    pub submit: i64,
    /// 3. Wait time in seconds.
    pub wait: i64,
    /// 4. Run time in seconds (wall clock).
    pub run: i64,
    /// 5. Number of allocated processors.
    pub alloc_procs: i64,
    /// 6. Average CPU time used per processor, seconds.
    pub avg_cpu: f64,
    /// 7. Used memory per processor, kilobytes.
    pub used_mem: f64,
    /// 8. Requested number of processors.
    pub req_procs: i64,
    /// 9. Requested time: the user's runtime estimate, seconds.
    pub req_time: i64,
    /// 10. Requested memory per processor, kilobytes.
    pub req_mem: f64,
    /// 11. Status: 1 completed, 0 failed, 5 cancelled; 2, 3, 4 for partial executions.
    pub status: i64,
    /// 12. User identifier.
    pub user: i64,
    /// 13. Group identifier.
    pub group: i64,
    /// 14. Executable (application) number.
    pub app: i64,
    /// 15. Queue number.
    pub queue: i64,
    /// 16. Partition number.
    pub partition: i64,
    /// 17. Preceding job number.
    pub preceding: i64,
    /// 18. Think time from the preceding job, seconds.
    pub think: i64,
}

/// Number of fields in an SWF job line.
pub const FIELDS: usize = 18;

/// Field names, indexed by field number minus one, for error messages.
pub const FIELD_NAMES: [&str; FIELDS] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

/// The 0-based fields that hold times: submit, wait, run, requested and think time.
pub(crate) const TIME_FIELDS: [usize; 5] = [1, 2, 3, 8, 17];

/// The first time field longer than [`LONGEST`], as its 0-based index and what is wrong:
/// such values are refused by name rather than simulated (no real log comes near a
/// century, and the cost of a run grows with the span its times cover).
pub(crate) fn check_times(values: &[Value; FIELDS]) -> Result<(), (usize, String)> {
    for field in TIME_FIELDS {
        if let Value::Int(v) = values[field]
            && v > LONGEST
        {
            return Err(too_long(field, v));
        }
    }
    Ok(())
}

/// [`check_times`] for a line's fields read as integers (the time fields always are).
#[inline]
pub(crate) fn check_int_times(values: &[i64; FIELDS]) -> Result<(), (usize, String)> {
    for field in TIME_FIELDS {
        if values[field] > LONGEST {
            return Err(too_long(field, values[field]));
        }
    }
    Ok(())
}

/// The problem with time field `field` holding `v`, longer than [`LONGEST`].
#[cold]
fn too_long(field: usize, v: i64) -> (usize, String) {
    (
        field,
        format!("{v} s is longer than 100 years ({LONGEST} s), the longest time sitesim takes"),
    )
}

/// Whether field `index` (0-based) may hold a fractional value.
pub(crate) const fn is_fractional(index: usize) -> bool {
    matches!(index, 5 | 6 | 9)
}

impl SwfRecord {
    /// A record with every field unknown (`-1`).
    pub const UNKNOWN: SwfRecord = SwfRecord {
        job: -1,
        submit: -1,
        wait: -1,
        run: -1,
        alloc_procs: -1,
        avg_cpu: -1.0,
        used_mem: -1.0,
        req_procs: -1,
        req_time: -1,
        req_mem: -1.0,
        status: -1,
        user: -1,
        group: -1,
        app: -1,
        queue: -1,
        partition: -1,
        preceding: -1,
        think: -1,
    };

    /// Builds a record from its 18 values in file order.
    pub(crate) fn from_values(v: &[Value; FIELDS]) -> SwfRecord {
        SwfRecord {
            job: v[0].int(),
            submit: v[1].int(),
            wait: v[2].int(),
            run: v[3].int(),
            alloc_procs: v[4].int(),
            avg_cpu: v[5].float(),
            used_mem: v[6].float(),
            req_procs: v[7].int(),
            req_time: v[8].int(),
            req_mem: v[9].float(),
            status: v[10].int(),
            user: v[11].int(),
            group: v[12].int(),
            app: v[13].int(),
            queue: v[14].int(),
            partition: v[15].int(),
            preceding: v[16].int(),
            think: v[17].int(),
        }
    }

    /// The 18 values in file order.
    pub(crate) fn values(&self) -> [Value; FIELDS] {
        use Value::{Float as F, Int as I};
        [
            I(self.job),
            I(self.submit),
            I(self.wait),
            I(self.run),
            I(self.alloc_procs),
            F(self.avg_cpu),
            F(self.used_mem),
            I(self.req_procs),
            I(self.req_time),
            F(self.req_mem),
            I(self.status),
            I(self.user),
            I(self.group),
            I(self.app),
            I(self.queue),
            I(self.partition),
            I(self.preceding),
            I(self.think),
        ]
    }
}

/// A parsed field value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Value {
    Int(i64),
    Float(f64),
}

impl Value {
    fn int(self) -> i64 {
        match self {
            Value::Int(i) => i,
            // Only reached for integral floats in integer fields; the reader checks.
            Value::Float(f) => f as i64,
        }
    }
    fn float(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
        }
    }
}
