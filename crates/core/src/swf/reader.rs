//! Streaming SWF reader: whole lines are parsed where they lie in the source's own buffer
//! (`BufRead::fill_buf`), found with `memchr`, and only a line split across two fills is
//! copied; numbers are parsed eight bytes at a time. A file opened by path may also be a
//! Batsim JSON workload ([`super::batsim`]), read whole.

use std::io::{self, BufRead};
use std::path::Path;

use super::record::{FIELD_NAMES, FIELDS, SwfRecord, Value, check_int_times, is_fractional};
use super::{LogInput, MAX_LINE, SwfError, SwfHeader, batsim};

/// What the reader read past and ignored, reported as warnings: columns beyond the 18
/// of SWF (the line is read without them) and comment lines after the first job line
/// (only the header block is kept).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Ignored {
    /// How many job lines had extra columns.
    pub lines: u64,
    /// The first such line.
    pub first_line: u64,
    /// The most columns seen on one line.
    pub max_columns: usize,
    /// Comment lines after the first job line.
    pub comments_after_jobs: u64,
}

/// A record and the line it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Located {
    /// 1-based line number in the file.
    pub line: u64,
    /// The record.
    pub record: SwfRecord,
}

/// Reads an SWF log record by record without loading it whole.
///
/// The header (every `;` line before the first job line, at most
/// [`MAX_HEADER_LINES`](super::header::MAX_HEADER_LINES)) is parsed by
/// [`SwfReader::new`]. Comment lines met later are counted
/// ([`Ignored::comments_after_jobs`]) and ignored. At most [`max_jobs`](super::max_jobs)
/// job lines are read.
///
/// [`SwfReader::open`] also reads Batsim JSON workloads, told by their first non-blank
/// byte (`{`): the workload is read whole and its jobs come out as records in submission
/// order, each `line` the job's position in the workload (see [`batsim::read_workload`]).
pub struct SwfReader<R> {
    src: R,
    /// A line split across two fills of `src`'s buffer, put together; empty otherwise.
    carry: Vec<u8>,
    lines: Lines,
    first: Option<Located>,
    /// The records still to return, when the file is a Batsim workload.
    batsim: Option<std::vec::IntoIter<Located>>,
}

/// What the reader has learnt from the lines read so far; kept apart from the source so
/// that lines can be taken while the source's buffer is borrowed.
struct Lines {
    /// The record of the last job line taken.
    record: SwfRecord,
    file: String,
    line_no: u64,
    header: SwfHeader,
    extra: Ignored,
    bytes: u64,
    /// Bytes of the header's comment lines.
    header_bytes: usize,
    /// Job lines taken.
    jobs: u64,
    /// The most job lines taken before an error ([`super::max_jobs`] when opened).
    max_jobs: u64,
}

impl SwfReader<LogInput> {
    /// Opens the log at `path`, plain or compressed ([`LogInput`]), SWF or a Batsim JSON
    /// workload.
    pub fn open(path: &Path) -> Result<Self, SwfError> {
        let file = path.display().to_string();
        let io = |source| SwfError::Io {
            file: file.clone(),
            source,
        };
        let mut input = LogInput::open(path).map_err(io)?;
        if !batsim::looks_like_json(&mut input).map_err(io)? {
            return Self::new(input, &file);
        }
        let (header, records, bytes) = batsim::read_workload(&mut input, &file)?;
        Ok(SwfReader {
            src: input,
            carry: Vec::new(),
            lines: Lines {
                header,
                bytes,
                ..Lines::new(file)
            },
            first: None,
            batsim: Some(records.into_iter()),
        })
    }
}

impl<R: BufRead> SwfReader<R> {
    /// Wraps `src`, naming it `file` in errors, and reads the header.
    pub fn new(src: R, file: &str) -> Result<Self, SwfError> {
        let mut reader = SwfReader {
            src,
            carry: Vec::new(),
            lines: Lines::new(file.to_owned()),
            first: None,
            batsim: None,
        };
        reader.first = reader.read_record()?;
        Ok(reader)
    }

    /// The header read so far (all of it once the first record has been returned).
    pub fn header(&self) -> &SwfHeader {
        &self.lines.header
    }

    /// The name used for this log in messages.
    pub fn file(&self) -> &str {
        &self.lines.file
    }

    /// What was ignored so far: extra columns, comments after the header.
    pub fn ignored(&self) -> Ignored {
        self.lines.extra
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.lines.bytes
    }

