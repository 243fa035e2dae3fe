//! `control-flow`: a chain of units in `@main`, each
//!
//! ```text
//! h    = Add(cur, w)                       w: Const
//! c    = ReduceSum(h, [0, 1])              scalar predicate
//! y    = If(c, h, state) {then, else}      state: Variable, read by the branches
//! y    = PartitionedCall(y) {f}            (half of the units)
//! l    = While(zero, y) {cond, body}       loop vars (i32[], f32[64, 64])
//! _    = Assign(state, l:1, ^If)           write after the If's read, ordered by control
//! ```
//!
//! Every subgraph is its own `func.func private` with a small random body (Data nodes per
//! argument, 1-3 elementwise ops); While bodies sometimes call a nested PartitionedCall.
//! Subgraphs are emitted after `@main` from a queue of small specs, so output stays streamed.

use std::collections::VecDeque;
use std::io;

use super::{ints, splat, square_side, Style};
use crate::builder::Builder;
use crate::ops::*;
use crate::rng::Rng;
use crate::sink::{Attr, Sink, Val};
use crate::types::{tensor, DType, Ty};

#[derive(Clone, Copy, Debug)]
enum Kind {
    Then,
    Else,
    Call,
    Cond,
    Body,
}

/// A subgraph still to be emitted: its function name, role, and RNG stream.
struct Pending {
    name: String,
    kind: Kind,
    stream: u64,
}

struct Types {
    act: Ty,
    counter: Ty,
    scalar: Ty,
    pred: Ty,
}

pub fn generate<S: Sink>(
    units: u64,
    seed: u64,
    style: Style,
    b: &mut Builder<S>,
) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let side = square_side(style);
    let t = Types {
        act: tensor(DType::F32, &[side, side]),
        counter: tensor(DType::I32, &[]),
        scalar: tensor(DType::F32, &[]),
        pred: tensor(DType::Bool, &[]),
    };
    let mut pending: VecDeque<Pending> = VecDeque::new();
    let mut stream = 0u64;
    let mut sub = |name: String, kind: Kind| {
        stream += 1;
        Pending { name, kind, stream }
    };

    b.begin("main", false, &[t.act], &[t.act])?;
    let mut cur = b.data("input".into(), 0)?;
    let axes = ints(
        b,
        "const/axes_all".into(),
        tensor(DType::I64, &[2]),
        &[0, 1],
    )?;
    let zero = splat(b, "const/zero".into(), t.counter, "0")?;
    for k in 0..units {
        let p = format!("cf{k}");
        let w = splat(
            b,
            format!("{p}/w"),
            t.act,
            rng.pick(&["0.5", "1.0", "-0.25"]),
        )?;
        let state = b.op(&VARIABLE, format!("{p}/state"), &[], vec![], t.act)?;
        let h = b.op(&ADD, format!("{p}/add"), &[cur, w], vec![], t.act)?;
        let keep = vec![("keep_dims", Attr::Bool(false))];
        let c = b.op(
            &REDUCE_SUM,
            format!("{p}/pred"),
            &[h.clone(), axes.clone()],
            keep,
            t.scalar,
        )?;
        let (then_g, else_g) = (
            sub(format!("{p}_then"), Kind::Then),
            sub(format!("{p}_else"), Kind::Else),
        );
        let attrs = vec![
            ("else_branch", Attr::Sym(else_g.name.clone())),
            ("then_branch", Attr::Sym(then_g.name.clone())),
        ];
        let if_node = b.node(
            &IF,
            format!("{p}/if"),
            &[c, h, state.clone()],
            &[],
            attrs,
            &[t.act],
        )?;
        pending.extend([then_g, else_g]);
        let mut y = if_node.out(0);
        if rng.percent(50) {
            let call = sub(format!("{p}_call"), Kind::Call);
            let attrs = vec![("f", Attr::Sym(call.name.clone()))];
            y = b.op(&PARTITIONED_CALL, format!("{p}/call"), &[y], attrs, t.act)?;
            pending.push_back(call);
        }
        let (cond_g, body_g) = (
            sub(format!("{p}_cond"), Kind::Cond),
            sub(format!("{p}_body"), Kind::Body),
        );
        let attrs = vec![
            ("body", Attr::Sym(body_g.name.clone())),
            ("cond", Attr::Sym(cond_g.name.clone())),
        ];
        let l = b.node(
            &WHILE,
            format!("{p}/while"),
            &[zero.clone(), y],
            &[],
            attrs,
            &[t.counter, t.act],
        )?;
        pending.extend([cond_g, body_g]);
        let ctrl = [if_node.ctrl()];
        b.node(
            &ASSIGN,
            format!("{p}/assign"),
            &[state, l.out(1)],
            &ctrl,
            vec![],
            &[t.act],
        )?;
        cur = l.out(1);
    }
    b.end(&[cur])?;

    while let Some(g) = pending.pop_front() {
        let mut rng = Rng::derive(seed, g.stream);
        if let Some(nested) = subgraph(b, &mut rng, &t, &g)? {
            stream += 1;
            pending.push_back(Pending {
                name: nested,
                kind: Kind::Call,
                stream,
            });
        }
    }
    Ok(())
}

