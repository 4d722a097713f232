//! The registry entries of the scheduling layer's own policies (`crate::sched`).

use std::sync::Arc;

use super::params::{Configure, Params};
use crate::sched::{BuildContext, Builder, Creasy, CreasyParams, Jitter, Logged, Policy, builder};
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

/// A classic policy ([`Policy`]), which takes no parameters.
fn plain(policy: Policy) -> Configure {
    Arc::new(move |p: &Params| {
        p.finish()?;
        Ok(Arc::new(move |ctx: &BuildContext| policy.build(ctx.procs)) as Builder)
    })
}

/// The registry entries of the scheduling layer's policies: the classic ones of
/// [`Policy::ALL`], then those with parameters.
pub(super) fn entries() -> Vec<(&'static str, &'static str, Configure)> {
    let creasy: Configure = Arc::new(|p: &Params| {
        let params = creasy_params(p)?;
        Ok(builder(move |_| Creasy::new(params)))
    });
    let logged: Configure = Arc::new(|p: &Params| {
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
    });
    let mut entries = Vec::from(Policy::ALL.map(|p| (p.name(), p.about(), plain(p))));
    entries.extend([
        (
            "creasy",
            "EASY with priority to critical interactive jobs \
             (alpha, wait_scale, short, session_gap, half_life)",
            creasy,
        ),
        (
            "logged",
            "the log's own service: each job starts its logged wait (times scale, times a \
             random factor of mean 1 and sd jitter) after submission, on an unbounded \
             machine; the calibration baseline (scale, jitter, seed)",
            logged,
        ),
    ]);
    entries
}
