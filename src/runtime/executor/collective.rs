//! Issuing one HCCL task: one HCCL call per input/output pair (GE fuses several tensors
//! into one collective node; the library takes one buffer each), on addresses the static
//! or the dynamic path resolved. Before each call the simulator is told the node's name,
//! its op type and the pair (`geSimSetTaskName`, `geSimSetHcclTask`: simulator-only
//! entry points, looked up optionally), so its race reports and trace name the HCCL side
//! as they name kernels (``HcomAllReduce `ar` ... (output 0, tensor ar:0)``). HCCL's C API
//! has no name parameter; on a real device the two calls do nothing.

use crate::{
    lowering::model::{Collective, Operand, Reduction},
    runtime::{
        acl::{Acl, DevicePtr, Stream},
        error::RuntimeError,
        hccl::{hccl_dtype, Comm, Hccl},
    },
};

/// What one HCCL task does: the collective, its reduction and root.
#[derive(Debug, Clone, Copy)]
pub(super) struct Call<'t> {
    pub node: &'t str,
    pub collective: Collective,
    pub op: i32,
    pub root: u32,
}

impl<'t> Call<'t> {
    /// The call of an HCCL task's fields (`Task::Hccl`), as both executors issue it.
    pub fn new(node: &'t str, collective: Collective, reduction: Reduction, root: u32) -> Self {
        Call {
            node,
            collective,
            op: reduction as i32,
            root,
        }
    }
}

/// The HCCL calls of one HCCL task on `stream`: pair `j` sends `sends[j]` (input `j`) and
/// receives into `recvs[j]` (output `j`).
pub(super) fn issue(
    (acl, hccl, comm): (&Acl, &Hccl, &Comm),
    stream: &Stream,
    call: Call<'_>,
    (inputs, sends): (&[Operand], &[DevicePtr]),
    (outputs, recvs): (&[Operand], &[DevicePtr]),
) -> Result<(), RuntimeError> {
    if inputs.len() != outputs.len() || inputs.is_empty() {
        return Err(RuntimeError::Model(format!(
            "a collective with {} inputs and {} outputs",
            inputs.len(),
            outputs.len()
        )));
    }
    // A node without a name still gets its type and pair: only the name is left out.
    let name = |part: usize| -> Result<(), RuntimeError> {
        if !call.node.is_empty() {
            acl.sim_set_task_name(stream, call.node)?;
        }
        acl.sim_set_hccl_task(stream, ge_op_type(call.collective), part as u32)
    };
    let pairs = inputs.iter().zip(outputs).zip(sends.iter().zip(recvs));
    for (part, ((input, output), (&send, &recv))) in pairs.enumerate() {
        let dtype = hccl_dtype(input.desc.dtype).ok_or_else(|| {
            RuntimeError::Model(format!("HCCL has no {:?} type", input.desc.dtype))
        })?;
        let elements = |o: &Operand| o.desc.bytes() / o.desc.dtype.size().max(1) as u64;
        let (op, root) = (call.op, call.root);
        match call.collective {
            Collective::AllReduce => {
                name(part)?;
                hccl.all_reduce(send, recv, elements(input), dtype, op, comm, stream)?
            }
            Collective::Broadcast => {
                // HcclBroadcast works in place: the root's input goes to every rank's
                // output buffer. The copy is the node's too (a copy task of its own).
                if send != recv {
                    if !call.node.is_empty() {
                        acl.sim_set_task_name(stream, call.node)?;
                    }
                    acl.memcpy_async(recv, output.size, send, input.size.min(output.size), stream)?;
                }
                name(part)?;
                hccl.broadcast(recv, elements(output), dtype, root, comm, stream)?
            }
            Collective::AllGather => {
                name(part)?;
                hccl.all_gather(send, recv, elements(input), dtype, comm, stream)?
            }
            Collective::ReduceScatter => {
                name(part)?;
                hccl.reduce_scatter(send, recv, elements(output), dtype, op, comm, stream)?
            }
        }
    }
    Ok(())
}

/// GE's op type of a collective node (the inverse of the lowering's match).
pub(super) fn ge_op_type(collective: Collective) -> &'static str {
    match collective {
        Collective::AllReduce => "HcomAllReduce",
        Collective::Broadcast => "HcomBroadcast",
        Collective::AllGather => "HcomAllGather",
        Collective::ReduceScatter => "HcomReduceScatter",
    }
}
