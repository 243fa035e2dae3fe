//! The op table: what every `ascend` op looks like (operand and result groups) and what the
//! passes must know about it, read from `dialects/ascend.ops.toml`.
//!
//! The table is the single source of truth: the IRDL definition is generated from it, the
//! `.ge` importer checks arity with it, and `semantics` answers the passes' questions from it.

use serde::Deserialize;
use std::{collections::HashMap, fmt, sync::OnceLock};

/// The op table as shipped in `dialects/`.
pub const TABLE_SOURCE: &str = include_str!("../../dialects/ascend.ops.toml");

/// How many values an operand or result group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly one value.
    Single,
    /// Zero or one value.
    Optional,
    /// Any number of values, all of the same type (IRDL binds one constraint per group).
    Variadic,
    /// Any number of values of possibly different types: `n` optional slots, each with its
    /// own IRDL constraint, then a homogeneous variadic overflow group.
    Slots(usize),
}

/// One named operand or result group of an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    pub arity: Arity,
}

impl Group {
    /// Parses the table's group notation: `x`, `x?`, `x*` or `x[32]`.
    fn parse(spec: &str) -> Result<Self, String> {
        let (name, arity) = if let Some(name) = spec.strip_suffix('?') {
            (name, Arity::Optional)
        } else if let Some(name) = spec.strip_suffix('*') {
            (name, Arity::Variadic)
        } else if let Some(open) = spec.find('[') {
            let count = spec[open + 1..]
                .strip_suffix(']')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("bad slot count in group `{spec}`"))?;
            (&spec[..open], Arity::Slots(count))
        } else {
            (spec, Arity::Single)
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!("bad group name in `{spec}`"));
        }
        Ok(Group {
            name: name.to_string(),
            arity,
        })
    }
}

/// One primitive IRDL group after slots are expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrdlGroup {
    pub name: String,
    /// `Single`, `Optional` or `Variadic` only.
    pub arity: Arity,
}

/// Expands slot groups into their optional slots plus the variadic overflow group.
pub fn expand_groups(groups: &[Group]) -> Vec<IrdlGroup> {
    let mut out = Vec::new();
    for group in groups {
        match group.arity {
            Arity::Slots(n) => {
                for i in 0..n {
                    out.push(IrdlGroup {
                        name: format!("{}{}", group.name, i),
                        arity: Arity::Optional,
                    });
                }
                out.push(IrdlGroup {
                    name: format!("{}_rest", group.name),
                    arity: Arity::Variadic,
                });
            }
            arity => out.push(IrdlGroup {
                name: group.name.clone(),
                arity,
            }),
        }
    }
    out
}

/// Why a list of values does not fit an op's groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArityError {
    TooFew {
        expected_at_least: usize,
        got: usize,
    },
    TooMany {
        expected_at_most: usize,
        got: usize,
    },
    /// Values that land in one homogeneous variadic group have different types.
    MixedTypes {
        group: String,
        first: usize,
        other: usize,
    },
}

impl fmt::Display for ArityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArityError::TooFew {
                expected_at_least,
                got,
            } => write!(f, "expects at least {expected_at_least}, got {got}"),
            ArityError::TooMany {
                expected_at_most,
                got,
            } => write!(f, "expects at most {expected_at_most}, got {got}"),
            ArityError::MixedTypes {
                group,
                first,
                other,
            } => write!(
                f,
                "values #{first} and #{other} fall into the variadic group `{group}` and must \
                 have the same type (IRDL binds one type per variadic group)"
            ),
        }
    }
}

/// Distributes `types.len()` values over `groups` in order: singles take one, optionals one
/// while values remain, a variadic group takes the rest. Returns one size per group.
fn distribute<T: PartialEq>(groups: &[IrdlGroup], types: &[T]) -> Result<Vec<i32>, ArityError> {
    let n = types.len();
    let singles = groups.iter().filter(|g| g.arity == Arity::Single).count();
    if n < singles {
        return Err(ArityError::TooFew {
            expected_at_least: singles,
            got: n,
        });
    }
    let mut spare = n - singles;
    let mut sizes = Vec::with_capacity(groups.len());
    let mut next = 0usize;
    for group in groups {
        let size = match group.arity {
            Arity::Single => 1,
            Arity::Optional => usize::from(spare > 0),
            Arity::Variadic => spare,
            Arity::Slots(_) => unreachable!("slots are expanded before distribution"),
        };
        if group.arity != Arity::Single {
            spare -= size;
        }
        if group.arity == Arity::Variadic && size > 1 {
            if let Some(offset) = (next + 1..next + size).find(|&i| types[i] != types[next]) {
                return Err(ArityError::MixedTypes {
                    group: group.name.clone(),
                    first: next,
                    other: offset,
                });
            }
        }
        next += size;
        sizes.push(size as i32);
    }
    if spare > 0 {
        return Err(ArityError::TooMany {
            expected_at_most: n - spare,
            got: n,
        });
    }
    Ok(sizes)
}

