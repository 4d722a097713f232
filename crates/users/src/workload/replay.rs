//! Open-loop replay of a log: each job is submitted at its logged time (optionally with
//! interarrival times scaled), whatever the simulated machine does.
//!
//! The replayer reads one record ahead and asks the engine to wake it at that record's
//! submit time, so a log of any length streams through in constant memory.

use crate::job::JobSpec;
use crate::predict::estimates::Estimator;
use crate::sim::{SimError, SourceCtx, Workload};
use crate::swf::{FIELD_NAMES, KeptRecords, Located, SwfError, SwfRecord};
use crate::time::Time;

use super::peak::{LoggedPeak, Peak};
use super::questionable::{Action, Kind, Policies, Report};

/// How to turn log records into jobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplayConfig {
    /// Processors of the simulated machine (for the oversize check).
    pub procs: u32,
    /// What to do with questionable jobs.
    pub policies: Policies,
    /// Multiplies every interarrival time: below 1 raises the load, above 1 lowers it.
    /// This also shrinks or stretches the daily and weekly cycles (Mu'alem and Feitelson 2001,
    /// §3.1).
    pub interarrival_factor: f64,
    /// The header's `MaxRuntime`, for `missing-estimate=max-runtime`.
    pub max_runtime: Option<Time>,
    /// Keep each admitted job's record, by its tag (its line), for per-job outputs
    /// ([`LogReplay::kept_records`]).
    pub keep_records: bool,
}

/// A log record admitted as a job by the questionable-job policies.
#[derive(Debug, Clone)]
pub struct Admitted {
    /// Its line in the log.
    pub line: u64,
    /// Its submit time (interarrival scaling applied).
    pub submit: Time,
    /// Its logged wait, `-1` when unknown.
    pub wait: Time,
    /// The job.
    pub spec: JobSpec,
}

/// A log replayed open-loop.
pub struct LogReplay<I> {
    records: I,
    file: String,
    cfg: ReplayConfig,
    report: Report,
    first_submit: Option<Time>,
    last_raw_submit: Time,
    next: Option<Admitted>,
    last_submit: Option<Time>,
    submitted: u64,
    estimator: Option<Estimator>,
    /// The processors the log's own schedule keeps busy.
    peak: LoggedPeak,
    /// The admitted jobs' records, if kept.
    kept: Option<KeptRecords>,
}

impl<I: Iterator<Item = Result<Located, SwfError>>> LogReplay<I> {
    /// Replays `records` read from `file`.
    pub fn new(records: I, file: &str, cfg: ReplayConfig) -> Self {
        LogReplay {
            records,
            file: file.to_owned(),
            cfg,
            report: Report::default(),
            first_submit: None,
            last_raw_submit: Time::MIN,
            next: None,
            last_submit: None,
            submitted: 0,
            estimator: None,
            peak: LoggedPeak::default(),
            kept: cfg.keep_records.then(KeptRecords::default),
        }
    }

    /// The records of the jobs admitted so far, by tag (the job's line), when the
    /// configuration keeps them: shared, so that a per-job writer takes each out as its
    /// job is written.
    pub fn kept_records(&self) -> Option<KeptRecords> {
        self.kept.clone()
    }

    /// Gives the jobs the estimates of `estimator` instead of the log's.
    pub fn with_estimator(mut self, estimator: Estimator) -> Self {
        self.estimator = Some(estimator);
        self
    }

    /// Reads the whole log and returns the (runtime, estimate) of every job the
    /// questionable-job policies admit, in order: what the modal estimate model is fitted
    /// to and assigned over.
    pub fn admitted_jobs(mut self) -> Result<Vec<(Time, Time)>, SimError> {
        let mut jobs = Vec::new();
        while let Some(a) = self.advance()? {
            jobs.push((a.spec.runtime, a.spec.estimate));
        }
        Ok(jobs)
    }

    /// The record source.
    pub fn records(&self) -> &I {
        &self.records
    }

