//! `sitesim analyze --report`: the page of a log's own figures (`src/report/workload.rs`)
//! on a hand-made log with known answers and on KTH (in `../shared/workloads`; skipped
//! when missing, except under CI), the figure options (size, font scale, PNG and PDF),
//! and the same bytes on every run.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{logged, scratch, shared_log, sitesim, stderr};

/// 2024-01-01 00:00 UTC, a Monday.
const MONDAY: i64 = 1_704_067_200;
const WEEK: i64 = 7 * 86_400;

/// Six jobs of two users, each submitted on a Monday at 10:00-10:59 UTC in three weeks
/// running; sizes 1, 1, 1, 2, 2 and 4.
fn mondays() -> String {
    let mut log = format!("; UnixStartTime: {MONDAY}\n; TimeZoneString: UTC\n; MaxProcs: 8\n");
    let sizes = [1, 1, 1, 2, 2, 4];
    for (k, size) in sizes.into_iter().enumerate() {
        let k = k as i64;
        let submit = (k / 2) * WEEK + 10 * 3600 + (k % 2) * 1800;
        log.push_str(&logged(k + 1, 1 + k % 2, submit, 30, 600 + 60 * k, size));
    }
    log
}

/// Runs `sitesim analyze --report` on `swf` into `out` with `extra` arguments; the
/// report's directory.
fn report(swf: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    let mut args = vec![
        "analyze",
        "--swf",
        swf.to_str().unwrap(),
        "--report",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = sitesim(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = out.join("report").join("index.html");
    assert!(
        stderr(&o).contains(&format!("open {}", page.display())),
        "{}",
        stderr(&o)
    );
    out.join("report")
}

/// The rows of a report's CSV file after its header, as `(first cell, last cell)`.
fn rows(dir: &Path, file: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[0].to_owned(), cells[cells.len() - 1].to_owned())
        })
        .collect()
}

/// Every file of `dir`, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn mondays_at_ten_give_one_bar_at_ten_and_on_monday() {
    let swf = scratch("analyze", "mondays.swf");
    std::fs::write(&swf, mondays()).unwrap();
    let dir = report(&swf, &scratch("analyze", "mondays"), &[]);
    let hours = rows(&dir, "hours.csv");
    assert_eq!(hours.len(), 24);
    for (h, n) in &hours {
        assert_eq!(n, if h == "10" { "6" } else { "0" }, "hour {h}");
    }
    let days = rows(&dir, "weekdays.csv");
    assert_eq!(days[0], ("Mon".to_owned(), "6".to_owned()));
    assert!(days[1..].iter().all(|(_, n)| n == "0"), "{days:?}");
    let sizes = rows(&dir, "sizes.csv");
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(sizes, pairs(&[("1", "3"), ("2", "2"), ("4", "1")]));
    // Three weeks of two jobs, each at the Monday it began.
    let weeks = std::fs::read_to_string(dir.join("weeks.csv")).unwrap();
    assert_eq!(
        weeks,
        "week,first_day,jobs\n0,2024-01-01,2\n1,2024-01-08,2\n2,2024-01-15,2\n"
    );
    // Every job ran a tenth of its estimate (at least 100 s: 600 s of 6000 s and more).
    let estimates = rows(&dir, "estimates.csv");
    assert_eq!(estimates[2], ("0.1".to_owned(), "6".to_owned()));
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for text in [
        "<h1>mondays.swf: the workload</h1>",
        "<dt>jobs</dt><dd>6</dd>",
        "<dt>users</dt><dd>2</dd>",
        "<dt>machine</dt><dd>8 processors</dd>",
        "2024-01-01 10:00 to 2024-01-15 10:30 (UTC)",
        "<img src=\"hours.svg\"",
        "<img src=\"weeks.svg\"",
        "<img src=\"think-times.svg\"",
        "<img src=\"users.svg\"",
        "Feitelson 2021",
    ] {
        assert!(page.contains(text), "{text} missing from the page");
    }
    // The date axis: the calendar's days.
    let weeks_svg = std::fs::read_to_string(dir.join("weeks.svg")).unwrap();
    assert!(weeks_svg.contains("2024-01-"), "no dates on the axis");
}

