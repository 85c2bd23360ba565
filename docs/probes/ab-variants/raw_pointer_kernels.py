# A/B variant build (docs/probes/ab-variants/README.md).
# Replaces three sample kernels by the same algorithms writing through raw
# pointers (the "unsafe versions" of the safe-output issue), for an A/B build.
p='cg-sample-kernels/src/async_copy.rs'
s=open(p).read()
i=s.index("pub fn vadd_barrier(")
k=s.index("    c.truncate(w.n);", i)
e=s.index("/// Stage 4", i)
s=s[:k]+'''    let n = w.n.min(c.len());
    let out = c.as_mut_ptr();
    let mut start = w.first;
    while start < n {
        bar.memcpy_async(&block, sa, &a[start..]);
        bar.memcpy_async(&block, sb, &b[start..]);
        bar.arrive_and_wait();
        let i = start + w.t;
        if i < n {
            unsafe { *out.add(i) = sa.get(w.t) + sb.get(w.t) };
        }
        bar.arrive_and_wait();
        start += w.stride;
    }
}

'''+s[e:]
old=s[s.index("    dest.truncate(w.n);\n    for chunk in dest.block_chunks"):]
s=s.replace(old,'''    let n = w.n.min(dest.len());
    let out = dest.as_mut_ptr();
    let mut start = w.first;
    while start < n {
        let s = ring.stage(pipe.consumer_wait());
        block.sync();
        let len = (n - start).min(w.block);
        let (first, last) = (s.get(0), s.get(len - 1));
        if w.t < len {
            let v = s.get(w.t);
            unsafe { *out.add(start + w.t) = (first < v && v < last) as i32 };
        }
        block.sync();
        pipe.consumer_release();
        produce(&mut pipe, start + STAGES * w.stride);
        start += w.stride;
    }
}
''')
open(p,'w').write(s)
p='cg-sample-kernels/src/patterns.rs'
s=open(p).read()
i=s.index("pub fn grid_prefix_sum(")
j=s.index("\n}\n",i)+3
s=s[:i]+'''pub fn grid_prefix_sum(input: &[u32], mut block_totals: Output<u32>, mut out: Output<u32>) {
    let grid = this_grid();
    let block = this_thread_block();
    let n = input.len().min(out.len());
    let nb = grid.num_blocks() as usize;
    let bt = block.num_threads() as usize;
    let t = block.thread_rank() as usize;
    let b = grid.block_rank() as usize;
    let chunk = n.div_ceil(nb).div_ceil(bt) * bt;
    let o = out.as_mut_ptr();
    let start = b * chunk;
    let mut carry = 0u32;
    if start < n && chunk > 0 {
        let end = (start + chunk).min(n);
        let stop = start + (end - start).div_ceil(bt) * bt;
        let mut i = start + t;
        while i < stop {
            let v = if i < end { input[i] } else { 0 };
            let (x, total) = block_inclusive_scan(&block, v);
            if i < end {
                unsafe { *o.add(i) = carry.wrapping_add(x) };
            }
            carry = carry.wrapping_add(total);
            i += bt;
        }
    }
    let tl = block_totals.len();
    let totals = block_totals.as_mut_ptr();
    if t == 0 && b < tl {
        unsafe { *totals.add(b) = carry };
    }
    grid.sync();
    let mut j = t;
    let mut before = 0u32;
    while j < b.min(tl) {
        before = before.wrapping_add(unsafe { *totals.add(j) });
        j += bt;
    }
    let offset = block_reduce(&block, &block_scratch!(u32), before, Plus);
    if start < n && chunk > 0 {
        let end = (start + chunk).min(n);
        let mut i = start + t;
        while i < end {
            unsafe { *o.add(i) = (*o.add(i)).wrapping_add(offset) };
            i += bt;
        }
    }
}
'''+s[j:]
open(p,'w').write(s)
