//! The fluid user model (Feitelson 2021, §4.3, after Zakay & Feitelson): a user keeps the
//! session windows of the log, which carry the daily and weekly cycle, and the logged
//! think times; a job that becomes ready outside every window waits for the start of the
//! next one (the user is away), and a job that becomes ready inside a window is
//! submitted there, even if it belonged to the next session in the log (it flowed
//! forward because the simulated system was faster).
//!
//! Every default is chosen by the calibration principle (`docs/MODELS.md`,
//! "Calibration"): fed the service the log's users got, the model gives back the log;
//! fed uniformly slower service, no user gets ahead of its logged calendar; fed faster
//! service, no user gets further ahead than the response time it was saved.

use serde::{Deserialize, Serialize};

use crate::time::{HOUR, Time, WEEK};
use crate::workload::trace::{TraceUser, Window};

/// How a log's users think and come back, the open points of the fluid model (Feitelson
/// 2021, §4.3; notes §8.5): flags of every command that replays a log's users, keys of
/// `[workload.users]`, and what every agent follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args, Deserialize, Serialize)]
#[serde(default)]
pub struct ThinkRules {
    /// The think time of jobs that opened a session in the log: calendar (the session
    /// keeps its logged start: the break shortens down to the session threshold after a
    /// late result and lengthens by as much at most after an early one), keep-lead (as
    /// calendar for a late result, the logged break after an early one), capped (the
    /// logged break, at most the threshold), original (the logged break) or zero.
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub opening_think: OpeningThink,
    /// Jobs submitted while the user's previous job still ran keep their logged spacing
    /// from the previous submission (spacing) or are submitted with it (together).
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub negative_think: NegativeThink,
    /// A job may flow forward into any earlier window its ready time falls in (any), or
    /// only into the session before its own (next).
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub flow_forward: FlowForward,
    /// A user's calendar moves with the time it gains by going on where the log broke
    /// off, or loses by breaking off where the log went on (moves), or stays the log's,
    /// the next break making it up (fixed).
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub calendar_shift: CalendarShift,
    /// Where a user whose next job is ready outside its session windows comes back: at
    /// its next usual hour of the week (from the log) or its next window if sooner
    /// (usual-hour), or at its next window (next-window, the seed's text taken
    /// literally).
    #[arg(long, value_enum, default_value_t, value_name = "RULE")]
    pub away: Return,
}

/// The think time given to a job that opened a session in the log, whose logged think
/// time is a break rather than a pause (notes §8.5, open point). It applies to every
/// think time of the session threshold or more.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum OpeningThink {
    /// The session keeps its logged start, the break taking up the difference both ways
    /// (the default; Feitelson 2021, §4.3: "we keep each session's start and end
    /// timestamps"). A user behind its calendar shortens its break, down to the session
    /// threshold; a user ahead lengthens it by as much at most (the break's room beyond
    /// the threshold): a lag or a lead of `d` comes out of a break of `b` as
    /// `max(0, d - (b - threshold))`, the same rule in both directions, so that a service
    /// statistically the log's own moves no user on average, and a uniformly faster
    /// service gains what a slower one loses (docs/MODELS.md, "Calibration"). The break
    /// still splits the sessions when they are analysed again.
    #[default]
    Calendar,
    /// The calendar for late users only: a user on time or ahead takes its logged break
    /// after its result, so it keeps its whole lead, while a late one shortens its break
    /// as under [`OpeningThink::Calendar`]. Users gain from noise: a lead is kept, a lag
    /// made up.
    KeepLead,
    /// The logged break. A user delayed by `d` stays delayed by at least `d` for good:
    /// every later session starts a full break after the late results, so the windows
    /// never pull it back, and delays pile up.
    Original,
    /// The logged break, capped at the session threshold: a late user starts its next
    /// session as soon as its window allows, and an early one lets the next session
    /// flow into the current window a threshold after its results, so its lead can
    /// exceed what it was saved (by the break minus the threshold).
    Capped,
    /// No think time: the opener is ready as soon as its dependencies end.
    Zero,
}

impl OpeningThink {
    /// When a job is ready after a result that came at `end`, its logged think time
    /// after that result being `think`, its logged submission `logged`, and the session
    /// threshold `threshold`. A think time under the threshold is kept as it is.
    pub fn ready_after(self, end: Time, think: Time, logged: Time, threshold: Time) -> Time {
        if think < threshold {
            return end + think.max(0);
        }
        let own = end + think;
        match self {
            // Late: the break shrinks to the threshold at most; early: it grows by as
            // much at most (to `2 think - threshold`).
            OpeningThink::Calendar if own > logged => logged.max(end + threshold),
            OpeningThink::Calendar => logged.min(own + think - threshold),
            OpeningThink::KeepLead => own.min(logged.max(end + threshold)),
            OpeningThink::Original => own,
            OpeningThink::Capped => end + threshold,
            OpeningThink::Zero => end,
        }
    }
}

