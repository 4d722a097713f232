//! The modal model of user runtime estimates of Tsafrir, Etsion and Feitelson (2005),
//! step by step as `notes/seed-000-002-estimates-backfilling.md` A.4 to A.12 give it, with
//! its fitted parameters in `models/estimates-tsafrir2005.toml`.
//!
//! From the number of jobs N and the maximal estimate T_max it builds K distinct estimate
//! values and the share of jobs at each: K from N (§6); the values from the fractional
//! curve F_tim (§7), of which the 20 closest to the "head" values (T_max, the values popular
//! in every log, round multiples) are replaced by them (§9.2); the shares from F_pop, an
//! exponential head holding 89% and a power-law tail (§8); head shares mapped to head values
//! by the pool algorithm over the four logs' Table 6 (§9.3), tail shares to tail values at
//! random; user-supplied (value, share) pairs, such as T_max's share, embedded as §9.4
//! says. Jobs then get estimates by the random shuffle of §11.2: each job, longest runtime
//! first, draws a remaining estimate at least as long as its runtime.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Deserialize;

use crate::time::{LONGEST, Time};

/// The model file shipped in `models/estimates-tsafrir2005.toml`.
pub const DEFAULT_MODAL: &str = crate::model_files::ESTIMATES_TSAFRIR2005;

/// Number of head values.
const HEAD: usize = 20;

/// The most distinct values a model has, and the largest `count.minimum` a model file may
/// give: the model's values, shares and ranks are built one by one, so K bounds its cost
/// (the paper's K reaches 565 at 250,000 jobs; K(N) extended with the fit's last slope
/// reaches this bound at about 80 million jobs, 300 times that log).
pub const MAX_DISTINCT: usize = 100_000;

