//! The GE type name of every op with a kernel, and the kernel it runs.

use crate::binary::{self, Binary, Compare, Logic};
use crate::elementwise::{unary, Unary};
use crate::kernel::KernelFn;
use crate::reduce::{reduce, Reduce};
use crate::{cast, combine, conv, index, lrn, matmul, norm, pool, shape, slice, state};

macro_rules! table {
    ($($name:literal => $f:expr,)*) => {
        const TABLE: &[(&str, KernelFn)] = &[$(($name, $f)),*];
    };
}

table! {
    // elementwise.rs
    "Relu" => |o, i, x| unary(o, i, x, Unary::Relu),
    "Relu6" => |o, i, x| unary(o, i, x, Unary::Relu6),
    "LeakyRelu" => |o, i, x| unary(o, i, x, Unary::LeakyRelu),
    "Gelu" => |o, i, x| unary(o, i, x, Unary::Gelu),
    "Sigmoid" => |o, i, x| unary(o, i, x, Unary::Sigmoid),
    "Tanh" => |o, i, x| unary(o, i, x, Unary::Tanh),
    "Exp" => |o, i, x| unary(o, i, x, Unary::Exp),
    "Log" => |o, i, x| unary(o, i, x, Unary::Log),
    "Sqrt" => |o, i, x| unary(o, i, x, Unary::Sqrt),
    "Rsqrt" => |o, i, x| unary(o, i, x, Unary::Rsqrt),
    "Square" => |o, i, x| unary(o, i, x, Unary::Square),
    "Abs" => |o, i, x| unary(o, i, x, Unary::Abs),
    "Neg" => |o, i, x| unary(o, i, x, Unary::Neg),
    "Erf" => |o, i, x| unary(o, i, x, Unary::Erf),
    "Reciprocal" => |o, i, x| unary(o, i, x, Unary::Reciprocal),
    "Floor" => |o, i, x| unary(o, i, x, Unary::Floor),
    "Ceil" => |o, i, x| unary(o, i, x, Unary::Ceil),
    "Sign" => |o, i, x| unary(o, i, x, Unary::Sign),
    // binary.rs
    "Add" => |o, i, x| binary::binary(o, i, x, Binary::Add),
    "AddV2" => |o, i, x| binary::binary(o, i, x, Binary::Add),
    "Sub" => |o, i, x| binary::binary(o, i, x, Binary::Sub),
    "Mul" => |o, i, x| binary::binary(o, i, x, Binary::Mul),
    "RealDiv" => |o, i, x| binary::binary(o, i, x, Binary::Div),
    "Div" => |o, i, x| binary::binary(o, i, x, Binary::Div),
    "FloorDiv" => |o, i, x| binary::binary(o, i, x, Binary::FloorDiv),
    "FloorMod" => |o, i, x| binary::binary(o, i, x, Binary::FloorMod),
    "Maximum" => |o, i, x| binary::binary(o, i, x, Binary::Maximum),
    "Minimum" => |o, i, x| binary::binary(o, i, x, Binary::Minimum),
    "Pow" => |o, i, x| binary::binary(o, i, x, Binary::Pow),
    "SquaredDifference" => |o, i, x| binary::binary(o, i, x, Binary::SquaredDifference),
    "Equal" => |o, i, x| binary::compare(o, i, x, Compare::Equal),
    "NotEqual" => |o, i, x| binary::compare(o, i, x, Compare::NotEqual),
    "Less" => |o, i, x| binary::compare(o, i, x, Compare::Less),
    "LessEqual" => |o, i, x| binary::compare(o, i, x, Compare::LessEqual),
    "Greater" => |o, i, x| binary::compare(o, i, x, Compare::Greater),
    "GreaterEqual" => |o, i, x| binary::compare(o, i, x, Compare::GreaterEqual),
    "LogicalAnd" => |o, i, x| binary::logic(o, i, x, Logic::And),
    "LogicalOr" => |o, i, x| binary::logic(o, i, x, Logic::Or),
    "LogicalNot" => binary::logical_not,
    "Select" => combine::select,
    "SelectV2" => combine::select,
    "AddN" => combine::add_n,
    "BiasAdd" => combine::bias_add,
    // matmul.rs
    "MatMul" => matmul::matmul,
    "MatMulV2" => matmul::matmul,
    "BatchMatMul" => matmul::batch_matmul,
    "BatchMatMulV2" => matmul::batch_matmul,
    // conv.rs, pool.rs
    "Conv2D" => conv::conv2d,
    "MaxPool" => |o, i, x| pool::pool(o, i, x, pool::Pool::Max),
    "AvgPool" => |o, i, x| pool::pool(o, i, x, pool::Pool::Avg),
    // reduce.rs
    "ReduceSum" => |o, i, x| reduce(o, i, x, Reduce::Sum),
    "ReduceMean" => |o, i, x| reduce(o, i, x, Reduce::Mean),
    "ReduceMax" => |o, i, x| reduce(o, i, x, Reduce::Max),
    "ReduceMin" => |o, i, x| reduce(o, i, x, Reduce::Min),
    "ReduceProd" => |o, i, x| reduce(o, i, x, Reduce::Prod),
    "ReduceSumD" => |o, i, x| reduce(o, i, x, Reduce::Sum),
    "ReduceMeanD" => |o, i, x| reduce(o, i, x, Reduce::Mean),
    "ReduceMaxD" => |o, i, x| reduce(o, i, x, Reduce::Max),
    "ReduceMinD" => |o, i, x| reduce(o, i, x, Reduce::Min),
    "ReduceProdD" => |o, i, x| reduce(o, i, x, Reduce::Prod),
    // norm.rs
    "Softmax" => norm::softmax,
    "SoftmaxV2" => norm::softmax,
    "LayerNorm" => norm::layer_norm,
    // lrn.rs
    "LRN" => lrn::lrn,
    // cast.rs
    "Cast" => cast::cast,
    // shape.rs
    "Reshape" => shape::reshape,
    "ExpandDims" => shape::expand_dims,
    "Squeeze" => shape::squeeze,
    "Flatten" => shape::flatten,
    "Transpose" => shape::transpose,
    "TransposeD" => shape::transpose,
    "ConcatV2" => shape::concat,
    "ConcatV2D" => shape::concat,
    "Concat" => shape::concat,
    "ConcatD" => shape::concat,
    "Split" => shape::split,
    "SplitD" => shape::split,
    "SplitV" => shape::split_v,
    "SplitVD" => shape::split_v,
    "Shape" => shape::shape,
    "Size" => shape::size,
    "Rank" => shape::rank,
    "Identity" => shape::identity,
    "Memcpy" => shape::identity,
    "MemcpyAsync" => shape::identity,
    "MemcpyAddrAsync" => shape::identity,
    "Enter" => shape::identity,
    "RefEnter" => shape::identity,
    "LoopCond" => shape::identity,
    "NextIteration" => shape::identity,
    "RefNextIteration" => shape::identity,
    "NoOp" => shape::no_op,
    "ReadVariableOp" => shape::identity,
    "Snapshot" => shape::identity,
    "StopGradient" => shape::identity,
    "IdentityN" => shape::identity_n,
    // index.rs
    "Gather" => index::gather,
    "GatherV2" => index::gather,
    "Slice" => slice::slice,
    "StridedSlice" => slice::strided_slice,
    "Pad" => index::pad,
    "PadV2" => index::pad,
    "Tile" => index::tile,
    "Fill" => index::fill,
    "ZerosLike" => index::zeros_like,
    "OnesLike" => index::ones_like,
    // state.rs
    "Assign" => state::assign,
    "AssignVariableOp" => state::assign,
    "AssignAdd" => |o, i, x| state::assign_op(o, i, x, Binary::Add),
    "AssignAddVariableOp" => |o, i, x| state::assign_op(o, i, x, Binary::Add),
    "AssignSub" => |o, i, x| state::assign_op(o, i, x, Binary::Sub),
    "AssignSubVariableOp" => |o, i, x| state::assign_op(o, i, x, Binary::Sub),
    "ApplyMomentum" => state::apply_momentum,
    "ScatterAdd" => state::scatter_add,
}

pub(crate) fn lookup(op_type: &str) -> Option<KernelFn> {
    TABLE.iter().find(|(n, _)| *n == op_type).map(|(_, f)| *f)
}

pub(crate) fn names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = TABLE.iter().map(|(n, _)| *n).collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut v = names();
        let n = v.len();
        v.dedup();
        assert_eq!(v.len(), n);
    }
}
