//! A [`TaskModel`] as `ascend_task` MLIR text: one `ascend_task.model` op with the counts
//! and sizes, one op per weight / variable / input / output, then one `func.func
//! @stream<N>` per stream whose body is its tasks in order, one op per line.
//!
//! Operands are arrays `[region, offset, size, type]` (a fifth element, the `aclFormat`,
//! only when it is not ND); regions are `"ws"`, `"weight"`, `"var"`, `"input:K"`,
//! `"output:K"`. `read.rs` inverts this exactly.

use super::{ir_read::tensor_type_text, ir_read::FORMAT_ND, model::*};
use std::fmt::Write;

/// The module text of `model`.
pub fn emit_model(model: &TaskModel) -> String {
    let mut out = String::with_capacity(1 << 16);
    out.push_str("module {\n");
    let _ = writeln!(
        out,
        "  \"ascend_task.model\"() {{name = {}, stream_num = {} : i64, event_num = {} : i64, \
         notify_num = {} : i64, label_num = {} : i64, memory_size = {} : i64, \
         weight_size = {} : i64, var_size = {} : i64}} : () -> ()",
        string(&model.name),
        model.stream_num,
        model.event_num,
        model.notify_num,
        model.label_num,
        model.memory_size,
        model.weight_size,
        model.var_size
    );
    for w in &model.weights {
        let _ = writeln!(
            out,
            "  \"ascend_task.weight\"() {{node = {}, offset = {} : i64, type = {}, bytes = {}}} \
             : () -> ()",
            string(&w.node),
            w.offset,
            desc_type(&w.desc),
            bytes_attr(&w.bytes, &w.desc)
        );
    }
    for v in &model.variables {
        let init = v
            .init
            .as_ref()
            .map(|b| format!(", init = {}", bytes_attr(b, &v.desc)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  \"ascend_task.variable\"() {{node = {}, offset = {} : i64, type = {}{init}}} \
             : () -> ()",
            string(&v.node),
            v.offset,
            desc_type(&v.desc)
        );
    }
    for i in &model.inputs {
        let _ = writeln!(
            out,
            "  \"ascend_task.input\"() {{index = {} : i64, node = {}, type = {}}} : () -> ()",
            i.index,
            string(&i.node),
            desc_type(&i.desc)
        );
    }
    for o in &model.outputs {
        let _ = writeln!(
            out,
            "  \"ascend_task.output\"() {{index = {} : i64, source = {}, addr = {}}} : () -> ()",
            o.index,
            string(&o.source),
            operand(&o.operand)
        );
    }
    for s in &model.streams {
        let _ = writeln!(
            out,
            "  func.func @stream{}() attributes {{stream_id = {} : i64, activated = {}}} {{",
            s.id, s.id, s.activated
        );
        for t in &s.tasks {
            out.push_str("    ");
            task(&mut out, t);
            out.push('\n');
        }
        out.push_str("    func.return\n  }\n");
    }
    out.push_str("}\n");
    out
}

fn task(out: &mut String, t: &Task) {
    let (op, attrs): (&str, String) = match t {
        Task::Kernel {
            op_type,
            node,
            attrs,
            inputs,
            outputs,
            placement,
        } => (
            "kernel",
            format!(
                "op_type = {}, node = {}, attrs = {}, ins = {}, outs = {}{}",
                string(op_type),
                string(node),
                kernel_attrs(attrs),
                operands(inputs),
                operands(outputs),
                match placement {
                    crate::lowering::model::Placement::Hbm => String::new(),
                    p => format!(", placement = \"{}\"", p.as_str()),
                }
            ),
        ),
        Task::EventRecord { node, event } => (
            "event_record",
            format!("node = {}, event = {event} : i64", string(node)),
        ),
        Task::EventWait { node, event } => (
            "event_wait",
            format!("node = {}, event = {event} : i64", string(node)),
        ),
        Task::EventReset { node, event } => (
            "event_reset",
            format!("node = {}, event = {event} : i64", string(node)),
        ),
        Task::NotifyRecord { node, notify } => (
            "notify_record",
            format!("node = {}, notify = {notify} : i64", string(node)),
        ),
        Task::NotifyWait { node, notify } => (
            "notify_wait",
            format!("node = {}, notify = {notify} : i64", string(node)),
        ),
        Task::MemcpyAsync { node, src, dst } => (
            "memcpy_async",
            format!(
                "node = {}, src = {}, dst = {}",
                string(node),
                operand(src),
                operand(dst)
            ),
        ),
        Task::Memset {
            node,
            dst,
            size,
            value,
        } => (
            "memset",
            format!(
                "node = {}, dst = [{}, {}, {size}], value = {value} : i64",
                string(node),
                region(dst.region),
                dst.offset
            ),
        ),
        Task::Hccl {
            node,
            collective,
            group,
            reduction,
            root_rank,
            inputs,
            outputs,
        } => (
            "hccl",
            format!(
                "node = {}, collective = {}, group = {}, reduction = {}, root_rank = {root_rank} \
                 : i64, ins = {}, outs = {}",
                string(node),
                string(collective_name(*collective)),
                string(group),
                string(reduction_name(*reduction)),
                operands(inputs),
                operands(outputs)
            ),
        ),
        Task::StreamActive { node, stream } => (
            "stream_active",
            format!("node = {}, stream = {stream} : i64", string(node)),
        ),
        Task::StreamSwitch {
            node,
            value,
            cond,
            target,
            true_stream,
        } => (
            "stream_switch",
            format!(
                "node = {}, value = {}, cond = {cond} : i64, target = {}, true_stream = \
                 {true_stream} : i64",
                string(node),
                operand(value),
                operand(target)
            ),
        ),
        Task::LabelSet { node, label } => (
            "label_set",
            format!("node = {}, label = {label} : i64", string(node)),
        ),
        Task::LabelGoto { node, label } => (
            "label_goto",
            format!("node = {}, label = {label} : i64", string(node)),
        ),
        Task::LabelSwitchByIndex {
            node,
            index,
            labels,
        } => (
            "label_switch_by_index",
            format!(
                "node = {}, index = {}, labels = array<i64{}>",
                string(node),
                operand(index),
                labels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| format!("{}{l}", if i == 0 { ": " } else { ", " }))
                    .collect::<String>()
            ),
        ),
        Task::ModelEndGraph => ("model_end_graph", String::new()),
    };
    if attrs.is_empty() {
        let _ = write!(out, "\"ascend_task.{op}\"() : () -> ()");
    } else {
        let _ = write!(out, "\"ascend_task.{op}\"() {{{attrs}}} : () -> ()");
    }
}

