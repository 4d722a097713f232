//! Writing a log as a Batsim JSON workload.

use std::collections::BTreeSet;
use std::io::{self, Write};

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::super::SwfHeader;
use super::super::record::{SwfRecord, Value};
use super::{EXTRA_FIELDS, LARGEST, ProfileStyle};

/// Jobs left out because Batsim cannot run them, by reason (each job counted once, for
/// the first reason in this order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Submit time unknown (below zero).
    pub unknown_submit: u64,
    /// Runtime unknown (below zero): no delay to give the profile.
    pub unknown_runtime: u64,
    /// Neither allocated nor requested processors known: Batsim's `res` must be positive.
    pub unknown_size: u64,
    /// Runtime zero: Batsim refuses a delay that is not strictly positive.
    pub zero_runtime: u64,
    /// Size of 9e15 processors or more: beyond the whole numbers a workload holds
    /// exactly.
    pub too_large: u64,
}

impl Skipped {
    /// Jobs skipped, for every reason.
    pub fn total(&self) -> u64 {
        self.unknown_submit
            + self.unknown_runtime
            + self.unknown_size
            + self.zero_runtime
            + self.too_large
    }

    /// `"3 with unknown runtime, 1 with zero runtime"`: the reasons that skipped a job.
    pub fn describe(&self) -> String {
        [
            (self.unknown_submit, "unknown submit time"),
            (self.unknown_runtime, "unknown runtime"),
            (self.unknown_size, "unknown size"),
            (self.zero_runtime, "zero runtime"),
            (self.too_large, "a size of 9e15 processors or more"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} with {what}"))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// A log converted into a Batsim workload: jobs are added one record at a time, then the
/// workload is written whole (`nb_res` comes first and may depend on every job).
#[derive(Debug)]
pub struct BatsimExport {
    style: ProfileStyle,
    jobs: Vec<Job>,
    runtimes: BTreeSet<i64>,
    skipped: Skipped,
}

/// One job as Batsim reads it.
#[derive(Debug, Serialize)]
struct Job {
    id: String,
    subtime: i64,
    res: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    walltime: Option<i64>,
    profile: String,
    extra_data: Extra,
}

/// The SWF fields Batsim has no place for, the unknown ones left out.
#[derive(Debug)]
struct Extra(Vec<(&'static str, Value)>);

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            match *value {
                Value::Int(i) => map.serialize_entry(key, &i)?,
                Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                    map.serialize_entry(key, &(f as i64))?;
                }
                Value::Float(f) => map.serialize_entry(key, &f)?,
            }
        }
        map.end()
    }
}

/// A delay profile.
#[derive(Serialize)]
struct Delay {
    #[serde(rename = "type")]
    kind: &'static str,
    delay: i64,
}

impl BatsimExport {
    /// An empty workload whose profiles will be written in `style`.
    pub fn new(style: ProfileStyle) -> Self {
        BatsimExport {
            style,
            jobs: Vec::new(),
            runtimes: BTreeSet::new(),
            skipped: Skipped::default(),
        }
    }

    /// Adds the job of `record`, or counts it as skipped if Batsim cannot run it; returns
    /// whether it was added.
    pub fn add(&mut self, record: &SwfRecord) -> bool {
        let res = if record.alloc_procs > 0 {
            record.alloc_procs
        } else {
            record.req_procs
        };
        let skip = if record.submit < 0 {
            &mut self.skipped.unknown_submit
        } else if record.run < 0 {
            &mut self.skipped.unknown_runtime
        } else if res <= 0 {
            &mut self.skipped.unknown_size
        } else if record.run == 0 {
            &mut self.skipped.zero_runtime
        } else if res >= LARGEST {
            &mut self.skipped.too_large
        } else {
            self.runtimes.insert(record.run);
            let values = record.values();
            let extra = EXTRA_FIELDS
                .iter()
                .filter(|&&(i, _)| values[i] != Value::Int(-1) && values[i] != Value::Float(-1.0))
                .map(|&(i, key)| (key, values[i]))
                .collect();
            self.jobs.push(Job {
                id: (self.jobs.len() + 1).to_string(),
                subtime: record.submit,
                res,
                walltime: (record.req_time > 0).then_some(record.req_time),
                profile: record.run.to_string(),
                extra_data: Extra(extra),
            });
            return true;
        };
        *skip += 1;
        false
    }

