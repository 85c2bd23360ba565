//! The [`Chunks`] pattern: a contiguous chunk of the buffer per block, its
//! elements shared by the block's threads block-stride ([`Strided`]) or in
//! runs of consecutive elements ([`Runs`]).

use super::pattern::{ChunkMap, InChunks, SharedAs};
use super::threads::GridStride;
use super::{element_at, Niche, Output, Pattern, Runs, Strided};
use crate::block::ThreadBlock;
use crate::checks::Site;
use crate::grid::this_grid;
use crate::group::ThreadGroup;
use crate::shared::SharedSlice;
use crate::uniform::IntoUniform;
use crate::Pod;
use core::marker::PhantomData;

impl<T: Pod, P: Pattern> Output<T, P> {
    /// The chunk `[c * len, (c + 1) * len)` of this block, `c` its rank in
    /// the grid (clipped to the buffer; `None` when it starts beyond it or
    /// `len` is 0: a chunk is never empty).
    /// Its threads then take one element each or a block stride of it.
    /// `len` is [`Uniform`](crate::uniform::Uniform): a length per block
    /// would make chunks overlap.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_chunk<S: ChunkMap>(
        &mut self,
        block: &ThreadBlock,
        len: impl IntoUniform<usize>,
    ) -> Option<Chunk<'_, T, S>>
    where
        P: InChunks<S>,
    {
        let len = len.into_uniform().get();
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform("block_chunk's len", &[len as u64]);
        let c = this_grid().block_rank() as usize;
        let start = c.checked_mul(len).filter(|_| len > 0)?;
        if start >= self.len {
            return None;
        }
        Some(Chunk {
            ptr: self.ptr,
            start,
            len,
            buffer: self.len,
            rank: block.thread_rank() as usize,
            threads: block.num_threads() as usize,
            _out: PhantomData,
            _map: PhantomData,
        })
    }

    /// This block's chunks of `len` elements, grid-stride: chunks `c`,
    /// `c + B`, `c + 2B`, ... for block rank `c` of `B` blocks (the last
    /// chunk clipped to the buffer). `len` is
    /// [`Uniform`](crate::uniform::Uniform).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_chunks<S: ChunkMap>(
        &mut self,
        block: &ThreadBlock,
        len: impl IntoUniform<usize>,
    ) -> BlockChunks<'_, T, S>
    where
        P: InChunks<S>,
    {
        let len = len.into_uniform().get();
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform("block_chunks' len", &[len as u64]);
        let grid = this_grid();
        let (c, blocks) = (grid.block_rank() as usize, grid.num_blocks() as usize);
        BlockChunks {
            ptr: self.ptr,
            buffer: self.len,
            len,
            next: c.saturating_mul(len),
            // A block with one chunk at most steps past the buffer at once
            // (and `next + step` cannot wrap: both are below isize::MAX).
            step: blocks.saturating_mul(len).min(self.len),
            rank: block.thread_rank() as usize,
            threads: block.num_threads() as usize,
            _out: PhantomData,
            _map: PhantomData,
        }
    }
}

/// A block's chunk of an output ([`Output::block_chunk`]), its elements
/// shared by the block's threads as `S` says ([`Strided`] or [`Runs`]).
pub struct Chunk<'a, T, S = Strided> {
    ptr: *mut T,
    start: usize,
    /// The chunk's length as asked for (the buffer may end before).
    len: usize,
    /// The buffer's length: the chunk ends at `min(start + len, buffer)`.
    buffer: usize,
    rank: usize,
    threads: usize,
    _out: PhantomData<&'a mut T>,
    _map: PhantomData<fn() -> S>,
}

impl<'a, T, S> Chunk<'a, T, S> {
    /// Where the chunk starts in the buffer.
    #[inline(always)]
    pub fn start(&self) -> usize {
        self.start
    }

    /// Number of elements (the last chunk may be short).
    #[inline(always)]
    pub fn len(&self) -> usize {
        let len = self.clipped_len();
        // SAFETY: a chunk starts inside the buffer (`block_chunk` and
        // `block_chunks` make none that does not) and asks for at least
        // one element, so it holds 1 to `self.len` of them; said in one
        // compare, so that `stage[chunk.len() - 1]` needs no check.
        unsafe { core::hint::assert_unchecked(len.wrapping_sub(1) < self.len) };
        len
    }

    /// The length without the promise `len` makes: the loops over a
    /// chunk's elements compile to longer code with it.
    #[inline(always)]
    fn clipped_len(&self) -> usize {
        self.len.min(self.buffer - self.start)
    }

