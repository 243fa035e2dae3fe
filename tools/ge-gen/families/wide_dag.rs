//! `wide-dag`: a random DAG of elementwise ops (Add/Mul/Sub/Relu) in two precision lanes
//! (f32 and f16, crossed by Casts). Operands come mostly from a sliding window of recent
//! values (locality, like real fused graphs) and sometimes from long-lived "hub" values,
//! which gives heavy fan-out and multi-consumer outputs. About 10% of nodes take 1-2
//! control edges from earlier nodes; because every reference points backwards in emission
//! order, the graph is acyclic by construction.

use std::collections::VecDeque;
use std::io;

use super::{splat, square_side, Style};
use crate::builder::Builder;
use crate::ops::*;
use crate::rng::Rng;
use crate::sink::{Attr, Sink, Val};
use crate::types::{tensor, DType, Ty};

const WINDOW: usize = 48;
const HUBS: usize = 8;
const CTRL_WINDOW: usize = 256;

/// Per-precision pool of values to draw operands from.
struct Lane {
    ty: Ty,
    recent: VecDeque<Val>,
    hubs: Vec<Val>,
}

impl Lane {
    fn push(&mut self, v: Val, rng: &mut Rng) {
        if self.recent.len() == WINDOW {
            self.recent.pop_front();
        }
        // Occasionally promote a value to hub, so hubs keep appearing over the whole graph.
        if rng.percent(2) {
            let slot = rng.below(HUBS);
            if slot < self.hubs.len() {
                self.hubs[slot] = v.clone();
            } else {
                self.hubs.push(v.clone());
            }
        }
        self.recent.push_back(v);
    }

    fn operand(&self, rng: &mut Rng) -> Val {
        if !self.hubs.is_empty() && rng.percent(15) {
            return self.hubs[rng.below(self.hubs.len())].clone();
        }
        // Bias towards the newest values: min of two uniform picks from the back.
        let n = self.recent.len();
        let back = rng.below(n).min(rng.below(n));
        self.recent[n - 1 - back].clone()
    }
}

pub fn generate<S: Sink>(
    units: u64,
    seed: u64,
    style: Style,
    b: &mut Builder<S>,
) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let side = square_side(style);
    let f32t = tensor(DType::F32, &[side, side]);
    let f16t = tensor(DType::F16, &[side, side]);
    let args = [f32t, f32t, f32t, f32t, f16t, f16t];
    b.begin("main", false, &args, &[f32t, f16t])?;
    let mut lanes = [
        Lane {
            ty: f32t,
            recent: VecDeque::new(),
            hubs: Vec::new(),
        },
        Lane {
            ty: f16t,
            recent: VecDeque::new(),
            hubs: Vec::new(),
        },
    ];
    let mut ctrl_pool: VecDeque<Val> = VecDeque::new();
    for (i, ty) in args.iter().enumerate() {
        let lane = usize::from(*ty == f16t);
        let v = b.data(format!("input{i}"), i)?;
        lanes[lane].hubs.push(v.clone());
        lanes[lane].recent.push_back(v);
    }
    for (i, (lane, lit)) in [(0, "0.5"), (0, "2.0"), (1, "0.25")]
        .into_iter()
        .enumerate()
    {
        let ty = lanes[lane].ty;
        let v = splat(b, format!("const{i}"), ty, lit)?;
        lanes[lane].hubs.push(v.clone());
        lanes[lane].recent.push_back(v);
    }

    for i in 0..units {
        let lane = usize::from(rng.percent(25));
        let roll = rng.below(100);
        let ty = lanes[lane].ty;
        let (op, data, attrs): (&'static OpType, Vec<Val>, _) = if roll < 8 {
            // A Cast from the other lane brings values across precisions.
            let dst = if lane == 0 { DType::F32 } else { DType::F16 };
            let attrs = vec![("dst_type", Attr::Int(dst.ge_enum()))];
            (&CAST, vec![lanes[1 - lane].operand(&mut rng)], attrs)
        } else if roll < 28 {
            (&RELU, vec![lanes[lane].operand(&mut rng)], vec![])
        } else {
            let op = rng.pick(&[&ADD, &MUL, &SUB]);
            let data = vec![lanes[lane].operand(&mut rng), lanes[lane].operand(&mut rng)];
            (op, data, vec![])
        };
        let mut ctrl: Vec<Val> = Vec::new();
        if rng.percent(10) && !ctrl_pool.is_empty() {
            for _ in 0..rng.range(1, 2) {
                let c = ctrl_pool[rng.below(ctrl_pool.len())].clone();
                // A control edge duplicating a data edge or another control edge adds nothing.
                if !ctrl.iter().any(|x| x.id == c.id) && !data.iter().any(|d| d.id == c.id) {
                    ctrl.push(c);
                }
            }
        }
        let name = format!("dag/block{}/{}_{i}", i / 1000, op.ge.to_ascii_lowercase());
        let node = b.node(op, name, &data, &ctrl, attrs, &[ty])?;
        if ctrl_pool.len() == CTRL_WINDOW {
            ctrl_pool.pop_front();
        }
        ctrl_pool.push_back(node.ctrl());
        lanes[lane].push(node.out(0), &mut rng);
    }
    let outs: Vec<Val> = lanes
        .iter()
        .map(|l| l.recent.back().cloned())
        .collect::<Option<_>>()
        .unwrap_or_default();
    b.end(&outs)
}
