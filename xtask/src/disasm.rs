//! The disassembly check of `cargo xtask ct`: rules on the machine code as shipped.
//!
//! Valgrind and MemorySanitizer follow the secrets through the program as it runs; MSan
//! through LLVM IR, before code generation. This check reads the release binary itself
//! (`objdump -d -M intel`), so an instruction that the back end introduced after MSan's
//! instrumentation (a lookup table for a `match`, a division, a branch that replaced a
//! select) cannot hide from it. It is a static, heuristic check, with these rules:
//!
//! - **division**: no `div`/`idiv` (variable latency; division by a constant compiles to a
//!   multiplication, so a division in a kernel is worth a look in any case);
//! - **vector-to-gpr** (SIMD kernels only): no instruction that moves data from a vector or
//!   mask register into a general-purpose register or the flags (`vmovd r32, xmm`, `vpextr*`,
//!   `kmov r, k`, `kortest`, `vptest`, `pmovmskb`, `movmsk*`, `comis*`, ...): SIMD kernels keep
//!   secrets in vector registers, which cannot address memory or steer a branch;
//!
//! An exception to the first two must be allowed by symbol and mnemonic, with the reason
//! ([`ALLOWED`]); `cargo xtask ct` prints each allowed instruction's count and reason.
//! - **address-from-data**: no memory access whose base or index register holds data;
//! - **branch-on-data**: no conditional jump on flags computed from data.
//!
//! The last two rest on a small forward data-flow analysis of each function over its control
//! flow graph ([`analyse`]): which general-purpose registers, flags and stack bytes (at
//! constant offsets from `rsp`) may hold data. A call to a panic entry point ends its path
//! ([`mark_noreturn`]: resolved by name, or through the global offset table's relocations),
//! so that what its arguments held does not flow into the unrelated code after it. Arguments
//! in registers are public (pointers and lengths: the kernels take everything else by
//! reference). Data comes from
//! vector or mask registers (in SIMD kernels only through an allowed transfer, which is then
//! public), from the stack slots vector registers were stored to, from narrow (1-, 2- or
//! 4-byte) loads, and, in the general-purpose (GPR) kernels, from every load outside the
//! stack frame: the portable GHASH and the AES key schedule read nothing but the key, the
//! key table, the accumulator and the message through their reference arguments.
//!
//! Blind spots: 8-byte loads outside the stack in SIMD kernels count as public (the round
//! count and lengths are such loads; a secret stored to the output buffer and read back as a
//! 64-bit word would be missed); callees are checked only if they are kernel symbols
//! themselves; an indirect jump's targets are not followed; and in GPR kernels data and
//! lengths are told apart only by where they come from.

use std::collections::{BTreeMap, BTreeSet};

/// One instruction of the disassembly.
#[derive(Clone, Debug)]
pub struct Insn {
    pub addr: u64,
    pub mnemonic: String,
    pub operands: Vec<String>,
    /// The text as objdump printed it (without the comment).
    pub text: String,
    /// The address objdump's comment gives for a `rip`-relative operand (for `call QWORD PTR
    /// [rip+...]`, the slot of the global offset table the call goes through).
    pub rip_target: Option<u64>,
    /// A call that does not return ([`mark_noreturn`]): it ends its block, with no successor.
    pub noreturn: bool,
}

/// One function: its (demangled) symbol and instructions.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub insns: Vec<Insn>,
}

/// Parses `objdump -d -C --no-show-raw-insn -M intel` output into functions.
pub fn parse_objdump(text: &str) -> Vec<Function> {
    let mut out: Vec<Function> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line
            .split_once(" <")
            .filter(|(a, _)| !a.is_empty() && a.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|(_, rest)| rest.strip_suffix(">:"))
        {
            out.push(Function {
                name: name.to_owned(),
                insns: Vec::new(),
            });
            continue;
        }
        let Some(f) = out.last_mut() else { continue };
        let Some((addr, rest)) = line.trim_start().split_once(":\t") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        if let Some(insn) = parse_insn(addr, rest) {
            f.insns.push(insn);
        }
    }
    out
}

/// Prefixes objdump prints before the mnemonic.
const PREFIXES: &[&str] = &[
    "lock", "rep", "repz", "repe", "repnz", "repne", "bnd", "notrack", "data16", "cs", "ds", "es",
    "ss", "fs", "gs", "addr32", "rex", "rex.W",
];

fn parse_insn(addr: u64, text: &str) -> Option<Insn> {
    let (text, comment) = text.split_once('#').unwrap_or((text, ""));
    let text = text.trim();
    let rip_target = comment
        .split_whitespace()
        .next()
        .and_then(|a| u64::from_str_radix(a, 16).ok());
    let mut rest = text;
    let mnemonic = loop {
        let (word, tail) = rest
            .split_once(char::is_whitespace)
            .map_or((rest, ""), |(w, t)| (w, t.trim_start()));
        if word.is_empty() {
            return None;
        }
        if PREFIXES.contains(&word) && !tail.is_empty() {
            rest = tail;
            continue;
        }
        rest = tail;
        break word;
    };
    let operands = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split(',').map(|s| s.trim().to_owned()).collect()
    };
    Some(Insn {
        addr,
        mnemonic: mnemonic.to_owned(),
        operands,
        text: text.to_owned(),
        rip_target,
        noreturn: false,
    })
}

/// Whether the function `name` (demangled) never returns: Rust's panic entry points, which
/// the kernels reach only from their bounds checks and `expect`s.
fn is_noreturn(name: &str) -> bool {
    let name = normalize(name);
    name.starts_with("core::panicking::")
        || name.starts_with("std::panicking::")
        || (name.starts_with("core::slice::index::") && name.ends_with("_fail"))
        || matches!(
            name.as_str(),
            "core::option::expect_failed"
                | "core::option::unwrap_failed"
                | "core::result::unwrap_failed"
        )
}

