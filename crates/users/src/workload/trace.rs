//! A log turned into users: each user's own job stream, in log order, with the think
//! times, sessions, session windows and dependencies that closed-loop replay needs
//! (Feitelson 2021, §4.3; notes §8.3-8.5; `docs/MODELS.md`, "Users from a log").
//!
//! For job `j` of a user:
//! - its **think time** is its submit time minus the end of the user's previous job
//!   ([`crate::session`]), negative when that job was still running;
//! - it opens a **session** when the think time reaches the threshold; a session's
//!   **window** runs from its first submission to the last end of its jobs that came
//!   before the user's next session (or, as an option, to its last submission);
//! - its **termination dependencies** are every earlier job of the user that had ended
//!   before its submission (or, as an option, before its start): the seed's "potential
//!   dependence"
//!   (every job depends on the jobs that terminated before it), of which "the last
//!   terminated job in each previous session" is the seed's shortcut; the **order
//!   constraint** makes it wait for the previous job's submission;
//! - its **dependency think time** is its submission minus the latest end among its
//!   termination dependencies: how long the user took after the last result it had.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::LogReplay;
use super::peak::{LoggedPeak, Peak};
use super::questionable::Report;
use crate::job::JobSpec;
use crate::session::{SessionRule, opens_session, think_time};
use crate::sim::SimError;
use crate::swf::{Located, SwfError};
use crate::time::Time;

/// Which earlier jobs' results a job waits for: its termination dependencies (Feitelson
/// 2021, §4.3, "potential dependence"; notes §8.4). Whichever they are, a job is also
/// submitted after the user's previous one (the order constraint) and keeps its logged
/// think time after the result it is measured from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Dependence {
    /// The result its think time is measured from, if the log's user submitted it after
    /// that result (the default): the fluid model's "think times between successive
    /// jobs". Each job waits for one result, so a service statistically the same as the
    /// log's delays it as often as it hastens it; waiting for the latest of many results
    /// delays it more often than not (`docs/MODELS.md`, "Users from a log").
    #[default]
    Think,
    /// The last job to end, before its submission, in each earlier session: the seed's
    /// shortcut ("it is enough to enforce dependencies on the last terminated job in each
    /// previous session"), and within its session the result its think time is measured
    /// from.
    Sessions,
    /// Every earlier job that had ended before its submission (a submission cannot react
    /// to a termination that came after it; one at the same second is taken as
    /// simultaneous, not as a cause).
    Submit,
    /// Every earlier job that had ended before its start, the seed's literal wording
    /// ("terminated before it started to run"); only earlier-submitted jobs count, or the
    /// order constraint would deadlock.
    Start,
}

impl Dependence {
    /// Every rule.
    pub const ALL: [Dependence; 4] = [
        Dependence::Think,
        Dependence::Sessions,
        Dependence::Submit,
        Dependence::Start,
    ];
}

/// Where a session window ends.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum WindowEnd {
    /// At the session's last submission: the user leaves as it submits its last job. A
    /// session of one job has a window of one second, so the slightest delay sends the
    /// job to the user's next session.
    LastSubmit,
    /// At the last end among the session's jobs that came before the user's next
    /// session opened (the default): the user stays while its results come in, as it
    /// did in the log, and has left by its next session. Windows never overlap, and a
    /// machine that ran every job as the log did reproduces the log.
    #[default]
    LastEnd,
}

/// What a trace takes for a job whose logged wait is unknown (SWF field 3 is -1). The
/// logged wait sets the job's logged start and end, from which think times, windows and
/// dependencies are measured, and it is the service the `logged` policy gives.
#[derive(Debug, Clone, Copy)]
pub enum MissingWaits<'a> {
    /// None: an unknown wait is an error naming the first such line.
    Refuse,
    /// 0, as the user chose (the simulated machine can then only be slower than "the
    /// log", and feedback can only deflate its throughput).
    Zero,
    /// The wait each job had in an open-loop replay of the log, by log line.
    Estimated(&'a FxHashMap<u64, Time>),
}

/// How a log is split into users, sessions and dependencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TraceConfig {
    /// Session threshold on think time, seconds.
    pub threshold: Time,
    /// Which earlier job think times are measured from.
    pub rule: SessionRule,
    /// Which earlier jobs' results a job waits for.
    pub dependence: Dependence,
    /// Where session windows end.
    pub window_end: WindowEnd,
}

