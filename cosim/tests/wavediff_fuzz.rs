//! Random bytes and random damage to valid VCD files, thrown at `wavediff`: it must never panic,
//! and it must answer either with a comparison or with an error of one line. A VCD must never
//! reach the point where the reader panics (the check before it must reject the file first),
//! so the message of a caught reader panic is a failure too.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use idemnet_cosim::{wavediff, DiffOptions, PortSpec};
use idemnet_model::PortVcd;
use proptest::prelude::*;

/// A block's ports as the model writes them: a scalar, a short vector and one wider than 64
/// bits (two words).
fn model_waveform() -> String {
    let ports = [("a$0", 5), ("en", 1)].map(|(n, w)| PortSpec::input(n, w));
    let mut v = PortVcd::new(
        Vec::new(),
        &[&ports[..], &[PortSpec::output("y", 70)]].concat(),
    )
    .unwrap();
    for t in 0..12u64 {
        let wide = t.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        v.cycle(t, &[t * 3, t & 1], &[wide, t & 0x3f]).unwrap();
    }
    String::from_utf8(v.writer().clone()).unwrap()
}

/// What other simulators write: a header over several lines, a date, nested scopes, real,
/// event and string variables, `$dumpvars`, short vectors, x and z, and a closing time stamp.
const SIMULATOR_WAVEFORM: &str =
    "$date\n\tMon Jan  1 00:00:00 2024\n$end\n$version\n\tIcarus Verilog\n$end
$timescale\n\t1ps\n$end\n$scope module tb $end\n$var reg 1 ! clock $end\n$var real 64 \" r $end
$var event 1 # e $end\n$var string 1 $ s $end\n$scope module dut $end\n$var wire 4 % q [3:0] $end
$upscope $end\n$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n0!\nr0 \"\nbx %\nsidle $\n$end
#5000\n1!\n1#\nb1z %\n$comment a note $end\n#10000\n0!\nr2.5 \"\nb1010 %\nsbusy $\n#15000\n";

fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&c| c == b'\n').collect()
}

/// One piece of damage, placed by fractions of the file so that it lands anywhere in it.
#[derive(Clone, Debug)]
enum Damage {
    /// Cut the file at this fraction of its length.
    Truncate(f64),
    /// Set the byte at this fraction to this value.
    Flip(f64, u8),
    DeleteLine(f64),
    DuplicateLine(f64),
    /// Give the `$var` at this fraction of the declarations this width.
    Width(f64, String),
    /// Make the value change at this fraction of the lines refer to this id code.
    UnknownId(f64, String),
    /// Put these bytes in at this fraction.
    Insert(f64, Vec<u8>),
}

fn at(fraction: f64, len: usize) -> usize {
    ((fraction * len as f64) as usize).min(len.saturating_sub(1))
}

fn apply(text: &[u8], damage: &Damage) -> Vec<u8> {
    let ls = lines(text);
    let mut out = text.to_vec();
    match damage {
        Damage::Truncate(f) => out.truncate(at(*f, text.len() + 1)),
        Damage::Flip(f, b) if !out.is_empty() => {
            let i = at(*f, out.len());
            out[i] = *b;
        }
        Damage::Flip(..) => {}
        Damage::DeleteLine(f) | Damage::DuplicateLine(f) if !ls.is_empty() => {
            let i = at(*f, ls.len());
            let mut v: Vec<&[u8]> = ls.clone();
            if matches!(damage, Damage::DeleteLine(_)) {
                v.remove(i);
            } else {
                v.insert(i, ls[i]);
            }
            out = v.concat();
        }
        Damage::DeleteLine(_) | Damage::DuplicateLine(_) => {}
        Damage::Width(f, width) => {
            let vars: Vec<usize> = (0..ls.len())
                .filter(|&i| ls[i].starts_with(b"$var "))
                .collect();
            if !vars.is_empty() {
                let i = vars[at(*f, vars.len())];
                let line = String::from_utf8_lossy(ls[i]).into_owned();
                let mut words: Vec<&str> = line.split(' ').collect();
                if words.len() > 2 {
                    words[2] = width;
                }
                let mut v: Vec<Vec<u8>> = ls.iter().map(|l| l.to_vec()).collect();
                v[i] = words.join(" ").into_bytes();
                out = v.concat();
            }
        }
        Damage::UnknownId(f, id) => {
            let changes: Vec<usize> = (0..ls.len())
                .filter(|&i| matches!(ls[i].first(), Some(b'b' | b'0' | b'1' | b'r' | b's')))
                .collect();
            if !changes.is_empty() {
                let i = changes[at(*f, changes.len())];
                let line = ls[i];
                let mut v: Vec<Vec<u8>> = ls.iter().map(|l| l.to_vec()).collect();
                v[i] = match line.iter().position(|&c| c == b' ') {
                    Some(space) => [&line[..=space], id.as_bytes(), b"\n"].concat(),
                    None => [&line[..1], id.as_bytes(), b"\n"].concat(),
                };
                out = v.concat();
            }
        }
        Damage::Insert(f, bytes) => {
            let i = at(*f, out.len() + 1);
            out.splice(i..i, bytes.iter().copied());
        }
    }
    out
}