/// The slots of the global offset table that `objdump -R` lists as `R_X86_64_RELATIVE`
/// relocations, each with the address it holds (`*ABS*+0x...`).
pub fn got_slots(objdump_r: &str) -> BTreeMap<u64, u64> {
    objdump_r
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let slot = u64::from_str_radix(w.next()?, 16).ok()?;
            (w.next()? == "R_X86_64_RELATIVE").then_some(())?;
            let to = w.next()?.strip_prefix("*ABS*+0x")?;
            Some((slot, u64::from_str_radix(to, 16).ok()?))
        })
        .collect()
}

/// Marks the calls in `funcs` whose callee never returns ([`is_noreturn`]), so that the
/// analysis does not carry a state past them into the code after the call (which is another
/// path's, not the call's continuation). A direct call names its callee; a call through the
/// global offset table is resolved by `got`, each slot's target address (from the binary's
/// `R_X86_64_RELATIVE` relocations), to the function that starts there.
pub fn mark_noreturn(funcs: &mut [Function], got: &BTreeMap<u64, u64>) {
    let starts: BTreeMap<u64, String> = funcs
        .iter()
        .filter_map(|f| Some((f.insns.first()?.addr, f.name.clone())))
        .collect();
    for f in funcs.iter_mut() {
        for x in f.insns.iter_mut().filter(|x| x.mnemonic == "call") {
            let direct = x
                .operands
                .first()
                .and_then(|o| o.split_once(" <"))
                .and_then(|(_, n)| n.strip_suffix('>'))
                .map(str::to_owned);
            let via_got = || {
                let slot = x.rip_target.filter(|_| x.text.contains("[rip+"))?;
                starts.get(got.get(&slot)?).cloned()
            };
            if let Some(name) = direct.or_else(via_got) {
                x.noreturn = is_noreturn(&name);
            }
        }
    }
}

/// The number of a general-purpose register of any width (rax = 0 ... rsp = 7, r8 = 8 ...).
fn gpr(name: &str) -> Option<usize> {
    const LEGACY: [[&str; 5]; 8] = [
        ["rax", "eax", "ax", "al", "ah"],
        ["rbx", "ebx", "bx", "bl", "bh"],
        ["rcx", "ecx", "cx", "cl", "ch"],
        ["rdx", "edx", "dx", "dl", "dh"],
        ["rsi", "esi", "si", "sil", ""],
        ["rdi", "edi", "di", "dil", ""],
        ["rbp", "ebp", "bp", "bpl", ""],
        ["rsp", "esp", "sp", "spl", ""],
    ];
    if let Some(i) = LEGACY.iter().position(|names| names.contains(&name)) {
        return Some(i);
    }
    let n = name.strip_prefix('r')?;
    let digits = n.trim_end_matches(['d', 'w', 'b']);
    let suffix = &n[digits.len()..];
    let k: usize = digits.parse().ok()?;
    ((8..16).contains(&k) && suffix.len() <= 1).then_some(k)
}

/// Whether `op` names a vector (`xmm`/`ymm`/`zmm`, MMX) or mask (`k0`-`k7`) register.
fn is_vector_reg(op: &str) -> bool {
    let r = op.split('{').next().unwrap_or(op);
    ["xmm", "ymm", "zmm", "mm"].iter().any(|p| {
        r.strip_prefix(p)
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    }) || r
        .strip_prefix('k')
        .is_some_and(|d| d.len() == 1 && d.as_bytes()[0].is_ascii_digit())
}

/// A memory operand: the registers in its address, its size, and its constant offset from
/// `rsp` if it is a stack slot.
#[derive(Debug, PartialEq)]
struct Mem {
    regs: Vec<usize>,
    size: u64,
    /// `Some(offset)` for `[rsp+offset]`; `None` elsewhere.
    stack: Option<i64>,
    /// Based on `rsp` with an index register.
    stack_dynamic: bool,
}

fn parse_mem(op: &str) -> Option<Mem> {
    let open = op.find('[')?;
    let close = op[open..].find(']')? + open;
    let size = match op[..open].split_whitespace().next() {
        Some("BYTE") => 1,
        Some("WORD") => 2,
        Some("DWORD") => 4,
        Some("XMMWORD") => 16,
        Some("YMMWORD") => 32,
        Some("ZMMWORD") => 64,
        Some("TBYTE") => 10,
        _ => 8,
    };
    let inner = &op[open + 1..close];
    let mut regs = Vec::new();
    let mut disp: i64 = 0;
    let mut base_rsp = false;
    let mut sign = 1;
    let mut term = String::new();
    for c in inner.chars().chain(std::iter::once('+')) {
        if c == '+' || c == '-' {
            let t = term.trim();
            if let Some(v) = t.strip_prefix("0x") {
                disp += sign * i64::from_str_radix(v, 16).unwrap_or(0);
            } else if !t.is_empty() {
                let reg = t.split('*').next().unwrap_or(t);
                if reg == "rsp" {
                    base_rsp = true;
                } else if let Some(r) = gpr(reg) {
                    regs.push(r);
                }
            }
            term.clear();
            sign = if c == '-' { -1 } else { 1 };
        } else {
            term.push(c);
        }
    }
    Some(Mem {
        stack: (base_rsp && regs.is_empty()).then_some(disp),
        stack_dynamic: base_rsp && !regs.is_empty(),
        regs,
        size,
    })
}

/// What a kernel is made of, which decides where data comes from (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Data in vector registers; general-purpose registers hold pointers, lengths, counters.
    Simd,
    /// Data in general-purpose registers too (the portable GHASH, the AES key schedule).
    Gpr,
}

/// A rule the check enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    Division,
    VectorToGpr,
    AddressFromData,
    BranchOnData,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::Division => "division",
            Rule::VectorToGpr => "vector-to-gpr",
            Rule::AddressFromData => "address-from-data",
            Rule::BranchOnData => "branch-on-data",
        }
    }
}