/// Emits one subgraph; returns the name of a nested PartitionedCall subgraph it references.
fn subgraph<S: Sink>(
    b: &mut Builder<S>,
    rng: &mut Rng,
    t: &Types,
    g: &Pending,
) -> io::Result<Option<String>> {
    let p = &g.name;
    let (args, results): (Vec<Ty>, Vec<Ty>) = match g.kind {
        Kind::Then | Kind::Else => (vec![t.act, t.act], vec![t.act]),
        Kind::Call => (vec![t.act], vec![t.act]),
        Kind::Cond => (vec![t.counter, t.act], vec![t.pred]),
        Kind::Body => (vec![t.counter, t.act], vec![t.counter, t.act]),
    };
    b.begin(p, true, &args, &results)?;
    let ins: Vec<Val> = (0..args.len())
        .map(|i| b.data(format!("{p}/arg{i}"), i))
        .collect::<io::Result<_>>()?;
    let mut nested = None;
    let returns = match g.kind {
        Kind::Then | Kind::Else | Kind::Call => {
            let x = elementwise_chain(b, rng, p, &ins, t.act)?;
            vec![x]
        }
        Kind::Cond => {
            let limit = splat(
                b,
                format!("{p}/limit"),
                t.counter,
                rng.pick(&["2", "4", "8"]),
            )?;
            let left = b.op(
                &SUB,
                format!("{p}/remaining"),
                &[limit, ins[0].clone()],
                vec![],
                t.counter,
            )?;
            let attrs = vec![("dst_type", Attr::Int(DType::Bool.ge_enum()))];
            vec![b.op(&CAST, format!("{p}/pred"), &[left], attrs, t.pred)?]
        }
        Kind::Body => {
            let one = splat(b, format!("{p}/one"), t.counter, "1")?;
            let i = b.op(
                &ADD,
                format!("{p}/next_i"),
                &[ins[0].clone(), one],
                vec![],
                t.counter,
            )?;
            let mut x = elementwise_chain(b, rng, p, &ins[1..], t.act)?;
            if rng.percent(25) {
                let name = format!("{p}_inner");
                let attrs = vec![("f", Attr::Sym(name.clone()))];
                x = b.op(
                    &PARTITIONED_CALL,
                    format!("{p}/inner_call"),
                    &[x],
                    attrs,
                    t.act,
                )?;
                nested = Some(name);
            }
            vec![i, x]
        }
    };
    b.end(&returns)?;
    Ok(nested)
}

/// 1-3 elementwise ops over the inputs (all of type `ty`); the first op consumes every input.
fn elementwise_chain<S: Sink>(
    b: &mut Builder<S>,
    rng: &mut Rng,
    p: &str,
    ins: &[Val],
    ty: Ty,
) -> io::Result<Val> {
    let mut x = ins[0].clone();
    let n = rng.range(1, 3);
    for i in 0..n {
        let other = if i == 0 { ins.last().cloned() } else { None };
        x = match other {
            Some(o) if ins.len() > 1 => {
                let op = rng.pick(&[&ADD, &MUL, &SUB]);
                b.op(op, format!("{p}/op{i}"), &[x, o], vec![], ty)?
            }
            _ if rng.percent(50) => b.op(&RELU, format!("{p}/op{i}"), &[x], vec![], ty)?,
            _ => {
                let op = rng.pick(&[&ADD, &MUL]);
                b.op(op, format!("{p}/op{i}"), &[x.clone(), x], vec![], ty)?
            }
        };
    }
    Ok(x)
}
