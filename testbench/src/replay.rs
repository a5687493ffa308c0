//! Packet-level replay of one NI block from a JSON Lines trace, in the format of
//! `shared/conformance/README.md` (a contract: traces written by others run against it).
//!
//! One driver serves every engine: it presents the trace's packets flit by flit at `net_in` and
//! its host sends at the request port, keeps `dlv_ready` high, and turns what the block's ports
//! show into output lines: worms at `net_out` become `packet` lines (at the cycle of their head),
//! `dlv_valid` a `deliver` line, `done_valid` a `done` line, and every counter increment a `drop`
//! line naming the input packet whose flit was consumed in that cycle. The golden model and the
//! Verilated RTL therefore give identical output exactly when their ports agree.
//!
//! Decisions the contract leaves to the block (docs/protocol.md §8):
//! - The network input and the host request port are separate inputs, each a FIFO in file
//!   order: a packet is presented from its `cycle` or when the previous packet's last flit has
//!   gone in; a send from its `cycle` or when the previous send has been accepted.
//! - Without an `end` event the run stops once every event has been presented and no line has
//!   been produced for the quiet period, `2 * max(retry_interval, ack_interval) + 64` cycles, or
//!   at the latest 1,000,000 cycles after the last event's cycle.
//! - Drop reasons: `crc`, `truncated`, `malformed`, `misrouted`, `not_source`, `table_full`,
//!   `unknown_message` (a FORGET for a uid not held), `busy` (a late ACK while a late FORGET is
//!   already pending), `duplicate` (a repeated SEND, not delivered again).

use std::collections::VecDeque;

use anyhow::{anyhow, bail, Context, Result};
use idemnet_model::ni::{self, cnt, inp, out, Kind, NiConfig, Packet, COUNTERS, PAYLOAD_WORDS};
use serde_json::{json, Map, Value};

use crate::harness::ClockedDut;
use crate::replay_io::{Lines, NetFeed};

/// The NI configuration keys a trace may set.
const NI_KEYS: [&str; 6] = [
    "node",
    "nodes",
    "send_slots",
    "recv_slots",
    "retry_interval",
    "ack_interval",
];

/// Hard limit on the cycles run past the last event.
const MAX_TAIL: u64 = 1_000_000;

/// A parsed NI trace.
#[derive(Clone, Debug)]
pub struct NiTrace {
    pub config: NiConfig,
    pub nodes: u32,
    pub events: Vec<Event>,
    /// The cycle of an `end` event.
    pub end: Option<u64>,
}

/// One event of a trace.
#[derive(Clone, Debug)]
pub enum Event {
    Packet { cycle: u64, packet: Packet },
    Send { cycle: u64, dst: u16, data: Vec<u8> },
}

pub(crate) fn field_u64(obj: &Map<String, Value>, key: &str, max: u64, what: &str) -> Result<u64> {
    match obj.get(key) {
        None => Ok(0),
        Some(v) => {
            let n = v
                .as_u64()
                .ok_or_else(|| anyhow!("{what}: `{key}` must be a whole number, got {v}"))?;
            if n > max {
                bail!("{what}: `{key}` = {n} is out of range (at most {max})");
            }
            Ok(n)
        }
    }
}

pub(crate) fn hex_bytes(obj: &Map<String, Value>, what: &str) -> Result<Vec<u8>> {
    match obj.get("data") {
        None => Ok(vec![]),
        Some(Value::String(s)) => {
            hex::decode(s).map_err(|e| anyhow!("{what}: `data` is not hex bytes ({e})"))
        }
        Some(v) => bail!("{what}: `data` must be a hex string, got {v}"),
    }
}

pub(crate) fn only_keys(obj: &Map<String, Value>, allowed: &[&str], what: &str) -> Result<()> {
    for k in obj.keys() {
        if !allowed.contains(&k.as_str()) {
            bail!(
                "{what}: unknown key `{k}` (allowed: {})",
                allowed.join(", ")
            );
        }
    }
    Ok(())
}

pub(crate) fn parse_packet(v: &Value, what: &str) -> Result<Packet> {
    let obj = v
        .as_object()
        .ok_or_else(|| anyhow!("{what}: `packet` must be an object"))?;
    only_keys(obj, &["type", "src", "dst", "uid", "data"], what)?;
    let kind = match obj.get("type").and_then(Value::as_str) {
        Some("SEND") => Kind::Send,
        Some("ACK") => Kind::Ack,
        Some("FORGET") => Kind::Forget,
        Some(t) => bail!("{what}: packet type `{t}` is not one of the NI's (SEND, ACK, FORGET)"),
        None => bail!("{what}: the packet has no `type` string"),
    };
    let data = hex_bytes(obj, what)?;
    if data.len() > 63 {
        bail!(
            "{what}: {} data bytes do not fit the 6-bit length field (at most 63)",
            data.len()
        );
    }
    Ok(Packet {
        kind,
        src: field_u64(obj, "src", 0xFFFF, what)? as u16,
        dst: field_u64(obj, "dst", 0xFFFF, what)? as u16,
        uid: field_u64(obj, "uid", 0xFFFF_FFFF, what)? as u32,
        data,
    })
}

