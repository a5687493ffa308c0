//! Replay traces of the RMPP receive path (format: docs/replay.md), one or more per rule of
//! docs/protocol.md §11.5, plus the project's example traces in `testbench/traces`. Every trace runs on the golden
//! model and on the Verilated RTL, and their outputs must be identical line for line. A trace
//! cannot make a damaged worm or a `srcNID` other than the route's source; the model's unit
//! tests, `rmpp_flits.rs` (a late or lost CRC flit, on both engines) and the co-simulation cover
//! those.

mod replay_common;

use idemnet_testbench::replay::{Engine, Idle};
use idemnet_testbench::replay_rmpp::{replay_rmpp_on, RmppTrace};
use replay_common::{cycle, example, kind, lines, rmpp_both, within};
use serde_json::{json, Value};

/// Replays `trace` on both engines; returns their lines.
fn run(trace: &str) -> Vec<Value> {
    lines(&rmpp_both(trace, trace))
}

/// A trace: config, then `(cycle, packet)` events, then `end` at `end`.
fn trace(config: Value, events: &[(u64, Value)], end: u64) -> String {
    let mut s = json!({ "config": config }).to_string();
    for (c, p) in events {
        s.push('\n');
        s.push_str(&json!({ "cycle": c, "packet": p }).to_string());
    }
    s.push('\n');
    s.push_str(&json!({ "cycle": end, "end": true }).to_string());
    s
}

/// Byte `i` of message `id`.
fn byte(id: u64, i: u64) -> u8 {
    (i * 7 + id * 13 + 1) as u8
}

/// The bytes `from..to` of message `id`, hex.
fn bytes(id: u64, from: u64, to: u64) -> String {
    hex::encode((from..to).map(|i| byte(id, i)).collect::<Vec<_>>())
}

/// Packet `seq` of message `id` (`num`, `len` bytes) from `src` to node 0, mtu 32; `ty` names
/// its type.
fn pkt(ty: &str, src: u64, id: u64, num: u64, len: u64, seq: u64) -> Value {
    let from = (seq * 32).min(len);
    let to = ((seq + 1) * 32).min(len);
    json!({ "type": ty, "src": src, "dst": 0, "msg_id": id, "msg_num": num, "len": len,
            "seq": seq, "data": bytes(id, from, to) })
}

/// The packets of one message from `src` (`id`, `num`, `len` bytes), as (cycle, type, seq).
fn message(src: u64, id: u64, num: u64, len: u64, at: &[(u64, &str, u64)]) -> Vec<(u64, Value)> {
    at.iter()
        .map(|&(c, ty, seq)| (c, pkt(ty, src, id, num, len, seq)))
        .collect()
}

fn ctl(ty: &str, src: u64, id: u64, num: u64) -> Value {
    json!({ "type": ty, "src": src, "dst": 0, "msg_id": id, "msg_num": num })
}

