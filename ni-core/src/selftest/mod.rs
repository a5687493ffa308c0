//! The on-chip self-test of docs/protocol.md §14: a small complete network (idempotent NIs on
//! the fat tree, a fault injector on every link), a traffic source and a checker per node, the
//! scoreboard counters, the LEDs and a UART line. The FPGA image and the Verilator run are the
//! same Verilog.

pub mod checker;
pub mod report;
pub mod source;
pub mod tally;

use std::fmt::Write;

use idemnet_router::{drive_drops, drops_hdl, wires, Switch, Topology, Wire};
use idemnet_rtl::fault::LinkFault;
use idemnet_rtl::flit::Flit;
use idemnet_spec::ni::NiConfig;
use rust_hdl::prelude::*;

use crate::links::{
    clock_fabric, clock_fabric_hdl, connect_fabric, drive_links, links_hdl, sigs, LinkNode,
};
use crate::ni::{Ni, HOST_INPUTS, HOST_OUTPUTS};

/// The NI's request stream (its host inputs but `dlv_ready`, which the self-test ties high):
/// the source drives them, and the monitor ports show them.
fn request_ports() -> impl Iterator<Item = &'static str> {
    HOST_INPUTS.into_iter().filter(|&port| port != "dlv_ready")
}
pub use checker::Checker;
pub use report::Reporter;
pub use source::TrafficSource;
pub use tally::Tally;

/// Which links of the self-test carry a fault injector (§14). §9 numbers the injectors: node
/// `p`'s injection link `2p`, its ejection link `2p + 1`, the inter-switch links from `2n` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultLinks {
    /// Each node's injection link: every worm crosses exactly one.
    Injection,
    /// Each node's injection and ejection links: every worm crosses two.
    Node,
    /// Every directed link, as in the co-simulated system.
    All,
}

impl FaultLinks {
    /// Which links, in words.
    pub fn describe(self) -> &'static str {
        match self {
            FaultLinks::Injection => "every injection link",
            FaultLinks::Node => "every node link",
            FaultLinks::All => "every link",
        }
    }

    /// The §9 numbers of the injectors built for `nodes` nodes and `links` inter-switch links,
    /// in order. Each keeps its number's seed; the Verilog names them `faults$x` by position.
    pub fn built(self, nodes: usize, links: usize) -> Vec<usize> {
        (0..2 * nodes + 2 * links)
            .filter(|&i| match self {
                FaultLinks::Injection => i < 2 * nodes && i % 2 == 0,
                FaultLinks::Node => i < 2 * nodes,
                FaultLinks::All => true,
            })
            .collect()
    }
}

/// The self-test's parameters (§14.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfTestConfig {
    /// The k-ary n-tree (`k^n` nodes, at most 16).
    pub k: usize,
    pub n: usize,
    /// Every NI's parameters (`node` is set per node).
    pub ni: NiConfig,
    /// A source offers a datagram with probability `load / 65536` per cycle (at most 0x0800).
    pub load: u16,
    /// The thresholds of every link's injector (§9): per flit, `loss / 65536` dropped and
    /// `corrupt / 65536` with one bit flipped.
    pub loss: u16,
    pub corrupt: u16,
    /// The links that carry an injector.
    pub fault_links: FaultLinks,
    /// Half the datagrams carry a second payload word (8 bytes, not 4).
    pub two_words: bool,
    /// Cycles between two UART lines (the board clock: one line a second).
    pub period: u32,
    /// Cycles per UART bit (the board clock over the baud rate).
    pub divider: u32,
    /// `led[2]` shows this bit of the delivered count.
    pub activity_bit: u32,
}

