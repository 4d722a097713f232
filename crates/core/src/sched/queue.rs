//! The waiting jobs, in the order they joined the queue.

use crate::job::{JobId, JobRequest};

/// The waiting jobs in the order they joined the queue: submission order in a simulation,
/// the order of release for a policy under `limits`.
///
/// Jobs leave from anywhere: EASY backfills jobs from deep in a long queue. A job that
/// leaves is found by its id (a table of places by id) and its place marked empty; empty
/// places are skipped, passed over as the front moves past them, and dropped all at once
/// when they pass an eighth of the jobs (a policy that reads the whole queue at every pass
/// reads few of them) or, before the front, the rest of the table. So a removal costs
/// O(1) (amortized), not a move of every job behind it, which made each pass O(queue) in a
/// saturated machine (docs/PERFORMANCE.md, "Saturation at scale").
#[derive(Debug, Clone, Default)]
pub struct Queue {
    /// The jobs, and empty places, from the front.
    jobs: Vec<JobRequest>,
    /// Whether the place at the same index is empty.
    gone: Vec<bool>,
    /// Index of the first job (no job before it), or `jobs.len()`.
    head: usize,
    /// The index of the job last added with each id.
    at: Vec<u32>,
    /// Number of jobs.
    len: usize,
}

/// Empty places a queue keeps at most beyond an eighth of the jobs it holds.
const SLACK: usize = 64;

impl Queue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes room for `n` more jobs.
    pub fn reserve(&mut self, n: usize) {
        self.jobs.reserve(n);
        self.gone.reserve(n);
    }

    /// Number of waiting jobs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no job waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first job.
    pub fn front(&self) -> Option<&JobRequest> {
        self.jobs.get(self.head)
    }

    /// The jobs, first to last.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            jobs: self.jobs[self.head..].iter().zip(&self.gone[self.head..]),
        }
    }

    /// The jobs, first to last, each with its place: places keep the queue's order and
    /// stay valid ([`Queue::at`]) until the queue changes.
    pub(super) fn places(&self) -> impl Iterator<Item = (usize, &JobRequest)> {
        (self.head..self.jobs.len())
            .zip(&self.jobs[self.head..])
            .filter(|&(i, _)| !self.gone[i])
    }

    /// The job at `place` ([`Queue::places`]).
    pub(super) fn at(&self, place: usize) -> &JobRequest {
        debug_assert!(!self.gone[place], "place {place} is empty");
        &self.jobs[place]
    }

    /// Adds `job` at the back.
    pub fn push_back(&mut self, job: JobRequest) {
        // The places before the head go once they outnumber the rest: a queue that never
        // empties would otherwise keep every job it ever held (KTH's: 2.9 MB).
        let rest = self.jobs.len() - self.head;
        if rest - self.len > self.len / 8 + SLACK || self.head > rest + SLACK {
            self.compact();
        }
        let id = job.id as usize;
        if self.at.len() <= id {
            self.at.resize(id + 1, 0);
        }
        self.at[id] = self.jobs.len() as u32;
        self.jobs.push(job);
        self.gone.push(false);
        self.len += 1;
    }

    /// Removes every job.
    pub fn clear(&mut self) {
        self.jobs.clear();
        self.gone.clear();
        self.head = 0;
        self.len = 0;
    }

    /// The index of the waiting job of submission number `seq`: by a binary search when
    /// the queue is in submission order (a simulation's always is), else by a scan.
    fn index_of(&self, seq: u64) -> Option<usize> {
        let jobs = &self.jobs[self.head..];
        let found = match jobs.binary_search_by_key(&seq, |j| j.seq) {
            Ok(i) => Some(i),
            Err(_) => jobs.iter().position(|j| j.seq == seq),
        };
        found.map(|i| i + self.head).filter(|&i| !self.gone[i])
    }

    /// The index of waiting job `id` of submission number `seq`: from the table by id,
    /// or else (ids repeated in a queue made by hand) by submission number.
    fn locate(&self, id: JobId, seq: u64) -> Option<usize> {
        let at = self.at.get(id as usize).map(|&i| i as usize);
        match at {
            Some(i)
                if i >= self.head && i < self.jobs.len() && !self.gone[i] && {
                    let job = &self.jobs[i];
                    job.id == id && job.seq == seq
                } =>
            {
                Some(i)
            }
            _ => self.index_of(seq).filter(|&i| self.jobs[i].id == id),
        }
    }

    /// The waiting job of submission number `seq`: found in O(log n) when the queue is in
    /// submission order, in O(n) otherwise.
    pub fn find(&self, seq: u64) -> Option<&JobRequest> {
        self.index_of(seq).map(|i| &self.jobs[i])
    }

    /// Waiting job `id` of submission number `seq`, to change.
    pub fn get_mut(&mut self, id: JobId, seq: u64) -> Option<&mut JobRequest> {
        self.locate(id, seq).map(|i| &mut self.jobs[i])
    }

    /// Removes job `id` of submission number `seq` if it waits here; returns whether it
    /// did.
    pub fn remove(&mut self, id: JobId, seq: u64) -> bool {
        let Some(at) = self.locate(id, seq) else {
            return false;
        };
        self.gone[at] = true;
        self.len -= 1;
        if at == self.head {
            while self.head < self.jobs.len() && self.gone[self.head] {
                self.head += 1;
            }
            if self.head == self.jobs.len() {
                self.clear();
            }
        }
        true
    }

    /// Drops the empty places.
    fn compact(&mut self) {
        let mut kept = self.head;
        for i in self.head..self.jobs.len() {
            if !self.gone[i] {
                self.jobs[kept] = self.jobs[i];
                kept += 1;
            }
        }
        self.jobs.truncate(kept);
        self.jobs.drain(..self.head);
        self.gone.clear();
        self.gone.resize(self.jobs.len(), false);
        self.head = 0;
        for (i, job) in self.jobs.iter().enumerate() {
            self.at[job.id as usize] = i as u32;
        }
    }
}

