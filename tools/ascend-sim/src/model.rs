//! Model runtime instances (`aclmdlRI*`), labels and stream control.
//!
//! Between BuildBegin and BuildEnd every task issued to a bound stream is recorded into
//! that stream's program. Each ExecuteAsync replays all programs from a clean control
//! state: program counters at 0, only HEAD streams running. A DEFAULT stream runs when a
//! STREAM_ACTIVE (or a taken STREAM_SWITCH) starts it, and is idle again once it runs past
//! its last task. LabelSwitchByIndex continues its own stream after the LabelSet of the
//! chosen label; BuildEnd checks that each label is set on the stream that jumps to it.

use std::sync::Arc;

use crate::errors::*;
use crate::handles::{get, get_mut, Id, Kind};
use crate::sim::{Label, LabelList, Model, Sim, BIND_DEFAULT, BIND_HEAD};
use crate::task::{Condition, Task};

impl Sim {
    pub fn create_label(&mut self, cur: Option<u32>) -> SimResult<Id> {
        self.require_init("aclrtCreateLabel")?;
        let dev = self.current(cur, "aclrtCreateLabel")?;
        let id = self.handles.next(Kind::Label);
        self.labels.insert(id, Label { dev, set_at: None });
        Ok(id)
    }

    pub fn destroy_label(&mut self, l: Id) -> SimResult<()> {
        self.require_init("aclrtDestroyLabel")?;
        get(&self.labels, l, Kind::Label, "aclrtDestroyLabel")?;
        self.labels.remove(&l);
        Ok(())
    }

    pub fn set_label(&mut self, cur: Option<u32>, l: Id, stream: Id) -> SimResult<()> {
        let what = "aclrtSetLabel";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        self.capturing(s, what)?;
        let label = get(&self.labels, l, Kind::Label, what)?;
        if let Some((other, pos)) = label.set_at {
            let on = self
                .streams
                .get(&other)
                .map_or("a destroyed stream", |s| s.label.as_str());
            fail!(
                RT_PARAM_INVALID,
                "{what}: the label is already set on {on} at task {pos}"
            );
        }
        let pos = self.streams[&s].program.len();
        self.enqueue(s, Task::LabelSet { label: l }, what)?;
        self.labels.get_mut(&l).expect("checked").set_at = Some((s, pos));
        Ok(())
    }

    pub fn create_label_list(&mut self, labels: &[Id]) -> SimResult<Id> {
        let what = "aclrtCreateLabelList";
        self.require_init(what)?;
        if labels.is_empty() {
            fail!(
                INVALID_PARAM,
                "{what}: a label list needs at least one label"
            );
        }
        let mut dev = None;
        for (i, &l) in labels.iter().enumerate() {
            let label = get(&self.labels, l, Kind::Label, &format!("{what} label {i}"))?;
            if dev.is_some_and(|d| d != label.dev) {
                fail!(
                    INVALID_PARAM,
                    "{what}: label {i} belongs to another device than label 0"
                );
            }
            dev = Some(label.dev);
        }
        let id = self.handles.next(Kind::LabelList);
        self.label_lists.insert(
            id,
            LabelList {
                dev: dev.expect("non-empty"),
                labels: labels.to_vec(),
            },
        );
        Ok(id)
    }

    pub fn destroy_label_list(&mut self, l: Id) -> SimResult<()> {
        self.require_init("aclrtDestroyLabelList")?;
        get(
            &self.label_lists,
            l,
            Kind::LabelList,
            "aclrtDestroyLabelList",
        )?;
        self.label_lists.remove(&l);
        Ok(())
    }

    pub fn switch_label(
        &mut self,
        cur: Option<u32>,
        index_addr: u64,
        max: u32,
        list: Id,
        stream: Id,
    ) -> SimResult<()> {
        let what = "aclrtSwitchLabelByIndex";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        self.capturing(s, what)?;
        get(&self.label_lists, list, Kind::LabelList, what)?;
        if max == 0 {
            fail!(INVALID_PARAM, "{what}: maxValue must be at least 1");
        }
        let task = Task::LabelSwitch {
            index_addr,
            max,
            list,
            targets: Arc::from(Vec::new()),
        };
        self.enqueue(s, task, what)
    }

    fn control_target(&self, s: Id, target: Id, what: &str) -> SimResult<()> {
        let t = get(&self.streams, target, Kind::Stream, what)?;
        if t.dev != self.streams[&s].dev {
            fail!(
                RT_STREAM_CONTEXT,
                "{what}: the target {} is on another device",
                t.label
            );
        }
        Ok(())
    }

