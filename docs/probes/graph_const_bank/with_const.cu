#include "sweep.cuh"
__constant__ unsigned layout_word = 0;
__global__ void sweep_const(const float* in, float* out, int n) { sweep_body(in, out, n); }
// Another kernel of the module reads the word (as the grid barrier does).
__global__ void reads_word(unsigned* out) { out[0] = layout_word; }
