//! Results folders shared by several people and processes (issue 35): a link planted at
//! an output's name is replaced, never written through; a folder is written by one
//! process at a time; a run's file edited by hand is run again, never trusted; and an
//! experiment resumes on any number of threads, giving the same bytes.

mod common;

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{sitesim, stderr};

/// `name` in this test binary's scratch folder, removed first.
fn temp(name: &str) -> PathBuf {
    let p = common::scratch("shared", name);
    let _ = fs::remove_dir_all(&p);
    let _ = fs::remove_file(&p);
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const LOG: &str = "; MaxProcs: 8\n\
1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 5 0 50 8 -1 -1 8 60 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 9 0 20 2 -1 -1 2 30 -1 1 1 1 -1 -1 -1 -1 -1\n";

/// A small experiment of a model site: 3 weeks, `replications` replications of EASY.
fn experiment(name: &str, replications: u32) -> PathBuf {
    let path = temp(&format!("{name}.toml"));
    fs::write(
        &path,
        format!(
            "# an experiment of the tests\nname = \"{name}\"\nseed = 3\nduration = \"3w\"\n\
             replications = {replications}\n[machine]\nprocs = 128\n[scheduler]\n\
             policy = \"easy\"\n[workload]\nsource = \"model\"\ncalibrate = \"generated\"\n[metrics]\nwarmup = \"1w\"\n\
             [experiment]\nschedulers = [\"easy\"]\n"
        ),
    )
    .unwrap();
    path
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let bytes = fs::read(&path).unwrap();
                out.insert(path.strip_prefix(root).unwrap().to_owned(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn is_regular_file(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
}

#[test]
fn links_planted_in_a_results_folder_are_replaced_never_followed() {
    let victim = temp("victim.txt");
    fs::write(&victim, "precious").unwrap();
    let elsewhere = temp("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();

    // A replay's per-job files and summary.
    let log = temp("links.swf");
    fs::write(&log, LOG).unwrap();
    let replay = temp("links-replay");
    fs::create_dir_all(&replay).unwrap();
    for name in ["jobs.csv", "summary.json", "schedule.swf"] {
        symlink(&victim, replay.join(name)).unwrap();
    }
    let o = sitesim(&["replay", "--swf", s(&log), "--out", s(&replay)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for name in ["jobs.csv", "summary.json", "schedule.swf"] {
        assert!(is_regular_file(&replay.join(name)), "{name}");
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");

    // An experiment's run file and summary, and its report's folder.
    let scenario = experiment("links", 2);
    let out = temp("links-experiment");
    let run = out.join("runs/p000/r0001.json");
    fs::create_dir_all(run.parent().unwrap()).unwrap();
    symlink(&victim, &run).unwrap();
    symlink(&victim, out.join("summary.json")).unwrap();
    symlink(&victim, out.join("runs.csv")).unwrap();
    symlink(&elsewhere, out.join("report")).unwrap();
    let o = sitesim(&["run", s(&scenario), "--out", s(&out), "--report"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "warning: {}: a symbolic link, not a run's file",
            run.display()
        )),
        "{}",
        stderr(&o)
    );
    for name in ["runs/p000/r0001.json", "summary.json", "runs.csv"] {
        assert!(is_regular_file(&out.join(name)), "{name}");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["missing_runs"], 0);
    assert!(fs::symlink_metadata(out.join("report")).unwrap().is_dir());
    assert!(out.join("report/index.html").is_file());
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    // Nothing was written beside the victim either.
    assert!(
        fs::read_dir(victim.parent().unwrap()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("partial"))
    );
}

/// The lock file of `dir`, held by this test process as another sitesim would hold it.
fn hold(dir: &Path) -> File {
    fs::create_dir_all(dir).unwrap();
    let mut lock = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(".sitesim.lock"))
        .unwrap();
    lock.lock().unwrap();
    lock.set_len(0).unwrap();
    write!(lock, "{}", std::process::id()).unwrap();
    lock
}

#[test]
fn a_folder_held_by_another_process_is_refused_and_left_as_it_was() {
    let log = temp("held.swf");
    fs::write(&log, LOG).unwrap();
    let scenario = experiment("held", 2);
    let done = temp("held-done");
    let o = sitesim(&["run", s(&scenario), "--out", s(&done)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lock = hold(&done);
    let before = files(&done);
    let replay_dir = temp("held-replay");
    let other = [
        vec!["run", s(&scenario), "--out", s(&done)],
        vec!["run", s(&scenario), "--out", s(&done), "--shard", "1/2"],
        vec!["replay", "--swf", s(&log), "--out", s(&done)],
        vec!["feedback", "--swf", s(&log), "--out", s(&done)],
        vec!["merge", "--out", s(&done), s(&done)],
        vec!["report", s(&done)],
    ];
    let in_use = format!(
        "{} is in use by process {}",
        done.display(),
        std::process::id()
    );
    for args in &other {
        let o = sitesim(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&in_use), "{args:?}: {}", stderr(&o));
    }
    assert!(files(&done) == before, "the folder is as it was");

    // Let go (as a process ending lets go), the folder is written again.
    drop(lock);
    let o = sitesim(&["report", s(&done)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A folder of its own is not held by another's lock.
    let o = sitesim(&["replay", "--swf", s(&log), "--out", s(&replay_dir)]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_second_process_on_a_folder_in_use_is_refused_and_the_first_finishes() {
    // 40 runs: about 2 s in a debug build, far longer than stopping it takes.
    let scenario = experiment("two", 40);
    let out = temp("two");
    let command = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sitesim"));
        c.args(["run", s(&scenario), "--out", s(&out), "--threads", "1"]);
        c
    };
    let mut first = command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its first line comes once it holds the folder; stopped there, it keeps holding it.
    let mut line = String::new();
    BufReader::new(first.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("experiment two"), "{line}");
    let signal = |sig: &str| {
        let sent = Command::new("kill")
            .args([sig, &first.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    };
    signal("-STOP");
    let second = command().output().unwrap();
    signal("-CONT");
    assert_eq!(second.status.code(), Some(1), "{}", stderr(&second));
    assert!(
        stderr(&second).contains(&format!(
            "{} is in use by process {}",
            out.display(),
            first.id()
        )),
        "{}",
        stderr(&second)
    );
    let o = first.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["missing_runs"], 0, "{summary}");
    assert_eq!(summary["points"][0]["runs"], 40);
}

/// Replaces the value of `key` in the JSON text `json` by `value`.
fn set_value(json: &str, key: &str, value: &str) -> String {
    let at = json
        .find(&format!("\"{key}\": "))
        .expect("the key is there")
        + key.len()
        + 4;
    let end = at + json[at..].find([',', '\n']).unwrap();
    format!("{}{value}{}", &json[..at], &json[end..])
}

#[test]
fn an_edited_run_file_is_run_again_and_refused_by_merge_and_report() {
    let scenario = experiment("edited", 3);
    let out = temp("edited");
    let o = sitesim(&["run", s(&scenario), "--out", s(&out), "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let untouched = files(&out);
    let run = out.join("runs/p000/r0001.json");
    let text = fs::read_to_string(&run).unwrap();
    assert!(text.contains("\"checksum\": \""), "{text}");

    for (edited, why) in [
        (
            set_value(&text, "utilization", "0.99"),
            "its checksum does not match its content",
        ),
        (
            set_value(&text, "mean_wait", "-5"),
            "its checksum does not match its content",
        ),
        (
            text.replace(",\n  \"checksum\"", ",\n  \"crc\""),
            "no checksum",
        ),
    ] {
        assert_ne!(edited, text);
        fs::write(&run, &edited).unwrap();
        // Neither merged nor reported.
        let merged = temp("edited-merged");
        let o = sitesim(&["merge", "--out", s(&merged), s(&out)]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{}: {why}", run.display())),
            "{}",
            stderr(&o)
        );
        let o = sitesim(&["report", s(&out)]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(why), "{}", stderr(&o));
        // Resumed, the run is done again, with a warning, and counted.
        let o = sitesim(&["run", s(&scenario), "--out", s(&out), "--threads", "1"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("warning: {}: {why}", run.display())),
            "{}",
            stderr(&o)
        );
        assert!(
            stdout(&o)
                .contains("1 done now, 2 found from before, 1 file(s) not taken for finished runs"),
            "{}",
            stdout(&o)
        );
        assert!(
            files(&out) == untouched,
            "the results are the untouched ones"
        );
    }
}

#[test]
fn an_experiment_resumes_on_other_threads_with_the_same_bytes() {
    let scenario = experiment("threads", 4);
    let out = temp("threads");
    let o = sitesim(&["run", s(&scenario), "--out", s(&out), "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let whole = files(&out);
    for (args, again) in [
        (vec!["--threads", "1"], 1),
        (vec!["--set", "threads=3"], 2),
        (vec![], 1),
    ] {
        for r in 0..again {
            fs::remove_file(out.join(format!("runs/p000/r000{r}.json"))).unwrap();
        }
        fs::remove_file(out.join("summary.json")).unwrap();
        let mut full = vec!["run", s(&scenario), "--out", s(&out)];
        full.extend(&args);
        let o = sitesim(&full);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            stdout(&o).contains(&format!(
                "{again} done now, {} found from before",
                4 - again
            )),
            "{args:?}: {}",
            stdout(&o)
        );
        assert!(
            files(&out) == whole,
            "{args:?}: the same files, byte for byte"
        );
    }
    // The scenario file given threads of its own and a comment resumes too.
    let text = fs::read_to_string(&scenario).unwrap();
    fs::write(&scenario, format!("threads = 2 # two\n{text}")).unwrap();
    let o = sitesim(&["run", s(&scenario), "--out", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(files(&out) == whole);
    // What changes results is still another scenario.
    let o = sitesim(&["run", s(&scenario), "--out", s(&out), "--seed", "9"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("another scenario"), "{}", stderr(&o));
}

#[test]
fn a_fifo_planted_as_a_run_file_is_refused_not_waited_on() {
    let scenario = experiment("fifo", 2);
    let out = temp("fifo-experiment");
    let o = sitesim(&[
        "run",
        "-q",
        s(&scenario),
        "--out",
        s(&out),
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = out.join("runs/p000/r0001.json");
    assert!(run.is_file(), "{}", run.display());
    fs::remove_file(&run).unwrap();
    if !std::process::Command::new("mkfifo")
        .arg(&run)
        .status()
        .is_ok_and(|st| st.success())
    {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    // `report` and `merge` read it; a resume reads it: each ends at once, naming it.
    for args in [
        vec!["report", s(&out)],
        vec!["merge", "--out", s(&temp("fifo-merged")), s(&out)],
    ] {
        let o = sitesim(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("r0001.json") && stderr(&o).contains("not a run's file"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}
