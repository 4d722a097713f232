//! A paired contrast of contrasts between two experiments run with the same seeds and
//! schedulers: for every scheduler but the first (the reference), at every value of the
//! swept axis, replication by replication, (scheduler − reference) in the first
//! experiment minus (scheduler − reference) in the second. Feitelson 2021, Fig. 21 is
//! such a contrast: CREASY's gain over EASY with jobs only in work hours, against its
//! gain without a daily cycle (docs/VALIDATION-SITE.md, "Fig. 21").
//!
//! ```text
//! cargo run --release --example contrast -- results/creasy-work-hours results/creasy-flat-day
//! ```
//!
//! Prints a Markdown table: each gain, in jobs and in processor-hours per week, with the
//! half-width of its 95% interval over the replications, then their difference.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::Path;

use sitesim::results::metric::MetricStats;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The figures compared.
const FIGURES: [(&str, &str); 2] = [
    ("jobs_per_week", "jobs/week"),
    ("proc_hours_per_week", "processor-hours/week"),
];

/// One experiment's runs: by (label, x), by replication, each figure.
type Runs = BTreeMap<(String, String), BTreeMap<u32, [f64; 2]>>;

/// The runs of `dir/runs.csv`, and its schedulers' labels in order of appearance.
fn read(dir: &Path) -> Result<(Runs, Vec<String>)> {
    let mut reader = csv::Reader::from_path(dir.join("runs.csv"))?;
    let header = reader.headers()?.clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("{}/runs.csv has no column {name}", dir.display()))
    };
    let (label, x, population, replication) = (
        column("label")?,
        column("x")?,
        column("population")?,
        column("replication")?,
    );
    let figures = [column(FIGURES[0].0)?, column(FIGURES[1].0)?];
    let mut runs = Runs::new();
    let mut labels = Vec::new();
    for row in reader.records() {
        let row = row?;
        let name = row[label].to_owned();
        if !labels.contains(&name) {
            labels.push(name.clone());
        }
        // The swept value: the axis's, or the population multiplier.
        let at = if row[x].is_empty() {
            row[population].to_owned()
        } else {
            row[x].to_owned()
        };
        let values = [row[figures[0]].parse()?, row[figures[1]].parse()?];
        runs.entry((name, at))
            .or_default()
            .insert(row[replication].parse()?, values);
    }
    Ok((runs, labels))
}

/// The replications' gains of `label` over `reference` at `x`, by replication.
fn gains(runs: &Runs, label: &str, reference: &str, x: &str) -> BTreeMap<u32, [f64; 2]> {
    let (Some(ours), Some(base)) = (
        runs.get(&(label.to_owned(), x.to_owned())),
        runs.get(&(reference.to_owned(), x.to_owned())),
    ) else {
        return BTreeMap::new();
    };
    ours.iter()
        .filter_map(|(r, a)| base.get(r).map(|b| (*r, [a[0] - b[0], a[1] - b[1]])))
        .collect()
}

/// `mean ± half-width` of `values`, or "-" for fewer than two.
fn cell(values: &[f64]) -> String {
    if values.len() < 2 {
        return "-".into();
    }
    let s = MetricStats::of("difference", values);
    format!("{:.1} ± {:.1}", s.mean, s.ci95)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [first, second] = args.as_slice() else {
        return Err("usage: contrast RESULTS_DIR OTHER_RESULTS_DIR".into());
    };
    let (a, labels) = read(Path::new(first))?;
    let (b, _) = read(Path::new(second))?;
    let reference = labels.first().ok_or("no runs")?;
    let xs: Vec<String> = a
        .keys()
        .filter(|k| &k.0 == reference)
        .map(|k| k.1.clone())
        .collect();
    for (f, (_, unit)) in FIGURES.iter().enumerate() {
        println!(
            "\n| scheduler | x | gain over {reference}, {first} ({unit}) | gain over \
             {reference}, {second} | contrast (first minus second) | pairs |"
        );
        println!("|---|---:|---:|---:|---:|---:|");
        for label in labels.iter().skip(1) {
            for x in &xs {
                let (ga, gb) = (
                    gains(&a, label, reference, x),
                    gains(&b, label, reference, x),
                );
                let paired: Vec<f64> = ga
                    .iter()
                    .filter_map(|(r, d)| gb.get(r).map(|e| d[f] - e[f]))
                    .collect();
                let of = |g: &BTreeMap<u32, [f64; 2]>| g.values().map(|d| d[f]).collect::<Vec<_>>();
                println!(
                    "| {label} | {x} | {} | {} | {} | {} |",
                    cell(&of(&ga)),
                    cell(&of(&gb)),
                    cell(&paired),
                    paired.len()
                );
            }
        }
    }
    Ok(())
}