impl TraceConfig {
    /// The default split with session threshold `threshold`; refuses one under a second
    /// (every think time would start a session).
    pub fn with_threshold(threshold: Time) -> Result<TraceConfig, String> {
        if threshold < 1 {
            return Err("the session threshold must be at least 1 second".into());
        }
        Ok(TraceConfig {
            threshold,
            ..TraceConfig::default()
        })
    }
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            threshold: crate::session::DEFAULT_THRESHOLD,
            rule: SessionRule::Previous,
            dependence: Dependence::Think,
            window_end: WindowEnd::LastEnd,
        }
    }
}

/// One job of a user's stream, with its logged times.
#[derive(Debug, Clone)]
pub struct TraceJob {
    /// Its line in the log.
    pub line: u64,
    /// Logged submit time.
    pub submit: Time,
    /// Logged start time (submit plus the logged wait; the submit time when the wait is
    /// unknown).
    pub start: Time,
    /// Logged end time.
    pub end: Time,
    /// Think time (`None` for the user's first job).
    pub think: Option<Time>,
    /// The job the think time is measured from (the previous job, or under the `latest`
    /// rule the latest-ending earlier one).
    pub think_from: Option<u32>,
    /// Index of its session in the user's stream.
    pub session: u32,
    /// Whether it opened its session.
    pub opens_session: bool,
    /// Its termination dependencies under [`Dependence::Submit`] and
    /// [`Dependence::Start`]: the first `deps` jobs of the user's end order
    /// ([`TraceUser::by_end`]) that were submitted before it; 0 under the other rules.
    pub deps: u32,
    /// Its termination dependencies under [`Dependence::Think`] and
    /// [`Dependence::Sessions`]: `[from, to)` in [`TraceUser::dep_jobs`].
    pub dep_jobs: (u32, u32),
    /// Its submission minus the latest end among its termination dependencies (the
    /// **dependency think time**); `None` when it has none.
    pub dep_think: Option<Time>,
    /// The job as it will be submitted.
    pub spec: JobSpec,
}

impl TraceJob {
    /// Logged response time (wait plus runtime).
    pub fn response(&self) -> Time {
        self.end - self.submit
    }
}

/// A session window: `[start, end]` in logged time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Window {
    /// First submission of the session.
    pub start: Time,
    /// Its last submission, or the last end of its jobs.
    pub end: Time,
}

/// One user's stream.
#[derive(Debug, Clone)]
pub struct TraceUser {
    /// The user's number in the log.
    pub user: i64,
    /// Its jobs in log order.
    pub jobs: Vec<TraceJob>,
    /// Job indices ordered by logged end (ties by index).
    pub by_end: Vec<u32>,
    /// `rank[j]`: the position of job `j` in `by_end`.
    pub rank: Vec<u32>,
    /// One window per session.
    pub windows: Vec<Window>,
    /// The termination dependencies of its jobs, by [`TraceJob::dep_jobs`].
    pub dep_jobs: Vec<u32>,
}

impl TraceUser {
    /// The jobs whose results `job` waits for, besides its first [`TraceJob::deps`] in
    /// end order.
    pub fn dep_jobs(&self, job: &TraceJob) -> &[u32] {
        &self.dep_jobs[job.dep_jobs.0 as usize..job.dep_jobs.1 as usize]
    }
}

/// A log split into users.
#[derive(Debug, Clone)]
pub struct Trace {
    /// The users, by user number.
    pub users: Vec<TraceUser>,
    /// How it was split.
    pub config: TraceConfig,
    /// Questionable jobs met while reading the log.
    pub report: Report,
    /// Jobs whose logged wait was unknown (given a wait by [`MissingWaits`]).
    pub unknown_wait: u64,
    /// First and last logged submit times.
    pub span: (Time, Time),
    /// The processors the log's own schedule keeps busy (with waits the log does not
    /// give, the schedule of the waits the trace assumes).
    pub logged_peak: Peak,
}

