//! Per-job outputs: a CSV of every job's simulated times and the simulated schedule as an
//! SWF log, both in submission order although jobs end out of order.
//!
//! `jobs.csv` stays hand-written (rows written in place into one buffer, a [`Text`]) where the
//! smaller CSV files go through the csv crate ([`crate::textfmt::write_csv`]): every
//! replay with `--out` writes it, a row per job, and the csv crate was measured slower
//! than the 5% of the whole replay its writer may cost. A `csv::Writer` serializing a
//! `#[derive(Serialize)]` row with the same bytes (three-decimal fields through a
//! newtype writing digits in place too; `benches/csv.rs`), on KTH under EASY, 28,489 rows:
//! - `sitesim replay --out`, instructions (callgrind): 408.8 M against 353.8 M, +15.5%
//!   (the CSV rows alone 134 M against 79 M; 184.6 M without `--out`);
//! - the whole process, CPU time, paired runs (30 and 40 pairs): medians 1.10 and 1.09
//!   times the hand-written writer's;
//! - the writers alone into a `Vec<u8>` (`cargo bench --bench csv`): 13.1 ms against
//!   7.8 ms (12.7 ms with the crate's quoting check off), +5.2 ms on a replay with
//!   outputs that takes 48.9 ms in the same run: +10.7%.
//!
//! The rows are numbers only, so the crate's quoting would have nothing to do.

use std::collections::VecDeque;
use std::io::{self, Write};

use super::slowdown::Bsld;
use crate::job::JobOutcome;
use crate::swf::{KeptRecords, SwfRecord, SwfWriter};
use crate::textfmt::Text;

/// The CSV header.
pub const CSV_HEADER: &str = "job,seq,user,submit,wait,start,end,runtime,size,estimate,\
requested_runtime,killed,backfilled,response,bounded_slowdown,prediction,\
absolute_inaccuracy,relative_accuracy,deadline_misses\n";

/// Writes finished jobs in submission order, holding early finishers until every job
/// submitted before them has ended.
pub struct PerJobWriter<C: Write, S: Write> {
    csv: Option<C>,
    swf: Option<SwfWriter<S>>,
    bsld: Bsld,
    next_seq: u64,
    held: VecDeque<Option<JobOutcome>>,
    /// CSV rows not yet handed to `csv`.
    text: Text,
    /// The jobs' log records, by tag, put in by the source: each is taken out as its job
    /// is written to `swf`.
    records: Option<KeptRecords>,
}

impl<C: Write, S: Write> PerJobWriter<C, S> {
    /// Writes the CSV header to `csv` (if any); `swf` must already hold its header.
    pub fn new(mut csv: Option<C>, swf: Option<SwfWriter<S>>, bsld: Bsld) -> io::Result<Self> {
        if let Some(c) = &mut csv {
            c.write_all(CSV_HEADER.as_bytes())?;
        }
        Ok(PerJobWriter {
            csv,
            swf,
            bsld,
            next_seq: 0,
            held: VecDeque::new(),
            text: Text::default(),
            records: None,
        })
    }

    /// Joins each job's log record back from `records` by its tag, so that the schedule
    /// written keeps the fields the simulation does not change.
    pub fn with_records(mut self, records: Option<KeptRecords>) -> Self {
        self.records = records;
        self
    }

    /// Takes a finished job; writes it and every held job that can follow it.
    pub fn push(&mut self, job: &JobOutcome) -> io::Result<()> {
        let offset = (job.seq - self.next_seq) as usize;
        if self.held.len() <= offset {
            self.held.resize(offset + 1, None);
        }
        if offset == 0 {
            // The common case: nothing submitted earlier is still running.
            self.next_seq += 1;
            self.held.pop_front();
            self.write(job)?;
        } else {
            self.held[offset] = Some(job.clone());
        }
        while let Some(Some(_)) = self.held.front() {
            let next = self.held.pop_front().flatten().expect("checked");
            self.next_seq += 1;
            self.write(&next)?;
        }
        Ok(())
    }

