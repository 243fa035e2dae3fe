//! ONNX control flow: `If` becomes GE's If with its branches as subgraphs; `Loop` (which GE
//! lacks) becomes a While whose loop state carries a trip counter, the trip limit and the
//! condition before the loop-carried values. Values a body reads from the enclosing graph
//! become extra inputs of the parent op and Data nodes of the subgraphs (GE's If adapter
//! does the same); known constants are copied into the subgraph instead, so its shapes
//! stay static.

use super::{
    cx::{Cx, Res},
    ge::{GeAttr, GeGraph, TType, Val},
    proto::GraphProto,
    tensor::Tensor,
    Importer,
};
use ascend_kernels::DType;
use std::collections::{HashMap, HashSet};

/// The names `g` (and its nested subgraphs) read but does not define, in first-use order.
pub fn free_names(g: &GraphProto) -> Vec<String> {
    let mut defined: HashSet<&str> = HashSet::new();
    defined.extend(g.input.iter().map(|v| v.name.as_str()));
    defined.extend(g.initializer.iter().map(|t| t.name.as_str()));
    let mut free: Vec<String> = Vec::new();
    let note = |name: &str, defined: &HashSet<&str>, free: &mut Vec<String>| {
        if !name.is_empty() && !defined.contains(name) && !free.iter().any(|f| f == name) {
            free.push(name.to_owned());
        }
    };
    for node in &g.node {
        for i in &node.input {
            note(i, &defined, &mut free);
        }
        for a in &node.attribute {
            for sub in a.g.iter().chain(&a.graphs) {
                for n in free_names(sub) {
                    note(&n, &defined, &mut free);
                }
            }
        }
        defined.extend(node.output.iter().map(String::as_str));
    }
    for o in &g.output {
        note(&o.name, &defined, &mut free);
    }
    free
}

/// Captured outer values: the ones passed as inputs (not constants), in order.
fn captures(cx: &Cx, graphs: &[&GraphProto]) -> Res<Vec<(String, Val)>> {
    let mut out: Vec<(String, Val)> = Vec::new();
    for g in graphs {
        for name in free_names(g) {
            if out.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let v = cx.env.get(&name).ok_or_else(|| {
                format!("a subgraph reads '{name}', which is not defined before this node")
            })?;
            out.push((name, v.clone()));
        }
    }
    Ok(out)
}

/// Converts subgraph `g` into a new GE graph: `params` become its Data nodes first (in
/// order), captured values after (constants as Const); returns the graph's name and its
/// output values.
fn subgraph(
    imp: &Importer,
    cx: &mut Cx,
    g: &GraphProto,
    base: &str,
    params: Vec<(String, TType)>,
    caps: &[(String, Val)],
    extra_outputs: impl FnOnce(&mut GeGraph, &[Val], &HashMap<String, Val>) -> Res<Vec<Val>>,
) -> Res<(String, Vec<Val>)> {
    let name = cx.module.graph_name(base);
    let mut ge = GeGraph::new(&name);
    let mut env: HashMap<String, Val> = HashMap::new();
    let mut param_vals = Vec::new();
    for (n, t) in params {
        let v = ge.data(&n, t);
        param_vals.push(v.clone());
        env.insert(n, v);
    }
    for (n, v) in caps {
        let inner = match &v.konst {
            Some(k) => ge.constant(n, (**k).clone()),
            None => ge.data(n, v.ty.clone()),
        };
        env.insert(n.clone(), inner);
    }
    imp.initializers(g, &mut ge, &mut env)?;
    imp.body(g, &mut ge, &mut env, cx.module)?;
    let mut outs = Vec::new();
    for o in &g.output {
        let v = env
            .get(&o.name)
            .ok_or_else(|| format!("subgraph output '{}' is produced by no node", o.name))?;
        outs.push(v.clone());
    }
    let outs = extra_outputs(&mut ge, &outs, &env)?;
    for v in &outs {
        ge.output(v);
    }
    cx.module.graphs.push(ge);
    Ok((name, outs))
}

/// The non-constant captures: what the parent op passes in.
fn passed(caps: &[(String, Val)]) -> Vec<(String, Val)> {
    caps.iter()
        .filter(|(_, v)| v.konst.is_none())
        .cloned()
        .collect()
}

