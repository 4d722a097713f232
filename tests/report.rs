//! `sitesim report`: the plots and the page written from a hand-made results directory.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use sitesim::experiment::study::{CapacityAnswer, CapacityResult, Probe};
use sitesim::report::write_report;
use sitesim::results::metric::Replication;
use sitesim::results::runs::{
    ClassFigures, HourFigures, Point, RunPlan, RunRecord, run_path, write_plan, write_run,
};

const SCHEDULERS: [&str; 2] = ["EASY", "FCFS"];
const XS: [f64; 3] = [1.0, 2.0, 4.0];
const REPLICATIONS: u32 = 3;
const SCENARIO: &str = "name = \"demo\"\n# short jobs wait < 1 h & \"more\"\n";

/// A fresh, empty directory under cargo's scratch folder for tests (`target/tmp`).
fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sitesim-report-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Schedulers × swept values (`x` = `None`: one point per scheduler, no sweep).
fn plan(xs: &[Option<f64>]) -> RunPlan {
    let points = xs
        .iter()
        .flat_map(|&x| SCHEDULERS.iter().map(move |&s| (x, s)))
        .enumerate()
        .map(|(i, (x, s))| Point {
            id: format!("p{i:03}"),
            scheduler: s.to_lowercase(),
            label: s.to_string(),
            procs: 128,
            population: x.unwrap_or(1.0),
            x,
        })
        .collect();
    let sweep = xs.iter().any(Option::is_some);
    RunPlan {
        sitesim_version: "0.1.0-test".into(),
        name: "demo <sweep>".into(),
        scenario: SCENARIO.into(),
        axis: sweep.then(|| "population".into()),
        axis_unit: sweep.then(|| "users ×".into()),
        replications: REPLICATIONS,
        points,
    }
}

/// Run `r` of point number `p`, with figures easy to average by hand:
///
/// | figure            | value                      | p000 over r = 0, 1, 2        |
/// |-------------------|----------------------------|------------------------------|
/// | jobs/week         | 100 p + 10 (r + 1)         | 10, 20, 30: 20 ± 25          |
/// | utilization       | 0.40 + 0.05 r              | 40, 45, 50 %: 45 ± 12        |
/// | mean wait         | 30 + 10 p + 3 (r + 1) min  | 33, 36, 39 min: 36.0 ± 7.5   |
/// | mean response     | wait + 60 min              | 1.55, 1.60, 1.65 h: 1.60 ± 0.12 |
/// | session length    | 2 + 0.5 r h                | 2.5 ± 1.2                    |
/// | jobs per session  | 4 + r                      | 5.0 ± 2.5                    |
fn record(p: usize, r: u32) -> RunRecord {
    let (pf, rf) = (p as f64, f64::from(r));
    let wait = 60.0 * (30.0 + 10.0 * pf + 3.0 * (rf + 1.0));
    let class = |class: &str, label: &str, response: f64| ClassFigures {
        class: class.into(),
        label: label.into(),
        jobs: 10,
        mean_wait: response / 2.0,
        mean_response: response * (1.0 + 0.1 * rf),
        mean_bsld: 1.0,
    };
    RunRecord {
        point: format!("p{p:03}"),
        figures: Replication {
            replication: r,
            seed: 1000 + u64::from(r),
            jobs: 1000,
            jobs_per_week: 100.0 * pf + 10.0 * (rf + 1.0),
            proc_hours_per_week: 5000.0,
            utilization: 0.40 + 0.05 * rf,
            mean_wait: wait,
            mean_response: wait + 3600.0,
            mean_bsld: 2.0,
            sessions: 50,
            jobs_per_session: 4.0 + rf,
            session_hours: 2.0 + 0.5 * rf,
            users: 0,
            frustrated: 0,
            arrivals: 0,
            regenerations: 0,
            narrowed_jobs: 0,
            ..Replication::default()
        },
        by_hour: (0..24)
            .map(|h| HourFigures {
                hour: h,
                arrivals: 10.0,
                mean_queue: f64::from(h % 12) + rf + pf,
                utilization: 0.3 + 0.02 * f64::from(h % 12),
            })
            .collect(),
        by_runtime_class: vec![
            class("short", "≤ 1 min", 30.0 * (1.0 + pf)),
            class("medium", "1–10 min", 300.0 * (1.0 + pf)),
            class("long", "> 10 min", 20_000.0 * (1.0 + pf)),
        ],
    }
}