    /// The next record, or `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Located>, SwfError> {
        if let Some(first) = self.first.take() {
            return Ok(Some(first));
        }
        let record = self.read_record()?;
        if let Some(located) = &record
            && self.lines.jobs > self.lines.max_jobs
        {
            return Err(SwfError::TooManyJobs {
                file: self.lines.file.clone(),
                line: located.line,
                max: self.lines.max_jobs,
            });
        }
        Ok(record)
    }

    /// The next job line's record. Lines are taken straight from the source's buffer; the
    /// tail of a buffer that ends mid-line goes to `carry`, which the next fills complete.
    fn read_record(&mut self) -> Result<Option<Located>, SwfError> {
        if let Some(records) = &mut self.batsim {
            let record = records.next();
            self.lines.jobs += u64::from(record.is_some());
            return Ok(record);
        }
        // A long log stops being read at Ctrl-C (looked at every 65,536 jobs).
        if self.lines.jobs.is_multiple_of(65_536) && crate::engine::abandoned() {
            return Err(SwfError::Read {
                file: self.lines.file.clone(),
                line: self.lines.line_no + 1,
                source: io::Error::other("stopped by Ctrl-C"),
            });
        }
        loop {
            let avail = match self.src.fill_buf() {
                Ok(avail) => avail,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(SwfError::Read {
                        file: self.lines.file.clone(),
                        line: self.lines.line_no + 1,
                        source,
                    });
                }
            };
            if !self.carry.is_empty() || avail.is_empty() {
                let Some(end) = memchr::memchr(b'\n', avail) else {
                    // The end of the file, or more of a line that goes on.
                    if avail.is_empty() {
                        if self.carry.is_empty() {
                            return Ok(None);
                        }
                        let taken = self.lines.take(&self.carry);
                        self.carry.clear();
                        if taken? {
                            return Ok(Some(self.lines.located()));
                        }
                        continue;
                    }
                    if self.carry.len() + avail.len() > MAX_LINE {
                        return Err(self.lines.too_long());
                    }
                    let n = avail.len();
                    self.carry.extend_from_slice(avail);
                    self.src.consume(n);
                    continue;
                };
                if self.carry.len() + end + 1 > MAX_LINE {
                    return Err(self.lines.too_long());
                }
                self.carry.extend_from_slice(&avail[..=end]);
                self.src.consume(end + 1);
                let taken = self.lines.take(&self.carry);
                self.carry.clear();
                if taken? {
                    return Ok(Some(self.lines.located()));
                }
                continue;
            }
            let mut used = 0;
            loop {
                if let Some(len) = self.lines.take_plain(&avail[used..]) {
                    self.src.consume(used + len);
                    return Ok(Some(self.lines.located()));
                }
                let Some(end) = memchr::memchr(b'\n', &avail[used..]) else {
                    break;
                };
                let line = &avail[used..used + end + 1];
                used += end + 1;
                match self.lines.take(line) {
                    Ok(false) => {}
                    taken => {
                        self.src.consume(used);
                        taken?;
                        return Ok(Some(self.lines.located()));
                    }
                }
            }
            let tail = &avail[used..];
            if tail.len() > MAX_LINE {
                return Err(self.lines.too_long());
            }
            self.carry.extend_from_slice(tail);
            let n = avail.len();
            self.src.consume(n);
        }
    }
}

impl Lines {
    /// The state before the first line of `file`.
    fn new(file: String) -> Self {
        Lines {
            record: SwfRecord::UNKNOWN,
            file,
            line_no: 0,
            header: SwfHeader::default(),
            extra: Ignored::default(),
            bytes: 0,
            header_bytes: 0,
            jobs: 0,
            max_jobs: super::max_jobs(),
        }
    }

    /// Takes one line (with its line ending, if any): true for a job line, whose record
    /// is then in `record`; false for a blank or comment line (a comment joins the
    /// header).
    fn take(&mut self, raw: &[u8]) -> Result<bool, SwfError> {
        if raw.len() > MAX_LINE {
            return Err(self.too_long());
        }
        self.bytes += raw.len() as u64;
        self.line_no += 1;
        let mut line = raw;
        while let [rest @ .., b'\n' | b'\r'] = line {
            line = rest;
        }
        let mut body = skip_blanks(line);
        if let [b'\n' | b'\r' | b'\x0c', ..] = body {
            let start = line
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .unwrap_or(line.len());
            body = &line[start..];
        }
        match body {
            [] => return Ok(false),
            [b';', ..] => {
                if self.jobs > 0 {
                    self.extra.comments_after_jobs += 1;
                    return Ok(false);
                }
                if self.header.lines.len() >= super::header::MAX_HEADER_LINES {
                    return Err(SwfError::HeaderTooLong {
                        file: self.file.clone(),
                        line: self.line_no,
                        max: super::header::MAX_HEADER_LINES,
                    });
                }
                self.header_bytes += line.len();
                if self.header_bytes > super::header::MAX_HEADER_BYTES {
                    return Err(SwfError::HeaderTooLarge {
                        file: self.file.clone(),
                        line: self.line_no,
                        max: super::header::MAX_HEADER_BYTES,
                    });
                }
                let text = String::from_utf8_lossy(line).into_owned();
                self.header.push_line(&self.file, self.line_no, &text)?;
                return Ok(false);
            }
            _ => {}
        }
        let extra = match parse_line(body, &mut self.record) {
            Ok(extra) => extra,
            Err((field, problem)) => {
                return Err(SwfError::Field {
                    file: self.file.clone(),
                    line: self.line_no,
                    field: field + 1,
                    name: FIELD_NAMES[field],
                    problem,
                });
            }
        };
        if extra > 0 {
            if self.extra.lines == 0 {
                self.extra.first_line = self.line_no;
            }
            self.extra.lines += 1;
            self.extra.max_columns = self.extra.max_columns.max(FIELDS + extra);
        }
        self.jobs += 1;
        Ok(true)
    }

    /// Takes the job line at the start of `text` if it is plain ([`plain_line`]): its
    /// length with its line ending, the record then in `record`; `None`, with nothing
    /// counted, for any other line, which [`Lines::take`] then reads. A line that may end
    /// within the last [`WINDOW`] bytes of `text` is read from a copy padded with zeros.
    #[inline]
    fn take_plain(&mut self, text: &[u8]) -> Option<usize> {
        let len = match text.first_chunk::<{ WINDOW + 8 }>() {
            Some(window) => plain_line(window, &mut self.record)?,
            None => {
                let mut window = [0; WINDOW + 8];
                window[..text.len()].copy_from_slice(text);
                plain_line(&window, &mut self.record)?
            }
        };
        self.bytes += len as u64;
        self.line_no += 1;
        self.jobs += 1;
        Some(len)
    }

    /// The record of the last job line taken, with its line number.
    #[inline]
    fn located(&self) -> Located {
        Located {
            line: self.line_no,
            record: self.record,
        }
    }

    /// The error for the line being read, longer than [`MAX_LINE`].
    #[cold]
    fn too_long(&self) -> SwfError {
        SwfError::LineTooLong {
            file: self.file.clone(),
            line: self.line_no + 1,
        }
    }
}

