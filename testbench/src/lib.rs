//! The testbench: named configurations ([`config`]), the lockstep co-simulation job ([`cosim`]),
//! the clocked coroutine harness ([`harness`]) and the scenarios that drive idemnet's blocks with
//! it ([`scenarios`]), on the Verilated RTL or on the golden model alike.

pub mod bench;
pub mod config;
pub mod cosim;
pub mod harness;
pub mod plot;
pub mod replay;
mod replay_io;
pub mod replay_rmpp;
pub mod scenarios;
pub mod selftest;
pub mod sweep;

pub use config::{Block, Config, Model, NAMED};
pub use cosim::{
    cosim, verilate, verilate_design, verilate_source, verilate_tracing, CosimOptions, CosimReport,
};
pub use harness::{run, ClockedDut, Queue, Tb};
pub use scenarios::{fabric_traffic, ModelDut, TrafficReport, Verilated};
pub use selftest::{run_selftest, SelfTestReport, SelfTestWave};
