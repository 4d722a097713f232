//! Replicated runs, whatever their source (a resampled population, a model-based site):
//! replication `r` of a run seeded `s` draws its users from [`replication_seed`]`(s, r)`,
//! whatever the scheduler, the multipliers or the thread count, so the same seed gives
//! the same users under every scheduler (common random numbers); replications run in
//! parallel and come back in order ([`in_parallel`]), so outputs are identical on any
//! number of threads. [`Replicated`] is the one summary every replicated source writes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use crate::metrics::{WeekSeries, WeeklySeries};
use crate::results::metric::{
    MetricStats, Replication, ReplicationsCsv, csv_with_header, metric, stats_of,
};
use crate::results::output::{AtomicFile, Durability, write_atomic};
use crate::results::{RunError, Units};
use crate::textfmt::significant;
use crate::time::Time;

/// What every replicated run states about itself: the machine, the policy, the
/// measurement window, the seed and its replications.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunHeader {
    /// sitesim's version.
    pub sitesim_version: &'static str,
    /// What the numbers are in.
    pub units: Units,
    /// Machine size.
    pub procs: u32,
    /// The policy.
    pub scheduler: String,
    /// Warm-up, seconds.
    pub warmup: Time,
    /// Cool-down, seconds.
    pub cooldown: Time,
    /// The run's seed.
    pub seed: u64,
    /// Replications asked for.
    pub replications_asked: u32,
    /// Whether the run was stopped before every replication finished.
    pub interrupted: bool,
}

impl RunHeader {
    /// The summary of `replications` (the finished ones, in order) with users from
    /// `source`.
    pub fn summary<S, R: AsRef<Replication>>(
        mut self,
        source: S,
        replications: Vec<R>,
    ) -> Replicated<S, R> {
        self.interrupted = (replications.len() as u32) < self.replications_asked;
        let figures: Vec<Replication> = replications.iter().map(|r| *r.as_ref()).collect();
        Replicated {
            run: self,
            source,
            stats: stats_of(&figures),
            replications,
        }
    }
}

/// The result of a replicated run, whatever its source: what its `summary.json` holds.
/// `S` says where the users came from (the log and its pools, or the model and its
/// site); `R` is what each replication reports (its [`Replication`] figures at least).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replicated<S, R = Replication> {
    /// The machine, the policy, the window, the seed.
    #[serde(flatten)]
    pub run: RunHeader,
    /// Where the users came from.
    #[serde(flatten)]
    pub source: S,
    /// Each finished replication, in order.
    pub replications: Vec<R>,
    /// Every metric of [`crate::results::metric::METRICS`] over the replications.
    pub stats: Vec<MetricStats>,
}

/// The most replications a run or an experiment's point takes: far beyond any study
/// (confidence intervals narrow as 1/√n), and a bound on what a typo can ask for.
pub const MAX_REPLICATIONS: u32 = 100_000;

/// Items run at once by [`in_parallel`]: results are built as runs finish, a batch at a
/// time, never preallocated for every item asked for; a batch of replications' weeks
/// ([`WeeklyCsv`]) takes at most 300 MB (a century of 56-byte weeks each).
const BATCH: usize = 1024;

/// Runs `run(item)` for each of `items` (replications `0..n`, an experiment's runs) on
/// the current rayon pool: every parallel run of sitesim goes through here, a batch of
/// [`BATCH`] items at a time. `done` is called as each finishes; no new one starts once
/// `stop` is set. Returns the finished ones in order, or the first error in order, so
/// results do not depend on the thread count; after a stop, only those before the first
/// item not started, so that the `i`-th result is always the `i`-th item's.
pub fn in_parallel<X: Send, T: Send, E: Send>(
    items: impl IntoIterator<Item = X>,
    stop: &AtomicBool,
    done: &(dyn Fn() + Sync),
    run: impl Fn(X) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    let mut finished = Vec::new();
    in_parallel_each(items, stop, done, run, |result| {
        finished.push(result);
        Ok(())
    })?;
    Ok(finished)
}

/// [`in_parallel`], each finished result handed to `keep` in order, a batch at a time, as
/// soon as its batch is done, instead of collected: for results too large to keep all
/// (a replication's weeks, [`WeeklyCsv`]). Stops at the first error, of a run or of
/// `keep`, in order.
pub fn in_parallel_each<X: Send, T: Send, E: Send>(
    items: impl IntoIterator<Item = X>,
    stop: &AtomicBool,
    done: &(dyn Fn() + Sync),
    run: impl Fn(X) -> Result<T, E> + Sync,
    mut keep: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    let mut items = items.into_iter();
    loop {
        let batch: Vec<X> = items.by_ref().take(BATCH).collect();
        if batch.is_empty() {
            return Ok(());
        }
        let results: Vec<Option<Result<T, E>>> = batch
            .into_par_iter()
            .map(|item| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let result = run(item);
                done();
                Some(result)
            })
            .collect();
        // A stop leaves items of the batch unstarted, not only its last ones.
        for result in results {
            match result {
                Some(result) => keep(result?)?,
                None => return Ok(()),
            }
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
    }
}

