// One Jacobi sweep over an n x n field (the shape of cg-samples' jacobi_sweep):
// included by plain.cu and with_const.cu, which differ only in that the second
// module also holds a __constant__ word (read by another kernel of it).
__device__ __forceinline__ void sweep_body(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int total = n * n;
    if (i >= total) return;
    int r = i / n, c = i % n;
    if (r == 0 || c == 0 || r == n - 1 || c == n - 1) { out[i] = in[i]; return; }
    out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);
}
