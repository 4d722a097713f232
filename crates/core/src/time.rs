//! Simulated time: integer seconds, and the durations users type on the command line.
//!
//! The clock never uses floating point (DESIGN.md, "Invariants"): every event time is an
//! `i64` number of seconds, so equal timestamps compare exactly and ties break only by the
//! event queue's phase and sequence number.

use std::fmt;

/// A point in simulated time or a span of it, in whole seconds.
pub type Time = i64;

/// Seconds in a minute, hour, day and week.
pub const MINUTE: Time = 60;
/// Seconds in an hour.
pub const HOUR: Time = 3_600;
/// Seconds in a day.
pub const DAY: Time = 86_400;
/// Seconds in a week.
pub const WEEK: Time = 7 * DAY;

/// The longest time sitesim takes anywhere: in a log's time fields (submit, wait, run,
/// requested and think time), in a duration typed by the user, and for a modelled
/// estimate. A century: no real log comes near it, and every sum of such times stays far
/// from `i64`'s limits, so the simulated span, and with it the cost of a run, stays bounded
/// by what the input can state.
pub const LONGEST: Time = 100 * 365 * DAY;

/// The most whole weeks in [`LONGEST`]: the bound of every count of weeks (`--weeks`).
pub const MAX_WEEKS: i64 = LONGEST / WEEK;

/// The forms a duration takes, for error messages.
const FORMS: &str = "e.g. 3600, 90s, 20m, 1h30m, 4h, 2d, 1w or 01:30:00";

/// Parses a duration into whole seconds, with jiff's "friendly" format
/// ([`jiff::fmt::friendly`]): a number and a unit, or several (`90s`, `20m`, `20 min`,
/// `4h`, `1h30m`, `1h 30m`, `2d`, `1w`, `52w`, `3 days, 4 hours`), or `HH:MM:SS`
/// (`01:30:00`). A bare number is seconds (`3600`, `0`). Days are 24 hours and weeks 7
/// such days. A fraction of the last unit, hours or smaller, is taken when it comes to
/// whole seconds (`1.5h` is 5400).
///
/// Refused, each with its reason: a fraction of a second (`0.5s`, `1500ms`), negative
/// durations (`-5`, `5m ago`), months and years, which have no fixed length (give weeks
/// or days: `52w`, `365d`), and anything longer than [`LONGEST`] (a century).
pub fn parse_duration(text: &str) -> Result<Time, String> {
    use jiff::SpanRelativeTo;
    use jiff::fmt::friendly::SpanParser;
    static PARSER: SpanParser = SpanParser::new();

    let text = text.trim();
    if text.starts_with('-') {
        return Err(format!("'{text}' is negative: durations are 0 or more"));
    }
    let too_long = || longer_than_a_century(text);
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        // Plain seconds. Those past what a span holds (i64::MAX) were refused as "not a
        // duration" by the span parser (fuzzing the `estimates` command).
        return text
            .parse::<Time>()
            .ok()
            .filter(|&s| s <= LONGEST)
            .ok_or_else(too_long);
    }
    let span = PARSER
        .parse_span(text)
        .map_err(|e| format!("'{text}' is not a duration ({FORMS}): {e}"))?;
    if span.is_negative() {
        return Err(format!("'{text}' is negative: durations are 0 or more"));
    }
    let name = match (span.get_years(), span.get_months()) {
        (0, 0) => None,
        (0, _) => Some("months"),
        _ => Some("years"),
    };
    if let Some(name) = name {
        return Err(format!(
            "'{text}' counts {name}, which have no fixed length: give weeks or days (52w, 365d)"
        ));
    }
    let d = span
        .to_duration(SpanRelativeTo::days_are_24_hours())
        .map_err(|e| format!("'{text}' is too large for a duration: {e}"))?;
    if d.subsec_nanos() != 0 {
        return Err(format!(
            "'{text}' is not a whole number of seconds: the clock counts whole seconds"
        ));
    }
    if d.as_secs() > LONGEST {
        return Err(too_long());
    }
    Ok(d.as_secs())
}

/// The refusal of a duration `text` longer than [`LONGEST`].
pub fn longer_than_a_century(text: &str) -> String {
    format!("'{text}' is longer than 100 years ({LONGEST} s), the longest time sitesim takes")
}

/// Displays a number of seconds as `1d 02:03:04`, for terminal summaries.
pub struct Hms(pub Time);

