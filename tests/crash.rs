//! Crash safety of results: an experiment killed with SIGKILL at
//! pseudo-random points and resumed each time ends with the results of an uninterrupted
//! run, byte for byte, and never takes a partial or truncated file for a finished run; a
//! full disk, a file-size limit and an unwritable directory end with an error naming the
//! file, exit code 1, and the finished runs intact.

mod common;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use sitesim::results::runs::RunRecord;

/// A model site of 128 processors for 3 weeks, two schedulers × 24 replications: 48
/// runs of a few tens of milliseconds each in a debug build. The site is fitted to what
/// it generates, which takes no trial runs: the kills fall among the runs.
const SCENARIO: &str = "name = \"crash\"\nseed = 7\nduration = \"3w\"\nreplications = 24\n\
    [machine]\nprocs = 128\n[scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\n\
    calibrate = \"generated\"\n\
    [metrics]\nwarmup = \"1w\"\n[experiment]\nschedulers = [\"easy\", \"fcfs\"]\n";
const RUNS: usize = 48;

fn temp(name: &str) -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sitesim-crash-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The scenario file, written once per test under `name`.
fn scenario(name: &str, text: &str) -> PathBuf {
    let path = temp(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn experiment(scenario: &Path, out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sitesim"));
    c.arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args(["--threads", "2", "-q"]);
    c
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(path.strip_prefix(root).unwrap().to_owned(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out
}

/// The run files under `dir` (final names only), each checked to parse as a run's
/// record: a final name never holds a partial file.
fn finished_runs(dir: &Path) -> usize {
    let mut n = 0;
    for (path, bytes) in files(dir) {
        if path.starts_with("runs") && path.extension().is_some_and(|e| e == "json") {
            serde_json::from_slice::<RunRecord>(&bytes).unwrap_or_else(|e| {
                panic!("{} is not a finished run: {e}", path.display());
            });
            n += 1;
        }
    }
    n
}

/// The `.partial` files under `dir`.
fn partial_files(dir: &Path) -> Vec<PathBuf> {
    files(dir)
        .into_keys()
        .filter(|p| p.extension().is_some_and(|e| e == "partial"))
        .collect()
}

/// A small deterministic generator (xorshift64*) for the kill points.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

#[test]
fn an_experiment_killed_and_resumed_again_and_again_ends_as_one_run_uninterrupted() {
    let started = Instant::now();
    let s = scenario("kill.toml", SCENARIO);
    let (whole, killed) = (temp("whole"), temp("killed"));
    let o = experiment(&s, &whole).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let reference = files(&whole);
    assert_eq!(finished_runs(&whole), RUNS);

    let mut rng = Rng(0x5eed_0017);
    let mut found = Vec::new();
    for _ in 0..6 {
        let mut child = experiment(&s, &killed)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(50 + rng.below(350)));
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        // Every file under a final name is complete, whatever the kill interrupted.
        let n = finished_runs(&killed);
        found.push(n);
        if status.success() {
            break; // it finished before the kill
        }
        assert_eq!(status.code(), None, "killed by a signal");
    }
    assert!(
        found.iter().any(|&n| 0 < n && n < RUNS),
        "no kill fell in the middle of the runs: {found:?}"
    );

    // A kill mid-write by an older sitesim: a truncated file under a run's final name,
    // and a stray temporary file.
    let run0 = killed.join("runs/p000/r0000.json");
    let bytes = reference[Path::new("runs/p000/r0000.json")].clone();
    std::fs::create_dir_all(run0.parent().unwrap()).unwrap();
    std::fs::write(&run0, &bytes[..bytes.len() / 2]).unwrap();
    let stray = killed.join("runs/p001/r0005.json.partial");
    std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
    std::fs::write(&stray, b"{\n  \"point\": ").unwrap();
    let before = files(&killed)
        .into_keys()
        .filter(|p| p.starts_with("runs") && p.extension().is_some_and(|e| e == "json"))
        .filter(|p| p != Path::new("runs/p000/r0000.json"))
        .count();

    let o = experiment(&s, &killed).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(
        out.contains(&format!("{} found from before", before)),
        "{before} runs were finished before: {out}"
    );
    assert!(
        err.contains(&format!("warning: {}: ", run0.display())) && err.contains("running it again"),
        "the truncated run is redone, with a warning: {err}"
    );
    assert!(
        err.contains(&format!("note: {}: unfinished", stray.display())),
        "the stray partial file is removed, with a note: {err}"
    );
    assert!(partial_files(&killed).is_empty());

    let resumed = files(&killed);
    assert_eq!(
        resumed.keys().collect::<Vec<_>>(),
        reference.keys().collect::<Vec<_>>(),
        "the same files"
    );
    for (path, bytes) in &reference {
        assert!(&resumed[path] == bytes, "{} differs", path.display());
    }
    eprintln!(
        "kills left {found:?} finished runs; {:.1} s in all",
        started.elapsed().as_secs_f64()
    );
    for d in [&whole, &killed] {
        std::fs::remove_dir_all(d).unwrap();
    }
    std::fs::remove_file(&s).unwrap();
}

/// Runs `cmd` with its files limited to `bytes` (RLIMIT_FSIZE, which binds root too) and
/// SIGXFSZ ignored, so that a write past the limit fails with EFBIG as one on a full disk
/// fails with ENOSPC.
fn limited(mut cmd: Command, bytes: u64) -> Output {
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

/// The error line of `o`, checked: exit code 1, no panic, the message names a file
/// under `dir` (not the directory itself) and gives `why`.
fn file_error(o: &Output, dir: &Path, why: &str) -> String {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line: {err}"))
        .to_owned();
    let (_, named) = line
        .split_once(&format!("{}/", dir.display()))
        .unwrap_or_else(|| panic!("the error names no file under {}: {line}", dir.display()));
    let file = named.split(": ").next().unwrap();
    assert!(
        file.ends_with(".json")
            || file.ends_with(".csv")
            || file.ends_with(".swf")
            || file.ends_with(".lock"),
        "{line}"
    );
    assert!(line.contains(why), "{line}");
    line
}

#[test]
fn a_file_too_large_for_the_disk_ends_with_its_name_and_leaves_finished_runs_intact() {
    let s = scenario(
        "limit.toml",
        &SCENARIO.replace("replications = 24", "replications = 3"),
    );
    let out = temp("limit");
    // Run files (about 4 KB) fit, summary.json (about 15 KB) does not.
    let o = limited(experiment(&s, &out), 10_000);
    let line = file_error(&o, &out, "File too large");
    assert!(line.contains("summary.json"), "{line}");
    assert_eq!(finished_runs(&out), 6);
    assert!(partial_files(&out).is_empty(), "{:?}", partial_files(&out));
    assert!(!out.join("summary.json").exists());

    // Without the limit, the experiment resumes and finishes.
    let o = experiment(&s, &out).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("0 done now, 6 found from before"));

    // The per-job outputs of a replay, and a generated log, name their files too.
    let log = out.join("log.swf");
    let gen_args = |to: &Path| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sitesim"));
        c.args(["generate", "--jobs", "3000", "--procs", "64", "-q", "--out"])
            .arg(to);
        c
    };
    let o = limited(gen_args(&log), 16_000);
    file_error(&o, &out, "File too large");
    assert!(!log.exists() && partial_files(&out).is_empty());
    assert!(gen_args(&log).output().unwrap().status.success());
    let replay = out.join("replay");
    let mut c = Command::new(env!("CARGO_BIN_EXE_sitesim"));
    c.args(["replay", "-q", "--swf"])
        .arg(&log)
        .arg("--out")
        .arg(&replay);
    let line = file_error(&limited(c, 16_000), &replay, "File too large");
    assert!(
        line.contains("jobs.csv") || line.contains("schedule.swf"),
        "{line}"
    );
    assert!(partial_files(&replay).is_empty());
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_file(&s).unwrap();
}

/// A tmpfs of `size`, unmounted on drop; `None` where mounting is not allowed.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(name: &str, size: &str) -> Option<Tmpfs> {
        let dir = temp(name);
        std::fs::create_dir_all(&dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = std::fs::remove_dir(&dir);
        }
        ok.then_some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn a_full_disk_ends_with_the_file_named_and_finished_runs_intact() {
    let Some(disk) = Tmpfs::mount("tmpfs", "64k") else {
        common::skipped("cannot mount a tmpfs here");
        return;
    };
    let s = scenario("full.toml", SCENARIO);
    let out = disk.0.join("results");
    let o = experiment(&s, &out).output().unwrap();
    let line = file_error(&o, &out, "No space left on device");
    assert!(line.contains("/runs/p0"), "a run's file: {line}");
    let n = finished_runs(&out);
    assert!(0 < n && n < RUNS, "{n} runs fit");
    assert!(partial_files(&out).is_empty(), "{:?}", partial_files(&out));
    std::fs::remove_file(&s).unwrap();
}

#[test]
fn a_full_device_as_the_output_file_is_an_error_naming_it() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        common::skipped("no /dev/full");
        return;
    }
    let o = Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args([
            "generate",
            "--jobs",
            "100",
            "--procs",
            "8",
            "--out",
            "/dev/full",
        ])
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: /dev/full: No space left on device"),
        "{err}"
    );
    // The device is written in place, never replaced by a file (as root could).
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(full)
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert!(!Path::new("/dev/full.partial").exists());
}

#[test]
fn an_unwritable_results_directory_is_an_error_naming_the_file() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        common::skipped("permissions do not stop root (the size-limit test stands in)");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let s = scenario("ro.toml", SCENARIO);
    let out = temp("ro");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o555)).unwrap();
    let o = experiment(&s, &out).output().unwrap();
    let line = file_error(&o, &out, "Permission denied");
    // The first file an experiment makes is its folder's lock.
    assert!(line.contains(".sitesim.lock"), "{line}");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_file(&s).unwrap();
}
