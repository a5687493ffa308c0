//! The system of docs/protocol.md §10: one [`Node`] (idempotent NI, RMPP receive path, RMPP
//! framer, §13) per node on the k-ary n-tree of [`idemnet_router::Switch`]es, with a
//! [`LinkFault`] on every directed link.

use std::fmt::Write;

use idemnet_router::{drive_drops, drops_hdl, wires, Switch, Topology, Wire};
use idemnet_rtl::fault::LinkFault;
use idemnet_rtl::flit::Flit;
use idemnet_spec::ni::NiConfig;
use idemnet_spec::ports::PortDir;
use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

use crate::host_ports::with_host_ports;
use crate::links::{
    clock_fabric, clock_fabric_hdl, connect_fabric, drive_links, links_hdl, sigs, LinkNode,
};
use crate::node::Node;

/// Declares [`System`] with one `Vec` of per-node signals for each host port of a node (the
/// one list of [`crate::host_ports`]), in the system's port order (§10,
/// `idemnet_spec::system::Layout::ports`), and writes the copies between those ports and the
/// nodes' for rust-hdl's simulator and `connect`. Each field is
/// named as the node's port it shows; the test `the_ports_are_the_spec_layout` holds the list to
/// the contract's tables, and [`System::hdl`] takes the names from them.
macro_rules! system_with_node_ports {
    (
        ni: {
            inputs: { $($ni_input:ident = $ni_input_port:ident: $ni_input_type:ty),* $(,)? },
            outputs: { $($ni_output:ident = $ni_output_port:ident: $ni_output_type:ty),* $(,)? } $(,)?
        },
        rx: {
            inputs: { $($rx_input:ident = $rx_input_port:ident: $rx_input_type:ty),* $(,)? },
            outputs: { $($rx_output:ident = $rx_output_port:ident: $rx_output_type:ty),* $(,)? } $(,)?
        },
        tx: {
            inputs: { $($tx_input:ident = $tx_input_port:ident: $tx_input_type:ty),* $(,)? },
            outputs: { $($tx_output:ident = $tx_output_port:ident: $tx_output_type:ty),* $(,)? } $(,)?
        } $(,)?
    ) => {
        /// The whole machine's network: nodes, switches, injectors (docs/protocol.md §10,
        /// §13).
        ///
        /// Ports (Verilog names; `$p` is node `p`, `$j` inter-switch link `j`, `$x` drop
        /// counter `x`), in the order of `idemnet_spec::system::Layout::ports`:
        ///
        /// | port | dir | width | |
        /// |------|-----|-------|-|
        /// | `clock` | in | 1 | |
        /// | `loss`, `corrupt` | in | 16 | thresholds of every injector (§9) |
        /// | `dead$j` | in | 1 | inter-switch link `j` is dead (both directions) |
        /// | `req_valid$p` ... `dlv_ready$p` | in | | the NI's host inputs (§8.2), each over all nodes |
        /// | `req_ready$p` ... `cnt_host_error$p` | out | | the NI's host outputs |
        /// | `drops$x` | out | 16 | the switches' drop counters (§5) |
        /// | `rx_up_ready$p` ... `rx_rd_word$p`, `tx_valid$p` ... `tx_bytes$p` | in | | the RMPP receive path's host inputs (§11.3), then the framer's (§13.1) |
        /// | `rx_up_valid$p` ... `rx_cnt_restart$p`, `tx_ready$p`, `tx_cnt_host_error$p` | out | | their host outputs |
        ///
        /// Timing: the nodes and switches keep their own timing (§4, §8, §11, §13); links are
        /// wires through combinational injectors, so a flit leaving a register in `O_t` is at
        /// the next block's input in cycle `t + 1`. The `Logic` is written by hand, like
        /// [`idemnet_router::Fabric`]'s: the link list of [`wires`] is walked by `update` for
        /// rust-hdl's simulator and emitted by `hdl`.
        #[derive(LogicBlock)]
        pub struct System {
            pub clock: Signal<In, Clock>,
            pub loss: Signal<In, Bits<16>>,
            pub corrupt: Signal<In, Bits<16>>,
            pub dead: Vec<Signal<In, Bit>>,
            $(pub $ni_input: Vec<Signal<In, $ni_input_type>>,)*
            $(pub $ni_output: Vec<Signal<Out, $ni_output_type>>,)*
            pub drops: Vec<Signal<Out, Bits<16>>>,
            $(pub $rx_input: Vec<Signal<In, $rx_input_type>>,)*
            $(pub $tx_input: Vec<Signal<In, $tx_input_type>>,)*
            $(pub $rx_output: Vec<Signal<Out, $rx_output_type>>,)*
            $(pub $tx_output: Vec<Signal<Out, $tx_output_type>>,)*
            pub switches: Vec<Switch>,
            pub faults: Vec<LinkFault>,
            pub nodes: Vec<Node>,
            _topo: Topology,
            _wires: Vec<Wire>,
        }

        impl System {
            /// The system of `topo` with its `links`; node `p` has an NI with the parameters
            /// of `ni` and an RMPP receive path with those of `rmpp`, both with `node = p`.
            pub fn with_links(
                topo: Topology,
                ni: &NiConfig,
                rmpp: &RmppConfig,
                links: Links,
            ) -> Self {
                let n = topo.nodes;
                let inter_switch = (topo.n - 1) * topo.per_level * topo.k;
                let mut wires = wires(&topo);
                let injectors = match links {
                    Links::Injected => 2 * n + 2 * inter_switch,
                    Links::Plain => {
                        wires.iter_mut().for_each(|w| w.injector = None);
                        0
                    }
                };
                Self {
                    clock: Default::default(),
                    loss: Default::default(),
                    corrupt: Default::default(),
                    dead: sigs(inter_switch),
                    $($ni_input: sigs(n),)*
                    $($ni_output: sigs(n),)*
                    drops: sigs(topo.switches() * 2 * topo.k),
                    $($rx_input: sigs(n),)*
                    $($tx_input: sigs(n),)*
                    $($rx_output: sigs(n),)*
                    $($tx_output: sigs(n),)*
                    switches: (0..topo.switches())
                        .map(|s| {
                            let (l, w) = topo.switch_coords(s);
                            Switch::new(&topo, l, w)
                        })
                        .collect(),
                    faults: (0..injectors).map(LinkFault::new).collect(),
                    nodes: (0..n)
                        .map(|p| {
                            Node::new(
                                &NiConfig {
                                    node: p as u16,
                                    ..*ni
                                },
                                &RmppConfig {
                                    node: p as u16,
                                    nodes: n,
                                    ..*rmpp
                                },
                            )
                        })
                        .collect(),
                    _topo: topo,
                    _wires: wires,
                }
            }

            /// The host ports of every node, copied between the system's and the node's.
            fn copy_host_ports(&mut self) {
                for (p, node) in self.nodes.iter_mut().enumerate() {
                    $(node.$ni_input.next = self.$ni_input[p].val();)*
                    $(self.$ni_output[p].next = node.$ni_output.val();)*
                    $(node.$rx_input.next = self.$rx_input[p].val();)*
                    $(self.$rx_output[p].next = node.$rx_output.val();)*
                    $(node.$tx_input.next = self.$tx_input[p].val();)*
                    $(self.$tx_output[p].next = node.$tx_output.val();)*
                }
            }

            /// Marks the system's host outputs and the nodes' host inputs as driven here.
            fn connect_host_ports(&mut self) {
                $(self.$ni_output.iter_mut().for_each(|x| x.connect());)*
                $(self.$rx_output.iter_mut().for_each(|x| x.connect());)*
                $(self.$tx_output.iter_mut().for_each(|x| x.connect());)*
                for node in self.nodes.iter_mut() {
                    $(node.$ni_input.connect();)*
                    $(node.$rx_input.connect();)*
                    $(node.$tx_input.connect();)*
                }
            }
        }
    };
}

