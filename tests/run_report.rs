//! `sitesim report` on every kind of results directory: one run (its series over time
//! checked against a hand-made schedule), replicated runs (their weeks in `weekly.csv`
//! checked against their figures), a calibration, `--report` on the commands, and the
//! errors of a directory that holds no results.

mod common;

use std::path::{Path, PathBuf};

use common::{sitesim, stderr};

fn temp(name: &str) -> PathBuf {
    common::scratch("run_report", name)
}

/// 4 processors; users 1, 2, 3. Under FCFS: jobs 1 (2 procs, 1 h) and 2 (2 procs, 2 h)
/// start at 0; job 3 (4 procs, 1 h) waits for both, from 0 to 2 h, and ends at 3 h.
const LOG: &str = "; MaxProcs: 4\n\
1 0 0 3600 2 -1 -1 2 3600 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 0 0 7200 2 -1 -1 2 7200 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 0 0 3600 4 -1 -1 4 3600 -1 1 3 1 -1 -1 -1 -1 -1\n";

fn run(args: &[&str]) {
    let o = sitesim(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

#[test]
fn a_runs_report_has_its_series_schedule_and_users() {
    let log = temp("hand.swf");
    std::fs::write(&log, LOG).unwrap();
    let out = temp("hand");
    let (l, o) = (log.to_str().unwrap(), out.to_str().unwrap());
    run(&[
        "-q",
        "replay",
        "--swf",
        l,
        "--scheduler",
        "fcfs",
        "--out",
        o,
        "--report",
    ]);
    let report = out.join("report");
    for file in [
        "index.html",
        "schedule.svg",
        "class-wait.svg",
        "series-utilization.svg",
        "series-waiting-jobs.svg",
        "series-active-users.svg",
        "users-service.csv",
    ] {
        assert!(report.join(file).is_file(), "{file}");
    }
    // Hour by hour: utilization 100, 50, 100 %; job 3 waits in the first two hours (4
    // processor-hours asked); users 1, 2, 3 active, then 2 and 3, then 3.
    let hourly = csv_rows(&report.join("series-hourly.csv"));
    let cols = |k: usize| -> Vec<f64> { hourly.iter().map(|r| r[k].parse().unwrap()).collect() };
    assert_eq!(cols(1), [100.0, 50.0, 100.0]);
    assert_eq!(cols(2), [1.0, 1.0, 0.0]);
    assert_eq!(cols(3), [4.0, 4.0, 0.0]);
    assert_eq!(cols(4), [3.0, 2.0, 1.0]);
    // Each job's processors, first-fit contiguous: job 3 on all four once 1 and 2 end.
    let jobs = csv_rows(&out.join("jobs.csv"));
    let held: Vec<&str> = jobs.iter().map(|r| r[19].as_str()).collect();
    assert_eq!(held, ["0-1", "2-3", "0-3"]);
    // The schedule view: each job a rectangle with its tooltip, job 3 also waiting
    // under the machine, a legend of the users.
    let svg = std::fs::read_to_string(report.join("schedule.svg")).unwrap();
    assert!(
        svg.contains("Schedule from day 0 00:00 to day 1 00:00"),
        "{svg}"
    );
    for title in [
        "<title>job 3, user 3: 4 processors (0-3); submitted day 0 00:00, started day 0 \
         02:00 after 2.00 h, ended day 0 03:00</title>",
        "<title>job 1, user 1: 2 processors (0-1); submitted day 0 00:00, started day 0 \
         00:00 after 0.00 h, ended day 0 01:00</title>",
        "<title>job 3, user 3, waiting: 4 processors asked; submitted day 0 00:00, starts \
         day 0 02:00 after 2.00 h</title>",
    ] {
        assert!(svg.contains(title), "{title} in {svg}");
    }
    let legend = &svg[svg.find("class=\"legend\"").expect("a legend")..];
    for name in ["user 1", "user 2", "user 3", "waiting"] {
        assert!(legend.contains(&format!(">{name}</text>")), "{name}");
    }
    // Users by processor-hours: 3 and 2 (4 each, by number), then 1.
    let users = csv_rows(&report.join("users-service.csv"));
    let order: Vec<&str> = users.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(order, ["2", "3", "1"]);
    assert_eq!(users[1][4], "2.00", "user 3 waited 2 h");
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();
    for text in [
        "wait (h)",
        "utilization",
        "By runtime class",
        "Schedule",
        "Users",
    ] {
        assert!(page.contains(text), "{text}");
    }
    // The same results give the same report, byte for byte.
    let before = std::fs::read(report.join("index.html")).unwrap();
    run(&["-q", "report", o]);
    assert_eq!(std::fs::read(report.join("index.html")).unwrap(), before);
    // Another window, coloured by class.
    run(&[
        "-q",
        "report",
        o,
        "--schedule-from",
        "1h",
        "--schedule-length",
        "1h",
        "--colour",
        "class",
    ]);
    let svg = std::fs::read_to_string(report.join("schedule.svg")).unwrap();
    assert!(
        svg.contains("&gt; 10 min") || svg.contains("> 10 min"),
        "the class legend"
    );
}

#[test]
fn replicated_runs_and_calibrations_have_reports() {
    let log = temp("rep.swf");
    let mut text = String::from("; MaxProcs: 32\n");
    // Over 3 weeks: 5 users throughout, and 48 who each come for a few hours; jobs of
    // varied sizes and runtimes.
    for i in 0..1200i64 {
        let user = if i % 2 == 0 { 1 + i / 25 } else { 1000 + i % 5 };
        let submit = i * 1_700 + (i * 7_919) % 900;
        let run = 60 + (i * 104_729) % 5_000;
        let size = 1 + (i * 31) % 8;
        text += &format!(
            "{} {submit} 0 {run} {size} -1 -1 {size} {} -1 1 {user} 1 -1 -1 -1 -1 -1\n",
            i + 1,
            2 * run
        );
    }
    std::fs::write(&log, text).unwrap();
    let l = log.to_str().unwrap();
    let out = temp("resampled");
    let o = out.to_str().unwrap();
    run(&[
        "-q",
        "resample",
        "--swf",
        l,
        "--replications",
        "6",
        "--weeks",
        "2",
        "--edge",
        "0",
        "--out",
        o,
        "--report",
    ]);
    let page = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(page.contains("± (95% CI)"), "{page}");
    for label in [
        "throughput (jobs/week)",
        "jobs per session<",
        "utilization (%)",
    ] {
        assert!(page.contains(label), "{label}: {page}");
    }
    assert!(out.join("report/hist-jobs-per-week.svg").is_file());
    let svg = std::fs::read_to_string(out.join("report/hist-jobs-per-week.svg")).unwrap();
    assert!(svg.contains("over 6 replications"), "{svg}");
    // A resampled run records its weeks too: every replication has rows.
    let weekly = csv_rows(&out.join("weekly.csv"));
    for r in 0..6 {
        assert!(weekly.iter().any(|row| row[0] == r.to_string()), "{r}");
    }
    let svg = std::fs::read_to_string(out.join("report/weekly-utilization-pct.svg")).unwrap();
    assert!(svg.contains("mean over 6 replications"), "{svg}");
    // The replications' spread, fainter, beneath the mean's interval; both said.
    assert_eq!(svg.matches("<polygon").count(), 2, "{svg}");
    let at = |opacity: &str| svg.find(&format!("<polygon opacity=\"{opacity}\""));
    assert!(
        matches!((at("0.1"), at("0.25")), (Some(a), Some(b)) if a < b),
        "{svg}"
    );
    assert!(page.contains("middle 80% of their values"), "{page}");
    // A calibration writes its page as it runs; the report points at it.
    let cal = temp("calibrated");
    let c = cal.to_str().unwrap();
    run(&[
        "-q",
        "calibrate",
        "--swf",
        l,
        "--replications",
        "3",
        "--weeks",
        "2",
        "--edge",
        "0",
        "--out",
        c,
    ]);
    let o = sitesim(&["report", c]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains(&format!("open {c}/report/index.html")),
        "{said}"
    );
}

#[test]
fn a_log_with_a_start_time_has_its_schedule_in_local_time() {
    let log = temp("dated.swf");
    let header = "; UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n";
    std::fs::write(&log, format!("{header}{LOG}")).unwrap();
    let out = temp("dated");
    let (l, o) = (log.to_str().unwrap(), out.to_str().unwrap());
    run(&[
        "-q",
        "replay",
        "--swf",
        l,
        "--scheduler",
        "fcfs",
        "--out",
        o,
        "--report",
    ]);
    let svg = std::fs::read_to_string(out.join("report/schedule.svg")).unwrap();
    // Time 0 is Mon 1996-09-23 14:00:31 CEST: the view is that local day.
    assert!(
        svg.contains("Schedule from Mon 1996-09-23 00:00 to Tue 1996-09-24 00:00"),
        "{svg}"
    );
    assert!(svg.contains("local time (Europe/Stockholm)"), "{svg}");
    assert!(
        svg.contains("started Mon 1996-09-23 16:00 after 2.00 h"),
        "{svg}"
    );
}

#[test]
fn a_run_goes_to_batsim_and_back() {
    let log = temp("batsim.swf");
    std::fs::write(&log, LOG).unwrap();
    let out = temp("batsim");
    let (l, o) = (log.to_str().unwrap(), out.to_str().unwrap());
    run(&[
        "-q",
        "replay",
        "--swf",
        l,
        "--scheduler",
        "fcfs",
        "--out",
        o,
    ]);
    let exported = temp("batsim-out");
    std::fs::create_dir_all(&exported).unwrap();
    let file = exported.join("out_jobs.csv");
    let f = file.to_str().unwrap();
    run(&["-q", "export", "--run", o, "--batsim-jobs", "-o", f]);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        "job_id,workload_name,profile,submission_time,requested_number_of_resources,\
         requested_time,success,final_state,starting_time,execution_time,finish_time,\
         waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata"
    );
    // Read back: the same jobs, times and processors as jobs.csv.
    let ours = sitesim::results::jobs::read_sitesim(&out.join("jobs.csv")).unwrap();
    let back =
        sitesim::results::jobs::read_batsim(&file, sitesim::metrics::Bsld::default()).unwrap();
    assert_eq!(back.rejected, 0);
    assert_eq!(back.jobs, ours);
    // Its report is a run's, written beside it, with the same schedule.
    run(&["-q", "report", f]);
    let svg = std::fs::read_to_string(exported.join("report/schedule.svg")).unwrap();
    assert!(
        svg.contains("<title>job 3, user 3: 4 processors (0-3);"),
        "{svg}"
    );
    let page = std::fs::read_to_string(exported.join("report/index.html")).unwrap();
    assert!(page.contains("out_jobs.csv: a Batsim run"), "{page}");
    // The folder names it too.
    run(&["-q", "report", exported.to_str().unwrap()]);
    // Bad input is an error naming the file, line and field, never a panic.
    for (from, to, says) in [
        (
            ",0-3,",
            ",0-x,",
            "line 4: field 'allocated_resources': 'x' in '0-x'",
        ),
        (
            ",COMPLETED_SUCCESSFULLY,7200.000000,",
            ",COMPLETED_SUCCESSFULLY,soon,",
            "line 4: field 'starting_time': 'soon' is not a number",
        ),
        ("job_id,", "id,", "line 1: no column 'job_id'"),
    ] {
        let bad = temp("bad_jobs.csv");
        std::fs::write(&bad, text.replacen(from, to, 1)).unwrap();
        let o = sitesim(&["report", bad.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{to}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{says}: {}", stderr(&o));
    }
}

#[test]
fn what_is_no_results_directory_is_said() {
    let empty = temp("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = sitesim(&["report", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not a results directory"),
        "{}",
        stderr(&o)
    );
    let o = sitesim(&["report", temp("nothing").to_str().unwrap()]);
    assert!(
        stderr(&o).contains("no such results directory"),
        "{}",
        stderr(&o)
    );
    let o = sitesim(&["replay", "--swf", "x.swf", "--report"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
}

/// A model site of 128 processors for 3 weeks, a week's warm-up and no cool-down, three
/// replications; uncalibrated, to keep a debug build quick.
const MODEL: &str = "name = \"weekly\"\nseed = 3\nduration = \"3w\"\nreplications = 3\n\
    [machine]\nprocs = 128\n[scheduler]\npolicy = \"easy\"\n\
    [workload]\nsource = \"model\"\ncalibrate = \"off\"\n\
    [metrics]\nwarmup = \"1w\"\ncooldown = \"0\"\n";

#[test]
fn replicated_runs_record_their_weeks_and_the_report_draws_them() {
    let scenario = temp("weekly.toml");
    std::fs::write(&scenario, MODEL).unwrap();
    let s = scenario.to_str().unwrap();
    let (one, two) = (temp("weekly-1"), temp("weekly-2"));
    let (o1, o2) = (one.to_str().unwrap(), two.to_str().unwrap());
    run(&["-q", "run", s, "--threads", "1", "--out", o1, "--report"]);
    run(&["-q", "run", s, "--threads", "2", "--out", o2]);
    let bytes = std::fs::read(one.join("weekly.csv")).unwrap();
    assert_eq!(bytes, std::fs::read(two.join("weekly.csv")).unwrap());

    let text = String::from_utf8(bytes).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        "replication,week,length_hours,utilization_pct,waiting_jobs,\
         waiting_proc_hours,active_users,sessions_opened"
    );
    let rows = csv_rows(&one.join("weekly.csv"));
    let figures = csv_rows(&one.join("replications.csv"));
    let head = csv::Reader::from_path(one.join("replications.csv"))
        .unwrap()
        .headers()
        .unwrap()
        .clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    assert_eq!(figures.len(), 3);
    for figure in &figures {
        let r = &figure[col("replication")];
        let weeks: Vec<&Vec<String>> = rows.iter().filter(|row| &row[0] == r).collect();
        // Three weeks of submissions, and the end of the last jobs.
        assert!(weeks.len() >= 3, "replication {r}: {} weeks", weeks.len());
        let f = |row: &Vec<String>, k: usize| row[k].parse::<f64>().unwrap();
        let count = |row: &Vec<String>, k: usize| row[k].parse::<u64>().unwrap();
        for (k, row) in weeks.iter().enumerate() {
            assert_eq!(count(row, 1), k as u64, "weeks in order from 0");
            let length = f(row, 2);
            let last = k + 1 == weeks.len();
            assert!(length > 0.0 && (length == 168.0 || last), "{row:?}");
            assert!((0.0..=100.0).contains(&f(row, 3)), "{row:?}");
            assert!(f(row, 4) >= 0.0 && f(row, 5) >= 0.0, "{row:?}");
            count(row, 6);
            count(row, 7);
        }
        assert!(weeks.iter().any(|row| f(row, 3) > 0.0 && count(row, 6) > 0));
        // The warm-up is exactly week 0, and without a cool-down the window ends where
        // the weeks do, at the last end: the weeks after the first, weighted by their
        // length, cover the window, and their utilization is the window's. Both divide
        // the same whole number of busy processor-seconds by the same capacity; they
        // differ only by the rounding of a few floating-point operations.
        let (busy, hours) = weeks[1..].iter().fold((0.0, 0.0), |(b, h), row| {
            (b + f(row, 3) * f(row, 2), h + f(row, 2))
        });
        let window: f64 = figure[col("utilization")].parse().unwrap();
        assert!(
            (busy / hours / 100.0 - window).abs() <= 1e-9 * window,
            "replication {r}: weeks {} against the window's {window}",
            busy / hours / 100.0
        );
        // Every session of the run opened in one of its weeks.
        let opened: u64 = weeks.iter().map(|row| count(row, 7)).sum();
        assert_eq!(opened.to_string(), figure[col("sessions")]);
    }

    let report = one.join("report");
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(page.contains("Week by week"), "{page}");
    assert!(
        page.contains("<a href=\"../weekly.csv\">weekly.csv</a>"),
        "{page}"
    );
    for name in [
        "utilization-pct",
        "waiting-jobs",
        "waiting-proc-hours",
        "active-users",
        "sessions-opened",
    ] {
        let file = format!("weekly-{name}.svg");
        assert!(page.contains(&file), "{file}");
        let svg = std::fs::read_to_string(report.join(&file)).unwrap();
        assert!(svg.contains("<polygon") && svg.contains("mean over 3 replications"));
        assert!(svg.contains("end of warm-up"), "{file}");
    }
    // A results directory written before weekly.csv was still has its report, without
    // the weeks.
    std::fs::remove_file(one.join("weekly.csv")).unwrap();
    run(&["-q", "report", o1]);
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(!page.contains("Week by week") && page.contains("± (95% CI)"));
}