impl NiTrace {
    /// Parses the text of a trace; errors name the line.
    pub fn parse(text: &str) -> Result<NiTrace> {
        let mut cfg = NiConfig::default();
        let mut nodes = 16u32;
        let mut events = vec![];
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
                if n != 0 || !events.is_empty() {
                    bail!("{what}: `config` may only be the first line");
                }
                only_keys(obj, &["config"], &what)?;
                let c = c
                    .as_object()
                    .ok_or_else(|| anyhow!("{what}: `config` must be an object"))?;
                only_keys(c, &NI_KEYS, &format!("{what}, config"))?;
                let g = |k: &str, d: u64, max: u64| -> Result<u64> {
                    if c.contains_key(k) {
                        field_u64(c, k, max, &format!("{what}, config"))
                    } else {
                        Ok(d)
                    }
                };
                nodes = g("nodes", 16, 65536)? as u32;
                cfg.node = g("node", 0, 0xFFFF)? as u16;
                cfg.send_slots = g("send_slots", cfg.send_slots as u64, 16)? as usize;
                cfg.recv_slots = g("recv_slots", cfg.recv_slots as u64, 16)? as usize;
                cfg.retry_interval = g("retry_interval", cfg.retry_interval as u64, 0xFFFF)? as u16;
                cfg.ack_interval = g("ack_interval", cfg.ack_interval as u64, 0xFFFF)? as u16;
                cfg.validate().map_err(|e| anyhow!("{what}, config: {e}"))?;
                if nodes == 0 || cfg.node as u32 >= nodes {
                    bail!(
                        "{what}, config: node {} is not one of {nodes} nodes",
                        cfg.node
                    );
                }
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
                events.push(Event::Packet {
                    cycle,
                    packet: parse_packet(p, &what)?,
                });
            } else if let Some(s) = obj.get("send") {
                only_keys(obj, &["cycle", "send"], &what)?;
                let s = s
                    .as_object()
                    .ok_or_else(|| anyhow!("{what}: `send` must be an object"))?;
                only_keys(s, &["dst", "data"], &what)?;
                let dst = field_u64(s, "dst", 0xFFFF, &what)? as u16;
                if dst as u32 >= nodes {
                    bail!("{what}: send to node {dst}, but there are {nodes} nodes");
                }
                let data = hex_bytes(s, &what)?;
                if data.len() > ni::MAX_PAYLOAD {
                    bail!(
                        "{what}: {} data bytes, the NI sends at most {}",
                        data.len(),
                        ni::MAX_PAYLOAD
                    );
                }
                events.push(Event::Send { cycle, dst, data });
            } else if let Some(e) = obj.get("end") {
                only_keys(obj, &["cycle", "end"], &what)?;
                if e != &Value::Bool(true) {
                    bail!("{what}: `end` must be true");
                }
                end = Some(cycle);
            } else {
                bail!("{what}: expected `config`, `packet`, `send` or `end`");
            }
        }
        Ok(NiTrace {
            config: cfg,
            nodes,
            events,
            end,
        })
    }
}

/// A packet as a JSON object of the contract.
pub fn packet_json(p: &Packet) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(p.kind.name()));
    m.insert("src".into(), json!(p.src));
    m.insert("dst".into(), json!(p.dst));
    m.insert("uid".into(), json!(p.uid));
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
        cnt::NOT_SOURCE => "not_source",
        cnt::TABLE_FULL => "table_full",
        cnt::UNKNOWN => "unknown_message",
        cnt::BUSY => "busy",
        cnt::DUPLICATE => "duplicate",
        _ => return None,
    })
}

