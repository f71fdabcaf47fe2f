//! Plain-text tables for the xtask reports.

/// `header` and `rows` as text: every column padded to its widest cell (header included), two
/// spaces apart, the last `right` columns right-aligned; with `rule`, a line of dashes under
/// the header. Each line ends with a newline.
pub fn render(header: &[&str], rows: &[Vec<String>], right: usize, rule: bool) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let first_right = widths.len().saturating_sub(right);
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = cells
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, &w))| {
                if i >= first_right {
                    format!("{c:>w$}")
                } else {
                    format!("{c:<w$}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ");
        s.push('\n');
        s
    };
    let mut out = line(&mut header.iter().copied());
    if rule {
        out.push_str(
            &"-".repeat(widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)),
        );
        out.push('\n');
    }
    for row in rows {
        out.push_str(&line(&mut row.iter().map(String::as_str)));
    }
    out
}

/// The page of the documentation that holds `marker` (README.md, then the pages of `docs/`),
/// and its text: where `cargo xtask bench` and `mca` write their tables.
pub fn marked_page(
    root: &std::path::Path,
    marker: &str,
) -> Result<(std::path::PathBuf, String), String> {
    let mut pages = vec![root.join("README.md")];
    if let Ok(rd) = std::fs::read_dir(root.join("docs")) {
        let mut docs: Vec<_> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        docs.sort();
        pages.extend(docs);
    }
    for page in pages {
        if let Ok(text) = std::fs::read_to_string(&page)
            && text.contains(marker)
        {
            return Ok((page, text));
        }
    }
    Err(format!(
        "no page of README.md or docs/ has the marker {marker}"
    ))
}

/// The byte range of `text` between the first `start` marker and the first `end` marker after
/// it, markers excluded; `None` unless both are there in that order.
pub fn section(text: &str, start: &str, end: &str) -> Option<(usize, usize)> {
    let a = text.find(start)? + start.len();
    let b = text.find(end)?;
    (a <= b).then_some((a, b))
}

/// Replaces the text between the markers `start` and `end` of the page that has them
/// ([`marked_page`]: README.md or a page of `docs/`) with `md`.
pub fn splice(root: &std::path::Path, start: &str, end: &str, md: &str) -> Result<(), String> {
    let (page, text) = marked_page(root, start)?;
    let name = page.display();
    let Some((a, b)) = section(&text, start, end) else {
        return Err(format!("{name} lacks the {start} ... {end} markers"));
    };
    let new = format!("{}\n{}\n{}", &text[..a], md.trim_end(), &text[b..]);
    std::fs::write(&page, new).map_err(|e| format!("{name}: {e}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn section_between_markers() {
        let t = "a <!-- s --> body <!-- e --> z";
        let (a, b) = super::section(t, "<!-- s -->", "<!-- e -->").unwrap();
        assert_eq!(&t[a..b], " body ");
        assert_eq!(super::section(t, "<!-- e -->", "<!-- s -->"), None);
        assert_eq!(super::section(t, "<!-- s -->", "<!-- x -->"), None);
        assert_eq!(
            super::section("<!-- s --><!-- e -->", "<!-- s -->", "<!-- e -->"),
            Some((10, 10))
        );
    }

    #[test]
    fn pads_aligns_and_rules() {
        let rows = vec![
            vec!["s390x".to_string(), "ok".to_string(), "29.3".to_string()],
            vec!["x".to_string(), "FAILED".to_string(), "0.8".to_string()],
        ];
        assert_eq!(
            super::render(&["target", "result", "seconds"], &rows, 1, true),
            "target  result  seconds\n\
             -----------------------\n\
             s390x   ok         29.3\n\
             x       FAILED      0.8\n"
        );
        assert_eq!(
            super::render(
                &["a", "b"],
                &rows.iter().map(|r| r[..2].to_vec()).collect::<Vec<_>>(),
                0,
                false
            ),
            "a      b     \ns390x  ok    \nx      FAILED\n"
        );
    }
}
