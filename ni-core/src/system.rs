//! The system of docs/protocol.md §10: one [`Node`] (idempotent NI, RMPP receive path, RMPP
//! framer, §13) per node on the k-ary n-tree of [`idemnet_router::Switch`]es, with a
//! [`LinkFault`] on every directed link.

use std::fmt::Write;

use idemnet_router::{drive_drops, drops_hdl, wires, Switch, Topology, Wire};
use idemnet_rtl::fault::LinkFault;
use idemnet_rtl::flit::Flit;
use idemnet_spec::ni::NiConfig;
use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

use crate::links::{
    clock_fabric, clock_fabric_hdl, connect_fabric, drive_links, links_hdl, sigs, LinkNode,
};
use crate::ni::{HOST_INPUTS, HOST_OUTPUTS};
use crate::node::Node;

/// The whole machine's network: nodes, switches, injectors (docs/protocol.md §10, §13).
///
/// Ports (Verilog names; `$p` is node `p`, `$j` inter-switch link `j`, `$x` drop counter `x`),
/// in this order:
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
/// | `rx_up_ready$p`, `rx_up_accept$p`, `rx_dlv_ready$p`, `rx_rd_slot$p`, `rx_rd_word$p` | in | | host inputs of node `p`'s RMPP receive path (§11.3) |
/// | `tx_valid$p`, `tx_dst$p`, `tx_type$p`, `tx_msg_id$p`, `tx_len$p`, `tx_seq$p`, `tx_info$p`, `tx_msg_num$p`, `tx_bytes$p`, `tx_data$p` | in | | node `p`'s framer (§13.1) |
/// | `rx_up_valid$p` ... `rx_snd_msg_num$p`, `rx_cnt_<name>$p` | out | | host outputs of node `p`'s RMPP receive path, in §11.3's order |
/// | `tx_ready$p` | out | 1 | node `p`'s framer takes a packet |
///
/// Timing: the nodes and switches keep their own timing (§4, §8, §11, §13); links are wires
/// through combinational injectors, so a flit leaving a register in `O_t` is at the next block's
/// input in cycle `t + 1`. The `Logic` is written by hand, like [`idemnet_router::Fabric`]'s:
/// the link list of [`wires`] is walked by `update` for rust-hdl's simulator and emitted by
/// `hdl`.
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
    pub rx_up_ready: Vec<Signal<In, Bit>>,
    pub rx_up_accept: Vec<Signal<In, Bits<32>>>,
    pub rx_dlv_ready: Vec<Signal<In, Bit>>,
    pub rx_rd_slot: Vec<Signal<In, Bits<4>>>,
    pub rx_rd_word: Vec<Signal<In, Bits<10>>>,
    pub tx_valid: Vec<Signal<In, Bit>>,
    pub tx_dst: Vec<Signal<In, Bits<16>>>,
    pub tx_type: Vec<Signal<In, Bits<4>>>,
    pub tx_msg_id: Vec<Signal<In, Bits<32>>>,
    pub tx_len: Vec<Signal<In, Bits<32>>>,
    pub tx_seq: Vec<Signal<In, Bits<32>>>,
    pub tx_info: Vec<Signal<In, Bits<32>>>,
    pub tx_msg_num: Vec<Signal<In, Bits<32>>>,
    pub tx_bytes: Vec<Signal<In, Bits<6>>>,
    pub tx_data: Vec<Signal<In, Bits<256>>>,
    pub rx_up_valid: Vec<Signal<Out, Bit>>,
    pub rx_up_slot: Vec<Signal<Out, Bits<4>>>,
    pub rx_up_src: Vec<Signal<Out, Bits<16>>>,
    pub rx_up_msg_id: Vec<Signal<Out, Bits<32>>>,
    pub rx_up_msg_num: Vec<Signal<Out, Bits<32>>>,
    pub rx_up_len: Vec<Signal<Out, Bits<32>>>,
    pub rx_dlv_valid: Vec<Signal<Out, Bit>>,
    pub rx_dlv_slot: Vec<Signal<Out, Bits<4>>>,
    pub rx_dlv_src: Vec<Signal<Out, Bits<16>>>,
    pub rx_dlv_msg_id: Vec<Signal<Out, Bits<32>>>,
    pub rx_dlv_msg_num: Vec<Signal<Out, Bits<32>>>,
    pub rx_dlv_len: Vec<Signal<Out, Bits<32>>>,
    pub rx_rd_data: Vec<Signal<Out, Bits<32>>>,
    pub rx_snd_valid: Vec<Signal<Out, Bit>>,
    pub rx_snd_type: Vec<Signal<Out, Bits<4>>>,
    pub rx_snd_peer: Vec<Signal<Out, Bits<16>>>,
    pub rx_snd_msg_id: Vec<Signal<Out, Bits<32>>>,
    pub rx_snd_len: Vec<Signal<Out, Bits<32>>>,
    pub rx_snd_seq: Vec<Signal<Out, Bits<32>>>,
    pub rx_snd_info: Vec<Signal<Out, Bits<32>>>,
    pub rx_snd_msg_num: Vec<Signal<Out, Bits<32>>>,
    pub rx_cnt_crc: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_truncated: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_malformed: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_misrouted: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_version: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_not_source: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_order: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_sequence: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_table_full: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_unknown: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_duplicate: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_busy: Vec<Signal<Out, Bits<16>>>,
    pub rx_cnt_restart: Vec<Signal<Out, Bits<16>>>,
    pub tx_ready: Vec<Signal<Out, Bit>>,
    pub switches: Vec<Switch>,
    pub faults: Vec<LinkFault>,
    pub nodes: Vec<Node>,
    _topo: Topology,
    _wires: Vec<Wire>,
}

