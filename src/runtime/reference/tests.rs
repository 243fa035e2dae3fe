//! Unit tests of the reference interpreter.
