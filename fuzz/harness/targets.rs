//! The fuzz targets: each takes bytes and says whether sitesim accepted them (`true`) or
//! refused them with an error (`false`); a panic, a hang or a slowdown is a finding.

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use sitesim::cli::args::{
    AnalyzeArgs, CalibrateArgs, EstimatesArgs, ExportArgs, FeedbackArgs, FitArgs, GenerateArgs,
    MergeArgs, PopulationArgs, ReplayArgs, ReportArgs, ResampleArgs, SweepArgs, parse,
};
use sitesim::cli::then_report;
use sitesim::commands::analyze::{analyze_log, plot_continuation};
use sitesim::commands::calibrate::{
    calibrate, calibrate_command, render_calibrate, write_calibrate,
};
use sitesim::commands::estimates::estimates_table;
use sitesim::commands::export::export_command;
use sitesim::commands::feedback::feedback;
use sitesim::commands::fit::fit_logs;
use sitesim::commands::model::run_model;
use sitesim::commands::replay::{ReplayOptions, replay};
use sitesim::commands::resample::{ResampleOptions, resample_file};
use sitesim::experiment::run::Run;
use sitesim::experiment::scenario::{DEFAULT_SCENARIO, Scenario, WorkloadSection};
use sitesim::experiment::study::{Shard, Study};
use sitesim::job::OverrunPolicy;
use sitesim::localtime::{SiteClock, parse_zone};
use sitesim::model::fit::{render_summary, to_toml};
use sitesim::model::jobs::JobLayer;
use sitesim::model::talby::TalbyModel;
use sitesim::predict::estimates::EstimateModel;
use sitesim::predict::{ModalModel, ModalParams, PredictorDefaults, PredictorSpec};
use sitesim::registry::SchedulerSpec;
use sitesim::report::{page_of, report_command, write_report};
use sitesim::results::lock::LOCK_FILE;
use sitesim::results::replicate::{WeeklyCsv, write_replicated};
use sitesim::results::runs::{RunRecord, is_folder_name};
use sitesim::results::summary::{merge, merge_command};
use sitesim::results::terminal::Failure;
use sitesim::sched::BuildContext;
use sitesim::swf::batsim::{BatsimExport, ProfileStyle, read_workload};
use sitesim::swf::{LogInput, LogSource, SwfReader, SwfRecord, SwfWriter};
use sitesim::time::{Time, WEEK, parse_duration};
use sitesim::users::{ContinuationCurve, MAX_USERS};
use sitesim::workload::questionable::PolicySetting;
use sitesim::workload::{Synthetic, SyntheticConfig, SyntheticModel};

use super::mutate::{Rng, Shape, options_line};

/// A fuzz target.
pub struct Target {
    /// Its name (`fuzz/regressions/<name>/`, `--target <name>`).
    pub name: &'static str,
    /// What its inputs look like.
    pub shape: Shape,
    /// Its seed inputs.
    pub seeds: fn() -> Vec<Vec<u8>>,
    /// Runs one input: `true` if accepted, `false` if refused with an error.
    pub run: fn(&[u8]) -> bool,
    /// What an input's time is judged against in the long campaign.
    pub cost: Cost,
}

/// What sets the cost of a target's input, for judging slowdowns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// Its length: judged against the seeds' median time per byte.
    PerByte,
    /// The run its log and arguments ask for (the log's span, weeks, populations),
    /// whatever its length: judged against the slowest seed.
    Asked,
}

/// Every target.
pub fn all() -> &'static [Target] {
    const fn t(
        name: &'static str,
        shape: Shape,
        seeds: fn() -> Vec<Vec<u8>>,
        run: fn(&[u8]) -> bool,
    ) -> Target {
        Target {
            name,
            shape,
            seeds,
            run,
            cost: Cost::PerByte,
        }
    }
    /// `target`, its cost the run its input asks for ([`Cost::Asked`]).
    const fn asked(target: Target) -> Target {
        Target {
            cost: Cost::Asked,
            ..target
        }
    }
    static TARGETS: [Target; 37] = [
        t("swf", Shape::Swf, swf_seeds, swf),
        t("compressed", Shape::Bytes, compressed_seeds, compressed),
        t("replay", Shape::Swf, replay_seeds, replay_log),
        asked(t("feedback", Shape::Swf, feedback_seeds, feedback_log)),
        asked(t("resample", Shape::Swf, resample_seeds, resample_log)),
        t("analyze", Shape::Swf, analyze_seeds, analyze),
        t("fit", Shape::Swf, fit_seeds, fit),
        t("args", Shape::Spec, args_seeds, args),
        t("generate", Shape::Spec, generate_seeds, generate),
        asked(t(
            "estimates-command",
            Shape::Spec,
            estimates_command_seeds,
            estimates_command,
        )),
        asked(t("sweep-args", Shape::Args, sweep_args_seeds, sweep_args)),
        t("export-args", Shape::Args, export_args_seeds, export_args),
        asked(t(
            "resample-args",
            Shape::Args,
            resample_args_seeds,
            resample_args,
        )),
        asked(t(
            "calibrate-args",
            Shape::Args,
            calibrate_args_seeds,
            calibrate_args,
        )),
        asked(t("merge-args", Shape::Args, merge_args_seeds, merge_args)),
        asked(t(
            "report-args",
            Shape::Args,
            report_args_seeds,
            report_args,
        )),
        t("batsim", Shape::Json, batsim_seeds, batsim),
        t("export", Shape::Swf, export_seeds, export),
        asked(t("results", Shape::Json, results_seeds, results)),
        t("stream", Shape::Swf, swf_seeds, stream),
        asked(t("study", Shape::Toml, study_seeds, study)),
        asked(t("calibrate", Shape::Swf, calibrate_seeds, calibrate_log)),
        t("scenario", Shape::Toml, scenario_seeds, scenario),
        t("settings", Shape::Spec, settings_seeds, settings),
        asked(t("model", Shape::Toml, model_seeds, model_site)),
        t("policy", Shape::Spec, policy_seeds, policy),
        t("predictor", Shape::Spec, predictor_seeds, predictor),
        t("estimates", Shape::Spec, estimate_seeds, estimates),
        t(
            "questionable",
            Shape::Spec,
            questionable_seeds,
            questionable,
        ),
        t("duration", Shape::Spec, duration_seeds, duration),
        t("zone", Shape::Spec, zone_seeds, zone),
        t("talby", Shape::Toml, talby_seeds, talby),
        t("jobs", Shape::Toml, jobs_seeds, jobs),
        t(
            "continuation",
            Shape::Toml,
            continuation_seeds,
            continuation,
        ),
        t("modal", Shape::Toml, modal_seeds, modal),
        t("synthetic", Shape::Toml, synthetic_seeds, synthetic),
        t("predictors", Shape::Toml, predictors_seeds, predictors),
    ];
    &TARGETS
}

/// The repository's root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `bytes` as text (lossily: sitesim's text inputs are UTF-8, and the byte-level
/// mutations reach the readers through the SWF and Batsim targets).
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The shared workloads folder, `../shared/workloads`; `None` (with a note) when it is
/// missing, a panic under `CI=true`, where it is required (README, "Tests").
fn shared_workloads() -> Option<PathBuf> {
    let dir = root().join("../shared/workloads");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} is missing: CI needs ../shared beside the checkout (see README, 'Tests')",
            dir.display()
        );
    }
    eprintln!(
        "fuzz: {} not found: SWF seeds are the hand cases only",
        dir.display()
    );
    None
}

/// Small hand-made logs: the edges real logs do not reach.
const HAND_LOGS: &[&str] = &[
    "; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 -1 30 4 -1 -1 4 40 -1 1 2 1 -1 -1 -1 -1 -1\n",
    "; MaxNodes: 8\n; UnixStartTime: 0\n; TimeZoneString: Europe/Stockholm\n1 0 0 100 8 -1 -1 8 100 -1 1 1 1 1 1 -1 -1 -1\n2 0 0 100 1 -1 -1 1 100 -1 1 1 1 1 1 -1 1 50\n3 100 0 0 1 -1 -1 1 -1 -1 0 3 -1 -1 -1 -1 -1 -1\n",
    "; MaxProcs: 2\n1 0 -1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n1 0 -1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n2 1e3 -1 2.5 2 -1 -1 -1 3 -1 1 2 1 -1 -1 -1 -1 -1 99\n",
];

/// The first `lines` lines of each shared log (header and jobs), and the hand logs.
fn log_seeds(lines: &[usize]) -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = HAND_LOGS.iter().map(|s| s.as_bytes().to_vec()).collect();
    let Some(dir) = shared_workloads() else {
        return seeds;
    };
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    logs.retain(|p| p.extension().is_some_and(|e| e == "swf"));
    logs.sort();
    for log in logs {
        let Ok(text) = std::fs::read_to_string(&log) else {
            continue;
        };
        let header = text.lines().take_while(|l| l.starts_with(';')).count();
        for &n in lines {
            let mut cut: String = text
                .lines()
                .take(header + n)
                .flat_map(|l| [l, "\n"])
                .collect();
            cut.shrink_to_fit();
            seeds.push(cut.into_bytes());
        }
    }
    seeds
}

fn swf_seeds() -> Vec<Vec<u8>> {
    log_seeds(&[20, 200])
}

/// Reads every record of the log in `bytes`.
fn swf(bytes: &[u8]) -> bool {
    let Ok(reader) = SwfReader::new(Cursor::new(bytes), "fuzz.swf") else {
        return false;
    };
    reader.into_iter().all(|r| r.is_ok())
}

/// `bytes` written to a file of their own (sitesim opens compressed logs and resamples
/// logs by path); the file is removed when the guard is dropped.
struct ScratchFile(PathBuf);

impl ScratchFile {
    fn new(bytes: &[u8]) -> Option<ScratchFile> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("sitesim-fuzz-{}-{n}.swf", std::process::id()));
        std::fs::write(&path, bytes).ok()?;
        Some(ScratchFile(path))
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The first 20 lines of each log, gzip, bzip2 and xz compressed, and two gzip streams
/// one after the other (read as one file).
fn compressed_seeds() -> Vec<Vec<u8>> {
    fn pack<W: Write>(mut w: W, text: &[u8]) -> W {
        w.write_all(text).expect("writes to memory");
        w
    }
    let mut seeds = Vec::new();
    for log in log_seeds(&[20]) {
        let gzip = || {
            pack(
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default()),
                &log,
            )
            .finish()
            .expect("compresses in memory")
        };
        seeds.push([gzip(), gzip()].concat());
        seeds.push(gzip());
        seeds.push(
            pack(
                bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default()),
                &log,
            )
            .finish()
            .expect("compresses in memory"),
        );
        seeds.push(
            pack(liblzma::write::XzEncoder::new(Vec::new(), 6), &log)
                .finish()
                .expect("compresses in memory"),
        );
    }
    seeds
}

