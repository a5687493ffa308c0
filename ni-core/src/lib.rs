//! The network-interface RTL of idemnet, in rust-hdl 0.46.
//!
//! * [`ni::Ni`]: the idempotent SEND / ACK / FORGET interface of docs/protocol.md §8.
//! * [`ni_verilog`]: its Verilog (top module `top`) and port list.
//! * [`system::System`]: one NI per node on the fat tree with a fault injector on every link
//!   (§10); [`system_verilog`].

pub mod ni;
pub mod system;

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

/// The Verilog of the system of the k-ary n-tree (top module `top`; NI `p` has `ni` with
/// `node = p`) and its port list.
pub fn system_verilog(
    k: usize,
    n: usize,
    ni: &NiConfig,
) -> Result<(String, Vec<PortSpec>), String> {
    ni.validate()?;
    let topo = idemnet_router::Topology::new(k, n).map_err(|e| e.to_string())?;
    let mut b = system::System::new(topo, ni);
    b.connect_all();
    check_all(&b).map_err(|e| format!("rust-hdl check failed: {e:?}"))?;
    Ok((generate_verilog_unchecked(&b), port_list(&b)))
}