/// How far a job may flow forward into an earlier session than its own (Feitelson 2021, §4.3,
/// open point).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum FlowForward {
    /// Into any earlier window its ready time falls in (the default): the seed's "allow
    /// jobs to flow from one session to another according to the feedback", with no
    /// bound but the user's own pace, as a job delayed by slower service has no bound on
    /// how many sessions later it comes. A user far ahead still submits only in its
    /// windows and usual hours.
    #[default]
    Any,
    /// Into the session just before its own, at the earliest: the seed's "jobs that were
    /// submitted originally in the next session may flow forward to occur in the current
    /// one" read as a bound. It caps every lead at one session while lags have no cap,
    /// so a faster service than the log's gains less than a slower one loses.
    Next,
}

/// Whether a user's calendar moves with the time its reactions to service gain or lose
/// (docs/MODELS.md, "The fluid model and its open points").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum CalendarShift {
    /// It moves (the default): a user that went on with its next job where the log broke
    /// off keeps the time it gained, one that broke off where the log went on keeps the
    /// time it lost; its later sessions start that much earlier or later than logged.
    #[default]
    Moves,
    /// It stays the log's: the next break makes up what a reaction gained or lost (the
    /// calendar rule lengthens or shortens it), so that reactions move a user for a
    /// session at most and a better service than the log's adds little work.
    Fixed,
}

/// What a job submitted while the user's previous job still ran (a negative think time)
/// keeps of the log (notes §8.5, open point).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum NegativeThink {
    /// Its logged distance from the previous submission (the default): a burst keeps its
    /// spacing, and a machine that ran every job as the log did reproduces the log.
    #[default]
    Spacing,
    /// None: it is submitted with the previous job (the notes' "clamp at 0").
    Together,
}

/// Where a user whose next job is ready outside its session windows comes back: the
/// rule by which time lost between windows is lost (notes §8.5, open point).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Return {
    /// At its next **usual hour**, an hour of the week in which it worked in the log
    /// (from a session's first to its last submission), or at its next window if that
    /// comes first (the default): users sleep at night and keep their habits, so a
    /// result a few hours late costs the hours until the user is usually back, not the
    /// weeks until its next logged session. A job ready early, between windows, comes
    /// at a usual hour too, so time is gained as it is lost.
    #[default]
    UsualHour,
    /// At the start of its next window (Feitelson 2021, §4.3, taken literally: "the next
    /// job will be delayed even more and arrive only at the beginning of the next
    /// session"). For a user whose sessions are weeks apart a result an hour late costs
    /// weeks, while an early one gains at most the time to the window before.
    NextWindow,
}

/// Where a ready job was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Its ready time falls in a window: submitted then.
    Inside,
    /// Its ready time falls between windows: submitted at the next window's start.
    NextWindow,
    /// Its ready time falls between windows: submitted at the user's next usual hour,
    /// before the next window ([`Return::UsualHour`]).
    UsualHour,
    /// Its ready time is past the user's last window: submitted then (the user's log has
    /// no later activity to wait for).
    AfterLast,
}

/// Hours of the week in the week: the bits of [`UsualHours`].
const HOURS: i64 = WEEK / HOUR;

/// The hours of the week (counted from time 0, so that times a whole number of weeks
/// apart share their hour) in which a user worked in the log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsualHours([u64; 3]);

impl UsualHours {
    fn hour(t: Time) -> usize {
        t.div_euclid(HOUR).rem_euclid(HOURS) as usize
    }

    /// Marks every hour that `[from, to]` touches.
    fn mark(&mut self, from: Time, to: Time) {
        let hours = (to.div_euclid(HOUR) - from.div_euclid(HOUR)).min(HOURS - 1);
        for k in 0..=hours {
            let h = Self::hour(from + k * HOUR);
            self.0[h / 64] |= 1 << (h % 64);
        }
    }

    fn contains(&self, h: usize) -> bool {
        self.0[h / 64] & (1 << (h % 64)) != 0
    }

    /// The start of the first block of usual hours (a usual hour after one that is not)
    /// at or after `t`: when a user who left its terminal comes back to work; the first
    /// usual hour at or after `t` when every hour of the week is usual.
    pub fn next_block(&self, t: Time) -> Option<Time> {
        let first = t.div_euclid(HOUR) + i64::from(t.rem_euclid(HOUR) != 0);
        (0..HOURS)
            .map(|k| first + k)
            .find(|&h| {
                let at = |h: i64| self.contains(Self::hour(h * HOUR));
                at(h) && !at(h - 1)
            })
            .map(|h| h * HOUR)
            .or_else(|| self.next(t))
    }