    fn write(&mut self, j: &JobOutcome) -> io::Result<()> {
        if let Some(csv) = &mut self.csv {
            let t = &mut self.text;
            for v in [
                j.job,
                j.seq as i64,
                j.user,
                j.submit,
                j.wait(),
                j.start,
                j.end,
                j.runtime(),
                i64::from(j.size),
                j.estimate,
                j.requested_runtime,
                i64::from(j.killed),
                i64::from(j.backfilled),
                j.response(),
            ] {
                t.push_int(v, b',');
            }
            t.push_milli(self.bsld.of(j.wait(), j.runtime()), b',');
            let a = &j.accuracy;
            t.push_int(a.first_plan, b',');
            t.push_milli(a.absolute_inaccuracy, b',');
            t.push_milli(a.relative_accuracy, b',');
            t.push_int(i64::from(a.misses), b'\n');
            t.write_if_full(csv)?;
        }
        if let Some(swf) = &mut self.swf {
            let record = (self.records.as_ref()).and_then(|r| r.borrow_mut().remove(&j.tag));
            swf.write(&simulated_record(j, record))?;
        }
        Ok(())
    }

    /// Writes what is left and flushes both outputs. Every submitted job must have ended.
    pub fn finish(mut self) -> io::Result<()> {
        debug_assert!(self.held.is_empty(), "jobs still held at the end");
        if let Some(mut c) = self.csv {
            self.text.write_to(&mut c)?;
            c.flush()?;
        }
        if let Some(s) = self.swf {
            s.finish()?;
        }
        Ok(())
    }
}

/// The log record of a finished job with its simulated submit time (field 2), wait (3),
/// runtime (4), processors (5 and 8 when unknown) and estimate (9); a job killed at its
/// estimate gets status 0 (failed). The other fields are its log `record`'s, unknown
/// without one.
pub fn simulated_record(j: &JobOutcome, record: Option<SwfRecord>) -> SwfRecord {
    let mut r = record.unwrap_or(SwfRecord {
        job: j.job,
        user: j.user,
        ..SwfRecord::UNKNOWN
    });
    r.submit = j.submit;
    r.wait = j.wait();
    r.run = j.runtime();
    r.alloc_procs = i64::from(j.size);
    if r.req_procs <= 0 {
        r.req_procs = i64::from(j.size);
    }
    r.req_time = j.estimate;
    if j.killed {
        r.status = 0;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(seq: u64, start: i64, end: i64) -> JobOutcome {
        JobOutcome {
            seq,
            submit: 0,
            start,
            end,
            size: 2,
            estimate: 100,
            requested_runtime: end - start,
            killed: false,
            backfilled: seq == 1,
            user: 9,
            job: seq as i64 + 1,
            tag: seq,
            accuracy: Default::default(),
        }
    }

    #[test]
    fn rows_come_out_in_submission_order() {
        let mut csv = Vec::new();
        let mut w: PerJobWriter<&mut Vec<u8>, Vec<u8>> =
            PerJobWriter::new(Some(&mut csv), None, Bsld::default()).unwrap();
        w.push(&outcome(1, 0, 5)).unwrap();
        w.push(&outcome(2, 0, 7)).unwrap();
        assert!(w.text.as_bytes().is_empty(), "rows held until job 0 ends");
        w.push(&outcome(0, 3, 20)).unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(csv).unwrap();
        let rows: Vec<_> = text.lines().skip(1).collect();
        assert_eq!(
            rows,
            [
                "1,0,9,0,3,3,20,17,2,100,17,0,0,20,1.176,0,0.000,0.000,0",
                "2,1,9,0,0,0,5,5,2,100,5,0,1,5,1.000,0,0.000,0.000,0",
                "3,2,9,0,0,0,7,7,2,100,7,0,0,7,1.000,0,0.000,0.000,0",
            ]
        );
    }
}
