//! The registry entries of the scheduling layer's own policies (`crate::sched`).

use std::sync::Arc;

use super::params::{Configure, Params};
use crate::options;
use crate::sched::{
    BuildContext, Builder, Conservative, Creasy, CreasyParams, Fairshare, FairshareParams,
    FlexParams, Jitter, Limits, Logged, Maui, MauiParams, Policy, Scheduler, UserLimits, builder,
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
    let maui: Configure = Arc::new(|p: &Params| {
        let d = MauiParams::default();
        let params = MauiParams {
            queue_time: p.f64("queue_time", d.queue_time)?,
            xfactor: p.f64("xfactor", d.xfactor)?,
            size: p.f64("size", d.size)?,
            fairshare: p.f64("fairshare", d.fairshare)?,
            half_life: p
                .duration("half_life", Some(d.half_life))?
                .ok_or("maui: half_life cannot be none")?,
        };
        params.check().map_err(|e| format!("maui: {e}"))?;
        Ok(builder(move |_| Maui::new(params)))
    });
    let fairshare: Configure = Arc::new(|p: &Params| {
        let d = FairshareParams::default();
        let max_age = p
            .duration("max_age", Some(d.max_age))?
            .ok_or("fairshare: max_age cannot be none")?;
        let params = FairshareParams {
            age: p.f64("age", d.age)?,
            fairshare: p.f64("fairshare", d.fairshare)?,
            size: p.f64("size", d.size)?,
            max_age,
            half_life: p
                .duration("half_life", Some(d.half_life))?
                .ok_or("fairshare: half_life cannot be none")?,
            starve: p.duration("starve", Some(max_age))?,
        };
        params.check().map_err(|e| format!("fairshare: {e}"))?;
        Ok(builder(move |_| Fairshare::new(params)))
    });
    let limits: Configure = Arc::new(|p: &Params| {
        let policy = p.spec("policy", "easy")?;
        if ["pbas", "wbas", "time-of-day"].contains(&policy.name()) {
            // Their shadow runs and switches take arrivals in submission order, which
            // released jobs are not: limits go under each candidate instead.
            return Err(format!(
                "limits: an adaptive policy cannot run under limits; give its candidates \
                 the limits instead ({}:candidates=[\"limits:policy=flex,jobs=4\", ...])",
                policy.name()
            ));
        }
        let limit = |key: &str| -> Result<Option<u32>, String> {
            match p.u64(key, 0)? {
                0 => Ok(None),
                n => u32::try_from(n)
                    .map(Some)
                    .map_err(|_| format!("limits: {key} must be at most {}", u32::MAX)),
            }
        };
        let limits = UserLimits {
            jobs: limit("jobs")?,
            procs: limit("procs")?,
        };
        if limits.jobs.is_none() && limits.procs.is_none() {
            return Err("limits: give jobs or procs (or both), each at least 1".into());
        }
        Ok(Arc::new(move |ctx: &BuildContext| {
            Box::new(Limits::new(policy.build(ctx), limits)) as Box<dyn Scheduler>
        }) as Builder)
    });
    let flex: Configure = Arc::new(|p: &Params| {
        let preset = p.string("preset", "none")?;
        let d = FlexParams::preset(&preset).map_err(|e| format!("flex: {e}"))?;
        let depth = p.u64("depth", d.depth as u64)?;
        let params = FlexParams {
            slack_factor: p.f64("slack_factor", d.slack_factor)?,
            slack: options::parse(
                "a flex slack",
                &p.string("slack", &options::name(&d.slack))?,
            )
            .map_err(|e| format!("flex: slack: {e}"))?,
            grade: options::parse(
                "a flex grade",
                &p.string("grade", &options::name(&d.grade))?,
            )
            .map_err(|e| format!("flex: grade: {e}"))?,
            regrade: options::parse(
                "a flex regrade",
                &p.string("regrade", &options::name(&d.regrade))?,
            )
            .map_err(|e| format!("flex: regrade: {e}"))?,
            depth: usize::try_from(depth)
                .map_err(|_| format!("flex: depth {depth} is too large"))?,
        };
        params.check().map_err(|e| format!("flex: {e}"))?;
        Ok(builder(move |ctx| Conservative::flex(ctx.procs, params)))
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
        (
            "maui",
            "Maui as Talby 2006 simulates it: EASY in the order of Maui's priority \
             (queue_time, xfactor, size, fairshare weights; half_life of usage)",
            maui,
        ),
        (
            "flex",
            "Flex (Talby and Feitelson 1999): conservative backfilling whose queue order \
             is chosen at each arrival by a grade, no job delayed past its slack \
             (slack_factor = 1 mean wait, slack = uniform | size (less for wider jobs), grade = wait | bsld | waiting, regrade = arrivals | \
             events (also at early ends), depth = 0: all; preset = talby2006: slack_factor \
             0.2, fitted to Talby 2006, Table 8, KTH)",
            flex,
        ),
        (
            "fairshare",
            "Slurm-style multifactor priority over EASY: age, fair-share from decayed \
             usage, job size (age, fairshare, size weights; max_age, half_life; starve: \
             a job waiting this long goes first, default max_age, none: never)",
            fairshare,
        ),
        (
            "limits",
            "a policy under per-user limits, held jobs queued \
             (policy = easy; jobs: running jobs per user, procs: processors per user)",
            limits,
        ),
    ]);
    entries
}