    /// Questionable jobs met so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Submit time of the last job submitted, once the log is exhausted or so far.
    pub fn last_submit(&self) -> Option<Time> {
        self.last_submit
    }

    /// Jobs submitted.
    pub fn submitted(&self) -> u64 {
        self.submitted
    }

    /// The peak of the processors the log's own schedule keeps busy, over the records
    /// read so far (every record, whether a policy admits its job or not).
    pub fn logged_peak(&self) -> Peak {
        self.peak.peak()
    }

    /// An error naming the log, `line` and field `field` (0-based, as in
    /// [`FIELD_NAMES`]).
    pub fn error(&self, line: u64, field: usize, problem: String) -> SimError {
        SimError::input(SwfError::Field {
            file: self.file.clone(),
            line,
            field: field + 1,
            name: FIELD_NAMES[field],
            problem,
        })
    }

    /// Applies the policy for `kind`; returns the action, or the error it calls for.
    fn meet(
        &mut self,
        kind: Kind,
        line: u64,
        field: usize,
        what: String,
    ) -> Result<Action, SimError> {
        let action = *self.cfg.policies.get(kind);
        if action == Action::Error {
            return Err(self.error(
                line,
                field,
                format!("{what} (policy {}=error)", crate::options::name(&kind)),
            ));
        }
        self.report
            .kinds
            .get_mut(kind)
            .add(line, action == Action::Skip);
        Ok(action)
    }

    /// The job a record stands for, or `None` if a policy skips it.
    fn job_of(&mut self, line: u64, r: &SwfRecord) -> Result<Option<JobSpec>, SimError> {
        if r.run < 0
            && self.meet(
                Kind::NegativeRuntime,
                line,
                3,
                format!("runtime {} is unknown", r.run),
            )? == Action::Skip
        {
            return Ok(None);
        }
        let mut size = r.alloc_procs;
        if size <= 0 {
            let what = format!("allocated processors {size} are unknown");
            match self.meet(Kind::BadSize, line, 4, what)? {
                Action::Fallback if r.req_procs > 0 => size = r.req_procs,
                Action::Fallback => {
                    // Neither field is known: the job cannot be simulated.
                    self.report.kinds.bad_size.skipped += 1;
                    return Ok(None);
                }
                _ => return Ok(None),
            }
        }
        let procs = i64::from(self.cfg.procs);
        if size > procs {
            let what = format!("{size} processors on a machine of {procs}");
            match self.meet(Kind::Oversize, line, 4, what)? {
                Action::Clamp => size = procs,
                _ => return Ok(None),
            }
        }
        if r.run == 0
            && self.meet(Kind::ZeroRuntime, line, 3, "runtime is 0".into())? == Action::Skip
        {
            return Ok(None);
        }
        let runtime = r.run;
        let mut estimate = r.req_time;
        if estimate <= 0 {
            let what = format!("requested time {estimate} is unknown");
            match self.meet(Kind::MissingEstimate, line, 8, what)? {
                Action::Runtime => estimate = runtime.max(1),
                Action::MaxRuntime => match self.cfg.max_runtime {
                    Some(m) if m > 0 => estimate = m,
                    _ => {
                        return Err(self.error(
                            line,
                            8,
                            "requested time is unknown and the header gives no MaxRuntime \
                             (policy missing-estimate=max-runtime)"
                                .into(),
                        ));
                    }
                },
                _ => return Ok(None),
            }
        }
        if let Some(e) = &mut self.estimator {
            estimate = e.estimate(runtime, estimate);
        }
        if runtime > estimate {
            self.report.runtime_over_estimate.add(line, false);
        }
        if let Some(kept) = &self.kept {
            kept.borrow_mut().insert(line, *r);
        }
        Ok(Some(JobSpec {
            size: u32::try_from(size).expect("size is between 1 and the machine size"),
            runtime,
            estimate,
            user: r.user,
            app: r.app,
            job: r.job,
            tag: line,
            logged_wait: (r.wait >= 0).then_some(r.wait),
            opens_session: None,
        }))
    }