#[test]
fn figure_options_size_the_figures_and_write_png_and_pdf_the_same_each_time() {
    let swf = scratch("analyze", "sized.swf");
    std::fs::write(&swf, mondays()).unwrap();
    let sized = [
        "--figure-width",
        "640",
        "--figure-height",
        "400",
        "--font-scale",
        "1.5",
        "--figure-format",
        "png",
    ];
    let dir = report(&swf, &scratch("analyze", "png"), &sized);
    let svg = std::fs::read_to_string(dir.join("hours.svg")).unwrap();
    assert!(
        svg.contains("width=\"640\" height=\"400\""),
        "{}",
        &svg[..200]
    );
    // Text at 1.5 times its size (plotters writes 20 px as 16.13).
    assert!(svg.contains("font-size=\"24.19"), "{svg}");
    let png = std::fs::read(dir.join("hours.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 640);
    assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 400);
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(page.contains("<img src=\"hours.svg\" alt="));
    assert!(page.contains("width=\"640\" height=\"400\">"));
    assert!(page.contains("(<a href=\"hours.png\">hours.png</a>)"));
    // The same command gives the same bytes, PNG and PDF alike.
    let again = report(&swf, &scratch("analyze", "png-again"), &sized);
    assert_eq!(files(&dir), files(&again));
    let pdf = report(
        &swf,
        &scratch("analyze", "pdf"),
        &["--figure-format", "pdf"],
    );
    let pdf_again = report(
        &swf,
        &scratch("analyze", "pdf-again"),
        &["--figure-format", "pdf"],
    );
    let (one, two) = (files(&pdf), files(&pdf_again));
    assert!(one["hours.pdf"].starts_with(b"%PDF-"));
    assert!(String::from_utf8_lossy(&one["hours.pdf"]).contains("/MediaBox [0 0 800 450]"));
    assert_eq!(one, two);
    // The defaults: 800 x 450 and no PNG.
    assert!(!pdf.join("hours.png").exists());
    let plain = std::fs::read_to_string(pdf.join("hours.svg")).unwrap();
    assert!(plain.contains("width=\"800\" height=\"450\""));
    // Bad options are refused by name.
    let o = sitesim(&[
        "analyze",
        "--swf",
        swf.to_str().unwrap(),
        "--report",
        "--font-scale",
        "9",
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("--font-scale"),
        "{}",
        stderr(&o)
    );
    let o = sitesim(&["analyze", "--swf", swf.to_str().unwrap(), "--out", "x"]);
    assert!(
        !o.status.success() && stderr(&o).contains("--report"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_bad_line_is_named_by_file_line_and_field() {
    let swf = scratch("analyze", "bad.swf");
    std::fs::write(
        &swf,
        format!(
            "{}7 x 0 10 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1\n",
            mondays()
        ),
    )
    .unwrap();
    let out = scratch("analyze", "bad");
    let o = sitesim(&[
        "analyze",
        "--swf",
        swf.to_str().unwrap(),
        "--report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("bad.swf:10: field 2 (submit time)"), "{e}");
}

#[test]
fn kth_report_has_every_figure_on_its_calendar() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let dir = report(&kth, &scratch("analyze", "kth"), &[]);
    for figure in [
        "runtime",
        "sizes",
        "interarrival",
        "estimates",
        "hours",
        "weekdays",
        "weeks",
        "think-times",
        "session-hours",
        "session-jobs",
        "users",
    ] {
        let svg = std::fs::read_to_string(dir.join(format!("{figure}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{figure}");
    }
    let total = |file: &str| -> u64 {
        rows(&dir, file)
            .iter()
            .map(|(_, n)| n.parse::<u64>().unwrap())
            .sum()
    };
    let jobs = total("hours.csv");
    assert_eq!(jobs, 28_489);
    assert_eq!(total("weekdays.csv"), jobs);
    assert_eq!(total("sizes.csv"), jobs);
    // Working hours and days: more jobs at 14:00 than at 04:00, on Tuesdays than Sundays.
    let hours = rows(&dir, "hours.csv");
    let at = |h: usize| hours[h].1.parse::<u64>().unwrap();
    assert!(at(14) > 3 * at(4), "{hours:?}");
    let days = rows(&dir, "weekdays.csv");
    assert!(days[1].1.parse::<u64>().unwrap() > 2 * days[6].1.parse::<u64>().unwrap());
    // The calendar: KTH's first week began on Monday 23 September 1996.
    let weeks = std::fs::read_to_string(dir.join("weeks.csv")).unwrap();
    assert!(
        weeks.lines().nth(1).unwrap().starts_with("0,1996-09-23,"),
        "{weeks}"
    );
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(page.contains("<dt>machine</dt><dd>100 processors</dd>"));
    assert!(page.contains("Europe/Stockholm"));
}

#[test]
fn figure_options_size_a_runs_report_too() {
    let swf = scratch("analyze", "run.swf");
    std::fs::write(&swf, mondays()).unwrap();
    let out = scratch("analyze", "run");
    let out_text = out.to_str().unwrap();
    let o = sitesim(&["replay", "--swf", swf.to_str().unwrap(), "--out", out_text]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sitesim(&[
        "report",
        out_text,
        "--figure-width",
        "500",
        "--figure-height",
        "300",
        "--figure-format",
        "png",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = out.join("report");
    let svg = std::fs::read_to_string(dir.join("schedule.svg")).unwrap();
    assert!(svg.contains("width=\"500\" height=\"300\""));
    let png = std::fs::read(dir.join("schedule.png")).unwrap();
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 500);
    assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 300);
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(page.contains("(<a href=\"schedule.png\">schedule.png</a>)"));
}
