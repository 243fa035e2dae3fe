//! `geSimConfigure("key=value;...")`: the scheduler's settings, the device parameters of
//! the cost model and the resource limits (small limits let tests reach every error code
//! cheaply).

use crate::cost::DeviceParams;
use crate::errors::{fail, SimResult, INVALID_PARAM};

/// How the scheduler orders and times ready tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Every duration is scaled by a uniform factor in `[1-jitter, 1+jitter]`.
    Uniform,
    /// As `Uniform`, but every task of user stream `N` (on any device) lasts
    /// `delay_factor` times longer: a slow stream exposes a missing wait.
    DelayStream(u32),
    /// Ready streams start in reverse order and equal end times complete in reverse.
    Reverse,
    /// No jitter: every ready task starts at once with its nominal duration.
    MaxOverlap,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub seed: u64,
    pub mode: Mode,
    pub jitter: f64,
    pub delay_factor: f64,
    pub trace: bool,
    /// The race detector (src/race): off by default, so plain runs pay nothing.
    pub race: bool,
    pub opaque_kernels: bool,
    pub device_count: u32,
    /// Streams per device, the default stream included (1984 on Atlas A2/A3).
    pub max_streams: u32,
    /// Events per device (65536).
    pub max_events: u32,
    /// Notifies per device (8192 on Atlas A2/A3).
    pub max_notifies: u32,
    /// Tasks queued (or recorded into a model) per stream.
    pub max_tasks_per_stream: u32,
    /// Device memory per device, in bytes.
    pub memory_bytes: u64,
    /// Simulated time one `aclrtStreamQuery`/`aclrtQueryEventStatus` lets pass.
    pub poll_ns: u64,
    /// Tasks one synchronize call may complete before it gives up (a model that loops
    /// forever must not hang the host).
    pub watchdog_tasks: u64,
    pub device: DeviceParams,
}

impl Default for Config {
    fn default() -> Config {
        let device = DeviceParams::default();
        Config {
            seed: 0,
            mode: Mode::Uniform,
            jitter: 0.25,
            delay_factor: 50.0,
            trace: false,
            race: false,
            opaque_kernels: false,
            device_count: 8,
            max_streams: 1984,
            max_events: 65536,
            max_notifies: 8192,
            max_tasks_per_stream: 1 << 20,
            memory_bytes: device.hbm_bytes,
            poll_ns: 10_000,
            watchdog_tasks: 20_000_000,
            device,
        }
    }
}

/// What `geSimConfigure` asked for beyond settings.
#[derive(Debug, Default, Clone, Copy)]
pub struct Actions {
    /// `reset=1`: drop every device object and statistic, restore the defaults, then
    /// apply the other keys (the init state stays: ACL inits once per process).
    pub reset: bool,
    /// `clear_report=1`: start the report's statistics afresh.
    pub clear_report: bool,
}

fn num<T: std::str::FromStr>(key: &str, value: &str) -> SimResult<T> {
    match value.trim().replace('_', "").parse() {
        Ok(v) => Ok(v),
        Err(_) => fail!(
            INVALID_PARAM,
            "geSimConfigure: `{key}={value}` is not a valid number"
        ),
    }
}

fn flag(key: &str, value: &str) -> SimResult<bool> {
    match value.trim() {
        "1" | "true" | "on" => Ok(true),
        "0" | "false" | "off" => Ok(false),
        _ => fail!(
            INVALID_PARAM,
            "geSimConfigure: `{key}={value}` is not 0 or 1"
        ),
    }
}

/// Splits `text` into its `key=value` pairs, checking every key before any takes effect.
pub fn parse(text: &str) -> SimResult<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((k, v)) = item.split_once('=') else {
            fail!(INVALID_PARAM, "geSimConfigure: `{item}` is not key=value");
        };
        pairs.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    Ok(pairs)
}