/// Opens the bytes as a log file (decompressing them by their magic number) and reads
/// every record.
fn compressed(bytes: &[u8]) -> bool {
    let Some(file) = ScratchFile::new(bytes) else {
        return false;
    };
    let Ok(input) = LogInput::open(&file.0) else {
        return false;
    };
    let Ok(reader) = SwfReader::new(input, "fuzz.swf") else {
        return false;
    };
    reader.into_iter().all(|r| r.is_ok())
}

fn replay_seeds() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(17);
    log_seeds(&[30, 120])
        .into_iter()
        .map(|log| {
            let mut with = options_line(&mut rng).into_bytes();
            with.push(b'\n');
            with.extend(log);
            with
        })
        .collect()
}

/// The replay options of a log's `; Fuzz: key=value ...` line (defaults without one):
/// `policy`, `overrun`, `estimates`, `predictor`, `procs`, `questionable` (a
/// questionable-job setting), `check` (the invariant checker, on by default) and `out`
/// (`true`: write the output files into `opts.out`, a scratch folder, which the caller
/// removes). `None` if a value is not one sitesim takes (the options are checked by their
/// own targets).
fn replay_options(bytes: &[u8]) -> Option<ReplayOptions> {
    let mut opts = ReplayOptions {
        check: true,
        ..ReplayOptions::default()
    };
    let text = String::from_utf8_lossy(bytes);
    let Some(line) = text.lines().find_map(|l| l.strip_prefix("; Fuzz:")) else {
        return Some(opts);
    };
    for item in line.split_whitespace() {
        let (k, v) = item.split_once('=')?;
        match k {
            "policy" => opts.policy = v.parse().ok()?,
            "overrun" => {
                opts.overrun = match v {
                    "kill" => OverrunPolicy::Kill,
                    "extend" => OverrunPolicy::Extend,
                    "overrun" => OverrunPolicy::Overrun,
                    _ => return None,
                }
            }
            "estimates" => opts.estimates = v.parse().ok()?,
            "predictor" if v == "none" => opts.predictor = None,
            "predictor" => opts.predictor = Some(v.parse().ok()?),
            "procs" if v == "log" => opts.procs = None,
            "procs" => opts.procs = Some(v.parse().ok()?),
            "questionable" => opts.questionable.set(&v.parse().ok()?),
            "check" => opts.check = v.parse().ok()?,
            "out" => opts.out = v.parse::<bool>().ok()?.then(scratch_dir),
            _ => return None,
        }
    }
    Some(opts)
}

/// A folder name of its own for one input's output files (not created).
fn scratch_dir() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("sitesim-fuzz-out-{}-{n}", std::process::id()))
}

/// Replays the log in `bytes` under the options of its `; Fuzz:` line. With `out=true`,
/// the files written must read back: `summary.json` as JSON, `jobs.csv` as CSV rows of
/// its header's width, `schedule.swf` through `SwfReader` without an error (a file
/// sitesim writes and cannot read is a finding).
fn replay_log(bytes: &[u8]) -> bool {
    let Some(opts) = replay_options(bytes) else {
        return false;
    };
    let Ok(source) = LogSource::text(bytes, "fuzz.swf") else {
        return false;
    };
    let ran = replay(&source, &opts).is_ok();
    checked_outputs(ran, opts.out.as_deref())
}

/// `ran`, after checking that the files of a run that ran read back (when it wrote any,
/// into `dir`, `summary.json` among them) and removing them.
fn checked_outputs(ran: bool, dir: Option<&Path>) -> bool {
    if let Some(dir) = dir {
        if ran {
            outputs_read_back(dir, "summary.json");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
    ran
}

/// The finding of an output file that does not read back.
fn unreadable(name: &str, e: impl std::fmt::Display) -> ! {
    panic!("{name} does not read back: {e}")
}

/// Panics unless the output files of a run in `dir` and its subfolders (an experiment's
/// run records, a report) read back: `required` (which every run of the command writes)
/// and any other `.json` as JSON, every `.csv` as CSV rows of
/// its header's width, `schedule.swf` through `SwfReader`, pages and plots as UTF-8, the
/// folder's lock let go (emptied); and no `.partial` file is left.
fn outputs_read_back(dir: &Path, required: &str) {
    assert!(dir.join(required).is_file(), "no {required}");
    files_read_back(dir);
}

/// Panics unless the files in `dir` and its subfolders read back, as
/// [`outputs_read_back`] says.
fn files_read_back(dir: &Path) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the output folder")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    files.sort();
    for file in files {
        let name = file
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        if file.is_dir() {
            files_read_back(&file);
            continue;
        }
        if name == LOCK_FILE {
            let held = std::fs::read(&file).unwrap_or_else(|e| unreadable(&name, e));
            assert!(
                held.is_empty(),
                "{name}: still holds {held:?} after the run"
            );
            continue;
        }
        match file.extension().and_then(|e| e.to_str()) {
            Some("json") => {
                let bytes = std::fs::read(&file).unwrap_or_else(|e| unreadable(&name, e));
                if let Err(e) = serde_json::from_slice::<serde_json::Value>(&bytes) {
                    unreadable(&name, e);
                }
            }
            Some("csv") => {
                let mut rows =
                    csv::Reader::from_path(&file).unwrap_or_else(|e| unreadable(&name, e));
                for row in rows.records() {
                    if let Err(e) = row {
                        unreadable(&name, e);
                    }
                }
            }
            Some("swf") => {
                for record in SwfReader::open(&file).unwrap_or_else(|e| unreadable(&name, e)) {
                    if let Err(e) = record {
                        unreadable(&name, e);
                    }
                }
            }
            Some("html" | "svg") => {
                let bytes = std::fs::read(&file).unwrap_or_else(|e| unreadable(&name, e));
                if let Err(e) = std::str::from_utf8(&bytes) {
                    unreadable(&name, e);
                }
            }
            _ => panic!("{name}: not a file a run writes"),
        }
    }
}

/// Command-line arguments of the `feedback` and `resample` targets' seeds.
const USER_ARGS: &[&str] = &[
    "--unknown-waits zero",
    "--unknown-waits zero --scheduler conservative --overrun overrun",
    "--unknown-waits replay:fcfs --continuation off --opening-think original",
    "--unknown-waits zero --patience 1h --strikes 2 --flow-forward any",
    "--unknown-waits zero --session-rule latest --dependence start --window-end last-submit",
    "--unknown-waits zero --negative-think together --threshold 1s --estimates modal",
    "--unknown-waits zero --scheduler creasy --time-zone +05:30 --opening-think zero",
    "--unknown-waits zero --predictor sbh --scheduler sjbf --opening-think capped",
];

/// The tokens of a log's `; Fuzz-args:` line, `default` without one.
fn fuzz_args(bytes: &[u8], default: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("; Fuzz-args:"))
        .unwrap_or(default);
    line.split_whitespace().map(str::to_owned).collect()
}

/// Logs of 30 and 120 lines, each with a `; Fuzz-args:` line of `extra` and one of
/// [`USER_ARGS`].
fn user_seeds(extra: &[&str]) -> Vec<Vec<u8>> {
    logs_with_args(USER_ARGS, extra)
}

/// Logs of 30 and 120 lines, each with a `; Fuzz-args:` line of one of `args` and one of
/// `extra`.
fn logs_with_args(args: &[&str], extra: &[&str]) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(17);
    log_seeds(&[30, 120])
        .into_iter()
        .map(|log| {
            let args = rng.pick(args);
            let more = rng.pick(extra);
            let mut with = format!("; Fuzz-args: {args} {more}\n").into_bytes();
            with.extend(log);
            with
        })
        .collect()
}

fn feedback_seeds() -> Vec<Vec<u8>> {
    user_seeds(&["", "", "--out results"])
}

/// Replays the log in `bytes` with feedback, under the `feedback` command's arguments of
/// its `; Fuzz-args:` line (`--unknown-waits zero` without one), with the invariant
/// checker. With `--out`, the output files are written to a scratch folder and must
/// read back.
fn feedback_log(bytes: &[u8]) -> bool {
    let mut argv = vec!["--swf".to_owned(), "fuzz.swf".to_owned()];
    argv.extend(fuzz_args(bytes, "--unknown-waits zero"));
    let Ok(args) = parse::<FeedbackArgs>("feedback", &argv) else {
        return false;
    };
    if args.site.scheduler.refuse_conflicts().is_err() {
        return false;
    }
    let Ok(mut opts) = args.scenario().feedback_options() else {
        return false;
    };
    opts.run.check = true;
    opts.run.out = opts.run.out.is_some().then(scratch_dir);
    let Ok(source) = LogSource::text(bytes, "fuzz.swf") else {
        return false;
    };
    let ran = feedback(&source, &opts).is_ok();
    checked_outputs(ran, opts.run.out.as_deref())
}

fn resample_seeds() -> Vec<Vec<u8>> {
    user_seeds(&[
        "--weeks 2",
        "--weeks 3 --population 2",
        "--weeks 2 --long-term 0 --temporary 3 --edge 0",
        "--weeks 4 --regenerate-after 1d --regenerate-from finish --start-week cycle",
        "--weeks 2 --long-term-share 0.1 --flurry-weight 0 --no-feedback",
        "--weeks 2 --weight 1=3 --weight 2=0 --warmup 1d",
        "--weeks 2 --replications 2 --out results",
        "--weeks 2 --population 1e308 --weight 1=1e5",
    ])
}

/// Resamples the log in `bytes` into one or two short replications on one thread, under
/// the `resample` command's arguments of its `; Fuzz-args:` line, with the invariant
/// checker. Runs too long ([`too_long`]), of more than 2 replications or populations over
/// 4 are skipped (their cost is what the user asked for, not a finding). With `--out`, the
/// output files are written to a scratch folder and must read back.
fn resample_log(bytes: &[u8]) -> bool {
    let Some(file) = ScratchFile::new(bytes) else {
        return false;
    };
    let Some(mut opts) = resample_options(bytes, &file.0.display().to_string()) else {
        return false;
    };
    opts.replications = opts.replications.min(2);
    opts.threads = Some(1);
    opts.out = opts.out.is_some().then(scratch_dir);
    let ran = resample_file(&file.0, &opts, &AtomicBool::new(false), &|| {}).is_ok();
    checked_outputs(ran, opts.out.as_deref())
}

