//! The verdicts of `wavediff` on waveforms that are damaged or do not match: a file cut at a
//! line boundary, a signal in one file only, a file cut mid-line, a value wider than its
//! variable, an undeclared id code, and paths that are not waveform files. No simulator is
//! needed: the files come from the model's waveform writer and are then damaged by hand.

use std::path::{Path, PathBuf};

use idemnet_cosim::{wavediff, DiffOptions, PortSpec, WaveDiff};
use idemnet_model::PortVcd;

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("wavediff")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// 200 cycles of a small block's ports (`clock` is `!`, `a` is `"`, `b` is `#`, `y` is `$`).
fn waveform() -> String {
    let ports = vec![
        PortSpec::input("a", 8),
        PortSpec::input("b", 1),
        PortSpec::output("y", 12),
    ];
    let mut v = PortVcd::new(Vec::new(), &ports).unwrap();
    for t in 0..200u64 {
        let a = t.wrapping_mul(0x9E37_79B9) >> 7;
        v.cycle(t, &[a, t & 1], &[(a * 3) ^ t]).unwrap();
    }
    String::from_utf8(v.writer().clone()).unwrap()
}

fn write(d: &Path, name: &str, text: &str) -> PathBuf {
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The line (1-based) on which `needle` first occurs in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).unwrap()].matches('\n').count() + 1
}

fn diff(a: &Path, b: &Path) -> WaveDiff {
    wavediff(a, b, &DiffOptions::default()).unwrap_or_else(|e| panic!("{e:#}"))
}

fn error(a: &Path, b: &Path) -> String {
    let e = wavediff(a, b, &DiffOptions::default()).expect_err("must be an error");
    let text = format!("{e:#}");
    assert!(!text.contains('\n'), "one line: {text}");
    text
}

#[test]
fn the_same_waveform_is_equal() {
    let d = dir("same");
    let text = waveform();
    let (a, b) = (write(&d, "a.vcd", &text), write(&d, "b.vcd", &text));
    let r = diff(&a, &b);
    assert!(r.is_equal(), "{r}");
    assert!(r.to_string().contains("both cover 0 ns .. 1995 ns"), "{r}");
}

#[test]
fn a_file_cut_at_a_line_boundary_differs() {
    let d = dir("cut-at-line");
    let text = waveform();
    // Cut before a time stamp, so the half that is there is whole up to its last time.
    let half = &text[..text.find("\n#1000\n").unwrap() + 1];
    let (a, b) = (write(&d, "whole.vcd", &text), write(&d, "half.vcd", half));
    let r = diff(&a, &b);
    assert!(r.diffs.is_empty(), "the half that is there agrees: {r}");
    assert!(!r.is_equal(), "{r}");
    let shown = r.to_string();
    assert!(
        shown.contains("the time spans differ: A covers 0 ns .. 1995 ns, B covers 0 ns .. 995 ns"),
        "{shown}"
    );
    assert!(shown.contains("the files differ"), "{shown}");
}

