//! The graph families. Each is a function of (`units`, seed) that drives a [`Builder`];
//! `units` is the family's natural repetition count (layers, blocks, nodes), and
//! [`units_for`] picks it so the graph has about the requested number of ops.

use std::io;

use clap::ValueEnum;

use crate::builder::Builder;
use crate::ops::CONST;
use crate::sink::{Attr, CountSink, Sink, Val};
use crate::types::Ty;

mod control_flow;
mod resnet;
mod transformer;
mod wide_dag;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Family {
    /// Stacked transformer blocks: forward, backward, gradient all-reduce, momentum updates.
    Transformer,
    /// Conv2D/Relu/Add residual blocks over four stages, global ReduceSum, FC.
    Resnet,
    /// A random DAG of elementwise ops with fan-out and forward control edges.
    WideDag,
    /// If/While/PartitionedCall with small subgraph functions, Variables and Assign.
    ControlFlow,
}

impl Family {
    pub const ALL: [Family; 4] = [
        Family::Transformer,
        Family::Resnet,
        Family::WideDag,
        Family::ControlFlow,
    ];
}

/// How a family builds what it could build more than one way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Leave each weight update unordered with the backward reads of that weight (no
    /// control edges from the reads to the update). Real training graphs order them (the
    /// framework adds the control edges), and GraphLint warns (W18888) on every unordered
    /// pair; this form exists to exercise the lint and the schedulers on such races.
    pub unordered_updates: bool,
    /// Small tensor shapes (8x8 activations, 16x16 transformer blocks, a batch-1 32x32
    /// ResNet with 8 base channels): the same nodes, edges and op count, for runs whose
    /// point is the schedule and memory (the race soak), not the kernels' arithmetic.
    pub small_tensors: bool,
}

pub fn generate<S: Sink>(
    family: Family,
    units: u64,
    seed: u64,
    style: Style,
    b: &mut Builder<S>,
) -> io::Result<()> {
    match family {
        Family::Transformer => transformer::generate(units, seed, style, b),
        Family::Resnet => resnet::generate(units, seed, style, b),
        Family::WideDag => wide_dag::generate(units, seed, style, b),
        Family::ControlFlow => control_flow::generate(units, seed, style, b),
    }
}

/// Op count of `family` at `units` (a dry run into a [`CountSink`]).
/// (The style changes control edges and shapes only, never ops, so the count ignores it.)
fn count(family: Family, units: u64, seed: u64) -> io::Result<u64> {
    let mut b = Builder::new(CountSink);
    generate(family, units, seed, Style::default(), &mut b)?;
    b.finish()
}

/// The unit count that gives about `target` ops. Op count is nearly linear in units (exactly
/// so for the non-random families), so a slope estimate from small dry runs plus at most a
/// few secant corrections at full size lands well within the ±10% the tools promise.
pub fn units_for(family: Family, target: u64, seed: u64) -> io::Result<u64> {
    let c1 = count(family, 1, seed)?;
    if target <= c1 {
        return Ok(1);
    }
    let c2 = count(family, 2, seed)?;
    let per = c2.saturating_sub(c1).max(1) as f64;
    let mut units = 1 + ((target - c1) as f64 / per).round() as u64;
    for _ in 0..3 {
        let c = count(family, units, seed)?;
        if c.abs_diff(target) * 50 <= target || units <= 1 {
            break;
        }
        let per = (c.saturating_sub(c1).max(1)) as f64 / (units - 1) as f64;
        units = (1 + ((target - c1) as f64 / per).round() as u64).max(1);
    }
    Ok(units)
}

/// The side of the square activations of the wide-dag and control-flow families.
fn square_side(style: Style) -> i64 {
    if style.small_tensors {
        8
    } else {
        64
    }
}

/// A splat `Const`.
fn splat<S: Sink>(b: &mut Builder<S>, name: String, ty: Ty, lit: &'static str) -> io::Result<Val> {
    b.op(&CONST, name, &[], vec![("value", Attr::Splat(lit, ty))], ty)
}

/// A rank-1 integer `Const` (shapes, perms, axes).
fn ints<S: Sink>(b: &mut Builder<S>, name: String, ty: Ty, v: &[i64]) -> io::Result<Val> {
    b.op(
        &CONST,
        name,
        &[],
        vec![("value", Attr::DenseInts(v.to_vec(), ty))],
        ty,
    )
}
