//! Single-op execution: tensor descriptors, data buffers, op attributes and
//! `aclopExecuteV2`, which copies all of them into a kernel task.

use std::sync::Arc;

use ascend_kernels::{types::element_count, AttrValue, Attrs, DType};
use smallvec::SmallVec;

use crate::errors::*;
use crate::handles::{bad_handle, get, get_mut, Id, Kind};
use crate::sim::{DataBuffer, Sim};
use crate::task::{KernelTask, Operand, Task, TensorDesc};

impl Sim {
    pub fn create_desc(&mut self, dtype: i32, dims: &[i64], format: i32) -> SimResult<Id> {
        let what = "aclCreateTensorDesc";
        let Some(dtype) = DType::from_acl(dtype) else {
            fail!(
                INVALID_PARAM,
                "{what}: data type {dtype} is not a supported aclDataType"
            );
        };
        if let Some((i, d)) = dims.iter().enumerate().find(|(_, d)| **d < 0) {
            fail!(
                INVALID_PARAM,
                "{what}: dimension {i} is {d}; only static shapes can run"
            );
        }
        if !matches!(format, 0..=4 | 29) {
            fail!(
                INVALID_PARAM,
                "{what}: format {format} is not NCHW, NHWC, ND, NC1HWC0, FRACTAL_Z or FRACTAL_NZ"
            );
        }
        let id = self.handles.next(Kind::TensorDesc);
        self.descs.insert(
            id,
            Arc::new(TensorDesc {
                dtype,
                dims: dims.to_vec(),
                format,
            }),
        );
        Ok(id)
    }

    pub fn destroy_desc(&mut self, d: Id) -> SimResult<()> {
        get(&self.descs, d, Kind::TensorDesc, "aclDestroyTensorDesc")?;
        self.descs.remove(&d);
        Ok(())
    }

    pub fn create_buffer(&mut self, addr: u64, size: u64) -> Id {
        let id = self.handles.next(Kind::DataBuffer);
        self.buffers.insert(id, DataBuffer { addr, size });
        id
    }

    pub fn destroy_buffer(&mut self, b: Id) -> SimResult<()> {
        get(&self.buffers, b, Kind::DataBuffer, "aclDestroyDataBuffer")?;
        self.buffers.remove(&b);
        Ok(())
    }

    pub fn create_attr(&mut self) -> Id {
        let id = self.handles.next(Kind::OpAttr);
        self.attrs.insert(id, Arc::new(Attrs::default()));
        id
    }

    pub fn destroy_attr(&mut self, a: Id) -> SimResult<()> {
        get(&self.attrs, a, Kind::OpAttr, "aclopDestroyAttr")?;
        self.attrs.remove(&a);
        Ok(())
    }

    /// Sets an attribute. Tasks already issued keep the values they were issued with
    /// (copy on write).
    pub fn set_attr(&mut self, a: Id, name: &str, value: AttrValue, what: &str) -> SimResult<()> {
        let attrs = get_mut(&mut self.attrs, a, Kind::OpAttr, what)?;
        Arc::make_mut(attrs).set(name, value);
        Ok(())
    }

    /// One operand of `op`; the messages are formatted only when something is wrong (this
    /// is the hot path of issuing a kernel).
    fn operand(
        &self,
        desc: Id,
        buf: Id,
        side: &str,
        i: usize,
        op: &str,
        check_memory: bool,
    ) -> SimResult<Operand> {
        let what = || format!("aclopExecuteV2 `{op}` {side} {i}");
        let Some(d) = self.descs.get(&desc) else {
            return Err(bad_handle(
                desc,
                Kind::TensorDesc,
                &format!("{} desc", what()),
            ));
        };
        let Some(b) = self.buffers.get(&buf) else {
            return Err(bad_handle(
                buf,
                Kind::DataBuffer,
                &format!("{} buffer", what()),
            ));
        };
        let len = (element_count(&d.dims) * d.dtype.size()) as u64;
        if b.size < len {
            fail!(
                INVALID_PARAM,
                "{}: the buffer holds {} bytes but its desc ({:?} {:?}) needs {len}",
                what(),
                b.size,
                d.dtype,
                d.dims
            );
        }
        if check_memory && len > 0 && self.mem.check("", b.addr, len).is_err() {
            self.mem.check(&what(), b.addr, len)?;
        }
        Ok(Operand {
            desc: Arc::clone(d),
            addr: b.addr,
            len,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn execute_op(
        &mut self,
        cur: Option<u32>,
        op_type: &str,
        inputs: &[(Id, Id)],
        outputs: &[(Id, Id)],
        attr: Id,
        stream: Id,
    ) -> SimResult<()> {
        let what = "aclopExecuteV2";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        let op = self.intern_op(op_type);
        if !self.op_has_kernel[op as usize] && !self.cfg.opaque_kernels {
            fail!(
                OP_NOT_FOUND,
                "{what}: no kernel for op type `{op_type}` (geSimConfigure(\"opaque_kernels=1\") runs a stand-in)"
            );
        }
        let check = !self.streams[&s]
            .model
            .is_some_and(|m| self.models.get(&m).is_some_and(|m| m.building));
        let ins = inputs
            .iter()
            .enumerate()
            .map(|(i, &(d, b))| self.operand(d, b, "input", i, op_type, check))
            .collect::<SimResult<SmallVec<[Operand; 4]>>>()?;
        let outs = outputs
            .iter()
            .enumerate()
            .map(|(i, &(d, b))| self.operand(d, b, "output", i, op_type, check))
            .collect::<SimResult<SmallVec<[Operand; 2]>>>()?;
        let attrs = if attr == 0 {
            Arc::clone(&self.no_attrs)
        } else {
            Arc::clone(get(&self.attrs, attr, Kind::OpAttr, what)?)
        };
        let node = self.race.take_name(s);
        self.enqueue(
            s,
            Task::Kernel(KernelTask {
                op,
                inputs: ins,
                outputs: outs,
                attrs,
                node,
            }),
            what,
        )
    }
}
