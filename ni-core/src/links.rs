//! The links of a network of nodes on the k-ary n-tree, each through its fault injector (§9,
//! §10): walked for rust-hdl's simulator and emitted as Verilog, for every parent block that
//! holds `switches`, `faults` and `nodes` fields (the system, the self-test).

use std::fmt::Write;

use idemnet_router::{FlitDst, FlitSrc, Switch, Wire};
use idemnet_rtl::fault::LinkFault;
use idemnet_rtl::flit::Flit;
use rust_hdl::prelude::*;

/// Clocks the switches and the injectors and gives every injector the thresholds, all links
/// alive (the parent then marks dead ones while driving the links).
pub fn clock_fabric(
    switches: &mut [Switch],
    faults: &mut [LinkFault],
    clock: Clock,
    loss: Bits<16>,
    corrupt: Bits<16>,
) {
    for sw in switches.iter_mut() {
        sw.clock.next = clock;
    }
    for f in faults.iter_mut() {
        f.clock.next = clock;
        f.loss.next = loss;
        f.corrupt.next = corrupt;
        f.dead.next = false;
    }
}

/// Marks the switches' and injectors' inputs as driven by the parent.
pub fn connect_fabric(switches: &mut [Switch], faults: &mut [LinkFault]) {
    for sw in switches.iter_mut() {
        sw.clock.connect();
        for x in sw.down_in.iter_mut().chain(sw.up_in.iter_mut()) {
            x.connect();
        }
    }
    for f in faults.iter_mut() {
        f.clock.connect();
        f.flit_in.connect();
        f.loss.connect();
        f.corrupt.connect();
        f.dead.connect();
    }
}

/// The Verilog of [`clock_fabric`]: `loss` and `corrupt` are Verilog expressions.
pub fn clock_fabric_hdl(switches: usize, faults: usize, loss: &str, corrupt: &str) -> String {
    let mut v = String::new();
    for s in 0..switches {
        let _ = writeln!(v, "    switches${s}$clock = clock;");
    }
    for i in 0..faults {
        let _ = writeln!(v, "    faults${i}$clock = clock;");
        let _ = writeln!(v, "    faults${i}$loss = {loss};");
        let _ = writeln!(v, "    faults${i}$corrupt = {corrupt};");
    }
    v
}

/// `n` fresh signals (or blocks): one per node, link or switch of a parent.
pub fn sigs<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// A node as the links see it: one flit port each way.
pub trait LinkNode {
    fn net_out(&self) -> Flit;
    fn set_net_in(&mut self, f: Flit);
}

/// Drives every link's destination from its source through its injector, for rust-hdl's
/// simulator. `dead(j)` says whether inter-switch link `j` is dead.
pub fn drive_links<N: LinkNode>(
    wires: &[Wire],
    switches: &mut [Switch],
    faults: &mut [LinkFault],
    nodes: &mut [N],
    dead: impl Fn(usize) -> bool,
) {
    for w in wires {
        let v = match w.src {
            FlitSrc::NodeIn(p) => nodes[p].net_out(),
            FlitSrc::DownOut(s, i) => switches[s].down_out[i].val(),
            FlitSrc::UpOut(s, i) => switches[s].up_out[i].val(),
            FlitSrc::Zero => Flit::default(),
        };
        let v = match w.injector {
            Some(i) => {
                faults[i].flit_in.next = v;
                if let Some(j) = w.link {
                    faults[i].dead.next = dead(j);
                }
                faults[i].flit_out.val()
            }
            None => v,
        };
        match w.dst {
            FlitDst::NodeOut(p) => nodes[p].set_net_in(v),
            FlitDst::DownIn(s, i) => switches[s].down_in[i].next = v,
            FlitDst::UpIn(s, i) => switches[s].up_in[i].next = v,
        }
    }
}

fn src_name(src: FlitSrc) -> String {
    match src {
        FlitSrc::NodeIn(p) => format!("nodes${p}$net_out"),
        FlitSrc::DownOut(s, i) => format!("switches${s}$down_out${i}"),
        FlitSrc::UpOut(s, i) => format!("switches${s}$up_out${i}"),
        FlitSrc::Zero => "35'h0".to_string(),
    }
}

fn dst_name(dst: FlitDst) -> String {
    match dst {
        FlitDst::NodeOut(p) => format!("nodes${p}$net_in"),
        FlitDst::DownIn(s, i) => format!("switches${s}$down_in${i}"),
        FlitDst::UpIn(s, i) => format!("switches${s}$up_in${i}"),
    }
}

/// The Verilog statements (inside the parent's `always @(*)`) of the links; an injector on an
/// inter-switch link `j` takes `dead = dead_name(j)`, the others `1'b0`. Clocks and thresholds
/// are the parent's to assign.
pub fn links_hdl(wires: &[Wire], injectors: usize, dead_name: impl Fn(usize) -> String) -> String {
    let mut v = String::new();
    for i in 0..injectors {
        let _ = writeln!(v, "    faults${i}$dead = 1'b0;");
    }
    for w in wires {
        let (d, s) = (dst_name(w.dst), src_name(w.src));
        match w.injector {
            Some(i) => {
                let _ = writeln!(v, "    faults${i}$flit_in = {s};");
                if let Some(j) = w.link {
                    let _ = writeln!(v, "    faults${i}$dead = {};", dead_name(j));
                }
                let _ = writeln!(v, "    {d} = faults${i}$flit_out;");
            }
            None => {
                let _ = writeln!(v, "    {d} = {s};");
            }
        }
    }
    v
}
