//! Structure-aware mutation: what an input looks like ([`Shape`]) chooses the mutations,
//! stacked one to four at a time on a corpus entry, with byte-level ones for all shapes.

/// Inputs grow no larger than this (a mutated input is cut back to it).
pub const MAX_INPUT: usize = 256 << 10;

/// What a target's inputs look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// An SWF log: header comment lines and job lines of whitespace-separated fields.
    Swf,
    /// JSON (a Batsim workload).
    Json,
    /// TOML (a scenario or a model file).
    Toml,
    /// A one-line spec: `name:key=value,...`, a duration, a zone.
    Spec,
    /// A command line: the command's name, then options (`--name` and its values) and
    /// positional arguments.
    Args,
    /// Binary data (a compressed log): byte-level mutations only.
    Bytes,
}

/// A small deterministic random number generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// FNV-1a: names findings and seeds a target's generator.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Values at the edges: integer and float limits, non-finite numbers, the century bound,
/// empty and very long tokens.
pub const INTERESTING: &[&str] = &[
    "-1",
    "0",
    "1",
    "2",
    "-2",
    "7",
    "255",
    "256",
    "65536",
    "1000000",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "400000000000000",
    "3153600000",
    "3153600001",
    "604800",
    "86400",
    "1e308",
    "-1e308",
    "1e-308",
    "1e20",
    "0.5",
    "1.5",
    "-0.0",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "",
    "x",
    "1w",
    "99999999w",
    "0s",
    "2d",
    "+14:00",
    "-25:00",
    "Europe/Stockholm",
    "99999999999999999999999999999999999999999999999999999999999999999999999999",
];

/// A long token (a few KiB of one byte).
fn long_token(rng: &mut Rng) -> String {
    let c = *rng.pick(&['9', 'a', ' ', '-', '.', '[']);
    std::iter::repeat_n(c, 1 + rng.below(8192)).collect()
}

/// An interesting value, now and then a long token.
pub fn interesting(rng: &mut Rng) -> String {
    if rng.below(32) == 0 {
        long_token(rng)
    } else {
        (*rng.pick(INTERESTING)).to_owned()
    }
}

