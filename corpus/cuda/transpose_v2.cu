// transpose_v2 (corpus/SPEC.md's transpose): the CUDA C++ of transpose.cu,
// unchanged, under the name of the Rust kernel's second version (the Rust
// side changed, the algorithm and launch did not).
//
//   nvcc -O3 -arch=sm_90 -ptx -o transpose_v2.ptx transpose_v2.cu

#define transpose transpose_v2
#include "transpose.cu"
