//! Packet-level replay of the RMPP receive path from a JSON Lines trace, in the format of
//! docs/replay.md, on the golden model or the Verilated RTL alike.
//!
//! The driver presents the trace's packets flit by flit at `net_in` (each from its `cycle` or
//! when the previous one has gone in), keeps `tx_gnt` high, and plays the upper layer:
//!
//! - **Upcall.** While `up_valid` shows a message, it reads the first packet's
//!   `ceil(min(len, mtu) / 4)` words through the read port, one per cycle, then takes the
//!   upcall with `up_accept` = the trace's `accept` (`"all"`: 2^32 - 1, `"none"`: 0,
//!   `{"max_len": N}`: N). The `upcall` line is at the cycle it is taken.
//! - **Delivery.** While `dlv_valid` shows a message (and no upcall is waiting), it reads its
//!   `ceil(dlv_len / 4)` words the same way, then takes it: a `deliver` line at that cycle.
//!
//! Worms at `net_out` become `packet` lines (at the cycle of their head); a CTS, MSGEND or
//! MSGDROP for this node's send side (`snd_valid`) a `to_sender` line (an extension of the
//! contract's list: it is what the block does with such a packet); every drop-counter increment
//! a `drop` line naming the input packet whose flit was consumed in that cycle. Without an `end`
//! event the run stops once every event has been presented and nothing has happened for 1,000
//! cycles. Cycles in which the block has settled are skipped (docs/replay.md, "Idle cycles").

use std::collections::HashMap;
use std::io::Write;

use anyhow::{anyhow, bail, Result};
use idemnet_model::ni;
use idemnet_model::rmpp::rx::{inp, out, RmppRx};
use idemnet_model::rmpp::{cnt, Packet, RmppConfig, Type, COUNTERS, VERSION};
use serde_json::{json, Map, Value};

use crate::harness::ClockedDut;
use crate::replay::{Engine, Idle};
use crate::replay_io::{
    field_u64, hex_bytes, only_keys, read_lines, read_trace, shown, verilated, Clock, Line,
    NetFeed, Output, WirePacket, DROP_LAG,
};

/// The configuration keys of the receive path.
pub const KEYS: [&str; 12] = [
    "node",
    "nodes",
    "mtu",
    "rx_slots",
    "max_msg",
    "max_rcv_buf",
    "reserved",
    "max_data_pkts",
    "gch_timeout",
    "reply_timeout",
    "accept",
    "selective",
];

/// Cycles without any output line after which a trace without `end` stops.
pub const QUIET: u64 = 1_000;
/// Hard limit on the cycles run past the last event.
pub const MAX_TAIL: u64 = 1_000_000;

/// One input packet: RMPP or, to show that it is refused, idempotent.
#[derive(Clone, Debug)]
pub enum InPacket {
    Rmpp(Packet),
    Ni(ni::Packet),
}

impl WirePacket for InPacket {
    fn flits(&self) -> Vec<u64> {
        match self {
            InPacket::Rmpp(p) => p.flits(),
            InPacket::Ni(p) => p.flits(),
        }
    }
    fn json(&self) -> Value {
        match self {
            InPacket::Rmpp(p) => packet_json(p),
            InPacket::Ni(p) => crate::replay::packet_json(p),
        }
    }
}

/// A parsed RMPP trace.
#[derive(Clone, Debug)]
pub struct RmppTrace {
    pub config: RmppConfig,
    /// What the upper layer answers to every upcall.
    pub accept: u32,
    pub packets: Vec<(u64, InPacket)>,
    pub end: Option<u64>,
}

fn parse_accept(v: &Value, what: &str) -> Result<u32> {
    match v {
        Value::String(s) if s == "all" => Ok(u32::MAX),
        Value::String(s) if s == "none" => Ok(0),
        Value::Object(o) => {
            only_keys(o, &["max_len"], what)?;
            if !o.contains_key("max_len") {
                bail!("{what}: `accept` object needs `max_len`");
            }
            Ok(field_u64(o, "max_len", u32::MAX as u64, what)? as u32)
        }
        _ => bail!("{what}: `accept` must be \"all\", \"none\" or {{\"max_len\": N}}, got {v}"),
    }
}

