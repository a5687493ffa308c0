//! The network-interface RTL of idemnet, in rust-hdl 0.46.
//!
//! * [`ni::Ni`]: the idempotent SEND / ACK / FORGET interface of docs/protocol.md §8.
//! * [`ni_verilog`]: its Verilog (top module `top`) and port list.
//! * [`system::System`]: one [`node::Node`] (NI, RMPP receive path, framer, merge, split) per node
//!   on the fat tree with a fault injector on every link (§10, §13); [`system_verilog`].
//! * [`node_verilog`]: one node alone.
//! * [`rmpp_rx::RmppRx`]: the RMPP receive path of §11; [`rmpp_rx_verilog`].
//! * [`selftest::SelfTest`]: the on-chip self-test of §14 (NIs, fabric, injectors, traffic
//!   sources, checkers, counters, LEDs, UART); [`selftest_verilog`].
//! * [`links`]: the fault-injected links of a network of nodes, shared by the system and the
//!   self-test.

mod host_ports;
pub mod links;
pub mod ni;
pub mod node;
pub mod rmpp_rx;
pub mod selftest;
mod standalone;
pub mod system;

pub use idemnet_spec::ni::NiConfig;
pub use idemnet_spec::ports::PortSpec;
pub use idemnet_spec::rmpp::RmppConfig;
pub use ni::Ni;
pub use rmpp_rx::RmppRx;

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

/// `cfg`'s ranges (§11.2).
fn rmpp_rtl_config(cfg: &RmppConfig) -> Result<(), String> {
    cfg.validate()
}

/// An RMPP receive path for `cfg`, connected and checked. Errors name the bad parameter.
pub fn rmpp_rx(cfg: &RmppConfig) -> Result<RmppRx, String> {
    rmpp_rtl_config(cfg)?;
    let mut b = RmppRx::new(cfg);
    b.connect_all();
    check_all(&b).map_err(|e| format!("rust-hdl check failed: {e:?}"))?;
    Ok(b)
}

/// The Verilog of the RMPP receive path for `cfg` (top module `top`) and its port list.
pub fn rmpp_rx_verilog(cfg: &RmppConfig) -> Result<(String, Vec<PortSpec>), String> {
    let b = rmpp_rx(cfg)?;
    Ok((generate_verilog_unchecked(&b), port_list(&b)))
}

/// The Verilog of one node (§13; top module `top`) with an NI for `ni` and an RMPP receive path
/// for `rmpp`, both numbered `ni.node`, and its port list.
pub fn node_verilog(ni: &NiConfig, rmpp: &RmppConfig) -> Result<(String, Vec<PortSpec>), String> {
    ni.validate()?;
    let rmpp = RmppConfig {
        node: ni.node,
        ..*rmpp
    };
    rmpp_rtl_config(&rmpp)?;
    let mut b = node::Node::new(ni, &rmpp);
    b.connect_all();
    check_all(&b).map_err(|e| format!("rust-hdl check failed: {e:?}"))?;
    Ok((generate_verilog_unchecked(&b), port_list(&b)))
}

/// The Verilog of the system of the k-ary n-tree (top module `top`; node `p` has an NI with `ni`
/// and an RMPP receive path with `rmpp`, both with `node = p`, §13) with a fault injector on
/// every link, and its port list.
pub fn system_verilog(
    k: usize,
    n: usize,
    ni: &NiConfig,
    rmpp: &RmppConfig,
) -> Result<(String, Vec<PortSpec>), String> {
    system_verilog_with_links(k, n, ni, rmpp, system::Links::Injected)
}

/// [`system_verilog`] with `links` on the links ([`system::Links::Plain`]: the machine without
/// the injectors, for the FPGA).
pub fn system_verilog_with_links(
    k: usize,
    n: usize,
    ni: &NiConfig,
    rmpp: &RmppConfig,
    links: system::Links,
) -> Result<(String, Vec<PortSpec>), String> {
    ni.validate()?;
    let topo = idemnet_router::Topology::new(k, n).map_err(|e| e.to_string())?;
    for p in 0..topo.nodes {
        let node = RmppConfig {
            node: p as u16,
            nodes: topo.nodes,
            ..*rmpp
        };
        rmpp_rtl_config(&node).map_err(|e| format!("node {p}: {e}"))?;
    }
    let mut b = system::System::with_links(topo, ni, rmpp, links);
    b.connect_all();
    check_all(&b).map_err(|e| format!("rust-hdl check failed: {e:?}"))?;
    Ok((generate_verilog_unchecked(&b), port_list(&b)))
}

/// The Verilog of the self-test for `cfg` (top module `top`) and its port list.
pub fn selftest_verilog(cfg: &selftest::SelfTestConfig) -> Result<(String, Vec<PortSpec>), String> {
    cfg.validate()?;
    let mut b = selftest::SelfTest::new(cfg);
    b.connect_all();
    check_all(&b).map_err(|e| format!("rust-hdl check failed: {e:?}"))?;
    Ok((generate_verilog_unchecked(&b), port_list(&b)))
}

/// A constant of `N` bits from `x`: the blocks' named constants (`Constant<Bits<N>>`).
pub(crate) fn c<const N: usize>(x: u64) -> rust_hdl::prelude::Constant<rust_hdl::prelude::Bits<N>> {
    rust_hdl::prelude::Constant::new(rust_hdl::prelude::Bits::from(x))
}

pub(crate) use idemnet_rtl::vec_of;
