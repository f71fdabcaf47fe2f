//! Finding a loop in machine code and running it through llvm-mca: the disassembly, the
//! control-flow paths from a loop's head to its back edge (the AES-128 and AES-256 iterations
//! of a stitched loop, or a GHASH loop's), and the model's cycles and busiest resource.

use super::*;

/// One instruction: address, text (mnemonic and operands), and its branch target if any.
pub(super) struct Insn {
    pub(super) addr: u64,
    pub(super) text: String,
    pub(super) kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Plain,
    /// A conditional branch to the address.
    Cond(u64),
    /// An unconditional branch to the address.
    Jump(u64),
    /// No successor (return, trap, call).
    End,
}

pub(super) struct Func {
    pub(super) name: String,
    pub(super) insns: Vec<Insn>,
}

pub(super) fn disassemble(objdump: &Path, lib: &Path, arch: Arch) -> Result<Vec<Func>, String> {
    let mut cmd = Command::new(objdump);
    cmd.args(["-d", "--no-show-raw-insn", "-C"]);
    if arch == Arch::Arm {
        // An executable does not say which extensions its code uses.
        cmd.arg("--mattr=+aes,+sha3");
    }
    let out = cmd
        .arg(lib)
        .output()
        .map_err(|e| format!("{}: {e}", objdump.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut funcs: Vec<Func> = Vec::new();
    for line in text.lines() {
        if let Some((addr, name)) = line.strip_suffix(">:").and_then(|l| l.split_once(" <"))
            && u64::from_str_radix(addr.trim(), 16).is_ok()
        {
            funcs.push(Func {
                name: name.to_string(),
                insns: Vec::new(),
            });
            continue;
        }
        let Some(f) = funcs.last_mut() else { continue };
        let Some((addr, rest)) = line.trim_start().split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let text = rest.trim();
        if text.is_empty() {
            continue;
        }
        // Drop objdump's comments (`# 0x...` on x86, `// =0x...` on aarch64).
        let text = text
            .split(" # ")
            .next()
            .unwrap_or(text)
            .split(" //")
            .next()
            .unwrap_or(text);
        // and symbol annotations of addresses (`0x1000 <sym+0x1000>`).
        let text = text.split(" <").next().unwrap_or(text);
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let kind = classify(&text);
        f.insns.push(Insn { addr, text, kind });
    }
    Ok(funcs)
}

/// The branch kind of an instruction, from its mnemonic and `0x<target> <sym+off>` operand.
pub(super) fn classify(text: &str) -> Kind {
    let mnem = text.split_whitespace().next().unwrap_or("");
    let target = text.split_whitespace().find_map(|w| {
        w.strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
    });
    let is_x86_jump = mnem.starts_with('j');
    let is_arm_branch =
        mnem == "b" || mnem.starts_with("b.") || matches!(mnem, "cbz" | "cbnz" | "tbz" | "tbnz");
    match (mnem, target) {
        // A call ends a path too: the kernels' loops have none, and the calls outside them
        // are to panics, which do not return.
        ("ret" | "retq" | "ud2" | "int3" | "brk" | "call" | "callq" | "bl" | "blr", _) => Kind::End,
        ("jmp" | "jmpq" | "b", Some(t)) => Kind::Jump(t),
        (_, Some(t)) if is_x86_jump || is_arm_branch => Kind::Cond(t),
        // An indirect jump: no successor we can follow.
        _ if is_x86_jump || mnem == "br" => Kind::End,
        _ => Kind::Plain,
    }
}

pub(super) fn is_aes(t: &str) -> bool {
    t.starts_with("vaesenc") || t.starts_with("aesenc") || t.starts_with("aese ")
}

pub(super) fn is_clmul(t: &str) -> bool {
    t.starts_with("vpclmul") || t.starts_with("pclmul") || t.starts_with("pmull")
}

/// A function's control-flow graph: instruction index by address, and each instruction's
/// successors (by index).
fn graph(f: &Func) -> (HashMap<u64, usize>, Vec<Vec<usize>>) {
    let index: HashMap<u64, usize> = f
        .insns
        .iter()
        .enumerate()
        .map(|(i, x)| (x.addr, i))
        .collect();
    let succs = (0..f.insns.len())
        .map(|i| {
            let next = (i + 1 < f.insns.len()).then_some(i + 1);
            match f.insns[i].kind {
                Kind::Plain => next.into_iter().collect(),
                Kind::End => Vec::new(),
                Kind::Jump(t) => index.get(&t).copied().into_iter().collect(),
                Kind::Cond(t) => next.into_iter().chain(index.get(&t).copied()).collect(),
            }
        })
        .collect();
    (index, succs)
}

/// The stitched loop of a function: two paths (instruction indices, in order) from its head
/// to its back edge, for AES-128 and AES-256, and the bytes one iteration processes.
pub(super) struct Loop {
    pub(super) aes128: Vec<usize>,
    pub(super) aes256: Vec<usize>,
    pub(super) bytes: usize,
}

pub(super) fn stitched_loop(f: &Func) -> Option<Loop> {
    let (index, succs) = graph(f);
    let count =
        |p: &[usize], pred: fn(&str) -> bool| p.iter().filter(|&&i| pred(&f.insns[i].text)).count();
    // Every back edge, with the paths through its loop with the fewest and the most AES
    // instructions. LLVM may give each key size's path its own back edge (a rotated loop
    // entered after the extra rounds), so the two paths can come from different edges.
    let mut cands = Vec::new();
    for (latch, x) in f.insns.iter().enumerate() {
        let t = match x.kind {
            Kind::Cond(t) | Kind::Jump(t) if t <= x.addr => t,
            _ => continue,
        };
        let Some(&head) = index.get(&t) else { continue };
        let (Some(lo), Some(hi)) = (
            best_path(f, &succs, head, latch, false),
            best_path(f, &succs, head, latch, true),
        ) else {
            continue;
        };
        let (aes, clmul) = (count(&lo, is_aes), count(&lo, is_clmul));
        if std::env::var_os("XTASK_MCA_DEBUG").is_some() {
            eprintln!(
                "{}: loop {:#x}..{:#x}: {} insns, {aes} AES ({} at most), {clmul} CLMUL",
                f.name,
                f.insns[head].addr,
                x.addr,
                lo.len(),
                count(&hi, is_aes)
            );
        }
        if aes > 0 && clmul > 0 {
            cands.push((clmul, lo, (head, latch)));
        }
    }
    // The stitched loop: the most multiplies next to AES rounds.
    let most = cands.iter().map(|c| c.0).max()?;
    cands.retain(|c| c.0 == most);
    let aes128 = cands
        .iter()
        .map(|c| c.1.clone())
        .min_by_key(|p| (count(p, is_aes), p.len()))?;
    // The AES-256 iteration: the most AES instructions up to the AES-128 iteration's and four
    // rounds more (one AES instruction a register a round), so that a loop whose blocks may
    // take a slower way (ARMv8's iterations without a cached first round, one in 32) is
    // measured on the way the AES-128 iteration takes.
    let cap = count(&aes128, is_aes) + 4 * registers(f, &aes128);
    let aes256 = cands
        .iter()
        .filter_map(|&(_, _, (head, latch))| best_path_capped(f, &succs, head, latch, cap))
        .max_by_key(|p| (count(p, is_aes), usize::MAX - p.len()))?;
    let bytes = bytes_per_iteration(f, &aes128);
    Some(Loop {
        aes128,
        aes256,
        bytes,
    })
}

/// The loop of a function with the most carry-less multiplies (a GHASH loop: no AES), as the
/// shortest path from its head to its back edge.
pub(super) fn hash_loop(f: &Func) -> Option<Vec<usize>> {
    let (index, succs) = graph(f);
    let mut best: Option<(usize, Vec<usize>)> = None;
    for (latch, x) in f.insns.iter().enumerate() {
        let t = match x.kind {
            Kind::Cond(t) | Kind::Jump(t) if t <= x.addr => t,
            _ => continue,
        };
        let Some(&head) = index.get(&t) else { continue };
        let Some(p) = best_path(f, &succs, head, latch, false) else {
            continue;
        };
        let clmul = p.iter().filter(|&&i| is_clmul(&f.insns[i].text)).count();
        if clmul > best.as_ref().map_or(0, |b| b.0) {
            best = Some((clmul, p));
        }
    }
    best.map(|b| b.1)
}

/// The instructions reachable from `head` (not re-entering it) on the way to `latch`, in a
/// topological order of the loop's forward edges, and each one's place in it: DFS post-order
/// reversed, once back edges are dropped.
fn loop_order(
    succs: &[Vec<usize>],
    head: usize,
    latch: usize,
) -> (Vec<usize>, HashMap<usize, usize>) {
    let mut state = vec![0u8; succs.len()]; // 0 new, 1 on stack, 2 done
    let mut order = Vec::new();
    let mut stack = vec![(head, 0usize)];
    state[head] = 1;
    while let Some((v, k)) = stack.pop() {
        if v != latch && k < succs[v].len() {
            stack.push((v, k + 1));
            let w = succs[v][k];
            if w != head && state[w] == 0 {
                state[w] = 1;
                stack.push((w, 0));
            }
        } else {
            state[v] = 2;
            order.push(v);
        }
    }
    order.reverse();
    let pos = order.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    (order, pos)
}

/// The path from `head` to `latch` (inclusive) with the fewest (or, `most_aes`, the most) AES
/// instructions, then the fewest instructions; never through `head` again. Edges that close
/// a cycle inside the loop (none in the kernels' loops) are ignored.
pub(super) fn best_path(
    f: &Func,
    succs: &[Vec<usize>],
    head: usize,
    latch: usize,
    most_aes: bool,
) -> Option<Vec<usize>> {
    let (order, pos) = loop_order(succs, head, latch);
    // cost[v]: the best path head..v so far.
    let key = |aes: i64, len: i64| if most_aes { (-aes, len) } else { (aes, len) };
    let mut cost: HashMap<usize, Best> = HashMap::new();
    let a = |v: usize| i64::from(is_aes(&f.insns[v].text));
    cost.insert(head, (key(a(head), 1), a(head), None));
    for &v in &order {
        let Some(&(_, aes_v, _)) = cost.get(&v) else {
            continue;
        };
        let len_v = cost[&v].0.1;
        if v == latch {
            continue;
        }
        for &w in &succs[v] {
            // Forward edges only (within the topological order).
            if w == head || pos.get(&w).is_none_or(|&pw| pw <= pos[&v]) {
                continue;
            }
            let aes_w = aes_v + a(w);
            let cand = (key(aes_w, len_v + 1), aes_w, Some(v));
            if cost.get(&w).is_none_or(|c| cand.0 < c.0) {
                cost.insert(w, cand);
            }
        }
    }
    let mut path = vec![latch];
    let mut v = latch;
    while let Some(p) = cost.get(&v)?.2 {
        path.push(p);
        v = p;
    }
    (v == head).then(|| {
        path.reverse();
        path
    })
}

/// The path from `head` to `latch` (inclusive) with the most AES instructions, at most `cap`,
/// then the fewest instructions (as [`best_path`], over each count of AES instructions).
pub(super) fn best_path_capped(
    f: &Func,
    succs: &[Vec<usize>],
    head: usize,
    latch: usize,
    cap: usize,
) -> Option<Vec<usize>> {
    let (order, pos) = loop_order(succs, head, latch);
    let a = |v: usize| usize::from(is_aes(&f.insns[v].text));
    // best[(v, aes)]: the shortest path head..v with `aes` AES instructions, and the state
    // before it.
    let mut best: HashMap<(usize, usize), Capped> = HashMap::new();
    if a(head) <= cap {
        best.insert((head, a(head)), (1, None));
    }
    for &v in &order {
        if v == latch {
            continue;
        }
        let here: Vec<(usize, usize)> = (0..=cap)
            .filter_map(|k| best.get(&(v, k)).map(|b| (k, b.0)))
            .collect();
        for &w in &succs[v] {
            if w == head || pos.get(&w).is_none_or(|&pw| pw <= pos[&v]) {
                continue;
            }
            for &(k, len) in &here {
                let kw = k + a(w);
                if kw > cap {
                    continue;
                }
                let cand = (len + 1, Some((v, k)));
                if best.get(&(w, kw)).is_none_or(|b| cand.0 < b.0) {
                    best.insert((w, kw), cand);
                }
            }
        }
    }
    let k = (0..=cap).rev().find(|&k| best.contains_key(&(latch, k)))?;
    let mut path = vec![latch];
    let mut at = (latch, k);
    while let Some(prev) = best.get(&at)?.1 {
        path.push(prev.0);
        at = prev;
    }
    (at.0 == head).then(|| {
        path.reverse();
        path
    })
}

/// [`best_path_capped`]'s best path to an instruction with a count of AES instructions: its
/// length and the (instruction, count) before it.
type Capped = (usize, Option<(usize, usize)>);

/// Registers (x86) or blocks (ARMv8) an iteration of `path` encrypts: its last rounds
/// (`aesenclast`, or an `aese` without its `aesmc`).
fn registers(f: &Func, path: &[usize]) -> usize {
    let (mut last, mut aese, mut aesmc) = (0usize, 0usize, 0usize);
    for &i in path {
        let t = f.insns[i].text.as_str();
        if t.starts_with("vaesenclast") || t.starts_with("aesenclast") {
            last += 1;
        } else if t.starts_with("aese ") {
            aese += 1;
        } else if t.starts_with("aesmc ") {
            aesmc += 1;
        }
    }
    last + aese.saturating_sub(aesmc)
}

/// The best path to an instruction so far: its ordering key (AES count, minus it when the most
/// are wanted, then length), its AES count, and the previous instruction.
pub(super) type Best = ((i64, i64), i64, Option<usize>);

/// Bytes per iteration: x86, one register of output per `aesenclast` (its width from the
/// register name); aarch64, one block per `aese` without its `aesmc`.
pub(super) fn bytes_per_iteration(f: &Func, path: &[usize]) -> usize {
    let mut bytes = 0;
    let mut aese = 0usize;
    let mut aesmc = 0usize;
    for &i in path {
        let t = &f.insns[i].text;
        if t.starts_with("vaesenclast") || t.starts_with("aesenclast") {
            bytes += if t.contains("%zmm") {
                64
            } else if t.contains("%ymm") {
                32
            } else {
                16
            };
        } else if t.starts_with("aese ") {
            aese += 1;
        } else if t.starts_with("aesmc ") {
            aesmc += 1;
        }
    }
    bytes + 16 * aese.saturating_sub(aesmc)
}

/// The path as assembly for llvm-mca (branches left out: the loop is the sequence itself).
pub(super) fn asm(f: &Func, path: &[usize]) -> String {
    let mut s = String::new();
    for &i in path {
        let x = &f.insns[i];
        if x.kind == Kind::Plain {
            s.push_str(&x.text);
            s.push('\n');
        }
    }
    s
}

/// One llvm-mca result.
pub(super) struct Mca {
    /// Cycles per 64 bytes (of AES output: a loop without AES has none, see `per_iter`).
    pub(super) per64: f64,
    /// Cycles per iteration.
    pub(super) per_iter: f64,
    /// The resource with the highest pressure per iteration.
    pub(super) busiest: String,
}

pub(super) fn mca(
    tool: &Path,
    arch: Arch,
    model: &str,
    f: &Func,
    path: &[usize],
) -> Result<Mca, String> {
    mca_text(
        tool,
        arch,
        model,
        &asm(f, path),
        bytes_per_iteration(f, path) as f64,
    )
}

/// [`mca`] on the assembly text `src` of a loop body that produces `bytes` bytes of AES output
/// an iteration.
pub(super) fn mca_text(
    tool: &Path,
    arch: Arch,
    model: &str,
    src: &str,
    bytes: f64,
) -> Result<Mca, String> {
    let file = std::env::temp_dir().join(format!("xtask-mca-{}.s", std::process::id()));
    fs::write(&file, src).map_err(|e| format!("{}: {e}", file.display()))?;
    let triple = match arch {
        Arch::X86 => "x86_64",
        Arch::Arm => "aarch64",
    };
    let iterations = 200u32;
    // Armv9 models (neoverse-v2) leave the cryptography extension optional.
    let attr = match arch {
        Arch::X86 => "-mattr=",
        Arch::Arm => "-mattr=+aes,+sha3",
    };
    let out = Command::new(tool)
        .args([
            &format!("-mtriple={triple}"),
            &format!("-mcpu={model}"),
            attr,
            &format!("-iterations={iterations}"),
            "-resource-pressure",
            "-instruction-info=false",
        ])
        .arg(&file)
        .output()
        .map_err(|e| format!("{}: {e}", tool.display()))?;
    let _ = fs::remove_file(&file);
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "llvm-mca -mcpu={model} failed: {}",
            err.lines().next().unwrap_or("")
        ));
    }
    let field = |name: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
    };
    let cycles = field("Total Cycles:").ok_or("llvm-mca: no Total Cycles")?;
    let iters = field("Iterations:").ok_or("llvm-mca: no Iterations")?;
    Ok(Mca {
        per64: cycles / iters * 64.0 / bytes,
        per_iter: cycles / iters,
        busiest: busiest(&text).unwrap_or_default(),
    })
}

/// The resource with the highest pressure per iteration, as `name (pressure)`.
pub(super) fn busiest(text: &str) -> Option<String> {
    // "Resources:" lists `[n] - Name`; "Resource pressure per iteration:" has a header of
    // `[n]` columns and one row of numbers (`-` for none).
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if l.trim() == "Resources:" {
            while let Some(r) = lines.peek() {
                let r = r.trim();
                if r.is_empty() {
                    break;
                }
                if let Some((k, v)) = r.split_once(" - ") {
                    names.insert(k.trim().to_string(), v.trim().to_string());
                }
                lines.next();
            }
        }
        if l.trim() == "Resource pressure per iteration:" {
            let header: Vec<String> = lines.next()?.split_whitespace().map(String::from).collect();
            let values: Vec<&str> = lines.next()?.split_whitespace().collect();
            let (k, p) = header
                .iter()
                .zip(values)
                .filter_map(|(k, v)| Some((k, v.parse::<f64>().ok()?)))
                .max_by(|a, b| a.1.total_cmp(&b.1))?;
            let name = names.get(k).cloned().unwrap_or_else(|| k.clone());
            return Some(format!("{name} {p:.0}"));
        }
    }
    None
}