/// If: inputs `cond`, then the captured values; branches `then_branch` / `else_branch`.
pub fn if_op(imp: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let cond = cx.x(0)?;
    let (then_g, else_g) = (cx.graph("then_branch")?, cx.graph("else_branch")?);
    let caps = captures(cx, &[then_g, else_g])?;
    let inputs = passed(&caps);
    let base = format!("{}/{}", cx.ge.name, cx.name);
    let keep = |_: &mut GeGraph, o: &[Val], _: &HashMap<String, Val>| Ok(o.to_vec());
    let (then_name, then_out) = subgraph(
        imp,
        cx,
        then_g,
        &format!("{base}/then"),
        vec![],
        &inputs_only(&caps, &inputs),
        keep,
    )?;
    let (else_name, else_out) = subgraph(
        imp,
        cx,
        else_g,
        &format!("{base}/else"),
        vec![],
        &inputs_only(&caps, &inputs),
        keep,
    )?;
    if then_out.len() != else_out.len() {
        return Err(format!(
            "the branches return {} and {} values",
            then_out.len(),
            else_out.len()
        ));
    }
    let mut types = Vec::new();
    for (k, (a, b)) in then_out.iter().zip(&else_out).enumerate() {
        if a.ty != b.ty {
            return Err(format!(
                "output {k}: the branches return {} and {}; branches of different shapes are not supported",
                a.ty.ge(),
                b.ty.ge()
            ));
        }
        types.push(a.ty.clone());
    }
    let mut ins: Vec<&Val> = vec![&cond];
    ins.extend(inputs.iter().map(|(_, v)| v));
    let attrs = [
        ("then_branch", GeAttr::Symbol(then_name)),
        ("else_branch", GeAttr::Symbol(else_name)),
    ];
    let name = cx.name.clone();
    // The branch outputs fix the result types (subgraph signatures must match exactly).
    Ok(cx.ge.node(&name, "If", &ins, &attrs, &types))
}

/// All captures, constants included (subgraph() makes Const of those, Data of the rest,
/// in the order the parent passes them).
fn inputs_only(caps: &[(String, Val)], _passed: &[(String, Val)]) -> Vec<(String, Val)> {
    caps.to_vec()
}

