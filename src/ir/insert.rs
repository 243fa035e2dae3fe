//! GE-faithful node insertion and removal, usable inside a pattern callback or outside.
//!
//! These reproduce `GraphUtils::InsertNodeBefore`, `InsertNodeAfter` and
//! `IsolateNode(node, {0})` + `RemoveNode` (metadef `graph_utils.cc`), including the way they
//! move control edges (ge-behaviour-notes F.8, B.9–B.12). GE unit tests observe those moves.
//!
//! Placement: GE adds new nodes right after the producer in its node list. In SSA a new op
//! must also come after every op whose result it reads, so it goes right after the latest
//! of its operands' producers (usually the producer itself) — program order stays a
//! topological order.

use super::{
    error::IrError,
    ops::{
        build_op, ctrl_operands, ctrl_result, ctrl_successors, data_operands, data_results,
        display_name, has_ctrl_edge, node_name, num_data_operands, op_def, producer, set_operands,
        uses, OpKey, Use, NAME_ATTR,
    },
    prim,
    rewriter::Rewriter,
};
use crate::dialect::{semantics, Trait};
use melior::ir::{operation::OperationLike, Attribute, OperationRef, Value, ValueLike};
use std::collections::{HashMap, HashSet};

/// `IsolateNode` routes control through one NoOp when in × out exceeds this
/// (`kNoOpOptimizeThreshold`).
const NOOP_THRESHOLD: usize = 1000;

/// Whether the op table gives `op` the trait: control edges from atomic-clean ops stay on
/// the consumer in `InsertNodeBefore` (`NodeUtils::IsLikeAtomicClean`), and
/// `InsertNodeAfter` leaves a control switch's out-control edges in place.
fn has_trait(op: OperationRef, t: Trait) -> bool {
    semantics::has_trait(&op, t)
}

/// The latest op, in `block_of`'s block, among the producers of `values`.
fn latest_producer<'c, 'a>(
    block_of: OperationRef<'c, 'a>,
    values: &[Value<'c, 'a>],
) -> Option<OperationRef<'c, 'a>> {
    let mut latest: Option<OperationRef> = None;
    for value in values {
        let Some(op) = producer(*value).op() else {
            continue;
        };
        if prim::is_before_in_block(op, block_of).is_none() {
            continue; // another block (or the op itself): not a placement constraint here
        }
        if latest.is_none_or(|l| prim::is_before_in_block(l, op) == Some(true)) {
            latest = Some(op);
        }
    }
    latest
}