fn parse_packet(v: &Value, what: &str) -> Result<InPacket> {
    let obj = v
        .as_object()
        .ok_or_else(|| anyhow!("{what}: `packet` must be an object"))?;
    let name = obj
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("{what}: the packet has no `type` string"))?;
    if ["SEND", "ACK", "FORGET"].contains(&name) {
        return Ok(InPacket::Ni(crate::replay::parse_packet(v, what)?));
    }
    let ty = Type::from_name(name).ok_or_else(|| {
        anyhow!(
            "{what}: packet type `{}` is not an RMPP or idempotent type",
            shown(name)
        )
    })?;
    only_keys(
        obj,
        &[
            "type", "src", "dst", "version", "msg_id", "len", "seq", "info1", "info2", "msg_num",
            "data",
        ],
        what,
    )?;
    let f = |k: &str, max: u64| field_u64(obj, k, max, what);
    let mut p = Packet::new(ty, f("src", 0xFFFF)? as u16, f("dst", 0xFFFF)? as u16, 0);
    // srcNID names the message's source: the route's source towards the receiver, the
    // route's destination for the receiver's replies.
    p.src_nid = if ty.to_sender() { p.dst } else { p.src } as u32;
    if obj.contains_key("version") {
        p.version = f("version", 0xFFFF)? as u16;
    }
    p.msg_id = f("msg_id", u32::MAX as u64)? as u32;
    p.len = f("len", u32::MAX as u64)? as u32;
    p.seq = f("seq", u32::MAX as u64)? as u32;
    p.info1 = f("info1", 0xFFFF)? as u16;
    p.info2 = f("info2", 0xFFFF)? as u16;
    p.msg_num = f("msg_num", u32::MAX as u64)? as u32;
    p.data = hex_bytes(obj, what)?;
    if p.data.len() > 4 * 64 {
        bail!(
            "{what}: {} data bytes is more than a worm carries",
            p.data.len()
        );
    }
    Ok(InPacket::Rmpp(p))
}

impl RmppTrace {
    /// Parses the text of a trace; errors name the line.
    pub fn parse(text: &str) -> Result<RmppTrace> {
        // A trace's default is the paper's in-order receiver (docs/replay.md), as before the
        // key existed; the system's is selective acceptance.
        let mut config = RmppConfig {
            selective: false,
            ..RmppConfig::default()
        };
        let mut accept = u32::MAX;
        let mut packets = vec![];
        let end = read_lines(text, &KEYS, |what, line| {
            match line {
                Line::Config(c) => {
                    config.node = c.get("node", 0, 0xFFFF)? as u16;
                    config.nodes = c.get("nodes", config.nodes as u64, 65536)? as usize;
                    config.mtu = c.get("mtu", config.mtu as u64, 4096)? as usize;
                    config.rx_slots = c.get("rx_slots", config.rx_slots as u64, 1024)? as usize;
                    config.max_msg = c.get("max_msg", config.max_msg as u64, 1 << 20)? as usize;
                    config.max_rcv_buf =
                        c.get("max_rcv_buf", config.max_rcv_buf as u64, 0xFFFF)? as u16;
                    config.reserved = c.get("reserved", config.reserved as u64, 0xFFFF)? as u16;
                    config.max_data_pkts =
                        c.get("max_data_pkts", config.max_data_pkts as u64, 0xFFFF)? as u16;
                    config.gch_timeout =
                        c.get("gch_timeout", config.gch_timeout as u64, u32::MAX as u64)? as u32;
                    config.reply_timeout = c.get(
                        "reply_timeout",
                        config.reply_timeout as u64,
                        u32::MAX as u64,
                    )? as u32;
                    if let Some(a) = c.object.get("accept") {
                        accept = parse_accept(a, what)?;
                    }
                    if let Some(v) = c.object.get("selective") {
                        config.selective = v.as_bool().ok_or_else(|| {
                            anyhow!("{what}: `selective` must be true or false, not {v}")
                        })?;
                    }
                    config.validate().map_err(|e| anyhow!("{what}: {e}"))?;
                }
                Line::Event(cycle, object) => {
                    if let Some(p) = object.get("packet") {
                        only_keys(object, &["cycle", "packet"], what)?;
                        packets.push((cycle, parse_packet(p, what)?));
                    } else if object.contains_key("send") {
                        bail!(
                            "{what}: `send` is an NI event; the RMPP receive path has no host \
                             send port"
                        );
                    } else {
                        bail!("{what}: expected `config`, `packet` or `end`");
                    }
                }
            }
            Ok(())
        })?;
        Ok(RmppTrace {
            config,
            accept,
            packets,
            end,
        })
    }
}

