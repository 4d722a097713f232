//! The measurement window: warm-up and cool-down exclusion, and the integral of busy
//! processors over time from which utilization over any part of the window is exact.
//!
//! The window is `[first submit + warm-up, end]`, where `end` is the last submit minus the
//! cool-down when a cool-down is set, and otherwise the end of the last job. The last
//! submit time is known only when the workload is exhausted, so values that may fall in
//! the cool-down are held back ([`Deferred`]) until later submissions or the end of the run
//! decide them, and the busy integral keeps checkpoints for the trailing cool-down span.

use std::collections::VecDeque;

use crate::time::Time;

/// Processor-seconds of busy processors, integrated exactly.
#[derive(Debug, Clone)]
pub struct BusyIntegral {
    last: Time,
    busy: i64,
    integral: i128,
    window_start: Time,
    at_window_start: Option<i128>,
    keep_history: bool,
    /// `(t, integral at t, busy from t on)`, covering the trailing cool-down span.
    history: VecDeque<(Time, i128, i64)>,
}

impl BusyIntegral {
    /// Starts integrating at `origin` with no processor busy; `window_start` is where the
    /// measurement window opens; with `keep_history` the integral can be asked about the
    /// past (see [`BusyIntegral::prune_before`]).
    pub fn new(origin: Time, window_start: Time, keep_history: bool) -> Self {
        let mut b = BusyIntegral {
            last: origin,
            busy: 0,
            integral: 0,
            window_start,
            at_window_start: None,
            keep_history,
            history: VecDeque::new(),
        };
        b.checkpoint();
        b
    }

    fn checkpoint(&mut self) {
        if self.keep_history {
            self.history
                .push_back((self.last, self.integral, self.busy));
        }
    }

    fn advance(&mut self, t: Time) {
        debug_assert!(t >= self.last, "busy integral moved backwards");
        if self.at_window_start.is_none() && t >= self.window_start {
            let before = (self.window_start - self.last).max(0);
            self.at_window_start = Some(self.integral + i128::from(self.busy) * i128::from(before));
        }
        self.integral += i128::from(self.busy) * i128::from(t - self.last);
        self.last = t;
    }

    /// `delta` processors become busy (negative: free) at `t`.
    pub fn change(&mut self, t: Time, delta: i64) {
        self.advance(t);
        self.busy += delta;
        self.checkpoint();
    }

    /// Forgets checkpoints that no later query can need (all queries are at or after `t`).
    pub fn prune_before(&mut self, t: Time) {
        while self.history.len() > 1 && self.history[1].0 <= t {
            self.history.pop_front();
        }
    }

    /// Busy processor-seconds from the origin to `t`.
    pub fn at(&self, t: Time) -> i128 {
        if t >= self.last {
            return self.integral + i128::from(self.busy) * i128::from(t - self.last);
        }
        let i = self.history.partition_point(|c| c.0 <= t);
        let (ct, ci, cb) = self.history[i.saturating_sub(1)];
        ci + i128::from(cb) * i128::from((t - ct).max(0))
    }

    /// Busy processor-seconds over `[window start, end]`.
    pub fn over_window(&self, end: Time) -> i128 {
        let start = self
            .at_window_start
            .unwrap_or_else(|| self.at(self.window_start));
        self.at(end) - start
    }
}

/// Items waiting to learn whether their time falls before the window's end, kept in
/// order of `(time, tie)`.
///
/// Items come in nearly in that order: ends in time order, and finished jobs keyed by
/// their submission, whose places are taken at submission ([`Deferred::expect`]), so
/// that holding one fills its place found by binary search and nothing ever moves. A
/// release pops from the front. (A heap kept them before; sifting its items cost about a
/// tenth of a resampled replication.)
pub struct Deferred<T> {
    /// In order of key; `None` for a place taken and not (yet) filled.
    items: VecDeque<((Time, u64), Option<T>)>,
}

impl<T> Default for Deferred<T> {
    fn default() -> Self {
        Deferred {
            items: VecDeque::new(),
        }
    }
}

