use super::util::*;
