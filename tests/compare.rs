//! `sitesim report A B ...`: the page comparing several results folders, from runs made
//! by the binary on a small generated log and from hand-made replicated folders.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::{scratch, sitesim, stderr};

/// A fresh folder `name` for this test binary.
fn fresh(name: &str) -> PathBuf {
    let dir = scratch("compare", name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str]) -> String {
    let out = sitesim(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Replays of one generated log of 300 jobs on 32 processors under FCFS, EASY and EASY
/// again (a scheduler two runs share), in `dir`: `dir/fcfs`, `dir/easy`, `dir/easy2`.
fn three_replays(dir: &Path) -> [PathBuf; 3] {
    let log = dir.join("g.swf");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    run(&[
        "generate",
        "--jobs",
        "300",
        "--procs",
        "32",
        "--load",
        "0.9",
        "--out",
        &s(&log),
    ]);
    let runs = [dir.join("fcfs"), dir.join("easy"), dir.join("easy2")];
    for (out, policy) in runs.iter().zip(["fcfs", "easy", "easy"]) {
        run(&[
            "replay",
            "-q",
            "--swf",
            &s(&log),
            "--scheduler",
            policy,
            "--out",
            &s(out),
        ]);
    }
    runs
}

/// The numbers in attribute `name="..."` of every element in `svg`.
fn attribute(svg: &str, name: &str) -> Vec<f64> {
    let key = format!(" {name}=\"");
    svg.split(&key)
        .skip(1)
        .filter_map(|rest| rest.split('"').next()?.parse().ok())
        .collect()
}

/// The right end of what is drawn in `svg` before its legend (lines, rectangles and
/// polylines; the background and text left out), and the legend's left edge.
fn plot_and_legend(svg: &str) -> (f64, f64) {
    let at = svg.rfind("<g class=\"legend\">").expect("a legend column");
    let (body, legend) = svg.split_at(at);
    let mut right = 0.0f64;
    for element in body.split('<').filter(|e| !e.starts_with("text")) {
        if element.starts_with("rect") && element.contains("width=\"800\"") {
            continue;
        }
        let xs = attribute(element, "x1")
            .into_iter()
            .chain(attribute(element, "x2"));
        right = xs.fold(right, f64::max);
        if let (Some(x), Some(w)) = (
            attribute(element, "x").first(),
            attribute(element, "width").first(),
        ) {
            right = right.max(x + w);
        }
        if let Some(points) = element.split("points=\"").nth(1) {
            for p in points.split('"').next().unwrap().split_whitespace() {
                right = right.max(p.split(',').next().unwrap().parse().unwrap());
            }
        }
    }
    let left = attribute(legend, "x1")
        .into_iter()
        .chain(attribute(legend, "x"))
        .fold(f64::INFINITY, f64::min);
    (right, left)
}

/// Each legend entry of `svg`: its label and its swatch's colour.
fn legend_colours(svg: &str) -> BTreeMap<String, String> {
    let at = svg.rfind("<g class=\"legend\">").expect("a legend column");
    svg[at..]
        .lines()
        .filter_map(|line| {
            let colour = line
                .split(" stroke=\"")
                .nth(1)
                .or_else(|| line.split(" fill=\"").nth(1))?
                .split('"')
                .next()?
                .to_lowercase();
            let label = line.split("\">").last()?.strip_suffix("</text>")?;
            Some((label.to_owned(), colour))
        })
        .collect()
}

#[test]
fn replays_of_one_log_are_compared_job_by_job() {
    let dir = fresh("replays");
    let runs = three_replays(&dir);
    let out = dir.join("page");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let printed = run(&[
        "report",
        &s(&runs[0]),
        &s(&runs[1]),
        &s(&runs[2]),
        "--out",
        &s(&out),
    ]);
    assert!(printed.contains("compared 3 folders"), "{printed}");
    assert!(printed.contains(&s(&out.join("index.html"))), "{printed}");
    let page = fs::read_to_string(out.join("index.html")).unwrap();
    // Each run named by its scheduler, by its folder too where two share one, in its
    // colour.
    let colours = [
        ("fcfs", "#0072b2"),
        ("easy (easy)", "#d55e00"),
        ("easy (easy2)", "#009e73"),
    ];
    for (label, colour) in colours {
        assert!(
            page.contains(&format!("<td class=\"l\">{label}</td><td>")),
            "{label} missing"
        );
        assert!(page.contains(colour), "{colour} missing");
    }
    let svgs: Vec<PathBuf> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect();
    for name in [
        "cdf-wait.svg",
        "cdf-response.svg",
        "cdf-bsld.svg",
        "box-wait.svg",
        "box-response.svg",
        "box-bsld.svg",
        "daily-utilization.svg",
        "daily-waiting.svg",
        "paired-wait.svg",
        "diff-gantt-2.svg",
    ] {
        assert!(out.join(name).is_file(), "{name} missing");
        assert!(
            page.contains(&format!("src=\"{name}\"")),
            "{name} not on the page"
        );
    }
    // Every figure: its legend right of everything drawn, each run in its colour.
    for path in &svgs {
        let svg = fs::read_to_string(path).unwrap();
        let (right, left) = plot_and_legend(&svg);
        assert!(
            right < left,
            "{}: drawn to {right}, legend from {left}",
            path.display()
        );
        for (label, colour) in legend_colours(&svg) {
            if let Some((_, c)) = colours.iter().find(|(l, _)| *l == label) {
                assert_eq!(&colour, c, "{}: {label}", path.display());
                let body = &svg[..svg.rfind("<g class=\"legend\">").unwrap()];
                assert!(
                    body.to_lowercase().contains(&format!("\"{c}\"")),
                    "{}: no data in {c}",
                    path.display()
                );
            }
        }
    }
    // The CDFs name every run; the paired differences name the pairs.
    let cdf = fs::read_to_string(out.join("cdf-wait.svg")).unwrap();
    assert_eq!(legend_colours(&cdf).len(), 3);
    let paired = fs::read_to_string(out.join("paired-wait.svg")).unwrap();
    assert_eq!(
        legend_colours(&paired).keys().collect::<Vec<_>>(),
        ["easy (easy) − fcfs", "easy (easy2) − fcfs"]
    );
    // Every job is shared: the same log, the same ids.
    for label in ["easy (easy)", "easy (easy2)"] {
        assert!(
            page.contains(&format!("<td class=\"l\">{label} − fcfs</td><td>300</td>")),
            "no pairing of {label}"
        );
    }
    // Each run against the first: easy2 moves the jobs easy moves.
    assert!(out.join("diff-gantt-3.svg").is_file());
    let gantt = fs::read_to_string(out.join("diff-gantt-2.svg")).unwrap();
    assert!(
        gantt.contains("<title>job "),
        "no job in the difference Gantt chart"
    );
    assert_eq!(
        legend_colours(&gantt)
            .get("same in both")
            .map(String::as_str),
        Some("#a0a0a0")
    );
    // Two replays under one scheduler: every job paired, none moved, nothing to draw.
    let same = dir.join("same");
    run(&["report", &s(&runs[1]), &s(&runs[2]), "--out", &s(&same)]);
    let page = fs::read_to_string(same.join("index.html")).unwrap();
    assert!(page.contains("<td class=\"l\">easy (easy2) − easy (easy)</td><td>300</td>"));
    assert!(same.join("paired-wait.svg").is_file());
    assert!(!same.join("diff-gantt-2.svg").exists());
    // The same folders give the same bytes.
    let again = dir.join("again");
    run(&[
        "report",
        &s(&runs[0]),
        &s(&runs[1]),
        &s(&runs[2]),
        "--out",
        &s(&again),
    ]);
    for path in svgs.iter().chain([&out.join("index.html")]) {
        let name = path.file_name().unwrap();
        assert_eq!(fs::read(path).unwrap(), fs::read(again.join(name)).unwrap());
    }
    // One folder keeps its own report.
    run(&["report", &s(&runs[0])]);
    assert!(runs[0].join("report/index.html").is_file());
}

/// A hand-made folder of replicated runs under `scheduler`, with `seeds`.
fn replicated(dir: &Path, scheduler: &str, seeds: &[u64], wait: f64) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join("summary.json"),
        format!("{{\"scheduler\": \"{scheduler}\", \"procs\": 64, \"input\": \"x.swf\"}}"),
    )
    .unwrap();
    let mut csv = "replication,seed,jobs_per_week,mean_wait\n".to_owned();
    let mut weekly = "replication,week,length_hours,utilization_pct,waiting_jobs\n".to_owned();
    for (r, seed) in seeds.iter().enumerate() {
        csv += &format!("{r},{seed},{},{}\n", 100 + r, wait + 360.0 * r as f64);
        for w in 0..4 {
            weekly += &format!("{r},{w},168.0,{},{}\n", 50 + w, r + w);
        }
    }
    fs::write(dir.join("replications.csv"), csv).unwrap();
    fs::write(dir.join("weekly.csv"), weekly).unwrap();
    dir.to_owned()
}

