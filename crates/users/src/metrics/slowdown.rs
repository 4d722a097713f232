//! Bounded slowdown, in the two forms found in the literature.

use serde::Serialize;

use crate::time::Time;

/// Which formula of bounded slowdown to use, with threshold τ (10 s in the papers).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum BsldForm {
    /// `max(1, (wait + run) / max(run, τ))`: the form most papers since Feitelson et al.
    /// (1997) use, and the default.
    #[default]
    Clamped,
    /// `(wait + run) / max(run, τ)`, as Mu'alem and Feitelson define it (2001, §3.1); a
    /// job shorter than τ that barely waits scores below 1.
    Unclamped,
}

/// Bounded slowdown settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bsld {
    /// The formula.
    pub form: BsldForm,
    /// The threshold τ, seconds.
    pub threshold: Time,
}

impl Default for Bsld {
    fn default() -> Self {
        Bsld {
            form: BsldForm::Clamped,
            threshold: Bsld::DEFAULT_THRESHOLD,
        }
    }
}

impl Bsld {
    /// The threshold τ unless set, seconds.
    pub const DEFAULT_THRESHOLD: Time = 10;

    /// Bounded slowdown by `form` with threshold `threshold`; refuses one under a second.
    pub fn new(form: BsldForm, threshold: Time) -> Result<Bsld, String> {
        if threshold < 1 {
            return Err("the bounded slowdown threshold must be at least 1 second".into());
        }
        Ok(Bsld { form, threshold })
    }

    /// The bounded slowdown of a job that waited `wait` and ran `run` seconds.
    pub fn of(&self, wait: Time, run: Time) -> f64 {
        let v = (wait + run) as f64 / run.max(self.threshold).max(1) as f64;
        match self.form {
            BsldForm::Clamped => v.max(1.0),
            BsldForm::Unclamped => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms() {
        let clamped = Bsld::default();
        let unclamped = Bsld {
            form: BsldForm::Unclamped,
            threshold: 10,
        };
        assert_eq!(clamped.of(90, 10), 10.0);
        assert_eq!(clamped.of(100, 100), 2.0);
        assert_eq!(clamped.of(2, 3), 1.0);
        assert_eq!(unclamped.of(2, 3), 0.5);
        assert_eq!(unclamped.of(0, 0), 0.0);
        assert_eq!(unclamped.of(100, 100), 2.0);
    }
}