    /// Whether the chunk is empty (never: an iterator or `block_chunk`
    /// yields only chunks with at least one element).
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, T, S> Chunk<'a, T, S> {
    /// The element of this thread, `block.thread_rank()` of the chunk
    /// (`None` beyond it).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_element(self) -> Option<Owned<'a, T>>
    where
        S: SharedAs<Strided>,
    {
        // Two tests rather than one against `len()`: the first is the same
        // for every chunk of a loop.
        if self.rank < self.len && self.start + self.rank < self.buffer {
            // SAFETY: in the chunk; thread ranks are unique in the block,
            // and the chunk is this block's alone.
            Some(unsafe { Owned::new(self.ptr, self.start, self.rank, Site::here()) })
        } else {
            None
        }
    }

    /// Calls `f` with this thread's element and its index in the chunk
    /// when the chunk has one for it ([`thread_element`](Self::thread_element)
    /// without the `Option`, which the compiler tests a second time inside a
    /// loop over chunks).
    ///
    /// ```ignore
    /// chunk.for_thread(|c, t| *c = sa.get(t) + sb.get(t));
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn for_thread(self, f: impl FnOnce(&'a mut T, usize))
    where
        S: SharedAs<Strided>,
    {
        // The test of `thread_element`, written out again: through a
        // shared helper the compiler lays out the loops over chunks
        // differently (a few more instructions per chunk in the async-copy
        // kernels). Both compares always, joined by `&`: one predicate,
        // computed ahead of a barrier wait, no branch between the wait and
        // the store (`&&` branched on the first compare; the async-copy
        // rows 0.5-1.6% slower, `docs/NOTES.md`).
        if (self.rank < self.len) & (self.start + self.rank < self.buffer) {
            // SAFETY: as in `thread_element` (element `start + rank`).
            // Addressed from `ptr + rank`, which no chunk changes: the
            // compiler keeps that base in a register, where from `ptr +
            // (start + rank)` it reloaded the pointer after the barrier
            // wait, on the store's path (vector addition on a barrier 3%
            // faster, a pipeline 8 deep 1.6-1.9% slower; NOTES 2026-11-27).
            f(
                unsafe { element_at(self.ptr.add(self.rank), self.start, Site::here()) },
                self.rank,
            )
        }
    }

    /// The block copies `src[..len]` into the chunk (`len` its length),
    /// each thread its block-stride elements, as from a tile of results
    /// staged in shared memory. Checked once: panics (a fault the host
    /// reports, at the caller's line) when `src` is shorter than the chunk.
    #[inline(always)]
    #[track_caller]
    pub fn copy_from(self, src: SharedSlice<T>)
    where
        T: Pod,
        S: SharedAs<Strided>,
    {
        let len = self.clipped_len();
        let src = src.subslice(0, len);
        // SAFETY: `start` is inside the buffer.
        let ptr = unsafe { self.ptr.add(self.start) };
        let mut j = self.rank;
        while j < len {
            #[cfg(not(target_arch = "nvptx64"))]
            Site::here().exclusive(ptr.wrapping_add(j));
            // SAFETY: `j < len`, inside the chunk (this block's alone, and
            // element `j` this thread's alone) and inside `src` (checked).
            unsafe { *ptr.add(j) = src.get_unchecked(j) };
            j += self.threads;
        }
    }

    /// This thread's elements of the chunk, block-stride: `(j, &mut
    /// chunk[j])` for `j = rank, rank + threads, ...`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_stride(self) -> GridStride<'a, T>
    where
        S: SharedAs<Strided>,
    {
        // SAFETY: `start` is inside the buffer.
        let ptr = unsafe { self.ptr.add(self.start) };
        GridStride::new(
            ptr,
            self.clipped_len(),
            self.rank,
            self.threads,
            Site::here(),
        )
    }

    /// The chunk in rounds of one element per thread, every thread of the
    /// block taking every round (so a block collective can run inside the
    /// loop): round `k` gives a [`Round`] of index `j = k * threads + rank`
    /// in the chunk, with element `j` when `j` is inside the chunk.
    ///
    /// ```ignore
    /// let scratch = block_scratch!(u32);
    /// let start = chunk.start();
    /// chunk.block_rounds().for_each(|round| {
    ///     let v = input.get(start + round.index).copied().unwrap_or(0);
    ///     let (x, total) = block_inclusive_scan_with_total(&block, &scratch, v, Plus);
    ///     if let Some(out) = round.value {
    ///         *out = x;
    ///     }
    /// });
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_rounds(self) -> Rounds<'a, T>
    where
        S: SharedAs<Strided>,
    {
        let len = self.clipped_len();
        Rounds {
            ptr: self.ptr,
            start: self.start,
            len,
            next: self.rank,
            end: len.div_ceil(self.threads) * self.threads + self.rank,
            stride: self.threads,
            site: Site::here(),
            _out: PhantomData,
        }
    }
}

impl<'a, T, S> Chunk<'a, T, S> {
    /// This thread's run of `per_thread` consecutive elements of the chunk
    /// (CUB's blocked arrangement): `[rank * per_thread, (rank + 1) *
    /// per_thread)` of the chunk, clipped to it (empty past its end), and
    /// where the run starts in the chunk. `per_thread` is
    /// [`Uniform`](crate::uniform::Uniform): runs of different lengths would
    /// overlap.
    ///
    /// ```ignore
    /// let (at, run) = chunk.thread_run(4);
    /// for (k, x) in run.iter_mut().enumerate() {
    ///     *x = input[chunk_start + at + k] * 2;
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_run(self, per_thread: impl IntoUniform<usize>) -> (usize, &'a mut [T])
    where
        S: SharedAs<Runs>,
    {
        let per_thread = per_thread.into_uniform().get();
        let site = Site::here();
        #[cfg(not(target_arch = "nvptx64"))]
        site.uniform("thread_run's per_thread", &[per_thread as u64]);
        let len = self.clipped_len();
        let from = self.rank.saturating_mul(per_thread).min(len);
        let to = from.saturating_add(per_thread).min(len);
        // SAFETY: `start + from <= start + len`, inside the buffer or one
        // past its end (a chunk starts inside the buffer).
        let p = unsafe { self.ptr.add(self.start + from) };
        for j in 0..to - from {
            site.exclusive(p.wrapping_add(j));
        }
        // SAFETY: `[start + from, start + to)` lies in the chunk, this
        // block's alone; threads of distinct ranks get disjoint runs (all
        // pass one `per_thread`), and `p` is a live buffer's element
        // address (non-null, aligned) even for an empty run.
        let run = unsafe { core::slice::from_raw_parts_mut(p, to - from) };
        (from, run)
    }
}

/// A chunk in rounds ([`Chunk::block_rounds`]).
pub struct Rounds<'a, T> {
    ptr: *mut T,
    start: usize,
    len: usize,
    next: usize,
    end: usize,
    stride: usize,
    site: Site,
    _out: PhantomData<&'a mut T>,
}

/// One round of [`Chunk::block_rounds`] for one thread.
pub struct Round<'a, T> {
    /// This thread's index in the chunk this round (past the chunk's end
    /// in a last round the chunk does not fill).
    pub index: usize,
    /// Element `index` of the chunk, `None` past its end.
    pub value: Option<&'a mut T>,
}

impl<'a, T> Iterator for Rounds<'a, T> {
    type Item = Round<'a, T>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let j = self.step()?;
        Some(self.round(j))
    }