    /// The first time at or after `t` in a usual hour (`t` itself if it is in one).
    pub fn next(&self, t: Time) -> Option<Time> {
        let h = Self::hour(t);
        if self.contains(h) {
            return Some(t);
        }
        (1..HOURS)
            .find(|k| self.contains((h + *k as usize) % HOURS as usize))
            .map(|k| (t.div_euclid(HOUR) + k) * HOUR)
    }
}

/// A user's windows, merged where they overlap, in time order, and its usual hours.
#[derive(Debug, Clone)]
pub struct Windows {
    spans: Vec<Window>,
    hours: UsualHours,
}

impl Windows {
    /// The windows of `user`'s sessions merged, and the hours of the week its sessions
    /// spanned from their first to their last submission.
    pub fn new(user: &TraceUser) -> Self {
        let mut spans: Vec<Window> = Vec::with_capacity(user.windows.len());
        for w in &user.windows {
            match spans.last_mut() {
                Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
                _ => spans.push(*w),
            }
        }
        // Each session from its first to its last submission (jobs come in log order).
        let mut last_submit: Vec<Time> = user.windows.iter().map(|w| w.start).collect();
        for j in &user.jobs {
            let s = &mut last_submit[j.session as usize];
            *s = (*s).max(j.submit);
        }
        let mut hours = UsualHours::default();
        for (w, &last) in user.windows.iter().zip(&last_submit) {
            hours.mark(w.start, last);
        }
        Windows { spans, hours }
    }

    /// When a job ready at `t` is submitted, a user away coming back by `rule`. `cursor`
    /// remembers the first window that can still matter (ready times of one user never
    /// decrease).
    pub fn place(&self, t: Time, rule: Return, cursor: &mut usize) -> (Time, Placement) {
        while *cursor < self.spans.len() && self.spans[*cursor].end < t {
            *cursor += 1;
        }
        match self.spans.get(*cursor) {
            None => (t, Placement::AfterLast),
            Some(w) if w.start <= t => (t, Placement::Inside),
            Some(w) => match (rule, self.hours.next(t)) {
                (Return::UsualHour, Some(h)) if h < w.start => (h, Placement::UsualHour),
                _ => (w.start, Placement::NextWindow),
            },
        }
    }

