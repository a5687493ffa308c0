//! FPGA flows for idemnet: board tops generated from a design's port list, synthesis, place and
//! route, bitstreams and reports, for the Alchitry Cu (iCE40-HX8K) and the ULX3S 85F (ECP5).
//!
//! * [`board`]: the boards, their devices and tools; the pin constraints are in `fpga/boards/`.
//! * [`design`]: the designs (switch, NI, RMPP receive path, self-test, 16-node system), each
//!   from a named configuration.
//! * [`harness`]: the generated board tops.
//! * [`flow`]: the tool runs and the [`flow::Report`].

pub mod board;
pub mod design;
pub mod flow;
pub mod harness;

pub use board::Board;
pub use design::Design;
pub use flow::{lut_mapping, run_flow, synthesizer, table, Report, Stage};
