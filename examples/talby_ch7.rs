//! Talby (2006), chapter 7 on a log (KTH by default): the four backfilling schedulers (Table 8: whole-log
//! mean wait and bounded slowdown; Table 9: months won; Table 10: the monthly wait gaps
//! between Flex and Maui) and the adaptive schedulers over {Flex, Maui} (Table 11:
//! improvement over Maui in mean wait and in the standard deviation of the monthly mean
//! waits). Open-loop replays of the log with its own estimates, jobs killed at their
//! estimate, bounded slowdown with a 10 s threshold; a month is 30 days from the first
//! submission, and the incomplete last one is left out (KTH: 11 months, as the seed). A
//! log shorter than three months (the Curie sample: 23 days) is cut in weeks instead, and
//! the tables say so.
//!
//! ```text
//! cargo run --release --example talby_ch7 [-- path/to/log.swf [FLEX]]
//! ```
//!
//! `FLEX` is the Flex column's scheduler and the adaptive schedulers' Flex candidate
//! (default `flex`; for example `flex:preset=talby2006`).
//!
//! Prints Markdown tables (docs/VALIDATION.md, "Talby 2006, chapter 7").

use std::error::Error;
use std::path::{Path, PathBuf};

use sitesim::commands::replay::{ReplayOptions, replay_file};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const MONTH: i64 = 30 * 86_400;
const WEEK: i64 = 7 * 86_400;

/// Each job's submit time, wait and bounded slowdown under `policy`, and the policy's
/// report of its run (an adaptive scheduler's time by candidate).
type Jobs = (Vec<(i64, f64, f64)>, Option<serde_json::Value>);

fn jobs(log: &Path, policy: &str, scratch: &Path) -> Result<Jobs> {
    let out = scratch.join(policy.replace([':', ',', '=', '[', ']', '"'], "_"));
    let opts = ReplayOptions {
        policy: policy.parse()?,
        out: Some(out.clone()),
        ..ReplayOptions::default()
    };
    let report = replay_file(log, &opts)?.metrics.scheduler;
    let mut reader = csv::Reader::from_path(out.join("jobs.csv"))?;
    let header = reader.headers()?.clone();
    let col = |name: &str| header.iter().position(|h| h == name).ok_or(name.to_owned());
    let (submit, wait, bsld) = (col("submit")?, col("wait")?, col("bounded_slowdown")?);
    let mut rows = Vec::new();
    for row in reader.records() {
        let row = row?;
        rows.push((row[submit].parse()?, row[wait].parse()?, row[bsld].parse()?));
    }
    Ok((rows, report))
}

/// Whole-log means of wait and bounded slowdown, and monthly means of wait and bounded
/// slowdown over the complete months.
struct Figures {
    wait: f64,
    bsld: f64,
    monthly: Vec<(f64, f64)>,
}

/// The period of the tables: a month, or a week for a log shorter than three months.
fn period(rows: &[(i64, f64, f64)]) -> (i64, &'static str) {
    let first = rows.iter().map(|r| r.0).min().unwrap_or(0);
    let last = rows.iter().map(|r| r.0).max().unwrap_or(0);
    if last - first >= 3 * MONTH {
        (MONTH, "month")
    } else {
        (WEEK, "week")
    }
}

fn figures(rows: &[(i64, f64, f64)]) -> Figures {
    let n = rows.len() as f64;
    let first = rows.iter().map(|r| r.0).min().unwrap_or(0);
    let last = rows.iter().map(|r| r.0).max().unwrap_or(0);
    let (period, _) = period(rows);
    let months = ((last - first) / period) as usize;
    let mut sums: Vec<(f64, f64, f64)> = vec![(0.0, 0.0, 0.0); months];
    for &(submit, wait, bsld) in rows {
        if let Some(m) = sums.get_mut(((submit - first) / period) as usize) {
            *m = (m.0 + wait, m.1 + bsld, m.2 + 1.0);
        }
    }
    Figures {
        wait: rows.iter().map(|r| r.1).sum::<f64>() / n,
        bsld: rows.iter().map(|r| r.2).sum::<f64>() / n,
        monthly: sums
            .into_iter()
            .map(|(w, b, k)| (w / k.max(1.0), b / k.max(1.0)))
            .collect(),
    }
}

fn sd(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
}

