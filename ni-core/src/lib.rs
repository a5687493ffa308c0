//! The network-interface RTL of idemnet, in rust-hdl 0.46.
//!
//! * [`ni::Ni`]: the idempotent SEND / ACK / FORGET interface of docs/protocol.md §8.
//! * [`ni_verilog`]: its Verilog (top module `top`) and port list.

pub mod ni;

pub use idemnet_model::ni::NiConfig;
pub use idemnet_model::ports::PortSpec;
pub use ni::Ni;

use idemnet_rtl::ports::port_list;
use rust_hdl::prelude::*;

/// An NI block for `cfg`, connected and checked. Errors name the bad parameter.
pub fn ni(cfg: &NiConfig) -> Result<Ni, String> {
    cfg.validate()?;
    let mut b = Ni::new(cfg);
    b.connect_all();
    check_all(&b).map_err(|e| format!("rust-hdl check failed: {e:?}"))?;
    Ok(b)
}

/// The Verilog of the NI for `cfg` (top module `top`) and its port list.
pub fn ni_verilog(cfg: &NiConfig) -> Result<(String, Vec<PortSpec>), String> {
    let b = ni(cfg)?;
    Ok((generate_verilog_unchecked(&b), port_list(&b)))
}