/// Whether MLIR needs a segment-size attribute for these primitive groups.
fn needs_segments(groups: &[IrdlGroup]) -> bool {
    groups.iter().filter(|g| g.arity != Arity::Single).count() > 1
}

/// One op of the dialect.
#[derive(Clone, Debug)]
pub struct OpDef {
    /// MLIR mnemonic, e.g. `hcom_all_reduce` for `ascend.hcom_all_reduce`.
    pub mnemonic: String,
    /// GE's type name, e.g. `HcomAllReduce`.
    pub ge_type: String,
    /// GE engine that runs it (`AIcoreEngine`, `DNN_HCCL`, ...).
    pub engine: String,
    pub inputs: Vec<Group>,
    pub outputs: Vec<Group>,
    /// The semantics row as written in the table (flags the passes query).
    pub row: OpRow,
}

impl OpDef {
    /// The full MLIR op name.
    pub fn op_name(&self) -> String {
        format!("ascend.{}", self.mnemonic)
    }

    /// Primitive operand groups as IRDL declares them, with the trailing `ctrl_in`.
    pub fn irdl_operands(&self) -> Vec<IrdlGroup> {
        let mut groups = expand_groups(&self.inputs);
        groups.push(IrdlGroup {
            name: "ctrl_in".into(),
            arity: Arity::Variadic,
        });
        groups
    }

    /// Primitive result groups as IRDL declares them, with the trailing `ctrl`.
    pub fn irdl_results(&self) -> Vec<IrdlGroup> {
        let mut groups = expand_groups(&self.outputs);
        groups.push(IrdlGroup {
            name: "ctrl".into(),
            arity: Arity::Single,
        });
        groups
    }

    /// The `operandSegmentSizes` for `data` data operands (their types, compared for the
    /// homogeneous groups) and `ctrl` control operands; `None` when the op needs none.
    pub fn operand_segments<T: PartialEq>(
        &self,
        data: &[T],
        ctrl: usize,
    ) -> Result<Option<Vec<i32>>, ArityError> {
        let data_groups = expand_groups(&self.inputs);
        let mut sizes = distribute(&data_groups, data)?;
        sizes.push(ctrl as i32);
        Ok(needs_segments(&self.irdl_operands()).then_some(sizes))
    }

    /// The `resultSegmentSizes` for data results of these types; `None` when not needed.
    pub fn result_segments<T: PartialEq>(
        &self,
        data: &[T],
    ) -> Result<Option<Vec<i32>>, ArityError> {
        let data_groups = expand_groups(&self.outputs);
        let mut sizes = distribute(&data_groups, data)?;
        sizes.push(1);
        Ok(needs_segments(&self.irdl_results()).then_some(sizes))
    }
}

/// A row of `dialects/ascend.ops.toml` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpRow {
    pub mnemonic: String,
    pub ge_type: String,
    pub engine: String,
    #[serde(default)]
    pub inputs: Vec<String>,
    #[serde(default)]
    pub outputs: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    op: Vec<OpRow>,
}

/// All ops of the dialect, indexed by MLIR name and by GE type.
pub struct OpTable {
    ops: Vec<OpDef>,
    by_op_name: HashMap<String, usize>,
    by_ge_type: HashMap<String, usize>,
}

