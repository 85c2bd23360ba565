//! The scoped memory instructions behind [`crate::atomic`]: `atom`, `red`,
//! `ld`/`st` with a memory-ordering semantics and a scope, and `fence`.
//!
//! Every function takes the semantics ([`Sem`]) and scope ([`Scope`]) as
//! values; they are constants at every call site, so each call folds to the
//! one instruction the pair names (the `match` below picks one literal
//! template). Addresses are global (64-bit generic-to-global pointers),
//! this block's shared window or, on sm_90, the cluster's shared window
//! (32-bit), per [`Place`].
//!
//! [`Sem`], [`Scope`] and [`Place`] are `pub` in this crate-private module:
//! the hidden methods of `crate::atomic`'s sealed traits take them.

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

/// The `.sem` qualifier of an instruction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sem {
    /// `.relaxed`
    Relaxed,
    /// `.acquire`
    Acquire,
    /// `.release`
    Release,
    /// `.acq_rel`
    AcqRel,
}

/// The `.scope` qualifier of an instruction (CUDA's `thread_scope_*`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    /// `.cta`: the threads of one block.
    Cta,
    /// `.cluster`: the threads of one thread-block cluster (sm_90).
    Cluster,
    /// `.gpu`: every thread of the device.
    Gpu,
    /// `.sys`: the device, the host and peer devices.
    Sys,
}

/// Where the atomic location lives.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// Global memory, by its 64-bit address.
    Global(u64),
    /// This block's shared memory, by its 32-bit shared-window address.
    Shared(u32),
    /// Shared memory of a block of this block's cluster (distributed
    /// shared memory, sm_90), by its 32-bit cluster-window address (from
    /// `mapa`).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    ClusterShared(u32),
}

/// Expands `$m!(sem, scope, rest...)` for the `(sem, scope)` pair.
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_macros))]
macro_rules! by_sem_scope {
    ($sem:expr, $scope:expr, $m:ident!($($rest:tt)*)) => {
        match ($sem, $scope) {
            (Sem::Relaxed, Scope::Cta) => $m!(".relaxed", ".cta", $($rest)*),
            (Sem::Relaxed, Scope::Cluster) => $m!(".relaxed", ".cluster", $($rest)*),
            (Sem::Relaxed, Scope::Gpu) => $m!(".relaxed", ".gpu", $($rest)*),
            (Sem::Relaxed, Scope::Sys) => $m!(".relaxed", ".sys", $($rest)*),
            (Sem::Acquire, Scope::Cta) => $m!(".acquire", ".cta", $($rest)*),
            (Sem::Acquire, Scope::Cluster) => $m!(".acquire", ".cluster", $($rest)*),
            (Sem::Acquire, Scope::Gpu) => $m!(".acquire", ".gpu", $($rest)*),
            (Sem::Acquire, Scope::Sys) => $m!(".acquire", ".sys", $($rest)*),
            (Sem::Release, Scope::Cta) => $m!(".release", ".cta", $($rest)*),
            (Sem::Release, Scope::Cluster) => $m!(".release", ".cluster", $($rest)*),
            (Sem::Release, Scope::Gpu) => $m!(".release", ".gpu", $($rest)*),
            (Sem::Release, Scope::Sys) => $m!(".release", ".sys", $($rest)*),
            (Sem::AcqRel, Scope::Cta) => $m!(".acq_rel", ".cta", $($rest)*),
            (Sem::AcqRel, Scope::Cluster) => $m!(".acq_rel", ".cluster", $($rest)*),
            (Sem::AcqRel, Scope::Gpu) => $m!(".acq_rel", ".gpu", $($rest)*),
            (Sem::AcqRel, Scope::Sys) => $m!(".acq_rel", ".sys", $($rest)*),
        }
    };
}

