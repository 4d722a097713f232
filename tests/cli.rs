//! The `sitesim` command line: exit codes, messages, outputs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{sitesim, stderr};

/// `name` in this test binary's scratch folder.
fn temp(name: &str) -> PathBuf {
    common::scratch("cli", name)
}

/// The summary.json a run wrote to `out`.
fn summary_json(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

const LOG: &str = "; MaxProcs: 8\n\
1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 5 0 50 8 -1 -1 8 60 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 9 0 20 2 -1 -1 2 30 -1 1 1 1 -1 -1 -1 -1 -1\n";

/// `sitesim model` is the model site of a scenario with the same keys: the same files.
#[test]
fn the_model_command_runs_the_scenario_of_its_flags() {
    let (flags, scenario) = (temp("model-flags"), temp("model-scenario"));
    let o = sitesim(&[
        "model",
        "--procs",
        "128",
        "--scheduler",
        "fcfs",
        "--duration",
        "3w",
        "--warmup",
        "1w",
        "--replications",
        "2",
        "--users",
        "1.5",
        "--busy-user",
        "queue",
        "--daily-cycle",
        "false",
        "--patience",
        "1d",
        "--out",
        flags.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = "seed = 1\nduration = \"3w\"\nreplications = 2\n[machine]\nprocs = 128\n\
                [scheduler]\npolicy = \"fcfs\"\n[metrics]\nwarmup = \"1w\"\n\
                [population]\nusers = 1.5\n[workload]\nsource = \"model\"\n\
                busy_user = \"queue\"\ndaily_cycle = false\n[workload.users]\npatience = \"1d\"\n";
    let file = temp("model.toml");
    std::fs::write(&file, text).unwrap();
    let o = sitesim(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        scenario.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for name in ["summary.json", "replications.csv", "weekly.csv"] {
        assert_eq!(
            std::fs::read(flags.join(name)).unwrap(),
            std::fs::read(scenario.join(name)).unwrap(),
            "{name}"
        );
    }
    // Without its processors a model site is refused, naming the key.
    let o = sitesim(&["model", "--duration", "3w"]);
    assert!(
        stderr(&o).contains("[machine] procs is required"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn usage_errors_exit_with_code_2() {
    for (args, needle) in [
        (vec!["replay", "--swf", "x.swf", "--bogus"], "--bogus"),
        (vec!["replay", "--swf", "x.swf", "--procs", "0"], "--procs"),
        (
            vec!["replay", "--swf", "x.swf", "--scheduler", "sjf"],
            "sjf",
        ),
        (
            vec!["replay", "--swf", "x.swf", "--interarrival-factor", "-1"],
            "positive",
        ),
        (
            vec!["replay", "--swf", "x.swf", "--questionable", "size=skip"],
            "unknown kind",
        ),
        (
            vec!["replay", "--swf", "x.swf", "--warmup", "3y"],
            "no fixed length",
        ),
        (vec!["replay"], "--swf"),
        (vec!["frobnicate"], "frobnicate"),
        (
            vec!["replay", "--swf", "x.swf", "--scheduler", "creasy:alpha=3"],
            "alpha must be in [0, 1]",
        ),
        (vec!["run", "--shard", "3/2"], "shard"),
        (vec!["run", "--threads", "0"], "--threads"),
        (
            vec!["report", "x", "--schedule-length", "0"],
            "the schedule view shows at least 1 second",
        ),
        (
            vec!["feedback", "--swf", "x.swf", "--time-zone", "NaN"],
            "'NaN' is not a time zone",
        ),
        (
            vec!["feedback", "--swf", "x.swf", "--strikes", "0"],
            "--strikes",
        ),
        (
            vec!["replay", "--swf", "x.swf", "--bsld-threshold", "0"],
            "at least 1 second",
        ),
        // Refused before the log (which does not exist) is read.
        (
            vec![
                "replay",
                "--swf",
                "x.swf",
                "--scheduler",
                "conservative",
                "--predictor",
                "sbh",
            ],
            "'conservative' plans with estimates and cannot use --predictor sbh",
        ),
        (
            vec![
                "sweep",
                "--swf",
                "x.swf",
                "--populations",
                "1",
                "--schedulers",
                "easy",
                "--schedulers",
                "logged",
                "--predictor",
                "ruh",
            ],
            "'logged' plans with estimates",
        ),
    ] {
        let o = sitesim(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn input_errors_name_file_line_and_field() {
    let o = sitesim(&["replay", "--swf", "/no/such/log.swf"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/no/such/log.swf"), "{}", stderr(&o));

    let bad = temp("bad.swf");
    std::fs::write(
        &bad,
        format!("{LOG}4 12 -1 2x0 2 -1 -1 2 30 -1 1 1 1 -1 -1 -1 -1 -1\n"),
    )
    .unwrap();
    let o = sitesim(&["replay", "--swf", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bad.swf:5: field 4 (run time): '2x0' is not a number"),
        "{}",
        stderr(&o)
    );

    let no_size = temp("nosize.swf");
    std::fs::write(
        &no_size,
        "1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let o = sitesim(&["replay", "--swf", no_size.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--procs"), "{}", stderr(&o));
}

/// One processor; a job of a century (3,153,600,000 s, the longest time sitesim takes)
/// runs first. The next job waits exactly a century: accepted, and the schedule written
/// reads back. A third waits a second longer: refused by name (found by the fuzz target
/// `replay`, which writes the outputs and reads them back: schedules with such waits were
/// written and could not be read).
#[test]
fn a_wait_past_a_century_is_refused_and_every_schedule_written_reads_back() {
    let century = 3_153_600_000_i64;
    let line =
        |n: u32, run: i64| format!("{n} 0 -1 {run} 1 -1 -1 1 {run} -1 1 1 1 -1 -1 -1 -1 -1\n");
    let two = temp("century-two.swf");
    std::fs::write(&two, [line(1, century), line(2, 1)].concat()).unwrap();
    let out = temp("century-out");
    let o = sitesim(&[
        "replay",
        "--swf",
        two.to_str().unwrap(),
        "--procs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let schedule = out.join("schedule.swf");
    let o = sitesim(&[
        "replay",
        "--swf",
        schedule.to_str().unwrap(),
        "--procs",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    let three = temp("century-three.swf");
    std::fs::write(&three, [line(1, century), line(2, 1), line(3, 1)].concat()).unwrap();
    let o = sitesim(&["replay", "--swf", three.to_str().unwrap(), "--procs", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .contains("at time 3153600001 job 3, submitted at 0, has waited longer than 100 years"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn replay_prints_a_summary_and_writes_outputs() {
    let log = temp("ok.swf");
    std::fs::write(&log, LOG).unwrap();
    let out = temp("out");
    let o = sitesim(&[
        "replay",
        "--swf",
        log.to_str().unwrap(),
        "--scheduler",
        "easy",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("on 8 processors: easy"), "{text}");
    assert!(text.contains("3 simulated"), "{text}");
    let summary = summary_json(&out);
    assert_eq!(summary["metrics"]["jobs"]["jobs"], 3);
    // Job 3 (2 processors, 30 s) is backfilled at 9 beside job 1 while job 2 waits.
    assert_eq!(summary["counts"]["backfilled"], 1);
    let csv = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4);
    assert!(
        csv.lines().nth(3).unwrap().starts_with("3,2,1,9,0,9,29,"),
        "{csv}"
    );
    let swf = std::fs::read_to_string(out.join("schedule.swf")).unwrap();
    assert!(swf.contains("; Note: simulated by sitesim"), "{swf}");
    assert!(!out.join("jobs.csv.partial").exists());
}

#[test]
fn generate_writes_a_log_that_replays() {
    let log = temp("synthetic.swf");
    let o = sitesim(&[
        "generate",
        "--jobs",
        "500",
        "--procs",
        "64",
        "--out",
        log.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sitesim(&[
        "replay",
        "--swf",
        log.to_str().unwrap(),
        "--scheduler",
        "conservative",
        "--check",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("500 simulated"));
}

/// Fuzzing `generate` and `estimates`: a tiny load wrote every job at the
/// largest time there is, a log no reader takes back; many jobs with a short maximum
/// gave negative estimates.
#[test]
fn generate_and_estimates_refuse_or_bound_what_no_log_has() {
    let log = temp("tiny-load.swf");
    let o = sitesim(&[
        "generate",
        "--jobs",
        "10",
        "--procs",
        "4",
        "--load",
        "1e-300",
        "--out",
        log.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("synthetic(10 jobs, load 1e-300, seed 1):1: field 2 (submit time)")
            && stderr(&o).contains("after 100 years"),
        "{}",
        stderr(&o)
    );
    assert!(!log.exists() && !temp("tiny-load.swf.partial").exists());
    let o = sitesim(&[
        "estimates",
        "--jobs",
        "100000000",
        "--max",
        "1d",
        "--share",
        "50",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("86400 distinct values"), "{table}");
    assert!(
        !table.contains(" -") && table.contains(" 00:00:01 "),
        "{table}"
    );
}

/// Reviewing the commands left unfuzzed: a population multiplier of 1e308
/// asked for more users than a count holds, and `resample`, `sweep` and `run` took
/// gigabytes until they were killed; each refuses it by name at once.
#[test]
fn population_multipliers_past_what_one_population_holds_are_refused() {
    let mut log = String::from("; MaxProcs: 4\n");
    for j in 1..=20 {
        log += &format!(
            "{j} {} 0 30 4 -1 -1 4 30 -1 1 1 1 -1 -1 -1 -1 -1\n",
            j * 86_400
        );
    }
    let swf = temp("daily-user.swf");
    std::fs::write(&swf, log).unwrap();
    let swf = swf.to_str().unwrap();
    let sweep = temp("huge-sweep");
    let model = temp("huge-model");
    for (args, needle) in [
        (
            vec!["resample", "--swf", swf, "--population", "1e308"],
            "the long-term users at the start would be 1e308 users",
        ),
        (
            vec![
                "sweep",
                "--swf",
                swf,
                "--populations",
                "1,1e308",
                "--out",
                sweep.to_str().unwrap(),
            ],
            "the long-term users at the start would be 1e308 users",
        ),
        (
            vec![
                "run",
                "--set",
                "population.users=1e308",
                "--replications",
                "1",
                "--out",
                model.to_str().unwrap(),
            ],
            "the users at the start would be",
        ),
    ] {
        let o = sitesim(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(needle) && stderr(&o).contains("more than the 100000"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn feedback_and_analyze_report_users_and_write_their_files() {
    let log = temp("users.swf");
    // With a header time zone; user 1 has two sessions, user 2 one job.
    std::fs::write(
        &log,
        format!(
            "; UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n{LOG}\
             4 9000 0 20 2 -1 -1 2 30 -1 1 1 1 -1 -1 -1 -1 -1\n"
        ),
    )
    .unwrap();
    let out = temp("fb-out");
    let o = sitesim(&[
        "feedback",
        "--swf",
        log.to_str().unwrap(),
        "--scheduler",
        "easy",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("feedback replay of"), "{text}");
    assert!(text.contains("2 users: 2 done"), "{text}");
    assert!(text.contains("local time Europe/Stockholm"), "{text}");
    for f in [
        "summary.json",
        "jobs.csv",
        "schedule.swf",
        "users.csv",
        "sessions.csv",
        "cycles.csv",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let users = std::fs::read_to_string(out.join("users.csv")).unwrap();
    assert_eq!(users.lines().count(), 3, "{users}");
    assert!(
        users.lines().nth(1).unwrap().starts_with("1,done,3,3,3,2,"),
        "{users}"
    );
    let cycles = std::fs::read_to_string(out.join("cycles.csv")).unwrap();
    assert_eq!(cycles.lines().count(), 1 + 168);

    let fit = temp("curve.toml");
    let o = sitesim(&[
        "analyze",
        "--swf",
        log.to_str().unwrap(),
        "--fit-continuation",
        fit.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("4 jobs by 2 users"), "{text}");
    assert!(text.contains("sessions               3"), "{text}");
    // One pair counts (job 4 after job 3), one is concurrent (job 3 while job 1 ran).
    assert!(
        text.contains("1 pairs with think time >= 0 (1 submitted"),
        "{text}"
    );
    let o = sitesim(&[
        "analyze",
        "--swf",
        log.to_str().unwrap(),
        "--plot-continuation",
        temp("curve.svg").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for svg in ["curve.svg", "curve-slowdown.svg"] {
        assert!(
            std::fs::read_to_string(temp(svg))
                .unwrap()
                .starts_with("<svg")
        );
    }
    // Without the last job, the only pair was submitted while the previous job ran:
    // nothing to plot.
    let short = temp("short.swf");
    std::fs::write(&short, LOG).unwrap();
    let o = sitesim(&[
        "analyze",
        "--swf",
        short.to_str().unwrap(),
        "--plot-continuation",
        temp("none.svg").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothing to plot"), "{}", stderr(&o));
    let o = sitesim(&[
        "feedback",
        "--swf",
        log.to_str().unwrap(),
        "--continuation",
        fit.to_str().unwrap(),
        "--patience",
        "1h",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("continuation curve"));
}

#[test]
fn feedback_input_errors_are_clear() {
    let log = temp("fb.swf");
    std::fs::write(&log, LOG).unwrap();
    let path = log.to_str().unwrap();
    let o = sitesim(&["feedback", "--swf", path, "--strikes", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--strikes"), "{}", stderr(&o));
    let o = sitesim(&["feedback", "--swf", path, "--patience", "soon"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("'fit', 'off'"), "{}", stderr(&o));
    let o = sitesim(&["feedback", "--swf", path, "--opening-think", "long"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("calendar, keep-lead, original, capped, zero"),
        "{}",
        stderr(&o)
    );
    // A log without waits is refused, naming the first line without one, unless the
    // user chooses what to take for them.
    let no_waits = temp("no-waits.swf");
    std::fs::write(&no_waits, LOG.replacen("9 0 20", "9 -1 20", 1)).unwrap();
    let nw = no_waits.to_str().unwrap();
    let o = sitesim(&["feedback", "--swf", nw]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "no-waits.swf:4: field 3 (wait time): wait is unknown (-1), as for 1 of the 3 jobs"
        ),
        "{}",
        stderr(&o)
    );
    for rule in ["zero", "replay", "replay:fcfs"] {
        let o = sitesim(&["feedback", "--swf", nw, "--unknown-waits", rule]);
        assert!(o.status.success(), "{rule}: {}", stderr(&o));
    }
    let o = sitesim(&["feedback", "--swf", nw, "--unknown-waits", "replay:sjf"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown policy 'sjf'"),
        "{}",
        stderr(&o)
    );
    // A zone that is not one is refused with the command line, a usage error.
    let o = sitesim(&["feedback", "--swf", path, "--time-zone", "Mars/Olympus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'Mars/Olympus' is not a time zone"),
        "{}",
        stderr(&o)
    );
    let o = sitesim(&["feedback", "--swf", path, "--continuation", "/no/such.toml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/no/such.toml"), "{}", stderr(&o));
    let bad = temp("bad-curve.toml");
    std::fs::write(
        &bad,
        "source = \"x\"\nthreshold = 1200\npairs = 1\nconcurrent = 0\nmedian_think = 1\n\
         [logistic]\nintercept = 0.0\nslope = 0.0\n\
         [[bucket]]\ncontinue = 2.0\njobs = 1\ncontinued = 1\n\
         [[slowdown]]\ncontinue = 1.0\njobs = 1\ncontinued = 1\n\
         [[runtime]]\ncontinue = 1.0\njobs = 1\ncontinued = 1\n",
    )
    .unwrap();
    let o = sitesim(&[
        "feedback",
        "--swf",
        path,
        "--continuation",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .contains("bad-curve.toml: [[bucket]] the last: continue = 2 is not a probability"),
        "{}",
        stderr(&o)
    );
    // A log without a zone says so, and runs on UTC.
    let o = sitesim(&["feedback", "--swf", path]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: the log gives no time zone"));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("warning"));
}

/// A log of one session of each class on 8 processors, in UTC from Monday 1970-01-05.
const FIT_LOG: &str = "; MaxProcs: 8\n; UnixStartTime: 345600\n; TimeZone: 0\n\
1 36000 0 60 1 -1 -1 1 120 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 36100 0 60 1 -1 -1 1 120 -1 1 1 1 -1 -1 -1 -1 -1\n\
3 72000 0 60 1 -1 -1 1 120 -1 1 1 1 -1 -1 -1 -1 -1\n\
4 122400 0 60 4 -1 -1 4 120 -1 1 2 1 -1 -1 -1 -1 -1\n\
5 208800 0 57600 1 -1 -1 1 60000 -1 1 3 1 -1 -1 -1 -1 -1\n\
6 468000 0 60 1 -1 -1 1 120 -1 1 1 1 -1 -1 -1 -1 -1\n";

#[test]
fn fit_writes_a_model_that_reads_back() {
    let log = temp("fit.swf");
    std::fs::write(&log, FIT_LOG).unwrap();
    let out = temp("fit.toml");
    let o = sitesim(&[
        "fit",
        "--swf",
        log.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for class in ["(IWD)", "(IWN)", "(IW)", "(BHP)", "(BHD)"] {
        assert!(text.contains(class), "{text}");
    }
    assert!(text.contains("(5 sessions"), "{text}");
    let model = std::fs::read_to_string(&out).unwrap();
    assert!(model.contains("# Regenerate with"), "{model}");
    assert!(model.contains("--out"), "{model}");
    let layer = sitesim::model::JobLayer::parse(&model, "fit.toml").unwrap();
    let iwd = &layer.file().class.iwd;
    assert_eq!((iwd.sessions, iwd.jobs.len()), (1, 2));
    assert!(!out.with_file_name("fit.toml.partial").exists());
}

#[test]
fn fit_errors_name_the_file_or_the_class() {
    let o = sitesim(&["fit", "--swf", "/no/such/fit.swf", "--out", "x.toml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/no/such/fit.swf"), "{}", stderr(&o));

    let o = sitesim(&["fit", "--out", "x.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--swf"), "{}", stderr(&o));

    let anonymous = temp("anonymous.swf");
    std::fs::write(
        &anonymous,
        FIT_LOG
            .replace(" 1 1 1 -1", " 1 -1 1 -1")
            .replace(" 1 2 1 -1", " 1 -1 1 -1")
            .replace(" 1 3 1 -1", " 1 -1 1 -1"),
    )
    .unwrap();
    let o = sitesim(&[
        "fit",
        "--swf",
        anonymous.to_str().unwrap(),
        "--out",
        "x.toml",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("anonymous.swf") && stderr(&o).contains("no user ids"),
        "{}",
        stderr(&o)
    );

    // Without the BHD session (job 5).
    let partial = temp("partial.swf");
    let lines: Vec<&str> = FIT_LOG.lines().filter(|l| !l.starts_with("5 ")).collect();
    std::fs::write(&partial, lines.join("\n") + "\n").unwrap();
    let out = temp("partial.toml");
    let o = sitesim(&[
        "fit",
        "--swf",
        partial.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("partial.swf") && stderr(&o).contains("class BHD"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

#[test]
fn an_experiment_runs_in_shards_merges_and_reports() {
    let o = sitesim(&["policies"]);
    assert!(o.status.success());
    let list = String::from_utf8_lossy(&o.stdout).into_owned();
    for name in ["easy", "creasy", "pbas", "wbas", "time-of-day"] {
        assert!(list.contains(name), "{name} missing from: {list}");
    }
    let scenario = temp("experiment.toml");
    std::fs::write(
        &scenario,
        "name = \"cli\"\nduration = \"3w\"\nreplications = 2\n[machine]\nprocs = 128\n\
         [scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\n[metrics]\nwarmup = \"1w\"\n\
         [experiment]\nschedulers = [\"easy\", \"creasy:alpha=1\"]\n",
    )
    .unwrap();
    let s = scenario.to_str().unwrap();
    let (a, b, merged) = (temp("shard-a"), temp("shard-b"), temp("merged"));
    for (shard, dir) in [("1/2", &a), ("2/2", &b)] {
        let o = sitesim(&["run", s, "--shard", shard, "--out", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = sitesim(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 run(s) missing"));
    let o = sitesim(&["report", merged.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(merged.join("report/index.html")).unwrap();
    assert!(page.contains("creasy:alpha=1") && page.contains("Paired differences"));
    // Running the whole experiment into the merged directory redoes nothing.
    let o = sitesim(&["run", s, "--out", merged.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("0 done now, 4 found from before"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // --shard belongs to experiments (--out to every scenario).
    let o = sitesim(&["run", "--shard", "1/2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("[experiment]"));
}

/// A small log of ten weeks: user 1 works every weekday, users 2 and 3 for two weeks each,
/// every job with a logged wait.
fn ten_weeks() -> String {
    let mut log = String::from("; MaxProcs: 8\n");
    let mut n = 0;
    let mut job = |log: &mut String, user: i64, t: i64, wait: i64| {
        n += 1;
        log.push_str(&format!(
            "{n} {t} {wait} 600 2 -1 -1 2 1200 -1 1 {user} 1 -1 -1 -1 -1 -1\n"
        ));
    };
    for day in 0..70 {
        let t = day * 86_400 + 9 * 3600;
        if day % 7 < 5 {
            job(&mut log, 1, t, 60);
            job(&mut log, 1, t + 900, 0);
        }
        if (21..35).contains(&day) {
            job(&mut log, 2, t + 1800, 120);
        }
        if (42..56).contains(&day) {
            job(&mut log, 3, t + 2400, 30);
        }
    }
    log
}

/// Found by the `resample-args` and `sweep-args` fuzz targets: a population that submits
/// no job failed with "no job was submitted" alone, and a sweep's failed run named its
/// scheduler but not the point (the population) it failed at.
#[test]
fn a_population_that_submits_nothing_is_named_with_its_point() {
    let swf = temp("ten-weeks-empty-population.swf");
    std::fs::write(&swf, ten_weeks()).unwrap();
    let swf = swf.to_str().unwrap();
    let o = sitesim(&[
        "resample",
        "--swf",
        swf,
        "--weeks",
        "2",
        "--population",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no job was submitted by long-term users x0 and temporary users x0")
            && stderr(&o).contains("--population"),
        "{}",
        stderr(&o)
    );
    let out = temp("sweep-empty-population");
    let o = sitesim(&[
        "sweep",
        "--swf",
        swf,
        "--weeks",
        "2",
        "--replications",
        "1",
        "--populations",
        "1,0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("p001 (easy, population = 0) replication 0: no job was submitted"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn calibrate_gives_back_the_log_and_writes_the_same_files_on_any_thread_count() {
    let log = temp("ten-weeks.swf");
    std::fs::write(&log, ten_weeks()).unwrap();
    let run = |threads: &str| {
        let out = temp(&format!("cal-{threads}"));
        let o = sitesim(&[
            "calibrate",
            "--swf",
            log.to_str().unwrap(),
            "--weeks",
            "4",
            "--warmup",
            "1w",
            "--replications",
            "3",
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        (String::from_utf8_lossy(&o.stdout).into_owned(), out)
    };
    let (text, one) = run("1");
    assert!(
        text.contains(
            "identity     the log's own service, fed back: 128 jobs at their logged time, 0 early"
        ),
        "{text}"
    );
    assert!(text.contains("resampled, easy, no feedback"), "{text}");
    let (_, two) = run("2");
    for f in [
        "calibrate.json",
        "calibrate.csv",
        "users.csv",
        "report/index.html",
        "report/wait-with-feedback.svg",
        "report/throughput-logged.svg",
    ] {
        let a = std::fs::read(one.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(a, std::fs::read(two.join(f)).unwrap(), "{f} differs");
    }
    // The report is in DIR/report/, as every other's, in the same template: facts,
    // tables with units in their headers, figures with captions; `sitesim report DIR`
    // writes it again from calibrate.json, to the same bytes.
    assert!(!one.join("index.html").exists());
    let page = std::fs::read_to_string(one.join("report/index.html")).unwrap();
    for text in [
        "<h1>Calibration of ten-weeks.swf against easy</h1>",
        "<dt>processors</dt>",
        "<th>mean wait (h)</th>",
        "<figcaption>The mean wait (h) of each resampled workload",
        "<a href=\"../users.csv\">users.csv</a>",
    ] {
        assert!(page.contains(text), "no {text} in {page}");
    }
    assert!(!page.contains("<pre>"), "{page}");
    let before = std::fs::read(one.join("report/wait-with-feedback.svg")).unwrap();
    std::fs::remove_dir_all(one.join("report")).unwrap();
    let o = sitesim(&["report", one.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.starts_with("wrote 6 file(s); open ") && said.contains("report/index.html"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(one.join("report/index.html")).unwrap(),
        page
    );
    assert_eq!(
        std::fs::read(one.join("report/wait-with-feedback.svg")).unwrap(),
        before
    );
    // Every row of calibrate.csv has the header's columns (its labels hold commas).
    let mut rows = csv::Reader::from_path(one.join("calibrate.csv")).unwrap();
    let columns = rows.headers().unwrap().len();
    let labels: Vec<String> = rows
        .records()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(r.len(), columns, "{r:?}");
            r[0].to_owned()
        })
        .collect();
    assert!(
        labels.contains(&"resampled, without feedback".to_owned()),
        "{labels:?}"
    );
    // The log's own service replays the logged waits: (100 x 30 + 14 x 120 + 14 x 30) / 128.
    let o = sitesim(&[
        "replay",
        "--swf",
        log.to_str().unwrap(),
        "--scheduler",
        "logged",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("wait          mean    00:00:40"), "{out}");
}

/// A machine smaller than the peak the log's own schedule keeps busy: replay and feedback
/// warn on stderr and record it in summary.json; calibrate refuses it with exit code 2.
#[test]
fn a_machine_smaller_than_the_logs_own_schedule_is_warned_of_and_refused_by_calibrate() {
    // Two processors busy at most (jobs of 2 that never overlap).
    let log = temp("peak.swf");
    std::fs::write(&log, ten_weeks()).unwrap();
    let log = log.to_str().unwrap();
    for command in ["replay", "feedback"] {
        let out = temp(&format!("peak-{command}"));
        let run = |procs: &str| {
            let o = sitesim(&[
                command,
                "--swf",
                log,
                "--procs",
                procs,
                "--questionable",
                "oversize=clamp",
                "--out",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{command}: {}", stderr(&o));
            let summary = summary_json(&out);
            (stderr(&o), summary["input"]["machine"].clone())
        };
        let (warned, machine) = run("1");
        assert!(
            warned.contains("the simulated machine of 1 processors is smaller than the 2"),
            "{command}: {warned}"
        );
        assert_eq!(machine["holds_the_log"], false, "{command}: {machine}");
        assert_eq!(
            machine["logged_peak"]["sustained"], 2,
            "{command}: {machine}"
        );
        let (quiet, machine) = run("2");
        assert!(!quiet.contains("smaller than"), "{command}: {quiet}");
        assert_eq!(machine["holds_the_log"], true, "{command}: {machine}");
    }
    let o = sitesim(&[
        "calibrate",
        "--swf",
        log,
        "--procs",
        "1",
        "--weeks",
        "4",
        "--warmup",
        "1w",
        "--questionable",
        "oversize=clamp",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("smaller than the 2"), "{}", stderr(&o));
    // Waits the log does not give, estimated by an open-loop replay: the peak is the
    // schedule of the estimated waits, which fits the machine that made it.
    let unknown = temp("peak-unknown.swf");
    let without_waits: String = ten_weeks()
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(' ').collect();
            if f.len() > 3 {
                f[2] = "-1";
            }
            f.join(" ") + "\n"
        })
        .collect();
    std::fs::write(&unknown, without_waits).unwrap();
    let out = temp("peak-unknown-out");
    let o = sitesim(&[
        "feedback",
        "--swf",
        unknown.to_str().unwrap(),
        "--unknown-waits",
        "replay:easy",
        "--procs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = summary_json(&out);
    let machine = &summary["input"]["machine"];
    assert_eq!(machine["logged_peak"]["assumed_waits"], 128, "{machine}");
    assert_eq!(machine["logged_peak"]["unknown"], 0, "{machine}");
    assert_eq!(machine["logged_peak"]["procs"], 2, "{machine}");
    assert_eq!(machine["holds_the_log"], true, "{machine}");
}

/// `sitesim sweep` is an experiment: shards merge into the results of one process, byte
/// for byte, and running it again into the merged directory redoes nothing.
#[test]
fn a_sweep_is_an_experiment_that_shards_merges_and_resumes() {
    let log = temp("sweep-ten-weeks.swf");
    std::fs::write(&log, ten_weeks()).unwrap();
    let sweep = |out: &PathBuf, shard: Option<&str>| {
        let mut args = vec![
            "sweep",
            "--swf",
            log.to_str().unwrap(),
            "--schedulers",
            "fcfs",
            "--schedulers",
            "easy",
            "--populations",
            "1,2",
            "--weeks",
            "3",
            "--warmup",
            "1w",
            "--replications",
            "2",
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let o = sitesim(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let whole = temp("sweep-whole");
    let text = sweep(&whole, None);
    assert!(text.contains("4 point(s) x 2 replication(s)"), "{text}");
    assert!(text.contains("easy: highest utilization"), "{text}");
    let (a, b, merged) = (temp("sweep-a"), temp("sweep-b"), temp("sweep-merged"));
    sweep(&a, Some("1/2"));
    sweep(&b, Some("2/2"));
    let o = sitesim(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["experiment.json", "summary.json", "runs.csv"] {
        assert_eq!(
            std::fs::read(whole.join(f)).unwrap(),
            std::fs::read(merged.join(f)).unwrap(),
            "{f}"
        );
    }
    let again = sweep(&merged, None);
    assert!(again.contains("0 done now, 8 found from before"), "{again}");
}

#[test]
fn gzip_logs_read_as_the_plain_ones_and_corrupt_ones_name_file_and_line() {
    use std::io::Write;
    // A log long enough that the gzip stream spans several blocks.
    let mut text = String::from("; MaxProcs: 8\n");
    for n in 1..=3000 {
        text.push_str(&format!(
            "{n} {} 0 {} {} -1 -1 {} 100 -1 1 {} 1 -1 -1 -1 -1 -1\n",
            n * 7,
            10 + n % 50,
            1 + n % 8,
            1 + n % 8,
            n % 5
        ));
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let plain = temp("long.swf");
    std::fs::write(&plain, &text).unwrap();
    let packed = temp("long.swf.gz");
    std::fs::write(&packed, &gz).unwrap();
    let replay = |log: &PathBuf, out: &str| {
        let out = temp(out);
        let o = sitesim(&[
            "replay",
            "--swf",
            log.to_str().unwrap(),
            "--scheduler",
            "easy",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(out.join("jobs.csv")).unwrap()
    };
    assert_eq!(replay(&packed, "gz-out"), replay(&plain, "plain-out"));
    // Cut short: the error names the file and the line being read.
    let cut = temp("cut.swf.gz");
    std::fs::write(&cut, &gz[..gz.len() / 2]).unwrap();
    let o = sitesim(&["replay", "--swf", cut.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    let at = format!("{}:", cut.display());
    assert!(e.contains(&at), "{e}");
    let line: u64 = e[e.find(&at).unwrap() + at.len()..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|_| panic!("a line number in {e}"));
    assert!(line > 1 && line <= 3001, "{e}");
}

/// A seed takes the whole of u64: past TOML's i64 it is written as a string of digits,
/// from `--seed` and in a scenario file alike; a negative one is refused by name.
#[test]
fn seeds_take_the_full_u64() {
    let out = temp("largest-seed");
    let max = u64::MAX.to_string();
    let o = sitesim(&[
        "run",
        "--seed",
        &max,
        "--replications",
        "1",
        "--set",
        "duration=3w",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(summary_json(&out)["seed"], u64::MAX);
    let file = temp("largest-seed.toml");
    for (seed, ok) in [(format!("\"{max}\""), true), ("-1".to_owned(), false)] {
        let text = format!(
            "seed = {seed}\nduration = \"3w\"\nreplications = 1\n[machine]\nprocs = 128\n\
             [metrics]\nwarmup = \"1w\"\n[workload]\nsource = \"model\"\n"
        );
        std::fs::write(&file, text).unwrap();
        let o = sitesim(&["run", file.to_str().unwrap()]);
        assert_eq!(o.status.success(), ok, "seed = {seed}: {}", stderr(&o));
        if !ok {
            assert!(
                stderr(&o).contains("a seed is a whole number"),
                "{}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn run_takes_overrides_and_writes_any_scenario_to_out() {
    let out = temp("overridden");
    let o = sitesim(&[
        "run",
        "--replications",
        "2",
        "--seed",
        "7",
        "--set",
        "population.users=0.5",
        "--set",
        "workload.users.continuation=off",
        "--set",
        "duration=4w",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = summary_json(&out);
    assert_eq!(s["replications_asked"], 2);
    assert_eq!(s["seed"], 7);
    assert_eq!(s["users"], 0.5);
    assert!(s["continuation"].is_null(), "{}", s["continuation"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("reactions              none"), "{text}");
    for bad in ["=3", "noequals"] {
        let o = sitesim(&["run", "--set", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
    }
    let o = sitesim(&["run", "--set", "machine=1", "--set", "machine.procs=2"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("'machine' is not a table"),
        "{}",
        stderr(&o)
    );
    // A value the scenario cannot take is refused with the setting named as given, not
    // at a line of the scenario as the settings left it.
    let o = sitesim(&["run", "--seed", "3", "--set", "population=1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--set population=1: invalid type: integer `1`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn completions_and_the_manual_page_come_from_the_options() {
    for shell in ["bash", "zsh", "fish"] {
        let o = sitesim(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("feedback") && text.contains("continuation"),
            "{shell}"
        );
    }
    let o = sitesim(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    let o = sitesim(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = String::from_utf8_lossy(&o.stdout);
    assert!(page.contains(".TH sitesim 1"), "{page}");
    assert!(page.contains("completions"), "{page}");
    assert!(page.contains(".SH \"EXIT STATUS\""), "{page}");
    // Every command the top page lists has its own page.
    for command in ["replay", "feedback", "resample", "report", "export", "run"] {
        let o = sitesim(&["man", command]);
        assert!(o.status.success(), "{command}: {}", stderr(&o));
        let page = String::from_utf8_lossy(&o.stdout);
        assert!(page.contains(&format!(".TH sitesim-{command} 1")), "{page}");
        assert!(page.contains(".SH \"EXIT STATUS\""), "{command}");
    }
    assert_eq!(sitesim(&["man", "nosuch"]).status.code(), Some(1));
    // --help says the exit status; completions offer the policies' names.
    let help = String::from_utf8_lossy(&sitesim(&["replay", "--help"]).stdout).into_owned();
    assert!(
        help.contains("Exit status:") && help.contains("130"),
        "{help}"
    );
    let bash = String::from_utf8_lossy(&sitesim(&["completions", "bash"]).stdout).into_owned();
    assert!(
        bash.contains("conservative creasy easy fairshare fcfs flex"),
        "the policies"
    );
}

#[test]
fn quiet_silences_the_notes_and_bars_stay_off_when_stderr_is_not_a_terminal() {
    let scenario = temp("quiet.toml");
    std::fs::write(
        &scenario,
        "name = \"quiet\"\nduration = \"2w\"\nreplications = 3\n[machine]\nprocs = 128\n\
         [scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\n",
    )
    .unwrap();
    let s = scenario.to_str().unwrap();
    let (loud, quiet) = (temp("loud"), temp("quiet"));
    // stderr here is a pipe: the replications' progress bar is not drawn, the notes are.
    let o = sitesim(&["run", s, "--out", loud.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let notes = stderr(&o);
    assert!(
        notes.contains("wrote") && notes.contains("ran in"),
        "{notes}"
    );
    assert!(
        !notes.contains('\r') && !notes.contains('\u{1b}') && !notes.contains("replications ["),
        "a progress bar on a pipe: {notes:?}"
    );
    let o = sitesim(&["run", s, "--quiet", "--out", quiet.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    assert!(!o.stdout.is_empty(), "--quiet keeps the results");
    assert_eq!(
        std::fs::read(loud.join("summary.json")).unwrap(),
        std::fs::read(quiet.join("summary.json")).unwrap()
    );
}

#[test]
fn no_color_is_respected() {
    let error = |no_color: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sitesim"));
        c.args(["replay", "--bogus"]).env("CLICOLOR_FORCE", "1");
        if no_color {
            c.env("NO_COLOR", "1");
        } else {
            c.env_remove("NO_COLOR");
        }
        let o = c.output().expect("sitesim runs");
        assert_eq!(o.status.code(), Some(2));
        stderr(&o)
    };
    // Colour forced on shows escapes, so their absence under NO_COLOR means something.
    assert!(error(false).contains('\u{1b}'));
    assert!(!error(true).contains('\u{1b}'), "{:?}", error(true));
}

#[test]
fn a_scenario_naming_a_shipped_model_runs_from_any_folder() {
    let dir = temp("elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("curie.toml");
    let text = "name = \"curie\"\nduration = \"2w\"\n[machine]\nprocs = 128\n\
                [scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\n\
                jobs = \"models/curie-sessions.toml\"\n[workload.users]\n\
                continuation = \"models/continuation-curie.toml\"\n";
    std::fs::write(&scenario, text).unwrap();
    // No models/ folder beside the scenario: the built-in copies are read.
    let o = sitesim(&["run", scenario.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("models/curie-sessions.toml"));
    // A file of that name beside the scenario is read instead, and a bad one says so.
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("models/curie-sessions.toml"), "bogus = 1\n").unwrap();
    let o = sitesim(&["run", scenario.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("curie-sessions.toml"), "{}", stderr(&o));
    // A model that is not shipped must exist.
    std::fs::write(&scenario, text.replace("curie-sessions", "mine")).unwrap();
    let o = sitesim(&["run", scenario.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("models/mine.toml"), "{}", stderr(&o));
}

#[test]
fn an_interrupted_experiment_is_not_a_success() {
    use std::io::{BufRead, BufReader};
    let scenario = temp("interrupted.toml");
    std::fs::write(
        &scenario,
        "name = \"interrupted\"\nduration = \"52w\"\nreplications = 400\n[machine]\nprocs = 128\n\
         [scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\n\
         [experiment]\nschedulers = [\"easy\"]\n",
    )
    .unwrap();
    let out = temp("interrupted-out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args(["run", scenario.to_str().unwrap(), "--threads", "1"])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sitesim runs");
    // The first line is printed once the plan is written and the runs are under way.
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("experiment interrupted"), "{first}");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    // It stopped early, kept what finished (nothing if the interrupt came before the
    // first run started), and wrote no summary of a partial experiment.
    let kept = std::fs::read_dir(out.join("runs/p000")).map_or(0, |d| d.count());
    assert!(kept < 400, "all 400 runs finished before the interrupt");
    assert!(!out.join("summary.json").exists());
}

#[test]
fn endless_input_ends_with_an_error_naming_the_file() {
    for args in [
        vec!["replay", "--swf", "/dev/zero", "--procs", "10"],
        vec!["feedback", "--swf", "/dev/zero", "--procs", "10"],
        vec!["run", "/dev/zero"],
    ] {
        let o = sitesim(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("error: /dev/zero") && stderr(&o).contains("longer than"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_reader_that_closes_the_output_early_ends_the_program_quietly() {
    let log = temp("closed.swf");
    let o = sitesim(&[
        "generate",
        "--jobs",
        "20000",
        "--procs",
        "64",
        "--out",
        log.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for args in [
        vec!["replay", "--swf", log.to_str().unwrap()],
        vec!["export", "--batsim", "--swf", log.to_str().unwrap()],
        vec!["completions", "bash"],
    ] {
        // The reader is gone before the summary is printed (the log takes a while to
        // read), as when `| head -1` has had its line.
        let mut child = Command::new(env!("CARGO_BIN_EXE_sitesim"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("sitesim runs");
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_ne!(o.status.code(), Some(101), "{args:?}: {}", stderr(&o));
        assert!(
            !stderr(&o).contains("panicked") && !stderr(&o).contains("Broken pipe"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_log_comes_on_standard_input_and_zstd_is_refused_by_name() {
    use std::io::Write;
    use std::process::Stdio;
    let log = temp("stdin.swf");
    std::fs::write(&log, LOG).unwrap();
    let from_file = sitesim(&["replay", "-q", "--swf", log.to_str().unwrap()]);
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args(["feedback", "-q", "--unknown-waits", "zero", "--swf", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(LOG.as_bytes())
        .unwrap();
    let fed = child.wait_with_output().unwrap();
    assert!(fed.status.success(), "{}", stderr(&fed));
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args(["replay", "-q", "--swf", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(LOG.as_bytes())
        .unwrap();
    let piped = child.wait_with_output().unwrap();
    assert!(piped.status.success());
    // The same run, but for the log's name on the first line.
    let rest = |o: &std::process::Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .skip(1)
            .filter(|l| !l.trim_start().starts_with("time"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(rest(&piped), rest(&from_file));
    let zst = temp("log.swf.zst");
    std::fs::write(&zst, [0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]).unwrap();
    let o = sitesim(&["replay", "--swf", zst.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("log.swf.zst: unsupported compression: zstd"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn errors_name_the_file_the_setting_or_the_section() {
    let empty = temp("empty.swf");
    std::fs::write(&empty, "; MaxProcs: 4\n").unwrap();
    let e = empty.to_str().unwrap();
    for command in ["replay", "feedback"] {
        let o = sitesim(&[command, "--swf", e]);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains(&format!("{e}: no job was submitted")),
            "{}",
            stderr(&o)
        );
    }
    // A --set the scenario refuses is named as given, not at a line of a rewritten file.
    let o = sitesim(&["run", "--set", "scheduler.polcy=easy"]);
    assert_eq!(
        stderr(&o).trim(),
        "error: --set scheduler.polcy=easy: unknown field `polcy`, expected `policy` or `predictor`"
    );
    let o = sitesim(&["run", "--set", "scheduler.policy=sjf"]);
    assert!(
        stderr(&o).starts_with("error: --set scheduler.policy=sjf: unknown policy 'sjf'"),
        "{}",
        stderr(&o)
    );
    // A scenario without a section it needs says which.
    let s = temp("no-workload.toml");
    std::fs::write(
        &s,
        "name = \"x\"\n[machine]\nprocs = 8\n[scheduler]\npolicy = \"easy\"\n",
    )
    .unwrap();
    let o = sitesim(&["run", s.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("no-workload.toml: the scenario has no `workload`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn ignored_extra_columns_are_a_warning_on_stderr_and_in_the_summary() {
    let log = temp("extra-columns.swf");
    let text = "; MaxProcs: 8\n\
        1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1 7 8\n\
        2 5 0 50 8 -1 -1 8 60 -1 1 2 1 -1 -1 -1 -1 -1\n";
    std::fs::write(&log, text).unwrap();
    let out = temp("extra-columns");
    let o = sitesim(&[
        "replay",
        "-q",
        "--swf",
        log.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let warning = "1 line had more than 18 columns (up to 20; first at line 2); the extra columns were ignored";
    assert!(stderr(&o).contains(warning), "{}", stderr(&o));
    assert!(stderr(&o).contains("extra-columns.swf: "), "{}", stderr(&o));
    let warnings = summary_json(&out)["warnings"].clone();
    assert!(
        warnings
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().ends_with(warning)),
        "{warnings}"
    );
}

#[test]
fn a_weight_for_a_user_not_in_the_log_is_a_warning() {
    let log = temp("weights.swf");
    let mut text = String::from("; MaxProcs: 8\n");
    for i in 0..200i64 {
        text += &common::logged(i + 1, 1 + i % 5, i * 600, 0, 300, 1 + i % 4);
    }
    std::fs::write(&log, text).unwrap();
    let out = temp("weights");
    let o = sitesim(&[
        "resample",
        "-q",
        "--swf",
        log.to_str().unwrap(),
        "--replications",
        "2",
        "--weeks",
        "1",
        "--edge",
        "0",
        "--weight",
        "99999=0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let warning = "the weight 0 of user 99999 is ignored: the log has no user 99999";
    // On stderr, even under -q, and not in the summary on stdout.
    assert!(
        stderr(&o).contains(&format!("warning: {warning}")),
        "{}",
        stderr(&o)
    );
    assert!(!String::from_utf8_lossy(&o.stdout).contains(warning));
    let warnings = summary_json(&out)["warnings"].clone();
    assert!(
        warnings.as_array().unwrap().iter().any(|w| w == warning),
        "{warnings}"
    );
}

#[test]
fn a_missing_input_of_a_scenario_names_the_scenario_and_the_key() {
    let s = temp("missing-log.toml");
    std::fs::write(
        &s,
        "name = \"x\"\n[machine]\nprocs = 8\n[workload]\nsource = \"swf\"\npath = \"nosuch.swf\"\n[scheduler]\npolicy = \"easy\"\n",
    )
    .unwrap();
    let o = sitesim(&["run", s.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("missing-log.toml: [workload] path: "), "{e}");
    assert!(e.contains("nosuch.swf: no such file"), "{e}");
    // The scenario's own line, quoted with its number.
    assert!(e.contains("  6 | path = \"nosuch.swf\""), "{e}");
    // A path set on the command line is said to be.
    let o = sitesim(&[
        "run",
        s.to_str().unwrap(),
        "--set",
        "workload.path=other.swf",
    ]);
    let e = stderr(&o);
    assert!(e.contains("other.swf: no such file"), "{e}");
    assert!(e.contains("(set on the command line with --set)"), "{e}");
}

#[test]
fn a_scenarios_output_dir_outside_the_folder_is_said_and_a_device_refused() {
    let dir = temp("outdir");
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = |out: &str| {
        let path = dir.join("s.toml");
        std::fs::write(
            &path,
            format!(
                "name = \"s\"\nduration = \"2w\"\n[machine]\nprocs = 128\n[scheduler]\n\
                 policy = \"easy\"\n[workload]\nsource = \"model\"\n[output]\ndir = \"{out}\"\n"
            ),
        )
        .unwrap();
        path
    };
    let run = |path: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_sitesim"))
            .current_dir(&dir)
            .args(["run", "-q", path.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let o = run(&scenario("/dev/null"));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("/dev/null: the results directory is not a directory"));
    let elsewhere = temp("elsewhere-out");
    let o = run(&scenario(elsewhere.to_str().unwrap()));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("writes the results to")
            && stderr(&o).contains("outside the current folder"),
        "{}",
        stderr(&o)
    );
    let o = run(&scenario("here"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("outside"), "{}", stderr(&o));
}

/// A sweep's page shows the scenario it is, as TOML, under the command line that ran it:
/// the command line runs (without --out, --threads and --report, which do not change
/// results), and so does the scenario with `sitesim run`, each to the same runs.
#[test]
fn a_sweeps_page_shows_its_scenario_and_a_command_line_that_runs() {
    let swf = temp("ten-weeks-sweep.swf");
    std::fs::write(&swf, ten_weeks()).unwrap();
    let out = temp("sweep-scenario");
    let o = sitesim(&[
        "sweep",
        "--swf",
        swf.to_str().unwrap(),
        "--weeks",
        "2",
        "--warmup",
        "1w",
        "--replications",
        "2",
        "--seed",
        "7",
        "--populations",
        "0.5,1",
        "--schedulers",
        "fcfs",
        "--schedulers",
        "easy",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--report",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("experiment.json")).unwrap()).unwrap();
    let scenario = plan["scenario"].as_str().unwrap().to_owned();
    let command = scenario
        .lines()
        .find_map(|l| l.strip_prefix("# sitesim sweep "))
        .unwrap_or_else(|| panic!("no command line in {scenario}"));
    assert_eq!(
        command,
        format!(
            "--swf {} --seed 7 --warmup 1w --weeks 2 --replications 2 --populations 0.5,1 \
             --schedulers fcfs --schedulers easy",
            swf.display()
        )
    );
    for key in [
        "[experiment.sweep]",
        "axis = \"population\"",
        "values = [0.5, 1.0]",
        "schedulers = [\"fcfs\", \"easy\"]",
        "seed = 7",
        "replications = 2",
        "source = \"resample\"",
    ] {
        assert!(scenario.contains(key), "{key} not in {scenario}");
    }
    // The page shows both, escaped, and no dump of the options.
    let page = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(
        page.contains(&format!("# sitesim sweep {command}")),
        "{page}"
    );
    assert!(page.contains("[experiment.sweep]") && !page.contains("ResampleOptions"));
    assert!(!page.contains("&quot;run&quot;: {"), "{page}");
    // The command line runs, to the same runs.
    let again = temp("sweep-scenario-again");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} sweep {command} --out {} -q",
            env!("CARGO_BIN_EXE_sitesim"),
            again.display()
        ))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let runs = |dir: &Path| std::fs::read(dir.join("runs.csv")).unwrap();
    assert_eq!(runs(&again), runs(&out));
    // So does the scenario, from another folder, and it is the same experiment.
    let file = temp("sweep-scenario-file").join("sweep.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, &scenario).unwrap();
    let run = temp("sweep-scenario-run");
    let o = sitesim(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(runs(&run), runs(&out));
    let o = sitesim(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("0 done now, 8 found from before"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
