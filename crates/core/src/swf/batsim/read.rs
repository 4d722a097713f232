//! Reading a Batsim JSON workload as a log: its jobs become SWF records, in submission
//! order, under a header whose `MaxProcs` is `nb_res`.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Read};

use serde::Deserialize;

use super::super::record::{FIELDS, SwfRecord, Value, check_times, is_fractional};
use super::super::{Located, SwfError, SwfHeader};
use super::{DELAY_4, DELAY_5, EXTRA_FIELDS, LARGEST};

/// Whether `input` holds JSON: its first non-blank byte, within what is buffered, is `{`.
/// Nothing is consumed, so an SWF log reads on from its first line.
pub fn looks_like_json(input: &mut impl BufRead) -> io::Result<bool> {
    let bytes = input.fill_buf()?;
    Ok(bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'))
}

/// The workload as Batsim defines it; other keys are ignored, as Batsim ignores them.
#[derive(Deserialize)]
struct Workload {
    nb_res: f64,
    jobs: Vec<Job>,
    profiles: BTreeMap<String, Profile>,
    /// sitesim's: the header lines of the log the workload was written from.
    #[serde(default)]
    swf_header: Vec<String>,
}

#[derive(Deserialize)]
struct Job {
    id: Id,
    subtime: f64,
    res: f64,
    #[serde(default)]
    walltime: Option<f64>,
    profile: String,
    #[serde(default)]
    extra_data: Option<Extra>,
}

/// A job's `id`: Batsim documents a string; its converter writes integers.
#[derive(Deserialize)]
#[serde(untagged)]
enum Id {
    Number(i64),
    Text(String),
}

/// `extra_data`: an object, or a string holding one (as some tools write it).
#[derive(Deserialize)]
#[serde(untagged)]
enum Extra {
    Object(serde_json::Map<String, serde_json::Value>),
    Text(String),
}

#[derive(Deserialize)]
struct Profile {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    delay: Option<serde_json::Value>,
}

/// The largest Batsim workload read, in bytes: JSON is parsed whole, so this bounds the
/// memory a file of `{` and gigabytes of spaces can take (SWF is streamed instead).
pub const MAX_WORKLOAD: u64 = 512 << 20;

/// Reads the Batsim workload in `input` (named `file` in errors): the header (the lines
/// of `swf_header`, with `; MaxProcs: nb_res` in place of its first `MaxProcs` line or
/// after them), one record per job, sorted by submit time (stably: jobs submitted
/// together keep their order), and the bytes read. Each record's `line` is its job's
/// position in `jobs`, from 1.
///
/// Syntax and type errors name the file, line and column; other errors name the file,
/// the JSON location (`jobs[3]`, with the job's id) and what is wrong.
pub fn read_workload(
    input: impl BufRead,
    file: &str,
) -> Result<(SwfHeader, Vec<Located>, u64), SwfError> {
    let mut text = Vec::new();
    input
        .take(MAX_WORKLOAD + 1)
        .read_to_end(&mut text)
        .map_err(|source| SwfError::Io {
            file: file.to_owned(),
            source,
        })?;
    if text.len() as u64 > MAX_WORKLOAD {
        return Err(SwfError::Batsim {
            file: file.to_owned(),
            at: "the file".into(),
            problem: format!(
                "longer than {} MiB, the largest Batsim workload sitesim reads whole \
                 (about 3 million jobs); convert it to SWF, which is streamed",
                MAX_WORKLOAD >> 20
            ),
        });
    }
    let workload: Workload = serde_json::from_slice(&text).map_err(|e| json_error(file, &e))?;
    let at = |at: String, problem: String| SwfError::Batsim {
        file: file.to_owned(),
        at,
        problem,
    };
    let nb_res = whole(workload.nb_res, 1).map_err(|p| at("nb_res".into(), p))?;
    let mut header = SwfHeader::default();
    let max_procs = format!("; MaxProcs: {nb_res}");
    let mut saw_max_procs = false;
    for (i, line) in workload.swf_header.iter().enumerate() {
        if !line.trim_start().starts_with(';') {
            return Err(at(
                format!("swf_header[{i}]"),
                format!("'{line}' is not an SWF comment line (starting with ';')"),
            ));
        }
        let key = line.trim_start_matches(';').trim().split(':').next();
        let line = if key.map(str::trim) == Some("MaxProcs") {
            if std::mem::replace(&mut saw_max_procs, true) {
                continue;
            }
            &max_procs
        } else {
            line
        };
        header.push_line(file, 0, line).map_err(|e| match e {
            SwfError::Header { key, problem, .. } => {
                at(format!("swf_header[{i}]"), format!("{key}: {problem}"))
            }
            other => other,
        })?;
    }
    if !saw_max_procs {
        header.push_line(file, 0, &max_procs)?;
    }

    let mut records = Vec::with_capacity(workload.jobs.len());
    for (i, job) in workload.jobs.iter().enumerate() {
        let id = match &job.id {
            Id::Number(n) => n.to_string(),
            Id::Text(t) => t.clone(),
        };
        let at =
            |field: &str, problem: String| at(format!("jobs[{i}] (id '{id}') {field}"), problem);
        let record = record_of(job, &workload.profiles, i).map_err(|(f, p)| at(&f, p))?;
        records.push(Located {
            line: i as u64 + 1,
            record,
        });
    }
    records.sort_by_key(|r| r.record.submit);
    Ok((header, records, text.len() as u64))
}

/// The record of `job` (the `index`th of the workload), or the field at fault and what
/// is wrong with it.
fn record_of(
    job: &Job,
    profiles: &BTreeMap<String, Profile>,
    index: usize,
) -> Result<SwfRecord, (String, String)> {
    let field = |name: &'static str| move |problem: String| (name.to_owned(), problem);
    let mut values = [Value::Int(-1); FIELDS];
    if let Some(extra) = &job.extra_data {
        read_extra(extra, &mut values)?;
    }
    let submit = whole(job.subtime, 0).map_err(field("subtime"))?;
    let res = whole(job.res, 1).map_err(field("res"))?;
    let walltime = match job.walltime {
        None => -1,
        Some(-1.0) => -1,
        Some(w) => whole(w, 1).map_err(field("walltime"))?,
    };
    let profile = profiles.get(&job.profile).ok_or_else(|| {
        (
            "profile".to_owned(),
            format!("'{}' is not in the workload's profiles", job.profile),
        )
    })?;
    let at_profile = format!("profile '{}'", job.profile);
    if profile.kind != DELAY_4 && profile.kind != DELAY_5 {
        return Err((
            at_profile,
            format!(
                "type '{}' has no fixed duration; sitesim reads delay profiles only \
                 (type '{DELAY_4}' or '{DELAY_5}')",
                profile.kind
            ),
        ));
    }
    let delay = match &profile.delay {
        Some(serde_json::Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(other) => {
            return Err((at_profile, format!("delay {other} is not a number")));
        }
        None => return Err((at_profile, "has no 'delay'".to_owned())),
    };
    let run = whole(delay, 1).map_err(|p| (format!("{at_profile} delay"), p))?;
    if values[0] == Value::Int(-1) {
        values[0] = Value::Int(job_number(&job.id).unwrap_or(index as i64 + 1));
    }
    values[1] = Value::Int(submit);
    values[3] = Value::Int(run);
    values[4] = Value::Int(res);
    values[8] = Value::Int(walltime);
    check_times(&values).map_err(|(i, problem)| {
        let key = match i {
            1 => "subtime".to_owned(),
            3 => format!("{at_profile} delay"),
            8 => "walltime".to_owned(),
            _ => EXTRA_FIELDS
                .iter()
                .find(|(f, _)| *f == i)
                .map_or_else(String::new, |(_, key)| format!("extra_data.{key}")),
        };
        (key, problem)
    })?;
    Ok(SwfRecord::from_values(&values))
}

/// The job number an `id` stands for, if it is a whole number (the converter's ids).
fn job_number(id: &Id) -> Option<i64> {
    match id {
        Id::Number(n) => Some(*n),
        Id::Text(t) => t.parse().ok(),
    }
}

/// Fills `values` from the keys of `extra_data` that name SWF fields.
fn read_extra(extra: &Extra, values: &mut [Value; FIELDS]) -> Result<(), (String, String)> {
    let parsed;
    let map = match extra {
        Extra::Object(map) => map,
        Extra::Text(text) => {
            parsed = serde_json::from_str::<serde_json::Map<_, _>>(text).map_err(|e| {
                (
                    "extra_data".to_owned(),
                    format!("a string that is not a JSON object: {e}"),
                )
            })?;
            &parsed
        }
    };
    for (i, key) in EXTRA_FIELDS {
        let Some(value) = map.get(key) else { continue };
        let bad = |what: &str| (format!("extra_data.{key}"), format!("{value} {what}"));
        values[i] = match value {
            serde_json::Value::Null => Value::Int(-1),
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(v), _) => Value::Int(v),
                (None, Some(f)) if is_fractional(i) && f.is_finite() => Value::Float(f),
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < LARGEST as f64 => {
                    Value::Int(f as i64)
                }
                _ => return Err(bad("is not an integer")),
            },
            _ => return Err(bad("is not a number")),
        };
    }
    Ok(())
}

