//! The fabric top of `docs/protocol.md` §5: switches wired as a k-ary n-tree.

use crate::switch::Switch;
use crate::topology::{PortRef, Topology};
use idemnet_rtl::flit::Flit;
use rust_hdl::prelude::*;
use std::fmt::Write;

/// Where a link's flits come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlitSrc {
    /// Node `p` (its injection port).
    NodeIn(usize),
    /// Down output `port` of switch `s`.
    DownOut(usize, usize),
    /// Up output `port` of switch `s`.
    UpOut(usize, usize),
    /// Constant zero (the up inputs of top-level switches).
    Zero,
}

/// Where a link's flits go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlitDst {
    /// Node `p` (its ejection port).
    NodeOut(usize),
    /// Down input `port` of switch `s`.
    DownIn(usize, usize),
    /// Up input `port` of switch `s`.
    UpIn(usize, usize),
}

/// One directed link of the tree, with its link-fault injector number (docs/protocol.md §9) and,
/// for an inter-switch link, the number `j` of the bidirectional link it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wire {
    pub dst: FlitDst,
    pub src: FlitSrc,
    pub injector: Option<usize>,
    pub link: Option<usize>,
}

/// Drives the drop-counter ports `drops$x` (`x = s*2k + i`, §5) from the switches, for
/// rust-hdl's simulator: the counterpart of [`drops_hdl`].
pub fn drive_drops(switches: &[Switch], drops: &mut [Signal<Out, Bits<16>>], k: usize) {
    for (s, sw) in switches.iter().enumerate() {
        for i in 0..k {
            drops[s * 2 * k + i].next = sw.drops_down[i].val();
            drops[s * 2 * k + k + i].next = sw.drops_up[i].val();
        }
    }
}

/// The Verilog assignments of the drop-counter ports `drops$x` (`x = s*2k + i`, §5) from the
/// child switches `switches$s`, for a parent that holds the switches.
pub fn drops_hdl(switches: usize, k: usize) -> String {
    let mut v = String::new();
    for s in 0..switches {
        for i in 0..k {
            let _ = writeln!(
                v,
                "    drops${} = switches${s}$drops_down${i};",
                s * 2 * k + i
            );
            let _ = writeln!(
                v,
                "    drops${} = switches${s}$drops_up${i};",
                s * 2 * k + k + i
            );
        }
    }
    v
}

/// Every directed link of the k-ary n-tree (§3, §5), numbered for faults as §9 says.
pub fn wires(topo: &Topology) -> Vec<Wire> {
    let k = topo.k;
    let nodes = topo.nodes;
    let mut wires = vec![];
    let w = |dst, src, injector, link| Wire {
        dst,
        src,
        injector,
        link,
    };
    for p in 0..nodes {
        let PortRef::Down { s, port } = topo.node_port(p) else {
            unreachable!()
        };
        wires.push(w(
            FlitDst::DownIn(s, port),
            FlitSrc::NodeIn(p),
            Some(2 * p),
            None,
        ));
        wires.push(w(
            FlitDst::NodeOut(p),
            FlitSrc::DownOut(s, port),
            Some(2 * p + 1),
            None,
        ));
    }
    for l in 0..topo.n {
        for wi in 0..topo.per_level {
            let s = topo.switch_index(l, wi);
            for u in 0..k {
                if l + 1 == topo.n {
                    wires.push(w(FlitDst::UpIn(s, u), FlitSrc::Zero, None, None));
                } else {
                    let PortRef::Down { s: s2, port } = topo.up_link(l, wi, u) else {
                        unreachable!()
                    };
                    let j = s * k + u;
                    let up = 2 * nodes + 2 * j;
                    wires.push(w(
                        FlitDst::DownIn(s2, port),
                        FlitSrc::UpOut(s, u),
                        Some(up),
                        Some(j),
                    ));
                    wires.push(w(
                        FlitDst::UpIn(s, u),
                        FlitSrc::DownOut(s2, port),
                        Some(up + 1),
                        Some(j),
                    ));
                }
            }
        }
    }
    wires
}

