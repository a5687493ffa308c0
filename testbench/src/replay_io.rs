//! What every replay driver shares, so that the NI's and the RMPP receive path's drivers differ
//! only in their configuration, their packets and their host side:
//!
//! - reading a trace: strict JSON lines (duplicate keys refused as unknown keys are), the
//!   configuration first, events with bounded cycles, the `end` event;
//! - the network input, fed flit by flit from the trace's packets;
//! - the output lines, streamed to a writer in cycle order as soon as no later line can come
//!   before them (a `packet` line is only known when its worm's tail has gone out);
//! - the clock of a run: when it stops, and which cycles it may skip because the block cannot
//!   change in them (docs/replay.md, "Idle cycles").

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::io::Write;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use idemnet_model::ports::PortSpec;
use idemnet_model::switch::{HEAD, TAIL, VALID};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Map, Number, Value};

use crate::Verilated;

/// Cycles of a trace are below this bound: far beyond any run that ticks the block, and low
/// enough that a cycle plus any of the replay's periods cannot overflow 64 bits.
pub const CYCLE_BOUND: u64 = 1 << 62;
/// The same bound as the documentation and the error messages write it.
pub const CYCLE_BOUND_TEXT: &str = "2^62 = 4611686018427387904";

/// A block that keeps changing with no input (an NI retransmitting a SEND or repeating an ACK)
/// is ticked through at most this many cycles after its last input before a later event; a
/// longer gap would run for hours and is refused. 2^24 cycles take about 15 s on the RTL.
pub const BUSY_BOUND: u64 = 1 << 24;
/// [`BUSY_BOUND`] as the documentation and the error messages write it.
pub const BUSY_BOUND_TEXT: &str = "2^24 = 16777216";

/// `text` made safe to show inside a one-line message: control characters escaped.
pub(crate) fn shown(text: &str) -> String {
    text.escape_debug().to_string()
}

/// A JSON value read like `serde_json::Value`, except that an object with a repeated key is an
/// error: serde_json keeps the last of the repeats silently, so a trace could say two things
/// and mean one.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }
    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }
    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }
    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }
    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }
    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = vec![];
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate key `{}`",
                    shown(&key)
                )));
            }
            let Strict(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// One line of a trace as JSON, or what is wrong with it (one line, columns within the line).
fn strict_json(line: &str) -> std::result::Result<Value, String> {
    let mut deserializer = serde_json::Deserializer::from_str(line);
    let parsed = Strict::deserialize(&mut deserializer).and_then(|Strict(value)| {
        deserializer.end()?;
        Ok(value)
    });
    parsed.map_err(|error| {
        // serde_json counts lines within the one line it was given; only the column helps.
        let full = error.to_string();
        let place = format!(" at line {} column {}", error.line(), error.column());
        let message = full.strip_suffix(&place).unwrap_or(&full);
        match error.classify() {
            serde_json::error::Category::Data => format!("{message} (column {})", error.column()),
            _ => format!("not JSON ({message} at column {})", error.column()),
        }
    })
}

/// A number field of `object`, 0 when absent, at most `max`.
pub(crate) fn field_u64(
    object: &Map<String, Value>,
    key: &str,
    max: u64,
    what: &str,
) -> Result<u64> {
    match object.get(key) {
        None => Ok(0),
        Some(value) => {
            let number = value
                .as_u64()
                .ok_or_else(|| anyhow!("{what}: `{key}` must be a whole number, got {value}"))?;
            if number > max {
                bail!("{what}: `{key}` = {number} is out of range (at most {max})");
            }
            Ok(number)
        }
    }
}

/// The `data` field of `object` as bytes, empty when absent.
pub(crate) fn hex_bytes(object: &Map<String, Value>, what: &str) -> Result<Vec<u8>> {
    match object.get("data") {
        None => Ok(vec![]),
        Some(Value::String(text)) => {
            hex::decode(text).map_err(|e| anyhow!("{what}: `data` is not hex bytes ({e})"))
        }
        Some(value) => bail!("{what}: `data` must be a hex string, got {value}"),
    }
}

/// Refuses any key of `object` not in `allowed`.
pub(crate) fn only_keys(object: &Map<String, Value>, allowed: &[&str], what: &str) -> Result<()> {
    for key in object.keys() {
        if !allowed.contains(&key.as_str()) {
            bail!(
                "{what}: unknown key `{}` (allowed: {})",
                shown(key),
                allowed.join(", ")
            );
        }
    }
    Ok(())
}

/// The configuration line, its keys checked against the block's.
pub(crate) struct Config<'a> {
    pub object: &'a Map<String, Value>,
    /// `line N, config`, to name it in errors.
    pub what: String,
}

