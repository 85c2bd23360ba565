//! Printing from a kernel: [`println!`](macro@crate::println) and
//! [`print!`](macro@crate::print), with Rust's format syntax, through CUDA's
//! `printf`.
//!
//! ```ignore
//! use cg_core::prelude::*;
//! use cg_core::println;
//!
//! #[kernel]
//! pub fn show(x: &[f32]) {
//!     let i = this_grid().thread_rank() as usize;
//!     if i < x.len() {
//!         println!("thread {i}: x = {}, bits {:#x}, at {:p}", x[i], x[i].to_bits(), &x[i]);
//!     }
//! }
//! ```
//!
//! prints, from each thread, a line such as
//! `thread 3: x = 1.5, bits 0x3fc00000, at 0x7f3a5e000c0c`.
//!
//! # How
//!
//! The macro turns the format string into a C format string at compile
//! time (one conversion per placeholder, chosen by the argument's type)
//! and calls `vprintf(format, args)`, the function behind CUDA's `printf`
//! (the CUDA driver links it when it loads the module). The arguments go
//! in a buffer laid out as CUDA's `printf` reads them: each at an offset
//! aligned to its own size, integers of less than 32 bits widened to 32,
//! `f32` widened to `f64`, pointers as 64 bits. A kernel that does not
//! print has no trace of it in its PTX.
//!
//! On the GPU the driver collects each call's text in a buffer (1 MiB by
//! default; text past it is lost) and writes it to the host's standard
//! output at the next synchronisation with the device (a stream or
//! context synchronisation, a blocking copy, a launch's end when the host
//! waits for it). One call's text is written whole; the calls of one
//! thread come out in the order it made them; CUDA does not order the
//! calls of different threads (a warp's lanes' calls usually come out one
//! lane after another). So print whole lines, with [`println!`](macro@crate::println):
//! a [`print!`](macro@crate::print) that ends mid-line may be followed by another
//! thread's text. CUDA's `printf` takes at most 32 arguments.
//!
//! On the simulator (`cg_core::sim`) the text is formatted from the same
//! C format string and argument buffer, as the driver does, by the host C
//! library's `snprintf`, and written whole, at the call, to the host's
//! standard output (through Rust's `print!`, so a test harness captures
//! it like a test's own output), or to the buffer of
//! `cg_core::sim::capture_printed`.
//!
//! # Formats
//!
//! Placeholders are written as in Rust: `{}`, `{0}` (an argument by its
//! position), `{name}` (a named argument `name = value`, else a variable in
//! scope), `{{` and `}}` for braces, and these specifications:
//!
//! | placeholder | types | C conversion | output |
//! |---|---|---|---|
//! | `{}` | `i8`, `i16`, `i32` | `%d` | as Rust's |
//! | `{}` | `u8`, `u16`, `u32` | `%u` | as Rust's |
//! | `{}` | `i64`, `isize` | `%lld` | as Rust's |
//! | `{}` | `u64`, `usize` | `%llu` | as Rust's |
//! | `{}` | `f32`, `f64` | `%g` | see below |
//! | `{}` | `bool` | `%s` | `true`, `false`, as Rust's |
//! | `{:.N}` | `f32`, `f64` | `%.Nf` | as Rust's for finite values |
//! | `{:e}`, `{:E}`, `{:.Ne}` | `f32`, `f64` | `%e`, `%E`, `%.Ne` | C's: `1.500000e+00` where Rust prints `1.5e0` |
//! | `{:x}`, `{:X}`, `{:o}` | integers | `%x`, `%X`, `%o` (`ll` for 64 bits) | as Rust's (a negative value prints its two's complement in its own width: `-1i8` is `ff`) |
//! | `{:#x}`, `{:#X}`, `{:#o}` | integers | `0x%x`, `0x%X`, `0o%o` | as Rust's |
//! | `{:p}` | `*const T`, `*mut T`, `&T`, `&mut T` | `0x%llx` | as Rust's |
//!
//! A width (`{:8}`), alignment (`{:<8}`, `{:>8}`), `+` (signed integers
//! and floats) and `0` (numbers: `{:08.3}`) become C's width and flags and
//! print as Rust's do: numbers align right and `bool` left unless told.
//!
//! Floats with `{}`: C has no conversion for Rust's shortest round-trip
//! form, and `%g` is the nearest: six significant digits, trailing zeros
//! dropped, so `1.5`, `0.1` (of `f32` or `f64`), `-0`, `100` and `inf` print
//! as in Rust, but `3.14159265` prints `3.14159`, `1234567.0` prints
//! `1.23457e+06`, `1e20` prints `1e+20` and `1e-7` prints `1e-07` (Rust:
//! every digit, no exponent), and NaN prints `nan` (`-nan` when its sign bit
//! is set) where Rust prints `NaN`. Print a value with `{:.N}` for fixed
//! digits, or its bits (`{:#x}` of `x.to_bits()`) to see it exactly.
//!
//! Not available: `{:?}`, `{:b}`, fill characters other than space and
//! `0`, centring (`^`), a width or precision from an argument (`{:1$}`,
//! `{:.*}`), a width with `#`, `{:p}` with a width, and other types
//! (`char`, `str`, `i128`, your own): each is a compile-time error that
//! says what to write instead.