/// A population multiplier out of the targets' scope: over 4, whose cost is what was
/// asked for, not a finding, unless it passes even one user's copies past
/// [`MAX_USERS`], which is refused at once (a multiplier of 1e308 ran until it had taken
/// gigabytes before that bound).
fn too_big(multiplier: f64) -> bool {
    !(0.0..=4.0).contains(&multiplier) && multiplier <= MAX_USERS as f64
}

/// The `resample` command's options of the `; Fuzz-args:` line of `bytes` (a short
/// resampling without one) for the log `swf`, with the invariant checker; `None` if they
/// are refused, or out of the targets' scope: too long a run ([`too_long`]) or a
/// population multiplier over 4 ([`too_big`]).
fn resample_options(bytes: &[u8], swf: &str) -> Option<ResampleOptions> {
    let mut argv = vec!["--swf".to_owned(), swf.to_owned()];
    argv.extend(fuzz_args(bytes, "--unknown-waits zero --weeks 2"));
    let mut opts = parse::<ResampleArgs>("resample", &argv)
        .ok()?
        .scenario()
        .resample_options()
        .ok()?;
    let (p, run) = (&opts.population, &opts.users.run);
    if too_long(opts.weeks, run.warmup, run.cooldown)
        || too_big(p.long_term)
        || too_big(p.temporary)
    {
        return None;
    }
    opts.users.run.check = true;
    Some(opts)
}

fn analyze_seeds() -> Vec<Vec<u8>> {
    logs_with_args(
        &[
            "--unknown-waits zero",
            "--unknown-waits replay:fcfs --session-rule latest --dependence start",
            "--unknown-waits zero --window-end last-submit --threshold 1s --time-zone +05:30",
            "--unknown-waits zero --questionable oversize=clamp --procs 8",
        ],
        &[
            "",
            "--json",
            "--flurry-factor 1.5 --long-term-share 0.1",
            "--edge 0 --long-term-share 1",
        ],
    )
}

/// Analyses the log in `bytes` under the `analyze` command's arguments of its
/// `; Fuzz-args:` line: renders it as text and JSON, writes the fitted continuation curve
/// and reads it back (a curve that does not read back is a finding), and draws its two
/// plots into a scratch folder.
fn analyze(bytes: &[u8]) -> bool {
    let Some(file) = ScratchFile::new(bytes) else {
        return false;
    };
    let mut argv = vec!["--swf".to_owned(), file.0.display().to_string()];
    argv.extend(fuzz_args(bytes, "--unknown-waits zero"));
    let Ok(args) = parse::<AnalyzeArgs>("analyze", &argv) else {
        return false;
    };
    let Ok(opts) = args.options() else {
        return false;
    };
    let Ok(analyzed) = analyze_log(&file.0, &opts) else {
        return false;
    };
    let _ = (analyzed.text(), analyzed.json());
    let curve = &analyzed.analysis.continuation;
    let toml = curve.to_toml();
    if let Err(e) = ContinuationCurve::parse(&toml, "fitted.toml") {
        panic!("the fitted continuation curve does not read back: {e}\n{toml}");
    }
    let plot = file.0.with_extension("svg");
    if let Ok(written) = plot_continuation(curve, &analyzed.file, &plot) {
        for w in written {
            let _ = std::fs::remove_file(w);
        }
    }
    true
}

fn fit_seeds() -> Vec<Vec<u8>> {
    logs_with_args(
        &["--unknown-waits zero", "--unknown-waits replay:fcfs"],
        &["", "--time-zone Europe/Stockholm", "--time-zone -03:00"],
    )
}

/// Fits the job layer to the log in `bytes` under the `fit` command's arguments of its
/// `; Fuzz-args:` line, renders its summary and checks that the model file reads back (a
/// fit that does not is a finding).
fn fit(bytes: &[u8]) -> bool {
    let Some(file) = ScratchFile::new(bytes) else {
        return false;
    };
    let mut argv = vec![
        "--swf".to_owned(),
        file.0.display().to_string(),
        "--out".to_owned(),
        "fit.toml".to_owned(),
    ];
    argv.extend(fuzz_args(bytes, "--unknown-waits zero"));
    let Ok(args) = parse::<FitArgs>("fit", &argv) else {
        return false;
    };
    let Ok((layer, warnings)) = fit_logs(
        std::slice::from_ref(&file.0),
        args.time_zone.as_deref(),
        &args.unknown_waits,
    ) else {
        return false;
    };
    let _ = render_summary(&layer);
    let toml = to_toml(&layer, Some("sitesim fit"), &warnings);
    if let Err(e) = JobLayer::parse(&toml, "fit.toml") {
        panic!("the fitted job layer does not read back: {e}\n{toml}");
    }
    true
}

fn batsim_seeds() -> Vec<Vec<u8>> {
    log_seeds(&[20, 60])
        .into_iter()
        .filter_map(|log| {
            let reader = SwfReader::new(Cursor::new(&log[..]), "seed.swf").ok()?;
            let header = reader.header().clone();
            let mut export = BatsimExport::new(ProfileStyle::Batsim4);
            for r in reader {
                export.add(&r.ok()?.record);
            }
            export.write(Vec::new(), &header, "fuzz seed").ok()
        })
        .collect()
}

/// Reads the Batsim workload in `bytes` and, if it has few jobs, replays it under EASY
/// with the invariant checker.
fn batsim(bytes: &[u8]) -> bool {
    let Ok((header, records, _)) = read_workload(Cursor::new(bytes), "fuzz.json") else {
        return false;
    };
    if records.len() > 2000 {
        return true;
    }
    let opts = ReplayOptions {
        check: true,
        ..ReplayOptions::default()
    };
    replay(
        &LogSource::records("fuzz.json", header, &records, Default::default()),
        &opts,
    )
    .is_ok()
}

fn export_seeds() -> Vec<Vec<u8>> {
    log_seeds(&[20, 60])
}

/// Exports the log in `bytes` as a Batsim workload (`sitesim export`; delay profiles in
/// Batsim 5's spelling for inputs of odd length), which must read back: as many jobs as
/// were exported, with the same submit times, runtimes and sizes, and `nb_res` as the
/// header's `MaxProcs` (a workload sitesim writes and cannot read is a finding).
fn export(bytes: &[u8]) -> bool {
    let Ok(mut reader) = SwfReader::new(Cursor::new(bytes), "fuzz.swf") else {
        return false;
    };
    let style = if bytes.len().is_multiple_of(2) {
        ProfileStyle::Batsim4
    } else {
        ProfileStyle::Batsim5
    };
    let mut export = BatsimExport::new(style);
    let mut sent = Vec::new();
    for located in reader.by_ref() {
        let Ok(located) = located else {
            return false;
        };
        let r = located.record;
        if export.add(&r) {
            let size = if r.alloc_procs > 0 {
                r.alloc_procs
            } else {
                r.req_procs
            };
            sent.push((r.submit, r.run, size));
        }
    }
    let header = reader.header();
    let Ok(json) = export.write(Vec::new(), header, "fuzz") else {
        return false;
    };
    let (back, records, _) = read_workload(Cursor::new(&json[..]), "fuzz.json")
        .unwrap_or_else(|e| panic!("the exported workload does not read back: {e}"));
    let mut got: Vec<_> = records
        .iter()
        .map(|l| (l.record.submit, l.record.run, l.record.alloc_procs))
        .collect();
    sent.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, sent, "the workload read back holds other jobs");
    assert_eq!(
        back.max_procs,
        Some(export.nb_res(header)),
        "nb_res read back"
    );
    true
}

/// Files of an experiment's results directory that the `results` target writes: the plan,
/// a capacity search's result and run records (`runs/<point>/r<NNNN>.json`).
fn results_file(name: &str) -> bool {
    match name.split('/').collect::<Vec<_>>()[..] {
        ["experiment.json"] | ["capacity.json"] => true,
        // A single run's or replicated runs' folder.
        ["summary.json"] | ["jobs.csv"] | ["replications.csv"] | ["weekly.csv"] => true,
        ["runs", point, run] => {
            is_folder_name(point)
                && run
                    .strip_prefix('r')
                    .and_then(|r| r.strip_suffix(".json"))
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        }
        _ => false,
    }
}

/// A results directory of a small experiment as one JSON object: each file's path under
/// the directory and its contents (JSON; a string stands for the file's raw text).
fn results_seeds() -> Vec<Vec<u8>> {
    let sweep = "name = \"sweep\"\nseed = 1\nduration = \"2w\"\nreplications = 2\n\
        [machine]\nprocs = 128\n[scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\n\
        [metrics]\nwarmup = \"1d\"\n[experiment]\nschedulers = [{ name = \"easy\" }, \
        { name = \"fcfs\", label = \"FCFS\" }]\n[experiment.sweep]\naxis = \"population\"\n\
        values = [0.5, 1]\n";
    let capacity = "name = \"capacity\"\nseed = 1\nduration = \"2w\"\nreplications = 2\n\
        [machine]\nprocs = 128\n[scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\n\
        [experiment.capacity]\nmetric = \"mean_wait\"\ntarget = 600\ngoal = \"below\"\n\
        min_procs = 100\nmax_procs = 256\n";
    // The folders of a replicated model run and of one replay: their tables as text.
    let replicated = "name = \"replicated\"\nseed = 1\nduration = \"2w\"\nreplications = 2\n\
        [machine]\nprocs = 128\n[scheduler]\npolicy = \"easy\"\n[workload]\nsource = \"model\"\n";
    let replay = "name = \"replay\"\n[machine]\nprocs = 16\n[scheduler]\npolicy = \"easy\"\n\
        [workload]\nsource = \"synthetic\"\njobs = 60\nload = 0.8\n";
    let mut seeds = Vec::new();
    for text in [sweep, capacity, replicated, replay] {
        let dir = scratch_dir();
        let ran = Scenario::parse(text, "seed.toml").and_then(|mut s| {
            if s.experiment.is_some() {
                let mut study = Study::new(&s, text)?;
                study
                    .run(&dir, Shard::ALL, &AtomicBool::new(false), &|| {})
                    .map(drop)
            } else {
                s.output.dir = Some(dir.clone());
                s.run(&AtomicBool::new(false), &|| {}).map(drop)
            }
        });
        if ran.is_ok() {
            let mut files = serde_json::Map::new();
            for (name, path) in results_files(&dir) {
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                let value = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                    serde_json::Value::String(String::from_utf8_lossy(&bytes).into_owned())
                });
                files.insert(name, value);
            }
            seeds.push(serde_json::to_vec_pretty(&files).unwrap_or_default());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    seeds
}