    /// Internal iteration (what `for_each` uses): the loop tests `j`
    /// itself, with no `Option` around the round for the compiler to
    /// encode and test in every round.
    #[inline(always)]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.fold_indices(init, |acc, j| f(acc, self.round(j)))
    }
}

impl<'a, T> Rounds<'a, T> {
    /// The rounds with the element of `input` at each round's place in the
    /// buffer (index `chunk.start() + round.index`), for the common
    /// `out[i] = f(input[i])` of a block-wide loop: a round has the input
    /// exactly where it has the element. The bounds are checked once,
    /// here: the input must cover the chunk (truncate the output to the
    /// input's length first), else the kernel stops with a failed check
    /// naming the caller's line.
    ///
    /// ```ignore
    /// let scratch = block_scratch!(u32);
    /// chunk.block_rounds().reading(input).for_each(|round| {
    ///     let v = round.input.unwrap_or(0);
    ///     let (x, total) = block_inclusive_scan_with_total(&block, &scratch, v, Plus);
    ///     if let Some(out) = round.value {
    ///         *out = x;
    ///     }
    /// });
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn reading<'s, U: Copy>(self, input: &'s [U]) -> RoundsReading<'a, 's, T, U> {
        crate::fault::check(
            input.len() >= self.start + self.len,
            "Rounds::reading: the input ends inside the chunk; truncate the output to the input's length first",
        );
        RoundsReading {
            // The input at the chunk's start (inside it, checked above).
            input: input.as_ptr().wrapping_add(self.start),
            rounds: self,
            _input: PhantomData,
        }
    }

    /// This thread's next round index, if any.
    #[inline(always)]
    fn step(&mut self) -> Option<usize> {
        let j = self.next;
        if j >= self.end {
            return None;
        }
        self.next = j + self.stride;
        Some(j)
    }

    /// `f` over this thread's remaining round indices.
    #[inline(always)]
    fn fold_indices<B>(&self, init: B, mut f: impl FnMut(B, usize) -> B) -> B {
        let mut acc = init;
        let mut j = self.next;
        while j < self.end {
            acc = f(acc, j);
            j += self.stride;
        }
        acc
    }

    /// Round item for index `j` of the chunk (this thread's, below `end`).
    /// The index stays outside the `Option`: a kernel that reads its input
    /// at it tests the index itself, where an index inside the `Option`
    /// would be tested again behind the select that built it.
    #[inline(always)]
    fn round(&self, j: usize) -> Round<'a, T> {
        // The element's address, for every round: where it is said not to
        // be null only inside the `then` (as `element_at` says it), the
        // compiler hoists the address out of the branch and drops the
        // promise, and then tests the address for null in every round (the
        // `Option`'s `None`).
        let p = self.ptr.wrapping_add(self.start + j);
        // SAFETY: a chunk starts inside a non-empty buffer, so `ptr` is a
        // live allocation's address, and `start + j` elements past it (at
        // most a round past the chunk's end) stay far from wrapping to 0.
        unsafe { core::hint::assert_unchecked(!p.is_null()) };
        Round {
            index: j,
            value: (j < self.len).then(|| {
                self.site.exclusive(p);
                // SAFETY: in bounds; `j` is this thread's (its rank modulo
                // the block's size) in this block's chunk.
                unsafe { &mut *p }
            }),
        }
    }
}