/// Writes `$fmt` with its arguments to the host's standard output, through
/// CUDA's `printf`; the syntax and what differs from Rust's `print!` are in
/// [the module's documentation](mod@crate::print). It does not end the line: where several threads print,
/// prefer [`println!`](macro@crate::println), whose line cannot be split by
/// another thread's text.
///
/// ```ignore
/// cg_core::print!("{} ", x); // one value, no newline
/// ```
#[macro_export]
macro_rules! print {
    ($($arg:tt)+) => {
        $crate::__private::print_call!($crate, false, $($arg)+)
    };
}

/// Writes `$fmt` with its arguments and a newline to the host's standard
/// output, through CUDA's `printf`: one line per call, whole; the syntax
/// and what differs from Rust's `println!` are in
/// [the module's documentation](mod@crate::print).
///
/// ```ignore
/// use cg_core::println;
/// println!("block {} thread {}: {:.3}", block.group_index()[0], block.thread_rank(), v);
/// ```
///
/// Import it by name (`use cg_core::println;`) or call it by its path: a
/// crate with `std` has std's `println!` in scope too, and `cg_core`'s
/// prelude leaves it out for that reason.
#[macro_export]
macro_rules! println {
    () => {
        $crate::__private::print_call!($crate, true, "")
    };
    ($($arg:tt)+) => {
        $crate::__private::print_call!($crate, true, $($arg)+)
    };
}

/// A value that prints with `{}` (and a width, alignment, `+` or `0`):
/// the integer types, `f32`, `f64` and `bool`. Sealed: a kernel prints
/// other values through these.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed with `{{}}` from a kernel",
    label = "not an integer, a float or a bool",
    note = "cg_core::println! prints i8..i64, u8..u64, isize, usize, f32, f64 and bool with `{{}}` \
            (CUDA's printf): convert the value to one of them, or print its fields"
)]
pub trait Display: sealed::Sealed {
    /// The C conversion after its flags and width: `d`, `u`, `lld`,
    /// `llu`, `g` or `s`.
    const CONVERSION: &'static str;
    /// The flag that aligns the value where a width is given without an
    /// alignment: `""` (right, numbers) or `"-"` (left, `bool`), as Rust.
    const DEFAULT_ALIGN: &'static str;
    /// The value in the argument buffer.
    type Packed: Copy;
    /// The value as the conversion reads it (widened to 32 bits, `f64`,
    /// or a pointer to `"true"` or `"false"`).
    fn pack(&self) -> Self::Packed;
}

