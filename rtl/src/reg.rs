//! A D flip-flop with a power-on value.
//!
//! rust-hdl's `DFF` always powers on at zero; the LFSR needs its seed instead.

use rust_hdl::prelude::*;

/// D flip-flop with a power-on value (`docs/protocol.md` §1: FPGA-style initial values, no reset).
///
/// Ports: `clock` (in), `d` (in, `T`), `q` (out, `T`).
/// Timing: `q` takes the value of `d` at each rising edge of `clock`; before the first edge it
/// holds `init`. The Verilog is an `initial` block plus `always @(posedge clock) q <= d`.
#[derive(LogicBlock)]
pub struct InitReg<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    _init: T,
}

impl<T: Synth> InitReg<T> {
    /// A register that powers on holding `init`.
    pub fn new(init: T) -> Self {
        Self {
            clock: Default::default(),
            d: Default::default(),
            q: Signal::new_with_default(init),
            _init: init,
        }
    }
}

impl<T: Synth> Logic for InitReg<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = self.d.val();
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "initial begin\n   q = {:x};\nend\n\nalways @(posedge clock) begin\n   q <= d;\nend\n",
            self._init.verilog()
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "init_reg".into(),
            clock: "clock".into(),
            inputs: vec!["d".into()],
            outputs: vec!["q".into()],
        }]
    }
}