/// An instruction allowed in the kernels whose normalized name ends with one of `symbols`
/// (a vector-to-GPR transfer, whose value then counts as public, or a division), with the
/// reason its operands are public.
pub struct Allow {
    pub symbols: &'static [&'static str],
    pub mnemonic: &'static str,
    /// For a transfer: whether its value is public (otherwise it stays data, and the
    /// data-flow rules follow it).
    pub public: bool,
    pub why: &'static str,
}

/// The allowed instructions.
pub const ALLOWED: &[Allow] = &[Allow {
    symbols: &["::aesni::expand_into"],
    mnemonic: "div",
    public: true,
    why: "`i % nk` in the FIPS-197 key expansion (`RoundKeys::expand`): the word index \
              and the key length in words, both public",
}];

/// A group of kernel symbols of one kind.
pub struct Group {
    pub kind: Kind,
    /// Demangled names without generic arguments ([`normalize`]), matched by suffix; one
    /// ending in `::` is a module: every function in it but the run-time detection. Module
    /// paths without the crate name keep matching when the code moves to another crate, and
    /// a module pattern takes in a backend's new kernels by itself.
    pub symbols: &'static [&'static str],
}

/// The kernel symbols behind one `ct-check` target.
pub struct Kernel {
    pub target: &'static str,
    pub groups: &'static [Group],
}

const GHASH_PORTABLE: Group = Group {
    kind: Kind::Gpr,
    symbols: &["::portable::"],
};
const GHASH_PCLMUL: Group = Group {
    kind: Kind::Simd,
    symbols: &["::x86::pclmul::"],
};
const GHASH_AVX2: Group = Group {
    kind: Kind::Simd,
    symbols: &["::x86::avx2::"],
};
const GHASH_AVX512: Group = Group {
    kind: Kind::Simd,
    symbols: &["::x86::avx512::"],
};
/// The x86 engines' key schedule (general-purpose code around `aeskeygenassist`), with
/// AES-GCM's `E_K(0)` in the same call (`expand_e0`), and AES-GCM-SIV's message keys
/// (derivation and schedule in registers) where it is not inlined.
const AES_SCHEDULE: Group = Group {
    kind: Kind::Gpr,
    symbols: &["::aesni::expand_into", "::aesni::expand_e0"],
};
/// AES-GCM-SIV's per-message key derivation and schedule on x86 (`aesni::siv_message_keys`),
/// and the one-call encryption of a short message (`x86::siv_short`).
const SIV_MESSAGE_KEYS: Group = Group {
    kind: Kind::Simd,
    symbols: &["::aesni::siv_message_keys", "::x86::siv_short::"],
};
/// The fused engines' modules: every job (AES-GCM, and AES-GCM-SIV's key derivation, CTR
/// with the `Le32` counter, POLYVAL with `fill_upto`, Horner's rule and the stitched pass)
/// is an instantiation of the module's one `#[target_feature]` `run`, with the kernels
/// inlined into it.
const AESNI: Group = Group {
    kind: Kind::Simd,
    symbols: &["::x86::aesni_gcm::"],
};
const VAES256: Group = Group {
    kind: Kind::Simd,
    symbols: &["::x86::vaes256::"],
};
const VAES512: Group = Group {
    kind: Kind::Simd,
    symbols: &["::x86::vaes512::"],
};

/// Every kernel, by `ct-check` target. A new engine or backend is one more entry.
pub const KERNELS: &[Kernel] = &[
    Kernel {
        target: "uhf-portable",
        groups: &[GHASH_PORTABLE],
    },
    Kernel {
        target: "uhf-pclmul",
        groups: &[GHASH_PCLMUL],
    },
    Kernel {
        target: "uhf-avx2",
        groups: &[GHASH_AVX2],
    },
    Kernel {
        target: "uhf-avx512",
        groups: &[GHASH_AVX512],
    },
    Kernel {
        target: "gcm-generic-portable",
        groups: &[GHASH_PORTABLE],
    },
    Kernel {
        target: "gcm-generic-pclmul",
        groups: &[GHASH_PCLMUL],
    },
    Kernel {
        target: "gcm-generic-avx2",
        groups: &[GHASH_AVX2],
    },
    Kernel {
        target: "gcm-generic-avx512",
        groups: &[GHASH_AVX512],
    },
    Kernel {
        target: "gcm-aesni",
        groups: &[AES_SCHEDULE, AESNI],
    },
    Kernel {
        target: "gcm-vaes256",
        groups: &[AES_SCHEDULE, VAES256],
    },
    Kernel {
        target: "gcm-vaes512",
        groups: &[AES_SCHEDULE, VAES512],
    },
    // The same module: both shapes of the 512-bit loop are its `run`'s instantiations.
    Kernel {
        target: "gcm-vaes512schoolbook",
        groups: &[AES_SCHEDULE, VAES512],
    },
    // AES-GCM-SIV: the generic path's POLYVAL is the backend's (its AES the `aes` crate's);
    // a fused engine runs its jobs in its module's `run` and the narrowest engine's (AES-NI,
    // the message keys, the tag and short messages) on x86.
    Kernel {
        target: "siv-generic-portable",
        groups: &[GHASH_PORTABLE],
    },
    Kernel {
        target: "siv-generic-pclmul",
        groups: &[GHASH_PCLMUL],
    },
    Kernel {
        target: "siv-generic-avx2",
        groups: &[GHASH_AVX2],
    },
    Kernel {
        target: "siv-generic-avx512",
        groups: &[GHASH_AVX512],
    },
    Kernel {
        target: "siv-aesni",
        groups: &[AES_SCHEDULE, SIV_MESSAGE_KEYS, AESNI],
    },
    Kernel {
        target: "siv-vaes256",
        groups: &[AES_SCHEDULE, SIV_MESSAGE_KEYS, AESNI, VAES256],
    },
    Kernel {
        target: "siv-vaes512",
        groups: &[AES_SCHEDULE, SIV_MESSAGE_KEYS, AESNI, VAES512],
    },
    Kernel {
        target: "siv-vaes512schoolbook",
        groups: &[AES_SCHEDULE, SIV_MESSAGE_KEYS, AESNI, VAES512],
    },
    // aes-gcm 0.10: the same kernels as 0.11 (its generic path's GHASH is the backend's).
    Kernel {
        target: "gcm010-generic-portable",
        groups: &[GHASH_PORTABLE],
    },
    Kernel {
        target: "gcm010-generic-pclmul",
        groups: &[GHASH_PCLMUL],
    },
    Kernel {
        target: "gcm010-generic-avx2",
        groups: &[GHASH_AVX2],
    },
    Kernel {
        target: "gcm010-generic-avx512",
        groups: &[GHASH_AVX512],
    },
    Kernel {
        target: "gcm010-aesni",
        groups: &[AES_SCHEDULE, AESNI],
    },
    Kernel {
        target: "gcm010-vaes256",
        groups: &[AES_SCHEDULE, VAES256],
    },
    Kernel {
        target: "gcm010-vaes512",
        groups: &[AES_SCHEDULE, VAES512],
    },
    Kernel {
        target: "gcm010-vaes512schoolbook",
        groups: &[AES_SCHEDULE, VAES512],
    },
];

