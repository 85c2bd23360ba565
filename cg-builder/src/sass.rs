//! What `ptxas` makes of a module, read back with `nvdisasm`: each
//! kernel's machine code (SASS) and, for each of its loops, how many
//! global loads one iteration issues. A strided loop that issues one load
//! per iteration waits for each load before the next: the regression this
//! catches without a GPU (the loop settings of
//! [`LOOP_FLAGS`](crate::compile::LOOP_FLAGS) are what unroll it).
//!
//! ```no_run
//! # fn main() -> Result<(), cg_builder::BuildError> {
//! let ptx = std::fs::read_to_string("kernels.ptx").unwrap();
//! let sass = cg_builder::sass::Sass::of(&ptx, 90)?;
//! let sum = sass.kernel("block_sum").expect("an entry point of the module");
//! assert!(sum.most_loads_per_iteration() >= 4, "{}", sum.loop_report());
//! # Ok(()) }
//! ```
//!
//! It also finds the ptxas 13.0 miscompile this project met
//! ([`KernelSass::late_predicates`]): an instruction predicated on a
//! predicate register that the code copies from a uniform predicate only
//! after it, so that the instruction runs or not on a stale value.
//!
//! The tools are CUDA's `ptxas` and `nvdisasm`, found by [`cuda_tool`]:
//! PyPI's `nvidia-cuda-nvcc` wheel has both (`scripts/setup` installs it).

use crate::{io_err, BuildError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Finds one of CUDA's command-line tools (`ptxas`, `nvdisasm`): the
/// variable `CG_<NAME>` (`CG_PTXAS`, `CG_NVDISASM`), then `PATH`, then the
/// copy in the Python package `nvidia-cuda-nvcc`.
pub fn cuda_tool(name: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(format!("CG_{}", name.to_uppercase())) {
        return Some(p.into());
    }
    if Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(name.into());
    }
    let script = format!(
        "import nvidia, os; print(next(os.path.join(p, 'cu13/bin/{name}') for p in nvidia.__path__ \
         if os.path.exists(os.path.join(p, 'cu13/bin/{name}'))))"
    );
    let out = Command::new("python3")
        .args(["-c", &script])
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && path.exists()).then_some(path)
}

fn tool(name: &str) -> Result<PathBuf, BuildError> {
    cuda_tool(name).ok_or_else(|| {
        BuildError::Ptx(format!(
            "`{name}` not found: `pip install nvidia-cuda-nvcc` (scripts/setup does), put it on \
             PATH, or set CG_{}",
            name.to_uppercase()
        ))
    })
}

/// The SASS of a whole module, as `nvdisasm` prints it.
#[derive(Debug, Clone)]
pub struct Sass {
    text: String,
}

