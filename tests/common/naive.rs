//! A naive reference for conservative backfilling, written apart from sitesim's
//! scheduler and its availability profile: every earliest fit is found by trying each
//! time a running job or a reservation ends, against every interval. The property tests
//! check that sitesim gives every job the start it gives (`tests/properties.rs`).

use super::lean::Job;

/// Conservative backfilling (Mu'alem and Feitelson 2001, §2.1), the naive way: an
/// arriving job is placed at its earliest fit given the running jobs (held until start
/// plus estimate) and every reservation; when a job ends before its estimate, each
/// waiting job in submission order is taken out and placed again at its earliest fit from
/// now if that is earlier; a job starts when its reservation does.
///
/// Under the `overrun` policy (`jobs` whose runtime passes their estimate), sitesim's
/// repair rule: at a pass, a job still running at or past the end it was held until is
/// held until a second from now, and every waiting job is taken out and placed again in
/// submission order; the same happens when a reservation was left in the past (it
/// counted on such a job). Reserved starts are timers, asked for as sitesim's scheduler
/// asks: at the earliest reservation, a lower bound kept as reservations are made and
/// made exact when one is due; after a repair, none when every running job is held only
/// until a second from now, and the first reservation past that second when the earliest
/// waits for it. A timer asked for stays until its time, as an engine event does, and
/// brings a pass then.
///
/// Passes follow sitesim's rules: every event of a second (ends, arrivals, timers) comes
/// before one pass, and a job of zero runtime ends in the second it starts, before
/// another pass. Quadratic in the jobs present, for small cases only.
pub fn conservative_starts(jobs: &[Job], procs: u32) -> Vec<i64> {
    /// `[start, end)` of `size` processors.
    type Interval = (i64, i64, u32);
    /// The earliest `t >= from` at which `size` processors are free for `duration`
    /// seconds beside `busy`: `from` or the end of an interval.
    fn earliest_fit(busy: &[Interval], procs: u32, from: i64, size: u32, duration: i64) -> i64 {
        let mut candidates: Vec<i64> = busy.iter().map(|b| b.1).filter(|&e| e > from).collect();
        candidates.push(from);
        candidates.sort_unstable();
        let used = |t: i64| -> u32 {
            busy.iter()
                .filter(|b| b.0 <= t && t < b.1)
                .map(|b| b.2)
                .sum()
        };
        candidates
            .into_iter()
            .find(|&t| {
                let end = t + duration;
                std::iter::once(t)
                    .chain(busy.iter().map(|b| b.0).filter(|&s| t < s && s < end))
                    .all(|p| used(p) + size <= procs)
            })
            .expect("every job fits an empty machine")
    }
    let mut starts = vec![i64::MIN; jobs.len()];
    // Running: (job, held until, actual end); waiting: (job, reserved start) in order,
    // arrivals not yet placed last, with none.
    let mut running: Vec<(usize, i64, i64)> = Vec::new();
    let mut waiting: Vec<(usize, Option<i64>)> = Vec::new();
    // Timers asked for and not reached; the latest asked for.
    let mut timers: Vec<i64> = Vec::new();
    let mut last_timer: Option<i64> = None;
    // No reservation starts before this.
    let mut next_due = i64::MAX;
    let mut next = 0;
    let busy_beside = |running: &[(usize, i64, i64)],
                       waiting: &[(usize, Option<i64>)],
                       now: i64,
                       except: usize| {
        let mut busy: Vec<Interval> = running
            .iter()
            .map(|&(j, held, _)| (now, held, jobs[j].size))
            .collect();
        busy.extend(
            waiting
                .iter()
                .filter(|w| w.0 != except)
                .filter_map(|&(j, r)| {
                    r.map(|start| (start, start + jobs[j].estimate, jobs[j].size))
                }),
        );
        busy
    };
    loop {
        let now = [
            jobs.get(next).map(|j| j.submit),
            running.iter().map(|r| r.2).min(),
            timers.iter().copied().min(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(now) = now else { break };
        timers.retain(|&t| t != now);
        loop {
            let mut compress = false;
            running.retain(|&(_, held, end)| {
                let ends = end == now;
                compress |= ends && held > now;
                !ends
            });
            let placed = waiting.len();
            while next < jobs.len() && jobs[next].submit == now {
                waiting.push((next, None));
                next += 1;
            }
            let mut repairing = false;
            for r in &mut running {
                if r.1 <= now {
                    r.1 = now + 1;
                    repairing = true;
                }
            }
            repairing |= waiting[..placed]
                .iter()
                .any(|w| w.1.is_some_and(|s| s < now));
            if repairing {
                for w in &mut waiting[..placed] {
                    w.1 = None;
                }
            }
            // The jobs placed before come first in the list, the arrivals after them:
            // one walk repairs or compresses the first and then places the arrivals,
            // each in submission order.
            for i in 0..waiting.len() {
                let (j, r) = waiting[i];
                if r.is_none() || compress {
                    let busy = busy_beside(&running, &waiting, now, j);
                    let fit = earliest_fit(&busy, procs, now, jobs[j].size, jobs[j].estimate);
                    if r.is_none_or(|s| fit < s) {
                        waiting[i].1 = Some(fit);
                        next_due = next_due.min(fit);
                    }
                }
            }
            if next_due <= now {
                next_due = i64::MAX;
                waiting.retain(|&(j, r)| {
                    let start = r.expect("every waiting job is placed");
                    if start > now {
                        next_due = next_due.min(start);
                        return true;
                    }
                    starts[j] = now;
                    running.push((j, now + jobs[j].estimate, now + jobs[j].run));
                    false
                });
            }
            let timer = if repairing && running.iter().all(|r| r.1 == now + 1) {
                None
            } else if repairing && next_due == now + 1 {
                waiting
                    .iter()
                    .filter_map(|w| w.1)
                    .filter(|&s| s > now + 1)
                    .min()
            } else {
                (next_due < i64::MAX).then_some(next_due)
            };
            if let Some(t) = timer
                && t > now
                && last_timer.is_none_or(|p| p <= now || t < p)
            {
                timers.push(t);
                last_timer = Some(t);
            }
            if running.iter().all(|r| r.2 > now) {
                break;
            }
        }
    }
    starts
}
