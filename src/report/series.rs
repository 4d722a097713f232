//! What a run's jobs say over time: step functions (processors busy, jobs waiting, ...)
//! averaged over hours or weeks, and the processors each job held, for the schedule view.
//!
//! Both are computed from a run's `jobs.csv` when its report is written: the simulation
//! does not assign processors (a job needs a number of them, not particular ones), so the
//! schedule view places each job, in order of start, on the lowest-numbered processors
//! free then, as a machine allocating first-fit would.

use std::collections::BTreeMap;

use crate::time::Time;

/// A step function given by its changes: `(time, change)` in any order.
#[derive(Debug, Clone, Default)]
pub struct Steps(Vec<(Time, f64)>);

impl Steps {
    /// Adds `change` at `at`.
    pub fn add(&mut self, at: Time, change: f64) {
        self.0.push((at, change));
    }

    /// Adds `value` over `[from, to)`.
    pub fn span(&mut self, from: Time, to: Time, value: f64) {
        if to > from {
            self.add(from, value);
            self.add(to, -value);
        }
    }

    /// The function's mean over each bucket of `width` from `start` up to `end` (the last
    /// one cut at `end`): its integral over the bucket divided by the bucket's length.
    pub fn means(mut self, start: Time, end: Time, width: Time) -> Vec<f64> {
        if end <= start || width <= 0 {
            return Vec::new();
        }
        let n = ((end - start + width - 1) / width) as usize;
        let mut area = vec![0.0; n];
        self.0.sort_by_key(|&(t, _)| t);
        let mut value = 0.0;
        let mut at = start;
        let mut changes = self.0.into_iter().peekable();
        // Changes before the start set the value the buckets begin with.
        while let Some(&(t, d)) = changes.peek()
            && t <= start
        {
            value += d;
            changes.next();
        }
        let mut add = |from: Time, to: Time, value: f64| {
            let mut t = from;
            while t < to {
                let k = ((t - start) / width) as usize;
                let bucket_end = (start + (k as Time + 1) * width).min(to);
                area[k] += value * (bucket_end - t) as f64;
                t = bucket_end;
            }
        };
        for (t, d) in changes {
            let t = t.min(end);
            if t > at {
                add(at, t, value);
                at = t;
            }
            value += d;
        }
        if end > at {
            add(at, end, value);
        }
        area.iter()
            .enumerate()
            .map(|(k, a)| {
                let from = start + k as Time * width;
                let len = (from + width).min(end) - from;
                a / len as f64
            })
            .collect()
    }
}

/// The processors a job held: `(first, count)` ranges.
pub type Placement = Vec<(u32, u32)>;

/// Places jobs `(start, end, size)` on processors numbered from 0, in order of start
/// (ends first at equal times), each on the lowest-numbered processors free then; the
/// machine grows past `procs` if more are busy (a run of the log's own service, whose
/// machine is unbounded). Returns each job's ranges, in the order given.
pub fn place(jobs: &[(Time, Time, u32)], procs: u32) -> Vec<Placement> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (jobs[i].0, i));
    // Free ranges: first processor -> count; then every processor from `top` on.
    let mut free: BTreeMap<u32, u32> = BTreeMap::new();
    if procs > 0 {
        free.insert(0, procs);
    }
    let mut top = procs;
    let mut ends: BTreeMap<(Time, usize), ()> = BTreeMap::new();
    let mut placed: Vec<Placement> = vec![Vec::new(); jobs.len()];
    for i in order {
        let (start, end, size) = jobs[i];
        while let Some((&(t, j), _)) = ends.first_key_value()
            && t <= start
        {
            ends.pop_first();
            for &(first, count) in &placed[j] {
                release(&mut free, first, count);
            }
        }
        let mut need = size;
        let mut got = Vec::new();
        while need > 0 {
            let Some((&first, &count)) = free.iter().next() else {
                got.push((top, need));
                top += need;
                break;
            };
            free.remove(&first);
            let take = count.min(need);
            got.push((first, take));
            if count > take {
                free.insert(first + take, count - take);
            }
            need -= take;
        }
        placed[i] = got;
        ends.insert((end, i), ());
    }
    placed
}

/// Returns `count` processors from `first` to the free ranges, merged with their
/// neighbours.
fn release(free: &mut BTreeMap<u32, u32>, first: u32, count: u32) {
    let (mut first, mut count) = (first, count);
    if let Some((&before, &n)) = free.range(..first).next_back()
        && before + n == first
    {
        free.remove(&before);
        first = before;
        count += n;
    }
    if let Some(&n) = free.get(&(first + count)) {
        free.remove(&(first + count));
        count += n;
    }
    free.insert(first, count);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_integrate_over_each_bucket() {
        let mut s = Steps::default();
        s.span(0, 15, 2.0);
        s.span(5, 30, 1.0);
        // [0,10): 2*10 + 1*5 = 25 -> 2.5; [10,20): 2*5 + 1*10 = 20 -> 2; [20,25): 1.
        assert_eq!(s.means(0, 25, 10), [2.5, 2.0, 1.0]);
        let mut s = Steps::default();
        s.span(-10, 5, 4.0);
        assert_eq!(s.means(0, 10, 10), [2.0]);
        assert!(Steps::default().means(5, 5, 10).is_empty());
    }

    #[test]
    fn jobs_take_the_lowest_free_processors_and_give_them_back() {
        // 4 processors: a (0-10, 2) and b (0-5, 1) take 0-1 and 2; c (5-20, 2) takes b's
        // and the last one; d (10-12, 3) takes a's two and, with only two free, one past
        // the machine's end (as the log's own service may).
        let jobs = [(0, 10, 2), (0, 5, 1), (5, 20, 2), (10, 12, 3)];
        let placed = place(&jobs, 4);
        assert_eq!(placed[0], [(0, 2)]);
        assert_eq!(placed[1], [(2, 1)]);
        assert_eq!(placed[2], [(2, 2)]);
        assert_eq!(placed[3], [(0, 2), (4, 1)]);
        // Released ranges merge: after a and b end, 0-3 is one range again.
        let placed = place(&[(0, 5, 2), (0, 5, 2), (5, 9, 4)], 4);
        assert_eq!(placed[2], [(0, 4)]);
    }
}
