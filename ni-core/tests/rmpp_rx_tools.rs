//! The RMPP receive path's emitted Verilog through the open tools: Verilator `-Wall` lint with the
//! project's waivers, Icarus, and yosys `synth_ice40`, whose cell counts for the default
//! parameters are printed and bounded so that growth is noticed.

use idemnet_cosim::tools::{iverilog_compile, verilator_lint, yosys_ice40};
use idemnet_ni_core::{rmpp_rx_verilog, RmppConfig};
use idemnet_spec::ports::PortDir;
use idemnet_spec::rmpp::COUNTERS;

#[test]
fn ports_are_in_the_documented_order() {
    let (_, ports) = rmpp_rx_verilog(&RmppConfig::DEFAULT).unwrap();
    let mut want: Vec<(&str, PortDir, u32)> = vec![
        ("net_in", PortDir::In, 35),
        ("tx_gnt", PortDir::In, 1),
        ("up_ready", PortDir::In, 1),
        ("up_accept", PortDir::In, 32),
        ("dlv_ready", PortDir::In, 1),
        ("rd_slot", PortDir::In, 4),
        ("rd_word", PortDir::In, 10),
        ("net_out", PortDir::Out, 35),
        ("tx_req", PortDir::Out, 1),
        ("up_valid", PortDir::Out, 1),
        ("up_slot", PortDir::Out, 4),
        ("up_src", PortDir::Out, 16),
        ("up_msg_id", PortDir::Out, 32),
        ("up_msg_num", PortDir::Out, 32),
        ("up_len", PortDir::Out, 32),
        ("dlv_valid", PortDir::Out, 1),
        ("dlv_slot", PortDir::Out, 4),
        ("dlv_len", PortDir::Out, 32),
        ("rd_data", PortDir::Out, 32),
        ("snd_valid", PortDir::Out, 1),
        ("snd_type", PortDir::Out, 4),
        ("snd_peer", PortDir::Out, 16),
        ("snd_msg_id", PortDir::Out, 32),
        ("snd_len", PortDir::Out, 32),
        ("snd_seq", PortDir::Out, 32),
        ("snd_info", PortDir::Out, 32),
        ("snd_msg_num", PortDir::Out, 32),
    ];
    let counters: Vec<String> = COUNTERS.iter().map(|c| format!("cnt_{c}")).collect();
    want.extend(counters.iter().map(|c| (c.as_str(), PortDir::Out, 16)));
    let got: Vec<(&str, PortDir, u32)> = ports
        .iter()
        .map(|p| (p.name.as_str(), p.dir, p.width))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn rmpp_rx_lints_and_compiles() {
    let configs = [
        RmppConfig::DEFAULT,
        RmppConfig {
            rx_slots: 1,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            rx_slots: 16,
            node: 9,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            mtu: 4,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            mtu: 4,
            max_msg: 4,
            rx_slots: 3,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            node: 255,
            nodes: 256,
            mtu: 8,
            rx_slots: 4,
            max_msg: 4096,
            max_rcv_buf: 0,
            reserved: 65535,
            max_data_pkts: 65535,
            gch_timeout: 1 << 20,
            reply_timeout: 1 << 20,
            selective: false,
        },
        // Selective acceptance (§11.7): the defaults, the smallest packets and buffer, and the
        // largest of everything.
        RmppConfig {
            selective: true,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            mtu: 4,
            max_msg: 4,
            rx_slots: 3,
            selective: true,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            node: 255,
            nodes: 256,
            mtu: 32,
            rx_slots: 16,
            max_msg: 4096,
            max_rcv_buf: 65535,
            reserved: 0,
            max_data_pkts: 65535,
            gch_timeout: 1 << 20,
            reply_timeout: 1 << 20,
            selective: true,
        },
        RmppConfig {
            gch_timeout: 1,
            reply_timeout: 1,
            ..RmppConfig::DEFAULT
        },
    ];
    for cfg in configs {
        let (v, _) = rmpp_rx_verilog(&cfg).unwrap();
        verilator_lint(&v, idemnet_rtl::LINT_WAIVERS).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
        iverilog_compile(&v).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    }
}

#[test]
fn rmpp_rx_synthesizes_for_ice40() {
    let (v, _) = rmpp_rx_verilog(&RmppConfig::DEFAULT).unwrap();
    let c = yosys_ice40(&v).unwrap();
    eprintln!(
        "RMPP receive path, default parameters, synth_ice40: SB_LUT4 {}, SB_DFF* {}, SB_CARRY {}, \
         SB_RAM40_4K {}",
        c.luts, c.flip_flops, c.carries, c.brams
    );
    // The buffer (2048 x 32: 16 blocks) and `expected` (256 x 32: 2 blocks) are block RAM, and
    // so is the slot table's `capped` (8 x 13 bits): it is read at the upcall queue's first
    // entry, the FIFO's `pop_data` register, which yosys folds into a synchronous read port.
    assert_eq!(c.brams, 19, "{c:?}");
    assert!(
        c.luts > 1000 && c.luts < 7680,
        "{c:?} must fit an iCE40 HX8K"
    );
    assert!(c.flip_flops > 1000, "{c:?}");
}

#[test]
fn bad_parameters_are_errors() {
    for cfg in [
        RmppConfig {
            rx_slots: 0,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            rx_slots: 17,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            mtu: 12,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            max_msg: 8192,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            nodes: 257,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            gch_timeout: 0,
            ..RmppConfig::DEFAULT
        },
        RmppConfig {
            reply_timeout: 0,
            ..RmppConfig::DEFAULT
        },
    ] {
        assert!(rmpp_rx_verilog(&cfg).is_err(), "{cfg:?}");
    }
}
