//! Float formats the `.ge` format writes literals for (`f16`, `bf16`, `f32`, `f64`): rounding
//! a literal to the element type, encoding it for a raw dense buffer, and printing the
//! shortest decimal that reads back to the same value, so `.ge -> mlir -> .ge` is exact.
//!
//! Rust has no `f16`/`bf16` arithmetic on stable, and MLIR's C API offers no element accessor
//! for them, hence this small IEEE-754 model (round to nearest, ties to even).

/// An IEEE binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatKind {
    F16,
    BF16,
    F32,
    F64,
}

impl FloatKind {
    /// Exponent and fraction bits.
    fn layout(self) -> (u32, u32) {
        match self {
            FloatKind::F16 => (5, 10),
            FloatKind::BF16 => (8, 7),
            FloatKind::F32 => (8, 23),
            FloatKind::F64 => (11, 52),
        }
    }

    pub fn bits(self) -> u32 {
        let (e, m) = self.layout();
        1 + e + m
    }

    /// Rounds `v` to the nearest value of this format (ties to even; overflow gives inf).
    pub fn round(self, v: f64) -> f64 {
        let (e_bits, m_bits) = self.layout();
        if self == FloatKind::F64 || !v.is_finite() || v == 0.0 {
            return v;
        }
        let bias = (1i32 << (e_bits - 1)) - 1;
        let emin = 1 - bias;
        let a = v.abs();
        let exp = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(emin);
        let quantum = pow2(exp - m_bits as i32);
        let r = (a / quantum).round_ties_even() * quantum;
        let max = (2.0 - pow2(-(m_bits as i32))) * pow2(bias);
        let r = if r > max { f64::INFINITY } else { r };
        r.copysign(v)
    }

    /// Whether a finite literal overflows this format.
    pub fn overflows(self, v: f64) -> bool {
        v.is_finite() && self.round(v).is_infinite()
    }

    /// The bit pattern of `v` (already representable, see [`FloatKind::round`]).
    pub fn encode(self, v: f64) -> u64 {
        let (e_bits, m_bits) = self.layout();
        if self == FloatKind::F64 {
            return v.to_bits();
        }
        if self == FloatKind::F32 {
            return u64::from((v as f32).to_bits());
        }
        let sign = u64::from(v.is_sign_negative()) << (e_bits + m_bits);
        let exp_all = (1u64 << e_bits) - 1;
        if v.is_nan() {
            return (exp_all << m_bits) | (1 << (m_bits - 1));
        }
        if v.is_infinite() {
            return sign | (exp_all << m_bits);
        }
        let a = self.round(v).abs();
        if a == 0.0 {
            return sign;
        }
        let bias = (1i32 << (e_bits - 1)) - 1;
        let emin = 1 - bias;
        let exp = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        if exp < emin {
            let mant = (a / pow2(emin - m_bits as i32)) as u64;
            sign | mant
        } else {
            let mant = (a / pow2(exp - m_bits as i32)) as u64 - (1 << m_bits);
            sign | (((exp + bias) as u64) << m_bits) | mant
        }
    }