impl Config {
    /// Applies `pairs` to a copy and returns it: a bad key or value changes nothing.
    pub fn with(&self, pairs: &[(String, String)]) -> SimResult<(Config, Actions)> {
        let mut c = self.clone();
        let mut actions = Actions::default();
        for (k, v) in pairs {
            let v = v.as_str();
            match k.as_str() {
                "reset" => actions.reset = flag(k, v)?,
                "clear_report" => actions.clear_report = flag(k, v)?,
                "seed" => c.seed = num(k, v)?,
                "mode" => c.mode = parse_mode(v)?,
                "jitter" => {
                    let j: f64 = num(k, v)?;
                    if !(0.0..1.0).contains(&j) {
                        fail!(
                            INVALID_PARAM,
                            "geSimConfigure: jitter={v} must be in [0, 1)"
                        );
                    }
                    c.jitter = j;
                }
                "delay_factor" => c.delay_factor = positive(k, v)?,
                "trace" => c.trace = flag(k, v)?,
                "race" => c.race = flag(k, v)?,
                "opaque_kernels" => c.opaque_kernels = flag(k, v)?,
                "device_count" => {
                    // Each device owns 1 TiB of the fake address space above 0x1000_0000_0000.
                    c.device_count = count(k, v, 1)?;
                    if c.device_count > 1024 {
                        fail!(INVALID_PARAM, "geSimConfigure: device_count={v} is more than 1024");
                    }
                }
                "max_streams" => c.max_streams = count(k, v, 1)?,
                "max_events" => c.max_events = count(k, v, 0)?,
                "max_notifies" => c.max_notifies = count(k, v, 0)?,
                "max_tasks_per_stream" => c.max_tasks_per_stream = count(k, v, 1)?,
                "memory_bytes" => c.memory_bytes = num(k, v)?,
                "poll_ns" => c.poll_ns = num(k, v)?,
                "watchdog_tasks" => c.watchdog_tasks = num(k, v)?,
                "peak_flops" => c.device.peak_flops = positive(k, v)?,
                "vector_flops" => c.device.vector_flops = positive(k, v)?,
                "hbm_bandwidth" => c.device.hbm_bandwidth = positive(k, v)?,
                "host_bandwidth" => c.device.host_bandwidth = positive(k, v)?,
                "link_bandwidth" => c.device.link_bandwidth = positive(k, v)?,
                "launch_ns" => c.device.launch_ns = num(k, v)?,
                "control_ns" => c.device.control_ns = num(k, v)?,
                "hccl_latency_ns" => c.device.hccl_latency_ns = num(k, v)?,
                _ => fail!(
                    INVALID_PARAM,
                    "geSimConfigure: unknown key `{k}` (known: seed, mode, jitter, delay_factor, \
                     trace, race, opaque_kernels, device_count, max_streams, max_events, max_notifies, \
                     max_tasks_per_stream, memory_bytes, poll_ns, watchdog_tasks, peak_flops, \
                     vector_flops, hbm_bandwidth, host_bandwidth, link_bandwidth, launch_ns, \
                     control_ns, hccl_latency_ns, reset, clear_report)"
                ),
            }
        }
        Ok((c, actions))
    }

    /// The jitter actually drawn from: `max-overlap` has none.
    pub fn effective_jitter(&self) -> f64 {
        if self.mode == Mode::MaxOverlap {
            0.0
        } else {
            self.jitter
        }
    }
}

fn positive(key: &str, value: &str) -> SimResult<f64> {
    let x: f64 = num(key, value)?;
    if !(x > 0.0 && x.is_finite()) {
        fail!(
            INVALID_PARAM,
            "geSimConfigure: `{key}={value}` must be positive"
        );
    }
    Ok(x)
}

fn count(key: &str, value: &str, min: u32) -> SimResult<u32> {
    let x: u32 = num(key, value)?;
    if x < min {
        fail!(
            INVALID_PARAM,
            "geSimConfigure: `{key}={value}` must be at least {min}"
        );
    }
    Ok(x)
}

fn parse_mode(v: &str) -> SimResult<Mode> {
    Ok(match v {
        "uniform" => Mode::Uniform,
        "reverse" => Mode::Reverse,
        "max-overlap" => Mode::MaxOverlap,
        _ => match v.strip_prefix("delay-stream:") {
            Some(n) => Mode::DelayStream(num("mode", n)?),
            None => fail!(
                INVALID_PARAM,
                "geSimConfigure: mode `{v}` is not uniform, delay-stream:N, reverse or max-overlap"
            ),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_apply_and_a_bad_one_changes_nothing() {
        let c = Config::default();
        let (c2, _) = c
            .with(&parse("seed=7; mode=delay-stream:2;jitter=0.5;max_streams=4").unwrap())
            .unwrap();
        assert_eq!(
            (c2.seed, c2.mode, c2.jitter, c2.max_streams),
            (7, Mode::DelayStream(2), 0.5, 4)
        );
        assert!(c.with(&parse("seed=1;bogus=2").unwrap()).is_err());
        assert!(c.with(&parse("jitter=1.5").unwrap()).is_err());
        assert!(c.with(&parse("device_count=5000").unwrap()).is_err());
        assert!(parse("seed").is_err());
    }
}
