//! CUDA's `printf` on the simulated device: `vprintf(format, args)` as the
//! CUDA driver reads it, and where the text goes.
//!
//! A kernel's `printf` (cg-core's `println!`) passes a C format string and
//! a buffer holding its arguments, each at an offset aligned to its own
//! size: `int`-sized integers (smaller ones promoted) take 4 bytes,
//! `long`/`long long` integers, `double`s (`float`s promoted), strings
//! and pointers 8. [`format()`] reads the buffer by the format's
//! conversions, as the driver does, and formats each conversion with the
//! host C library's `snprintf`, so the text is the one glibc's `printf`
//! gives for the same conversion and value (CUDA's is too: the driver
//! formats on the host).
//!
//! Each call's text is written whole, with one `print!` of the host's
//! standard output (so the test harness captures it like a test's own
//! output), or appended to the buffer of a [`capture`] running on this
//! OS thread.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr};
use std::string::String;

thread_local! {
    /// The text printed inside the innermost [`capture`] on this OS
    /// thread (a simulated launch runs on the thread that started it).
    static CAPTURED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f` and returns what simulated threads printed during it, on this
/// OS thread, instead of writing it to standard output: for tests that
/// check a kernel's printed text.
///
/// ```ignore
/// let (report, text) = cg_sim::printf::capture(|| cg_sim::launch(shape, &kernel));
/// assert_eq!(text, "hello from 0\n");
/// ```
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, String) {
    struct Restore(Option<String>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            CAPTURED.with(|c| *c.borrow_mut() = outer);
        }
    }
    let outer = CAPTURED.with(|c| c.borrow_mut().replace(String::new()));
    let restore = Restore(outer);
    let r = f();
    let text = CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    (r, text)
}

/// Writes one call's text: to the innermost [`capture`], else to standard
/// output in one piece.
pub(crate) fn emit(text: &str) {
    let captured = CAPTURED.with(|c| match c.borrow_mut().as_mut() {
        Some(buffer) => {
            buffer.push_str(text);
            true
        }
        None => false,
    });
    if !captured {
        std::print!("{text}");
    }
}

/// The text of `vprintf(format, args)` and the number of arguments it read
/// (what CUDA's `printf` returns).
///
/// # Safety
/// `format` is a NUL-terminated string; `args` holds an argument for each
/// of its conversions, laid out as CUDA's `printf` lays them out (it may be
/// null when there is none); a `%s` argument points to a NUL-terminated
/// string.
pub unsafe fn format(format: *const u8, args: *const u8) -> (String, i32) {
    // SAFETY: the caller's contract.
    let fmt = unsafe { CStr::from_ptr(format.cast()) }.to_bytes();
    let mut reader = Args {
        base: args,
        offset: 0,
        count: 0,
    };
    let mut out = Vec::with_capacity(fmt.len());
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let (spec, next) = Spec::parse(fmt, i + 1);
        // SAFETY: the caller's contract: an argument for each conversion.
        unsafe { spec.write(&fmt[i..next], &mut reader, &mut out) };
        i = next;
    }
    (String::from_utf8_lossy(&out).into_owned(), reader.count)
}

/// The argument buffer, read in order.
struct Args {
    base: *const u8,
    offset: usize,
    count: i32,
}

impl Args {
    /// The next argument of `N` bytes, at the next offset aligned to `N`.
    ///
    /// # Safety
    /// The buffer holds such an argument there.
    unsafe fn next<const N: usize>(&mut self) -> [u8; N] {
        self.offset = self.offset.next_multiple_of(N);
        // SAFETY: the caller's contract; the read is unaligned-safe.
        let bytes = unsafe {
            self.base
                .add(self.offset)
                .cast::<[u8; N]>()
                .read_unaligned()
        };
        self.offset += N;
        self.count += 1;
        bytes
    }

    /// # Safety
    /// As [`Args::next`].
    unsafe fn u32(&mut self) -> u32 {
        // SAFETY: the caller's contract.
        u32::from_ne_bytes(unsafe { self.next::<4>() })
    }

    /// # Safety
    /// As [`Args::next`].
    unsafe fn u64(&mut self) -> u64 {
        // SAFETY: the caller's contract.
        u64::from_ne_bytes(unsafe { self.next::<8>() })
    }
}

