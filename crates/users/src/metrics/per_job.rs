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
//!
//! The last column, `processors`, names the processors each job held (Batsim's interval
//! set, `0-3 8 10-11`): the simulation counts processors without naming them, so the
//! writer places each job as it starts, first-fit contiguous ([`Allocator`]), keeps them
//! in the job's slot of the queue that puts rows in submission order, and gives them back
//! as it ends.

use std::collections::VecDeque;
use std::io::{self, Write};

use super::slowdown::Bsld;
use crate::alloc::{Allocator, ProcSet};
use crate::job::{JobOutcome, JobRequest};
use crate::swf::{KeptRecords, SwfRecord, SwfWriter};
use crate::textfmt::Text;

/// The slot at `offset` from the front of `held`, made (with those before it) if new.
fn slot(held: &mut VecDeque<Slot>, offset: usize) -> &mut Slot {
    while held.len() <= offset {
        held.push_back(Slot::default());
    }
    &mut held[offset]
}

/// The CSV header.
pub const CSV_HEADER: &str = "job,seq,user,submit,wait,start,end,runtime,size,estimate,\
requested_runtime,killed,backfilled,response,bounded_slowdown,prediction,\
absolute_inaccuracy,relative_accuracy,deadline_misses,processors\n";

/// Writes finished jobs in submission order, holding early finishers until every job
/// submitted before them has ended.
pub struct PerJobWriter<C: Write, S: Write> {
    csv: Option<C>,
    swf: Option<SwfWriter<S>>,
    bsld: Bsld,
    /// The first job not yet written: `held[0]` is its slot.
    next_seq: u64,
    /// A slot for each job from `next_seq` on, by submission number, as far as the
    /// latest to start or end.
    held: VecDeque<Slot>,
    /// The machine's processors, for the CSV's `processors` column.
    machine: Allocator,
    /// CSV rows not yet handed to `csv`.
    text: Text,
    /// The jobs' log records, by tag, put in by the source: each is taken out as its job
    /// is written to `swf`.
    records: Option<KeptRecords>,
}

/// What the writer keeps of a job not yet written: its processors from its start (the
/// slot holds them where a map of running jobs cost a hash insert and remove a job), and
/// the job once it ended, until every job submitted before it has.
#[derive(Default)]
struct Slot {
    processors: ProcSet,
    ended: Option<JobOutcome>,
}

impl<C: Write, S: Write> PerJobWriter<C, S> {
    /// Writes the CSV header to `csv` (if any); `swf` must already hold its header. Jobs
    /// are placed on a machine of `procs` processors.
    pub fn new(
        mut csv: Option<C>,
        swf: Option<SwfWriter<S>>,
        bsld: Bsld,
        procs: u32,
    ) -> io::Result<Self> {
        if let Some(c) = &mut csv {
            c.write_all(CSV_HEADER.as_bytes())?;
        }
        Ok(PerJobWriter {
            csv,
            swf,
            bsld,
            next_seq: 0,
            held: VecDeque::new(),
            machine: Allocator::new(procs),
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

    /// Places a job that starts now on free processors (only when writing the CSV).
    pub fn start(&mut self, job: &JobRequest) {
        if self.csv.is_some() {
            let offset = (job.seq - self.next_seq) as usize;
            slot(&mut self.held, offset).processors = self.machine.take(job.size);
        }
    }

    /// Takes a finished job; gives back its processors, writes it and every held job
    /// that can follow it.
    pub fn push(&mut self, job: &JobOutcome) -> io::Result<()> {
        let offset = (job.seq - self.next_seq) as usize;
        let slot = slot(&mut self.held, offset);
        self.machine.give_back(&slot.processors);
        if offset == 0 {
            // The common case: nothing submitted earlier is still running.
            let Slot { processors, .. } = self.held.pop_front().expect("its slot");
            self.next_seq += 1;
            self.write(job, &processors)?;
        } else {
            slot.ended = Some(job.clone());
        }
        while self.held.front().is_some_and(|s| s.ended.is_some()) {
            let Slot { processors, ended } = self.held.pop_front().expect("checked");
            self.next_seq += 1;
            self.write(&ended.expect("checked"), &processors)?;
        }
        Ok(())
    }

    /// Jobs placed on more than one block of processors: no block was free that held
    /// them when they started.
    pub fn scattered(&self) -> u64 {
        self.machine.scattered()
    }

    fn write(&mut self, j: &JobOutcome, processors: &ProcSet) -> io::Result<()> {
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
            t.push_int(i64::from(a.misses), b',');
            match processors.ranges() {
                [] => t.push(b'\n'),
                &[(first, last)] => t.push_range(first, last, b'\n'),
                ranges => {
                    // A scattered job's may be longer than a row's room: the buffer is
                    // emptied after each range.
                    for (k, &(first, last)) in ranges.iter().enumerate() {
                        let then = if k + 1 == ranges.len() { b'\n' } else { b' ' };
                        t.push_range(first, last, then);
                        t.write_if_full(csv)?;
                    }
                }
            }
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

    fn request(seq: u64, size: u32) -> JobRequest {
        JobRequest {
            id: seq as u32,
            seq,
            submit: 0,
            size,
            estimate: 100,
            plan: 100,
            user: 9,
            app: -1,
            think: 0,
            logged_wait: None,
            opens_session: None,
        }
    }

    #[test]
    fn rows_come_out_in_submission_order() {
        let mut csv = Vec::new();
        let mut w: PerJobWriter<&mut Vec<u8>, Vec<u8>> =
            PerJobWriter::new(Some(&mut csv), None, Bsld::default(), 6).unwrap();
        // Jobs 1 and 2 start at 0, job 0 at 3 on the two processors left.
        for seq in [1, 2, 0] {
            w.start(&request(seq, 2));
        }
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
                "1,0,9,0,3,3,20,17,2,100,17,0,0,20,1.176,0,0.000,0.000,0,4-5",
                "2,1,9,0,0,0,5,5,2,100,5,0,1,5,1.000,0,0.000,0.000,0,0-1",
                "3,2,9,0,0,0,7,7,2,100,7,0,0,7,1.000,0,0.000,0.000,0,2-3",
            ]
        );
    }

    #[test]
    fn a_job_on_scattered_processors_lists_each_block() {
        let mut csv = Vec::new();
        let mut w: PerJobWriter<&mut Vec<u8>, Vec<u8>> =
            PerJobWriter::new(Some(&mut csv), None, Bsld::default(), 4).unwrap();
        // 0 on processor 0, 1 on 1-2, 2 on 3; 0 and 2 end; 3 gets 0 and 3.
        for (seq, size) in [(0, 1), (1, 2), (2, 1)] {
            w.start(&request(seq, size));
        }
        let ended = |seq: u64, size: u32, w: &mut PerJobWriter<&mut Vec<u8>, Vec<u8>>| {
            w.push(&JobOutcome {
                size,
                ..outcome(seq, 0, 5)
            })
            .unwrap()
        };
        ended(0, 1, &mut w);
        ended(2, 1, &mut w);
        w.start(&request(3, 2));
        assert_eq!(w.scattered(), 1);
        ended(1, 2, &mut w);
        ended(3, 2, &mut w);
        w.finish().unwrap();
        let text = String::from_utf8(csv).unwrap();
        let last: Vec<_> = text
            .lines()
            .map(|l| l.rsplit(',').next().unwrap())
            .collect();
        assert_eq!(last, ["processors", "0", "1-2", "3", "0 3"]);
    }
}