    /// Reads records until one gives a job; returns it with its simulated submit time.
    pub fn advance(&mut self) -> Result<Option<Admitted>, SimError> {
        while let Some(item) = self.records.next() {
            let Located { line, record } = item.map_err(SimError::input)?;
            if record.submit < 0 {
                return Err(self.error(
                    line,
                    1,
                    format!("submit time {} is unknown", record.submit),
                ));
            }
            if record.submit < self.last_raw_submit {
                return Err(self.error(
                    line,
                    1,
                    format!(
                        "submit time {} is earlier than the previous job's {}; SWF logs are \
                         sorted by submit time",
                        record.submit, self.last_raw_submit
                    ),
                ));
            }
            self.last_raw_submit = record.submit;
            self.peak.observe(&record);
            let Some(spec) = self.job_of(line, &record)? else {
                continue;
            };
            let first = *self.first_submit.get_or_insert(record.submit);
            let offset = record.submit - first;
            let submit = if self.cfg.interarrival_factor == 1.0 {
                record.submit
            } else {
                // Checked after scaling: a factor of 1e13 would put the log's second job
                // past any time sitesim can hold.
                let scaled = (offset as f64 * self.cfg.interarrival_factor).round();
                if scaled > (crate::time::LONGEST - first) as f64 {
                    return Err(self.error(
                        line,
                        1,
                        format!(
                            "submit time {} scaled by the interarrival factor {} lies more \
                             than 100 years after the first job's, past the longest time \
                             sitesim takes",
                            record.submit,
                            crate::textfmt::short_number(self.cfg.interarrival_factor)
                        ),
                    ));
                }
                first + scaled as Time
            };
            return Ok(Some(Admitted {
                line,
                submit,
                wait: record.wait,
                spec,
            }));
        }
        Ok(None)
    }
}

impl<I: Iterator<Item = Result<Located, SwfError>>> Workload for LogReplay<I> {
    fn start(&mut self, ctx: &mut SourceCtx) -> Result<(), SimError> {
        self.next = self.advance()?;
        if let Some(a) = &self.next {
            ctx.wake_at(a.submit, 0);
        }
        Ok(())
    }