/// An RMPP packet as a JSON object of the contract (zero fields and empty data left out,
/// `version` only when it is not the current one).
pub fn packet_json(p: &Packet) -> Value {
    let mut m = Map::new();
    let name = p.kind().map(Type::name).unwrap_or("?");
    m.insert("type".into(), json!(name));
    m.insert("src".into(), json!(p.src));
    m.insert("dst".into(), json!(p.dst));
    if p.version != VERSION {
        m.insert("version".into(), json!(p.version));
    }
    for (k, v) in [
        ("msg_id", p.msg_id as u64),
        ("len", p.len as u64),
        ("seq", p.seq as u64),
        ("info1", p.info1 as u64),
        ("info2", p.info2 as u64),
        ("msg_num", p.msg_num as u64),
    ] {
        if v != 0 {
            m.insert(k.into(), json!(v));
        }
    }
    if !p.data.is_empty() {
        m.insert("data".into(), json!(hex::encode(&p.data)));
    }
    Value::Object(m)
}

/// Every reason a `drop` line of the receive path may name.
pub fn rmpp_drop_reasons() -> Vec<&'static str> {
    (0..COUNTERS.len())
        .filter_map(drop_reason)
        .map(|(reason, _)| reason)
        .collect()
}

/// The drop reason a counter names, and how many cycles before a counter shows it the flit
/// that decided it went in (docs/protocol.md §11.3: a counter shows an event a cycle after its
/// edge; §11.5: the framing, CRC, route and header reasons are decided at the flit's edge, a
/// verdict's at the packet's action edge, the edge after its CRC flit's).
fn drop_reason(counter: usize) -> Option<(&'static str, u64)> {
    Some(match counter {
        cnt::CRC => ("crc", 1),
        cnt::TRUNCATED => ("truncated", 1),
        cnt::MALFORMED => ("malformed", 1),
        cnt::MISROUTED => ("misrouted", 1),
        cnt::VERSION => ("version", 1),
        cnt::NOT_SOURCE => ("not_source", 2),
        cnt::ORDER => ("order", 2),
        cnt::SEQUENCE => ("sequence", 2),
        cnt::TABLE_FULL => ("table_full", 2),
        cnt::UNKNOWN => ("unknown_message", 2),
        cnt::DUPLICATE => ("duplicate", 2),
        cnt::BUSY => ("busy", 2),
        _ => return None,
    })
}

/// What the upper layer is doing with the read port.
enum Reader {
    Idle,
    /// Reading `words` words of an upcall (`up`) or a delivery; `next` is the next address.
    Reading {
        up: bool,
        words: u64,
        next: u64,
        data: Vec<u32>,
    },
}

impl Reader {
    /// Reading the `bytes` an upcall (`up`) or a delivery shows.
    fn reading(up: bool, bytes: u64) -> Reader {
        Reader::Reading {
            up,
            words: bytes.div_ceil(4),
            next: 0,
            data: vec![],
        }
    }
}