fn damage() -> impl Strategy<Value = Damage> {
    let fraction = 0.0..1.0f64;
    let width = prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("99999999999".to_string()),
        Just("65537".to_string()),
        (1u32..140).prop_map(|w| w.to_string()),
    ];
    let id = prop_oneof![
        Just("~".to_string()),
        Just("zz".to_string()),
        Just("\\".to_string()),
        "[!-~]{1,3}",
    ];
    let bytes = prop_oneof![
        proptest::collection::vec(any::<u8>(), 1..8),
        proptest::sample::select(vec![
            b"$end".to_vec(),
            b"#".to_vec(),
            b"\n".to_vec(),
            b"$var wire 3 ! x $end\n".to_vec(),
            b"b".to_vec(),
            b" ".to_vec(),
            b"$scope module q $end".to_vec(),
            b"$var wire 2 & m[1][0] $end\n".to_vec(),
            b"$var wire 4 ' v [3:0] $end\n".to_vec(),
            b"$var real 64 ( r $end\nr1e3 (\n".to_vec(),
        ]),
    ];
    prop_oneof![
        fraction.clone().prop_map(Damage::Truncate),
        (fraction.clone(), any::<u8>()).prop_map(|(f, b)| Damage::Flip(f, b)),
        (
            fraction.clone(),
            proptest::sample::select(b"#$ \n01xzb!\"%\x00\xff".to_vec())
        )
            .prop_map(|(f, b)| Damage::Flip(f, b)),
        fraction.clone().prop_map(Damage::DeleteLine),
        fraction.clone().prop_map(Damage::DuplicateLine),
        (fraction.clone(), width).prop_map(|(f, w)| Damage::Width(f, w)),
        (fraction.clone(), id).prop_map(|(f, i)| Damage::UnknownId(f, i)),
        (fraction, bytes).prop_map(|(f, b)| Damage::Insert(f, b)),
    ]
}

fn scratch() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wavediff-fuzz");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compares `bytes` (as a file) with `reference` both ways; panics (failing the case) unless
/// each answer is a comparison or a one-line error that is not a caught reader panic.
fn compare_both_ways(bytes: &[u8], reference: &Path) {
    static CASE: AtomicU64 = AtomicU64::new(0);
    let path = scratch().join(format!(
        "case-{}-{}.vcd",
        std::process::id(),
        CASE.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes).unwrap();
    for (a, b) in [(path.as_path(), reference), (reference, path.as_path())] {
        match wavediff(a, b, &DiffOptions::default()) {
            Ok(d) => {
                let _ = d.to_string();
            }
            Err(e) => {
                let text = format!("{e:#}");
                assert!(!text.contains('\n'), "more than one line: {text:?}");
                assert!(!text.is_empty());
                let vcd = bytes.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'$');
                assert!(
                    !(vcd && text.contains("gave up on it")),
                    "the VCD check let through a file the reader panics on: {text}\n{}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// The two valid waveforms and their files, written once: the cases run in parallel threads.
fn references() -> &'static [(String, PathBuf); 2] {
    static R: std::sync::OnceLock<[(String, PathBuf); 2]> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        let d = scratch();
        [model_waveform(), SIMULATOR_WAVEFORM.to_string()].map(|text| {
            let p = d.join(format!(
                "reference-{}-{}.vcd",
                std::process::id(),
                text.len()
            ));
            std::fs::write(&p, &text).unwrap();
            (text, p)
        })
    })
}

#[test]
fn the_references_are_valid() {
    for (_, p) in references().iter() {
        let d = wavediff(p, p, &DiffOptions::default()).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(d.is_equal() && !d.compared.is_empty(), "{d}");
    }
}

proptest! {
    // A case writes one small file and compares it both ways: 10,000 cases of each kind take
    // about a second on one core.
    #![proptest_config(ProptestConfig {
        cases: 10000,
        max_shrink_iters: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn damaged_waveforms_give_a_verdict_or_one_error_line(
        which in 0usize..2,
        damages in proptest::collection::vec(damage(), 1..4),
    ) {
        let refs = references();
        let (text, reference) = &refs[which];
        let mut bytes = text.as_bytes().to_vec();
        for d in &damages {
            bytes = apply(&bytes, d);
        }
        compare_both_ways(&bytes, reference);
    }

    #[test]
    fn random_bytes_give_one_error_line(
        start_as_vcd in any::<bool>(),
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
    ) {
        let refs = references();
        let mut input = if start_as_vcd { b"$".to_vec() } else { Vec::new() };
        input.extend(bytes);
        compare_both_ways(&input, &refs[0].1);
    }
}
