//! The GE op types the generator emits, with their MLIR names. Operand
//! groups and segment sizes come from the dialect's op table (`ge_mlir::dialect`).

#[derive(Debug)]
pub struct OpType {
    /// GE type name, used by `.ge` (`HcomAllReduce`).
    pub ge: &'static str,
    /// MLIR op name (`ascend.hcom_all_reduce`).
    pub mlir: &'static str,
}

macro_rules! ops {
    ($($id:ident = $ge:literal, $mlir:literal;)*) => {
        $(pub static $id: OpType = OpType { ge: $ge, mlir: $mlir };)*
        /// Every op type the generator can emit (for the throwaway IRDL and the tests).
        #[cfg(test)]
        pub static ALL: &[&OpType] = &[$(&$id),*];
    };
}

ops! {
    DATA = "Data", "ascend.data";
    CONST = "Const", "ascend.const";
    VARIABLE = "Variable", "ascend.variable";
    ADD = "Add", "ascend.add";
    SUB = "Sub", "ascend.sub";
    MUL = "Mul", "ascend.mul";
    REAL_DIV = "RealDiv", "ascend.real_div";
    RELU = "Relu", "ascend.relu";
    GELU = "Gelu", "ascend.gelu";
    CAST = "Cast", "ascend.cast";
    MAT_MUL = "MatMul", "ascend.mat_mul";
    BATCH_MAT_MUL = "BatchMatMul", "ascend.batch_mat_mul";
    LAYER_NORM = "LayerNorm", "ascend.layer_norm";
    SOFTMAX = "Softmax", "ascend.softmax";
    RESHAPE = "Reshape", "ascend.reshape";
    TRANSPOSE = "Transpose", "ascend.transpose";
    REDUCE_SUM = "ReduceSum", "ascend.reduce_sum";
    CONV2D = "Conv2D", "ascend.conv2d";
    ASSIGN = "Assign", "ascend.assign";
    APPLY_MOMENTUM = "ApplyMomentum", "ascend.apply_momentum";
    HCOM_ALL_REDUCE = "HcomAllReduce", "ascend.hcom_all_reduce";
    IF = "If", "ascend.if";
    WHILE = "While", "ascend.while";
    PARTITIONED_CALL = "PartitionedCall", "ascend.partitioned_call";
}

#[cfg(test)]
mod tests {
    use super::*;

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
