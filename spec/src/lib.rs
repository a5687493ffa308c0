//! The numbers and shapes of `docs/protocol.md`, shared by the RTL and the golden model.
//!
//! Both sides are written from the document, and neither owns it: the RTL crates (`rtl`,
//! `router`, `ni-core`) and the golden model (`model`) take from here what the document fixes
//! and both must agree on, so that neither depends on the other.
//!
//! What belongs here: the configuration structs with their documented defaults and ranges, the
//! encodings of the wire (markers, message kinds, packet types, versions, header sizes), payload
//! sizes, every block's port table with what derives from it (counter lists, flat-buffer offsets,
//! host port names, the node's and the system's ports), and the reference CRC of the wire format.
//! What does not: behaviour. How a switch, an NI or a receive path acts is written twice, once as
//! RTL and once as the model, and compared; none of it is here.
//!
//! - [`ports`]: a block's top-level port, as named in the emitted Verilog (§1, §7), and the port
//!   [`ports::Table`] every host-facing block's ports are written in once; its documentation says
//!   what is derived from a table and how the RTL is held to it.
//! - [`crc`]: CRC-32/MPEG-2 of 32-bit words (§8.1).
//! - [`flit`]: the flit's bits (§2), and flits and worms as people read them.
//! - [`ni`]: the idempotent NI's packet kinds, payload sizes, port table, counters and
//!   parameters (§8).
//! - [`rmpp`]: the RMPP receive path's marker, version, packet types, port table, counters and
//!   parameters (§11).
//! - [`framer`]: the RMPP framer's port table (§13.1).
//! - [`node`]: the node's ports, from its blocks' tables (§10, §13).
//! - [`system`]: the system's ports and flat-buffer layout, from the blocks' tables (§10).

/// Waveform time per cycle (§1): 1 time unit is 1 ns; in cycle `t` the inputs change at
/// `CYCLE_TIME_NS * t` and the outputs half a cycle later.
pub const CYCLE_TIME_NS: u64 = 10;

pub mod crc;
pub mod flit;
pub mod framer;
pub mod ni;
pub mod node;
pub mod ports;
pub mod rmpp;
pub mod system;

/// Checks the tests of [`ni`] and [`rmpp`] share.
#[cfg(test)]
mod checks {
    /// Each index constant of a counter list points at the counter it is named after, and
    /// every counter has one.
    pub fn counter_indices(counters: &[&str], indices: &[(usize, &str)]) {
        assert_eq!(indices.len(), counters.len());
        for &(index, name) in indices {
            assert_eq!(counters[index], name);
        }
    }

    /// Each configuration fails its validation with an error naming `field` first.
    pub fn rejected<C>(cases: &[(C, &str)], validate: impl Fn(&C) -> Result<(), String>) {
        for (config, field) in cases {
            let error = validate(config).unwrap_err();
            assert!(error.starts_with(&format!("{field} = ")), "{error}");
        }
    }
}