    pub fn active_stream(&mut self, cur: Option<u32>, target: Id, stream: Id) -> SimResult<()> {
        let what = "aclrtActiveStream";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        self.capturing(s, what)?;
        self.control_target(s, target, what)?;
        self.enqueue(s, Task::Active { target }, what)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn switch_stream(
        &mut self,
        cur: Option<u32>,
        left: u64,
        cond: i32,
        right: u64,
        dtype: i32,
        true_stream: Id,
        false_stream: Id,
        stream: Id,
    ) -> SimResult<()> {
        let what = "aclrtSwitchStream";
        self.require_init(what)?;
        let Some(cond) = Condition::from_acl(cond) else {
            fail!(INVALID_PARAM, "{what}: condition {cond} is not in 0..=5");
        };
        let s = self.resolve_stream(cur, stream, what)?;
        self.capturing(s, what)?;
        if dtype != 0 {
            fail!(
                INVALID_PARAM,
                "{what}: compare data type {dtype} is not ACL_RT_SWITCH_INT32 (0)"
            );
        }
        if false_stream != 0 {
            fail!(RT_FEATURE_NOT_SUPPORT, "{what}: falseStream must be NULL (GE passes NULL; the simulator supports only that)");
        }
        if left == 0 || right == 0 {
            fail!(
                INVALID_PARAM,
                "{what}: leftValue and rightValue must be device addresses"
            );
        }
        self.control_target(s, true_stream, what)?;
        self.enqueue(
            s,
            Task::Switch {
                left,
                right,
                cond,
                target: true_stream,
            },
            what,
        )
    }

    pub fn ri_build_begin(&mut self, cur: Option<u32>, flag: u32) -> SimResult<Id> {
        let what = "aclmdlRIBuildBegin";
        self.require_init(what)?;
        let dev = self.current(cur, what)?;
        if flag != 0 {
            fail!(INVALID_PARAM, "{what}: flag {flag} must be 0");
        }
        let id = self.handles.next(Kind::Model);
        self.models.insert(
            id,
            Model {
                dev,
                building: true,
                built: false,
                streams: Vec::new(),
                running_on: None,
                active_streams: 0,
                runs: 0,
            },
        );
        Ok(id)
    }

    pub fn ri_bind(&mut self, m: Id, s: Id, flag: u32) -> SimResult<()> {
        let what = "aclmdlRIBindStream";
        self.require_init(what)?;
        let model = get(&self.models, m, Kind::Model, what)?;
        if !model.building {
            fail!(RT_PARAM_INVALID, "{what}: the model RI is already built");
        }
        if flag != BIND_HEAD && flag != BIND_DEFAULT {
            fail!(
                INVALID_PARAM,
                "{what}: flag {flag:#x} is neither HEAD (0) nor DEFAULT (0x7FFFFFFF)"
            );
        }
        let dev = model.dev;
        let st = get(&self.streams, s, Kind::Stream, what)?;
        if st.dev != dev {
            fail!(
                RT_STREAM_CONTEXT,
                "{what}: {} is not on the model's device {dev}",
                st.label
            );
        }
        if st.number.is_none() {
            fail!(
                INVALID_PARAM,
                "{what}: the default stream cannot be bound to a model"
            );
        }
        if st.model.is_some() {
            fail!(
                RT_PARAM_INVALID,
                "{what}: {} is already bound to a model RI",
                st.label
            );
        }
        if !st.is_done() {
            fail!(
                RT_PARAM_INVALID,
                "{what}: {} still has unfinished tasks",
                st.label
            );
        }
        let st = self.streams.get_mut(&s).expect("checked");
        st.model = Some(m);
        st.bind_flag = flag;
        st.program.clear();
        st.pc = 0;
        self.models.get_mut(&m).expect("checked").streams.push(s);
        Ok(())
    }

    fn bound_stream(&self, m: Id, s: Id, what: &str) -> SimResult<()> {
        get(&self.models, m, Kind::Model, what)?;
        let st = get(&self.streams, s, Kind::Stream, what)?;
        if st.model != Some(m) {
            fail!(
                RT_STREAM_MODEL,
                "{what}: {} is not bound to this model RI",
                st.label
            );
        }
        Ok(())
    }

    pub fn ri_unbind(&mut self, m: Id, s: Id) -> SimResult<()> {
        let what = "aclmdlRIUnbindStream";
        self.require_init(what)?;
        self.bound_stream(m, s, what)?;
        if self.models[&m].running_on.is_some() {
            fail!(RT_PARAM_INVALID, "{what}: the model RI is running");
        }
        let st = self.streams.get_mut(&s).expect("checked");
        st.model = None;
        st.program.clear();
        st.active = false;
        self.models
            .get_mut(&m)
            .expect("checked")
            .streams
            .retain(|&x| x != s);
        Ok(())
    }

    pub fn ri_end_task(&mut self, m: Id, s: Id) -> SimResult<()> {
        let what = "aclmdlRIEndTask";
        self.require_init(what)?;
        self.bound_stream(m, s, what)?;
        self.enqueue(s, Task::EndGraph, what)
    }

    /// Ends the capture: resolves every label switch to program positions and checks that
    /// control tasks only name streams of this model.
    pub fn ri_build_end(&mut self, m: Id) -> SimResult<()> {
        let what = "aclmdlRIBuildEnd";
        self.require_init(what)?;
        let model = get(&self.models, m, Kind::Model, what)?;
        if !model.building {
            fail!(RT_PARAM_INVALID, "{what}: the model RI is already built");
        }
        let streams = model.streams.clone();
        let mut resolved: Vec<(Id, usize, Arc<[usize]>)> = Vec::new();
        for &s in &streams {
            let st = &self.streams[&s];
            for (pos, t) in st.program.iter().enumerate() {
                match t {
                    Task::LabelSwitch { list, .. } => {
                        let Some(l) = self.label_lists.get(list) else {
                            fail!(
                                RT_PARAM_INVALID,
                                "{what}: {} task {pos}: its label list was destroyed",
                                st.label
                            );
                        };
                        let mut targets = Vec::with_capacity(l.labels.len());
                        for (i, lab) in l.labels.iter().enumerate() {
                            match self.labels.get(lab).and_then(|x| x.set_at) {
                                Some((on, at)) if on == s => targets.push(at + 1),
                                Some((on, _)) => fail!(
                                    RT_PARAM_INVALID,
                                    "{what}: {} task {pos} jumps to label {i} of its list, which is set on {} \
                                     (a label must be set on the stream that jumps to it)",
                                    st.label,
                                    self.streams.get(&on).map_or("a destroyed stream", |x| x.label.as_str())
                                ),
                                None => fail!(
                                    RT_PARAM_INVALID,
                                    "{what}: {} task {pos} jumps to label {i} of its list, which is never set",
                                    st.label
                                ),
                            }
                        }
                        resolved.push((s, pos, Arc::from(targets)));
                    }
                    Task::Active { target } | Task::Switch { target, .. } => {
                        let ok = self.streams.get(target).is_some_and(|t| t.model == Some(m));
                        if !ok {
                            fail!(
                                RT_STREAM_MODEL,
                                "{what}: {} task {pos} activates a stream that is not bound to this model RI",
                                st.label
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
        for (s, pos, targets) in resolved {
            if let Task::LabelSwitch { targets: t, .. } =
                &mut self.streams.get_mut(&s).expect("bound").program[pos]
            {
                *t = targets;
            }
        }
        let model = self.models.get_mut(&m).expect("checked");
        model.building = false;
        model.built = true;
        Ok(())
    }

    pub fn ri_execute(&mut self, cur: Option<u32>, m: Id, stream: Id) -> SimResult<()> {
        let what = "aclmdlRIExecuteAsync";
        self.require_init(what)?;
        let s = self.resolve_stream(cur, stream, what)?;
        let model = get(&self.models, m, Kind::Model, what)?;
        if !model.built {
            fail!(
                RT_PARAM_INVALID,
                "{what}: the model RI is not built (call aclmdlRIBuildEnd)"
            );
        }
        if model.dev != self.streams[&s].dev {
            fail!(
                RT_STREAM_CONTEXT,
                "{what}: the model RI is on device {}, the stream is not",
                model.dev
            );
        }
        self.enqueue(s, Task::ExecModel { model: m }, what)
    }

    pub fn ri_destroy(&mut self, m: Id) -> SimResult<()> {
        let what = "aclmdlRIDestroy";
        self.require_init(what)?;
        let model = get_mut(&mut self.models, m, Kind::Model, what)?;
        if model.running_on.is_some() {
            fail!(
                RT_PARAM_INVALID,
                "{what}: the model RI is still running (synchronize its stream first)"
            );
        }
        let streams = std::mem::take(&mut model.streams);
        for s in streams {
            if let Some(st) = self.streams.get_mut(&s) {
                st.model = None;
                st.program.clear();
                st.active = false;
            }
        }
        self.models.remove(&m);
        Ok(())
    }
}
