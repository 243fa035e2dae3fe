//! GE's SetInputOutputOffsetPass (spec 3.1.8): zero-copy offsets for nodes wired to the
//! model's inputs and outputs.
//!
//! The runtime patches the addresses of user inputs and outputs into the tasks that touch
//! them (zero copy). When such a task reads or writes at an offset that differs from the
//! tensor it is connected to (a fused input, a continuous HCCL buffer, a concatenation that
//! writes straight into an output), the runtime needs both: `_zero_copy_basic_offset` (the
//! planned offset of the tensor) and `_zero_copy_relative_offset` (how far the task's
//! address is from it). GE appends one pair per connection to lists on the Data (inputs)
//! or on the node the output goes to (outputs).
//!
//! The nodes concerned carry `_is_connected_to_data` (indices of their inputs fed by a Data)
//! or `_is_connected_to_netoutput` (indices of their outputs going to NetOutput). Only the
//! root graph's own nodes are visited (GE `GetDirectNode`). The four cases, in GE's order:
//! * **fusion input** (`_input_memory_type` present): for every input `i` whose memory type
//!   is not L1, the producer of input `i` gets (its output offset, the node's input offset `i`
//!   minus it);
//! * **HCOM input** (`continuous_input`): for every connected index `k`, the `k`-th input
//!   *node* (GE `GetInDataNodes().at(k)`: the producers of the connected inputs, in order), if
//!   it is a `Data` whose output offset differs from the node's input offset `k`, gets the
//!   pair;
//! * **Concat output** (`_no_task` with `continuous_input`, or every input node carrying
//!   `_output_offset_for_buffer_fusion`): the node's single output offset is the base; the
//!   first node its outputs feed (GE `GetOutDataNodes().at(0)`, normally NetOutput) gets one
//!   pair per connected input (the producer's output offset minus the base);
//! * **HCOM output** (`continuous_output`): the output `c` = first connected index is the
//!   base; the `c`-th output node gets one pair per consumer of any output, except NetOutput
//!   inputs fed by outputs other than `c` (the consumer's input offset minus the base).
//!
//! Deviation: a pair whose offsets include `-1` (memory outside the workspace, e.g. a user
//! input `--mem-assign` left in user memory) is skipped and reported: there is no workspace
//! address to be relative to, the runtime addresses such memory directly.

use super::model::{MemError, MemGraph, NodeId, ROOT};

/// GE `RT_MEMORY_L1`: inputs in L1 need no zero-copy offset.
pub const RT_MEMORY_L1: i64 = 1 << 16;

/// The attributes of one node that the pass reads (absent lists are empty).
#[derive(Clone, Debug, Default)]
pub struct IoAttrs {
    /// `_is_connected_to_data`.
    pub connect_input: Vec<i64>,
    /// `_is_connected_to_netoutput`.
    pub connect_output: Vec<i64>,
    /// `_input_memory_type`, as written (GE only asks whether it is present).
    pub input_mem_types: Vec<i64>,
    /// `_no_task` is true.
    pub no_task: bool,
    /// `_output_offset_for_buffer_fusion` is present.
    pub buffer_fusion_offsets: bool,
}

/// Which case added a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoRule {
    FusionInput,
    HcomInput,
    ConcatOutput,
    HcomOutput,
}

impl IoRule {
    pub fn as_str(self) -> &'static str {
        match self {
            IoRule::FusionInput => "fusion-input",
            IoRule::HcomInput => "hcom-input",
            IoRule::ConcatOutput => "concat-output",
            IoRule::HcomOutput => "hcom-output",
        }
    }
}

/// One (basic, relative) pair appended to `target`'s zero-copy lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZeroCopy {
    pub target: NodeId,
    pub basic: i64,
    pub relative: i64,
    pub rule: IoRule,
    /// The node whose connection produced the pair.
    pub from: NodeId,
    pub reason: String,
}

/// A pair left out because an offset is outside the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub from: NodeId,
    pub rule: IoRule,
    pub reason: String,
}