fn main() -> Result<()> {
    let log = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/workloads/KTH-SP2-1996-2.swf"));
    let flex_spec = std::env::args().nth(2).unwrap_or_else(|| "flex".to_owned());
    let scratch = std::env::temp_dir().join(format!("sitesim-talby-ch7-{}", std::process::id()));
    let four = ["conservative", "easy", &flex_spec, "maui"];
    let name = log
        .file_stem()
        .map_or("log".into(), |s| s.to_string_lossy().into_owned());
    let mut all = Vec::new();
    let mut unit = "month";
    for policy in four {
        let rows = jobs(&log, policy, &scratch)?.0;
        unit = period(&rows).1;
        all.push(figures(&rows));
    }
    println!("Table 8 ({name}): whole-log means\n");
    println!("| | Cons | Easy | Flex | Maui |\n|---|---|---|---|---|");
    println!(
        "| mean wait (s) | {} |",
        all.iter()
            .map(|f| format!("{:.0}", f.wait))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!(
        "| mean bounded slowdown | {} |",
        all.iter()
            .map(|f| format!("{:.1}", f.bsld))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let months = all[0].monthly.len();
    let winner = |pick: fn(&(f64, f64)) -> f64, m: usize| {
        (0..4)
            .min_by(|&a, &b| pick(&all[a].monthly[m]).total_cmp(&pick(&all[b].monthly[m])))
            .expect("four schedulers")
    };
    println!("\nTable 9 ({name}): {unit}s won, of {months}\n");
    println!("| by | Cons | Easy | Flex | Maui |\n|---|---|---|---|---|");
    for (name, pick) in [
        ("wait", (|m: &(f64, f64)| m.0) as fn(&(f64, f64)) -> f64),
        ("bounded slowdown", |m: &(f64, f64)| m.1),
    ] {
        let mut won = [0; 4];
        for m in 0..months {
            won[winner(pick, m)] += 1;
        }
        println!("| {name} | {} |", won.map(|w| w.to_string()).join(" | "));
    }
    let (flex, maui) = (&all[2], &all[3]);
    let mut gaps: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for m in 0..months {
        let (f, u) = (flex.monthly[m].0, maui.monthly[m].0);
        if f < u {
            gaps[0].push(100.0 * (u - f) / f);
        } else {
            gaps[1].push(100.0 * (f - u) / u);
        }
    }
    println!("\nTable 10 ({name}): {unit}ly mean-wait gap to the loser, percent of the winner's\n");
    println!("| {unit}s won by | {unit}s | average gap | maximal gap |\n|---|---|---|---|");
    for (name, g) in ["Flex", "Maui"].iter().zip(&gaps) {
        if g.is_empty() {
            println!("| {name} | 0 | – | – |");
            continue;
        }
        let avg = g.iter().sum::<f64>() / g.len() as f64;
        let max = g.iter().copied().fold(0.0, f64::max);
        println!("| {name} | {} | {avg:.0}% | {max:.0}% |", g.len());
    }
    println!("\nTable 11 ({name}): adaptive schedulers over {{Flex, Maui}}, gain over Maui\n");
    println!(
        "| scheduler | mean wait (s) | performance | SD of {unit}ly waits (s) | stability | time active |"
    );
    println!("|---|---|---|---|---|---|");
    let maui_sd = sd(&maui.monthly.iter().map(|m| m.0).collect::<Vec<_>>());
    let candidates = format!(r#"candidates=["{flex_spec}","maui"]"#);
    for policy in [
        "maui".to_owned(),
        flex_spec.clone(),
        format!("pbas:{candidates}"),
        format!("pbas:metric=utilization,period=7d,{candidates}"),
        format!(r#"wbas:high="{flex_spec}""#),
    ] {
        let (rows, report) = jobs(&log, &policy, &scratch)?;
        let f = figures(&rows);
        let active = report
            .as_ref()
            .and_then(|r| r["candidates"].as_array().cloned())
            .map(|c| {
                let secs = |c: &serde_json::Value| c["seconds_active"].as_f64().unwrap_or(0.0);
                let total: f64 = c.iter().map(secs).sum::<f64>().max(1.0);
                c.iter()
                    .map(|c| {
                        format!(
                            "{} {:.0}%",
                            c["policy"].as_str().unwrap_or("?"),
                            100.0 * secs(c) / total
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_else(|| "–".to_owned());
        let s = sd(&f.monthly.iter().map(|m| m.0).collect::<Vec<_>>());
        println!(
            "| {policy} | {:.0} | {:+.1}% | {s:.0} | {:+.1}% | {active} |",
            f.wait,
            100.0 * (maui.wait - f.wait) / maui.wait,
            100.0 * (maui_sd - s) / maui_sd
        );
    }
    std::fs::remove_dir_all(&scratch).ok();
    Ok(())
}
