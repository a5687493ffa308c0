//! `idemnet replay` as a user runs it (docs/replay.md): exit 0 with the lines, exit 2 with one
//! line naming what is wrong; events far apart in seconds, output as it is made, and memory
//! that does not grow with the output. Each run has a deadline, so a hang fails instead of
//! stalling the suite.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A trace file `name` with `text` in the test's scratch folder.
fn trace_file(name: &str, text: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn start(block: &str, engine: &str, trace: &PathBuf) -> Child {
    Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args(["replay", "--block", block, "--engine", engine])
        .arg(trace)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the idemnet binary runs")
}

/// How a run ended.
struct Ended {
    code: i32,
    stderr: String,
    /// Peak resident memory, kB.
    peak_kb: i64,
}

/// Waits for `child` at most until `deadline` (killing it and failing after that), and reaps
/// it with `wait4` for its peak memory.
fn finish(mut child: Child, deadline: Instant) -> Ended {
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).map(|_| text)
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own child, not yet reaped; the pointers are to live locals.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break;
        }
        assert!(done == 0, "wait4 failed");
        if Instant::now() > deadline {
            let _ = child.kill();
            // SAFETY: as above; reaps the killed child.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            panic!("the replay did not finish by its deadline");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(libc::WIFEXITED(status), "the replay was killed by a signal");
    Ended {
        code: libc::WEXITSTATUS(status),
        stderr: errors.join().expect("the reader").expect("stderr is text"),
        peak_kb: usage.ru_maxrss,
    }
}

/// Runs a replay to its end within `seconds`; returns its stdout and how it ended.
fn replay(block: &str, engine: &str, trace: &PathBuf, seconds: u64) -> (String, Ended) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut child = start(block, engine, trace);
    let mut stdout = child.stdout.take().expect("piped");
    let lines = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let ended = finish(child, deadline);
    (lines.join().expect("the reader").expect("text"), ended)
}

const NI_FAR_APART: &str = r#"{"config": {"node": 5}}
{"cycle": 10, "packet": {"type": "SEND", "src": 2, "dst": 5, "uid": 131073, "data": "deadbeef"}}
{"cycle": 300, "packet": {"type": "FORGET", "src": 2, "dst": 5, "uid": 131073}}
{"cycle": 1000000000000, "send": {"dst": 2, "data": "0badf00d"}}
{"cycle": 1000000000200, "packet": {"type": "ACK", "src": 2, "dst": 5, "uid": 327680}}
{"cycle": 2000000000000, "end": true}
"#;

// No GCH comes: each MSGEND is forgotten at its first repeat, past `gch_timeout`, unseen.
const RMPP_FAR_APART: &str = r#"{"config": {"node": 0, "gch_timeout": 300, "reply_timeout": 1000}}
{"cycle": 10, "packet": {"type": "RTS_LAST", "src": 3, "dst": 0, "msg_id": 7, "len": 8, "msg_num": 1, "data": "0001020304050607"}}
{"cycle": 1000000000000, "packet": {"type": "RTS_LAST", "src": 3, "dst": 0, "msg_id": 8, "len": 4, "msg_num": 2, "data": "01020304"}}
{"cycle": 2000000000000, "end": true}
"#;

#[test]
fn events_10_to_the_12_cycles_apart_finish_in_seconds_on_both_engines() {
    for (block, text, name, lines) in [
        ("ni", NI_FAR_APART, "ni-far-apart.jsonl", 11),
        ("rmpp-rx", RMPP_FAR_APART, "rmpp-far-apart.jsonl", 7),
    ] {
        let path = trace_file(name, text);
        // The RTL's deadline leaves room to Verilate the block when it is not cached yet.
        let (model, ended) = replay(block, "model", &path, 60);
        assert_eq!(ended.code, 0, "{block}: {}", ended.stderr);
        let (rtl, ended) = replay(block, "rtl", &path, 600);
        assert_eq!(ended.code, 0, "{block}: {}", ended.stderr);
        assert_eq!(model, rtl, "{block}: model and RTL differ");
        assert_eq!(model.lines().count(), lines, "{block}:\n{model}");
        let summary = model.lines().last().unwrap_or_default();
        assert!(
            summary.starts_with("{\"summary\":{\"cycles\":2000000000000,"),
            "{block}: {summary}"
        );
    }
}

