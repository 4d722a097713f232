//! The one syntax of a configured component on a command line or in a scenario string,
//! `NAME[:ITEM,...]`: a policy (`pbas:candidates=["flex","maui"],period=1d`), a runtime
//! predictor (`sbh:criteria=PE/P,search=bfs`) and an estimate model (`uniform:2`,
//! `modal:max=18h,share=4`). Each reader gives the values their types and checks their
//! keys; this module only splits the text.

/// A spec split into its name and its items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec<'a> {
    /// The component's name.
    pub name: &'a str,
    /// The items after the colon, in order.
    pub items: Vec<Item<'a>>,
}

/// One item of a [`Spec`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<'a> {
    /// `key=value`.
    Setting(&'a str, &'a str),
    /// A value without a key (`2` in `uniform:2`).
    Bare(&'a str),
}

impl<'a> Spec<'a> {
    /// Splits `text` at its first colon, then at the commas outside brackets, braces and
    /// quotes (a value may be a list of specs); names and keys are trimmed, empty items
    /// dropped. Refuses a key given twice.
    pub fn parse(text: &'a str) -> Result<Spec<'a>, String> {
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let mut items = Vec::new();
        for item in split_top(rest).into_iter().filter(|p| !p.trim().is_empty()) {
            items.push(match item.split_once('=') {
                Some((k, v)) => {
                    let k = k.trim();
                    if items
                        .iter()
                        .any(|i| matches!(i, Item::Setting(key, _) if *key == k))
                    {
                        return Err(format!("'{k}' is given twice in '{text}'"));
                    }
                    Item::Setting(k, v)
                }
                None => Item::Bare(item.trim()),
            });
        }
        Ok(Spec {
            name: name.trim(),
            items,
        })
    }

    /// The items as `key=value` settings; refuses a bare value.
    pub fn settings(&self, text: &str) -> Result<Vec<(&'a str, &'a str)>, String> {
        self.items
            .iter()
            .map(|i| match *i {
                Item::Setting(k, v) => Ok((k, v)),
                Item::Bare(v) => Err(format!("'{v}' in '{text}' is not key=value")),
            })
            .collect()
    }
}

/// Splits `a=1,b=[x,y]` at the commas outside brackets, braces and quotes.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut quoted, mut from) = (0i32, false, 0);
    let mut parts = Vec::new();
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                parts.push(&s[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[from..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_settings_and_bare_values() {
        let s = Spec::parse("pbas: candidates=[easy,\"sjbf:x=1\"], period = 1d").unwrap();
        assert_eq!(s.name, "pbas");
        assert_eq!(
            s.items,
            [
                Item::Setting("candidates", "[easy,\"sjbf:x=1\"]"),
                Item::Setting("period", " 1d")
            ]
        );
        let s = Spec::parse("uniform:2").unwrap();
        assert_eq!((s.name, &s.items[..]), ("uniform", &[Item::Bare("2")][..]));
        assert!(
            s.settings("uniform:2")
                .unwrap_err()
                .contains("'2' in 'uniform:2' is not key=value")
        );
        assert_eq!(Spec::parse("easy").unwrap().items, []);
        assert_eq!(Spec::parse("easy:").unwrap().items, []);
    }

    #[test]
    fn a_key_given_twice_is_refused() {
        let e = Spec::parse("sbh:depth=1,depth=2").unwrap_err();
        assert!(e.contains("'depth' is given twice"), "{e}");
    }
}
