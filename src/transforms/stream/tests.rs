//! Unit tests of the IR side of stream allocation (the rules themselves are tested in
//! `analysis::stream::tests`; the lit tests in test/Transforms/Stream cover the pass end to
//! end).
