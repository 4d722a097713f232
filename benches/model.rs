//! Model-based site benchmarks: one simulated year of the 1,024-processor site of the
//! performance target, and of the 128-processor default site, under EASY on one core
//! (one replication each; replications run in parallel on top of this), under the
//! site's default rules and calibration (computed once, before the measurement), with
//! users who do not react to service (`easy_*_procs`) and with users who react by the
//! built-in KTH continuation curve, the model's default (`easy_*_procs_reacting`).
//! Figures go to docs/PERFORMANCE.md.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use sitesim::commands::model::{ModelFiles, ModelOptions, replicate};
use sitesim::commands::replay::ReplayOptions;
use sitesim::model::{
    BusyUser, Calibrate, CollisionRoom, DayCycle, JobLayer, Lifetime, Parameterization, TalbyModel,
};
use sitesim::sched::Policy;
use sitesim::time::WEEK;
use sitesim::users::{Behaviour, ContinuationCurve, KTH_CONTINUATION};

fn options(procs: u32, behaviour: Behaviour) -> ModelOptions {
    ModelOptions {
        run: ReplayOptions {
            policy: Policy::Easy.into(),
            procs: Some(procs),
            warmup: WEEK,
            check: false,
            ..ReplayOptions::default()
        },
        params: Parameterization::MachineSize(procs),
        day: DayCycle::Fitted,
        users: 1.0,
        behaviour,
        length: 52 * WEEK,
        replications: 1,
        threads: Some(1),
        record_sessions: false,
        machine: None,
        calibrate: Calibrate::default(),
        room: CollisionRoom::default(),
        busy: BusyUser::default(),
        lifetime: Lifetime::default(),
    }
}

fn model_site(c: &mut Criterion) {
    let files = ModelFiles::new(
        Arc::new(TalbyModel::shipped()),
        "models/talby2006.toml",
        Arc::new(JobLayer::shipped()),
        "models/kth-sessions.toml",
    );
    let mut g = c.benchmark_group("model_site_year");
    g.sample_size(10);
    let reacting = Behaviour {
        continuation: Some(
            ContinuationCurve::parse(KTH_CONTINUATION, "models/continuation-kth.toml")
                .expect("the built-in curve parses"),
        ),
        ..Behaviour::default()
    };
    for procs in [128, 1024] {
        for (suffix, behaviour) in [("", Behaviour::default()), ("_reacting", reacting.clone())] {
            let opts = options(procs, behaviour);
            let jobs = replicate(&files, &opts, 0).expect("runs").figures.jobs;
            eprintln!("model site of {procs} processors{suffix}: {jobs} measured jobs in a year");
            g.bench_function(format!("easy_{procs}_procs{suffix}"), |b| {
                b.iter(|| black_box(replicate(&files, &opts, 0).expect("runs").figures.jobs))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, model_site);
criterion_main!(benches);
