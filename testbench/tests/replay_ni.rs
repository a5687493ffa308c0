//! Replay traces of the NI (shared/conformance format), one per rule of docs/protocol.md §8 that
//! a trace can express, plus the shared examples. Every trace runs on both engines, the golden
//! model and the Verilated RTL, and their outputs must be identical line for line. CRC errors and truncated worms cannot be
//! written in a trace (every trace packet is a whole, correct worm); the model's unit tests and
//! the co-simulation cover them.

use std::path::PathBuf;

use idemnet_cosim::default_cache_dir;
use idemnet_testbench::replay::{replay_ni_model, replay_ni_rtl, NiTrace};
use serde_json::Value;

/// Replays `trace` on the golden model and on the Verilated RTL; both must print the same
/// lines. Returns them.
fn run(trace: &str) -> Vec<Value> {
    let t = NiTrace::parse(trace).unwrap();
    let model = replay_ni_model(&t).unwrap();
    let rtl = replay_ni_rtl(&t, &default_cache_dir()).unwrap();
    assert_eq!(model, rtl, "model and RTL differ on\n{trace}");
    model
}

fn kind<'a>(lines: &'a [Value], k: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l.get(k).is_some()).collect()
}

fn cycle(l: &Value) -> u64 {
    l["cycle"].as_u64().unwrap()
}

fn packets_of(lines: &[Value], ty: &str) -> Vec<(u64, u64)> {
    kind(lines, "packet")
        .into_iter()
        .filter(|l| l["packet"]["type"] == ty)
        .map(|l| (cycle(l), l["packet"]["uid"].as_u64().unwrap()))
        .collect()
}

fn drops(lines: &[Value]) -> Vec<(u64, String)> {
    kind(lines, "drop")
        .into_iter()
        .map(|l| (cycle(l), l["drop"]["reason"].as_str().unwrap().to_string()))
        .collect()
}

fn shared() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance");
    assert!(
        d.is_dir(),
        "shared/conformance must sit beside the repository: {}",
        d.display()
    );
    d
}

#[test]
fn shared_example_delivers_once_and_acks_until_forget() {
    let text = std::fs::read_to_string(shared().join("ni-basic.jsonl")).unwrap();
    let l = run(&text);
    let d = kind(&l, "deliver");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["deliver"]["data"], "deadbeef");
    assert_eq!(drops(&l), vec![(44, "duplicate".to_string())]);
    let acks = packets_of(&l, "ACK");
    assert!(acks.len() >= 4);
    assert!(acks.windows(2).all(|w| w[1].0 - w[0].0 == 64), "{acks:?}");
    assert!(
        acks.iter().all(|&(c, u)| c < 300 && u == 131073),
        "no ACK after FORGET"
    );
    assert_eq!(l.last().unwrap()["summary"]["cycles"], 1000);
    // Deterministic.
    assert_eq!(l, run(&text));
}