    fn on_wake(&mut self, _token: u64, ctx: &mut SourceCtx) -> Result<(), SimError> {
        let now = ctx.now();
        while let Some(a) = self.next.take() {
            if a.submit > now {
                ctx.wake_at(a.submit, 0);
                self.next = Some(a);
                break;
            }
            self.last_submit = Some(a.submit);
            ctx.submit(a.spec);
            self.submitted += 1;
            self.next = self.advance()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::questionable::PolicySetting;
    use super::*;
    use crate::swf::SwfReader;

    fn replay(
        text: &str,
        procs: u32,
        settings: &[&str],
    ) -> Result<(Vec<Admitted>, Report), SimError> {
        replay_scaled(text, procs, settings, 1.0)
    }

    fn replay_scaled(
        text: &str,
        procs: u32,
        settings: &[&str],
        interarrival_factor: f64,
    ) -> Result<(Vec<Admitted>, Report), SimError> {
        let mut policies = Policies::default();
        for s in settings {
            policies.set(&s.parse::<PolicySetting>().unwrap());
        }
        let reader = SwfReader::new(text.as_bytes(), "t.swf").unwrap();
        let mut r = LogReplay::new(
            reader,
            "t.swf",
            ReplayConfig {
                procs,
                policies,
                interarrival_factor,
                max_runtime: Some(999),
                keep_records: false,
            },
        );
        let mut jobs = Vec::new();
        while let Some(j) = r.advance()? {
            jobs.push(j);
        }
        Ok((jobs, r.report))
    }

    fn line(submit: i64, run: i64, alloc: i64, req_procs: i64, req_time: i64) -> String {
        format!(
            "1 {submit} -1 {run} {alloc} -1 -1 {req_procs} {req_time} -1 1 1 1 -1 -1 -1 -1 -1\n"
        )
    }

    #[test]
    fn default_policies_count_every_questionable_job() {
        let text = [
            line(0, -1, 4, 4, 100),     // negative runtime: skipped
            line(1, 0, 4, 4, 100),      // zero runtime: kept
            line(2, 50, -1, 8, 100),    // size from requested processors
            line(3, 50, -1, -1, 100),   // size unknown: skipped
            line(4, 50, 200, 200, 100), // oversize: skipped
            line(5, 50, 4, 4, -1),      // missing estimate: runtime
            line(6, 150, 4, 4, 100),    // overran
        ]
        .concat();
        let (jobs, report) = replay(&text, 100, &[]).unwrap();
        let kept: Vec<_> = jobs
            .iter()
            .map(|a| (a.submit, a.spec.size, a.spec.runtime, a.spec.estimate))
            .collect();
        assert_eq!(
            kept,
            vec![
                (1, 4, 0, 100),
                (2, 8, 50, 100),
                (5, 4, 50, 50),
                (6, 4, 150, 100)
            ]
        );
        assert_eq!(
            (
                report.kinds.negative_runtime.jobs,
                report.kinds.negative_runtime.skipped
            ),
            (1, 1)
        );
        assert_eq!(
            (
                report.kinds.zero_runtime.jobs,
                report.kinds.zero_runtime.skipped
            ),
            (1, 0)
        );
        assert_eq!(
            (report.kinds.bad_size.jobs, report.kinds.bad_size.skipped),
            (2, 1)
        );
        assert_eq!(
            (report.kinds.oversize.jobs, report.kinds.oversize.skipped),
            (1, 1)
        );
        assert_eq!(report.kinds.missing_estimate.jobs, 1);
        assert_eq!(report.runtime_over_estimate.jobs, 1);
        assert_eq!(report.runtime_over_estimate.first_line, 7);
        assert_eq!(report.skipped(), 3);
    }

    #[test]
    fn chosen_policies_apply() {
        let text = [
            line(0, 0, 4, 4, 100),
            line(4, 50, 200, 200, 100),
            line(5, 50, 4, 4, -1),
        ]
        .concat();
        let (jobs, report) = replay(
            &text,
            100,
            &[
                "zero-runtime=skip",
                "oversize=clamp",
                "missing-estimate=max-runtime",
            ],
        )
        .unwrap();
        let kept: Vec<_> = jobs
            .iter()
            .map(|a| (a.spec.size, a.spec.estimate))
            .collect();
        assert_eq!(kept, vec![(100, 100), (4, 999)]);
        assert_eq!(report.kinds.zero_runtime.skipped, 1);
        assert_eq!(report.kinds.oversize.skipped, 0);
    }

    #[test]
    fn an_interarrival_factor_is_checked_after_scaling() {
        let text = [line(0, 10, 4, 4, 100), line(3600, 10, 4, 4, 100)].concat();
        for factor in [1e8, 1e13, 1e308] {
            let err = replay_scaled(&text, 100, &[], factor)
                .unwrap_err()
                .to_string();
            assert!(err.contains("t.swf:2: field 2 (submit time)"), "{err}");
            assert!(err.contains("past the longest time"), "{err}");
        }
        // 1e5 puts the second job 11.4 years later: taken.
        let (jobs, _) = replay_scaled(&text, 100, &[], 1e5).unwrap();
        assert_eq!(jobs[1].submit, 3600 * 100_000);
    }

    #[test]
    fn error_policy_names_file_line_and_field() {
        let text = [line(0, 10, 4, 4, 100), line(1, 10, 400, 4, 100)].concat();
        let err = replay(&text, 100, &["oversize=error"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "t.swf:2: field 5 (allocated processors): 400 processors on a machine of 100 \
             (policy oversize=error)"
        );
    }

    #[test]
    fn unsorted_log_is_an_error() {
        let text = [line(10, 10, 4, 4, 100), line(5, 10, 4, 4, 100)].concat();
        let err = replay(&text, 100, &[]).unwrap_err().to_string();
        assert!(
            err.starts_with("t.swf:2: field 2 (submit time): submit time 5 is earlier"),
            "{err}"
        );
    }
}