#[test]
fn a_signal_in_one_file_only_differs() {
    let d = dir("one-file-only");
    let text = waveform();
    // `y` (id `$`) gone: its declaration and every value of it.
    let without: String = text
        .lines()
        .filter(|l| !l.contains(" y $end") && !l.ends_with(" $"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(without.len() < text.len());
    let (a, b) = (
        write(&d, "all.vcd", &text),
        write(&d, "without-y.vcd", &without),
    );
    let r = diff(&a, &b);
    assert!(!r.is_equal(), "{r}");
    assert_eq!(r.only_a, vec!["y".to_string()], "{r}");
    assert!(r.only_b.is_empty() && r.diffs.is_empty(), "{r}");
    assert!(r.to_string().contains("1 signals only in A: y"), "{r}");
    assert!(!diff(&b, &a).is_equal());
}

#[test]
fn a_file_cut_in_the_middle_of_a_line_is_malformed() {
    let d = dir("cut-mid-line");
    let text = waveform();
    let whole = write(&d, "whole.vcd", &text);
    // Inside a vector value, inside a time stamp, and inside the header.
    let stamp = text.find("#1005\n").unwrap() + 3;
    let value = stamp + text[stamp..].find("\nb").unwrap() + 5;
    for (at, line_of) in [(value, value), (stamp, stamp), (40, 40)] {
        let cut = write(&d, "cut.vcd", &text[..at]);
        let line = text[..line_of].matches('\n').count() + 1;
        let e = error(&whole, &cut);
        assert!(e.contains("cut.vcd: line "), "{e}");
        assert!(e.contains("truncated"), "{e}");
        if at != 40 {
            assert!(e.contains(&format!("line {line}:")), "{e}");
        }
    }
}

#[test]
fn a_value_wider_than_its_variable_or_an_undeclared_id_is_malformed() {
    let d = dir("bad-values");
    let text = waveform();
    let whole = write(&d, "whole.vcd", &text);
    let narrow = text.replace("$var wire 12 $ y $end", "$var wire 3 $ y $end");
    let line = line_of(&text, "b000000000000 $");
    let e = error(&whole, &write(&d, "narrow.vcd", &narrow));
    assert!(
        e.contains(&format!(
            "narrow.vcd: line {line}: value `b000000000000` for `y`"
        )) && e.contains("12 bits, but the variable has 3"),
        "{e}"
    );
    let undeclared = text.replacen("b00000000 \"", "b00000000 %", 1);
    let line = line_of(&text, "b00000000 \"");
    let e = error(&whole, &write(&d, "undeclared.vcd", &undeclared));
    assert!(
        e.contains("which no `$var` declares")
            && e.contains(&format!("undeclared.vcd: line {line}:")),
        "{e}"
    );
}

#[test]
fn paths_that_are_not_waveform_files_say_what_they_are() {
    let d = dir("not-files");
    let good = write(&d, "good.vcd", &waveform());
    let empty = write(&d, "empty.vcd", "");
    let cases = [
        (
            PathBuf::from("/dev/null"),
            "/dev/null is a character device, not a waveform file",
        ),
        (d.clone(), "is a folder, not a waveform file"),
        (empty, "empty.vcd: the file is empty"),
        (d.join("missing.vcd"), "missing.vcd: no such file"),
        (
            write(&d, "blank.vcd", " \n\t\n"),
            "blank.vcd: holds only white space",
        ),
        (
            write(&d, "text.vcd", "hello\n"),
            "text.vcd: not a waveform file",
        ),
    ];
    for (path, says) in cases {
        let e = error(&path, &good);
        assert!(e.contains(says), "{e}");
        let e = error(&good, &path);
        assert!(e.contains(says), "{e}");
    }
}

/// A link carrying an ACK's worm, once as sent and once with its header word changed to a
/// SEND's: the report names both flits in their worm, not only their bits.
#[test]
fn a_differing_flit_is_named_in_its_worm() {
    use idemnet_spec::crc::crc32;
    use idemnet_spec::flit::{HEAD, TAIL, VALID};
    let link = |header: u32| {
        // An ACK of node 3's datagram 0x12: route, header word (with the uid's counter), CRC.
        let words = [5u32 << 16 | 3, header | 0x0012];
        let mut flits: Vec<u64> = words.iter().map(|&w| VALID | w as u64).collect();
        flits[0] |= HEAD;
        flits.push(VALID | TAIL | crc32(&words) as u64);
        let mut v = PortVcd::new(Vec::new(), &[PortSpec::output("net_out", 35)]).unwrap();
        for t in 0..20u64 {
            let flit = t.checked_sub(4).and_then(|i| flits.get(i as usize));
            v.cycle(t, &[], &[flit.copied().unwrap_or(0)]).unwrap();
        }
        String::from_utf8(v.writer().clone()).unwrap()
    };
    let d = dir("flits");
    let (a, b) = (
        write(&d, "a.vcd", &link(1 << 30)),
        write(&d, "b.vcd", &link(0)),
    );
    let r = diff(&a, &b);
    let first = r.first().expect("the header differs");
    assert_eq!(first.cycle, 5, "{r}");
    assert_eq!(
        first.flits,
        Some((
            "ACK counter=0x0012".to_string(),
            "SEND len=0 counter=0x0012".to_string()
        )),
        "{r}"
    );
    assert!(
        r.to_string()
            .contains("the flits: A ACK counter=0x0012; B SEND len=0 counter=0x0012"),
        "{r}"
    );
}