/// A chunk in rounds, each with the input element at its place
/// ([`Rounds::reading`]).
pub struct RoundsReading<'a, 's, T, U> {
    rounds: Rounds<'a, T>,
    input: *const U,
    _input: PhantomData<&'s [U]>,
}

/// One round of [`Rounds::reading`] for one thread: `input` and `value`
/// are both present (the round is inside the chunk and the input) or both
/// absent.
pub struct RoundReading<'a, T, U> {
    /// This thread's index in the chunk this round.
    pub index: usize,
    /// The input element at the round's place in the buffer.
    pub input: Option<U>,
    /// Element `index` of the chunk.
    pub value: Option<&'a mut T>,
}

impl<'a, T, U: Copy> Iterator for RoundsReading<'a, '_, T, U> {
    type Item = RoundReading<'a, T, U>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let j = self.rounds.step()?;
        Some(self.round(j))
    }

    /// Internal iteration, as [`Rounds`]'.
    #[inline(always)]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.rounds
            .fold_indices(init, |acc, j| f(acc, self.round(j)))
    }
}

impl<'a, T, U: Copy> RoundsReading<'a, '_, T, U> {
    /// Round item for index `j` of the chunk (this thread's, below `end`).
    #[inline(always)]
    fn round(&self, j: usize) -> RoundReading<'a, T, U> {
        let Round { index, value } = self.rounds.round(j);
        RoundReading {
            index,
            // SAFETY: `j < len` puts `start + j` inside the input too
            // (`reading` checked that the input covers the chunk); read
            // under the same test as the element's, so that one compare
            // serves both.
            input: (j < self.rounds.len).then(|| unsafe { *self.input.add(j) }),
            value,
        }
    }
}

/// An element a thread owns in a block's chunk, and its index in the
/// chunk ([`Chunk::thread_element`]).
pub struct Owned<'a, T> {
    /// The element's index in the chunk.
    pub index: usize,
    /// The element.
    pub value: &'a mut T,
    _niche: Niche,
}

impl<'a, T> Owned<'a, T> {
    /// # Safety
    /// As [`element_at`] for element `start + index`.
    #[inline(always)]
    unsafe fn new(ptr: *mut T, start: usize, index: usize, site: Site) -> Self {
        Owned {
            index,
            // SAFETY: the caller's contract.
            value: unsafe { element_at(ptr, start + index, site) },
            _niche: Niche::Some,
        }
    }
}

/// One block's chunks, grid-stride ([`Output::block_chunks`]).
pub struct BlockChunks<'a, T, S = Strided> {
    ptr: *mut T,
    buffer: usize,
    len: usize,
    next: usize,
    step: usize,
    rank: usize,
    threads: usize,
    _out: PhantomData<&'a mut T>,
    _map: PhantomData<fn() -> S>,
}

impl<'a, T, S> Iterator for BlockChunks<'a, T, S> {
    type Item = Chunk<'a, T, S>;

    #[inline(always)]
    fn next(&mut self) -> Option<Chunk<'a, T, S>> {
        let start = self.next;
        if start >= self.buffer || self.len == 0 {
            return None;
        }
        self.next = start + self.step;
        Some(Chunk {
            ptr: self.ptr,
            start,
            len: self.len,
            buffer: self.buffer,
            rank: self.rank,
            threads: self.threads,
            _out: PhantomData,
            _map: PhantomData,
        })
    }
}
