//! The registry entries of the adaptive meta-schedulers (`crate::adaptive`) and their
//! parameter readers; a meta-scheduler's candidates are specs, resolved here.

use std::sync::Arc;

use super::params::{Configure, Params};
use super::spec::SchedulerSpec;
use crate::adaptive::{Candidate, Pbas, PbasParams, TimeOfDay, TimeOfDayParams, Wbas, WbasParams};
use crate::options;
use crate::sched::builder;
use crate::time::{DAY, HOUR};

/// A spec as a meta-scheduler's candidate: labelled by the spec, built by its builder.
impl From<SchedulerSpec> for Candidate {
    fn from(spec: SchedulerSpec) -> Self {
        Candidate {
            label: spec.label(),
            build: spec.builder,
        }
    }
}

/// The parameters of time-of-day switching a spec gives, defaults for the rest.
fn time_of_day_params(p: &Params) -> Result<TimeOfDayParams, String> {
    let hour = |key: &str, default: u8| -> Result<u8, String> {
        let h = p.f64(key, f64::from(default))?;
        if h.fract() != 0.0 || !(0.0..=24.0).contains(&h) {
            return Err(format!(
                "time-of-day: {key} must be a whole hour from 0 to 24, not {h}"
            ));
        }
        Ok(h as u8)
    };
    let params = TimeOfDayParams {
        day: p.spec("day", "creasy")?.into(),
        night: p.spec("night", "easy")?.into(),
        day_start: hour("day_start", 8)?,
        day_end: hour("day_end", 18)?,
    };
    params.check()?;
    Ok(params)
}

/// The parameters of PBAS a spec gives, defaults for the rest.
fn pbas_params(p: &Params) -> Result<PbasParams, String> {
    let params = PbasParams {
        candidates: p
            .specs("candidates", &["flex", "maui"])?
            .into_iter()
            .map(Candidate::from)
            .collect(),
        period: p
            .duration("period", Some(12 * HOUR))?
            .ok_or("pbas: period cannot be none")?,
        metric: options::parse("a pbas metric", &p.string("metric", "response")?)
            .map_err(|e| format!("pbas: metric: {e}"))?,
    };
    params.check()?;
    Ok(params)
}

/// The parameters of WBAS a spec gives, defaults for the rest.
fn wbas_params(p: &Params) -> Result<WbasParams, String> {
    let params = WbasParams {
        high: p.spec("high", "flex")?.into(),
        low: p.spec("low", "maui")?.into(),
        period: p
            .duration("period", Some(DAY))?
            .ok_or("wbas: period cannot be none")?,
        maf: p.f64("maf", 7500.0)?,
    };
    params.check()?;
    Ok(params)
}

/// The registry entries of the adaptive policies.
pub(super) fn entries() -> Vec<(&'static str, &'static str, Configure)> {
    vec![
        (
            "time-of-day",
            "one policy by day, another by night on the site's clock (day = creasy, \
             night = easy, day_start = 8, day_end = 18: day is local hours \
             [day_start, day_end))",
            Arc::new(|p: &Params| {
                let params = time_of_day_params(p)?;
                Ok(builder(move |ctx| TimeOfDay::new(&params, ctx)))
            }),
        ),
        (
            "pbas",
            "performance-based adaptive scheduling, Talby 2006, §7.3 (candidates = \
             [\"flex\", \"maui\"], period = 12h, metric = wait | response | bsld | \
             utilization, default response)",
            Arc::new(|p: &Params| {
                let params = pbas_params(p)?;
                Ok(builder(move |ctx| Pbas::new(&params, ctx)))
            }),
        ),
        (
            "wbas",
            "workload-based adaptive scheduling, Talby 2006, §7.4 (high = flex, low = maui, \
             period = 1d, maf = 7500)",
            Arc::new(|p: &Params| {
                let params = wbas_params(p)?;
                Ok(builder(move |ctx| Wbas::new(&params, ctx)))
            }),
        ),
    ]
}