/// The seeded bad functions of `ct-check` (ct/src/selftest.rs), their kind, and the rule each
/// must break.
pub const SEEDED: &[(&str, Kind, Rule)] = &[
    ("::selftest::leaky_branch", Kind::Gpr, Rule::BranchOnData),
    ("::selftest::leaky_lookup", Kind::Gpr, Rule::AddressFromData),
    (
        "::selftest::leaky_wide_lookup_avx2",
        Kind::Simd,
        Rule::VectorToGpr,
    ),
    (
        "::selftest::leaky_wide_lookup_avx2",
        Kind::Simd,
        Rule::AddressFromData,
    ),
];

/// A demangled name without its generic arguments (`a::B<T>::f::<true>` -> `a::B::f`).
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.replace("::::", "::").trim_end_matches("::").to_owned()
}

/// The functions `symbol` names: those whose normalized name ends with it, or for a module
/// (`symbol` ends with `::`), every function in the module but the run-time detection
/// (`cpufeatures`' `cpuid` module, `available`, and the XCR0 and CPUID reads of `ymm`).
pub fn matching<'a>(funcs: &'a [Function], symbol: &str) -> Vec<&'a Function> {
    funcs
        .iter()
        .filter(|f| {
            let name = normalize(&f.name);
            if symbol.ends_with("::") {
                let detection = name.contains("::cpuid::")
                    || ["::available", "::has_all", "::xcr0", "::detect"]
                        .iter()
                        .any(|d| name.ends_with(d));
                name.contains(symbol) && !detection
            } else {
                name.ends_with(symbol)
            }
        })
        .collect()
}

/// What a function's register arguments are, where they are not the default (pointers and
/// lengths, public, with the data behind the pointers judged by the [`Kind`] rules).
#[derive(Clone, Copy, Debug, Default)]
pub struct Args {
    /// Arguments (0 = `rdi`, 1 = `rsi`, 2 = `rdx`, 3 = `rcx`, 4 = `r8`, 5 = `r9`) that point
    /// to public data: loads through them (base register only, copies and spills followed)
    /// are public.
    pub public_ptr: &'static [usize],
    /// Arguments that are secrets passed by value.
    pub secret: &'static [usize],
}

/// The System V registers of arguments 0 to 5.
const ARG_REGS: [usize; 6] = [5, 4, 3, 2, 8, 9];

/// The arguments that differ from the default, by function (suffix of the normalized name).
/// Wrong here means either a finding (a public value counted as data) or a blind spot (data
/// counted as public), so each entry says what the argument is; a function that returns a
/// large value takes the address for it first, which moves its arguments up by one.
pub const ARGS: &[(&str, Args)] = &[
    // `(small, len: &mut u8, ...)`: `len` is how many powers of H the state keeps (1 or 4).
    (
        "::portable::update",
        Args {
            public_ptr: &[1],
            secret: &[],
        },
    ),
    (
        "::update_small",
        Args {
            public_ptr: &[1],
            secret: &[],
        },
    ),
    (
        "::update_short",
        Args {
            public_ptr: &[1],
            secret: &[],
        },
    ),
    (
        "::update_mid",
        Args {
            public_ptr: &[1],
            secret: &[],
        },
    ),
    // `powers4(h: u128) -> [u128; 4]`: the hash key, by value in `rsi:rdx` (the returned
    // array's address comes first, in `rdi`).
    (
        "::powers4",
        Args {
            public_ptr: &[],
            secret: &[1, 2],
        },
    ),
];

/// The argument description of `f` ([`ARGS`], or the default).
pub fn args_of(f: &Function) -> Args {
    let name = normalize(&f.name);
    ARGS.iter()
        .find(|(s, _)| name.ends_with(s))
        .map_or_else(Args::default, |(_, a)| *a)
}

/// A rule broken at one instruction.
#[derive(Clone, Debug)]
pub struct Finding {
    pub rule: Rule,
    pub addr: u64,
    pub text: String,
}

/// The findings and the allowed transfers of one function.
#[derive(Debug, Default)]
pub struct Analysis {
    pub findings: Vec<Finding>,
    /// Allowed transfers: (instruction, reason).
    pub allowed: Vec<(String, &'static str)>,
}

/// Which registers, stack granules and flags may hold data at a point of the program.
#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    gpr: u16,
    /// Bytes at `rsp + k` that may hold data (byte by byte: a flag spilled next to a data
    /// byte stays public).
    stack: BTreeSet<i64>,
    /// A data store to a stack address that is not a constant offset: every stack load may
    /// then be data.
    stack_any: bool,
    flags: bool,
    /// Registers that surely hold a pointer to public memory (from [`Args::public_ptr`]).
    ppub: u16,
    /// Stack granules that surely hold such a pointer (a spilled one).
    ppub_stack: BTreeSet<i64>,
}

