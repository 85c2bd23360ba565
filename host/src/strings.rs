//! Naming the device addresses a kernel fault records (its file name and
//! message, `cg_core::fault`): through the table `cg-builder` appends to
//! the PTX (`cg_fault_strings`, the device addresses of the module's byte
//! arrays, read once the module is loaded), the byte arrays in the PTX
//! text itself, and Rust's encoding of a formatted panic message.

use cg_core::fault::STRINGS_SYMBOL;
use std::sync::Arc;

/// The byte arrays of one loaded module and where the driver put them.
pub(crate) struct ModuleStrings {
    source: Arc<str>,
    /// Device addresses of the table's arrays, in the table's order.
    addresses: Vec<u64>,
}

impl ModuleStrings {
    /// The arrays of `source` at `addresses` (the table's contents on the
    /// device).
    pub(crate) fn new(source: Arc<str>, addresses: Vec<u64>) -> Self {
        Self { source, addresses }
    }

    /// The bytes from `address` to the end of the byte array that holds it,
    /// if one of this module's does.
    pub(crate) fn bytes_at(&self, address: u64) -> Option<Vec<u8>> {
        let names = table_names(&self.source)?;
        // The array that holds `address` is the one starting closest below.
        let (name, start) = names
            .iter()
            .zip(&self.addresses)
            .filter(|(_, &start)| start <= address)
            .max_by_key(|(_, &start)| start)?;
        let bytes = byte_array(&self.source, name)?;
        let offset = usize::try_from(address - start).ok()?;
        (offset < bytes.len()).then(|| bytes[offset..].to_vec())
    }

    /// The `len` bytes at `address`, if one of this module's arrays holds
    /// them all.
    pub(crate) fn string_at(&self, address: u64, len: usize) -> Option<String> {
        let bytes = self.bytes_at(address)?;
        let s = bytes.get(..len)?;
        Some(String::from_utf8_lossy(s).into_owned())
    }
}

/// The names in the table's initializer, in order.
pub(crate) fn table_names(ptx: &str) -> Option<Vec<&str>> {
    cg_ptx::Module::parse(ptx)
        .global(STRINGS_SYMBOL)?
        .init_elements()
        .into_iter()
        .map(|e| e.strip_prefix("generic(")?.strip_suffix(')'))
        .collect()
}

/// The contents of the byte array `name` (`.global .align 1 .b8
/// name[N] = {b, ...};`), padded with the zero bytes the initializer leaves
/// out to the declared `N`.
pub(crate) fn byte_array(ptx: &str, name: &str) -> Option<Vec<u8>> {
    cg_ptx::Module::parse(ptx).global(name)?.bytes()
}

/// What the bytes at a panic message's address are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PanicMessage {
    /// A `&'static str`: the whole message.
    Static(String),
    /// The template of a formatted message: its literal pieces, with `{}`
    /// where a value went (the values are not kept on the device).
    Formatted(String),
}

