//! Packet-level replay of one NI block from a JSON Lines trace, in the format of
//! docs/replay.md.
//!
//! One driver serves every engine: it presents the trace's packets flit by flit at `net_in` and
//! streams its host sends into the request stream (docs/protocol.md §8.5), keeps `dlv_ready`
//! high, and turns what the block's ports show into output lines: worms at `net_out` become
//! `packet` lines (at the cycle of their head), a datagram's delivery beats a `deliver` line (at
//! the cycle of its first beat, made when its last beat shows), `done_valid` a `done` line, and every counter
//! increment a `drop` line naming the input packet whose flit was consumed in that cycle. The golden model and the
//! Verilated RTL therefore give identical output exactly when their ports agree; cycles in which
//! the block has settled are skipped by the same rule on both (docs/replay.md, "Idle cycles").
//!
//! Decisions the trace format leaves to the block (docs/protocol.md §8):
//! - The network input and the host request stream are separate inputs, each a FIFO in file
//!   order: a packet is presented from its `cycle` or when the previous packet's last flit has
//!   gone in; a send from its `cycle` or when the previous send's last beat has been taken.
//! - Without an `end` event the run stops once every event has been presented and no line has
//!   been produced for the quiet period, `2 * max(retry_interval, ack_interval) + 64` cycles, or
//!   at the latest 1,000,000 cycles after the last event's cycle.
//! - Drop reasons: `crc`, `truncated`, `malformed`, `misrouted`, `table_full`,
//!   `unknown_message` (a FORGET for a uid not held), `busy` (a late ACK while a late FORGET is
//!   already pending), `duplicate` (a repeated SEND, not delivered again).

use std::collections::VecDeque;
use std::io::Write;

use anyhow::{anyhow, bail, Result};
use idemnet_model::ni::{self, cnt, inp, out, Kind, NiConfig, Packet, COUNTERS};
use idemnet_model::stream::{Beats, Collect};
use serde_json::{json, Map, Value};

use crate::harness::ClockedDut;
use crate::replay_io::{
    field_u64, hex_bytes, only_keys, read_lines, read_trace, shown, verilated, Clock, Line,
    NetFeed, Output, WirePacket, DROP_LAG,
};
pub use crate::replay_io::{
    Engine, Idle, BUSY_BOUND, BUSY_BOUND_TEXT, CYCLE_BOUND, CYCLE_BOUND_TEXT,
};

/// The ACK interval of a trace that names none (docs/replay.md's table): the NI's default
/// until issue 17 halved it, kept so that every trace means what it meant.
pub const TRACE_ACK_INTERVAL: u16 = 64;

/// The NI configuration keys a trace may set.
pub const NI_KEYS: [&str; 7] = [
    "node",
    "nodes",
    "send_slots",
    "recv_slots",
    "retry_interval",
    "retry_spread",
    "ack_interval",
];

/// Hard limit on the cycles run past the last event.
pub const MAX_TAIL: u64 = 1_000_000;

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

impl Event {
    /// The earliest cycle the event is presented at.
    pub fn cycle(&self) -> u64 {
        match self {
            Event::Packet { cycle, .. } | Event::Send { cycle, .. } => *cycle,
        }
    }
}

impl WirePacket for Packet {
    fn flits(&self) -> Vec<u64> {
        Packet::flits(self)
    }
    fn json(&self) -> Value {
        packet_json(self)
    }
}

