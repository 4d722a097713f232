//! Fast formatting of output lines (millions of numbers per run): rows are written in
//! place into one reusable buffer, eight digits at a time, and handed to the writer in
//! large writes.
//!
//! The smaller CSV files (a row per session, user or hour of the week) go through the
//! csv crate instead: [`write_csv`] writes `#[derive(Serialize)]` rows, their header
//! taken from the field names, and [`Fixed`] gives a float a fixed number of decimals.

use std::fmt;
use std::io::{self, Write};

use serde::{Serialize, Serializer};

/// The bytes of text a [`Text`] collects before [`Text::write_if_full`] hands them on.
const FLUSH_AT: usize = 1 << 16;

/// Room past [`FLUSH_AT`]: more than any one row sitesim writes (at most 18 fields: 15
/// integers of at most 20 bytes and 3 floats of at most 330, with padding) and the fixed
/// 16-byte stores that may reach past the text's end.
const SLACK: usize = 1 << 12;

/// `'0'` in every byte of a word.
const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

/// Text under construction: rows written in place at the end of one buffer (digits,
/// padding and signs by fixed-size stores, no per-digit loop), handed to a writer once
/// [`FLUSH_AT`] bytes have gathered.
///
/// Each row must fit in [`SLACK`] bytes and its writer must call
/// [`Text::write_if_full`] after each row: a store past the buffer panics.
pub struct Text {
    buf: Box<[u8]>,
    len: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            buf: vec![0; FLUSH_AT + SLACK].into_boxed_slice(),
            len: 0,
        }
    }
}

impl Text {
    /// Empties the text.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The bytes written so far.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Writes the text to `w` and empties it, if it holds [`FLUSH_AT`] bytes or more.
    #[inline]
    pub fn write_if_full(&mut self, w: &mut impl Write) -> io::Result<()> {
        if self.len >= FLUSH_AT {
            self.write_to(w)?;
        }
        Ok(())
    }

    /// Writes the text to `w` and empties it.
    pub fn write_to(&mut self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(self.as_bytes())?;
        self.len = 0;
        Ok(())
    }

    /// Appends one byte.
    #[inline]
    pub fn push(&mut self, b: u8) {
        self.buf[self.len] = b;
        self.len += 1;
    }

    /// Appends `text`.
    pub fn push_str(&mut self, text: &str) {
        let end = self.len + text.len();
        self.buf[self.len..end].copy_from_slice(text.as_bytes());
        self.len = end;
    }

    /// The 32 bytes from the end of the text on, where a number is stored.
    #[inline(always)]
    fn window(&mut self) -> &mut [u8; 32] {
        let at = self.len;
        (&mut self.buf[at..at + 32]).try_into().expect("32 bytes")
    }

    /// Appends `v` in decimal, right-aligned in `width` columns (no padding if wider),
    /// then the byte `then`.
    ///
    /// A number of up to eight digits takes fixed-size stores into [`Text::window`]: 16
    /// spaces (when padded), a `-` kept only if negative, the digits as one word, `then`.
    #[inline(always)]
    pub fn push_int_padded(&mut self, v: i64, width: usize, then: u8) {
        let u = v.unsigned_abs();
        let neg = usize::from(v < 0);
        let (digits, n) = if u < 10 {
            (u | 0x30, 1)
        } else if u < 100_000_000 {
            ascii(u)
        } else {
            return self.push_long_padded(v, width, then);
        };
        let pad = width.saturating_sub(n + neg);
        if pad > 16 {
            return self.push_long_padded(v, width, then);
        }
        let w = self.window();
        if width > 0 {
            w[..16].fill(b' ');
        }
        w[pad] = b'-';
        let start = pad + neg;
        w[start..start + 8].copy_from_slice(&digits.to_le_bytes());
        w[start + n] = then;
        self.len += start + n + 1;
    }

    /// [`Text::push_int_padded`] for any `v` and `width`: the digits and the padding
    /// byte by byte.
    #[cold]
    fn push_long_padded(&mut self, v: i64, width: usize, then: u8) {
        let mut u = v.unsigned_abs();
        let n = u.checked_ilog10().map_or(1, |l| l as usize + 1);
        let neg = usize::from(v < 0);
        for _ in n + neg..width {
            self.push(b' ');
        }
        if neg == 1 {
            self.push(b'-');
        }
        let end = self.len + n;
        for at in (self.len..end).rev() {
            self.buf[at] = b'0' + (u % 10) as u8;
            u /= 10;
        }
        self.len = end;
        self.push(then);
    }

    /// Appends `v` in decimal, then the byte `then`.
    #[inline(always)]
    pub fn push_int(&mut self, v: i64, then: u8) {
        self.push_int_padded(v, 0, then);
    }

