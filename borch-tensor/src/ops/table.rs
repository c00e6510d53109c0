//! Every elementwise op, defined once: torch's name, its WGSL for float and integer compute, how
//! it treats int64 and bool inputs, whether it yields bool, whether torch has its in-place form,
//! and its scalar parameters. Methods (in-place ones too), binding names and golden cases follow
//! from this table.

use crate::error::Result;
use crate::ops::checks;
use crate::scalar::Operand;

/// What an op does with int64 inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnInt {
    /// Computed in i32 with this expression; the result stays int64.
    Compute(&'static str),
    /// Promoted to float32 first (exp, sin, …).
    Float,
    /// Refused, as torch refuses it.
    Error,
}

/// What an op does when every input is bool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnBool {
    /// Computed as integers, result stored as bool (add is or, mul is and).
    Keep,
    /// Computed as integers, result int64 (square).
    Int,
    /// Computed as integers with this expression (not the int one), result stored as bool
    /// (bitwise_not of a bool is its logical not).
    Compute(&'static str),
    /// Promoted to float32.
    Float,
    /// Refused with this message.
    Error(&'static str),
}

/// An argument check run before an op: operands and scalar parameters.
pub type Check = fn(&[Operand], &[f64]) -> Result<()>;

/// One elementwise op.
#[derive(Debug)]
pub struct MapOp {
    /// torch's name.
    pub name: &'static str,
    /// The number of tensor operands.
    pub arity: usize,
    /// WGSL over `a`, `b`, `c` (f32) and the parameters `k0`, `k1`, ….
    pub float: &'static str,
    /// What the op does with int64 operands.
    pub on_int: OnInt,
    /// What the op does with bool operands.
    pub on_bool: OnBool,
    /// Yields bool (comparisons, isnan, logical ops).
    pub predicate: bool,
    /// Takes int64 and bool only (bitwise ops): float operands are refused as torch refuses them,
    /// so the op has no derivative.
    pub integral: bool,
    /// torch offers `Tensor.<name>_` with this op's own signature, so the in-place catalog entry
    /// follows from the row (`div_`, `clamp_`, `lerp_`, `addcmul_`, `addcdiv_` and
    /// `nan_to_num_` have signatures of their own in `api/inplace.rs`).
    pub inplace: bool,
    /// torch's names of the scalar parameters, in order, with their defaults.
    pub params: &'static [(&'static str, f64)],
    /// Operands before this index take no part in type promotion (`where`'s condition).
    pub promote_from: usize,
    /// torch's argument checks beyond dtype rules (bool subtraction, integral alpha, …).
    pub check: Option<Check>,
}

const NEG_BOOL: &str = "Negation, the `-` operator, on a bool tensor is not supported. If you \
are trying to invert a mask, use the `~` or `logical_not()` operator instead.";
/// torch's message for `bool - bool`.
pub const SUB_BOOL: &str = "Subtraction, the `-` operator, with two bool tensors is not \
supported. Use the `^` or `logical_xor()` operator instead.";
/// torch's message for a bool tensor in a subtraction with a number or another dtype.
pub const SUB_ONE_BOOL: &str = "Subtraction, the `-` operator, with a bool tensor is not \
supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.";

macro_rules! some_or_none {
    () => {
        None
    };
    ($e:expr) => {
        Some($e)
    };
}

macro_rules! map_ops {
    ($( $id:ident = $name:literal / $arity:literal : $float:literal, $int:expr, $boolr:expr
        $(, pred $pred:literal)? $(, integral $integral:literal)? $(, inplace $inplace:literal)?
        $(, params [$(($pn:literal, $pd:expr)),*])?
        $(, from $from:literal)? $(, check $check:expr)? ; )*) => {
        $(
            #[doc = concat!("torch's `", $name, "`.")]
            pub static $id: MapOp = MapOp {
                name: $name,
                arity: $arity,
                float: $float,
                on_int: $int,
                on_bool: $boolr,
                predicate: false $(|| $pred)?,
                integral: false $(|| $integral)?,
                inplace: false $(|| $inplace)?,
                params: &[$($(($pn, $pd)),*)?],
                promote_from: 0 $(+ $from)?,
                check: some_or_none!($($check)?),
            };
        )*
        /// Every elementwise op, for bindings and audits.
        pub static ALL: &[&MapOp] = &[$(&$id),*];
    };
}

use OnBool::{Compute as BoolCompute, Error as BoolErr, Float as BoolFloat, Int as BoolInt, Keep};
use OnInt::{Compute, Error as IntErr, Float};

const F32_MAX: f64 = f32::MAX as f64;