impl<R: BufRead> Iterator for SwfReader<R> {
    type Item = Result<Located, SwfError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// `text` without its leading spaces and tabs. Archive logs align their columns with runs
/// of spaces, so eight bytes are tested at a time.
#[inline]
fn skip_blanks(mut text: &[u8]) -> &[u8] {
    loop {
        while let Some((chunk, tail)) = text.split_first_chunk::<8>() {
            let other = u64::from_le_bytes(*chunk) ^ 0x2020_2020_2020_2020;
            if other != 0 {
                text = &text[(other.trailing_zeros() / 8) as usize..];
                break;
            }
            text = tail;
        }
        match text {
            [b' ' | b'\t', tail @ ..] => text = tail,
            _ => return text,
        }
    }
}

/// The byte `0x01` in every byte of a word.
const ONES: u64 = 0x0101_0101_0101_0101;

/// The byte `b' '` in every byte of a word.
const SPACES: u64 = 0x20 * ONES;

/// The value of the digits in the bytes of `x` (0 to 9 each), the first (most significant)
/// digit in the lowest byte: pairs, then fours, then all eight combined by multiplication
/// within the word. Other bytes give a meaningless value (the arithmetic wraps), which
/// [`plain_field`] computes before it knows the line is refused.
#[inline]
fn eight_digits(x: u64) -> u64 {
    let x = x.wrapping_mul(10).wrapping_add(x >> 8) & 0x00ff_00ff_00ff_00ff;
    let x = x.wrapping_mul(100).wrapping_add(x >> 16) & 0x0000_ffff_0000_ffff;
    x.wrapping_mul(10_000).wrapping_add(x >> 32) & 0xffff_ffff
}

/// How far into the source's buffer [`plain_line`] reads from a line's start: longer
/// lines are left to [`parse_line`]. Archive job lines are under 200 bytes.
const WINDOW: usize = 256;

/// The 64-bit words of a mask of one bit per byte of the window.
const WORDS: usize = WINDOW / 64;

// A plain field has at most eight digits, so it is never a time past `LONGEST`:
// `plain_line` leaves out `check_int_times`.
const _: () = assert!(99_999_999 <= crate::time::LONGEST);

/// Reads a plain job line at the start of `window` into `record` and returns its length
/// with its line ending; `None` for any other line, after which `record` holds nothing
/// meaningful (the fields are stored as they are read, and the reader overwrites them or
/// returns an error: `record` is only looked at after a job line has been taken).
///
/// A plain line is the usual archive job line: optional leading spaces, then 18 fields
/// separated by runs of spaces, each `-1` or one to eight digits, then optional spaces
/// and `\n` or `\r\n`, all within [`WINDOW`] bytes. Such a line is read in three steps,
/// so that no field waits for the one before it (the reading is bound by the latency of
/// a chain otherwise, as docs/PERFORMANCE.md measured):
///
/// 1. the mask of the line's bytes other than spaces, 16 bytes at a time
///    ([`chunk_masks`]), up to the first `\n`;
/// 2. from it, the mask of the line's tokens (runs of other bytes before the line
///    ending) and of their first bytes ([`Starts`]);
/// 3. each field read from one word at its token's start ([`plain_field`]), the
///    positions taken from the mask of starts with one `trailing_zeros` and one
///    clear-the-lowest-bit each.
///
/// Nothing is checked field by field. The line is plain exactly when it has 18 tokens
/// and the digits the fields found (two for `-1`) are as many as the tokens' bytes: a
/// field's digits never run past its token (a space or the line ending is not a digit),
/// so the sums agree only if every token is wholly `-1` or one to eight digits. Every
/// other line (tabs, comments, blank lines, signs, decimals, long numbers, extra columns,
/// form feeds, stray carriage returns, no `\n` within `WINDOW`) is refused, and
/// [`parse_line`] reads it: the two agree on every line this one takes (tested below).
#[inline]
fn plain_line(window: &[u8; WINDOW + 8], record: &mut SwfRecord) -> Option<usize> {
    let mut others = [0u64; WORDS];
    let newline = 'found: {
        for (j, word) in others.iter_mut().enumerate() {
            for c in 0..4 {
                let at = 64 * j + 16 * c;
                let (other, newlines) = chunk_masks(window[at..].first_chunk::<16>()?);
                *word |= other << (16 * c);
                if newlines != 0 {
                    break 'found at + newlines.trailing_zeros() as usize / 8;
                }
            }
        }
        return None;
    };
    let end = newline - usize::from(newline > 0 && window[newline - 1] == b'\r');
    let (mut starts, bytes) = Starts::new(&others, end);
    let mut digits = 0;
    record.job = plain_field(window, starts.next()?, &mut digits);
    record.submit = plain_field(window, starts.next()?, &mut digits);
    record.wait = plain_field(window, starts.next()?, &mut digits);
    record.run = plain_field(window, starts.next()?, &mut digits);
    record.alloc_procs = plain_field(window, starts.next()?, &mut digits);
    record.avg_cpu = plain_field(window, starts.next()?, &mut digits) as f64;
    record.used_mem = plain_field(window, starts.next()?, &mut digits) as f64;
    record.req_procs = plain_field(window, starts.next()?, &mut digits);
    record.req_time = plain_field(window, starts.next()?, &mut digits);
    record.req_mem = plain_field(window, starts.next()?, &mut digits) as f64;
    record.status = plain_field(window, starts.next()?, &mut digits);
    record.user = plain_field(window, starts.next()?, &mut digits);
    record.group = plain_field(window, starts.next()?, &mut digits);
    record.app = plain_field(window, starts.next()?, &mut digits);
    record.queue = plain_field(window, starts.next()?, &mut digits);
    record.partition = plain_field(window, starts.next()?, &mut digits);
    record.preceding = plain_field(window, starts.next()?, &mut digits);
    record.think = plain_field(window, starts.next()?, &mut digits);
    (starts.next().is_none() && digits == bytes).then_some(newline + 1)
}

/// The mask of the bytes of `chunk` other than spaces (bit `i` for byte `i`), and the
/// [`newlines`] of its two words, the lower in the lower half: the first `\n` is at
/// `trailing_zeros / 8`.
#[inline(always)]
fn chunk_masks(chunk: &[u8; 16]) -> (u64, u128) {
    let (low, high) = chunk.split_at(8);
    let low = u64::from_le_bytes(low.try_into().unwrap_or([0; 8]));
    let high = u64::from_le_bytes(high.try_into().unwrap_or([0; 8]));
    (
        others(low) | others(high) << 8,
        u128::from(newlines(high)) << 64 | u128::from(newlines(low)),
    )
}

