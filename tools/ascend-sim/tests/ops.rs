//! aclopExecuteV2 through the C ABI: descriptors, buffers, attributes, OP_NOT_FOUND, the
//! opaque-kernel mode and the report.

mod common;
use common::*;
use std::ptr::null_mut;

struct Op {
    descs: Vec<P>,
    bufs: Vec<P>,
}

fn operand(s: &Sim, dims: &[i64], addr: P, size: usize) -> (P, P) {
    let d = unsafe { (s.acl.aclCreateTensorDesc)(0, dims.len() as i32, dims.as_ptr(), 2) };
    assert!(!d.is_null(), "{}", s.msg());
    let b = unsafe { (s.acl.aclCreateDataBuffer)(addr, size) };
    assert!(!b.is_null());
    (d, b)
}

fn op(s: &Sim, dims: &[i64], addrs: &[(P, usize)]) -> Op {
    let (descs, bufs) = addrs.iter().map(|&(a, n)| operand(s, dims, a, n)).unzip();
    Op { descs, bufs }
}

fn execute(s: &Sim, ty: &str, ins: &Op, outs: &Op, attr: P, stream: P) -> i32 {
    let ty = c(ty);
    unsafe {
        (s.acl.aclopExecuteV2)(
            ty.as_ptr(),
            ins.descs.len() as i32,
            ins.descs.as_ptr(),
            ins.bufs.as_ptr(),
            outs.descs.len() as i32,
            outs.descs.as_ptr(),
            outs.bufs.as_ptr(),
            attr,
            stream,
        )
    }
}

#[test]
fn an_op_without_a_kernel_is_op_not_found_naming_it() {
    let (_g, s) = Sim::lock("");
    let (x, y) = (s.malloc(16), s.malloc(16));
    let st = s.stream();
    let ins = op(s, &[4], &[(x, 16)]);
    let outs = op(s, &[4], &[(y, 16)]);
    assert_eq!(
        execute(s, "NoSuchOpType", &ins, &outs, null_mut(), st),
        100024
    );
    let m = s.msg();
    assert!(m.contains("`NoSuchOpType`"), "{m}");
}

