//! The board tops: every image has the same pins (`clk`, `rst_n`, `led[7:0]`, `uart_tx`; the
//! constraint files in `fpga/boards/`), and the board top is generated from the design's port
//! list, never written per design.
//!
//! * A design with those pins of its own (the self-test) is wired straight to them: its
//!   `clear` is the reset button.
//! * A block with more ports than a package has pins (a switch, an NI, the receive path, the
//!   16-node system) sits in a stimulus harness: a 32-bit LFSR feeds a shift chain that drives
//!   every input bit, and every output bit is XOR-folded, in two registered stages (a
//!   multiple of 32 bits, then 32 with feedback), into a signature on the LEDs and the UART
//!   pin. Every input toggles, and nothing the block computes can be optimized away: the
//!   outputs are a `keep` wire, so that the block's cells are its own (the node: 3,189 LUT4 in
//!   the board top less the harness alone, 3,169 synthesized alone with its outputs as
//!   ports). The first stage XORs at most four output bits into each of its registers (one
//!   LUT4), up to [`FOLD_MOST`] registers (system16 folds up to 17 bits into each), so that
//!   the path from an output to the harness is one LUT: an output read straight from a block
//!   RAM (the NI's `dlv_data`, docs/protocol.md §8.4) has the RAM's clock-to-output (5.8 ns on
//!   the ECP5) and would otherwise spend the rest of a 10 ns cycle in the harness's XOR tree.
//!   The flow synthesizes this top once more around a black box in place of
//!   the block ([`harness_alone`]) and reports the harness's own LUT4 and flip-flops beside
//!   the totals, and the block's LUT positions without them.

use std::fmt::Write;

use idemnet_model::ports::{PortDir, PortSpec};

/// The least and the most registers of the first fold stage, and the output bits each XORs
/// when the outputs are few enough.
const FOLD_LEAST: usize = 64;
const FOLD_MOST: usize = 1024;
const FOLD_INPUTS: usize = 4;

/// The width of the first fold stage for `outputs` output bits: a multiple of 32.
fn fold_width(outputs: usize) -> usize {
    let width = outputs.div_ceil(FOLD_INPUTS).div_ceil(32) * 32;
    width.clamp(FOLD_LEAST, FOLD_MOST)
}

fn widths(ports: &[PortSpec]) -> (usize, usize) {
    let sum = |d: PortDir| {
        ports
            .iter()
            .filter(|p| p.dir == d && p.name != "clock")
            .map(|p| p.width as usize)
            .sum::<usize>()
    };
    (sum(PortDir::In), sum(PortDir::Out))
}

/// The board top `board` for a design whose own ports are the pins (`clock`, `clear`, `led`,
/// `uart_tx`, and monitor outputs that stay open).
pub fn pin_top(ports: &[PortSpec]) -> Result<String, String> {
    // The port list leaves out `clock`, which every design has.
    for (name, dir, width) in [
        ("clear", PortDir::In, 1),
        ("led", PortDir::Out, 8),
        ("uart_tx", PortDir::Out, 1),
    ] {
        if !ports
            .iter()
            .any(|p| p.name == name && p.dir == dir && p.width == width)
        {
            return Err(format!(
                "the design has no {width}-bit port `{name}` for a pin"
            ));
        }
    }
    Ok(
        "\nmodule board(input clk, input rst_n, output [7:0] led, output uart_tx);\n    \
        top dut(.clock(clk), .clear(~rst_n), .led(led), .uart_tx(uart_tx));\nendmodule\n"
            .to_string(),
    )
}

/// The board top `board` that drives every input of the block `top` from a shift chain and
/// folds every output into the LEDs and the UART pin (module docs).
pub fn stimulus_top(ports: &[PortSpec]) -> String {
    let (iw, ow) = widths(ports);
    let chain = iw.max(32);
    let fold = fold_width(ow);
    let mut v = String::new();
    let _ = writeln!(
        v,
        "\nmodule board(input clk, input rst_n, output [7:0] led, output uart_tx);"
    );
    let _ = writeln!(v, "    reg [31:0] lfsr = 32'h1;");
    let _ = writeln!(v, "    reg [{}:0] chain = 0;", chain - 1);
    let _ = writeln!(v, "    reg [{}:0] fold = 0;", fold - 1);
    let _ = writeln!(v, "    reg [31:0] sig = 0;");
    // `keep`: an XOR fold is linear, so two outputs that carry the same signal into one fold
    // register cancel, and yosys would then remove the logic behind them, or merge a block's
    // output logic into the fold's LUTs; either makes the block look smaller than it is.
    let _ = writeln!(v, "    (* keep *) wire [{}:0] outs_w;", ow - 1);
    // The chain shifts 32 new bits in per cycle (a maximal-length 32-bit Galois LFSR).
    v.push_str(
        "    always @(posedge clk) begin\n        \
         if (!rst_n) lfsr <= 32'h1;\n        \
         else lfsr <= {1'b0, lfsr[31:1]} ^ (lfsr[0] ? 32'h80200003 : 32'h0);\n",
    );
    if chain > 32 {
        let _ = writeln!(v, "        chain <= {{chain[{}:0], lfsr}};", chain - 33);
    } else {
        let _ = writeln!(v, "        chain <= lfsr;");
    }
    let mut f1 = vec![Vec::new(); fold];
    for b in 0..ow {
        f1[b % fold].push(format!("outs_w[{b}]"));
    }
    for (i, terms) in f1.iter().enumerate() {
        let rhs = if terms.is_empty() {
            "1'b0".to_string()
        } else {
            terms.join(" ^ ")
        };
        let _ = writeln!(v, "        fold[{i}] <= {rhs};");
    }
    for i in 0..32 {
        let terms: Vec<String> = (0..fold / 32)
            .map(|j| format!("fold[{}]", i + 32 * j))
            .collect();
        let _ = writeln!(
            v,
            "        sig[{i}] <= sig[{}] ^ {};",
            (i + 31) % 32,
            terms.join(" ^ ")
        );
    }
    v.push_str("    end\n");
    let _ = writeln!(v, "    assign led = sig[7:0];");
    let _ = writeln!(v, "    assign uart_tx = sig[31];");
    let mut conns = vec![".clock(clk)".to_string()];
    let (mut ib, mut ob) = (0usize, 0usize);
    for p in ports.iter().filter(|p| p.name != "clock") {
        let w = p.width as usize;
        match p.dir {
            PortDir::In => {
                conns.push(format!(".{}(chain[{}:{}])", esc(&p.name), ib + w - 1, ib));
                ib += w;
            }
            PortDir::Out => {
                conns.push(format!(".{}(outs_w[{}:{}])", esc(&p.name), ob + w - 1, ob));
                ob += w;
            }
        }
    }
    let _ = writeln!(
        v,
        "    top dut(\n        {}\n    );",
        conns.join(",\n        ")
    );
    v.push_str("endmodule\n");
    v
}