impl Config<'_> {
    /// The value of `key`: `default` when absent, at most `max`.
    pub fn get(&self, key: &str, default: u64, max: u64) -> Result<u64> {
        if self.object.contains_key(key) {
            field_u64(self.object, key, max, &self.what)
        } else {
            Ok(default)
        }
    }
}

/// What [`read_lines`] hands the block's parser.
pub(crate) enum Line<'a> {
    /// The configuration (only ever the first line).
    Config(Config<'a>),
    /// An event other than `end`: its cycle and the whole line.
    Event(u64, &'a Map<String, Value>),
}

/// Reads the lines of a trace with the checks both blocks share, handing the configuration
/// (whose keys must be among `keys`) and every event to `parse` (with `line N` to name it in
/// errors), and returns the `end` event's cycle. Errors name the line.
pub(crate) fn read_lines(
    text: &str,
    keys: &[&str],
    mut parse: impl FnMut(&str, Line) -> Result<()>,
) -> Result<Option<u64>> {
    let mut end = None;
    let mut first = true;
    // The latest cycle of an event so far, and its line, for the check of `end`.
    let mut latest: Option<(u64, usize)> = None;
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = index + 1;
        let what = format!("line {number}");
        let value = strict_json(line).map_err(|e| anyhow!("{what}: {e}"))?;
        let object = value
            .as_object()
            .ok_or_else(|| anyhow!("{what}: must be a JSON object"))?;
        let is_first = std::mem::replace(&mut first, false);
        if let Some(config) = object.get("config") {
            if !is_first {
                bail!("{what}: `config` may only be the first line");
            }
            only_keys(object, &["config"], &what)?;
            let object = config
                .as_object()
                .ok_or_else(|| anyhow!("{what}: `config` must be an object"))?;
            let what = format!("{what}, config");
            only_keys(object, keys, &what)?;
            parse(
                &what,
                Line::Config(Config {
                    object,
                    what: what.clone(),
                }),
            )?;
            continue;
        }
        if end.is_some() {
            bail!("{what}: an event after the `end` event");
        }
        let cycle = match object.get("cycle") {
            Some(c) => c.as_u64().filter(|&c| c < CYCLE_BOUND).ok_or_else(|| {
                anyhow!("{what}: `cycle` must be a whole number below {CYCLE_BOUND_TEXT}, got {c}")
            })?,
            None => bail!("{what}: an event needs a whole-number `cycle`"),
        };
        if let Some(flag) = object.get("end") {
            only_keys(object, &["cycle", "end"], &what)?;
            if flag != &Value::Bool(true) {
                bail!("{what}: `end` must be true");
            }
            if let Some((at, event_line)) = latest.filter(|(at, _)| *at >= cycle) {
                bail!(
                    "{what}: `end` at cycle {cycle} stops the run before the event of line \
                     {event_line} (cycle {at}) is presented"
                );
            }
            end = Some(cycle);
            continue;
        }
        parse(&what, Line::Event(cycle, object))?;
        if latest.is_none_or(|(at, _)| cycle > at) {
            latest = Some((cycle, number));
        }
    }
    Ok(end)
}

/// Reads and parses (with `parse`) a trace file; bytes that are not UTF-8 are named by their
/// line, and every error names the file.
pub(crate) fn read_trace<T>(path: &Path, parse: impl Fn(&str) -> Result<T>) -> Result<T> {
    let name = shown(&path.display().to_string());
    let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read the trace"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        anyhow!("{name}: line {line}: not UTF-8 text")
    })?;
    parse(&text).with_context(|| name)
}

/// The Verilated RTL of a `design` (Verilog and ports), built in `cache_dir` or taken from it.
pub(crate) fn verilated(
    design: std::result::Result<(String, Vec<PortSpec>), String>,
    cache_dir: &Path,
) -> Result<Verilated> {
    let (verilog, ports) = design.map_err(|e| anyhow!(e))?;
    let lib = crate::verilate_design(verilog, ports, cache_dir)?;
    Ok(Verilated {
        ports: lib.ports().to_vec(),
        instance: lib.instance(),
    })
}