impl<T> Deferred<T> {
    /// Takes a place for an item of key `(time, tie)` that may be held later; keys of
    /// places come in increasing order.
    pub fn expect(&mut self, time: Time, tie: u64) {
        let key = (time, tie);
        if self.items.back().is_none_or(|b| b.0 < key) {
            self.items.push_back((key, None));
        } else {
            self.place(key);
        }
    }

    /// Holds `item`, whose time is `time` (`tie` breaks equal times deterministically):
    /// in its place if one was taken, else inserted in order.
    pub fn hold(&mut self, time: Time, tie: u64, item: T) {
        let key = (time, tie);
        match self.items.back() {
            Some(b) if b.0 > key => {}
            Some(b) if b.0 == key => {
                self.items.back_mut().expect("not empty").1 = Some(item);
                return;
            }
            _ => {
                self.items.push_back((key, Some(item)));
                return;
            }
        }
        // Places taken for consecutive ties (a site's submission numbers) sit at the
        // tie's distance from the front.
        let guess = tie.wrapping_sub(self.items[0].0.1);
        if let Some(e) = usize::try_from(guess)
            .ok()
            .and_then(|i| self.items.get_mut(i))
            && e.0 == key
        {
            e.1 = Some(item);
            return;
        }
        *self.place(key) = Some(item);
    }

    /// The place of key `key`, found by binary search, or taken empty in order.
    fn place(&mut self, key: (Time, u64)) -> &mut Option<T> {
        let i = match self.items.binary_search_by(|e| e.0.cmp(&key)) {
            Ok(i) => i,
            Err(i) => {
                self.items.insert(i, (key, None));
                i
            }
        };
        &mut self.items[i].1
    }

    /// Hands every item whose time is at most `bound` to `f`, earliest first, and forgets
    /// the places up to `bound`.
    pub fn release(&mut self, bound: Time, mut f: impl FnMut(T)) {
        while self.items.front().is_some_and(|e| e.0.0 <= bound) {
            if let Some((_, Some(item))) = self.items.pop_front() {
                f(item);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_and_window() {
        // 4 processors busy over [10, 30), 2 more over [20, 40).
        let mut b = BusyIntegral::new(0, 15, true);
        b.change(10, 4);
        b.change(20, 2);
        b.change(30, -4);
        b.change(40, -2);
        assert_eq!(b.at(40), 4 * 20 + 2 * 20);
        assert_eq!(b.at(25), 4 * 15 + 2 * 5);
        assert_eq!(b.at(5), 0);
        assert_eq!(b.over_window(40), 4 * 15 + 2 * 20);
        assert_eq!(b.over_window(25), 4 * 10 + 2 * 5);
        b.prune_before(25);
        assert_eq!(b.at(25), 4 * 15 + 2 * 5);
        assert_eq!(b.at(100), 120);
    }

    #[test]
    fn deferred_releases_in_time_order() {
        let mut d = Deferred::default();
        d.hold(30, 0, "c");
        d.hold(10, 1, "a");
        d.hold(20, 2, "b");
        let mut out = Vec::new();
        d.release(20, |x| out.push(x));
        assert_eq!(out, ["a", "b"]);
        d.release(100, |x| out.push(x));
        assert_eq!(out, ["a", "b", "c"]);
    }

    #[test]
    fn places_taken_in_order_are_filled_out_of_order() {
        let mut d = Deferred::default();
        for (t, tie) in [(10, 0), (10, 1), (20, 2), (30, 3), (40, 4)] {
            d.expect(t, tie);
        }
        d.hold(30, 3, "d");
        d.hold(10, 1, "b");
        // Never taken: inserted in order.
        d.hold(15, 9, "c");
        d.hold(10, 0, "a");
        let mut out = Vec::new();
        // (20, 2) was never filled: its place goes without an item.
        d.release(30, |x| out.push(x));
        assert_eq!(out, ["a", "b", "c", "d"]);
        d.hold(50, 5, "e");
        d.release(100, |x| out.push(x));
        assert_eq!(out, ["a", "b", "c", "d", "e"]);
    }
}
