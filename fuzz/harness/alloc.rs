//! A counting global allocator: the bytes a fuzz input's run allocates at its peak, and a
//! hard limit on the whole process. A binary that fuzzes installs it:
//! `#[global_allocator] static ALLOC: harness::Counting = harness::Counting;`.
//!
//! The counts are per thread: [`watch`] starts counting the calling thread's allocations,
//! net of its frees, and [`unwatch`] gives their peak. An input's count is all of its
//! run's allocations because all of its run is on that one thread: the harness runs each
//! target on a rayon pool of one thread (`Worker` in `mod.rs`), so that sitesim's parallel
//! work, which runs on the current pool (`results::replicate::in_parallel`'s
//! `into_par_iter`, a model's plans), runs on the watching thread, and
//! `results::replicate::with_threads` asked for one thread from a pool of one thread runs
//! there instead of starting a pool of its own. Targets that run replications or an
//! experiment's runs therefore ask for one thread (`--threads 1`, `threads = Some(1)`):
//! a run on more threads would start a pool whose threads are not counted.
//!
//! Nothing is shared between inputs but the process's total ([`HARD_LIMIT`]), so the
//! counts stay right while several campaigns run at once in one process (`cargo test`
//! runs the `#[test]`s of `tests/fuzz.rs` on parallel threads): each has its own worker
//! thread. A global count of the input being run would mix their allocations; one
//! charged from the threads of pools a target starts would need every pool to mark its
//! threads, and the frees of a pool's threads after its input ended would be charged to
//! the next input.
//!
//! Past the hard limit the allocation is refused, so the process aborts (stable Rust
//! cannot turn that into a panic); first the input being run is written to
//! `fuzz/findings/memory-limit.bin` and its target named on stderr, with no allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The process's hard limit on allocated bytes.
pub const HARD_LIMIT: usize = 4 << 30;

/// Bytes allocated and not yet freed, by the whole process.
static LIVE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread's allocations are being counted.
    static WATCHING: Cell<bool> = const { Cell::new(false) };
    /// Bytes this thread allocated, net, since `watch`.
    static NET: Cell<isize> = const { Cell::new(0) };
    /// The highest `NET` since `watch`.
    static PEAK: Cell<isize> = const { Cell::new(0) };
    /// The input being run and its target, for the hard limit's note.
    static INPUT: Cell<(*const u8, usize)> = const { Cell::new((std::ptr::null(), 0)) };
    static TARGET: Cell<&'static str> = const { Cell::new("") };
}

/// The counting allocator (the system's, counted).
pub struct Counting;

fn count(delta: isize) {
    let _ = WATCHING.try_with(|w| {
        if w.get() {
            let net = NET.get() + delta;
            NET.set(net);
            if net > PEAK.get() {
                PEAK.set(net);
            }
        }
    });
}

/// Writes the input being run to `fuzz/findings/memory-limit.bin` and names its target
/// on stderr, without allocating.
fn note_memory_limit() {
    const PATH: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/findings/memory-limit.bin\0"
    );
    let (ptr, len) = INPUT.try_with(Cell::get).unwrap_or((std::ptr::null(), 0));
    let target = TARGET.try_with(Cell::get).unwrap_or("");
    let say = |b: &[u8]| {
        // SAFETY: writing a valid buffer to stderr.
        unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
    };
    say(b"fuzz: the allocation limit was reached by target ");
    say(target.as_bytes());
    if ptr.is_null() {
        say(b" (no input being run)\n");
        return;
    }
    say(b"; its input is fuzz/findings/memory-limit.bin\n");
    // SAFETY: PATH ends with a NUL; `ptr` and `len` describe the input `watch` was given,
    // which the worker keeps alive while it runs.
    unsafe {
        let fd = libc::open(
            PATH.as_ptr().cast(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
            0o644,
        );
        if fd >= 0 {
            libc::write(fd, ptr.cast(), len);
            libc::close(fd);
        }
    }
}

// SAFETY: every call goes to `System`; the counts are bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        if live > HARD_LIMIT {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            note_memory_limit();
            return std::ptr::null_mut();
        }
        count(layout.size() as isize);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        count(-(layout.size() as isize));
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let grow = new_size.saturating_sub(layout.size());
        let live = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
        if live > HARD_LIMIT {
            LIVE.fetch_sub(grow, Ordering::Relaxed);
            note_memory_limit();
            return std::ptr::null_mut();
        }
        LIVE.fetch_sub(layout.size().saturating_sub(new_size), Ordering::Relaxed);
        count(new_size as isize - layout.size() as isize);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Starts counting this thread's allocations for `input` of `target`.
pub fn watch(target: &'static str, input: &[u8]) {
    INPUT.set((input.as_ptr(), input.len()));
    TARGET.set(target);
    NET.set(0);
    PEAK.set(0);
    WATCHING.set(true);
}

/// Stops counting; returns the peak of this thread's net allocations since `watch`.
pub fn unwatch() -> usize {
    WATCHING.set(false);
    INPUT.set((std::ptr::null(), 0));
    PEAK.get().max(0) as usize
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use sitesim::results::replicate::{in_parallel, with_threads};

    use super::super::Worker;

    /// An allocation made by a replication that `in_parallel` runs on the one thread
    /// `--threads 1` asks for counts toward the input's peak: the count follows the work.
    /// (Without a worker that is a pool of one thread, or with `with_threads` starting a
    /// pool of its own, the peak was a few KiB.)
    #[test]
    fn allocations_of_parallel_runs_count_toward_the_inputs_peak() {
        const BIG: usize = 64 << 20;
        let replications = |_: &[u8]| {
            let stop = AtomicBool::new(false);
            with_threads(Some(1), 2, || {
                in_parallel(0..2u32, &stop, &|| {}, |_| {
                    let block = std::hint::black_box(vec![1u8; BIG]);
                    Ok::<usize, ()>(block.iter().map(|&b| usize::from(b)).sum())
                })
            })
            .is_ok_and(|sums| sums == Ok(vec![BIG, BIG]))
        };
        let answer = Worker::of("alloc-test", replications)
            .run(&Arc::new(Vec::new()), Duration::from_secs(60))
            .expect("an answer");
        assert_eq!(answer.result, Ok(true));
        assert!(
            (BIG..3 * BIG).contains(&answer.peak),
            "peak {} bytes for replications of {BIG} bytes each",
            answer.peak
        );
    }
}