/// The seed of replication `r` of a run seeded `seed`.
pub fn replication_seed(seed: u64, r: u32) -> u64 {
    crate::seed::mix(seed, u64::from(r) + 1)
}

/// Runs `f`, which has `runs` independent runs to share out, on a rayon pool of `threads`
/// threads (all cores when `None`), but no more threads than runs: one more could only
/// wait, and starting 10,000 threads for two replications took 50 s (results are the
/// same on any number of threads). Called from a pool of exactly that many threads, it
/// runs `f` there rather than start another: a caller that keeps its work on threads of
/// its own, as the fuzz harness does to count what one input allocates
/// (`fuzz/harness/alloc.rs`), keeps this run's work on them too.
pub fn with_threads<T: Send>(
    threads: Option<usize>,
    runs: u64,
    f: impl FnOnce() -> T + Send,
) -> Result<T, RunError> {
    let runs = usize::try_from(runs.max(1)).unwrap_or(usize::MAX);
    let wanted = threads.map(|t| t.min(runs));
    if rayon::current_thread_index().is_some() && wanted == Some(rayon::current_num_threads()) {
        return Ok(f());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(wanted.unwrap_or(0))
        .build()
        .map_err(|e| RunError::Options(format!("cannot start worker threads: {e}")))?;
    Ok(pool.install(f))
}

/// Writes `files` (name, bytes) into `dir`, each atomically.
fn write_files(dir: &Path, files: &[(&str, &[u8])]) -> Result<(), RunError> {
    std::fs::create_dir_all(dir).map_err(|e| output_error(dir, e))?;
    for (name, bytes) in files {
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(|e| output_error(&path, e))?;
    }
    Ok(())
}

/// Writes `summary` as `summary.json` and its replications' figures as
/// `replications.csv` into `dir`, after committing `weekly` (their weeks, written as
/// they finished), so that `summary.json` is written last.
pub fn write_replicated<S: Serialize, R: AsRef<Replication> + Serialize>(
    dir: &Path,
    summary: &Replicated<S, R>,
    weekly: WeeklyCsv,
) -> Result<(), RunError> {
    weekly.commit()?;
    let mut csv = ReplicationsCsv::new(&[]);
    for r in &summary.replications {
        csv.row(&[], r.as_ref());
    }
    let csv = csv.into_bytes();
    let json = serde_json::to_vec_pretty(summary).expect("summaries serialize");
    write_files(dir, &[("replications.csv", &csv), ("summary.json", &json)])
}

/// `weekly.csv`, written as replications finish, in their order: a row per week of each
/// replication, the replication's number, then the fields of [`WeekSeries`] (week,
/// length_hours, utilization_pct, waiting_jobs, waiting_proc_hours, active_users,
/// sessions_opened), numbers in full (the shortest text that reads back as the same
/// value). No replication's weeks are kept once written: kept, a century of weeks for
/// each of [`MAX_REPLICATIONS`] replications would take tens of gigabytes. The file
/// appears under its name on [`WeeklyCsv::commit`], and not at all on an error.
pub struct WeeklyCsv {
    path: PathBuf,
    file: AtomicFile,
    rows: csv::Writer<BufWriter<File>>,
}

impl WeeklyCsv {
    /// Starts `dir/weekly.csv`, creating `dir` if need be.
    pub fn create(dir: &Path) -> Result<WeeklyCsv, RunError> {
        let path = dir.join("weekly.csv");
        let io = |e| output_error(&path, e);
        std::fs::create_dir_all(dir).map_err(|e| output_error(dir, e))?;
        let (file, out) = AtomicFile::create(&path, Durability::Renamed).map_err(io)?;
        let rows = csv_with_header(&["replication"], &WeekSeries::default(), out).map_err(io)?;
        Ok(WeeklyCsv { path, file, rows })
    }

    /// Adds replication `r`'s weeks.
    pub fn add(&mut self, r: u32, series: &WeeklySeries) -> Result<(), RunError> {
        for week in &series.weeks {
            self.rows
                .serialize((r, week))
                .map_err(|e| output_error(&self.path, e.into()))?;
        }
        Ok(())
    }

    /// Puts the file in place.
    pub fn commit(self) -> Result<(), RunError> {
        let WeeklyCsv { path, file, rows } = self;
        let io = |e| output_error(&path, e);
        rows.into_inner()
            .map_err(|e| io(e.into_error()))?
            .flush()
            .map_err(io)?;
        file.commit().map_err(io)?;
        Ok(())
    }
}

/// The error of writing `path`.
fn output_error(path: &Path, source: std::io::Error) -> RunError {
    RunError::Output {
        path: path.display().to_string(),
        source,
    }
}

/// The table of metrics over replications, each in the unit a report shows it in
/// ([`Metric::scale`](crate::results::metric::Metric::scale): durations in hours,
/// shares in percent), to 4 significant digits: mean, sd, the
/// half-width of the 95% confidence interval of the mean, min and max. Files keep the
/// stored units (seconds, shares).
pub fn render_stats(stats: &[MetricStats]) -> String {
    let mut out = "  over the replications      unit                    mean          sd  ± (95% CI)         min         max\n"
        .to_string();
    for m in stats {
        let Ok(def) = metric(m.metric) else {
            continue;
        };
        let scale = def.scale();
        let f = |v: f64| significant(v * scale.factor, 4);
        out.push_str(&format!(
            "  {:<26} {:<20} {:>11} {:>11} {:>11} {:>11} {:>11}\n",
            def.quantity,
            scale.unit,
            f(m.mean),
            f(m.sd),
            f(m.ci95),
            f(m.min),
            f(m.max)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `weekly.csv` appears only when committed, with every replication's weeks in the
    /// order they were added; dropped uncommitted (an error on the way), it leaves nothing.
    #[test]
    fn weekly_csv_appears_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let series = |weeks: u64| WeeklySeries {
            origin: 0,
            weeks: (0..weeks)
                .map(|week| WeekSeries {
                    week,
                    ..WeekSeries::default()
                })
                .collect(),
        };
        let mut csv = WeeklyCsv::create(dir.path()).unwrap();
        csv.add(0, &series(2)).unwrap();
        drop(csv);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let mut csv = WeeklyCsv::create(dir.path()).unwrap();
        csv.add(0, &series(2)).unwrap();
        csv.add(1, &series(1)).unwrap();
        assert!(!dir.path().join("weekly.csv").exists());
        csv.commit().unwrap();
        let text = std::fs::read_to_string(dir.path().join("weekly.csv")).unwrap();
        let rows: Vec<&str> = text.lines().map(|l| &l[..3]).collect();
        assert_eq!(rows, ["rep", "0,0", "0,1", "1,0"], "{text}");
    }

    /// Runs come back in order across batches, and a stop ends the run at the batch it
    /// falls in, with every run started kept.
    #[test]
    fn runs_come_back_in_order_a_batch_at_a_time() {
        let none = AtomicBool::new(false);
        let all: Result<Vec<u32>, ()> = in_parallel(0..10_000u32, &none, &|| {}, |i| Ok(i * 2));
        assert_eq!(all.unwrap(), (0..10_000).map(|i| i * 2).collect::<Vec<_>>());
        let stop = AtomicBool::new(false);
        let some: Vec<u32> = in_parallel(0..100_000u32, &stop, &|| {}, |i| {
            if i == 5000 {
                stop.store(true, Ordering::Relaxed);
            }
            Ok::<_, ()>(i)
        })
        .unwrap();
        // The batches before run 5000's finish; no later one starts; what is kept is the
        // items up to the first that did not start, whichever thread left it.
        assert!(
            some.len() >= 5000 / BATCH * BATCH && some.len() <= (5000 / BATCH + 1) * BATCH,
            "{}",
            some.len()
        );
        assert_eq!(some, (0..some.len() as u32).collect::<Vec<_>>());
        let first_error = in_parallel(0..10u32, &none, &|| {}, |i| {
            if i % 4 == 3 { Err(i) } else { Ok(i) }
        });
        assert_eq!(first_error, Err(3));
    }

    /// Reviewing the commands left unfuzzed: `--threads 10000` started ten
    /// thousand threads for two replications (50 s before the first run).
    #[test]
    fn no_more_threads_start_than_runs() {
        let threads = |asked, runs| with_threads(asked, runs, rayon::current_num_threads);
        assert_eq!(threads(Some(100_000), 2).unwrap(), 2);
        assert_eq!(threads(Some(1), 2).unwrap(), 1);
        assert_eq!(threads(Some(3), 0).unwrap(), 1);
        assert_eq!(threads(Some(3), u64::MAX).unwrap(), 3);
        assert!(threads(None, 1000).unwrap() >= 1);
    }

    /// A run asked for as many threads as the pool it is called from has runs on that
    /// pool, on the calling thread when the pool has one; other counts start a pool.
    #[test]
    fn a_pool_of_the_threads_asked_for_is_used_as_it_is() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (caller, ran_on, more) = pool.install(|| {
            let here = std::thread::current().id();
            let there = with_threads(Some(1), 4, || std::thread::current().id()).unwrap();
            let more = with_threads(Some(2), 4, rayon::current_num_threads).unwrap();
            (here, there, more)
        });
        assert_eq!(ran_on, caller);
        assert_eq!(more, 2);
        let outside = with_threads(Some(1), 4, || std::thread::current().id()).unwrap();
        assert_ne!(outside, std::thread::current().id());
    }

    #[test]
    fn statistics_show_four_significant_digits_in_the_reports_units() {
        let table = render_stats(&[MetricStats::of("mean_wait", &[7200.0, 14400.0])]);
        assert!(table.contains("mean wait                  h "), "{table}");
        assert!(table.contains("  3  "), "{table}");
    }

    #[test]
    fn replication_seeds_differ_and_repeat() {
        assert_ne!(replication_seed(1, 0), replication_seed(1, 1));
        assert_ne!(replication_seed(1, 0), replication_seed(2, 0));
        assert_eq!(replication_seed(7, 3), replication_seed(7, 3));
    }
}
