//! `transformer`: data-parallel training step of a stack of transformer blocks.
//!
//! Forward pass of every layer (LayerNorm, Q/K/V MatMuls, multi-head attention with Reshape/
//! Transpose/BatchMatMul/RealDiv, a mixed-precision Softmax between two Casts, FFN with
//! Gelu or Relu, residual Adds), then the backward pass in reverse layer order with
//! simplified gradient maths but GE's real structure: every weight gradient goes through an
//! `HcomAllReduce` (`_input_mutable = true`, chained by control edges as GE orders
//! collectives) into an `ApplyMomentum` (matrices) or a Mul/Sub/`Assign` update (LayerNorm
//! parameters) of its `Variable`. A global-step Variable is bumped last.
//!
//! Each update waits, by control edges, for the backward ops that read its weight (the
//! dX = dY . W^T MatMuls), as a framework orders a training graph; the forward reads are
//! ordered already (through the loss). With [`Style::unordered_updates`] those edges are
//! left out and GraphLint reports every such pair (W18888).

use std::io;

use super::{ints, splat, Style};
use crate::builder::Builder;
use crate::ops::*;
use crate::rng::Rng;
use crate::sink::{Attr, Sink, Val};
use crate::types::{tensor, DType, Ty};

struct Types {
    act: Ty,
    ff: Ty,
    ff_t: Ty,
    heads: Ty,
    heads_t: Ty,
    scores: Ty,
    scores16: Ty,
    stat: Ty,
    vec: Ty,
    scalar: Ty,
    step: Ty,
}

/// Attention heads: the `[seq, model]` activations reshape to `[HEADS, seq / HEADS, model]`.
const HEADS: i64 = 4;

impl Types {
    /// `d`: the sequence length and model width (64, or 16 with small tensors).
    fn new(d: i64) -> Self {
        use DType::*;
        let (ff, part) = (4 * d, d / HEADS);
        Types {
            act: tensor(F32, &[d, d]),
            ff: tensor(F32, &[d, ff]),
            ff_t: tensor(F32, &[ff, d]),
            heads: tensor(F32, &[HEADS, part, d]),
            heads_t: tensor(F32, &[HEADS, d, part]),
            scores: tensor(F32, &[HEADS, part, part]),
            scores16: tensor(F16, &[HEADS, part, part]),
            stat: tensor(F32, &[d, 1]),
            vec: tensor(F32, &[d]),
            scalar: tensor(F32, &[]),
            step: tensor(I64, &[]),
        }
    }
}

/// Graph-wide constants shared by all layers (multi-consumer values).
struct Globals {
    t: Types,
    shape_heads: Val,
    shape_act: Val,
    perm: Val,
    scale: Val,
    lr: Val,
    momentum: Val,
    lr_vec: Val,
    axes0: Val,
}