    /// The value of a bit pattern of this format.
    pub fn decode(self, bits: u64) -> f64 {
        let (e_bits, m_bits) = self.layout();
        match self {
            FloatKind::F64 => return f64::from_bits(bits),
            FloatKind::F32 => return f64::from(f32::from_bits(bits as u32)),
            _ => {}
        }
        let negative = (bits >> (e_bits + m_bits)) & 1 == 1;
        let exp_field = ((bits >> m_bits) & ((1 << e_bits) - 1)) as i32;
        let mant = bits & ((1 << m_bits) - 1);
        let bias = (1i32 << (e_bits - 1)) - 1;
        let value = if exp_field == (1 << e_bits) - 1 {
            if mant == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if exp_field == 0 {
            mant as f64 * pow2(1 - bias - m_bits as i32)
        } else {
            (mant as f64 + pow2(m_bits as i32)) * pow2(exp_field - bias - m_bits as i32)
        };
        if negative {
            -value
        } else {
            value
        }
    }

    /// Parses a `.ge` float literal (`1.5`, `-2.0e3`, `inf`, `-inf`, `nan`) or integer text
    /// and rounds it to this format.
    pub fn parse(self, text: &str) -> Option<f64> {
        let v = if self == FloatKind::F32 {
            f64::from(text.parse::<f32>().ok()?)
        } else {
            text.parse::<f64>().ok()?
        };
        Some(self.round(v))
    }

    /// The shortest `.ge` literal that reads back to `v` in this format.
    pub fn format(self, v: f64) -> String {
        if v.is_nan() {
            return "nan".into();
        }
        if v.is_infinite() {
            return if v < 0.0 { "-inf" } else { "inf" }.into();
        }
        let text = match self {
            FloatKind::F32 => format!("{:?}", v as f32),
            FloatKind::F64 => format!("{v:?}"),
            FloatKind::F16 | FloatKind::BF16 => {
                // The fewest significant digits that round back to the same value.
                let short = (0..17)
                    .map(|digits| format!("{v:.digits$e}"))
                    .find(|s| s.parse::<f64>().ok().map(|w| self.round(w)) == Some(v))
                    .and_then(|s| s.parse::<f64>().ok())
                    .unwrap_or(v);
                format!("{short:?}")
            }
        };
        with_fraction(text)
    }
}

/// The format requires digits after a decimal point: `1e-7` -> `1.0e-7`.
fn with_fraction(text: String) -> String {
    if text.contains('.') {
        return text;
    }
    match text.find(['e', 'E']) {
        Some(at) => format!("{}.0{}", &text[..at], &text[at..]),
        None => format!("{text}.0"),
    }
}

fn pow2(e: i32) -> f64 {
    2f64.powi(e)
}

#[cfg(test)]
mod tests {
    use super::FloatKind::*;

    #[test]
    fn f16_rounding_and_bits() {
        assert_eq!(F16.round(0.1), 0.0999755859375);
        assert_eq!(F16.encode(1.0), 0x3C00);
        assert_eq!(F16.encode(-2.0), 0xC000);
        assert_eq!(F16.encode(65504.0), 0x7BFF);
        assert!(F16.overflows(65520.0));
        assert!(!F16.overflows(65519.0));
        assert_eq!(F16.encode(f64::INFINITY), 0x7C00);
        assert_eq!(F16.encode(5.960464477539063e-8), 0x0001);
        assert_eq!(F16.decode(0x0001), 5.960464477539063e-8);
        assert_eq!(F16.decode(0x3555), F16.round(1.0 / 3.0));
        for bits in [0x3C00u64, 0x0400, 0x03FF, 0x7BFF, 0x8001, 0x3555] {
            assert_eq!(F16.encode(F16.decode(bits)), bits);
        }
    }

    #[test]
    fn bf16_matches_f32_truncation_rules() {
        assert_eq!(BF16.encode(1.0), 0x3F80);
        // 1 + 2^-8 is a tie between 1.0 and 1 + 2^-7: ties to even gives 1.0.
        assert_eq!(BF16.round(1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(BF16.decode(0x4049), 3.140625);
    }

    #[test]
    fn shortest_literals_read_back() {
        assert_eq!(F32.format(1.0), "1.0");
        assert_eq!(F32.format(f64::from(0.1f32)), "0.1");
        assert_eq!(F32.format(1e-7f32 as f64), "1.0e-7");
        assert_eq!(F64.format(0.1), "0.1");
        assert_eq!(F16.format(F16.round(0.1)), "0.1");
        assert_eq!(BF16.format(BF16.round(1.2345)), "1.234");
        assert_eq!(F16.format(f64::NEG_INFINITY), "-inf");
        assert_eq!(F32.format(f64::NAN), "nan");
        assert_eq!(F16.parse("nan").map(f64::is_nan), Some(true));
        assert_eq!(F32.parse("-inf"), Some(f64::NEG_INFINITY));
    }
}