/// The packets the block sent, as (type, msg_id, info1).
fn sent(lines: &[Value]) -> Vec<(String, u64, u64)> {
    kind(lines, "packet")
        .into_iter()
        .map(|l| {
            let p = &l["packet"];
            (
                p["type"].as_str().unwrap().to_string(),
                p["msg_id"].as_u64().unwrap_or(0),
                p["info1"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn drops(lines: &[Value]) -> Vec<String> {
    kind(lines, "drop")
        .into_iter()
        .map(|l| l["drop"]["reason"].as_str().unwrap().to_string())
        .collect()
}

fn delivered(lines: &[Value]) -> Vec<(u64, String)> {
    kind(lines, "deliver")
        .into_iter()
        .map(|l| {
            let d = &l["deliver"];
            (
                d["msg_id"].as_u64().unwrap(),
                d["data"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn example_upcall_delivery_msgend_and_gch() {
    let text = example("rmpp-short.jsonl");
    let l = run(&text);
    assert_eq!(kind(&l, "upcall").len(), 1);
    assert_eq!(
        delivered(&l),
        vec![(7, "0001020304050607".to_string())],
        "{l:#?}"
    );
    // The MSGEND is repeated once (`reply_timeout` 128 after its pick) before the GCH comes.
    let ends = sent(&l);
    assert_eq!(ends, vec![("MSGEND".to_string(), 7, 0); 2]);
    let at: Vec<u64> = kind(&l, "packet").iter().map(|p| cycle(p)).collect();
    assert_eq!(
        at[1] - at[0],
        130,
        "picked 128 + 1 edges later, at the next edge"
    );
    assert!(drops(&l).is_empty());
    assert_eq!(l, run(&text), "deterministic");
}

#[test]
fn a_gap_of_10_to_the_12_idle_cycles_is_skipped_on_both_engines() {
    // The clean-up timer of message 7 (5000 cycles) runs out unseen: RTS_LAST 9 finds the one
    // slot taken at 4000 and free at 6000, and the GCH after the gap finds nothing to free.
    let l = within(300, || run(&example("rmpp-idle-gap.jsonl")));
    assert_eq!(l.last().unwrap()["summary"]["cycles"], 2_000_000_000_000u64);
    assert_eq!(drops(&l), s(&["table_full", "unknown_message"]));
    let ids: Vec<u64> = delivered(&l).into_iter().map(|(i, _)| i).collect();
    assert_eq!(ids, vec![7, 9, 8]);
    assert_eq!(cycle(kind(&l, "deliver")[2]), 1_000_000_000_116);
}

#[test]
fn skipping_settled_cycles_prints_what_ticking_every_cycle_prints() {
    // The repeat timer (3000 cycles, longer than the quiet period) of the MSGEND at cycle 28
    // runs out past `gch_timeout` (3000) and frees the slot unseen, so that RTS_LAST 2's verdict
    // (which sees the slot table as at its header word 5, docs/protocol.md §11.5) finds the one
    // slot taken when presented at 3023 and free at 3024: gaps that end around then, in a
    // message's middle, and a trace without `end`.
    let cfg = json!({ "rx_slots": 1, "gch_timeout": 3000, "reply_timeout": 3000,
                      "max_rcv_buf": 20, "reserved": 16, "max_data_pkts": 8 });
    let mut texts = vec![];
    for second in [2000, 3021, 3022, 3023, 3024, 5000] {
        let ev = [
            (10, pkt("RTS_LAST", 1, 1, 1, 4, 0)),
            (second, pkt("RTS_LAST", 2, 2, 1, 4, 0)),
            (9000, pkt("RTS", 3, 3, 1, 100, 0)),
            (60_000, pkt("DATA", 3, 3, 1, 100, 1)),
            (60_100, pkt("DATA", 3, 3, 1, 100, 2)),
            (90_000, pkt("LAST_DATA", 3, 3, 1, 100, 3)),
            (120_000, ctl("GCH", 3, 3, 1)),
        ];
        texts.push(trace(cfg.clone(), &ev, 200_000));
    }
    let table_full = |text: &str| {
        let mut out = vec![];
        replay_rmpp_on(
            Engine::Model,
            &RmppTrace::parse(text).unwrap(),
            Idle::Tick,
            &mut out,
        )
        .unwrap();
        drops(&lines(&out)).contains(&"table_full".to_string())
    };
    assert!(table_full(&texts[3]), "the slot is still taken at 3023");
    assert!(!table_full(&texts[4]), "the timer has run out by 3024");
    let without_end = json!({ "config": cfg }).to_string()
        + "\n"
        + &json!({ "cycle": 10, "packet": pkt("RTS_LAST", 1, 1, 1, 4, 0) }).to_string();
    texts.push(without_end);
    texts.push(example("rmpp-short.jsonl"));
    texts.push(example("rmpp-long.jsonl"));
    for text in &texts {
        replay_common::skipping_is_exact(text, RmppTrace::parse, replay_rmpp_on);
    }
}

#[test]
fn cycles_out_of_bounds_duplicate_keys_and_a_late_end_are_refused_naming_the_line() {
    let bad = [
        (
            "{\"cycle\": 18446744073709551615, \"packet\": {\"type\": \"GCH\"}}",
            &["line 1", "`cycle`", "2^62"][..],
        ),
        (
            "{\"config\": {\"accept\": \"all\", \"accept\": \"none\"}}",
            &["line 1", "duplicate key `accept`"],
        ),
        (
            "{\"cycle\": 1, \"packet\": {\"type\": \"GCH\", \"msg_id\": 1, \"msg_id\": 2}}",
            &["line 1", "duplicate key `msg_id`"],
        ),
        (
            "{\"cycle\": 1, \"packet\": {\"type\": \"RTS\\n\"}}",
            &["line 1", "`RTS\\n`"],
        ),
        (
            "{\"cycle\": 500, \"packet\": {\"type\": \"GCH\"}}\n{\"cycle\": 400, \"end\": true}",
            &["line 2", "line 1", "cycle 500"],
        ),
    ];
    for (text, needles) in bad {
        replay_common::refused(RmppTrace::parse, text, needles);
    }
}

#[test]
fn a_block_with_no_events_and_a_far_end_is_skipped_to_it() {
    let mut out = vec![];
    let t = RmppTrace::parse("{\"cycle\": 4611686018427387903, \"end\": true}").unwrap();
    within(60, move || {
        replay_rmpp_on(Engine::Model, &t, Idle::Skip, &mut out).map(|()| out)
    })
    .map(|out| {
        let l = lines(&out);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0]["summary"]["cycles"], (1u64 << 62) - 1);
    })
    .unwrap();
}

#[test]
fn a_long_message_is_granted_written_and_delivered_in_blocks() {
    // 200 bytes: RTS (0..32) and packets 1..6; allowance 4 per CTS. No reply is repeated
    // within the trace (`reply_timeout` 1000).
    let cfg = json!({ "max_rcv_buf": 20, "reserved": 16, "max_data_pkts": 8,
                      "reply_timeout": 1000 });
    let mut ev = vec![(0, pkt("RTS", 2, 5, 1, 200, 0))];
    for (c, ty, seq) in [
        (100, "DATA", 1),
        (120, "DATA", 2),
        (140, "DATA", 3),
        (160, "STOP_DATA", 4),
        (300, "DATA", 5),
        (320, "LAST_DATA", 6),
    ] {
        ev.push((c, pkt(ty, 2, 5, 1, 200, seq)));
    }
    let l = run(&trace(cfg, &ev, 600));
    assert_eq!(
        sent(&l),
        vec![
            ("CTS".to_string(), 5, 4),
            ("CTS".to_string(), 5, 4),
            ("MSGEND".to_string(), 5, 0)
        ]
    );
    assert_eq!(delivered(&l), vec![(5, bytes(5, 0, 200))]);
    assert!(drops(&l).is_empty(), "{:?}", drops(&l));
}

#[test]
fn figure8_allowance_shrinks_under_growing_load_and_recovers() {
    // Pool 40 - 8 = 32, at most 16 per CTS: 16, 16, then the minimum 1 while all is granted.
    let cfg = json!({ "max_rcv_buf": 40, "reserved": 8, "max_data_pkts": 16,
                      "reply_timeout": 1000 });
    let mut ev: Vec<(u64, Value)> = (0..4)
        .map(|k| (k * 20, pkt("RTS", k + 1, 10 + k, 1, 1024, 0)))
        .collect();
    // Message 10 sends its 16 granted packets: outstanding falls by 16 and its next CTS gets
    // 32 - (16 + 1 + 1) = 14.
    for seq in 1..=16 {
        let ty = if seq == 16 { "STOP_DATA" } else { "DATA" };
        ev.push((200 + 20 * seq, pkt(ty, 1, 10, 1, 1024, seq)));
    }
    let l = run(&trace(cfg, &ev, 800));
    let cts: Vec<(u64, u64)> = sent(&l)
        .into_iter()
        .filter(|(t, _, _)| t == "CTS")
        .map(|(_, id, n)| (id, n))
        .collect();
    assert_eq!(cts, vec![(10, 16), (11, 16), (12, 1), (13, 1), (10, 14)]);
}

#[test]
fn out_of_order_msg_num_is_dropped_and_numbering_starts_at_1() {
    let ev = [
        (0, pkt("RTS_LAST", 4, 1, 2, 8, 0)),
        (50, pkt("RTS_LAST", 4, 2, 1, 8, 0)),
        (100, pkt("RTS_LAST", 4, 1, 2, 8, 0)),
        (150, pkt("RTS_LAST", 4, 3, 1, 8, 0)),
    ];
    let l = run(&trace(json!({}), &ev, 400));
    assert_eq!(drops(&l), s(&["order", "order"]));
    let ids: Vec<u64> = delivered(&l).into_iter().map(|(i, _)| i).collect();
    assert_eq!(ids, vec![2, 1]);
    let nums: Vec<u64> = kind(&l, "upcall")
        .iter()
        .map(|u| u["upcall"]["msg_num"].as_u64().unwrap())
        .collect();
    assert_eq!(nums, vec![1, 2]);
}

#[test]
fn duplicate_rts_last_after_msgend_gets_msgend_again_and_no_second_delivery() {
    let ev = [
        (0, pkt("RTS_LAST", 3, 9, 1, 20, 0)),
        (100, pkt("RTS_LAST", 3, 9, 1, 20, 0)),
        (200, pkt("RTS_LAST", 3, 9, 1, 20, 0)),
    ];
    let l = run(&trace(json!({ "reply_timeout": 1000 }), &ev, 400));
    assert_eq!(delivered(&l).len(), 1);
    assert_eq!(drops(&l), s(&["duplicate", "duplicate"]));
    let ends = sent(&l);
    assert_eq!(ends.len(), 3);
    assert!(ends.iter().all(|(t, id, _)| t == "MSGEND" && *id == 9));
}

#[test]
fn a_restart_resynchronises_with_a_new_cts() {
    // 160 bytes = packets 0..4. Packets 2 and 3 are lost, so 4 is out of sequence and not the
    // one after the missing one (no resume); the sender restarts at 1.
    let cfg = json!({ "max_rcv_buf": 20, "reserved": 16, "max_data_pkts": 8,
                      "reply_timeout": 1000 });
    let ev = message(
        6,
        4,
        1,
        160,
        &[
            (0, "RTS", 0),
            (100, "DATA", 1),
            (140, "LAST_DATA", 4),
            (300, "STOP_DATA", 1),
            (400, "DATA", 2),
            (420, "DATA", 3),
            (440, "LAST_DATA", 4),
        ],
    );
    let l = run(&trace(cfg, &ev, 700));
    assert_eq!(drops(&l), s(&["sequence"]));
    assert_eq!(l.last().unwrap()["summary"]["restart"], 1);
    let cts: Vec<u64> = kind(&l, "packet")
        .iter()
        .filter(|p| p["packet"]["type"] == "CTS")
        .map(|p| p["packet"]["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(cts, vec![1, 2], "the restart's CTS asks for packet 2");
    assert_eq!(delivered(&l), vec![(4, bytes(4, 0, 160))]);
}

#[test]
fn msgdrop_when_the_upper_layer_accepts_nothing() {
    let ev = [
        (0, pkt("RTS", 1, 3, 1, 100, 0)),
        (100, pkt("RTS_LAST", 1, 4, 2, 10, 0)),
        (200, pkt("DATA", 1, 3, 1, 100, 1)),
    ];
    let l = run(&trace(
        json!({ "accept": "none", "reply_timeout": 1000 }),
        &ev,
        400,
    ));
    assert_eq!(kind(&l, "upcall").len(), 2);
    assert!(delivered(&l).is_empty());
    let types: Vec<String> = sent(&l).into_iter().map(|x| x.0).collect();
    assert_eq!(types, s(&["MSGDROP", "MSGDROP", "MSGDROP"]));
    assert_eq!(drops(&l), s(&["duplicate"]), "late data answered again");
}

#[test]
fn data_is_truncated_to_the_accepted_length() {
    // 100 bytes offered, 40 accepted: the CTS says 40, and the one data packet (bytes 32..64)
    // is written only up to byte 40.
    let ev = [
        (0, pkt("RTS", 2, 8, 1, 100, 0)),
        (100, pkt("LAST_DATA", 2, 8, 1, 100, 1)),
    ];
    let l = run(&trace(json!({ "accept": { "max_len": 40 } }), &ev, 400));
    let cts = kind(&l, "packet")[0]["packet"].clone();
    assert_eq!(
        (cts["type"].clone(), cts["len"].clone()),
        (json!("CTS"), json!(40))
    );
    assert_eq!(delivered(&l), vec![(8, bytes(8, 0, 40))]);
}

#[test]
fn a_full_table_drops_new_rts_until_gch_frees_a_slot() {
    let ev = [
        (0, pkt("RTS_LAST", 1, 1, 1, 4, 0)),
        (100, pkt("RTS_LAST", 2, 2, 1, 4, 0)),
        (150, ctl("GCH", 1, 1, 1)),
        (200, pkt("RTS_LAST", 2, 2, 1, 4, 0)),
    ];
    let l = run(&trace(json!({ "rx_slots": 1 }), &ev, 400));
    assert_eq!(drops(&l), s(&["table_full"]));
    // The drop names its CRC flit's cycle (head at 100, 7 header words, 1 data word, the CRC)
    // and its packet, though the counter shows it two edges later (docs/protocol.md §11.3).
    let drop = &kind(&l, "drop")[0];
    assert_eq!(cycle(drop), 109);
    let packet = &drop["drop"]["packet"];
    assert_eq!(
        (&packet["type"], &packet["msg_id"]),
        (&json!("RTS_LAST"), &json!(2))
    );
    let ids: Vec<u64> = delivered(&l).into_iter().map(|(i, _)| i).collect();
    assert_eq!(ids, vec![1, 2]);
}

#[test]
fn without_gch_the_timeout_frees_the_slot() {
    let cfg = json!({ "rx_slots": 1, "gch_timeout": 100 });
    let ev = [
        (0, pkt("RTS_LAST", 1, 1, 1, 4, 0)),
        (60, pkt("RTS_LAST", 2, 2, 1, 4, 0)),
        (200, pkt("RTS_LAST", 2, 2, 1, 4, 0)),
        (300, ctl("GCH", 1, 1, 1)),
    ];
    let l = run(&trace(cfg, &ev, 500));
    assert_eq!(drops(&l), s(&["table_full", "unknown_message"]));
    let ids: Vec<u64> = delivered(&l).into_iter().map(|(i, _)| i).collect();
    assert_eq!(ids, vec![1, 2]);
}

#[test]
fn null_keeps_numbering_in_step_and_is_answered_with_msgdrop() {
    let ev = [
        (0, ctl("NULL", 5, 1, 1)),
        (100, ctl("NULL", 5, 1, 1)),
        (200, pkt("RTS_LAST", 5, 2, 2, 12, 0)),
        (300, ctl("GCH", 5, 1, 1)),
    ];
    let l = run(&trace(json!({ "reply_timeout": 1000 }), &ev, 500));
    let types: Vec<(String, u64)> = sent(&l).into_iter().map(|x| (x.0, x.1)).collect();
    assert_eq!(
        types,
        vec![
            ("MSGDROP".to_string(), 1),
            ("MSGDROP".to_string(), 1),
            ("MSGEND".to_string(), 2)
        ]
    );
    assert_eq!(drops(&l), s(&["duplicate"]));
    assert_eq!(delivered(&l), vec![(2, bytes(2, 0, 12))]);
    assert_eq!(kind(&l, "upcall").len(), 1, "NULL makes no upcall");
}

#[test]
fn null_aborts_a_message_being_received() {
    let ev = [
        (0, pkt("RTS", 5, 1, 1, 300, 0)),
        (100, pkt("DATA", 5, 1, 1, 300, 1)),
        (200, ctl("NULL", 5, 1, 1)),
        (300, pkt("DATA", 5, 1, 1, 300, 2)),
    ];
    let l = run(&trace(json!({ "reply_timeout": 1000 }), &ev, 500));
    let types: Vec<String> = sent(&l).into_iter().map(|x| x.0).collect();
    assert_eq!(types, s(&["CTS", "MSGDROP", "MSGDROP"]));
    assert!(delivered(&l).is_empty());
}

#[test]
fn version_mismatch_and_malformed_headers_are_dropped_by_reason() {
    let mut bad_version = pkt("RTS_LAST", 1, 1, 1, 4, 0);
    bad_version["version"] = json!(2);
    let rts_too_short = pkt("RTS", 1, 2, 1, 4, 0);
    let mut wrong_payload = pkt("RTS_LAST", 1, 3, 1, 8, 0);
    wrong_payload["data"] = json!("00");
    let ev = [
        (0, bad_version),
        (50, rts_too_short),
        (100, wrong_payload),
        (150, pkt("DATA", 1, 99, 1, 100, 1)),
        (200, pkt("RTS_LAST", 1, 5, 1, 4, 0)),
        (250, ctl("GCH", 1, 5, 1)),
        (
            350,
            json!({ "type": "SEND", "src": 1, "dst": 0, "uid": 65536, "data": "ab".repeat(32) }),
        ),
        (
            400,
            json!({ "type": "RTS_LAST", "src": 1, "dst": 7, "msg_id": 6, "msg_num": 2 }),
        ),
    ];
    let l = run(&trace(json!({}), &ev, 600));
    assert_eq!(
        drops(&l),
        s(&[
            "version",
            "malformed",
            "truncated",
            "unknown_message",
            "malformed",
            "misrouted"
        ])
    );
    assert_eq!(delivered(&l).len(), 1);
}

/// §11.1's length check 3 and the payload length of a LAST_DATA at their boundaries (mtu 32):
/// a DATA may not be the message's last packet, a LAST_DATA must be it, and a LAST_DATA carries
/// `len mod 32` bytes, or 32 when that is 0, up to the largest `len`. Each well-formed packet
/// here matches no slot, so it is dropped as `unknown_message`; a wrong boundary makes it
/// `malformed`, or a wrong payload length `truncated` or `crc`, on the engine that has it.
#[test]
fn length_checks_hold_at_the_message_boundaries() {
    let top = u64::from(u32::MAX);
    let last = (top - 1) >> 5;
    // (type, len, seq, the drop it gets), one packet every 50 cycles.
    let cases = [
        ("DATA", 100, 2, "unknown_message"),
        ("DATA", 100, 3, "malformed"),
        ("LAST_DATA", 100, 3, "unknown_message"),
        ("LAST_DATA", 96, 2, "unknown_message"),
        ("LAST_DATA", 96, 3, "malformed"),
        ("DATA", 0, 1, "malformed"),
        ("LAST_DATA", 0, 1, "malformed"),
        ("DATA", 100, 0, "malformed"),
        ("DATA", top, last - 1, "unknown_message"),
        ("DATA", top, last, "malformed"),
        ("LAST_DATA", top, last, "unknown_message"),
        ("LAST_DATA", top, last + 1, "malformed"),
    ];
    let ev: Vec<(u64, Value)> = (0..)
        .zip(cases)
        .map(|(i, (ty, len, seq, _))| (50 * i, pkt(ty, 1, 1, 1, len, seq)))
        .collect();
    let l = run(&trace(json!({}), &ev, 700));
    let expected: Vec<&str> = cases.iter().map(|case| case.3).collect();
    assert_eq!(drops(&l), s(&expected));
}

#[test]
fn replies_for_the_send_side_are_passed_on() {
    let ev = [
        (
            0,
            json!({ "type": "CTS", "src": 4, "dst": 0, "msg_id": 77, "len": 64, "seq": 1,
                    "info1": 3, "msg_num": 2 }),
        ),
        (
            50,
            json!({ "type": "MSGEND", "src": 4, "dst": 0, "msg_id": 77, "len": 64 }),
        ),
    ];
    let l = run(&trace(json!({}), &ev, 200));
    let n = kind(&l, "to_sender");
    assert_eq!(n.len(), 2);
    assert_eq!(n[0]["to_sender"]["info1"], 3);
    assert_eq!(n[1]["to_sender"]["type"], "MSGEND");
}

/// §11.5: a packet owns the edge of its CRC flit and the next one, so the delivered register
/// does not act there. Message A's delivery is taken while message B's worm arrives, B's CRC
/// flit swept over the cycles around that take: both engines print the same lines every time,
/// both messages are delivered whole, and A's MSGEND (set by the delivered register's action)
/// leaves one or two cycles later exactly when B's edges take the register's turn.
#[test]
fn the_delivered_register_waits_for_a_packet_on_its_crc_flit_edges() {
    let cfg = json!({ "rx_slots": 2 });
    // A: 32 bytes from node 2 (17 flits from cycle 10, its CRC flit in cycle 26).
    let a = (10, pkt("RTS_LAST", 2, 5, 1, 32, 0));
    let msgend_of_a = |l: &[Value]| {
        kind(l, "packet")
            .into_iter()
            .find(|p| p["packet"]["type"] == "MSGEND" && p["packet"]["msg_id"] == 5)
            .map(cycle)
            .expect("A's MSGEND")
    };
    let alone = run(&trace(cfg.clone(), std::slice::from_ref(&a), 400));
    let taken = cycle(kind(&alone, "deliver")[0]);
    let undisturbed = msgend_of_a(&alone);
    let mut seen = 0;
    // B: 8 bytes from node 3, 11 flits: its CRC flit 10 cycles after its head.
    for crc in taken - 4..=taken + 4 {
        let head = crc - 10;
        assert!(head > 26, "B must follow A on the link");
        let b = (head, pkt("RTS_LAST", 3, 6, 1, 8, 0));
        let l = run(&trace(cfg.clone(), &[a.clone(), b], 400));
        let mut got = delivered(&l);
        got.sort();
        assert_eq!(
            got,
            vec![(5, bytes(5, 0, 32)), (6, bytes(6, 0, 8))],
            "{l:#?}"
        );
        assert!(drops(&l).is_empty(), "{:?}", drops(&l));
        // The delivered register acts at the edge after the take, unless B owns it (B's CRC
        // flit's edge or the next); then at the edge after B's two.
        let register = if crc == taken || crc == taken + 1 {
            crc + 2
        } else {
            taken + 1
        };
        assert_eq!(
            msgend_of_a(&l),
            undisturbed + (register - (taken + 1)),
            "B's CRC flit in cycle {crc}, A taken in {taken}"
        );
        seen += u64::from(register != taken + 1);
    }
    assert_eq!(seen, 2, "the sweep met the register's edge twice");
}

#[test]
fn a_reply_again_to_a_slot_freed_since_its_verdict_is_unknown() {
    // §11.5, the verdict's view and the clean-up timer: a repeated RTS_LAST of a message whose
    // slot is ENDED replies again, unless the timer frees the slot between its header word 5
    // (the verdict's view) and its action edge: then it is dropped as `unknown`. Before that
    // window the slot is free at word 5 (`order`: `expected` has moved on); after it, the slot
    // is still ENDED at the action (`duplicate`, with a MSGEND again). The presentation cycle
    // is swept on the model to find the window, whose every trace then runs on both engines.
    // With `reply_timeout` = `gch_timeout`, the first repeat finds the slot expired and frees it
    // instead, `gch_timeout + 1` edges after the MSGEND's pick.
    let cfg = json!({ "rx_slots": 1, "gch_timeout": 200, "reply_timeout": 200 });
    let text = |second: u64| {
        let ev = [
            (10, pkt("RTS_LAST", 1, 1, 1, 4, 0)),
            (second, pkt("RTS_LAST", 1, 1, 1, 4, 0)),
        ];
        trace(cfg.clone(), &ev, second + 400)
    };
    let model_drops = |second: u64| {
        let mut out = vec![];
        replay_rmpp_on(
            Engine::Model,
            &RmppTrace::parse(&text(second)).unwrap(),
            Idle::Tick,
            &mut out,
        )
        .unwrap();
        drops(&lines(&out))
    };
    let swept: Vec<(u64, Vec<String>)> = (150..300).map(|c| (c, model_drops(c))).collect();
    let window: Vec<u64> = swept
        .iter()
        .filter(|(_, d)| *d == s(&["unknown_message"]))
        .map(|&(c, _)| c)
        .collect();
    assert!(!window.is_empty(), "{swept:?}");
    let (first, last) = (window[0], *window.last().unwrap());
    assert_eq!(
        swept[(first - 151) as usize].1,
        s(&["duplicate"]),
        "{swept:?}"
    );
    assert_eq!(swept[(last - 149) as usize].1, s(&["order"]), "{swept:?}");
    for c in window {
        let l = run(&text(c));
        assert_eq!(drops(&l), s(&["unknown_message"]));
        assert_eq!(
            sent(&l),
            vec![("MSGEND".to_string(), 1, 0)],
            "no reply again"
        );
    }
}

/// The lines of a trace's `packet` outputs as (cycle, type, seq).
fn replies(lines: &[Value]) -> Vec<(u64, String, u64)> {
    kind(lines, "packet")
        .into_iter()
        .map(|l| {
            let p = &l["packet"];
            (
                cycle(l),
                p["type"].as_str().unwrap().to_string(),
                p["seq"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn the_packet_after_a_missing_one_asks_for_it_at_once() {
    // §11.5's *resume*: 160 bytes = packets 0..4. Packet 2 is lost; 3, the one after it, is
    // dropped (`sequence`) and answered at once with a CTS naming 2 and a fresh grant; 4 is
    // dropped without a reply. Then 2, 3, 4 arrive in sequence. No restart is counted.
    let cfg = json!({ "max_rcv_buf": 20, "reserved": 16, "max_data_pkts": 8,
                      "reply_timeout": 1000 });
    let ev = message(
        6,
        4,
        1,
        160,
        &[
            (0, "RTS", 0),
            (100, "DATA", 1),
            (120, "DATA", 3),
            (140, "LAST_DATA", 4),
            (300, "DATA", 2),
            (320, "DATA", 3),
            (340, "LAST_DATA", 4),
        ],
    );
    let l = run(&trace(cfg, &ev, 700));
    assert_eq!(drops(&l), s(&["sequence", "sequence"]));
    assert_eq!(l.last().unwrap()["summary"]["restart"], 0);
    let r = replies(&l);
    let kinds: Vec<(&str, u64)> = r.iter().map(|(_, t, q)| (t.as_str(), *q)).collect();
    assert_eq!(kinds, vec![("CTS", 1), ("CTS", 2), ("MSGEND", 0)]);
    let packet_3_ends = 120 + 17;
    assert!(r[1].0 <= packet_3_ends + 3, "at once: {r:?}");
    assert_eq!(sent(&l)[1].2, 4, "a fresh grant: all of the pool");
    assert_eq!(delivered(&l), vec![(4, bytes(4, 0, 160))]);
}

#[test]
fn a_cts_is_repeated_while_the_granted_data_does_not_come() {
    // §11.5's repeat timer on a RECEIVING slot: the CTS goes out again `reply_timeout + 2`
    // cycles after its last pick while no data of the message comes; any data packet of it,
    // even one dropped out of sequence, starts the timer again.
    let cfg = json!({ "reply_timeout": 100 });
    let ev = message(
        6,
        4,
        1,
        160,
        &[
            (0, "RTS", 0),
            (400, "DATA", 3),
            (460, "DATA", 3),
            (700, "DATA", 1),
            (720, "DATA", 2),
            (740, "DATA", 3),
            (760, "LAST_DATA", 4),
        ],
    );
    let l = run(&trace(cfg, &ev, 1000));
    let r = replies(&l);
    let ctss: Vec<&(u64, String, u64)> = r.iter().filter(|x| x.1 == "CTS").collect();
    assert!(ctss.iter().all(|x| x.2 == 1), "{r:?}");
    // Before the data: repeats 102 cycles apart.
    let before: Vec<u64> = ctss.iter().map(|x| x.0).filter(|&c| c < 400).collect();
    assert!(before.len() >= 3, "{r:?}");
    assert!(before.windows(2).all(|w| w[1] - w[0] == 102), "{r:?}");
    // The dropped packets at 400 and 460 restart the timer: no CTS within 100 cycles of them.
    assert!(
        ctss.iter().all(|x| !(417..=560).contains(&x.0)),
        "no repeat while data comes: {r:?}"
    );
    assert_eq!(drops(&l), s(&["sequence", "sequence"]));
    assert_eq!(delivered(&l), vec![(4, bytes(4, 0, 160))]);
}

#[test]
fn a_msgend_is_repeated_until_gch_timeout_then_forgotten() {
    // §11.5's repeat timer on an ENDED slot: the MSGEND goes out every `reply_timeout + 2`
    // cycles until a GCH comes or, past `gch_timeout` since the message ended, the next
    // repeat frees the slot instead; a GCH after that finds nothing.
    let cfg = json!({ "gch_timeout": 500, "reply_timeout": 100 });
    let ev = [
        (0, pkt("RTS_LAST", 1, 1, 1, 4, 0)),
        (2000, ctl("GCH", 1, 1, 1)),
        (2100, pkt("RTS_LAST", 2, 2, 1, 4, 0)),
        (2300, ctl("GCH", 2, 2, 1)),
    ];
    let l = run(&trace(cfg, &ev, 2600));
    let r = replies(&l);
    let first: Vec<u64> = r.iter().filter(|x| x.0 < 2000).map(|x| x.0).collect();
    assert!(first.windows(2).all(|w| w[1] - w[0] == 102), "{r:?}");
    // Ended a cycle or two before the first MSGEND; freed at the first repeat past 500.
    assert_eq!(first.len(), 5, "{r:?}");
    assert_eq!(
        drops(&l),
        s(&["unknown_message"]),
        "the late GCH finds nothing"
    );
    // The second message's GCH stops its repeats at once.
    let second: Vec<u64> = r.iter().filter(|x| x.0 >= 2000).map(|x| x.0).collect();
    assert_eq!(second.len(), 2, "{r:?}");
}

#[test]
fn replies_take_turns_among_the_slots() {
    // §11.5's transmitter picks round robin: three RECEIVING slots whose CTS is due again 3
    // cycles after its head (`reply_timeout` 1), faster than a 9-flit reply goes out, each get
    // one CTS in any three. Lowest first, slot 0 took every one (§11.7, the starvation).
    let cfg = json!({ "reply_timeout": 1 });
    let mut ev = Vec::new();
    for (src, at) in [(1, 0), (2, 20), (3, 40)] {
        ev.extend(message(src, src, 1, 160, &[(at, "RTS", 0)]));
    }
    let l = run(&trace(cfg, &ev, 400));
    let ctss: Vec<u64> = kind(&l, "packet")
        .into_iter()
        .filter(|x| x["packet"]["type"] == "CTS" && cycle(x) >= 100)
        .map(|x| x["packet"]["msg_id"].as_u64().unwrap())
        .collect();
    assert!(ctss.len() >= 20, "{ctss:?}");
    for w in ctss.windows(3) {
        let mut w = w.to_vec();
        w.sort();
        assert_eq!(w, [1, 2, 3], "{ctss:?}");
    }
}

/// The CTSs a trace's block sent, as (`seq`, `info1`, `info2`).
fn ctss(lines: &[Value]) -> Vec<(u64, u64, u64)> {
    kind(lines, "packet")
        .into_iter()
        .filter(|l| l["packet"]["type"] == "CTS")
        .map(|l| {
            let p = &l["packet"];
            let field = |name: &str| p[name].as_u64().unwrap_or(0);
            (field("seq"), field("info1"), field("info2"))
        })
        .collect()
}

#[test]
fn a_selective_receiver_holds_what_follows_a_gap_and_asks_once() {
    // §11.7's selective acceptance: 160 bytes = packets 0..4, packet 2 lost. Packet 3 is held
    // and asks at once with a CTS naming 2 whose `info2` says 3 is held; 4 is held without a
    // reply (its predecessor is held). When 2 comes, 3 and 4 come in with it: nothing is
    // dropped, nothing is sent twice, and the message completes.
    let cfg = json!({ "selective": true, "max_rcv_buf": 20, "reserved": 16,
                      "max_data_pkts": 8, "reply_timeout": 1000 });
    let ev = message(
        6,
        4,
        1,
        160,
        &[
            (0, "RTS", 0),
            (100, "DATA", 1),
            (120, "DATA", 3),
            (140, "LAST_DATA", 4),
            (300, "DATA", 2),
        ],
    );
    let l = run(&trace(cfg, &ev, 700));
    assert_eq!(drops(&l), Vec::<String>::new());
    assert_eq!(ctss(&l), vec![(1, 4, 0), (2, 4, 0b1)]);
    let r = replies(&l);
    assert_eq!(r.last().unwrap().1, "MSGEND", "{r:?}");
    let packet_3_ends = 120 + 17;
    assert!(r[1].0 <= packet_3_ends + 3, "at once: {r:?}");
    assert_eq!(delivered(&l), vec![(4, bytes(4, 0, 160))]);
    // Without it, the paper's in-order receiver drops 3 and 4 and needs them again.
    let plain = json!({ "max_rcv_buf": 20, "reserved": 16, "max_data_pkts": 8,
                        "reply_timeout": 1000 });
    let l = run(&trace(plain, &ev, 700));
    assert_eq!(drops(&l), s(&["sequence", "sequence"]));
    assert!(delivered(&l).is_empty());
}

#[test]
fn a_held_packet_is_not_taken_twice_and_the_window_is_16_packets() {
    // 1024 bytes = packets 0..31, `next_seq` 1 after the answer. Packet 3 is held (bit 1) and
    // asks; a second copy of it is dropped (`sequence`) and writes nothing; 17 = `next_seq` +
    // 16 is the window's last (bit 15) and asks, since 16 is missing too; 18 is past the window
    // and dropped. Then 1, 2 and 4..17 arrive, and the message so far is exactly the sender's.
    let cfg = json!({ "selective": true, "reply_timeout": 1000 });
    let mut at = vec![
        (0, "RTS", 0),
        (100, "DATA", 3),
        (200, "DATA", 3),
        (300, "DATA", 17),
        (400, "DATA", 18),
    ];
    let late: Vec<u64> = [1, 2].into_iter().chain(4..=16).collect();
    for (i, &seq) in late.iter().enumerate() {
        at.push((500 + 20 * i as u64, "DATA", seq));
    }
    for seq in 18..=31 {
        at.push((
            1000 + 20 * (seq - 18),
            if seq == 31 { "LAST_DATA" } else { "DATA" },
            seq,
        ));
    }
    let l = run(&trace(cfg, &message(6, 5, 1, 1024, &at), 2000));
    assert_eq!(drops(&l), s(&["sequence", "sequence"]));
    let asked: Vec<(u64, u64)> = ctss(&l)
        .iter()
        .map(|&(q, _, held)| (q, held))
        .take(3)
        .collect();
    assert_eq!(asked, vec![(1, 0), (1, 0b10), (1, 0x8002)]);
    assert_eq!(delivered(&l), vec![(5, bytes(5, 0, 1024))]);
}

#[test]
fn with_selective_acceptance_the_next_block_is_asked_for_when_its_grant_is_spent() {
    // Grants of 3 packets (`max_rcv_buf - reserved`). Packet 2 is lost and 3, the block's
    // STOP_DATA, is held: the in-order receiver's cue for the next block came before the
    // missing packet. The selective one asks when the grant is spent instead: at 2, which takes
    // 3 in and asks for 4 on; then at 6, and 7 completes the message.
    let cfg = json!({ "selective": true, "max_rcv_buf": 19, "reserved": 16,
                      "reply_timeout": 1000 });
    let ev = message(
        6,
        7,
        1,
        256,
        &[
            (0, "RTS", 0),
            (100, "DATA", 1),
            (120, "STOP_DATA", 3),
            (300, "DATA", 2),
            (400, "DATA", 4),
            (420, "DATA", 5),
            (440, "STOP_DATA", 6),
            (600, "LAST_DATA", 7),
        ],
    );
    let l = run(&trace(cfg, &ev, 900));
    assert_eq!(drops(&l), Vec::<String>::new());
    assert_eq!(
        ctss(&l),
        vec![(1, 3, 0), (2, 3, 0b1), (4, 3, 0), (7, 3, 0)],
        "the second CTS repeats the grant as it stands"
    );
    assert_eq!(delivered(&l), vec![(7, bytes(7, 0, 256))]);
}