/// The mask of the bytes of `w` other than spaces (bit `i` for byte `i`, the lowest byte
/// first): the top bit of each byte of `w ^` [`SPACES`] that is not zero (its low seven
/// bits plus 0x7f carry into the top bit unless they are all zero, and never out of the
/// byte), gathered into the top byte by one multiplication (bit `8i + 7` to bit
/// `56 + i`; the other products fall outside the top byte and never collide).
#[inline(always)]
fn others(w: u64) -> u64 {
    let x = w ^ SPACES;
    let other = ((x & (0x7f * ONES)).wrapping_add(0x7f * ONES) | x) & (0x80 * ONES);
    other.wrapping_mul(0x0002_0408_1020_4081) >> 56
}

/// The top bit of the bytes of `w` that may be `\n`, the lowest of them the first `\n`
/// (none if there is none): the zero bytes of `x = w ^ 0x0a0a..` keep their top bit in
/// `(x - 0x0101..) & !x`, and a borrow only reaches the bytes above a zero byte.
#[inline(always)]
fn newlines(w: u64) -> u64 {
    let x = w ^ (u64::from(b'\n') * ONES);
    x.wrapping_sub(ONES) & !x & (0x80 * ONES)
}

/// The first bytes of a line's tokens, runs of bytes other than spaces before the line's
/// end, walked in order: one word of the mask at a time, lowest bit first.
struct Starts {
    starts: [u64; WORDS],
    word: usize,
    bits: u64,
}

impl Starts {
    /// The tokens of the line whose bytes other than spaces are `others` (one bit per
    /// byte) and whose line ending starts at `end`, and how many bytes they hold.
    #[inline(always)]
    fn new(others: &[u64; WORDS], end: usize) -> (Self, u32) {
        let last = end / 64;
        let mut tokens = *others;
        tokens[last % WORDS] &= !(u64::MAX << (end % 64));
        let mut starts = [0; WORDS];
        let mut bytes = 0;
        let mut before = 0;
        for (start, token) in starts.iter_mut().zip(tokens).take(last + 1) {
            *start = token & !(token << 1 | before);
            before = token >> 63;
            bytes += token.count_ones();
        }
        let bits = starts[0];
        (
            Starts {
                starts,
                word: 0,
                bits,
            },
            bytes,
        )
    }

    /// The position of the next token's first byte; `None` after the last.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.word += 1;
            self.bits = *self.starts.get(self.word)?;
        }
        let at = 64 * self.word + self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(at)
    }
}

/// Reads the field whose token starts at `at`: `-1`, or the digits found and combined
/// within one word as in [`parse_plain_int`] (at most eight, as many as there are before
/// the first other byte), adding how many bytes it read to `digits`.
/// [`plain_line`] checks that these were the whole token.
#[inline(always)]
fn plain_field(window: &[u8; WINDOW + 8], at: usize, digits: &mut u32) -> i64 {
    let w = u64::from_le_bytes(*window[at % WINDOW..].first_chunk::<8>().unwrap_or(&[0; 8]));
    if w as u16 == u16::from_le_bytes(*b"-1") {
        *digits += 2;
        return -1;
    }
    let x = w ^ (0x30 * ONES);
    // As in `parse_plain_int`: the top bit of each byte that is not a digit. A byte of
    // 0x8a or more carries into the next, but only the first such byte counts.
    let not_digit = (x.wrapping_add(0x76 * ONES) | x) & (0x80 * ONES);
    // Eight times the number of digits: 64 when all eight bytes are digits.
    let bits = not_digit.trailing_zeros() & 0x78;
    *digits += bits / 8;
    eight_digits(x.wrapping_shl(64 - bits)) as i64
}

/// An optionally negative integer of 1 to 18 digits at the start of `text`, ended by the
/// end of `text` or a blank, and its length in bytes; `None` for anything else (which
/// [`parse_value`] then reads, or refuses). The digits of the usual field are found and
/// combined eight bytes at a time.
#[inline]
fn parse_plain_int(text: &[u8]) -> Option<(i64, usize)> {
    // "Unknown", the most common value of many fields.
    if let [b'-', b'1', tail @ ..] = text
        && matches!(tail, [] | [b' ' | b'\t', ..])
    {
        return Some((-1, 2));
    }
    let neg = matches!(text, [b'-', ..]);
    let start = usize::from(neg);
    let digits = &text[start..];
    let mut v: i64 = 0;
    let mut n = 0;
    if let Some(chunk) = digits.first_chunk::<8>() {
        let w = u64::from_le_bytes(*chunk);
        let x = w ^ (0x30 * ONES);
        // A byte is not a digit if its top bit is set, or if its low seven bits plus 0x76
        // reach 0x80 (that is, are 10 or more); the sum never carries into the next byte.
        let not_digit = (((x & (0x7f * ONES)) + 0x76 * ONES) | x) & (0x80 * ONES);
        if not_digit != 0 {
            let n = not_digit.trailing_zeros() as usize / 8;
            let end = (w >> (8 * n)) as u8;
            if n == 0 || (end != b' ' && end != b'\t') {
                return None;
            }
            let v = eight_digits(x << (8 * (8 - n))) as i64;
            return Some((if neg { -v } else { v }, start + n));
        }
        v = eight_digits(x) as i64;
        n = 8;
    }
    for &b in &digits[n..] {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            if b != b' ' && b != b'\t' {
                return None;
            }
            break;
        }
        if n == 18 {
            return None;
        }
        v = v * 10 + i64::from(d);
        n += 1;
    }
    if n == 0 {
        return None;
    }
    Some((if neg { -v } else { v }, start + n))
}