/// Writes `plan` and its runs under `dir`, leaving out the runs in `skip`.
fn results_dir(dir: &Path, plan: &RunPlan, skip: &[(usize, u32)]) {
    write_plan(dir, plan).unwrap();
    for (p, r) in plan.runs() {
        if !skip.contains(&(p, r)) {
            write_run(dir, &record(p, r)).unwrap();
        }
    }
    for &(p, r) in skip {
        assert!(!run_path(dir, &plan.points[p].id, r).exists());
    }
}

/// Every file of `dir/report`, by name.
fn report_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir.join("report"))
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Checks that `text` is one well-formed XML element (tags balanced and properly nested,
/// no stray `<`, `>` or `&` in text or attribute values).
fn assert_well_formed(file: &str, text: &str) {
    let entities = |s: &str| {
        s.match_indices('&').all(|(i, _)| {
            ["&lt;", "&gt;", "&amp;", "&quot;", "&apos;", "&#"]
                .iter()
                .any(|e| s[i..].starts_with(e))
        })
    };
    assert!(text.starts_with("<svg"), "{file}: does not start with <svg");
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = text;
    let mut closed_root = false;
    while let Some(start) = rest.find('<') {
        let between = &rest[..start];
        assert!(
            !between.contains('>') && entities(between),
            "{file}: bad text {between:?}"
        );
        assert!(
            !closed_root || between.trim().is_empty(),
            "{file}: content after the root element"
        );
        let end = start + rest[start..].find('>').expect("unclosed tag");
        let tag = &rest[start + 1..end];
        assert!(
            !tag.contains('<') && entities(tag),
            "{file}: bad tag {tag:?}"
        );
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "{file}: unbalanced quotes in {tag:?}"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop(),
                Some(name.trim()),
                "{file}: misnested </{name}>"
            );
            closed_root = stack.is_empty();
        } else if !tag.ends_with('/') {
            assert!(!closed_root, "{file}: a second root element");
            stack.push(tag.split_whitespace().next().unwrap_or(""));
        }
        rest = &rest[end + 1..];
    }
    assert!(
        stack.is_empty() && closed_root,
        "{file}: unclosed {stack:?}"
    );
    assert!(rest.trim().is_empty(), "{file}: trailing text");
}

/// The `<tr>` of point `id` in the page's table.
fn row<'h>(html: &'h str, id: &str) -> &'h str {
    let cell = format!("<td class=\"l\">{id}</td>");
    let at = html
        .find(&cell)
        .unwrap_or_else(|| panic!("no row for {id}"));
    let start = html[..at].rfind("<tr").unwrap();
    let end = at + html[at..].find("</tr>").unwrap();
    &html[start..end]
}

const AXIS_SVGS: [(&str, &str); 7] = [
    ("axis-jobs-per-week.svg", "throughput (jobs/week)"),
    (
        "axis-proc-hours-per-week.svg",
        "work done (processor-hours/week)",
    ),
    ("axis-utilization.svg", "utilization (%)"),
    ("axis-mean-wait.svg", "mean wait (h)"),
    ("axis-mean-response.svg", "mean response time (h)"),
    ("axis-session-hours.svg", "mean session length (h)"),
    ("axis-jobs-per-session.svg", "jobs per session"),
];

/// The paired plots: file, the figure as its axis names it (the responses without their
/// unit, the mean response's: hours with a sweep, minutes without).
const PAIRED_SVGS: [(&str, &str); 7] = [
    ("paired-jobs-per-week.svg", "throughput (jobs/week)"),
    (
        "paired-proc-hours-per-week.svg",
        "work done (processor-hours/week)",
    ),
    ("paired-utilization.svg", "utilization (%)"),
    ("paired-mean-wait.svg", "mean wait (h)"),
    ("paired-jobs-per-session.svg", "jobs per session"),
    (
        "paired-response-short.svg",
        "response of jobs of runtime &lt;= 1 min",
    ),
    (
        "paired-response-long.svg",
        "response of jobs of runtime &gt; 10 min",
    ),
];

