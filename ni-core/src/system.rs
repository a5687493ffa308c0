//! The system of docs/protocol.md §10: one [`Ni`] per node on the k-ary n-tree of
//! [`idemnet_router::Switch`]es, with a [`LinkFault`] on every directed link.

use std::fmt::Write;

use idemnet_model::ni::NiConfig;
use idemnet_router::{drops_hdl, wires, FlitDst, FlitSrc, Switch, Topology, Wire};
use idemnet_rtl::fault::LinkFault;
use idemnet_rtl::flit::Flit;
use rust_hdl::prelude::*;

use crate::ni::Ni;

/// The whole machine's network: NIs, switches, injectors (docs/protocol.md §10).
///
/// Ports (Verilog names; `$p` is node `p`, `$j` inter-switch link `j`, `$x` drop counter `x`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `loss`, `corrupt` | in | 16 | thresholds of every injector (§9) |
/// | `dead$j` | in | 1 | inter-switch link `j` is dead (both directions) |
/// | `req_valid$p`, `req_dst$p`, `req_len$p`, `req_data$p`, `dlv_ready$p` | in | | host side of NI `p` (§8.2) |
/// | `req_ready$p`, `dlv_valid$p`, `dlv_src$p`, `dlv_uid$p`, `dlv_len$p`, `dlv_data$p`, `done_valid$p`, `done_uid$p` | out | | host side of NI `p` |
/// | `cnt_<name>$p` | out | 16 | the NI counters of §8.2 |
/// | `drops$x` | out | 16 | the switches' drop counters (§5) |
///
/// Timing: the NIs and switches keep their own timing (§4, §8); links are wires through
/// combinational injectors, so a flit leaving a register in `O_t` is at the next block's input
/// in cycle `t + 1`. The `Logic` is written by hand, like [`idemnet_router::Fabric`]'s: the link
/// list of [`wires`] is walked by `update` for rust-hdl's simulator and emitted by `hdl`.
#[derive(LogicBlock)]
pub struct System {
    pub clock: Signal<In, Clock>,
    pub loss: Signal<In, Bits<16>>,
    pub corrupt: Signal<In, Bits<16>>,
    pub dead: Vec<Signal<In, Bit>>,
    pub req_valid: Vec<Signal<In, Bit>>,
    pub req_dst: Vec<Signal<In, Bits<16>>>,
    pub req_len: Vec<Signal<In, Bits<6>>>,
    pub req_data: Vec<Signal<In, Bits<256>>>,
    pub dlv_ready: Vec<Signal<In, Bit>>,
    pub req_ready: Vec<Signal<Out, Bit>>,
    pub dlv_valid: Vec<Signal<Out, Bit>>,
    pub dlv_src: Vec<Signal<Out, Bits<16>>>,
    pub dlv_uid: Vec<Signal<Out, Bits<32>>>,
    pub dlv_len: Vec<Signal<Out, Bits<6>>>,
    pub dlv_data: Vec<Signal<Out, Bits<256>>>,
    pub done_valid: Vec<Signal<Out, Bit>>,
    pub done_uid: Vec<Signal<Out, Bits<32>>>,
    pub cnt_crc: Vec<Signal<Out, Bits<16>>>,
    pub cnt_truncated: Vec<Signal<Out, Bits<16>>>,
    pub cnt_malformed: Vec<Signal<Out, Bits<16>>>,
    pub cnt_misrouted: Vec<Signal<Out, Bits<16>>>,
    pub cnt_not_source: Vec<Signal<Out, Bits<16>>>,
    pub cnt_table_full: Vec<Signal<Out, Bits<16>>>,
    pub cnt_unknown: Vec<Signal<Out, Bits<16>>>,
    pub cnt_busy: Vec<Signal<Out, Bits<16>>>,
    pub cnt_duplicate: Vec<Signal<Out, Bits<16>>>,
    pub cnt_retransmit: Vec<Signal<Out, Bits<16>>>,
    pub drops: Vec<Signal<Out, Bits<16>>>,
    pub switches: Vec<Switch>,
    pub faults: Vec<LinkFault>,
    pub nis: Vec<Ni>,
    _topo: Topology,
    _wires: Vec<Wire>,
}

fn sigs<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// The host-side port names of an NI, in the order they appear as system ports.
const NI_IN: [&str; 5] = ["req_valid", "req_dst", "req_len", "req_data", "dlv_ready"];
const NI_OUT: [&str; 18] = [
    "req_ready",
    "dlv_valid",
    "dlv_src",
    "dlv_uid",
    "dlv_len",
    "dlv_data",
    "done_valid",
    "done_uid",
    "cnt_crc",
    "cnt_truncated",
    "cnt_malformed",
    "cnt_misrouted",
    "cnt_not_source",
    "cnt_table_full",
    "cnt_unknown",
    "cnt_busy",
    "cnt_duplicate",
    "cnt_retransmit",
];

