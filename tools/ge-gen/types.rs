//! Tensor types of generated values, printed in both output syntaxes.
//!
//! A generated graph uses only a handful of distinct types, so each is interned once and
//! shared as a `&'static` reference: emitting an operand type is then a plain string copy,
//! which keeps 1M-op generation cheap.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A tensor type (or the control type) with its two textual spellings precomputed.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TyDef {
    /// MLIR spelling, e.g. `tensor<64x64xf32>`.
    pub mlir: String,
    /// `.ge` spelling, e.g. `f32[64, 64]` (empty for the control type, which `.ge` leaves implicit).
    pub ge: String,
}

pub type Ty = &'static TyDef;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F16,
    F32,
    I32,
    I64,
    Bool,
}

impl DType {
    fn mlir(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::Bool => "i1",
        }
    }

    fn ge(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::Bool => "bool",
        }
    }

    /// GE's `DataType` enum value, used by `Cast`'s `dst_type` attribute.
    pub fn ge_enum(self) -> i64 {
        match self {
            DType::F32 => 0,
            DType::F16 => 1,
            DType::I32 => 3,
            DType::I64 => 9,
            DType::Bool => 12,
        }
    }
}

thread_local! {
    static INTERNED: RefCell<HashMap<(DType, Vec<i64>), Ty>> = RefCell::new(HashMap::new());
}

/// The ranked tensor type `dtype[dims]` (`dims` empty = scalar). Interned: the set of types
/// a family uses is tiny and fixed, so leaking one small allocation per type is bounded.
pub fn tensor(dtype: DType, dims: &[i64]) -> Ty {
    INTERNED.with(|m| {
        *m.borrow_mut()
            .entry((dtype, dims.to_vec()))
            .or_insert_with(|| {
                let mut mlir = String::from("tensor<");
                for d in dims {
                    let _ = write!(mlir, "{d}x");
                }
                mlir.push_str(dtype.mlir());
                mlir.push('>');
                let list: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
                let ge = format!("{}[{}]", dtype.ge(), list.join(", "));
                Box::leak(Box::new(TyDef { mlir, ge }))
            })
    })
}

/// The control-token type every ascend op yields as its last result.
pub fn ctrl() -> Ty {
    static CTRL: std::sync::OnceLock<TyDef> = std::sync::OnceLock::new();
    CTRL.get_or_init(|| TyDef {
        mlir: "!ascend.ctrl".to_string(),
        ge: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        let t = tensor(DType::F32, &[64, 64]);
        assert_eq!(t.mlir, "tensor<64x64xf32>");
        assert_eq!(t.ge, "f32[64, 64]");
        let s = tensor(DType::Bool, &[]);
        assert_eq!(s.mlir, "tensor<i1>");
        assert_eq!(s.ge, "bool[]");
        assert!(std::ptr::eq(t, tensor(DType::F32, &[64, 64])));
    }
}