/// A packet of a trace as the network input and the output lines need it.
pub(crate) trait WirePacket {
    /// The worm.
    fn flits(&self) -> Vec<u64>;
    /// The packet as a trace line shows it.
    fn json(&self) -> Value;
}

/// The longest a block takes to show a drop in its counters after the flit that decided it
/// went in (docs/protocol.md §8.2 and §11.3: a counter shows an event a cycle after its edge,
/// and the reasons of a packet's action are decided at the edge after its CRC flit's).
pub(crate) const DROP_LAG: u64 = 2;

/// The network input: each packet from its `cycle`, or once the previous one has gone in. A
/// worm is built only when its packet is presented, so a long trace is not held as flits.
pub(crate) struct NetFeed<'a, P> {
    queue: VecDeque<(u64, &'a P)>,
    current: Option<(Vec<u64>, usize, &'a P)>,
    /// The packets whose flits went in in the last `DROP_LAG + 1` cycles fed, as (cycle,
    /// packet), newest first, to name a drop's packet when its counter shows it.
    recent: [(u64, Option<&'a P>); DROP_LAG as usize + 1],
}

impl<'a, P: WirePacket> NetFeed<'a, P> {
    /// Packets as (cycle, packet), in file order.
    pub fn new(packets: impl IntoIterator<Item = (u64, &'a P)>) -> NetFeed<'a, P> {
        NetFeed {
            queue: packets.into_iter().collect(),
            current: None,
            recent: [(u64::MAX, None); DROP_LAG as usize + 1],
        }
    }

    /// No packet is going in now.
    pub fn between_packets(&self) -> bool {
        self.current.is_none()
    }

    /// The cycle from which the next packet not yet begun may go in.
    pub fn next_cycle(&self) -> Option<u64> {
        self.queue.front().map(|(cycle, _)| *cycle)
    }

    /// The packet a flit of cycle `cycle` belonged to, if that cycle is one of the last
    /// `DROP_LAG + 1` fed (a cycle skipped had no flit).
    pub fn packet_at(&self, cycle: u64) -> Option<&'a P> {
        self.recent
            .iter()
            .find(|(c, _)| *c == cycle)
            .and_then(|(_, p)| *p)
    }

    /// The flit of cycle `cycle` and the packet it belongs to.
    pub fn next(&mut self, cycle: u64) -> (u64, Option<&'a P>) {
        let (flit, packet) = self.feed(cycle);
        self.recent.rotate_right(1);
        self.recent[0] = (cycle, packet);
        (flit, packet)
    }

    fn feed(&mut self, cycle: u64) -> (u64, Option<&'a P>) {
        if self.current.is_none() && self.next_cycle().is_some_and(|c| c <= cycle) {
            if let Some((_, packet)) = self.queue.pop_front() {
                self.current = Some((packet.flits(), 0, packet));
            }
        }
        let Some((flits, next, packet)) = self.current.as_mut() else {
            return (0, None);
        };
        let flit = flits[*next];
        let packet = *packet;
        *next += 1;
        if *next == flits.len() {
            self.current = None;
        }
        (flit, Some(packet))
    }
}

/// The output lines, written to `writer` in cycle order; lines of one cycle are ordered by
/// their rank (packet 0, upcall and deliver 1, done and to_sender 2, drop 3), then by the order
/// in which they were made.
pub(crate) struct Output<'w> {
    writer: &'w mut dyn Write,
    /// Lines not yet written, as (cycle, rank, line), in the order they were made.
    pending: Vec<(u64, u8, Value)>,
    /// The last cycle a line was made in.
    pub last: u64,
    counts: BTreeMap<&'static str, u64>,
    worm: Vec<u64>,
    worm_start: u64,
    counters: Vec<u64>,
    /// The first cycle of a line the driver is still making (a delivery whose beats are still
    /// coming): no line of that cycle or later is written yet.
    held: Option<u64>,
}

impl<'w> Output<'w> {
    pub fn new(writer: &'w mut dyn Write) -> Output<'w> {
        Output {
            writer,
            pending: vec![],
            last: 0,
            counts: BTreeMap::new(),
            worm: vec![],
            worm_start: 0,
            counters: vec![],
            held: None,
        }
    }

    /// A line of kind `kind` for cycle `cycle`, made in cycle `now`.
    pub fn push(&mut self, now: u64, cycle: u64, rank: u8, kind: &'static str, line: Value) {
        self.pending.push((cycle, rank, line));
        *self.counts.entry(kind).or_default() += 1;
        self.last = now;
    }

    /// Lines of kind `kind` so far.
    pub fn count(&self, kind: &str) -> u64 {
        self.counts.get(kind).copied().unwrap_or(0)
    }

    /// The flit `flit` the block showed at `net_out` in cycle `now`: a `packet` line (at the
    /// cycle of its head) when a worm ends, decoded by `decode` or listed raw. Returns the
    /// packet of a worm that ended.
    pub fn net_out(
        &mut self,
        now: u64,
        flit: u64,
        decode: impl Fn(&[u64]) -> Option<Value>,
    ) -> Option<Value> {
        if flit & VALID == 0 {
            return None;
        }
        if flit & HEAD != 0 {
            self.worm.clear();
            self.worm_start = now;
        }
        self.worm.push(flit);
        if flit & TAIL == 0 {
            return None;
        }
        let packet = decode(&self.worm).unwrap_or_else(
            || json!({ "raw": self.worm.iter().map(|f| format!("{f:#011x}")).collect::<Vec<_>>() }),
        );
        let start = self.worm_start;
        self.push(
            now,
            start,
            0,
            "packet",
            json!({ "cycle": start, "packet": packet.clone() }),
        );
        self.worm.clear();
        Some(packet)
    }

    /// The 16-bit wrapping counters shown in cycle `now`: a `drop` line per increment of a
    /// counter that `reason` names. `reason` also gives how many cycles before `now` the flit
    /// that decided the drop went in (the block's counting latency for that reason); the line
    /// names that cycle and `packet_at` of it, the input packet whose flit went in then.
    pub fn counters<'p, P: WirePacket + 'p>(
        &mut self,
        now: u64,
        shown: &[u64],
        reason: impl Fn(usize) -> Option<(&'static str, u64)>,
        packet_at: impl Fn(u64) -> Option<&'p P>,
    ) {
        self.counters.resize(shown.len(), 0);
        for (index, &value) in shown.iter().enumerate() {
            let value = value & 0xFFFF;
            let delta = value.wrapping_sub(self.counters[index]) & 0xFFFF;
            self.counters[index] = value;
            let Some((reason, lag)) = reason(index) else {
                continue;
            };
            let cycle = now.saturating_sub(lag);
            for _ in 0..delta {
                let packet = packet_at(cycle).map_or(Value::Null, WirePacket::json);
                let line =
                    json!({ "cycle": cycle, "drop": { "reason": reason, "packet": packet } });
                self.push(now, cycle, 3, "drop", line);
            }
        }
    }

    /// Holds back the lines of cycle `from` on, while the driver still makes a line for that
    /// cycle (`None`: nothing held).
    pub fn hold(&mut self, from: Option<u64>) {
        self.held = from;
    }

    /// Writes every line that no later line can precede, at the end of cycle `now`: all
    /// before the head of a worm still going out and before a held cycle, else all up to `now`.
    pub fn flush(&mut self, now: u64) -> Result<()> {
        let mut mark = if self.worm.is_empty() {
            now.saturating_add(1)
        } else {
            self.worm_start
        };
        if let Some(held) = self.held {
            mark = mark.min(held);
        }
        self.write_before(mark)
    }

    fn write_before(&mut self, mark: u64) -> Result<()> {
        if self.pending.iter().all(|(cycle, _, _)| *cycle >= mark) {
            return Ok(());
        }
        // Stable: lines of one cycle and rank stay in the order they were made.
        self.pending.sort_by_key(|(cycle, rank, _)| (*cycle, *rank));
        let ready = self.pending.partition_point(|(cycle, _, _)| *cycle < mark);
        for (_, _, line) in self.pending.drain(..ready) {
            writeln!(self.writer, "{line}").context("cannot write the output")?;
        }
        Ok(())
    }

    /// Writes the remaining lines, then `summary`.
    pub fn finish(mut self, summary: Value) -> Result<()> {
        self.write_before(u64::MAX)?;
        writeln!(self.writer, "{}", json!({ "summary": summary }))
            .and_then(|()| self.writer.flush())
            .context("cannot write the output")
    }
}

/// What runs a replay.
#[derive(Clone, Copy, Debug)]
pub enum Engine<'a> {
    /// The golden model.
    Model,
    /// The Verilated RTL, built for the trace's configuration (or taken from `cache_dir`).
    Rtl { cache_dir: &'a Path },
}

/// How a replay treats the cycles in which the block has settled (docs/replay.md, "Idle
/// cycles").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Idle {
    /// Skip them: the same output as [`Idle::Tick`], without ticking through long gaps.
    #[default]
    Skip,
    /// Tick every cycle however long the gap, and refuse no gap: the reference that skipping
    /// is checked against.
    Tick,
}

/// The clock of one run: which cycle is ticked next, when the run stops, and which cycles are
/// skipped.
///
/// Skipping is exact because it happens only once the block has *settled*: nothing is being
/// presented, and for `settle` cycles neither the inputs nor any output have changed. The
/// blocks are built so that a settled block is a fixed point under idle inputs: every state
/// that would still change either shows on an output within the settle period (a timer that
/// sends a packet when it runs out) or is waited out by the settle period (the RMPP clean-up
/// timer; the NI's timers of free slots), so ticking it further would change nothing.
pub(crate) struct Clock {
    /// The cycle to tick next; after the run, the number of cycles run.
    pub now: u64,
    idle: Idle,
    end: Option<u64>,
    limit: u64,
    last_event: u64,
    /// Without `end`, the run stops once no line has been made for this many cycles.
    stop_quiet: u64,
    /// The first cycle since which inputs and outputs have stayed as they are.
    unchanged_since: u64,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
    /// The last cycle something was presented at an input.
    last_input: u64,
}

impl Clock {
    /// A run of a trace whose events lie at most at `last_event`; without `end` it stops
    /// after `stop_quiet` cycles without a line, at the latest `max_tail` after the last event.
    pub fn new(
        idle: Idle,
        end: Option<u64>,
        last_event: u64,
        stop_quiet: u64,
        max_tail: u64,
    ) -> Clock {
        Clock {
            now: 0,
            idle,
            end,
            limit: end.unwrap_or(last_event.saturating_add(max_tail)),
            last_event,
            stop_quiet,
            unchanged_since: 0,
            inputs: vec![],
            outputs: vec![],
            last_input: 0,
        }
    }

    /// The cycle to tick next, skipping the cycles of a settled block, or `None` when the run
    /// is over. `idle`: nothing is being presented or handed over now; `next_input`: the
    /// earliest cycle of an input not yet begun; `settle`: the block's settle period now.
    /// Returns an error when a busy block would have to be ticked through more than
    /// [`BUSY_BOUND`] cycles of idle input.
    pub fn next(
        &mut self,
        output: &Output,
        idle: bool,
        next_input: Option<u64>,
        settle: u64,
    ) -> Result<Option<u64>> {
        let now = self.now;
        if now >= self.limit {
            return Ok(None);
        }
        let all_presented = idle && next_input.is_none();
        if self.end.is_none()
            && all_presented
            && now > self.last_event
            && now - output.last.max(self.last_event) > self.stop_quiet
        {
            return Ok(None);
        }
        if self.idle == Idle::Tick {
            return Ok(Some(now));
        }
        let waiting = idle && next_input.is_none_or(|c| c > now);
        // Without `end`, the stop rule above ends the run after the last event.
        let Some(horizon) = next_input.or(self.end).filter(|_| waiting) else {
            return Ok(Some(now));
        };
        if now - self.unchanged_since >= settle {
            self.now = horizon.min(self.limit);
            return Ok((self.now < self.limit).then_some(self.now));
        }
        if now - self.last_input >= BUSY_BOUND {
            bail!(
                "the block is still busy at cycle {now}, {BUSY_BOUND} cycles after its last \
                 input (cycle {}), and the trace goes on to cycle {horizon}: a replay ticks a busy \
                 block through at most {BUSY_BOUND_TEXT} cycles without input (docs/replay.md, \
                 Bounds)",
                self.last_input
            );
        }
        Ok(Some(now))
    }

    /// Cycle `now` was ticked with `inputs` and showed `outputs`; `presented`: something was
    /// presented at an input.
    pub fn ticked(&mut self, presented: bool, inputs: &[u64], outputs: &[u64]) {
        let now = self.now;
        if presented {
            self.last_input = now;
        }
        if presented || self.inputs != inputs || self.outputs != outputs {
            self.unchanged_since = now + 1;
            self.inputs.clear();
            self.inputs.extend_from_slice(inputs);
            self.outputs.clear();
            self.outputs.extend_from_slice(outputs);
        }
        self.now = now + 1;
    }
}
