// black_scholes (SPEC.md): European call and put prices by the
// Black-Scholes formula, the normal CDF as 0.5 * erfc(-d / sqrt(2)),
// grid-stride loop. The Rust kernel's PTX parameters: price, strike, years
// (pointer, length each), call, put (pointer, length each), riskfree,
// volatility.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ float normal_cdf(float d) {
    return 0.5f * erfcf(-d / sqrtf(2.0f));
}

extern "C" __global__ void black_scholes(const float* price, unsigned long long price_len,
                                         const float* strike, unsigned long long strike_len,
                                         const float* years, unsigned long long years_len,
                                         float* call, unsigned long long call_len, float* put,
                                         unsigned long long put_len, float riskfree,
                                         float volatility) {
    cg::grid_group grid = cg::this_grid();
    int n = price_len;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        float s = price[i];
        float x = strike[i];
        float t = years[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (riskfree + 0.5f * volatility * volatility) * t) /
                   (volatility * sqrt_t);
        float d2 = d1 - volatility * sqrt_t;
        float cnd1 = normal_cdf(d1);
        float cnd2 = normal_cdf(d2);
        float exp_rt = expf(-riskfree * t);
        call[i] = s * cnd1 - x * exp_rt * cnd2;
        put[i] = x * exp_rt * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}