/// The files of a results directory `dir` that [`results_file`] admits, by their path
/// under it, sorted.
fn results_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                let name = rel.to_string_lossy().replace('\\', "/");
                if results_file(&name) {
                    found.push((name, path));
                }
            }
        }
    }
    found.sort();
    found
}

/// Reads the log in `bytes` through a named pipe, fed by a thread as a shell's `<(...)`
/// or a FIFO would be, with [`LogSource::file`] (what `--swf PIPE` reads), twice: the
/// stream is read once and kept, and each pass gives the records the bytes give read as
/// text, or an error where they do.
fn stream(bytes: &[u8]) -> bool {
    // A Batsim workload is told from its first byte when a file is opened, not in text.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        return false;
    }
    let dir = scratch_dir();
    let fifo = dir.join("log.fifo");
    let made = std::fs::create_dir_all(&dir).is_ok()
        && std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes())
            .is_ok_and(|path| unsafe { libc::mkfifo(path.as_ptr(), 0o600) } == 0);
    if !made {
        let _ = std::fs::remove_dir_all(&dir);
        return false;
    }
    let writer = {
        let (fifo, bytes) = (fifo.clone(), bytes.to_vec());
        std::thread::spawn(move || std::fs::write(fifo, bytes))
    };
    /// The header's size and the records of two passes, which must agree.
    fn records<I: sitesim::swf::Records>(
        source: Result<LogSource<'_, I>, sitesim::swf::SwfError>,
    ) -> Result<(Option<i64>, Vec<sitesim::swf::Located>), sitesim::swf::SwfError> {
        let s = source?;
        let first: Vec<_> = s.open()?.collect::<Result<_, _>>()?;
        let again: Vec<_> = s.open()?.collect::<Result<_, _>>()?;
        assert_eq!(
            first, again,
            "a stream's second pass differs from its first"
        );
        Ok((s.header().max_procs, first))
    }
    let piped = records(LogSource::file(&fifo));
    let _ = writer.join();
    sitesim::swf::forget_streams();
    let _ = std::fs::remove_dir_all(&dir);
    let text = records(LogSource::text(bytes, "fuzz.swf"));
    match (&piped, &text) {
        (Ok(p), Ok(t)) => assert_eq!(p, t, "the pipe gave other records than the bytes"),
        (Err(_), Err(_)) => {}
        _ => panic!(
            "the pipe and the bytes disagree: {:?} against {:?}",
            piped.as_ref().map(|p| p.1.len()),
            text.as_ref().map(|t| t.1.len())
        ),
    }
    piped.is_ok()
}

/// Lays out the results directory in `bytes` (see [`results_seeds`]: an experiment's, a
/// replicated run's or a single run's) in a scratch folder, writes its report (`sitesim
/// report`) and, for an experiment, merges it (`sitesim merge`) into a second folder and
/// then with that folder into a third, as shards of one experiment. Plans of
/// more than 64 runs are skipped: their cost is what the plan asks for, not a finding.
/// A run's record is laid out with its checksum made anew ([`sealed`]), so that mutated
/// values reach the report and the merge instead of stopping at the checksum.
fn results(bytes: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(files)) = serde_json::from_slice(bytes) else {
        return false;
    };
    if !files.keys().all(|k| results_file(k)) {
        return false;
    }
    let runs = files.get("experiment.json").map_or(0, |plan| {
        let points = plan["points"].as_array().map_or(0, Vec::len) as u64;
        points.saturating_mul(plan["replications"].as_u64().unwrap_or(0))
    });
    if runs > 64 {
        return false;
    }
    let dir = scratch_dir();
    let [merged, twice] = [scratch_dir(), scratch_dir()];
    let laid_out = files.iter().all(|(name, value)| {
        let path = dir.join(name);
        let bytes = match value {
            serde_json::Value::String(raw) => raw.clone().into_bytes(),
            v if name.starts_with("runs/") => {
                serde_json::to_vec_pretty(&sealed(v.clone())).unwrap_or_default()
            }
            v => serde_json::to_vec_pretty(v).unwrap_or_default(),
        };
        path.parent()
            .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
            && std::fs::write(&path, bytes).is_ok()
    });
    let experiment = files.contains_key("experiment.json");
    let accepted = laid_out
        && write_report(&dir, Default::default()).is_ok()
        && (!experiment
            || (merge(&merged, std::slice::from_ref(&dir)).is_ok()
                && merge(&twice, &[dir.clone(), merged.clone()]).is_ok()));
    for d in [&dir, &merged, &twice] {
        let _ = std::fs::remove_dir_all(d);
    }
    accepted
}

/// A run's record in JSON with the checksum of the record it reads as (unchanged if it
/// reads as none).
fn sealed(mut value: serde_json::Value) -> serde_json::Value {
    if let Some(record) = value.as_object_mut() {
        record.remove("checksum");
        let checksum =
            serde_json::from_value::<RunRecord>(serde_json::Value::Object(record.clone()))
                .map(|r| r.checksum());
        if let Ok(c) = checksum {
            record.insert("checksum".into(), c.into());
        }
    }
    value
}

fn calibrate_seeds() -> Vec<Vec<u8>> {
    user_seeds(&[
        "--weeks 2 --replications 1",
        "--weeks 3 --replications 2 --out results",
        "--weeks 2 --replications 1 --long-term 0 --temporary 2",
    ])
}

/// Calibrates the log in `bytes` (`sitesim calibrate`) under the `resample` command's
/// arguments of its `; Fuzz-args:` line, with the invariant checker, renders the result
/// and, with `--out`, writes its files to a scratch folder, where they must read back.
/// Runs too long ([`too_long`]), of more than 2 replications or populations over 4 are
/// skipped: their cost is what the user asked for, not a finding.
fn calibrate_log(bytes: &[u8]) -> bool {
    let Some(opts) = resample_options(bytes, "fuzz.swf").filter(|o| o.replications <= 2) else {
        return false;
    };
    let Ok(source) = LogSource::text(bytes, "fuzz.swf") else {
        return false;
    };
    let stop = AtomicBool::new(false);
    let Ok(summary) = calibrate(&source, &opts, &stop, &|| {}) else {
        return false;
    };
    let _ = render_calibrate(&summary);
    if opts.out.is_some() {
        let dir = scratch_dir();
        if let Err(e) = write_calibrate(&dir, &summary) {
            panic!("the calibration could not be written: {e}");
        }
        outputs_read_back(&dir, "calibrate.json");
        let _ = std::fs::remove_dir_all(&dir);
    }
    true
}

/// The files of `folder` (in the repository) whose names end with `ext`.
fn files(folder: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(folder))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.to_string_lossy().ends_with(ext));
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn scenario_seeds() -> Vec<Vec<u8>> {
    files("scenarios", ".toml")
}

/// Parses a scenario and turns it into options as `sitesim run` does before running:
/// the run's options; a model site's setup (its model files, the built-in ones unless
/// the scenario names others); an `[experiment]` of a model site.
fn scenario(bytes: &[u8]) -> bool {
    let text = text(bytes);
    let Ok(s) = Scenario::parse(&text, "fuzz.toml") else {
        return false;
    };
    if s.replay_options().is_err() {
        return false;
    }
    match &s.workload {
        WorkloadSection::Model(site) if site.model.is_none() && site.jobs.is_none() => {
            if s.model_setup().is_err() {
                return false;
            }
            if s.experiment.is_some() {
                return Study::new(&s, &text).is_ok();
            }
            true
        }
        _ => true,
    }
}

fn settings_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "population.users=0.5\nreplications=2\nseed=7\nworkload.users.continuation=off",
        "scheduler.policy=creasy:alpha=1\nmachine.procs=64\nduration=\"2w\"",
        "scheduler=\"conservative\"\nmetrics.warmup=\"1w\"\npopulation.users=[1, 2]",
        "experiment.sweep.axis=population\nexperiment.sweep.values=[0.5, 1]\nthreads=2",
        "site.think.threshold=\"20m\"\nworkload.source=model\noutput.dir=results",
    ])
}

/// Applies the settings of a `sitesim run --set KEY=VALUE ...` command line (one a line,
/// read as the CLI reads them) to the built-in default scenario, and turns the result
/// into options as the `scenario` target does.
fn settings(bytes: &[u8]) -> bool {
    let Ok(settings) = text(bytes)
        .lines()
        .map(Scenario::setting)
        .collect::<Result<Vec<_>, _>>()
    else {
        return false;
    };
    match Scenario::with_settings(DEFAULT_SCENARIO, "default.toml", &settings) {
        Ok(text) => scenario(text.as_bytes()),
        Err(_) => false,
    }
}

/// The scenarios of a model-based site, shortened to two weeks and one replication, an
/// `[output]` folder given where it was left commented out.
fn model_seeds() -> Vec<Vec<u8>> {
    files("scenarios", ".toml")
        .into_iter()
        .map(|bytes| text(&bytes))
        .filter(|t| t.contains("source = \"model\""))
        .map(|t| {
            edit_lines(&t, |l| match l.split_whitespace().next() {
                Some("duration") => "duration = \"2w\"",
                Some("replications") => "replications = 1",
                Some("#") if l.starts_with("# dir") => "dir = \"results\"",
                _ => l,
            })
        })
        .collect()
}

/// `text` with each line replaced by what `edit` makes of it.
fn edit_lines(text: &str, edit: impl for<'l> Fn(&'l str) -> &'l str) -> Vec<u8> {
    text.lines()
        .map(edit)
        .flat_map(|l| [l, "\n"])
        .collect::<String>()
        .into_bytes()
}

/// Runs the model-based site of a scenario (built-in model files only) with the
/// invariant checker, one thread and its `[experiment]` left out; with an `[output]`
/// folder, its files are written to a scratch folder instead and must read back. Runs
/// longer than 8 weeks, of more than 2 replications, 4 times the users ([`too_big`]) or
/// 4,096 processors are skipped: their cost is what the scenario asks for, not a finding.
fn model_site(bytes: &[u8]) -> bool {
    let Ok(s) = Scenario::parse(&text(bytes), "fuzz.toml") else {
        return false;
    };
    let WorkloadSection::Model(site) = &s.workload else {
        return false;
    };
    if site.model.is_some() || site.jobs.is_some() {
        return false;
    }
    let Ok((files, mut opts, out)) = s.model_setup() else {
        return false;
    };
    let too_big = opts.length > 8 * WEEK
        || opts.replications > 2
        || too_big(opts.users)
        || opts.machine.is_some_and(|p| p > 4096)
        || opts.run.procs.is_some_and(|p| p > 4096);
    if too_big {
        return false;
    }
    opts.threads = Some(1);
    opts.run.check = true;
    opts.run.out = None;
    let dir = out.map(|_| scratch_dir());
    let mut weekly = match dir.as_deref().map(WeeklyCsv::create).transpose() {
        Ok(weekly) => weekly,
        Err(e) => panic!("weekly.csv could not be started: {e}"),
    };
    let stop = AtomicBool::new(false);
    let Ok(summary) = run_model(&files, &opts, &stop, &|| {}, weekly.as_mut()) else {
        return false;
    };
    if let (Some(dir), Some(weekly)) = (&dir, weekly)
        && let Err(e) = write_replicated(dir, &summary, weekly)
    {
        panic!("the run's files could not be written: {e}");
    }
    checked_outputs(true, dir.as_deref())
}

