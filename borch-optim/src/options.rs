//! One declaration of an optimizer's options (issue 10: the option list was spelled out six
//! times). [`declare_options!`] turns it into the options struct, its `Default` (torch's
//! defaults), `new(lr)` and one builder per option, the torch-keyed map of the state dicts
//! (`map` / `read`, behind `Hyper::to_map` / `Hyper::from_map`) and `option_specs()`, from which
//! the catalog writes the Python-style `signature()` (`"params: Params, lr: Float = 0.001, …"`).
//!
//! ```ignore
//! declare_options! {
//!     /// The options of a Lion param group; `Default` is torch's.
//!     pub struct LionOptions {
//!         lr: f64 = 1e-4,
//!         betas(beta1, beta2): (f64, f64) = (0.9, 0.99),
//!         weight_decay: f64 = 0.0,
//!         maximize: bool = false,
//!     }
//! }
//! ```
//!
//! `lr` comes first and is set by `new(lr)`; every other option gets a builder taking its value,
//! or, written `name(a, b)`, taking the two halves of a pair. Validation stays with `Hyper`.

use borch_tensor::Result;

use crate::value::{Reader, Value};

/// One option of an optimizer as its catalog lists it: torch's keyword, its kind in the op
/// catalog's signature syntax (`Float`, `Floats`, `Int`, `Bool`, `Str`) and torch's default.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionSpec {
    /// torch's keyword (`"lr"`, `"betas"`, ...).
    pub name: &'static str,
    /// Its kind in the signature syntax (`"Float"`, `"Floats"`, ...).
    pub kind: &'static str,
    /// torch's default.
    pub default: Value,
}

impl OptionSpec {
    /// `name: Kind = default`, as the op catalog writes a parameter.
    pub fn signature(&self) -> String {
        format!("{}: {} = {}", self.name, self.kind, self.default.py_repr())
    }
}

/// A type an option can have: written into a group's map as a [`Value`], read back by key.
pub(crate) trait OptionValue: Sized + Into<Value> {
    /// The kind the signature names.
    const KIND: &'static str;
    fn read(r: &Reader, key: &str) -> Result<Self>;
}

impl OptionValue for f64 {
    const KIND: &'static str = "Float";
    fn read(r: &Reader, key: &str) -> Result<f64> {
        r.f64(key)
    }
}

impl OptionValue for i64 {
    const KIND: &'static str = "Int";
    fn read(r: &Reader, key: &str) -> Result<i64> {
        r.i64(key)
    }
}

impl OptionValue for bool {
    const KIND: &'static str = "Bool";
    fn read(r: &Reader, key: &str) -> Result<bool> {
        r.bool(key)
    }
}

impl OptionValue for (f64, f64) {
    const KIND: &'static str = "Floats";
    fn read(r: &Reader, key: &str) -> Result<(f64, f64)> {
        r.pair(key)
    }
}

impl OptionValue for (Option<f64>, f64) {
    const KIND: &'static str = "Floats";
    fn read(r: &Reader, key: &str) -> Result<(Option<f64>, f64)> {
        r.optional_pair(key)
    }
}

impl OptionValue for Option<i64> {
    const KIND: &'static str = "Int";
    fn read(r: &Reader, key: &str) -> Result<Option<i64>> {
        r.optional(key, Reader::i64)
    }
}

impl OptionValue for Option<String> {
    const KIND: &'static str = "Str";
    fn read(r: &Reader, key: &str) -> Result<Option<String>> {
        r.optional(key, Reader::string)
    }
}

/// The builder of one option: `.eps(x)`, or `.betas(a, b)` for a pair declared `betas(a, b)`.
macro_rules! option_builder {
    ($field:ident : $ty:ty = $default:expr) => {
        #[doc = concat!("Sets `", stringify!($field), "` (torch's default `", stringify!($default), "`).")]
        pub fn $field(mut self, $field: $ty) -> Self {
            self.$field = $field;
            self
        }
    };
    ($field:ident ($a:ident, $b:ident) : $ty:ty = $default:expr) => {
        #[doc = concat!("Sets `", stringify!($field), "` (torch's default `", stringify!($default), "`).")]
        pub fn $field(mut self, $a: f64, $b: f64) -> Self {
            self.$field = ($a, $b);
            self
        }
    };
}

