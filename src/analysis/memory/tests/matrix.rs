//! The 4x3 decision matrix (B.7): each cell as a table entry and as a graph the planner sees.

use super::support::{inserted, run_checked, src_name, B};
use crate::analysis::memory::model::{MemGraph, NodeId, Origin};
use crate::analysis::memory::rw_conflict::plan_rw_conflict;
use crate::analysis::memory::rw_types::{
    decide, mark_subgraphs, Conflict, InputRw, OutputRw, MATRIX,
};

const OUTS: [OutputRw; 4] = [
    OutputRw::ReadOnlyConst,
    OutputRw::ReadOnly,
    OutputRw::SoftRead,
    OutputRw::Writeable,
];
const INS: [InputRw; 3] = [
    InputRw::ReadOnly,
    InputRw::Writeable,
    InputRw::ScopeWriteable,
];

fn expected(o: OutputRw, i: InputRw) -> bool {
    use InputRw as I;
    use OutputRw as O;
    matches!(
        (o, i),
        (O::ReadOnlyConst, I::Writeable)
            | (O::ReadOnlyConst, I::ScopeWriteable)
            | (O::ReadOnly, I::ScopeWriteable)
            | (O::Writeable, I::ScopeWriteable)
    )
}

#[test]
fn matrix_table_uses_ge_enum_order() {
    assert_eq!(OutputRw::ReadOnlyConst as usize, 0);
    assert_eq!(OutputRw::Writeable as usize, 3);
    assert_eq!(InputRw::ScopeWriteable as usize, 2);
    let mut inserts = 0;
    for o in OUTS {
        for i in INS {
            let want = if expected(o, i) {
                Conflict::InsertIdentity
            } else {
                Conflict::DoNothing
            };
            assert_eq!(MATRIX[o as usize][i as usize], want, "{o:?} x {i:?}");
            assert_eq!(decide(o, i), want);
            inserts += usize::from(want == Conflict::InsertIdentity);
        }
    }
    assert_eq!(inserts, 4, "4 cells insert, 8 do nothing");
}

#[test]
fn invalid_on_either_side_is_wrong_graph() {
    for o in OUTS {
        assert_eq!(decide(o, InputRw::Invalid), Conflict::WrongGraph);
    }
    for i in INS {
        assert_eq!(decide(OutputRw::Invalid, i), Conflict::WrongGraph);
    }
}

/// A graph whose edge producer -> consumer:0 has exactly the types (o, i).
fn cell_graph(o: OutputRw, i: InputRw) -> (MemGraph, NodeId, NodeId) {
    let mut b = B::new();
    let p = match o {
        OutputRw::ReadOnlyConst => b.src("p", "Const"),
        OutputRw::Writeable => b.src("p", "Variable"),
        _ => b.src("p", "Relu"),
    };
    let c = match i {
        InputRw::ReadOnly => b.reader("c", 1),
        InputRw::Writeable => b.assign("c"),
        _ => b.scope_writer("c", 1),
    };
    b.e(p, 0, c, 0);
    // A second reader makes the output shared (ReadOnly), and keeps a Writeable output from
    // counting as private (B.11 skip) so the bare matrix decides.
    if matches!(o, OutputRw::ReadOnly | OutputRw::Writeable) {
        let r = b.reader("r", 1);
        b.e(p, 0, r, 0);
    }
    (b.g, p, c)
}

fn check_cell(o: OutputRw, i: InputRw) {
    let (g, p, c) = cell_graph(o, i);
    let (rw, _) = mark_subgraphs(&g).unwrap();
    assert_eq!(rw.output_type(&g, p, 0), o);
    assert_eq!(rw.input_type(&g, c, 0), i);
    let (plan, after) = run_checked(&g, plan_rw_conflict);
    let ids = inserted(&after, Origin::RwConflict);
    if expected(o, i) {
        assert_eq!(
            ids.len(),
            1,
            "{o:?} x {i:?} inserts one Identity: {:#?}",
            plan.steps
        );
        let id = ids[0];
        assert_eq!(src_name(&after, id, 0), "p");
        assert_eq!(
            src_name(&after, after.find("c").unwrap(), 0),
            &*after.node(id).name
        );
        assert!(after.node(id).name.starts_with("p_Identity"));
        let reason = after.node(id).reason.clone().unwrap();
        assert!(
            reason.contains(&o.to_string()) && reason.contains(&i.to_string()),
            "{reason}"
        );
    } else {
        assert!(
            ids.is_empty(),
            "{o:?} x {i:?} must insert nothing: {:#?}",
            plan.steps
        );
        assert_eq!(src_name(&after, after.find("c").unwrap(), 0), "p");
    }
}

#[test]
fn cell_const_x_readonly_does_nothing() {
    check_cell(OutputRw::ReadOnlyConst, InputRw::ReadOnly);
}
#[test]
fn cell_const_x_writeable_inserts_identity() {
    check_cell(OutputRw::ReadOnlyConst, InputRw::Writeable);
}
#[test]
fn cell_const_x_scope_writeable_inserts_identity() {
    check_cell(OutputRw::ReadOnlyConst, InputRw::ScopeWriteable);
}
#[test]
fn cell_readonly_x_readonly_does_nothing() {
    check_cell(OutputRw::ReadOnly, InputRw::ReadOnly);
}
#[test]
fn cell_readonly_x_writeable_does_nothing() {
    check_cell(OutputRw::ReadOnly, InputRw::Writeable);
}
#[test]
fn cell_readonly_x_scope_writeable_inserts_identity() {
    check_cell(OutputRw::ReadOnly, InputRw::ScopeWriteable);
}
#[test]
fn cell_softread_x_readonly_does_nothing() {
    check_cell(OutputRw::SoftRead, InputRw::ReadOnly);
}
#[test]
fn cell_softread_x_writeable_does_nothing() {
    check_cell(OutputRw::SoftRead, InputRw::Writeable);
}
#[test]
fn cell_softread_x_scope_writeable_does_nothing() {
    check_cell(OutputRw::SoftRead, InputRw::ScopeWriteable);
}
#[test]
fn cell_writeable_x_readonly_does_nothing() {
    check_cell(OutputRw::Writeable, InputRw::ReadOnly);
}
#[test]
fn cell_writeable_x_writeable_does_nothing() {
    check_cell(OutputRw::Writeable, InputRw::Writeable);
}
#[test]
fn cell_writeable_x_scope_writeable_inserts_identity() {
    check_cell(OutputRw::Writeable, InputRw::ScopeWriteable);
}
