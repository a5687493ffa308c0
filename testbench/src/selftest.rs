//! The FPGA self-test image (docs/protocol.md §14) under Verilator, with an independent
//! software scoreboard on its monitor ports and a decoder on its UART pin.
//!
//! The scoreboard learns every request the NIs accept (uids in acceptance order, §8.5), and
//! judges every delivery (known uid, right node, right payload, first time) and every
//! completion (delivered before). Each event reaches the image's counters two cycles after it
//! shows on the monitor ports (§14.3), so the two are compared **every cycle**; each UART line
//! is compared with the counters at its snapshot.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use idemnet_cosim::lockstep::Dut;
use idemnet_model::ni::words_to_bytes;
use idemnet_model::ports::{PortDir, PortSpec};
use idemnet_model::stream::{Collect, Requests, Taken};
use idemnet_ni_core::selftest::report::FIELDS;
use idemnet_ni_core::selftest::SelfTestConfig;
use idemnet_rtl::uart::UartDecoder;

use crate::cosim::{verilate_source_tracing, Windowed};

/// The five counters, in the UART line's order: sent, delivered, duplicated, lost, bad.
pub type Counters = [u64; 5];

/// What a self-test run saw.
#[derive(Clone, Debug, Default)]
pub struct SelfTestReport {
    pub cycles: u64,
    /// The image's counters at the end.
    pub chip: Counters,
    /// The software scoreboard's, for the same instant.
    pub scoreboard: Counters,
    /// Cycles at which the two differed (the first few kept).
    pub disagreements: Vec<String>,
    pub disagreement_count: u64,
    /// UART lines decoded, and those that did not match their snapshot.
    pub lines: Vec<String>,
    pub bad_lines: Vec<String>,
    /// Datagrams accepted whose send had not completed (no `done_valid`) at the end.
    pub in_flight: u64,
    /// The NIs' own counters summed over nodes: CRC drops and retransmitted SENDs (faults seen
    /// and recovered from), and the switches' drops.
    pub crc_drops: u64,
    pub retransmits: u64,
    pub switch_drops: u64,
    /// The LEDs at the end.
    pub led: u8,
    /// The image's top ports, for views of its waveform.
    pub ports: Vec<PortSpec>,
}

impl SelfTestReport {
    /// Counters agree every cycle, every line matches, and every datagram arrived exactly once.
    pub fn passed(&self) -> bool {
        self.disagreement_count == 0
            && self.bad_lines.is_empty()
            && self.chip[2] == 0
            && self.chip[3] == 0
            && self.chip[4] == 0
            && self.chip[1] > 0
    }
}

impl std::fmt::Display for SelfTestReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = ["sent", "delivered", "duplicated", "lost", "bad"];
        writeln!(f, "self-test, {} cycles under Verilator", self.cycles)?;
        writeln!(f, "  counter      image  scoreboard")?;
        for (i, name) in names.iter().enumerate() {
            writeln!(
                f,
                "  {:<10} {:>8} {:>10}",
                name, self.chip[i], self.scoreboard[i]
            )?;
        }
        writeln!(
            f,
            "  in flight at the end: {}; faults recovered: {} CRC drops, {} SENDs repeated; switch drops: {}",
            self.in_flight, self.crc_drops, self.retransmits, self.switch_drops
        )?;
        writeln!(
            f,
            "  counters compared every cycle: {} disagreements; UART lines: {} decoded, {} wrong",
            self.disagreement_count,
            self.lines.len(),
            self.bad_lines.len()
        )?;
        for d in &self.disagreements {
            writeln!(f, "    {d}")?;
        }
        for l in &self.bad_lines {
            writeln!(f, "    wrong line: {l}")?;
        }
        if let Some(l) = self.lines.last() {
            writeln!(f, "  last line: {l}")?;
        }
        writeln!(
            f,
            "  LEDs {:08b} (pass {}, fail {})",
            self.led,
            self.led & 1,
            (self.led >> 1) & 1
        )?;
        write!(
            f,
            "  result: {}",
            if self.passed() {
                "PASS (every datagram arrived exactly once)"
            } else {
                "FAIL"
            }
        )
    }
}

/// Where each output port sits in the flat output words.
struct Outs {
    at: HashMap<String, (usize, u32)>,
}

