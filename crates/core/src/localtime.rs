//! The site's local time: the hour of day and day of week of a simulated time, which the
//! daily and weekly cycles of users follow (Feitelson 2021, §4.2-4.4).
//!
//! A log's times count seconds from its `UnixStartTime`; its zone is `TimeZoneString`
//! (an IANA name, so daylight saving time is applied as it was), else the fixed offset
//! `TimeZone` (in seconds east of UTC, as the archive's logs use it), else UTC with a
//! warning. A zone given by the user overrides the header. The time-zone database is
//! built into the binary, so results do not depend on the machine's own tzdata.

use std::cell::Cell;

use jiff::Timestamp;
use jiff::tz::{Offset, TimeZone};

use crate::time::{DAY, HOUR, Time};

/// Day names, Monday first, as [`LocalTime::weekday`] counts them.
pub const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// A local time of day and day of week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    /// Day of week, 0 = Monday.
    pub weekday: u8,
    /// Hour of day, 0-23.
    pub hour: u8,
    /// Seconds since local midnight.
    pub second_of_day: u32,
}

impl LocalTime {
    /// The hour of the week, 0 (Monday 00:00-01:00) to 167.
    pub fn hour_of_week(self) -> usize {
        usize::from(self.weekday) * 24 + usize::from(self.hour)
    }
}

/// Where the zone came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneSource {
    /// Given by the user.
    Override,
    /// The header's `TimeZoneString`.
    HeaderName,
    /// The header's `TimeZone` offset.
    HeaderOffset,
    /// None given: UTC.
    DefaultUtc,
}

/// Converts simulated times of one log to the site's local time.
#[derive(Debug, Clone)]
pub struct SiteClock {
    unix_start: i64,
    zone: TimeZone,
    name: String,
    source: ZoneSource,
    /// The offset last looked up, valid over `[from, until)` in Unix seconds: zones
    /// change offset a few times a year, and a run asks in time order.
    cache: Cell<(i64, i64, i64)>,
}

/// Parses a zone: `UTC`, an IANA name (`Europe/Stockholm`), an offset `+HH:MM`, or an
/// offset in seconds east of UTC.
pub fn parse_zone(text: &str) -> Result<TimeZone, String> {
    let t = text.trim();
    let fixed = |seconds: i64| -> Result<TimeZone, String> {
        let s = i32::try_from(seconds).map_err(|_| format!("offset '{t}' is out of range"))?;
        Offset::from_seconds(s)
            .map(TimeZone::fixed)
            .map_err(|e| format!("offset '{t}': {e}"))
    };
    if t.eq_ignore_ascii_case("utc") {
        return Ok(TimeZone::UTC);
    }
    if t.contains(':') {
        let sign = if t.starts_with('-') { -1 } else { 1 };
        let parsed = t
            .strip_prefix(['+', '-'])
            .and_then(|rest| rest.split_once(':'))
            .and_then(|(h, m)| Some((h.parse::<i64>().ok()?, m.parse::<i64>().ok()?)))
            .filter(|&(h, m)| (0..24).contains(&h) && (0..60).contains(&m));
        return match parsed {
            Some((h, m)) => fixed(sign * (h * HOUR + m * 60)),
            None => Err(format!("'{t}' is not an offset (use +HH:MM)")),
        };
    }
    if let Ok(seconds) = t.parse::<i64>() {
        return fixed(seconds);
    }
    TimeZone::get(t).map_err(|_| {
        format!("'{t}' is not a time zone (use UTC, an IANA name such as Europe/Stockholm, +HH:MM or seconds)")
    })
}

/// What a log says of its calendar: the SWF header's `UnixStartTime`, `TimeZone` (an
/// offset, seconds) and `TimeZoneString` (a zone name).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LogCalendar<'a> {
    /// The Unix time of the log's time 0.
    pub unix_start_time: Option<i64>,
    /// The offset from UTC, seconds.
    pub time_zone: Option<i64>,
    /// The zone's name.
    pub time_zone_string: Option<&'a str>,
}

