//! The GE op types the generator emits, with their MLIR names and operand-group layout.

/// How an op's operands/results are grouped, which decides whether segment-size attributes
/// must be printed.
#[derive(Debug, PartialEq, Eq)]
pub enum Layout {
    /// Fixed data operands (each a single group) + one trailing variadic `ctrl_in` group;
    /// fixed data results + the control result. At most one non-single group, so no
    /// segment sizes.
    Fixed,
    /// Control-flow ops whose heterogeneous inputs/outputs use the "slots" convention; see
    /// [`slotted_segments`]. `leading` is the number of single operands before the slots
    /// (If's `cond`).
    Slotted { leading: usize },
}

#[derive(Debug)]
pub struct OpType {
    /// GE type name, used by `.ge` (`HcomAllReduce`).
    pub ge: &'static str,
    /// MLIR op name (`ascend.hcom_all_reduce`).
    pub mlir: &'static str,
    pub layout: Layout,
}

macro_rules! ops {
    ($($id:ident = $ge:literal, $mlir:literal, $layout:expr;)*) => {
        $(pub static $id: OpType = OpType { ge: $ge, mlir: $mlir, layout: $layout };)*
        /// Every op type the generator can emit (for the throwaway IRDL and the tests).
        #[cfg(test)]
        pub static ALL: &[&OpType] = &[$(&$id),*];
    };
}

ops! {
    DATA = "Data", "ascend.data", Layout::Fixed;
    CONST = "Const", "ascend.const", Layout::Fixed;
    VARIABLE = "Variable", "ascend.variable", Layout::Fixed;
    ADD = "Add", "ascend.add", Layout::Fixed;
    SUB = "Sub", "ascend.sub", Layout::Fixed;
    MUL = "Mul", "ascend.mul", Layout::Fixed;
    REAL_DIV = "RealDiv", "ascend.real_div", Layout::Fixed;
    RELU = "Relu", "ascend.relu", Layout::Fixed;
    GELU = "Gelu", "ascend.gelu", Layout::Fixed;
    CAST = "Cast", "ascend.cast", Layout::Fixed;
    MAT_MUL = "MatMul", "ascend.mat_mul", Layout::Fixed;
    BATCH_MAT_MUL = "BatchMatMul", "ascend.batch_mat_mul", Layout::Fixed;
    LAYER_NORM = "LayerNorm", "ascend.layer_norm", Layout::Fixed;
    SOFTMAX = "Softmax", "ascend.softmax", Layout::Fixed;
    RESHAPE = "Reshape", "ascend.reshape", Layout::Fixed;
    TRANSPOSE = "Transpose", "ascend.transpose", Layout::Fixed;
    REDUCE_SUM = "ReduceSum", "ascend.reduce_sum", Layout::Fixed;
    CONV2D = "Conv2D", "ascend.conv2d", Layout::Fixed;
    ASSIGN = "Assign", "ascend.assign", Layout::Fixed;
    APPLY_MOMENTUM = "ApplyMomentum", "ascend.apply_momentum", Layout::Fixed;
    HCOM_ALL_REDUCE = "HcomAllReduce", "ascend.hcom_all_reduce", Layout::Fixed;
    IF = "If", "ascend.if", Layout::Slotted { leading: 1 };
    WHILE = "While", "ascend.while", Layout::Slotted { leading: 0 };
    PARTITIONED_CALL = "PartitionedCall", "ascend.partitioned_call", Layout::Slotted { leading: 0 };
}

/// Number of optional per-value slots in front of the homogeneous overflow group, for both
/// the data inputs and the data outputs of slotted ops.
pub const SLOTS: usize = 32;

/// `operandSegmentSizes` and `resultSegmentSizes` of a slotted control-flow op (If, While,
/// PartitionedCall) with `inputs` data inputs (after the `leading` single operands such as
/// If's `cond`), `ctrl_in` control operands and `outputs` data results.
///
/// This layout must match the groups `dialects/ascend.ops.toml` declares for these ops (and
/// hence the generated `dialects/ascend.irdl.mlir`): operands = `leading` singles, `SLOTS`
/// optional slots filled in order, a variadic overflow group, the variadic `ctrl_in` group;
/// results = `SLOTS` optional slots, a variadic overflow group, the single control result.
/// It is the only place the generator encodes that layout.
pub fn slotted_segments(
    leading: usize,
    inputs: usize,
    ctrl_in: usize,
    outputs: usize,
) -> (Vec<usize>, Vec<usize>) {
    let fill = |n: usize, sizes: &mut Vec<usize>| {
        sizes.extend((0..SLOTS).map(|i| usize::from(i < n)));
        sizes.push(n.saturating_sub(SLOTS));
    };
    let mut operands = vec![1; leading];
    fill(inputs, &mut operands);
    operands.push(ctrl_in);
    let mut results = Vec::with_capacity(SLOTS + 2);
    fill(outputs, &mut results);
    results.push(1);
    (operands, results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_segments() {
        let (ops, res) = slotted_segments(1, 2, 3, 1);
        assert_eq!(ops.len(), 1 + SLOTS + 2);
        assert_eq!(&ops[..4], &[1, 1, 1, 0]);
        assert_eq!(ops[SLOTS + 1], 0);
        assert_eq!(ops[SLOTS + 2], 3);
        assert_eq!(res.len(), SLOTS + 2);
        assert_eq!(res.iter().sum::<usize>(), 2);
    }

    #[test]
    fn overflow_segment() {
        let (ops, _) = slotted_segments(0, SLOTS + 5, 0, 0);
        assert_eq!(ops.iter().sum::<usize>(), SLOTS + 5);
        assert_eq!(ops[SLOTS], 5);
    }

    #[test]
    fn mlir_names_are_snake_case_of_ge_names() {
        for op in ALL {
            let mut snake = String::new();
            let chars: Vec<char> = op.ge.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                // A capital starts a new word unless it follows a digit (Conv2D -> conv2d).
                if c.is_ascii_uppercase() && i > 0 && !chars[i - 1].is_ascii_digit() {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
            }
            assert_eq!(op.mlir, format!("ascend.{snake}"), "{}", op.ge);
        }
    }
}
