//! `black_scholes`: European call and put prices by the Black-Scholes
//! formula, one option per element.

use cg_core::prelude::*;
use core::f32::consts::SQRT_2;

/// The standard normal cumulative distribution function,
/// `0.5 * erfc(-d / sqrt(2))` (CUDA's `erfcf`).
#[inline(always)]
fn normal_cdf(d: f32) -> f32 {
    0.5 * FloatMath::erfc(-d / SQRT_2)
}

/// For each option `i` (spot price `price[i]`, strike `strike[i]`,
/// `years[i]` to expiry), with the yearly risk-free rate `riskfree` and
/// the volatility `volatility`: the call price into `call[i]` and the put
/// price into `put[i]`, in a grid-stride loop over the options (as many
/// as the shortest of the five buffers holds).
#[kernel]
pub fn black_scholes(
    price: &[f32],
    strike: &[f32],
    years: &[f32],
    mut call: Output<f32>,
    mut put: Output<f32>,
    riskfree: f32,
    volatility: f32,
) {
    let grid = this_grid();
    let n = price.len().min(strike.len()).min(years.len());
    call.truncate(n);
    put.truncate(n);
    for ((i, c), (_, p)) in call.grid_stride(&grid).zip(put.grid_stride(&grid)) {
        let s = price[i];
        let x = strike[i];
        let t = years[i];
        let sqrt_t = t.sqrt();
        let d1 =
            ((s / x).ln() + (riskfree + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t);
        let d2 = d1 - volatility * sqrt_t;
        let cnd1 = normal_cdf(d1);
        let cnd2 = normal_cdf(d2);
        let exp_rt = (-riskfree * t).exp();
        *c = s * cnd1 - x * exp_rt * cnd2;
        *p = x * exp_rt * (1.0 - cnd2) - s * (1.0 - cnd1);
    }
}
