//! A bound on everything a user can ask or feed (docs/RELIABILITY.md, "Bounds"): each
//! case is refused with an error naming the input and the limit, never an abort.

mod common;

use std::path::PathBuf;

use common::{logged, sitesim, stderr};

fn temp(name: &str) -> PathBuf {
    common::scratch("bounds", name)
}

/// A log of `n` one-processor jobs, a minute apart.
fn log(name: &str, n: i64) -> PathBuf {
    let path = temp(name);
    let mut text = String::from("; MaxProcs: 4\n");
    for i in 0..n {
        text += &logged(i + 1, 1, 60 * i, 0, 30, 1);
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_log_with_more_jobs_than_max_jobs_is_refused_naming_the_option() {
    let path = log("three.swf", 3);
    let p = path.to_str().unwrap();
    let o = sitesim(&["replay", "-q", "--swf", p, "--max-jobs", "2"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("{p}:4: more than 2 jobs: raise --max-jobs")),
        "{e}"
    );
    // Exactly the limit is taken, under every command that reads a log.
    for cmd in ["replay", "feedback", "analyze"] {
        let o = sitesim(&[cmd, "-q", "--swf", p, "--max-jobs", "3"]);
        assert!(o.status.success(), "{cmd}: {}", stderr(&o));
    }
    let o = sitesim(&["export", "-q", "--swf", p, "--batsim", "--max-jobs", "1"]);
    assert!(stderr(&o).contains("more than 1 jobs"), "{}", stderr(&o));
}

#[test]
fn only_the_header_block_is_kept_and_later_comments_are_a_warning() {
    let path = temp("late-comments.swf");
    let text = format!(
        "; MaxProcs: 4\n{}; a comment\n; MaxProcs: 1\n{}",
        logged(1, 1, 0, 0, 30, 2),
        logged(2, 1, 60, 0, 30, 2)
    );
    std::fs::write(&path, text).unwrap();
    let out = temp("late-comments");
    let o = sitesim(&[
        "replay",
        "-q",
        "--swf",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The late `MaxProcs: 1` changes nothing: the machine has the header's 4.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["procs"], 4);
    let warning = "2 comment lines after the first job line were ignored";
    assert!(stderr(&o).contains(warning), "{}", stderr(&o));
    assert!(
        summary["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains(warning)),
        "{summary}"
    );
}

#[test]
fn a_header_of_endless_comments_is_not_a_log() {
    let path = temp("comments.swf");
    std::fs::write(&path, ";\n".repeat(sitesim::swf::MAX_HEADER_LINES + 1)).unwrap();
    let o = sitesim(&["replay", "-q", "--swf", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains(":10001: more than 10000 header comment lines: not an SWF log"),
        "{e}"
    );
}

#[test]
fn counts_and_factors_past_their_bounds_are_refused() {
    let path = log("bounds.swf", 3);
    let p = path.to_str().unwrap();
    // Usage errors (exit 2), each naming the option.
    for (args, needle) in [
        (
            vec!["resample", "--swf", p, "--replications", "100001"],
            "--replications",
        ),
        (
            vec!["resample", "--swf", p, "--weeks", "1000000000"],
            "--weeks",
        ),
        (vec!["run", "--replications", "100000000"], "--replications"),
        (vec!["replay", "--swf", p, "--max-jobs", "0"], "--max-jobs"),
    ] {
        let o = sitesim(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
    // A scenario's replications are bounded as the option is.
    let o = sitesim(&["run", "--set", "replications=100001"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("at most 100000 replications"),
        "{}",
        stderr(&o)
    );
    // The interarrival factor is checked after scaling.
    for factor in ["1e8", "1e13", "1e308"] {
        let o = sitesim(&["replay", "-q", "--swf", p, "--interarrival-factor", factor]);
        assert_eq!(o.status.code(), Some(1), "{factor}");
        assert!(
            stderr(&o).contains("past the longest time"),
            "{}",
            stderr(&o)
        );
    }
    // An adaptive policy's period has a floor.
    let o = sitesim(&["replay", "-q", "--swf", p, "--scheduler", "pbas:period=1"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("period must be at least 60 s"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_model_or_scenario_file_is_never_echoed_past_a_short_excerpt() {
    let secret = "TOKEN-0123456789abcdef".repeat(50_000);
    let bad = temp("secret.toml");
    std::fs::write(&bad, format!("x = 1\nkey = \"{secret}\" junk\n")).unwrap();
    let path = log("one.swf", 3);
    let cases: Vec<Vec<String>> = vec![
        vec![
            "feedback".into(),
            "--swf".into(),
            path.display().to_string(),
            "--continuation".into(),
            bad.display().to_string(),
        ],
        vec!["run".into(), bad.display().to_string()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = sitesim(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("secret.toml:2:"), "{args:?}: {e}");
        assert!(
            e.len() < 600 && e.matches("TOKEN").count() <= 2,
            "{args:?}: {} bytes",
            e.len()
        );
    }
}