impl SiteClock {
    /// The clock of a log whose header says `log`; `zone` overrides the header's zone.
    /// The second value is a warning when the header does not say enough.
    pub fn of_log(
        log: LogCalendar<'_>,
        zone: Option<&str>,
    ) -> Result<(SiteClock, Vec<String>), String> {
        let mut warnings = Vec::new();
        let (tz, name, source) = match (zone, log.time_zone_string, log.time_zone) {
            (Some(z), _, _) => (parse_zone(z)?, z.to_owned(), ZoneSource::Override),
            (None, Some(n), _) => match TimeZone::get(n) {
                Ok(tz) => (tz, n.to_owned(), ZoneSource::HeaderName),
                Err(_) => {
                    return Err(format!(
                        "the header's TimeZoneString '{n}' is not a known zone; give one with --time-zone"
                    ));
                }
            },
            (None, None, Some(s)) => (
                parse_zone(&s.to_string())?,
                format!("UTC{:+}s", s),
                ZoneSource::HeaderOffset,
            ),
            (None, None, None) => {
                warnings.push(
                    "the log gives no time zone: local times are UTC (override with --time-zone)"
                        .to_owned(),
                );
                (TimeZone::UTC, "UTC".to_owned(), ZoneSource::DefaultUtc)
            }
        };
        let unix_start = match log.unix_start_time {
            Some(s) => s,
            None => {
                warnings.push(
                    "the log gives no UnixStartTime: time 0 is taken as Thursday 1970-01-01 00:00 UTC, \
                     so days of the week are not the site's"
                        .to_owned(),
                );
                0
            }
        };
        Ok((SiteClock::new(unix_start, tz, name, source), warnings))
    }

    fn new(unix_start: i64, zone: TimeZone, name: String, source: ZoneSource) -> Self {
        SiteClock {
            unix_start,
            zone,
            name,
            source,
            cache: Cell::new((0, 0, 0)),
        }
    }

    /// A clock on UTC with time 0 at the Unix epoch (a Thursday).
    pub fn utc() -> SiteClock {
        SiteClock::new(0, TimeZone::UTC, "UTC".to_owned(), ZoneSource::DefaultUtc)
    }

    /// The clock of a model-based site: time 0 is a Monday at 00:00 (Talby 2006, §11.1),
    /// in a zone without daylight saving time (1970-01-05, a Monday, in UTC).
    pub fn model() -> SiteClock {
        SiteClock::new(
            4 * DAY,
            TimeZone::UTC,
            "model (Monday 00:00, UTC)".to_owned(),
            ZoneSource::DefaultUtc,
        )
    }

    /// The zone's name as given.
    pub fn zone_name(&self) -> &str {
        &self.name
    }

    /// The Unix time of simulated time 0.
    pub fn unix_start(&self) -> i64 {
        self.unix_start
    }

    /// The zone.
    pub fn zone(&self) -> &TimeZone {
        &self.zone
    }

    /// Where the zone came from.
    pub fn source(&self) -> ZoneSource {
        self.source
    }

    /// Local seconds since the epoch of simulated time `t`.
    fn local_seconds(&self, t: Time) -> i64 {
        let unix = self.unix_start.saturating_add(t);
        let (from, until, offset) = self.cache.get();
        if (from..until).contains(&unix) {
            return unix + offset;
        }
        let Ok(ts) = Timestamp::from_second(unix) else {
            // Beyond the years a clock can show: no offset.
            return unix;
        };
        let offset = i64::from(self.zone.to_offset(ts).seconds());
        let until = self
            .zone
            .following(ts)
            .next()
            .map_or(i64::MAX, |tr| tr.timestamp().as_second());
        self.cache.set((unix, until, offset));
        unix + offset
    }

    /// The local date and time of simulated time `t` (for axes and labels).
    pub fn civil(&self, t: Time) -> jiff::civil::DateTime {
        let s = self.local_seconds(t);
        Timestamp::from_second(s).map_or(jiff::civil::DateTime::ZERO, |ts| {
            ts.to_zoned(TimeZone::UTC).datetime()
        })
    }