impl Outs {
    fn new(ports: &[PortSpec]) -> Self {
        let mut at = HashMap::new();
        let mut w = 0;
        for p in ports.iter().filter(|p| p.dir == PortDir::Out) {
            at.insert(p.name.clone(), (w, p.width));
            w += p.words();
        }
        Outs { at }
    }
    fn idx(&self, name: &str) -> Result<(usize, u32)> {
        self.at
            .get(name)
            .copied()
            .ok_or_else(|| anyhow!("the self-test has no output `{name}`"))
    }
}

#[derive(Clone)]
struct Sent {
    dst: u64,
    /// The payload, as the request's beats gave it up to its length.
    payload: Vec<u8>,
    delivered: bool,
    done: bool,
}

/// Where a self-test run's waveform goes.
#[derive(Clone, Debug)]
pub struct SelfTestWave {
    /// The folder of `selftest.vcd` (or `selftest.fst`).
    pub dir: PathBuf,
    /// FST (Verilator's writer, a build of its own) instead of VCD.
    pub fst: bool,
    /// Only these cycles, both included.
    pub window: Option<(u64, u64)>,
}

impl SelfTestWave {
    /// The waveform file.
    pub fn path(&self) -> PathBuf {
        self.dir.join(if self.fst {
            "selftest.fst"
        } else {
            "selftest.vcd"
        })
    }
}