    /// Appends the range `first-last`, or `first` alone if `last` is the same, then the
    /// byte `then` (a range of Batsim's interval sets, `first <= last`): both numbers in
    /// one [`Text::window`], each below 10,000 (a machine of fewer processors) by two
    /// lookups of [`PAIRS`] rather than [`ascii`]'s arithmetic.
    #[inline]
    pub fn push_range(&mut self, first: u32, last: u32, then: u8) {
        if last >= 100_000_000 {
            if first != last {
                self.push_int(i64::from(first), b'-');
            }
            return self.push_int(i64::from(last), then);
        }
        let digits = |u: u32| {
            if u < 10_000 {
                ascii_short(u)
            } else {
                ascii(u64::from(u))
            }
        };
        let (after, n) = digits(last);
        let w = self.window();
        let mut at = 0;
        if first != last {
            let (before, m) = digits(first);
            w[..8].copy_from_slice(&before.to_le_bytes());
            w[m] = b'-';
            at = m + 1;
        }
        w[at..at + 8].copy_from_slice(&after.to_le_bytes());
        w[at + n] = then;
        self.len += at + n + 1;
    }

    /// Appends `v` rounded to exactly three decimals, then the byte `then`.
    #[inline]
    pub fn push_milli(&mut self, v: f64, then: u8) {
        let m = (v * 1000.0).round() as i64;
        let whole = (m / 1000).unsigned_abs();
        let neg = usize::from(m < 0);
        if whole >= 100_000_000 {
            if neg == 1 {
                self.push(b'-');
            }
            self.push_long_padded(whole as i64, 0, b'.');
            let w = self.window();
            w[..8].copy_from_slice(&(ascii_eight(m.unsigned_abs() % 1000) >> 40).to_le_bytes());
            w[3] = then;
            self.len += 4;
            return;
        }
        let (digits, n) = ascii(whole);
        let w = self.window();
        w[0] = b'-';
        let start = neg;
        w[start..start + 8].copy_from_slice(&digits.to_le_bytes());
        w[start + n] = b'.';
        let frac = ascii_eight(m.unsigned_abs() % 1000) >> 40;
        w[start + n + 1..start + n + 9].copy_from_slice(&frac.to_le_bytes());
        w[start + n + 4] = then;
        self.len += start + n + 5;
    }
}

/// `u` (below 10^8) as eight ASCII digits with leading zeros, the first digit in the
/// lowest byte. The halves of four digits, then the pairs, then the digits are split
/// within the word at once, dividing by 100 and by 10 as a multiplication and a shift
/// (exact below 10,000 and 180).
#[inline(always)]
fn ascii_eight(u: u64) -> u64 {
    let x = (u / 10_000) | ((u % 10_000) << 32);
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = hundreds | ((x - hundreds * 100) << 16);
    let tens = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    (tens | ((x - tens * 10) << 8)) | ASCII_ZEROS
}

/// The significant digits of `u` (below 10^8) in ASCII, the first in the lowest byte,
/// and how many there are (at least one).
#[inline(always)]
fn ascii(u: u64) -> (u64, usize) {
    let all = ascii_eight(u);
    // Leading zeros are the low bytes equal to '0'; the last digit always counts.
    let zeros = ((all ^ ASCII_ZEROS) | 1 << 56).trailing_zeros() as usize / 8;
    (all >> (8 * zeros), 8 - zeros)
}

/// The two ASCII digits of each number below 100, the tens in the lower byte.
const PAIRS: [u16; 100] = {
    let mut pairs = [0; 100];
    let mut u = 0;
    while u < 100 {
        pairs[u] = (b'0' + (u / 10) as u8) as u16 | ((b'0' + (u % 10) as u8) as u16) << 8;
        u += 1;
    }
    pairs
};

/// [`ascii`] for `u` below 10,000: four digits from two pairs, the leading zeros shifted
/// out.
#[inline(always)]
fn ascii_short(u: u32) -> (u64, usize) {
    let all = u64::from(PAIRS[(u / 100) as usize]) | u64::from(PAIRS[(u % 100) as usize]) << 16;
    let n = 1 + usize::from(u >= 10) + usize::from(u >= 100) + usize::from(u >= 1000);
    (all >> (8 * (4 - n)), n)
}

/// A float written with `D` decimals in CSV rows, as `format!("{:.D$}")` writes it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Fixed<const D: usize>(pub f64);

impl<const D: usize> Serialize for Fixed<D> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Formatted on the stack; a value too long for it (about 1e25 and up) takes a String.
        let mut buf = StackText::default();
        match fmt::write(&mut buf, format_args!("{self}")) {
            Ok(()) => s.serialize_str(buf.as_str()),
            Err(_) => s.collect_str(self),
        }
    }
}

