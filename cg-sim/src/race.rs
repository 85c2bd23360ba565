//! racecheck's and initcheck's jobs on shared memory, on the CPU.
//!
//! A load of a byte no thread of the block has written (by a store, an
//! atomic or an asynchronous copy) reads CUDA's uninitialized shared
//! memory: an undefined read, reported with the launch.
//!
//! A race: a plain shared-memory access by one thread
//! to a byte another thread wrote (or, for a write, read) with nothing
//! between them that orders the two: no block barrier (`bar.sync`, which
//! also ends an `mbarrier` phase or a cluster barrier here), and, for two
//! lanes of one warp, no warp rendezvous both took part in since.
//!
//! Per byte of a block's shared memory the block keeps its last writer and
//! its last reader, each with the block's barrier epoch and the warp's
//! rendezvous count at the access, and the count of the block's release
//! operations so far: a thread that performed an acquire operation after a
//! release that followed the access is taken to be ordered after it (as if
//! it read from that release: a software barrier over shared atomics, as
//! multi-warp tiles synchronize, orders accesses this way). Atomics are not tracked (they do not
//! race with each other), nor are asynchronous copies (their completion is
//! the barrier's business) or another block's memory reached through a
//! cluster. So a race it reports is a race; it can miss some (of three or
//! more readers of a byte it keeps two).

use crate::state::BlockState;

/// One access of a byte: by whom (linear thread index + 1; 0: nobody),
/// in which barrier epoch, after how many rendezvous of its warp.
#[derive(Clone, Copy, Default)]
pub(crate) struct Access {
    thread: u32,
    epoch: u64,
    warp_seq: u64,
    releases: u64,
}

/// The last write of a byte, its last read, and the read before that by
/// another thread (so that a thread that reads a byte and then writes it
/// still races with another reader before it).
#[derive(Clone, Copy, Default)]
pub(crate) struct Shadow {
    write: Access,
    read: Access,
    other_read: Access,
    written: bool,
}

/// What an access found.
pub(crate) enum Found {
    /// A race with thread `other`'s access of the byte at `offset`
    /// (a write, or a read).
    Race {
        other: u32,
        other_wrote: bool,
        offset: u32,
    },
    /// A load of the byte at `offset`, which no thread wrote.
    Uninitialized { offset: u32 },
}

/// Whether the earlier access `a` is ordered before thread `t`'s access
/// now (the same thread, an earlier barrier epoch, an acquire of `t` after
/// a release that followed `a`, or a rendezvous of their warp that both
/// lanes took part in after it). `acquired` is the block's release count at
/// `t`'s last acquire.
fn ordered(block: &BlockState, a: Access, t: u32, acquired: u64) -> bool {
    if a.thread == 0 || a.thread - 1 == t || a.epoch != block.epoch.get() || acquired > a.releases {
        return true;
    }
    let other = a.thread - 1;
    let (w, wo) = (t / 32, other / 32);
    if w != wo {
        return false;
    }
    let synced = &block.lane_synced[w as usize];
    synced[(t % 32) as usize].get() > a.warp_seq && synced[(other % 32) as usize].get() > a.warp_seq
}

/// Records thread `t`'s access of `bytes` bytes at `offset`; the first
/// race it makes, or else the first uninitialized byte it loads, if any.
pub(crate) fn access(
    block: &BlockState,
    t: u32,
    acquired: u64,
    offset: u32,
    bytes: u32,
    write: bool,
) -> Option<Found> {
    let mut shadow = block.shadow.borrow_mut();
    grow(&mut shadow, offset + bytes);
    let mut uninitialized = None;
    let now = Access {
        thread: t + 1,
        epoch: block.epoch.get(),
        warp_seq: block.warp_seq[(t / 32) as usize].get(),
        releases: block.releases.get(),
    };
    for b in offset..offset + bytes {
        let s = &mut shadow[b as usize];
        if !ordered(block, s.write, t, acquired) {
            return Some(Found::Race {
                other: s.write.thread - 1,
                other_wrote: true,
                offset: b,
            });
        }
        if write {
            for r in [s.read, s.other_read] {
                if !ordered(block, r, t, acquired) {
                    return Some(Found::Race {
                        other: r.thread - 1,
                        other_wrote: false,
                        offset: b,
                    });
                }
            }
            s.write = now;
            s.written = true;
        } else {
            if !s.written && uninitialized.is_none() {
                uninitialized = Some(Found::Uninitialized { offset: b });
            }
            if s.read.thread != now.thread {
                s.other_read = s.read;
            }
            s.read = now;
        }
    }
    uninitialized
}

fn grow(shadow: &mut Vec<Shadow>, end: u32) {
    if shadow.len() < end as usize {
        shadow.resize((end as usize).next_multiple_of(1024), Shadow::default());
    }
}

/// Marks `bytes` bytes at `offset` written, by an atomic or an
/// asynchronous copy (which the race check does not follow).
pub(crate) fn filled(block: &BlockState, offset: u32, bytes: u32) {
    let mut shadow = block.shadow.borrow_mut();
    grow(&mut shadow, offset + bytes);
    for s in &mut shadow[offset as usize..(offset + bytes) as usize] {
        s.written = true;
    }
}
