//! The three public handles a caller holds: root refs (`@r3`), element refs (`@e12`) and state
//! ids (`s41`). Each is a validated newtype whose `FromStr`/`Display` pair is the only spelling,
//! so a malformed handle is rejected at the edge instead of failing deep inside a lookup.
//!
//! ```
//! use uidriver_core::{ElementRef, RootRef, StateId};
//! assert_eq!("@e12".parse::<ElementRef>().unwrap().to_string(), "@e12");
//! assert!("e12".parse::<ElementRef>().is_err());   // missing '@'
//! assert!("@e".parse::<ElementRef>().is_err());    // no number
//! assert!("@e0".parse::<ElementRef>().is_err());   // numbering starts at 1
//! assert_eq!("@r3".parse::<RootRef>().unwrap().get(), 3);
//! assert_eq!("s41".parse::<StateId>().unwrap().get(), 41);
//! ```

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a handle did not parse; the message names the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{got:?} is not a valid {what}: expected {shape}")]
pub struct IdParseError {
    /// What kind of handle was expected ("element ref", ...).
    pub what: &'static str,
    /// The expected spelling, e.g. `@e12`.
    pub shape: &'static str,
    /// The rejected input (truncated to 40 characters).
    pub got: String,
}

fn parse_prefixed(
    s: &str,
    prefix: &str,
    what: &'static str,
    shape: &'static str,
) -> Result<u64, IdParseError> {
    let err = || IdParseError {
        what,
        shape,
        got: s.chars().take(40).collect(),
    };
    let digits = s.strip_prefix(prefix).ok_or_else(err)?;
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err());
    }
    if digits.starts_with('0') {
        return Err(err());
    }
    digits.parse::<u64>().map_err(|_| err())
}

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $inner:ty, $prefix:literal, $what:literal, $shape:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name($inner);

        impl $name {
            /// Wraps a number; zero is not a valid handle number.
            pub fn new(n: $inner) -> Option<Self> {
                (n != 0).then_some(Self(n))
            }
            /// Wraps a number known to be non-zero (zero becomes one).
            pub(crate) fn from_raw(n: $inner) -> Self {
                Self(n.max(1))
            }
            /// The number inside the handle.
            pub fn get(self) -> $inner {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl FromStr for $name {
            type Err = IdParseError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let n = parse_prefixed(s, $prefix, $what, $shape)?;
                <$inner>::try_from(n).ok().map(Self).ok_or(IdParseError {
                    what: $what,
                    shape: $shape,
                    got: s.chars().take(40).collect(),
                })
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "pattern": concat!("^", $prefix, "[1-9][0-9]*$"),
                    "description": concat!("A ", $what, " such as ", $shape, ".")
                })
            }
        }
    };
}

handle!(
    /// A root (window, dialog, menu, popover, sheet, browser page): stable for the daemon's life
    /// and never reused, not even across a daemon restart.
    RootRef, u64, "@r", "root ref", "@r3"
);
handle!(
    /// An element inside exactly one state. Successor states keep the number for the same control.
    ElementRef, u32, "@e", "element ref", "@e12"
);
handle!(
    /// One immutable observation of one root.
    StateId, u64, "s", "state id", "s41"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_valid_and_rejects_invalid() {
        for ok in ["@e1", "@e12", "@e4294967295"] {
            assert!(ok.parse::<ElementRef>().is_ok(), "{ok}");
        }
        for bad in [
            "",
            "@",
            "@e",
            "e12",
            "@e-1",
            "@e01",
            "@e0",
            "@e1x",
            " @e1",
            "@r1",
            "@e4294967296",
        ] {
            assert!(bad.parse::<ElementRef>().is_err(), "{bad}");
        }
        assert!("s0".parse::<StateId>().is_err());
        assert!("S4".parse::<StateId>().is_err());
        let e: ElementRef = serde_json::from_str("\"@e7\"").unwrap();
        assert_eq!(serde_json::to_string(&e).unwrap(), "\"@e7\"");
        assert!(serde_json::from_str::<ElementRef>("7").is_err());
    }
}