impl SelfTestConfig {
    /// Four nodes on the 2-ary 2-tree, two send and two receive slots per NI, 0.1 % of flits
    /// lost and 0.05 % corrupted on every link, a line a second at 115,200 baud for a
    /// `clock_hz` board clock.
    pub fn board(clock_hz: u32) -> Self {
        SelfTestConfig {
            k: 2,
            n: 2,
            ni: NiConfig {
                send_slots: 2,
                recv_slots: 2,
                ..NiConfig::DEFAULT
            },
            load: 0x0400,
            loss: 66,
            corrupt: 33,
            fault_links: FaultLinks::All,
            two_words: true,
            period: clock_hz,
            divider: (clock_hz + 57_600) / 115_200,
            activity_bit: 14,
        }
    }

    /// The board image cut to fit the iCE40-HX8K's 7,680 logic cells with room to meet 100 MHz:
    /// the same four nodes on the 4-ary 1-tree (one switch in place of the 2-ary 2-tree's
    /// four), one send and one receive slot per NI, 4-byte datagrams only, and injectors on the
    /// four injection links (every worm crosses one). Everything else, loads and thresholds
    /// included, is [`Self::board`]'s (docs/protocol.md §14).
    pub fn compact(clock_hz: u32) -> Self {
        SelfTestConfig {
            k: 4,
            n: 1,
            ni: NiConfig {
                send_slots: 1,
                recv_slots: 1,
                ..NiConfig::DEFAULT
            },
            fault_links: FaultLinks::Injection,
            two_words: false,
            ..Self::board(clock_hz)
        }
    }

    /// Checks the ranges, naming the bad parameter.
    pub fn validate(&self) -> Result<(), String> {
        let topo = Topology::new(self.k, self.n).map_err(|e| e.to_string())?;
        if topo.nodes > 16 {
            return Err(format!(
                "{} nodes: the self-test takes at most 16",
                topo.nodes
            ));
        }
        self.ni.validate()?;
        if self.load > 0x0800 {
            return Err(format!("load = {:#x}: must be at most 0x800", self.load));
        }
        if !(2..=65536).contains(&self.divider) {
            return Err(format!("divider = {}: must be in 2..=65536", self.divider));
        }
        if (self.period as u64) <= 600 * self.divider as u64 {
            return Err(format!(
                "period = {}: must exceed a line's 600 bit times ({} cycles)",
                self.period,
                600 * self.divider as u64
            ));
        }
        if self.activity_bit > 31 {
            return Err(format!(
                "activity_bit = {}: must be in 0..=31",
                self.activity_bit
            ));
        }
        Ok(())
    }
}

