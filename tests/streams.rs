//! A log given as a stream (standard input, `/dev/stdin`, a named pipe) is read once, its
//! header and jobs in one pass, and gives the run the file gives (docs/RELIABILITY.md,
//! "Bounds"); a header past its byte bound is refused while it is read.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{logged, sitesim, stderr};

fn temp(name: &str) -> PathBuf {
    common::scratch("streams", name)
}

/// A log of `n` jobs of 1 to 4 processors from 3 users, longer than the 64 KiB a first
/// read of a pipe returns, so that a second open would start mid-log.
fn log_text(n: i64) -> String {
    let mut text = String::from("; MaxProcs: 8\n; Note: a stream test\n");
    for i in 0..n {
        text += &logged(i + 1, i % 3, 30 * i, 0, 200 + (i * 37) % 900, 1 + i % 4);
    }
    text
}

/// `sitesim replay` of `swf` into `out`, its standard input `stdin`.
fn replay(swf: &str, out: &Path, stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args(["replay", "-q", "--swf", swf, "--out", out.to_str().unwrap()])
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sitesim runs");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        std::thread::spawn(move || pipe.write_all(&bytes));
    }
    child.wait_with_output().unwrap()
}

fn jobs_csv(out: &Path) -> String {
    std::fs::read_to_string(out.join("jobs.csv")).unwrap()
}

#[test]
fn a_log_through_standard_input_or_a_pipe_gives_the_files_run() {
    let text = log_text(3_000);
    assert!(text.len() > 1 << 17);
    let file = temp("log.swf");
    std::fs::write(&file, &text).unwrap();
    let want = temp("from-file");
    let o = replay(file.to_str().unwrap(), &want, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = jobs_csv(&want);
    assert_eq!(want.lines().count(), 3_001);
    for swf in ["-", "/dev/stdin"] {
        let out = temp(&format!("from-{}", swf.replace('/', "_")));
        let o = replay(swf, &out, Some(text.as_bytes()));
        assert!(o.status.success(), "{swf}: {}", stderr(&o));
        assert_eq!(jobs_csv(&out), want, "{swf}");
    }
}

#[test]
fn a_log_through_a_named_pipe_gives_the_files_run_under_feedback() {
    let text = log_text(2_000);
    let file = temp("fb.swf");
    std::fs::write(&file, &text).unwrap();
    let fifo = temp("fb.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    let writer = {
        let (fifo, text) = (fifo.clone(), text.clone());
        std::thread::spawn(move || std::fs::write(fifo, text))
    };
    let run = |swf: &Path, out: &str| {
        let out = temp(out);
        let o = sitesim(&[
            "feedback",
            "-q",
            "--swf",
            swf.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        jobs_csv(&out)
    };
    let through_pipe = run(&fifo, "fb-fifo");
    writer.join().unwrap().unwrap();
    assert_eq!(through_pipe, run(&file, "fb-file"));
}

#[test]
fn a_header_past_its_byte_bound_is_refused_naming_the_line() {
    let line = format!("; Note: {}\n", "x".repeat(100_000));
    let text = line.repeat(12) + &logged(1, 1, 0, 0, 10, 1);
    let o = replay("-", &temp("big-header"), Some(text.as_bytes()));
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("-:11: the header's comment lines hold more than 1048576 bytes"),
        "{e}"
    );
}

#[test]
fn max_jobs_applies_while_a_stream_is_read() {
    let text = log_text(3);
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args(["replay", "-q", "--swf", "-", "--max-jobs", "2"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--max-jobs"), "{}", stderr(&o));
}
