use std::fmt;

/// Element types. Every element is stored in 32 bits because WGSL has no 64-bit integers:
/// `Int64` is torch's int64 label over i32 storage, and values outside i32 are refused where a
/// tensor is created (see docs/dtypes.md). `Bool` is stored as u32 0/1.
/// The order is torch's promotion order of categories: bool < integer < floating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `torch.bool`, stored as u32 0/1.
    Bool,
    /// `torch.int64`, stored as i32 (values outside i32 are refused).
    Int64,
    /// `torch.float32`, the default dtype.
    Float32,
}

impl DType {
    /// torch's name: `torch.float32`, `torch.int64`, `torch.bool`.
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Float32 => "torch.float32",
            DType::Int64 => "torch.int64",
            DType::Bool => "torch.bool",
        }
    }

    /// The short name (`float32`, `int64`, `bool`).
    pub fn name(self) -> &'static str {
        &self.torch_name()[6..]
    }

    /// torch's C++ scalar type name, used in "not implemented for 'Long'" messages.
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Float32 => "Float",
            DType::Int64 => "Long",
            DType::Bool => "Bool",
        }
    }

    /// The C++ type name torch prints in some messages ("long int").
    pub fn cpp_name(self) -> &'static str {
        match self {
            DType::Float32 => "float",
            DType::Int64 => "long int",
            DType::Bool => "bool",
        }
    }

    /// Every dtype borch has, in promotion order.
    pub const ALL: [DType; 3] = [DType::Bool, DType::Int64, DType::Float32];

    /// The dtypes borch has, as a message says them: "float32, int64 and bool".
    pub const LIST: &'static str = "float32, int64 and bool";

    /// The dtype for torch's name (`"float32"`, `"torch.int64"`, `"long"`, `"bool"`, ...).
    pub fn from_name(name: &str) -> Option<DType> {
        match name.trim_start_matches("torch.") {
            "float32" | "float" => Some(DType::Float32),
            "int64" | "long" => Some(DType::Int64),
            "bool" => Some(DType::Bool),
            _ => None,
        }
    }

    /// The WGSL type of one stored element.
    pub fn wgsl(self) -> &'static str {
        match self {
            DType::Float32 => "f32",
            DType::Int64 => "i32",
            DType::Bool => "u32",
        }
    }

    /// Whether this is a floating-point dtype (torch's `is_floating_point`).
    pub fn is_float(self) -> bool {
        self == DType::Float32
    }

    /// torch's `promote_types` among the dtypes borch has.
    pub fn promote(self, other: DType) -> DType {
        self.max(other)
    }

    /// Bytes of one stored element: every dtype is stored in 32 bits.
    pub const SIZE_BYTES: usize = 4;
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.torch_name())
    }
}
