//! 16-byte loads without `unsafe`: a slice of 4-byte values seen as the
//! unaligned elements before its first 16-byte boundary, a body of
//! 16-byte aligned groups of four ([`Vec4`], one `ld.global.v4` each) and
//! the elements after the last whole group ([`vectorized`]).
//!
//! ```ignore
//! let v = vectorized(input);          // device buffers are 256-byte aligned: no head
//! let mut sum = 0.0f32;
//! for i in grid.stride(v.body.len()) {
//!     sum += v.body[i].sum();         // 16 bytes a load, no bounds check
//! }
//! for i in grid.stride(v.tail.len()) {
//!     sum += v.tail[i];
//! }
//! ```

use crate::Pod;

/// Four values, 16-byte aligned: what one `ld.global.v4` or
/// `st.global.v4` moves.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Vec4<T>(pub [T; 4]);

// SAFETY: four 4-byte `Pod` values, 16 bytes, align 16: no padding, and
// every bit pattern is valid.
unsafe impl bytemuck::Zeroable for Vec4<f32> {}
// SAFETY: as above.
unsafe impl Pod for Vec4<f32> {}
// SAFETY: as above.
unsafe impl bytemuck::Zeroable for Vec4<u32> {}
// SAFETY: as above.
unsafe impl Pod for Vec4<u32> {}
// SAFETY: as above.
unsafe impl bytemuck::Zeroable for Vec4<i32> {}
// SAFETY: as above.
unsafe impl Pod for Vec4<i32> {}

impl Vec4<f32> {
    /// `(x + y) + (z + w)`: the pairwise sum of CUDA's `float4` idiom.
    #[inline(always)]
    pub fn sum(self) -> f32 {
        let [x, y, z, w] = self.0;
        (x + y) + (z + w)
    }
}

/// A slice of 4-byte values split at 16-byte boundaries ([`vectorized`]).
#[derive(Clone, Copy, Debug)]
pub struct Vectorized<'a, T> {
    /// The elements before the first 16-byte boundary (none for a device
    /// buffer, which starts 256-byte aligned).
    pub head: &'a [T],
    /// The aligned groups of four.
    pub body: &'a [Vec4<T>],
    /// The elements after the last whole group (`len % 4` of them for an
    /// aligned slice).
    pub tail: &'a [T],
}

/// Splits `values` into its unaligned head, its aligned groups of four and
/// its tail (`bytemuck::pod_align_to`, safe). Every element is in exactly
/// one of the three, in order.
#[inline(always)]
pub fn vectorized<T: Pod>(values: &[T]) -> Vectorized<'_, T>
where
    Vec4<T>: Pod,
{
    let (head, body, tail) = bytemuck::pod_align_to::<T, Vec4<T>>(values);
    Vectorized { head, body, tail }
}

/// `run` of 4-byte values as 16-byte groups, when it starts 16-byte
/// aligned and holds whole groups (`None` otherwise, or for values of
/// another size): what lets a run be moved with `ld.global.v4` /
/// `st.global.v4` whatever the 4-byte type.
#[inline(always)]
pub(crate) fn quads<T: Pod>(run: &[T]) -> Option<&[Vec4<u32>]> {
    if core::mem::size_of::<T>() != 4 {
        return None;
    }
    bytemuck::try_cast_slice(bytemuck::try_cast_slice::<T, u32>(run).ok()?).ok()
}

/// [`quads`] of a run to write.
#[inline(always)]
pub(crate) fn quads_mut<T: Pod>(run: &mut [T]) -> Option<&mut [Vec4<u32>]> {
    if core::mem::size_of::<T>() != 4 {
        return None;
    }
    bytemuck::try_cast_slice_mut(bytemuck::try_cast_slice_mut::<T, u32>(run).ok()?).ok()
}

/// A slice's head, 16-byte groups and tail ([`split_quads`]).
pub(crate) type Quads<'a, T> = (&'a [T], &'a [Vec4<u32>], &'a [T]);

/// `input` of 4-byte values split at 16-byte boundaries: the elements
/// before the first, the 16-byte groups, the elements after the last
/// (`None` for values of another size).
#[inline(always)]
pub(crate) fn split_quads<T: Pod>(input: &[T]) -> Option<Quads<'_, T>> {
    // Not a cast alone: a slice of 8-byte values casts to one of `u32`.
    if core::mem::size_of::<T>() != 4 {
        return None;
    }
    let words = bytemuck::try_cast_slice::<T, u32>(input).ok()?;
    let (head, groups, tail) = bytemuck::pod_align_to::<u32, Vec4<u32>>(words);
    Some((
        bytemuck::cast_slice(head),
        groups,
        bytemuck::cast_slice(tail),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_lies_in_one_part_in_order() {
        let v: [Vec4<f32>; 4] =
            core::array::from_fn(|i| Vec4(core::array::from_fn(|j| (4 * i + j) as f32)));
        let flat: &[f32] = bytemuck::cast_slice(&v);
        for start in 0..4 {
            for end in start..=16 {
                let s = &flat[start..end];
                let p = vectorized(s);
                let mut all: [f32; 16] = [0.0; 16];
                let mut k = 0;
                for x in p
                    .head
                    .iter()
                    .chain(p.body.iter().flat_map(|g| g.0.iter()))
                    .chain(p.tail)
                {
                    all[k] = *x;
                    k += 1;
                }
                assert_eq!(&all[..k], s, "{start}..{end}");
                assert!(p.head.len() < 4 && p.tail.len() < 4);
                assert_eq!(p.head.len(), ((4 - start % 4) % 4).min(s.len()));
            }
        }
        assert_eq!(Vec4([1.0f32, 2.0, 3.0, 4.0]).sum(), 10.0);
    }

    #[test]
    fn quads_only_of_aligned_whole_groups_of_four_byte_values() {
        let mut v = [Vec4([0u32; 4]); 3];
        let flat: &mut [f32] = bytemuck::cast_slice_mut(&mut v);
        flat[5] = 2.5;
        assert_eq!(
            quads(&flat[4..8]).map(|q| q[0].0[1]),
            Some(2.5f32.to_bits())
        );
        assert!(quads(&flat[1..5]).is_none(), "unaligned");
        assert!(quads(&flat[0..6]).is_none(), "not whole groups");
        assert!(quads(&[0u64; 2]).is_none(), "8-byte values");
        quads_mut(&mut flat[8..12]).unwrap()[0].0[3] = 7;
        assert_eq!(flat[11].to_bits(), 7);
    }

    #[test]
    fn split_quads_covers_every_element_once_in_order() {
        let v: [Vec4<u32>; 4] =
            core::array::from_fn(|i| Vec4(core::array::from_fn(|j| (4 * i + j) as u32)));
        let flat: &[i32] = bytemuck::cast_slice(&v);
        for start in 0..4 {
            for end in start..=16 {
                let s = &flat[start..end];
                let (head, groups, tail) = split_quads(s).unwrap();
                let all: Vec<i32> = head
                    .iter()
                    .copied()
                    .chain(groups.iter().flat_map(|g| g.0.map(|w| w as i32)))
                    .chain(tail.iter().copied())
                    .collect();
                assert_eq!(all, s, "{start}..{end}");
                assert!(head.len() < 4 && tail.len() < 4);
            }
        }
        assert!(split_quads(&[0u64; 4]).is_none(), "8-byte values");
        assert!(split_quads(&[0u16; 8]).is_none(), "2-byte values");
    }
}
