//! The idemnet router RTL: the [`Switch`] of `docs/protocol.md` §4 and the [`Fabric`] of §5,
//! for any k-ary n-tree with `k` in {2, 4, 8} and `k^n <= 65536`, written in rust-hdl 0.46.
//!
//! * [`fabric_verilog`] / [`switch_verilog`]: emitted Verilog (top module `top`) and the top's
//!   port list (names exactly as in the Verilog, `clock` excluded).
//! * [`HdlSim`]: cycle stepping with rust-hdl's own simulator kernel
//!   (`rust_hdl::core::simulate::simulate`), used by the tests and by
//!   [`simulate_fabric_rusthdl`] (for benchmarking rust-hdl's simulator).

pub mod fabric;
pub mod sim;
pub mod switch;
pub mod topology;

pub use fabric::{drive_drops, drops_hdl, wires, Fabric, FlitDst, FlitSrc, Wire};
pub use idemnet_spec::ports::{PortDir, PortSpec};
pub use sim::{simulate_fabric_rusthdl, HdlSim, SimReport};
pub use switch::Switch;
pub use topology::Topology;

use idemnet_rtl::ports::port_list;
use rust_hdl::prelude::*;

/// Errors of the router constructors and emitters.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum RouterError {
    #[error("k = {0}: the radix must be 2, 4 or 8")]
    BadRadix(usize),
    #[error("n = {n} with k = {k}: need n >= 1 and k^n <= 65536")]
    BadLevels { k: usize, n: usize },
    #[error("switch (level {level}, w {w}) does not exist in the {k}-ary {n}-tree")]
    BadSwitch {
        k: usize,
        n: usize,
        level: usize,
        w: usize,
    },
    #[error("rust-hdl check failed: {0}")]
    Check(String),
    #[error("rust-hdl simulation did not settle in cycle {0}")]
    NoConvergence(u64),
    #[error("stimulus error: {0}")]
    Stimulus(String),
}

/// Result type of this crate.
pub type Result<T, E = RouterError> = std::result::Result<T, E>;

/// Build the fabric block of the k-ary n-tree, connected and checked, ready for simulation.
pub fn fabric(k: usize, n: usize) -> Result<Fabric> {
    let mut f = Fabric::new(Topology::new(k, n)?);
    f.connect_all();
    check_all(&f).map_err(|e| RouterError::Check(format!("{e:?}")))?;
    Ok(f)
}

/// Build switch `(level, w)` of the k-ary n-tree, connected and checked.
pub fn switch(k: usize, n: usize, level: usize, w: usize) -> Result<Switch> {
    let topo = Topology::new(k, n)?;
    if level >= n || w >= topo.per_level {
        return Err(RouterError::BadSwitch { k, n, level, w });
    }
    let mut s = Switch::new(&topo, level, w);
    s.connect_all();
    check_all(&s).map_err(|e| RouterError::Check(format!("{e:?}")))?;
    Ok(s)
}

/// Verilog of the k-ary n-tree fabric (top module `top`, §5 port names) and its port list.
pub fn fabric_verilog(k: usize, n: usize) -> Result<(String, Vec<PortSpec>)> {
    let f = fabric(k, n)?;
    Ok((generate_verilog_unchecked(&f), port_list(&f)))
}

/// Verilog of switch `(level, w)` of the k-ary n-tree (top module `top`, §4 port names; the
/// LFSR seed is that of the switch's global index) and its port list.
pub fn switch_verilog(
    k: usize,
    n: usize,
    level: usize,
    w: usize,
) -> Result<(String, Vec<PortSpec>)> {
    let s = switch(k, n, level, w)?;
    Ok((generate_verilog_unchecked(&s), port_list(&s)))
}