#[test]
fn replicated_runs_are_paired_by_seed() {
    let dir = fresh("replicated");
    let a = replicated(&dir.join("a"), "fcfs", &[11, 12, 13], 7200.0);
    let b = replicated(&dir.join("b"), "easy", &[11, 12, 13], 3600.0);
    let c = replicated(&dir.join("c"), "sjbf", &[21, 22, 23], 3600.0);
    let out = dir.join("page");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    run(&["report", &s(&a), &s(&b), &s(&c), "--out", &s(&out)]);
    let page = fs::read_to_string(out.join("index.html")).unwrap();
    // easy − fcfs: the mean wait one hour less in each of the three pairs.
    assert!(
        page.contains("<tr><td class=\"l\">mean wait (h)</td><td>-1</td><td>0</td><td>3</td></tr>"),
        "{page}"
    );
    assert!(page.contains("sharing no seed with the first run: sjbf"));
    for name in [
        "box-mean-wait.svg",
        "weekly-utilization-pct.svg",
        "weekly-waiting-jobs.svg",
    ] {
        let svg = fs::read_to_string(out.join(name)).unwrap();
        let (right, left) = plot_and_legend(&svg);
        assert!(right < left, "{name}");
        assert_eq!(
            legend_colours(&svg).get("sjbf").map(String::as_str),
            Some("#009e73"),
            "{name}"
        );
    }
}

