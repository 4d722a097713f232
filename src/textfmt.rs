//! Fast formatting of output lines (millions of numbers per run): a line is built in a
//! fixed stack buffer, digits written in place, and handed to the writer in one call.

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