/// The experiments of `scenarios/` on a model-based site, shortened to two weeks (a day
/// of warm-up) and one replication.
fn study_seeds() -> Vec<Vec<u8>> {
    model_seeds()
        .into_iter()
        .map(|bytes| text(&bytes))
        .filter(|t| t.contains("[experiment"))
        .map(|t| {
            edit_lines(&t, |l| match l.split_whitespace().next() {
                Some("warmup") => "warmup = \"1d\"",
                _ => l,
            })
        })
        .collect()
}

/// Runs the experiment of a model-based site's scenario (built-in model files) into a
/// scratch folder on the worker's one thread, as `sitesim run` does, then again: the second run must
/// find every run done and do none (a resumed experiment never redoes a finished run);
/// then writes its report; then, unless it is a capacity search (which cannot be
/// sharded), runs it again as 2 or 3 shards, whose merged folder must hold the one run's
/// results byte for byte ([`shards_merge_into`]). Experiments of more than 32 runs (a
/// capacity search: more than 2 replications), longer than 4 weeks, of 4 times the users
/// ([`too_big`]) or 4,096 processors are skipped: their cost is what the scenario asks
/// for, not a finding.
fn study(bytes: &[u8]) -> bool {
    let text = text(bytes);
    let Ok(s) = Scenario::parse(&text, "fuzz.toml") else {
        return false;
    };
    let WorkloadSection::Model(site) = &s.workload else {
        return false;
    };
    if site.model.is_some() || site.jobs.is_some() || s.experiment.is_none() {
        return false;
    }
    let Ok((_, opts, _)) = s.model_setup() else {
        return false;
    };
    let Ok(mut study) = Study::new(&s, &text) else {
        return false;
    };
    let plan = study.plan();
    let runs = if study.is_capacity_search() {
        u64::from(plan.replications) * 16
    } else {
        plan.points.len() as u64 * u64::from(plan.replications)
    };
    let too_big = runs > 32
        || opts.length > 4 * WEEK
        || too_big(opts.users)
        || plan
            .points
            .iter()
            .any(|p| p.procs > 4096 || too_big(p.population));
    if too_big {
        return false;
    }
    let dir = scratch_dir();
    let stop = AtomicBool::new(false);
    let accepted = match study.run(&dir, Shard::ALL, &stop, &|| {}) {
        Ok(_) => {
            let again = study
                .run(&dir, Shard::ALL, &stop, &|| {})
                .unwrap_or_else(|e| panic!("the finished experiment does not resume: {e}"));
            assert!(
                again.done == 0 && again.discarded.is_empty() && again.rejected.is_empty(),
                "a resumed experiment did {} run(s) again: {:?} {:?}",
                again.done,
                again.rejected,
                again.discarded
            );
            if let Err(e) = write_report(&dir, Default::default()) {
                panic!("the finished experiment has no report: {e}");
            }
            if !study.is_capacity_search() {
                let shards = 2 + (bytes.len() % 2) as u32;
                shards_merge_into(&mut study, &dir, shards, &stop);
            }
            true
        }
        Err(_) => false,
    };
    let _ = std::fs::remove_dir_all(&dir);
    accepted
}

/// Runs `study` again as `count` shards, each into its own folder, merges them, and
/// checks that the merged folder holds the results of the one run in `whole`, byte for
/// byte: its plan, every run's record, its summary and table.
fn shards_merge_into(study: &mut Study, whole: &Path, count: u32, stop: &AtomicBool) {
    let dirs: Vec<PathBuf> = (1..=count).map(|_| scratch_dir()).collect();
    for (index, dir) in (1..=count).zip(&dirs) {
        if let Err(e) = study.run(dir, Shard { index, count }, stop, &|| {}) {
            panic!("shard {index}/{count} of a finished experiment fails: {e}");
        }
    }
    let merged = scratch_dir();
    if let Err(e) = merge(&merged, &dirs) {
        panic!("the shards of a finished experiment do not merge: {e}");
    }
    let files = results_files(whole);
    assert!(!files.is_empty(), "the whole run left no results");
    for (name, path) in files
        .into_iter()
        .chain(["summary.json", "runs.csv"].map(|f| (f.to_owned(), whole.join(f))))
    {
        let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(
            read(&path) == read(&merged.join(&name)),
            "{name} of {count} merged shards differs from the one run's"
        );
    }
    for dir in dirs.iter().chain([&merged]) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Seeds from a list of strings.
fn strings(list: &[&str]) -> Vec<Vec<u8>> {
    list.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn policy_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "easy",
        "fcfs",
        "sjbf",
        "conservative",
        "creasy:alpha=0.9,wait_scale=1h,short=10m,session_gap=20m,half_life=1d",
        "logged:scale=1.5",
        "time-of-day:day=creasy,night=easy,day_start=8,day_end=18",
        "pbas:candidates=[\"easy\",\"sjbf\"],period=12h,metric=bsld",
        "wbas:high=easy,low=sjbf,period=1d,maf=7500",
        "flex:slack_factor=2,grade=bsld,depth=4",
        "maui:queue_time=1,xfactor=5,size=0.5,fairshare=2,half_life=1d",
        "fairshare:age=1000,fairshare=10000,size=10,max_age=1d,half_life=7d",
        "limits:policy=\"flex:grade=waiting\",jobs=1,procs=4",
    ])
}

/// A tiny log for the spec targets' runs: a wide job, a narrow one, a long one.
const TINY_LOG: &str = "; MaxProcs: 8\n; UnixStartTime: 820454400\n\
    1 0 -1 100 8 -1 -1 8 200 -1 1 1 1 -1 -1 -1 -1 -1\n\
    2 10 -1 50 2 -1 -1 2 40 -1 1 2 1 -1 -1 -1 -1 -1\n\
    3 20 -1 5000 4 -1 -1 4 6000 -1 1 1 1 -1 -1 -1 -1 -1\n\
    4 7200 -1 10 1 -1 -1 1 10 -1 1 3 1 -1 -1 -1 -1 -1\n";

/// Replays [`TINY_LOG`] under `opts` with the invariant checker.
fn tiny_replay(opts: ReplayOptions) -> bool {
    let opts = ReplayOptions {
        check: true,
        ..opts
    };
    let Ok(source) = LogSource::text(TINY_LOG.as_bytes(), "tiny.swf") else {
        return false;
    };
    replay(&source, &opts).is_ok()
}

/// Parses a policy spec, builds the policy and replays a tiny log with it.
fn policy(bytes: &[u8]) -> bool {
    let Ok(spec) = SchedulerSpec::from_str(&text(bytes)) else {
        return false;
    };
    let _ = (spec.label(), spec.accepts_predictions());
    drop(spec.build(&BuildContext {
        procs: 8,
        clock: SiteClock::utc(),
    }));
    tiny_replay(ReplayOptions {
        policy: spec,
        ..ReplayOptions::default()
    })
}

fn args_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "replay --swf x.swf --scheduler conservative --estimates modal:max=1d --overrun overrun",
        "replay --swf x.swf --interarrival-factor 0.5 --procs 64 --questionable oversize=clamp",
        "replay --swf x.swf --predictor sbh --bsld unclamped --bsld-threshold 60 --warmup 1w",
        "feedback --swf x.swf --threshold 30m --patience 2h --strikes 1 --continuation off",
        "feedback --swf x.swf --unknown-waits replay:conservative --time-zone Europe/Stockholm",
        "resample --swf x.swf --population 2 --weeks 10 --replications 3 --weight 4=0.5",
        "resample --swf x.swf --long-term 1 --temporary 0 --edge 2w --long-term-share 0.25",
        "resample --swf x.swf --regenerate-after 3d --flurry-weight 0 --threads 2 --no-feedback",
    ])
}

/// Parses a command line of `replay`, `feedback` or `resample` (the command's name, then
/// its arguments) as the CLI does, and turns it into the command's options.
fn args(bytes: &[u8]) -> bool {
    let text = text(bytes);
    let mut words = text.split_whitespace().map(str::to_owned);
    let command = words.next().unwrap_or_default();
    let argv: Vec<String> = words.collect();
    match command.as_str() {
        "replay" => parse::<ReplayArgs>("replay", &argv).is_ok_and(|a| {
            a.site.scheduler.refuse_conflicts().is_ok()
                && a.scenario()
                    .replay_options()
                    .is_ok_and(|o| o.interarrival_factor > 0.0)
        }),
        "feedback" => parse::<FeedbackArgs>("feedback", &argv).is_ok_and(|a| {
            a.site.scheduler.refuse_conflicts().is_ok() && a.scenario().feedback_options().is_ok()
        }),
        "resample" => parse::<ResampleArgs>("resample", &argv)
            .is_ok_and(|a| a.scenario().resample_options().is_ok()),
        _ => false,
    }
}

/// The words of `bytes` after the command's name, if they start with `name`.
fn command_line(bytes: &[u8], name: &str) -> Option<Vec<String>> {
    let text = text(bytes);
    let mut words = text.split_whitespace().map(str::to_owned);
    (words.next()? == name).then(|| words.collect())
}

fn generate_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "generate --jobs 100 --procs 64 --load 0.85 --seed 3 --out x.swf",
        "generate --jobs 200 --procs 16384 --load 1.5 --out x.swf",
        "generate --jobs 20 --procs 1 --load 0.000001 --out x.swf",
    ])
}