/// What the pass decided, in GE's order.
#[derive(Clone, Debug, Default)]
pub struct IoPlan {
    pub pairs: Vec<ZeroCopy>,
    pub skipped: Vec<Skipped>,
    pub nodes_visited: usize,
}

/// The offsets the pass reads (`output_offset` / `input_offset` per node).
pub trait Offsets {
    fn output(&self, n: NodeId) -> &[i64];
    fn input(&self, n: NodeId) -> &[i64];
}

/// Decides the zero-copy pairs of the root graph (see the module doc). `attrs(n)` gives a
/// node's attributes. Errors: an offset list without the entry a rule needs, a Concat
/// output node with other than one output offset, a connection index with no node.
pub fn plan_io_offsets(
    g: &MemGraph,
    offsets: &dyn Offsets,
    attrs: &dyn Fn(NodeId) -> IoAttrs,
) -> Result<IoPlan, MemError> {
    let mut plan = IoPlan::default();
    for &n in &g.graph(ROOT).order {
        let a = attrs(n);
        if a.connect_input.is_empty() && a.connect_output.is_empty() {
            continue;
        }
        plan.nodes_visited += 1;
        let mut ctx = Ctx {
            g,
            offsets,
            plan: &mut plan,
        };
        if !a.connect_input.is_empty() {
            if !a.input_mem_types.is_empty() {
                ctx.fusion_input(n, &a)?;
            }
            if g.node(n).sem.continuous_input {
                ctx.hcom_input(n, &a)?;
            }
        }
        if !a.connect_output.is_empty() {
            let s = g.node(n).sem;
            if a.no_task && (s.continuous_input || buffer_fusion(g, n, attrs)) {
                ctx.concat_output(n)?;
            }
            if s.continuous_output {
                ctx.hcom_output(n, &a)?;
            }
        }
    }
    Ok(plan)
}

/// GE `CheckBufferFusion`: every input node carries `_output_offset_for_buffer_fusion`
/// (vacuously true without inputs, as in GE).
fn buffer_fusion(g: &MemGraph, n: NodeId, attrs: &dyn Fn(NodeId) -> IoAttrs) -> bool {
    in_data_nodes(g, n)
        .iter()
        .all(|&p| attrs(p).buffer_fusion_offsets)
}

/// GE `GetInDataNodes`: the producers of the connected inputs, in input order.
fn in_data_nodes(g: &MemGraph, n: NodeId) -> Vec<NodeId> {
    g.node(n)
        .inputs
        .iter()
        .filter_map(|x| x.src.map(|s| s.node))
        .collect()
}

/// GE `GetOutDataNodes`: the consumers of every output, in output then edge order.
fn out_data_nodes(g: &MemGraph, n: NodeId) -> Vec<NodeId> {
    g.node(n)
        .outputs
        .iter()
        .flat_map(|o| o.consumers.iter().map(|c| c.node))
        .collect()
}

struct Ctx<'a> {
    g: &'a MemGraph,
    offsets: &'a dyn Offsets,
    plan: &'a mut IoPlan,
}