    /// Jobs added.
    pub fn jobs(&self) -> usize {
        self.jobs.len()
    }

    /// Distinct delay profiles (one per runtime).
    pub fn profiles(&self) -> usize {
        self.runtimes.len()
    }

    /// Jobs skipped, by reason.
    pub fn skipped(&self) -> Skipped {
        self.skipped
    }

    /// `nb_res`: the header's `MaxProcs`, else the largest job (as Batsim's converter).
    pub fn nb_res(&self, header: &SwfHeader) -> i64 {
        header
            .max_procs
            .filter(|&p| p > 0)
            .unwrap_or_else(|| self.jobs.iter().map(|j| j.res).max().unwrap_or(1))
    }

    /// Jobs that ask for more than `nb_res` resources (Batsim will not run them).
    pub fn oversize(&self, header: &SwfHeader) -> usize {
        let nb_res = self.nb_res(header);
        self.jobs.iter().filter(|j| j.res > nb_res).count()
    }

    /// Writes the workload: `description`, `nb_res`, `swf_header` (the log's header
    /// lines), `jobs` one a line, and `profiles` in increasing delay.
    pub fn write<W: Write>(
        &self,
        mut out: W,
        header: &SwfHeader,
        description: &str,
    ) -> io::Result<W> {
        let json = |e: serde_json::Error| io::Error::from(e);
        let nb_res = self.nb_res(header);
        if nb_res >= LARGEST {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the header's MaxProcs, {nb_res}, is more processors than a Batsim \
                     workload holds (below {LARGEST})"
                ),
            ));
        }
        out.write_all(b"{\n  \"description\": ")?;
        serde_json::to_writer(&mut out, description).map_err(json)?;
        write!(out, ",\n  \"nb_res\": {nb_res},\n  \"swf_header\": [")?;
        write_lines(&mut out, header.lines.iter(), "    ", |out, line| {
            serde_json::to_writer(out, line).map_err(json)
        })?;
        out.write_all(b"],\n  \"jobs\": [")?;
        write_lines(&mut out, self.jobs.iter(), "    ", |out, job| {
            serde_json::to_writer(out, job).map_err(json)
        })?;
        out.write_all(b"],\n  \"profiles\": {")?;
        let kind = self.style.delay_type();
        write_lines(&mut out, self.runtimes.iter(), "    ", |out, &delay| {
            write!(out, "\"{delay}\": ")?;
            serde_json::to_writer(out, &Delay { kind, delay }).map_err(json)
        })?;
        out.write_all(b"}\n}\n")?;
        out.flush()?;
        Ok(out)
    }
}

