//! SWF writer: header lines verbatim, then one right-aligned line per record, gathered
//! in one buffer ([`Text`]) and written in large writes.

use std::io::{self, Write};

use super::record::{FIELDS, SwfRecord};
use crate::textfmt::Text;

/// Column widths, chosen to line up typical archive logs.
const WIDTHS: [usize; FIELDS] = [7, 9, 7, 7, 5, 7, 7, 5, 7, 7, 2, 4, 4, 4, 3, 3, 6, 6];

/// Writes SWF records to any `Write`. The records reach `out` in blocks, the last on
/// [`SwfWriter::finish`].
pub struct SwfWriter<W: Write> {
    out: W,
    text: Text,
}

impl<W: Write> SwfWriter<W> {
    /// Writes `header_lines` (each a full comment line starting with `;`) and returns a
    /// writer for the records.
    pub fn new(mut out: W, header_lines: &[String]) -> io::Result<Self> {
        for line in header_lines {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(SwfWriter {
            out,
            text: Text::default(),
        })
    }

    /// Writes one record.
    pub fn write(&mut self, r: &SwfRecord) -> io::Result<()> {
        let t = &mut self.text;
        let [
            w0,
            w1,
            w2,
            w3,
            w4,
            w5,
            w6,
            w7,
            w8,
            w9,
            w10,
            w11,
            w12,
            w13,
            w14,
            w15,
            w16,
            w17,
        ] = WIDTHS;
        for (v, width) in [
            (r.job, w0),
            (r.submit, w1),
            (r.wait, w2),
            (r.run, w3),
            (r.alloc_procs, w4),
        ] {
            t.push_int_padded(v, width, b' ');
        }
        push_real_padded(t, r.avg_cpu, w5);
        push_real_padded(t, r.used_mem, w6);
        t.push_int_padded(r.req_procs, w7, b' ');
        t.push_int_padded(r.req_time, w8, b' ');
        push_real_padded(t, r.req_mem, w9);
        for (v, width) in [
            (r.status, w10),
            (r.user, w11),
            (r.group, w12),
            (r.app, w13),
            (r.queue, w14),
            (r.partition, w15),
            (r.preceding, w16),
        ] {
            t.push_int_padded(v, width, b' ');
        }
        t.push_int_padded(r.think, w17, b'\n');
        t.write_if_full(&mut self.out)
    }

    /// Writes what is left, flushes and returns the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.text.write_to(&mut self.out)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Appends a fractional field right-aligned in `width` columns, then a space: as an
/// integer when it is one (and small enough to be exact), as Rust's shortest decimal
/// otherwise.
#[inline]
fn push_real_padded(t: &mut Text, f: f64, width: usize) {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        t.push_int_padded(f as i64, width, b' ');
    } else {
        push_decimal_padded(t, f, width);
    }
}

#[cold]
fn push_decimal_padded(t: &mut Text, f: f64, width: usize) {
    let text = f.to_string();
    for _ in text.len()..width {
        t.push(b' ');
    }
    t.push_str(&text);
    t.push(b' ');
}

#[cfg(test)]
mod tests {
    use super::super::SwfReader;
    use super::*;

    #[test]
    fn round_trip_keeps_records_and_header() {
        let text = "; Version: 2.2\n; MaxProcs: 100\n; Note: kept verbatim  \n\
                    1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n\
                    2 5 0 1 1 2.25 1024.5 1 60 -1 0 8 2 3 1 -1 -1 -1\n";
        let mut first = SwfReader::new(text.as_bytes(), "a").unwrap();
        let records: Vec<_> = first.by_ref().map(|r| r.unwrap().record).collect();
        let mut w = SwfWriter::new(Vec::new(), &first.header().lines).unwrap();
        for r in &records {
            w.write(r).unwrap();
        }
        let bytes = w.finish().unwrap();
        let mut second = SwfReader::new(bytes.as_slice(), "b").unwrap();
        let again: Vec<_> = second.by_ref().map(|r| r.unwrap().record).collect();
        assert_eq!(records, again);
        assert_eq!(first.header(), second.header());
        assert!(
            String::from_utf8(bytes)
                .unwrap()
                .contains("; Note: kept verbatim  \n")
        );
    }

    fn record() -> impl proptest::strategy::Strategy<Value = SwfRecord> {
        use proptest::prelude::*;
        let int = || {
            prop_oneof![
                Just(-1i64),
                0i64..10_000_000,
                any::<i32>().prop_map(i64::from)
            ]
        };
        let float = || {
            prop_oneof![
                Just(-1.0f64),
                (0u32..1_000_000).prop_map(|v| f64::from(v) / 8.0)
            ]
        };
        (
            proptest::array::uniform6(int()),
            proptest::array::uniform6(int()),
            proptest::array::uniform3(int()),
            (float(), float(), float()),
        )
            .prop_map(|(a, b, c, (f1, f2, f3))| SwfRecord {
                job: a[0],
                submit: a[1],
                wait: a[2],
                run: a[3],
                alloc_procs: a[4],
                avg_cpu: f1,
                used_mem: f2,
                req_procs: a[5],
                req_time: b[0],
                req_mem: f3,
                status: b[1],
                user: b[2],
                group: b[3],
                app: b[4],
                queue: b[5],
                partition: c[0],
                preceding: c[1],
                think: c[2],
            })
    }

    proptest::proptest! {
        /// Writing records and reading them back gives the same records.
        #[test]
        fn any_records_round_trip(records in proptest::collection::vec(record(), 0..50)) {
            let mut w = SwfWriter::new(Vec::new(), &["; Version: 2.2".to_owned()]).unwrap();
            for r in &records {
                w.write(r).unwrap();
            }
            let bytes = w.finish().unwrap();
            let back: Vec<_> = SwfReader::new(bytes.as_slice(), "p")
                .unwrap()
                .map(|r| r.unwrap().record)
                .collect();
            proptest::prop_assert_eq!(records, back);
        }
    }
}
