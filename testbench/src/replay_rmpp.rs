//! Packet-level replay of the RMPP receive path from a JSON Lines trace, in the format of
//! `shared/conformance/README.md`, on the golden model or the Verilated RTL alike.
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
//! cycles.

use anyhow::{anyhow, bail, Context, Result};
use idemnet_model::ni;
use idemnet_model::rmpp::rx::{inp, out, RmppRx};
use idemnet_model::rmpp::{cnt, Packet, RmppConfig, Type, COUNTERS, VERSION};
use serde_json::{json, Map, Value};

use crate::harness::ClockedDut;
use crate::replay::{field_u64, hex_bytes, only_keys};
use crate::replay_io::{Lines, NetFeed};

/// The configuration keys of the receive path.
const KEYS: [&str; 10] = [
    "node",
    "nodes",
    "mtu",
    "rx_slots",
    "max_msg",
    "max_rcv_buf",
    "reserved",
    "max_data_pkts",
    "gch_timeout",
    "accept",
];

/// Cycles without any output line after which a trace without `end` stops.
const QUIET: u64 = 1_000;
/// Hard limit on the cycles run past the last event.
const MAX_TAIL: u64 = 1_000_000;

/// One input packet: RMPP or, to show that it is refused, idempotent.
#[derive(Clone, Debug)]
pub enum InPacket {
    Rmpp(Packet),
    Ni(ni::Packet),
}

