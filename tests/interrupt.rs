//! Ctrl-C and SIGTERM stop every command within a second, a long single run included,
//! and leave no partial file behind (docs/RELIABILITY.md, "Crash safety").

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{sitesim, stderr};

#[test]
fn a_long_single_replay_stops_at_a_signal_and_removes_its_partial_files() {
    let log = common::scratch("interrupt", "over.swf");
    let o = sitesim(&[
        "generate",
        "-q",
        "--jobs",
        "60000",
        "--procs",
        "128",
        "--load",
        "1.5",
        "--seed",
        "1",
        "--out",
        log.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for signal in ["-INT", "-TERM"] {
        let out = common::scratch("interrupt", &format!("out{signal}"));
        // Conservative backfilling of an overloaded log: minutes in a debug build.
        let child = Command::new(env!("CARGO_BIN_EXE_sitesim"))
            .args(["replay", "-q", "--scheduler", "conservative", "--swf"])
            .arg(&log)
            .arg("--out")
            .arg(&out)
            .stderr(Stdio::piped())
            .spawn()
            .expect("sitesim runs");
        // Well into the run: its files are being written.
        std::thread::sleep(Duration::from_millis(1500));
        let sent = Instant::now();
        let killed = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let o = child.wait_with_output().unwrap();
        let took = sent.elapsed();
        assert_eq!(o.status.code(), Some(130), "{signal}: {}", stderr(&o));
        assert!(
            took < Duration::from_secs(1),
            "{signal}: {took:?} after the signal"
        );
        assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
        let left: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != ".sitesim.lock")
            .collect();
        assert!(left.is_empty(), "{signal}: {left:?} left behind");
    }
}

#[test]
fn a_long_generation_stops_at_a_signal_and_removes_its_partial_file() {
    let dir = common::scratch("interrupt", "generated");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("big.swf");
    // Millions of jobs: seconds of writing in a debug build.
    let child = Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args([
            "generate", "-q", "--jobs", "9000000", "--procs", "128", "--out",
        ])
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .expect("sitesim runs");
    std::thread::sleep(Duration::from_millis(800));
    let sent = Instant::now();
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert!(
        sent.elapsed() < Duration::from_secs(1),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?} left behind");
}
