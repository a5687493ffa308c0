//! A `--verilog` file that Verilator rejects, run as a user would: one error line that names
//! the user's file at the line Verilator complains about, and a log of Verilator's whole
//! output that still exists after the run (the temporary build folder does not).

use std::path::PathBuf;
use std::process::Command;

fn work() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verilog-rejected");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn verilog_that_verilator_rejects_is_one_line_naming_the_file() {
    let d = work();
    let bad = d.join("bad.v");
    std::fs::write(
        &bad,
        "module top(input clock);\n  wire a;\n  assign a = ;\nendmodule\n",
    )
    .unwrap();
    let shown = bad.display().to_string();
    for args in [
        vec!["cosim", "--block", "router", "--cycles", "10", "--quiet"],
        vec!["selftest", "--cycles", "10"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_idemnet"))
            .args(&args)
            .arg("--verilog")
            .arg(&bad)
            .output()
            .expect("the idemnet binary runs");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| {
                !l.starts_with("idemnet selftest: ") && !l.starts_with("idemnet: Verilator build: ")
            })
            .collect();
        assert_eq!(errors.len(), 1, "one line: {stderr}");
        let line = errors[0];
        assert!(
            line.starts_with(&format!(
                "idemnet: error: {shown}: Verilator rejects it: {shown}:3:14: Error: syntax error"
            )),
            "{line}"
        );
        assert!(!line.contains(".tmp-"), "names the temporary copy: {line}");
        let log = line
            .rsplit_once("whole output: ")
            .map(|(_, l)| l.trim_end_matches(')'))
            .unwrap_or_else(|| panic!("no log named: {line}"));
        let log = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{log}: {e}"));
        assert!(
            log.contains("assign a = ;") && log.contains(&shown),
            "{log}"
        );
    }
}
