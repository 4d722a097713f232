//! The short fuzz campaign: every target for a fixed number of inputs from a
//! fixed seed, so the inputs are the same on every run, and every committed regression
//! input (`fuzz/regressions/<target>/`); findings are saved under `fuzz/findings/`. A panic or a hang (no answer within 20 s, debug
//! build) fails; slow inputs are judged only by the long campaign (`examples/fuzz.rs`),
//! since times depend on the machine. See `docs/RELIABILITY.md`, "Fuzzing".

#[path = "../fuzz/harness/mod.rs"]
mod harness;

use std::time::Duration;

#[global_allocator]
static ALLOC: harness::Counting = harness::Counting;

/// The driver's seed of the CI campaign.
const SEED: u64 = 17;

/// Hang limit of one input in a debug build.
const LIMIT: Duration = Duration::from_secs(20);

/// Runs `target` for `iterations` inputs; fails on any finding.
fn campaign(target: &str, iterations: u64) {
    let cfg = harness::Config {
        targets: vec![target.to_owned()],
        seed: SEED,
        iterations,
        max_time: None,
        time_limit: LIMIT,
        judge_speed: false,
        findings: Some(harness::fuzz_dir().join("findings")),
        verbose: false,
    };
    let reports = harness::run(&cfg).expect("the target exists");
    for r in &reports {
        eprintln!("{r}");
    }
    let findings: Vec<String> = reports
        .iter()
        .flat_map(|r| r.findings.iter().map(ToString::to_string))
        .collect();
    assert!(findings.is_empty(), "findings:\n{}", findings.join("\n"));
}

#[test]
fn committed_regressions_pass() {
    let failed = harness::replay_regressions(LIMIT);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn one_input_runs_alone() {
    let (_, result) = harness::run_one("duration", b"1h30m".to_vec()).expect("a target");
    assert_eq!(result, Ok(true));
    assert!(harness::run_one("nothing", Vec::new()).is_err());
}

#[test]
fn every_target_has_a_campaign() {
    let names = harness::target_names();
    let source = include_str!("fuzz.rs");
    for name in names {
        assert!(
            source.contains(&format!("campaign(\"{name}\"")),
            "target {name} has no campaign in tests/fuzz.rs"
        );
    }
}

#[test]
fn fuzz_swf() {
    campaign("swf", 3000);
}

#[test]
fn fuzz_stream() {
    campaign("stream", 300);
}

#[test]
fn fuzz_compressed() {
    campaign("compressed", 600);
}

#[test]
fn fuzz_replay() {
    campaign("replay", 1500);
}

#[test]
fn fuzz_feedback() {
    campaign("feedback", 400);
}

#[test]
fn fuzz_resample() {
    campaign("resample", 150);
}

#[test]
fn fuzz_analyze() {
    campaign("analyze", 800);
}

#[test]
fn fuzz_fit() {
    campaign("fit", 800);
}

#[test]
fn fuzz_export() {
    campaign("export", 600);
}

#[test]
fn fuzz_results() {
    campaign("results", 300);
}

#[test]
fn fuzz_study() {
    campaign("study", 60);
}

#[test]
fn fuzz_calibrate() {
    campaign("calibrate", 100);
}

#[test]
fn fuzz_sweep_args() {
    campaign("sweep-args", 2000);
}

#[test]
fn fuzz_export_args() {
    campaign("export-args", 5000);
}

#[test]
fn fuzz_resample_args() {
    campaign("resample-args", 2500);
}

#[test]
fn fuzz_calibrate_args() {
    campaign("calibrate-args", 1500);
}

#[test]
fn fuzz_merge_args() {
    campaign("merge-args", 300);
}

#[test]
fn fuzz_report_args() {
    campaign("report-args", 600);
}

#[test]
fn fuzz_batsim() {
    campaign("batsim", 600);
}

#[test]
fn fuzz_scenario() {
    campaign("scenario", 600);
}

#[test]
fn fuzz_settings() {
    campaign("settings", 300);
}

#[test]
fn fuzz_model() {
    campaign("model", 150);
}

#[test]
fn fuzz_specs() {
    campaign("policy", 600);
    campaign("predictor", 600);
    campaign("estimates", 600);
    campaign("questionable", 600);
    campaign("duration", 3000);
    campaign("zone", 3000);
    campaign("args", 1500);
    campaign("generate", 600);
    campaign("estimates-command", 100);
}

#[test]
fn fuzz_model_files() {
    campaign("talby", 300);
    campaign("jobs", 150);
    campaign("continuation", 600);
    campaign("modal", 300);
    campaign("synthetic", 300);
    campaign("predictors", 600);
}
