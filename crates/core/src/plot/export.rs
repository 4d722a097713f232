//! Figures in other formats than the SVG the charts are drawn in (`--figure-format`):
//! PNG, rendered by `resvg`, and PDF, converted by `svg2pdf` (vector, text kept as text),
//! both from the chart's SVG with the embedded DejaVu Sans subset the charts are laid out
//! with (`assets/fonts`) as its only font, so that a figure looks the same on every
//! machine and the same SVG gives the same bytes.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

/// The formats a report's figures are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FigureFormat {
    /// SVG alone (the page shows it).
    #[default]
    Svg,
    /// PNG beside each SVG, its pixels the figure's width and height.
    Png,
    /// PDF beside each SVG, one page the figure's size (a pixel a point).
    Pdf,
}

impl FigureFormat {
    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            FigureFormat::Svg => "svg",
            FigureFormat::Png => "png",
            FigureFormat::Pdf => "pdf",
        }
    }
}

/// How SVG is read: the charts' font as the only one, named for `sans-serif` (the SVG's
/// family).
fn options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(super::chart::FONT_BYTES.to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        usvg::Options {
            font_family: "DejaVu Sans".into(),
            fontdb: Arc::new(db),
            ..usvg::Options::default()
        }
    })
}

/// The SVG document `svg` in `format` (the document itself for SVG).
pub fn convert(svg: &str, format: FigureFormat) -> Result<Vec<u8>, String> {
    if format == FigureFormat::Svg {
        return Ok(svg.as_bytes().to_vec());
    }
    let tree = usvg::Tree::from_str(svg, options()).map_err(|e| format!("reading the SVG: {e}"))?;
    match format {
        FigureFormat::Svg => unreachable!("returned above"),
        FigureFormat::Png => {
            let size = tree.size().to_int_size();
            let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
                .ok_or_else(|| format!("an empty figure ({} × {})", size.width(), size.height()))?;
            pixmap.fill(tiny_skia::Color::WHITE);
            resvg::render(
                &tree,
                tiny_skia::Transform::identity(),
                &mut pixmap.as_mut(),
            );
            pixmap
                .encode_png()
                .map_err(|e| format!("encoding the PNG: {e}"))
        }
        FigureFormat::Pdf => svg2pdf::to_pdf(
            &tree,
            svg2pdf::ConversionOptions::default(),
            svg2pdf::PageOptions::default(),
        )
        .map(|mut pdf| {
            sort_entries(&mut pdf);
            pdf
        })
        .map_err(|e| format!("converting to PDF: {e}")),
    }
}

/// Puts in order the entries of the PDF's resource dictionaries (`/xo12 30 0 R`, one a
/// line), which `svg2pdf` writes in a hash map's order, different on each run: the lines
/// of each run of entries are sorted in place, so that the file keeps its length and its
/// cross-reference offsets hold. Streams (after `>>` and `stream`, `/Length` bytes long)
/// are skipped.
fn sort_entries(pdf: &mut [u8]) {
    const STREAM: &[u8] = b">>\nstream\n";
    let mut at = 0;
    while at < pdf.len() {
        let stream = find(&pdf[at..], STREAM).map(|k| at + k);
        let text_end = stream.map_or(pdf.len(), |k| k + 2);
        sort_runs(&mut pdf[at..text_end]);
        let Some(k) = stream else { break };
        let length = rfind(&pdf[at..k], b"/Length ")
            .and_then(|l| {
                let digits = &pdf[at + l + 8..k];
                let end = digits.iter().position(|b| !b.is_ascii_digit())?;
                std::str::from_utf8(&digits[..end])
                    .ok()?
                    .parse::<usize>()
                    .ok()
            })
            .unwrap_or(0);
        at = k + STREAM.len() + length;
    }
}

/// Sorts each run of dictionary entry lines (`  /name N 0 R`) of `text` in place, by
/// name (its digits as a number).
fn sort_runs(text: &mut [u8]) {
    let entry = |line: &[u8]| -> Option<(Vec<u8>, u64)> {
        let trimmed = line.trim_ascii_start();
        let rest = trimmed.strip_prefix(b"/")?.strip_suffix(b" 0 R")?;
        let (name, object) = rest.split_at(rest.iter().position(|&b| b == b' ')?);
        if name.is_empty() || !object[1..].iter().all(u8::is_ascii_digit) {
            return None;
        }
        let digits = name.iter().rev().take_while(|b| b.is_ascii_digit()).count();
        let (stem, number) = name.split_at(name.len() - digits);
        let number = std::str::from_utf8(number).ok()?.parse().unwrap_or(0);
        Some((stem.to_vec(), number))
    };
    let mut lines: Vec<(usize, usize)> = Vec::new(); // (start, end) of each line
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' {
            lines.push((start, i));
            start = i + 1;
        }
    }
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        while j < lines.len() && entry(&text[lines[j].0..lines[j].1]).is_some() {
            j += 1;
        }
        if j - i > 1 {
            let mut run: Vec<(Vec<u8>, u64, Vec<u8>)> = lines[i..j]
                .iter()
                .map(|&(a, b)| {
                    let (stem, n) = entry(&text[a..b]).unwrap_or_default();
                    (stem, n, text[a..=b].to_vec())
                })
                .collect();
            run.sort();
            let mut out = lines[i].0;
            for (_, _, line) in run {
                text[out..out + line.len()].copy_from_slice(&line);
                out += line.len();
            }
        }
        i = j.max(i + 1);
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::chart::{FigureStyle, LineChart, Series, XTicks, line_chart_svg, with_style};

    fn chart() -> String {
        line_chart_svg(&LineChart {
            title: "Jobs per week".into(),
            x_label: "week".into(),
            y_label: "jobs".into(),
            x_ticks: XTicks::Numbers,
            log_y: false,
            y_from_zero: true,
            series: vec![Series {
                label: "log".into(),
                points: (0..20).map(|w| (f64::from(w), f64::from(w * w))).collect(),
            }],
        })
        .unwrap()
    }

    #[test]
    fn png_and_pdf_have_the_figures_size_and_the_same_bytes_each_time() {
        let style = FigureStyle {
            width: 500,
            height: 300,
            font_scale: 0.8,
            ..FigureStyle::default()
        };
        let svg = with_style(style, chart);
        let png = convert(&svg, FigureFormat::Png).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, after the signature, length and type.
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 500);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 300);
        assert_eq!(png, convert(&svg, FigureFormat::Png).unwrap());
        let pdf = convert(&svg, FigureFormat::Pdf).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
        assert!(String::from_utf8_lossy(&pdf).contains("/MediaBox [0 0 500 300]"));
        assert_eq!(pdf, convert(&svg, FigureFormat::Pdf).unwrap());
        assert_eq!(convert(&svg, FigureFormat::Svg).unwrap(), svg.as_bytes());
        assert!(convert("<svg", FigureFormat::Png).is_err());
    }
}