impl System {
    /// The system of `topo`; NI `p` has the parameters of `ni` with `node = p`.
    pub fn new(topo: Topology, ni: &NiConfig) -> Self {
        let n = topo.nodes;
        let links = (topo.n - 1) * topo.per_level * topo.k;
        let wires = wires(&topo);
        let injectors = 2 * n + 2 * links;
        Self {
            clock: Default::default(),
            loss: Default::default(),
            corrupt: Default::default(),
            dead: sigs(links),
            req_valid: sigs(n),
            req_dst: sigs(n),
            req_len: sigs(n),
            req_data: sigs(n),
            dlv_ready: sigs(n),
            req_ready: sigs(n),
            dlv_valid: sigs(n),
            dlv_src: sigs(n),
            dlv_uid: sigs(n),
            dlv_len: sigs(n),
            dlv_data: sigs(n),
            done_valid: sigs(n),
            done_uid: sigs(n),
            cnt_crc: sigs(n),
            cnt_truncated: sigs(n),
            cnt_malformed: sigs(n),
            cnt_misrouted: sigs(n),
            cnt_not_source: sigs(n),
            cnt_table_full: sigs(n),
            cnt_unknown: sigs(n),
            cnt_busy: sigs(n),
            cnt_duplicate: sigs(n),
            cnt_retransmit: sigs(n),
            drops: sigs(topo.switches() * 2 * topo.k),
            switches: (0..topo.switches())
                .map(|s| {
                    let (l, w) = topo.switch_coords(s);
                    Switch::new(&topo, l, w)
                })
                .collect(),
            faults: (0..injectors).map(LinkFault::new).collect(),
            nis: (0..n)
                .map(|p| {
                    Ni::new(&NiConfig {
                        node: p as u16,
                        ..*ni
                    })
                })
                .collect(),
            _topo: topo,
            _wires: wires,
        }
    }

    fn src_val(&self, src: FlitSrc) -> Flit {
        match src {
            FlitSrc::NodeIn(p) => self.nis[p].net_out.val(),
            FlitSrc::DownOut(s, i) => self.switches[s].down_out[i].val(),
            FlitSrc::UpOut(s, i) => self.switches[s].up_out[i].val(),
            FlitSrc::Zero => Flit::default(),
        }
    }
}

fn src_name(src: FlitSrc) -> String {
    match src {
        FlitSrc::NodeIn(p) => format!("nis${p}$net_out"),
        FlitSrc::DownOut(s, i) => format!("switches${s}$down_out${i}"),
        FlitSrc::UpOut(s, i) => format!("switches${s}$up_out${i}"),
        FlitSrc::Zero => "35'h0".to_string(),
    }
}

fn dst_name(dst: FlitDst) -> String {
    match dst {
        FlitDst::NodeOut(p) => format!("nis${p}$net_in"),
        FlitDst::DownIn(s, i) => format!("switches${s}$down_in${i}"),
        FlitDst::UpIn(s, i) => format!("switches${s}$up_in${i}"),
    }
}

