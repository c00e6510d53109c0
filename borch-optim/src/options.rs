//! One declaration of an optimizer's options (issue 10: the option list was spelled out six
//! times). [`declare_options!`] turns it into the options struct, its `Default` (torch's
//! defaults), `new(lr)` and one builder per option, the torch-keyed map of the state dicts
//! (`map` / `read`, behind `Hyper::to_map` / `Hyper::from_map`) and `option_names()`.
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

/// A type an option can have: written into a group's map as a [`Value`], read back by key.
pub(crate) trait OptionValue: Sized + Into<Value> {
    fn read(r: &Reader, key: &str) -> Result<Self>;
}

impl OptionValue for f64 {
    fn read(r: &Reader, key: &str) -> Result<f64> {
        r.f64(key)
    }
}

impl OptionValue for bool {
    fn read(r: &Reader, key: &str) -> Result<bool> {
        r.bool(key)
    }
}

impl OptionValue for (f64, f64) {
    fn read(r: &Reader, key: &str) -> Result<(f64, f64)> {
        r.pair(key)
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
            pub lr: f64,
            $(
                $(#[$fmeta])*
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

            /// The options as torch's keywords, in torch's order, each with its default as
            /// declared here (`("lr", "1e-3")`, `("betas", "(0.9, 0.999)")`); the type of each
            /// is that of its entry in `Self::default().to_map()`.
            pub fn option_names() -> &'static [(&'static str, &'static str)] {
                &[
                    ("lr", stringify!($lr)),
                    $((stringify!($field), stringify!($default)),)*
                ]
            }

            /// The entries of torch's `param_groups[i]` for these options.
            pub(crate) fn map(&self) -> std::collections::BTreeMap<String, $crate::value::Value> {
                std::collections::BTreeMap::from([
                    ("lr".into(), self.lr.into()),
                    $((stringify!($field).into(), self.$field.into()),)*
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::{
        AdagradOptions, AdamOptions, AdamWOptions, Hyper, RMSpropOptions, SgdOptions, Value,
    };

    fn names(list: &[(&str, &str)]) -> Vec<String> {
        list.iter().map(|(name, _)| name.to_string()).collect()
    }

    fn keys<H: Hyper + Default>() -> BTreeSet<String> {
        H::default().to_map().into_keys().collect()
    }

    #[test]
    fn option_names_are_the_group_entries() {
        assert_eq!(
            names(SgdOptions::option_names()),
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
            names(AdamOptions::option_names()),
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
        assert_eq!(
            AdamWOptions::option_names()[..3],
            [("lr", "1e-3"), ("betas", "(0.9, 0.999)"), ("eps", "1e-8")]
        );
        let sets = [
            (names(SgdOptions::option_names()), keys::<SgdOptions>()),
            (names(AdamOptions::option_names()), keys::<AdamOptions>()),
            (
                names(RMSpropOptions::option_names()),
                keys::<RMSpropOptions>(),
            ),
            (
                names(AdagradOptions::option_names()),
                keys::<AdagradOptions>(),
            ),
        ];
        for (names, keys) in sets {
            assert_eq!(names.into_iter().collect::<BTreeSet<_>>(), keys);
        }
        // AdamW's groups also say `decoupled_weight_decay=True`, as torch's do.
        let mut adamw = keys::<AdamWOptions>();
        assert!(adamw.remove("decoupled_weight_decay"));
        let listed: BTreeSet<_> = names(AdamWOptions::option_names()).into_iter().collect();
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
