//! Throughput of tiny kernels through the C ABI (issue with aclopExecuteV2, run by one
//! synchronize). Ignored by default; run with
//! `cargo test --release -p ascend-sim --test bench -- --ignored --nocapture`.

mod common;
use common::*;
use std::time::Instant;

#[test]
#[ignore]
fn tiny_kernels_per_second() {
    let (_g, s) = Sim::lock("opaque_kernels=1;max_tasks_per_stream=2000000");
    let n_streams = 4;
    let per_stream = 250_000;
    let streams: Vec<P> = (0..n_streams).map(|_| s.stream()).collect();
    let dims = [4i64];
    let mut ops = Vec::new();
    for _ in 0..n_streams {
        let (x, y) = (s.malloc(16), s.malloc(16));
        let dx = unsafe { (s.acl.aclCreateTensorDesc)(0, 1, dims.as_ptr(), 2) };
        let dy = unsafe { (s.acl.aclCreateTensorDesc)(0, 1, dims.as_ptr(), 2) };
        let bx = unsafe { (s.acl.aclCreateDataBuffer)(x, 16) };
        let by = unsafe { (s.acl.aclCreateDataBuffer)(y, 16) };
        ops.push(([dx], [bx], [dy], [by]));
    }
    let ty = c("Relu");
    let t0 = Instant::now();
    let c0 = thread_cpu_ns();
    for _ in 0..per_stream {
        for (st, (di, bi, dout, bout)) in streams.iter().zip(&ops) {
            let r = unsafe {
                (s.acl.aclopExecuteV2)(
                    ty.as_ptr(),
                    1,
                    di.as_ptr(),
                    bi.as_ptr(),
                    1,
                    dout.as_ptr(),
                    bout.as_ptr(),
                    std::ptr::null_mut(),
                    *st,
                )
            };
            assert_eq!(r, 0);
        }
    }
    let issued = t0.elapsed();
    for st in &streams {
        s.ok(s.sync(*st));
    }
    let total = t0.elapsed();
    let cpu = (thread_cpu_ns() - c0) as f64;
    let n = (n_streams * per_stream) as f64;
    let rep = s.report();
    assert_eq!(rep["tasks_by_kind"]["kernel"].as_u64().unwrap(), n as u64);
    println!(
        "{n} tiny kernels on {n_streams} streams: wall: issue {:.0} ns/task, issue+run {:.0} ns/task = {:.2} M tasks/s; \
         this thread's CPU time: {:.0} ns/task = {:.2} M tasks/s; simulated makespan {} ns",
        issued.as_nanos() as f64 / n,
        total.as_nanos() as f64 / n,
        n / total.as_secs_f64() / 1e6,
        cpu / n,
        n / cpu * 1e3,
        rep["makespan_ns"]
    );
}

/// CPU time of the calling thread: on a shared machine the wall clock measures the others.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to fill.
    assert_eq!(
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) },
        0
    );
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
