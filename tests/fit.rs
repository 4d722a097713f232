//! `sitesim fit` on the real logs: the shipped job layers are what a fresh fit gives, and
//! KTH's session classes look like the thesis's.

mod common;

use std::path::PathBuf;

use sitesim::commands::fit::fit_logs;
use sitesim::commands::options::UnknownWaits;
use sitesim::model::{JobLayer, SessionClass};

fn shipped(name: &str) -> JobLayer {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the model file is shipped");
    JobLayer::parse(&text, name).expect("the shipped model parses")
}

#[test]
fn shipped_job_layers_parse() {
    for name in [
        "kth-sessions.toml",
        "curie-sessions.toml",
        "pooled-sessions.toml",
    ] {
        let layer = shipped(name);
        for (c, j) in layer.file().class.iter() {
            assert!(j.sessions > 0, "{name}: {}", c.name());
        }
    }
    assert_eq!(
        shipped("pooled-sessions.toml").file().source,
        ["KTH-SP2-1996-2.swf", "CEA-Curie-sample.swf"]
    );
}

#[test]
fn kth_fit_is_plausible_and_reproduces_the_shipped_file() {
    let Some(kth) = common::shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let (file, warnings) = fit_logs(&[kth], None, &UnknownWaits::Error).expect("KTH fits");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(file.source, ["KTH-SP2-1996-2.swf"]);
    assert_eq!(file.threshold, 1200);
    let sessions = |c: SessionClass| file.class.get(c).sessions;
    let total: u64 = SessionClass::ALL.iter().map(|&c| sessions(c)).sum();
    let share = |c: SessionClass| sessions(c) as f64 / total as f64;
    // 28,489 jobs in 8,280 sessions at 20 minutes.
    assert_eq!(total, 8_280);
    for c in SessionClass::ALL {
        assert!(sessions(c) > 0, "{}", c.name());
        if c != SessionClass::Iwd {
            assert!(sessions(c) < sessions(SessionClass::Iwd), "{}", c.name());
        }
    }
    // The thesis: IWD 43%, IWN 29%, IW 21%, BHP 4%, BHD 3%.
    assert!((0.35..0.55).contains(&share(SessionClass::Iwd)));
    assert!(share(SessionClass::Bhp) < 0.1);
    assert!(share(SessionClass::Bhd) < 0.1);
    let iwd = file.class.get(SessionClass::Iwd);
    let bhd = file.class.get(SessionClass::Bhd);
    // Interactive workday sessions start in daytime on workdays; batch jobs run longer.
    assert!(iwd.start_day[5] + iwd.start_day[6] < 0.05 * iwd.sessions as f64);
    assert!(iwd.start_hour[3] < iwd.start_hour[10]);
    assert!(bhd.runtime.median() > 10.0 * iwd.runtime.median());
    let bhp = file.class.get(SessionClass::Bhp);
    assert!(bhp.sizes.iter().all(|&(p, m, _)| m == 100 && p >= 1));
    // The shipped file is this fit.
    assert_eq!(shipped("kth-sessions.toml").file(), &file);
}

#[test]
fn curie_and_pooled_fits_reproduce_the_shipped_files() {
    let (Some(kth), Some(curie)) = (
        common::shared_log("KTH-SP2-1996-2.swf"),
        common::shared_log("CEA-Curie-sample.swf"),
    ) else {
        return;
    };
    let (file, warnings) =
        fit_logs(std::slice::from_ref(&curie), None, &UnknownWaits::Error).expect("Curie fits");
    // The sample's header gives only MaxProcs: no zone, no start time.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(shipped("curie-sessions.toml").file(), &file);
    let (pooled, _) = fit_logs(&[kth, curie], None, &UnknownWaits::Error).expect("both fit");
    assert_eq!(shipped("pooled-sessions.toml").file(), &pooled);
}
