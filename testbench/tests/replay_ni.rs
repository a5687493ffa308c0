//! Replay traces of the NI (format: docs/replay.md), one per rule of docs/protocol.md §8 that a
//! trace can express, plus the project's example traces in `testbench/traces`. Every trace runs on both engines, the
//! golden model and the Verilated RTL, and their outputs must be identical line for line. CRC
//! errors and truncated worms cannot be written in a trace (every trace packet is a whole,
//! correct worm); the model's unit tests and the co-simulation cover them.

mod replay_common;

use std::cell::Cell;
use std::rc::Rc;

use idemnet_model::lfsr::{ni_seed, step};
use idemnet_model::ni::Ni;
use idemnet_testbench::replay::{replay_ni, replay_ni_on, Engine, Idle, NiTrace};
use idemnet_testbench::{ClockedDut, ModelDut};
use replay_common::{cycle, example, kind, lines, ni_both, within};
use serde_json::Value;

/// Replays `trace` on both engines; returns their lines.
fn run(trace: &str) -> Vec<Value> {
    lines(&ni_both(trace, trace))
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

#[test]
fn example_delivers_once_and_acks_until_forget() {
    let text = example("ni-basic.jsonl");
    let l = run(&text);
    let d = kind(&l, "deliver");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["deliver"]["data"], "deadbeef");
    assert_eq!(drops(&l), vec![(43, "duplicate".to_string())]);
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
    // Five bytes are two beats, taken in cycles 1 and 2 (req_ready rises after edge 0): the
    // SEND is due from edge 2, picked at edge 3 and starts in cycle 4 (docs/protocol.md §8.5).
    // It repeats `50 - 2 + r` cycles after each start: the trace's spread is an eighth of its
    // interval rounded down to a power of two, 4, and `r` the low two bits of node 3's retry
    // LFSR, which steps at each SEND's start.
    let (first, second) = (ni_seed(3), step(ni_seed(3)));
    let at = [
        4,
        4 + 48 + u64::from(first & 3),
        4 + 96 + u64::from(first & 3) + u64::from(second & 3),
    ];
    assert_eq!(sends, at.map(|t| (t, 196608)).to_vec());
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
fn a_delivery_streams_eight_beats_and_refuses_a_send_until_its_last() {
    let long = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    let l = run(&format!(
        r#"{{"config": {{"node": 5}}}}
{{"cycle": 0, "packet": {{"type": "SEND", "src": 2, "dst": 5, "uid": 131073, "data": "{long}"}}}}
{{"cycle": 0, "packet": {{"type": "SEND", "src": 3, "dst": 5, "uid": 196609}}}}
{{"cycle": 40, "packet": {{"type": "SEND", "src": 4, "dst": 5, "uid": 262145, "data": "ab"}}}}
{{"cycle": 300, "end": true}}"#
    ));
    // The 32-byte SEND is 11 flits, its CRC flit in cycle 10: it acts at the next edge
    // (docs/protocol.md §8.4), so its delivery shows its first beat in cycle 11 and its last in
    // 18. The empty SEND behind it (3 flits), its CRC flit in cycle 13, acts in cycle 14 while
    // the delivery still streams: refused, as table_full (the drop names its CRC flit's cycle);
    // its sender would repeat it.
    let delivered: Vec<(u64, u64, String)> = kind(&l, "deliver")
        .into_iter()
        .map(|d| {
            let data = d["deliver"]["data"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            (cycle(d), d["deliver"]["uid"].as_u64().unwrap(), data)
        })
        .collect();
    let want = vec![
        (11, 131073, long.to_string()),
        (44, 262145, "ab".to_string()),
    ];
    assert_eq!(delivered, want);
    assert_eq!(drops(&l), vec![(13, "table_full".to_string())]);
}

#[test]
fn full_receive_table_drops_without_ack_and_the_sender_retry_gets_in_later() {
    let l = run(r#"{"config": {"node": 1, "recv_slots": 1}}
{"cycle": 0, "packet": {"type": "SEND", "src": 4, "dst": 1, "uid": 262144, "data": "aa"}}
{"cycle": 0, "packet": {"type": "SEND", "src": 6, "dst": 1, "uid": 393216, "data": "bb"}}
{"cycle": 100, "packet": {"type": "FORGET", "src": 4, "dst": 1, "uid": 262144}}
{"cycle": 200, "packet": {"type": "SEND", "src": 6, "dst": 1, "uid": 393216, "data": "bb"}}
{"cycle": 300, "end": true}"#);
    assert_eq!(drops(&l), vec![(7, "table_full".to_string())]);
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
{"cycle": 20, "packet": {"type": "FORGET", "src": 3, "dst": 5, "uid": 196615}}
{"cycle": 300, "end": true}"#);
    // Node 3's FORGET of the same counter names node 3's uid (docs/protocol.md §8.1): held by
    // no receive slot. Its CRC flit is the third, in cycle 22.
    assert_eq!(drops(&l), vec![(22, "unknown_message".to_string())]);
    assert!(packets_of(&l, "ACK").iter().any(|&(c, _)| c > 200));
}

#[test]
fn malformed_misrouted_and_unknown_uids_are_dropped_by_reason() {
    let l = run(r#"{"config": {"node": 5}}
{"cycle": 0, "packet": {"type": "ACK", "src": 2, "dst": 5, "uid": 327680, "data": "01"}}
{"cycle": 0, "packet": {"type": "SEND", "src": 2, "dst": 5, "uid": 131072, "data": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"}}
{"cycle": 0, "packet": {"type": "SEND", "src": 2, "dst": 6, "uid": 131073}}
{"cycle": 0, "packet": {"type": "FORGET", "src": 2, "dst": 5, "uid": 131075}}
{"cycle": 200, "end": true}"#);
    let reasons: Vec<String> = drops(&l).into_iter().map(|d| d.1).collect();
    assert_eq!(
        reasons,
        ["malformed", "malformed", "misrouted", "unknown_message"]
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
    assert_eq!(sends[0], (3, 0));
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
        // A uid whose owner the wire cannot carry (docs/protocol.md §8.1).
        (
            "{\"cycle\": 0, \"packet\": {\"type\": \"SEND\", \"src\": 2, \"dst\": 5, \"uid\": 196609}}",
            "uid 196609 belongs to node 3, but a SEND's uid belongs to its `src` (2)",
        ),
        (
            "{\"cycle\": 0, \"packet\": {\"type\": \"ACK\", \"src\": 2, \"dst\": 5, \"uid\": 131074}}",
            "an ACK's uid belongs to its `dst` (5)",
        ),
    ];
    for (text, needle) in bad {
        let e = NiTrace::parse(text).expect_err(text);
        assert!(format!("{e:#}").contains(needle), "{text}: {e:#}");
    }
}

#[test]
fn a_gap_of_10_to_the_12_idle_cycles_is_skipped_on_both_engines() {
    let l = within(300, || run(&example("ni-idle-gap.jsonl")));
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(summary["cycles"], (1u64 << 62) - 1);
    let acks = packets_of(&l, "ACK");
    assert_eq!(acks.len(), 12, "{acks:?}");
    assert_eq!(acks[5], (1_000_000_000_006, 131074));
    let sends = packets_of(&l, "SEND");
    // The NI's first SEND draws the retry LFSR's power-on value (docs/protocol.md §8.5): it
    // has not stepped through the 10^15 cycles before, skipped or not.
    let repeat = 120 + u64::from(ni_seed(5) & 15);
    assert_eq!(
        sends,
        vec![
            (1_000_000_000_000_002, 327680),
            (1_000_000_000_000_002 + repeat, 327680)
        ]
    );
    assert_eq!(cycle(kind(&l, "done")[0]), 1_000_000_000_000_205);
}

#[test]
fn skipping_settled_cycles_prints_what_ticking_every_cycle_prints() {
    // Gaps that end while a SEND is still being repeated, while an ACK is, just after the
    // timers of free slots have run out, and long after; with and without `end`.
    let busy_and_settled = r#"{"config": {"node": 5, "ack_interval": 300, "retry_interval": 40, "recv_slots": 2}}
{"cycle": 0, "send": {"dst": 2, "data": "01"}}
{"cycle": 3000, "packet": {"type": "ACK", "src": 2, "dst": 5, "uid": 327680}}
{"cycle": 3100, "packet": {"type": "SEND", "src": 1, "dst": 5, "uid": 65537, "data": "aabb"}}
{"cycle": 50000, "packet": {"type": "FORGET", "src": 1, "dst": 5, "uid": 65537}}
{"cycle": 50001, "packet": {"type": "ACK", "src": 2, "dst": 5, "uid": 327680}}
{"cycle": 50665, "send": {"dst": 3, "data": ""}}
{"cycle": 200000, "packet": {"type": "ACK", "src": 3, "dst": 5, "uid": 327681}}
{"cycle": 300000, "end": true}"#;
    let without_end = r#"{"config": {"node": 1, "ack_interval": 7, "retry_interval": 9}}
{"cycle": 5, "packet": {"type": "SEND", "src": 4, "dst": 1, "uid": 262144, "data": "aa"}}
{"cycle": 90000, "packet": {"type": "FORGET", "src": 4, "dst": 1, "uid": 262144}}
{"cycle": 180000, "send": {"dst": 4, "data": "0102"}}
{"cycle": 180031, "packet": {"type": "ACK", "src": 4, "dst": 1, "uid": 65536}}"#;
    for text in [
        busy_and_settled,
        without_end,
        &example("ni-basic.jsonl"),
        &example("ni-send.jsonl"),
        // The retry LFSR's state across a skipped gap (docs/protocol.md §8.5).
        &example("ni-retry-spread.jsonl"),
    ] {
        replay_common::skipping_is_exact(text, NiTrace::parse, replay_ni_on);
    }
}

#[test]
fn a_block_still_busy_is_not_ticked_through_a_huge_gap() {
    // A datagram never forgotten is acknowledged every 64 cycles for ever: ticking to cycle
    // 10^12 would print 1.5e10 lines over hours.
    let trace = NiTrace::parse(
        r#"{"config": {"node": 5}}
{"cycle": 10, "packet": {"type": "SEND", "src": 2, "dst": 5, "uid": 131073}}
{"cycle": 1000000000000, "end": true}"#,
    )
    .unwrap();
    let (result, out) = within(120, move || {
        let mut out = vec![];
        let result =
            replay_ni_on(Engine::Model, &trace, Idle::Skip, &mut out).map_err(|e| format!("{e:#}"));
        (result, out)
    });
    let error = result.expect_err("refused");
    assert!(!error.contains('\n'), "{error}");
    for needle in ["still busy", "2^24", "1000000000000", "docs/replay.md"] {
        assert!(error.contains(needle), "{needle}: {error}");
    }
    let l = lines(&out);
    assert!(l.len() > 200_000, "the lines up to the bound are printed");
    assert!(kind(&l, "summary").is_empty());
}

#[test]
fn lines_are_written_while_the_block_runs() {
    struct Counting<D> {
        inner: D,
        ticks: Rc<Cell<u64>>,
    }
    impl<D: ClockedDut> ClockedDut for Counting<D> {
        fn ports(&self) -> Vec<idemnet_model::ports::PortSpec> {
            self.inner.ports()
        }
        fn set_inputs(&mut self, words: &[u64]) {
            self.inner.set_inputs(words)
        }
        fn tick(&mut self) {
            self.ticks.set(self.ticks.get() + 1);
            self.inner.tick()
        }
        fn outputs(&mut self, words: &mut [u64]) {
            self.inner.outputs(words)
        }
    }
    /// Notes how many cycles had been ticked when each line was written.
    struct Noting {
        ticks: Rc<Cell<u64>>,
        at: Vec<u64>,
    }
    impl std::io::Write for Noting {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let lines = bytes.iter().filter(|&&b| b == b'\n').count();
            self.at.extend(std::iter::repeat_n(self.ticks.get(), lines));
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let trace = NiTrace::parse(&example("ni-basic.jsonl")).unwrap();
    let ticks = Rc::new(Cell::new(0));
    let mut dut = Counting {
        inner: ModelDut::new(Ni::new(trace.config).unwrap()),
        ticks: ticks.clone(),
    };
    let mut noting = Noting {
        ticks: ticks.clone(),
        at: vec![],
    };
    replay_ni(&mut dut, &trace, Idle::Skip, &mut noting).unwrap();
    // The delivery of cycle 14 is out two cycles after its own (a drop the NI shows up to two
    // cycles after the flit that decided it could come before it), the ACK of cycle 16 when
    // its worm's tail has gone out, the summary only after the last tick.
    assert_eq!(noting.at.len(), 8);
    assert_eq!(noting.at[0], 17, "{:?}", noting.at);
    assert!(noting.at[1] <= 21, "{:?}", noting.at);
    assert_eq!(*noting.at.last().unwrap(), ticks.get());
    assert!(ticks.get() > 300, "{}", ticks.get());
}

#[test]
fn cycles_out_of_bounds_duplicate_keys_and_a_late_end_are_refused_naming_the_line() {
    let bad = [
        (
            "{\"config\": {}}\n{\"cycle\": 18446744073709551615, \"packet\": {\"type\": \"SEND\"}}",
            &["line 2", "`cycle`", "2^62", "18446744073709551615"][..],
        ),
        (
            "{\"cycle\": 4611686018427387904, \"end\": true}",
            &["line 1", "2^62"],
        ),
        ("{\"cycle\": 1e30, \"end\": true}", &["line 1", "2^62"]),
        ("{\"cycle\": -1, \"end\": true}", &["line 1", "`cycle`"]),
        (
            "{\"config\": {}}\n\n{\"cycle\": 3, \"cycle\": 4, \"end\": true}",
            &["line 3", "duplicate key `cycle`"],
        ),
        (
            "{\"config\": {\"node\": 1, \"node\": 2}}",
            &["line 1", "duplicate key `node`"],
        ),
        (
            "{\"cycle\": 3, \"packet\": {\"type\": \"SEND\", \"uid\": 1, \"uid\": 1}}",
            &["line 1", "duplicate key `uid`"],
        ),
        (
            "{\"cycle\": 30, \"send\": {\"dst\": 1}}\n{\"cycle\": 30, \"end\": true}",
            &["line 2", "line 1", "cycle 30"],
        ),
        (
            "{\"cycle\": 1, \"packet\": {\"type\": \"SEND\", \"a\\nb\": 1}}",
            &["line 1", "unknown key `a\\nb`"],
        ),
    ];
    for (text, needles) in bad {
        replay_common::refused(NiTrace::parse, text, needles);
    }
}

#[test]
fn a_packet_at_the_last_cycle_allowed_is_presented() {
    let last = (1u64 << 62) - 1;
    let l = within(300, move || {
        run(&format!(
            "{{\"config\": {{\"node\": 5}}}}\n{{\"cycle\": {last}, \"packet\": \
             {{\"type\": \"SEND\", \"src\": 2, \"dst\": 5, \"uid\": 131073}}}}"
        ))
    });
    // Three flits: the CRC flit goes in at last + 2, and the delivery shows after the edge after
    // that one (the action edge, docs/protocol.md §8.4).
    assert_eq!(cycle(kind(&l, "deliver")[0]), last + 3);
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(
        summary["cycles"],
        last + 1_000_000,
        "the tail limit past the last event"
    );
}