impl Sass {
    /// Assembles `ptx` for `sm_<sm>` with `ptxas` and disassembles the
    /// result with `nvdisasm`.
    pub fn of(ptx: &str, sm: u32) -> Result<Sass, BuildError> {
        // One directory per call: two threads may assemble one module.
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "cg-sass-{}-{call}-{:x}",
            std::process::id(),
            fnv(ptx.as_bytes())
        ));
        std::fs::create_dir_all(&dir).map_err(io_err(format!("creating {}", dir.display())))?;
        let (src, cubin) = (dir.join("module.ptx"), dir.join("module.cubin"));
        std::fs::write(&src, ptx).map_err(io_err(format!("writing {}", src.display())))?;
        let ptxas = tool("ptxas")?;
        let out = Command::new(&ptxas)
            .arg(format!("-arch=sm_{sm}"))
            .arg("-o")
            .arg(&cubin)
            .arg(&src)
            .output()
            .map_err(io_err(format!("running {}", ptxas.display())))?;
        if !out.status.success() {
            return Err(BuildError::Ptx(format!(
                "ptxas -arch=sm_{sm} failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        let sass = Sass::of_cubin(&cubin);
        let _ = std::fs::remove_dir_all(&dir);
        sass
    }

    /// Disassembles a module `ptxas` already assembled (`cubin`, a file)
    /// with `nvdisasm`: for a check that ran ptxas itself (`ptxas -v`, for
    /// its report).
    pub fn of_cubin(cubin: &Path) -> Result<Sass, BuildError> {
        let nvdisasm = tool("nvdisasm")?;
        let out = Command::new(&nvdisasm)
            .arg("-c")
            .arg(cubin)
            .output()
            .map_err(io_err(format!("running {}", nvdisasm.display())))?;
        if !out.status.success() {
            return Err(BuildError::Ptx(format!(
                "nvdisasm failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(Sass {
            text: String::from_utf8_lossy(&out.stdout).into_owned(),
        })
    }

    /// Reads `nvdisasm -c` output.
    pub fn from_disassembly(text: impl Into<String>) -> Sass {
        Sass { text: text.into() }
    }

    /// The names of the module's kernels, in the order `nvdisasm` prints
    /// them.
    pub fn kernels(&self) -> Vec<&str> {
        self.text
            .lines()
            .filter_map(|l| l.strip_prefix(".text.")?.strip_suffix(':'))
            .collect()
    }

    /// Every kernel's [late predicates](KernelSass::late_predicates), one
    /// line each (`kernel: `instruction`, set after by `copy``): empty for
    /// a module without the ptxas 13.0 miscompile. What a check of a
    /// module prints when it fails.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), cg_builder::BuildError> {
    /// # let ptx = "";
    /// let found = cg_builder::sass::Sass::of(ptx, 90)?.late_predicates();
    /// assert!(found.is_empty(), "{}", found.join("\n"));
    /// # Ok(()) }
    /// ```
    pub fn late_predicates(&self) -> Vec<String> {
        self.kernels()
            .into_iter()
            .flat_map(|name| {
                let k = self.kernel(name).expect("a kernel of the module");
                k.late_predicates().into_iter().map(move |p| {
                    format!(
                        "{name}: `{}`, set after by `{}`",
                        p.instruction, p.set_after
                    )
                })
            })
            .collect()
    }

    /// The machine code of entry point `name`.
    pub fn kernel(&self, name: &str) -> Option<KernelSass<'_>> {
        let start = format!(".text.{name}:");
        let mut lines = self.text.lines().skip_while(|l| l.trim_end() != start);
        lines.next()?;
        let body = lines.take_while(|l| !l.starts_with("//----")).collect();
        Some(KernelSass {
            name: name.to_string(),
            lines: body,
        })
    }
}

/// One kernel's SASS.
#[derive(Debug, Clone)]
pub struct KernelSass<'a> {
    name: String,
    lines: Vec<&'a str>,
}

/// A loop of a kernel's SASS: the instructions from a label to the branch
/// back to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SassLoop {
    /// Instructions in its body.
    pub instructions: u32,
    /// Global loads (`LDG`) in its body: what one iteration has in flight.
    pub loads: u32,
    /// Whether no other loop lies inside it.
    pub innermost: bool,
}

/// An instruction of a kernel that ptxas predicated on a predicate
/// register it sets only after the instruction ([`KernelSass::late_predicates`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatePredicate {
    /// The predicated instruction, as `nvdisasm` prints it (`@!P1 REDUX.SUM UR9, R25`).
    pub instruction: String,
    /// The copy that comes after it (`PLOP3.LUT P1, PT, PT, PT, UP1, 0x80, 0x0`).
    pub set_after: String,
}

