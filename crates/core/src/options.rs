//! What every options group shares. A group is one struct that derives both `clap::Args`
//! (its flags) and `serde::Deserialize` (its scenario keys, each the flag's name in
//! snake case), with its defaults in its `#[arg]` attributes alone: [`defaults`] gives the
//! struct they make, for `Default` and hence for the keys a scenario leaves out. Every
//! option enum derives `clap::ValueEnum` and `serde::{Serialize, Deserialize}` in
//! kebab-case, so its names are written once, on its variants; [`name`] and [`parse`] name
//! and read one where it comes as text elsewhere (a policy's `key=value` parameters, a
//! printed summary). [`parsed`], [`duration`], [`from_text`] and [`at_least_one`] read a
//! key as its flag reads it.

use std::str::FromStr;

use clap::{Args, Command, FromArgMatches, ValueEnum};
use serde::{Deserialize, Deserializer};

use crate::time::{Time, parse_duration};

/// The options group `A` with every flag at its default.
pub fn defaults<A: Args + FromArgMatches>() -> A {
    A::augment_args(Command::new("defaults"))
        .try_get_matches_from(["defaults"])
        .and_then(|matches| A::from_arg_matches(&matches))
        .expect("every flag of an options group has a default")
}

/// The scenario keys of the options group `A`: its flags' names in snake case.
pub fn keys<A: Args>() -> Vec<String> {
    A::augment_args(Command::new("keys"))
        .get_arguments()
        .map(|a| a.get_id().as_str().to_owned())
        .collect()
}

/// A key whose value is text, read by `parse` as its flag reads it; a number is read as
/// its digits are (`warmup = 3600` as `--warmup 3600`).
pub fn parsed<'de, D: Deserializer<'de>, T>(
    d: D,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Value {
        Whole(i64),
        Number(f64),
        Text(String),
    }
    let text = match Value::deserialize(d)? {
        Value::Whole(n) => n.to_string(),
        Value::Number(x) => x.to_string(),
        Value::Text(t) => t,
    };
    parse(&text).map_err(serde::de::Error::custom)
}

/// A duration key, `"20m"`, read as its flag reads it.
pub fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
    parsed(d, parse_duration)
}

/// A key whose value is text its type parses, read as its flag reads it.
pub fn from_text<'de, D: Deserializer<'de>, T: FromStr<Err = String>>(d: D) -> Result<T, D::Error> {
    parsed(d, str::parse)
}

/// An optional key whose value is text its type parses, read as its flag reads it.
pub fn some_from_text<'de, D: Deserializer<'de>, T: FromStr<Err = String>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    parsed(d, str::parse).map(Some)
}

/// A count of at least 1, as a flag with `value_parser!(u32).range(1..)` takes it.
pub fn at_least_one<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    match u32::deserialize(d)? {
        0 => Err(serde::de::Error::custom("must be at least 1")),
        n => Ok(n),
    }
}

/// A finite number above 0.
pub fn positive_factor(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("'{s}' must be a positive number"))
    }
}

/// A finite number of 0 or more.
pub fn non_negative_factor(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a number of 0 or more")),
    }
}

/// A share in (0, 1].
pub fn share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!("'{s}' is not a share in (0, 1]")),
    }
}

/// `USER=WEIGHT`.
pub fn user_weight(s: &str) -> Result<(i64, f64), String> {
    let (user, weight) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not USER=WEIGHT"))?;
    let user = user
        .parse()
        .map_err(|_| format!("'{user}' is not a user number"))?;
    Ok((user, non_negative_factor(weight)?))
}

/// A key whose value [`positive_factor`] reads.
pub fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    parsed(d, positive_factor)
}

/// A key `F` whose value [`non_negative_factor`] reads.
pub fn non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    parsed(d, non_negative_factor)
}

/// An optional key whose value [`non_negative_factor`] reads.
pub fn some_non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    parsed(d, non_negative_factor).map(Some)
}

/// A key whose value [`share`] reads.
pub fn share_key<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    parsed(d, share)
}

/// An optional duration key.
pub fn some_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Time>, D::Error> {
    parsed(d, parse_duration).map(Some)
}

/// Weights of users, a table `{ "17" = 0, "3" = 2.5 }`, as the repeated flag
/// `--weight USER=WEIGHT` gives them.
pub fn user_weights<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(i64, f64)>, D::Error> {
    std::collections::BTreeMap::<String, f64>::deserialize(d)?
        .into_iter()
        .map(|(user, weight)| user_weight(&format!("{user}={weight}")))
        .collect::<Result<_, _>>()
        .map_err(serde::de::Error::custom)
}

/// The name of `value`, as its flag, its key and outputs give it.
pub fn name<E: ValueEnum>(value: &E) -> String {
    value
        .to_possible_value()
        .map(|v| v.get_name().to_owned())
        .unwrap_or_default()
}

/// The value of `E` named `text`; the error says it is not `what` and lists the names.
pub fn parse<E: ValueEnum>(what: &str, text: &str) -> Result<E, String> {
    E::from_str(text, false).map_err(|_| {
        let names: Vec<String> = E::value_variants().iter().map(name).collect();
        format!("'{text}' is not {what} ({})", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, ValueEnum)]
    enum Rule {
        KeepLead,
        Zero,
    }

    #[derive(Debug, PartialEq, clap::Args, Deserialize)]
    #[serde(default)]
    struct Group {
        /// A duration.
        #[arg(long, default_value = "20m", value_parser = parse_duration)]
        #[serde(deserialize_with = "duration")]
        wait_limit: Time,
        /// A count.
        #[arg(long, default_value_t = 3)]
        #[serde(deserialize_with = "at_least_one")]
        tries: u32,
    }

    impl Default for Group {
        fn default() -> Self {
            defaults()
        }
    }

    #[test]
    fn names_are_the_kebab_case_variants_and_errors_list_them() {
        assert_eq!(name(&Rule::KeepLead), "keep-lead");
        assert_eq!(parse::<Rule>("a rule", "zero"), Ok(Rule::Zero));
        assert_eq!(
            parse::<Rule>("a rule", "Zero"),
            Err("'Zero' is not a rule (keep-lead, zero)".into())
        );
    }

    #[test]
    fn a_group_has_its_flags_defaults_and_keys() {
        assert_eq!(
            Group::default(),
            Group {
                wait_limit: 1200,
                tries: 3
            }
        );
        assert_eq!(keys::<Group>(), ["wait_limit", "tries"]);
        let read = |text: &str| toml::from_str::<Group>(text).map_err(|e| e.message().to_owned());
        assert_eq!(read(""), Ok(Group::default()));
        assert_eq!(read("wait_limit = \"1h\"").map(|g| g.wait_limit), Ok(3600));
        assert_eq!(read("tries = 0"), Err("must be at least 1".into()));
    }
}
