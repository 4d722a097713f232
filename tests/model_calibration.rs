//! The model site on its own parameters (seed 004 Table 28, §10-11): the workload a
//! calibrated site generates has the jobs per day, median CPU work and load it is
//! parameterized with, by machine size or given, within 10%: the 95% interval of the
//! mean over the replications must lie inside the ±10% band.

use std::sync::Arc;

use rayon::prelude::*;

use sitesim::experiment::model::{ModelFiles, ModelOptions, replicate};
use sitesim::experiment::replay::ReplayOptions;
use sitesim::experiment::resample::{MetricStats, replication_seed};
use sitesim::model::plan::PlanConfig;
use sitesim::model::tally::generated;
use sitesim::model::{
    DayCycle, JobLayer, Parameterization, SitePlan, TalbyModel, WorkloadFigures, calibrate,
};
use sitesim::sched::Policy;
use sitesim::time::{Time, WEEK};
use sitesim::users::Behaviour;

const LENGTH: Time = 52 * WEEK;

/// The generated workloads of `n` replications of a calibrated site over `weeks`.
fn generate(params: Parameterization, n: u32, weeks: i64) -> Vec<WorkloadFigures> {
    let talby = Arc::new(TalbyModel::shipped());
    let jobs = Arc::new(JobLayer::shipped());
    let site = talby.site(params).unwrap();
    let length = weeks * WEEK;
    let c = calibrate(&talby, &jobs, &site, site.procs, length).unwrap();
    (0..n)
        .into_par_iter()
        .map(|r| {
            let mut plan = SitePlan::new(
                talby.clone(),
                jobs.clone(),
                PlanConfig {
                    site,
                    day: DayCycle::Fitted,
                    users: c.users,
                },
                replication_seed(1, r),
            );
            generated(&mut plan, &jobs, &c.runtime, site.procs, length)
        })
        .collect()
}

/// Asserts that the 95% interval of the mean of `values` lies within 10% of `target`.
fn within_ten_percent(what: &str, values: &[f64], target: f64) {
    let s = MetricStats::of("figure", values);
    let off = (s.mean - target).abs() + s.ci95;
    assert!(
        off <= 0.10 * target,
        "{what}: mean {:.3} ± {:.3} over {} replications, target {target:.3}",
        s.mean,
        s.ci95,
        s.n
    );
}

fn check(params: Parameterization, n: u32, weeks: i64) {
    let site = TalbyModel::shipped().site(params).unwrap();
    let figures = generate(params, n, weeks);
    let of = |f: fn(&WorkloadFigures) -> f64| figures.iter().map(f).collect::<Vec<f64>>();
    within_ten_percent("jobs per day", &of(|f| f.jobs_per_day), site.jobs_per_day);
    within_ten_percent("median CPU work", &of(|f| f.median_runtime), site.cpu_work);
    within_ten_percent("load", &of(|f| f.load), site.load);
}

#[test]
fn a_site_of_128_processors_generates_table_28s_workload() {
    // Table 28 at 128: JD 46.0, Cm 539 s, CL 0.699. The start-up users spread most
    // (Eq 13's residual, ±85 users), so this size needs the most replications.
    check(Parameterization::MachineSize(128), 64, 52);
}

#[test]
fn a_site_of_1024_processors_generates_table_28s_workload() {
    // Table 28 at 1,024: JD 377, Cm 33 s, CL 0.512. Half a year each: a year of 137,000
    // jobs takes about a second to draw in a debug build.
    check(Parameterization::MachineSize(1024), 32, 26);
}

#[test]
fn a_site_generates_the_cpu_work_and_load_it_is_given() {
    check(
        Parameterization::Explicit {
            procs: 256,
            cpu_work: 300.0,
            load: 0.5,
        },
        24,
        52,
    );
}

#[test]
fn the_calibration_moves_each_figure_by_its_own_layer() {
    let talby = TalbyModel::shipped();
    let jobs = JobLayer::shipped();
    let at = |procs, cpu_work, load| {
        let site = talby
            .site(Parameterization::Explicit {
                procs,
                cpu_work,
                load,
            })
            .unwrap();
        calibrate(&talby, &jobs, &site, procs, LENGTH).unwrap()
    };
    let base = at(256, 300.0, 0.5);
    // The median CPU work maps the median runtime.
    assert_eq!(at(256, 600.0, 0.5).runtime.median, 600.0);
    assert_eq!(base.runtime.median, 300.0);
    // More load on the same jobs per day and median: a wider spread of runtimes.
    assert!(at(256, 300.0, 0.7).runtime.spread > base.runtime.spread);
    // A bigger machine: more jobs per day (Table 28), so more users.
    let bigger = at(512, 300.0, 0.5);
    assert!(bigger.users > 1.5 * base.users, "{bigger:?} {base:?}");
}

#[test]
fn an_unreachable_load_is_an_error_naming_it() {
    // Every job of one runtime: no spread to widen, so only one load is reachable.
    let mut file = JobLayer::shipped().file().clone();
    for c in [
        &mut file.class.iwd,
        &mut file.class.iwn,
        &mut file.class.iw,
        &mut file.class.bhp,
        &mut file.class.bhd,
    ] {
        c.runtime.0.iter_mut().for_each(|r| *r = 600.0);
    }
    let jobs = JobLayer::new(file).unwrap();
    let talby = TalbyModel::shipped();
    let site = talby.site(Parameterization::MachineSize(512)).unwrap();
    let e = calibrate(&talby, &jobs, &site, 512, LENGTH).unwrap_err();
    assert!(e.contains("load 0.574 cannot be reached"), "{e}");
}

#[test]
fn the_closed_loop_submits_at_most_what_the_model_generates() {
    let files = ModelFiles::new(
        Arc::new(TalbyModel::shipped()),
        "models/talby2006.toml",
        Arc::new(JobLayer::shipped()),
        "models/kth-sessions.toml",
    );
    let opts = ModelOptions {
        run: ReplayOptions {
            policy: Policy::Easy.into(),
            procs: Some(128),
            warmup: WEEK,
            ..ReplayOptions::default()
        },
        params: Parameterization::MachineSize(128),
        day: DayCycle::Fitted,
        users: 1.0,
        behaviour: Behaviour::default(),
        length: 8 * WEEK,
        replications: 1,
        threads: Some(1),
        record_sessions: false,
        machine: None,
        calibrate: true,
    };
    let r = replicate(&files, &opts, 0).unwrap();
    assert!(r.generated.jobs_per_day > 0.0);
    assert!(r.submitted.jobs_per_day <= r.generated.jobs_per_day);
    assert!(r.submitted.load <= r.generated.load);
    assert!(r.users.skipped > 0 || r.submitted.jobs_per_day == r.generated.jobs_per_day);
}
