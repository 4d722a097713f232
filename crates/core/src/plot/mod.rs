//! Drawing: SVG charts (`chart`), the figures in PNG and PDF (`export`) and the HTML
//! pages of reports (`html`, from the minijinja templates in `templates/`). Neither knows how the figures were produced:
//! the pages that use them (`crate::report`, `crate::commands::calibrate`,
//! `crate::commands::analyze`) build the data and hand it here.

pub mod chart;
pub mod export;
pub mod html;
