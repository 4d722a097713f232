//! The layers of `src/`: no module uses a module on a higher layer, and no files
//! import each other in a circle.
//!
//! The layer order is the fenced block under `## Layers` in `docs/ARCHITECTURE.md`: one
//! layer a line, from the bottom up, each line naming top-level modules of `src/` (`main`
//! is `src/main.rs`; `lib.rs` only declares modules). A layer name with no module in
//! `src/` yet is allowed; a module of `src/` on no layer, or on two, is an error.
//!
//! How `src/` is read (std only, a token scan, no parser):
//!
//! - Every `.rs` file under `src/` is a node, named by its module path
//!   (`src/experiment/study.rs` is `experiment::study`, `src/sched/mod.rs` is `sched`,
//!   `src/main.rs` is `main`). Comments (doc comments and their intra-doc links included),
//!   string, byte-string, raw-string and char literals are skipped.
//! - Imports are every `use` item, wherever it stands (`pub use`, `pub(crate) use`, groups
//!   over several lines, `as` renames, globs, inside functions), and every path written in
//!   code that starts with `crate::`, `super::`, `self::` (`sitesim::` in `src/main.rs`), or
//!   with the name of a child module of the current module (`queue::X` in `engine`).
//!   `super` and `self` are taken relative to the module the path stands in, inline modules
//!   included: `use super::*` in a file's `mod tests { .. }` is the file itself. Test
//!   modules are read like any other code: they must keep the layers too.
//! - An import names the module file that is the longest prefix of its path
//!   (`crate::sched::registry::is_unknown_parameter` names `src/sched/registry.rs`), then
//!   the file where the item after that prefix is defined when a scan finds it: an item
//!   at the module's top level (`fn`, `struct`, `enum`, `trait`, `type`, `const`,
//!   `static`, `union`, `mod` or `macro_rules!`, whatever its visibility), else a `use`
//!   binding of that name in the module (a re-export, or a private import, which child
//!   modules can also name), followed to its source, else a glob `use` of the module. So
//!   `sched/easy.rs` using `super::Scheduler` (defined in `sched/mod.rs`) is an edge
//!   `sched::easy -> sched`, and `super::RunningByEnd` (which `sched/mod.rs` re-exports
//!   from `running`) is an edge `sched::easy -> sched::running`. An item the scan does
//!   not find is charged to the module file itself.
//! - A module declaration (`mod child;`) is not an edge, and neither is a re-export of a
//!   descendant (`pub use child::X;` in a parent, any `pub(..)`): it only names the child's
//!   item for outsiders. A non-`pub` `use child::X` in a parent is for the parent's own
//!   code, and is an edge parent -> child, as is any `child::X` path in its code. So the
//!   ordinary pattern (the parent re-exports its children; the children use what the
//!   parent defines) is no cycle, but a parent that uses a child that uses the parent is.
//!   The price: a parent's own code using a name it re-exports (`pub use child::X;`,
//!   then `X` in the parent's functions) is not seen.
//!
//! What fails the test:
//!
//! - (a) a file whose import names a top-level module on a higher layer than its own, by
//!   the module its path names once `super` and `self` are resolved, not where a
//!   re-export leads (reported as `file:line`, both modules and layers, the import as
//!   written);
//! - (b) a cycle between files: each strongly connected component of the file graph with
//!   more than one file, with every edge inside it (`from -> to: names (file:line)`), or,
//!   for a component tying more than 12 pairs of files, its shortest cycles;
//! - a module of `src/` on no layer or on two, or no `## Layers` block.
//!
//! `cargo test --test layers -- --nocapture` prints what was read; with `LAYERS_EDGES=1`
//! in the environment, also every edge (`file:line: from -> to: name`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A module path from the crate root (`["sched", "easy"]`; `["main"]` for `src/main.rs`).
type ModPath = Vec<String>;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
    /// A literal or a lifetime: never part of a path.
    Lit,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// Bytes from 0x80 up are taken as parts of identifiers: source is scanned as bytes, and
