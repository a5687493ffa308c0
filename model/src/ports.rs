//! Port descriptions shared by the golden model, the Verilator bindings and the waveform writers.
//!
//! They are part of the contract both the RTL and the model are written from, so they live in
//! `idemnet_spec::ports`; re-exported here at their old path.

pub use idemnet_spec::ports::{PortDir, PortSpec};