/// The task op names, as the reader and the IRDL know them.
pub const TASK_OPS: &[&str] = &[
    "kernel",
    "event_record",
    "event_wait",
    "event_reset",
    "notify_record",
    "notify_wait",
    "memcpy_async",
    "memset",
    "hccl",
    "stream_active",
    "stream_switch",
    "label_set",
    "label_goto",
    "label_switch_by_index",
    "model_end_graph",
];

pub fn collective_name(c: Collective) -> &'static str {
    match c {
        Collective::AllReduce => "all_reduce",
        Collective::Broadcast => "broadcast",
        Collective::AllGather => "all_gather",
        Collective::ReduceScatter => "reduce_scatter",
    }
}

pub fn reduction_name(r: Reduction) -> &'static str {
    match r {
        Reduction::Sum => "sum",
        Reduction::Prod => "prod",
        Reduction::Max => "max",
        Reduction::Min => "min",
    }
}

/// The region's spelling in an operand array.
pub fn region_name(r: Region) -> String {
    match r {
        Region::Workspace => "ws".into(),
        Region::Weight => "weight".into(),
        Region::Variable => "var".into(),
        Region::Input(k) => format!("input:{k}"),
        Region::Output(k) => format!("output:{k}"),
    }
}

fn region(r: Region) -> String {
    string(&region_name(r))
}

fn desc_type(d: &TensorDesc) -> String {
    tensor_type_text(d)
}

fn operand(o: &Operand) -> String {
    let format = if o.desc.format == FORMAT_ND {
        String::new()
    } else {
        format!(", {}", o.desc.format)
    };
    format!(
        "[{}, {}, {}, {}{format}]",
        region(o.addr.region),
        o.addr.offset,
        o.size,
        desc_type(&o.desc)
    )
}