impl Logic for System {
    fn update(&mut self) {
        let clock = self.clock.val();
        for sw in self.switches.iter_mut() {
            sw.clock.next = clock;
        }
        for ni in self.nis.iter_mut() {
            ni.clock.next = clock;
        }
        let (loss, corrupt) = (self.loss.val(), self.corrupt.val());
        for f in self.faults.iter_mut() {
            f.clock.next = clock;
            f.loss.next = loss;
            f.corrupt.next = corrupt;
            f.dead.next = false;
        }
        for w in self._wires.clone() {
            let v = self.src_val(w.src);
            let v = match w.injector {
                Some(i) => {
                    self.faults[i].flit_in.next = v;
                    if let Some(j) = w.link {
                        self.faults[i].dead.next = self.dead[j].val();
                    }
                    self.faults[i].flit_out.val()
                }
                None => v,
            };
            match w.dst {
                FlitDst::NodeOut(p) => self.nis[p].net_in.next = v,
                FlitDst::DownIn(s, i) => self.switches[s].down_in[i].next = v,
                FlitDst::UpIn(s, i) => self.switches[s].up_in[i].next = v,
            }
        }
        for (p, ni) in self.nis.iter_mut().enumerate() {
            ni.req_valid.next = self.req_valid[p].val();
            ni.req_dst.next = self.req_dst[p].val();
            ni.req_len.next = self.req_len[p].val();
            ni.req_data.next = self.req_data[p].val();
            ni.dlv_ready.next = self.dlv_ready[p].val();
            ni.tx_gnt.next = true;
            self.req_ready[p].next = ni.req_ready.val();
            self.dlv_valid[p].next = ni.dlv_valid.val();
            self.dlv_src[p].next = ni.dlv_src.val();
            self.dlv_uid[p].next = ni.dlv_uid.val();
            self.dlv_len[p].next = ni.dlv_len.val();
            self.dlv_data[p].next = ni.dlv_data.val();
            self.done_valid[p].next = ni.done_valid.val();
            self.done_uid[p].next = ni.done_uid.val();
            self.cnt_crc[p].next = ni.cnt_crc.val();
            self.cnt_truncated[p].next = ni.cnt_truncated.val();
            self.cnt_malformed[p].next = ni.cnt_malformed.val();
            self.cnt_misrouted[p].next = ni.cnt_misrouted.val();
            self.cnt_not_source[p].next = ni.cnt_not_source.val();
            self.cnt_table_full[p].next = ni.cnt_table_full.val();
            self.cnt_unknown[p].next = ni.cnt_unknown.val();
            self.cnt_busy[p].next = ni.cnt_busy.val();
            self.cnt_duplicate[p].next = ni.cnt_duplicate.val();
            self.cnt_retransmit[p].next = ni.cnt_retransmit.val();
        }
        let k = self._topo.k;
        for (s, sw) in self.switches.iter().enumerate() {
            for i in 0..k {
                self.drops[s * 2 * k + i].next = sw.drops_down[i].val();
                self.drops[s * 2 * k + k + i].next = sw.drops_up[i].val();
            }
        }
    }

    fn connect(&mut self) {
        // Every output port of the system, and below, every child input it drives.
        macro_rules! driven {
            ($($f:ident),+) => { $(self.$f.iter_mut().for_each(|x| x.connect());)+ };
        }
        driven!(
            req_ready,
            dlv_valid,
            dlv_src,
            dlv_uid,
            dlv_len,
            dlv_data,
            done_valid,
            done_uid,
            cnt_crc,
            cnt_truncated,
            cnt_malformed,
            cnt_misrouted,
            cnt_not_source,
            cnt_table_full,
            cnt_unknown,
            cnt_busy,
            cnt_duplicate,
            cnt_retransmit,
            drops
        );
        for sw in self.switches.iter_mut() {
            sw.clock.connect();
            for x in sw.down_in.iter_mut().chain(sw.up_in.iter_mut()) {
                x.connect();
            }
        }
        for f in self.faults.iter_mut() {
            f.clock.connect();
            f.flit_in.connect();
            f.loss.connect();
            f.corrupt.connect();
            f.dead.connect();
        }
        for ni in self.nis.iter_mut() {
            ni.clock.connect();
            ni.net_in.connect();
            ni.req_valid.connect();
            ni.req_dst.connect();
            ni.req_len.connect();
            ni.req_data.connect();
            ni.dlv_ready.connect();
            ni.tx_gnt.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let k = self._topo.k;
        let mut v = String::from("always @(*) begin\n");
        for s in 0..self.switches.len() {
            let _ = writeln!(v, "    switches${s}$clock = clock;");
        }
        for i in 0..self.faults.len() {
            let _ = writeln!(v, "    faults${i}$clock = clock;");
            let _ = writeln!(v, "    faults${i}$loss = loss;");
            let _ = writeln!(v, "    faults${i}$corrupt = corrupt;");
            let _ = writeln!(v, "    faults${i}$dead = 1'b0;");
        }
        for w in &self._wires {
            let (d, s) = (dst_name(w.dst), src_name(w.src));
            match w.injector {
                Some(i) => {
                    let _ = writeln!(v, "    faults${i}$flit_in = {s};");
                    if let Some(j) = w.link {
                        let _ = writeln!(v, "    faults${i}$dead = dead${j};");
                    }
                    let _ = writeln!(v, "    {d} = faults${i}$flit_out;");
                }
                None => {
                    let _ = writeln!(v, "    {d} = {s};");
                }
            }
        }
        for p in 0..self.nis.len() {
            let _ = writeln!(v, "    nis${p}$clock = clock;");
            let _ = writeln!(v, "    nis${p}$tx_gnt = 1'b1;");
            for name in NI_IN {
                let _ = writeln!(v, "    nis${p}${name} = {name}${p};");
            }
            for name in NI_OUT {
                let _ = writeln!(v, "    {name}${p} = nis${p}${name};");
            }
        }
        v.push_str(&drops_hdl(self.switches.len(), k));
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}
