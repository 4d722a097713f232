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

use serde::Serialize;

use crate::time::Time;
use crate::workload::trace::Window;

/// The think time given to a job that opened a session in the log, whose logged think
/// time is a break rather than a pause (notes §8.5, open point). It applies to every
/// think time of the session threshold or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpeningThink {
    /// The session keeps its logged start (the default; Feitelson 2021, §4.3: "we keep each
    /// session's start and end timestamps"). A user on time or ahead takes its logged
    /// break after its result, so its lead never exceeds the response time it was
    /// saved; a user behind its logged session start starts the session then, or a
    /// threshold after the late result, so delays do not pile up from session to
    /// session, and the break still splits the sessions when they are analysed again.
    #[default]
    Calendar,
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
    /// The option's name.
    pub fn name(self) -> &'static str {
        match self {
            OpeningThink::Calendar => "calendar",
            OpeningThink::Original => "original",
            OpeningThink::Capped => "capped",
            OpeningThink::Zero => "zero",
        }
    }

    /// When a job is ready after a result that came at `end`, its logged think time
    /// after that result being `think`, its logged submission `logged`, and the session
    /// threshold `threshold`. A think time under the threshold is kept as it is.
    pub fn ready_after(self, end: Time, think: Time, logged: Time, threshold: Time) -> Time {
        if think < threshold {
            return end + think.max(0);
        }
        match self {
            OpeningThink::Calendar => (end + think).min(logged.max(end + threshold)),
            OpeningThink::Original => end + think,
            OpeningThink::Capped => end + threshold,
            OpeningThink::Zero => end,
        }
    }
}

/// How far a job may flow forward into an earlier session than its own (Feitelson 2021, §4.3,
/// open point).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowForward {
    /// Into the session just before its own, at the earliest (the default): the seed's
    /// "jobs that were submitted originally in the next session may flow forward to
    /// occur in the current one".
    #[default]
    Next,
    /// Into any earlier window its ready time falls in: an early result lets a user
    /// skip nights, weekends and gaps of weeks.
    Any,
}

impl FlowForward {
    /// The option's name.
    pub fn name(self) -> &'static str {
        match self {
            FlowForward::Next => "next",
            FlowForward::Any => "any",
        }
    }
}

impl std::str::FromStr for FlowForward {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "next" => Ok(FlowForward::Next),
            "any" => Ok(FlowForward::Any),
            _ => Err(format!("'{s}' is not a flow-forward rule (next, any)")),
        }
    }
}

/// What a job submitted while the user's previous job still ran (a negative think time)
/// keeps of the log (notes §8.5, open point).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NegativeThink {
    /// Its logged distance from the previous submission (the default): a burst keeps its
    /// spacing, and a machine that ran every job as the log did reproduces the log.
    #[default]
    Spacing,
    /// None: it is submitted with the previous job (the notes' "clamp at 0").
    Together,
}

impl NegativeThink {
    /// The option's name.
    pub fn name(self) -> &'static str {
        match self {
            NegativeThink::Spacing => "spacing",
            NegativeThink::Together => "together",
        }
    }
}

impl std::str::FromStr for NegativeThink {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "spacing" => Ok(NegativeThink::Spacing),
            "together" => Ok(NegativeThink::Together),
            _ => Err(format!(
                "'{s}' is not a negative-think rule (spacing, together)"
            )),
        }
    }
}

impl std::str::FromStr for OpeningThink {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "calendar" => Ok(OpeningThink::Calendar),
            "original" => Ok(OpeningThink::Original),
            "capped" => Ok(OpeningThink::Capped),
            "zero" => Ok(OpeningThink::Zero),
            _ => Err(format!(
                "'{s}' is not an opening think time (calendar, original, capped, zero)"
            )),
        }
    }
}

/// Where a ready job was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Its ready time falls in a window: submitted then.
    Inside,
    /// Its ready time falls between windows: submitted at the next window's start.
    NextWindow,
    /// Its ready time is past the user's last window: submitted then (the user's log has
    /// no later activity to wait for).
    AfterLast,
}

/// A user's windows, merged where they overlap, in time order.
#[derive(Debug, Clone)]
pub struct Windows {
    spans: Vec<Window>,
}

impl Windows {
    /// The union of `windows` (sorted by start, as a user's sessions are).
    pub fn new(windows: &[Window]) -> Self {
        let mut spans: Vec<Window> = Vec::with_capacity(windows.len());
        for w in windows {
            match spans.last_mut() {
                Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
                _ => spans.push(*w),
            }
        }
        Windows { spans }
    }

    /// When a job ready at `t` is submitted. `cursor` remembers the first window that can
    /// still matter (ready times of one user never decrease).
    pub fn place(&self, t: Time, cursor: &mut usize) -> (Time, Placement) {
        while *cursor < self.spans.len() && self.spans[*cursor].end < t {
            *cursor += 1;
        }
        match self.spans.get(*cursor) {
            None => (t, Placement::AfterLast),
            Some(w) if w.start <= t => (t, Placement::Inside),
            Some(w) => (w.start, Placement::NextWindow),
        }
    }

    /// The start of the first window that starts after `t`, if any.
    pub fn next_start_after(&self, t: Time) -> Option<Time> {
        let i = self.spans.partition_point(|w| w.start <= t);
        self.spans.get(i).map(|w| w.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(start: Time, end: Time) -> Window {
        Window { start, end }
    }

    #[test]
    fn placement_in_between_and_after_windows() {
        let ws = Windows::new(&[w(100, 200), w(150, 300), w(1000, 1100)]);
        let mut c = 0;
        assert_eq!(ws.place(50, &mut c), (100, Placement::NextWindow));
        assert_eq!(ws.place(250, &mut c), (250, Placement::Inside));
        assert_eq!(ws.place(300, &mut c), (300, Placement::Inside));
        assert_eq!(ws.place(301, &mut c), (1000, Placement::NextWindow));
        assert_eq!(ws.place(1100, &mut c), (1100, Placement::Inside));
        assert_eq!(ws.place(5000, &mut c), (5000, Placement::AfterLast));
        assert_eq!(ws.next_start_after(100), Some(1000));
        assert_eq!(ws.next_start_after(1000), None);
    }

    #[test]
    fn opening_think_options() {
        // A break of 5000 s after a result at 1000, logged submission at 6000.
        let at = |o: OpeningThink, end| o.ready_after(end, 5000, 6000, 1200);
        assert_eq!(at(OpeningThink::Original, 1000), 6000);
        assert_eq!(at(OpeningThink::Capped, 1000), 2200);
        assert_eq!(at(OpeningThink::Zero, 1000), 1000);
        assert_eq!(at(OpeningThink::Calendar, 1000), 6000);
        // The result came 3000 s early: the calendar rule keeps the whole break (the lead
        // is what was saved), the capped one starts 20 minutes after it.
        assert_eq!(at(OpeningThink::Calendar, -2000), 3000);
        assert_eq!(at(OpeningThink::Capped, -2000), -800);
        // The result came 4500 s late, past the logged start: the session starts a
        // threshold after it, not a whole break after it.
        assert_eq!(at(OpeningThink::Calendar, 5500), 6700);
        assert_eq!(at(OpeningThink::Original, 5500), 10500);
        // 3000 s late, still before it: the session keeps its logged start.
        assert_eq!(at(OpeningThink::Calendar, 4000), 6000);
        // A pause under the threshold is kept by every rule.
        for o in [
            OpeningThink::Calendar,
            OpeningThink::Capped,
            OpeningThink::Zero,
        ] {
            assert_eq!(o.ready_after(100, 600, 700, 1200), 700);
        }
    }
}
