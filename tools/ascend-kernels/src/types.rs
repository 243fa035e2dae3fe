//! Element types, attribute values and tensor views: the vocabulary the kernels, the
//! simulator's `aclopExecuteV2` and the task lists share.

/// Element types, numbered as ACL's `aclDataType` (`acl_base_rt.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum DType {
    F32 = 0,
    F16 = 1,
    I8 = 2,
    I32 = 3,
    U8 = 4,
    I16 = 6,
    U16 = 7,
    U32 = 8,
    I64 = 9,
    U64 = 10,
    F64 = 11,
    Bool = 12,
    BF16 = 27,
}

impl DType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// The `aclDataType` number.
    pub fn acl(self) -> i32 {
        self as i32
    }

    /// From an `aclDataType` number.
    pub fn from_acl(code: i32) -> Option<DType> {
        Some(match code {
            0 => DType::F32,
            1 => DType::F16,
            2 => DType::I8,
            3 => DType::I32,
            4 => DType::U8,
            6 => DType::I16,
            7 => DType::U16,
            8 => DType::U32,
            9 => DType::I64,
            10 => DType::U64,
            11 => DType::F64,
            12 => DType::Bool,
            27 => DType::BF16,
            _ => return None,
        })
    }

    /// The MLIR element type spelling (`f32`, `i64`, `i1`, `bf16`, `ui8`).
    pub fn mlir(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F64 => "f64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "ui8",
            DType::U16 => "ui16",
            DType::U32 => "ui32",
            DType::U64 => "ui64",
            DType::Bool => "i1",
        }
    }

    /// From an MLIR element type spelling (the inverse of [`DType::mlir`]).
    pub fn from_mlir(name: &str) -> Option<DType> {
        Some(match name {
            "f32" => DType::F32,
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            "f64" => DType::F64,
            "i8" | "si8" => DType::I8,
            "i16" | "si16" => DType::I16,
            "i32" | "si32" => DType::I32,
            "i64" | "si64" => DType::I64,
            "ui8" => DType::U8,
            "ui16" => DType::U16,
            "ui32" => DType::U32,
            "ui64" => DType::U64,
            "i1" => DType::Bool,
            _ => return None,
        })
    }
}

/// An op attribute, as `aclopSetAttr*` can carry it.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    Bool(bool),
    Int(i64),
    Float(f32),
    String(String),
    DataType(DType),
    ListBool(Vec<bool>),
    ListInt(Vec<i64>),
    ListFloat(Vec<f32>),
    ListString(Vec<String>),
}

/// An op's attributes, in the order they were set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attrs(pub Vec<(String, AttrValue)>);

impl Attrs {
    /// The value set last under `name`.
    pub fn get(&self, name: &str) -> Option<&AttrValue> {
        self.0.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Sets `name` (replacing an earlier value).
    pub fn set(&mut self, name: &str, value: AttrValue) {
        self.0.retain(|(n, _)| n != name);
        self.0.push((name.to_owned(), value));
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        match self.get(name)? {
            AttrValue::Bool(b) => Some(*b),
            AttrValue::Int(i) => Some(*i != 0),
            _ => None,
        }
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            AttrValue::Int(i) => Some(*i),
            AttrValue::Bool(b) => Some(*b as i64),
            AttrValue::DataType(d) => Some(d.acl() as i64),
            _ => None,
        }
    }

    pub fn float(&self, name: &str) -> Option<f32> {
        match self.get(name)? {
            AttrValue::Float(f) => Some(*f),
            AttrValue::Int(i) => Some(*i as f32),
            _ => None,
        }
    }

    pub fn string(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            AttrValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        match self.get(name)? {
            AttrValue::ListInt(v) => Some(v),
            _ => None,
        }
    }
}

/// An input tensor: element type, shape (`[]` for a scalar) and its bytes (row-major,
/// little-endian, exactly `dims.product() * dtype.size()` long or longer).
#[derive(Debug, Clone, Copy)]
pub struct TensorRef<'a> {
    pub dtype: DType,
    pub dims: &'a [i64],
    pub data: &'a [u8],
}

/// An output tensor the kernel writes.
#[derive(Debug)]
pub struct TensorMut<'a> {
    pub dtype: DType,
    pub dims: &'a [i64],
    pub data: &'a mut [u8],
}

/// Number of elements of a shape (1 for a scalar).
pub fn element_count(dims: &[i64]) -> usize {
    dims.iter().map(|&d| d.max(0) as usize).product()
}
