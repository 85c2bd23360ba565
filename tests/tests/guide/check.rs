//! The guide cannot rot: every ```rust block of `docs/guide/src/*.md` is
//! an mdBook `{{#include path:anchor}}` of a file the tests build and run,
//! every such file and anchor exists, and every relative link of the
//! guide, README.md, `docs/*.md` and `docs/notes/*.md` leads to a file that exists (and, for
//! a `#heading` in a Markdown file, to one of its headings).

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Markdown files of `dir` (not below it), sorted.
fn markdown_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

/// A fenced code block: its info string (`rust`, `text`, ...), its lines,
/// and the line of the file it starts on.
struct Block {
    info: String,
    body: Vec<String>,
    line: usize,
}

/// `text` split into its fenced code blocks and the prose outside them
/// (the prose's lines, each with its line number).
fn blocks_and_prose(text: &str) -> (Vec<Block>, Vec<(usize, String)>) {
    let (mut blocks, mut prose) = (Vec::new(), Vec::new());
    let mut open: Option<Block> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match open.take() {
            Some(mut b) => {
                if trimmed.starts_with("```") {
                    blocks.push(b);
                } else {
                    b.body.push(line.to_string());
                    open = Some(b);
                }
            }
            None if trimmed.starts_with("```") => {
                open = Some(Block {
                    info: trimmed.trim_start_matches('`').trim().to_string(),
                    body: Vec::new(),
                    line: n + 1,
                });
            }
            None => prose.push((n + 1, line.to_string())),
        }
    }
    assert!(open.is_none(), "a code block is never closed");
    (blocks, prose)
}

/// The id mdBook and GitHub give a heading: lower case, spaces to `-`,
/// only letters, digits, `-` and `_` kept.
fn heading_id(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The ids of the headings of a Markdown file (outside code blocks).
fn heading_ids(path: &Path) -> BTreeSet<String> {
    let text = fs::read_to_string(path).unwrap();
    let (_, prose) = blocks_and_prose(&text);
    prose
        .iter()
        .filter_map(|(_, l)| l.strip_prefix('#'))
        .map(|h| heading_id(h.trim_start_matches('#')))
        .collect()
}

/// `line` without its inline code spans.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    for (i, part) in line.split('`').enumerate() {
        if i % 2 == 0 {
            out.push_str(part);
        }
    }
    out
}

/// The targets of the Markdown links of `line` (`[text](target)`).
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find(')').unwrap_or(after.len());
        targets.push(after[..end].trim().to_string());
        rest = &after[end..];
    }
    targets
}

/// What is wrong with the relative links of `file`, one line each.
fn broken_links(file: &Path) -> Vec<String> {
    let text = fs::read_to_string(file).unwrap();
    let (_, prose) = blocks_and_prose(&text);
    let dir = file.parent().unwrap();
    let mut broken = Vec::new();
    for (n, line) in &prose {
        for target in link_targets(line) {
            if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.to_path_buf()
            } else {
                dir.join(path)
            };
            let at = format!("{}:{n}: `{target}`", file.display());
            if !resolved.exists() {
                broken.push(format!("{at}: no such file"));
                continue;
            }
            if let Some(fragment) = fragment {
                let is_markdown = resolved.extension().is_some_and(|e| e == "md");
                if is_markdown && !heading_ids(&resolved).contains(fragment) {
                    broken.push(format!("{at}: no heading `#{fragment}` there"));
                }
            }
        }
    }
    broken
}

/// The includes of a ```rust block: `(path, anchor)` for each line
/// `{{#include path:anchor}}` (`anchor` empty for a whole file); an error
/// if the block holds anything else.
fn includes(block: &Block) -> Result<Vec<(String, String)>, String> {
    let mut found = Vec::new();
    for line in block.body.iter().filter(|l| !l.trim().is_empty()) {
        let inner = line
            .trim()
            .strip_prefix("{{#include ")
            .and_then(|l| l.strip_suffix("}}"))
            .ok_or_else(|| format!("`{}` is not an {{{{#include path:anchor}}}}", line.trim()))?;
        let (path, anchor) = inner.split_once(':').unwrap_or((inner, ""));
        found.push((path.trim().to_string(), anchor.trim().to_string()));
    }
    if found.is_empty() {
        return Err("an empty block".into());
    }
    Ok(found)
}

#[test]
fn guide_is_built_from_tested_files() {
    let src = root().join("docs/guide/src");
    if !src.is_dir() {
        // A test binary carried away from the checkout (the GPU bundle):
        // the kernels' tests above still run; scripts/test, in the
        // checkout, fails without this check's count line.
        let _ = writeln!(
            std::io::stderr(),
            "guide check not run: no checkout at {}",
            src.display()
        );
        return;
    }
    let mut problems = Vec::new();
    let mut examples = BTreeSet::new();
    let chapters = markdown_in(&src);
    assert!(
        chapters.len() > 10,
        "the guide's chapters in {}",
        src.display()
    );
    for chapter in &chapters {
        let text = fs::read_to_string(chapter).unwrap();
        let (blocks, _) = blocks_and_prose(&text);
        for block in blocks
            .iter()
            .filter(|b| b.info.split(',').next() == Some("rust"))
        {
            let at = format!("{}:{}", chapter.display(), block.line);
            match includes(block) {
                Err(e) => problems.push(format!(
                    "{at}: a ```rust block must be {{{{#include}}}}s of tested files: {e}"
                )),
                Ok(found) => {
                    for (path, anchor) in found {
                        let file = chapter.parent().unwrap().join(&path);
                        let Ok(code) = fs::read_to_string(&file) else {
                            problems.push(format!("{at}: no file {path}"));
                            continue;
                        };
                        let has = |mark: &str| {
                            code.lines().any(|l| {
                                l.trim_start().starts_with("//")
                                    && l.trim_end().ends_with(&format!("{mark}: {anchor}"))
                            })
                        };
                        let anchored = has("ANCHOR") && has("ANCHOR_END");
                        if !anchor.is_empty() && !anchored {
                            problems.push(format!("{at}: {path} has no anchor `{anchor}` (// ANCHOR: {anchor} ... // ANCHOR_END: {anchor})"));
                        }
                        examples.insert(format!("{path}:{anchor}"));
                    }
                }
            }
        }
    }
    let mut linked = chapters.clone();
    linked.push(root().join("README.md"));
    linked.extend(markdown_in(&root().join("docs")));
    linked.extend(markdown_in(&root().join("docs/notes")));
    for file in &linked {
        problems.extend(broken_links(file));
    }
    assert!(problems.is_empty(), "the guide:\n{}", problems.join("\n"));
    // Past the test harness's capture (which takes `println!`), so that
    // scripts/test can print the count.
    let _ = writeln!(
        std::io::stderr(),
        "guide: {} examples included from tested files in {} chapters; links of {} files checked",
        examples.len(),
        chapters.len(),
        linked.len()
    );
}

#[test]
fn the_check_finds_what_it_should() {
    let block = |body: &str| Block {
        info: "rust".into(),
        body: body.lines().map(String::from).collect(),
        line: 1,
    };
    assert!(includes(&block("{{#include a.rs:x}}")).is_ok());
    assert!(includes(&block("fn main() {}")).is_err());
    assert!(includes(&block("")).is_err());
    assert_eq!(
        heading_id("Grid and multi-grid (`this_grid`)"),
        "grid-and-multi-grid-this_grid"
    );
    assert_eq!(link_targets("see [a](b.md#c) and `[x](y)`"), ["b.md#c"]);
}