/// Parses the 18 fields of a job line into `record`; returns the number of extra
/// columns, or the 0-based field at fault and what is wrong with it.
fn parse_line(line: &[u8], record: &mut SwfRecord) -> Result<usize, (usize, String)> {
    let mut rest = line;
    let mut ints = [0i64; FIELDS];
    // The fields (bit i for field i) that hold the bits of an `f64` in `ints`: fields 6,
    // 7 and 10 when written with decimals.
    let mut floats = 0u32;
    for (i, value) in ints.iter_mut().enumerate() {
        rest = skip_blanks(rest);
        if let Some((v, len)) = parse_plain_int(rest) {
            *value = v;
            rest = &rest[len..];
            continue;
        }
        if rest.is_empty() {
            return Err((
                i,
                format!("missing: the line has {i} of the {FIELDS} fields"),
            ));
        }
        let len = rest
            .iter()
            .position(|&b| b == b' ' || b == b'\t')
            .unwrap_or(rest.len());
        match parse_value(&rest[..len], is_fractional(i)).map_err(|p| (i, p))? {
            Value::Int(v) => *value = v,
            Value::Float(f) => {
                *value = f.to_bits() as i64;
                floats |= 1 << i;
            }
        }
        rest = &rest[len..];
    }
    check_int_times(&ints)?;
    let rest = skip_blanks(rest);
    let extra = if rest.is_empty() {
        0
    } else {
        rest.split(|&b| b == b' ' || b == b'\t')
            .filter(|t| !t.is_empty())
            .count()
    };
    let real = |i: usize| {
        if floats & (1 << i) != 0 {
            f64::from_bits(ints[i] as u64)
        } else {
            ints[i] as f64
        }
    };
    *record = SwfRecord {
        job: ints[0],
        submit: ints[1],
        wait: ints[2],
        run: ints[3],
        alloc_procs: ints[4],
        avg_cpu: real(5),
        used_mem: real(6),
        req_procs: ints[7],
        req_time: ints[8],
        req_mem: real(9),
        status: ints[10],
        user: ints[11],
        group: ints[12],
        app: ints[13],
        queue: ints[14],
        partition: ints[15],
        preceding: ints[16],
        think: ints[17],
    };
    Ok(extra)
}

/// Parses one token: a plain integer on the fast path, otherwise a decimal number, which
/// integer fields accept only when it is integral (`12.0`).
fn parse_value(token: &[u8], fractional: bool) -> Result<Value, String> {
    if let Some(i) = parse_int(token) {
        return Ok(Value::Int(i));
    }
    let text = std::str::from_utf8(token).map_err(|_| "not valid text".to_owned())?;
    let f: f64 = text
        .parse()
        .ok()
        .filter(|f: &f64| f.is_finite())
        .ok_or_else(|| format!("'{}' is not a number", quoted(text)))?;
    if fractional {
        Ok(Value::Float(f))
    } else if f.fract() != 0.0 {
        Err(format!("'{}' is not an integer", quoted(text)))
    } else if f.abs() < 9.0e15 {
        Ok(Value::Int(f as i64))
    } else {
        Err(format!("'{}' is out of range", quoted(text)))
    }
}

/// A field as an error quotes it: at most [`crate::textfmt::QUOTED`] characters, control characters
/// escaped, so that a file that is not a log (a megabyte of one token, the process's
/// environment) is not echoed to the terminal.
fn quoted(text: &str) -> String {
    crate::textfmt::excerpt(text, crate::textfmt::QUOTED)
}