/// One conversion: `%[flags][width][.precision][length]conversion`.
#[derive(Debug, Default)]
struct Spec {
    flags: Vec<u8>,
    /// A number, `*` (from the arguments) or nothing.
    width: Count,
    precision: Option<Count>,
    /// Bytes of an integer argument before promotion: 1 (`hh`), 2 (`h`),
    /// 4 (none), 8 (`l`, `ll`, `j`, `z`, `t`; `long` has 64 bits on the
    /// GPU).
    int_bytes: u8,
    conversion: u8,
}

#[derive(Debug, Default, Clone, Copy)]
enum Count {
    #[default]
    None,
    Given(u32),
    Star,
}

impl Spec {
    /// The conversion that starts at `fmt[at]` (just past its `%`), and
    /// where the text after it starts.
    fn parse(fmt: &[u8], mut at: usize) -> (Spec, usize) {
        let mut spec = Spec {
            int_bytes: 4,
            ..Spec::default()
        };
        let peek = |at: usize| fmt.get(at).copied().unwrap_or(0);
        while matches!(peek(at), b'-' | b'+' | b' ' | b'#' | b'0') {
            spec.flags.push(peek(at));
            at += 1;
        }
        let count = |at: &mut usize| -> Count {
            if peek(*at) == b'*' {
                *at += 1;
                return Count::Star;
            }
            let start = *at;
            while peek(*at).is_ascii_digit() {
                *at += 1;
            }
            match std::str::from_utf8(&fmt[start..*at])
                .ok()
                .and_then(|s| s.parse().ok())
            {
                Some(n) => Count::Given(n),
                None => Count::None,
            }
        };
        spec.width = count(&mut at);
        if peek(at) == b'.' {
            at += 1;
            spec.precision = Some(match count(&mut at) {
                Count::None => Count::Given(0),
                c => c,
            });
        }
        loop {
            match peek(at) {
                b'h' => spec.int_bytes = if spec.int_bytes == 2 { 1 } else { 2 },
                b'l' | b'j' | b'z' | b't' | b'L' | b'q' => spec.int_bytes = 8,
                _ => break,
            }
            at += 1;
        }
        spec.conversion = peek(at);
        let next = if spec.conversion == 0 { at } else { at + 1 };
        (spec, next)
    }

    /// Appends this conversion's text (`text` is the conversion as the
    /// format wrote it), reading its arguments.
    ///
    /// # Safety
    /// `args` holds this conversion's arguments next.
    unsafe fn write(&self, text: &[u8], args: &mut Args, out: &mut Vec<u8>) {
        // The reads below: `args` holds this conversion's arguments next
        // (the caller's contract), a `*` count's first.
        let mut resolve = |c: Count| match c {
            Count::None => None,
            Count::Given(n) => Some(n as i32),
            Count::Star => {
                // SAFETY: the next argument is this count's `int` (above).
                let n = unsafe { args.u32() };
                Some(n as i32)
            }
        };
        let width = resolve(self.width);
        let precision = self.precision.and_then(&mut resolve);
        // The conversion for the host's snprintf, with the counts resolved
        // and integers always passed as `long long`.
        let mut c = String::from("%");
        c.extend(self.flags.iter().map(|&b| b as char));
        if let Some(w) = width {
            c.push_str(&w.to_string());
        }
        if let Some(p) = precision {
            c.push('.');
            c.push_str(&p.to_string());
        }
        let conversion = self.conversion as char;
        match self.conversion {
            b'%' => out.push(b'%'),
            b'd' | b'i' => {
                // SAFETY: see above.
                let v = unsafe { self.int(args) };
                let v = match self.int_bytes {
                    1 => v as i8 as i64,
                    2 => v as i16 as i64,
                    4 => v as i32 as i64,
                    _ => v as i64,
                };
                snprintf(out, &format!("{c}ll{conversion}"), |b, n, f| {
                    // SAFETY: `f` converts one `long long`.
                    unsafe { libc::snprintf(b, n, f, v as libc::c_longlong) }
                });
            }
            b'u' | b'x' | b'X' | b'o' => {
                // SAFETY: see above.
                let v = unsafe { self.int(args) };
                let v = match self.int_bytes {
                    1 => v as u8 as u64,
                    2 => v as u16 as u64,
                    4 => v as u32 as u64,
                    _ => v,
                };
                snprintf(out, &format!("{c}ll{conversion}"), |b, n, f| {
                    // SAFETY: `f` converts one `unsigned long long`.
                    unsafe { libc::snprintf(b, n, f, v as libc::c_ulonglong) }
                });
            }
            b'c' => {
                // SAFETY: see above.
                let v = unsafe { args.u32() } as c_int;
                snprintf(out, &format!("{c}c"), |b, n, f| {
                    // SAFETY: `f` converts one `int`.
                    unsafe { libc::snprintf(b, n, f, v) }
                });
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                // SAFETY: see above.
                let v = f64::from_bits(unsafe { args.u64() });
                snprintf(out, &format!("{c}{conversion}"), |b, n, f| {
                    // SAFETY: `f` converts one `double`.
                    unsafe { libc::snprintf(b, n, f, v) }
                });
            }
            b's' | b'p' => {
                // SAFETY: see above.
                let v = unsafe { args.u64() } as usize as *const c_char;
                snprintf(out, &format!("{c}{conversion}"), |b, n, f| {
                    // SAFETY: `f` converts one pointer; a string argument
                    // is a NUL-terminated string (the caller's contract).
                    unsafe { libc::snprintf(b, n, f, v) }
                });
            }
            // Not a conversion printf knows: its text as written.
            _ => out.extend_from_slice(text),
        }
    }