#[test]
fn a_packet_at_cycle_2_to_the_64_minus_1_is_refused_with_one_line_and_exit_2() {
    for (block, packet) in [
        (
            "ni",
            r#"{"type": "SEND", "src": 2, "dst": 5, "uid": 131073}"#,
        ),
        (
            "rmpp-rx",
            r#"{"type": "GCH", "src": 3, "dst": 0, "msg_id": 7}"#,
        ),
    ] {
        let path = trace_file(
            &format!("{block}-last-cycle.jsonl"),
            &format!("{{\"config\": {{\"node\": 5}}}}\n{{\"cycle\": 18446744073709551615, \"packet\": {packet}}}\n"),
        );
        for engine in ["model", "rtl"] {
            let (stdout, ended) = replay(block, engine, &path, 60);
            assert_eq!(ended.code, 2, "{block} {engine}: {stdout}");
            assert!(stdout.is_empty(), "{block} {engine}: {stdout}");
            assert_eq!(error_lines(&ended.stderr), 1, "{}", ended.stderr);
            for needle in ["line 2", "`cycle`", "2^62"] {
                assert!(ended.stderr.contains(needle), "{needle}: {}", ended.stderr);
            }
        }
    }
}

#[test]
fn a_duplicate_key_is_refused_with_one_line_naming_line_and_key() {
    let path = trace_file(
        "ni-duplicate-key.jsonl",
        "{\"config\": {\"node\": 5}}\n{\"cycle\": 1, \"send\": {\"dst\": 2, \"data\": \"01\", \"dst\": 3}}\n",
    );
    let (stdout, ended) = replay("ni", "model", &path, 60);
    assert_eq!(ended.code, 2, "{stdout}");
    assert_eq!(error_lines(&ended.stderr), 1, "{}", ended.stderr);
    for needle in ["line 2", "duplicate key `dst`"] {
        assert!(ended.stderr.contains(needle), "{needle}: {}", ended.stderr);
    }
}

#[test]
fn lines_come_out_while_a_busy_block_runs_and_a_gap_too_long_to_tick_is_refused() {
    // A datagram never forgotten is acknowledged every 64 cycles for ever.
    let path = trace_file(
        "ni-busy-far.jsonl",
        "{\"config\": {\"node\": 5}}\n\
         {\"cycle\": 10, \"packet\": {\"type\": \"SEND\", \"src\": 2, \"dst\": 5, \"uid\": 131073}}\n\
         {\"cycle\": 1000000000000, \"end\": true}\n",
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut child = start("ni", "model", &path);
    let stdout = child.stdout.take().expect("piped");
    let (send, receive) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut count = 0u64;
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("text");
            if count == 0 {
                let _ = send.send(line);
            }
            count += 1;
        }
        count
    });
    let Ok(first) = receive.recv_timeout(Duration::from_secs(60)) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("no line within 60 s");
    };
    let ended = finish(child, deadline);
    // The SEND's CRC flit (its third) is in cycle 12; it acts and is delivered at the next edge
    // (§8.4).
    assert!(first.starts_with("{\"cycle\":13,"), "{first}");
    assert_eq!(ended.code, 2, "{}", ended.stderr);
    assert_eq!(error_lines(&ended.stderr), 1, "{}", ended.stderr);
    assert!(ended.stderr.contains("2^24"), "{}", ended.stderr);
    let count = reader.join().expect("the reader");
    assert!(count > 200_000, "the lines up to the bound: {count}");
}

#[test]
fn a_10_mb_trace_replays_in_under_64_mb() {
    // 45,000 datagrams, each delivered, acknowledged and forgotten: 10 MB in, 13 MB out.
    let mut text = String::from("{\"config\": {\"node\": 5, \"ack_interval\": 16}}\n");
    for k in 0..45_000u64 {
        let (cycle, uid) = (40 * k, 2 << 16 | (k & 0xFFFF));
        let data = format!("{:064x}", k * 0x9E37_79B9);
        text.push_str(&format!(
            "{{\"cycle\": {cycle}, \"packet\": {{\"type\": \"SEND\", \"src\": 2, \"dst\": 5, \
             \"uid\": {uid}, \"data\": \"{data}\"}}}}\n{{\"cycle\": {}, \"packet\": {{\"type\": \
             \"FORGET\", \"src\": 2, \"dst\": 5, \"uid\": {uid}}}}}\n",
            cycle + 30
        ));
    }
    assert!(text.len() > 10_000_000, "{}", text.len());
    let path = trace_file("ni-10mb.jsonl", &text);
    let (stdout, ended) = replay("ni", "model", &path, 120);
    assert_eq!(ended.code, 0, "{}", ended.stderr);
    assert_eq!(stdout.matches("\"deliver\":{").count(), 45_000);
    assert!(stdout.len() > 10_000_000, "{}", stdout.len());
    assert!(
        ended.peak_kb < 64_000,
        "peak resident memory {} kB",
        ended.peak_kb
    );
}

/// The lines of `stderr` other than a Verilator build's stages (which a build that is not in the
/// cache prints before anything else).
fn error_lines(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| !l.starts_with("idemnet: Verilator build: "))
        .count()
}