/// Parses a `sitesim generate` command line as the CLI does, generates at most 200 of
/// its jobs (a model file is out of scope: the `synthetic` target reads those), writes
/// them as the command does and reads the log back: every job written must read back as
/// it was, or be refused by name.
fn generate(bytes: &[u8]) -> bool {
    let Some(args) = command_line(bytes, "generate")
        .and_then(|argv| parse::<GenerateArgs>("generate", &argv).ok())
        .filter(|a| a.model.is_none())
    else {
        return false;
    };
    let cfg = SyntheticConfig {
        jobs: args.jobs.min(200),
        ..args.config()
    };
    let generator = Synthetic::new(cfg, &SyntheticModel::default());
    let mut w = SwfWriter::new(Vec::new(), &generator.header_lines()).expect("in memory");
    let mut written = Vec::new();
    for job in generator {
        match job {
            Ok(job) => {
                w.write(&job.record).expect("in memory");
                written.push(job.record);
            }
            Err(_) => return false,
        }
    }
    let bytes = w.finish().expect("in memory");
    let reader = SwfReader::new(Cursor::new(bytes), "generated.swf")
        .unwrap_or_else(|e| unreadable("generated.swf", e));
    let read: Vec<SwfRecord> = reader
        .map(|r| r.map(|l| l.record))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| unreadable("generated.swf", e));
    assert_eq!(read, written, "the generated log reads back as written");
    true
}

fn estimates_command_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "estimates --jobs 28489 --max 60h --share 12.5",
        "estimates --jobs 100000000 --max 1d --seed 2",
        "estimates --jobs 23070 --max 4h --share 12.5 --seed 7",
    ])
}

/// Parses a `sitesim estimates` command line as the CLI does and builds the table it
/// prints (a log is out of scope: the `swf` target reads those). Its cost is the model's
/// values, which the jobs and the maximum ask for.
fn estimates_command(bytes: &[u8]) -> bool {
    command_line(bytes, "estimates")
        .and_then(|argv| parse::<EstimatesArgs>("estimates", &argv).ok())
        .filter(|a| a.swf.is_none())
        .is_some_and(|a| a.input().is_ok_and(|i| estimates_table(i, a.seed).is_ok()))
}

/// What a command line's scratch folder holds besides the logs (see [`command_scratch`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inputs {
    /// The logs: `log.swf`, `tiny.swf`, `workload.json`.
    Logs,
    /// The logs and the results folders of [`results_folders`].
    Results,
}

/// The log the command-line targets run: the first 120 jobs of KTH's log (known waits,
/// users with sessions), or a hand log when the shared logs are missing. Made once, by
/// the targets' seeds, where its allocations are not an input's.
fn command_log() -> &'static [u8] {
    static LOG: OnceLock<Vec<u8>> = OnceLock::new();
    LOG.get_or_init(|| {
        let kth = shared_workloads()
            .and_then(|d| std::fs::read_to_string(d.join("KTH-SP2-1996-2.swf")).ok());
        let Some(text) = kth else {
            return HAND_LOGS[1].as_bytes().to_vec();
        };
        let header = text.lines().take_while(|l| l.starts_with(';')).count();
        text.lines()
            .take(header + 120)
            .flat_map(|l| [l, "\n"])
            .collect::<String>()
            .into_bytes()
    })
}

/// A folder removed, with what it holds, when the guard is dropped.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh scratch folder holding `log.swf` ([`command_log`]), `tiny.swf`
/// ([`TINY_LOG`]) and `workload.json` (the tiny log as a Batsim workload), and with
/// [`Inputs::Results`] the folders of [`results_folders`].
fn command_scratch(inputs: Inputs) -> ScratchDir {
    let dir = ScratchDir(scratch_dir());
    let mut files = vec![
        (PathBuf::from("log.swf"), command_log().to_vec()),
        (PathBuf::from("tiny.swf"), TINY_LOG.as_bytes().to_vec()),
        (PathBuf::from("workload.json"), tiny_workload()),
    ];
    if inputs == Inputs::Results {
        files.extend(results_folders().iter().cloned());
    }
    for (name, bytes) in files {
        let path = dir.0.join(name);
        let written = path
            .parent()
            .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
            && std::fs::write(&path, bytes).is_ok();
        assert!(written, "cannot write {}", path.display());
    }
    dir
}

/// [`TINY_LOG`] as a Batsim workload.
fn tiny_workload() -> Vec<u8> {
    let reader = SwfReader::new(Cursor::new(TINY_LOG), "tiny.swf").expect("the tiny log");
    let header = reader.header().clone();
    let mut export = BatsimExport::new(ProfileStyle::Batsim4);
    for r in reader {
        export.add(&r.expect("the tiny log's jobs").record);
    }
    export
        .write(Vec::new(), &header, "tiny")
        .expect("written in memory")
}

/// Results folders made once, by the commands' own code, from [`command_log`], as each
/// file's path under the scratch folder and its contents: `sweep/`, a sweep of two
/// populations under two schedulers; `shard1/` and `shard2/`, the same sweep as two
/// shards; `resampled/`, a resampled run's `--out`; `replayed/`, a replay's `--out`.
/// Made once, by the targets' seeds.
fn results_folders() -> &'static [(PathBuf, Vec<u8>)] {
    static FOLDERS: OnceLock<Vec<(PathBuf, Vec<u8>)>> = OnceLock::new();
    FOLDERS.get_or_init(|| {
        let dir = command_scratch(Inputs::Logs);
        let sweep = "--swf log.swf --populations 0.5,1 --schedulers easy --schedulers fcfs \
            --weeks 2 --replications 1 --threads 1";
        for out in [
            "--out sweep",
            "--out shard1 --shard 1/2",
            "--out shard2 --shard 2/2",
        ] {
            let argv = split(&format!("{sweep} {out}"));
            let args = parse::<SweepArgs>("sweep", &argv)
                .ok()
                .and_then(|a| sweep_in(&dir.0, a))
                .expect("the seed sweep parses");
            if let Err(e) = args.run() {
                panic!("the seed sweep fails: {e}");
            }
        }
        let argv = split("--swf log.swf --weeks 2 --replications 2 --out resampled");
        let (log, opts) = parse::<ResampleArgs>("resample", &argv)
            .ok()
            .and_then(|a| resample_in(&dir.0, a))
            .and_then(|a| {
                Some((
                    a.population_args.swf().to_owned(),
                    a.scenario().resample_options().ok()?,
                ))
            })
            .expect("the seed resampling parses");
        if let Err(e) = resample_file(&log, &opts, &AtomicBool::new(false), &|| {}) {
            panic!("the seed resampling fails: {e}");
        }
        let opts = ReplayOptions {
            out: Some(dir.0.join("replayed")),
            ..ReplayOptions::default()
        };
        let source = LogSource::text(command_log(), "log.swf").expect("the log reads");
        if let Err(e) = replay(&source, &opts) {
            panic!("the seed replay fails: {e}");
        }
        snapshot(&dir.0)
            .into_iter()
            .filter(|(p, _)| p.components().count() > 1)
            .collect()
    })
}

/// The words of `line`.
fn split(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_owned).collect()
}

/// The path `p` of a command line as a path under the scratch folder `dir`; `None` when
/// it could lead out of it (an absolute path, `..`): the command lines' targets write
/// nothing outside their scratch folder.
fn inside(dir: &Path, p: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let plain = p
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    (plain && !p.as_os_str().is_empty()).then(|| dir.join(p))
}

/// Every file under `dir` (recursively), by its path under `dir`, with its contents.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                found.push((rel.to_path_buf(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    found.sort();
    found
}

/// Panics unless, of the files under `dir`, only those under one of `outputs` (paths
/// under `dir`) differ from `before` (its [`snapshot`] before the command ran): a
/// command writes where its command line says, and nowhere else (its inputs untouched).
fn written_only_to(dir: &Path, before: &[(PathBuf, Vec<u8>)], outputs: &[&Path]) {
    let output = |p: &Path| outputs.iter().any(|o| dir.join(p).starts_with(o));
    let after = snapshot(dir);
    let kept = |files: &[(PathBuf, Vec<u8>)]| -> Vec<(PathBuf, u64)> {
        files
            .iter()
            .filter(|(p, _)| !output(p))
            .map(|(p, b)| (p.clone(), super::mutate::hash(b)))
            .collect()
    };
    let (was, is) = (kept(before), kept(&after));
    if was != is {
        let changed: Vec<String> = is
            .iter()
            .filter(|f| !was.contains(f))
            .chain(was.iter().filter(|f| !is.contains(f)))
            .map(|(p, _)| p.display().to_string())
            .collect();
        panic!(
            "written outside the command's outputs {outputs:?}: {}",
            changed.join(", ")
        );
    }
}

/// Panics unless `message`, an error of a command line, is clear: not empty, and naming
/// what it refuses: an option (`--...`, or a positional argument as clap names it,
/// `<DIR>`), a value in quotes, a word of the command line, or a file of the scratch
/// folder `dir`.
fn clear_error(message: &str, argv: &[String], dir: &Path) {
    let named = message.contains("--")
        || message.matches('\'').count() >= 2
        || message.contains('<')
        || message.contains(&*dir.to_string_lossy())
        || argv.iter().any(|w| {
            !w.is_empty() && message.starts_with(&format!("{w}:"))
                || w.len() > 2 && message.contains(w.as_str())
        });
    assert!(
        !message.trim().is_empty() && named,
        "an error that names neither an option nor a file: {message:?}"
    );
}

/// The run's size a command line of `resample`, `sweep` or `calibrate` asks for, as the
/// `resample` target bounds it: at most 2 replications (fewer asked for are kept), on the
/// worker's one thread (`--threads` changes no result; see `alloc.rs`); `None` (out of
/// the targets' scope: its cost is what was asked for) past 8 weeks measured or 8 weeks
/// of warm-up and cool-down ([`too_long`]), or a population multiplier over 4
/// ([`too_big`]).
fn bounded(mut args: PopulationArgs) -> Option<PopulationArgs> {
    args.replications = Some(args.replications.unwrap_or(2).min(2));
    args.threads = Some(1);
    let p = &args.population;
    let multipliers = [p.long_term, p.temporary].map(|m| m.unwrap_or(p.users));
    let site = &args.feedback.site;
    let out = too_long(args.weeks, site.metrics.warmup, site.metrics.cooldown)
        || multipliers.into_iter().any(too_big);
    (!out).then_some(args)
}

/// A resampled run out of the targets' scope: more than 8 weeks measured, or a warm-up
/// and cool-down of more than 8 weeks together, which are simulated too (a century's
/// warm-up held 266 MiB of a sweep's run: its cost is what was asked for).
fn too_long(weeks: u32, warmup: Time, cooldown: Time) -> bool {
    weeks > 8 || warmup.saturating_add(cooldown) > 8 * WEEK
}

/// `args` with its log and `--out` under `dir` ([`inside`]); `None` if one is not.
fn population_in(dir: &Path, mut args: PopulationArgs) -> Option<PopulationArgs> {
    let site = &mut args.feedback.site;
    site.swf = inside(dir, &site.swf)?;
    site.out = match &site.out {
        Some(out) => Some(inside(dir, out)?),
        None => None,
    };
    Some(args)
}