impl InPacket {
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
    let ty = Type::from_name(name)
        .ok_or_else(|| anyhow!("{what}: packet type `{name}` is not an RMPP or idempotent type"))?;
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
        let mut cfg = RmppConfig::default();
        let mut accept = u32::MAX;
        let mut packets = vec![];
        let mut end = None;
        for (n, line) in text.lines().enumerate() {
            let what = format!("line {}", n + 1);
            if line.trim().is_empty() {
                continue;
            }
            let v: Value =
                serde_json::from_str(line).map_err(|e| anyhow!("{what}: not JSON ({e})"))?;
            let obj = v
                .as_object()
                .ok_or_else(|| anyhow!("{what}: must be a JSON object"))?;
            if let Some(c) = obj.get("config") {
                if n != 0 {
                    bail!("{what}: `config` may only be the first line");
                }
                only_keys(obj, &["config"], &what)?;
                let c = c
                    .as_object()
                    .ok_or_else(|| anyhow!("{what}: `config` must be an object"))?;
                let cw = format!("{what}, config");
                only_keys(c, &KEYS, &cw)?;
                let g = |k: &str, d: u64, max: u64| -> Result<u64> {
                    if c.contains_key(k) {
                        field_u64(c, k, max, &cw)
                    } else {
                        Ok(d)
                    }
                };
                cfg.node = g("node", 0, 0xFFFF)? as u16;
                cfg.nodes = g("nodes", cfg.nodes as u64, 65536)? as usize;
                cfg.mtu = g("mtu", cfg.mtu as u64, 4096)? as usize;
                cfg.rx_slots = g("rx_slots", cfg.rx_slots as u64, 1024)? as usize;
                cfg.max_msg = g("max_msg", cfg.max_msg as u64, 1 << 20)? as usize;
                cfg.max_rcv_buf = g("max_rcv_buf", cfg.max_rcv_buf as u64, 0xFFFF)? as u16;
                cfg.reserved = g("reserved", cfg.reserved as u64, 0xFFFF)? as u16;
                cfg.max_data_pkts = g("max_data_pkts", cfg.max_data_pkts as u64, 0xFFFF)? as u16;
                cfg.gch_timeout = g("gch_timeout", cfg.gch_timeout as u64, u32::MAX as u64)? as u32;
                if let Some(a) = c.get("accept") {
                    accept = parse_accept(a, &cw)?;
                }
                cfg.validate().map_err(|e| anyhow!("{cw}: {e}"))?;
                continue;
            }
            if end.is_some() {
                bail!("{what}: an event after the `end` event");
            }
            let cycle = obj
                .get("cycle")
                .and_then(Value::as_u64)
                .ok_or_else(|| anyhow!("{what}: an event needs a whole-number `cycle`"))?;
            if let Some(p) = obj.get("packet") {
                only_keys(obj, &["cycle", "packet"], &what)?;
                packets.push((cycle, parse_packet(p, &what)?));
            } else if obj.contains_key("send") {
                bail!("{what}: `send` is an NI event; the RMPP receive path has no host send port");
            } else if let Some(e) = obj.get("end") {
                only_keys(obj, &["cycle", "end"], &what)?;
                if e != &Value::Bool(true) {
                    bail!("{what}: `end` must be true");
                }
                end = Some(cycle);
            } else {
                bail!("{what}: expected `config`, `packet` or `end`");
            }
        }
        Ok(RmppTrace {
            config: cfg,
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

fn drop_reason(counter: usize) -> Option<&'static str> {
    Some(match counter {
        cnt::CRC => "crc",
        cnt::TRUNCATED => "truncated",
        cnt::MALFORMED => "malformed",
        cnt::MISROUTED => "misrouted",
        cnt::VERSION => "version",
        cnt::NOT_SOURCE => "not_source",
        cnt::ORDER => "order",
        cnt::SEQUENCE => "sequence",
        cnt::TABLE_FULL => "table_full",
        cnt::UNKNOWN => "unknown_message",
        cnt::DUPLICATE => "duplicate",
        cnt::BUSY => "busy",
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

/// Runs `trace` on `dut` (a receive path with the ports of docs/protocol.md §11.3) and returns
/// the output lines, summary last.
pub fn replay_rmpp<D: ClockedDut>(dut: &mut D, trace: &RmppTrace) -> Result<Vec<Value>> {
    let cfg = trace.config;
    let want = RmppRx::new(cfg)
        .map_err(|e| anyhow!(e))
        .map(|m| idemnet_model::block::ModelBlock::ports(&m))?;
    if dut.ports() != want {
        bail!("the block under replay does not have the RMPP receive path's ports");
    }
    let mut net = NetFeed::new(trace.packets.iter().map(|(c, p)| (*c, p.flits(), p.json())));
    let last_event = trace.packets.iter().map(|(c, _)| *c).max().unwrap_or(0);
    let limit = trace.end.unwrap_or(last_event + MAX_TAIL);
    let mut i = vec![0u64; inp::WORDS];
    let mut o = vec![0u64; out::WORDS];
    let mut lines = Lines::default();
    let mut reader = Reader::Idle;
    let mut t = 0u64;
    while t < limit {
        if trace.end.is_none()
            && net.idle()
            && t > last_event
            && t - lines.last.max(last_event) > QUIET
        {
            break;
        }
        let (flit, in_packet) = net.next(t);
        i[inp::NET_IN] = flit;
        // The upper layer: start reading what the ports showed after the last edge.
        if let Reader::Idle = reader {
            if o[out::UP_VALID] & 1 == 1 {
                reader = Reader::reading(true, o[out::UP_LEN].min(cfg.mtu as u64));
            } else if o[out::DLV_VALID] & 1 == 1 {
                reader = Reader::reading(false, o[out::DLV_LEN]);
            }
        }
        i[inp::TX_GNT] = 1;
        i[inp::UP_READY] = 0;
        i[inp::UP_ACCEPT] = 0;
        i[inp::DLV_READY] = 0;
        let mut taken = None;
        let mut reading = false;
        if let Reader::Reading {
            up,
            words,
            next,
            data,
        } = &mut reader
        {
            i[inp::RD_SLOT] = if *up {
                o[out::UP_SLOT]
            } else {
                o[out::DLV_SLOT]
            };
            if *next < *words {
                i[inp::RD_WORD] = *next;
                *next += 1;
                reading = true;
            } else if *up {
                i[inp::UP_READY] = 1;
                i[inp::UP_ACCEPT] = trace.accept as u64;
                let len = o[out::UP_LEN];
                let bytes = ni::words_to_bytes(data, len.min(cfg.mtu as u64) as usize);
                taken = Some(json!({ "cycle": t, "upcall": {
                    "src": o[out::UP_SRC], "msg_id": o[out::UP_MSG_ID],
                    "msg_num": o[out::UP_MSG_NUM], "len": len,
                    "data": hex::encode(bytes) } }));
            } else {
                i[inp::DLV_READY] = 1;
                let len = o[out::DLV_LEN];
                let bytes = ni::words_to_bytes(data, len as usize);
                taken = Some(json!({ "cycle": t, "deliver": {
                    "src": o[out::DLV_SRC], "msg_id": o[out::DLV_MSG_ID],
                    "len": len, "data": hex::encode(bytes) } }));
            }
        }
        dut.set_inputs(&i);
        dut.tick();
        dut.outputs(&mut o);

        if let (true, Reader::Reading { data, .. }) = (reading, &mut reader) {
            data.push(o[out::RD_DATA] as u32);
        }
        if let Some(line) = taken {
            reader = Reader::Idle;
            lines.push(t, t, 1, line);
        }
        lines.net_out(t, o[out::NET_OUT], |w| {
            Packet::from_flits(w).map(|p| packet_json(&p))
        });
        if o[out::SND_VALID] & 1 == 1 {
            let ty = Type::from_code(o[out::SND_TYPE] as u32).map(Type::name);
            let line = json!({ "cycle": t, "to_sender": {
                "type": ty, "src": o[out::SND_PEER], "msg_id": o[out::SND_MSG_ID],
                "len": o[out::SND_LEN], "seq": o[out::SND_SEQ],
                "info1": o[out::SND_INFO] & 0xFFFF, "info2": o[out::SND_INFO] >> 16,
                "msg_num": o[out::SND_MSG_NUM] } });
            lines.push(t, t, 2, line);
        }
        let shown = &o[out::COUNTERS..out::COUNTERS + COUNTERS.len()];
        lines.counters(t, shown, drop_reason, &in_packet);
        t += 1;
    }
    let summary = json!({
        "cycles": t,
        "packet": lines.count("packet"),
        "upcall": lines.count("upcall"),
        "deliver": lines.count("deliver"),
        "done": 0,
        "drop": lines.count("drop"),
        "to_sender": lines.count("to_sender"),
        "restart": o[out::COUNTERS + cnt::RESTART] & 0xFFFF,
    });
    Ok(lines.finish(summary))
}

/// Reads and parses a trace file.
pub fn read_rmpp_trace(path: &std::path::Path) -> Result<RmppTrace> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the trace", path.display()))?;
    RmppTrace::parse(&text).with_context(|| format!("{}", path.display()))
}

/// Runs `trace` on the golden model of the receive path.
pub fn replay_rmpp_model(trace: &RmppTrace) -> Result<Vec<Value>> {
    let rx = RmppRx::new(trace.config).map_err(|e| anyhow!(e))?;
    replay_rmpp(&mut crate::ModelDut::new(rx), trace)
}

/// Runs `trace` on the Verilated RTL of the receive path (built for the trace's configuration,
/// cached in `cache_dir`).
pub fn replay_rmpp_rtl(trace: &RmppTrace, cache_dir: &std::path::Path) -> Result<Vec<Value>> {
    let (verilog, ports) =
        idemnet_ni_core::rmpp_rx_verilog(&trace.config).map_err(|e| anyhow!(e))?;
    let lib = crate::verilate_design(verilog, ports, cache_dir)?;
    let mut dut = crate::Verilated {
        ports: lib.ports().to_vec(),
        instance: lib.instance(),
    };
    replay_rmpp(&mut dut, trace)
}
