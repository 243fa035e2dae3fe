//! The timing model: nominal durations (ns) of every task kind on one Ascend NPU. The
//! scheduler multiplies them by a seeded jitter.
//!
//! Defaults are those of an Ascend 910B (Atlas 800T A2 class) as Huawei's product pages
//! and public benchmarks quote them; the figures are published peaks, not measurements
//! of ours (see README, "Device parameters"):
//! * cube (matrix) peak FP16 313 TFLOPS; vector units far lower, modelled at 1/16;
//! * 64 GiB HBM2e at 1.6 TB/s;
//! * host link PCIe 4.0 x16, about 32 GB/s per direction;
//! * HCCS between NPUs of one server, about 196 GB/s per direction per NPU;
//! * a task costs a fixed launch (scheduler and SQE handling) of about 2 us for a kernel
//!   and 0.5 us for a control task (event, label, activation) — an estimate in the
//!   range the Ascend and CUDA literature reports, not a datasheet number.

use ascend_kernels::Cost;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceParams {
    /// Matrix-unit FLOP/s (MatMul-like ops).
    pub peak_flops: f64,
    /// Vector-unit FLOP/s (everything else).
    pub vector_flops: f64,
    /// Device memory bytes/s.
    pub hbm_bandwidth: f64,
    pub hbm_bytes: u64,
    /// Host <-> device bytes/s.
    pub host_bandwidth: f64,
    /// Device <-> device bytes/s for collectives.
    pub link_bandwidth: f64,
    pub launch_ns: u64,
    pub control_ns: u64,
    /// Fixed start-up of one collective (synchronisation of the ranks).
    pub hccl_latency_ns: u64,
}

impl Default for DeviceParams {
    fn default() -> DeviceParams {
        DeviceParams {
            peak_flops: 313e12,
            vector_flops: 313e12 / 16.0,
            hbm_bandwidth: 1.6e12,
            hbm_bytes: 64 << 30,
            host_bandwidth: 32e9,
            link_bandwidth: 196e9,
            launch_ns: 2_000,
            control_ns: 500,
            hccl_latency_ns: 10_000,
        }
    }
}

/// Op types that run on the cube unit.
fn is_cube_op(op_type: &str) -> bool {
    matches!(
        op_type,
        "MatMul"
            | "MatMulV2"
            | "BatchMatMul"
            | "BatchMatMulV2"
            | "Conv2D"
            | "Conv3D"
            | "Conv2DBackpropInput"
            | "Conv2DBackpropFilter"
    )
}

fn secs_to_ns(s: f64) -> u64 {
    (s * 1e9).ceil() as u64
}

impl DeviceParams {
    /// A kernel: launch plus the slower of its arithmetic and its memory traffic (a
    /// roofline).
    pub fn kernel_ns(&self, op_type: &str, cost: Cost) -> u64 {
        let rate = if is_cube_op(op_type) {
            self.peak_flops
        } else {
            self.vector_flops
        };
        let compute = cost.flops.max(0.0) / rate;
        let memory = cost.bytes.max(0.0) / self.hbm_bandwidth;
        self.launch_ns + secs_to_ns(compute.max(memory))
    }

    /// A device-to-device copy reads and writes every byte.
    pub fn d2d_ns(&self, bytes: u64) -> u64 {
        self.launch_ns + secs_to_ns(2.0 * bytes as f64 / self.hbm_bandwidth)
    }

    pub fn memset_ns(&self, bytes: u64) -> u64 {
        self.launch_ns + secs_to_ns(bytes as f64 / self.hbm_bandwidth)
    }

    pub fn host_copy_ns(&self, bytes: u64) -> u64 {
        self.launch_ns + secs_to_ns(bytes as f64 / self.host_bandwidth)
    }

    /// A collective over `ranks` NPUs moving `bytes` per rank, on a ring: all-reduce sends
    /// 2(n-1)/n of the buffer, all-gather and reduce-scatter (n-1)/n of the full buffer,
    /// broadcast the buffer once.
    pub fn collective_ns(&self, kind: CollectiveShape, ranks: u32, bytes: u64) -> u64 {
        let n = ranks.max(1) as f64;
        let moved = match kind {
            CollectiveShape::AllReduce => 2.0 * (n - 1.0) / n * bytes as f64,
            CollectiveShape::Gather => (n - 1.0) / n * bytes as f64,
            CollectiveShape::Broadcast => bytes as f64,
        };
        self.hccl_latency_ns + secs_to_ns(moved / self.link_bandwidth)
    }
}

/// How much a collective moves, for [`DeviceParams::collective_ns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectiveShape {
    AllReduce,
    /// All-gather and reduce-scatter (bytes: the full, gathered buffer).
    Gather,
    Broadcast,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_kernel_costs_its_launch() {
        let p = DeviceParams::default();
        let t = p.kernel_ns(
            "Relu",
            Cost {
                flops: 16.0,
                bytes: 128.0,
            },
        );
        assert_eq!(t, p.launch_ns + 1);
    }

    #[test]
    fn roofline_picks_the_slower_side_and_cube_ops_are_faster() {
        let p = DeviceParams::default();
        // 1 GFLOP on few bytes: compute-bound.
        let mm = p.kernel_ns(
            "MatMul",
            Cost {
                flops: 1e9,
                bytes: 1e3,
            },
        );
        let add = p.kernel_ns(
            "Add",
            Cost {
                flops: 1e9,
                bytes: 1e3,
            },
        );
        assert_eq!(mm, p.launch_ns + (1e9 / 313e12 * 1e9f64).ceil() as u64);
        assert!(add > 10 * (mm - p.launch_ns));
        // 1.6 GB of traffic at 1.6 TB/s is 1 ms.
        assert_eq!(
            p.kernel_ns(
                "Add",
                Cost {
                    flops: 0.0,
                    bytes: 1.6e9
                }
            ),
            p.launch_ns + 1_000_000
        );
    }

    #[test]
    fn collectives_grow_with_ranks_and_bytes() {
        let p = DeviceParams::default();
        let two = p.collective_ns(CollectiveShape::AllReduce, 2, 1 << 20);
        let four = p.collective_ns(CollectiveShape::AllReduce, 4, 1 << 20);
        assert!(four > two && two > p.hccl_latency_ns);
        assert_eq!(
            p.collective_ns(CollectiveShape::AllReduce, 1, 1 << 20),
            p.hccl_latency_ns
        );
        assert!(p.d2d_ns(1 << 20) > p.memset_ns(1 << 20));
    }
}