/// The jobs of a [`Queue`], first to last.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    jobs: std::iter::Zip<std::slice::Iter<'a, JobRequest>, std::slice::Iter<'a, bool>>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a JobRequest;

    fn next(&mut self) -> Option<&'a JobRequest> {
        self.jobs.find(|(_, gone)| !**gone).map(|(job, _)| job)
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.jobs.rfind(|(_, gone)| !**gone).map(|(job, _)| job)
    }
}

impl<'a> IntoIterator for &'a Queue {
    type Item = &'a JobRequest;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<JobRequest> for Queue {
    fn from_iter<I: IntoIterator<Item = JobRequest>>(jobs: I) -> Self {
        let mut queue = Queue::new();
        queue.extend(jobs);
        queue
    }
}

impl Extend<JobRequest> for Queue {
    fn extend<I: IntoIterator<Item = JobRequest>>(&mut self, jobs: I) {
        for job in jobs {
            self.push_back(job);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(seq: u64) -> JobRequest {
        JobRequest {
            id: (seq % 7) as JobId,
            seq,
            submit: 0,
            size: 1,
            estimate: 1,
            plan: 1,
            user: 0,
            app: -1,
            think: 0,
            logged_wait: None,
            opens_session: None,
        }
    }

    /// Removing from anywhere keeps the order of the jobs left, as a vector does.
    #[test]
    fn keeps_the_order_of_a_vector() {
        let mut queue = Queue::new();
        let mut model: Vec<JobRequest> = Vec::new();
        let mut x: u64 = 11;
        let mut seq = 0;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if x % 5 < 3 || model.is_empty() {
                queue.push_back(job(seq));
                model.push(job(seq));
                seq += 1;
            } else {
                let i = if x.is_multiple_of(2) {
                    0
                } else {
                    (x >> 33) as usize % model.len()
                };
                let j = model.remove(i);
                assert!(!queue.remove(j.id + 1, j.seq), "the id must match");
                assert!(queue.remove(j.id, j.seq));
                assert!(!queue.remove(j.id, j.seq), "removed twice");
            }
            assert_eq!(queue.len(), model.len());
            assert_eq!(queue.front(), model.first());
            assert!(queue.iter().eq(model.iter()));
            assert!(queue.jobs.len() - queue.head <= queue.len() + queue.len() / 8 + SLACK + 1);
        }
        let some = model[model.len() / 2];
        queue.get_mut(some.id, some.seq).unwrap().plan = 9;
        assert_eq!(queue.find(some.seq).unwrap().plan, 9);
        assert!(queue.find(seq).is_none());
    }

    /// A queue out of submission order (a policy under `limits`) is searched by a scan.
    #[test]
    fn finds_jobs_out_of_submission_order() {
        let mut queue: Queue = [5, 2, 9, 1].map(job).into_iter().collect();
        assert!(queue.remove(job(9).id, 9));
        assert_eq!(queue.find(1).map(|j| j.seq), Some(1));
        assert!(queue.iter().map(|j| j.seq).eq([5, 2, 1]));
    }
}
