//! A race check on global memory, for the accesses the output views make.
//!
//! cg-core's `Output<T>` hands each thread `&mut` to elements only through
//! patterns derived from its coordinates, and `Synced<T>` reads the whole
//! buffer after a grid barrier; the types alone cannot prove that two
//! patterns used in one phase, or arguments that differ between threads,
//! keep the threads apart. So off the GPU every element a pattern hands
//! out is recorded here as an exclusive access (a `&mut` may be written or
//! read: either way no other thread may touch the element meanwhile), and
//! every read through a `Synced` view as a read of its whole buffer (a
//! slice: which elements the thread then indexes is not seen), each with
//! the thread, the grid barriers it has passed, its block's barrier epoch,
//! its warp's rendezvous count, the launch's releases so far and the
//! user's line.
//!
//! Two accesses are ordered when they are the same thread's, or in
//! different grid phases (a grid barrier between them), or of one block
//! in different block barrier epochs, or of two lanes of one warp with a
//! rendezvous both took part in between, or when the later thread
//! acquired after a release that followed the earlier access (as if it
//! read from that release: "last block" reductions order their reads this
//! way), or after an explicit acquire of the buffer (`assume_synced`).
//! Two exclusive accesses to one element, or an exclusive access and a
//! read of its buffer, that are not ordered are a race. Per element the
//! check keeps the last exclusive access, and per buffer the last three
//! exclusive accesses and whole-buffer reads (the last, the last of
//! another thread, the last of another block), so a race it reports is a
//! race (by the ordering above); it can miss some. Raw-pointer accesses
//! (`as_mut_ptr`, atomics) are not recorded.

use crate::fault::Coords;
use crate::state::{LaunchState, ThreadCx};
use crate::Shape;
use std::panic::Location;

/// One access: by whom, in which phase, and where in the kernel.
#[derive(Clone, Copy)]
pub(crate) struct Access {
    /// The block's linear index in the grid.
    block: u32,
    /// The thread's linear index in the block.
    thread: u32,
    /// The element (`None`: a read of the whole buffer through `Synced`).
    index: Option<u64>,
    /// Grid barriers the thread had passed.
    phase: u32,
    /// Its block's barrier epoch, and its warp's rendezvous count.
    epoch: u64,
    warp_seq: u64,
    /// The launch's release operations so far.
    releases: u64,
    /// The launch's recorded accesses so far (for explicit acquires).
    seq: u64,
    site: &'static Location<'static>,
}

/// The last accesses of one kind to a buffer: the last, the last of
/// another thread than it, and the last of another block.
#[derive(Clone, Copy, Default)]
struct Recent {
    last: Option<Access>,
    other_thread: Option<Access>,
    other_block: Option<Access>,
}

impl Recent {
    fn push(&mut self, a: &Access) {
        if let Some(l) = &self.last {
            if (l.block, l.thread) != (a.block, a.thread) {
                if l.block != a.block {
                    self.other_block = Some(*l);
                }
                self.other_thread = Some(*l);
            }
        }
        self.last = Some(*a);
    }

    fn iter(&self) -> impl Iterator<Item = &Access> {
        [&self.last, &self.other_thread, &self.other_block]
            .into_iter()
            .flatten()
    }
}

/// A buffer an output view was made of: its elements' last exclusive
/// accesses (made on the first), and its recent accesses of each kind.
struct Buffer {
    len: u64,
    size: u64,
    cells: Vec<Option<Access>>,
    exclusive: Recent,
    reads: Recent,
}

/// The launch's state of the check.
#[derive(Default)]
pub(crate) struct Shadow {
    /// The buffers with their base addresses (a kernel has few), and the
    /// one found last.
    buffers: Vec<(u64, Buffer)>,
    last: usize,
    seq: u64,
}

impl Shadow {
    /// The buffer holding `addr`: its base and state.
    fn find(&mut self, addr: u64) -> Option<(u64, &mut Buffer)> {
        let holds = |(base, b): &(u64, Buffer)| addr >= *base && addr - base < b.len * b.size;
        if !self.buffers.get(self.last).is_some_and(holds) {
            self.last = self.buffers.iter().position(holds)?;
        }
        let (base, b) = &mut self.buffers[self.last];
        Some((*base, b))
    }
}

/// Records a buffer an output view was made of (`len` elements of `size`
/// bytes at `base`); a view of the same base keeps the longest length.
pub(crate) fn buffer(launch: &LaunchState, base: u64, len: u64, size: u64) {
    if size == 0 || len == 0 {
        return;
    }
    let mut g = launch.global.borrow_mut();
    match g.buffers.iter_mut().find(|(b, _)| *b == base) {
        Some((_, b)) => {
            if b.size == size && len > b.len {
                b.len = len;
            }
        }
        None => g.buffers.push((
            base,
            Buffer {
                len,
                size,
                cells: Vec::new(),
                exclusive: Recent::default(),
                reads: Recent::default(),
            },
        )),
    }
}

/// The block's linear index in the grid.
fn block_linear(shape: &Shape, b: [u32; 3]) -> u32 {
    let [gx, gy, _] = shape.grid;
    b[0] + gx * (b[1] + gy * b[2])
}

/// The coordinates of thread `thread` of block `block` (linear indices).
fn coords(shape: &Shape, block: u32, thread: u32) -> Coords {
    let [gx, gy, _] = shape.grid;
    let [bx, by, _] = shape.block;
    Coords {
        block: [block % gx, (block / gx) % gy, block / (gx * gy)],
        thread: [thread % bx, (thread / bx) % by, thread / (bx * by)],
        warp: thread / 32,
        lane: thread % 32,
    }
}