impl Trace {
    /// Reads every job `replay` admits and splits them into users; a job whose logged
    /// wait is unknown gets one as `missing` says.
    pub fn read<I>(
        replay: &mut LogReplay<I>,
        config: TraceConfig,
        missing: MissingWaits<'_>,
    ) -> Result<Trace, SimError>
    where
        I: Iterator<Item = Result<Located, SwfError>>,
    {
        let mut by_user: BTreeMap<i64, Vec<TraceJob>> = BTreeMap::new();
        let mut unknown_wait = 0;
        let mut first_unknown = None;
        let mut jobs = 0u64;
        let mut span: Option<(Time, Time)> = None;
        // The schedule the trace assumes, if some of its waits may not be the log's.
        let assuming = !matches!(missing, MissingWaits::Refuse);
        let mut assumed = LoggedPeak::default();
        while let Some(mut a) = replay.advance()? {
            jobs += 1;
            let size = i64::from(a.spec.size);
            let wait = if a.wait >= 0 {
                if assuming {
                    assumed.observe_run(a.submit, a.wait, a.spec.runtime, size);
                }
                a.wait
            } else {
                unknown_wait += 1;
                first_unknown.get_or_insert(a.line);
                let wait = match missing {
                    MissingWaits::Refuse => 0,
                    MissingWaits::Zero => 0,
                    MissingWaits::Estimated(waits) => *waits.get(&a.line).ok_or_else(|| {
                        replay.error(
                            a.line,
                            2,
                            "wait is unknown and the replay that estimates waits has none \
                             for this job"
                                .into(),
                        )
                    })?,
                };
                a.spec.logged_wait = Some(wait);
                assumed.observe_assumed(a.submit, wait, a.spec.runtime, size);
                wait
            };
            let start = a.submit + wait;
            span = Some(span.map_or((a.submit, a.submit), |(f, _)| (f, a.submit)));
            by_user.entry(a.spec.user).or_default().push(TraceJob {
                line: a.line,
                submit: a.submit,
                start,
                end: start + a.spec.runtime,
                think: None,
                think_from: None,
                session: 0,
                opens_session: true,
                deps: 0,
                dep_jobs: (0, 0),
                dep_think: None,
                spec: a.spec,
            });
        }
        if let (MissingWaits::Refuse, Some(line)) = (missing, first_unknown) {
            return Err(replay.error(
                line,
                2,
                format!(
                    "wait is unknown (-1), as for {unknown_wait} of the {jobs} jobs: the log's own \
                     service is unknown, so a closed loop cannot be calibrated on it; estimate \
                     the waits by an open-loop replay (--unknown-waits replay:POLICY, scenario \
                     key unknown_waits) or take them as 0 (--unknown-waits zero: the simulated \
                     machine can then only be slower than the log)"
                ),
            ));
        }
        let users = by_user
            .into_iter()
            .map(|(user, jobs)| TraceUser::analyse(user, jobs, &config))
            .collect();
        Ok(Trace {
            users,
            config,
            report: *replay.report(),
            unknown_wait,
            span: span.unwrap_or((0, 0)),
            // With waits estimated or taken as 0, the schedule the trace's users were
            // served by is the assumed one.
            logged_peak: if unknown_wait > 0 {
                assumed.peak()
            } else {
                replay.logged_peak()
            },
        })
    }

    /// Jobs in all.
    pub fn jobs(&self) -> usize {
        self.users.iter().map(|u| u.jobs.len()).sum()
    }

    /// Sessions in all.
    pub fn sessions(&self) -> usize {
        self.users.iter().map(|u| u.windows.len()).sum()
    }
}