/// a non-ASCII character outside comments and literals can only be in an identifier.
fn is_ident_start(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphabetic() || c >= 0x80
}

fn is_ident_char(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80
}

/// Splits Rust source into the tokens paths are made of, skipping comments and literals.
fn tokenize(src: &str) -> Vec<Token> {
    let s = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let at = |j: usize| s.get(j).copied().unwrap_or(0);
    // Skips a quoted literal starting at the quote `s[j]`; returns the index after it.
    let skip_quoted = |mut j: usize, line: &mut usize| -> usize {
        j += 1;
        while j < s.len() {
            match s[j] {
                b'\\' => {
                    if at(j + 1) == b'\n' {
                        *line += 1;
                    }
                    j += 2;
                }
                b'"' => return j + 1,
                b'\n' => {
                    *line += 1;
                    j += 1;
                }
                _ => j += 1,
            }
        }
        j
    };
    // Skips a raw string `r#.."..."#..` whose `#`s start at `s[j]`.
    let skip_raw = |mut j: usize, line: &mut usize| -> usize {
        let mut hashes = 0;
        while at(j) == b'#' {
            hashes += 1;
            j += 1;
        }
        j += 1; // the opening quote
        while j < s.len() {
            if s[j] == b'\n' {
                *line += 1;
            }
            if s[j] == b'"' && (1..=hashes).all(|k| at(j + k) == b'#') {
                return j + 1 + hashes;
            }
            j += 1;
        }
        j
    };
    while i < s.len() {
        let c = s[i];
        let start_line = line;
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'/' && at(i + 1) == b'/' {
            while i < s.len() && s[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && at(i + 1) == b'*' {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == b'/' && at(i + 1) == b'*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == b'*' && at(i + 1) == b'/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if s[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == b'"' {
            i = skip_quoted(i, &mut line);
            out.push(Token {
                tok: Tok::Lit,
                line: start_line,
            });
        } else if c == b'\'' {
            if at(i + 1) == b'\\' {
                // An escaped char literal: up to the closing quote.
                i += 2;
                while i < s.len() && s[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 1) >= 0x80 {
                // A non-ASCII char literal.
                i += 1;
                while at(i) >= 0x80 {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == b'\'' {
                i += 3;
            } else {
                // A lifetime or label.
                i += 1;
                while i < s.len() && is_ident_char(s[i]) {
                    i += 1;
                }
            }
            out.push(Token {
                tok: Tok::Lit,
                line: start_line,
            });
        } else if is_ident_start(c) {
            let b = i;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            let word = String::from_utf8_lossy(&s[b..i]).into_owned();
            let next = at(i);
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            if raw_prefix && (next == b'"' || (next == b'#' && matches!(at(i + 1), b'"' | b'#'))) {
                i = skip_raw(i, &mut line);
                out.push(Token {
                    tok: Tok::Lit,
                    line: start_line,
                });
            } else if matches!(word.as_str(), "b" | "c") && next == b'"' {
                i = skip_quoted(i, &mut line);
                out.push(Token {
                    tok: Tok::Lit,
                    line: start_line,
                });
            } else if word == "b" && next == b'\'' {
                i += 1;
                if at(i + 1) == b'\\' {
                    i += 2;
                    while i < s.len() && s[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                } else {
                    i += 3;
                }
                out.push(Token {
                    tok: Tok::Lit,
                    line: start_line,
                });
            } else if word == "r" && next == b'#' && is_ident_start(at(i + 1)) {
                // A raw identifier `r#name`.
                i += 1;
                let b = i;
                while i < s.len() && is_ident_char(s[i]) {
                    i += 1;
                }
                let name = String::from_utf8_lossy(&s[b..i]).into_owned();
                out.push(Token {
                    tok: Tok::Ident(name),
                    line: start_line,
                });
            } else {
                out.push(Token {
                    tok: Tok::Ident(word),
                    line: start_line,
                });
            }
        } else if c.is_ascii_digit() {
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Lit,
                line: start_line,
            });
        } else if c == b':' && at(i + 1) == b':' {
            i += 2;
            out.push(Token {
                tok: Tok::PathSep,
                line: start_line,
            });
        } else {
            i += 1;
            out.push(Token {
                tok: Tok::Punct(char::from(c)),
                line: start_line,
            });
        }
    }
    out
}

/// How a path is written before it is made absolute.
#[derive(Clone, Debug)]
struct RawPath {
    /// The segments as written (`["super", "registry", "SchedulerSpec"]`).
    segs: Vec<String>,
    /// `use a::b::*`.
    glob: bool,
}

/// One import: a leaf of a `use` tree, or a path in code.
#[derive(Clone, Debug)]
struct Import {
    raw: RawPath,
    line: usize,
    /// The module the import stands in (a file's module, or an inline module in it).
    module: ModPath,
    /// From a `use` with any `pub`.
    public: bool,
    /// From a `use` item.
    is_use: bool,
    /// The name a `use` leaf binds (`None` for globs, `as _` and paths in code).
    binds: Option<String>,
    /// Stands at the file module's own top level (not in an inline module or a block).
    file_level: bool,
}

/// What one file holds.
#[derive(Debug, Default)]
struct FileScan {
    imports: Vec<Import>,
    /// Items defined at the file module's top level.
    defs: HashSet<String>,
    /// Inline modules (`mod tests { .. }`), by their absolute path.
    inline_mods: HashSet<ModPath>,
}

#[derive(Clone, Copy, PartialEq)]
enum Block {
    Mod,
    Other,
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token {
            tok: Tok::Ident(s), ..
        }) => Some(s),
        _ => None,
    }
}

fn is(t: Option<&Token>, want: &Tok) -> bool {
    t.is_some_and(|t| &t.tok == want)
}

const ITEM_KEYWORDS: [&str; 9] = [
    "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod",
];

const NOT_NAMES: [&str; 8] = ["fn", "unsafe", "async", "extern", "_", "mut", "impl", "for"];

/// Parses one `use` tree from `toks[*pos]`, pushing its leaves as (segments, glob, line,
/// binding).
fn parse_use_tree(
    toks: &[Token],
    pos: &mut usize,
    prefix: &[String],
    out: &mut Vec<(RawPath, usize, Option<String>)>,
) {
    let mut segs = prefix.to_vec();
    loop {
        let Some(t) = toks.get(*pos) else { return };
        match &t.tok {
            Tok::PathSep => *pos += 1,
            Tok::Punct('{') => {
                *pos += 1;
                loop {
                    match toks.get(*pos).map(|t| &t.tok) {
                        None | Some(Tok::Punct(';')) => return,
                        Some(Tok::Punct('}')) => {
                            *pos += 1;
                            return;
                        }
                        Some(Tok::Punct(',')) => *pos += 1,
                        _ => {
                            let before = *pos;
                            parse_use_tree(toks, pos, &segs, out);
                            if *pos == before {
                                *pos += 1;
                            }
                        }
                    }
                }
            }
            Tok::Punct('*') => {
                *pos += 1;
                out.push((RawPath { segs, glob: true }, t.line, None));
                return;
            }
            Tok::Ident(name) => {
                segs.push(name.clone());
                let line = t.line;
                *pos += 1;
                if is(toks.get(*pos), &Tok::PathSep) {
                    continue;
                }
                // A leaf: `name`, `self` (the prefix itself), maybe `as alias`.
                if segs.last().is_some_and(|s| s == "self") && segs.len() > 1 {
                    segs.pop();
                }
                let mut binds = segs.last().cloned();
                if ident(toks.get(*pos)) == Some("as") {
                    binds = ident(toks.get(*pos + 1)).map(str::to_string);
                    *pos += 2;
                }
                if binds.as_deref() == Some("_") {
                    binds = None;
                }
                out.push((RawPath { segs, glob: false }, line, binds));
                return;
            }
            _ => return,
        }
    }
}

/// Reads one file's imports and top-level definitions.
fn scan(src: &str, file_mod: &ModPath, is_main: bool, modules: &HashSet<ModPath>) -> FileScan {
    let toks = tokenize(src);
    let mut scan = FileScan::default();
    let mut blocks: Vec<(Block, Option<String>)> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let mut inline_mods: HashSet<ModPath> = HashSet::new();
    let current = |blocks: &[(Block, Option<String>)]| -> ModPath {
        let mut m = file_mod.clone();
        m.extend(blocks.iter().filter_map(|(_, n)| n.clone()));
        m
    };
    let mut i = 0;
    while i < toks.len() {
        let module_level = blocks.iter().all(|(b, _)| *b == Block::Mod);
        let file_level = blocks.is_empty();
        match &toks[i].tok {
            Tok::Punct('{') => {
                match pending_mod.take() {
                    Some(name) => blocks.push((Block::Mod, Some(name))),
                    None => blocks.push((Block::Other, None)),
                }
                i += 1;
            }
            Tok::Punct('}') => {
                blocks.pop();
                i += 1;
            }
            Tok::Punct(';') => {
                pending_mod = None;
                i += 1;
            }
            Tok::Ident(word) if word == "use" => {
                // Visibility: `pub use` or `pub(..) use`.
                let public = match i.checked_sub(1).map(|j| &toks[j].tok) {
                    Some(Tok::Ident(p)) => p == "pub",
                    Some(Tok::Punct(')')) => {
                        let mut j = i - 1;
                        while j > 0 && toks[j].tok != Tok::Punct('(') {
                            j -= 1;
                        }
                        j > 0 && ident(toks.get(j - 1)) == Some("pub")
                    }
                    _ => false,
                };
                let module = current(&blocks);
                let mut pos = i + 1;
                let mut leaves = Vec::new();
                parse_use_tree(&toks, &mut pos, &[], &mut leaves);
                for (raw, line, binds) in leaves {
                    scan.imports.push(Import {
                        raw,
                        line,
                        module: module.clone(),
                        public,
                        is_use: true,
                        binds,
                        file_level,
                    });
                }
                while pos < toks.len() && toks[pos].tok != Tok::Punct(';') {
                    pos += 1;
                }
                i = pos + 1;
            }
            Tok::Ident(word) => {
                let next = toks.get(i + 1);
                let after_sep = i > 0 && toks[i - 1].tok == Tok::PathSep;
                if module_level && word == "macro_rules" && is(next, &Tok::Punct('!')) {
                    if file_level && let Some(name) = ident(toks.get(i + 2)) {
                        scan.defs.insert(name.to_string());
                    }
                    i += 1;
                    continue;
                }
                if module_level && ITEM_KEYWORDS.contains(&word.as_str()) && !after_sep {
                    if let Some(name) = ident(next).filter(|n| !NOT_NAMES.contains(n)) {
                        if file_level {
                            scan.defs.insert(name.to_string());
                        }
                        if word == "mod" && is(toks.get(i + 2), &Tok::Punct('{')) {
                            let mut m = current(&blocks);
                            m.push(name.to_string());
                            inline_mods.insert(m);
                            pending_mod = Some(name.to_string());
                        }
                    }
                    i += 1;
                    continue;
                }
                // A path in code.
                if !after_sep && is(next, &Tok::PathSep) {
                    let module = current(&blocks);
                    let starts = match word.as_str() {
                        "crate" | "super" | "self" => true,
                        "sitesim" => is_main,
                        _ => {
                            let mut m = module.clone();
                            m.push(word.clone());
                            modules.contains(&m) || inline_mods.contains(&m)
                        }
                    };
                    if starts {
                        let line = toks[i].line;
                        let mut segs = vec![word.clone()];
                        let mut j = i + 1;
                        while is(toks.get(j), &Tok::PathSep) {
                            match ident(toks.get(j + 1)) {
                                Some(s) => {
                                    segs.push(s.to_string());
                                    j += 2;
                                }
                                None => break,
                            }
                        }
                        scan.imports.push(Import {
                            raw: RawPath { segs, glob: false },
                            line,
                            module,
                            public: false,
                            is_use: false,
                            binds: None,
                            file_level,
                        });
                        i = j;
                        continue;
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    scan.inline_mods = inline_mods;
    scan
}

/// The absolute module path an import names, or `None` for another crate's path.
fn absolute(
    imp: &Import,
    crate_root: &ModPath,
    is_main: bool,
    modules: &HashSet<ModPath>,
    inline_mods: &HashSet<ModPath>,
) -> Option<ModPath> {
    let segs = &imp.raw.segs;
    let first = segs.first()?;
    let mut rest = &segs[1..];
    let mut base: ModPath = match first.as_str() {
        "crate" => crate_root.clone(),
        "sitesim" if is_main => Vec::new(),
        "self" => imp.module.clone(),
        "super" => {
            let mut m = imp.module.clone();
            m.pop()?;
            m
        }
        _ => {
            let mut m = imp.module.clone();
            m.push(first.clone());
            // A child module of the current one (a file module, or an inline one, which
            // resolves to the file it stands in); else another crate's path.
            if !modules.contains(&m) && !inline_mods.contains(&m) {
                return None;
            }
            m
        }
    };
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// What the scan knows of one module file, for following names to their definition.
struct ModuleInfo {
    defs: HashSet<String>,
    /// Names bound by `use` at the file's top level, to the absolute path they name.
    bindings: HashMap<String, ModPath>,
    /// Modules globbed by `use` at the file's top level.
    globs: Vec<ModPath>,
}

struct Crate {
    files: Vec<PathBuf>,
    paths: Vec<ModPath>,
    by_path: HashMap<ModPath, usize>,
    info: Vec<ModuleInfo>,
}

impl Crate {
    /// The longest prefix of `path` that is a module file: (file, length of the prefix).
    fn module_file(&self, path: &[String]) -> Option<(usize, usize)> {
        (0..=path.len())
            .rev()
            .find_map(|k| self.by_path.get(&path[..k]).map(|&f| (f, k)))
    }

    /// The file where `path`'s item is defined, and whether the scan found it (or only
    /// charged it to the module file).
    fn defining_file(&self, path: &[String], depth: usize) -> Option<(usize, bool)> {
        let (file, k) = self.module_file(path)?;
        let Some(name) = path.get(k) else {
            return Some((file, true));
        };
        if depth > 8 {
            return Some((file, false));
        }
        let info = &self.info[file];
        if info.defs.contains(name) {
            return Some((file, true));
        }
        if let Some(target) = info.bindings.get(name) {
            let mut p = target.clone();
            p.extend(path[k + 1..].iter().cloned());
            if let Some(found) = self.defining_file(&p, depth + 1) {
                return Some(found);
            }
        }
        for g in &info.globs {
            let mut p = g.clone();
            p.extend(path[k..].iter().cloned());
            if let Some((f, true)) = self.defining_file(&p, depth + 1) {
                return Some((f, true));
            }
        }
        Some((file, false))
    }

    fn name(&self, file: usize) -> String {
        if self.paths[file].is_empty() {
            "crate".to_string()
        } else {
            self.paths[file].join("::")
        }
    }

    fn rel(&self, file: usize) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let f = &self.files[file];
        f.strip_prefix(root).unwrap_or(f).display().to_string()
    }
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`, `src/lib.rs` the root, `src/main.rs` `main`.
fn module_path(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).expect("a file under src/");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if parts.is_empty() && stem == "lib" {
        return Vec::new();
    }
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The layers of `docs/ARCHITECTURE.md`, bottom up.
fn read_layers(doc: &str) -> Result<Vec<Vec<String>>, String> {
    let mut lines = doc.lines().skip_while(|l| l.trim() != "## Layers");
    if lines.next().is_none() {
        return Err("docs/ARCHITECTURE.md has no `## Layers` section".to_string());
    }
    let mut layers = Vec::new();
    let mut in_block = false;
    for l in lines {
        let t = l.trim();
        if !in_block && t.starts_with("## ") {
            break;
        }
        if t.starts_with("```") {
            if in_block {
                return Ok(layers);
            }
            in_block = true;
        } else if in_block && !t.is_empty() {
            layers.push(t.split_whitespace().map(str::to_string).collect());
        }
    }
    Err("`## Layers` in docs/ARCHITECTURE.md has no complete fenced block".to_string())
}

/// `prefix::{a, b}` for paths sharing a prefix.
fn render_paths(paths: &[Vec<String>]) -> String {
    if paths.len() == 1 {
        return paths[0].join("::");
    }
    let shortest = paths.iter().map(Vec::len).min().unwrap_or(0);
    let common = (0..shortest)
        .take_while(|&k| paths.iter().all(|p| p[k] == paths[0][k]))
        .count()
        .min(shortest.saturating_sub(1));
    let tails: Vec<String> = paths.iter().map(|p| p[common..].join("::")).collect();
    let mut uniq: Vec<String> = Vec::new();
    for t in tails {
        if !uniq.contains(&t) {
            uniq.push(t);
        }
    }
    if common == 0 {
        uniq.join(", ")
    } else {
        format!("{}::{{{}}}", paths[0][..common].join("::"), uniq.join(", "))
    }
}

/// Tarjan's strongly connected components.
fn components(n: usize, adj: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        adj: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.adj[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().expect("on the stack");
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort_unstable();
            s.out.push(comp);
        }
    }
    let mut s = State {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// A cycle with more pairs of files tied than this is shown as its shortest cycles.
const MAX_LISTED_PAIRS: usize = 12;

/// How many of a large cycle's shortest cycles are shown.
const MAX_LISTED_CYCLES: usize = 6;

/// The shortest cycle from `v` back to itself inside `inside` (breadth first), as the
/// files in order from `v`.
fn shortest_cycle(v: usize, adj: &[BTreeSet<usize>], inside: &HashSet<usize>) -> Vec<usize> {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([v]);
    while let Some(u) = queue.pop_front() {
        for &w in &adj[u] {
            if w == v {
                let mut path = vec![u];
                let mut x = u;
                while x != v {
                    x = parent[&x];
                    path.push(x);
                }
                path.reverse();
                return path;
            }
            if inside.contains(&w) && !parent.contains_key(&w) {
                parent.insert(w, u);
                queue.push_back(w);
            }
        }
    }
    vec![v]
}

/// An edge between files, at one line.
struct Edge {
    from: usize,
    to: usize,
    line: usize,
    /// The item named (the path after the module file's prefix; the module for a whole
    /// module or a glob).
    name: String,
}

#[test]
fn modules_respect_the_layers_and_import_no_cycles() {
    let started = Instant::now();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let doc =
        std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    let layers = read_layers(&doc).unwrap_or_else(|e| panic!("{e}"));
    let mut problems: Vec<String> = Vec::new();
    let mut layer_of: HashMap<String, usize> = HashMap::new();
    for (n, layer) in layers.iter().enumerate() {
        for m in layer {
            if let Some(prev) = layer_of.insert(m.clone(), n) {
                problems.push(format!(
                    "docs/ARCHITECTURE.md: `{m}` is on layer {} and on layer {}",
                    prev + 1,
                    n + 1
                ));
            }
        }
    }

    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let paths: Vec<ModPath> = files.iter().map(|f| module_path(&src, f)).collect();
    let modules: HashSet<ModPath> = paths.iter().cloned().collect();
    let by_path: HashMap<ModPath, usize> = paths
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, p)| (p, i))
        .collect();
    let main_path = vec!["main".to_string()];
    let mut lines_read = 0;
    let mut scans = Vec::new();
    for (f, p) in files.iter().zip(&paths) {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        lines_read += text.lines().count();
        scans.push(scan(&text, p, *p == main_path, &modules));
    }

    // Absolute paths of every import, and each file's top-level bindings.
    let crate_root = |p: &ModPath| {
        if *p == main_path {
            main_path.clone()
        } else {
            Vec::new()
        }
    };
    let mut resolved: Vec<Vec<(usize, ModPath)>> = Vec::new();
    let mut info = Vec::new();
    for (f, sc) in scans.iter().enumerate() {
        let is_main = paths[f] == main_path;
        let mut abs_list = Vec::new();
        let mut bindings = HashMap::new();
        let mut globs = Vec::new();
        for (k, imp) in sc.imports.iter().enumerate() {
            let Some(abs) = absolute(
                imp,
                &crate_root(&paths[f]),
                is_main,
                &modules,
                &sc.inline_mods,
            ) else {
                continue;
            };
            if imp.is_use && imp.file_level {
                if imp.raw.glob {
                    globs.push(abs.clone());
                } else if let Some(b) = &imp.binds {
                    bindings.insert(b.clone(), abs.clone());
                }
            }
            abs_list.push((k, abs));
        }
        resolved.push(abs_list);
        info.push(ModuleInfo {
            defs: sc.defs.clone(),
            bindings,
            globs,
        });
    }
    let krate = Crate {
        files,
        paths,
        by_path,
        info,
    };

    // The edges, and imports of higher layers.
    let mut edges: Vec<Edge> = Vec::new();
    // (file, line, module used) -> (why, the paths as written)
    type Upward = BTreeMap<(String, usize, String), (String, Vec<Vec<String>>)>;
    let mut upward: Upward = BTreeMap::new();
    let mut imports = 0;
    let top_of = |p: &ModPath| p.first().cloned().unwrap_or_default();
    for (f, list) in resolved.iter().enumerate() {
        let from_top = top_of(&krate.paths[f]);
        for (k, abs) in list {
            let imp = &scans[f].imports[*k];
            imports += 1;
            let Some((mod_file, prefix)) = krate.module_file(abs) else {
                continue;
            };
            // (a) layers, by the top-level module the path names.
            let to_top = top_of(abs);
            if let (Some(&lf), Some(&lt)) = (layer_of.get(&from_top), layer_of.get(&to_top))
                && lt > lf
            {
                let why = || {
                    format!(
                        "{from_top} (layer {}: {}) uses {to_top} (layer {}: {})",
                        lf + 1,
                        layers[lf].join(" "),
                        lt + 1,
                        layers[lt].join(" ")
                    )
                };
                upward
                    .entry((krate.rel(f), imp.line, to_top.clone()))
                    .or_insert_with(|| (why(), Vec::new()))
                    .1
                    .push(imp.raw.segs.clone());
            }
            // (b) edges: a re-export of a descendant is none.
            let file_mod = &krate.paths[mod_file];
            if imp.is_use
                && imp.public
                && file_mod.len() > imp.module.len()
                && file_mod.starts_with(&imp.module)
            {
                continue;
            }
            let to = if imp.raw.glob {
                mod_file
            } else {
                krate.defining_file(abs, 0).map_or(mod_file, |(t, _)| t)
            };
            if to == f {
                continue;
            }
            let name = if imp.raw.glob {
                format!("{}::*", krate.name(mod_file))
            } else if abs.len() > prefix {
                abs[prefix..].join("::")
            } else {
                format!("{} (the module)", krate.name(mod_file))
            };
            edges.push(Edge {
                from: f,
                to,
                line: imp.line,
                name,
            });
        }
    }
    for ((file, line, _), (why, segs)) in &upward {
        problems.push(format!("{file}:{line}: {why}: {}", render_paths(segs)));
    }

    // Modules of src/ on no layer.
    let tops: BTreeSet<String> = krate
        .paths
        .iter()
        .filter(|p| !p.is_empty())
        .map(top_of)
        .collect();
    for t in &tops {
        if !layer_of.contains_key(t) {
            problems.push(format!(
                "module `{t}` of src/ is on no layer of docs/ARCHITECTURE.md"
            ));
        }
    }
    let missing: Vec<&String> = layers
        .iter()
        .flatten()
        .filter(|m| !tops.contains(*m))
        .collect();

    // (b) cycles.
    let n = krate.files.len();
    let mut adj = vec![BTreeSet::new(); n];
    for e in &edges {
        adj[e.from].insert(e.to);
    }
    let pairs: usize = adj.iter().map(BTreeSet::len).sum();
    // What ties each pair of files: line -> names.
    let mut ties: BTreeMap<(usize, usize), BTreeMap<usize, Vec<String>>> = BTreeMap::new();
    for e in &edges {
        let v = ties
            .entry((e.from, e.to))
            .or_default()
            .entry(e.line)
            .or_default();
        if !v.contains(&e.name) {
            v.push(e.name.clone());
        }
    }
    let tie = |from: usize, to: usize| -> String {
        let by_line: Vec<String> = ties[&(from, to)]
            .iter()
            .map(|(line, names)| format!("{} ({}:{line})", names.join(", "), krate.rel(from)))
            .collect();
        format!(
            "{} -> {}: {}",
            krate.name(from),
            krate.name(to),
            by_line.join("; ")
        )
    };
    for comp in components(n, &adj) {
        if comp.len() < 2 {
            continue;
        }
        let inside: HashSet<usize> = comp.iter().copied().collect();
        let names: Vec<String> = comp.iter().map(|&f| krate.name(f)).collect();
        let inner: Vec<(usize, usize)> = ties
            .keys()
            .copied()
            .filter(|(a, b)| inside.contains(a) && inside.contains(b))
            .collect();
        let mut msg = format!("cycle between {}:", names.join(", "));
        if inner.len() <= MAX_LISTED_PAIRS {
            for (from, to) in inner {
                let _ = write!(msg, "\n    {}", tie(from, to));
            }
        } else {
            // Too many ties to read: the shortest cycle through each file, shortest first.
            let mut cycles: Vec<Vec<usize>> = Vec::new();
            for &v in &comp {
                let mut cycle = shortest_cycle(v, &adj, &inside);
                let k = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap_or(0);
                cycle.rotate_left(k);
                if !cycles.contains(&cycle) {
                    cycles.push(cycle);
                }
            }
            cycles.sort_by_key(Vec::len);
            let _ = write!(
                msg,
                "\n    ({} pairs of files tied; the {} shortest of the {} shortest cycles through \
                 each file follow; LAYERS_EDGES=1 prints every edge)",
                inner.len(),
                cycles.len().min(MAX_LISTED_CYCLES),
                cycles.len()
            );
            for cycle in cycles.iter().take(MAX_LISTED_CYCLES) {
                let _ = write!(msg, "\n    a cycle of {}:", cycle.len());
                for (j, &from) in cycle.iter().enumerate() {
                    let to = cycle[(j + 1) % cycle.len()];
                    let _ = write!(msg, "\n      {}", tie(from, to));
                }
            }
        }
        problems.push(msg);
    }

    let elapsed = started.elapsed();
    println!(
        "layers: {} files ({lines_read} lines) read, {imports} imports into src/, {} edges between {pairs} pairs of files, {} layers{}; {problems_n} problems; {:.1} ms",
        krate.files.len(),
        edges.len(),
        layers.len(),
        if missing.is_empty() {
            String::new()
        } else {
            format!(
                " ({} with no module in src/ yet: {})",
                missing.len(),
                missing
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        elapsed.as_secs_f64() * 1e3,
        problems_n = problems.len(),
    );
    if std::env::var_os("LAYERS_EDGES").is_some() {
        for e in &edges {
            println!(
                "  {}:{}: {} -> {}: {}",
                krate.rel(e.from),
                e.line,
                krate.name(e.from),
                krate.name(e.to),
                e.name
            );
        }
    }
    for (k, layer) in layers.iter().enumerate().rev() {
        println!("  layer {:>2}: {}", k + 1, layer.join(" "));
    }
    assert!(
        problems.is_empty(),
        "src/ breaks the layers of docs/ARCHITECTURE.md (see tests/layers.rs for the rules):\n  {}",
        problems.join("\n  ")
    );
}
