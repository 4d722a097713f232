//! The page of a run's report (one run, or replications of one configuration): facts,
//! tables and figures in sections, laid out by the template `templates/run.html`. Every
//! table says its units in its headers; numbers are formatted here, once.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::plot::chart::PlotError;
use crate::plot::html;
use crate::results::output::{create_subfolder, write_atomic};
use crate::textfmt::significant;

/// A table: headers (with units) and rows of formatted cells; the first column is text.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Table {
    /// Column headers.
    pub head: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<String>>,
}

/// A figure: an SVG file of the report and its caption.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// The file, in the report's directory.
    pub file: String,
    /// What it shows.
    pub caption: String,
    /// The SVG.
    #[serde(skip)]
    pub svg: String,
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
    pub fn write(&self, out: &Path) -> Result<Vec<PathBuf>, String> {
        create_subfolder(out)?;
        let mut written = Vec::new();
        for figure in self.sections.iter().flat_map(|s| &s.figures) {
            written.push(write(&out.join(&figure.file), figure.svg.as_bytes())?);
        }
        let page = html::render("run.html", self)?;
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
        Ok(svg) => Ok(Some(Figure {
            file: file.to_owned(),
            caption,
            svg,
        })),
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
