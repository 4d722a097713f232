//! The long fuzz campaign (`docs/RELIABILITY.md`, "Fuzzing"):
//!
//! ```text
//! cargo run --profile fuzz --example fuzz -- [--target NAME]... [--minutes M] [--seed S]
//!     [--iterations N] [--limit SECONDS]
//! ```
//!
//! runs each target (all by default) for `M` minutes (default 5) or `N` inputs, from
//! seed `S` (default: the clock), and saves every finding under `fuzz/findings/<target>/`:
//! panics, hangs (no answer within `--limit`, default 10 s), slow inputs (over 100 times
//! the seeds' time per byte) and memory peaks over 256 MiB. `FUZZ_SEED` sets the seed too.
//! It ends with status 1 if anything was found. `--target NAME --run FILE` runs one
//! input once and prints its time (to reproduce a finding); `--list` lists the targets.

#[path = "../fuzz/harness/mod.rs"]
mod harness;

use std::time::Duration;

#[global_allocator]
static ALLOC: harness::Counting = harness::Counting;

fn main() {
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("fuzz: {e}");
            std::process::exit(2);
        }
    }
}

/// Runs the campaign the arguments ask for; `Ok(false)` if something was found.
fn run() -> Result<bool, String> {
    let mut cfg = harness::Config {
        targets: Vec::new(),
        seed: std::env::var("FUZZ_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_secs())
            }),
        iterations: u64::MAX,
        max_time: Some(Duration::from_secs(300)),
        time_limit: Duration::from_secs(10),
        judge_speed: true,
        findings: Some(harness::fuzz_dir().join("findings")),
        verbose: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        let number = |v: String| v.parse::<f64>().map_err(|_| format!("{arg}: '{v}'"));
        match arg.as_str() {
            "--target" => cfg.targets.push(value()?),
            "--minutes" => cfg.max_time = Some(Duration::from_secs_f64(60.0 * number(value()?)?)),
            "--seed" => cfg.seed = number(value()?)? as u64,
            "--iterations" => cfg.iterations = number(value()?)? as u64,
            "--limit" => cfg.time_limit = Duration::from_secs_f64(number(value()?)?),
            "--run" => {
                let file = value()?;
                let input = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
                let target = cfg.targets.first().ok_or("--run needs --target first")?;
                let (time, result) = harness::run_one(target, input)?;
                println!("{target} {file}: {result:?} in {time:.2?}");
                return Ok(result.is_ok());
            }
            "--list" => {
                println!("{}", harness::target_names().join("\n"));
                return Ok(true);
            }
            _ => return Err(format!("unknown argument '{arg}' (see examples/fuzz.rs)")),
        }
    }
    if let Some(dir) = &cfg.findings {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    eprintln!("fuzz: seed {}", cfg.seed);
    let failed = harness::replay_regressions(cfg.time_limit);
    for f in &failed {
        eprintln!("REGRESSION {f}");
    }
    let reports = harness::run(&cfg)?;
    let mut clean = failed.is_empty();
    for r in &reports {
        println!("{r}");
        for f in &r.findings {
            println!("  {f}");
        }
        clean &= r.findings.is_empty();
    }
    Ok(clean)
}