/// The RMPP host-side port names of a node (§13), in the order they appear as system ports:
/// the inputs, then the outputs.
const RMPP_IN: [&str; 15] = [
    "rx_up_ready",
    "rx_up_accept",
    "rx_dlv_ready",
    "rx_rd_slot",
    "rx_rd_word",
    "tx_valid",
    "tx_dst",
    "tx_type",
    "tx_msg_id",
    "tx_len",
    "tx_seq",
    "tx_info",
    "tx_msg_num",
    "tx_bytes",
    "tx_data",
];
const RMPP_OUT: [&str; 35] = [
    "rx_up_valid",
    "rx_up_slot",
    "rx_up_src",
    "rx_up_msg_id",
    "rx_up_msg_num",
    "rx_up_len",
    "rx_dlv_valid",
    "rx_dlv_slot",
    "rx_dlv_src",
    "rx_dlv_msg_id",
    "rx_dlv_msg_num",
    "rx_dlv_len",
    "rx_rd_data",
    "rx_snd_valid",
    "rx_snd_type",
    "rx_snd_peer",
    "rx_snd_msg_id",
    "rx_snd_len",
    "rx_snd_seq",
    "rx_snd_info",
    "rx_snd_msg_num",
    "rx_cnt_crc",
    "rx_cnt_truncated",
    "rx_cnt_malformed",
    "rx_cnt_misrouted",
    "rx_cnt_version",
    "rx_cnt_not_source",
    "rx_cnt_order",
    "rx_cnt_sequence",
    "rx_cnt_table_full",
    "rx_cnt_unknown",
    "rx_cnt_duplicate",
    "rx_cnt_busy",
    "rx_cnt_restart",
    "tx_ready",
];