/// The paired plots with the texts they must hold: the y axis, the title and the other
/// scheduler, against the swept axis or by scheduler.
fn paired_svgs(x_label: &str, response_unit: &str) -> Vec<(String, Vec<String>)> {
    PAIRED_SVGS
        .iter()
        .map(|(file, y)| {
            let (quantity, y) = match y.rsplit_once(" (") {
                Some((q, _)) => (q.to_string(), y.to_string()),
                None if y.starts_with("response") => {
                    (y.to_string(), format!("{y} ({response_unit})"))
                }
                None => (y.to_string(), y.to_string()),
            };
            (
                file.to_string(),
                vec![
                    format!("Δ {y}"),
                    format!("Δ {quantity} against EASY"),
                    "FCFS".to_string(),
                    x_label.to_string(),
                ],
            )
        })
        .collect()
}

/// The plots drawn at the focus point whatever the sweep: file, texts it must hold.
fn focus_svgs(scheduler_labels: &[&'static str]) -> Vec<(String, Vec<&'static str>)> {
    let mut files = vec![
        (
            "hour-queue.svg".to_string(),
            vec!["local hour of day (h)", "mean queue length (jobs waiting)"],
        ),
        (
            "hour-utilization.svg".to_string(),
            vec!["local hour of day (h)", "utilization (%)"],
        ),
        (
            "class-response.svg".to_string(),
            vec![
                "job runtime class",
                "mean response time (h)",
                "≤ 1 min",
                "1–10 min",
                "&gt; 10 min",
            ],
        ),
    ];
    for s in &mut files {
        s.1.extend(scheduler_labels.iter().copied());
    }
    for (file, axis) in [
        ("box-jobs-per-week.svg", "throughput (jobs/week)"),
        (
            "box-proc-hours-per-week.svg",
            "work done (processor-hours/week)",
        ),
        ("box-mean-wait.svg", "mean wait (h)"),
    ] {
        let mut texts = vec![axis, "scheduler", "over replications"];
        texts.extend(scheduler_labels.iter().copied());
        files.push((file.to_string(), texts));
    }
    files
}

fn assert_svgs<T: AsRef<str>>(dir: &Path, expected: &[(String, Vec<T>)]) {
    for (file, texts) in expected {
        let path = dir.join("report").join(file);
        let svg = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_well_formed(file, &svg);
        for text in texts {
            let text = text.as_ref();
            assert!(svg.contains(text), "{file}: {text:?} missing");
        }
    }
}

#[test]
fn a_sweep_gets_every_plot_a_table_of_means_and_a_note_of_missing_runs() {
    let dir = scratch("sweep");
    let plan = plan(&XS.map(Some));
    // FCFS at the largest population (point 5) lacks its last replication.
    results_dir(&dir, &plan, &[(5, 2)]);
    let capacity = serde_json::json!({
        "metric": "mean_wait",
        "target": 3600,
        "procs": 192,
        "probes": [
            { "procs": 128, "mean": 5400.5, "ci95": 300.25, "passes": false },
            { "procs": 192, "mean": 3000.0, "ci95": 250.0, "passes": true }
        ]
    });
    fs::write(
        dir.join("capacity.json"),
        serde_json::to_vec(&capacity).unwrap(),
    )
    .unwrap();

    let written = write_report(&dir, Default::default()).unwrap();

    let mut expected: Vec<(String, Vec<&str>)> = AXIS_SVGS
        .iter()
        .map(|(file, y)| {
            (
                file.to_string(),
                vec!["population (users ×)", y, "EASY", "FCFS"],
            )
        })
        .collect();
    expected.extend(focus_svgs(&SCHEDULERS));
    assert_svgs(&dir, &expected);
    let paired = paired_svgs("population (users ×)", "h");
    assert_svgs(&dir, &paired);
    expected.extend(paired.iter().map(|(file, _)| (file.clone(), Vec::new())));
    // The plots by hour, class and replication are at the largest population: no
    // scheduler's throughput levels off before.
    for file in ["hour-queue.svg", "class-response.svg", "box-mean-wait.svg"] {
        let svg = fs::read_to_string(dir.join("report").join(file)).unwrap();
        assert!(svg.contains("population = 4"), "{file}: no point named");
    }
    let mut names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.last().map(String::as_str), Some("index.html"));
    names.sort();
    let mut want: Vec<String> = expected.iter().map(|e| e.0.clone()).collect();
    want.push("paired.csv".into());
    want.push("index.html".into());
    want.sort();
    assert_eq!(names, want);
    // Every report names its figures with `-`, never `_`.
    for name in names.iter().filter(|n| n.ends_with(".svg")) {
        assert!(!name.contains('_'), "{name}: an SVG name with '_'");
    }
    assert!(written.iter().all(|p| p.starts_with(dir.join("report"))));

    let html = fs::read_to_string(dir.join("report/index.html")).unwrap();
    // Names, version and the scenario, escaped.
    assert!(html.contains("<h1>demo &lt;sweep&gt;</h1>"));
    assert!(html.contains("<dd>sitesim 0.1.0-test</dd>"));
    assert!(html.contains("<dt>machine</dt><dd>128 processors</dd>"));
    // A long page lists its sections first, each linked.
    assert!(html.contains("<nav><p>Contents: <a href=\"#section-1\">Unfinished</a> · "));
    assert!(html.contains("<section id=\"section-2\">\n<h2>Points</h2>"));
    assert!(html.contains(
        "<dd>at population = 4 (the largest population: no scheduler&#39;s throughput \
         levels off before)</dd>"
    ));
    assert!(html.contains("# short jobs wait &lt; 1 h &amp; &quot;more&quot;"));
    assert!(!html.contains("wait < 1 h"));
    // Means ± 95% CI computed by hand (see `record`).
    let p0 = row(&html, "p000");
    for cell in [
        "<td class=\"l\">EASY</td>",
        "<td>1</td>",
        "<td>3 / 3</td>",
        "<td>20 ± 25</td>",
        "<td>45 ± 12</td>",
        "<td>0.60 ± 0.12</td>",
        "<td>1.60 ± 0.12</td>",
        "<td>2.5 ± 1.2</td>",
        "<td>5.0 ± 2.5</td>",
    ] {
        assert!(p0.contains(cell), "p000 lacks {cell}: {p0}");
    }
    assert!(row(&html, "p003").contains("<td>320 ± 25</td>"));
    // Point 5 (FCFS, population 4) has runs 0 and 1: 510, 520 jobs/week.
    let p5 = row(&html, "p005");
    assert!(p5.contains("<td>2 / 3</td>"), "{p5}");
    assert!(p5.contains("<td>515 ± 64</td>"), "{p5}");
    assert!(html.contains("1 of 18 runs missing"));
    assert!(html.contains(
        "<td class=\"l\">p005 (FCFS, population = 4)</td><td>1 of 3</td>\
             <td class=\"l\">r0002</td>"
    ));
    for header in [
        "population (users ×)",
        "throughput (jobs/week)",
        "utilization (%)",
        "mean wait (h)",
        "mean response time (h)",
        "mean session length (h)",
    ] {
        assert!(html.contains(&format!("<th>{header}</th>")), "{header}");
    }
    // The capacity search: a capacity.json of another shape than a search writes is said
    // to be one, without a plot or its numbers.
    assert!(!dir.join("report/capacity.svg").exists());
    assert!(html.contains("Capacity search"));
    assert!(html.contains("capacity.json is not the result of a capacity search: "));
    assert!(!html.contains("5400.5"));
    // Every plot, by relative path, with a caption; nothing external.
    for (file, _) in &expected {
        assert!(
            html.contains(&format!("<img src=\"{file}\"")),
            "{file} not shown"
        );
    }
    assert_eq!(html.matches("<figcaption>").count(), expected.len());
    assert!(!html.contains("<script") && !html.contains("src=\"http"));
    assert!(!html.contains("<link"));

    // Byte-identical when run again.
    let first = report_files(&dir);
    assert_eq!(first.len(), expected.len() + 2);
    let again = write_report(&dir, Default::default()).unwrap();
    assert_eq!(again, written);
    assert_eq!(report_files(&dir), first);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_a_sweep_there_are_no_axis_plots_and_the_rest_is_there() {
    let dir = scratch("single");
    let plan = plan(&[None]);
    results_dir(&dir, &plan, &[]);
    let written = write_report(&dir, Default::default()).unwrap();
    let expected = focus_svgs(&SCHEDULERS);
    assert_svgs(&dir, &expected);
    // The paired differences by scheduler, a bar each.
    assert_svgs(&dir, &paired_svgs("scheduler", "h"));
    // The focus plots, the paired ones, paired.csv and index.html.
    assert_eq!(written.len(), expected.len() + PAIRED_SVGS.len() + 2);
    for (file, _) in AXIS_SVGS {
        assert!(!dir.join("report").join(file).exists(), "{file} drawn");
    }
    let html = fs::read_to_string(dir.join("report/index.html")).unwrap();
    assert!(!html.contains("Against") && !html.contains("population"));
    assert!(!html.contains("Capacity search") && !html.contains("missing"));
    // No capacity.json, no capacity plot.
    assert!(!dir.join("report/capacity.svg").exists());
    assert!(row(&html, "p001").contains("<td>120 ± 25</td>"));
    assert!(row(&html, "p001").contains("<td>3 / 3</td>"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_capacity_search_is_plotted_with_its_target_and_its_answers() {
    let dir = scratch("capacity");
    let plan = plan(&[None]);
    results_dir(&dir, &plan, &[]);
    let probe = |procs, mean, ci95| Probe {
        procs,
        mean,
        ci95,
        passes: mean <= 1800.0,
        jobs_per_week: 300.0,
        proc_hours_per_week: f64::from(procs) * 50.0,
    };
    // EASY: the mean meets 30 min at 144 processors, the whole interval at 176 (600 +
    // 240 s); FCFS: both at 176. The probes in the order bisection tried them.
    let capacity = CapacityResult {
        units: sitesim::results::Units::FILES,
        metric: "mean_wait".into(),
        target: 1800.0,
        goal: "below".into(),
        population_procs: 128,
        answers: vec![
            CapacityAnswer {
                scheduler: "EASY".into(),
                procs: Some(144),
                probes: vec![
                    probe(512, 60.0, 30.0),
                    probe(176, 600.0, 240.0),
                    probe(128, 2400.0, 900.0),
                    probe(144, 1740.0, 780.0),
                ],
            },
            CapacityAnswer {
                scheduler: "FCFS".into(),
                procs: Some(176),
                probes: vec![
                    probe(512, 90.0, 40.0),
                    probe(176, 1500.0, 200.0),
                    probe(160, 2100.0, 500.0),
                ],
            },
        ],
    };
    fs::write(
        dir.join("capacity.json"),
        serde_json::to_vec_pretty(&capacity).unwrap(),
    )
    .unwrap();
    let written = write_report(&dir, Default::default()).unwrap();
    assert!(written.contains(&dir.join("report/capacity.svg")));
    assert_svgs(
        &dir,
        &[(
            "capacity.svg".to_string(),
            vec![
                "Capacity search: mean wait by machine size",
                "machine size (processors)",
                "mean wait (h)",
                "\ntarget ≤ 0.5 h\n",
                "\nEASY: 144\n",
                "\nEASY for 95% confidence: 176\n",
                "\nFCFS: 176, also for 95% confidence\n",
                "\nEASY\n",
                "\nFCFS\n",
            ],
        )],
    );
    // On the page, in the capacity search's section, with the answers in its caption.
    let html = fs::read_to_string(dir.join("report/index.html")).unwrap();
    let section = html
        .split("<h2>Capacity search</h2>")
        .nth(1)
        .and_then(|rest| rest.split("<h2>By hour of day</h2>").next())
        .expect("a capacity section");
    assert!(section.contains("<img src=\"capacity.svg\""), "{section}");
    assert!(
        section.contains(
            "EASY: 144 processors, 176 for 95% confidence; FCFS: 176 processors, also for \
             95% confidence."
        ),
        "{section}"
    );
    assert_eq!(html.matches("capacity.svg").count(), 1);
    // The search, its answers and every probe as tables, the metric in hours with its
    // unit in every header, and no raw JSON.
    for cell in [
        "<th class=\"l\">metric</th><th class=\"l\">target</th>\
         <th>population sized for (processors)</th>",
        "<tr><td class=\"l\">mean wait (mean_wait)</td><td class=\"l\">at most 0.5 h</td>\
         <td>128</td></tr>",
        "<th class=\"l\">scheduler</th><th>machine (processors)</th>\
         <th>mean wait (h), mean ± 95% CI</th><th>for 95% confidence (processors)</th>",
        "<tr><td class=\"l\">EASY</td><td>144</td><td>0.483 ± 0.217</td><td>176</td></tr>",
        "<tr><td class=\"l\">FCFS</td><td>176</td><td>0.417 ± 0.0556</td><td>176</td></tr>",
        "<h2>Machines probed for EASY</h2>",
        "<tr><td class=\"l\">128</td><td>0.667 ± 0.25</td><td class=\"l\">no</td>\
         <td>300</td><td>6400</td></tr>",
    ] {
        assert!(section.contains(cell), "no {cell} in {section}");
    }
    assert!(
        !section.contains("{&quot;") && !section.contains("1740"),
        "{section}"
    );
    // capacity.json says what its numbers are in.
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("capacity.json")).unwrap()).unwrap();
    assert_eq!(
        json["units"]["durations"],
        "seconds, unless the name ends in _hours"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_point_without_runs_is_left_out_of_the_plots_with_a_note() {
    let dir = scratch("empty-point");
    // FCFS at the largest population has no runs at all.
    results_dir(&dir, &plan(&XS.map(Some)), &[(5, 0), (5, 1), (5, 2)]);
    let written = write_report(&dir, Default::default()).unwrap();
    let html = fs::read_to_string(dir.join("report/index.html")).unwrap();
    assert!(html.contains("3 of 18 runs missing"));
    assert!(html.contains(
        "<td class=\"l\">p005 (FCFS, population = 4)</td><td>3 of 3</td>\
         <td class=\"l\">r0000, r0001, r0002</td>\
         <td class=\"l\">no runs: left out of the plots</td>"
    ));
    assert!(row(&html, "p005").contains("<td>0 / 3</td>"));
    // FCFS still has its line against the axis. Its throughput is highest at the last
    // population it has runs at, 2, so the plots by hour, class and replication are
    // there, with both schedulers.
    let axis = fs::read_to_string(dir.join("report/axis-jobs-per-week.svg")).unwrap();
    assert!(axis.contains("\nFCFS\n"));
    assert_svgs(&dir, &focus_svgs(&SCHEDULERS));
    let queue = fs::read_to_string(dir.join("report/hour-queue.svg")).unwrap();
    assert!(queue.contains("population = 2"));
    assert!(!html.contains("No runs at"));
    assert!(!written.iter().any(|p| p.to_string_lossy().contains("fcfs")));
    fs::remove_dir_all(&dir).unwrap();

    // Without a sweep, a scheduler without runs is named and left out of those plots,
    // the others keeping their colours.
    let dir = scratch("empty-scheduler");
    results_dir(&dir, &plan(&[None]), &[(0, 0), (0, 1), (0, 2)]);
    write_report(&dir, Default::default()).unwrap();
    let html = fs::read_to_string(dir.join("report/index.html")).unwrap();
    assert!(
        html.contains("No runs for EASY: not in the plots by hour"),
        "{html}"
    );
    assert_svgs(&dir, &focus_svgs(&["FCFS"]));
    let queue = fs::read_to_string(dir.join("report/hour-queue.svg")).unwrap();
    assert!(!queue.contains("EASY"));
    assert!(queue.contains("stroke=\"#D55E00\"") && !queue.contains("stroke=\"#0072B2\""));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_plots_by_hour_are_where_a_scheduler_levels_off() {
    let dir = scratch("levels-off");
    let mut plan = plan(&XS.map(Some));
    plan.scenario = format!("duration = \"8w\"\n{SCENARIO}");
    results_dir(&dir, &plan, &[]);
    // FCFS (points 1, 3, 5) does no more at population 4 than at 2: it levels off at 2,
    // where the schedulers part; EASY goes on growing.
    for r in 0..REPLICATIONS {
        let mut run = record(5, r);
        run.figures.jobs_per_week = record(3, r).figures.jobs_per_week;
        write_run(&dir, &run).unwrap();
    }
    write_report(&dir, Default::default()).unwrap();
    for file in ["hour-queue.svg", "class-response.svg", "box-mean-wait.svg"] {
        let svg = fs::read_to_string(dir.join("report").join(file)).unwrap();
        assert!(
            svg.contains("population = 2"),
            "{file}: not at population 2"
        );
    }
    let html = fs::read_to_string(dir.join("report/index.html")).unwrap();
    assert!(html.contains(
        "<dd>at population = 2 (the first population at which a scheduler&#39;s \
         throughput levels off)</dd>"
    ));
    assert!(html.contains("<dt>duration</dt><dd>8 weeks per run</dd>"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_without_a_plan_is_an_error() {
    let dir = scratch("no-plan");
    let err = write_report(&dir, Default::default()).unwrap_err();
    assert!(err.contains("experiment.json"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn labels_and_names_are_escaped_in_the_page() {
    let dir = scratch("escaped");
    let mut plan = plan(&XS.map(Some));
    plan.name = "it's <b>".into();
    for point in &mut plan.points {
        if point.label == "EASY" {
            point.label = "a<b & \"c\"".into();
        }
    }
    // The scheduler lacks a run at the largest population, so a note names it too.
    results_dir(&dir, &plan, &[(4, 2)]);
    write_report(&dir, Default::default()).unwrap();
    let html = fs::read_to_string(dir.join("report/index.html")).unwrap();
    let label = "a&lt;b &amp; &quot;c&quot;";
    assert!(html.contains("<title>it&#39;s &lt;b&gt;: sitesim report</title>"));
    assert!(html.contains("<h1>it&#39;s &lt;b&gt;</h1>"));
    // The points table, the paired table (the label is the reference), the note and the
    // paired plots' captions, in the text and in the `alt` attribute.
    assert!(row(&html, "p000").contains(&format!("<td class=\"l\">{label}</td>")));
    assert!(html.contains(&format!("<h2>Paired differences from {label}</h2>")));
    assert!(html.contains(&format!("minus {label}&#39;s run")));
    assert!(html.contains(&format!(
        "<td class=\"l\">p004 ({label}, population = 4)</td><td>1 of 3</td>"
    )));
    let caption = format!(
        "Difference in throughput (jobs/week): each scheduler&#39;s run minus {label}&#39;s run"
    );
    assert!(html.contains(&format!("alt=\"{caption}")), "{caption}");
    assert!(
        html.contains(&format!("<figcaption>{caption}")),
        "{caption}"
    );
    assert!(!html.contains("a<b") && !html.contains("\"c\"") && !html.contains("<b>"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn paired_differences_are_plotted_with_the_values_of_their_table() {
    let dir = scratch("paired");
    let plan = plan(&XS.map(Some));
    results_dir(&dir, &plan, &[]);
    write_report(&dir, Default::default()).unwrap();

    // FCFS (point 2k + 1) minus EASY (point 2k) in replication r, by `record`: 100
    // jobs/week, 0 utilization, 10 min (1/6 h) of wait and 0 jobs per session in every
    // replication; the short jobs' response 30 (1 + 0.1 r) s, the long ones' 20000 (1 +
    // 0.1 r) s, in hours (the responses' scale). Over r = 0, 1, 2 with Student's t for
    // 2 degrees of freedom:
    let t = 4.302_652_729_911_275 / 3f64.sqrt();
    let want: [(&str, &str, f64, f64); 7] = [
        ("jobs_per_week", "jobs/week", 100.0, 0.0),
        ("proc_hours_per_week", "processor-hours/week", 0.0, 0.0),
        ("utilization", "%", 0.0, 0.0),
        ("mean_wait", "h", 10.0 / 60.0, 0.0),
        ("jobs_per_session", "jobs", 0.0, 0.0),
        ("response_short", "h", 33.0 / 3600.0, t * 3.0 / 3600.0),
        ("response_long", "h", 22_000.0 / 3600.0, t * 2000.0 / 3600.0),
    ];
    // The data the plots are drawn from: one row per figure and population.
    let text = fs::read_to_string(dir.join("report/paired.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("figure,unit,scheduler,reference,x,pairs,mean,ci95")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), want.len() * XS.len());
    for (row, ((figure, unit, mean, ci), x)) in rows
        .iter()
        .zip(want.iter().flat_map(|w| XS.iter().map(move |x| (w, x))))
    {
        assert_eq!(&row[..4], [*figure, *unit, "FCFS", "EASY"]);
        let close = |got: &str, want: f64| (got.parse::<f64>().unwrap() - want).abs() < 1e-9;
        assert!(close(row[4], *x) && row[5] == "3", "{row:?}");
        assert!(close(row[6], *mean) && close(row[7], *ci), "{row:?}");
    }
    // The same values in the table, as it rounds them.
    let html = fs::read_to_string(dir.join("report/index.html")).unwrap();
    for x in XS {
        let cells = "<td>100</td><td>0</td><td>0</td><td>0.167</td><td>0</td>\
                     <td>0.0092 ± 0.0021</td><td>6.1 ± 1.4</td>";
        let row = format!("<tr><td class=\"l\">FCFS</td><td>{x}</td><td>3</td>{cells}</tr>");
        assert!(html.contains(&row), "no row {row}");
    }
    // The plots come right under the table, before the other sections.
    let table = html.find("<h2>Paired differences from EASY</h2>").unwrap();
    let plot = html.find("<img src=\"paired-jobs-per-week.svg\"").unwrap();
    let hours = html.find("<h2>By hour of day</h2>").unwrap();
    assert!(table < plot && plot < hours);
    // A line for FCFS with a zero line: what the plot library draws for differences.
    let svg = fs::read_to_string(dir.join("report/paired-response-long.svg")).unwrap();
    assert!(svg.contains("\nFCFS\n") && svg.contains("opacity=\"0.7\" stroke=\"#000000\""));
    // FCFS keeps its colour from the plots against the axis (the second scheduler's),
    // though EASY, the first, is not drawn here.
    let stroke =
        |svg: &str, colour: &str| svg.contains(&format!("stroke=\"{colour}\" stroke-width"));
    let axis = fs::read_to_string(dir.join("report/axis-jobs-per-week.svg")).unwrap();
    assert!(stroke(&axis, "#0072B2") && stroke(&axis, "#D55E00"));
    assert!(stroke(&svg, "#D55E00") && !stroke(&svg, "#0072B2"), "{svg}");
    fs::remove_dir_all(&dir).unwrap();
}

/// A replicated run's folder, written by `sitesim model` on 128 processors with
/// `args` (its duration, replications and users).
fn replicated(name: &str, args: &[&str]) -> PathBuf {
    let dir = scratch(name);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sitesim"))
        .args(["model", "-q", "--procs", "128"])
        .args(args)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

#[test]
fn a_results_folder_is_read_within_bounds_and_by_name() {
    let dir = replicated("bounded", &["--duration", "3w", "--replications", "2"]);
    assert!(write_report(&dir, Default::default()).is_ok());
    let weekly = fs::read_to_string(dir.join("weekly.csv")).unwrap();
    let header = weekly.lines().next().unwrap();
    let row = weekly.lines().nth(1).unwrap();
    let edit = |field: &str, value: &str| {
        let k = header.split(',').position(|h| h == field).unwrap();
        let mut cells: Vec<&str> = row.split(',').collect();
        cells[k] = value;
        format!("{header}\n{}\n", cells.join(","))
    };
    for (text, needle) in [
        (
            edit("week", "8000000"),
            "week 8000000: more than the 10428 a run writes",
        ),
        (
            edit("utilization_pct", "NaN"),
            "utilization_pct: 'NaN' is not a finite number",
        ),
    ] {
        fs::write(dir.join("weekly.csv"), &text).unwrap();
        let e = write_report(&dir, Default::default()).unwrap_err();
        assert!(
            e.contains("weekly.csv: row 2:") && e.contains(needle),
            "{e}"
        );
    }
    fs::write(dir.join("weekly.csv"), &weekly).unwrap();
    let replications = fs::read(dir.join("replications.csv")).unwrap();
    fs::write(
        dir.join("replications.csv"),
        "just some text\nnothing else\n",
    )
    .unwrap();
    let e = write_report(&dir, Default::default()).unwrap_err();
    assert!(e.contains("not a replications table"), "{e}");
    fs::write(dir.join("replications.csv"), replications).unwrap();
    // A FIFO planted as the summary is refused at once, not waited on.
    fs::remove_file(dir.join("summary.json")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("summary.json"))
        .status();
    if made.is_ok_and(|s| s.success()) {
        // (A FIFO is no file: the folder is no results folder.)
        let e = write_report(&dir, Default::default()).unwrap_err();
        assert!(e.contains("not a results directory"), "{e}");
    }
}

#[test]
fn a_plan_of_more_replications_than_an_experiment_runs_is_refused() {
    let dir = scratch("huge-plan");
    let mut p = plan(&[None]);
    p.replications = u32::MAX;
    write_plan(&dir, &p).unwrap();
    let e = write_report(&dir, Default::default()).unwrap_err();
    assert!(
        e.contains("replications 4294967295: more than the 100000"),
        "{e}"
    );
}

#[test]
fn a_replicated_page_names_what_ran_and_says_when_the_queue_grows() {
    let run = |name: &str, users: &str| {
        let args = ["--duration", "8w", "--replications", "3", "--users", users];
        let dir = replicated(name, &args);
        write_report(&dir, Default::default()).unwrap();
        fs::read_to_string(dir.join("report/index.html")).unwrap()
    };
    let calm = run("calm", "1");
    assert!(
        calm.contains(
            "The model site, 1× the users, 128 processors, 8 weeks: 3 replications under easy"
        ),
        "{}",
        &calm[..calm.len().min(2000)]
    );
    assert!(!calm.contains("Saturated"));
    let crowded = run("crowded", "4");
    assert!(crowded.contains("4× the users"));
    assert!(crowded.contains("Saturated: the queue grows through the measured weeks"));
}
