//! The registry entries of the scheduling layer's own policies (`crate::sched`).

use std::sync::Arc;

use super::params::{Configure, Params};
use crate::sched::{
    BuildContext, Builder, Conservative, Creasy, CreasyParams, Easy, Fcfs, Jitter, Logged,
    Scheduler, builder,
};
use crate::time::Time;

/// The CREASY parameters a spec gives, defaults for the rest.
fn creasy_params(p: &Params) -> Result<CreasyParams, String> {
    let d = CreasyParams::default();
    let need =
        |key: &str, v: Option<Time>| v.ok_or_else(|| format!("creasy: {key} cannot be none"));
    let params = CreasyParams {
        alpha: p.f64("alpha", d.alpha)?,
        wait_scale: need("wait_scale", p.duration("wait_scale", Some(d.wait_scale))?)?,
        short: need("short", p.duration("short", Some(d.short))?)?,
        session_gap: need(
            "session_gap",
            p.duration("session_gap", Some(d.session_gap))?,
        )?,
        half_life: p.duration("half_life", d.half_life)?,
    };
    params.check().map_err(|e| format!("creasy: {e}"))?;
    Ok(params)
}

/// A policy without parameters.
fn plain(build: fn(&BuildContext) -> Box<dyn Scheduler>) -> Configure {
    Arc::new(move |p: &Params| {
        p.finish()?;
        Ok(Arc::new(build) as Builder)
    })
}

/// The registry entries of the scheduling layer's policies.
pub(super) fn entries() -> Vec<(&'static str, &'static str, Configure)> {
    vec![
        (
            "fcfs",
            "first come, first served, no backfilling",
            plain(|_| Box::new(Fcfs)),
        ),
        (
            "easy",
            "EASY backfilling (EASY++ with a predictor)",
            plain(|_| Box::new(Easy::new())),
        ),
        (
            "sjbf",
            "EASY with backfilling candidates shortest plan first",
            plain(|_| Box::new(Easy::sjbf())),
        ),
        (
            "conservative",
            "conservative backfilling with compression",
            plain(|ctx| Box::new(Conservative::new(ctx.procs))),
        ),
        (
            "creasy",
            "EASY with priority to critical interactive jobs \
             (alpha, wait_scale, short, session_gap, half_life)",
            Arc::new(|p: &Params| {
                let params = creasy_params(p)?;
                Ok(builder(move |_| Creasy::new(params)))
            }),
        ),
        (
            "logged",
            "the log's own service: each job starts its logged wait (times scale, times a \
             random factor of mean 1 and sd jitter) after submission, on an unbounded \
             machine; the calibration baseline (scale, jitter, seed)",
            Arc::new(|p: &Params| {
                let scale = p.f64("scale", 1.0)?;
                if !(scale.is_finite() && scale >= 0.0) {
                    return Err(format!(
                        "policy 'logged': scale must be a number >= 0, not {scale}"
                    ));
                }
                let sd = p.f64("jitter", 0.0)?;
                if !(sd.is_finite() && (0.0..=100.0).contains(&sd)) {
                    return Err(format!(
                        "policy 'logged': jitter must be a number from 0 to 100, not {sd}"
                    ));
                }
                let seed = p.u64("seed", 1)?;
                let jitter = (sd > 0.0).then(|| Jitter::new(sd, seed)).flatten();
                Ok(builder(move |_| Logged::new(scale, jitter.clone())))
            }),
        ),
    ]
}
