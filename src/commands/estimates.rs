//! `sitesim estimates`: the modal estimate model (Tsafrir, Etsion & Feitelson; Tsafrir et al. 2005)
//! for a log's estimates or for given inputs, as a table of its values and shares.

use std::fmt::Write as _;
use std::path::Path;

use crate::predict::{ModalModel, ModalParams};
use crate::swf::SwfReader;
use crate::time::{Hms, Time};

/// What the model is built for: the jobs, the largest estimate and the share of jobs
/// at it (a percentage below 100), from a log or given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EstimatesInput {
    /// Jobs.
    pub jobs: u64,
    /// The largest estimate, seconds.
    pub max: Time,
    /// The share of jobs at the largest estimate, percent.
    pub share: Option<f64>,
}

impl EstimatesInput {
    /// The jobs, largest estimate and its share in the log `swf`.
    pub fn of_log(swf: &Path) -> Result<EstimatesInput, String> {
        let reader = SwfReader::open(swf).map_err(|e| e.to_string())?;
        let estimates: Vec<Time> = reader
            .map(|r| r.map(|l| l.record.req_time))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let max = estimates
            .iter()
            .copied()
            .max()
            .filter(|&m| m > 0)
            .ok_or_else(|| {
                format!(
                    "{}: the log has no estimates; give --jobs and --max",
                    swf.display()
                )
            })?;
        let at_max = estimates.iter().filter(|&&e| e == max).count();
        Ok(EstimatesInput {
            jobs: estimates.len() as u64,
            max,
            share: Some(100.0 * at_max as f64 / estimates.len() as f64),
        })
    }
}

/// `sitesim estimates`: builds the modal model for `input` (seeded `seed`) and prints
/// its table.
pub fn estimates_command(input: EstimatesInput, seed: u64) -> Result<(), String> {
    print!("{}", estimates_table(input, seed)?);
    Ok(())
}

/// The modal model for `input` (seeded `seed`) as the table `sitesim estimates` prints.
pub fn estimates_table(input: EstimatesInput, seed: u64) -> Result<String, String> {
    let EstimatesInput { jobs, max, share } = input;
    if let Some(s) = share
        && !(0.0..100.0).contains(&s)
    {
        return Err(format!("--share {s} must be a percentage below 100"));
    }
    let pairs: Vec<(Time, f64)> = share.map(|s| (max, s)).into_iter().collect();
    let model = ModalModel::build(&ModalParams::default(), jobs, max, &pairs, seed)?;
    Ok(render_modal(&model, jobs, max))
}

/// The modal estimate model's table, for `sitesim estimates`.
pub fn render_modal(model: &ModalModel, jobs: u64, max: Time) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "modal estimate model (Tsafrir, Etsion & Feitelson): {jobs} jobs, maximum {} ({max} s)",
        Hms(max)
    );
    let _ = writeln!(
        w,
        "  {} distinct values, curve exponent a = {:.4}",
        model.k, model.a
    );
    let mut by_share: Vec<f64> = model.modes.iter().map(|m| m.share).collect();
    by_share.sort_by(|a, b| b.total_cmp(a));
    let mut acc = 0.0;
    for (i, s) in by_share.iter().enumerate() {
        acc += s;
        if [0, 4, 9, 19].contains(&i) {
            let _ = writeln!(
                w,
                "  the {:>2} most popular cover {:>6.2}% of jobs",
                i + 1,
                acc
            );
        }
    }
    let counts = model.counts(jobs);
    let _ = writeln!(
        w,
        "  {:>5}  {:>12}  {:>8}  {:>8}  head",
        "rank", "estimate", "share %", "jobs"
    );
    for (m, c) in model.modes.iter().zip(counts) {
        let _ = writeln!(
            w,
            "  {:>5}  {:>12}  {:>8.3}  {:>8}  {}",
            m.rank,
            Hms(m.time).to_string(),
            m.share,
            c,
            if m.head { "*" } else { "" }
        );
    }
    out
}
