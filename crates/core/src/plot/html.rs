//! The HTML pages of `sitesim report`: a minijinja template embedded in the binary
//! (`templates/run.html`, every page's), rendered from a serializable context its
//! command builds. The command computes every figure and text; the template lays them
//! out.
//!
//! Every value a template prints is HTML-escaped (auto-escaping is on for `.html`
//! templates), by [`write_value`]: `&`, `<`, `>`, `"` and `'`. Block tags take the line
//! they stand on and no more (`trim_blocks`, `lstrip_blocks`), so a template reads as the
//! page it writes; a line ending with an empty comment continues on the next one.

use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Serde, Value};
use minijinja::{AutoEscape, Environment, Error, Output, State, escape_formatter};
use serde::Serialize;

/// The templates, by name.
const TEMPLATES: [(&str, &str); 1] = [("run.html", include_str!("templates/run.html"))];

/// The page of template `name` (one of [`TEMPLATES`]) with `context`.
pub fn render(name: &str, context: &impl Serialize) -> Result<String, String> {
    let fail = |e: Error| format!("template {name}: {e}");
    let source = TEMPLATES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, source)| *source)
        .ok_or_else(|| format!("no template {name}"))?;
    let mut env = Environment::new();
    env.set_syntax(
        SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(true)
            .build()
            .map_err(fail)?,
    );
    env.set_formatter(write_value);
    env.add_template(name, source).map_err(fail)?;
    env.get_template(name)
        .and_then(|t| t.render(Value::from(Serde(context))))
        .map_err(fail)
}

/// Prints `value` into the page. minijinja's own HTML escaping also writes `/` as `&#x2f;`
/// (every unit such as `jobs/week` in the page's source); this one escapes only the
/// characters HTML gives a meaning, as the pages always have: `'` as `&#39;`.
fn write_value(out: &mut Output, state: &mut State, value: &Value) -> Result<(), Error> {
    match value.as_str() {
        Some(text) if *state.auto_escape() == AutoEscape::Html && !value.is_safe() => {
            let mut rest = text;
            while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
                out.write_str(&rest[..at])?;
                out.write_str(match rest.as_bytes()[at] {
                    b'&' => "&amp;",
                    b'<' => "&lt;",
                    b'>' => "&gt;",
                    b'"' => "&quot;",
                    _ => "&#39;",
                })?;
                rest = &rest[at + 1..];
            }
            out.write_str(rest).map_err(Error::from)
        }
        _ => escape_formatter(out, state, value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_slashes_kept() {
        #[derive(Serialize)]
        struct Section {
            title: &'static str,
            text: &'static str,
        }
        #[derive(Serialize)]
        struct Context {
            title: &'static str,
            version: &'static str,
            facts: [(&'static str, &'static str); 1],
            sections: [Section; 1],
        }
        let page = render(
            "run.html",
            &Context {
                title: "a<b & \"c\"",
                version: "0",
                facts: [("log", "it's")],
                sections: [Section {
                    title: "s",
                    text: "jobs/week of the log's users: <1 & >2",
                }],
            },
        )
        .unwrap();
        assert!(page.contains("<h1>a&lt;b &amp; &quot;c&quot;</h1>"));
        assert!(page.contains("<dd>it&#39;s</dd>"));
        assert!(page.contains("<p>jobs/week of the log&#39;s users: &lt;1 &amp; &gt;2</p>"));
        assert!(render("nothing.html", &()).is_err());
    }
}
