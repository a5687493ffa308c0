//! The command line as people expect it: every subcommand's help ends with an example, the
//! version names the commit, shell completions and man pages are generated, and the licence
//! files agree with Cargo.toml's.

use std::path::Path;
use std::process::{Command, Output};

fn idemnet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args(args)
        .output()
        .expect("the idemnet binary runs")
}

const SUBCOMMANDS: &[&str] = &[
    "verilog",
    "cosim",
    "model",
    "replay",
    "fpga",
    "selftest",
    "sweep",
    "wavediff",
    "wave",
    "completions",
    "manpages",
];

#[test]
fn every_subcommand_shows_an_example_whose_files_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for sub in SUBCOMMANDS {
        let o = idemnet(&[sub, "--help"]);
        assert!(o.status.success(), "{sub}");
        let help = String::from_utf8_lossy(&o.stdout);
        let at = help
            .find("Example")
            .unwrap_or_else(|| panic!("{sub} --help has no example:\n{help}"));
        assert!(
            help[at..].contains(&format!("idemnet {sub}")),
            "{sub}: {help}"
        );
        // A shipped file an example names is there.
        for word in help[at..].split_whitespace() {
            if word.starts_with("testbench/") {
                assert!(root.join(word).is_file(), "{sub}: {word}");
            }
        }
    }
    // The root help lists them all.
    let help = String::from_utf8_lossy(&idemnet(&["--help"]).stdout).into_owned();
    for sub in SUBCOMMANDS {
        assert!(
            help.contains(&format!("  {sub} ")),
            "{sub} missing from --help"
        );
    }
}

#[test]
fn the_version_names_the_commit() {
    let o = idemnet(&["--version"]);
    let v = String::from_utf8_lossy(&o.stdout);
    assert!(
        v.starts_with(&format!("idemnet {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
}

#[test]
fn completions_and_man_pages_are_generated() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = idemnet(&["completions", shell]);
        assert!(o.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("idemnet") && text.contains("sweep"),
            "{shell}"
        );
    }
    let o = idemnet(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let o = idemnet(&["manpages", "--out", dir.path().to_str().unwrap()]);
    assert!(o.status.success());
    let page = std::fs::read_to_string(dir.path().join("idemnet.1")).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH idemnet"),
        "{}",
        &page[..200]
    );
    for sub in SUBCOMMANDS {
        let page = std::fs::read_to_string(dir.path().join(format!("idemnet-{sub}.1"))).unwrap();
        assert!(page.contains(&format!(".TH idemnet-{sub}")), "{sub}");
    }
}

#[test]
fn the_licence_files_agree_with_cargo_toml() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |f: &str| std::fs::read_to_string(root.join(f)).unwrap();
    assert!(read("Cargo.toml").contains("license = \"Apache-2.0\""));
    assert!(read("LICENSE").contains("Apache License\n                           Version 2.0"));
    let cff = read("CITATION.cff");
    assert!(cff.contains("cff-version: 1.2.0") && cff.contains("license: Apache-2.0"));
    assert!(cff.contains(&format!("version: {}", env!("CARGO_PKG_VERSION"))));
}
