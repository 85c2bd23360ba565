//! An element of a small array held in registers, chosen by an index
//! known only at run time.

/// `v[k]`, or `T::default()` for `k >= N`, as `N` selects: indexing a
/// register array with a run-time `k` would put the array in local memory.
#[inline(always)]
pub(crate) fn pick<T: Copy + Default, const N: usize>(v: &[T; N], k: usize) -> T {
    v.iter().enumerate().fold(
        T::default(),
        |picked, (j, &x)| if j == k { x } else { picked },
    )
}