impl OpTable {
    /// Parses a table; errors name the offending row.
    pub fn parse(source: &str) -> Result<Self, String> {
        let file: TableFile = toml::from_str(source).map_err(|e| e.to_string())?;
        let mut table = OpTable {
            ops: Vec::with_capacity(file.op.len()),
            by_op_name: HashMap::new(),
            by_ge_type: HashMap::new(),
        };
        for row in file.op {
            let parse_groups = |specs: &[String]| -> Result<Vec<Group>, String> {
                specs
                    .iter()
                    .map(|s| Group::parse(s).map_err(|e| format!("op `{}`: {e}", row.ge_type)))
                    .collect()
            };
            let def = OpDef {
                mnemonic: row.mnemonic.clone(),
                ge_type: row.ge_type.clone(),
                engine: row.engine.clone(),
                inputs: parse_groups(&row.inputs)?,
                outputs: parse_groups(&row.outputs)?,
                row,
            };
            let index = table.ops.len();
            if table.by_op_name.insert(def.op_name(), index).is_some() {
                return Err(format!("duplicate op `{}`", def.op_name()));
            }
            if table
                .by_ge_type
                .insert(def.ge_type.clone(), index)
                .is_some()
            {
                return Err(format!("duplicate GE type `{}`", def.ge_type));
            }
            table.ops.push(def);
        }
        Ok(table)
    }

    pub fn ops(&self) -> &[OpDef] {
        &self.ops
    }

    /// Looks an op up by its full MLIR name (`ascend.add`).
    pub fn by_op_name(&self, name: &str) -> Option<&OpDef> {
        self.by_op_name.get(name).map(|&i| &self.ops[i])
    }

    /// Looks an op up by GE type name (`Add`).
    pub fn by_ge_type(&self, ge_type: &str) -> Option<&OpDef> {
        self.by_ge_type.get(ge_type).map(|&i| &self.ops[i])
    }
}

/// The shipped op table, parsed once.
pub fn op_table() -> &'static OpTable {
    static TABLE: OnceLock<OpTable> = OnceLock::new();
    TABLE.get_or_init(|| OpTable::parse(TABLE_SOURCE).expect("shipped op table must parse"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(inputs: &[&str], outputs: &[&str]) -> OpDef {
        let row = OpRow {
            mnemonic: "t".into(),
            ge_type: "T".into(),
            engine: "AIcoreEngine".into(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
        };
        OpDef {
            mnemonic: row.mnemonic.clone(),
            ge_type: row.ge_type.clone(),
            engine: row.engine.clone(),
            inputs: row
                .inputs
                .iter()
                .map(|s| Group::parse(s).unwrap())
                .collect(),
            outputs: row
                .outputs
                .iter()
                .map(|s| Group::parse(s).unwrap())
                .collect(),
            row,
        }
    }

    #[test]
    fn fixed_inputs_need_no_segments() {
        let add = op(&["x1", "x2"], &["y"]);
        assert_eq!(add.operand_segments(&["a", "a"], 3), Ok(None));
        assert_eq!(
            add.operand_segments(&["a"], 0),
            Err(ArityError::TooFew {
                expected_at_least: 2,
                got: 1
            })
        );
        assert_eq!(
            add.operand_segments(&["a", "a", "a"], 0),
            Err(ArityError::TooMany {
                expected_at_most: 2,
                got: 3
            })
        );
        assert_eq!(add.result_segments(&["a"]), Ok(None));
    }

    #[test]
    fn variadic_inputs_need_segments_beside_ctrl() {
        let add_n = op(&["x*"], &["y"]);
        assert_eq!(
            add_n.operand_segments(&["a", "a", "a"], 1),
            Ok(Some(vec![3, 1]))
        );
        assert!(matches!(
            add_n.operand_segments(&["a", "b"], 0),
            Err(ArityError::MixedTypes { .. })
        ));
    }

    #[test]
    fn slots_take_heterogeneous_values_then_overflow() {
        let if_op = op(&["cond", "input[2]"], &["output[2]"]);
        assert_eq!(
            if_op.operand_segments(&["c", "a", "b"], 0),
            Ok(Some(vec![1, 1, 1, 0, 0]))
        );
        assert_eq!(
            if_op.operand_segments(&["c", "a", "b", "d", "d"], 2),
            Ok(Some(vec![1, 1, 1, 2, 2]))
        );
        assert!(if_op
            .operand_segments(&["c", "a", "b", "d", "e"], 0)
            .is_err());
        assert_eq!(if_op.result_segments(&["a"]), Ok(Some(vec![1, 0, 0, 1])));
    }

    #[test]
    fn group_notation_is_validated() {
        assert_eq!(Group::parse("x[4]").unwrap().arity, Arity::Slots(4));
        assert!(Group::parse("x[0]").is_err());
        assert!(Group::parse("").is_err());
        assert!(Group::parse("a-b").is_err());
    }

    #[test]
    fn shipped_table_parses() {
        assert!(op_table().by_ge_type("Add").is_some());
        assert_eq!(op_table().by_op_name("ascend.add").unwrap().ge_type, "Add");
    }
}