/// A mutant of one of `corpus`'s entries (or a splice of two), shaped by `shape`.
pub fn mutate(shape: Shape, corpus: &[Vec<u8>], rng: &mut Rng) -> Vec<u8> {
    let mut input = corpus[rng.below(corpus.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let other = &corpus[rng.below(corpus.len())];
        input = match (shape, rng.below(4)) {
            (_, 0) | (Shape::Bytes, _) => bytes(input, other, rng),
            (Shape::Swf, _) => swf(input, other, rng),
            (Shape::Json, _) => json(input, rng).unwrap_or_else(|i| tokens(i, other, rng)),
            (Shape::Toml, 1) => tokens(input, other, rng),
            (Shape::Toml, _) => toml_value(input, rng).unwrap_or_else(|i| tokens(i, other, rng)),
            (Shape::Spec, _) | (Shape::Args, 1) => tokens(input, other, rng),
            (Shape::Args, _) => command_line(&input, other, rng),
        };
    }
    input.truncate(MAX_INPUT);
    input
}

/// Byte-level mutations: flip, insert, delete, overwrite with an interesting value,
/// splice a run of `other`, cut.
fn bytes(mut input: Vec<u8>, other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let at = rng.below(input.len() + 1);
    match rng.below(6) {
        0 if at < input.len() => input[at] ^= 1 << rng.below(8),
        1 => input.insert(at, *rng.pick(b"\n\r\t ;:,=-+.0123456789\"[]{}#\0\xff")),
        2 if at < input.len() => {
            let n = 1 + rng.below(16.min(input.len() - at));
            input.drain(at..at + n);
        }
        3 => {
            let v = interesting(rng);
            input.splice(at..at, v.bytes());
        }
        4 if !other.is_empty() => {
            let from = rng.below(other.len());
            let n = 1 + rng.below(256.min(other.len() - from));
            input.splice(at..at, other[from..from + n].iter().copied());
        }
        _ => input.truncate(at),
    }
    input
}

/// Token-level mutations of text: replace a token (a run between separators) with an
/// interesting value or a token of `other`, duplicate or delete one.
fn tokens(input: Vec<u8>, other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let text = String::from_utf8_lossy(&input).into_owned();
    let spans = token_spans(&text);
    if spans.is_empty() {
        let mut v = input;
        v.extend(interesting(rng).bytes());
        return v;
    }
    let (a, b) = *rng.pick(&spans);
    let replacement = match rng.below(4) {
        0 => {
            let other = String::from_utf8_lossy(other).into_owned();
            let theirs = token_spans(&other);
            if theirs.is_empty() {
                interesting(rng)
            } else {
                let (c, d) = *rng.pick(&theirs);
                other[c..d].to_owned()
            }
        }
        1 => text[a..b].repeat(2 + rng.below(3)),
        2 => String::new(),
        _ => interesting(rng),
    };
    let mut out = text[..a].to_owned();
    out.push_str(&replacement);
    out.push_str(&text[b..]);
    out.into_bytes()
}

/// The words of a command line after its first (the command's name) in groups: an
/// option (a word that starts with `-`) with the words up to the next option, or a word
/// before the first option.
fn option_groups(text: &str) -> Vec<Vec<&str>> {
    let mut groups: Vec<Vec<&str>> = Vec::new();
    for word in text.split_whitespace().skip(1) {
        match groups.last_mut() {
            Some(group) if !word.starts_with('-') && group[0].starts_with('-') => group.push(word),
            _ => groups.push(vec![word]),
        }
    }
    groups
}

/// Command-line mutations that keep options and their values together: an option's value
/// replaced by an interesting one or by the same option's value in `other`, an option
/// with its values deleted or repeated, an option of `other` with its values in place of
/// the same option or added.
fn command_line(input: &[u8], other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let text = String::from_utf8_lossy(input).into_owned();
    let theirs = String::from_utf8_lossy(other).into_owned();
    let name = text.split_whitespace().next().unwrap_or_default();
    let value;
    let mut groups = option_groups(&text);
    let donors = option_groups(&theirs);
    let at = rng.below(groups.len() + 1);
    match rng.below(5) {
        0 | 1 if at < groups.len() && groups[at].len() > 1 => {
            let same = donors
                .iter()
                .filter(|g| g.len() > 1 && g[0] == groups[at][0]);
            let same: Vec<&Vec<&str>> = same.collect();
            value = if same.is_empty() || rng.below(2) == 0 {
                interesting(rng)
            } else {
                rng.pick(&same)[1].to_owned()
            };
            let i = 1 + rng.below(groups[at].len() - 1);
            groups[at][i] = &value;
        }
        2 if at < groups.len() => {
            groups.remove(at);
        }
        3 if at < groups.len() => groups.insert(at, groups[at].clone()),
        _ if !donors.is_empty() => {
            // An option the line has already is replaced (most options are given once).
            let donor = rng.pick(&donors).clone();
            match groups.iter().position(|g| g[0] == donor[0]) {
                Some(i) => groups[i] = donor,
                None => groups.insert(at, donor),
            }
        }
        _ => {}
    }
    let words = std::iter::once(name).chain(groups.iter().flatten().copied());
    words.collect::<Vec<_>>().join(" ").into_bytes()
}

/// The byte ranges of `text`'s tokens: runs of bytes other than whitespace and
/// `:,=;[]{}"'`.
fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let sep = |c: char| c.is_whitespace() || ":,=;[]{}\"'".contains(c);
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (sep(c), start) {
            (true, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

/// Header keys an SWF log may set.
const HEADER_KEYS: &[&str] = &[
    "MaxProcs",
    "MaxNodes",
    "MaxJobs",
    "MaxRecords",
    "UnixStartTime",
    "TimeZone",
    "TimeZoneString",
    "StartTime",
    "EndTime",
    "MaxRuntime",
    "MaxMemory",
    "AllowOveruse",
    "Queues",
    "Partitions",
    "Note",
];

/// SWF mutations: a field of a line set to an interesting value or taken from `other`,
/// one field of every job line set alike, lines duplicated (one line many times: many
/// jobs at one time), deleted, swapped or spliced in from `other`, header keys added or
/// edited, the replay options line (`; Fuzz: ...`) rewritten.
fn swf(input: Vec<u8>, other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let text = String::from_utf8_lossy(&input).into_owned();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let theirs: Vec<&str> = std::str::from_utf8(other).unwrap_or("").lines().collect();
    let jobs: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].trim_start().starts_with(';') && !lines[i].trim().is_empty())
        .collect();
    let n = lines.len();
    match rng.below(9) {
        0 | 1 if !jobs.is_empty() => {
            let i = *rng.pick(&jobs);
            let mut fields: Vec<String> = lines[i].split_whitespace().map(str::to_owned).collect();
            let f = rng.below(fields.len().max(1) + 1);
            let value = match theirs.get(rng.below(theirs.len())) {
                Some(t) if rng.below(3) == 0 => t
                    .split_whitespace()
                    .nth(f)
                    .map_or_else(|| interesting(rng), str::to_owned),
                _ => interesting(rng),
            };
            if f < fields.len() {
                fields[f] = value;
            } else {
                fields.push(value);
            }
            lines[i] = fields.join(" ");
        }
        2 if !jobs.is_empty() => {
            let f = rng.below(18);
            let value = interesting(rng);
            for &i in &jobs {
                let mut fields: Vec<&str> = lines[i].split_whitespace().collect();
                if f < fields.len() {
                    fields[f] = &value;
                }
                lines[i] = fields.join(" ");
            }
        }
        3 if n > 0 => {
            let i = rng.below(n);
            let copies = if rng.below(4) == 0 {
                1 + rng.below(500)
            } else {
                1
            };
            let line = lines[i].clone();
            for _ in 0..copies {
                lines.insert(i, line.clone());
            }
        }
        4 if n > 0 => {
            lines.remove(rng.below(n));
        }
        5 if n > 1 => lines.swap(rng.below(n), rng.below(n)),
        6 if !theirs.is_empty() => lines.insert(
            rng.below(n + 1),
            (*theirs[rng.below(theirs.len())]).to_owned(),
        ),
        7 => {
            let line = format!("; {}: {}", rng.pick(HEADER_KEYS), interesting(rng));
            match lines
                .iter()
                .position(|l| l.starts_with(line.split(':').next().unwrap_or("")))
            {
                Some(i) if rng.below(2) == 0 => lines[i] = line,
                _ => lines.insert(rng.below(jobs.first().map_or(n, |&j| j) + 1), line),
            }
        }
        _ => {
            let line = options_line(rng);
            match lines.iter().position(|l| l.starts_with("; Fuzz:")) {
                Some(i) => lines[i] = line,
                None => lines.insert(0, line),
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

/// A random replay options line (read by the `replay` target).
pub fn options_line(rng: &mut Rng) -> String {
    let policy = rng.pick(&[
        "easy",
        "conservative",
        "fcfs",
        "flex",
        "maui:xfactor=10,fairshare=1",
        "fairshare",
        "limits:policy=conservative,jobs=2,procs=4",
    ]);
    let overrun = rng.pick(&["kill", "extend", "overrun"]);
    let estimates = rng.pick(&[
        "log",
        "log",
        "exact",
        "uniform:2",
        "scaled:1.5",
        "modal",
        "modal:max=1d,share=10",
        "uniform:1e308",
    ]);
    let predictor = rng.pick(&["none", "none", "sbh", "ruh", "estimate"]);
    let procs = rng.pick(&["log", "log", "1", "2", "64", "4294967295"]);
    let questionable = rng.pick(&[
        "zero-runtime=keep",
        "oversize=clamp",
        "oversize=skip",
        "bad-size=skip",
        "missing-estimate=runtime",
        "missing-estimate=max-runtime",
        "negative-runtime=keep",
    ]);
    let out = rng.pick(&["false", "false", "true"]);
    format!(
        "; Fuzz: policy={policy} overrun={overrun} estimates={estimates} predictor={predictor} \
         procs={procs} questionable={questionable} out={out}"
    )
}

/// JSON mutations: a random value (number, string, array element, object member) replaced
/// by an interesting value of any type, an array element duplicated many times, a member
/// removed. `Err` gives the input back when it is not JSON.
fn json(input: Vec<u8>, rng: &mut Rng) -> Result<Vec<u8>, Vec<u8>> {
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(&input) else {
        return Err(input);
    };
    let count = json_count(&value);
    let target = rng.below(count);
    let mut seen = 0;
    json_visit(&mut value, target, &mut seen, rng);
    Ok(serde_json::to_vec(&value).unwrap_or(input))
}

fn json_count(v: &serde_json::Value) -> usize {
    1 + match v {
        serde_json::Value::Array(a) => a.iter().map(json_count).sum(),
        serde_json::Value::Object(o) => o.values().map(json_count).sum(),
        _ => 0,
    }
}

/// Mutates the `target`-th value (in preorder) of `v`; returns whether it was reached.
fn json_visit(v: &mut serde_json::Value, target: usize, seen: &mut usize, rng: &mut Rng) -> bool {
    use serde_json::Value;
    if *seen == target {
        match (rng.below(5), &mut *v) {
            (0, Value::Array(a)) if !a.is_empty() => {
                let e = a[rng.below(a.len())].clone();
                for _ in 0..1 + rng.below(500) {
                    a.push(e.clone());
                }
            }
            (1, Value::Object(o)) if !o.is_empty() => {
                let k = o
                    .keys()
                    .nth(rng.below(o.len()))
                    .cloned()
                    .unwrap_or_default();
                o.remove(&k);
            }
            _ => *v = json_interesting(rng),
        }
        return true;
    }
    *seen += 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|e| json_visit(e, target, seen, rng)),
        Value::Object(o) => o.values_mut().any(|e| json_visit(e, target, seen, rng)),
        _ => false,
    }
}

fn json_interesting(rng: &mut Rng) -> serde_json::Value {
    use serde_json::Value;
    let text = interesting(rng);
    match rng.below(4) {
        0 => Value::String(text),
        1 => Value::Null,
        _ => serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text)),
    }
}

/// TOML mutations: a random leaf replaced by an interesting value (read as TOML, else a
/// string), an array element duplicated, a key removed or an unknown key added; the
/// document is written back. `Err` gives the input back when it is not TOML.
fn toml_value(input: Vec<u8>, rng: &mut Rng) -> Result<Vec<u8>, Vec<u8>> {
    let Ok(text) = std::str::from_utf8(&input) else {
        return Err(input);
    };
    let Ok(mut doc) = text.parse::<toml::Table>() else {
        return Err(input);
    };
    let mut root = toml::Value::Table(std::mem::take(&mut doc));
    let count = toml_count(&root);
    let target = rng.below(count);
    let mut seen = 0;
    toml_visit(&mut root, target, &mut seen, rng);
    match toml::to_string(&root) {
        Ok(s) => Ok(s.into_bytes()),
        Err(_) => Err(input),
    }
}

fn toml_count(v: &toml::Value) -> usize {
    1 + match v {
        toml::Value::Array(a) => a.iter().map(toml_count).sum(),
        toml::Value::Table(t) => t.values().map(toml_count).sum(),
        _ => 0,
    }
}

fn toml_visit(v: &mut toml::Value, target: usize, seen: &mut usize, rng: &mut Rng) -> bool {
    use toml::Value;
    if *seen == target {
        match (rng.below(6), &mut *v) {
            (0, Value::Array(a)) if !a.is_empty() => {
                let e = a[rng.below(a.len())].clone();
                for _ in 0..1 + rng.below(200) {
                    a.insert(rng.below(a.len() + 1), e.clone());
                }
            }
            (1, Value::Table(t)) if !t.is_empty() => {
                let k = t
                    .keys()
                    .nth(rng.below(t.len()))
                    .cloned()
                    .unwrap_or_default();
                t.remove(&k);
            }
            (2, Value::Table(t)) => {
                t.insert("fuzz".into(), toml_interesting(rng));
            }
            (_, Value::Table(_)) => {}
            _ => *v = toml_interesting(rng),
        }
        return true;
    }
    *seen += 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|e| toml_visit(e, target, seen, rng)),
        Value::Table(t) => t.iter_mut().any(|(_, e)| toml_visit(e, target, seen, rng)),
        _ => false,
    }
}

fn toml_interesting(rng: &mut Rng) -> toml::Value {
    let text = interesting(rng);
    if rng.below(3) == 0 {
        return toml::Value::String(text);
    }
    format!("v = {text}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or(toml::Value::String(text))
}