    /// When a user that breaks off its session at `t` comes back, by `rule`: at its next
    /// window after `t`, or at the start of its next block of usual hours a `threshold`
    /// later if that comes first (it comes back to work as it does after a night);
    /// `None` if neither comes.
    pub fn after_break(&self, t: Time, threshold: Time, rule: Return) -> Option<Time> {
        let i = self.spans.partition_point(|w| w.start <= t);
        let window = self.spans.get(i).map(|w| w.start);
        let usual = match rule {
            Return::UsualHour => self.hours.next_block(t + threshold),
            Return::NextWindow => None,
        };
        match (window, usual) {
            (Some(w), Some(u)) => Some(w.min(u)),
            (w, u) => w.or(u),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(start: Time, end: Time) -> Window {
        Window { start, end }
    }

    /// Windows `w` with no usual hour.
    fn windows(w: &[Window]) -> Windows {
        let mut ws = Windows {
            spans: Vec::new(),
            hours: UsualHours::default(),
        };
        for w in w {
            match ws.spans.last_mut() {
                Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
                _ => ws.spans.push(*w),
            }
        }
        ws
    }

    #[test]
    fn placement_in_between_and_after_windows() {
        let ws = windows(&[w(100, 200), w(150, 300), w(1000, 1100)]);
        let mut c = 0;
        let rule = Return::NextWindow;
        assert_eq!(ws.place(50, rule, &mut c), (100, Placement::NextWindow));
        assert_eq!(ws.place(250, rule, &mut c), (250, Placement::Inside));
        assert_eq!(ws.place(300, rule, &mut c), (300, Placement::Inside));
        assert_eq!(ws.place(301, rule, &mut c), (1000, Placement::NextWindow));
        assert_eq!(ws.place(1100, rule, &mut c), (1100, Placement::Inside));
        assert_eq!(ws.place(5000, rule, &mut c), (5000, Placement::AfterLast));
        assert_eq!(ws.after_break(100, 1200, rule), Some(1000));
        assert_eq!(ws.after_break(1000, 1200, rule), None);
    }

    #[test]
    fn a_user_away_comes_back_at_its_next_usual_hour_or_window() {
        // Windows on day 0 at 10:00-10:30 and a week later; usual hours Monday 10:00
        // and Tuesday 09:00 (time 0 is taken as Monday 00:00 here).
        let day = 24 * HOUR;
        let mut ws = windows(&[
            w(10 * HOUR, 10 * HOUR + 1800),
            w(WEEK + 10 * HOUR, WEEK + 11 * HOUR),
        ]);
        ws.hours.mark(10 * HOUR, 10 * HOUR + 1800);
        ws.hours.mark(day + 9 * HOUR, day + 9 * HOUR);
        let mut c = 0;
        // Ready at 13:00 on Monday, after the window: back on Tuesday at 09:00 rather
        // than a week later; by the literal rule, a week later.
        let late = 13 * HOUR;
        assert_eq!(
            ws.place(late, Return::UsualHour, &mut c),
            (day + 9 * HOUR, Placement::UsualHour)
        );
        assert_eq!(
            ws.place(late, Return::NextWindow, &mut 0),
            (WEEK + 10 * HOUR, Placement::NextWindow)
        );
        // Ready inside a usual hour between windows: submitted at once.
        assert_eq!(
            ws.place(day + 9 * HOUR + 600, Return::UsualHour, &mut 0),
            (day + 9 * HOUR + 600, Placement::UsualHour)
        );
        // Ready on Sunday: the next window (Monday 10:00) comes before Tuesday 09:00.
        assert_eq!(
            ws.place(6 * day + 20 * HOUR, Return::UsualHour, &mut 0),
            (WEEK + 10 * HOUR, Placement::NextWindow)
        );
        // Breaking off at 09:30 on Tuesday, it comes back to work at the start of its
        // next block of usual hours, next Monday's 10:00, which is its next window too.
        assert_eq!(
            ws.after_break(day + 9 * HOUR + 1800, 1200, Return::UsualHour),
            Some(WEEK + 10 * HOUR)
        );
        // Breaking off at 10:05 on Monday, it is back on Tuesday at 09:00.
        assert_eq!(
            ws.after_break(10 * HOUR + 300, 1200, Return::UsualHour),
            Some(day + 9 * HOUR)
        );
        // Blocks start where a usual hour follows one that is not; every hour usual: the
        // next hour.
        assert_eq!(ws.hours.next_block(10 * HOUR), Some(10 * HOUR));
        assert_eq!(ws.hours.next_block(10 * HOUR + 1), Some(day + 9 * HOUR));
        let mut always = UsualHours::default();
        always.mark(0, WEEK);
        assert_eq!(always.next_block(5), Some(5));
        // The hour of a time before 0 is its place in the week all the same.
        assert_eq!(
            ws.hours.next(-WEEK + 10 * HOUR + 5),
            Some(-WEEK + 10 * HOUR + 5)
        );
        assert_eq!(UsualHours::default().next(0), None);
    }

    #[test]
    fn opening_think_options() {
        // A break of 5000 s after a result at 1000, logged submission at 6000.
        let at = |o: OpeningThink, end| o.ready_after(end, 5000, 6000, 1200);
        assert_eq!(at(OpeningThink::Original, 1000), 6000);
        assert_eq!(at(OpeningThink::Capped, 1000), 2200);
        assert_eq!(at(OpeningThink::Zero, 1000), 1000);
        assert_eq!(at(OpeningThink::Calendar, 1000), 6000);
        assert_eq!(at(OpeningThink::KeepLead, 1000), 6000);
        // The break's room beyond the threshold is 3800 s. The result came 3000 s early:
        // the calendar rule lengthens the break to keep the logged start, the keep-lead
        // rule keeps the whole break (and the lead), the capped one starts 20 minutes
        // after the result.
        assert_eq!(at(OpeningThink::Calendar, -2000), 6000);
        assert_eq!(at(OpeningThink::KeepLead, -2000), 3000);
        assert_eq!(at(OpeningThink::Capped, -2000), -800);
        // 6000 s early or late: 2200 s of it are left past a break at most 3800 s longer
        // or shorter, either way.
        assert_eq!(at(OpeningThink::Calendar, -5000), 6000 - 2200);
        assert_eq!(at(OpeningThink::Calendar, 7000), 6000 + 2200);
        assert_eq!(at(OpeningThink::KeepLead, 7000), 6000 + 2200);
        // The result came 4500 s late, past the logged start: the session starts a
        // threshold after it, not a whole break after it.
        assert_eq!(at(OpeningThink::Calendar, 5500), 6700);
        assert_eq!(at(OpeningThink::Original, 5500), 10500);
        // 3000 s late, still before it: the session keeps its logged start.
        assert_eq!(at(OpeningThink::Calendar, 4000), 6000);
        // A pause under the threshold is kept by every rule.
        for o in [
            OpeningThink::Calendar,
            OpeningThink::KeepLead,
            OpeningThink::Capped,
            OpeningThink::Zero,
        ] {
            assert_eq!(o.ready_after(100, 600, 700, 1200), 700);
        }
    }
}