/// Text formatted into a small stack buffer; writing past its end fails.
#[derive(Default)]
struct StackText {
    buf: [u8; 32],
    len: usize,
}

impl StackText {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).expect("only whole str were written")
    }
}

impl fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl<const D: usize> fmt::Display for Fixed<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.*}", D, self.0)
    }
}

/// Writes `rows` to `w` as CSV (RFC 4180 quoting where a field needs it, `\n` line ends)
/// under a header of the row type's field names, which is written even when there are
/// no rows.
pub fn write_csv<T: Serialize + Default>(
    w: impl Write,
    rows: impl IntoIterator<Item = T>,
) -> io::Result<()> {
    let mut csv = csv::Writer::from_writer(w);
    let mut empty = true;
    for row in rows {
        csv.serialize(row)?;
        empty = false;
    }
    if empty {
        // The header alone: the first line of a default row written with it.
        let mut first = csv::Writer::from_writer(Vec::new());
        first.serialize(T::default())?;
        let bytes = first.into_inner().map_err(|e| e.into_error())?;
        let end = bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| i + 1);
        let mut w = csv.into_inner().map_err(|e| e.into_error())?;
        w.write_all(&bytes[..end])?;
        return w.flush();
    }
    csv.flush()
}

/// A number as names and messages give it: plain decimals, or with an exponent where
/// those would run to dozens of digits (a load of 1e-300, a multiplier of 1e308).
pub fn short_number(x: f64) -> String {
    if x != 0.0 && !(1e-6..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `text` as an error quotes it: control characters escaped, and cut to `max` characters
/// with `…` (a field of a megabyte, a binary file read as a log).
pub fn excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The most characters of a file an error quotes ([`excerpt`]): a field, a token, never
/// a whole line (which may hold a secret, or a megabyte).
pub const QUOTED: usize = 24;

/// A TOML parse error of the file `name` (whose text is `text`) without the file's line
/// echoed: `name:LINE:COLUMN: what`, and the offending text as a short, escaped excerpt
/// ([`QUOTED`] characters). The parser's own message quotes the whole line.
pub fn toml_error(name: &str, text: &str, e: &toml::de::Error) -> String {
    let Some(span) = e.span().filter(|s| s.start <= text.len()) else {
        return format!("{name}: {}", e.message().trim_end());
    };
    let before = text.get(..span.start).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let at = text.get(span.clone()).map(|t| excerpt(t, QUOTED));
    let at = at
        .filter(|t| !t.trim().is_empty())
        .map_or_else(String::new, |t| format!(" (at `{t}`)"));
    format!("{name}:{line}:{column}: {}{at}", e.message().trim_end())
}

/// `mean ± ci`, both to two significant digits of the interval; the mean alone to three
/// significant digits when there is no interval (a single run), or when it is a billion
/// times narrower than the mean (rounding: identical differences in every pair).
pub fn with_interval(mean: f64, ci: f64) -> String {
    let digits = |v: f64, significant: i32| {
        if v == 0.0 || !v.is_finite() {
            0
        } else {
            (significant - 1 - v.abs().log10().floor() as i32).clamp(0, 6) as usize
        }
    };
    if ci > 1e-9 * mean.abs() && ci.is_finite() {
        let d = digits(ci, 2);
        format!("{mean:.d$} ± {ci:.d$}")
    } else {
        let d = digits(mean, 3);
        format!("{mean:.d$}")
    }
}

/// A share in [0, 1] as a percentage with its sign, one decimal: `69.9%`.
pub fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// Seconds as hours with the unit, three significant digits: `1.25 h`.
pub fn hours(seconds: f64) -> String {
    format!("{} h", significant(seconds / 3600.0, 3))
}

/// `v` with at most `digits` significant digits (integers in full), trailing zeros
/// dropped.
pub fn significant(v: f64, digits: i32) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == v.round() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let decimals = (digits - 1 - v.abs().log10().floor() as i32).clamp(0, 9) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_and_escaped() {
        assert_eq!(excerpt("path = \"x.swf\"", 120), "path = \"x.swf\"");
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("a\tb\u{1b}[2J", 20), "a\\tb\\u{1b}[2J");
        assert_eq!(excerpt(&"x".repeat(1 << 20), 8).chars().count(), 9);
    }

    #[test]
    fn a_toml_error_names_line_and_column_and_never_echoes_the_line() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct File {
            a: i64,
        }
        let secret = format!("a = 1\nb = \"{}\" junk", "s3cr3t-token-".repeat(1000));
        let e = toml::from_str::<File>(&secret).unwrap_err();
        let m = toml_error("f.toml", &secret, &e);
        assert!(m.starts_with("f.toml:2:"), "{m}");
        assert!(m.len() < 200 && m.matches("s3cr3t").count() <= 2, "{m}");
    }

    #[test]
    fn significant_digits() {
        assert_eq!(significant(13297.08, 4), "13297");
        assert_eq!(significant(2.81823, 4), "2.818");
        assert_eq!(significant(92.928, 3), "92.9");
        assert_eq!(significant(1.0, 3), "1");
        assert_eq!(significant(0.0, 3), "0");
        assert_eq!(significant(0.030061, 4), "0.03006");
    }

    fn text(l: &Text) -> String {
        String::from_utf8(l.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn integers_match_std() {
        let mut values = vec![i64::MAX, i64::MIN, i64::MIN + 1];
        for p in 0..19 {
            let t = 10i64.pow(p);
            values.extend([
                t - 1,
                t,
                t + 1,
                7 * t,
                -t,
                -(t - 1),
                (9 * t).saturating_add(t / 3),
            ]);
        }
        for v in values {
            for width in [0, 1, 2, 5, 9, 16, 17, 25] {
                let mut l = Text::default();
                l.push_int_padded(v, width, b'|');
                assert_eq!(text(&l), format!("{v:>width$}|"), "{v} {width}");
            }
            let mut l = Text::default();
            l.push_int(v, b',');
            l.push_int(-(v / 3), b'\n');
            assert_eq!(text(&l), format!("{v},{}\n", -(v / 3)));
        }
    }

    #[test]
    fn ranges_match_std() {
        let mut ends = vec![u32::MAX, u32::MAX - 1];
        for p in 0..10 {
            let t = 10u32.pow(p);
            ends.extend([
                t - 1,
                t,
                t + 1,
                t.saturating_mul(7),
                t.saturating_mul(4).saturating_add(t / 3),
            ]);
        }
        for &first in &ends {
            for &last in &ends {
                if first > last {
                    continue;
                }
                let mut l = Text::default();
                l.push_range(first, last, b' ');
                l.push_range(last, last, b'\n');
                let range = if first == last {
                    format!("{first}")
                } else {
                    format!("{first}-{last}")
                };
                assert_eq!(text(&l), format!("{range} {last}\n"));
            }
        }
    }

    #[test]
    fn padding_right_aligns() {
        let mut l = Text::default();
        l.push_int_padded(-42, 6, b' ');
        l.push_int_padded(1_234_567, 3, b'|');
        l.push_str("x");
        assert_eq!(text(&l), "   -42 1234567|x");
    }

    #[derive(Serialize, Default)]
    struct Row {
        name: &'static str,
        count: u64,
        share: Fixed<3>,
    }

    #[test]
    fn csv_rows_have_a_header_and_quote_what_needs_it() {
        let rows = [
            Row {
                name: "plain",
                count: 3,
                share: Fixed(0.0005),
            },
            Row {
                name: "a, b",
                count: 0,
                share: Fixed(-2.0),
            },
            Row {
                name: "big",
                count: 1,
                share: Fixed(1e50),
            },
        ];
        let mut out = Vec::new();
        write_csv(&mut out, rows).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "name,count,share\nplain,3,0.001\n\"a, b\",0,-2.000\nbig,1,{:.3}\n",
                1e50
            )
        );
        let mut out = Vec::new();
        write_csv(&mut out, Vec::<Row>::new()).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "name,count,share\n");
    }

    #[test]
    fn milli_formatting() {
        let mut l = Text::default();
        l.push_milli(88.9004, b' ');
        l.push_milli(0.0456, b' ');
        l.push_milli(-1.5, b' ');
        l.push_milli(3.0, b' ');
        l.push_milli(-0.0004, b' ');
        l.push_milli(123_456_789.25, b' ');
        l.push_milli(-1e300, b'\n');
        assert_eq!(
            text(&l),
            "88.900 0.046 -1.500 3.000 0.000 123456789.250 -9223372036854775.808\n"
        );
    }

    #[test]
    fn milli_matches_the_digits_of_the_rounded_thousandths() {
        for m in [
            0i64,
            1,
            9,
            10,
            999,
            1000,
            1001,
            99_999_999_999,
            100_000_000_000,
        ] {
            for m in [m, -m] {
                let mut l = Text::default();
                l.push_milli(m as f64 / 1000.0, b',');
                let sign = if m < 0 { "-" } else { "" };
                let (whole, frac) = (m.unsigned_abs() / 1000, m.unsigned_abs() % 1000);
                assert_eq!(text(&l), format!("{sign}{whole}.{frac:03},"), "{m}");
            }
        }
    }
}