/// Thread `t`'s access now.
fn now(t: &ThreadCx, seq: u64, index: Option<u64>, site: &'static Location<'static>) -> Access {
    let block = t.block();
    Access {
        block: block_linear(&t.launch().shape, t.coords.block),
        thread: t.linear(),
        index,
        phase: t.grid_phase.get(),
        epoch: block.epoch.get(),
        warp_seq: block.warp_seq[t.coords.warp as usize].get(),
        releases: t.launch().global_releases.get(),
        seq,
        site,
    }
}

/// Whether the earlier access `a` (to the buffer at `base`) is ordered
/// before thread `t`'s access `me` now (see the module docs).
fn ordered(t: &ThreadCx, base: u64, a: &Access, me: &Access) -> bool {
    if (a.block, a.thread) == (me.block, me.thread) || a.phase < me.phase {
        return true;
    }
    if a.block == me.block {
        if a.epoch != me.epoch {
            return true;
        }
        let (w, wo) = (me.thread / 32, a.thread / 32);
        if w == wo {
            let synced = &t.block().lane_synced[w as usize];
            if synced[(me.thread % 32) as usize].get() > a.warp_seq
                && synced[(a.thread % 32) as usize].get() > a.warp_seq
            {
                return true;
            }
        }
    }
    t.acquired_global.get() > a.releases
        || t.edges
            .borrow()
            .iter()
            .any(|&(b, seq)| b == base && seq > a.seq)
}

/// A race found: the message of the fault.
fn race(t: &ThreadCx, base: u64, buf_len: u64, size: u64, a: &Access, me: &Access) -> String {
    let launch = t.launch();
    let other = coords(&launch.shape, a.block, a.thread);
    let what = |x: &Access| match x.index {
        Some(i) => format!("took element {i} for writing (`&mut`)"),
        None => "read it through a `Synced` view".to_string(),
    };
    let element = me.index.or(a.index).unwrap_or(0);
    let kernel = match launch.kernel.get() {
        Some(k) => format!("kernel `{k}`"),
        None => "the kernel".to_string(),
    };
    let same_block = if a.block == me.block {
        "no block barrier of their block, "
    } else {
        ""
    };
    format!(
        "a race on element {element} of the global buffer at {base:#x} ({buf_len} elements of \
         {size} bytes) in {kernel}: this thread {} at {}, and block ({}, {}, {}), thread ({}, {}, {}) \
         {} at {}, in the same grid phase ({} grid barriers passed) with nothing between that \
         orders them (no grid barrier, {same_block}no release this thread acquired). Each element \
         of an output belongs to one pattern in a phase: put a grid barrier (`out.sync(&grid)`) \
         between the two",
        what(me),
        me.site,
        other.block[0],
        other.block[1],
        other.block[2],
        other.thread[0],
        other.thread[1],
        other.thread[2],
        what(a),
        a.site,
        me.phase
    )
}

/// Thread `t` takes the element at `addr` for writing (`&mut`) at `site`:
/// the race it makes, if any, as the fault's message.
pub(crate) fn exclusive(
    t: &ThreadCx,
    addr: u64,
    site: &'static Location<'static>,
) -> Option<String> {
    let launch = t.launch();
    let mut g = launch.global.borrow_mut();
    g.seq += 1;
    let seq = g.seq;
    let (base, b) = g.find(addr)?;
    let i = (addr - base) / b.size;
    let me = now(t, seq, Some(i), site);
    if b.cells.len() < b.len as usize {
        b.cells.resize(b.len as usize, None);
    }
    let cell = &mut b.cells[i as usize];
    if let Some(a) = cell.as_ref().filter(|a| !ordered(t, base, a, &me)) {
        return Some(race(t, base, b.len, b.size, a, &me));
    }
    *cell = Some(me);
    if let Some(a) = b.reads.iter().find(|a| !ordered(t, base, a, &me)) {
        return Some(race(t, base, b.len, b.size, a, &me));
    }
    b.exclusive.push(&me);
    None
}

/// Thread `t` reads the buffer at `base` through a `Synced` view at
/// `site`: the race it makes with an element taken for writing, if any.
/// A thread's repeated reads in one phase are recorded once.
pub(crate) fn read(t: &ThreadCx, base: u64, site: &'static Location<'static>) -> Option<String> {
    let key = (
        base,
        t.grid_phase.get(),
        t.block().epoch.get(),
        t.acquired_global.get(),
    );
    if t.last_read.get() == Some(key) {
        return None;
    }
    t.last_read.set(Some(key));
    let launch = t.launch();
    let mut g = launch.global.borrow_mut();
    g.seq += 1;
    let seq = g.seq;
    let (base, b) = g.find(base)?;
    let me = now(t, seq, None, site);
    if let Some(a) = b.exclusive.iter().find(|a| !ordered(t, base, a, &me)) {
        return Some(race(t, base, b.len, b.size, a, &me));
    }
    b.reads.push(&me);
    None
}

/// Thread `t` declares every access to the buffer at `base` so far
/// ordered before its own from now on (`Output::assume_synced`: the
/// ordering comes from atomics the caller vouches for).
pub(crate) fn acquire(t: &ThreadCx, base: u64) {
    let seq = t.launch().global.borrow().seq + 1;
    let mut edges = t.edges.borrow_mut();
    match edges.iter_mut().find(|(b, _)| *b == base) {
        Some(e) => e.1 = seq,
        None => edges.push((base, seq)),
    }
}