    /// An integer argument of this conversion's size, as 64 bits.
    ///
    /// # Safety
    /// `args` holds it next.
    unsafe fn int(&self, args: &mut Args) -> u64 {
        // SAFETY: the caller's contract.
        unsafe {
            if self.int_bytes == 8 {
                args.u64()
            } else {
                args.u32() as u64
            }
        }
    }
}

/// Appends what `call(buffer, size, format)` (one `snprintf` of one
/// conversion) writes.
fn snprintf(
    out: &mut Vec<u8>,
    format: &str,
    call: impl Fn(*mut c_char, libc::size_t, *const c_char) -> c_int,
) {
    let format = std::ffi::CString::new(format).expect("a conversion has no NUL byte");
    let mut buffer = vec![0u8; 64];
    let mut n = call(buffer.as_mut_ptr().cast(), buffer.len(), format.as_ptr());
    if n >= 0 && n as usize >= buffer.len() {
        buffer = vec![0u8; n as usize + 1];
        n = call(buffer.as_mut_ptr().cast(), buffer.len(), format.as_ptr());
    }
    if n > 0 {
        out.extend_from_slice(&buffer[..n as usize]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `vprintf(fmt, args)` over an argument buffer of 8-byte words.
    fn printed(fmt: &str, args: &[u64]) -> (String, i32) {
        let fmt = std::ffi::CString::new(fmt).unwrap();
        // SAFETY: the tests' buffers hold what their formats read.
        unsafe { format(fmt.as_ptr().cast(), args.as_ptr().cast()) }
    }

    #[test]
    fn integers_are_read_at_their_own_alignment() {
        // An int at 0, a long long at 8, an int at 16, a promoted short at 20.
        let words = [
            (-5i32 as u32) as u64,
            u64::MAX,
            (7u64) | ((-2i32 as u32 as u64) << 32),
        ];
        assert_eq!(
            printed("%d %llu %u %hd|%%", &words),
            ("-5 18446744073709551615 7 -2|%".into(), 4)
        );
        // Ints, two to a word.
        let pair = |a: u64, b: u64| a | (b << 32);
        assert_eq!(
            printed(
                "[%5d|%-5d|%05d|%+d|%x|%X|%#o]",
                &[pair(7, 7), pair(7, 7), pair(255, 255), 8]
            )
            .0,
            "[    7|7    |00007|+7|ff|FF|010]"
        );
    }

    #[test]
    fn doubles_strings_and_stars() {
        let s = b"true\0";
        let args = [
            1.5f64.to_bits(),
            (0.1f32 as f64).to_bits(),
            (-0.0f64).to_bits(),
            s.as_ptr() as u64,
            6 | (3 << 32),
            2.0f64.to_bits(),
        ];
        assert_eq!(
            printed("%g %g %g %s [%*.*f]", &args),
            ("1.5 0.1 -0 true [ 2.000]".into(), 7)
        );
        assert_eq!(printed("no arguments\n", &[]), ("no arguments\n".into(), 0));
    }

    #[test]
    fn capture_collects_and_nests() {
        let ((), outer) = capture(|| {
            emit("a");
            let ((), inner) = capture(|| emit("b"));
            assert_eq!(inner, "b");
            emit("c");
        });
        assert_eq!(outer, "ac");
    }
}
