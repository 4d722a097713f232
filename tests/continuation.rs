//! Session continuation (Feitelson 2021, Fig. 18, after Shmueli & Feitelson 2007): the shipped
//! curve files parse, and on KTH (in `../shared/workloads`; skipped when missing, except
//! under CI) the share of continued sessions falls with the previous job's response time,
//! and the shipped `models/continuation-kth.toml` is what the log gives today.

mod common;

use std::path::PathBuf;

use common::shared_log;
use sitesim::swf::SwfReader;
use sitesim::users::ContinuationCurve;
use sitesim::workload::questionable::Policies;
use sitesim::workload::trace::{MissingWaits, Trace, TraceConfig};
use sitesim::workload::{LogReplay, ReplayConfig};

fn shipped() -> Vec<(PathBuf, ContinuationCurve)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("continuation-") && n.ends_with(".toml"))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let curve = ContinuationCurve::parse(&text, &p.display().to_string())
                .unwrap_or_else(|e| panic!("{e}"));
            (p, curve)
        })
        .collect()
}

#[test]
fn shipped_continuation_curves_parse() {
    let curves = shipped();
    let names: Vec<String> = curves
        .iter()
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["continuation-curie.toml", "continuation-kth.toml"],
        "{names:?}"
    );
    for (p, c) in &curves {
        assert_eq!(c.threshold(), 1200, "{}", p.display());
        assert!(c.pairs > 0 && c.concurrent > 0, "{}", p.display());
        // Every curve falls with the response: the first bucket's share is well above
        // the last's, and the logistic's slope is negative.
        let (first, last) = (c.buckets[0], c.buckets[c.buckets.len() - 1]);
        assert!(first.share > last.share + 0.5, "{}", p.display());
        assert!(c.logistic.slope < 0.0, "{}", p.display());
    }
}

fn kth() -> Option<Trace> {
    let kth = shared_log("KTH-SP2-1996-2.swf")?;
    let mut log = LogReplay::new(
        SwfReader::open(&kth).unwrap(),
        "KTH-SP2-1996-2.swf",
        ReplayConfig {
            procs: 100,
            policies: Policies::default(),
            interarrival_factor: 1.0,
            max_runtime: None,
            keep_records: false,
        },
    );
    Some(Trace::read(&mut log, TraceConfig::default(), MissingWaits::Refuse).unwrap())
}

/// KTH: counting only the pairs whose next job came after the previous one ended, the
/// share continued falls from about 0.77 within a minute to 0.05-0.09 past 8 h, with the
/// two 95% intervals far apart; and the shipped file is the fit of the log.
#[test]
fn kth_continuation_falls_with_response_time() {
    let Some(trace) = kth() else {
        return;
    };
    let c = ContinuationCurve::fit(&trace, "KTH-SP2-1996-2.swf");
    let minute = c.share(60);
    let hour = c.share(3600);
    let night = c.share(10 * 3600);
    assert!(minute > hour && hour > night, "{minute} {hour} {night}");
    assert!((0.74..0.80).contains(&minute), "{minute}");
    assert!((0.28..0.38).contains(&hour), "{hour}");
    assert!(night < 0.12, "{night}");
    let (_, minute_hi) = c.buckets[0].interval();
    let (minute_lo, _) = c.buckets[0].interval();
    let (night_lo, night_hi) = c.buckets[8].interval();
    assert_eq!(c.buckets[8].up_to, Some(16 * 3600));
    assert!(
        night_hi < minute_lo,
        "[{night_lo}, {night_hi}] and [{minute_lo}, {minute_hi}] overlap"
    );
    // Concurrent pairs are about half of all pairs, and left out.
    let all = c.pairs + c.concurrent;
    assert_eq!(all as usize, trace.jobs() - trace.users.len());
    assert!((0.4..0.6).contains(&(c.concurrent as f64 / all as f64)));
    // The logistic agrees with the buckets to within a few points where they are dense.
    assert!((c.logistic.share(60) - minute).abs() < 0.08);
    let shipped = shipped();
    let (_, file) = shipped
        .iter()
        .find(|(p, _)| p.ends_with("continuation-kth.toml"))
        .unwrap();
    // `sitesim analyze` adds the users' patience: the longest wait of the log.
    let longest = trace
        .users
        .iter()
        .flat_map(|u| &u.jobs)
        .map(|j| j.start - j.submit)
        .max();
    assert_eq!(longest, Some(980_040));
    assert_eq!(
        file,
        &c.with_patience(longest),
        "regenerate models/continuation-kth.toml (see its header)"
    );
}

/// `sitesim analyze` on KTH prints the Fig. 18 table and draws both plots.
#[test]
fn kth_analyze_prints_the_table_and_plots_it() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sitesim-continuation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("kth.svg");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args(["analyze", "--swf"])
        .arg(&kth)
        .arg("--plot-continuation")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "95% interval",
        "bounded slowdown",
        "logistic",
        "13653 submitted",
    ] {
        assert!(text.contains(needle), "{needle} missing from\n{text}");
    }
    for p in [svg.clone(), dir.join("kth-slowdown.svg")] {
        let drawn = std::fs::read_to_string(&p).unwrap();
        assert!(drawn.starts_with("<svg"), "{}", p.display());
    }
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains("Session continuation by response time (KTH-SP2-1996-2.swf)"));
}