/// Runs the self-test of `cfg` for `cycles` under Verilator (library cached in `cache_dir`),
/// `verilog` in place of the emitted design if given, with a waveform if `wave` is given;
/// `progress` hears the cycles done every [`idemnet_model::system::PROGRESS_EVERY`] cycles.
pub fn run_selftest(
    cfg: &SelfTestConfig,
    cycles: u64,
    verilog: Option<&Path>,
    wave: Option<&SelfTestWave>,
    cache_dir: &Path,
    mut progress: impl FnMut(u64),
) -> Result<SelfTestReport> {
    let (emitted, ports) = idemnet_ni_core::selftest_verilog(cfg).map_err(|e| anyhow!(e))?;
    let text = match verilog {
        None => emitted,
        Some(p) => {
            std::fs::read_to_string(p).map_err(|e| anyhow!("--verilog {}: {e}", p.display()))?
        }
    };
    let fst = wave.is_some_and(|w| w.fst);
    let lib = verilate_source_tracing(text, verilog, ports.clone(), cache_dir, fst)?;
    let mut instance = lib.instance();
    let (iw, ow) = instance.words();
    if let Some(w) = wave {
        std::fs::create_dir_all(&w.dir)
            .with_context(|| format!("--vcd {}: cannot create the folder", w.dir.display()))?;
    }
    let path = wave.map(SelfTestWave::path);
    let window = wave.and_then(|w| w.window).unwrap_or((0, u64::MAX));
    let mut dut = Windowed::new(&mut instance, path, window)?;
    if iw != 1 {
        bail!("the self-test should have one input word (clear), not {iw}");
    }
    let outs = Outs::new(&ports);
    let nodes = idemnet_router::Topology::new(cfg.k, cfg.n)
        .map_err(|e| anyhow!("{e}"))?
        .nodes;
    let cnt_names = [
        "cnt_sent",
        "cnt_delivered",
        "cnt_duplicated",
        "cnt_lost",
        "cnt_bad",
    ];
    let cnt_at: Vec<usize> = cnt_names
        .iter()
        .map(|n| outs.idx(n).map(|x| x.0))
        .collect::<Result<_>>()?;
    let node_port = |name: &str, p: usize| outs.idx(&format!("{name}${p}")).map(|x| x.0);
    struct NodeAt {
        req_valid: usize,
        req_data: usize,
        req_last: usize,
        req_dst: usize,
        req_len: usize,
        req_ready: usize,
        dlv_valid: usize,
        dlv_data: usize,
        dlv_last: usize,
        dlv_src: usize,
        dlv_uid: usize,
        dlv_len: usize,
        done_valid: usize,
        done_uid: usize,
        cnt_crc: usize,
        cnt_retransmit: usize,
    }
    let at: Vec<NodeAt> = (0..nodes)
        .map(|p| {
            Ok(NodeAt {
                req_valid: node_port("req_valid", p)?,
                req_data: node_port("req_data", p)?,
                req_last: node_port("req_last", p)?,
                req_dst: node_port("req_dst", p)?,
                req_len: node_port("req_len", p)?,
                req_ready: node_port("req_ready", p)?,
                dlv_valid: node_port("dlv_valid", p)?,
                dlv_data: node_port("dlv_data", p)?,
                dlv_last: node_port("dlv_last", p)?,
                dlv_src: node_port("dlv_src", p)?,
                dlv_uid: node_port("dlv_uid", p)?,
                dlv_len: node_port("dlv_len", p)?,
                done_valid: node_port("done_valid", p)?,
                done_uid: node_port("done_uid", p)?,
                cnt_crc: node_port("cnt_crc", p)?,
                cnt_retransmit: node_port("cnt_retransmit", p)?,
            })
        })
        .collect::<Result<_>>()?;
    let drops_at: Vec<usize> = ports
        .iter()
        .filter(|p| p.dir == PortDir::Out && p.name.starts_with("drops$"))
        .map(|p| outs.idx(&p.name).map(|x| x.0))
        .collect::<Result<_>>()?;
    let (uart_at, _) = outs.idx("uart_tx")?;
    let (led_at, _) = outs.idx("led")?;

    let mut out = vec![0u64; ow];
    let mut sent: HashMap<u64, Sent> = HashMap::new();
    let mut accepted = vec![0u64; nodes];
    // Each NI's request stream read as §8.5 reads it (the header: destination and length),
    // and each delivery stream's beats.
    let mut requests: Vec<Requests<(u64, usize)>> =
        (0..nodes).map(|_| Requests::default()).collect();
    let mut deliveries: Vec<Collect> = (0..nodes).map(|_| Collect::default()).collect();
    // Scoreboard counts by the sample at which the image shows them: the event's sample plus
    // SOURCE_DELAY for the sources' events (sent, lost), plus CHECKER_DELAY for the checkers'
    // (delivered, duplicated, bad), which register each beat before judging it (§14.3).
    const SOURCE_DELAY: u64 = 3;
    const CHECKER_DELAY: u64 = 4;
    const RING: u64 = CHECKER_DELAY + 1;
    // Per counter (sent, delivered, duplicated, lost, bad): is it the checkers' event?
    const FROM_CHECKER: [bool; 5] = [false, true, true, false, true];
    let mut board: Counters = [0; 5];
    let mut due: [Counters; RING as usize] = [[0; 5]; RING as usize];
    let mut rep = SelfTestReport {
        cycles,
        ports: ports.clone(),
        ..Default::default()
    };
    let mut dec = UartDecoder::new(cfg.divider);
    let mut line = String::new();
    let mut snapshots: Vec<Counters> = Vec::new();
    let period = cfg.period as u64;
    for t in 0..cycles {
        if t.is_multiple_of(idemnet_model::system::PROGRESS_EVERY) {
            progress(t);
        }
        dut.set_inputs(&[0]);
        dut.tick();
        dut.check()?;
        dut.outputs(&mut out);
        let mut ev: Counters = [0; 5];
        for (p, a) in at.iter().enumerate() {
            // A beat shown now is taken at the next edge (the source's req_valid, the NI's
            // req_ready); a request taken whole is accepted with the next uid.
            if out[a.req_valid] & 1 == 1 && out[a.req_ready] & 1 == 1 {
                let header = || {
                    let len = out[a.req_len] as usize;
                    ((out[a.req_dst], len), len)
                };
                let last = out[a.req_last] & 1 == 1;
                let taken = requests[p].take(header, out[a.req_data] as u32, last);
                if let Taken::Complete {
                    header: (dst, len),
                    words,
                } = taken
                {
                    let uid = (p as u64) << 16 | (accepted[p] & 0xFFFF);
                    accepted[p] += 1;
                    let payload = words_to_bytes(&words, len);
                    sent.insert(
                        uid,
                        Sent {
                            dst,
                            payload,
                            delivered: false,
                            done: false,
                        },
                    );
                    ev[0] += 1;
                }
            }
            // A datagram is judged when its last beat shows (dlv_ready is tied high).
            let delivered = if out[a.dlv_valid] & 1 == 1 {
                deliveries[p].beat(t, out[a.dlv_data] as u32, out[a.dlv_last] & 1 == 1)
            } else {
                None
            };
            if let Some((words, _)) = delivered {
                let uid = out[a.dlv_uid];
                let (src, len) = (out[a.dlv_src], out[a.dlv_len] as usize);
                match sent.get_mut(&uid) {
                    Some(s)
                        if s.dst == p as u64
                            && uid >> 16 == src
                            && s.payload == words_to_bytes(&words, len) =>
                    {
                        if s.delivered {
                            ev[2] += 1;
                        } else {
                            s.delivered = true;
                            ev[1] += 1;
                        }
                    }
                    _ => ev[4] += 1,
                }
            }
            if out[a.done_valid] & 1 == 1 {
                let uid = out[a.done_uid];
                match sent.get_mut(&uid) {
                    Some(s) if !s.done => {
                        s.done = true;
                        if !s.delivered {
                            ev[3] += 1;
                        }
                    }
                    _ => ev[4] += 1,
                }
            }
        }
        for (i, &n) in ev.iter().enumerate() {
            let delay = if FROM_CHECKER[i] {
                CHECKER_DELAY
            } else {
                SOURCE_DELAY
            };
            due[((t + delay) % RING) as usize][i] += n;
        }
        let shown = &mut due[(t % RING) as usize];
        for i in 0..5 {
            board[i] += shown[i];
        }
        *shown = [0; 5];
        let chip: Counters = std::array::from_fn(|i| out[cnt_at[i]] & 0xFFFF_FFFF);
        if chip != board {
            rep.disagreement_count += 1;
            if rep.disagreements.len() < 5 {
                rep.disagreements.push(format!(
                    "cycle {t}: image {chip:?}, scoreboard {board:?} (sent, delivered, duplicated, lost, bad)"
                ));
            }
        }
        // The line that starts at edge k*period snapshots the counters of sample k*period - 1.
        if t == 0 {
            snapshots.push([0; 5]);
        }
        if (t + 1) % period == 0 {
            snapshots.push(chip);
        }
        if let Some(b) = dec.sample(out[uart_at] & 1 == 1) {
            if b == b'\n' {
                let l = line.trim_end().to_string();
                let k = rep.lines.len();
                match (parse_line(&l), snapshots.get(k)) {
                    (Some(v), Some(s)) if v == *s => {}
                    _ => rep.bad_lines.push(l.clone()),
                }
                rep.lines.push(l);
                line.clear();
            } else {
                line.push(b as char);
            }
        }
        rep.chip = chip;
        rep.scoreboard = board;
    }
    if dec.framing_errors > 0 {
        rep.bad_lines
            .push(format!("{} UART framing errors", dec.framing_errors));
    }
    rep.in_flight = sent.values().filter(|s| !s.done).count() as u64;
    for a in &at {
        rep.crc_drops += out[a.cnt_crc];
        rep.retransmits += out[a.cnt_retransmit];
    }
    rep.switch_drops = drops_at.iter().map(|&i| out[i]).sum();
    rep.led = out[led_at] as u8;
    drop(dut);
    instance.close_vcd()?;
    Ok(rep)
}

/// `S=xxxxxxxx D=xxxxxxxx U=xxxxxxxx L=xxxxxxxx B=xxxxxxxx` as five numbers.
pub fn parse_line(l: &str) -> Option<Counters> {
    let mut v = [0u64; 5];
    let fields: Vec<&str> = l.split(' ').collect();
    if fields.len() != 5 {
        return None;
    }
    for (i, f) in fields.iter().enumerate() {
        let (name, hex) = f.split_once('=')?;
        if name.as_bytes() != [FIELDS[i]] || hex.len() != 8 {
            return None;
        }
        v[i] = u64::from_str_radix(hex, 16).ok()?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_line() {
        assert_eq!(
            parse_line("S=0000000A D=00000009 U=00000000 L=00000000 B=00000001"),
            Some([10, 9, 0, 0, 1])
        );
        assert_eq!(parse_line("S=0000000A D=00000009"), None);
        assert_eq!(
            parse_line("D=0000000A S=00000009 U=00000000 L=00000000 B=00000001"),
            None
        );
    }
}