/// Runs `trace` on `dut` (an NI with the ports of docs/protocol.md §8.2) and returns the output
/// lines, summary last.
pub fn replay_ni<D: ClockedDut>(dut: &mut D, trace: &NiTrace) -> Result<Vec<Value>> {
    let want = ni::Ni::new(trace.config)
        .map_err(|e| anyhow!(e))
        .map(|m| idemnet_model::block::ModelBlock::ports(&m))?;
    if dut.ports() != want {
        bail!("the block under replay does not have the NI's ports");
    }
    let mut net = vec![];
    let mut host: VecDeque<(u64, u16, Vec<u8>)> = VecDeque::new();
    let mut last_event = 0;
    for e in &trace.events {
        match e {
            Event::Packet { cycle, packet } => {
                net.push((*cycle, packet.flits(), packet_json(packet)));
                last_event = last_event.max(*cycle);
            }
            Event::Send { cycle, dst, data } => {
                host.push_back((*cycle, *dst, data.clone()));
                last_event = last_event.max(*cycle);
            }
        }
    }
    let mut net = NetFeed::new(net);
    let quiet = 2 * trace.config.retry_interval.max(trace.config.ack_interval) as u64 + 64;
    let limit = trace.end.unwrap_or(last_event + MAX_TAIL);
    let mut i = vec![0u64; inp::WORDS];
    let mut o = vec![0u64; out::WORDS];
    let mut lines = Lines::default();
    let mut cur_req: Option<(u16, Vec<u8>)> = None;
    let mut t = 0u64;
    while t < limit {
        let idle = net.idle() && host.is_empty() && cur_req.is_none();
        if trace.end.is_none() && idle && t > last_event && t - lines.last.max(last_event) > quiet {
            break;
        }
        let (flit, in_packet) = net.next(t);
        i[inp::NET_IN] = flit;
        // Host request, held until accepted.
        if cur_req.is_none() && host.front().is_some_and(|(c, _, _)| *c <= t) {
            let (_, d, data) = host.pop_front().unwrap_or_else(|| unreachable!());
            cur_req = Some((d, data));
        }
        let ready_before = o[out::REQ_READY] & 1 == 1;
        match &cur_req {
            Some((d, data)) => {
                let mut w = [0u32; PAYLOAD_WORDS];
                for (j, x) in ni::bytes_to_words(data).into_iter().enumerate() {
                    w[j] = x;
                }
                i[inp::REQ_VALID] = 1;
                i[inp::REQ_DST] = *d as u64;
                i[inp::REQ_LEN] = data.len() as u64;
                i[inp::REQ_DATA..inp::REQ_DATA + 4].copy_from_slice(&ni::bus_from_words(&w));
            }
            None => {
                i[inp::REQ_VALID..inp::REQ_DATA + 4].fill(0);
            }
        }
        if ready_before && cur_req.is_some() {
            cur_req = None;
        }
        i[inp::DLV_READY] = 1;
        i[inp::TX_GNT] = 1;
        dut.set_inputs(&i);
        dut.tick();
        dut.outputs(&mut o);

        lines.net_out(t, o[out::NET_OUT], |w| {
            Packet::from_flits(w).map(|p| packet_json(&p))
        });
        if o[out::DLV_VALID] & 1 == 1 {
            let words = ni::words_from_bus(&o[out::DLV_DATA..out::DLV_DATA + 4]);
            let len = (o[out::DLV_LEN] & 0x3F) as usize;
            let line = json!({ "cycle": t, "deliver": {
                "src": o[out::DLV_SRC], "uid": o[out::DLV_UID], "len": len,
                "data": hex::encode(ni::words_to_bytes(&words, len)) } });
            lines.push(t, t, 1, line);
        }
        if o[out::DONE_VALID] & 1 == 1 {
            lines.push(
                t,
                t,
                2,
                json!({ "cycle": t, "done": { "uid": o[out::DONE_UID] } }),
            );
        }
        let shown = &o[out::COUNTERS..out::COUNTERS + COUNTERS.len()];
        lines.counters(t, shown, drop_reason, &in_packet);
        t += 1;
    }
    let summary = json!({
        "cycles": t,
        "packet": lines.count("packet"),
        "upcall": 0,
        "deliver": lines.count("deliver"),
        "done": lines.count("done"),
        "drop": lines.count("drop"),
        "retransmit": o[out::COUNTERS + cnt::RETRANSMIT] & 0xFFFF,
    });
    Ok(lines.finish(summary))
}

/// Reads and parses a trace file.
pub fn read_ni_trace(path: &std::path::Path) -> Result<NiTrace> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the trace", path.display()))?;
    NiTrace::parse(&text).with_context(|| format!("{}", path.display()))
}

/// Runs `trace` on the golden model of the NI.
pub fn replay_ni_model(trace: &NiTrace) -> Result<Vec<Value>> {
    let ni = ni::Ni::new(trace.config).map_err(|e| anyhow!(e))?;
    replay_ni(&mut crate::ModelDut::new(ni), trace)
}

/// Runs `trace` on the Verilated RTL of the NI (built for the trace's configuration, cached in
/// `cache_dir`).
pub fn replay_ni_rtl(trace: &NiTrace, cache_dir: &std::path::Path) -> Result<Vec<Value>> {
    let (verilog, ports) = idemnet_ni_core::ni_verilog(&trace.config).map_err(|e| anyhow!(e))?;
    let lib = crate::verilate_design(verilog, ports, cache_dir)?;
    let mut dut = crate::Verilated {
        ports: lib.ports().to_vec(),
        instance: lib.instance(),
    };
    replay_ni(&mut dut, trace)
}