impl fmt::Display for Hms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let s = self.0.unsigned_abs();
        let (d, h, m, sec) = (s / 86_400, s / 3_600 % 24, s / 60 % 60, s % 60);
        if d > 0 {
            write!(f, "{sign}{d}d {h:02}:{m:02}:{sec:02}")
        } else {
            write!(f, "{sign}{h:02}:{m:02}:{sec:02}")
        }
    }
}

/// Displays a length of time as a person says it: `14 days`, `1 day`, `12 h`, `20 min`,
/// else as [`Hms`]; for settings and thresholds, which are usually round.
pub struct Span(pub Time);

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => write!(f, "0 s"),
            t if t % DAY == 0 => {
                let days = t / DAY;
                write!(f, "{days} day{}", if days.abs() == 1 { "" } else { "s" })
            }
            t if t % HOUR == 0 => write!(f, "{} h", t / HOUR),
            t if t % 60 == 0 && t.abs() < HOUR => write!(f, "{} min", t / 60),
            t => Hms(t).fmt(f),
        }
    }
}

/// The warm-up of a run as its header says it: `no warm-up`, `warm-up 14 days`.
pub fn warm_up(t: Time) -> String {
    if t == 0 {
        "no warm-up".into()
    } else {
        format!("warm-up {}", Span(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_as_said() {
        assert_eq!(Span(14 * DAY).to_string(), "14 days");
        assert_eq!(Span(DAY).to_string(), "1 day");
        assert_eq!(Span(12 * HOUR).to_string(), "12 h");
        assert_eq!(Span(1200).to_string(), "20 min");
        assert_eq!(Span(HOUR + 60).to_string(), "01:01:00");
        assert_eq!(Span(DAY + 61).to_string(), "1d 00:01:01");
        assert_eq!(Span(0).to_string(), "0 s");
    }

    #[test]
    fn durations_parse_with_units() {
        // Every form the scenarios, the docs and the tests use, with its old value.
        for (text, secs) in [
            ("3600", 3600),
            ("42", 42),
            ("0", 0),
            ("90s", 90),
            ("20m", 1200),
            ("20min", 1200),
            ("4h", 14_400),
            ("12h", 43_200),
            ("18h", 64_800),
            ("2d", 172_800),
            ("1w", 604_800),
            ("2w", 1_209_600),
            ("52w", 52 * WEEK),
            ("57w", 57 * WEEK),
            (" 20m ", 1200),
            ("3153600000", LONGEST),
            ("0003600", 3600),
        ] {
            assert_eq!(parse_duration(text), Ok(secs), "{text}");
        }
    }

    #[test]
    fn durations_take_jiffs_friendly_forms() {
        for (text, secs) in [
            ("1h30m", 5400),
            ("1h 30m", 5400),
            ("1 hour 30 minutes", 5400),
            ("3 days, 4 hours", 3 * DAY + 4 * HOUR),
            ("1w4d", 11 * DAY),
            ("01:30:00", 5400),
            ("1.5h", 5400),
            ("2000ms", 2),
            ("0s", 0),
            ("+5m", 300),
        ] {
            assert_eq!(parse_duration(text), Ok(secs), "{text}");
        }
    }

    #[test]
    fn bad_durations_are_refused_with_a_reason() {
        for (text, reason) in [
            ("-5", "negative"),
            ("-0", "negative"),
            ("-5m", "negative"),
            ("5m ago", "negative"),
            ("5y", "years, which have no fixed length"),
            ("1 year", "years"),
            ("2mo", "months, which have no fixed length"),
            ("0.5s", "whole number of seconds"),
            ("1500ms", "whole number of seconds"),
            ("h", "not a duration"),
            ("", "not a duration"),
            ("5x", "not a duration"),
            ("1H", "not a duration"),
            // Plain seconds past a century, past what a span holds and past an i64.
            ("3153600001", "longer than 100 years"),
            ("9223372036854775807", "longer than 100 years"),
            ("99999999999999999999", "longer than 100 years"),
            ("2000000w", "not a duration"),
        ] {
            let err = parse_duration(text).expect_err(text);
            assert!(err.contains(reason), "{text}: {err}");
        }
    }

    #[test]
    fn hms_formats_days() {
        assert_eq!(Hms(3_725).to_string(), "01:02:05");
        assert_eq!(Hms(90_061).to_string(), "1d 01:01:01");
        assert_eq!(Hms(-61).to_string(), "-00:01:01");
    }
}
