//! Fast formatting of output lines (millions of numbers per run): a line is built in a
//! fixed stack buffer, digits written in place, and handed to the writer in one call.
//!
//! The smaller CSV files (a row per session, user or hour of the week) go through the
//! csv crate instead: [`write_csv`] writes `#[derive(Serialize)]` rows, their header
//! taken from the field names, and [`Fixed`] gives a float a fixed number of decimals.

use std::fmt;
use std::io::{self, Write};

use serde::{Serialize, Serializer};

/// Room for any line sitesim writes: at most 18 fields of at most 25 bytes plus padding.
const CAPACITY: usize = 1024;

/// "00" to "99": two digits per division.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// One output line under construction.
pub struct Line {
    buf: [u8; CAPACITY],
    len: usize,
}

impl Default for Line {
    fn default() -> Self {
        Line {
            buf: [0; CAPACITY],
            len: 0,
        }
    }
}

impl Line {
    /// Empties the line.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The bytes written so far.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
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

    /// Appends `v` in decimal, right-aligned in `width` columns (no padding if wider).
    #[inline]
    pub fn push_int_padded(&mut self, v: i64, width: usize) {
        let mut u = v.unsigned_abs();
        let digits = u.checked_ilog10().map_or(1, |l| l as usize + 1);
        let neg = usize::from(v < 0);
        let pad = width.saturating_sub(digits + neg);
        self.buf[self.len..self.len + pad].fill(b' ');
        self.len += pad;
        if neg == 1 {
            self.push(b'-');
        }
        let end = self.len + digits;
        let mut i = end;
        while u >= 100 {
            let pair = 2 * (u % 100) as usize;
            u /= 100;
            i -= 2;
            self.buf[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        }
        if u >= 10 {
            let pair = 2 * u as usize;
            self.buf[i - 2..i].copy_from_slice(&PAIRS[pair..pair + 2]);
        } else {
            self.buf[i - 1] = b'0' + u as u8;
        }
        self.len = end;
    }

    /// Appends `v` in decimal.
    #[inline]
    pub fn push_int(&mut self, v: i64) {
        self.push_int_padded(v, 0);
    }

    /// Appends `v` rounded to exactly three decimals.
    pub fn push_milli(&mut self, v: f64) {
        let m = (v * 1000.0).round() as i64;
        if m < 0 {
            self.push(b'-');
        }
        let m = m.unsigned_abs();
        self.push_int((m / 1000) as i64);
        self.push(b'.');
        self.push_int_padded((m % 1000) as i64, 3);
        let frac = &mut self.buf[self.len - 3..self.len];
        for b in frac {
            if *b == b' ' {
                *b = b'0';
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &Line) -> String {
        String::from_utf8(l.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn integers_match_std() {
        for v in [0, 7, -7, 10, 99_999, -123_456_789, i64::MAX, i64::MIN] {
            let mut l = Line::default();
            l.push_int(v);
            assert_eq!(text(&l), v.to_string());
        }
    }

    #[test]
    fn padding_right_aligns() {
        let mut l = Line::default();
        l.push_int_padded(-42, 6);
        l.push_int_padded(1_234_567, 3);
        l.push_str("|x");
        assert_eq!(text(&l), "   -421234567|x");
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
        let mut l = Line::default();
        l.push_milli(88.9004);
        l.push(b' ');
        l.push_milli(0.0456);
        l.push(b' ');
        l.push_milli(-1.5);
        l.push(b' ');
        l.push_milli(3.0);
        assert_eq!(text(&l), "88.900 0.046 -1.500 3.000");
    }
}