/// Writes `items` one a line, indented, separated by commas; nothing if there are none.
fn write_lines<W: Write, T>(
    out: &mut W,
    items: impl Iterator<Item = T>,
    indent: &str,
    mut each: impl FnMut(&mut W, T) -> io::Result<()>,
) -> io::Result<()> {
    let mut any = false;
    for item in items {
        out.write_all(if any { b",\n" } else { b"\n" })?;
        out.write_all(indent.as_bytes())?;
        each(out, item)?;
        any = true;
    }
    if any {
        out.write_all(b"\n  ")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::super::SwfReader;
    use super::*;

    fn export(text: &str, style: ProfileStyle) -> (String, BatsimExport) {
        let mut reader = SwfReader::new(text.as_bytes(), "t.swf").unwrap();
        let mut export = BatsimExport::new(style);
        for located in reader.by_ref() {
            export.add(&located.unwrap().record);
        }
        let bytes = export
            .write(Vec::new(), reader.header(), "two jobs")
            .unwrap();
        (String::from_utf8(bytes).unwrap(), export)
    }

    const TWO: &str = "; MaxProcs: 8\n\
        7 0 10 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\n\
        9 5 0 50 2 1.5 -1 -1 -1 -1 1 4 -1 -1 -1 -1 -1 -1\n";

    #[test]
    fn two_jobs_are_written_exactly() {
        let (json, export) = export(TWO, ProfileStyle::Batsim5);
        assert_eq!(
            json,
            r#"{
  "description": "two jobs",
  "nb_res": 8,
  "swf_header": [
    "; MaxProcs: 8"
  ],
  "jobs": [
    {"id":"1","subtime":0,"res":4,"walltime":200,"profile":"100","extra_data":{"job_number":7,"wait_time":10,"requested_processors":4,"status":1,"user_id":3,"group_id":2,"queue_number":1}},
    {"id":"2","subtime":5,"res":2,"profile":"50","extra_data":{"job_number":9,"wait_time":0,"average_cpu_time":1.5,"status":1,"user_id":4}}
  ],
  "profiles": {
    "50": {"type":"DelayProfile","delay":50},
    "100": {"type":"DelayProfile","delay":100}
  }
}
"#
        );
        assert_eq!((export.jobs(), export.profiles()), (2, 2));
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["jobs"][0]["res"], 4);
    }

    #[test]
    fn batsim4_spells_the_profile_delay() {
        let (json, _) = export(TWO, ProfileStyle::Batsim4);
        assert!(
            json.contains(r#""50": {"type":"delay","delay":50}"#),
            "{json}"
        );
        assert!(!json.contains("DelayProfile"));
    }

    #[test]
    fn jobs_batsim_cannot_run_are_counted_not_written() {
        let text = "1 -1 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
            2 0 0 -1 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
            3 0 0 10 -1 -1 -1 -1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
            4 0 0 0 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
            5 0 0 0 -1 -1 -1 -1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
            6 0 0 10 -1 -1 -1 3 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
            7 0 0 10 9000000000000000 -1 -1 -1 10 -1 1 1 1 -1 -1 -1 -1 -1\n";
        let (json, export) = export(text, ProfileStyle::Batsim5);
        assert_eq!(
            export.skipped(),
            Skipped {
                unknown_submit: 1,
                unknown_runtime: 1,
                unknown_size: 2,
                zero_runtime: 1,
                too_large: 1,
            }
        );
        assert_eq!(export.skipped().total(), 6);
        assert_eq!(
            export.skipped().describe(),
            "1 with unknown submit time, 1 with unknown runtime, 2 with unknown size, \
             1 with zero runtime, 1 with a size of 9e15 processors or more"
        );
        assert_eq!(export.jobs(), 1);
        // The one job kept takes its requested processors, and no header gives nb_res.
        assert!(json.contains(r#""nb_res": 3,"#), "{json}");
        assert!(json.contains(r#""swf_header": [],"#), "{json}");
        assert!(json.contains(r#"{"id":"1","subtime":0,"res":3,"#), "{json}");
    }

    #[test]
    fn an_empty_log_is_an_empty_workload() {
        let (json, _) = export("; MaxProcs: 4\n", ProfileStyle::Batsim4);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["jobs"], serde_json::json!([]));
        assert_eq!(value["profiles"], serde_json::json!({}));
        assert_eq!(value["nb_res"], 4);
    }

    #[test]
    fn oversize_jobs_are_counted_against_max_procs() {
        let text = "; MaxProcs: 2\n1 0 0 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1\n";
        let (_, export) = export(text, ProfileStyle::Batsim5);
        let header = SwfReader::new(text.as_bytes(), "t")
            .unwrap()
            .header()
            .clone();
        assert_eq!((export.nb_res(&header), export.oversize(&header)), (2, 1));
    }
}
