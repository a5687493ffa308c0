//! `--json FILE` of `cosim`, `model` and `selftest`: every kind of record validates against
//! docs/run.schema.json (the documented schema, docs/results.md), and its figures are the
//! summary's. A record the schema must refuse is refused, so the check can fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn idemnet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args(args)
        .output()
        .expect("the idemnet binary runs")
}

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/run.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
}

fn work(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `args` with `--json` into `dir`, expects exit `code`, and returns the record, checked
/// against the schema.
fn record(dir: &Path, name: &str, args: &[&str], code: i32) -> Value {
    let f = dir.join(format!("{name}.json"));
    let mut argv = args.to_vec();
    argv.extend(["--json", f.to_str().unwrap()]);
    let o = idemnet(&argv);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{argv:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let errors: Vec<String> = schema().iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{v:#}");
    assert_eq!(v["passed"], code == 0, "{name}");
    v
}

#[test]
fn model_records_validate_and_carry_the_summary() {
    let d = work("results-model");
    let v = record(
        &d,
        "fabric",
        &["model", "--cycles", "5000", "--seed", "7"],
        0,
    );
    assert_eq!(
        (v["block"].as_str(), v["seed"].as_u64()),
        (Some("fabric"), Some(7))
    );
    assert!(v["figures"]["worms_delivered"].as_u64().unwrap() > 100);
    let v = record(&d, "ni", &["model", "--block", "ni", "--cycles", "3000"], 0);
    assert!(
        v["figures"]["block"]["datagrams delivered to the host"]
            .as_u64()
            .unwrap()
            > 0
    );
    let v = record(
        &d,
        "system",
        &[
            "model",
            "--block",
            "system",
            "--protocol",
            "both",
            "--cycles",
            "3000",
            "--loss",
            "0.001",
        ],
        0,
    );
    let idem = &v["figures"]["idempotent"];
    assert!(idem["sent"].as_u64().unwrap() > 0);
    assert_eq!(idem["sent"], idem["delivered"]);
    assert_eq!(v["settings"]["loss_threshold"], 66);
    assert!(v["version"].as_str().unwrap().contains("(commit "));
    // A baseline (§15) records its own protocol's figures.
    for protocol in ["parastation", "unet"] {
        let v = record(
            &d,
            protocol,
            &[
                "model",
                "--block",
                "system",
                "--protocol",
                protocol,
                "--cycles",
                "5000",
                "--loss",
                "0.001",
                "--dgram-len",
                "32",
            ],
            0,
        );
        let f = &v["figures"][protocol];
        assert!(f["sent"].as_u64().unwrap() > 100, "{v:#}");
        assert_eq!(f["sent"], f["delivered"]);
        assert_eq!(v["settings"]["dgram_len"], 32);
    }
}

/// `--to-one N` with `--protocol idempotent` sends the datagrams to node N (it once left them
/// uniform, silently): 15 senders share node 0's one link, so their median latency is many
/// times the uniform traffic's at the same load, and every datagram still arrives (the hot spot
/// whose fixed retries could livelock, docs/protocol.md §8.7).
#[test]
fn datagrams_to_one_node_share_its_link() {
    let d = work("results-to-one");
    let run = |name: &str, extra: &[&str]| {
        let mut args = vec![
            "model",
            "--block",
            "system",
            "--protocol",
            "idempotent",
            "--load",
            "0.5",
            "--cycles",
            "20000",
            "--drain",
            "50000",
        ];
        args.extend(extra);
        record(&d, name, &args, 0)
    };
    let uniform = run("uniform", &[]);
    let hot = run("to-one", &["--to-one", "0"]);
    assert_eq!(hot["settings"]["to_one"], 0);
    let median = |v: &Value| {
        v["figures"]["idempotent"]["latency"]["p50"]
            .as_u64()
            .unwrap()
    };
    assert!(median(&hot) > 10 * median(&uniform), "{hot:#}\n{uniform:#}");
    let f = &hot["figures"]["idempotent"];
    assert!(f["sent"].as_u64().unwrap() > 500, "{hot:#}");
    assert_eq!((&f["sent"], &f["lost"]), (&f["delivered"], &Value::from(0)));
}

#[test]
fn cosim_records_validate_with_and_without_a_mismatch() {
    let d = work("results-cosim");
    let v = record(&d, "pass", &["cosim", "--cycles", "2000", "--quiet"], 0);
    assert!(v["lockstep"]["mismatch"].is_null());
    assert!(v["lockstep"]["comparisons"].as_u64().unwrap() > 0);
    // The README's mutant (an inverted down-port busy check) gives a mismatch record.
    let o = idemnet(&["verilog", "--out", d.to_str().unwrap()]);
    assert!(o.status.success());
    let fabric = d.join("fabric.v");
    let v = std::fs::read_to_string(&fabric).unwrap();
    let m = v.replacen("(first_request$0 & ~held)", "(first_request$0 & held)", 1);
    assert_ne!(m, v);
    std::fs::write(&fabric, m).unwrap();
    let waves = d.join("waves");
    let v = record(
        &d,
        "mismatch",
        &[
            "cosim",
            "--cycles",
            "3000",
            "--load",
            "0.7",
            "--quiet",
            "--verilog",
            fabric.to_str().unwrap(),
            "--mismatch-waves",
            waves.to_str().unwrap(),
        ],
        1,
    );
    // Without --vcd, the mismatch left the waveforms of its last 500 cycles, re-run from the
    // seed: they end at the mismatch's cycle and the two agree up to the cycle before it.
    let w = v["lockstep"]["mismatch_waveforms"].as_array().unwrap();
    assert_eq!(
        w[0].as_str().unwrap(),
        waves.join("rtl.vcd").to_str().unwrap()
    );
    let m = &v["lockstep"]["mismatch"];
    let cycle = m["cycle"].as_u64().unwrap();
    let o = idemnet(&["wavediff", w[1].as_str().unwrap(), w[0].as_str().unwrap()]);
    let diff = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{diff}");
    assert!(
        diff.contains(&format!(
            "both cover {} ns .. {} ns",
            10 * cycle.saturating_sub(499),
            10 * cycle + 5
        )),
        "{diff}"
    );
    assert!(diff.contains(&format!("(cycle {cycle})")), "{diff}");
    assert!(m["port"].as_str().unwrap().starts_with("node_out"), "{m}");
    assert!(v["first_error"]
        .as_str()
        .unwrap()
        .contains(m["port"].as_str().unwrap()));
}

#[test]
fn selftest_records_validate() {
    let d = work("results-selftest");
    let v = record(&d, "selftest", &["selftest", "--cycles", "200000"], 0);
    let f = &v["figures"];
    assert_eq!(f["image"], f["scoreboard"]);
    assert!(f["image"]["delivered"].as_u64().unwrap() > 0);
    assert!(v["seed"].is_null());
}

#[test]
fn the_schema_refuses_what_it_must() {
    let d = work("results-refused");
    let v = record(&d, "fabric", &["model", "--cycles", "1000"], 0);
    let s = schema();
    let broken = |f: &dyn Fn(&mut Value)| {
        let mut w = v.clone();
        f(&mut w);
        assert!(!s.is_valid(&w), "{w:#}");
    };
    broken(&|w| {
        w.as_object_mut().unwrap().remove("figures");
    });
    broken(&|w| w["figures"]["flits_sent"] = Value::from(-1));
    broken(&|w| w["schema"] = Value::from("idemnet-run/2"));
    broken(&|w| w["subcommand"] = Value::from("sweep"));
    broken(&|w| w["unexpected"] = Value::from(1));
}