/// An integer that prints with `{:x}`, `{:X}` and `{:o}`: its bits, in its
/// own width.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed with `{{:x}}`, `{{:X}}` or `{{:o}}` from a kernel",
    label = "not an integer",
    note = "hexadecimal and octal print the integer types; for a float's bits print `x.to_bits()`"
)]
pub trait Radix: sealed::Sealed {
    /// The C length modifier: `""` (32 bits or less) or `"ll"` (64 bits).
    const LENGTH: &'static str;
    /// The value in the argument buffer.
    type Packed: Copy;
    /// The value's bits, zero-extended to at least 32.
    fn pack(&self) -> Self::Packed;
}

/// A float that prints with a precision (`{:.3}`, C's `%.3f`) or in
/// exponent form (`{:e}`, C's `%e`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed with a precision or `{{:e}}` from a kernel",
    label = "not f32 or f64",
    note = "`{{:.N}}` and `{{:e}}` print f32 and f64; print an integer with `{{}}` or `{{:x}}`"
)]
pub trait Float: sealed::Sealed {
    /// The value as C's `double`.
    fn pack(&self) -> f64;
}

/// A pointer that prints with `{:p}`: raw pointers and references, as
/// their address.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed with `{{:p}}` from a kernel",
    label = "not a pointer or a reference",
    note = "`{{:p}}` prints raw pointers and references (`{{:p}}` of `&x` is x's address)"
)]
pub trait Pointer: sealed::Sealed {
    /// The address.
    fn pack(&self) -> u64;
}

/// A number with a sign `{:+}` can print: the signed integers and floats.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed with `+` from a kernel",
    label = "not a signed integer or a float",
    note = "C's printf prints no `+` for unsigned values; leave the `+` out"
)]
pub trait Signed: sealed::Sealed {}

/// A number `0` pads (`{:08}`): the integers and floats.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be padded with `0` from a kernel",
    label = "not a number",
    note = "`0` pads numbers; pad other values with spaces (`{{:8}}`)"
)]
pub trait Number: sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! integers {
    ($($t:ty: $conv:literal, $len:literal, $packed:ty, $unsigned:ty, $bits:ty;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Number for $t {}
        impl Display for $t {
            const CONVERSION: &'static str = $conv;
            const DEFAULT_ALIGN: &'static str = "";
            type Packed = $packed;
            #[inline(always)]
            fn pack(&self) -> $packed {
                *self as $packed
            }
        }
        impl Radix for $t {
            const LENGTH: &'static str = $len;
            type Packed = $bits;
            #[inline(always)]
            fn pack(&self) -> $bits {
                // Through the unsigned type of the same width: its bits,
                // not its sign, fill the wider word.
                *self as $unsigned as $bits
            }
        }
    )*};
}

integers! {
    i8: "d", "", i32, u8, u32;
    i16: "d", "", i32, u16, u32;
    i32: "d", "", i32, u32, u32;
    i64: "lld", "ll", i64, u64, u64;
    isize: "lld", "ll", i64, usize, u64;
    u8: "u", "", u32, u8, u32;
    u16: "u", "", u32, u16, u32;
    u32: "u", "", u32, u32, u32;
    u64: "llu", "ll", u64, u64, u64;
    usize: "llu", "ll", u64, usize, u64;
}

impl Signed for i8 {}
impl Signed for i16 {}
impl Signed for i32 {}
impl Signed for i64 {}
impl Signed for isize {}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for f64 {}
impl Number for f32 {}
impl Number for f64 {}
impl Signed for f32 {}
impl Signed for f64 {}

impl Display for f32 {
    const CONVERSION: &'static str = "g";
    const DEFAULT_ALIGN: &'static str = "";
    type Packed = f64;
    #[inline(always)]
    fn pack(&self) -> f64 {
        *self as f64
    }
}

impl Display for f64 {
    const CONVERSION: &'static str = "g";
    const DEFAULT_ALIGN: &'static str = "";
    type Packed = f64;
    #[inline(always)]
    fn pack(&self) -> f64 {
        *self
    }
}