/// Reads the array a panic's message template points into: Rust's encoding
/// of a formatted message (`core::fmt::Arguments`: literal pieces prefixed
/// by their length, placeholders as a byte of `0b11xxxxxx` and optional
/// fields, a final 0) when the whole array parses as one with at least one
/// placeholder, else the bytes of a static message.
pub(crate) fn decode_panic_message(bytes: &[u8]) -> PanicMessage {
    match decode_template(bytes) {
        Some(text) => PanicMessage::Formatted(text),
        None => PanicMessage::Static(String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// The template in `bytes`, rendered with `{}` for each placeholder, if
/// `bytes` is exactly one template with a placeholder.
fn decode_template(bytes: &[u8]) -> Option<String> {
    let mut out = Vec::new();
    let mut placeholders = 0;
    let mut i = 0;
    loop {
        let n = *bytes.get(i)?;
        i += 1;
        match n {
            0 => break,
            1..=127 => {
                out.extend_from_slice(bytes.get(i..i + n as usize)?);
                i += n as usize;
            }
            128 => {
                let len = u16::from_le_bytes([*bytes.get(i)?, *bytes.get(i + 1)?]) as usize;
                out.extend_from_slice(bytes.get(i + 2..i + 2 + len)?);
                i += 2 + len;
            }
            0xC0..=0xFF => {
                // Optional fields: flags (4 bytes), width, precision and
                // argument index (2 bytes each), by the low four bits.
                i += (n & 1) as usize * 4
                    + ((n >> 1) & 1) as usize * 2
                    + ((n >> 2) & 1) as usize * 2
                    + ((n >> 3) & 1) as usize * 2;
                out.extend_from_slice(b"{}");
                placeholders += 1;
            }
            _ => return None,
        }
    }
    (i == bytes.len() && placeholders > 0).then(|| String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.global .align 1 .b8 anon_$_1[5] = {104, 101, 108, 108, 111};
.global .align 1 .b8 tpl[10] = {3, 97, 116, 32, 192, 2, 44, 32, 192};
.visible .global .align 8 .u64 cg_fault_strings[2] = {generic(anon_$_1), generic(tpl)};
";

    #[test]
    fn reads_the_table_and_the_arrays() {
        assert_eq!(table_names(PTX).unwrap(), ["anon_$_1", "tpl"]);
        assert_eq!(byte_array(PTX, "anon_$_1").unwrap(), b"hello");
        assert!(byte_array(PTX, "nothing").is_none());
        // Trailing zero bytes are left out of the initializer.
        assert_eq!(byte_array(PTX, "tpl").unwrap().last(), Some(&0));
    }

    #[test]
    fn names_addresses_inside_the_arrays() {
        let s = ModuleStrings::new(PTX.into(), vec![0x1000, 0x2000]);
        assert_eq!(s.bytes_at(0x1000).unwrap(), b"hello");
        assert_eq!(s.string_at(0x1001, 3).unwrap(), "ell");
        assert_eq!(s.bytes_at(0x2000).unwrap().len(), 10);
        assert!(s.bytes_at(0x1005).is_none(), "one past the end");
        assert!(s.bytes_at(0x0fff).is_none());
        assert!(s.string_at(0x1003, 5).is_none(), "runs past the end");
    }

    #[test]
    fn tells_formatted_messages_from_static_ones() {
        assert_eq!(
            decode_panic_message(&byte_array(PTX, "tpl").unwrap()),
            PanicMessage::Formatted("at {}, {}".into())
        );
        assert_eq!(
            decode_panic_message(b"assertion failed: i < n"),
            PanicMessage::Static("assertion failed: i < n".into())
        );
        // Rust's bounds-check template, as rustc 1.96 emits it.
        let mut bounds = vec![32];
        bounds.extend_from_slice(b"index out of bounds: the len is ");
        bounds.extend_from_slice(&[0xC0, 18]);
        bounds.extend_from_slice(b" but the index is ");
        bounds.extend_from_slice(&[0xC0, 0]);
        assert_eq!(
            decode_panic_message(&bounds),
            PanicMessage::Formatted(
                "index out of bounds: the len is {} but the index is {}".into()
            )
        );
        // Options after a placeholder byte are skipped by its flag bits.
        assert_eq!(
            decode_panic_message(&[0xC9, 1, 2, 3, 4, 5, 6, 1, b'x', 0]),
            PanicMessage::Formatted("{}x".into())
        );
        // A long piece.
        let mut long = vec![128, 200, 0];
        long.extend(std::iter::repeat_n(b'a', 200));
        long.extend_from_slice(&[0xC0, 0]);
        assert_eq!(
            decode_panic_message(&long),
            PanicMessage::Formatted("a".repeat(200) + "{}")
        );
        // Text that merely starts like a template is static.
        assert_eq!(
            decode_panic_message(b" x"),
            PanicMessage::Static(" x".into())
        );
    }
}