#[test]
fn opaque_mode_runs_a_stand_in_and_counts_it() {
    let (_g, s) = Sim::lock("opaque_kernels=1;trace=1");
    let (x, y) = (s.malloc(16), s.malloc(16));
    s.h2d(x, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    let st = s.stream();
    let ins = op(s, &[4], &[(x, 16)]);
    let outs = op(s, &[4], &[(y, 16)]);
    let attr = unsafe { (s.acl.aclopCreateAttr)() };
    let (name, text) = (c("mode"), c("fast"));
    s.ok(unsafe { (s.acl.aclopSetAttrInt)(attr, c("axis").as_ptr(), -1) });
    s.ok(unsafe { (s.acl.aclopSetAttrFloat)(attr, c("alpha").as_ptr(), 0.5) });
    s.ok(unsafe { (s.acl.aclopSetAttrBool)(attr, c("keep").as_ptr(), 1) });
    s.ok(unsafe { (s.acl.aclopSetAttrString)(attr, name.as_ptr(), text.as_ptr()) });
    s.ok(unsafe { (s.acl.aclopSetAttrListInt)(attr, c("perm").as_ptr(), 2, [1i64, 0].as_ptr()) });
    s.ok(execute(s, "NoSuchOpType", &ins, &outs, attr, st));
    s.ok(execute(s, "NoSuchOpType", &ins, &outs, attr, st));
    s.ok(s.sync(st));
    let rep = s.report();
    assert_eq!(rep["opaque_kernels"], 2, "{rep}");
    assert_eq!(rep["opaque_by_op"]["NoSuchOpType"], 2);
    assert_eq!(rep["tasks_by_kind"]["kernel"], 2);
    let trace = rep["trace"].as_array().unwrap();
    assert_eq!(trace[0]["name"], "NoSuchOpType");
    assert_eq!(trace[0]["kind"], "kernel");
    assert!(trace[1]["start_ns"].as_u64() >= trace[0]["end_ns"].as_u64());
    unsafe { (s.acl.aclopDestroyAttr)(attr) };
}

#[test]
fn operand_errors_name_the_operand() {
    let (_g, s) = Sim::lock("opaque_kernels=1");
    let (x, y) = (s.malloc(16), s.malloc(16));
    let st = s.stream();
    // The buffer is shorter than the descriptor needs.
    let ins = op(s, &[8], &[(x, 16)]);
    let outs = op(s, &[4], &[(y, 16)]);
    assert_eq!(execute(s, "Relu", &ins, &outs, null_mut(), st), 100000);
    assert!(s
        .msg()
        .contains("input 0: the buffer holds 16 bytes but its desc"));
    // The buffer lies outside every allocation.
    let ins = op(s, &[4], &[(x.wrapping_byte_add(4096), 16)]);
    assert_eq!(execute(s, "Relu", &ins, &outs, null_mut(), st), 100000);
    assert!(s.msg().contains("is not inside one live allocation"));
    // A destroyed descriptor.
    let ins = op(s, &[4], &[(x, 16)]);
    unsafe { (s.acl.aclDestroyTensorDesc)(ins.descs[0]) };
    assert_eq!(execute(s, "Relu", &ins, &outs, null_mut(), st), 107017);
    assert!(s.msg().contains("was destroyed"));
    // A stream handle where a desc belongs.
    let bad = Op {
        descs: vec![st],
        bufs: ins.bufs.clone(),
    };
    assert_eq!(execute(s, "Relu", &bad, &outs, null_mut(), st), 107017);
    assert!(s.msg().contains("is a stream, not a tensor desc"));
    // Bad descriptor arguments.
    let dims = [-1i64];
    assert!(unsafe { (s.acl.aclCreateTensorDesc)(0, 1, dims.as_ptr(), 2) }.is_null());
    assert!(s.msg().contains("static shapes"));
    assert!(unsafe { (s.acl.aclCreateTensorDesc)(5, 0, null_mut(), 2) }.is_null());
    assert!(s.msg().contains("data type 5"));
    // Freed between issue and run: the sync names the op and the operand.
    let ins = op(s, &[4], &[(x, 16)]);
    s.ok(execute(s, "Relu", &ins, &outs, null_mut(), st));
    s.ok(unsafe { (s.acl.aclrtFree)(x) });
    assert_eq!(s.sync(st), 507015);
    let m = s.msg();
    assert!(
        m.contains("kernel `Relu` input 0") && m.contains("use after free"),
        "{m}"
    );
}

#[test]
fn a_real_kernel_computes_and_is_counted() {
    let (_g, s) = Sim::lock("");
    let (a, b, y) = (s.malloc(16), s.malloc(16), s.malloc(16));
    s.h2d(a, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    s.h2d(b, &f32s(&[0.5, -2.0, 10.0, 0.0]));
    let st = s.stream();
    let ins = op(s, &[4], &[(a, 16), (b, 16)]);
    let outs = op(s, &[4], &[(y, 16)]);
    s.ok(execute(s, "Add", &ins, &outs, null_mut(), st));
    // Issued, not run: the output still holds the poison byte.
    assert_eq!(s.d2h(y, 4), vec![0xA5; 4]);
    s.ok(s.sync(st));
    assert_eq!(to_f32s(&s.d2h(y, 16)), vec![1.5, 0.0, 13.0, 4.0]);
    let rep = s.report();
    assert_eq!(rep["kernels_run"], 1);
    assert_eq!(rep["opaque_kernels"], 0);
}

#[test]
fn a_kernel_error_fails_the_sync_naming_the_op_and_the_reason() {
    let (_g, s) = Sim::lock("");
    let (a, b, y) = (s.malloc(24), s.malloc(16), s.malloc(24));
    let st = s.stream();
    // Shapes [2,3] and [4] do not broadcast.
    let da = unsafe { (s.acl.aclCreateTensorDesc)(0, 2, [2i64, 3].as_ptr(), 2) };
    let db = unsafe { (s.acl.aclCreateTensorDesc)(0, 1, [4i64].as_ptr(), 2) };
    let dy = unsafe { (s.acl.aclCreateTensorDesc)(0, 2, [2i64, 3].as_ptr(), 2) };
    let ins = Op {
        descs: vec![da, db],
        bufs: vec![unsafe { (s.acl.aclCreateDataBuffer)(a, 24) }, unsafe {
            (s.acl.aclCreateDataBuffer)(b, 16)
        }],
    };
    let outs = Op {
        descs: vec![dy],
        bufs: vec![unsafe { (s.acl.aclCreateDataBuffer)(y, 24) }],
    };
    s.ok(execute(s, "Add", &ins, &outs, null_mut(), st));
    assert_eq!(s.sync(st), 507015);
    let m = s.msg();
    assert!(
        m.contains("kernel `Add` failed:") && m.len() > "kernel `Add` failed: ".len() + 20,
        "{m}"
    );
    // Reported once: the stream is usable again.
    s.ok(s.sync(st));
}

#[test]
fn opaque_output_depends_on_the_input_bytes() {
    let (_g, s) = Sim::lock("opaque_kernels=1");
    let (x, y1, y2) = (s.malloc(16), s.malloc(16), s.malloc(16));
    let st = s.stream();
    let mut outs = Vec::new();
    for (v, y) in [(1.0f32, y1), (2.0, y2)] {
        s.h2d(x, &f32s(&[v; 4]));
        let ins = op(s, &[4], &[(x, 16)]);
        let o = op(s, &[4], &[(y, 16)]);
        s.ok(execute(s, "NoSuchOpType", &ins, &o, null_mut(), st));
        s.ok(s.sync(st));
        outs.push(s.d2h(y, 16));
    }
    assert_ne!(outs[0], vec![0xA5; 16], "the stand-in wrote its output");
    assert_ne!(outs[0], outs[1], "different input bytes, different output");
}
