//! The table that lets the host name a kernel fault's file and message.
//!
//! A kernel that panics, or fails one of cg-core's checks, records device
//! addresses: where its file name and its message lie in the module's
//! constant data (`cg_core::fault`). The driver decides those addresses when
//! it loads the module, so the builder appends one more global to the PTX:
//! `cg_fault_strings`, the addresses of every byte array of the module's
//! constant data, in the order of their declarations. The host reads it
//! after loading the module and matches a fault's addresses against it; the
//! bytes themselves it reads from the PTX text it loaded.
//!
//! The table is data only: no instruction of any kernel changes (the
//! kernels never read it), only the constant-bank slots of a few addresses
//! on the paths to a trap shift.

pub use cg_core::fault::STRINGS_SYMBOL;

/// The names of the module's initialized byte arrays (string literals,
/// file names, format templates), in order.
pub fn byte_arrays(ptx: &str) -> Vec<&str> {
    cg_ptx::Module::parse(ptx)
        .byte_arrays()
        .map(|g| g.name)
        .collect()
}

/// `ptx` with the table appended; unchanged when the module has no byte
/// arrays or no fault record (a kernel crate that does not use cg-core).
pub fn append_table(ptx: &str) -> String {
    let names = byte_arrays(ptx);
    if names.is_empty() || !ptx.contains(cg_core::fault::RECORD_SYMBOL) {
        return ptx.to_string();
    }
    let entries: Vec<String> = names.iter().map(|n| format!("generic({n})")).collect();
    format!(
        "{ptx}\n// cg-builder: the addresses of the byte arrays above, for the host to name a fault's file and message\n\
         .visible .global .align 8 .u64 {STRINGS_SYMBOL}[{}] = {{{}}};\n",
        names.len(),
        entries.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.version 8.0
.target sm_90
.address_size 64

.visible .global .align 8 .u64 cg_fault_record = 0;
.global .align 1 .b8 anon_$_1[3] = {97, 98, 99};
.global .align 8 .u64 anon_$_2[3] = {generic(anon_$_1), 3, 4294967297};
.global .align 1 .b8 msg[2] = {104, 105};
.extern .shared .align 16 .b8 cg_dynamic_shared[];
";

    #[test]
    fn lists_the_byte_arrays_in_order() {
        assert_eq!(byte_arrays(PTX), ["anon_$_1", "msg"]);
    }

    #[test]
    fn appends_one_table_of_their_addresses() {
        let out = append_table(PTX);
        assert!(out.starts_with(PTX));
        assert!(out.ends_with(
            ".visible .global .align 8 .u64 cg_fault_strings[2] = {generic(anon_$_1), generic(msg)};\n"
        ));
    }

    #[test]
    fn leaves_modules_without_a_fault_record_alone() {
        let plain = PTX.replace("cg_fault_record", "something_else");
        assert_eq!(append_table(&plain), plain);
        assert_eq!(append_table(".version 8.0\n"), ".version 8.0\n");
    }
}