/// A `sweep` command line's arguments with its paths under `dir`; `None` without `--out`
/// (its default, `results/sweep-LOG`, is in the working directory).
fn sweep_in(dir: &Path, mut args: SweepArgs) -> Option<SweepArgs> {
    args.population_args.feedback.site.out.as_ref()?;
    args.population_args = population_in(dir, args.population_args)?;
    Some(args)
}

/// A `resample` command line's arguments with its paths under `dir`.
fn resample_in(dir: &Path, mut args: ResampleArgs) -> Option<ResampleArgs> {
    args.population_args = population_in(dir, args.population_args)?;
    Some(args)
}

/// Whether `argv`, the arguments `A` of the command `name`, ask for its help (`-h` or
/// `--help`, alone or first in a cluster of short flags): the CLI prints it, which
/// `cli::args::parse` gives as its error.
fn help_asked<A: clap::Args>(name: &'static str, argv: &[String]) -> bool {
    let command = A::augment_args(clap::Command::new(name).no_binary_name(true));
    command
        .try_get_matches_from(argv)
        .is_err_and(|e| e.kind() == clap::error::ErrorKind::DisplayHelp)
}

/// Runs the command line in `bytes`, if it is one of the command `name` (its name, then
/// its arguments), in a scratch folder holding `inputs`, as the CLI runs it:
/// `parse_args` reads the arguments with the command's own clap definitions
/// (`cli::args`) and makes them what runs (its paths under the folder, its size
/// bounded), `None` when they are out of scope; `run` runs them and says which outputs
/// they write (paths in the folder), with its error if it failed. A refused command
/// line's (unless it asks for help) or a failed run's error must be clear
/// ([`clear_error`]); whether or not it ran, nothing may be written but its outputs
/// ([`written_only_to`]); what it wrote must read back (`check`, given the folder and
/// the outputs).
fn command<A: clap::Args>(
    bytes: &[u8],
    name: &'static str,
    inputs: Inputs,
    parse_args: impl FnOnce(&[String], &Path) -> Option<Result<A, String>>,
    run: impl FnOnce(A) -> Result<Vec<PathBuf>, (String, Vec<PathBuf>)>,
    check: impl FnOnce(&[PathBuf]),
) -> bool {
    let Some(argv) = command_line(bytes, name) else {
        return false;
    };
    let dir = command_scratch(inputs);
    let args = match parse_args(&argv, &dir.0) {
        None => return false,
        Some(Err(e)) => {
            if !help_asked::<A>(name, &argv) {
                clear_error(&e, &argv, &dir.0);
            }
            return false;
        }
        Some(Ok(args)) => args,
    };
    let before = snapshot(&dir.0);
    let (outputs, ran) = match run(args) {
        Ok(outputs) => (outputs, true),
        Err((e, outputs)) => {
            clear_error(&e, &argv, &dir.0);
            (outputs, false)
        }
    };
    let paths: Vec<&Path> = outputs.iter().map(PathBuf::as_path).collect();
    written_only_to(&dir.0, &before, &paths);
    if ran {
        check(&outputs);
    }
    ran
}

fn sweep_args_seeds() -> Vec<Vec<u8>> {
    command_log();
    strings(&[
        "sweep --swf log.swf --populations 0.5,1 --schedulers easy --schedulers fcfs --weeks 2 --replications 1 --out out",
        "sweep --swf log.swf --populations 1 --weeks 1 --replications 2 --out out --report --threads 4",
        "sweep --swf log.swf --populations 0,2 --schedulers conservative --overrun overrun --weeks 2 --replications 1 --shard 2/3 --out out",
        "sweep --swf log.swf --populations 1 --long-term 0 --temporary 3 --edge 0 --weeks 2 --out out --warmup 1d --cooldown 1d",
        "sweep --swf log.swf --populations 0.5 --schedulers sjbf --predictor sbh --weight 1=3 --flurry-weight 0 --weeks 3 --replications 1 --out out",
        "sweep --swf log.swf --populations 1,1e308 --schedulers creasy:alpha=1 --no-feedback --regenerate-after 1d --regenerate-from finish --weeks 2 --out out/nested",
        "sweep --swf tiny.swf --populations 1 --unknown-waits zero --patience 1h --strikes 2 --time-zone +05:30 --weeks 2 --replications 1 --out out",
    ])
}

/// Runs a `sitesim sweep` command line (see [`command`]): its arguments through
/// `SweepArgs`, checked for conflicts, then the sweep run as the CLI runs it
/// (`SweepArgs::run`, then its report with `--report`, unsharded); its results directory
/// (`--out`, required: the default is in the working directory) must read back. At most
/// 2 replications on one thread; more than 8 weeks, populations over 4 ([`bounded`]) or
/// more than 8 runs (points times schedulers) are out of scope.
fn sweep_args(bytes: &[u8]) -> bool {
    command(
        bytes,
        "sweep",
        Inputs::Logs,
        |argv, dir| {
            let args = match parse::<SweepArgs>("sweep", argv) {
                Ok(a) => a,
                Err(e) => return Some(Err(e)),
            };
            if let Err(e) = args.refuse_conflicts() {
                return Some(Err(e));
            }
            let mut args = sweep_in(dir, args)?;
            args.population_args = bounded(args.population_args)?;
            let runs = args.populations.len() * args.schedulers.len().max(1);
            let p = &args.population_args;
            let p = &p.population;
            let base = [p.long_term, p.temporary].map(|m| m.unwrap_or(p.users));
            let within = runs <= 8
                && !(args.populations.iter()).any(|&p| base.iter().any(|&m| too_big(p * m)));
            within.then_some(Ok(args))
        },
        |args| {
            let site = &args.population_args.feedback.site;
            let out = site.out.clone().expect("sweep_in requires --out");
            args.run()
                .and_then(|()| then_report(site.report && args.shard.is_none(), Some(&out)))
                .map(|()| vec![out.clone()])
                .map_err(|e| (e, vec![out]))
        },
        |outputs| outputs_read_back(&outputs[0], "experiment.json"),
    )
}

fn export_args_seeds() -> Vec<Vec<u8>> {
    command_log();
    strings(&[
        "export --swf log.swf --batsim -o out.json",
        "export --swf log.swf --batsim 5 --output workload-5.json",
        "export --swf workload.json --batsim 4 -o again.json",
        "export --swf tiny.swf --batsim",
        "export --swf tiny.swf --batsim 5 -o nested/folder/out.json",
    ])
}

/// Runs a `sitesim export` command line (see [`command`]): its arguments through
/// `ExportArgs`, then `export_command`; the workload written must read back through
/// `read_workload`, whatever the file's name. Standard output (no `--output`) is taken
/// as the file `stdout.json` in the scratch folder. A run's jobs (`--run`) are out of
/// this target's scope: its folder holds no run.
fn export_args(bytes: &[u8]) -> bool {
    command(
        bytes,
        "export",
        Inputs::Logs,
        |argv, dir| {
            let mut args = match parse::<ExportArgs>("export", argv) {
                Ok(a) => a,
                Err(e) => return Some(Err(e)),
            };
            args.swf = Some(inside(dir, args.swf.as_deref()?)?);
            let output = args.output.as_deref().unwrap_or(Path::new("stdout.json"));
            args.output = Some(inside(dir, output)?);
            Some(Ok(args))
        },
        |args| {
            let opts = args.options();
            let out = opts.output.clone().expect("an output file");
            let swf = args.swf.as_deref().expect("a log, checked when parsed");
            export_command(swf, &opts)
                .map(|()| vec![out.clone()])
                .map_err(|e| (e, vec![out]))
        },
        |outputs| {
            let file =
                std::fs::File::open(&outputs[0]).unwrap_or_else(|e| unreadable("workload", e));
            if let Err(e) = read_workload(std::io::BufReader::new(file), "workload") {
                unreadable("the exported workload", e);
            }
        },
    )
}

fn resample_args_seeds() -> Vec<Vec<u8>> {
    command_log();
    strings(&[
        "resample --swf log.swf --weeks 2 --replications 2 --out out",
        "resample --swf log.swf --weeks 3 --population 2 --scheduler conservative --overrun extend --out out --report",
        "resample --swf log.swf --weeks 2 --long-term 0 --temporary 3 --edge 0 --long-term-share 0.1 --start-week cycle",
        "resample --swf log.swf --weeks 4 --regenerate-after 1d --regenerate-from finish --no-feedback --replications 1 --out out/r",
        "resample --swf log.swf --weeks 2 --weight 1=3 --weight 2=0 --flurry-weight 0 --warmup 1d --seed 9 --estimates modal --out out",
        "resample --swf tiny.swf --unknown-waits zero --weeks 2 --predictor sbh --scheduler sjbf --continuation off --patience 2h --threads 3",
        "resample --swf log.swf --weeks 2 --population 1e308 --out out",
    ])
}

/// Runs a `sitesim resample` command line (see [`command`]): its arguments through
/// `ResampleArgs`, checked for conflicts, then the run as the CLI runs it
/// (`Run::Resample`'s `execute_and_print`, then its report with `--report`); with
/// `--out` its files must read back. The size of [`bounded`].
fn resample_args(bytes: &[u8]) -> bool {
    command(
        bytes,
        "resample",
        Inputs::Logs,
        |argv, dir| {
            let args = match parse::<ResampleArgs>("resample", argv) {
                Ok(a) => a,
                Err(e) => return Some(Err(e)),
            };
            if let Err(e) = args
                .population_args
                .feedback
                .site
                .scheduler
                .refuse_conflicts()
            {
                return Some(Err(e));
            }
            let mut args = resample_in(dir, args)?;
            args.population_args = bounded(args.population_args)?;
            Some(Ok(args))
        },
        |args| {
            let site = &args.population_args.feedback.site;
            let outputs: Vec<PathBuf> = site.out.iter().cloned().collect();
            args.scenario()
                .resample_options()
                .and_then(|opts| {
                    Run::Resample {
                        log: site.swf.clone(),
                        opts,
                    }
                    .execute_and_print(Instant::now())
                })
                .and_then(|()| then_report(site.report, site.out.as_deref()))
                .map(|()| outputs.clone())
                .map_err(|e| (e, outputs))
        },
        |outputs| {
            if let Some(out) = outputs.first() {
                outputs_read_back(out, "summary.json");
            }
        },
    )
}