impl KernelSass<'_> {
    /// The instructions predicated on a predicate register `Pn` whose
    /// value is copied from a uniform predicate `UPx` (`PLOP3.LUT Pn, PT,
    /// PT, PT, UPx`) only after them, where `UPx` is computed just before
    /// them and nothing in between sets `Pn`: the copy that should come
    /// first was scheduled after its use, and the instruction runs on
    /// whatever `Pn` held. ptxas 13.0 (and the CUDA 13.0 driver's JIT) did
    /// this to a `redux.sync` merged from two call sites, one with a
    /// constant mask and one with a mask in a register (the block
    /// collectives' whole and partial warps before they shared one), and
    /// warps summed a stale register with no error
    /// (`docs/probes/unroll-remainder/`). An empty list is what every
    /// kernel of this project must give.
    pub fn late_predicates(&self) -> Vec<LatePredicate> {
        let insns = self.instructions();
        let mut found = Vec::new();
        for (i, insn) in insns.iter().enumerate() {
            let Some(p) = guard_register(insn) else {
                continue;
            };
            if opcode(insn).starts_with("BRA") {
                continue;
            }
            // The first later instruction that sets `p`: a copy of `UPx`?
            let Some((copy, up)) = insns[i + 1..]
                .iter()
                .take(10)
                .find(|later| sets(later, p))
                .and_then(|later| Some((*later, copied_uniform(later, p)?)))
            else {
                continue;
            };
            let before = &insns[i.saturating_sub(8)..i];
            let up_just_before = insns[i.saturating_sub(4)..i]
                .iter()
                .any(|b| opcode(b).starts_with('U') && sets(b, up));
            if up_just_before && !before.iter().any(|b| sets(b, p)) {
                found.push(LatePredicate {
                    instruction: insn.to_string(),
                    set_after: copy.to_string(),
                });
            }
        }
        found
    }

    /// The instructions, without addresses, labels and comments.
    pub fn instructions(&self) -> Vec<&str> {
        self.lines.iter().filter_map(|l| instruction(l)).collect()
    }

    /// Every loop, in the order of its first instruction: a branch to a
    /// label at or before it closes one (the jumps of `trap` paths that
    /// branch to themselves, empty, included).
    pub fn loops(&self) -> Vec<SassLoop> {
        // (index of the label's first instruction, index of the branch).
        let mut labels = Vec::new();
        let mut spans = Vec::new();
        let mut n = 0usize;
        for l in &self.lines {
            let t = l.trim();
            if let Some(label) = t.strip_suffix(':').filter(|s| s.starts_with(".L")) {
                labels.push((label, n));
            } else if let Some(insn) = instruction(l) {
                if let Some(target) = branch_target(insn) {
                    if let Some(&(_, at)) = labels.iter().find(|(name, _)| *name == target) {
                        spans.push((at, n));
                    }
                }
                n += 1;
            }
        }
        let insns = self.instructions();
        let mut loops: Vec<SassLoop> = spans
            .iter()
            .map(|&(a, b)| SassLoop {
                instructions: (b + 1 - a) as u32,
                loads: insns[a..=b]
                    .iter()
                    .filter(|i| opcode(i).starts_with("LDG"))
                    .count() as u32,
                innermost: !spans
                    .iter()
                    .any(|&(c, d)| (c, d) != (a, b) && a <= c && d <= b),
            })
            .collect();
        loops.sort_by_key(|l| std::cmp::Reverse(l.instructions));
        loops
    }

    /// The most global loads one iteration of an innermost loop issues
    /// (0 for a kernel without a loop that loads).
    pub fn most_loads_per_iteration(&self) -> u32 {
        self.loops()
            .iter()
            .filter(|l| l.innermost)
            .map(|l| l.loads)
            .max()
            .unwrap_or(0)
    }

    /// Each innermost loop that loads, as `N instructions, L loads`: what
    /// an assertion on [`most_loads_per_iteration`](Self::most_loads_per_iteration)
    /// prints.
    pub fn loop_report(&self) -> String {
        let loops: Vec<String> = self
            .loops()
            .iter()
            .filter(|l| l.innermost && l.loads > 0)
            .map(|l| format!("{} instructions, {} loads", l.instructions, l.loads))
            .collect();
        format!(
            "{}: innermost loops that load: [{}]",
            self.name,
            loops.join("; ")
        )
    }
}

/// The instruction of a line of `nvdisasm` output (`/*0120*/ @!P0 BRA
/// `(.L_x_2) ;`), without its address and the `;`.
fn instruction(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let rest = t.strip_prefix("/*")?;
    let (_, insn) = rest.split_once("*/")?;
    let insn = insn.trim().trim_end_matches(';').trim();
    (!insn.is_empty()).then_some(insn)
}

/// The opcode of an instruction, past its predicate.
fn opcode(insn: &str) -> &str {
    let mut words = insn.split_whitespace();
    let first = words.next().unwrap_or("");
    if first.starts_with('@') {
        words.next().unwrap_or("")
    } else {
        first
    }
}

