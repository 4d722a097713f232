//! The worked examples of `notes/seed-001-predictions.md` §4.7, built from Talby et al. 2006, Table
//! 3 (CTC, user 289, 20 September 1996): jobs run as soon as they arrive, so each ends at its
//! arrival plus its runtime, and every prediction can be worked out by hand.

use super::{PredCtx, PredJob, Predictor, PredictorDefaults, PredictorSpec};
use crate::time::Time;

/// (arrival hh:mm:ss, processors, estimate, executable, runtime).
const CTC_289: [(&str, u32, Time, i64, Time); 12] = [
    ("19:49:20", 16, 300, 3012, 91),
    ("19:52:32", 12, 300, 3012, 67),
    ("19:57:45", 12, 300, 3012, 348),
    ("19:58:33", 16, 300, 3012, 342),
    ("20:05:25", 16, 300, 3012, 105),
    ("20:08:17", 16, 300, 3012, 87),
    ("20:10:07", 200, 300, 3032, 332),
    ("20:15:54", 100, 300, 3033, 314),
    ("20:22:15", 200, 300, 3033, 389),
    ("20:31:34", 200, 1800, 3033, 168),
    ("20:31:45", 200, 1800, 3033, 352),
    ("20:33:25", 200, 1800, 3033, 348),
];

fn secs(hms: &str) -> Time {
    hms.split(':')
        .fold(0, |acc, part| acc * 60 + part.parse::<Time>().unwrap())
}

/// The predictions `spec` makes at each arrival, with ends applied before arrivals at the
/// same second.
fn predictions(spec: &str) -> Vec<Time> {
    let mut p: Box<dyn Predictor> = spec
        .parse::<PredictorSpec>()
        .unwrap()
        .build(&PredictorDefaults::default())
        .unwrap();
    let jobs: Vec<PredJob> = CTC_289
        .iter()
        .enumerate()
        .map(|(i, &(arr, size, estimate, app, _))| PredJob {
            id: i as u32,
            seq: i as u64,
            user: 289,
            submit: secs(arr),
            size,
            estimate,
            app,
        })
        .collect();
    // (time, 0 = end / 1 = arrival, job)
    let mut events: Vec<(Time, u8, usize)> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        events.push((j.submit, 1, i));
        events.push((j.submit + CTC_289[i].4, 0, i));
    }
    events.sort_unstable();
    let mut out = vec![0; jobs.len()];
    for (t, kind, i) in events {
        let mut ctx = PredCtx::at(t);
        if kind == 1 {
            out[i] = p.on_submit(&jobs[i], super::Oracle(CTC_289[i].4), &mut ctx);
            p.on_start(&jobs[i], &mut ctx);
        } else {
            p.on_end(&jobs[i], CTC_289[i].4, &mut ctx);
        }
    }
    out
}

/// SBH with criteria [PE, P, E, *]: 300, 91, 67, 91, 216.5, 105, 98, 105, 332, then 360.5
/// three times (medians of even counts are the mean of the middle two, rounded up at .5).
#[test]
fn sbh_pe_p_e_any() {
    assert_eq!(
        predictions("sbh:propagate=false"),
        [300, 91, 67, 91, 217, 105, 98, 105, 332, 361, 361, 361]
    );
}

/// SBH with criteria [E, P, X]: 300, 91, 79, 79, 216.5, 105, 98, 105, 209.5, 360.5 x 3.
#[test]
fn sbh_e_p_x() {
    assert_eq!(
        predictions("sbh:criteria=E/P/X,propagate=false"),
        [300, 91, 79, 79, 217, 105, 98, 105, 210, 361, 361, 361]
    );
}

/// With the lower median of an even count: 216.5 becomes 91, 98 becomes 91 and 360.5 332.
#[test]
fn sbh_lower_median() {
    assert_eq!(
        predictions("sbh:propagate=false,statistic=median-low"),
        [300, 91, 67, 91, 91, 105, 91, 105, 332, 332, 332, 332]
    );
}

/// RUH, the median of the last three terminated jobs (in order of termination), the
/// estimate before three have terminated.
#[test]
fn ruh_median_of_three() {
    assert_eq!(
        predictions("ruh"),
        [300, 300, 300, 300, 342, 342, 105, 105, 314, 332, 332, 332]
    );
}

/// EASY++: the mean of the last two terminated jobs, capped at the estimate. Job 3 sees
/// jobs 1 and 2 (91, 67: 79); job 5 sees 3 and 4 (348, 342: 345, capped at 300); job 6
/// sees 4 and 5 (342, 105: 223.5); job 7 sees 5 and 6 (105, 87: 96); job 8 sees 6 and 7
/// (87, 332: 209.5); job 9 sees 7 and 8 (332, 314: 323, capped); job 10 sees 8 and 9
/// (314, 389: 351.5).
#[test]
fn easypp_mean_of_two_capped() {
    assert_eq!(
        predictions("easy++"),
        [300, 300, 79, 79, 300, 224, 96, 210, 300, 352, 352, 352]
    );
}

/// A user with no history gets the fallback: the estimate for SBH, one second for the
/// estimation-less SBH, which matches on [PX, P, X, *] only.
#[test]
fn fallbacks() {
    let noest = predictions("sbh-noest");
    assert_eq!(noest[0], 1);
    // Job 2 (12 procs, executable 3012): PX and P fail, X matches job 1 (91).
    assert_eq!(noest[1], 91);
}