/// An optimizer's options, declared once; see the module's documentation. A trailing
/// `fn name() -> Other { extra: value }` adds `name(&self) -> Other`, these options as `Other`'s
/// plus `extra` (AdamW's as Adam's).
macro_rules! declare_options {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            lr: f64 = $lr:expr,
            $(
                $(#[$fmeta:meta])*
                $field:ident $(($a:ident, $b:ident))? : $ty:ty = $default:expr,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name {
            #[doc = concat!("torch's `lr`, the learning rate (default `", stringify!($lr), "`).")]
            pub lr: f64,
            $(
                $(#[$fmeta])*
                #[doc = concat!("torch's `", stringify!($field), "` (default `", stringify!($default), "`).")]
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    lr: $lr,
                    $($field: $default,)*
                }
            }
        }

        impl $name {
            /// Options with `lr` and torch's other defaults.
            pub fn new(lr: f64) -> $name {
                $name {
                    lr,
                    ..Default::default()
                }
            }

            $($crate::options::option_builder!($field $(($a, $b))? : $ty = $default);)*

            /// The options as torch's keywords, in torch's order, each with its kind and torch's
            /// default.
            pub fn option_specs() -> Vec<$crate::options::OptionSpec> {
                use $crate::options::OptionValue;
                let d = Self::default();
                vec![
                    $crate::options::OptionSpec {
                        name: "lr",
                        kind: "Float",
                        default: d.lr.into(),
                    },
                    $($crate::options::OptionSpec {
                        name: stringify!($field),
                        kind: <$ty as OptionValue>::KIND,
                        default: d.$field.clone().into(),
                    },)*
                ]
            }

            /// The entries of torch's `param_groups[i]` for these options.
            pub(crate) fn map(&self) -> std::collections::BTreeMap<String, $crate::value::Value> {
                std::collections::BTreeMap::from([
                    ("lr".into(), self.lr.into()),
                    $((stringify!($field).into(), self.$field.clone().into()),)*
                ])
            }

            /// Options from a group's entries, with torch's `KeyError` for a missing one.
            pub(crate) fn read(
                map: &std::collections::BTreeMap<String, $crate::value::Value>,
            ) -> borch_tensor::Result<$name> {
                use $crate::options::OptionValue;
                let r = $crate::value::Reader(map);
                Ok($name {
                    lr: f64::read(&r, "lr")?,
                    $($field: <$ty>::read(&r, stringify!($field))?,)*
                })
            }
        }

        impl $crate::group::Declared for $name {
            fn declared_map(&self) -> std::collections::BTreeMap<String, $crate::value::Value> {
                self.map()
            }
            fn declared_read(
                map: &std::collections::BTreeMap<String, $crate::value::Value>,
            ) -> borch_tensor::Result<$name> {
                $name::read(map)
            }
            fn declared_lr(&self) -> f64 {
                self.lr
            }
            fn declared_set_lr(&mut self, lr: f64) {
                self.lr = lr;
            }
            fn specs() -> Vec<$crate::options::OptionSpec> {
                $name::option_specs()
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            lr: f64 = $lr:expr,
            $(
                $(#[$fmeta:meta])*
                $field:ident $(($a:ident, $b:ident))? : $ty:ty = $default:expr,
            )*
        }
        $(#[$cmeta:meta])*
        fn $conv:ident() -> $other:ident { $($xfield:ident : $xvalue:expr),* $(,)? }
    ) => {
        $crate::options::declare_options! {
            $(#[$meta])*
            $vis struct $name {
                lr: f64 = $lr,
                $(
                    $(#[$fmeta])*
                    $field $(($a, $b))? : $ty = $default,
                )*
            }
        }

        impl $name {
            $(#[$cmeta])*
            fn $conv(&self) -> $other {
                $other {
                    lr: self.lr,
                    $($field: self.$field,)*
                    $($xfield: $xvalue,)*
                }
            }
        }
    };
}

pub(crate) use declare_options;
pub(crate) use option_builder;

/// torch's constructor signature in the op catalog's syntax: `params`, the options, then the
/// keyword-only flags torch also takes (`foreach: Bool = None`, …).
pub fn signature(specs: &[OptionSpec], flags: &[(&str, &str)]) -> String {
    let mut parts = vec!["params: Params".to_string()];
    parts.extend(specs.iter().map(OptionSpec::signature));
    parts.extend(
        flags
            .iter()
            .map(|(name, default)| format!("{name}: Bool = {default}")),
    );
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::{
        AdagradOptions, AdamOptions, AdamWOptions, Hyper, RMSpropOptions, SgdOptions, Value,
    };

    fn names(list: Vec<crate::options::OptionSpec>) -> Vec<String> {
        list.iter().map(|s| s.name.to_string()).collect()
    }

    fn keys<H: Hyper + Default>() -> BTreeSet<String> {
        H::default().to_map().into_keys().collect()
    }

    #[test]
    fn option_names_are_the_group_entries() {
        assert_eq!(
            names(SgdOptions::option_specs()),
            [
                "lr",
                "momentum",
                "dampening",
                "weight_decay",
                "nesterov",
                "maximize"
            ]
        );
        assert_eq!(
            names(AdamOptions::option_specs()),
            [
                "lr",
                "betas",
                "eps",
                "weight_decay",
                "amsgrad",
                "maximize",
                "decoupled_weight_decay"
            ]
        );
        let sig: Vec<String> = AdamWOptions::option_specs()[..3]
            .iter()
            .map(|s| s.signature())
            .collect();
        assert_eq!(
            sig,
            [
                "lr: Float = 0.001",
                "betas: Floats = (0.9, 0.999)",
                "eps: Float = 1e-08"
            ]
        );
        let sets = [
            (names(SgdOptions::option_specs()), keys::<SgdOptions>()),
            (names(AdamOptions::option_specs()), keys::<AdamOptions>()),
            (
                names(RMSpropOptions::option_specs()),
                keys::<RMSpropOptions>(),
            ),
            (
                names(AdagradOptions::option_specs()),
                keys::<AdagradOptions>(),
            ),
        ];
        for (names, keys) in sets {
            assert_eq!(names.into_iter().collect::<BTreeSet<_>>(), keys);
        }
        // AdamW's groups also say `decoupled_weight_decay=True`, as torch's do.
        let mut adamw = keys::<AdamWOptions>();
        assert!(adamw.remove("decoupled_weight_decay"));
        let listed: BTreeSet<_> = names(AdamWOptions::option_specs()).into_iter().collect();
        assert_eq!(listed, adamw);
        assert_eq!(
            AdamWOptions::default().to_map()["decoupled_weight_decay"],
            Value::Bool(true)
        );
    }

    #[test]
    fn maps_round_trip() {
        let adam = AdamOptions::new(0.5).betas(0.8, 0.9).amsgrad(true);
        assert_eq!(AdamOptions::from_map(&adam.to_map()).unwrap(), adam);
        let adamw = AdamWOptions::new(0.5).weight_decay(0.1).maximize(true);
        assert_eq!(AdamWOptions::from_map(&adamw.to_map()).unwrap(), adamw);
        let sgd = SgdOptions::new(0.1).momentum(0.9).nesterov(true);
        assert_eq!(SgdOptions::from_map(&sgd.to_map()).unwrap(), sgd);
        let mut map = sgd.to_map();
        map.remove("dampening");
        let err = SgdOptions::from_map(&map).unwrap_err();
        assert!(err.to_string().contains("KeyError: 'dampening'"), "{err}");
    }
}