#[test]
fn what_cannot_be_compared_is_refused_by_name() {
    let dir = fresh("refused");
    let runs = three_replays(&dir);
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let reps = replicated(&dir.join("reps"), "easy", &[1], 60.0);
    let out = s(&dir.join("page"));
    let refused = |args: &[&str], code: i32, says: &[&str]| {
        let o = sitesim(args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        for text in says {
            assert!(stderr(&o).contains(text), "{args:?}: {}", stderr(&o));
        }
    };
    // One run's jobs beside replicated runs.
    refused(
        &["report", &s(&runs[0]), &s(&reps), "--out", &out],
        1,
        &[&s(&runs[0]), &s(&reps), "replicated runs alone"],
    );
    // A folder of no known kind, a missing one, an experiment.
    let empty = dir.join("empty");
    fs::create_dir_all(&empty).unwrap();
    refused(
        &["report", &s(&runs[0]), &s(&empty)],
        1,
        &["not a results directory"],
    );
    refused(
        &["report", &s(&runs[0]), "nowhere"],
        1,
        &["nowhere: no such results directory"],
    );
    let experiment = dir.join("experiment");
    fs::create_dir_all(&experiment).unwrap();
    fs::write(experiment.join("experiment.json"), "{}").unwrap();
    refused(
        &["report", &s(&runs[0]), &s(&experiment)],
        1,
        &["an experiment"],
    );
    // A row of jobs.csv that does not parse: the file and its line.
    let bad = dir.join("bad");
    fs::create_dir_all(&bad).unwrap();
    fs::copy(runs[1].join("summary.json"), bad.join("summary.json")).unwrap();
    let jobs = fs::read_to_string(runs[1].join("jobs.csv")).unwrap();
    let broken: Vec<String> = jobs
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 3 {
                l.replacen(',', ",x", 3)
            } else {
                l.to_owned()
            }
        })
        .collect();
    fs::write(bad.join("jobs.csv"), broken.join("\n")).unwrap();
    refused(
        &["report", &s(&runs[0]), &s(&bad), "--out", &out],
        1,
        &[&s(&bad.join("jobs.csv")), "line 4"],
    );
    // Usage: --out with one folder, --colour with several (each run has its colour), a
    // folder twice, more folders than colours.
    refused(&["report", &s(&runs[0]), "--out", &out], 2, &["--out"]);
    refused(
        &["report", &s(&runs[0]), &s(&runs[1]), "--colour", "class"],
        2,
        &["--colour", "each run its own"],
    );
    refused(&["report", &s(&runs[0]), &s(&runs[0])], 2, &["named twice"]);
    let many: Vec<String> = (0..7).map(|k| format!("d{k}")).collect();
    let mut args = vec!["report"];
    args.extend(many.iter().map(String::as_str));
    refused(&args, 2, &["at most 6"]);
    assert!(!dir.join("page").join("index.html").exists());
}
