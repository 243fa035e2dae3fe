//! InplaceSupportCheckPass (spec 3.1.4, ge-behaviour-notes B.17): `--inplace-support-check`.
//!
//! Marks which input a single-output op may overwrite with its output (in-place reuse, later
//! decided by `ProcessInplace`, spec 3.4). For a node with exactly one output, the first
//! input (in input order) that passes every check gets `_inplace_support_input_index = i`
//! (GE puts it on the output-0 tensor desc; here it is an op attribute about output 0):
//! 1. the input is connected;
//! 2. its producer is not a source whose bytes must survive: Data-like, Const-like or
//!    Variable-like ([`Rejection::SourceProducer`]);
//! 3. the producer's output feeds exactly this one input ([`Rejection::SharedProducer`]);
//! 4. the input dtype equals the output dtype ([`Rejection::DtypeMismatch`]);
//! 5. the input dims equal the output dims, unknown dims compared as written
//!    ([`Rejection::ShapeMismatch`]).
//!
//! Every graph is visited (root and subgraphs, GE's pass runs on all of them). A node that
//! already carries the index it would get is left alone (so a second run plans nothing); a
//! different stale index is overwritten, as GE's `SetInt` would. Nodes with several outputs,
//! or whose inputs all fail, are not touched. Each rejected input is recorded as a plan note
//! (a remark with `remarks=true`).
//!
//! Choice: "Const-like" includes `ConstPlaceHolder` (GE's list here names only `Const` and
//! `Constant`): a placeholder's bytes are a constant's too.

use super::model::{InPort, MemError, MemGraph, NodeId, Origin, ROOT};
use super::plan::{Edit, IntAttr, Note, Plan, Rule};

/// Why an input cannot be reused in place.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rejection {
    /// The input has no producer.
    Unconnected,
    /// The producer is Data-, Const- or Variable-like.
    SourceProducer,
    /// The producer's output has other consumers (or none but this edge twice).
    SharedProducer,
    /// Input and output dtypes differ.
    DtypeMismatch,
    /// Input and output dims differ.
    ShapeMismatch,
}

impl Rejection {
    fn describe(self) -> &'static str {
        match self {
            Rejection::Unconnected => "it is not connected",
            Rejection::SourceProducer => "its producer is a Data/Const/Variable source",
            Rejection::SharedProducer => "its producer output has other consumers",
            Rejection::DtypeMismatch => "its dtype differs from the output's",
            Rejection::ShapeMismatch => "its shape differs from the output's",
        }
    }
}

/// The verdict on input `i` of single-output node `n`: `Ok(())` if output 0 may reuse it.
pub fn check_input(g: &MemGraph, n: NodeId, i: u32) -> Result<(), Rejection> {
    let Some(src) = g.src(n, i) else {
        return Err(Rejection::Unconnected);
    };
    let p = g.node(src.node).sem;
    if p.data_like || p.const_like || p.var_like {
        return Err(Rejection::SourceProducer);
    }
    if g.consumers(src.node, src.index).len() != 1 {
        return Err(Rejection::SharedProducer);
    }
    let input = g.in_tensor(InPort { node: n, index: i });
    let output = g.tensor(g.node(n).outputs[0].tensor);
    if input.dtype != output.dtype {
        return Err(Rejection::DtypeMismatch);
    }
    if input.dims != output.dims {
        return Err(Rejection::ShapeMismatch);
    }
    Ok(())
}

/// The input output 0 of `n` may reuse (`None`: not a single-output node, or no input
/// qualifies), with the rejections of the inputs tried before it.
pub fn inplace_candidate(g: &MemGraph, n: NodeId) -> (Option<u32>, Vec<(u32, Rejection)>) {
    let mut rejected = Vec::new();
    if g.node(n).outputs.len() != 1 {
        return (None, rejected);
    }
    for i in 0..g.node(n).inputs.len() as u32 {
        match check_input(g, n, i) {
            Ok(()) => return (Some(i), rejected),
            Err(Rejection::Unconnected) => {}
            Err(r) => rejected.push((i, r)),
        }
    }
    (None, rejected)
}

/// Plan `--inplace-support-check` on `g` (left in the planned state).
pub fn plan_inplace_support_check(g: &mut MemGraph) -> Result<Plan, MemError> {
    plan_inplace_support_check_with(g, true)
}

/// [`plan_inplace_support_check`]; the notes on rejected inputs and the steps' reasons (text
/// for remarks only: an attribute edit shows its reason nowhere else) are written only with
/// `notes`: a pass without remarks would format one per node and throw them away (at a
/// million ops, a fresh 150-byte string per candidate).
pub fn plan_inplace_support_check_with(g: &mut MemGraph, notes: bool) -> Result<Plan, MemError> {
    g.normalize();
    let mut plan = Plan::new(Origin::InplaceSupportCheck, g);
    // At most one step per node: room for all of them at once (untouched room costs no
    // memory; growing by doubling would write the steps twice over).
    plan.steps.reserve(g.nodes.len());
    let mut graphs = vec![ROOT];
    graphs.extend(g.all_subgraphs());
    for gid in graphs {
        for n in g.graph(gid).order.clone() {
            plan.stats.nodes_visited += 1;
            let (candidate, rejected) = inplace_candidate(g, n);
            for (i, r) in rejected.into_iter().filter(|_| notes) {
                plan.notes.push(Note {
                    node: n,
                    message: format!(
                        "input {i} of %{} cannot be reused in place: {}",
                        g.node(n).name,
                        r.describe()
                    ),
                });
            }
            let Some(i) = candidate else { continue };
            if g.node(n).outputs[0].inplace_input == Some(i) {
                continue;
            }
            let reason = if notes {
                format!(
                    "output 0 of %{} may reuse input {i} in place (single output, sole consumer \
                     of a non-source producer, same dtype and shape)",
                    g.node(n).name
                )
            } else {
                String::new()
            };
            plan.push(
                g,
                Edit::SetIntAttr {
                    node: n,
                    attr: IntAttr::InplaceSupportInputIndex,
                    value: i64::from(i),
                },
                Rule::InplaceSupport,
                reason,
            )?;
        }
    }
    Ok(plan)
}