/// The simulator's `atom`/`red`: the update as PTX defines it, on host
/// memory, as one atomic read-modify-write.
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
macro_rules! sim_rmw {
    ("add", "u32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |o| o.wrapping_add($v))
    };
    ("add", "u64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |o| o.wrapping_add($v))
    };
    // `atom.add.f32` flushes subnormal inputs and results to zero; the
    // f64 form does not.
    ("add", "f32", $p:expr, $v:expr) => {
        f32::from_bits(super::sim::rmw::<u32>($p, |o| {
            super::sim::ftz(super::sim::ftz(f32::from_bits(o)) + super::sim::ftz($v)).to_bits()
        }))
    };
    ("add", "f64", $p:expr, $v:expr) => {
        f64::from_bits(super::sim::rmw::<u64>($p, |o| {
            (f64::from_bits(o) + $v).to_bits()
        }))
    };
    ("min", "u32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |o| o.min($v))
    };
    ("min", "u64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |o| o.min($v))
    };
    ("min", "s32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |o| (o as i32).min($v as i32) as u32)
    };
    ("min", "s64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |o| (o as i64).min($v as i64) as u64)
    };
    ("max", "u32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |o| o.max($v))
    };
    ("max", "u64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |o| o.max($v))
    };
    ("max", "s32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |o| (o as i32).max($v as i32) as u32)
    };
    ("max", "s64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |o| (o as i64).max($v as i64) as u64)
    };
    ("and", "b32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |o| o & $v)
    };
    ("and", "b64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |o| o & $v)
    };
    ("or", "b32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |o| o | $v)
    };
    ("or", "b64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |o| o | $v)
    };
    ("xor", "b32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |o| o ^ $v)
    };
    ("xor", "b64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |o| o ^ $v)
    };
    ("exch", "b32", $p:expr, $v:expr) => {
        super::sim::rmw::<u32>($p, |_| $v)
    };
    ("exch", "b64", $p:expr, $v:expr) => {
        super::sim::rmw::<u64>($p, |_| $v)
    };
}

/// `atom.{op}.{ty}` or `red.{op}.{ty}` on distributed shared memory: the
/// instruction itself (`$native`), except for the 64-bit `min`, `max`,
/// `and`, `or` and `xor`, which are a compare-and-swap loop there.
///
/// Those five lose updates on sm_90 when threads of the block that owns the
/// memory and threads of another block of the cluster update one location
/// at once (H200, driver 580, CUDA 13.0: a `min.u64` of 171 operands over 3
/// contended cells ended wrong in 110 of 192 cells, in nvcc's code as in
/// ours; `add.u64`, `exch.b64`, `cas.b64`, `add.f64` and every 32-bit form
/// were right; `docs/NOTES.md`). `$bind` is what takes the old value
/// (`(old =)` for `atom`, `(let _ =)` for `red`).
#[cfg(target_feature = "sm_90")]
macro_rules! cluster_rmw {
    ("min", "u64", $a:expr, $v:expr, $sem:expr, $scope:expr, ($($bind:tt)*), $native:expr) => {
        cluster_rmw!(@cas $a, $v, $sem, $scope, |o: u64| o.min($v), ($($bind)*))
    };
    ("min", "s64", $a:expr, $v:expr, $sem:expr, $scope:expr, ($($bind:tt)*), $native:expr) => {
        cluster_rmw!(@cas $a, $v, $sem, $scope, |o: u64| (o as i64).min($v as i64) as u64, ($($bind)*))
    };
    ("max", "u64", $a:expr, $v:expr, $sem:expr, $scope:expr, ($($bind:tt)*), $native:expr) => {
        cluster_rmw!(@cas $a, $v, $sem, $scope, |o: u64| o.max($v), ($($bind)*))
    };
    ("max", "s64", $a:expr, $v:expr, $sem:expr, $scope:expr, ($($bind:tt)*), $native:expr) => {
        cluster_rmw!(@cas $a, $v, $sem, $scope, |o: u64| (o as i64).max($v as i64) as u64, ($($bind)*))
    };
    ("and", "b64", $a:expr, $v:expr, $sem:expr, $scope:expr, ($($bind:tt)*), $native:expr) => {
        cluster_rmw!(@cas $a, $v, $sem, $scope, |o: u64| o & $v, ($($bind)*))
    };
    ("or", "b64", $a:expr, $v:expr, $sem:expr, $scope:expr, ($($bind:tt)*), $native:expr) => {
        cluster_rmw!(@cas $a, $v, $sem, $scope, |o: u64| o | $v, ($($bind)*))
    };
    ("xor", "b64", $a:expr, $v:expr, $sem:expr, $scope:expr, ($($bind:tt)*), $native:expr) => {
        cluster_rmw!(@cas $a, $v, $sem, $scope, |o: u64| o ^ $v, ($($bind)*))
    };
    (@cas $a:expr, $v:expr, $sem:expr, $scope:expr, $f:expr, ($($bind:tt)*)) => {{
        $($bind)* cluster_cas_loop($a, $sem, $scope, $f);
    }};
    ($op:tt, $ty:tt, $a:expr, $v:expr, $sem:expr, $scope:expr, ($($bind:tt)*), $native:expr) => {
        $native
    };
}