impl Float for f32 {
    #[inline(always)]
    fn pack(&self) -> f64 {
        *self as f64
    }
}

impl Float for f64 {
    #[inline(always)]
    fn pack(&self) -> f64 {
        *self
    }
}

impl sealed::Sealed for bool {}

impl Display for bool {
    const CONVERSION: &'static str = "s";
    const DEFAULT_ALIGN: &'static str = "-";
    type Packed = *const u8;
    #[inline(always)]
    fn pack(&self) -> *const u8 {
        if *self {
            c"true".as_ptr().cast()
        } else {
            c"false".as_ptr().cast()
        }
    }
}

impl<T: ?Sized> sealed::Sealed for *const T {}
impl<T: ?Sized> sealed::Sealed for *mut T {}
impl<T: ?Sized> sealed::Sealed for &T {}
impl<T: ?Sized> sealed::Sealed for &mut T {}

impl<T: ?Sized> Pointer for *const T {
    #[inline(always)]
    fn pack(&self) -> u64 {
        self.cast::<u8>() as usize as u64
    }
}

impl<T: ?Sized> Pointer for *mut T {
    #[inline(always)]
    fn pack(&self) -> u64 {
        self.cast::<u8>() as usize as u64
    }
}

impl<T: ?Sized> Pointer for &T {
    #[inline(always)]
    fn pack(&self) -> u64 {
        Pointer::pack(&(*self as *const T))
    }
}

impl<T: ?Sized> Pointer for &mut T {
    #[inline(always)]
    fn pack(&self) -> u64 {
        Pointer::pack(&(&**self as *const T))
    }
}

/// The C format string of one call: `pieces` one after the other, then a
/// NUL, in `N` bytes (the macro's bound on the length; the rest is NULs).
/// Evaluated at compile time.
#[doc(hidden)]
pub const fn format_string<const N: usize>(pieces: &[&str]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut at = 0;
    let mut p = 0;
    while p < pieces.len() {
        let bytes = pieces[p].as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            assert!(
                at + 1 < N,
                "cg_core::println!: the format string's bound is too small"
            );
            out[at] = bytes[i];
            at += 1;
            i += 1;
        }
        p += 1;
    }
    out
}

/// CUDA's `printf` of a format string and argument buffer the macro built.
///
/// # Safety
/// As `vprintf`: `format` is NUL-terminated and `args` holds an argument
/// for each of its conversions, as CUDA's `printf` lays them out.
#[doc(hidden)]
#[inline(always)]
pub unsafe fn vprintf(format: *const u8, args: *const u8) {
    // SAFETY: the caller's contract. The count it returns is not needed.
    let _ = unsafe { crate::intrinsics::vprintf(format, args) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_string_is_its_pieces_and_a_nul() {
        let s: [u8; 12] = format_string(&["x=%", <i64 as Display>::CONVERSION, "\n"]);
        assert_eq!(&s, b"x=%lld\n\0\0\0\0\0");
    }

    #[test]
    fn values_are_packed_as_printf_reads_them() {
        assert_eq!(Display::pack(&-3i8), -3i32);
        assert_eq!(Display::pack(&200u8), 200u32);
        assert_eq!(Display::pack(&0.1f32), 0.1f32 as f64);
        assert_eq!(Radix::pack(&-2i16), 0xfffe_u32);
        assert_eq!(Radix::pack(&-1i8), 0xff_u32);
        assert_eq!(Radix::pack(&-1i32), u32::MAX);
        assert_eq!(Radix::pack(&i64::MIN), 1 << 63);
        assert_eq!(Radix::pack(&-1isize), u64::MAX);
        let x = 5u32;
        assert_eq!(Pointer::pack(&&x), &x as *const u32 as u64);
        // SAFETY: `pack` gives a NUL-terminated static string.
        let t = unsafe { core::ffi::CStr::from_ptr(Display::pack(&true).cast()) };
        assert_eq!(t.to_bytes(), b"true");
    }
}
