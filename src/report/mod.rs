//! Presentation: SVG charts (`plot`) and the HTML pages of reports (`html`, from the
//! minijinja templates in `templates/`). Neither knows how the figures were produced:
//! the commands that write reports (`experiment::report`, `experiment::calibrate`) build
//! the data and hand it here.

pub mod html;
pub mod plot;
