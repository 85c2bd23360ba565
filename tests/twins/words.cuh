// What the probes' CUDA C++ twins share: the word types, and arrays of any
// `T` stored as 32-bit words, as `load` and `store` of
// kernels/tests/src/api/mod.rs read and write them.
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

/// Element `i` of an array of `T` stored as 32-bit words.
template <class T>
__device__ T load(const u32* words, u64 i) {
    constexpr unsigned n = sizeof(T) / 4;
    u32 w[n];
    for (unsigned k = 0; k < n; ++k) w[k] = words[i * n + k];
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
}

/// Writes element `i` of an array of `T` stored as 32-bit words.
template <class T>
__device__ void store(u32* words, u64 i, const T& v) {
    constexpr unsigned n = sizeof(T) / 4;
    u32 w[n];
    memcpy(w, &v, sizeof(T));
    for (unsigned k = 0; k < n; ++k) words[i * n + k] = w[k];
}
