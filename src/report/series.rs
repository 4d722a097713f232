//! What a run's jobs say over time: step functions (processors busy, jobs waiting, ...)
//! averaged over hours or weeks, computed from a run's jobs when its report is written.

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
}