#[test]
fn send_is_repeated_until_ack_then_forget_and_a_late_ack_gets_forget_again() {
    let l = run(r#"{"config": {"node": 3, "retry_interval": 50}}
{"cycle": 0, "send": {"dst": 9, "data": "0102030405"}}
{"cycle": 120, "packet": {"type": "ACK", "src": 9, "dst": 3, "uid": 196608}}
{"cycle": 400, "packet": {"type": "ACK", "src": 9, "dst": 3, "uid": 196608}}
{"cycle": 600, "end": true}"#);
    let sends = packets_of(&l, "SEND");
    assert_eq!(sends, vec![(2, 196608), (52, 196608), (102, 196608)]);
    assert_eq!(l.last().unwrap()["summary"]["retransmit"], 2);
    let done = kind(&l, "done");
    assert_eq!(done.len(), 1);
    let forgets = packets_of(&l, "FORGET");
    assert_eq!(forgets.len(), 2, "{l:?}");
    assert_eq!(forgets[0].0, cycle(done[0]));
    assert!(forgets[1].0 > 400);
    assert!(drops(&l).is_empty());
}

#[test]
fn full_receive_table_drops_without_ack_and_the_sender_retry_gets_in_later() {
    let l = run(r#"{"config": {"node": 1, "recv_slots": 1}}
{"cycle": 0, "packet": {"type": "SEND", "src": 4, "dst": 1, "uid": 262144, "data": "aa"}}
{"cycle": 0, "packet": {"type": "SEND", "src": 6, "dst": 1, "uid": 393216, "data": "bb"}}
{"cycle": 100, "packet": {"type": "FORGET", "src": 4, "dst": 1, "uid": 262144}}
{"cycle": 200, "packet": {"type": "SEND", "src": 6, "dst": 1, "uid": 393216, "data": "bb"}}
{"cycle": 300, "end": true}"#);
    assert_eq!(drops(&l), vec![(9, "table_full".to_string())]);
    let acked: Vec<u64> = packets_of(&l, "ACK").into_iter().map(|x| x.1).collect();
    assert!(acked.contains(&262144) && acked.contains(&393216));
    assert!(packets_of(&l, "ACK")
        .iter()
        .all(|&(c, u)| u != 393216 || c > 200));
    assert_eq!(kind(&l, "deliver").len(), 2);
}

#[test]
fn forget_from_a_foreign_node_is_ignored_and_acks_go_on() {
    let l = run(r#"{"config": {"node": 5}}
{"cycle": 0, "packet": {"type": "SEND", "src": 2, "dst": 5, "uid": 131079}}
{"cycle": 20, "packet": {"type": "FORGET", "src": 3, "dst": 5, "uid": 131079}}
{"cycle": 300, "end": true}"#);
    assert_eq!(drops(&l), vec![(23, "not_source".to_string())]);
    assert!(packets_of(&l, "ACK").iter().any(|&(c, _)| c > 200));
}

#[test]
fn malformed_misrouted_and_foreign_uids_are_dropped_by_reason() {
    let l = run(r#"{"config": {"node": 5}}
{"cycle": 0, "packet": {"type": "ACK", "src": 2, "dst": 5, "uid": 327680, "data": "01"}}
{"cycle": 0, "packet": {"type": "SEND", "src": 2, "dst": 5, "uid": 131072, "data": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"}}
{"cycle": 0, "packet": {"type": "SEND", "src": 2, "dst": 6, "uid": 131073}}
{"cycle": 0, "packet": {"type": "SEND", "src": 2, "dst": 5, "uid": 196609}}
{"cycle": 0, "packet": {"type": "ACK", "src": 2, "dst": 5, "uid": 131074}}
{"cycle": 0, "packet": {"type": "FORGET", "src": 2, "dst": 5, "uid": 131075}}
{"cycle": 200, "end": true}"#);
    let reasons: Vec<String> = drops(&l).into_iter().map(|d| d.1).collect();
    assert_eq!(
        reasons,
        [
            "malformed",
            "malformed",
            "misrouted",
            "not_source",
            "not_source",
            "unknown_message"
        ]
    );
    assert!(kind(&l, "deliver").is_empty());
    assert!(kind(&l, "packet").is_empty());
    // Each drop names the packet that caused it.
    let d = kind(&l, "drop");
    assert_eq!(d[2]["drop"]["packet"]["dst"], 6);
}

#[test]
fn a_full_send_table_holds_the_host_until_a_datagram_completes() {
    let l = run(r#"{"config": {"node": 0, "send_slots": 1}}
{"cycle": 0, "send": {"dst": 1, "data": "11"}}
{"cycle": 0, "send": {"dst": 2, "data": "22"}}
{"cycle": 60, "packet": {"type": "ACK", "src": 1, "dst": 0, "uid": 0}}
{"cycle": 200, "end": true}"#);
    let sends = packets_of(&l, "SEND");
    let done = cycle(kind(&l, "done")[0]);
    assert_eq!(sends[0], (2, 0));
    assert_eq!(sends[1].1, 1);
    assert!(sends[1].0 > done, "{sends:?} done {done}");
}

#[test]
fn bad_traces_are_clear_errors_naming_the_line() {
    let bad = [
        (r#"{"config": {"node": 0, "mtu": 4}}"#, "line 1"),
        (
            "{\"config\": {}}\n{\"cycle\": 1, \"packet\": {\"type\": \"RTS\"}}",
            "line 2",
        ),
        (
            "{\"cycle\": 1, \"packet\": {\"type\": \"SEND\", \"msg_id\": 3}}",
            "msg_id",
        ),
        ("{\"cycle\": 1, \"send\": {\"dst\": 99}}", "99"),
        (
            "{\"cycle\": 1, \"send\": {\"dst\": 1, \"data\": \"zz\"}}",
            "hex",
        ),
        ("{\"cycle\": 1}", "line 1"),
        ("not json", "line 1"),
        ("{\"config\": {\"send_slots\": 0}}", "send_slots"),
    ];
    for (text, needle) in bad {
        let e = NiTrace::parse(text).expect_err(text);
        assert!(format!("{e:#}").contains(needle), "{text}: {e:#}");
    }
}