impl TraceUser {
    /// Think times, sessions, windows and dependencies of one user's `jobs` (in log
    /// order).
    pub fn analyse(user: i64, mut jobs: Vec<TraceJob>, config: &TraceConfig) -> TraceUser {
        let mut ends: Vec<(Time, u32)> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| (j.end, i as u32))
            .collect();
        ends.sort_unstable();
        let by_end: Vec<u32> = ends.iter().map(|&(_, i)| i).collect();
        let mut rank = vec![0; jobs.len()];
        for (r, &i) in by_end.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let mut windows: Vec<Window> = Vec::new();
        let mut latest_end: Option<(Time, u32)> = None;
        let mut dep_jobs: Vec<u32> = Vec::new();
        // Under `Sessions`: jobs ended before the current submission, taken in end order,
        // and each session's last one of them.
        let mut ended = 0;
        let mut last_of_session: Vec<Option<u32>> = Vec::new();
        for j in 0..jobs.len() {
            let previous = j.checked_sub(1).map(|p| (jobs[p].end, p as u32));
            let job = &jobs[j];
            let think = think_time(
                config.rule,
                job.submit,
                previous.map(|p| p.0),
                latest_end.map(|l| l.0),
            );
            let think_from = match config.rule {
                SessionRule::Previous => previous.map(|p| p.1),
                SessionRule::Latest => latest_end.map(|l| l.1),
            };
            let opens = opens_session(think, config.threshold);
            if opens {
                windows.push(Window {
                    start: job.submit,
                    end: job.submit,
                });
                last_of_session.push(None);
            } else {
                let w = windows
                    .last_mut()
                    .expect("a user's first job opens a session");
                w.end = job.submit;
            }
            let session = windows.len() as u32 - 1;
            let first = dep_jobs.len() as u32;
            // The result its think time is measured from, if it was there to answer.
            let answers = match (think, think_from) {
                (Some(t), Some(from)) if t > 0 => Some(from),
                _ => None,
            };
            let deps = match config.dependence {
                Dependence::Think => {
                    dep_jobs.extend(answers);
                    0
                }
                Dependence::Sessions => {
                    while ended < ends.len() && ends[ended].0 < job.submit {
                        let i = ends[ended].1;
                        last_of_session[jobs[i as usize].session as usize] = Some(i);
                        ended += 1;
                    }
                    // Within its session, the job before it (the session is a sequence).
                    let earlier = &last_of_session[..session as usize];
                    dep_jobs.extend(earlier.iter().flatten());
                    dep_jobs.extend(answers.filter(|a| !earlier.contains(&Some(*a))));
                    0
                }
                Dependence::Submit => ends.partition_point(|&(end, _)| end < job.submit),
                Dependence::Start => ends.partition_point(|&(end, _)| end < job.start),
            };
            // The latest end among its dependencies: in the prefix, among the earlier
            // jobs (later jobs in it are rare: a later job that ended before this one's
            // cut-off); in its list, any.
            let latest_dep = (by_end[..deps].iter().rev().find(|&&i| (i as usize) < j))
                .into_iter()
                .chain(&dep_jobs[first as usize..])
                .map(|&i| jobs[i as usize].end)
                .max();
            let dep_think = latest_dep.map(|end| job.submit - end);
            let end = job.end;
            let job = &mut jobs[j];
            job.think = think;
            job.think_from = think_from;
            job.opens_session = opens;
            job.session = session;
            job.deps = deps as u32;
            job.dep_jobs = (first, dep_jobs.len() as u32);
            job.dep_think = dep_think;
            latest_end = Some(latest_end.map_or((end, j as u32), |l| l.max((end, j as u32))));
        }
        if config.window_end == WindowEnd::LastEnd {
            // A window stays open for the results that came before the user's next
            // session opened.
            for j in &jobs {
                let k = j.session as usize;
                let next_start = windows.get(k + 1).map_or(Time::MAX, |w| w.start);
                if j.end < next_start {
                    windows[k].end = windows[k].end.max(j.end);
                }
            }
        }
        TraceUser {
            user,
            jobs,
            by_end,
            rank,
            windows,
            dep_jobs,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::workload::questionable::Policies;
    use crate::workload::{LogReplay, ReplayConfig};

    /// A trace from SWF lines `(user, submit, wait, runtime)`.
    pub(crate) fn trace_of(jobs: &[(i64, Time, Time, Time)], config: TraceConfig) -> Trace {
        let text: String = jobs
            .iter()
            .enumerate()
            .map(|(i, &(user, submit, wait, run))| {
                format!(
                    "{} {submit} {wait} {run} 1 -1 -1 1 {} -1 1 {user} 1 -1 -1 -1 -1 -1\n",
                    i + 1,
                    run.max(1) * 10
                )
            })
            .collect();
        let reader = crate::swf::SwfReader::new(text.as_bytes(), "t.swf").unwrap();
        let mut replay = LogReplay::new(
            reader,
            "t.swf",
            ReplayConfig {
                procs: 8,
                policies: Policies::default(),
                interarrival_factor: 1.0,
                max_runtime: None,
                keep_records: false,
            },
        );
        Trace::read(&mut replay, config, MissingWaits::Refuse).unwrap()
    }

    #[test]
    fn sessions_windows_and_dependencies() {
        // User 1: job 0 [0, 100]; job 1 at 50 (job 0 running: negative think time);
        // job 1 ends at 250; job 2 at 300 (think 50, depends on both); job 3 at 5000
        // (think 4600: a new session).
        let t = trace_of(
            &[
                (1, 0, 0, 100),
                (1, 50, 100, 100),
                (1, 300, 0, 10),
                (1, 5000, 0, 10),
            ],
            TraceConfig {
                window_end: WindowEnd::LastSubmit,
                ..TraceConfig::default()
            },
        );
        let u = &t.users[0];
        let thinks: Vec<_> = u.jobs.iter().map(|j| j.think).collect();
        assert_eq!(thinks, [None, Some(-50), Some(50), Some(4690)]);
        let sessions: Vec<_> = u.jobs.iter().map(|j| j.session).collect();
        assert_eq!(sessions, [0, 0, 0, 1]);
        assert_eq!(
            u.windows,
            [
                Window { start: 0, end: 300 },
                Window {
                    start: 5000,
                    end: 5000
                }
            ]
        );
        // Each rule's dependencies: (prefix in end order, listed jobs, dependency think
        // time) of every job.
        let deps = |dependence| {
            let t = trace_of(
                &[
                    (1, 0, 0, 100),
                    (1, 50, 100, 100),
                    (1, 300, 0, 10),
                    (1, 5000, 0, 10),
                ],
                TraceConfig {
                    dependence,
                    ..TraceConfig::default()
                },
            );
            let u = &t.users[0];
            (u.jobs.iter())
                .map(|j| (j.deps, u.dep_jobs(j).to_vec(), j.dep_think))
                .collect::<Vec<_>>()
        };
        // By think time: job 2 answers job 1's result, job 3 job 2's.
        assert_eq!(
            deps(Dependence::Think),
            [
                (0, vec![], None),
                (0, vec![], None),
                (0, vec![1], Some(50)),
                (0, vec![2], Some(4690))
            ]
        );
        // By sessions: only job 3 has an earlier session, whose last end was job 2's;
        // within the session job 2 answers job 1, as by think time.
        assert_eq!(
            deps(Dependence::Sessions),
            [
                (0, vec![], None),
                (0, vec![], None),
                (0, vec![1], Some(50)),
                (0, vec![2], Some(4690))
            ]
        );
        // By submission: every job that had ended.
        assert_eq!(
            deps(Dependence::Submit),
            [
                (0, vec![], None),
                (0, vec![], None),
                (2, vec![], Some(50)),
                (3, vec![], Some(4690))
            ]
        );
        // By start: job 1 started at 150, after job 0 ended.
        let t = trace_of(
            &[(1, 0, 0, 100), (1, 50, 100, 100)],
            TraceConfig {
                dependence: Dependence::Start,
                ..TraceConfig::default()
            },
        );
        let j = &t.users[0].jobs[1];
        assert_eq!((j.deps, j.dep_think), (1, Some(-50)));
    }

    #[test]
    fn last_end_windows_cover_the_results_before_the_next_session() {
        // Jobs 1-3 form one session, open until job 2 ends at 10050. Job 4 opens a
        // session at 20000 and runs past 80000, where job 6 opens the next one (job 5
        // ended long before): the second window closes with job 5's end.
        let t = trace_of(
            &[
                (1, 0, 0, 100),
                (1, 50, 0, 10_000),
                (1, 200, 0, 10),
                (1, 20_000, 0, 70_000),
                (1, 20_005, 0, 10),
                (1, 80_000, 0, 10),
            ],
            TraceConfig::default(),
        );
        assert_eq!(
            t.users[0].windows,
            [
                Window {
                    start: 0,
                    end: 10_050
                },
                Window {
                    start: 20_000,
                    end: 20_015
                },
                Window {
                    start: 80_000,
                    end: 80_010
                }
            ]
        );
    }
}
