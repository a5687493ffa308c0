//! The node of docs/protocol.md §13 (NI, RMPP receive path, framer, transmit merge, protocol
//! split) and the two-protocol system through the open tools: Verilator `-Wall` lint with the
//! project's waivers and Icarus; each of the three small blocks lints clean alone. Also checks
//! that the framer's, the node's and the system's ports are the contract's tables.

use idemnet_cosim::tools::{iverilog_compile, verilator_lint, yosys_ice40};
use idemnet_ni_core::node::{Node, RmppTx, RxDemux, TxMerge};
use idemnet_ni_core::{system_verilog, NiConfig};
use idemnet_rtl::ports::port_list;
use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

/// The waivers the node needs until they are in `rtl/lint/waivers.vlt` (proposed there as is):
/// the transmit merge starts a source's worm combinationally from the sources' `worm$due`
/// (§13.2), and rust-hdl emits the merge and each worm source as one always block that both
/// drives a child's or a port's signal and reads one that depends on it, so Verilator sees a loop
/// through those blocks (UNOPTFLAT) although no signal depends on itself. Which signal of the
/// loop it names depends on the design around it.
const MERGE_WAIVERS: [&str; 3] = [
    r#"lint_off -rule UNOPTFLAT -file "*" -match "*arbiter$grant'*""#,
    r#"lint_off -rule UNOPTFLAT -file "*" -match "*$worm$due'*""#,
    r#"lint_off -rule UNOPTFLAT -file "*" -match "*merge$*$start'*""#,
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

#[test]
fn small_blocks_lint_clean_alone() {
    let (tx, tx_ports) = verilog(RmppTx::new(3));
    let (merge, _) = verilog(TxMerge::default());
    let (demux, _) = verilog(RxDemux::new(5));
    for v in [&tx, &merge, &demux] {
        verilator_lint(v, idemnet_rtl::LINT_WAIVERS).unwrap();
        iverilog_compile(v).unwrap();
    }
    assert_eq!(tx_ports, idemnet_spec::framer::PORTS.specs());
}

/// The node's ports are the contract's (`idemnet_spec::node::ports`): its link, then each
/// block's host ports, names, directions, widths and order.
#[test]
fn node_ports_are_in_the_documented_order() {
    let (_, ports) = verilog(node0());
    assert_eq!(ports, idemnet_spec::node::ports());
}

#[test]
fn node_lints_and_compiles() {
    let (v, _) = verilog(node0());
    verilator_lint(&v, &waivers()).unwrap();
    iverilog_compile(&v).unwrap();
}

/// The 16-node system (16 nodes, 8 switches, 64 injectors): its ports are the contract's
/// layout (`idemnet_spec::system::Layout`); it lints and compiles.
#[test]
fn system_lints_and_compiles() {
    let (v, ports) = system_verilog(4, 2, &NiConfig::DEFAULT, &RmppConfig::default()).unwrap();
    assert_eq!(ports, idemnet_spec::system::Layout::new(16, 16, 64).ports());
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
    // No reply is repeated within the test's 400 cycles (docs/protocol.md §11.5): it counts
    // each MSGEND once, and sends no GCH.
    let rmpp = RmppConfig {
        reply_timeout: 1_000,
        ..RmppConfig::DEFAULT
    };
    let mut s = idemnet_ni_core::system::System::new(topo, &NiConfig::DEFAULT, &rmpp);
    s.connect_all();
    check_all(&s).unwrap();
    // Payload bytes 0x40, 0x41, ...: word i is 0x40+4i .. 0x43+4i. The NI's request is 8
    // bytes (two beats), the framer's packet 20 (five header beats, `msgID` 9 to `msgNum` 1,
    // and five payload beats), both streamed from cycle 1.
    let word = |i: u64| Bits::from((0..4).fold(0u64, |w, j| w << 8 | (0x40 + 4 * i + j)));
    let (mut up, mut dl, mut done, mut snd, mut rdl) = (0, 0, 0, 0, 0);
    for t in 0..400u64 {
        s.clock.next = false.into();
        let beat = t.wrapping_sub(1);
        s.req_valid[0].next = beat < 2;
        s.req_data[0].next = word(beat.min(1));
        s.req_last[0].next = beat == 1;
        s.req_dst[0].next = Bits::from(5u64);
        s.req_len[0].next = Bits::from(8u64);
        s.tx_valid[0].next = beat < 10;
        s.tx_data[0].next = match beat {
            0..=4 => Bits::from([9u64, 20, 0, 0, 1][beat as usize]),
            _ => word(beat.min(9) - 5),
        };
        s.tx_last[0].next = beat == 9;
        s.tx_dst[0].next = Bits::from(5u64);
        s.tx_type[0].next = Bits::from(2u64);
        s.tx_bytes[0].next = Bits::from(20u64);
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
        if s.dlv_valid[5].val() && s.dlv_last[5].val() {
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