/// The self-test top (docs/protocol.md §14).
///
/// Ports (Verilog names; `$p` is node `p`), in this order:
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `clear` | in | 1 | the counters go to 0 (the board's reset button) |
/// | `led`, `uart_tx` | out | 8, 1 | §14.4 |
/// | `cnt_sent`, `cnt_delivered`, `cnt_duplicated`, `cnt_lost`, `cnt_bad` | out | 32 | the scoreboard (§14.3) |
/// | `req_valid$p`, `req_data$p`, `req_last$p`, `req_dst$p`, `req_len$p` | out | 1, 32, 1, 16, 6 | NI `p`'s request stream as its source drives it, for a monitor |
/// | `req_ready$p` | out | 1 | NI `p` takes request beats |
/// | `dlv_valid$p`, `dlv_data$p`, `dlv_last$p`, `dlv_src$p`, `dlv_uid$p`, `dlv_len$p` | out | 1, 32, 1, 16, 32, 6 | NI `p`'s delivery stream (`dlv_ready` is tied high) |
/// | `done_valid$p`, `done_uid$p` | out | 1, 32 | NI `p`'s completions |
/// | `cnt_crc$p` ... `cnt_host_error$p` | out | 16 | NI `p`'s eleven counters (§8.2) |
///
/// The monitor ports are the NI's host ports (`idemnet_spec::ni::PORTS`) in its port order,
/// `dlv_ready` left out: its host inputs, then its host outputs, each over all nodes.
/// | `drops$x` | out | 16 | the switches' drop counters (§5) |
///
/// The monitor ports only show wires that are there anyway; the FPGA top leaves them open and
/// synthesis removes what only they would need. Timing: every block keeps its own (§4, §8,
/// §9, §14); links are wires through combinational injectors.
#[derive(LogicBlock)]
pub struct SelfTest {
    pub clock: Signal<In, Clock>,
    pub clear: Signal<In, Bit>,
    pub led: Signal<Out, Bits<8>>,
    pub uart_tx: Signal<Out, Bit>,
    pub cnt_sent: Signal<Out, Bits<32>>,
    pub cnt_delivered: Signal<Out, Bits<32>>,
    pub cnt_duplicated: Signal<Out, Bits<32>>,
    pub cnt_lost: Signal<Out, Bits<32>>,
    pub cnt_bad: Signal<Out, Bits<32>>,
    pub req_valid: Vec<Signal<Out, Bit>>,
    pub req_data: Vec<Signal<Out, Bits<32>>>,
    pub req_last: Vec<Signal<Out, Bit>>,
    pub req_dst: Vec<Signal<Out, Bits<16>>>,
    pub req_len: Vec<Signal<Out, Bits<6>>>,
    pub req_ready: Vec<Signal<Out, Bit>>,
    pub dlv_valid: Vec<Signal<Out, Bit>>,
    pub dlv_data: Vec<Signal<Out, Bits<32>>>,
    pub dlv_last: Vec<Signal<Out, Bit>>,
    pub dlv_src: Vec<Signal<Out, Bits<16>>>,
    pub dlv_uid: Vec<Signal<Out, Bits<32>>>,
    pub dlv_len: Vec<Signal<Out, Bits<6>>>,
    pub done_valid: Vec<Signal<Out, Bit>>,
    pub done_uid: Vec<Signal<Out, Bits<32>>>,
    pub cnt_crc: Vec<Signal<Out, Bits<16>>>,
    pub cnt_truncated: Vec<Signal<Out, Bits<16>>>,
    pub cnt_malformed: Vec<Signal<Out, Bits<16>>>,
    pub cnt_misrouted: Vec<Signal<Out, Bits<16>>>,
    pub cnt_table_full: Vec<Signal<Out, Bits<16>>>,
    pub cnt_unknown: Vec<Signal<Out, Bits<16>>>,
    pub cnt_busy: Vec<Signal<Out, Bits<16>>>,
    pub cnt_duplicate: Vec<Signal<Out, Bits<16>>>,
    pub cnt_retransmit: Vec<Signal<Out, Bits<16>>>,
    pub cnt_host_error: Vec<Signal<Out, Bits<16>>>,
    pub drops: Vec<Signal<Out, Bits<16>>>,
    pub switches: Vec<Switch>,
    pub faults: Vec<LinkFault>,
    pub nodes: Vec<Ni>,
    pub sources: Vec<TrafficSource>,
    pub checkers: Vec<Checker>,
    pub tally: Tally,
    pub reporter: Reporter,
    _cfg: SelfTestConfig,
    _topo: Topology,
    _wires: Vec<Wire>,
}

impl LinkNode for Ni {
    fn net_out(&self) -> Flit {
        self.net_out.val()
    }
    fn set_net_in(&mut self, f: Flit) {
        self.net_in.next = f;
    }
}

impl SelfTest {
    /// The self-test for `cfg` (validated by [`SelfTestConfig::validate`]).
    pub fn new(cfg: &SelfTestConfig) -> Self {
        let topo = Topology::new(cfg.k, cfg.n).expect("validated tree");
        let n = topo.nodes;
        let links = (topo.n - 1) * topo.per_level * topo.k;
        let mut wires = wires(&topo);
        let built = cfg.fault_links.built(n, links);
        for w in wires.iter_mut() {
            w.injector = w.injector.and_then(|i| built.iter().position(|&b| b == i));
        }
        Self {
            clock: Default::default(),
            clear: Default::default(),
            led: Default::default(),
            uart_tx: Default::default(),
            cnt_sent: Default::default(),
            cnt_delivered: Default::default(),
            cnt_duplicated: Default::default(),
            cnt_lost: Default::default(),
            cnt_bad: Default::default(),
            req_valid: sigs(n),
            req_data: sigs(n),
            req_last: sigs(n),
            req_dst: sigs(n),
            req_len: sigs(n),
            req_ready: sigs(n),
            dlv_valid: sigs(n),
            dlv_data: sigs(n),
            dlv_last: sigs(n),
            dlv_src: sigs(n),
            dlv_uid: sigs(n),
            dlv_len: sigs(n),
            done_valid: sigs(n),
            done_uid: sigs(n),
            cnt_crc: sigs(n),
            cnt_truncated: sigs(n),
            cnt_malformed: sigs(n),
            cnt_misrouted: sigs(n),
            cnt_table_full: sigs(n),
            cnt_unknown: sigs(n),
            cnt_busy: sigs(n),
            cnt_duplicate: sigs(n),
            cnt_retransmit: sigs(n),
            cnt_host_error: sigs(n),
            drops: sigs(topo.switches() * 2 * topo.k),
            switches: (0..topo.switches())
                .map(|s| {
                    let (l, w) = topo.switch_coords(s);
                    Switch::new(&topo, l, w)
                })
                .collect(),
            faults: built
                .into_iter()
                .map(|i| LinkFault::bounded(i, u32::from(cfg.loss) + u32::from(cfg.corrupt)))
                .collect(),
            nodes: (0..n)
                .map(|p| {
                    Ni::new(&NiConfig {
                        node: p as u16,
                        ..cfg.ni
                    })
                })
                .collect(),
            sources: (0..n)
                .map(|p| TrafficSource::new(p, n, cfg.load, cfg.two_words, cfg.ni.send_slots))
                .collect(),
            checkers: (0..n).map(|p| Checker::new(p, n, cfg.two_words)).collect(),
            tally: Tally::new(n),
            reporter: Reporter::new(cfg.period, cfg.divider, cfg.activity_bit),
            _cfg: *cfg,
            _topo: topo,
            _wires: wires,
        }
    }
}

impl Logic for SelfTest {
    fn update(&mut self) {
        let clock = self.clock.val();
        let (loss, corrupt) = (
            Bits::from(self._cfg.loss as u64),
            Bits::from(self._cfg.corrupt as u64),
        );
        clock_fabric(&mut self.switches, &mut self.faults, clock, loss, corrupt);
        drive_links(
            &self._wires,
            &mut self.switches,
            &mut self.faults,
            &mut self.nodes,
            |_| false,
        );
        let n = self.nodes.len();
        for p in 0..n {
            let (ni, src, chk) = (
                &mut self.nodes[p],
                &mut self.sources[p],
                &mut self.checkers[p],
            );
            ni.clock.next = clock;
            src.clock.next = clock;
            chk.clock.next = clock;
            ni.tx_gnt.next = true;
            ni.dlv_ready.next = true;
            ni.req_valid.next = src.req_valid.val();
            ni.req_data.next = src.req_data.val();
            ni.req_last.next = src.req_last.val();
            ni.req_dst.next = src.req_dst.val();
            ni.req_len.next = src.req_len.val();
            src.req_ready.next = ni.req_ready.val();
            src.done_valid.next = ni.done_valid.val();
            src.done_uid.next = ni.done_uid.val().get_bits::<16>(0);
            chk.dlv_valid.next = ni.dlv_valid.val();
            chk.dlv_data.next = ni.dlv_data.val();
            chk.dlv_last.next = ni.dlv_last.val();
            chk.dlv_src.next = ni.dlv_src.val();
            chk.dlv_len.next = ni.dlv_len.val();
            self.req_valid[p].next = src.req_valid.val();
            self.req_data[p].next = src.req_data.val();
            self.req_last[p].next = src.req_last.val();
            self.req_dst[p].next = src.req_dst.val();
            self.req_len[p].next = src.req_len.val();
            self.req_ready[p].next = ni.req_ready.val();
            self.dlv_valid[p].next = ni.dlv_valid.val();
            self.dlv_data[p].next = ni.dlv_data.val();
            self.dlv_last[p].next = ni.dlv_last.val();
            self.dlv_src[p].next = ni.dlv_src.val();
            self.dlv_uid[p].next = ni.dlv_uid.val();
            self.dlv_len[p].next = ni.dlv_len.val();
            self.done_valid[p].next = ni.done_valid.val();
            self.done_uid[p].next = ni.done_uid.val();
            self.cnt_crc[p].next = ni.cnt_crc.val();
            self.cnt_truncated[p].next = ni.cnt_truncated.val();
            self.cnt_malformed[p].next = ni.cnt_malformed.val();
            self.cnt_misrouted[p].next = ni.cnt_misrouted.val();
            self.cnt_table_full[p].next = ni.cnt_table_full.val();
            self.cnt_unknown[p].next = ni.cnt_unknown.val();
            self.cnt_busy[p].next = ni.cnt_busy.val();
            self.cnt_duplicate[p].next = ni.cnt_duplicate.val();
            self.cnt_retransmit[p].next = ni.cnt_retransmit.val();
            self.cnt_host_error[p].next = ni.cnt_host_error.val();
            self.tally.sent[p].next = src.ev_sent.val();
            self.tally.lost[p].next = src.ev_lost.val();
            self.tally.delivered[p].next = chk.ev_delivered.val();
            self.tally.duplicated[p].next = chk.ev_duplicated.val();
            self.tally.bad[p].next = chk.ev_bad.val();
        }
        for s in 0..n {
            for d in 0..n {
                self.sources[s].exp_in[d].next = self.checkers[d].exp_out[s].val();
            }
        }
        self.tally.clock.next = clock;
        self.tally.clear.next = self.clear.val();
        self.reporter.clock.next = clock;
        self.reporter.sent.next = self.tally.cnt_sent.val();
        self.reporter.delivered.next = self.tally.cnt_delivered.val();
        self.reporter.duplicated.next = self.tally.cnt_duplicated.val();
        self.reporter.lost.next = self.tally.cnt_lost.val();
        self.reporter.bad.next = self.tally.cnt_bad.val();
        self.cnt_sent.next = self.tally.cnt_sent.val();
        self.cnt_delivered.next = self.tally.cnt_delivered.val();
        self.cnt_duplicated.next = self.tally.cnt_duplicated.val();
        self.cnt_lost.next = self.tally.cnt_lost.val();
        self.cnt_bad.next = self.tally.cnt_bad.val();
        self.led.next = self.reporter.led.val();
        self.uart_tx.next = self.reporter.uart_tx.val();
        drive_drops(&self.switches, &mut self.drops, self._topo.k);
    }

    fn connect(&mut self) {
        self.led.connect();
        self.uart_tx.connect();
        self.cnt_sent.connect();
        self.cnt_delivered.connect();
        self.cnt_duplicated.connect();
        self.cnt_lost.connect();
        self.cnt_bad.connect();
        macro_rules! driven {
            ($($f:ident),+) => { $(self.$f.iter_mut().for_each(|x| x.connect());)+ };
        }
        driven!(
            req_valid,
            req_data,
            req_last,
            req_dst,
            req_len,
            req_ready,
            dlv_valid,
            dlv_data,
            dlv_last,
            dlv_src,
            dlv_uid,
            dlv_len,
            done_valid,
            done_uid,
            cnt_crc,
            cnt_truncated,
            cnt_malformed,
            cnt_misrouted,
            cnt_table_full,
            cnt_unknown,
            cnt_busy,
            cnt_duplicate,
            cnt_retransmit,
            cnt_host_error,
            drops
        );
        connect_fabric(&mut self.switches, &mut self.faults);
        for ni in self.nodes.iter_mut() {
            ni.clock.connect();
            ni.net_in.connect();
            ni.req_valid.connect();
            ni.req_data.connect();
            ni.req_last.connect();
            ni.req_dst.connect();
            ni.req_len.connect();
            ni.dlv_ready.connect();
            ni.tx_gnt.connect();
        }
        for src in self.sources.iter_mut() {
            src.clock.connect();
            src.req_ready.connect();
            src.done_valid.connect();
            src.done_uid.connect();
            src.exp_in.iter_mut().for_each(|x| x.connect());
        }
        for chk in self.checkers.iter_mut() {
            chk.clock.connect();
            chk.dlv_valid.connect();
            chk.dlv_data.connect();
            chk.dlv_last.connect();
            chk.dlv_src.connect();
            chk.dlv_len.connect();
        }
        let t = &mut self.tally;
        t.clock.connect();
        t.clear.connect();
        for v in [
            &mut t.sent,
            &mut t.lost,
            &mut t.delivered,
            &mut t.duplicated,
            &mut t.bad,
        ] {
            v.iter_mut().for_each(|x| x.connect());
        }
        let r = &mut self.reporter;
        r.clock.connect();
        r.sent.connect();
        r.delivered.connect();
        r.duplicated.connect();
        r.lost.connect();
        r.bad.connect();
    }

    fn hdl(&self) -> Verilog {
        let cfg = &self._cfg;
        let mut v = String::from("always @(*) begin\n");
        v.push_str(&clock_fabric_hdl(
            self.switches.len(),
            self.faults.len(),
            &format!("16'h{:04x}", cfg.loss),
            &format!("16'h{:04x}", cfg.corrupt),
        ));
        v.push_str(&links_hdl(&self._wires, self.faults.len(), |_| {
            "1'b0".into()
        }));
        let n = self.nodes.len();
        for p in 0..n {
            for blk in ["nodes", "sources", "checkers"] {
                let _ = writeln!(v, "    {blk}${p}$clock = clock;");
            }
            let _ = writeln!(v, "    nodes${p}$tx_gnt = 1'b1;");
            let _ = writeln!(v, "    nodes${p}$dlv_ready = 1'b1;");
            // The source drives the NI's request stream; the monitor shows it as driven.
            for x in request_ports() {
                let _ = writeln!(v, "    nodes${p}${x} = sources${p}${x};");
                let _ = writeln!(v, "    {x}${p} = sources${p}${x};");
            }
            for x in ["req_ready", "done_valid"] {
                let _ = writeln!(v, "    sources${p}${x} = nodes${p}${x};");
            }
            let _ = writeln!(v, "    sources${p}$done_uid = nodes${p}$done_uid[15:0];");
            for x in ["dlv_valid", "dlv_data", "dlv_last", "dlv_src", "dlv_len"] {
                let _ = writeln!(v, "    checkers${p}${x} = nodes${p}${x};");
            }
            // The monitor ports that copy an NI output of the same name.
            for x in HOST_OUTPUTS {
                let _ = writeln!(v, "    {x}${p} = nodes${p}${x};");
            }
            for (t, b, e) in [
                ("sent", "sources", "ev_sent"),
                ("lost", "sources", "ev_lost"),
                ("delivered", "checkers", "ev_delivered"),
                ("duplicated", "checkers", "ev_duplicated"),
                ("bad", "checkers", "ev_bad"),
            ] {
                let _ = writeln!(v, "    tally${t}${p} = {b}${p}${e};");
            }
        }
        for s in 0..n {
            for d in 0..n {
                let _ = writeln!(v, "    sources${s}$exp_in${d} = checkers${d}$exp_out${s};");
            }
        }
        v.push_str(
            "    tally$clock = clock;\n    tally$clear = clear;\n    reporter$clock = clock;\n",
        );
        for c in ["sent", "delivered", "duplicated", "lost", "bad"] {
            let _ = writeln!(v, "    reporter${c} = tally$cnt_{c};");
            let _ = writeln!(v, "    cnt_{c} = tally$cnt_{c};");
        }
        v.push_str("    led = reporter$led;\n    uart_tx = reporter$uart_tx;\n");
        v.push_str(&drops_hdl(self.switches.len(), self._topo.k));
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}
