# A/B variant build (docs/probes/ab-variants/README.md).
# jacobi_sweep through raw pointers (the twin's walk, one-row ranks,
# unchecked reads and writes, an early return on short buffers); v1 adds
# the safe walk's fit check, v2 an assert! on the lengths.
# `countdown`: the walk of the countdown form (the CUDA twin's since
# then: divisions only for a thread with a point, the index stepped with
# the column, a count of the points left) through raw pointers.
# Usage: python3 raw_jacobi_sweep.py plain|v1|v2|countdown
import sys
which=sys.argv[1]
p='cg-sample-kernels/src/jacobi.rs'
s=open(p).read()
old="""pub fn jacobi_sweep(u: &[f32], mut u_new: Output<f32>, nx: u32, ny: u32) {
    sweep(&this_grid(), u, &mut u_new, nx, ny);
}"""
if which == 'countdown':
    new = """pub fn jacobi_sweep(u: &[f32], mut u_new: Output<f32>, nx: u32, ny: u32) {
    let grid = this_grid();
    let total = nx as usize * ny as usize;
    if u.len() < total || u_new.len() < total || nx < 3 || ny < 3 {
        return;
    }
    let (src, dst) = (u.as_ptr(), u_new.as_mut_ptr());
    let w = nx - 2;
    let n = w * (ny - 2);
    let (rank, stride) = (grid.thread_rank() as u32, grid.num_threads() as u32);
    if rank >= n {
        return;
    }
    let mut x = rank % w;
    let mut i = (rank / w + 1) * nx + x + 1;
    let dx = stride % w;
    let di = (stride / w) * nx + dx;
    let mut left = n - rank;
    loop {
        unsafe {
            let c = src.add(i as usize);
            let s = ((*c.sub(1) + *c.add(1)) + *c.sub(nx as usize)) + *c.add(nx as usize);
            *dst.add(i as usize) = 0.25 * s;
        }
        if left <= stride {
            break;
        }
        left -= stride;
        x += dx;
        i += di;
        if x >= w {
            x -= w;
            i += 2;
        }
    }
}"""
    assert old in s
    open(p,'w').write(s.replace(old,new))
    sys.exit(0)
pre = {
 'plain': '',
 'v1': """    if (nx as u64 * ny as u64) + grid.num_threads() > u32::MAX as u64 {
        panic!("window does not fit");
    }
""",
 'v2': """    assert!(u.len() >= total && u_new.len() >= total, "too short");
""",
}[which]
new="""pub fn jacobi_sweep(u: &[f32], mut u_new: Output<f32>, nx: u32, ny: u32) {
    let grid = this_grid();
    let total = nx as usize * ny as usize;
"""+pre+"""    if u.len() < total || u_new.len() < total || nx < 3 || ny < 3 {
        return;
    }
    let (src, dst) = (u.as_ptr(), u_new.as_mut_ptr());
    let w = nx - 2;
    let n = w * (ny - 2);
    let (rank, stride) = (grid.thread_rank() as u32, grid.num_threads() as u32);
    let (dy, dx) = (stride / w, stride % w);
    let (mut y, mut x) = (rank / w, rank % w);
    let mut k = rank;
    while k < n {
        let i = ((y + 1) * nx + x + 1) as usize;
        unsafe {
            let s = ((*src.add(i - 1) + *src.add(i + 1)) + *src.add(i - nx as usize))
                + *src.add(i + nx as usize);
            *dst.add(i) = 0.25 * s;
        }
        x += dx;
        y += dy;
        if x >= w {
            x -= w;
            y += 1;
        }
        k += stride;
    }
}"""
assert old in s
s=s.replace(old,new)
open(p,'w').write(s)
