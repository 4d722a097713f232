//! The future-event list: a binary min-heap keyed by (time, phase, sequence).
//!
//! The three parts of the key are packed into one `u128` so that a comparison is a single
//! integer compare: the time (offset so that negative times order correctly) in the high
//! 64 bits, the phase in the next 8 bits and a monotone sequence number in the low 56 bits.
//! Equal times therefore break first by phase (the order in which kinds of events are
//! applied) and then by the order in which they were pushed, which makes every run
//! deterministic. `docs/PERFORMANCE.md` compares this heap with other queue designs.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::Time;

/// The order in which events sharing a timestamp are applied; lower phases come first.
pub type Phase = u8;

const SEQ_BITS: u32 = 56;
const SEQ_MASK: u128 = (1 << SEQ_BITS) - 1;

/// An item ordered by its key alone, smallest first: in a `BinaryHeap` (a max-heap) the
/// item with the smallest key is popped first.
struct MinFirst<K, T> {
    /// The ordering key.
    key: K,
    /// The payload.
    item: T,
}

impl<K: Ord, T> PartialEq for MinFirst<K, T> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<K: Ord, T> Eq for MinFirst<K, T> {}
impl<K: Ord, T> PartialOrd for MinFirst<K, T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<K: Ord, T> Ord for MinFirst<K, T> {
    /// Reversed, so that a max-heap pops the smallest key first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A priority queue of events of payload type `P`.
pub struct EventQueue<P> {
    heap: BinaryHeap<MinFirst<u128, P>>,
    next_seq: u64,
    now: Time,
}

impl<P> Default for EventQueue<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> EventQueue<P> {
    /// An empty queue whose clock starts at `Time::MIN`.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now: Time::MIN,
        }
    }

    fn pack(&mut self, time: Time, phase: Phase) -> u128 {
        let seq = self.next_seq;
        self.next_seq += 1;
        debug_assert!(u128::from(seq) <= SEQ_MASK, "event sequence overflow");
        let t = (time as u64) ^ (1 << 63);
        (u128::from(t) << 64) | (u128::from(phase) << SEQ_BITS) | u128::from(seq)
    }

    fn time_of(key: u128) -> Time {
        (((key >> 64) as u64) ^ (1 << 63)) as Time
    }

    /// Schedules `payload` at `time`. An event in the past of the last popped event is a
    /// logic error (the clock never runs backwards) and is caught in debug builds.
    #[inline]
    pub fn push(&mut self, time: Time, phase: Phase, payload: P) {
        debug_assert!(
            time >= self.now,
            "event scheduled at {time} before the current time {}",
            self.now
        );
        let key = self.pack(time, phase);
        self.heap.push(MinFirst { key, item: payload });
    }

    /// Makes room for `additional` more events without growing.
    pub fn reserve(&mut self, additional: usize) {
        self.heap.reserve(additional);
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Self::time_of(e.key))
    }

    /// Removes and returns the next event and its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, P)> {
        let e = self.heap.pop()?;
        let t = Self::time_of(e.key);
        self.now = t;
        Some((t, e.item))
    }

    /// The time of the last popped event (the simulated clock).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Total number of events ever pushed.
    pub fn pushed(&self) -> u64 {
        self.next_seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_by_time_then_phase_then_push_order() {
        let mut q = EventQueue::new();
        q.push(10, 1, "t10 p1 first");
        q.push(5, 2, "t5 p2");
        q.push(10, 0, "t10 p0");
        q.push(-3, 9, "t-3");
        q.push(10, 1, "t10 p1 second");
        q.push(5, 0, "t5 p0");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (-3, "t-3"),
                (5, "t5 p0"),
                (5, "t5 p2"),
                (10, "t10 p0"),
                (10, "t10 p1 first"),
                (10, "t10 p1 second"),
            ]
        );
    }

    #[test]
    fn extreme_times_keep_their_order() {
        let mut q = EventQueue::new();
        q.push(Time::MAX, 0, 3);
        q.push(0, 0, 2);
        q.push(Time::MIN + 1, 0, 1);
        assert_eq!(q.peek_time(), Some(Time::MIN + 1));
        assert_eq!(q.pop(), Some((Time::MIN + 1, 1)));
        assert_eq!(q.pop(), Some((0, 2)));
        assert_eq!(q.pop(), Some((Time::MAX, 3)));
        assert!(q.is_empty());
    }

    proptest::proptest! {
        /// Pops come out sorted by (time, phase, push order), whatever the push order.
        #[test]
        fn pops_are_sorted(events in proptest::collection::vec((-1000i64..1000, 0u8..4), 0..200)) {
            let mut q = EventQueue::new();
            for (i, &(t, p)) in events.iter().enumerate() {
                q.push(t, p, i);
            }
            let popped: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, i)| i).collect();
            let mut expected: Vec<usize> = (0..events.len()).collect();
            expected.sort_by_key(|&i| (events[i].0, events[i].1, i));
            proptest::prop_assert_eq!(popped, expected);
        }
    }
}