fn calibrate_args_seeds() -> Vec<Vec<u8>> {
    command_log();
    strings(&[
        "calibrate --swf log.swf --weeks 2 --replications 1 --out out",
        "calibrate --swf log.swf --weeks 2 --replications 2 --scheduler fcfs --population 0.5",
        "calibrate --swf log.swf --weeks 3 --replications 1 --long-term 0 --temporary 2 --out out/c --warmup 0",
        "calibrate --swf tiny.swf --unknown-waits zero --weeks 2 --replications 1 --continuation off --out out",
        "calibrate --swf log.swf --weeks 2 --replications 1 --no-feedback --edge 1d --regenerate-after 2d --out out",
    ])
}

/// Runs a `sitesim calibrate` command line (see [`command`]): its arguments through
/// `CalibrateArgs`, checked for conflicts, then `calibrate_command`, what the CLI runs;
/// with `--out` its files (`calibrate.json`, `calibrate.csv`, `users.csv`,
/// `report/index.html`) must read back. The size of [`bounded`] (each of its three resampled
/// rows at most 2 replications, where the command's default is 100).
fn calibrate_args(bytes: &[u8]) -> bool {
    command(
        bytes,
        "calibrate",
        Inputs::Logs,
        |argv, dir| {
            let mut args = match parse::<CalibrateArgs>("calibrate", argv) {
                Ok(a) => a,
                Err(e) => return Some(Err(e)),
            };
            if let Err(e) = args
                .population_args
                .feedback
                .site
                .scheduler
                .refuse_conflicts()
            {
                return Some(Err(e));
            }
            let p = population_in(dir, args.population_args)?;
            args.population_args = bounded(p)?;
            Some(Ok(args))
        },
        |args| {
            let p = &args.population_args;
            let outputs: Vec<PathBuf> = p.feedback.site.out.iter().cloned().collect();
            args.options()
                .map_err(Failure::Failed)
                .and_then(|opts| calibrate_command(p.swf(), &opts))
                .map(|()| outputs.clone())
                .map_err(|e| (e.message().to_owned(), outputs))
        },
        |outputs| {
            if let Some(out) = outputs.first() {
                outputs_read_back(out, "calibrate.json");
            }
        },
    )
}

fn merge_args_seeds() -> Vec<Vec<u8>> {
    results_folders();
    strings(&[
        "merge --out merged shard1 shard2",
        "merge --out merged shard2 shard1 shard1",
        "merge --out merged sweep",
        "merge --out merged sweep shard1",
        "merge --out shard1 shard2",
        "merge --out merged resampled",
    ])
}

/// Runs a `sitesim merge` command line (see [`command`]) over the results folders of
/// [`results_folders`]: its arguments through `MergeArgs`, then `merge_command`; the
/// merged folder must read back, and nothing but it may change (the shards are inputs).
fn merge_args(bytes: &[u8]) -> bool {
    command(
        bytes,
        "merge",
        Inputs::Results,
        |argv, dir| {
            let mut args = match parse::<MergeArgs>("merge", argv) {
                Ok(a) => a,
                Err(e) => return Some(Err(e)),
            };
            args.out = inside(dir, &args.out)?;
            for shard in &mut args.shards {
                *shard = inside(dir, shard)?;
            }
            Some(Ok(args))
        },
        |args| {
            let out = vec![args.out.clone()];
            merge_command(&args.out, &args.shards)
                .map(|()| out.clone())
                .map_err(|e| (e, out))
        },
        |outputs| outputs_read_back(&outputs[0], "experiment.json"),
    )
}

fn report_args_seeds() -> Vec<Vec<u8>> {
    results_folders();
    strings(&[
        "report sweep",
        "report shard1",
        "report resampled",
        "report replayed --schedule-from 1d --schedule-length 12h --colour class",
        "report replayed --schedule-length 1w",
        "report replayed --schedule-from 100d",
    ])
}

/// Runs a `sitesim report` command line (see [`command`]) on a results folder of
/// [`results_folders`]: its arguments through `ReportArgs`, then `report_command`; the
/// report must read back, and nothing but it (`DIR/report/`) and the folder's lock may
/// change.
fn report_args(bytes: &[u8]) -> bool {
    command(
        bytes,
        "report",
        Inputs::Results,
        |argv, dir| {
            let mut args = match parse::<ReportArgs>("report", argv) {
                Ok(a) => a,
                Err(e) => return Some(Err(e)),
            };
            args.dir = inside(dir, &args.dir)?;
            Some(Ok(args))
        },
        |args| {
            let out = vec![args.dir.join("report"), args.dir.join(LOCK_FILE)];
            report_command(&args.dir, args.view(), args.figures.style())
                .map(|()| out.clone())
                .map_err(|e| (e, out))
        },
        |outputs| {
            let dir = outputs[0].parent().expect("the results folder");
            let page = page_of(dir).unwrap_or_else(|e| unreadable("the results folder", e));
            assert!(page.is_file(), "no {}", page.display());
            if outputs[0].is_dir() {
                outputs_read_back(&outputs[0], "index.html");
            }
        },
    )
}

fn predictor_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "perfect",
        "estimate",
        "constant:value=1h",
        "ruh:jobs=2,statistic=mean,cap=true,propagate=false",
        "easy++",
        "sbh:criteria=PE/P/E/*,search=bfs",
        "sbh-noest",
        "estimate:correction=multiply,factor=2,cap=1d",
        "ruh:correction=to-estimate",
    ])
}

/// Parses a predictor spec, builds the predictor and replays a tiny log with it.
fn predictor(bytes: &[u8]) -> bool {
    let Ok(spec) = PredictorSpec::from_str(&text(bytes)) else {
        return false;
    };
    if spec.build(&PredictorDefaults::default()).is_err() {
        return false;
    }
    tiny_replay(ReplayOptions {
        predictor: Some(spec),
        ..ReplayOptions::default()
    })
}

fn estimate_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "log",
        "exact",
        "uniform:2",
        "scaled:1.5",
        "modal",
        "modal:max=1d,share=10",
        "modal:max=18h",
    ])
}

/// Parses an estimate model and replays a tiny log with it.
fn estimates(bytes: &[u8]) -> bool {
    let Ok(model) = EstimateModel::from_str(&text(bytes)) else {
        return false;
    };
    let _ = model.to_string();
    tiny_replay(ReplayOptions {
        estimates: model,
        ..ReplayOptions::default()
    })
}

fn questionable_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "zero-runtime=keep",
        "negative-runtime=skip",
        "bad-size=error",
        "oversize=clamp",
        "missing-estimate=runtime",
        "missing-estimate=max-runtime",
        "missing-estimate=fallback",
    ])
}

/// Parses a questionable-job setting and replays a tiny log with it.
fn questionable(bytes: &[u8]) -> bool {
    let Ok(setting) = PolicySetting::from_str(&text(bytes)) else {
        return false;
    };
    let mut opts = ReplayOptions::default();
    opts.questionable.set(&setting);
    tiny_replay(opts)
}

fn duration_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "0",
        "90",
        "20m",
        "1h",
        "1d",
        "52w",
        "1.5h",
        "1h30m",
        "100y",
        "3153600000",
    ])
}

/// Parses a duration.
fn duration(bytes: &[u8]) -> bool {
    parse_duration(&text(bytes)).is_ok()
}

fn zone_seeds() -> Vec<Vec<u8>> {
    strings(&[
        "UTC",
        "Europe/Stockholm",
        "+02:00",
        "-05:30",
        "+2",
        "America/New_York",
        "Z",
    ])
}

/// Parses a time zone and reads the local time of a few instants in it.
fn zone(bytes: &[u8]) -> bool {
    let text = text(bytes);
    if parse_zone(&text).is_err() {
        return false;
    }
    let header = sitesim::swf::SwfHeader {
        unix_start_time: Some(820_454_400),
        ..Default::default()
    };
    let Ok((clock, _)) = SiteClock::of_log(header.calendar(), Some(&text)) else {
        return false;
    };
    for t in [0, 1, 3600, 86_400 * 200, 3_153_600_000] {
        let _ = (clock.local(t).hour_of_week(), clock.next_hour(t));
    }
    true
}

fn talby_seeds() -> Vec<Vec<u8>> {
    files("models", "talby2006.toml")
}

/// Parses a Talby model file.
fn talby(bytes: &[u8]) -> bool {
    TalbyModel::parse(&text(bytes), "fuzz.toml").is_ok()
}

fn jobs_seeds() -> Vec<Vec<u8>> {
    files("models", "-sessions.toml")
}

/// Parses a job layer file.
fn jobs(bytes: &[u8]) -> bool {
    JobLayer::parse(&text(bytes), "fuzz.toml").is_ok()
}

fn continuation_seeds() -> Vec<Vec<u8>> {
    files("models", ".toml")
        .into_iter()
        .filter(|f| text(f).contains("[[bucket]]"))
        .collect()
}

/// Parses a continuation curve and asks it for a few shares.
fn continuation(bytes: &[u8]) -> bool {
    let Ok(c) = ContinuationCurve::parse(&text(bytes), "fuzz.toml") else {
        return false;
    };
    for t in [0, 1, 60, 3600, 86_400 * 30, 3_153_600_000] {
        let _ = (c.share(t), c.runtime_share(t));
    }
    true
}

fn modal_seeds() -> Vec<Vec<u8>> {
    files("models", "estimates-tsafrir2005.toml")
}

/// Parses a modal estimate model file and builds the model for a few job counts.
fn modal(bytes: &[u8]) -> bool {
    let Ok(p) = ModalParams::parse(&text(bytes), "fuzz.toml") else {
        return false;
    };
    [(100, 18 * 3600), (5000, 4 * 86_400)]
        .iter()
        .all(|&(n, max)| ModalModel::build(&p, n, max, &[(max, 10.0)], 1).is_ok())
}

fn synthetic_seeds() -> Vec<Vec<u8>> {
    files("models", "synthetic.toml")
}

/// Parses a synthetic workload model and generates 200 jobs from it.
fn synthetic(bytes: &[u8]) -> bool {
    let Ok(m) = SyntheticModel::parse(&text(bytes), "fuzz.toml") else {
        return false;
    };
    let cfg = SyntheticConfig {
        jobs: 200,
        procs: 128,
        load: 0.8,
        seed: 1,
    };
    Synthetic::new(cfg, &m).all(|r| r.is_ok())
}

fn predictors_seeds() -> Vec<Vec<u8>> {
    files("models", "predictors.toml")
}

/// Parses a predictor defaults file and builds each predictor with it.
fn predictors(bytes: &[u8]) -> bool {
    let Ok(d) = PredictorDefaults::parse(&text(bytes), "fuzz.toml") else {
        return false;
    };
    ["estimate", "constant", "ruh", "easy++", "sbh", "sbh-noest"]
        .iter()
        .all(|n| PredictorSpec::from_str(n).is_ok_and(|s| s.build(&d).is_ok()))
}
