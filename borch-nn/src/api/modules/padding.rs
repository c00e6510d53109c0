//! The padding layers: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad 1d/2d/3d.

use super::{ModuleClass, boxed, class};
use crate::{
    CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
    ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
    ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,
};

macro_rules! pad_class {
    ($name:ident) => {
        class(stringify!($name), "padding: Ints", |a| {
            boxed($name::new(&a.ints(0)?)?)
        })
    };
}

macro_rules! constant_class {
    ($name:ident) => {
        class(stringify!($name), "padding: Ints, value: Float", |a| {
            boxed($name::new(&a.ints(0)?, a.f64(1)?)?)
        })
    };
}

/// The classes of this group.
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        pad_class!(ZeroPad1d),
        pad_class!(ZeroPad2d),
        pad_class!(ZeroPad3d),
        constant_class!(ConstantPad1d),
        constant_class!(ConstantPad2d),
        constant_class!(ConstantPad3d),
        pad_class!(ReflectionPad1d),
        pad_class!(ReflectionPad2d),
        pad_class!(ReflectionPad3d),
        pad_class!(ReplicationPad1d),
        pad_class!(ReplicationPad2d),
        pad_class!(ReplicationPad3d),
        pad_class!(CircularPad1d),
        pad_class!(CircularPad2d),
        pad_class!(CircularPad3d),
    ]
}