/// The matrices a layer trains with momentum: (name, weight, accumulator).
type Trained = Vec<(&'static str, Val, Val)>;

/// What the backward pass of a layer needs from its forward pass.
struct Saved {
    layer: u64,
    mats: Trained,
    norms: Vec<(&'static str, Val)>,
    ln1y: Val,
    o2: Val,
    ln2y: Val,
    ff1: Val,
    act: Val,
}

fn mat(saved: &Saved, name: &str) -> Val {
    mat_of(&saved.mats, name)
}

pub fn generate<S: Sink>(
    units: u64,
    seed: u64,
    style: Style,
    b: &mut Builder<S>,
) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let d: i64 = if style.small_tensors { 16 } else { 64 };
    let t = Types::new(d);
    b.begin("main", false, &[t.act, t.act], &[t.act, t.step])?;
    let x = b.data("input/tokens".into(), 0)?;
    let label = b.data("input/labels".into(), 1)?;
    let i64_3 = tensor(DType::I64, &[3]);
    let i64_2 = tensor(DType::I64, &[2]);
    let i32_3 = tensor(DType::I32, &[3]);
    let i64_1 = tensor(DType::I64, &[1]);
    let g = Globals {
        shape_heads: ints(b, "const/shape_heads".into(), i64_3, &[HEADS, d / HEADS, d])?,
        shape_act: ints(b, "const/shape_act".into(), i64_2, &[d, d])?,
        perm: ints(b, "const/perm_021".into(), i32_3, &[0, 2, 1])?,
        // sqrt(d), the usual attention scale.
        scale: splat(
            b,
            "const/attn_scale".into(),
            t.scores,
            if d == 16 { "4.0" } else { "8.0" },
        )?,
        lr: splat(b, "const/lr".into(), t.scalar, "0.01")?,
        momentum: splat(b, "const/momentum".into(), t.scalar, "0.9")?,
        lr_vec: splat(b, "const/lr_vec".into(), t.vec, "0.01")?,
        axes0: ints(b, "const/axes_0".into(), i64_1, &[0])?,
        t,
    };
    let step_var = b.op(&VARIABLE, "global_step".into(), &[], vec![], g.t.step)?;
    let one = splat(b, "const/one".into(), g.t.step, "1")?;

    let mut saved = Vec::with_capacity(units as usize);
    let mut h = x;
    for layer in 0..units {
        let (out, s) = forward(b, &mut rng, &g, layer, h)?;
        saved.push(s);
        h = out;
    }
    let out = h;
    let mut dy = b.op(
        &SUB,
        "loss/grad".into(),
        &[out.clone(), label],
        vec![],
        g.t.act,
    )?;
    let mut chain = None;
    let mut last_update = None;
    while let Some(s) = saved.pop() {
        let (dx, upd) = backward(b, &mut rng, &g, &s, dy, &mut chain, style)?;
        dy = dx;
        last_update = Some(upd);
    }
    let next = b.op(
        &ADD,
        "global_step/next".into(),
        &[step_var.clone(), one],
        vec![],
        g.t.step,
    )?;
    let assign = b.node(
        &ASSIGN,
        "global_step/assign".into(),
        &[step_var, next],
        last_update.as_slice(),
        vec![],
        &[g.t.step],
    )?;
    b.end(&[out, assign.out(0)])
}

fn forward<S: Sink>(
    b: &mut Builder<S>,
    rng: &mut Rng,
    g: &Globals,
    layer: u64,
    x: Val,
) -> io::Result<(Val, Saved)> {
    let t = &g.t;
    let p = format!("layer{layer}");
    let var = |b: &mut Builder<S>, name: &str, ty: Ty| {
        b.op(&VARIABLE, format!("{p}/{name}"), &[], vec![], ty)
    };
    let mut mats = Trained::new();
    for (name, ty) in [
        ("wq", t.act),
        ("wk", t.act),
        ("wv", t.act),
        ("wo", t.act),
        ("w1", t.ff),
        ("w2", t.ff_t),
    ] {
        let w = var(b, name, ty)?;
        let acc = var(b, &format!("{name}/momentum"), ty)?;
        mats.push((name, w, acc));
    }
    let mut norms = Vec::new();
    for name in ["ln1/gamma", "ln1/beta", "ln2/gamma", "ln2/beta"] {
        norms.push((name, var(b, name, t.vec)?));
    }
    let eps = rng.pick(&["1.0e-5", "1.0e-6"]);
    let ln = |b: &mut Builder<S>, name: &str, x: Val, gamma: &Val, beta: &Val| {
        let attrs = vec![
            ("begin_norm_axis", Attr::Int(1)),
            ("begin_params_axis", Attr::Int(-1)),
            ("epsilon", Attr::Float(eps)),
        ];
        let n = b.node(
            &LAYER_NORM,
            format!("{p}/{name}"),
            &[x, gamma.clone(), beta.clone()],
            &[],
            attrs,
            &[t.act, t.stat, t.stat],
        )?;
        Ok::<_, io::Error>(n.out(0))
    };
    let mm = |b: &mut Builder<S>, name: &str, a: Val, w: Val, out: Ty| {
        let attrs = vec![
            ("transpose_x1", Attr::Bool(false)),
            ("transpose_x2", Attr::Bool(false)),
        ];
        b.op(&MAT_MUL, format!("{p}/{name}"), &[a, w], attrs, out)
    };

    let ln1y = ln(b, "attn/ln", x.clone(), &norms[0].1, &norms[1].1)?;
    let mut heads = Vec::new();
    for (w, name) in [("wq", "q"), ("wk", "k"), ("wv", "v")] {
        let proj = mm(
            b,
            &format!("attn/{name}_proj"),
            ln1y.clone(),
            mat_of(&mats, w),
            t.act,
        )?;
        let r = b.op(
            &RESHAPE,
            format!("{p}/attn/{name}_split_heads"),
            &[proj, g.shape_heads.clone()],
            vec![],
            t.heads,
        )?;
        heads.push(r);
    }
    let kt = b.op(
        &TRANSPOSE,
        format!("{p}/attn/k_transpose"),
        &[heads[1].clone(), g.perm.clone()],
        vec![],
        t.heads_t,
    )?;
    let bmm_attrs = || vec![("adj_x1", Attr::Bool(false)), ("adj_x2", Attr::Bool(false))];
    let s = b.op(
        &BATCH_MAT_MUL,
        format!("{p}/attn/scores"),
        &[heads[0].clone(), kt],
        bmm_attrs(),
        t.scores,
    )?;
    let s = b.op(
        &REAL_DIV,
        format!("{p}/attn/scale"),
        &[s, g.scale.clone()],
        vec![],
        t.scores,
    )?;
    let cast = |dst: DType| vec![("dst_type", Attr::Int(dst.ge_enum()))];
    let s16 = b.op(
        &CAST,
        format!("{p}/attn/scores_fp16"),
        &[s],
        cast(DType::F16),
        t.scores16,
    )?;
    let p16 = b.op(
        &SOFTMAX,
        format!("{p}/attn/softmax"),
        &[s16],
        vec![("axes", Attr::Ints(vec![-1]))],
        t.scores16,
    )?;
    let probs = b.op(
        &CAST,
        format!("{p}/attn/probs_fp32"),
        &[p16],
        cast(DType::F32),
        t.scores,
    )?;
    let o = b.op(
        &BATCH_MAT_MUL,
        format!("{p}/attn/context"),
        &[probs, heads[2].clone()],
        bmm_attrs(),
        t.heads,
    )?;
    let o2 = b.op(
        &RESHAPE,
        format!("{p}/attn/merge_heads"),
        &[o, g.shape_act.clone()],
        vec![],
        t.act,
    )?;
    let proj = mm(b, "attn/out_proj", o2.clone(), mat_of(&mats, "wo"), t.act)?;
    let h = b.op(
        &ADD,
        format!("{p}/attn/residual"),
        &[x, proj],
        vec![],
        t.act,
    )?;

    let ln2y = ln(b, "ffn/ln", h.clone(), &norms[2].1, &norms[3].1)?;
    let ff1 = mm(b, "ffn/up", ln2y.clone(), mat_of(&mats, "w1"), t.ff)?;
    let act_op = if rng.percent(50) { &GELU } else { &RELU };
    let act = b.op(
        act_op,
        format!("{p}/ffn/act"),
        std::slice::from_ref(&ff1),
        vec![],
        t.ff,
    )?;
    let ff2 = mm(b, "ffn/down", act.clone(), mat_of(&mats, "w2"), t.act)?;
    let out = b.op(&ADD, format!("{p}/ffn/residual"), &[h, ff2], vec![], t.act)?;
    let saved = Saved {
        layer,
        mats,
        norms,
        ln1y,
        o2,
        ln2y,
        ff1,
        act,
    };
    Ok((out, saved))
}

fn mat_of(mats: &Trained, name: &str) -> Val {
    mats.iter()
        .find(|m| m.0 == name)
        .map(|m| m.1.clone())
        .expect("weight names are fixed in this file")
}

/// Backward pass of one layer plus its weight updates. Returns the input gradient and the
/// control token of the layer's last update.
fn backward<S: Sink>(
    b: &mut Builder<S>,
    rng: &mut Rng,
    g: &Globals,
    s: &Saved,
    dy: Val,
    chain: &mut Option<Val>,
    style: Style,
) -> io::Result<(Val, Val)> {
    let t = &g.t;
    let p = format!("layer{}/grad", s.layer);
    // dW = X^T . dY and dX = dY . W^T, written as MatMul transposes like GE's backward graphs.
    let node = |b: &mut Builder<S>, name: &str, a: Val, c: Val, tx1: bool, out: Ty| {
        let attrs = vec![
            ("transpose_x1", Attr::Bool(tx1)),
            ("transpose_x2", Attr::Bool(!tx1)),
        ];
        b.node(&MAT_MUL, format!("{p}/{name}"), &[a, c], &[], attrs, &[out])
    };
    let mm = |b: &mut Builder<S>, name: &str, a: Val, c: Val, tx1: bool, out: Ty| {
        Ok::<_, io::Error>(node(b, name, a, c, tx1, out)?.out(0))
    };
    // The backward reads of each weight (dX = dY . W^T), which its update must follow.
    let mut readers: Vec<(&str, Val)> = Vec::new();
    let mut read_weight =
        |b: &mut Builder<S>, name: &str, weight: &'static str, a: Val, out: Ty| {
            let n = node(b, name, a, mat(s, weight), false, out)?;
            readers.push((weight, n.ctrl()));
            Ok::<_, io::Error>(n.out(0))
        };
    let mut grads: Vec<(&str, Val)> = Vec::new();
    grads.push(("w2", mm(b, "w2", s.act.clone(), dy.clone(), true, t.ff_t)?));
    let d_act = read_weight(b, "ffn_act", "w2", dy.clone(), t.ff)?;
    let d_ff1 = b.op(
        &MUL,
        format!("{p}/ffn_up"),
        &[d_act, s.ff1.clone()],
        vec![],
        t.ff,
    )?;
    grads.push((
        "w1",
        mm(b, "w1", s.ln2y.clone(), d_ff1.clone(), true, t.ff)?,
    ));
    let d_ln2 = read_weight(b, "ffn_ln", "w1", d_ff1, t.act)?;
    let d_h = b.op(
        &ADD,
        format!("{p}/ffn_residual"),
        &[dy, d_ln2.clone()],
        vec![],
        t.act,
    )?;
    let mut norm_grads = Vec::new();
    let reduce = |b: &mut Builder<S>, name: &str, x: Val| {
        let attrs = vec![("keep_dims", Attr::Bool(false))];
        b.op(
            &REDUCE_SUM,
            format!("{p}/{name}"),
            &[x, g.axes0.clone()],
            attrs,
            t.vec,
        )
    };
    let prod = b.op(
        &MUL,
        format!("{p}/ln2_gamma_prod"),
        &[d_ln2.clone(), s.ln2y.clone()],
        vec![],
        t.act,
    )?;
    norm_grads.push(("ln2/gamma", reduce(b, "ln2_gamma", prod)?));
    norm_grads.push(("ln2/beta", reduce(b, "ln2_beta", d_ln2)?));

    grads.push(("wo", mm(b, "wo", s.o2.clone(), d_h.clone(), true, t.act)?));
    let d_o2 = read_weight(b, "attn_context", "wo", d_h.clone(), t.act)?;
    for w in ["wq", "wk", "wv"] {
        grads.push((w, mm(b, w, s.ln1y.clone(), d_o2.clone(), true, t.act)?));
    }
    let d_ln1 = read_weight(b, "attn_ln", "wq", d_o2, t.act)?;
    let prod = b.op(
        &MUL,
        format!("{p}/ln1_gamma_prod"),
        &[d_ln1.clone(), s.ln1y.clone()],
        vec![],
        t.act,
    )?;
    norm_grads.push(("ln1/gamma", reduce(b, "ln1_gamma", prod)?));
    norm_grads.push(("ln1/beta", reduce(b, "ln1_beta", d_ln1.clone())?));
    let dx = b.op(&ADD, format!("{p}/input"), &[d_h, d_ln1], vec![], t.act)?;

    let u = format!("layer{}/update", s.layer);
    let mut last = None;
    let mut all_reduce = |b: &mut Builder<S>, name: &str, grad: Val, rng: &mut Rng| {
        let attrs = vec![
            ("_input_mutable", Attr::Bool(true)),
            ("fusion", Attr::Int(1)),
            ("fusion_id", Attr::Int(rng.below(4) as i64)),
            ("group", Attr::Str("hccl_world_group")),
            ("reduction", Attr::Str("sum")),
        ];
        let ty = grad.ty;
        let n = b.node(
            &HCOM_ALL_REDUCE,
            format!("{u}/{name}/allreduce"),
            &[grad],
            chain.as_slice(),
            attrs,
            &[ty],
        )?;
        *chain = Some(n.ctrl());
        Ok::<_, io::Error>(n.out(0))
    };
    for (name, grad) in grads {
        let (_, w, acc) = s.mats.iter().find(|m| m.0 == name).expect("fixed names");
        let reduced = all_reduce(b, name, grad, rng)?;
        let attrs = vec![("use_nesterov", Attr::Bool(false))];
        let after: Vec<Val> = if style.unordered_updates {
            Vec::new()
        } else {
            readers
                .iter()
                .filter(|(weight, _)| *weight == name)
                .map(|(_, ctrl)| ctrl.clone())
                .collect()
        };
        let ins = [
            w.clone(),
            acc.clone(),
            g.lr.clone(),
            reduced,
            g.momentum.clone(),
        ];
        let n = b.node(
            &APPLY_MOMENTUM,
            format!("{u}/{name}/apply_momentum"),
            &ins,
            &after,
            attrs,
            &[w.ty],
        )?;
        last = Some(n.ctrl());
    }
    for (name, grad) in norm_grads {
        let (_, param) = s.norms.iter().find(|n| n.0 == name).expect("fixed names");
        let reduced = all_reduce(b, name, grad, rng)?;
        let step = b.op(
            &MUL,
            format!("{u}/{name}/step"),
            &[reduced, g.lr_vec.clone()],
            vec![],
            t.vec,
        )?;
        let new = b.op(
            &SUB,
            format!("{u}/{name}/new"),
            &[param.clone(), step],
            vec![],
            t.vec,
        )?;
        let n = b.node(
            &ASSIGN,
            format!("{u}/{name}/assign"),
            &[param.clone(), new],
            &[],
            vec![],
            &[t.vec],
        )?;
        last = Some(n.ctrl());
    }
    let last = last.expect("every layer has updates");
    Ok((dx, last))
}
