//! The node of docs/protocol.md §13 (NI, RMPP receive path, framer, transmit merge, protocol
//! split) and the two-protocol system through the open tools: Verilator `-Wall` lint with the
//! project's waivers and Icarus; each of the three small blocks lints clean alone. Also checks
//! the port order of the node and of the system's appended RMPP ports.

use idemnet_cosim::tools::{iverilog_compile, verilator_lint, yosys_ice40};
use idemnet_ni_core::ni::{HOST_INPUTS, HOST_OUTPUTS};
use idemnet_ni_core::node::{Node, RmppTx, RxDemux, TxMerge};
use idemnet_ni_core::{system_verilog, NiConfig};
use idemnet_rtl::ports::port_list;
use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

/// The waivers the node needs until they are in `rtl/lint/waivers.vlt` (proposed there as is):
/// the transmit merge grants combinationally from the sources' `tx_req` (§13.2), and rust-hdl
/// emits the NI and the RMPP receive path each as one always block that both drives `tx_req`
/// (from registers only) and reads `tx_gnt`, so Verilator sees a loop through those blocks
/// (UNOPTFLAT) although no signal depends on itself. Which signal of the loop it names depends
/// on the design around it (`ni$tx_req`, `rx$tx_req`, or `merge$gnt_a`).
const MERGE_WAIVERS: [&str; 2] = [
    r#"lint_off -rule UNOPTFLAT -file "*" -match "*$tx_req'*""#,
    r#"lint_off -rule UNOPTFLAT -file "*" -match "*merge$gnt_*""#,
];

/// The project's waivers plus those of [`MERGE_WAIVERS`] it does not have yet.
fn waivers() -> String {
    let mut w = idemnet_rtl::LINT_WAIVERS.to_string();
    for line in MERGE_WAIVERS {
        if !w.contains(line) {
            w.push('\n');
            w.push_str(line);
            w.push('\n');
        }
    }
    w
}

fn verilog<B: Block>(mut b: B) -> (String, Vec<idemnet_ni_core::PortSpec>) {
    b.connect_all();
    check_all(&b).unwrap();
    (generate_verilog_unchecked(&b), port_list(&b))
}

fn node0() -> Node {
    Node::new(
        &NiConfig {
            node: 0,
            ..NiConfig::DEFAULT
        },
        &RmppConfig {
            node: 0,
            ..RmppConfig::DEFAULT
        },
    )
}

fn names(ports: &[idemnet_ni_core::PortSpec]) -> Vec<String> {
    ports.iter().map(|p| p.name.clone()).collect()
}

/// The RMPP host ports of a node, as the node and (suffixed) the system show them.
const RMPP_HOST: [(&str, u32); 50] = [
    ("rx_up_ready", 1),
    ("rx_up_accept", 32),
    ("rx_dlv_ready", 1),
    ("rx_rd_slot", 4),
    ("rx_rd_word", 10),
    ("tx_valid", 1),
    ("tx_dst", 16),
    ("tx_type", 4),
    ("tx_msg_id", 32),
    ("tx_len", 32),
    ("tx_seq", 32),
    ("tx_info", 32),
    ("tx_msg_num", 32),
    ("tx_bytes", 6),
    ("tx_data", 256),
    ("rx_up_valid", 1),
    ("rx_up_slot", 4),
    ("rx_up_src", 16),
    ("rx_up_msg_id", 32),
    ("rx_up_msg_num", 32),
    ("rx_up_len", 32),
    ("rx_dlv_valid", 1),
    ("rx_dlv_slot", 4),
    ("rx_dlv_src", 16),
    ("rx_dlv_msg_id", 32),
    ("rx_dlv_msg_num", 32),
    ("rx_dlv_len", 32),
    ("rx_rd_data", 32),
    ("rx_snd_valid", 1),
    ("rx_snd_type", 4),
    ("rx_snd_peer", 16),
    ("rx_snd_msg_id", 32),
    ("rx_snd_len", 32),
    ("rx_snd_seq", 32),
    ("rx_snd_info", 32),
    ("rx_snd_msg_num", 32),
    ("rx_cnt_crc", 16),
    ("rx_cnt_truncated", 16),
    ("rx_cnt_malformed", 16),
    ("rx_cnt_misrouted", 16),
    ("rx_cnt_version", 16),
    ("rx_cnt_not_source", 16),
    ("rx_cnt_order", 16),
    ("rx_cnt_sequence", 16),
    ("rx_cnt_table_full", 16),
    ("rx_cnt_unknown", 16),
    ("rx_cnt_duplicate", 16),
    ("rx_cnt_busy", 16),
    ("rx_cnt_restart", 16),
    ("tx_ready", 1),
];

fn is_rmpp_input(name: &str) -> bool {
    RMPP_HOST[..15].iter().any(|&(n, _)| n == name)
}

#[test]
fn small_blocks_lint_clean_alone() {
    let (tx, tx_ports) = verilog(RmppTx::new(3));
    let (merge, _) = verilog(TxMerge::default());
    let (demux, _) = verilog(RxDemux::default());
    for v in [&tx, &merge, &demux] {
        verilator_lint(v, idemnet_rtl::LINT_WAIVERS).unwrap();
        iverilog_compile(v).unwrap();
    }
    assert_eq!(
        names(&tx_ports),
        [
            "tx_gnt",
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
            "net_out",
            "tx_req",
            "tx_ready"
        ]
    );
}

