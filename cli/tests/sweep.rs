//! `idemnet sweep` as a user runs it: a small grid writes its CSV (a row per run, in grid order),
//! its JSON summary (docs/results.md) and six plots, the same on one thread and on two; bad
//! grids get one line and exit 2.

use std::path::Path;
use std::process::{Command, Output};

fn idemnet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args(args)
        .output()
        .expect("the idemnet binary runs")
}

fn sweep(out: &Path, jobs: &str) -> Output {
    idemnet(&[
        "sweep",
        "--out",
        out.to_str().unwrap(),
        "--cycles",
        "3000",
        "--drain",
        "30000",
        "--seeds",
        "1,2",
        "--protocols",
        "idempotent,rmpp",
        "--loads",
        "0.05,0.3",
        "--losses",
        "0.01",
        "--jobs",
        jobs,
    ])
}

#[test]
fn a_small_grid_writes_csv_json_and_plots_the_same_on_any_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let o = sweep(&a, "1");
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("36 runs"), "{text}");
    assert!(text.contains("PASS"), "{text}");
    // Not a terminal: a plain progress line per run on standard error.
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.lines().filter(|l| l.starts_with('[')).count(),
        36,
        "{err}"
    );
    assert!(err.contains("[36/36,"), "{err}");

    let csv = std::fs::read_to_string(a.join("sweep.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 1 + 36);
    assert!(rows[0].starts_with("study,protocol,pattern,load,loss,seed,cycles,sent,"));
    assert!(
        rows[1].starts_with("load,idempotent,uniform,0.05,0.0,1,3000,"),
        "{}",
        rows[1]
    );
    assert!(
        rows[36].starts_with("loss,rmpp,complement,0.05,0.0099945068359375,2,3000,"),
        "{}",
        rows[36]
    );

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], "idemnet-sweep/1");
    assert_eq!(json["runs"], 36);
    assert_eq!(json["grid"]["seeds"], serde_json::json!([1, 2]));
    let means = json["means"].as_array().unwrap();
    assert_eq!(means.len(), 18);
    assert_eq!(means[0]["seeds"], 2);
    assert!(means[0]["goodput_flits"].as_f64().unwrap() > 0.0);
    assert!(json["version"].as_str().unwrap().contains("commit"));

    for f in ["goodput-vs-load", "latency-vs-load", "goodput-vs-loss"] {
        let png = std::fs::read(a.join(format!("{f}.png"))).unwrap();
        assert_eq!(&png[1..4], b"PNG", "{f}");
        let svg = std::fs::read_to_string(a.join(format!("{f}.svg"))).unwrap();
        assert!(
            svg.contains("<svg") && svg.contains("idempotent") && svg.contains("rmpp"),
            "{f}"
        );
    }

    let o = sweep(&b, "2");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(b.join("sweep.csv")).unwrap(), csv);
    assert_eq!(
        std::fs::read(b.join("goodput-vs-load.png")).unwrap(),
        std::fs::read(a.join("goodput-vs-load.png")).unwrap()
    );
}

#[test]
fn bad_grids_get_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for (args, needle) in [
        (&["--losses", "0.000001"][..], "below 1/65536"),
        (&["--loads", "0.1,1.5"], "`1.5`"),
        (&["--seeds", "1,x"], "`x`: not a seed"),
        (
            &["--patterns", "tornado"],
            "expected one of uniform, to-one, complement",
        ),
        (&["--protocols", ""], "--protocols"),
        (&["--jobs", "0"], "--jobs"),
        (&["--loads", "none", "--losses", "none"], "nothing to run"),
        (&["--k", "3"], "k"),
        (&["--max-len", "4096"], "--max-len 4096"),
    ] {
        let mut argv = vec!["sweep", "--out", out];
        argv.extend_from_slice(args);
        let o = idemnet(&argv);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