/// The fitted parameters of the model (see the model file for each one's source).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModalParams {
    count: CountParams,
    times: TimeParams,
    popularity: PopularityParams,
    head: HeadParams,
    pool: PoolParams,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct CountParams {
    points: Vec<(f64, f64)>,
    minimum: usize,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeParams {
    alpha: f64,
    beta: f64,
    round: Time,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct PopularityParams {
    head_alpha: f64,
    head_beta: f64,
    head_gamma: f64,
    head_share: f64,
    tail_omega: f64,
    tail_rho: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeadParams {
    joint: Vec<Time>,
    rounds: Vec<Time>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct PoolParams {
    sdsc106: Vec<usize>,
    ctc: Vec<usize>,
    kth4h: Vec<usize>,
    blue: Vec<usize>,
}

impl ModalParams {
    /// Parses a model file; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<Self, String> {
        let p: ModalParams =
            toml::from_str(text).map_err(|e| crate::textfmt::toml_error(name, text, &e))?;
        let pts = &p.count.points;
        if pts.len() < 2 || pts.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(format!(
                "{name}: count.points need at least two increasing job counts"
            ));
        }
        for (log, col) in p.pool_columns() {
            let mut sorted = col.to_vec();
            sorted.sort_unstable();
            if sorted != (1..=HEAD).collect::<Vec<_>>() {
                return Err(format!(
                    "{name}: pool.{log} must be a permutation of the ranks 1 to 20"
                ));
            }
        }
        if let Some(v) = p.head.joint.iter().chain(&p.head.rounds).find(|&&v| v < 1) {
            return Err(format!(
                "{name}: head.joint and head.rounds must be positive seconds, not {v}"
            ));
        }
        // At least the 20 head values and one tail value: each head value replaces a
        // value of its own (a minimum of 2 left 14 values for 100 jobs, a panic: fuzzing,.

        if !(HEAD + 1..=MAX_DISTINCT).contains(&p.count.minimum) {
            return Err(format!(
                "{name}: count.minimum {} is not from {} to {MAX_DISTINCT}",
                p.count.minimum,
                HEAD + 1
            ));
        }
        if !(1..=LONGEST).contains(&p.times.round)
            || p.popularity.head_share <= 0.0
            || p.popularity.head_share >= 100.0
        {
            return Err(format!(
                "{name}: need 1 s <= times.round <= a century and 0 < head_share < 100"
            ));
        }
        Ok(p)
    }

    fn pool_columns(&self) -> [(&'static str, &[usize]); 4] {
        [
            ("sdsc106", &self.pool.sdsc106),
            ("ctc", &self.pool.ctc),
            ("kth4h", &self.pool.kth4h),
            ("blue", &self.pool.blue),
        ]
    }

    /// K for N jobs: the piecewise-linear fit, extended with the last slope, at most N
    /// (N jobs have at most N distinct estimates; this bounds the model's cost by the jobs
    /// whatever the file's points say) and at most [`MAX_DISTINCT`], at least the minimum.
    pub fn distinct_values(&self, jobs: u64) -> usize {
        let n = jobs as f64;
        let pts = &self.count.points;
        let seg = pts
            .windows(2)
            .find(|w| n <= w[1].0)
            .unwrap_or(&pts[pts.len() - 2..]);
        let (a, b) = (seg[0], seg[1]);
        let k = a.1 + (n - a.0) * (b.1 - a.1) / (b.0 - a.0);
        (k.round().clamp(0.0, n.min(MAX_DISTINCT as f64)) as usize).max(self.count.minimum)
    }

    /// The exponent a of F_tim for K values.
    pub fn curve(&self, k: usize) -> f64 {
        1.0 + self.times.alpha * (k as f64).powf(self.times.beta)
    }

    /// The 20 head values for `max`, ascending (Tsafrir et al. 2005, §9.2), or `None` if `max` is
    /// too short to give 20 distinct values.
    pub fn head_values(&self, max: Time) -> Option<Vec<Time>> {
        let mut head = vec![max];
        let push = |v: Time, head: &mut Vec<Time>| {
            if head.len() < HEAD && v > 0 && v < max && !head.contains(&v) {
                head.push(v);
            }
        };
        for &v in &self.head.joint {
            push(v, &mut head);
        }
        // Each round value below `max`, largest first, until the head is full: a long
        // `max` must not cost a step per unit.
        for &unit in &self.head.rounds {
            let mut m = (max - 1) / unit * unit;
            while m > 0 && head.len() < HEAD {
                push(m, &mut head);
                m -= unit;
            }
        }
        head.sort_unstable();
        (head.len() == HEAD).then_some(head)
    }

    /// The shares (percent) of popularity ranks 1..=K before any user pair: F_pop.
    pub fn popularity(&self, k: usize) -> Vec<f64> {
        let p = &self.popularity;
        let head = |i: usize| p.head_alpha * (p.head_beta * i as f64).exp() + p.head_gamma;
        let mut shares: Vec<f64> = (1..=k.min(HEAD)).map(head).collect();
        let rest: f64 = shares[1..].iter().sum();
        shares[0] = p.head_share - rest;
        let tail = |i: usize| p.tail_omega * (i as f64).powf(p.tail_rho);
        let lambda: f64 = (HEAD + 1..=k).map(tail).sum();
        shares.extend((HEAD + 1..=k).map(|i| tail(i) * (100.0 - p.head_share) / lambda));
        shares
    }
}

impl Default for ModalParams {
    fn default() -> Self {
        ModalParams::parse(DEFAULT_MODAL, "models/estimates-tsafrir2005.toml")
            .expect("the shipped modal model is valid")
    }
}

/// One estimate value of the model and the share of jobs that use it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mode {
    /// The estimate, seconds.
    pub time: Time,
    /// Percent of jobs.
    pub share: f64,
    /// Popularity rank, 1 for the most popular.
    pub rank: usize,
    /// One of the 20 head values.
    pub head: bool,
}

/// The modal model built for one log.
#[derive(Debug, Clone, PartialEq)]
pub struct ModalModel {
    /// Number of distinct values.
    pub k: usize,
    /// F_tim's exponent.
    pub a: f64,
    /// The values with their shares, shortest first.
    pub modes: Vec<Mode>,
}

impl ModalModel {
    /// Builds the model for `jobs` jobs with maximal estimate `max`; `pairs` are
    /// user-supplied (value, percent) modes, such as (T_max, its share); `seed` drives the
    /// pool algorithm's draws and the tail permutation.
    pub fn build(
        params: &ModalParams,
        jobs: u64,
        max: Time,
        pairs: &[(Time, f64)],
        seed: u64,
    ) -> Result<ModalModel, String> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let head_default = params.head_values(max).ok_or_else(|| {
            format!(
                "a maximal estimate of {max} s gives fewer than 20 round head values; the \
                 modal model needs at least 100 minutes (6000 s)"
            )
        })?;
        if pairs
            .iter()
            .any(|&(t, p)| t < 1 || t > max || !(0.0..100.0).contains(&p))
        {
            return Err(format!(
                "modal pairs need values between 1 s and the maximum ({max} s) and shares in [0, 100)"
            ));
        }
        if pairs.iter().map(|p| p.1).sum::<f64>() >= 100.0 {
            return Err("modal pairs' shares add up to 100% or more".into());
        }
        // At most one value a second up to T_max: K values must be distinct whole seconds
        // (many jobs and a short maximum, 10^8 jobs and a day, asked for 125,253 of them).
        let k = params.distinct_values(jobs).min(max as usize);
        let a = params.curve(k);

        // F_tim, rounded to the minute unless that collides; the K-th value is T_max.
        let mut times: Vec<Time> = Vec::with_capacity(k);
        for i in 1..=k {
            let x = i as f64 / k as f64;
            // F_tim lies in (0, T_max) for a > 1; a model file's curve may not (an alpha of
            // 1e300 gave infinity, whose rounding overflowed: fuzzing), so the
            // value is kept from 1 s to T_max.
            let f = max as f64 * (a - 1.0) * x / (a - x);
            let t = if i == k {
                max
            } else if f >= 1.0 {
                f.round().min(max as f64) as Time
            } else {
                1
            };
            let unit = params.times.round;
            let rounded = (t + unit / 2) / unit * unit;
            let mut v = if rounded >= 1 && times.last().is_none_or(|&l| rounded > l) {
                rounded
            } else {
                t
            };
            if let Some(&l) = times.last() {
                v = v.max(l + 1);
            }
            if i < k {
                v = v.min(max - (k - i) as Time);
            }
            times.push(v);
        }
        // Head values, with user values replacing the closest default ones (never T_max
        // unless given).
        let mut head = head_default;
        let mut user_times = Vec::new();
        for &(t, _) in pairs {
            if t != max {
                let j = nearest(
                    &head,
                    t as f64,
                    |v| v as f64,
                    |j| head[j] != max && !user_times.contains(&head[j]),
                );
                head[j] = t;
            }
            user_times.push(t);
        }
        head.sort_unstable();
        head.dedup();
        if head.len() != HEAD {
            return Err("modal pairs repeat a value".into());
        }
        // Each head value replaces the nearest F_tim value not yet replaced.
        let mut is_head = vec![false; k];
        for &h in &head {
            let i = nearest(&times, h as f64, |v| v as f64, |i| !is_head[i]);
            times[i] = h;
            is_head[i] = true;
        }
        let mut sorted: Vec<(Time, bool)> =
            times.iter().copied().zip(is_head.iter().copied()).collect();
        sorted.sort_unstable();

        // Shares by popularity rank; user shares take the closest default head share.
        let mut shares = params.popularity(k);
        let mut user_rank: Vec<(Time, usize)> = Vec::new();
        for &(t, p) in pairs {
            let r = if t == max {
                0
            } else {
                nearest(
                    &shares[..HEAD],
                    p,
                    |v| v,
                    |r| r > 0 && !user_rank.iter().any(|u| u.1 == r),
                )
            };
            shares[r] = p;
            user_rank.push((t, r));
        }
        let user_sum: f64 = user_rank.iter().map(|&(_, r)| shares[r]).sum();
        let fixed: Vec<usize> = user_rank.iter().map(|u| u.1).collect();
        let others: f64 = (0..HEAD)
            .filter(|r| !fixed.contains(r))
            .map(|r| shares[r])
            .sum();
        let head_share = params.popularity.head_share;
        if user_sum < head_share {
            for r in (0..HEAD).filter(|r| !fixed.contains(r)) {
                shares[r] *= (head_share - user_sum) / others;
            }
        } else {
            for r in (0..HEAD).filter(|r| !fixed.contains(r)) {
                shares[r] = 0.0;
            }
            let tail: f64 = shares[HEAD..].iter().sum();
            for s in &mut shares[HEAD..] {
                *s *= (100.0 - user_sum) / tail;
            }
        }

        // Head ranks to head values: T_max takes rank 1 (unless a user pair placed it), the
        // user values their ranks, the others by the pool algorithm over time ranks.
        let non_max: Vec<Time> = head.iter().copied().filter(|&t| t != max).collect();
        let mut rank_of_head: Vec<Option<usize>> = vec![None; HEAD];
        let ttr_of = |t: Time| {
            if t == max {
                0
            } else {
                1 + non_max.iter().position(|&v| v == t).expect("head")
            }
        };
        let mut mapped = [false; HEAD];
        for &(t, r) in &user_rank {
            rank_of_head[ttr_of(t)] = Some(r);
            mapped[r] = true;
        }
        if rank_of_head[0].is_none() {
            rank_of_head[0] = Some(0);
            mapped[0] = true;
        }
        let columns = params.pool_columns();
        let mut pool: Vec<usize> = Vec::new();
        for j in 1..HEAD {
            if rank_of_head[j].is_some() {
                continue;
            }
            for (_, col) in columns {
                let r = col[j] - 1;
                if !mapped[r] {
                    pool.push(r);
                }
            }
            let full =
                (0..HEAD).find(|&r| pool.iter().filter(|&&p| p == r).count() >= columns.len());
            let r = match full {
                Some(r) => r,
                None if pool.is_empty() => (0..HEAD).find(|&r| !mapped[r]).expect("a rank is left"),
                None => {
                    let a = pool[rng.random_range(0..pool.len())];
                    let b = pool[rng.random_range(0..pool.len())];
                    a.min(b)
                }
            };
            rank_of_head[j] = Some(r);
            mapped[r] = true;
            pool.retain(|&p| p != r);
        }
        // Tail ranks to tail values by a uniform random permutation.
        let mut tail_ranks: Vec<usize> = (HEAD..k).collect();
        for i in (1..tail_ranks.len()).rev() {
            let j = rng.random_range(0..=i);
            tail_ranks.swap(i, j);
        }
        let mut tail_iter = tail_ranks.into_iter();
        let modes = sorted
            .into_iter()
            .map(|(time, is_head)| {
                let rank = if is_head {
                    rank_of_head[ttr_of(time)].expect("every head value has a rank")
                } else {
                    tail_iter.next().expect("as many tail ranks as tail values")
                };
                Mode {
                    time,
                    share: shares[rank],
                    rank: rank + 1,
                    head: is_head,
                }
            })
            .collect();
        Ok(ModalModel { k, a, modes })
    }

    /// How many of `n` jobs get each mode: the shares rounded so that they add up to `n`
    /// exactly (largest remainders first; ties to the more popular mode).
    pub fn counts(&self, n: u64) -> Vec<u64> {
        let total: f64 = self.modes.iter().map(|m| m.share).sum();
        let exact: Vec<f64> = self
            .modes
            .iter()
            .map(|m| m.share / total * n as f64)
            .collect();
        let mut counts: Vec<u64> = exact.iter().map(|e| e.floor() as u64).collect();
        // Summed wide: the floors of 2^64 - 1 jobs' shares can pass what a u64 holds.
        let floors: u128 = counts.iter().map(|&c| u128::from(c)).sum();
        let n_wide = u128::from(n);
        let mut order: Vec<usize> = (0..counts.len()).collect();
        order.sort_by(|&i, &j| {
            let (fi, fj) = (exact[i] - exact[i].floor(), exact[j] - exact[j].floor());
            fj.total_cmp(&fi)
                .then(self.modes[i].rank.cmp(&self.modes[j].rank))
        });
        if floors <= n_wide {
            for &i in order.iter().take((n_wide - floors) as usize) {
                counts[i] += 1;
            }
        } else {
            // Rounded shares of about 10^19 jobs can add up to more than `n` (found by
            // fuzzing): the modes with the smallest remainders give one back each.
            let mut excess = floors - n_wide;
            for &i in order.iter().rev() {
                if excess == 0 {
                    break;
                }
                if counts[i] > 0 {
                    counts[i] -= 1;
                    excess -= 1;
                }
            }
        }
        counts
    }

    /// Estimates for jobs of the given runtimes (in job order), by the random shuffle of
    /// Tsafrir et al. 2005, §11.2: longest runtime first, each job draws uniformly among the
    /// remaining estimates at least as long as its runtime. A job longer than every remaining
    /// estimate gets the longest one left (it will outlive its estimate); the second value returned
    /// counts them.
    pub fn assign(&self, runtimes: &[Time], seed: u64) -> (Vec<Time>, u64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut left = self.counts(runtimes.len() as u64);
        let mut order: Vec<usize> = (0..runtimes.len()).collect();
        order.sort_by(|&i, &j| runtimes[j].cmp(&runtimes[i]).then(i.cmp(&j)));
        let mut estimates = vec![0; runtimes.len()];
        let mut short = 0;
        for i in order {
            let first = self.modes.partition_point(|m| m.time < runtimes[i]);
            let available: u64 = left[first..].iter().sum();
            let m = if available > 0 {
                let mut pick = rng.random_range(0..available);
                let mut m = first;
                while pick >= left[m] {
                    pick -= left[m];
                    m += 1;
                }
                m
            } else {
                short += 1;
                (0..first)
                    .rev()
                    .find(|&m| left[m] > 0)
                    .expect("one estimate per job")
            };
            left[m] -= 1;
            estimates[i] = self.modes[m].time;
        }
        (estimates, short)
    }
}

/// The index of the value closest to `target` among `values` that `allowed` accepts (the
/// earlier one on a tie).
fn nearest<T: Copy>(
    values: &[T],
    target: f64,
    as_f64: impl Fn(T) -> f64,
    allowed: impl Fn(usize) -> bool,
) -> usize {
    (0..values.len())
        .filter(|&i| allowed(i))
        .min_by(|&i, &j| {
            let di = (as_f64(values[i]) - target).abs();
            let dj = (as_f64(values[j]) - target).abs();
            di.total_cmp(&dj).then(i.cmp(&j))
        })
        .expect("a value to replace")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hm(text: &str) -> Time {
        let (h, m) = text.split_once(':').unwrap();
        h.parse::<Time>().unwrap() * 3600 + m.parse::<Time>().unwrap() * 60
    }

    fn hms(list: &str) -> Vec<Time> {
        list.split_whitespace().map(hm).collect()
    }

    /// Notes D.1: the K(N) model's points.
    #[test]
    fn distinct_values_follow_table_3() {
        let p = ModalParams::default();
        for (n, k) in [
            (200, 21),
            (1000, 35),
            (10_000, 90),
            (70_000, 340),
            (250_000, 565),
        ] {
            assert_eq!(p.distinct_values(n), k, "N = {n}");
        }
        // Minimum 21 below 200 jobs; the last slope (1/800) beyond 250,000.
        assert_eq!(p.distinct_values(20), 21);
        assert_eq!(p.distinct_values(330_000), 665);
    }

    /// Fuzzing: a model file's huge `count.minimum` or K points made
    /// `ModalModel::build` allocate gigabytes (or overflow a capacity); the minimum is
    /// bounded by name and K by the jobs (`fuzz/regressions/modal/`).
    #[test]
    fn huge_counts_are_refused_or_bounded_by_the_jobs() {
        let minimum = DEFAULT_MODAL.replace("minimum = 21", "minimum = 9223372036854775807");
        let e = ModalParams::parse(&minimum, "m.toml").unwrap_err();
        assert!(
            e.contains("count.minimum 9223372036854775807 is not from 21 to 100000"),
            "{e}"
        );
        let points = DEFAULT_MODAL.replace("[10000, 90]", "[10000, 4294967296]");
        let p = ModalParams::parse(&points, "m.toml").unwrap();
        assert_eq!(p.distinct_values(5000), 5000);
        assert!(ModalModel::build(&p, 5000, 4 * 86_400, &[], 1).is_ok());
        // A round of 0 divided by zero; one of -1 never ended.
        for round in ["0", "-1"] {
            let text = DEFAULT_MODAL.replace("360000,", &format!("{round},"));
            let e = ModalParams::parse(&text, "m.toml").unwrap_err();
            assert!(
                e.contains("head.joint and head.rounds must be positive"),
                "{e}"
            );
        }
    }

    /// Fuzzing the `estimates` command: 10^8 jobs with a maximum of a day asked
    /// for 125,253 distinct values below 86,400 s, and the model gave estimates of -10:47:32
    /// and 0; 10^12 jobs built a billion values (gigabytes). K is now at most T_max and
    /// [`MAX_DISTINCT`]. The shares of 2^63 jobs, rounded down, added up to more than the
    /// jobs.
    #[test]
    fn values_stay_whole_seconds_up_to_the_maximum_for_any_jobs() {
        let p = ModalParams::default();
        for (jobs, max) in [
            (100_000_000, 86_400),
            (6_000_000, 6_000),
            (u64::MAX, 86_400),
        ] {
            let m = ModalModel::build(&p, jobs, max, &[(max, 50.0)], 1).unwrap();
            assert_eq!(m.k, max as usize, "{jobs} jobs");
            assert_eq!(m.modes.len(), m.k);
            assert!(m.modes.windows(2).all(|w| w[0].time < w[1].time));
            assert_eq!((m.modes[0].time, m.modes[m.k - 1].time), (1, max));
        }
        assert_eq!(p.distinct_values(1_000_000_000_000), MAX_DISTINCT);
        for jobs in [1_000_000_000_000, u64::MAX / 2] {
            let m = ModalModel::build(&p, jobs, 52 * 7 * 86_400, &[], 1).unwrap();
            assert_eq!(m.k, MAX_DISTINCT);
            let counts = m.counts(jobs);
            assert_eq!(counts.iter().sum::<u64>(), jobs, "{jobs} jobs");
        }
        // The rounded shares of 2^63 - 1 jobs over a day's values add up to more than
        // the jobs (a subtraction that overflowed: `fuzz/regressions/estimates-command/`).
        let jobs = i64::MAX as u64;
        let m = ModalModel::build(&p, jobs, 86_400, &[], 2).unwrap();
        let exact: f64 = m.modes.iter().map(|x| x.share).sum();
        let floors: u64 = (m.modes.iter())
            .map(|x| (x.share / exact * jobs as f64).floor() as u64)
            .sum();
        assert!(floors > jobs, "the case rounds up");
        assert_eq!(m.counts(jobs).iter().sum::<u64>(), jobs);
        // And those of 2^64 - 1 jobs more than a u64 holds.
        let m = ModalModel::build(&p, u64::MAX, 60 * 3600, &[(60 * 3600, 12.0)], 1).unwrap();
        let counts = m.counts(u64::MAX);
        assert_eq!(
            counts.iter().map(|&c| u128::from(c)).sum::<u128>(),
            u128::from(u64::MAX)
        );
    }

    /// Fuzzing: a model file's `count.minimum = 2` left 14 values
    /// for 100 jobs, too few for the 20 head values (a panic); `times.alpha = 1e300`
    /// gave F_tim infinite values, whose rounding overflowed; a `times.round` of 2^63 - 1
    /// would have overflowed too (`fuzz/regressions/modal/`).
    #[test]
    fn a_model_files_curve_and_minimum_cannot_break_the_values() {
        let minimum = DEFAULT_MODAL.replace("minimum = 21", "minimum = 2");
        let e = ModalParams::parse(&minimum, "m.toml").unwrap_err();
        assert!(
            e.contains("count.minimum 2 is not from 21 to 100000"),
            "{e}"
        );
        let round = DEFAULT_MODAL.replace("round = 60", "round = 9223372036854775807");
        let e = ModalParams::parse(&round, "m.toml").unwrap_err();
        assert!(e.contains("times.round <= a century"), "{e}");
        for alpha in ["1e300", "inf"] {
            let text = DEFAULT_MODAL.replace("alpha = 12.1", &format!("alpha = {alpha}"));
            let p = ModalParams::parse(&text, "m.toml").unwrap();
            let m = ModalModel::build(&p, 5000, 4 * 86_400, &[(4 * 86_400, 10.0)], 1).unwrap();
            assert!(m.modes.windows(2).all(|w| w[0].time < w[1].time), "{alpha}");
            assert!(m.modes.iter().all(|x| (1..=4 * 86_400).contains(&x.time)));
        }
    }

    /// Notes D.2: a(K) = 1 + 12.1 K^-0.6.
    #[test]
    fn curve_exponent() {
        let p = ModalParams::default();
        for (k, a) in [(106, 1.7372), (265, 1.4254), (525, 1.2823)] {
            assert!((p.curve(k) - a).abs() < 5e-5, "a({k}) = {}", p.curve(k));
        }
    }

    /// Notes A.7: the worked head-value lists.
    #[test]
    fn head_values_match_the_worked_examples() {
        let p = ModalParams::default();
        let cases = [
            (
                hm("2:00"),
                "0:05 0:10 0:15 0:20 0:30 0:40 0:50 1:00 1:05 1:10 1:15 1:20 1:25 1:30 1:35 1:40 1:45 1:50 1:55 2:00",
            ),
            (
                hm("4:00"),
                "0:05 0:10 0:15 0:20 0:30 0:40 1:00 1:20 1:40 2:00 2:20 2:40 2:50 3:00 3:10 3:20 3:30 3:40 3:50 4:00",
            ),
            (
                hm("18:00"),
                "0:05 0:10 0:15 0:20 0:30 1:00 2:00 3:00 4:00 5:00 6:00 8:00 10:00 12:00 13:00 14:00 15:00 16:00 17:00 18:00",
            ),
            (
                hm("12:00"),
                "0:05 0:10 0:15 0:20 0:30 1:00 2:00 3:00 4:00 5:00 6:00 7:00 8:00 9:00 10:00 10:40 11:00 11:20 11:40 12:00",
            ),
            (
                hm("24:00"),
                "0:05 0:10 0:15 0:20 0:30 1:00 2:00 3:00 4:00 5:00 6:00 8:00 10:00 12:00 15:00 16:00 18:00 20:00 22:00 24:00",
            ),
        ];
        for (max, expected) in cases {
            assert_eq!(p.head_values(max).unwrap(), hms(expected), "T_max {max}");
        }
        assert!(p.head_values(hm("1:00")).is_none());
        // A century's head is found as fast as a day's (it once took a step per unit).
        let head = p.head_values(crate::time::LONGEST).unwrap();
        assert_eq!(head.last(), Some(&crate::time::LONGEST));
    }

    /// Notes D.4: F_pop's values.
    #[test]
    fn popularity_follows_section_8() {
        let p = ModalParams::default();
        let s = p.popularity(265);
        assert!((s[0] - 22.701).abs() < 1e-3, "F_pop(1) = {}", s[0]);
        assert!((s[1] - 10.26).abs() < 5e-3 && (s[19] - 0.84).abs() < 5e-3);
        assert!((s[..20].iter().sum::<f64>() - 89.0).abs() < 1e-9);
        assert!((s.iter().sum::<f64>() - 100.0).abs() < 1e-9);
        assert!((s[20] - 0.671).abs() < 1e-3, "F_pop(21) = {}", s[20]);
    }

    /// Notes D.6: at time rank 1 the pool is exactly {3, 4, 6}, so ttr 1 gets rank 3 with
    /// probability 5/9, 4 with 3/9, 6 with 1/9.
    #[test]
    fn pool_algorithm_first_draw() {
        let p = ModalParams::default();
        let max = hm("18:00");
        let runs = 9_000;
        let mut hits = [0u32; 21];
        for seed in 0..runs {
            let m = ModalModel::build(&p, 10_000, max, &[], seed).unwrap();
            let head: Vec<&Mode> = m.modes.iter().filter(|m| m.head).collect();
            hits[head[0].rank] += 1;
        }
        // Binomial standard errors at n = 9000: about 0.0052, 0.0050, 0.0033.
        for (rank, p) in [(3, 5.0 / 9.0), (4, 3.0 / 9.0), (6, 1.0 / 9.0)] {
            let f = f64::from(hits[rank]) / runs as f64;
            assert!((f - p).abs() < 0.021, "rank {rank}: {f} vs {p}");
        }
        assert_eq!(hits.iter().sum::<u32>(), runs as u32);
    }

    #[test]
    fn model_is_a_distribution_with_distinct_values() {
        let p = ModalParams::default();
        for (jobs, max) in [(100, hm("2:00")), (28_489, 216_000), (77_222, hm("18:00"))] {
            let m = ModalModel::build(&p, jobs, max, &[(max, 12.5)], 3).unwrap();
            assert_eq!(m.modes.len(), m.k);
            assert!(m.modes.windows(2).all(|w| w[0].time < w[1].time));
            assert_eq!(m.modes.last().unwrap().time, max);
            assert!((m.modes.iter().map(|m| m.share).sum::<f64>() - 100.0).abs() < 1e-9);
            assert_eq!(m.modes.iter().filter(|m| m.head).count(), 20);
            let mut ranks: Vec<usize> = m.modes.iter().map(|m| m.rank).collect();
            ranks.sort_unstable();
            assert_eq!(ranks, (1..=m.k).collect::<Vec<_>>());
            let top = m.modes.iter().find(|m| m.rank == 1).unwrap();
            assert_eq!((top.time, top.share), (max, 12.5));
        }
    }

    #[test]
    fn assignment_respects_runtimes_and_counts() {
        let p = ModalParams::default();
        let m = ModalModel::build(&p, 1000, hm("4:00"), &[(hm("4:00"), 12.5)], 1).unwrap();
        let counts = m.counts(1000);
        // Runtimes that fit under the model's own estimates (each a fraction of one of
        // them), so that a full matching exists, plus ten longer than the maximum.
        let mut runtimes: Vec<Time> = m
            .modes
            .iter()
            .zip(&counts)
            .flat_map(|(mode, &c)| (0..c).map(move |i| mode.time * (i as Time % 10 + 1) / 10))
            .collect();
        for r in runtimes.iter_mut().take(10) {
            *r = hm("4:00") + 60;
        }
        let (est, short) = m.assign(&runtimes, 9);
        assert_eq!(
            short, 10,
            "only the jobs longer than the maximum lack an estimate"
        );
        assert!(
            est.iter()
                .zip(&runtimes)
                .all(|(&e, &r)| e >= r || r > hm("4:00"))
        );
        assert_eq!(counts.iter().sum::<u64>(), 1000);
        for (mode, &c) in m.modes.iter().zip(&counts) {
            let got = est.iter().filter(|&&e| e == mode.time).count() as u64;
            assert_eq!(got, c, "mode {}", mode.time);
        }
    }

    /// The structure Tsafrir et al. 2005 reports, on KTH's job count and maximal estimate (60 h,
    /// held by 28 of its 28,489 jobs) and on the KTH4H setting of the paper (23,070 jobs, 4 h,
    /// 12.5%): the 20 head values hold 89% of jobs, the maximum exactly its given share.
    #[test]
    fn structure_on_kth_inputs() {
        let p = ModalParams::default();
        for (jobs, max, share) in [
            (28_489, 216_000, 100.0 * 28.0 / 28_489.0),
            (23_070, 14_400, 12.5),
        ] {
            let m = ModalModel::build(&p, jobs, max, &[(max, share)], 1).unwrap();
            assert_eq!(m.k, p.distinct_values(jobs));
            let mut shares: Vec<f64> = m.modes.iter().map(|m| m.share).collect();
            shares.sort_by(|a, b| b.total_cmp(a));
            let top20: f64 = shares[..20].iter().sum();
            let head: f64 = m.modes.iter().filter(|m| m.head).map(|m| m.share).sum();
            assert!((head - 89.0).abs() < 1e-9, "head holds {head}%");
            // The most popular tail value (rank 21 of F_pop, 0.6-0.7%) may outrank the
            // smallest head values, so the top 20 cover between 89% and 90%.
            assert!((89.0..90.0).contains(&top20), "top 20 cover {top20}%");
            let at_max = m.modes.iter().find(|m| m.time == max).unwrap().share;
            assert!((at_max - share).abs() < 1e-12);
        }
    }
}