/// `value` as whole seconds (or resources) of at least `min`.
fn whole(value: f64, min: i64) -> Result<i64, String> {
    if !value.is_finite() || value.fract() != 0.0 {
        return Err(format!(
            "{value} is not a whole number (sitesim counts whole seconds and resources)"
        ));
    }
    if value < min as f64 || value >= LARGEST as f64 {
        return Err(format!(
            "{value} is out of range (at least {min}, below {LARGEST})"
        ));
    }
    Ok(value as i64)
}

/// A serde_json error as an error naming the file, line and column.
fn json_error(file: &str, e: &serde_json::Error) -> SwfError {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    SwfError::Json {
        file: file.to_owned(),
        line: e.line(),
        column: e.column(),
        problem: text.strip_suffix(&suffix).unwrap_or(&text).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::SwfReader;
    use super::super::{BatsimExport, ProfileStyle};
    use super::*;

    fn read(json: &str) -> Result<(SwfHeader, Vec<Located>), String> {
        read_workload(json.as_bytes(), "w.json")
            .map(|(h, r, _)| (h, r))
            .map_err(|e| e.to_string())
    }

    /// `{` and half a gigabyte of spaces: refused once past the bound, not parsed.
    #[test]
    fn a_workload_past_its_bound_is_refused_unread() {
        let spaces = std::io::repeat(b' ').take(MAX_WORKLOAD);
        let input = std::io::BufReader::new(b"{".chain(spaces));
        let e = read_workload(input, "w.json").unwrap_err().to_string();
        assert!(
            e.starts_with("w.json: the file: longer than 512 MiB"),
            "{e}"
        );
    }

    /// `text` (an SWF log) written as a workload in `style` and read back.
    fn round_trip(text: &str, style: ProfileStyle) -> (SwfHeader, Vec<SwfRecord>) {
        let mut reader = SwfReader::new(text.as_bytes(), "t.swf").unwrap();
        let mut export = BatsimExport::new(style);
        for located in reader.by_ref() {
            assert!(export.add(&located.unwrap().record));
        }
        let json = export.write(Vec::new(), reader.header(), "t").unwrap();
        let (header, records, _) = read_workload(json.as_slice(), "t.json").unwrap();
        (header, records.into_iter().map(|l| l.record).collect())
    }

    const LOG: &str = "; Version: 2.2\n; MaxProcs: 100\n; TimeZoneString: Europe/Stockholm\n\
        ; UnixStartTime: 843480031\n\
        1 0 10 100 4 2.5 1024 4 200 -1 1 7 2 3 1 -1 -1 -1\n\
        2 5 0 50 2 -1 -1 -1 -1 -1 0 8 -1 -1 -1 2 1 30\n\
        3 5 7 3600 64 -1 -1 64 7200 512.5 5 7 2 -1 -1 -1 -1 -1\n";

    #[test]
    fn a_log_comes_back_job_for_job_in_both_styles() {
        let original: Vec<SwfRecord> = SwfReader::new(LOG.as_bytes(), "t.swf")
            .unwrap()
            .map(|l| l.unwrap().record)
            .collect();
        for style in [ProfileStyle::Batsim4, ProfileStyle::Batsim5] {
            let (header, back) = round_trip(LOG, style);
            assert_eq!(back, original, "{style:?}");
            assert_eq!(header.max_procs, Some(100));
            assert_eq!(header.time_zone_string.as_deref(), Some("Europe/Stockholm"));
            assert_eq!(header.unix_start_time, Some(843_480_031));
            assert_eq!(header.version.as_deref(), Some("2.2"));
            assert_eq!(
                header.lines,
                SwfReader::new(LOG.as_bytes(), "t").unwrap().header().lines
            );
        }
    }

    #[test]
    fn what_batsim_does_not_keep_is_told_by_res_and_walltime() {
        // Allocated processors unknown: res is the requested ones, both come back so.
        // A zero requested time has no walltime and comes back unknown.
        let (_, back) = round_trip(
            "1 0 0 10 -1 -1 -1 3 0 -1 1 1 1 -1 -1 -1 -1 -1\n",
            ProfileStyle::Batsim5,
        );
        assert_eq!(
            (back[0].alloc_procs, back[0].req_procs, back[0].req_time),
            (3, 3, -1)
        );
    }

    /// The shape Batsim's converter (`swf_to_batsim_workload_delay.py`) writes: one line,
    /// integer ids from 0, float times, integer delays, profiles named by the delay, no
    /// extra data, its own top-level keys.
    const CONVERTER: &str = r#"{"version": 0, "command": "swf_to_batsim_workload_delay.py kth.swf kth.json", "date": "2024-01-01 10:00:00.000000", "description": "this workload had been automatically generated", "nb_res": 100, "jobs": [{"id": 0, "subtime": 0.0, "walltime": 200.0, "res": 4, "profile": "101"}, {"id": 1, "subtime": 30.0, "walltime": 120.0, "res": 2, "profile": "61"}, {"id": 2, "subtime": 12.0, "walltime": -1, "res": 1, "profile": "101"}], "profiles": {"101": {"type": "delay", "delay": 101}, "61": {"type": "delay", "delay": 61}}}"#;

    #[test]
    fn nb_res_is_the_machine_size() {
        let (header, _) = read(
            r#"{"nb_res": 16, "jobs": [], "profiles": {},
            "swf_header": ["; MaxProcs: 8", "; Note: x", "; MaxProcs: 9"]}"#,
        )
        .unwrap();
        assert_eq!(header.lines, ["; MaxProcs: 16", "; Note: x"]);
        assert_eq!(header.max_procs, Some(16));
    }

    #[test]
    fn batsim_converter_output_reads_as_a_log() {
        let (header, records) = read(CONVERTER).unwrap();
        assert_eq!(header.max_procs, Some(100));
        assert_eq!(header.lines, ["; MaxProcs: 100"]);
        let got: Vec<_> = records
            .iter()
            .map(|l| {
                let r = l.record;
                (
                    l.line,
                    r.job,
                    r.submit,
                    r.run,
                    r.alloc_procs,
                    r.req_time,
                    r.user,
                )
            })
            .collect();
        // Sorted by submit time; the job number is the id; no user is known.
        assert_eq!(
            got,
            [
                (1, 0, 0, 101, 4, 200, -1),
                (3, 2, 12, 101, 1, -1, -1),
                (2, 1, 30, 61, 2, 120, -1),
            ]
        );
    }

    #[test]
    fn string_extra_data_and_string_ids_are_read() {
        let json = r#"{"nb_res": 4, "jobs": [{"id": "w0!7", "subtime": 1, "res": 2,
            "profile": "p", "extra_data": "{\"user_id\": 5, \"wait_time\": 3}"}],
            "profiles": {"p": {"type": "DelayProfile", "delay": 9.0, "ret": 0}}}"#;
        let (_, records) = read(json).unwrap();
        let r = records[0].record;
        assert_eq!((r.job, r.user, r.wait, r.run), (1, 5, 3, 9));
    }

    #[test]
    fn malformed_json_names_file_line_and_column() {
        assert_eq!(
            read("{\"nb_res\": 4,\n \"jobs\": [}").unwrap_err(),
            "w.json:2:11: expected value"
        );
        assert_eq!(
            read("{\"nb_res\": 4, \"profiles\": {}}").unwrap_err(),
            "w.json:1:29: missing field `jobs`"
        );
        let err = read(
            "{\"nb_res\": 4, \"profiles\": {},\n\"jobs\": [{\"id\": 1, \"subtime\": \"soon\"}]}",
        )
        .unwrap_err();
        assert!(err.starts_with("w.json:2:"), "{err}");
        assert!(err.contains("invalid type: string \"soon\""), "{err}");
    }

    #[test]
    fn semantic_errors_name_the_job_and_field() {
        let job = |fields: &str| {
            format!(
                r#"{{"nb_res": 4, "profiles": {{"p": {{"type": "delay", "delay": 10}},
                "q": {{"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}},
                "z": {{"type": "delay", "delay": 0}}}},
                "jobs": [{{"id": 1, "subtime": 0, "res": 1, "profile": "p"}},
                {{"id": "j2", {fields}}}]}}"#
            )
        };
        for (fields, message) in [
            (
                r#""subtime": 0, "res": -2, "profile": "p""#,
                "w.json: jobs[1] (id 'j2') res: -2 is out of range (at least 1, below 9000000000000000)",
            ),
            (
                r#""subtime": 0, "res": 1, "profile": "nope""#,
                "w.json: jobs[1] (id 'j2') profile: 'nope' is not in the workload's profiles",
            ),
            (
                r#""subtime": 0.5, "res": 1, "profile": "p""#,
                "w.json: jobs[1] (id 'j2') subtime: 0.5 is not a whole number (sitesim \
                 counts whole seconds and resources)",
            ),
            (
                r#""subtime": 0, "res": 1, "profile": "q""#,
                "w.json: jobs[1] (id 'j2') profile 'q': type 'parallel_homogeneous' has no \
                 fixed duration; sitesim reads delay profiles only (type 'delay' or \
                 'DelayProfile')",
            ),
            (
                r#""subtime": 0, "res": 1, "profile": "z""#,
                "w.json: jobs[1] (id 'j2') profile 'z' delay: 0 is out of range (at least 1, below 9000000000000000)",
            ),
            (
                r#""subtime": 0, "res": 1, "profile": "p", "walltime": 0"#,
                "w.json: jobs[1] (id 'j2') walltime: 0 is out of range (at least 1, below 9000000000000000)",
            ),
            (
                r#""subtime": 0, "res": 1, "profile": "p", "extra_data": {"user_id": 1.5}"#,
                "w.json: jobs[1] (id 'j2') extra_data.user_id: 1.5 is not an integer",
            ),
            (
                r#""subtime": 0, "res": 1, "profile": "p", "extra_data": {"user_id": "ann"}"#,
                "w.json: jobs[1] (id 'j2') extra_data.user_id: \"ann\" is not a number",
            ),
        ] {
            assert_eq!(read(&job(fields)).unwrap_err(), message, "{fields}");
        }
        assert_eq!(
            read(r#"{"nb_res": 0, "jobs": [], "profiles": {}}"#).unwrap_err(),
            "w.json: nb_res: 0 is out of range (at least 1, below 9000000000000000)"
        );
        assert_eq!(
            read(r#"{"nb_res": 1, "jobs": [], "profiles": {}, "swf_header": ["MaxProcs: 3"]}"#)
                .unwrap_err(),
            "w.json: swf_header[0]: 'MaxProcs: 3' is not an SWF comment line (starting with ';')"
        );
    }

    #[test]
    fn json_is_told_by_its_first_byte() {
        for (text, json) in [
            ("  \n\t{\"nb_res\": 1}", true),
            ("{", true),
            ("; MaxProcs: 4\n", false),
            ("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n", false),
            ("", false),
            ("[]", false),
        ] {
            let mut input = text.as_bytes();
            assert_eq!(looks_like_json(&mut input).unwrap(), json, "{text:?}");
            assert_eq!(input, text.as_bytes(), "nothing consumed");
        }
    }
}
