//! The page of a run's report (one run, or replications of one configuration): facts,
//! tables and figures in sections, laid out by the template `templates/run.html`. Every
//! table says its units in its headers; numbers are formatted here, once.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::plot::chart::{self, FigureFormat, PlotError};
use crate::plot::{export, html};
use crate::results::output::{create_subfolder, write_atomic};
use crate::textfmt::significant;

/// A table: headers (with units) and rows of formatted cells. Text columns are set
/// left, numbers right ([`Table::text_columns`]).
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column headers.
    pub head: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Whether each column holds text rather than numbers: the first always (it names
    /// its row), and any other with a cell that is not a number (an id, a name, a
    /// policy, "yes").
    pub fn text_columns(&self) -> Vec<bool> {
        (0..self.head.len())
            .map(|c| {
                c == 0
                    || self
                        .rows
                        .iter()
                        .any(|r| r.get(c).is_some_and(|t| !numeric(t)))
            })
            .collect()
    }
}

/// Whether `cell` is a number as the pages write them (`12`, `-0.4`, `3 / 3`,
/// `1.6 ± 0.1`, `37.5%`), or no value (empty, `—`).
fn numeric(cell: &str) -> bool {
    let t = cell.trim();
    let digits = t.strip_prefix(['-', '−', '+']).unwrap_or(t);
    t.is_empty() || t == "—" || digits.starts_with(|c: char| c.is_ascii_digit())
}

impl Serialize for Table {
    /// The table, and its [`Table::text_columns`] as `text`, for the template.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut t = s.serialize_struct("Table", 3)?;
        t.serialize_field("head", &self.head)?;
        t.serialize_field("rows", &self.rows)?;
        t.serialize_field("text", &self.text_columns())?;
        t.end()
    }
}

/// A figure: an SVG file of the report and its caption.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// The file, in the report's directory.
    pub file: String,
    /// What it shows.
    pub caption: String,
    /// Its width, pixels.
    pub width: u32,
    /// Its height, pixels.
    pub height: u32,
    /// The same figure in the `--figure-format` asked for besides SVG, written with the
    /// page: its file.
    pub also: Option<String>,
    /// The SVG.
    #[serde(skip)]
    pub svg: String,
}

impl Figure {
    /// The figure `svg` of `file`, drawn in the thread's [`chart::figure_style`].
    pub fn new(file: String, caption: String, svg: String) -> Figure {
        let style = chart::figure_style();
        Figure {
            file,
            caption,
            width: style.width,
            height: style.height,
            also: None,
            svg,
        }
    }

    /// Writes the figure into `out`, and in the thread's `--figure-format` besides SVG
    /// (naming that file in [`Figure::also`]); the files written.
    pub fn write(&mut self, out: &Path) -> Result<Vec<PathBuf>, String> {
        let mut written = vec![write(&out.join(&self.file), self.svg.as_bytes())?];
        let format = chart::figure_style().format;
        if format != FigureFormat::Svg {
            let file = Path::new(&self.file)
                .with_extension(format.extension())
                .to_string_lossy()
                .into_owned();
            let path = out.join(&file);
            let bytes = export::convert(&self.svg, format)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            written.push(write(&path, &bytes)?);
            self.also = Some(file);
        }
        Ok(written)
    }
}

/// A part of the page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Section {
    /// Its heading.
    pub title: String,
    /// Its text, a paragraph.
    pub text: String,
    /// Its tables.
    pub tables: Vec<Table>,
    /// Its figures.
    pub figures: Vec<Figure>,
    /// Text shown as it is, in a monospaced block after its text (a scenario file).
    pub code: String,
    /// Files it links to, after its text.
    pub links: Vec<Link>,
}

/// A link to a file beside the page (a CSV file of the results).
#[derive(Debug, Clone, Serialize)]
pub struct Link {
    /// Where, relative to the page.
    pub href: String,
    /// Its text.
    pub text: String,
}

/// Sections past which a page lists them first, each linked.
const CONTENTS_FROM: usize = 4;

/// The page.
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    /// Its title.
    pub title: String,
    /// The sitesim that wrote the report.
    pub version: &'static str,
    /// `(name, value)` lines under the title.
    pub facts: Vec<(String, String)>,
    /// The sections.
    pub sections: Vec<Section>,
}

impl Page {
    /// Writes the figures, then `index.html`, into `out`, a folder of the results folder
    /// (a link in its place is replaced by a folder); the files written.
    pub fn write(mut self, out: &Path) -> Result<Vec<PathBuf>, String> {
        create_subfolder(out)?;
        let mut written = Vec::new();
        for figure in self.sections.iter_mut().flat_map(|s| &mut s.figures) {
            written.append(&mut figure.write(out)?);
        }
        /// The page as the template reads it: with whether to list the sections first.
        #[derive(Serialize)]
        struct View<'p> {
            #[serde(flatten)]
            page: &'p Page,
            contents: bool,
        }
        let view = View {
            contents: self.sections.len() > CONTENTS_FROM,
            page: &self,
        };
        let page = html::render("run.html", &view)?;
        written.push(write(&out.join("index.html"), page.as_bytes())?);
        Ok(written)
    }
}

/// Writes `bytes` to `path` (atomically); the path written.
pub fn write(path: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    write_atomic(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// A figure from a drawn SVG; `None` when there was nothing to draw.
pub fn figure(
    file: &str,
    caption: String,
    svg: Result<String, PlotError>,
) -> Result<Option<Figure>, String> {
    match svg {
        Ok(svg) => Ok(Some(Figure::new(file.to_owned(), caption, svg))),
        Err(PlotError::Empty { .. }) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// A CSV file of `head` and `rows`.
pub fn csv(
    head: &[String],
    rows: impl IntoIterator<Item = Vec<String>>,
) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(head).map_err(|e| e.to_string())?;
    for row in rows {
        w.write_record(&row).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

/// Seconds as hours, two decimals.
pub fn hours(seconds: f64) -> String {
    format!("{:.2}", seconds / 3600.0)
}

/// A share as a percentage, one decimal.
pub fn percent(share: f64) -> String {
    format!("{:.1}", share * 100.0)
}

/// A count, as an integer with thousands separated by a thin space.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

/// A value with three significant digits (bounded slowdowns, rates); `—` if not finite.
pub fn sig3(v: f64) -> String {
    if v.is_finite() {
        significant(v, 3)
    } else {
        "—".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_columns_are_told_from_numbers() {
        let table = Table {
            head: ["point", "scheduler", "runs", "wait (h)", "Δ", "passes"]
                .map(String::from)
                .to_vec(),
            rows: vec![
                ["p0", "CREASY α=0.5", "3 / 3", "1.6 ± 0.1", "-0.4", "yes"]
                    .map(String::from)
                    .to_vec(),
                ["p1", "EASY", "2 / 3", "—", "−2", "no"]
                    .map(String::from)
                    .to_vec(),
            ],
        };
        assert_eq!(
            table.text_columns(),
            [true, true, false, false, false, true]
        );
    }

    #[test]
    fn numbers_are_formatted_once() {
        assert_eq!(hours(5400.0), "1.50");
        assert_eq!(percent(0.8123), "81.2");
        assert_eq!(count(28489), "28\u{2009}489");
        assert_eq!(count(999), "999");
        assert_eq!(sig3(92.9284), "92.9");
        assert_eq!(sig3(1.0), "1");
        assert_eq!(sig3(14805.2), "14805");
    }
}