/// The fabric top (`docs/protocol.md` §5).
///
/// Ports (Verilog names):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `node_in$p` | in | 35 | node `p` into leaf switch `p >> b`, down port `p & (k-1)` |
/// | `node_out$p` | out | 35 | from that switch's down port to node `p` |
/// | `drops$x` | out | 16 | `x = s*2k + i`: drop counter of input `i` of switch `s` |
///
/// Timing: pure wiring between [`Switch`]es, whose outputs are all registers: a flit entering
/// at `node_in$p` in cycle `t` leaves at `node_out$q` in cycle `t + 2(2L + 1)` (`2L + 1` switch
/// traversals, two cycles each), part of `O_(t+4L+1)`; `drops$x` is the switch's counter
/// register, which shows a drop counted in cycle `t` in `O_(t+1)`.
///
/// The `Logic` is written by hand because the link indices are computed from the topology: a
/// list of wires is built once by [`Fabric::new`]; `update` copies along it for rust-hdl's
/// simulator and `hdl` emits the same list as one `always @(*)` block of assignments between
/// the parent-side names rust-hdl gives the child ports (`switches$s$down_in$i`, ...). Up inputs
/// of top-level switches are tied to zero; their up outputs are left unconnected.
#[derive(LogicBlock)]
pub struct Fabric {
    pub clock: Signal<In, Clock>,
    pub node_in: Vec<Signal<In, Flit>>,
    pub node_out: Vec<Signal<Out, Flit>>,
    pub drops: Vec<Signal<Out, Bits<16>>>,
    pub switches: Vec<Switch>,
    _topo: Topology,
    _wires: Vec<(FlitDst, FlitSrc)>,
}

impl Fabric {
    /// The fabric of `topo` (see [`Topology::new`] for the valid parameters).
    pub fn new(topo: Topology) -> Self {
        let k = topo.k;
        let wires = wires(&topo).into_iter().map(|w| (w.dst, w.src)).collect();
        let switches = (0..topo.switches())
            .map(|s| {
                let (l, w) = topo.switch_coords(s);
                Switch::new(&topo, l, w)
            })
            .collect::<Vec<_>>();
        Self {
            clock: Default::default(),
            node_in: (0..topo.nodes).map(|_| Default::default()).collect(),
            node_out: (0..topo.nodes).map(|_| Default::default()).collect(),
            drops: (0..topo.switches() * 2 * k)
                .map(|_| Default::default())
                .collect(),
            switches,
            _topo: topo,
            _wires: wires,
        }
    }

    /// The topology this fabric was built for.
    pub fn topology(&self) -> Topology {
        self._topo
    }
}

impl Logic for Fabric {
    fn update(&mut self) {
        let k = self._topo.k;
        let clock = self.clock.val();
        for sw in self.switches.iter_mut() {
            sw.clock.next = clock;
        }
        for &(dst, src) in self._wires.iter() {
            let v: Flit = match src {
                FlitSrc::NodeIn(p) => self.node_in[p].val(),
                FlitSrc::DownOut(s, i) => self.switches[s].down_out[i].val(),
                FlitSrc::UpOut(s, i) => self.switches[s].up_out[i].val(),
                FlitSrc::Zero => Flit::default(),
            };
            match dst {
                FlitDst::NodeOut(p) => self.node_out[p].next = v,
                FlitDst::DownIn(s, i) => self.switches[s].down_in[i].next = v,
                FlitDst::UpIn(s, i) => self.switches[s].up_in[i].next = v,
            }
        }
        drive_drops(&self.switches, &mut self.drops, k);
    }

    fn connect(&mut self) {
        for x in self.node_out.iter_mut() {
            x.connect();
        }
        for x in self.drops.iter_mut() {
            x.connect();
        }
        for sw in self.switches.iter_mut() {
            sw.clock.connect();
            for x in sw.down_in.iter_mut().chain(sw.up_in.iter_mut()) {
                x.connect();
            }
        }
    }

    fn hdl(&self) -> Verilog {
        let k = self._topo.k;
        let mut v = String::from("always @(*) begin\n");
        for s in 0..self.switches.len() {
            let _ = writeln!(v, "    switches${s}$clock = clock;");
        }
        for &(dst, src) in self._wires.iter() {
            let d = match dst {
                FlitDst::NodeOut(p) => format!("node_out${p}"),
                FlitDst::DownIn(s, i) => format!("switches${s}$down_in${i}"),
                FlitDst::UpIn(s, i) => format!("switches${s}$up_in${i}"),
            };
            let r = match src {
                FlitSrc::NodeIn(p) => format!("node_in${p}"),
                FlitSrc::DownOut(s, i) => format!("switches${s}$down_out${i}"),
                FlitSrc::UpOut(s, i) => format!("switches${s}$up_out${i}"),
                FlitSrc::Zero => "35'h0".to_string(),
            };
            let _ = writeln!(v, "    {d} = {r};");
        }
        v.push_str(&drops_hdl(self.switches.len(), k));
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}
