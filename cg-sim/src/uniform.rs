//! What every thread of a launch must do alike, checked: reach each grid
//! barrier at the same call site (and each block barrier, within its
//! block), and pass the same value to the
//! arguments of an output pattern that every thread must pass alike (a
//! chunk's length, a row's width, a window, a stencil's sizes).
//!
//! The grid barrier of phase `k` (the `k`-th a thread reaches) is taken
//! at the call site of the first thread that reaches it; another thread
//! reaching its `k`-th grid barrier elsewhere is barrier divergence. An
//! argument's value is taken per call site and per call (the `n`-th call
//! of a thread at a site, so that a loop may change the value from one
//! call to the next, the same in every thread) from the first thread that
//! makes it; another thread's `n`-th call there with another value breaks
//! the pattern's promise (chunks overlap, two threads get one element),
//! whether or not the values at hand make two threads meet.

use crate::fault::Coords;
use crate::state::ThreadCx;
use std::collections::HashMap;
use std::panic::Location;

/// A call site, by value (two `Location`s of one site need not be one
/// object).
pub(crate) type Site = (&'static str, u32, u32);

fn key(site: &'static Location<'static>) -> Site {
    (site.file(), site.line(), site.column())
}

/// The launch's state of the checks.
#[derive(Default)]
pub(crate) struct Uniform {
    /// Per grid phase: where its barrier was first reached, and by whom.
    grid_barriers: Vec<(&'static Location<'static>, Coords)>,
    /// Per call site and call: the first thread's values.
    arguments: HashMap<(Site, u64), (Vec<u64>, Coords)>,
}

fn who(c: &Coords) -> String {
    let ([bx, by, bz], [tx, ty, tz]) = (c.block, c.thread);
    format!("block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz})")
}

fn kernel(t: &ThreadCx) -> String {
    match t.launch().kernel.get() {
        Some(k) => format!("kernel `{k}`"),
        None => "the kernel".to_string(),
    }
}

/// Thread `t` reaches a grid barrier at `site`: the divergence it makes,
/// if any, as the fault's message.
pub(crate) fn grid_barrier(t: &ThreadCx, site: &'static Location<'static>) -> Option<String> {
    let phase = t.grid_phase.get() as usize;
    let mut u = t.launch().uniform.borrow_mut();
    if u.grid_barriers.len() <= phase {
        u.grid_barriers.push((site, t.coords));
        return None;
    }
    let (first, by) = u.grid_barriers[phase];
    if key(first) == key(site) {
        return None;
    }
    Some(format!(
        "barrier divergence in {}: this thread reaches grid barrier {} (after {phase} grid \
         barriers) at {site}, where {} reached it at {first}. Every thread of the grid must reach \
         the same grid barriers (`grid.sync()`, `out.sync(&grid)`, ...) at the same call sites: \
         a barrier in one branch and another in the other is undefined in CUDA, and the writes \
         of one branch then race with the reads of the other",
        kernel(t),
        phase + 1,
        who(&by),
    ))
}

/// Thread `t` reaches its block's barrier at `site`, where thread `who`
/// of the block (linear index) waits since it reached it at `first`: the
/// divergence, if the sites differ, as the fault's message.
pub(crate) fn block_barrier(
    t: &ThreadCx,
    site: &'static Location<'static>,
    first: &'static Location<'static>,
    who: u32,
) -> Option<String> {
    if key(first) == key(site) {
        return None;
    }
    let [bx, by, _] = t.launch().shape.block;
    let (x, y, z) = (who % bx, (who / bx) % by, who / (bx * by));
    Some(format!(
        "barrier divergence in {}: this thread reaches the block barrier (bar.sync: \
         block.sync(), __syncthreads) at {site}, where thread ({x}, {y}, {z}) of its block waits \
         at {first}. bar.sync is aligned: every thread of the block must reach the same barrier \
         instruction (PTX leaves it undefined otherwise); call it once, after the branch",
        kernel(t),
    ))
}

/// Thread `t` passes `values` for `what` (the argument's names) at
/// `site`: the difference from the first thread's values there, if any,
/// as the fault's message.
pub(crate) fn argument(
    t: &ThreadCx,
    site: &'static Location<'static>,
    what: &'static str,
    values: &[u64],
) -> Option<String> {
    let k = key(site);
    let n = {
        let mut calls = t.argument_calls.borrow_mut();
        let n = calls.entry(k).or_insert(0);
        *n += 1;
        *n
    };
    let mut u = t.launch().uniform.borrow_mut();
    let (first, by) = u
        .arguments
        .entry((k, n))
        .or_insert_with(|| (values.to_vec(), t.coords));
    if first[..] == *values {
        return None;
    }
    let show = |v: &[u64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(format!(
        "a non-uniform argument in {}: this thread passes {what} = ({}) at {site}, where {} passed \
         ({}) in the same call. Every thread of the launch must pass the same value there (a \
         value computed from the thread's or the block's index makes the pattern hand one \
         element to two threads); compute it from kernel parameters or the launch's shape",
        kernel(t),
        show(values),
        who(by),
        show(first),
    ))
}