/// The predicate register (`P0`..`P6`) guarding an instruction
/// (`@P1 ...`, `@!P1 ...`); none for `@PT`, a uniform predicate, or no
/// guard.
fn guard_register(insn: &str) -> Option<&str> {
    let guard = insn.split_whitespace().next()?.strip_prefix('@')?;
    let reg = guard.strip_prefix('!').unwrap_or(guard);
    (reg.len() == 2 && reg.starts_with('P') && reg != "PT").then_some(reg)
}

/// The operands of an instruction, past its predicate and opcode.
fn operands(insn: &str) -> Vec<&str> {
    let start = insn
        .find(opcode(insn))
        .map_or(0, |at| at + opcode(insn).len());
    insn[start..].split(',').map(str::trim).collect()
}

/// Whether an instruction writes predicate `p` (`P1`, `UP0`): its first
/// or second operand, where SASS puts predicate results (`ISETP P1, ...`,
/// `IADD3 R10, P1, ...`, `ULOP3.LUT UP1, ...`); stores and reductions
/// have none.
fn sets(insn: &str, p: &str) -> bool {
    let op = opcode(insn);
    if ["ST", "RED", "ATOM", "BRA", "BAR"]
        .iter()
        .any(|s| op.starts_with(s))
    {
        return false;
    }
    operands(insn).iter().take(2).any(|o| *o == p)
}

/// `UPx` when an instruction copies it into `p` (`PLOP3.LUT P1, PT, PT,
/// PT, UP1, 0x80, 0x0`).
fn copied_uniform<'a>(insn: &'a str, p: &str) -> Option<&'a str> {
    if !opcode(insn).starts_with("PLOP3") {
        return None;
    }
    match operands(insn).as_slice() {
        [dst, "PT", "PT", "PT", up, ..] if *dst == p && up.starts_with("UP") => Some(up),
        _ => None,
    }
}