pub(crate) fn parse_packet(value: &Value, what: &str) -> Result<Packet> {
    let object = value
        .as_object()
        .ok_or_else(|| anyhow!("{what}: `packet` must be an object"))?;
    only_keys(object, &["type", "src", "dst", "uid", "data"], what)?;
    let kind = match object.get("type").and_then(Value::as_str) {
        Some("SEND") => Kind::Send,
        Some("ACK") => Kind::Ack,
        Some("FORGET") => Kind::Forget,
        Some(other) => bail!(
            "{what}: packet type `{}` is not one of the NI's (SEND, ACK, FORGET)",
            shown(other)
        ),
        None => bail!("{what}: the packet has no `type` string"),
    };
    let data = hex_bytes(object, what)?;
    if data.len() > 63 {
        bail!(
            "{what}: {} data bytes do not fit the 6-bit length field (at most 63)",
            data.len()
        );
    }
    let packet = Packet {
        kind,
        src: field_u64(object, "src", 0xFFFF, what)? as u16,
        dst: field_u64(object, "dst", 0xFFFF, what)? as u16,
        uid: field_u64(object, "uid", 0xFFFF_FFFF, what)? as u32,
        data,
    };
    if !packet.owner_fits() {
        let (owner, route) = match kind {
            Kind::Ack => ("dst", packet.dst),
            Kind::Send | Kind::Forget => ("src", packet.src),
        };
        bail!(
            "{what}: uid {} belongs to node {}, but a{} {}'s uid belongs to its `{owner}` ({route}): \
             the wire carries only the uid's counter (docs/protocol.md §8.1)",
            packet.uid,
            packet.uid >> 16,
            if kind == Kind::Ack { "n" } else { "" },
            kind.name()
        );
    }
    Ok(packet)
}