/// The board top `board` around a black box in place of the design: its own cells are the
/// harness's, which the flow synthesizes alone to report them apart from the design's.
pub fn harness_alone(ports: &[PortSpec]) -> String {
    // The board top connects `clock` whether the port list names it or not.
    let ports: Vec<PortSpec> = std::iter::once(PortSpec::input("clock", 1))
        .chain(ports.iter().filter(|p| p.name != "clock").cloned())
        .collect();
    let names: Vec<String> = ports.iter().map(|p| esc(&p.name)).collect();
    let mut v = format!("(* blackbox *)\nmodule top({});\n", names.join(", "));
    for p in &ports {
        let dir = match p.dir {
            PortDir::In => "input",
            PortDir::Out => "output",
        };
        let range = if p.width > 1 {
            format!("[{}:0] ", p.width - 1)
        } else {
            String::new()
        };
        let _ = writeln!(v, "    {dir} {range}{};", esc(&p.name));
    }
    v.push_str("endmodule\n");
    v + &stimulus_top(&ports)
}

/// A port name as Verilog needs it: rust-hdl's `$` names are escaped identifiers.
fn esc(name: &str) -> String {
    if name.contains('$') {
        format!("\\{name} ")
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stimulus_top_covers_every_port_bit() {
        let ports = vec![
            PortSpec::input("clock", 1),
            PortSpec::input("a", 35),
            PortSpec::input("b$0", 3),
            PortSpec::output("y", 300),
        ];
        let v = stimulus_top(&ports);
        assert!(v.contains(".a(chain[34:0])"), "{v}");
        assert!(v.contains(".\\b$0 (chain[37:35])"), "{v}");
        assert!(v.contains(".y(outs_w[299:0])"), "{v}");
        assert!(v.contains("(* keep *) wire [299:0] outs_w;"), "{v}");
        // 300 outputs: 96 registers of at most four (here three) output bits each.
        assert!(
            v.contains("fold[43] <= outs_w[43] ^ outs_w[139] ^ outs_w[235];"),
            "{v}"
        );
        assert!(
            v.contains("sig[5] <= sig[4] ^ fold[5] ^ fold[37] ^ fold[69];"),
            "{v}"
        );
    }

    #[test]
    fn the_first_fold_stage_is_one_lut_deep_within_its_bounds() {
        assert_eq!(fold_width(10), FOLD_LEAST);
        assert_eq!(fold_width(300), 96);
        assert_eq!(fold_width(925), 256);
        assert_eq!(fold_width(16_544), FOLD_MOST);
        for outputs in [1, 255, 256, 257, 4096, 4097] {
            let width = fold_width(outputs);
            assert_eq!(width % 32, 0);
            assert!(width >= outputs.div_ceil(FOLD_INPUTS) || width == FOLD_MOST);
        }
    }

    #[test]
    fn harness_alone_declares_the_design_as_a_black_box() {
        let ports = vec![
            PortSpec::input("clock", 1),
            PortSpec::input("b$0", 3),
            PortSpec::output("y", 300),
        ];
        let v = harness_alone(&ports);
        assert!(
            v.starts_with("(* blackbox *)\nmodule top(clock, \\b$0 , y);\n"),
            "{v}"
        );
        assert!(
            v.contains("    input [2:0] \\b$0 ;\n    output [299:0] y;\n"),
            "{v}"
        );
        assert!(v.contains("top dut("), "{v}");
    }

    #[test]
    fn pin_top_needs_the_pins() {
        let ports = vec![PortSpec::input("clear", 1), PortSpec::output("led", 8)];
        assert!(pin_top(&ports).unwrap_err().contains("`uart_tx`"));
    }
}