/// The label a `BRA` jumps to.
fn branch_target(insn: &str) -> Option<&str> {
    if opcode(insn) != "BRA" {
        return None;
    }
    let start = insn.find("(.L")? + 1;
    let end = start + insn[start..].find(')')?;
    Some(&insn[start..end])
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `nvdisasm -c` of two loops: one load an iteration, and eight.
    const TWO_KERNELS: &str = "\
//--------------------- .text.rolled          --------------------------
\t.section\t.text.rolled,\"ax\",@progbits
.text.rolled:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*00a0*/               @P0 BRA `(.L_x_1) ;
.L_x_2:
        /*00e0*/                   LDG.E R2, desc[UR4][R2.64] ;
        /*00f0*/                   FADD R0, R0, R2 ;
        /*0120*/              @!P0 BRA `(.L_x_2) ;
.L_x_1:
        /*0140*/                   EXIT ;
.L_x_3:
        /*0160*/                   BRA `(.L_x_3);
//--------------------- .text.unrolled        --------------------------
.text.unrolled:
.L_x_13:
        /*0320*/                   LDG.E R5, desc[UR4][R2.64+-0x10] ;
        /*0330*/                   LDG.E R4, desc[UR4][R2.64+-0xc] ;
        /*0340*/                   LDG.E R7, desc[UR4][R2.64+-0x8] ;
        /*0350*/                   LDG.E R9, desc[UR4][R2.64+-0x4] ;
        /*0360*/                   LDG.E R11, desc[UR4][R2.64] ;
        /*0370*/                   LDG.E R13, desc[UR4][R2.64+0x4] ;
        /*0380*/                   LDG.E R15, desc[UR4][R2.64+0x8] ;
        /*0390*/                   LDG.E R17, desc[UR4][R2.64+0xc] ;
        /*0480*/               @P0 BRA `(.L_x_13) ;
        /*0490*/                   EXIT ;
";

    /// The miscompile (ptxas 13.0, the corpus's `exclusive_scan` built
    /// with two `redux.sync`s), and two look-alikes that are correct: a
    /// predicate set just before its use and copied again after it, and
    /// one set before the uniform predicate that is copied after.
    const PREDICATES: &str = "\
.text.stale:
        /*2480*/               @P0 IMAD.X R11, R9, 0x1, R15, P1 ;
        /*24d0*/                   WARPSYNC.ALL ;
        /*24e0*/                   ULOP3.LUT UP1, URZ, UR4, 0x1f, URZ, 0xc0, !UPT ;
.L_x_99:
        /*24f0*/              @!P1 REDUX.SUM UR9, R25 ;
        /*2500*/                   S2UR UR7, SR_CgaCtaId ;
        /*2540*/                   PLOP3.LUT P0, PT, PT, PT, UP1, 0x80, 0x0 ;
        /*2550*/                   PLOP3.LUT P1, PT, PT, PT, UP1, 0x80, 0x0 ;
        /*2570*/              @!P1 IMAD.U32 R15, RZ, RZ, UR8 ;
//--------------------- .text.set_before      --------------------------
.text.set_before:
        /*26d0*/                   UISETP.GE.U32.AND UP0, UPT, UR57, UR29, UPT ;
        /*26e0*/                   IMAD.U32 R15, RZ, RZ, UR58 ;
        /*26f0*/                   ISETP.EQ.U32.AND P1, PT, R14, UR60, PT ;
        /*2700*/               @P1 REDG.E.ADD.STRONG.SYS desc[UR30][R10.64], R15 ;
        /*2710*/                   PLOP3.LUT P1, PT, PT, PT, UP0, 0x80, 0x0 ;
//--------------------- .text.set_earlier     --------------------------
.text.set_earlier:
        /*10a0*/                   UISETP.GE.U32.AND UP0, UPT, UR5, UR17, UPT ;
        /*10b0*/                   ISETP.NE.U32.OR P0, PT, R0, RZ, P0 ;
        /*10c0*/                   UISETP.GE.U32.AND.EX UP0, UPT, UR8, UR18, UPT, UP0 ;
        /*1100*/              @!P0 STG.E desc[UR12][R4.64], R11 ;
        /*1110*/                   PLOP3.LUT P0, PT, PT, PT, UP0, 0x80, 0x0 ;
";

    #[test]
    fn a_predicate_copied_after_its_use_is_reported_and_look_alikes_are_not() {
        let sass = Sass::from_disassembly(PREDICATES);
        assert_eq!(
            sass.kernel("stale").unwrap().late_predicates(),
            [LatePredicate {
                instruction: "@!P1 REDUX.SUM UR9, R25".into(),
                set_after: "PLOP3.LUT P1, PT, PT, PT, UP1, 0x80, 0x0".into(),
            }]
        );
        assert_eq!(sass.kernel("set_before").unwrap().late_predicates(), []);
        assert_eq!(sass.kernel("set_earlier").unwrap().late_predicates(), []);
        assert_eq!(
            sass.late_predicates(),
            ["stale: `@!P1 REDUX.SUM UR9, R25`, set after by `PLOP3.LUT P1, PT, PT, PT, UP1, 0x80, 0x0`"]
        );
        assert!(Sass::from_disassembly(TWO_KERNELS)
            .late_predicates()
            .is_empty());
    }

    #[test]
    fn loops_and_their_loads_are_read_from_the_disassembly() {
        let sass = Sass::from_disassembly(TWO_KERNELS);
        assert_eq!(sass.kernels(), ["rolled", "unrolled"]);
        let rolled = sass.kernel("rolled").unwrap();
        assert_eq!(rolled.instructions().len(), 7);
        let loops = rolled.loops();
        assert_eq!(loops.len(), 2, "{loops:?}");
        assert!(loops.contains(&SassLoop {
            instructions: 3,
            loads: 1,
            innermost: true
        }));
        assert_eq!(rolled.most_loads_per_iteration(), 1);
        assert_eq!(
            rolled.loop_report(),
            "rolled: innermost loops that load: [3 instructions, 1 loads]"
        );
        let unrolled = sass.kernel("unrolled").unwrap();
        assert_eq!(unrolled.most_loads_per_iteration(), 8);
        assert!(sass.kernel("missing").is_none());
    }
}