#[test]
fn node_ports_are_in_the_documented_order() {
    let (_, ports) = verilog(node0());
    let mut want = vec!["net_in".to_string(), "net_out".to_string()];
    want.extend(
        HOST_INPUTS
            .iter()
            .chain(&HOST_OUTPUTS)
            .map(|s| s.to_string()),
    );
    // The node lists the receive path's inputs, its outputs, then the framer's inputs and
    // tx_ready.
    let rx_in = RMPP_HOST[..5].iter();
    let rx_out = RMPP_HOST[15..49].iter();
    let tx_in = RMPP_HOST[5..15].iter();
    want.extend(
        rx_in
            .chain(rx_out)
            .chain(tx_in)
            .chain(RMPP_HOST[49..].iter())
            .map(|(n, _)| n.to_string()),
    );
    assert_eq!(names(&ports), want);
    for p in &ports {
        if let Some(&(_, w)) = RMPP_HOST.iter().find(|(n, _)| *n == p.name) {
            assert_eq!(p.width, w, "{}", p.name);
            assert_eq!(
                p.dir == idemnet_rtl::PortDir::In,
                is_rmpp_input(&p.name),
                "{}",
                p.name
            );
        }
    }
}

#[test]
fn node_lints_and_compiles() {
    let (v, _) = verilog(node0());
    verilator_lint(&v, &waivers()).unwrap();
    iverilog_compile(&v).unwrap();
}

/// The 16-node system (16 nodes, 8 switches, 64 injectors): the NI ports as before, then per
/// node the RMPP inputs and outputs; it lints and compiles.
#[test]
fn system_lints_and_compiles() {
    let (v, ports) = system_verilog(4, 2, &NiConfig::DEFAULT, &RmppConfig::default()).unwrap();
    let first_rmpp = ports
        .iter()
        .position(|p| p.name == "rx_up_ready$0")
        .unwrap();
    assert_eq!(ports[first_rmpp - 1].name, "drops$63");
    let want: Vec<String> = RMPP_HOST
        .iter()
        .flat_map(|(n, _)| (0..16).map(move |p| format!("{n}${p}")))
        .collect();
    assert_eq!(names(&ports[first_rmpp..]), want);
    verilator_lint(&v, &waivers()).unwrap();
    iverilog_compile(&v).unwrap();
}

/// rust-hdl's own simulation of the 16-node system (the hand-written `update`/`connect`): node
/// 0 sends a datagram (NI) and a one-packet RMPP message (framer) to node 5 in the same cycle;
/// node 5 delivers both (upcall, RMPP delivery, NI delivery), node 0 sees its NI send complete
/// and the MSGEND come back, and no node counts a damaged worm.
#[test]
fn system_carries_both_protocols_in_rust_hdl() {
    let topo = idemnet_router::Topology::new(4, 2).unwrap();
    let mut s =
        idemnet_ni_core::system::System::new(topo, &NiConfig::DEFAULT, &RmppConfig::DEFAULT);
    s.connect_all();
    check_all(&s).unwrap();
    let mut data = Bits::<256>::default();
    for i in 0..32u64 {
        data = (data << 8u64) | Bits::<256>::from(0x40 + i);
    }
    let (mut up, mut dl, mut done, mut snd, mut rdl) = (0, 0, 0, 0, 0);
    for t in 0..400u64 {
        s.clock.next = false.into();
        let go = t == 1;
        s.req_valid[0].next = go;
        s.req_dst[0].next = Bits::from(5u64);
        s.req_len[0].next = Bits::from(8u64);
        s.req_data[0].next = data;
        s.tx_valid[0].next = go;
        s.tx_dst[0].next = Bits::from(5u64);
        s.tx_type[0].next = Bits::from(2u64);
        s.tx_msg_id[0].next = Bits::from(9u64);
        s.tx_len[0].next = Bits::from(20u64);
        s.tx_msg_num[0].next = Bits::from(1u64);
        s.tx_bytes[0].next = Bits::from(20u64);
        s.tx_data[0].next = data;
        for p in 0..16 {
            s.dlv_ready[p].next = true;
            s.rx_up_ready[p].next = true;
            s.rx_up_accept[p].next = Bits::from(100u64);
            s.rx_dlv_ready[p].next = true;
        }
        assert!(simulate(&mut s, 1000));
        s.clock.next = true.into();
        assert!(simulate(&mut s, 1000));
        if s.rx_up_valid[5].val() {
            up += 1;
        }
        if s.rx_dlv_valid[5].val() {
            rdl += 1;
        }
        if s.dlv_valid[5].val() {
            dl += 1;
        }
        if s.done_valid[0].val() {
            done += 1;
        }
        if s.rx_snd_valid[0].val() {
            snd += 1;
            assert_eq!(s.rx_snd_type[0].val().to_u64(), 7);
        }
    }
    for p in 0..16 {
        assert_eq!(
            s.rx_cnt_crc[p].val().to_u64()
                + s.rx_cnt_truncated[p].val().to_u64()
                + s.rx_cnt_malformed[p].val().to_u64()
                + s.cnt_truncated[p].val().to_u64()
                + s.cnt_crc[p].val().to_u64(),
            0
        );
    }
    assert_eq!((up, rdl, dl, done, snd), (1, 1, 1, 1, 1));
}

/// Optional: the node's size on an iCE40 (printed, not bounded).
#[test]
#[ignore = "slow; run with --ignored"]
fn node_synthesizes_for_ice40() {
    let (v, _) = verilog(node0());
    let c = yosys_ice40(&v).unwrap();
    eprintln!("node, default parameters, synth_ice40: {c:?}");
}
