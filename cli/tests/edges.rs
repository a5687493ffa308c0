//! The command's contract at its edges, run as a user runs it: exit 0 success, 1 a difference
//! found, 2 bad input with one line naming what was wrong; no panic, no hang, no wrong verdict.
//! Each test is one of the ways the contract was found broken (issue 14), with the command
//! that broke it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Waits for `child` at most `limit`; a run that takes longer is killed and fails the test, so
/// a hang shows as a failure, not as a stuck CI.
fn finish(mut child: Child, limit: Duration, what: &str) -> Output {
    let t0 = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn idemnet(args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the idemnet binary runs");
    finish(child, Duration::from_secs(120), &args.join(" "))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit 2 and exactly one line on stderr that contains `needle`.
fn refused(args: &[&str], needle: &str) {
    let o = idemnet(args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {e}{}", stdout(&o));
    assert_eq!(e.lines().count(), 1, "{args:?}: not one line: {e}");
    assert!(e.starts_with("idemnet: error: "), "{args:?}: {e}");
    assert!(e.contains(needle), "{args:?}: `{needle}` not in: {e}");
}

#[test]
fn cycle_counts_that_would_wrap_are_refused_not_run() {
    // Was: cycles + drain wrapped, the run stopped at cycle 1999 and reported 46 datagrams lost
    // on a fault-free network (exit 1); and --cycles 2^64-1 ran 199,999 cycles and passed.
    refused(
        &[
            "cosim", "--block", "system", "--cycles", "2000", "--seed", "3", "--load", "0.3",
        ]
        .iter()
        .copied()
        .chain(["--drain", "18446744073709551615", "--quiet"])
        .collect::<Vec<_>>(),
        "--drain",
    );
    refused(
        &[
            "cosim",
            "--block",
            "system",
            "--cycles",
            "18446744073709551615",
            "--quiet",
        ],
        "from 1 to 1000000000000",
    );
    refused(&["model", "--cycles", "0"], "--cycles");
    refused(
        &["model", "--block", "system", "--dgram-len", "33"],
        "--dgram-len 33",
    );
    refused(
        &["model", "--block", "fabric", "--dgram-len", "8"],
        "--dgram-len",
    );
    refused(&["selftest", "--cycles", "1000000000001"], "--cycles");
}

#[test]
fn placement_seeds_nextpnr_cannot_read_are_refused_before_any_tool_runs() {
    for bad in ["0", "-1", "2147483648", "one"] {
        refused(
            &[
                "fpga", "--board", "ecp5-85k", "--design", "switch", "--seed", bad,
            ],
            "from 1 to 2147483647",
        );
    }
}

#[test]
fn options_the_block_does_not_use_are_errors() {
    refused(
        &["model", "--block", "fabric", "--loss", "0.1"],
        "--loss does not apply",
    );
    refused(
        &["cosim", "--block", "ni", "--k", "3", "--n", "0"],
        "--k does not apply",
    );
    refused(
        &["cosim", "--block", "rmpp-rx", "--drain", "10"],
        "--drain does not apply",
    );
    refused(
        &["cosim", "--load", "-0.1"],
        "'-0.1' for '--load <LOAD>': must be a number from 0 to 1",
    );
    refused(&["model", "--seed", "-1"], "--seed");
    refused(
        &["model", "--block", "fabric", "--rmpp-in-order"],
        "--rmpp-in-order does not apply",
    );
    refused(
        &["model", "--block", "ni", "--n", "3"],
        "--n does not apply",
    );
    refused(
        &["model", "--block", "rmpp-rx"],
        "runs the fabric, the NI or the system",
    );
}

/// The NI options' help names the defaults a run without them gets: the ACK interval's line
/// said 64 for a release after the default became 32 (docs/protocol.md §8.7).
#[test]
fn the_nis_options_name_their_true_defaults() {
    let d = idemnet_model::ni::NiConfig::DEFAULT;
    for command in ["model", "cosim", "sweep"] {
        let help = stdout(&idemnet(&[command, "--help"]));
        let line = |option: &str| -> String {
            let start = help
                .find(&format!("--{option} <"))
                .unwrap_or_else(|| panic!("{command} --help names --{option}"));
            help[start..]
                .split("\n  -")
                .next()
                .unwrap_or_default()
                .to_string()
        };
        for (option, value) in [
            ("send-slots", d.send_slots.to_string()),
            ("recv-slots", d.recv_slots.to_string()),
            ("retry-interval", d.retry_interval.to_string()),
            ("ack-interval", d.ack_interval.to_string()),
        ] {
            let text = line(option);
            assert!(
                text.contains(&format!("(default {value})")),
                "{command} --help, --{option}: {text:?} does not say (default {value})"
            );
        }
        let spread = idemnet_model::ni::NiConfig::spread_for(d.retry_interval);
        assert_eq!(spread, d.retry_spread, "the default spread is the rule's");
        assert!(line("retry-spread").contains(&format!("{spread} for {}", d.retry_interval)));
    }
}

#[test]
fn the_nis_parameters_are_checked_named_and_used() {
    for (args, needle) in [
        (
            &["--send-slots", "17"][..],
            "--send-slots = 17: must be in 1..=16",
        ),
        (&["--recv-slots", "0"], "--recv-slots = 0"),
        (&["--retry-interval", "0"], "--retry-interval = 0"),
        (&["--retry-interval", "65536"], "--retry-interval"),
        (
            &["--retry-spread", "3"],
            "--retry-spread = 3: must be 0 or a power of two",
        ),
        (
            &["--retry-interval", "64", "--retry-spread", "128"],
            "at most retry-interval (64)",
        ),
        (&["--ack-interval", "-1"], "--ack-interval"),
    ] {
        let mut a = vec!["model", "--block", "system", "--cycles", "10"];
        a.extend_from_slice(args);
        refused(&a, needle);
    }
    refused(
        &["model", "--block", "fabric", "--send-slots", "2"],
        "--send-slots does not apply",
    );
    refused(
        &["cosim", "--block", "rmpp-rx", "--ack-interval", "8"],
        "--ack-interval does not apply",
    );
    let run = |extra: &[&str]| {
        let mut a = vec![
            "model", "--block", "system", "--cycles", "20000", "--load", "0.3", "--seed", "4",
        ];
        a.extend_from_slice(extra);
        let o = idemnet(&a);
        assert_eq!(o.status.code(), Some(0), "{a:?}: {}", stderr(&o));
        stdout(&o)
    };
    let (default, one) = (
        run(&[]),
        run(&["--send-slots", "1", "--retry-interval", "64"]),
    );
    assert!(
        !default.lines().next().unwrap().contains("NIs:"),
        "{default}"
    );
    // The spread follows the retry interval given alone: an eighth of 64.
    assert!(
        one.lines()
            .next()
            .unwrap()
            .contains("(NIs: send slots 1, receive slots 8, retry 64 spread 8, ack 32)"),
        "{one}"
    );
    let retransmissions = |out: &str| {
        out.lines()
            .find(|l| l.contains("retransmissions"))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("{out}"))
    };
    assert_ne!(retransmissions(&default), retransmissions(&one));
}

/// The value of the figure line `  name: value` of a run's output.
fn figure(out: &str, name: &str) -> u64 {
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("  {name}: ")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no figure `{name}`: {out}"))
}

#[test]
fn the_ni_runs_alone_on_the_model_and_its_peers_judge_what_its_host_sees() {
    let o = idemnet(&[
        "model", "--block", "ni", "--cycles", "100000", "--load", "0.5",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("  scoreboard 0 errors"), "{out}");
    let (taken, refused) = (
        figure(&out, "requests taken whole"),
        figure(&out, "requests refused (not well formed)"),
    );
    assert!(taken > 1000 && refused > 20, "{out}");
    assert!(
        figure(&out, "datagrams delivered to the host") > 1000,
        "{out}"
    );
    // A request is counted when its refusing beat is taken, the peers count it at its last.
    let counted = figure(&out, "cnt_host_error");
    assert!((refused..=refused + 1).contains(&counted), "{out}");
}

#[test]
fn trees_beyond_the_engines_are_refused_with_the_reason() {
    // Was: an unbounded allocation and an abort with a backtrace.
    let out = std::env::temp_dir().join(format!("idemnet-edges-{}", std::process::id()));
    refused(
        &[
            "verilog",
            "--out",
            out.to_str().unwrap(),
            "--k",
            "2",
            "--n",
            "16",
        ],
        "MB of Verilog",
    );
    assert!(!out.exists(), "nothing is written for a refused tree");
    refused(
        &["model", "--block", "system", "--k", "2", "--n", "16"],
        "at most 256",
    );
}

#[test]
fn a_closed_pipe_ends_the_run_quietly_and_a_full_device_is_bad_input() {
    // Was: exit 101, "failed printing to stdout".
    let mut child = Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args(["model", "--cycles", "3000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("idemnet model:"), "{first}");
    // The reader is gone: the next line the run prints meets a closed pipe.
    let o = finish(child, Duration::from_secs(120), "model | head -1");
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "a closed pipe ends the run quietly");

    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let child = Command::new(env!("CARGO_BIN_EXE_idemnet"))
            .args(["model", "--cycles", "1000"])
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = finish(child, Duration::from_secs(60), "model > /dev/full");
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains("cannot write to standard output"), "{e}");
    }
}

#[test]
fn emitted_files_are_whole_even_when_the_output_fails() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("idemnet-whole-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let child = Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args([
            "verilog",
            "--out",
            dir.to_str().unwrap(),
            "--k",
            "2",
            "--n",
            "1",
        ])
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = finish(child, Duration::from_secs(120), "verilog > /dev/full");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Whatever is there is byte for byte what a run with a working output writes.
    let good = dir.with_extension("good");
    let o = idemnet(&[
        "verilog",
        "--out",
        good.to_str().unwrap(),
        "--k",
        "2",
        "--n",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        let reference = std::fs::read(good.join(name))
            .unwrap_or_else(|_| panic!("{} is not a file verilog writes", path.display()));
        assert!(
            std::fs::read(&path).unwrap() == reference,
            "{} is not whole",
            path.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&good);
}

/// The verdict line of a model run: `  scoreboard N errors, the first: ...`.
fn verdict(out: &str) -> &str {
    out.lines()
        .find(|l| l.starts_with("  scoreboard") && l.contains("the first:"))
        .unwrap_or_else(|| panic!("no verdict: {out}"))
}

#[test]
fn a_cut_off_leaf_is_named_before_the_run_and_in_the_verdict() {
    // Was: a 500,000-cycle drain, then "64 datagrams lost" and nothing about the topology.
    let o = idemnet(&[
        "model",
        "--block",
        "system",
        "--cycles",
        "3000",
        "--load",
        "0.2",
        "--drain",
        "5000",
        "--dead-link",
        "0:0",
        "--dead-link",
        "0:1",
        "--dead-link",
        "0:2",
        "--dead-link",
        "0:3",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let warning = out.lines().nth(1).unwrap_or_default();
    assert!(
        warning.contains("warning: the dead links disconnect 96 of 240 ordered node pairs"),
        "{out}"
    );
    let verdict = verdict(&out);
    assert!(verdict.contains("a limit of the topology"), "{verdict}");
    assert!(!verdict.contains("limits: a defect"), "{verdict}");
}

/// The verdict line of an RMPP-only system run on the golden model at `rmpp_load` and flit
/// `loss`, 20,000 cycles and a drain of 20,000, which must exit 1; with the in-order receivers,
/// whose loss limit the verdict names (docs/protocol.md §12).
fn rmpp_verdict(rmpp_load: &str, loss: &str) -> String {
    let o = idemnet(&[
        "model",
        "--block",
        "system",
        "--protocol",
        "rmpp",
        "--rmpp-in-order",
        "--rmpp-load",
        rmpp_load,
        "--loss",
        loss,
        "--cycles",
        "20000",
        "--drain",
        "20000",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    verdict(&out).to_string()
}

#[test]
fn a_channel_that_lets_too_little_through_is_not_called_a_defect() {
    // Was: "62 datagrams ... lost after the drain; ... nothing was delivered or completed in
    // the drain's last 2000 cycles: a defect", at a flit loss under which a 32-byte SEND
    // crosses four links whole about once in 6 billion tries.
    let o = idemnet(&[
        "model", "--block", "system", "--loss", "0.4", "--cycles", "2000", "--drain", "8000",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let verdict = verdict(&out);
    assert!(
        verdict.contains("in the drain's last 2000 cycles"),
        "{verdict}"
    );
    assert!(verdict.contains("not shown to be a defect"), "{verdict}");
    assert!(!verdict.contains("limits: a defect"), "{verdict}");
    // Lost and corrupted together past 1: the corruption asked for could not happen.
    refused(
        &[
            "model",
            "--block",
            "system",
            "--loss",
            "0.5",
            "--corrupt",
            "0.99999",
        ],
        "loss 0.5 and corrupt 0.99999: together at most 0.99998",
    );
}

#[test]
fn an_output_folder_that_is_a_file_is_named_as_such() {
    // Was: "idemnet: error: /dev/null: File exists (os error 17)".
    refused(
        &[
            "sweep",
            "--loads",
            "0.3",
            "--losses",
            "none",
            "--seeds",
            "1",
            "--out",
            "/dev/null",
        ],
        "--out /dev/null: exists and is not a folder",
    );
    refused(
        &["verilog", "--out", "/dev/null"],
        "--out /dev/null: exists and is not a folder",
    );
}

#[test]
fn a_backlog_still_draining_is_not_called_a_defect() {
    // Was: "198 ... below the protocols' limits: a defect", though a longer drain delivers
    // every message (RMPP at this load and loss finishes them at about 10 times its traffic).
    let verdict = rmpp_verdict("0.3", "0.001");
    assert!(verdict.contains("not shown to be a defect"), "{verdict}");
    assert!(!verdict.contains("limits: a defect"), "{verdict}");
}

#[test]
fn rmpp_past_its_loss_limit_is_called_a_protocol_limit() {
    let verdict = rmpp_verdict("0.05", "0.05");
    assert!(
        verdict.contains("documented limit of the protocol"),
        "{verdict}"
    );
    assert!(!verdict.contains("limits: a defect"), "{verdict}");
}
