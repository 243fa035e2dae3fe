//! The ONNX protobuf types, generated at build time by prost from `proto/onnx.proto3`
//! (see `build.rs`). No hand-written decoding: `prost::Message::decode` reads them.
#![allow(clippy::all, missing_docs)]

include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