with_host_ports!(system_with_node_ports);

/// What stands on the system's links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// A [`LinkFault`] on every directed link (§9): the co-simulated system, whose `loss`,
    /// `corrupt` and `dead$j` ports drive them.
    Injected,
    /// Wires: the machine as it would be built, without the test's injectors (about 100 LUT4
    /// and 25 carry cells each, 64 of them in system16: a tenth of an LFE5U-85F). `loss`,
    /// `corrupt` and `dead$j` are then read by nothing; they stay, so that the port list is the
    /// same and the system behaves as the injected one with both thresholds 0 and no dead
    /// link (a co-simulation against the model checks it). The FPGA image of system16; the
    /// self-test images keep their injectors.
    Plain,
}

impl System {
    /// The co-simulated system of `topo`: [`System::with_links`] with an injector on every
    /// link.
    pub fn new(topo: Topology, ni: &NiConfig, rmpp: &RmppConfig) -> Self {
        Self::with_links(topo, ni, rmpp, Links::Injected)
    }
}

impl LinkNode for Node {
    fn net_out(&self) -> Flit {
        self.net_out.val()
    }
    fn set_net_in(&mut self, f: Flit) {
        self.net_in.next = f;
    }
}

impl Logic for System {
    fn update(&mut self) {
        let clock = self.clock.val();
        for node in self.nodes.iter_mut() {
            node.clock.next = clock;
        }
        let (loss, corrupt) = (self.loss.val(), self.corrupt.val());
        clock_fabric(&mut self.switches, &mut self.faults, clock, loss, corrupt);
        let dead = &self.dead;
        drive_links(
            &self._wires,
            &mut self.switches,
            &mut self.faults,
            &mut self.nodes,
            |j| dead[j].val(),
        );
        self.copy_host_ports();
        let k = self._topo.k;
        drive_drops(&self.switches, &mut self.drops, k);
    }

