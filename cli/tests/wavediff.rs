//! `idemnet wavediff` as a user runs it: exit code 0 for equal waveforms, 1 for waveforms that
//! differ (values, signals or time span), 2 with one line naming the file for anything that is
//! not a well-formed waveform, and never the text of a panic.

use std::path::{Path, PathBuf};
use std::process::Command;

use idemnet_model::ports::PortSpec;
use idemnet_model::PortVcd;

fn work() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-wavediff");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// 100 cycles of a small block's ports; `y` has the id code `#`.
fn waveform() -> String {
    let ports = vec![PortSpec::input("a", 8), PortSpec::output("y", 12)];
    let mut v = PortVcd::new(Vec::new(), &ports).unwrap();
    for t in 0..100u64 {
        v.cycle(t, &[t * 7], &[t * 13]).unwrap();
    }
    String::from_utf8(v.writer().clone()).unwrap()
}

struct Verdict {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn wavediff(a: &Path, b: &Path) -> Verdict {
    let o = Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .arg("wavediff")
        .arg(a)
        .arg(b)
        .output()
        .expect("the idemnet binary runs");
    Verdict {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn bad_input(v: &Verdict, says: &[&str]) {
    assert_eq!(v.code, Some(2), "{}{}", v.stdout, v.stderr);
    assert_eq!(v.stderr.lines().count(), 1, "one line: {}", v.stderr);
    assert!(v.stderr.starts_with("idemnet: error: "), "{}", v.stderr);
    for s in says {
        assert!(v.stderr.contains(s), "`{s}` missing: {}", v.stderr);
    }
}

#[test]
fn verdicts_and_exit_codes() {
    let d = work();
    let text = waveform();
    let file = |name: &str, t: &str| {
        let p = d.join(name);
        std::fs::write(&p, t).unwrap();
        p
    };
    let whole = file("whole.vcd", &text);
    let v = wavediff(&whole, &file("copy.vcd", &text));
    assert_eq!(v.code, Some(0), "{}{}", v.stdout, v.stderr);
    assert!(v.stdout.contains("no differences"), "{}", v.stdout);

    let half = file("half.vcd", &text[..text.find("\n#500\n").unwrap() + 1]);
    let v = wavediff(&whole, &half);
    assert_eq!(v.code, Some(1), "{}{}", v.stdout, v.stderr);
    assert!(
        v.stdout
            .contains("A covers 0 ns .. 995 ns, B covers 0 ns .. 495 ns"),
        "{}",
        v.stdout
    );

    let no_y: String = text
        .lines()
        .filter(|l| !l.contains(" y $end") && !l.ends_with(" #"))
        .map(|l| format!("{l}\n"))
        .collect();
    let v = wavediff(&whole, &file("no-y.vcd", &no_y));
    assert_eq!(v.code, Some(1), "{}{}", v.stdout, v.stderr);
    assert!(v.stdout.contains("only in A: y"), "{}", v.stdout);

    let cut = file("cut.vcd", &text[..text.find("\n#500\n").unwrap() + 4]);
    bad_input(&wavediff(&whole, &cut), &["cut.vcd: line ", "truncated"]);

    let narrow = file(
        "narrow.vcd",
        &text.replace("$var wire 12 # y $end", "$var wire 3 # y $end"),
    );
    bad_input(
        &wavediff(&whole, &narrow),
        &["narrow.vcd: line ", "12 bits, but the variable has 3"],
    );

    let undeclared = file("undeclared.vcd", &text.replacen("b000000000000 #", "1%", 1));
    bad_input(
        &wavediff(&undeclared, &whole),
        &["undeclared.vcd: line ", "which no `$var` declares"],
    );

    bad_input(
        &wavediff(Path::new("/dev/null"), &whole),
        &["/dev/null is a character device, not a waveform file"],
    );
}