/// Replaces the 64-bit value at cluster-window address `a` with `f(old)`
/// by compare-and-swap (`sem` on the swap that succeeds); returns the old
/// value. See `cluster_rmw!`.
///
/// # Safety
/// `a` is a live, 8-byte aligned location of distributed shared memory.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
unsafe fn cluster_cas_loop(a: u32, sem: Sem, scope: Scope, f: impl Fn(u64) -> u64) -> u64 {
    let place = Place::ClusterShared(a);
    // SAFETY: `a` is a live, 8-byte aligned `u64` of distributed shared
    // memory (this function's contract): what `ld` and `atom.cas` ask.
    let mut old = unsafe { ld_b64(place, Sem::Relaxed, scope) };
    loop {
        // SAFETY: the same location as the load above.
        let seen = unsafe { atom_cas_b64(place, old, f(old), sem, scope) };
        if seen == old {
            return old;
        }
        old = seen;
    }
}

/// `atom{sem}{scope}.{space}.{op}.{ty}` with one value operand, returning
/// the old value.
macro_rules! atom_fn {
    ($(#[$doc:meta])* $name:ident, $op:tt, $ty:tt, $t:ty, $reg:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `place` must be a live location of the type, aligned to its size,
        /// in the named address space.
        #[inline(always)]
        pub(crate) unsafe fn $name(place: Place, v: $t, sem: Sem, scope: Scope) -> $t {
            device!(concat!("atom.", $op, ".", $ty), {
                // SAFETY: the instruction's contract is this function's `# Safety`,
                // which its caller upholds.
                unsafe {
                    let old: $t;
                    macro_rules! insn {
                        ($s:literal, $c:literal, $space:literal, $areg:ident, $a:expr) => {
                            asm!(concat!("atom", $s, $c, $space, ".", $op, ".", $ty, " {o}, [{a}], {v};"),
                                 o = out($reg) old, a = in($areg) $a, v = in($reg) v, options(nostack))
                        };
                    }
                    match place {
                        Place::Global(a) => by_sem_scope!(sem, scope, insn!(".global", reg64, a)),
                        Place::Shared(a) => by_sem_scope!(sem, scope, insn!(".shared", reg32, a)),
                        #[cfg(target_feature = "sm_90")]
                        Place::ClusterShared(a) => cluster_rmw!($op, $ty, a, v, sem, scope,
                            (old =), by_sem_scope!(sem, scope, insn!(".shared::cluster", reg32, a))),
                    }
                    old
                }
            }, sim: {
                super::sim::before(sem);
                let old = sim_rmw!($op, $ty, place, v);
                super::sim::after(sem);
                old
            })
        }
    };
}

/// `red{sem}{scope}.{space}.{op}.{ty}`: the same update with no result
/// (`sem` is relaxed or release).
macro_rules! red_fn {
    ($(#[$doc:meta])* $name:ident, $op:tt, $ty:tt, $t:ty, $reg:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As the `atom` form; `sem` is [`Sem::Relaxed`] or [`Sem::Release`].
        #[inline(always)]
        pub(crate) unsafe fn $name(place: Place, v: $t, sem: Sem, scope: Scope) {
            device!(concat!("red.", $op, ".", $ty), {
                // SAFETY: the instruction's contract is this function's `# Safety`,
                // which its caller upholds.
                unsafe {
                    macro_rules! insn {
                        ($s:literal, $c:literal, $space:literal, $areg:ident, $a:expr) => {
                            asm!(concat!("red", $s, $c, $space, ".", $op, ".", $ty, " [{a}], {v};"),
                                 a = in($areg) $a, v = in($reg) v, options(nostack))
                        };
                    }
                    let sem = if sem == Sem::Release { Sem::Release } else { Sem::Relaxed };
                    match place {
                        Place::Global(a) => by_sem_scope!(sem, scope, insn!(".global", reg64, a)),
                        Place::Shared(a) => by_sem_scope!(sem, scope, insn!(".shared", reg32, a)),
                        #[cfg(target_feature = "sm_90")]
                        Place::ClusterShared(a) => cluster_rmw!($op, $ty, a, v, sem, scope,
                            (let _ =), by_sem_scope!(sem, scope, insn!(".shared::cluster", reg32, a))),
                    }
                }
            }, sim: {
                super::sim::before(sem);
                let _ = sim_rmw!($op, $ty, place, v);
            })
        }
    };
}

macro_rules! atom_and_red {
    ($($atom:ident $red:ident $op:tt $ty:tt $t:ty, $reg:ident;)*) => {$(
        atom_fn!(
            #[doc = concat!("`atom.", $op, ".", $ty, "`: returns the old value.")]
            $atom, $op, $ty, $t, $reg
        );
        red_fn!(
            #[doc = concat!("`red.", $op, ".", $ty, "`.")]
            $red, $op, $ty, $t, $reg
        );
    )*};
}

atom_and_red! {
    atom_add_u32 red_add_u32 "add" "u32" u32, reg32;
    atom_add_u64 red_add_u64 "add" "u64" u64, reg64;
    atom_add_f32 red_add_f32 "add" "f32" f32, reg32;
    atom_add_f64 red_add_f64 "add" "f64" f64, reg64;
    atom_min_u32 red_min_u32 "min" "u32" u32, reg32;
    atom_min_s32 red_min_s32 "min" "s32" u32, reg32;
    atom_min_u64 red_min_u64 "min" "u64" u64, reg64;
    atom_min_s64 red_min_s64 "min" "s64" u64, reg64;
    atom_max_u32 red_max_u32 "max" "u32" u32, reg32;
    atom_max_s32 red_max_s32 "max" "s32" u32, reg32;
    atom_max_u64 red_max_u64 "max" "u64" u64, reg64;
    atom_max_s64 red_max_s64 "max" "s64" u64, reg64;
    atom_and_b32 red_and_b32 "and" "b32" u32, reg32;
    atom_and_b64 red_and_b64 "and" "b64" u64, reg64;
    atom_or_b32 red_or_b32 "or" "b32" u32, reg32;
    atom_or_b64 red_or_b64 "or" "b64" u64, reg64;
    atom_xor_b32 red_xor_b32 "xor" "b32" u32, reg32;
    atom_xor_b64 red_xor_b64 "xor" "b64" u64, reg64;
}

atom_fn!(
    /// `atom.exch.b32`: stores `v`, returns the old value.
    atom_exch_b32, "exch", "b32", u32, reg32
);
atom_fn!(
    /// `atom.exch.b64`: stores `v`, returns the old value.
    atom_exch_b64, "exch", "b64", u64, reg64
);

/// `atom.cas.{b32,b64}`: stores `new` where the location holds `current`;
/// returns the old value either way.
macro_rules! cas_fn {
    ($name:ident, $ty:literal, $t:ty, $reg:ident) => {
        #[doc = concat!("`atom.cas.", $ty, "`: stores `new` where the location holds `current`; returns the old value.")]
        ///
        /// # Safety
        /// As the other `atom` forms.
        #[inline(always)]
        pub(crate) unsafe fn $name(place: Place, current: $t, new: $t, sem: Sem, scope: Scope) -> $t {
            device!(concat!("atom.cas.", $ty), {
                // SAFETY: the instruction's contract is this function's `# Safety`,
                // which its caller upholds.
                unsafe {
                    let old: $t;
                    macro_rules! insn {
                        ($s:literal, $c:literal, $space:literal, $areg:ident, $a:expr) => {
                            asm!(concat!("atom", $s, $c, $space, ".cas.", $ty, " {o}, [{a}], {x}, {y};"),
                                 o = out($reg) old, a = in($areg) $a, x = in($reg) current, y = in($reg) new,
                                 options(nostack))
                        };
                    }
                    match place {
                        Place::Global(a) => by_sem_scope!(sem, scope, insn!(".global", reg64, a)),
                        Place::Shared(a) => by_sem_scope!(sem, scope, insn!(".shared", reg32, a)),
                        #[cfg(target_feature = "sm_90")]
                        Place::ClusterShared(a) => {
                            by_sem_scope!(sem, scope, insn!(".shared::cluster", reg32, a))
                        }
                    }
                    old
                }
            }, sim: {
                super::sim::before(sem);
                let old = super::sim::cas::<$t>(place, current, new);
                super::sim::after(sem);
                old
            })
        }
    };
}
cas_fn!(atom_cas_b32, "b32", u32, reg32);
cas_fn!(atom_cas_b64, "b64", u64, reg64);

/// `ld{sem}{scope}` and `st{sem}{scope}` of 32- and 64-bit words.
macro_rules! ld_st_fn {
    ($ld:ident, $st:ident, $ty:literal, $t:ty, $reg:ident) => {
        #[doc = concat!("`ld{.relaxed,.acquire}{scope}.", $ty, "` (`sem` is relaxed or acquire).")]
        ///
        /// # Safety
        /// As the `atom` forms.
        #[inline(always)]
        pub(crate) unsafe fn $ld(place: Place, sem: Sem, scope: Scope) -> $t {
            device!(concat!("ld.", $ty), {
                // SAFETY: the instruction's contract is this function's `# Safety`,
                // which its caller upholds.
                unsafe {
                    let v: $t;
                    macro_rules! insn {
                                ($s:literal, $c:literal, $space:literal, $areg:ident, $a:expr) => {
                                    asm!(concat!("ld", $s, $c, $space, ".", $ty, " {v}, [{a}];"),
                                         v = out($reg) v, a = in($areg) $a, options(nostack))
                                };
                            }
                    let sem = if sem == Sem::Relaxed {
                        Sem::Relaxed
                    } else {
                        Sem::Acquire
                    };
                    match place {
                        Place::Global(a) => by_sem_scope!(sem, scope, insn!(".global", reg64, a)),
                        Place::Shared(a) => by_sem_scope!(sem, scope, insn!(".shared", reg32, a)),
                        #[cfg(target_feature = "sm_90")]
                        Place::ClusterShared(a) => {
                            by_sem_scope!(sem, scope, insn!(".shared::cluster", reg32, a))
                        }
                    }
                    v
                }
            }, sim: {
                let v = super::sim::load::<$t>(place);
                super::sim::after(sem);
                v
            })
        }

        #[doc = concat!("`st{.relaxed,.release}{scope}.", $ty, "` (`sem` is relaxed or release).")]
        ///
        /// # Safety
        /// As the `atom` forms.
        #[inline(always)]
        pub(crate) unsafe fn $st(place: Place, v: $t, sem: Sem, scope: Scope) {
            device!(concat!("st.", $ty), {
                // SAFETY: the instruction's contract is this function's `# Safety`,
                // which its caller upholds.
                unsafe {
                    macro_rules! insn {
                                ($s:literal, $c:literal, $space:literal, $areg:ident, $a:expr) => {
                                    asm!(concat!("st", $s, $c, $space, ".", $ty, " [{a}], {v};"),
                                         a = in($areg) $a, v = in($reg) v, options(nostack))
                                };
                            }
                    let sem = if sem == Sem::Relaxed {
                        Sem::Relaxed
                    } else {
                        Sem::Release
                    };
                    match place {
                        Place::Global(a) => by_sem_scope!(sem, scope, insn!(".global", reg64, a)),
                        Place::Shared(a) => by_sem_scope!(sem, scope, insn!(".shared", reg32, a)),
                        #[cfg(target_feature = "sm_90")]
                        Place::ClusterShared(a) => {
                            by_sem_scope!(sem, scope, insn!(".shared::cluster", reg32, a))
                        }
                    }
                }
            }, sim: {
                super::sim::before(sem);
                super::sim::store::<$t>(place, v)
            })
        }
    };
}
ld_st_fn!(ld_b32, st_b32, "b32", u32, reg32);
ld_st_fn!(ld_b64, st_b64, "b64", u64, reg64);

/// Weak `ld` of 32- and 64-bit words (no `.relaxed`, no scope): a plain
/// load, which the L1 cache may serve.
macro_rules! ld_weak_fn {
    ($ld:ident, $ty:literal, $t:ty, $reg:ident) => {
        #[doc = concat!("`ld{.global,.shared,.shared::cluster}.", $ty, "`, weak.")]
        ///
        /// # Safety
        /// As the `atom` forms.
        #[inline(always)]
        pub(crate) unsafe fn $ld(place: Place) -> $t {
            device!(concat!("ld.", $ty), {
                // SAFETY: the instruction's contract is this function's `# Safety`,
                // which its caller upholds.
                unsafe {
                    let v: $t;
                    match place {
                        Place::Global(a) => asm!(concat!("ld.global.", $ty, " {v}, [{a}];"),
                                                 v = out($reg) v, a = in(reg64) a, options(nostack, readonly)),
                        Place::Shared(a) => asm!(concat!("ld.shared.", $ty, " {v}, [{a}];"),
                                                 v = out($reg) v, a = in(reg32) a, options(nostack, readonly)),
                        #[cfg(target_feature = "sm_90")]
                        Place::ClusterShared(a) => asm!(concat!("ld.shared::cluster.", $ty, " {v}, [{a}];"),
                                                        v = out($reg) v, a = in(reg32) a, options(nostack, readonly)),
                    }
                    v
                }
            }, sim: {
                super::sim::load::<$t>(place)
            })
        }
    };
}
ld_weak_fn!(ld_weak_b32, "b32", u32, reg32);
ld_weak_fn!(ld_weak_b64, "b64", u64, reg64);

/// `fence.sc{scope}`: a sequentially consistent fence.
#[inline(always)]
pub(crate) fn fence_sc(scope: Scope) {
    device!("fence.sc", {
        // SAFETY: a fence has no operands.
        unsafe {
            match scope {
                Scope::Cta => asm!("fence.sc.cta;", options(nostack)),
                Scope::Cluster => asm!("fence.sc.cluster;", options(nostack)),
                Scope::Gpu => asm!("fence.sc.gpu;", options(nostack)),
                Scope::Sys => asm!("fence.sc.sys;", options(nostack)),
            }
        }
    }, sim: {
        // One OS thread runs a simulated launch: memory is sequentially
        // consistent already; for the race check a fence releases and
        // acquires.
        cg_sim::device::release();
        cg_sim::device::acquire();
    })
}

/// `fence.acq_rel{scope}`: an acquire-release fence.
#[inline(always)]
pub(crate) fn fence_acq_rel(scope: Scope) {
    device!("fence.acq_rel", {
        // SAFETY: a fence has no operands.
        unsafe {
            match scope {
                Scope::Cta => asm!("fence.acq_rel.cta;", options(nostack)),
                Scope::Cluster => asm!("fence.acq_rel.cluster;", options(nostack)),
                Scope::Gpu => asm!("fence.acq_rel.gpu;", options(nostack)),
                Scope::Sys => asm!("fence.acq_rel.sys;", options(nostack)),
            }
        }
    }, sim: {
        cg_sim::device::release();
        cg_sim::device::acquire();
    })
}