impl System {
    /// The system of `topo`; node `p` has an NI with the parameters of `ni` and an RMPP receive
    /// path with those of `rmpp`, both with `node = p`.
    pub fn new(topo: Topology, ni: &NiConfig, rmpp: &RmppConfig) -> Self {
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
            rx_up_ready: sigs(n),
            rx_up_accept: sigs(n),
            rx_dlv_ready: sigs(n),
            rx_rd_slot: sigs(n),
            rx_rd_word: sigs(n),
            tx_valid: sigs(n),
            tx_dst: sigs(n),
            tx_type: sigs(n),
            tx_msg_id: sigs(n),
            tx_len: sigs(n),
            tx_seq: sigs(n),
            tx_info: sigs(n),
            tx_msg_num: sigs(n),
            tx_bytes: sigs(n),
            tx_data: sigs(n),
            rx_up_valid: sigs(n),
            rx_up_slot: sigs(n),
            rx_up_src: sigs(n),
            rx_up_msg_id: sigs(n),
            rx_up_msg_num: sigs(n),
            rx_up_len: sigs(n),
            rx_dlv_valid: sigs(n),
            rx_dlv_slot: sigs(n),
            rx_dlv_src: sigs(n),
            rx_dlv_msg_id: sigs(n),
            rx_dlv_msg_num: sigs(n),
            rx_dlv_len: sigs(n),
            rx_rd_data: sigs(n),
            rx_snd_valid: sigs(n),
            rx_snd_type: sigs(n),
            rx_snd_peer: sigs(n),
            rx_snd_msg_id: sigs(n),
            rx_snd_len: sigs(n),
            rx_snd_seq: sigs(n),
            rx_snd_info: sigs(n),
            rx_snd_msg_num: sigs(n),
            rx_cnt_crc: sigs(n),
            rx_cnt_truncated: sigs(n),
            rx_cnt_malformed: sigs(n),
            rx_cnt_misrouted: sigs(n),
            rx_cnt_version: sigs(n),
            rx_cnt_not_source: sigs(n),
            rx_cnt_order: sigs(n),
            rx_cnt_sequence: sigs(n),
            rx_cnt_table_full: sigs(n),
            rx_cnt_unknown: sigs(n),
            rx_cnt_duplicate: sigs(n),
            rx_cnt_busy: sigs(n),
            rx_cnt_restart: sigs(n),
            tx_ready: sigs(n),
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
        for (p, nd) in self.nodes.iter_mut().enumerate() {
            nd.req_valid.next = self.req_valid[p].val();
            nd.req_dst.next = self.req_dst[p].val();
            nd.req_len.next = self.req_len[p].val();
            nd.req_data.next = self.req_data[p].val();
            nd.dlv_ready.next = self.dlv_ready[p].val();
            self.req_ready[p].next = nd.req_ready.val();
            self.dlv_valid[p].next = nd.dlv_valid.val();
            self.dlv_src[p].next = nd.dlv_src.val();
            self.dlv_uid[p].next = nd.dlv_uid.val();
            self.dlv_len[p].next = nd.dlv_len.val();
            self.dlv_data[p].next = nd.dlv_data.val();
            self.done_valid[p].next = nd.done_valid.val();
            self.done_uid[p].next = nd.done_uid.val();
            self.cnt_crc[p].next = nd.cnt_crc.val();
            self.cnt_truncated[p].next = nd.cnt_truncated.val();
            self.cnt_malformed[p].next = nd.cnt_malformed.val();
            self.cnt_misrouted[p].next = nd.cnt_misrouted.val();
            self.cnt_not_source[p].next = nd.cnt_not_source.val();
            self.cnt_table_full[p].next = nd.cnt_table_full.val();
            self.cnt_unknown[p].next = nd.cnt_unknown.val();
            self.cnt_busy[p].next = nd.cnt_busy.val();
            self.cnt_duplicate[p].next = nd.cnt_duplicate.val();
            self.cnt_retransmit[p].next = nd.cnt_retransmit.val();
            nd.rx_up_ready.next = self.rx_up_ready[p].val();
            nd.rx_up_accept.next = self.rx_up_accept[p].val();
            nd.rx_dlv_ready.next = self.rx_dlv_ready[p].val();
            nd.rx_rd_slot.next = self.rx_rd_slot[p].val();
            nd.rx_rd_word.next = self.rx_rd_word[p].val();
            nd.tx_valid.next = self.tx_valid[p].val();
            nd.tx_dst.next = self.tx_dst[p].val();
            nd.tx_type.next = self.tx_type[p].val();
            nd.tx_msg_id.next = self.tx_msg_id[p].val();
            nd.tx_len.next = self.tx_len[p].val();
            nd.tx_seq.next = self.tx_seq[p].val();
            nd.tx_info.next = self.tx_info[p].val();
            nd.tx_msg_num.next = self.tx_msg_num[p].val();
            nd.tx_bytes.next = self.tx_bytes[p].val();
            nd.tx_data.next = self.tx_data[p].val();
            self.rx_up_valid[p].next = nd.rx_up_valid.val();
            self.rx_up_slot[p].next = nd.rx_up_slot.val();
            self.rx_up_src[p].next = nd.rx_up_src.val();
            self.rx_up_msg_id[p].next = nd.rx_up_msg_id.val();
            self.rx_up_msg_num[p].next = nd.rx_up_msg_num.val();
            self.rx_up_len[p].next = nd.rx_up_len.val();
            self.rx_dlv_valid[p].next = nd.rx_dlv_valid.val();
            self.rx_dlv_slot[p].next = nd.rx_dlv_slot.val();
            self.rx_dlv_src[p].next = nd.rx_dlv_src.val();
            self.rx_dlv_msg_id[p].next = nd.rx_dlv_msg_id.val();
            self.rx_dlv_msg_num[p].next = nd.rx_dlv_msg_num.val();
            self.rx_dlv_len[p].next = nd.rx_dlv_len.val();
            self.rx_rd_data[p].next = nd.rx_rd_data.val();
            self.rx_snd_valid[p].next = nd.rx_snd_valid.val();
            self.rx_snd_type[p].next = nd.rx_snd_type.val();
            self.rx_snd_peer[p].next = nd.rx_snd_peer.val();
            self.rx_snd_msg_id[p].next = nd.rx_snd_msg_id.val();
            self.rx_snd_len[p].next = nd.rx_snd_len.val();
            self.rx_snd_seq[p].next = nd.rx_snd_seq.val();
            self.rx_snd_info[p].next = nd.rx_snd_info.val();
            self.rx_snd_msg_num[p].next = nd.rx_snd_msg_num.val();
            self.rx_cnt_crc[p].next = nd.rx_cnt_crc.val();
            self.rx_cnt_truncated[p].next = nd.rx_cnt_truncated.val();
            self.rx_cnt_malformed[p].next = nd.rx_cnt_malformed.val();
            self.rx_cnt_misrouted[p].next = nd.rx_cnt_misrouted.val();
            self.rx_cnt_version[p].next = nd.rx_cnt_version.val();
            self.rx_cnt_not_source[p].next = nd.rx_cnt_not_source.val();
            self.rx_cnt_order[p].next = nd.rx_cnt_order.val();
            self.rx_cnt_sequence[p].next = nd.rx_cnt_sequence.val();
            self.rx_cnt_table_full[p].next = nd.rx_cnt_table_full.val();
            self.rx_cnt_unknown[p].next = nd.rx_cnt_unknown.val();
            self.rx_cnt_duplicate[p].next = nd.rx_cnt_duplicate.val();
            self.rx_cnt_busy[p].next = nd.rx_cnt_busy.val();
            self.rx_cnt_restart[p].next = nd.rx_cnt_restart.val();
            self.tx_ready[p].next = nd.tx_ready.val();
        }
        let k = self._topo.k;
        drive_drops(&self.switches, &mut self.drops, k);
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
            drops,
            rx_up_valid,
            rx_up_slot,
            rx_up_src,
            rx_up_msg_id,
            rx_up_msg_num,
            rx_up_len,
            rx_dlv_valid,
            rx_dlv_slot,
            rx_dlv_src,
            rx_dlv_msg_id,
            rx_dlv_msg_num,
            rx_dlv_len,
            rx_rd_data,
            rx_snd_valid,
            rx_snd_type,
            rx_snd_peer,
            rx_snd_msg_id,
            rx_snd_len,
            rx_snd_seq,
            rx_snd_info,
            rx_snd_msg_num,
            rx_cnt_crc,
            rx_cnt_truncated,
            rx_cnt_malformed,
            rx_cnt_misrouted,
            rx_cnt_version,
            rx_cnt_not_source,
            rx_cnt_order,
            rx_cnt_sequence,
            rx_cnt_table_full,
            rx_cnt_unknown,
            rx_cnt_duplicate,
            rx_cnt_busy,
            rx_cnt_restart,
            tx_ready
        );
        connect_fabric(&mut self.switches, &mut self.faults);
        for nd in self.nodes.iter_mut() {
            nd.clock.connect();
            nd.net_in.connect();
            nd.req_valid.connect();
            nd.req_dst.connect();
            nd.req_len.connect();
            nd.req_data.connect();
            nd.dlv_ready.connect();
            nd.rx_up_ready.connect();
            nd.rx_up_accept.connect();
            nd.rx_dlv_ready.connect();
            nd.rx_rd_slot.connect();
            nd.rx_rd_word.connect();
            nd.tx_valid.connect();
            nd.tx_dst.connect();
            nd.tx_type.connect();
            nd.tx_msg_id.connect();
            nd.tx_len.connect();
            nd.tx_seq.connect();
            nd.tx_info.connect();
            nd.tx_msg_num.connect();
            nd.tx_bytes.connect();
            nd.tx_data.connect();
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
            for name in HOST_INPUTS.iter().chain(RMPP_IN.iter()) {
                let _ = writeln!(v, "    nodes${p}${name} = {name}${p};");
            }
            for name in HOST_OUTPUTS.iter().chain(RMPP_OUT.iter()) {
                let _ = writeln!(v, "    {name}${p} = nodes${p}${name};");
            }
        }
        v.push_str(&drops_hdl(self.switches.len(), k));
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}
