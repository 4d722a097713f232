//! Batsim interop on the command line: `sitesim export --batsim` and every command
//! reading a Batsim JSON workload as its log; on KTH, a replay of the exported workload
//! gives the replay of the log.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{shared_log, sitesim, stderr};
use sitesim::swf::SwfReader;
use sitesim::swf::batsim::{BatsimExport, ProfileStyle, read_workload};

/// `name` in this test binary's scratch folder.
fn temp(name: &str) -> PathBuf {
    common::scratch("batsim", name)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Four jobs of two users with logged waits; job 4 ran for 0 s, which Batsim cannot run.
const LOG: &str = "; MaxProcs: 8\n; TimeZoneString: Europe/Stockholm\n\
1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 5 0 50 8 -1 -1 8 60 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 9 91 20 2 -1 -1 2 30 -1 1 1 1 -1 -1 -1 -1 -1\n\
4 200 0 0 2 -1 -1 2 30 -1 1 2 1 -1 -1 -1 -1 -1\n";

/// [`LOG`] in a file, written once: tests run in parallel, and one rewriting the file
/// while another's `sitesim` reads it made that one read a truncated log.
fn log_file() -> PathBuf {
    static LOG_FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    LOG_FILE
        .get_or_init(|| {
            let log = temp("log.swf");
            std::fs::write(&log, LOG).unwrap();
            log
        })
        .clone()
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).expect("the workload is JSON")
}