impl State {
    /// Joins `other` in: "may be data" by union, "surely a public pointer" by intersection.
    fn join(&mut self, other: &State) -> bool {
        let key = |s: &State| {
            (
                s.gpr,
                s.stack.len(),
                s.stack_any,
                s.flags,
                s.ppub,
                s.ppub_stack.len(),
            )
        };
        let before = key(self);
        self.gpr |= other.gpr;
        self.stack.extend(other.stack.iter().copied());
        self.stack_any |= other.stack_any;
        self.flags |= other.flags;
        self.ppub &= other.ppub;
        self.ppub_stack.retain(|g| other.ppub_stack.contains(g));
        before != key(self)
    }
    fn ppub(&self, r: usize) -> bool {
        self.ppub & (1 << r) != 0
    }
    fn set_ppub(&mut self, r: usize, public: bool) {
        if public {
            self.ppub |= 1 << r;
        } else {
            self.ppub &= !(1 << r);
        }
    }
    fn reg(&self, r: usize) -> bool {
        self.gpr & (1 << r) != 0
    }
    fn set_reg(&mut self, r: usize, data: bool) {
        if r == 7 {
            return; // rsp
        }
        if data {
            self.gpr |= 1 << r;
        } else {
            self.gpr &= !(1 << r);
        }
    }
    fn granules(off: i64, size: u64) -> impl Iterator<Item = i64> {
        let size = i64::try_from(size).unwrap_or(64).max(1);
        off.div_euclid(8)..=(off + size - 1).div_euclid(8)
    }
    /// The bytes an access of `size` bytes at `rsp + off` touches.
    fn bytes(off: i64, size: u64) -> core::ops::Range<i64> {
        let size = i64::try_from(size).unwrap_or(64).max(1);
        off..off + size
    }
    fn load_stack(&self, m: &Mem) -> bool {
        self.stack_any
            || m.stack_dynamic && !self.stack.is_empty()
            || m.stack
                .is_some_and(|o| Self::bytes(o, m.size).any(|b| self.stack.contains(&b)))
    }
    fn store_stack(&mut self, m: &Mem, data: bool) {
        if let Some(o) = m.stack {
            for b in Self::bytes(o, m.size) {
                if data {
                    self.stack.insert(b);
                } else {
                    self.stack.remove(&b);
                }
            }
        } else if m.stack_dynamic && data {
            self.stack_any = true;
        }
    }
}

/// Mnemonics that set the flags from their operands.
fn sets_flags(m: &str) -> bool {
    matches!(
        m,
        "add"
            | "adc"
            | "sub"
            | "sbb"
            | "cmp"
            | "test"
            | "and"
            | "or"
            | "xor"
            | "neg"
            | "inc"
            | "dec"
            | "shl"
            | "sal"
            | "shr"
            | "sar"
            | "rol"
            | "ror"
            | "rcl"
            | "rcr"
            | "shld"
            | "shrd"
            | "bt"
            | "bts"
            | "btr"
            | "btc"
            | "imul"
            | "mul"
            | "bsf"
            | "bsr"
            | "tzcnt"
            | "lzcnt"
            | "popcnt"
            | "andn"
            | "bextr"
            | "blsr"
            | "blsi"
            | "blsmsk"
            | "adcx"
            | "adox"
            | "cmpxchg"
            | "xadd"
    )
}

/// Vector instructions that set the flags from vector or mask registers.
fn vector_flags(m: &str) -> bool {
    m.starts_with("kortest")
        || m.starts_with("ktest")
        || matches!(
            m,
            "ptest"
                | "vptest"
                | "vtestps"
                | "vtestpd"
                | "comiss"
                | "comisd"
                | "ucomiss"
                | "ucomisd"
                | "vcomiss"
                | "vcomisd"
                | "vucomiss"
                | "vucomisd"
                | "pcmpestri"
                | "pcmpistri"
                | "vpcmpestri"
                | "vpcmpistri"
        )
}

/// Instructions whose first operand is written without being read.
fn write_only(m: &str) -> bool {
    matches!(
        m,
        "mov"
            | "movabs"
            | "movzx"
            | "movsx"
            | "movsxd"
            | "lea"
            | "pop"
            | "movd"
            | "movq"
            | "vmovd"
            | "vmovq"
            | "popcnt"
            | "lzcnt"
            | "tzcnt"
            | "bsf"
            | "bsr"
            | "andn"
            | "bextr"
            | "shlx"
            | "shrx"
            | "sarx"
            | "rorx"
            | "pdep"
            | "pext"
            | "blsr"
            | "blsi"
            | "blsmsk"
            | "movmskps"
            | "movmskpd"
            | "pmovmskb"
            | "vmovmskps"
            | "vmovmskpd"
            | "vpmovmskb"
            | "cdqe"
    ) || m.starts_with("set")
        || m.starts_with("kmov")
        || m.starts_with("pextr")
        || m.starts_with("vpextr")
        || m.starts_with("extractps")
        || m.starts_with("vextractps")
        || m.starts_with("cvt")
        || m.starts_with("vcvt")
}

/// Instructions whose first operand is only read.
fn reads_only(m: &str) -> bool {
    matches!(m, "cmp" | "test" | "bt" | "push") || m.starts_with('j') || m == "call" || m == "nop"
}

/// The control flow graph: basic block starts (instruction indices) and, per block, its
/// successors.
fn blocks(insns: &[Insn]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let index: BTreeMap<u64, usize> = insns.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();
    let target = |x: &Insn| {
        x.operands
            .first()
            .and_then(|o| o.split_whitespace().next())
            .and_then(|a| u64::from_str_radix(a, 16).ok())
            .and_then(|a| index.get(&a).copied())
    };
    let is_jump = |m: &str| m.starts_with('j');
    // No fall-through into the next instruction: a return, a trap, a halt, an unconditional
    // jump, a call that does not return.
    let ends =
        |x: &Insn| matches!(x.mnemonic.as_str(), "jmp" | "ret" | "ud2" | "hlt") || x.noreturn;
    let mut starts = BTreeSet::from([0usize]);
    for (i, x) in insns.iter().enumerate() {
        if is_jump(&x.mnemonic) || ends(x) {
            starts.insert(i + 1);
            if let Some(t) = target(x) {
                starts.insert(t);
            }
        }
    }
    starts.retain(|&s| s < insns.len());
    let starts: Vec<usize> = starts.into_iter().collect();
    let block_of = |i: usize| starts.partition_point(|&s| s <= i) - 1;
    let mut succ = vec![Vec::new(); starts.len()];
    for (b, next) in succ.iter_mut().enumerate() {
        let end = starts.get(b + 1).copied().unwrap_or(insns.len());
        let last = &insns[end - 1];
        let m = last.mnemonic.as_str();
        if is_jump(m) {
            // An indirect jump's targets are not followed (see the module docs).
            if let Some(t) = target(last) {
                next.push(block_of(t));
            }
        }
        if !ends(last) && end < insns.len() {
            next.push(b + 1);
        }
    }
    (starts, succ)
}

