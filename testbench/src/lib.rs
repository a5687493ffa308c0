//! The async testbench: a clocked coroutine harness ([`harness`]) and the scenarios that drive
//! idemnet's blocks with it ([`scenarios`]), on the Verilated RTL or on the golden model alike.

pub mod harness;

pub use harness::{run, ClockedDut, Queue, Tb};