#[test]
fn export_writes_a_workload_to_stdout_or_a_file() {
    let log = log_file();
    let o = sitesim(&["export", "--batsim", "--swf", path(&log)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let w = json(&o.stdout);
    assert_eq!(w["nb_res"], 8);
    assert_eq!(w["jobs"].as_array().unwrap().len(), 3);
    assert_eq!(
        w["jobs"][2],
        serde_json::json!({"id": "3", "subtime": 9, "res": 2, "walltime": 30, "profile": "20",
            "extra_data": {"job_number": 3, "wait_time": 91, "requested_processors": 2,
                "status": 1, "user_id": 1, "group_id": 1}})
    );
    assert_eq!(
        w["profiles"]["100"],
        serde_json::json!({"type": "delay", "delay": 100})
    );
    assert_eq!(
        stderr(&o),
        "wrote 3 jobs and 3 delay profiles (type \"delay\") for 8 resources to \
         standard output\nskipped 1 jobs Batsim cannot run: 1 with zero runtime\n"
    );

    let out = temp("log5.json");
    let o = sitesim(&[
        "export",
        "--swf",
        path(&log),
        "--batsim",
        "5",
        "-o",
        path(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let w = json(&std::fs::read(&out).unwrap());
    assert_eq!(
        w["profiles"]["50"],
        serde_json::json!({"type": "DelayProfile", "delay": 50})
    );
    assert!(!temp("log5.json.partial").exists());

    // The same input gives the same bytes.
    let again = sitesim(&["export", "--batsim", "5", "--swf", path(&log)]);
    assert_eq!(again.stdout, std::fs::read(&out).unwrap());
}

#[test]
fn export_usage_errors_exit_with_code_2() {
    for (args, needle) in [
        (vec!["export", "--swf", "x.swf"], "--batsim"),
        (
            vec!["export", "--swf", "x.swf", "--batsim", "6"],
            "possible values: 4, 5",
        ),
        (vec!["export", "--batsim"], "--swf"),
        // A run's jobs go as Batsim's _jobs.csv, a log as a workload: not crossed.
        (vec!["export", "--batsim-jobs"], "--run"),
        (vec!["export", "--run", "dir", "--batsim"], "--batsim-jobs"),
        (
            vec!["export", "--swf", "x.swf", "--run", "dir", "--batsim-jobs"],
            "cannot be used with",
        ),
    ] {
        let o = sitesim(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn every_command_reads_a_batsim_workload_plain_or_gzip() {
    let log = log_file();
    let workload = temp("w.json");
    let o = sitesim(&[
        "export",
        "--batsim",
        "--swf",
        path(&log),
        "-o",
        path(&workload),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let packed = temp("w.json.data");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&std::fs::read(&workload).unwrap()).unwrap();
    std::fs::write(&packed, gz.finish().unwrap()).unwrap();
    for input in [&workload, &packed] {
        for command in ["replay", "feedback", "analyze"] {
            let o = sitesim(&[command, "--swf", path(input)]);
            assert!(o.status.success(), "{command} {input:?}: {}", stderr(&o));
        }
        let o = sitesim(&["replay", "--swf", path(input)]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("on 8 processors: easy"), "{text}");
        assert!(text.contains("3 simulated, 0 skipped"), "{text}");
    }
    // A Batsim workload exports again: from 5 to 4, the same jobs.
    let o = sitesim(&["export", "--batsim", "4", "--swf", path(&packed)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (five, four) = (json(&std::fs::read(&workload).unwrap()), json(&o.stdout));
    assert_eq!(five["jobs"], four["jobs"]);
    assert_eq!(five["nb_res"], four["nb_res"]);
}

#[test]
fn a_feedback_run_generated_workload_exports() {
    let log = log_file();
    let out = temp("feedback");
    let o = sitesim(&["feedback", "--swf", path(&log), "--out", path(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sitesim(&[
        "export",
        "--batsim",
        "--swf",
        path(&out.join("schedule.swf")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let w = json(&o.stdout);
    let jobs = w["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    // The jobs as simulated, not as logged: job 2 waited 95 s for the whole machine
    // (0 in the log) and job 3 was backfilled at once (91 s in the log); job 4, of zero
    // runtime, was submitted at 295 s (200 in the log) and is left out.
    let waits: Vec<_> = jobs
        .iter()
        .map(|j| (j["subtime"].clone(), j["extra_data"]["wait_time"].clone()))
        .collect();
    assert_eq!(
        waits,
        [(0, 0), (5, 95), (9, 0)].map(|(s, w)| (serde_json::json!(s), serde_json::json!(w)))
    );
    assert!(stderr(&o).contains("1 with zero runtime"), "{}", stderr(&o));
}

#[test]
fn malformed_workloads_name_file_line_and_place() {
    for (text, needle) in [
        (
            "{\"nb_res\": 4,\n  \"jobs\": [,]}",
            "bad.json:2:12: expected value",
        ),
        (
            "{\"nb_res\": 4, \"profiles\": {},\n\"jobs\": [{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"p\"}]}",
            "bad.json: jobs[0] (id '1') profile: 'p' is not in the workload's profiles",
        ),
        (
            "  {\"nb_res\": 4, \"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 5}},\n\"jobs\": [{\"id\": 1, \"subtime\": 0, \"res\": -1, \"profile\": \"p\"}]}",
            "bad.json: jobs[0] (id '1') res: -1 is out of range (at least 1, below 9000000000000000)",
        ),
    ] {
        let bad = temp("bad.json");
        std::fs::write(&bad, text).unwrap();
        for args in [
            vec!["replay", "--swf", path(&bad)],
            vec!["export", "--batsim", "--swf", path(&bad)],
        ] {
            let o = sitesim(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
        }
    }
}

/// `text` exported as a Batsim workload: what the writer gave, and the export.
fn exported(text: &str) -> (std::io::Result<Vec<u8>>, BatsimExport) {
    let mut reader = SwfReader::new(text.as_bytes(), "t.swf").unwrap();
    let mut export = BatsimExport::new(ProfileStyle::Batsim4);
    for located in reader.by_ref() {
        export.add(&located.unwrap().record);
    }
    (export.write(Vec::new(), reader.header(), "t"), export)
}

/// The `export` fuzz target's finding: a machine or a job of 9e15 processors or more
/// was written, and the reader refused the workload. The largest machine and job below
/// the bound read back exactly.
#[test]
fn what_is_written_reads_back_or_is_refused_by_name() {
    let (written, _) = exported(
        "; MaxProcs: 9223372036854775807\n1 0 0 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1\n",
    );
    let e = written.unwrap_err();
    assert!(
        e.to_string()
            .contains("MaxProcs, 9223372036854775807, is more processors"),
        "{e}"
    );
    let (written, export) = exported(
        "; MaxProcs: 8999999999999999\n\
         1 0 0 10 8999999999999999 -1 -1 -1 10 -1 1 1 1 -1 -1 -1 -1 -1\n",
    );
    assert_eq!(export.jobs(), 1);
    let (header, records, _) = read_workload(&written.unwrap()[..], "w").unwrap();
    assert_eq!(header.max_procs, Some(8_999_999_999_999_999));
    assert_eq!(records[0].record.alloc_procs, 8_999_999_999_999_999);
}

/// A machine the workload cannot hold (the `export` fuzz target's finding: it was written,
/// and could not be read back) is refused naming the log, to a file or standard output,
/// and no file is left.
#[test]
fn a_machine_beyond_the_workloads_numbers_is_refused_naming_the_log() {
    let log = temp("huge-machine.swf");
    std::fs::write(
        &log,
        "; MaxProcs: 9223372036854775807\n1 0 0 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let out = temp("huge-machine.json");
    for to in [vec!["-o", path(&out)], vec![]] {
        let mut args = vec!["export", "--batsim", "--swf", path(&log)];
        args.extend(to);
        let o = sitesim(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!(
                "{}: the header's MaxProcs, 9223372036854775807",
                path(&log)
            )),
            "{e}"
        );
        assert!(o.stdout.is_empty() && !out.exists());
    }
}

/// Exports `log` in `version`, replays the log and the workload with outputs, and
/// returns both results directories.
fn replay_both(log: &Path, version: &str) -> (PathBuf, PathBuf) {
    let workload = temp(&format!("kth{version}.json"));
    let o = sitesim(&[
        "export",
        "--batsim",
        version,
        "--swf",
        path(log),
        "-o",
        path(&workload),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("skipped 8 jobs Batsim cannot run: 8 with zero runtime"),
        "{}",
        stderr(&o)
    );
    let (a, b) = (
        temp(&format!("kth-swf{version}")),
        temp(&format!("kth-json{version}")),
    );
    // Batsim cannot run KTH's 8 jobs of zero runtime: the log's replay skips them too.
    let o = sitesim(&[
        "replay",
        "--swf",
        path(log),
        "--questionable",
        "zero-runtime=skip",
        "--out",
        path(&a),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sitesim(&["replay", "--swf", path(&workload), "--out", path(&b)]);
    assert!(o.status.success(), "{}", stderr(&o));
    (a, b)
}

#[test]
fn kth_replays_the_same_from_its_batsim_workload() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    for version in ["4", "5"] {
        let (a, b) = replay_both(&kth, version);
        for file in ["jobs.csv", "schedule.swf"] {
            assert!(
                std::fs::read(a.join(file)).unwrap() == std::fs::read(b.join(file)).unwrap(),
                "{file} differs (Batsim {version})"
            );
        }
        let (a, b) = (
            json(&std::fs::read(a.join("summary.json")).unwrap()),
            json(&std::fs::read(b.join("summary.json")).unwrap()),
        );
        assert_eq!(a["metrics"], b["metrics"]);
        assert_eq!(a["counts"], b["counts"]);
        assert_eq!(b["input"]["jobs"], 28_481);
        assert_eq!(b["input"]["machine"]["header_max_procs"], 100);
        // The export keeps the 28,481 jobs sitesim can run; the peak is the log's.
        assert_eq!(
            a["input"]["machine"]["logged_peak"]["sustained"],
            b["input"]["machine"]["logged_peak"]["sustained"]
        );
    }
}
