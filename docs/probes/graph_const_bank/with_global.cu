#include "sweep.cuh"
__device__ unsigned layout_region[24576];  // 96 KiB, as the barrier's counters
__global__ void sweep_global(const float* in, float* out, int n) { sweep_body(in, out, n); }
__global__ void reads_region(unsigned* out) { out[0] = layout_region[0]; }
