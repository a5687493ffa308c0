//! Writes the RMPP receive path's Verilog:
//! `cargo run --example emit_rmpp_rx OUT.v [KEY=VALUE ...]`, the keys those of
//! docs/protocol.md §11.2 (`node`, `nodes`, `mtu`, `rx_slots`, `max_msg`, `max_rcv_buf`,
//! `reserved`, `max_data_pkts`, `gch_timeout`, `reply_timeout`), the defaults for the others.
use idemnet_ni_core::RmppConfig;

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().unwrap_or_else(|| "rmpp_rx.v".into());
    let mut cfg = RmppConfig::DEFAULT;
    for a in args {
        let Some((k, v)) = a.split_once('=') else {
            eprintln!("emit_rmpp_rx: `{a}`: expected KEY=VALUE");
            std::process::exit(2);
        };
        let Ok(x) = v.parse::<u64>() else {
            eprintln!("emit_rmpp_rx: `{a}`: the value must be a number");
            std::process::exit(2);
        };
        match k {
            "node" => cfg.node = x as u16,
            "nodes" => cfg.nodes = x as usize,
            "mtu" => cfg.mtu = x as usize,
            "rx_slots" => cfg.rx_slots = x as usize,
            "max_msg" => cfg.max_msg = x as usize,
            "max_rcv_buf" => cfg.max_rcv_buf = x as u16,
            "reserved" => cfg.reserved = x as u16,
            "max_data_pkts" => cfg.max_data_pkts = x as u16,
            "gch_timeout" => cfg.gch_timeout = x as u32,
            "reply_timeout" => cfg.reply_timeout = x as u32,
            _ => {
                eprintln!("emit_rmpp_rx: unknown key `{k}`");
                std::process::exit(2);
            }
        }
    }
    match idemnet_ni_core::rmpp_rx_verilog(&cfg) {
        Ok((v, ports)) => {
            std::fs::write(&out, v).expect("write");
            eprintln!("{out}: {} ports, {cfg:?}", ports.len() + 1);
        }
        Err(e) => {
            eprintln!("emit_rmpp_rx: {e}");
            std::process::exit(2);
        }
    }
}