/// Loop(M?, cond?, v...) with body(iter, cond_in, v...) -> (cond_out, v..., scans...):
/// While over `(i, M, cond, v..., captures...)`; cond graph `i < M && cond`; body graph
/// the ONNX body plus `i + 1`, with M and the captures passed through.
pub fn loop_op(imp: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let body = cx.graph("body")?;
    let n_v = cx.n_inputs().saturating_sub(2);
    if body.output.len() != n_v + 1 {
        return Err(format!(
            "scan outputs are not supported (the body returns {} values for {n_v} loop-carried ones)",
            body.output.len()
        ));
    }
    if body.input.len() != n_v + 2 {
        return Err(format!(
            "the body takes {} inputs, expected {}",
            body.input.len(),
            n_v + 2
        ));
    }
    let i0 = cx.cst("iter_init", Tensor::from_i64s_dims(&[0], vec![]));
    let m = match cx.opt(0) {
        Some(m) => m,
        None => cx.cst("trip_max", Tensor::from_i64s_dims(&[i64::MAX], vec![])),
    };
    let c = match cx.opt(1) {
        Some(c) => c,
        None => cx.cst(
            "cond_init",
            Tensor {
                dtype: DType::Bool,
                dims: vec![],
                bytes: vec![1],
            },
        ),
    };
    let vs: Vec<Val> = (2..cx.n_inputs()).map(|i| cx.x(i)).collect::<Res<_>>()?;
    let caps = captures(cx, &[body])?;
    // Body parameters that are also outer names must not be captured.
    let body_params: HashSet<&str> = body.input.iter().map(|v| v.name.as_str()).collect();
    let caps: Vec<(String, Val)> = caps
        .into_iter()
        .filter(|(n, _)| !body_params.contains(n.as_str()))
        .collect();
    let passed_caps = passed(&caps);
    let state: Vec<TType> = [&i0, &m, &c]
        .into_iter()
        .chain(vs.iter())
        .map(|v| v.ty.clone())
        .chain(passed_caps.iter().map(|(_, v)| v.ty.clone()))
        .collect();
    let base = format!("{}/{}", cx.ge.name, cx.name);
    let names = ["iter", "trip_count", "cond"];

    // The cond graph: i < M && cond.
    let cond_name = cx.module.graph_name(&format!("{base}/cond"));
    let mut cg = GeGraph::new(&cond_name);
    let params: Vec<Val> = state
        .iter()
        .enumerate()
        .map(|(k, t)| {
            cg.data(
                names.get(k).copied().unwrap_or(&format!("state{k}")),
                t.clone(),
            )
        })
        .collect();
    let less_ty = TType::new(
        DType::Bool,
        super::shape::broadcast(&params[0].ty.dims, &params[1].ty.dims)?,
    );
    let less = cg.node1(
        "in_range",
        "Less",
        &[&params[0], &params[1]],
        &[],
        less_ty.clone(),
    );
    let cond_b = if params[2].ty.dtype == DType::Bool {
        params[2].clone()
    } else {
        cg.node1(
            "cond_bool",
            "Cast",
            &[&params[2]],
            &[("dst_type", GeAttr::Int(DType::Bool.acl() as i64))],
            params[2].ty.with_dtype(DType::Bool),
        )
    };
    let both_ty = TType::new(
        DType::Bool,
        super::shape::broadcast(&less_ty.dims, &cond_b.ty.dims)?,
    );
    let go = cg.node1("continue", "LogicalAnd", &[&less, &cond_b], &[], both_ty);
    cg.output(&go);
    cx.module.graphs.push(cg);

    // The body graph: (i, M, cond, v..., captures...) -> (i + 1, M, cond_out, v_out..., captures...).
    let trip_name = format!("{}/trip_count", cx.name);
    let mut params = vec![
        (body.input[0].name.clone(), state[0].clone()),
        (trip_name.clone(), state[1].clone()),
        (body.input[1].name.clone(), state[2].clone()),
    ];
    for (k, vi) in body.input.iter().enumerate().skip(2) {
        params.push((vi.name.clone(), state[k + 1].clone()));
    }
    let iter_name = body.input[0].name.clone();
    let cap_names: Vec<String> = passed_caps.iter().map(|(n, _)| n.clone()).collect();
    let state_types = state.clone();
    let finish = move |g: &mut GeGraph,
                       outs: &[Val],
                       env: &HashMap<String, Val>|
          -> Res<Vec<Val>> {
        let get = |n: &str| {
            env.get(n)
                .cloned()
                .ok_or_else(|| format!("loop state '{n}' is missing"))
        };
        let i = get(&iter_name)?;
        let one = g.constant("iter_one", Tensor::from_i64s_dims(&[1], vec![]));
        let next = g.node1("iter_next", "Add", &[&i, &one], &[], i.ty.clone());
        let mut cond_out = outs[0].clone();
        let want = state_types[2].clone();
        if cond_out.ty != want {
            let dims = want
                .static_dims()
                .ok_or("the loop condition has a dynamic shape")?;
            if cond_out.ty.dtype != want.dtype {
                return Err(
                    "the body's condition output has another element type than the loop's".into(),
                );
            }
            let s = g.constant("cond_shape", Tensor::from_i64s(&dims));
            cond_out = g.node1("cond_reshape", "Reshape", &[&cond_out, &s], &[], want);
        }
        let mut result = vec![next, get(&trip_name)?, cond_out];
        for (k, v) in outs[1..].iter().enumerate() {
            if v.ty != state_types[3 + k] {
                return Err(format!(
                    "loop-carried value {k} changes type from {} to {}; loops whose state changes shape are not supported",
                    state_types[3 + k].ge(),
                    v.ty.ge()
                ));
            }
            result.push(v.clone());
        }
        for n in &cap_names {
            result.push(get(n)?);
        }
        Ok(result)
    };
    let (body_name, _) = subgraph(
        imp,
        cx,
        body,
        &format!("{base}/body"),
        params,
        &caps,
        finish,
    )?;

    let mut ins: Vec<&Val> = vec![&i0, &m, &c];
    ins.extend(vs.iter());
    ins.extend(passed_caps.iter().map(|(_, v)| v));
    let attrs = [
        ("cond", GeAttr::Symbol(cond_name)),
        ("body", GeAttr::Symbol(body_name)),
    ];
    let name = cx.name.clone();
    let outs = cx.ge.node(&name, "While", &ins, &attrs, &state);
    Ok(outs[3..3 + n_v].to_vec())
}
