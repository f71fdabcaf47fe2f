//! The check that imports run one way: in every crate of both workspaces (and in this
//! program), no two top-level modules reach each other through `crate::` paths, directly or
//! around a longer circle. A test (`cargo test -p xtask`, which `cargo xtask test` runs), not
//! a command.
//!
//! The graph is read from the source text: a file's module is its top-level module (`x.rs`,
//! `x/mod.rs` and `x/y.rs` are all `x`; the crate root is left out, since it declares every
//! module and holds only shared leaf items), and it reaches module `m` when a line that is not
//! a comment names `crate::m` (or `$crate::m` in a macro), or `m` in a grouped
//! `use crate::{...}`. Unit tests do not count: a file's text ends at its `#[cfg(test)] mod
//! tests`, and `tests.rs` files are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The source directories checked, relative to the workspace root: every crate's `src/`.
fn source_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("xtask/src")];
    for parent in ["crates", "aead-0.5"] {
        if let Ok(rd) = fs::read_dir(root.join(parent)) {
            let mut found: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path().join("src"))
                .filter(|p| p.is_dir())
                .collect();
            found.sort();
            dirs.extend(found);
        }
    }
    dirs
}

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src` belongs to (`None`: the crate root).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main")).then(|| name.to_string())
}

/// The text of a file that counts: up to its unit-test module, comment lines dropped.
fn code_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines[i + 1..]
                .iter()
                .map(|l| l.trim_start())
                .find(|l| !l.is_empty())
                .is_some_and(|l| l.starts_with("mod tests"))
        {
            break;
        }
        if !t.starts_with("//") {
            out.push(*l);
        }
    }
    out
}

/// The names a line reaches through `crate::`: the segment after each `crate::`, and every
/// first segment inside a grouped `use crate::{...}`.
fn reached(line: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group: split at commas outside nested braces.
            let mut depth = 0usize;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            names.push(first_segment(&item));
        } else {
            names.push(first_segment(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

fn first_segment(s: &str) -> String {
    s.trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Module -> the modules it reaches, for the crate whose sources are in `src`.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(src, f)).collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let Some(m) = module_of(src, f) else { continue };
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let Ok(text) = fs::read_to_string(f) else {
            continue;
        };
        let edges = g.entry(m.clone()).or_default();
        for line in code_lines(&text) {
            for n in reached(line) {
                if n != m && modules.contains(&n) {
                    edges.insert(n);
                }
            }
        }
    }
    g
}

/// A circle of `g`, as the modules on it (the first repeated at the end), if there is one.
fn circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with colours: 1 on the stack, 2 done.
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        m: &str,
        colour: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        colour.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for n in g.get(m).into_iter().flatten() {
            match colour.get(n).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == n).unwrap_or(0);
                    let mut c = stack[at..].to_vec();
                    c.push(n.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(g, n, colour, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        colour.insert(m.to_string(), 2);
        None
    }
    let mut colour = BTreeMap::new();
    for m in g.keys() {
        if colour.get(m).copied().unwrap_or(0) == 0
            && let Some(c) = visit(g, m, &mut colour, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reached_reads_paths_and_groups() {
        assert_eq!(reached("use crate::fused::Engine;"), ["fused"]);
        assert_eq!(
            reached("use crate::{J0, engine::{Isa, Job}, tables::RoundKeys};"),
            ["J0", "engine", "tables"]
        );
        assert_eq!(
            reached("fn engine(k: bool) -> $crate::fused::Engine { crate::x86::intel() }"),
            ["fused", "x86"]
        );
    }

    #[test]
    fn circles_are_found() {
        let g: BTreeMap<String, BTreeSet<String>> = [
            ("a", vec!["b"]),
            ("b", vec!["c"]),
            ("c", vec!["a"]),
            ("d", vec!["a"]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
        .collect();
        assert_eq!(circle(&g).unwrap(), ["a", "b", "c", "a"]);
        let mut g = g;
        g.get_mut("c").unwrap().clear();
        assert_eq!(circle(&g), None);
    }

    /// The check itself, on the workspace's sources.
    #[test]
    fn imports_run_one_way() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask sits in the workspace root")
            .to_path_buf();
        let mut circles = Vec::new();
        for src in source_dirs(&root) {
            if let Some(c) = circle(&graph(&src)) {
                circles.push(format!("{}: {}", src.display(), c.join(" -> ")));
            }
        }
        assert!(
            circles.is_empty(),
            "modules that import each other:\n{}",
            circles.join("\n")
        );
    }
}