    /// The local date of simulated time `t`, as days from 1970-01-01 (for date axes,
    /// `plot::chart::XTicks::Dates`).
    pub fn local_day(&self, t: Time) -> i64 {
        self.local_seconds(t).div_euclid(DAY)
    }

    /// The local time of simulated time `t`.
    pub fn local(&self, t: Time) -> LocalTime {
        let s = self.local_seconds(t);
        let days = s.div_euclid(DAY);
        let of_day = s.rem_euclid(DAY);
        LocalTime {
            // 1970-01-01 was a Thursday (3 when Monday is 0).
            weekday: (days + 3).rem_euclid(7) as u8,
            hour: (of_day / HOUR) as u8,
            second_of_day: of_day as u32,
        }
    }

    /// The first simulated time after `t` at which the local hour changes.
    pub fn next_hour(&self, t: Time) -> Time {
        let s = self.local_seconds(t);
        t + (HOUR - s.rem_euclid(HOUR))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kth_header_gives_stockholm_summer_time() {
        let header = LogCalendar {
            unix_start_time: Some(843_480_031),
            time_zone: Some(3600),
            time_zone_string: Some("Europe/Stockholm"),
        };
        let (clock, warnings) = SiteClock::of_log(header, None).unwrap();
        assert!(warnings.is_empty());
        // The header's StartTime: Mon Sep 23 14:00:31 CEST 1996.
        let l = clock.local(0);
        assert_eq!(
            (l.weekday, l.hour, l.second_of_day),
            (0, 14, 14 * 3600 + 31)
        );
        // Three months later winter time applies: 13:00 local on Monday Dec 23.
        let l = clock.local(91 * DAY);
        assert_eq!((l.weekday, l.hour), (0, 13));
        // The fixed offset alone ignores daylight saving time.
        let (fixed, _) = SiteClock::of_log(header, Some("3600")).unwrap();
        assert_eq!(fixed.local(0).hour, 13);
        assert_eq!(clock.next_hour(0), 3600 - 31);
    }

    #[test]
    fn cached_offsets_agree_with_fresh_lookups_across_transitions() {
        let header = LogCalendar {
            unix_start_time: Some(843_480_031),
            time_zone_string: Some("Europe/Stockholm"),
            ..LogCalendar::default()
        };
        let (clock, _) = SiteClock::of_log(header, None).unwrap();
        // Every 37 minutes over a year and a half, crossing three DST changes.
        for t in (0..550 * DAY).step_by(37 * 60) {
            let (fresh, _) = SiteClock::of_log(header, None).unwrap();
            assert_eq!(clock.local(t), fresh.local(t), "at {t}");
        }
    }

    #[test]
    fn missing_zone_warns_and_defaults_to_utc() {
        let (clock, warnings) = SiteClock::of_log(LogCalendar::default(), None).unwrap();
        assert_eq!(warnings.len(), 2);
        assert_eq!(clock.source(), ZoneSource::DefaultUtc);
        let l = clock.local(0);
        assert_eq!((l.weekday, l.hour), (3, 0));
        assert_eq!(clock.local(-1).weekday, 2);
    }

    #[test]
    fn zones_parse_and_bad_ones_are_errors() {
        assert!(parse_zone("+05:30").is_ok());
        assert!(parse_zone("-3600").is_ok());
        assert!(parse_zone("America/New_York").is_ok());
        assert!(
            parse_zone("Mars/Olympus")
                .unwrap_err()
                .contains("not a time zone")
        );
        assert!(parse_zone("+5:99").unwrap_err().contains("not an offset"));
        for bad in [
            "+2:-30",
            "+-5:00",
            "--9999999999999:00",
            "+99999999999999:00",
        ] {
            assert!(
                parse_zone(bad).unwrap_err().contains("not an offset"),
                "{bad}"
            );
        }
        let header = LogCalendar {
            time_zone_string: Some("Nowhere/Else"),
            ..LogCalendar::default()
        };
        assert!(SiteClock::of_log(header, None).is_err());
    }
}