impl Ctx<'_> {
    fn entry(&self, n: NodeId, input: bool, k: usize) -> Result<i64, MemError> {
        let (list, what) = if input {
            (self.offsets.input(n), "input_offset")
        } else {
            (self.offsets.output(n), "output_offset")
        };
        list.get(k).copied().ok_or_else(|| {
            MemError::at(
                self.g,
                n,
                format!(
                    "{what} has {} entries, entry {k} is needed (run --mem-assign first)",
                    list.len()
                ),
            )
        })
    }

    fn name(&self, n: NodeId) -> &str {
        &self.g.node(n).name
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        target: NodeId,
        basic: i64,
        at: i64,
        rule: IoRule,
        from: NodeId,
        what: String,
    ) {
        if basic < 0 || at < 0 {
            self.plan.skipped.push(Skipped {
                from,
                rule,
                reason: format!(
                    "{what}: offset {} is outside the workspace, no zero-copy offset for `{}`",
                    if basic < 0 { basic } else { at },
                    self.name(target)
                ),
            });
            return;
        }
        let relative = at - basic;
        self.plan.pairs.push(ZeroCopy {
            target,
            basic,
            relative,
            rule,
            from,
            reason: format!(
                "{}: {what}: basic {basic}, relative {relative}",
                rule.as_str()
            ),
        });
    }

    fn fusion_input(&mut self, n: NodeId, a: &IoAttrs) -> Result<(), MemError> {
        for (i, &ty) in a.input_mem_types.iter().enumerate() {
            if ty == RT_MEMORY_L1 {
                continue;
            }
            let at = self.entry(n, true, i)?;
            let Some(src) = self.g.node(n).inputs.get(i).and_then(|x| x.src) else {
                continue;
            };
            let basic = self.entry(src.node, false, src.index as usize)?;
            let what = format!(
                "`{}` input {i} reads `{}` output {}",
                self.name(n),
                self.name(src.node),
                src.index
            );
            self.push(src.node, basic, at, IoRule::FusionInput, n, what);
        }
        Ok(())
    }

    fn hcom_input(&mut self, n: NodeId, a: &IoAttrs) -> Result<(), MemError> {
        let inputs = in_data_nodes(self.g, n);
        for &k in &a.connect_input {
            let k =
                usize::try_from(k).map_err(|_| self.bad_index(n, "_is_connected_to_data", k))?;
            let at = self.entry(n, true, k)?;
            let data = *inputs
                .get(k)
                .ok_or_else(|| self.bad_index(n, "_is_connected_to_data", k as i64))?;
            if self.g.node(data).ty != "Data" {
                continue;
            }
            let basic = self.entry(data, false, 0)?;
            if basic == at {
                continue;
            }
            let what = format!(
                "continuous input {k} of `{}` comes from `{}`",
                self.name(n),
                self.name(data)
            );
            self.push(data, basic, at, IoRule::HcomInput, n, what);
        }
        Ok(())
    }

    fn concat_output(&mut self, n: NodeId) -> Result<(), MemError> {
        let outs = self.offsets.output(n);
        if outs.len() != 1 {
            return Err(MemError::at(
                self.g,
                n,
                format!(
                    "a no-task concatenation feeding the output has {} output offsets, GE \
                     expects exactly 1",
                    outs.len()
                ),
            ));
        }
        let basic = outs[0];
        let target = *out_data_nodes(self.g, n)
            .first()
            .ok_or_else(|| MemError::at(self.g, n, "the node feeds no node"))?;
        for input in &self.g.node(n).inputs {
            let Some(src) = input.src else { continue };
            let at = self.entry(src.node, false, src.index as usize)?;
            let what = format!(
                "`{}` concatenates `{}` output {} into `{}`",
                self.name(n),
                self.name(src.node),
                src.index,
                self.name(target)
            );
            self.push(target, basic, at, IoRule::ConcatOutput, n, what);
        }
        Ok(())
    }

    fn hcom_output(&mut self, n: NodeId, a: &IoAttrs) -> Result<(), MemError> {
        let c = a.connect_output[0];
        let c =
            usize::try_from(c).map_err(|_| self.bad_index(n, "_is_connected_to_netoutput", c))?;
        let basic = self.entry(n, false, c)?;
        let target = *out_data_nodes(self.g, n)
            .get(c)
            .ok_or_else(|| self.bad_index(n, "_is_connected_to_netoutput", c as i64))?;
        let node = self.g.node(n);
        for (o, out) in node.outputs.iter().enumerate() {
            for consumer in &out.consumers {
                if self.g.node(consumer.node).sem.net_output && o != c {
                    continue;
                }
                let at = self.entry(consumer.node, true, consumer.index as usize)?;
                let what = format!(
                    "continuous output {o} of `{}` goes to `{}` input {}",
                    self.name(n),
                    self.name(consumer.node),
                    consumer.index
                );
                self.push(target, basic, at, IoRule::HcomOutput, n, what);
            }
        }
        Ok(())
    }

    fn bad_index(&self, n: NodeId, attr: &str, k: i64) -> MemError {
        MemError::at(
            self.g,
            n,
            format!("{attr} names index {k}, which has no connected node"),
        )
    }
}