fn operands(list: &[Operand]) -> String {
    let items: Vec<String> = list.iter().map(operand).collect();
    format!("[{}]", items.join(", "))
}

/// A tensor's bytes as a dense attribute of the tensor's own type in MLIR's hex form (raw
/// little-endian bytes; exact): one element's bytes when every element is the same (MLIR
/// reads that as a splat, so a large constant fill stays one line of a few bytes), all of
/// them otherwise. Bools and empty tensors use an `i8` tensor of the bytes instead (MLIR
/// packs `i1` data in bits).
pub fn bytes_attr(bytes: &[u8], desc: &TensorDesc) -> String {
    let elem = desc.dtype.size();
    let hex = |b: &[u8]| {
        let mut s = String::with_capacity(b.len() * 2);
        for x in b {
            let _ = write!(s, "{x:02X}");
        }
        s
    };
    if desc.dtype == DType::Bool || bytes.is_empty() || bytes.len() as u64 != desc.bytes() {
        if bytes.is_empty() {
            return "dense<> : tensor<0xi8>".to_string();
        }
        return format!("dense<\"0x{}\"> : tensor<{}xi8>", hex(bytes), bytes.len());
    }
    let first = &bytes[..elem];
    // Every element equals the first iff the bytes equal themselves shifted by one
    // element: one memcmp (the generated graphs' weights are large constant fills).
    let splat = bytes[elem..] == bytes[..bytes.len() - elem];
    let body = if splat { hex(first) } else { hex(bytes) };
    format!("dense<\"0x{body}\"> : {}", tensor_type_text(desc))
}

fn kernel_attrs(attrs: &Attrs) -> String {
    let items: Vec<String> = attrs
        .0
        .iter()
        .map(|(name, value)| format!("{} = {}", attr_name(name), attr_value(value)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// A dictionary key: bare when MLIR's bare-identifier syntax allows it, else quoted.
fn attr_name(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.');
    if bare {
        name.to_string()
    } else {
        string(name)
    }
}

fn attr_value(v: &AttrValue) -> String {
    match v {
        AttrValue::Bool(b) => b.to_string(),
        AttrValue::Int(i) => format!("{i} : i64"),
        AttrValue::Float(f) => format!("{} : f32", float(*f)),
        AttrValue::String(s) => string(s),
        AttrValue::DataType(d) => d.mlir().to_string(),
        AttrValue::ListInt(list) => {
            let items: Vec<String> = list.iter().map(i64::to_string).collect();
            if items.is_empty() {
                "array<i64>".into()
            } else {
                format!("array<i64: {}>", items.join(", "))
            }
        }
        AttrValue::ListFloat(list) => {
            let items: Vec<String> = list.iter().map(|f| float(*f)).collect();
            format!("dense<[{}]> : tensor<{}xf32>", items.join(", "), list.len())
        }
        AttrValue::ListBool(list) => {
            let items: Vec<String> = list.iter().map(bool::to_string).collect();
            format!("dense<[{}]> : tensor<{}xi1>", items.join(", "), list.len())
        }
        AttrValue::ListString(list) => {
            let items: Vec<String> = list.iter().map(|s| string(s)).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// An `f32` literal MLIR reads back to the same bits: the shortest decimal when it has
/// one MLIR accepts, else the bit pattern in hex.
pub fn float(f: f32) -> String {
    if f.is_finite() {
        let mut s = format!("{f:?}");
        if let Some(e) = s.find('e') {
            if !s[..e].contains('.') {
                s.insert_str(e, ".0");
            }
        }
        if s.parse::<f32>().ok().map(f32::to_bits) == Some(f.to_bits()) {
            return s;
        }
    }
    format!("0x{:08X}", f.to_bits())
}

/// An MLIR string literal.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_exact_decimal_or_hex() {
        assert_eq!(float(0.01), "0.01");
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(1e-5), "1.0e-5");
        assert_eq!(float(f32::NAN), format!("0x{:08X}", f32::NAN.to_bits()));
        assert_eq!(float(f32::INFINITY), "0x7F800000");
    }

    #[test]
    fn strings_escape_quotes_and_bytes() {
        assert_eq!(string("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(string("é"), "\"\\C3\\A9\"");
    }
}