/// Runs `trace` on `dut` (a receive path with the ports of docs/protocol.md §11.3) and writes
/// the output lines to `writer` as they are made, summary last.
pub fn replay_rmpp<D: ClockedDut>(
    dut: &mut D,
    trace: &RmppTrace,
    idle: Idle,
    writer: &mut dyn Write,
) -> Result<()> {
    let config = trace.config;
    let want = RmppRx::new(config)
        .map_err(|e| anyhow!(e))
        .map(|m| idemnet_model::block::ModelBlock::ports(&m))?;
    if dut.ports() != want {
        bail!("the block under replay does not have the RMPP receive path's ports");
    }
    let mut net = NetFeed::new(trace.packets.iter().map(|(c, p)| (*c, p)));
    let last_event = trace.packets.iter().map(|(c, _)| *c).max().unwrap_or(0);
    let mut clock = Clock::new(idle, trace.end, last_event, QUIET, MAX_TAIL);
    // Every reply the block sends starts its slot's repeat timer, which repeats the reply or,
    // past `gch_timeout`, frees the slot without showing anything: the block has settled only
    // once a repeat would have shown (docs/protocol.md §11.5).
    let settle = QUIET.max(config.reply_timeout as u64 + 2);
    let mut inputs = vec![0u64; inp::WORDS];
    let mut outputs = vec![0u64; out::WORDS];
    let mut output = Output::new(writer);
    let mut reader = Reader::Idle;
    // A word was addressed in the cycle before: it shows in this cycle's outputs (§11.6).
    let mut word_addressed = false;
    // slot -> (src, msg_id) of the upcall taken for it: a delivery names only its slot, which
    // holds that message until the delivery is taken (docs/protocol.md §11.3).
    let mut slot_messages: HashMap<u64, (u64, u64)> = HashMap::new();
    loop {
        let showing = outputs[out::UP_VALID] & 1 == 1 || outputs[out::DLV_VALID] & 1 == 1;
        let idle = net.between_packets() && matches!(reader, Reader::Idle) && !showing;
        let Some(now) = clock.next(&output, idle, net.next_cycle(), settle)? else {
            break;
        };
        let (flit, _) = net.next(now);
        inputs[inp::NET_IN] = flit;
        // The upper layer: start reading what the ports showed after the last edge.
        if let Reader::Idle = reader {
            if outputs[out::UP_VALID] & 1 == 1 {
                reader = Reader::reading(true, outputs[out::UP_LEN].min(config.mtu as u64));
            } else if outputs[out::DLV_VALID] & 1 == 1 {
                reader = Reader::reading(false, outputs[out::DLV_LEN]);
            }
        }
        inputs[inp::TX_GNT] = 1;
        inputs[inp::UP_READY] = 0;
        inputs[inp::UP_ACCEPT] = 0;
        inputs[inp::DLV_READY] = 0;
        let mut taken = None;
        let mut reading = false;
        if let Reader::Reading {
            up, words, next, ..
        } = &mut reader
        {
            inputs[inp::RD_SLOT] = if *up {
                outputs[out::UP_SLOT]
            } else {
                outputs[out::DLV_SLOT]
            };
            if *next < *words {
                inputs[inp::RD_WORD] = *next;
                *next += 1;
                reading = true;
            } else if *up {
                // Taken in the cycle after the last word's address, whose outputs show that
                // word (§11.6); the line's data is filled in once they do.
                inputs[inp::UP_READY] = 1;
                inputs[inp::UP_ACCEPT] = trace.accept as u64;
                let len = outputs[out::UP_LEN];
                slot_messages.insert(
                    outputs[out::UP_SLOT],
                    (outputs[out::UP_SRC], outputs[out::UP_MSG_ID]),
                );
                taken = Some((
                    "upcall",
                    len.min(config.mtu as u64),
                    json!({ "cycle": now, "upcall": {
                    "src": outputs[out::UP_SRC], "msg_id": outputs[out::UP_MSG_ID],
                    "msg_num": outputs[out::UP_MSG_NUM], "len": len } }),
                ));
            } else {
                inputs[inp::DLV_READY] = 1;
                let len = outputs[out::DLV_LEN];
                let slot = outputs[out::DLV_SLOT];
                let Some(&(src, msg_id)) = slot_messages.get(&slot) else {
                    bail!("cycle {now}: the block delivered slot {slot}, which no upcall named");
                };
                taken = Some((
                    "deliver",
                    len,
                    json!({ "cycle": now, "deliver": {
                    "src": src, "msg_id": msg_id, "len": len } }),
                ));
            }
        }
        dut.set_inputs(&inputs);
        dut.tick();
        dut.outputs(&mut outputs);

        if let (true, Reader::Reading { data, .. }) = (word_addressed, &mut reader) {
            data.push(outputs[out::RD_DATA] as u32);
        }
        word_addressed = reading;
        if let Some((kind, bytes, mut line)) = taken {
            if let Reader::Reading { data, .. } = &reader {
                line[kind]["data"] = json!(hex::encode(ni::words_to_bytes(data, bytes as usize)));
            }
            reader = Reader::Idle;
            output.push(now, now, 1, kind, line);
        }
        output.net_out(now, outputs[out::NET_OUT], |w| {
            Packet::from_flits(w).map(|p| packet_json(&p))
        });
        if outputs[out::SND_VALID] & 1 == 1 {
            let ty = Type::from_code(outputs[out::SND_TYPE] as u32).map(Type::name);
            let line = json!({ "cycle": now, "to_sender": {
                "type": ty, "src": outputs[out::SND_PEER], "msg_id": outputs[out::SND_MSG_ID],
                "len": outputs[out::SND_LEN], "seq": outputs[out::SND_SEQ],
                "info1": outputs[out::SND_INFO] & 0xFFFF, "info2": outputs[out::SND_INFO] >> 16,
                "msg_num": outputs[out::SND_MSG_NUM] } });
            output.push(now, now, 2, "to_sender", line);
        }
        let counters = &outputs[out::COUNTERS..out::COUNTERS + COUNTERS.len()];
        output.counters(now, counters, drop_reason, |cycle| net.packet_at(cycle));
        clock.ticked(flit != 0, &inputs, &outputs);
        // A drop shown up to DROP_LAG cycles from now is of a cycle after now - DROP_LAG.
        output.hold(Some(now.saturating_sub(DROP_LAG - 1)));
        output.flush(now)?;
    }
    let summary = json!({
        "cycles": clock.now,
        "packet": output.count("packet"),
        "upcall": output.count("upcall"),
        "deliver": output.count("deliver"),
        "done": 0,
        "drop": output.count("drop"),
        "to_sender": output.count("to_sender"),
        "restart": outputs[out::COUNTERS + cnt::RESTART] & 0xFFFF,
    });
    output.finish(summary)
}

/// Reads and parses a trace file.
pub fn read_rmpp_trace(path: &std::path::Path) -> Result<RmppTrace> {
    read_trace(path, RmppTrace::parse)
}

/// Runs `trace` on `engine`.
pub fn replay_rmpp_on(
    engine: Engine,
    trace: &RmppTrace,
    idle: Idle,
    writer: &mut dyn Write,
) -> Result<()> {
    match engine {
        Engine::Model => {
            let rx = RmppRx::new(trace.config).map_err(|e| anyhow!(e))?;
            replay_rmpp(&mut crate::ModelDut::new(rx), trace, idle, writer)
        }
        Engine::Rtl { cache_dir } => {
            let design = idemnet_ni_core::rmpp_rx_verilog(&trace.config);
            replay_rmpp(&mut verilated(design, cache_dir)?, trace, idle, writer)
        }
    }
}