/// Runs the rules over one function of kind `kind`; `allowed` are the transfers allowed in it.
pub fn analyse(f: &Function, kind: Kind, allowed: &[&Allow]) -> Analysis {
    analyse_with(f, kind, allowed, args_of(f))
}

/// [`analyse`] with the arguments described by `args`.
fn analyse_with(f: &Function, kind: Kind, allowed: &[&Allow], args: Args) -> Analysis {
    let insns = &f.insns;
    let mut out = Analysis::default();
    if insns.is_empty() {
        return out;
    }
    let (starts, succ) = blocks(insns);
    let mut entry: Vec<Option<State>> = vec![None; starts.len()];
    let mut first = State::default();
    for &a in args.public_ptr {
        first.set_ppub(ARG_REGS[a], true);
    }
    for &a in args.secret {
        first.set_reg(ARG_REGS[a], true);
    }
    entry[0] = Some(first);
    let mut work: BTreeSet<usize> = BTreeSet::from([0]);
    let mut findings: BTreeMap<(u64, Rule), Finding> = BTreeMap::new();
    let mut allowed_seen: BTreeMap<u64, (String, &'static str)> = BTreeMap::new();
    while let Some(b) = work.pop_first() {
        let mut st = entry[b].clone().unwrap_or_default();
        let end = starts.get(b + 1).copied().unwrap_or(insns.len());
        for x in &insns[starts[b]..end] {
            step(
                x,
                kind,
                allowed,
                &mut st,
                &mut |rule, x| {
                    findings.entry((x.addr, rule)).or_insert_with(|| Finding {
                        rule,
                        addr: x.addr,
                        text: x.text.clone(),
                    });
                },
                &mut |x, why| {
                    allowed_seen.insert(x.addr, (x.text.clone(), why));
                },
            );
        }
        for &s in &succ[b] {
            let changed = match &mut entry[s] {
                Some(e) => e.join(&st),
                slot @ None => {
                    *slot = Some(st.clone());
                    true
                }
            };
            if changed {
                work.insert(s);
            }
        }
    }
    out.findings = findings.into_values().collect();
    out.allowed = allowed_seen.into_values().collect();
    out
}

/// The effect of one instruction on `st`, reporting broken rules to `report` and allowed
/// transfers to `allow`.
fn step(
    x: &Insn,
    kind: Kind,
    allowed: &[&Allow],
    st: &mut State,
    report: &mut dyn FnMut(Rule, &Insn),
    allow: &mut dyn FnMut(&Insn, &'static str),
) {
    let m = x.mnemonic.as_str();
    if m == "nop" || m.starts_with("prefetch") || m == "endbr64" {
        return;
    }
    if matches!(m, "div" | "idiv") {
        match allowed.iter().find(|a| a.mnemonic == m) {
            Some(a) => allow(x, a.why),
            None => report(Rule::Division, x),
        }
    }
    let ops = &x.operands;
    let mems: Vec<Option<Mem>> = ops.iter().map(|o| parse_mem(o)).collect();
    // Every memory access (not `lea`, which only computes) must have a public address.
    if m != "lea" {
        for mem in mems.iter().flatten() {
            if mem.regs.iter().any(|&r| st.reg(r)) {
                report(Rule::AddressFromData, x);
            }
        }
    }
    // Whether operand `i` may hold data, as a source.
    let source = |i: usize, st: &State| -> bool {
        let o = &ops[i];
        if let Some(mem) = &mems[i] {
            if m == "lea" {
                return mem.regs.iter().any(|&r| st.reg(r));
            }
            if mem.stack.is_some() || mem.stack_dynamic {
                return st.load_stack(mem);
            }
            if let [base] = mem.regs[..]
                && st.ppub(base)
            {
                return false;
            }
            kind == Kind::Gpr || mem.size < 8
        } else if let Some(r) = gpr(o) {
            st.reg(r)
        } else {
            is_vector_reg(o)
        }
    };
    let dest_gpr = ops.first().and_then(|o| gpr(o));
    // A transfer from a vector or mask register to a general-purpose register or the flags.
    let transfer =
        (dest_gpr.is_some() && ops.iter().skip(1).any(|o| is_vector_reg(o))) || vector_flags(m);
    let mut transfer_public = false;
    if transfer && kind == Kind::Simd {
        match allowed
            .iter()
            .find(|a| a.mnemonic == m && !matches!(m, "div" | "idiv"))
        {
            Some(a) => {
                allow(x, a.why);
                transfer_public = a.public;
            }
            None => report(Rule::VectorToGpr, x),
        }
    }
    if m.starts_with('j') && m != "jmp" && st.flags {
        report(Rule::BranchOnData, x);
    }
    if m == "call" {
        let args = ARG_REGS.iter().any(|&r| st.reg(r));
        // The caller-saved registers: rax, rcx, rdx, rsi, rdi, r8-r11.
        for r in [0usize, 2, 3, 4, 5, 8, 9, 10, 11] {
            st.set_reg(r, false);
            st.set_ppub(r, false);
        }
        st.set_reg(0, args);
        st.set_reg(3, args);
        st.flags = false;
        return;
    }
    if matches!(m, "mul" | "imul" | "div" | "idiv") && ops.len() == 1 {
        let d = st.reg(0) || source(0, st);
        st.set_reg(0, d);
        st.set_reg(3, d);
        st.set_ppub(0, false);
        st.set_ppub(3, false);
        st.flags = d;
        return;
    }
    if matches!(m, "cqo" | "cdq" | "cwd") {
        let d = st.reg(0);
        st.set_reg(3, d);
        st.set_ppub(3, false);
        return;
    }
    if m == "xchg" && ops.len() == 2 {
        if let (Some(a), Some(b)) = (gpr(&ops[0]), gpr(&ops[1])) {
            let (da, db) = (st.reg(a), st.reg(b));
            let (pa, pb) = (st.ppub(a), st.ppub(b));
            st.set_reg(a, db);
            st.set_reg(b, da);
            st.set_ppub(a, pb);
            st.set_ppub(b, pa);
        }
        return;
    }
    if m == "pop" {
        if let Some(r) = dest_gpr {
            st.set_reg(r, false);
            st.set_ppub(r, false);
        }
        return;
    }
    // The value computed: from every source operand, the first one included unless it is
    // written only; from the flags for the instructions that read them.
    let zero_idiom = matches!(m, "xor" | "sub") && ops.len() == 2 && ops[0] == ops[1];
    let mut data = !zero_idiom
        && (0..ops.len()).any(|i| (i > 0 || ops.len() == 1 || !write_only(m)) && source(i, st));
    if m.starts_with("cmov") || m.starts_with("set") || matches!(m, "adc" | "sbb") {
        data |= st.flags;
    }
    if transfer_public {
        data = false;
    }
    if vector_flags(m) {
        st.flags = !transfer_public;
    } else if sets_flags(m) {
        st.flags = data;
    }
    if reads_only(m) {
        return;
    }
    match (dest_gpr, &mems.first()) {
        (Some(r), _) => {
            // A public pointer stays one through a copy, a spill and reload, or `lea` of an
            // offset from it.
            let ppub = match (m, ops.get(1)) {
                ("mov", Some(o)) => match (gpr(o), &mems[1]) {
                    (Some(r2), _) => st.ppub(r2),
                    (None, Some(mem)) => mem
                        .stack
                        .is_some_and(|o| st.ppub_stack.contains(&o.div_euclid(8))),
                    _ => false,
                },
                ("lea", Some(_)) => {
                    matches!(&mems[1], Some(mem) if matches!(mem.regs[..], [b] if st.ppub(b)))
                }
                _ => false,
            };
            st.set_reg(r, data);
            st.set_ppub(r, ppub);
        }
        (None, Some(Some(mem))) => {
            // A store: its value is the last operand (and the old memory for read-modify-write).
            let v = ops.len() > 1 && source(ops.len() - 1, st);
            st.store_stack(
                mem,
                v || data && !m.starts_with("mov") && !m.starts_with("vmov"),
            );
            if let Some(o) = mem.stack {
                let ptr = m == "mov" && ops.get(1).and_then(|x| gpr(x)).is_some_and(|r| st.ppub(r));
                if ptr && o % 8 == 0 {
                    st.ppub_stack.insert(o.div_euclid(8));
                } else {
                    for g in State::granules(o, mem.size) {
                        st.ppub_stack.remove(&g);
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(lines: &str) -> Function {
        let text = format!("0000000000001000 <t::f>:\n{lines}");
        parse_objdump(&text).remove(0)
    }

    fn rules(f: &Function, kind: Kind) -> Vec<Rule> {
        analyse(f, kind, &[])
            .findings
            .iter()
            .map(|x| x.rule)
            .collect()
    }

    #[test]
    fn parses_objdump() {
        let f = func(
            "    1000:\tvmovdqu64 zmm1{k1}{z},ZMMWORD PTR [rdx+r11*1-0x40]\n\
             \x20   1008:\tnotrack jmp rax\n\
             \x20   100a:\tmov    rax,QWORD PTR [rip+0x10]        # 2000 <x>\n",
        );
        assert_eq!(f.name, "t::f");
        assert_eq!(f.insns[0].mnemonic, "vmovdqu64");
        assert_eq!(
            f.insns[0].operands,
            ["zmm1{k1}{z}", "ZMMWORD PTR [rdx+r11*1-0x40]"]
        );
        assert_eq!(f.insns[1].mnemonic, "jmp");
        assert_eq!(f.insns[2].operands[1], "QWORD PTR [rip+0x10]");
        let m = parse_mem("DWORD PTR [rsp+0x48]").unwrap();
        assert_eq!((m.stack, m.size, m.regs.len()), (Some(0x48), 4, 0));
        assert_eq!(parse_mem("[rdx+r11*1-0x40]").unwrap().regs, [3, 11]);
        assert_eq!(gpr("r10d"), Some(10));
        assert_eq!(gpr("sil"), Some(4));
        assert!(is_vector_reg("zmm31{k1}") && is_vector_reg("k3") && !is_vector_reg("kmovd"));
        assert_eq!(
            normalize("aes::backends::x86_aes::Aes<_>::encrypt"),
            "aes::backends::x86_aes::Aes::encrypt"
        );
        assert_eq!(normalize("x::vaes512::aead::<true>"), "x::vaes512::aead");
    }

    /// A call through the global offset table to a panic entry point ends its path: the
    /// data in its argument does not reach the code after it, which another path enters with
    /// a pointer in that register.
    #[test]
    fn noreturn_calls() {
        let text = "0000000000001000 <t::f>:\n\
             \x20   1000:\ttest   rsi,rsi\n\
             \x20   1003:\tjne    100e <t::f+0xe>\n\
             \x20   1005:\tmovzx  edx,BYTE PTR [rdi]\n\
             \x20   1008:\tcall   QWORD PTR [rip+0xff2]        # 2000 <_DYNAMIC+0x10>\n\
             \x20   100e:\tmov    rax,QWORD PTR [rdx]\n\
             \x20   1011:\tret\n\
             \n\
             0000000000003000 <core::panicking::panic_bounds_check>:\n\
             \x20   3000:\tud2\n";
        let mut funcs = parse_objdump(text);
        assert_eq!(funcs[0].insns[3].rip_target, Some(0x2000));
        assert_eq!(rules(&funcs[0], Kind::Simd), [Rule::AddressFromData]);
        let got = got_slots(
            "DYNAMIC RELOCATION RECORDS\n\
             OFFSET           TYPE              VALUE\n\
             0000000000002000 R_X86_64_RELATIVE  *ABS*+0x0000000000003000\n\
             0000000000002008 R_X86_64_GLOB_DAT  memcpy@GLIBC_2.14\n",
        );
        assert_eq!(got, BTreeMap::from([(0x2000, 0x3000)]));
        mark_noreturn(&mut funcs, &got);
        assert!(funcs[0].insns[3].noreturn);
        assert!(rules(&funcs[0], Kind::Simd).is_empty());
        // A call to anything else still returns into the code after it.
        let mut other = parse_objdump(&text.replace("core::panicking::", "core::ptr::"));
        mark_noreturn(&mut other, &got);
        assert_eq!(rules(&other[0], Kind::Simd), [Rule::AddressFromData]);
        assert!(is_noreturn("core::slice::index::slice_end_index_len_fail"));
        assert!(!is_noreturn("core::slice::index::get_unchecked"));
    }

    /// A byte of data as a table index, and a branch on it; a length and a loop counter as
    /// index and branch are fine.
    #[test]
    fn gpr_rules() {
        let leaky = func(
            "    1000:\tmovzx  eax,BYTE PTR [rdi+0x3]\n\
             \x20   1004:\tlea    rcx,[rip+0x100]\n\
             \x20   100b:\tmovzx  eax,BYTE PTR [rax+rcx*1]\n\
             \x20   100f:\ttest   al,0x1\n\
             \x20   1011:\tjne    1000 <t::f>\n\
             \x20   1013:\tret\n",
        );
        assert_eq!(
            rules(&leaky, Kind::Gpr),
            [Rule::AddressFromData, Rule::BranchOnData]
        );
        let fine = func(
            "    1000:\txor    eax,eax\n\
             \x20   1002:\tmov    rdx,QWORD PTR [rdi+rax*8]\n\
             \x20   1006:\tadd    rax,0x1\n\
             \x20   100a:\tcmp    rax,rsi\n\
             \x20   100d:\tjne    1002 <t::f+0x2>\n\
             \x20   100f:\tdiv    rsi\n\
             \x20   1012:\tret\n",
        );
        assert_eq!(rules(&fine, Kind::Gpr), [Rule::Division]);
    }

    /// A count behind a pointer argument declared public, followed through a copy, a call
    /// (callee-saved register) and a spill; a secret passed by value.
    #[test]
    fn declared_arguments() {
        let f = func(
            "    1000:\tmov    rbx,rsi\n\
             \x20   1003:\tcall   2000 <g>\n\
             \x20   1008:\tmov    QWORD PTR [rsp+0x8],rbx\n\
             \x20   100d:\tmov    rcx,QWORD PTR [rsp+0x8]\n\
             \x20   1012:\tmovzx  eax,BYTE PTR [rcx]\n\
             \x20   1015:\tcmp    al,0x4\n\
             \x20   1017:\tjae    1019 <t::f+0x19>\n\
             \x20   1019:\tret\n",
        );
        let public = Args {
            public_ptr: &[1],
            secret: &[],
        };
        assert!(analyse_with(&f, Kind::Gpr, &[], public).findings.is_empty());
        assert_eq!(rules(&f, Kind::Gpr), [Rule::BranchOnData]);
        let g = func(
            "    1000:\tlea    rax,[rip+0x100]\n\
             \x20   1007:\tmovzx  eax,BYTE PTR [rax+rsi*1]\n\
             \x20   100b:\tret\n",
        );
        assert!(rules(&g, Kind::Simd).is_empty());
        let secret = Args {
            public_ptr: &[],
            secret: &[1],
        };
        let a = analyse_with(&g, Kind::Simd, &[], secret);
        assert_eq!(a.findings.len(), 1);
        assert_eq!(a.findings[0].rule, Rule::AddressFromData);
    }

    /// Data through a stack slot, and out of a vector register.
    #[test]
    fn simd_rules() {
        let f = func(
            "    1000:\tvmovdqu XMMWORD PTR [rsp+0x10],xmm0\n\
             \x20   1006:\tmov    rax,QWORD PTR [rsp+0x18]\n\
             \x20   100b:\tmov    cl,BYTE PTR [rdx+rax*1]\n\
             \x20   100e:\tvmovd  r8d,xmm1\n\
             \x20   1012:\tcmp    r8d,0x3\n\
             \x20   1016:\tja     1000 <t::f>\n\
             \x20   1018:\tret\n",
        );
        assert_eq!(
            rules(&f, Kind::Simd),
            [Rule::AddressFromData, Rule::VectorToGpr, Rule::BranchOnData]
        );
        let allow = Allow {
            symbols: &["::f"],
            mnemonic: "vmovd",
            public: true,
            why: "test",
        };
        let a = analyse(&f, Kind::Simd, &[&allow]);
        assert_eq!(a.allowed.len(), 1);
        assert_eq!(
            a.findings.iter().map(|x| x.rule).collect::<Vec<_>>(),
            [Rule::AddressFromData]
        );
        // A public 8-byte field (the round count) may steer a branch in a SIMD kernel.
        let g = func(
            "    1000:\tmov    rbp,QWORD PTR [rsi+0xf0]\n\
             \x20   1007:\tcmp    rbp,0xa\n\
             \x20   100b:\tje     1000 <t::f>\n\
             \x20   100d:\tret\n",
        );
        assert!(rules(&g, Kind::Simd).is_empty());
        assert_eq!(rules(&g, Kind::Gpr), [Rule::BranchOnData]);
    }
}