/// GE's `InsertNodeBefore(consumer:input)`: a new `new_op` node reads the value `consumer`
/// read at data input `input`, and `consumer` reads the new node's output 0 instead.
/// The consumer's in-control edges move onto the new node, except those from
/// AtomicAddrClean / MemSet nodes. Returns the new op.
pub fn insert_before_input<'c, 'a>(
    rw: &Rewriter<'c, '_>,
    consumer: OperationRef<'c, 'a>,
    input: usize,
    new_op: &str,
    attrs: &[(&str, Attribute<'c>)],
) -> Result<OperationRef<'c, 'a>, IrError> {
    // Read the one data operand and the control operands only: a NetOutput can take tens
    // of thousands of inputs, and copying all of them per inserted node was quadratic.
    let data_count = num_data_operands(consumer);
    let value = (input < data_count)
        .then(|| consumer.operand(input).ok())
        .flatten()
        .ok_or_else(|| IrError::NoSuchPort {
            node: display_name(consumer),
            what: "data input",
            index: input,
        })?;
    let (kept, moved): (Vec<Value>, Vec<Value>) = (data_count..consumer.operand_count())
        .filter_map(|i| consumer.operand(i).ok())
        .partition(|v| {
            producer(*v)
                .op()
                .is_some_and(|p| has_trait(p, Trait::AtomicClean))
        });
    let op = build_op(
        consumer.location(),
        new_op,
        &[value],
        &moved,
        &[value.r#type()],
        attrs,
    )?;

    let mut operands = moved.clone();
    operands.push(value);
    let block = consumer.block().ok_or_else(|| {
        IrError::Structure(format!("`{}` is not in a block", display_name(consumer)))
    })?;
    let inserted = match latest_producer(consumer, &operands) {
        Some(anchor) => rw.insert_after(anchor, op),
        None => rw.insert_at_start(block, op),
    };
    let output: Value = inserted
        .result(0)
        .map_err(|_| IrError::Build(new_op.to_string()))?
        .into();
    let rewired = if moved.is_empty() {
        // Same operand list but one value of the same type: segments stay as they are.
        rw.set_operand(consumer, input, output)
    } else {
        let mut data = data_operands(consumer);
        data[input] = output;
        set_operands(rw, consumer, &data, &kept)
    };
    if let Err(error) = rewired {
        rw.erase(inserted)?;
        return Err(error);
    }
    Ok(inserted)
}

/// GE's `InsertNodeAfter(producer:output, consumers)`: a new `new_op` node reads data output
/// `output` of `producer`; each listed consumer use (from [`data_uses`](super::ops::data_uses),
/// possibly filtered) reads the new node's output 0 instead. When at least one consumer is
/// rewired, the producer's out-control edges move onto the new node (not for
/// Switch / RefSwitch / SwitchN producers). Returns the new op, placed right after `producer`.
pub fn insert_after_output<'c, 'a>(
    rw: &Rewriter<'c, '_>,
    producer_op: OperationRef<'c, 'a>,
    output: usize,
    new_op: &str,
    attrs: &[(&str, Attribute<'c>)],
    consumers: &[Use<'c, 'a>],
) -> Result<OperationRef<'c, 'a>, IrError> {
    let value = *data_results(producer_op)
        .get(output)
        .ok_or_else(|| IrError::NoSuchPort {
            node: display_name(producer_op),
            what: "data output",
            index: output,
        })?;
    for u in consumers {
        let reads = u.owner.operand(u.operand).is_ok_and(|v| v == value);
        if !reads || u.operand >= num_data_operands(u.owner) {
            return Err(IrError::StaleUse {
                node: display_name(u.owner),
                operand: u.operand,
            });
        }
    }
    let op = build_op(
        producer_op.location(),
        new_op,
        &[value],
        &[],
        &[value.r#type()],
        attrs,
    )?;
    let inserted = rw.insert_after(producer_op, op);
    let out: Value = inserted
        .result(0)
        .map_err(|_| IrError::Build(new_op.to_string()))?
        .into();
    for u in consumers {
        rw.set_operand(u.owner, u.operand, out)?;
    }
    let moves_ctrl = !consumers.is_empty() && !has_trait(producer_op, Trait::ControlSwitch);
    if let (true, Some(old), Some(new)) =
        (moves_ctrl, ctrl_result(producer_op), ctrl_result(inserted))
    {
        for successor in ctrl_successors(producer_op) {
            let mut ctrl: Vec<Value> = ctrl_operands(successor)
                .into_iter()
                .filter(|v| *v != old)
                .collect();
            if !ctrl.contains(&new) {
                ctrl.push(new);
            }
            set_operands(rw, successor, &data_operands(successor), &ctrl)?;
        }
    }
    Ok(inserted)
}

/// GE's `IsolateNode(node, {0})` followed by `RemoveNode`: consumers of data output 0 read
/// the value of data input 0 instead; then every predecessor of `node` (data or control)
/// gets a control edge to every successor (data or control), except pairs now joined by
/// the relinked data edge, pairs already joined by a control edge, and self-loops. So the
/// in-control edges of `node` become in-control edges of each consumer and its out-control
/// edges become out-control edges of the producer. Predecessors are taken in name order
/// (GE's `NodeCompareKey` map), successors in edge order; new control operands are
/// appended. Above 1000 (predecessor, successor) pairs GE routes them through one NoOp
/// named `<node>_noop`; so does this.
///
/// Not representable, hence skipped: control edges from function arguments or into
/// `func.return` (NetOutput carries no control operands in this IR).
pub fn bypass_and_erase<'c>(
    rw: &Rewriter<'c, '_>,
    node: OperationRef<'c, '_>,
) -> Result<(), IrError> {
    let name = display_name(node);
    let cannot = |reason: String| IrError::CannotBypass {
        node: name.clone(),
        reason,
    };
    let outputs = data_results(node);
    for (k, out) in outputs.iter().enumerate().skip(1) {
        if !uses(*out).is_empty() {
            return Err(cannot(format!("data output {k} has consumers")));
        }
    }
    let relinked: Vec<Use> = outputs.first().map(|o| uses(*o)).unwrap_or_default();
    let through = data_operands(node).first().copied();
    if !relinked.is_empty() && through.is_none() {
        return Err(cannot(
            "output 0 has consumers but there is no input 0".into(),
        ));
    }
    let through_producer = through.and_then(|v| producer(v).op());

    // GE's in_nodes / out_nodes: every neighbour once, data edges first.
    let mut seen = HashSet::new();
    let mut in_nodes: Vec<OperationRef> = node
        .operands()
        .filter_map(|v| producer(v).op())
        .filter(|p| seen.insert(OpKey::of(*p)))
        .collect();
    in_nodes.sort_by(|a, b| node_name(*a).unwrap_or("").cmp(node_name(*b).unwrap_or("")));
    let mut seen = HashSet::new();
    let out_nodes: Vec<OperationRef> = outputs
        .iter()
        .flat_map(|o| uses(*o))
        .map(|u| u.owner)
        .chain(ctrl_successors(node))
        .filter(|s| seen.insert(OpKey::of(*s)))
        .collect();
    // Data edges the relink creates, with multiplicity (GE counts edges, not nodes).
    let mut relinked_to: HashMap<OpKey, usize> = HashMap::new();
    for u in &relinked {
        *relinked_to.entry(OpKey::of(u.owner)).or_default() += 1;
    }
    let is_relinked_pair = |from: OperationRef, to: OperationRef| {
        through_producer == Some(from) && relinked_to.contains_key(&OpKey::of(to))
    };
    let can_carry = |from: OperationRef, to: OperationRef| {
        ctrl_result(from).is_some() && op_def(to).is_some() && from != to
    };

    // The control edges to add, per successor, in the order GE adds them.
    let mut added: HashMap<OpKey, Vec<Value>> = HashMap::new();
    let (n_in, n_out) = (in_nodes.len(), out_nodes.len());
    if n_in * n_out > NOOP_THRESHOLD && n_in * n_out > n_in + n_out {
        let noop_in: Vec<Value> = in_nodes
            .iter()
            .filter(|p| !(through_producer == Some(**p) && relinked.len() == n_out))
            .filter_map(|p| ctrl_result(*p))
            .collect();
        let noop_out: Vec<OperationRef> = out_nodes
            .iter()
            .copied()
            .filter(|s| relinked_to.get(&OpKey::of(*s)).copied().unwrap_or(0) != n_in)
            .filter(|s| op_def(*s).is_some())
            .collect();
        if !noop_in.is_empty() && !noop_out.is_empty() {
            let ctx = node.context();
            let attrs = [(NAME_ATTR, prim::string_attr(ctx, &format!("{name}_noop")))];
            let op = build_op(node.location(), "NoOp", &[], &noop_in, &[], &attrs)?;
            let inserted = rw.insert_before(node, op);
            let token = ctrl_result(inserted).ok_or_else(|| IrError::NoCtrl("NoOp".into()))?;
            for s in &noop_out {
                added.entry(OpKey::of(*s)).or_default().push(token);
            }
        }
    } else {
        for from in &in_nodes {
            for to in &out_nodes {
                if is_relinked_pair(*from, *to)
                    || !can_carry(*from, *to)
                    || has_ctrl_edge(*from, *to)
                {
                    continue;
                }
                let token = ctrl_result(*from).expect("can_carry checked the control result");
                let list = added.entry(OpKey::of(*to)).or_default();
                if !list.contains(&token) {
                    list.push(token);
                }
            }
        }
    }

    // Apply: relink data, rewrite each successor's control operands once, erase.
    if let Some(value) = through {
        for u in &relinked {
            rw.set_operand(u.owner, u.operand, value)?;
        }
    }
    let own_token = ctrl_result(node);
    for to in &out_nodes {
        let extra = added.remove(&OpKey::of(*to)).unwrap_or_default();
        let ctrl = ctrl_operands(*to);
        let had_own = own_token.is_some_and(|t| ctrl.contains(&t));
        if extra.is_empty() && !had_own {
            continue;
        }
        let mut new_ctrl: Vec<Value> = ctrl.into_iter().filter(|v| Some(*v) != own_token).collect();
        new_ctrl.extend(extra);
        set_operands(rw, *to, &data_operands(*to), &new_ctrl)?;
    }
    rw.erase(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        dialect::new_context,
        ir::{
            ops::data_uses,
            pattern::{walk_and_apply, OpPattern, PatternSet},
            rewriter::IrRewriter,
            test_util::{func, op, parse, summary},
        },
    };
    use melior::{
        ir::{Location, Module},
        Context,
    };

    const T: &str = "tensor<4xf32>";

    fn name_attr<'c>(context: &'c Context, name: &str) -> [(&'static str, Attribute<'c>); 1] {
        [(
            NAME_ATTR,
            prim::string_attr(Location::unknown(context).context(), name),
        )]
    }

    fn check(module: &Module, expected: &str) {
        assert!(module.as_operation().verify(), "{}", module.as_operation());
        let got = summary(func(module, "main"));
        assert_eq!(got, expected.trim(), "\n{got}");
    }

    /// `lines` become the body of `@main(%arg0: T) -> T`.
    fn main_with(lines: &[String], ret: &str) -> String {
        format!(
            "func.func @main(%arg0: {T}) -> {T} {{\n{}\n  return {ret} : {T}\n}}",
            lines.join("\n")
        )
    }

    fn data(name: &str) -> String {
        format!(
            r#"  %{name}:2 = "ascend.data"(%arg0) {{name = "{name}"}} : ({T}) -> ({T}, !ascend.ctrl)"#
        )
    }

    fn konst(name: &str) -> String {
        format!(
            r#"  %{name}:2 = "ascend.const"() {{name = "{name}", value = dense<0.0> : {T}}} : () -> ({T}, !ascend.ctrl)"#
        )
    }

    fn ctrl_op(kind: &str, name: &str, ctrl: &[&str]) -> String {
        let operands: Vec<String> = ctrl.iter().map(|c| format!("%{c}")).collect();
        let types = vec!["!ascend.ctrl"; ctrl.len()].join(", ");
        format!(
            r#"  %{name} = "ascend.{kind}"({}) {{name = "{name}"}} : ({types}) -> !ascend.ctrl"#,
            operands.join(", ")
        )
    }

    /// `%name:2 = ascend.<kind>(data..., ctrl...)` with one tensor result.
    fn node(kind: &str, name: &str, data: &[&str], ctrl: &[&str]) -> String {
        let mut operands: Vec<String> = data.iter().map(|d| format!("%{d}")).collect();
        operands.extend(ctrl.iter().map(|c| format!("%{c}")));
        let mut types = vec![T; data.len()];
        types.extend(vec!["!ascend.ctrl"; ctrl.len()]);
        format!(
            r#"  %{name}:2 = "ascend.{kind}"({}) {{name = "{name}"}} : ({}) -> ({T}, !ascend.ctrl)"#,
            operands.join(", "),
            types.join(", ")
        )
    }

    fn base() -> String {
        main_with(
            &[
                data("x"),
                konst("w"),
                ctrl_op("atomic_addr_clean", "clean", &[]),
                ctrl_op("no_op", "n", &[]),
                node("add", "a", &["x#0", "w#0"], &["clean", "w#1", "n"]),
                node("add", "b", &["a#0", "a#0"], &["a#1"]),
                node("identity", "c", &["a#0"], &["a#1"]),
            ],
            "%b#0",
        )
    }

    #[test]
    fn insert_before_input_moves_the_consumers_in_control_edges() {
        let context = new_context();
        let module = parse(&context, &base());
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let a = op(&module, "a");
        let new =
            insert_before_input(&rw, a, 1, "Identity", &name_attr(&context, "ident")).unwrap();
        assert_eq!(node_name(new), Some("ident"));
        check(
            &module,
            "
x = data(%arg0)
w = const()
clean = atomic_addr_clean()
n = no_op()
ident = identity(w) ^w ^n
a = add(x, ident) ^clean
b = add(a, a) ^a
c = identity(a) ^a
return(b)",
        );
        assert!(matches!(
            insert_before_input(&rw, a, 2, "Identity", &[]),
            Err(IrError::NoSuchPort { .. })
        ));
    }

    #[test]
    fn insert_before_input_of_an_argument_goes_first() {
        let context = new_context();
        let module = parse(&context, &base());
        let rewriter = IrRewriter::new(&context);
        let x = op(&module, "x");
        insert_before_input(
            &rewriter.rewriter(),
            x,
            0,
            "ascend.identity",
            &name_attr(&context, "i0"),
        )
        .unwrap();
        assert!(summary(func(&module, "main")).starts_with("i0 = identity(%arg0)\nx = data(i0)\n"));
    }

    #[test]
    fn insert_after_output_rewires_chosen_consumers_and_moves_out_control() {
        let context = new_context();
        let module = parse(&context, &base());
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let a = op(&module, "a");
        let chosen: Vec<Use> = data_uses(a, 0).unwrap().into_iter().skip(1).collect();
        assert_eq!(chosen.len(), 2); // b:1 and c:0
        insert_after_output(&rw, a, 0, "Identity", &name_attr(&context, "m"), &chosen).unwrap();
        check(
            &module,
            "
x = data(%arg0)
w = const()
clean = atomic_addr_clean()
n = no_op()
a = add(x, w) ^clean ^w ^n
m = identity(a)
b = add(a, m) ^m
c = identity(m) ^m
return(b)",
        );
    }

    #[test]
    fn insert_after_output_keeps_control_without_consumers_or_on_switch() {
        let context = new_context();
        let source = main_with(
            &[
                data("x"),
                konst("p"),
                r#"  %sw:3 = "ascend.switch"(%x#0, %p#0) {name = "sw"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)"#.to_string(),
                node("identity", "t", &["sw#1"], &["sw#2"]),
                node("identity", "f", &["sw#0"], &["x#1"]),
            ],
            "%t#0",
        );
        let module = parse(&context, &source);
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let sw = op(&module, "sw");
        let uses_t = data_uses(sw, 1).unwrap();
        insert_after_output(&rw, sw, 1, "Identity", &name_attr(&context, "m1"), &uses_t).unwrap();
        let x = op(&module, "x");
        insert_after_output(&rw, x, 0, "Identity", &name_attr(&context, "m0"), &[]).unwrap();
        check(
            &module,
            "
x = data(%arg0)
m0 = identity(x)
p = const()
sw = switch(x, p)
m1 = identity(sw#1)
t = identity(m1) ^sw
f = identity(sw) ^x
return(t)",
        );
        // A use that does not read the output is refused.
        let stale = Use {
            owner: op(&module, "f"),
            operand: 0,
        };
        assert!(matches!(
            insert_after_output(&rw, sw, 1, "Identity", &[], &[stale]),
            Err(IrError::StaleUse { .. })
        ));
    }

    #[test]
    fn netoutput_inputs_can_be_wrapped() {
        // GE's subgraph-NetOutput case: InsertNodeAfter(producer, {NetOutput input}).
        let context = new_context();
        let module = parse(&context, &base());
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let b = op(&module, "b");
        let to_return = data_uses(b, 0).unwrap();
        assert_eq!(to_return.len(), 1);
        insert_after_output(
            &rw,
            b,
            0,
            "Identity",
            &name_attr(&context, "out"),
            &to_return,
        )
        .unwrap();
        assert!(summary(func(&module, "main"))
            .ends_with("out = identity(b)\nc = identity(a) ^a\nreturn(out)"));
        let ret = to_return[0].owner;
        insert_before_input(&rw, ret, 0, "Identity", &name_attr(&context, "out2")).unwrap();
        assert!(summary(func(&module, "main"))
            .ends_with("out2 = identity(out)\nc = identity(a) ^a\nreturn(out2)"));
        assert!(module.as_operation().verify());
    }

    #[test]
    fn bypass_connects_every_predecessor_to_every_successor() {
        let context = new_context();
        let source = main_with(
            &[
                data("x"),
                konst("w"),
                konst("p"),
                node("identity", "i", &["x#0"], &["p#1"]),
                node("add", "d1", &["i#0", "w#0"], &[]),
                node("add", "d2", &["i#0", "i#0"], &["w#1"]),
                ctrl_op("no_op", "s", &["i#1"]),
            ],
            "%i#0",
        );
        let module = parse(&context, &source);
        let rewriter = IrRewriter::new(&context);
        bypass_and_erase(&rewriter.rewriter(), op(&module, "i")).unwrap();
        check(
            &module,
            "
x = data(%arg0)
w = const()
p = const()
d1 = add(x, w) ^p
d2 = add(x, x) ^w ^p
s = no_op() ^p ^x
return(x)",
        );
    }

    #[test]
    fn bypass_refuses_what_it_cannot_relink() {
        let context = new_context();
        let source = main_with(
            &[
                data("x"),
                konst("p"),
                r#"  %sw:3 = "ascend.switch"(%x#0, %p#0) {name = "sw"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)"#.to_string(),
                node("identity", "t", &["sw#1"], &[]),
            ],
            "%t#0",
        );
        let module = parse(&context, &source);
        let before = summary(func(&module, "main"));
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        assert!(matches!(
            bypass_and_erase(&rw, op(&module, "sw")),
            Err(IrError::CannotBypass { .. })
        ));
        // A const has no input to route its consumers to.
        assert!(matches!(
            bypass_and_erase(&rw, op(&module, "p")),
            Err(IrError::CannotBypass { .. })
        ));
        assert_eq!(summary(func(&module, "main")), before);
    }

    #[test]
    fn bypass_routes_many_pairs_through_a_noop() {
        let context = new_context();
        let mut lines = vec![data("x")];
        let preds: Vec<String> = (0..35).map(|k| format!("p{k}")).collect();
        for p in &preds {
            lines.push(ctrl_op("no_op", p, &[]));
        }
        let pred_refs: Vec<&str> = preds.iter().map(String::as_str).collect();
        lines.push(node("identity", "i", &["x#0"], &pred_refs));
        for k in 0..30 {
            lines.push(ctrl_op("no_op", &format!("s{k}"), &["i#1"]));
        }
        let module = parse(&context, &main_with(&lines, "%x#0"));
        let rewriter = IrRewriter::new(&context);
        // 36 predecessors (35 control + x) x 30 successors = 1080 pairs > 1000.
        bypass_and_erase(&rewriter.rewriter(), op(&module, "i")).unwrap();
        let text = summary(func(&module, "main"));
        let noop_line = text
            .lines()
            .find(|l| l.starts_with("i_noop = "))
            .expect("NoOp created");
        assert_eq!(noop_line.matches(" ^").count(), 36, "{noop_line}");
        assert!(
            noop_line.starts_with("i_noop = no_op() ^p0 ^p1 ^p10 "),
            "name order: {noop_line}"
        );
        assert!(noop_line.ends_with(" ^p9 ^x"), "{noop_line}");
        for k in 0..30 {
            let line = format!("s{k} = no_op() ^i_noop");
            assert!(text.lines().any(|l| l == line), "{line}");
        }
        assert!(module.as_operation().verify());
    }

    #[test]
    fn helpers_work_inside_a_walk_pattern() {
        let context = new_context();
        let module = parse(&context, &base());
        let counter = std::cell::Cell::new(0);
        let patterns = PatternSet::new(&context).add(OpPattern::new("ascend.add", 1, |add, rw| {
            counter.set(counter.get() + 1);
            let name = format!("{}_in0", node_name(add).unwrap());
            let attrs = [(NAME_ATTR, prim::string_attr(rw.context(), &name))];
            insert_before_input(rw, add, 0, "Identity", &attrs).is_ok()
        }));
        walk_and_apply(module.as_operation(), patterns);
        assert_eq!(counter.get(), 2);
        check(
            &module,
            "
x = data(%arg0)
w = const()
clean = atomic_addr_clean()
n = no_op()
a_in0 = identity(x) ^w ^n
a = add(a_in0, w) ^clean
b_in0 = identity(a) ^a
b = add(b_in0, a)
c = identity(a) ^a
return(b)",
        );
    }
}