map_ops! {
    ABS = "abs"/1: "abs(a)", Compute("abs(a)"), BoolErr("\"abs\" not implemented for 'Bool'"),
        inplace true;
    NEG = "neg"/1: "-a", Compute("-a"), BoolErr(NEG_BOOL), inplace true;
    EXP = "exp"/1: "exp_(a)", Float, BoolFloat, inplace true;
    EXP2 = "exp2"/1: "exp2_(a)", Float, BoolFloat, inplace true;
    EXPM1 = "expm1"/1: "expm1_(a)", Float, BoolFloat, inplace true;
    LOG = "log"/1: "log_(a)", Float, BoolFloat, inplace true;
    LOG2 = "log2"/1: "log2_(a)", Float, BoolFloat, inplace true;
    LOG10 = "log10"/1: "log_(a) * 0.43429448190325182765", Float, BoolFloat, inplace true;
    LOG1P = "log1p"/1: "log1p_(a)", Float, BoolFloat, inplace true;
    SQRT = "sqrt"/1: "sqrt(a)", Float, BoolFloat, inplace true;
    RSQRT = "rsqrt"/1: "inverseSqrt(a)", Float, BoolFloat, inplace true;
    SIN = "sin"/1: "sin_(a)", Float, BoolFloat, inplace true;
    COS = "cos"/1: "cos_(a)", Float, BoolFloat, inplace true;
    TAN = "tan"/1: "tan_(a)", Float, BoolFloat, inplace true;
    ASIN = "asin"/1: "asin_(a)", Float, BoolFloat, inplace true;
    ACOS = "acos"/1: "acos_(a)", Float, BoolFloat, inplace true;
    ATAN = "atan"/1: "atan_(a)", Float, BoolFloat, inplace true;
    SINH = "sinh"/1: "nan_or(a, sinh(a))", Float, BoolFloat, inplace true;
    COSH = "cosh"/1: "nan_or(a, cosh(a))", Float, BoolFloat, inplace true;
    TANH = "tanh"/1: "tanh_(a)", Float, BoolFloat, inplace true;
    ASINH = "asinh"/1: "asinh_(a)", Float, BoolFloat, inplace true;
    ACOSH = "acosh"/1: "acosh_(a)", Float, BoolFloat, inplace true;
    ATANH = "atanh"/1: "atanh_(a)", Float, BoolFloat, inplace true;
    SIGMOID = "sigmoid"/1: "sigmoid_(a)", Float, BoolFloat, inplace true;
    RELU = "relu"/1: "select(a, 0.0, a < 0.0)", Compute("max(a, 0)"),
        BoolErr("Boolean inputs not supported for relu"), inplace true;
    GELU = "gelu"/1: "gelu_(a)", IntErr, BoolErr("\"gelu\" not implemented for 'Bool'");
    GELU_TANH = "gelu_tanh"/1: "gelu_tanh_(a)", IntErr, BoolErr("\"gelu\" not implemented for 'Bool'");
    SILU = "silu"/1: "a * sigmoid_(a)", IntErr, BoolErr("\"silu\" not implemented for 'Bool'");
    SOFTPLUS = "softplus"/1: "softplus_(a, k0, k1)", IntErr,
        BoolErr("\"softplus\" not implemented for 'Bool'"), params [("beta", 1.0), ("threshold", 20.0)];
    ERF = "erf"/1: "erf_(a)", Float, BoolFloat, inplace true;
    ERFC = "erfc"/1: "erfc_(a)", Float, BoolFloat, inplace true;
    FLOOR = "floor"/1: "floor(a)", Compute("a"), BoolErr("\"floor\" not implemented for 'Bool'"),
        inplace true;
    CEIL = "ceil"/1: "ceil(a)", Compute("a"), BoolErr("\"ceil\" not implemented for 'Bool'"),
        inplace true;
    ROUND = "round"/1: "round_even(a)", Compute("a"), BoolErr("\"round\" not implemented for 'Bool'"),
        inplace true;
    TRUNC = "trunc"/1: "trunc(a)", Compute("a"), BoolErr("\"trunc\" not implemented for 'Bool'"),
        inplace true;
    FRAC = "frac"/1: "select(a - trunc(a), f_nan(), is_inf(a))", IntErr, BoolErr("\"frac\" not implemented for 'Bool'"),
        inplace true;
    SIGN = "sign"/1: "sign_f(a)", Compute("sign(a)"), Keep, inplace true;
    RECIPROCAL = "reciprocal"/1: "1.0 / a", Float, BoolFloat, inplace true;
    SQUARE = "square"/1: "a * a", Compute("a * a"), BoolInt, inplace true;
    ISNAN = "isnan"/1: "is_nan(a)", Compute("a != a"), Keep, pred true;
    ISINF = "isinf"/1: "is_inf(a)", Compute("a != a"), Keep, pred true;
    ISFINITE = "isfinite"/1: "!(is_nan(a) || is_inf(a))", Compute("a == a"), Keep, pred true;
    LOGICAL_NOT = "logical_not"/1: "!truthy(a)", Compute("a == 0"), Keep, pred true, inplace true;
    // Integral only: the float expression ("a") is never run.
    BITWISE_NOT = "bitwise_not"/1: "a", Compute("~a"), BoolCompute("a ^ 1"), integral true,
        inplace true;
    NAN_TO_NUM = "nan_to_num"/1: "nan_to_num_(a, k0, k1, k2)", Compute("a"), Keep,
        params [("nan", 0.0), ("posinf", F32_MAX), ("neginf", -F32_MAX)];
    ADD = "add"/2: "a + k0 * b", Compute("a + k0 * b"), Keep, inplace true,
        params [("alpha", 1.0)], check checks::alpha;
    SUB = "sub"/2: "a - k0 * b", Compute("a - k0 * b"), BoolErr(SUB_BOOL), inplace true,
        params [("alpha", 1.0)], check checks::sub;
    MUL = "mul"/2: "a * b", Compute("a * b"), Keep, inplace true;
    DIV = "div"/2: "a / b", Float, BoolFloat;
    DIV_FLOOR = "div_floor"/2: "div_floor_f(a, b)", Compute("floordiv_i(a, b)"),
        BoolErr("\"div_floor\" not implemented for 'Bool'");
    DIV_TRUNC = "div_trunc"/2: "div_trunc_f(a, b)", Compute("select(a / b, 0, b == 0)"),
        BoolErr("\"div_trunc\" not implemented for 'Bool'");
    REMAINDER = "remainder"/2: "remainder_f(a, b)", Compute("remainder_i(a, b)"),
        BoolErr("\"remainder\" not implemented for 'Bool'"), inplace true;
    FMOD = "fmod"/2: "fmod_f(a, b)", Compute("fmod_i(a, b)"), BoolErr("\"fmod\" not implemented for 'Bool'"),
        inplace true;
    POW = "pow"/2: "pow_f(a, b)", Compute("pow_i(a, b)"), BoolErr("\"pow\" not implemented for 'Bool'"),
        inplace true;
    ATAN2 = "atan2"/2: "atan2_(a, b)", Float, BoolFloat, inplace true;
    MAXIMUM = "maximum"/2: "max_f(a, b)", Compute("max(a, b)"), Keep;
    MINIMUM = "minimum"/2: "min_f(a, b)", Compute("min(a, b)"), Keep;
    EQ = "eq"/2: "eq_f(a, b)", Compute("a == b"), Keep, pred true, inplace true;
    NE = "ne"/2: "!eq_f(a, b)", Compute("a != b"), Keep, pred true, inplace true;
    LT = "lt"/2: "lt_f(a, b)", Compute("a < b"), Keep, pred true, inplace true;
    LE = "le"/2: "le_f(a, b)", Compute("a <= b"), Keep, pred true, inplace true;
    GT = "gt"/2: "lt_f(b, a)", Compute("a > b"), Keep, pred true, inplace true;
    GE = "ge"/2: "le_f(b, a)", Compute("a >= b"), Keep, pred true, inplace true;
    LOGICAL_AND = "logical_and"/2: "truthy(a) && truthy(b)", Compute("(a != 0) && (b != 0)"), Keep, pred true,
        inplace true;
    LOGICAL_OR = "logical_or"/2: "truthy(a) || truthy(b)", Compute("(a != 0) || (b != 0)"), Keep, pred true,
        inplace true;
    LOGICAL_XOR = "logical_xor"/2: "truthy(a) != truthy(b)", Compute("(a != 0) != (b != 0)"), Keep, pred true,
        inplace true;
    BITWISE_AND = "bitwise_and"/2: "a", Compute("a & b"), Keep, integral true, inplace true;
    BITWISE_OR = "bitwise_or"/2: "a", Compute("a | b"), Keep, integral true, inplace true;
    BITWISE_XOR = "bitwise_xor"/2: "a", Compute("a ^ b"), Keep, integral true, inplace true;
    CLAMP = "clamp"/3: "clamp_f(a, b, c)", Compute("min(max(a, b), c)"), Keep;
    CLAMP_MIN = "clamp_min"/2: "max_f(a, b)", Compute("max(a, b)"), Keep, inplace true;
    CLAMP_MAX = "clamp_max"/2: "min_f(a, b)", Compute("min(a, b)"), Keep, inplace true;
    LERP = "lerp"/3: "lerp_(a, b, c)", IntErr, BoolErr("\"lerp\" not implemented for 'Bool'"),
        check checks::lerp;
    ADDCMUL = "addcmul"/3: "a + k0 * b * c", Compute("a + k0 * b * c"),
        BoolErr("\"addcmul\" not implemented for 'Bool'"), params [("value", 1.0)];
    ADDCDIV = "addcdiv"/3: "a + k0 * b / c", IntErr,
        BoolErr("\"addcdiv\" not implemented for 'Bool'"), params [("value", 1.0)],
        check checks::addcdiv;
    WHERE = "where"/3: "select(c, b, truthy(a))", Compute("select(c, b, a != 0)"), Keep, from 1,
        check checks::where_condition;
}

/// The op named `name` in torch's spelling.
pub fn find(name: &str) -> Option<&'static MapOp> {
    ALL.iter().copied().find(|op| op.name == name)
}
