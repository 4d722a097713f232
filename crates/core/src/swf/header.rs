//! The SWF header: the `;`-comment lines at the top of a log, kept verbatim, with the
//! fields later layers need parsed out of them.

use super::SwfError;
use crate::localtime::LogCalendar;

/// The epoch seconds a site's clock can show: the years 0 to 9999 (jiff's range).
const UNIX_SECONDS: std::ops::RangeInclusive<i64> = -62_167_219_200..=253_402_207_199;

/// Header comments of an SWF log.
///
/// `lines` keeps every comment line verbatim (without its line ending) so that a log
/// written back carries the same header; the typed fields are parsed from `; Key: value`
/// lines. A key that appears twice keeps its last value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SwfHeader {
    /// Every comment line, verbatim, in file order.
    pub lines: Vec<String>,
    /// `Version`.
    pub version: Option<String>,
    /// `MaxJobs`.
    pub max_jobs: Option<i64>,
    /// `MaxRecords`.
    pub max_records: Option<i64>,
    /// `MaxNodes`.
    pub max_nodes: Option<i64>,
    /// `MaxProcs`: the machine size most logs are simulated on.
    pub max_procs: Option<i64>,
    /// `MaxRuntime`: the longest runtime the site allowed, seconds.
    pub max_runtime: Option<i64>,
    /// `UnixStartTime`: the epoch second that submit time 0 stands for.
    pub unix_start_time: Option<i64>,
    /// `TimeZone`: the site's offset from UTC in seconds (deprecated by the archive in
    /// favour of `TimeZoneString`, but still the only zone field in many logs).
    pub time_zone: Option<i64>,
    /// `TimeZoneString`: the site's zone name, e.g. `Europe/Stockholm`.
    pub time_zone_string: Option<String>,
    /// `Note` lines, verbatim after `Note:`.
    pub notes: Vec<String>,
}

/// The most comment lines a header block may have: the archive's headers have about
/// 30, and a file of nothing but `;` lines is not a log.
pub const MAX_HEADER_LINES: usize = 10_000;

/// The most bytes a header block's comment lines may hold together: the archive's
/// headers hold a few kilobytes, and the header is kept and copied into
/// `schedule.swf`.
pub const MAX_HEADER_BYTES: usize = 1 << 20;

impl SwfHeader {
    /// What the header says of the log's calendar, for its site's clock
    /// ([`crate::localtime::SiteClock::of_log`]).
    pub fn calendar(&self) -> LogCalendar<'_> {
        LogCalendar {
            unix_start_time: self.unix_start_time,
            time_zone: self.time_zone,
            time_zone_string: self.time_zone_string.as_deref(),
        }
    }

    /// Adds one comment line (with its leading `;`), parsing known keys.
    pub(crate) fn push_line(
        &mut self,
        file: &str,
        line_no: u64,
        text: &str,
    ) -> Result<(), SwfError> {
        self.lines.push(text.to_owned());
        let body = text.trim_start_matches(';').trim();
        let Some((key, value)) = body.split_once(':') else {
            return Ok(());
        };
        let key = key.trim();
        let value = value.trim();
        let int = |v: &str| -> Result<i64, SwfError> {
            let first = v.split_whitespace().next().unwrap_or("");
            first.parse::<i64>().map_err(|_| SwfError::Header {
                file: file.to_owned(),
                line: line_no,
                key: key.to_owned(),
                problem: format!("'{}' is not an integer", crate::textfmt::excerpt(v, 24)),
            })
        };
        let within = |v: i64, range: std::ops::RangeInclusive<i64>, what: &str| {
            if range.contains(&v) {
                Ok(v)
            } else {
                Err(SwfError::Header {
                    file: file.to_owned(),
                    line: line_no,
                    key: key.to_owned(),
                    problem: format!("{v} is out of range ({what})"),
                })
            }
        };
        match key {
            "Version" => self.version = Some(value.to_owned()),
            "MaxJobs" => self.max_jobs = Some(int(value)?),
            "MaxRecords" => self.max_records = Some(int(value)?),
            "MaxNodes" => self.max_nodes = Some(int(value)?),
            "MaxProcs" => self.max_procs = Some(int(value)?),
            "MaxRuntime" => self.max_runtime = Some(int(value)?),
            "UnixStartTime" => {
                let years = "an epoch second of the years 0 to 9999";
                self.unix_start_time = Some(within(int(value)?, UNIX_SECONDS, years)?);
            }
            "TimeZone" => {
                let offsets = "an offset from UTC of less than 26 hours, in seconds";
                self.time_zone = Some(within(int(value)?, -93_599..=93_599, offsets)?);
            }
            "TimeZoneString" => self.time_zone_string = Some(value.to_owned()),
            "Note" => self.notes.push(value.to_owned()),
            _ => {}
        }
        Ok(())
    }

    /// The header lines with `MaxProcs` (and `MaxNodes`, if present) set to `procs`, and
    /// `notes` appended as `; Note:` lines: the header of a simulated schedule.
    pub fn lines_for_output(&self, procs: i64, notes: &[String]) -> Vec<String> {
        let mut out = Vec::with_capacity(self.lines.len() + notes.len() + 1);
        let mut saw_procs = false;
        for line in &self.lines {
            let key = line
                .trim_start_matches(';')
                .trim()
                .split_once(':')
                .map(|(k, _)| k.trim());
            match key {
                Some("MaxProcs") => {
                    saw_procs = true;
                    out.push(format!("; MaxProcs: {procs}"));
                }
                // A machine described with one processor per node stays that way.
                Some("MaxNodes")
                    if self.max_nodes.is_some() && self.max_nodes == self.max_procs =>
                {
                    out.push(format!("; MaxNodes: {procs}"));
                }
                _ => out.push(line.clone()),
            }
        }
        if !saw_procs {
            out.push(format!("; MaxProcs: {procs}"));
        }
        out.extend(notes.iter().map(|n| format!("; Note: {n}")));
        out
    }
}