    fn connect(&mut self) {
        self.drops.iter_mut().for_each(|x| x.connect());
        self.connect_host_ports();
        connect_fabric(&mut self.switches, &mut self.faults);
        for node in self.nodes.iter_mut() {
            node.clock.connect();
            node.net_in.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let k = self._topo.k;
        let mut v = String::from("always @(*) begin\n");
        v.push_str(&clock_fabric_hdl(
            self.switches.len(),
            self.faults.len(),
            "loss",
            "corrupt",
        ));
        v.push_str(&links_hdl(&self._wires, self.faults.len(), |j| {
            format!("dead${j}")
        }));
        for p in 0..self.nodes.len() {
            let _ = writeln!(v, "    nodes${p}$clock = clock;");
            for port in idemnet_spec::node::host_ports() {
                let name = port.name;
                let _ = match port.dir {
                    PortDir::In => writeln!(v, "    nodes${p}${name} = {name}${p};"),
                    PortDir::Out => writeln!(v, "    {name}${p} = nodes${p}${name};"),
                };
            }
        }
        v.push_str(&drops_hdl(self.switches.len(), k));
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idemnet_spec::system::Layout;

    /// The system's ports are the contract's layout, name, direction, width and order.
    #[test]
    fn the_ports_are_the_spec_layout() {
        for (k, n) in [(2, 2), (4, 2)] {
            let topo = Topology::new(k, n).unwrap();
            let links = (topo.n - 1) * topo.per_level * topo.k;
            let layout = Layout::new(topo.nodes, links, topo.switches() * 2 * topo.k);
            let system = System::new(topo, &NiConfig::DEFAULT, &RmppConfig::DEFAULT);
            assert_eq!(idemnet_rtl::ports::port_list(&system), layout.ports());
        }
    }
}