impl NiTrace {
    /// Parses the text of a trace; errors name the line.
    pub fn parse(text: &str) -> Result<NiTrace> {
        // A trace's ACK interval is 64 cycles unless it says otherwise (docs/replay.md), as before
        // the NI's default became 32 (docs/protocol.md §8.7): a trace keeps its meaning.
        let mut config = NiConfig {
            ack_interval: TRACE_ACK_INTERVAL,
            ..NiConfig::default()
        };
        let mut nodes = 16u32;
        let mut events = vec![];
        let end = read_lines(text, &NI_KEYS, |what, line| {
            match line {
                Line::Config(c) => {
                    nodes = c.get("nodes", 16, 65536)? as u32;
                    config.node = c.get("node", 0, 0xFFFF)? as u16;
                    config.send_slots = c.get("send_slots", config.send_slots as u64, 16)? as usize;
                    config.recv_slots = c.get("recv_slots", config.recv_slots as u64, 16)? as usize;
                    config.retry_interval =
                        c.get("retry_interval", config.retry_interval as u64, 0xFFFF)? as u16;
                    // Left out, the spread is the interval's default (§8.2), valid for any
                    // interval.
                    let spread = NiConfig::spread_for(config.retry_interval);
                    config.retry_spread = c.get("retry_spread", spread as u64, 0x8000)? as u16;
                    config.ack_interval =
                        c.get("ack_interval", config.ack_interval as u64, 0xFFFF)? as u16;
                    config.validate().map_err(|e| anyhow!("{what}: {e}"))?;
                    if nodes == 0 || config.node as u32 >= nodes {
                        bail!("{what}: node {} is not one of {nodes} nodes", config.node);
                    }
                }
                Line::Event(cycle, object) => {
                    if let Some(p) = object.get("packet") {
                        only_keys(object, &["cycle", "packet"], what)?;
                        events.push(Event::Packet {
                            cycle,
                            packet: parse_packet(p, what)?,
                        });
                    } else if let Some(send) = object.get("send") {
                        only_keys(object, &["cycle", "send"], what)?;
                        let send = send
                            .as_object()
                            .ok_or_else(|| anyhow!("{what}: `send` must be an object"))?;
                        only_keys(send, &["dst", "data"], what)?;
                        let dst = field_u64(send, "dst", 0xFFFF, what)? as u16;
                        if dst as u32 >= nodes {
                            bail!("{what}: send to node {dst}, but there are {nodes} nodes");
                        }
                        let data = hex_bytes(send, what)?;
                        if data.len() > ni::MAX_PAYLOAD {
                            bail!(
                                "{what}: {} data bytes, the NI sends at most {}",
                                data.len(),
                                ni::MAX_PAYLOAD
                            );
                        }
                        events.push(Event::Send { cycle, dst, data });
                    } else {
                        bail!("{what}: expected `config`, `packet`, `send` or `end`");
                    }
                }
            }
            Ok(())
        })?;
        Ok(NiTrace {
            config,
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

/// The drop reason a counter names, and how many cycles before a counter shows it the flit
/// that decided it went in (docs/protocol.md §8.2: a counter shows an event a cycle after its
/// edge; §8.3's reasons are decided at the flit's edge, §8.4's at the action edge, the edge
/// after the CRC flit's).
fn drop_reason(counter: usize) -> Option<(&'static str, u64)> {
    Some(match counter {
        cnt::CRC => ("crc", 1),
        cnt::TRUNCATED => ("truncated", 1),
        cnt::MALFORMED => ("malformed", 1),
        cnt::MISROUTED => ("misrouted", 1),
        cnt::TABLE_FULL => ("table_full", 2),
        cnt::UNKNOWN => ("unknown_message", 2),
        cnt::BUSY => ("busy", 2),
        cnt::DUPLICATE => ("duplicate", 2),
        _ => return None,
    })
}

/// Every reason a `drop` line of the NI may name.
pub fn ni_drop_reasons() -> Vec<&'static str> {
    (0..COUNTERS.len())
        .filter_map(drop_reason)
        .map(|(reason, _)| reason)
        .collect()
}

/// Runs `trace` on `dut` (an NI with the ports of docs/protocol.md §8.2) and writes the output
/// lines to `writer` as they are made, summary last.
pub fn replay_ni<D: ClockedDut>(
    dut: &mut D,
    trace: &NiTrace,
    idle: Idle,
    writer: &mut dyn Write,
) -> Result<()> {
    let want = ni::Ni::new(trace.config)
        .map_err(|e| anyhow!(e))
        .map(|m| idemnet_model::block::ModelBlock::ports(&m))?;
    if dut.ports() != want {
        bail!("the block under replay does not have the NI's ports");
    }
    let mut net = NetFeed::new(trace.events.iter().filter_map(|e| match e {
        Event::Packet { cycle, packet } => Some((*cycle, packet)),
        Event::Send { .. } => None,
    }));
    let mut host: VecDeque<(u64, u16, &[u8])> = trace
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Send { cycle, dst, data } => Some((*cycle, *dst, data.as_slice())),
            Event::Packet { .. } => None,
        })
        .collect();
    let last_event = trace.events.iter().map(Event::cycle).max().unwrap_or(0);
    // Every slot still busy shows a packet within max(interval) cycles, and every timer of a
    // free slot has run out by then: twice that, with room for the worms, settles the NI.
    let quiet = 2 * trace.config.retry_interval.max(trace.config.ack_interval) as u64 + 64;
    let mut clock = Clock::new(idle, trace.end, last_event, quiet, MAX_TAIL);
    let mut inputs = vec![0u64; inp::WORDS];
    let mut outputs = vec![0u64; out::WORDS];
    let mut output = Output::new(writer);
    let mut request: Option<(u16, &[u8], Beats)> = None;
    let mut delivery = Collect::default();
    loop {
        let delivering = outputs[out::DLV_VALID] & 1 == 1;
        let idle = net.between_packets() && request.is_none() && !delivering;
        let next_input = [net.next_cycle(), host.front().map(|(c, _, _)| *c)]
            .into_iter()
            .flatten()
            .min();
        let Some(now) = clock.next(&output, idle, next_input, quiet)? else {
            break;
        };
        let (flit, _) = net.next(now);
        inputs[inp::NET_IN] = flit;
        // Host request: its beats, each held until taken.
        if request.is_none() && host.front().is_some_and(|(c, _, _)| *c <= now) {
            request = host
                .pop_front()
                .map(|(_, dst, data)| (dst, data, Beats::new(data)));
        }
        let ready_before = outputs[out::REQ_READY] & 1 == 1;
        let presented = flit != 0 || request.is_some();
        match request.as_mut() {
            Some((dst, data, beats)) => {
                let (word, last) = beats.beat();
                inputs[inp::REQ_VALID] = 1;
                inputs[inp::REQ_DATA] = word as u64;
                inputs[inp::REQ_LAST] = last as u64;
                inputs[inp::REQ_DST] = *dst as u64;
                inputs[inp::REQ_LEN] = data.len() as u64;
                if ready_before && beats.taken() {
                    request = None;
                }
            }
            None => inputs[inp::REQ_VALID..=inp::REQ_LEN].fill(0),
        }
        inputs[inp::DLV_READY] = 1;
        inputs[inp::TX_GNT] = 1;
        dut.set_inputs(&inputs);
        dut.tick();
        dut.outputs(&mut outputs);

        output.net_out(now, outputs[out::NET_OUT], |w| {
            Packet::from_flits(w).map(|p| packet_json(&p))
        });
        // Delivery beats: `dlv_ready` is always high, so every beat shown is taken next cycle
        // and the next one shown after it.
        if outputs[out::DLV_VALID] & 1 == 1 {
            let (data, last) = (
                outputs[out::DLV_DATA] as u32,
                outputs[out::DLV_LAST] & 1 == 1,
            );
            if let Some((words, first)) = delivery.beat(now, data, last) {
                let len = (outputs[out::DLV_LEN] & 0x3F) as usize;
                let line = json!({ "cycle": first, "deliver": {
                    "src": outputs[out::DLV_SRC], "uid": outputs[out::DLV_UID], "len": len,
                    "data": hex::encode(ni::words_to_bytes(&words, len)) } });
                output.push(now, first, 1, "deliver", line);
            }
        }
        if outputs[out::DONE_VALID] & 1 == 1 {
            let line = json!({ "cycle": now, "done": { "uid": outputs[out::DONE_UID] } });
            output.push(now, now, 2, "done", line);
        }
        let counters = &outputs[out::COUNTERS..out::COUNTERS + COUNTERS.len()];
        output.counters(now, counters, drop_reason, |cycle| net.packet_at(cycle));
        clock.ticked(presented, &inputs, &outputs);
        // A delivery whose last beat is still to come holds back the lines from its first on,
        // and a drop shown up to DROP_LAG cycles from now is of a cycle after now - DROP_LAG.
        let drops_from = now.saturating_sub(DROP_LAG - 1);
        let delivering_from = (delivery.pending() > 0).then_some(delivery.first_shown);
        output.hold(Some(
            delivering_from.map_or(drops_from, |d| d.min(drops_from)),
        ));
        output.flush(now)?;
    }
    let summary = json!({
        "cycles": clock.now,
        "packet": output.count("packet"),
        "upcall": 0,
        "deliver": output.count("deliver"),
        "done": output.count("done"),
        "drop": output.count("drop"),
        "retransmit": outputs[out::COUNTERS + cnt::RETRANSMIT] & 0xFFFF,
    });
    output.finish(summary)
}

/// Reads and parses a trace file.
pub fn read_ni_trace(path: &std::path::Path) -> Result<NiTrace> {
    read_trace(path, NiTrace::parse)
}

/// Runs `trace` on `engine`.
pub fn replay_ni_on(
    engine: Engine,
    trace: &NiTrace,
    idle: Idle,
    writer: &mut dyn Write,
) -> Result<()> {
    match engine {
        Engine::Model => {
            let ni = ni::Ni::new(trace.config).map_err(|e| anyhow!(e))?;
            replay_ni(&mut crate::ModelDut::new(ni), trace, idle, writer)
        }
        Engine::Rtl { cache_dir } => {
            let design = idemnet_ni_core::ni_verilog(&trace.config);
            replay_ni(&mut verilated(design, cache_dir)?, trace, idle, writer)
        }
    }
}
