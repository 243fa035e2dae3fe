//! `resnet`: an inference ResNet in NCHW. A 7x7 stride-4 stem, then residual blocks
//! (Conv2D, Relu, Conv2D, Add with the skip path, Relu) spread over four stages in
//! ResNet-50's 3:4:6:3 proportion; each later stage starts with a stride-2 block whose skip
//! path is a 1x1 stride-2 projection Conv2D. Weights are splat `Const`s. The head is a
//! global ReduceSum over H, W and a MatMul classifier.

use std::io;

use super::{ints, splat, Style};
use crate::builder::Builder;
use crate::ops::*;
use crate::rng::Rng;
use crate::sink::{Attr, Sink, Val};
use crate::types::{tensor, DType, Ty};

const CLASSES: i64 = 10;
const WEIGHT_LITERALS: [&str; 4] = ["0.01", "0.02", "-0.01", "0.005"];

/// The network's sizes: batch, image side and the stem's channels (8, 224 and 64; with
/// small tensors 1, 32 and 8, so the deepest stage is 1x1 with 64 channels).
#[derive(Clone, Copy)]
struct Dims {
    batch: i64,
    image: i64,
    channels: i64,
}

impl Dims {
    fn act(self, c: i64, hw: i64) -> Ty {
        tensor(DType::F32, &[self.batch, c, hw, hw])
    }
}

/// Blocks per stage: `units` split 3:4:6:3, every stage non-empty when there are 4+ blocks.
fn stage_blocks(units: u64) -> Vec<u64> {
    if units < 4 {
        return vec![units];
    }
    let weights = [3u64, 4, 6, 3];
    let mut blocks: Vec<u64> = weights.iter().map(|w| (units * w / 16).max(1)).collect();
    let assigned: u64 = blocks.iter().sum();
    // Rounding leftovers go to the largest stage (ResNet's third), as in deeper ResNets.
    blocks[2] = (blocks[2] + units).saturating_sub(assigned).max(1);
    blocks
}

struct ConvSpec {
    c_in: i64,
    c_out: i64,
    kernel: i64,
    stride: i64,
}

fn conv<S: Sink>(
    b: &mut Builder<S>,
    rng: &mut Rng,
    name: &str,
    x: Val,
    spec: ConvSpec,
    out: Ty,
) -> io::Result<Val> {
    let ConvSpec {
        c_in,
        c_out,
        kernel,
        stride,
    } = spec;
    let fty = tensor(DType::F32, &[c_out, c_in, kernel, kernel]);
    let filter = splat(b, format!("{name}/weight"), fty, rng.pick(&WEIGHT_LITERALS))?;
    let pad = kernel / 2;
    let attrs = vec![
        ("data_format", Attr::Str("NCHW")),
        ("dilations", Attr::Ints(vec![1, 1, 1, 1])),
        ("groups", Attr::Int(1)),
        ("pads", Attr::Ints(vec![pad, pad, pad, pad])),
        ("strides", Attr::Ints(vec![1, 1, stride, stride])),
    ];
    b.op(&CONV2D, name.to_string(), &[x, filter], attrs, out)
}

pub fn generate<S: Sink>(
    units: u64,
    seed: u64,
    style: Style,
    b: &mut Builder<S>,
) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let dims = if style.small_tensors {
        Dims {
            batch: 1,
            image: 32,
            channels: 8,
        }
    } else {
        Dims {
            batch: 8,
            image: 224,
            channels: 64,
        }
    };
    let image = tensor(DType::F32, &[dims.batch, 3, dims.image, dims.image]);
    let logits = tensor(DType::F32, &[dims.batch, CLASSES]);
    b.begin("main", false, &[image], &[logits])?;
    let img = b.data("input/image".into(), 0)?;
    let stem_spec = ConvSpec {
        c_in: 3,
        c_out: dims.channels,
        kernel: 7,
        stride: 4,
    };
    // 7x7, pad 3, stride 4: 224 -> 56, 32 -> 8.
    let (mut c, mut hw) = (dims.channels, (dims.image + 6 - 7) / 4 + 1);
    let stem = conv(b, &mut rng, "stem/conv", img, stem_spec, dims.act(c, hw))?;
    let mut x = b.op(&RELU, "stem/relu".into(), &[stem], vec![], dims.act(c, hw))?;
    for (stage, blocks) in stage_blocks(units).into_iter().enumerate() {
        for block in 0..blocks {
            let p = format!("stage{stage}/block{block}");
            let downsample = stage > 0 && block == 0;
            let (c_in, hw_in) = (c, hw);
            if downsample {
                c *= 2;
                hw /= 2;
            }
            let out = dims.act(c, hw);
            let stride = if downsample { 2 } else { 1 };
            // The first conv is 3x3 or a cheaper 1x1 (seed-dependent), keeping H, W.
            let kernel = if rng.percent(25) { 1 } else { 3 };
            let spec = ConvSpec {
                c_in,
                c_out: c,
                kernel,
                stride,
            };
            let c1 = conv(b, &mut rng, &format!("{p}/conv1"), x.clone(), spec, out)?;
            let r1 = b.op(&RELU, format!("{p}/relu1"), &[c1], vec![], out)?;
            let spec = ConvSpec {
                c_in: c,
                c_out: c,
                kernel: 3,
                stride: 1,
            };
            let c2 = conv(b, &mut rng, &format!("{p}/conv2"), r1, spec, out)?;
            let skip = if downsample {
                let spec = ConvSpec {
                    c_in,
                    c_out: c,
                    kernel: 1,
                    stride: 2,
                };
                conv(b, &mut rng, &format!("{p}/shortcut"), x, spec, out)?
            } else {
                debug_assert_eq!((c_in, hw_in), (c, hw));
                x
            };
            let sum = b.op(&ADD, format!("{p}/add"), &[c2, skip], vec![], out)?;
            x = b.op(&RELU, format!("{p}/relu2"), &[sum], vec![], out)?;
        }
    }
    let axes = ints(
        b,
        "head/pool_axes".into(),
        tensor(DType::I64, &[2]),
        &[2, 3],
    )?;
    let pooled_ty = tensor(DType::F32, &[dims.batch, c]);
    let pooled = b.op(
        &REDUCE_SUM,
        "head/pool".into(),
        &[x, axes],
        vec![("keep_dims", Attr::Bool(false))],
        pooled_ty,
    )?;
    let fc_w = splat(
        b,
        "head/fc/weight".into(),
        tensor(DType::F32, &[c, CLASSES]),
        "0.01",
    )?;
    let attrs = vec![
        ("transpose_x1", Attr::Bool(false)),
        ("transpose_x2", Attr::Bool(false)),
    ];
    let out = b.op(&MAT_MUL, "head/fc".into(), &[pooled, fc_w], attrs, logits)?;
    b.end(&[out])
}

#[cfg(test)]
mod tests {
    use super::stage_blocks;

    #[test]
    fn stages_partition_units() {
        for units in 1..200 {
            let s = stage_blocks(units);
            assert_eq!(s.iter().sum::<u64>(), units, "{units}");
            assert!(s.iter().all(|&n| n > 0));
        }
    }
}