/// Parses an optionally signed decimal integer of at most 18 digits.
#[inline]
fn parse_int(token: &[u8]) -> Option<i64> {
    let (neg, digits) = match token {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, token),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + i64::from(d);
    }
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(text: &str) -> Result<(SwfHeader, Vec<Located>, Ignored), SwfError> {
        let mut r = SwfReader::new(text.as_bytes(), "test.swf")?;
        let records = r.by_ref().collect::<Result<Vec<_>, _>>()?;
        Ok((r.header().clone(), records, r.ignored()))
    }

    const LINE: &str = "1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1";

    #[test]
    fn parses_header_and_records() {
        let text = format!(
            "; Version: 2.2\n; MaxProcs: 100\n; MaxNodes: 50\n; UnixStartTime: 843480031\n\
             ; TimeZone: 3600\n; TimeZoneString: Europe/Stockholm\n; MaxRuntime: 216000\n\
             ; Note: uses the EASY scheduler\n;\n{LINE}\r\n\n  2 5 0 1 1 2.5 1024 1 60 -1 0 8 2 3 1 -1 -1 -1\n"
        );
        let (h, recs, extra) = read(&text).unwrap();
        assert_eq!(h.version.as_deref(), Some("2.2"));
        assert_eq!(h.max_procs, Some(100));
        assert_eq!(h.max_nodes, Some(50));
        assert_eq!(h.unix_start_time, Some(843_480_031));
        assert_eq!(h.time_zone, Some(3600));
        assert_eq!(h.time_zone_string.as_deref(), Some("Europe/Stockholm"));
        assert_eq!(h.max_runtime, Some(216_000));
        assert_eq!(h.notes, ["uses the EASY scheduler"]);
        assert_eq!(h.lines.len(), 9);
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].line, 10);
        assert_eq!(recs[1].line, 12);
        let r = recs[0].record;
        assert_eq!(
            (
                r.job,
                r.submit,
                r.wait,
                r.run,
                r.alloc_procs,
                r.req_time,
                r.user
            ),
            (1, 0, 10, 100, 4, 200, 7)
        );
        assert_eq!(recs[1].record.avg_cpu, 2.5);
        assert_eq!(recs[1].record.used_mem, 1024.0);
        assert_eq!(extra, Ignored::default());
    }

    #[test]
    fn short_line_names_file_line_and_missing_field() {
        let err = read(&format!("{LINE}\n1 2 3\n")).unwrap_err().to_string();
        assert_eq!(
            err,
            "test.swf:2: field 4 (run time): missing: the line has 3 of the 18 fields"
        );
    }

    #[test]
    fn bad_number_names_the_field() {
        let err = read("1 0 10 1x0 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "test.swf:1: field 4 (run time): '1x0' is not a number");
        let err = read("1 0 10 1.5 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "test.swf:1: field 4 (run time): '1.5' is not an integer"
        );
        let err = read("1 0 10 nan 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("'nan' is not a number"), "{err}");
    }

    #[test]
    fn integral_decimals_are_accepted_in_integer_fields() {
        let (_, recs, _) = read("1 0 10.0 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1.00\n").unwrap();
        assert_eq!(recs[0].record.wait, 10);
        assert_eq!(recs[0].record.think, -1);
    }

    #[test]
    fn errors_quote_a_short_escaped_excerpt() {
        let long = format!("x{}", "9".repeat(1 << 20));
        let e = parse_value(long.as_bytes(), false).unwrap_err();
        assert_eq!(
            e,
            format!(
                "'x{}…' is not a number",
                "9".repeat(crate::textfmt::QUOTED - 1)
            )
        );
        let e = parse_value(b"A=1\0B=\x1b[2J", false).unwrap_err();
        assert_eq!(e, "'A=1\\u{0}B=\\u{1b}[2J' is not a number");
    }

    #[test]
    fn extra_columns_are_counted_not_fatal() {
        let text = format!("{LINE}\n{LINE} 9 9\n; late\n{LINE} 9\n");
        let (_, recs, extra) = read(&text).unwrap();
        assert_eq!(recs.len(), 3);
        assert_eq!(
            extra,
            Ignored {
                lines: 2,
                first_line: 2,
                max_columns: 20,
                comments_after_jobs: 1,
            }
        );
    }

    #[test]
    fn bad_header_value_is_an_error() {
        let err = read("; MaxProcs: lots\n").unwrap_err().to_string();
        assert_eq!(err, "test.swf:1: header MaxProcs: 'lots' is not an integer");
        let err = read("; UnixStartTime: 9223372036854775807\n").unwrap_err();
        assert!(
            err.to_string().starts_with(
                "test.swf:1: header UnixStartTime: 9223372036854775807 is out of range"
            ),
            "{err}"
        );
        let err = read(";\n; TimeZone: -9223372036854775807\n").unwrap_err();
        assert!(
            err.to_string().starts_with("test.swf:2: header TimeZone:"),
            "{err}"
        );
    }

    #[test]
    fn a_line_past_the_limit_is_refused_without_reading_on() {
        // An endless line: the reader must stop at the limit, not at the end.
        let endless = std::io::BufReader::new(std::io::repeat(b'7'));
        let err = SwfReader::new(endless, "zero").err().unwrap().to_string();
        assert_eq!(
            err,
            format!("zero:1: the line is longer than {MAX_LINE} bytes: not an SWF log")
        );
        let mut text = format!("; MaxProcs: 4\n{LINE}\n; ");
        text.push_str(&"x".repeat(MAX_LINE));
        let err = read(&text).unwrap_err().to_string();
        assert!(err.starts_with("test.swf:3: the line is longer"), "{err}");
        // Just under the limit is a line like any other.
        let text = format!("; {}\n{LINE}\n", "x".repeat(MAX_LINE - 3));
        assert_eq!(read(&text).unwrap().1.len(), 1);
    }

    #[test]
    fn times_past_a_century_are_refused_by_field() {
        let year = 365 * 86_400;
        // A century exactly is taken; a second more is not, in any time field.
        let ok = format!("1 0 0 {} 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n", 100 * year);
        assert_eq!(read(&ok).unwrap().1[0].record.run, 100 * year);
        for (field, name) in [
            (2, "submit time"),
            (3, "wait time"),
            (4, "run time"),
            (9, "requested time"),
            (18, "think time"),
        ] {
            let mut values: Vec<String> = LINE.split(' ').map(str::to_owned).collect();
            values[field - 1] = "9000000000000000".to_owned();
            let err = read(&values.join(" ")).unwrap_err().to_string();
            assert!(err.starts_with(&format!("test.swf:1: field {field} ({name}): 9000000000000000 s is longer than 100 years")), "{err}");
        }
    }

    #[test]
    fn blanks_are_skipped_in_every_position() {
        for text in [
            "",
            "x",
            " x",
            "        x",
            "         x",
            "\t  \t   \t        1 2",
            "                ",
        ] {
            let n = text
                .bytes()
                .take_while(|&b| b == b' ' || b == b'\t')
                .count();
            assert_eq!(
                skip_blanks(text.as_bytes()),
                &text.as_bytes()[n..],
                "{text:?}"
            );
        }
    }

    #[test]
    fn int_parser_limits() {
        assert_eq!(parse_int(b"-17"), Some(-17));
        assert_eq!(parse_int(b"+5"), Some(5));
        assert_eq!(parse_int(b"-"), None);
        assert_eq!(
            parse_int(b"999999999999999999"),
            Some(999_999_999_999_999_999)
        );
        assert_eq!(parse_int(b"9999999999999999999"), None);
        assert_eq!(
            parse_value(b"9999999999999999999", false).unwrap_err(),
            "'9999999999999999999' is out of range"
        );
    }

    /// Lines of the archive's shapes and of every shape `plain_line` must refuse.
    const LINES: &[&[u8]] = &[
        b"    1        0 964980  97225   56     -1    -1   56 210000    -1  1   1   1  -1 -1 -1 -1 -1\n",
        b"477353 43603464      0    628 77248     -1    -1 4828   7200    -1  1   4 168  -1 -1 10 -1 -1\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\r\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1   \n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1   \r\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\r\r\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\r",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -12\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1 9\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1-1\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1x\n",
        b"1 0 10 100 4 -12 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 100 4 -5 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 100 4 +5 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 100 4 - -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10.0 100 4 2.5 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 12345678 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 123456789 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 1234567890123456789 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 12-1 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 1x0 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 9\xff 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1\t0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"\t1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"\x0c1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"\r 1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\x0c\n",
        b"1 0 10 100\r4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"-1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n",
        b"; MaxProcs: 100\n",
        b"  ; 1 2 3\n",
        b"\n",
        b"        \n",
        b"\r\n",
        b"",
    ];

    /// What `Lines::take`, the general reading, makes of `line`: the record and the
    /// extra columns, or the error's message; `None` for a blank or comment line.
    fn general(line: &[u8]) -> Result<Option<(SwfRecord, Ignored)>, String> {
        let mut lines = Lines::new("t".into());
        match lines.take(line) {
            Ok(true) => Ok(Some((lines.record, lines.extra))),
            Ok(false) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The first line of `text`, with its `\n` if it has one.
    fn first_line(text: &[u8]) -> &[u8] {
        text.iter()
            .position(|&b| b == b'\n')
            .map_or(text, |end| &text[..=end])
    }

    /// Checks `plain_line` on `line` followed by `next` (the rest of the buffer): when it
    /// takes the first line, it takes all of it and reads what the general reading reads,
    /// with no extra columns. Returns whether it took it.
    fn agrees(line: &[u8], next: &[u8]) -> bool {
        let text = [line, next].concat();
        let line = first_line(&text);
        let mut lines = Lines::new("t".into());
        let Some(len) = lines.take_plain(&text) else {
            assert_eq!((lines.line_no, lines.bytes), (0, 0), "{line:?}");
            return false;
        };
        assert_eq!(len, line.len(), "{line:?}");
        assert_eq!((lines.line_no, lines.bytes), (1, len as u64));
        let (record, extra) = general(line)
            .unwrap_or_else(|e| panic!("{line:?}: taken, but the general reading says {e}"))
            .unwrap_or_else(|| panic!("{line:?}: taken, but not a job line"));
        assert_eq!(lines.record, record, "{}", String::from_utf8_lossy(line));
        assert_eq!(extra, Ignored::default());
        true
    }

    #[test]
    fn plain_lines_read_as_the_general_reading_does() {
        let taken: Vec<bool> = LINES
            .iter()
            .map(|line| agrees(line, b"2 3 4 5\n") | agrees(line, b""))
            .collect();
        // The archive's usual lines are taken; the rest are left to `parse_line`.
        assert_eq!(&taken[..6], [true; 6]);
        assert!(taken[19], "eight digits");
        assert_eq!(taken.iter().filter(|&&t| t).count(), 8, "{taken:?}");
    }

    #[test]
    fn plain_lines_near_the_window_and_the_buffer_end() {
        let fields = "1 0 10 100 4 -1 -1 4 200 -1 1 7 2 3 1 -1 -1 -1\n";
        for pad in 0..WINDOW + 16 {
            let line = format!("{}{fields}", " ".repeat(pad));
            let fits = line.len() <= WINDOW;
            assert_eq!(agrees(line.as_bytes(), b""), fits, "{pad}");
            assert_eq!(agrees(line.as_bytes(), &[b' '; WINDOW]), fits, "{pad}");
            // A line cut by the end of the buffer is left to the general reading.
            let cut = &line.as_bytes()[..line.len() - 1];
            assert!(!agrees(cut, b""));
        }
    }

    /// Bytes of any value where a field is expected are refused without overflow in
    /// the digit arithmetic (found by CI's proptest run in a debug build: fifteen `-1`
    /// fields, no line ending, then `:` and high bytes in the buffer).
    #[test]
    fn any_bytes_in_a_field_are_refused_without_overflow() {
        let fifteen = "-1 ".repeat(14) + "-1";
        assert!(!agrees(fifteen.as_bytes(), b":\0\0\0\0\0\xf0\xfc"));
        for b in 0..=u8::MAX {
            for n in 1..=8 {
                let field = vec![b; n];
                let line = [
                    b"1 ",
                    &field[..],
                    b" 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n",
                ];
                let plain = b.is_ascii_digit();
                assert_eq!(agrees(&line.concat(), b""), plain, "{b:#x} x{n}");
            }
        }
    }

    /// Spaces of every length before every field: tokens start and end on both sides of
    /// each 64-bit word of the masks, and a line past the window is refused.
    #[test]
    fn plain_lines_with_fields_across_the_mask_words() {
        let fields: Vec<&str> = LINE.split(' ').collect();
        for field in 0..FIELDS {
            for pad in 1..WINDOW {
                for long in [None, Some((field + 1) % FIELDS)] {
                    let mut line = String::new();
                    for (i, value) in fields.iter().enumerate() {
                        line.push_str(&" ".repeat(if i == field { pad } else { 1 }));
                        line.push_str(if Some(i) == long { "12345678" } else { value });
                    }
                    line.push('\n');
                    let fits = line.len() <= WINDOW;
                    assert_eq!(agrees(line.as_bytes(), b""), fits, "{line}");
                    assert_eq!(agrees(line.as_bytes(), LINE.as_bytes()), fits, "{line}");
                }
            }
        }
    }

    /// The mask of the bytes other than spaces and the first `\n` of 16 bytes, as the
    /// bytes say: every byte value in every position among bytes of several kinds.
    #[test]
    fn chunk_masks_find_the_spaces_and_the_newline() {
        for fill in [b' ', b'\n', b'0', 0, 0x7f, 0x80, 0x8a, 0xff] {
            for b in 0..=u8::MAX {
                for i in 0..16 {
                    let mut chunk = [fill; 16];
                    chunk[i] = b;
                    assert_eq!(masks(&chunk), bytewise_masks(&chunk), "{fill} {b} {i}");
                }
            }
        }
    }

    /// [`chunk_masks`]'s mask, and the position of the first `\n` (16 if none).
    fn masks(chunk: &[u8; 16]) -> (u64, usize) {
        let (others, newlines) = chunk_masks(chunk);
        (others, (newlines.trailing_zeros() / 8).min(16) as usize)
    }

    /// What [`masks`] computes, byte by byte.
    fn bytewise_masks(chunk: &[u8; 16]) -> (u64, usize) {
        let others = (0..16)
            .filter(|&i| chunk[i] != b' ')
            .fold(0, |m, i| m | 1 << i);
        let newline = chunk.iter().position(|&b| b == b'\n').unwrap_or(16);
        (others, newline)
    }

    /// One field, most often plain: `-1`, or digits (mostly one to eight, up to 20),
    /// now and then signed, with a decimal part or an odd byte, or not a number at all.
    fn field() -> impl Strategy<Value = Vec<u8>> {
        let digits = prop_oneof![
            19 => prop::collection::vec(b'0'..=b'9', 1..=8),
            1 => prop::collection::vec(b'0'..=b'9', 9..=20),
        ];
        prop_oneof![
            30 => Just(b"-1".to_vec()),
            70 => (
                prop_oneof![200 => Just(&b""[..]), 1 => Just(&b"-"[..]), 1 => Just(&b"+"[..])],
                digits,
                prop_oneof![
                    300 => Just(&b""[..]),
                    1 => Just(&b".0"[..]),
                    1 => Just(&b".5"[..]),
                    1 => Just(&b"e1"[..]),
                    1 => Just(&b"x"[..]),
                    1 => Just(&b"\xff"[..]),
                    1 => Just(&b"-1"[..]),
                ],
            )
                .prop_map(|(sign, digits, tail)| [sign, &digits, tail].concat()),
            1 => prop::sample::select(vec![&b"-"[..], b";", b"\r", b"\x0c", b"-0"])
                .prop_map(<[u8]>::to_vec),
        ]
    }

    /// A run of blanks: mostly spaces, of 0 to 12, now and then a tab.
    fn blanks() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop_oneof![1000 => Just(b' '), 1 => Just(b'\t')], 0..12)
    }

    /// A line of 15 to 20 fields (most often 18) with random blanks and ending; the
    /// blanks before a field are sometimes none, joining it to the one before.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        (
            prop_oneof![4 => Just(18usize), 1 => 15usize..=20],
            prop::collection::vec(
                (
                    prop_oneof![30 => Just(true), 1 => Just(false)],
                    blanks(),
                    field(),
                ),
                20,
            ),
            blanks(),
            prop::sample::select(vec![
                &b"\n"[..],
                b"\n",
                b"\n",
                b"\n",
                b"\r\n",
                b"\r\n",
                b"\r\r\n",
                b"\r",
                b"",
            ]),
        )
            .prop_map(|(n, fields, tail, end)| {
                let mut line = Vec::new();
                for (i, (apart, blanks, field)) in fields.into_iter().take(n).enumerate() {
                    line.extend_from_slice(&blanks);
                    if i > 0 && apart && blanks.is_empty() {
                        line.push(b' ');
                    }
                    line.extend_from_slice(&field);
                }
                line.extend_from_slice(&tail);
                line.extend_from_slice(end);
                line
            })
    }

    #[test]
    fn random_lines_are_often_plain() {
        // The property below means something only if `plain_line` takes many of them.
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let taken = (0..1000)
            .filter(|_| {
                let line = line().new_tree(&mut runner).unwrap();
                agrees(&proptest::strategy::ValueTree::current(&line), b"\n")
            })
            .count();
        assert!(taken > 80, "{taken}");
    }

    proptest! {
        /// `plain_line` reads every line it takes as the general reading does, whatever
        /// follows it in the buffer, and takes the plain ones.
        #[test]
        fn plain_line_agrees_with_the_general_reading(
            line in line(),
            next in prop::collection::vec(any::<u8>(), 0..300),
        ) {
            let taken = agrees(&line, &next);
            let text = [&line[..], &next].concat();
            let line = first_line(&text);
            let body = line.strip_suffix(b"\n").unwrap_or(b"\x00");
            let body = body.strip_suffix(b"\r").unwrap_or(body);
            let plain = line.len() <= WINDOW
                && general(line).is_ok_and(|r| r.is_some_and(|(_, extra)| extra.lines == 0))
                && body.iter().all(|&b| b.is_ascii_digit() || b == b' ' || b == b'-')
                && body.split(|&b| b == b' ').all(|f| {
                    f.len() <= 8 && (!f.starts_with(b"-") || f == b"-1")
                });
            prop_assert_eq!(taken, plain, "{:?}", String::from_utf8_lossy(line));
        }

        /// [`chunk_masks`] on any 16 bytes.
        #[test]
        fn chunk_masks_agree_with_the_bytes(chunk in any::<[u8; 16]>()) {
            prop_assert_eq!(masks(&chunk), bytewise_masks(&chunk));
        }

        /// A whole log read through buffers of any size (lines split between fills,
        /// lines read from the padded window) gives the records and errors of the log
        /// read line by line with the general reading.
        #[test]
        fn any_buffer_size_reads_as_line_by_line(
            lines in prop::collection::vec(line(), 1..12),
            capacity in 1usize..400,
        ) {
            let text = lines.concat();
            let mut by_line = Lines::new("t".into());
            let mut expected = Vec::new();
            for l in text.split_inclusive(|&b| b == b'\n') {
                match by_line.take(l) {
                    Ok(true) => expected.push(Ok((by_line.line_no, by_line.record))),
                    Ok(false) => {}
                    Err(e) => {
                        expected.push(Err(e.to_string()));
                        break;
                    }
                }
            }
            let mut got = Vec::new();
            match SwfReader::new(std::io::BufReader::with_capacity(capacity, text.as_slice()), "t") {
                Ok(mut reader) => {
                    for r in reader.by_ref() {
                        match r {
                            Ok(located) => got.push(Ok((located.line, located.record))),
                            Err(e) => {
                                got.push(Err(e.to_string()));
                                break;
                            }
                        }
                    }
                    if !got.last().is_some_and(Result::is_err) {
                        prop_assert_eq!(reader.bytes_read(), text.len() as u64);
                        prop_assert_eq!(reader.ignored(), by_line.extra);
                    }
                }
                Err(e) => got.push(Err(e.to_string())),
            }
            prop_assert_eq!(got, expected);
        }
    }
}
