// gelu (SPEC.md): y[i] = 0.5 * x[i] * (1 + erf(x[i] / sqrt(2))), grid-stride
// loop. The Rust kernel's PTX parameters: x (pointer, length), y (pointer,
// length).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void gelu(const float* x, unsigned long long x_len, float* y,
                                unsigned long long y_len) {
    cg::grid_group grid = cg::this_grid();
    int n = x_len;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v / sqrtf(2.0f)));
    }
}
