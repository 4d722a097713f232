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

/// Parses a duration such as `3600`, `90s`, `20m`, `4h`, `2d` or `1w` into seconds.
///
/// A bare number is seconds. Negative durations are refused.
pub fn parse_duration(text: &str) -> Result<Time, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    if digits.is_empty() {
        return Err(format!(
            "'{text}' is not a duration (expected e.g. 3600, 90s, 20m, 4h, 2d, 1w)"
        ));
    }
    let value: Time = digits
        .parse()
        .map_err(|_| format!("'{text}' is too large for a duration in seconds"))?;
    let scale = match unit {
        "" | "s" => 1,
        "m" | "min" => MINUTE,
        "h" => HOUR,
        "d" => DAY,
        "w" => WEEK,
        _ => {
            return Err(format!(
                "'{text}' has an unknown unit '{unit}' (use s, m, h, d or w)"
            ));
        }
    };
    value
        .checked_mul(scale)
        .ok_or_else(|| format!("'{text}' is too large for a duration in seconds"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("3600"), Ok(3600));
        assert_eq!(parse_duration("90s"), Ok(90));
        assert_eq!(parse_duration("20m"), Ok(1200));
        assert_eq!(parse_duration("4h"), Ok(14_400));
        assert_eq!(parse_duration("2d"), Ok(172_800));
        assert_eq!(parse_duration("1w"), Ok(604_800));
        assert!(parse_duration("-5").is_err());
        assert!(parse_duration("5y").is_err());
        assert!(parse_duration("h").is_err());
        assert!(parse_duration("99999999999999999999").is_err());
    }

    #[test]
    fn hms_formats_days() {
        assert_eq!(Hms(3_725).to_string(), "01:02:05");
        assert_eq!(Hms(90_061).to_string(), "1d 01:01:01");
        assert_eq!(Hms(-61).to_string(), "-00:01:01");
    }
}
