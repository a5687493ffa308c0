//! The board tops: every image has the same pins (`clk`, `rst_n`, `led[7:0]`, `uart_tx`; the
//! constraint files in `fpga/boards/`), and the board top is generated from the design's port
//! list, never written per design.
//!
//! * A design with those pins of its own (the self-test) is wired straight to them: its
//!   `clear` is the reset button.
//! * A block with more ports than a package has pins (a switch, an NI, the receive path) sits
//!   in a stimulus harness: a 32-bit LFSR feeds a shift chain that drives every input bit, and
//!   every output bit is XOR-folded into a signature on the LEDs and the UART pin, in
//!   registered stages: a first stage of a multiple of 32 registers, each the XOR of output
//!   bits next to each other in the port list (so of one port or two), then a tree of
//!   registers each the XOR of four (or two) of the stage before, down to 32 bits, which enter
//!   the signature register with feedback. Every input toggles, and nothing the block computes
//!   can be optimized away: the outputs are a `keep` wire, so that the block's cells are its
//!   own (the node at 6e48635 on the ECP5: 2,922 LUT4 in the board top less the harness alone,
//!   2,909 synthesized alone with its outputs as ports). The first stage XORs at most four
//!   output bits into each of its registers (one LUT4), up to [`FOLD_MOST`] registers, so that
//!   the path from an output to the harness is one LUT: an output read straight from a block
//!   RAM (the NI's `dlv_data`, docs/protocol.md §8.4) has the RAM's clock-to-output (5.8 ns on
//!   the ECP5) and would otherwise spend the rest of a 10 ns cycle in the harness's XOR tree.
//!   Every later stage is one LUT between registers, whatever the number of outputs: when the
//!   16-node system was folded, its outputs came from the whole device, and a signature bit
//!   that XORed 32 registers from everywhere in one cycle (the stage before this tree) made a
//!   path of three LUTs and long wires that would be the machine's, not the harness's.
//!   The flow synthesizes this top once more around a black box in place of
//!   the block ([`harness_alone`]) and reports the harness's own LUT4 and flip-flops beside
//!   the totals, and the block's LUT positions without them.
//! * A block with more output bits than that one-LUT first stage takes ([`FOLD_LIMIT`], 4,096:
//!   the 16-node system, 16,544) keeps them, the same `keep` wire, without folding them, as
//!   an out-of-context build leaves its ports (so the logic after a block's last register to
//!   an output has no timed endpoint here; the node's own image times its outputs into the
//!   fold), and drives each 32-bit word of its inputs from an LFSR of its own (no reset:
//!   `rst_n` is unused), not from one chain, whose shift from the words of one
//!   node's inputs to the next node's crosses the device: system16 placed with the chain and
//!   the fold at an estimated 37.06 MHz against 50 (worst slack -6.99 ns, on few endpoints),
//!   with neither at 49.54 (-0.19 ns). The LEDs and the UART pin show the first word's LFSR.
//!   An XOR fold costs a LUT4 for about every three bits whatever its shape (system16's took
//!   5,476 LUT4, 6.5 % of the LFE5U-85F, which its machine fills to 77 %), and it times only
//!   the outputs' last LUT into the harness's register, which the node's own row (`--design
//!   node`, all of whose outputs are folded) times already. The block's cells stay its own:
//!   the node's board top kept so, without its fold, synthesizes to 2,867 LUT4 and 415 CCU2C
//!   (YoWASP yosys, `nextpnr-ecp5 --pack-only` keeping every cell), the node alone with its
//!   outputs as ports to 2,886 and 418.

use std::fmt::Write;

use idemnet_model::ports::{PortDir, PortSpec};

/// The least and the most registers of the first fold stage, and the output bits each XORs
/// when the outputs are few enough.
const FOLD_LEAST: usize = 64;
const FOLD_MOST: usize = 1024;
const FOLD_INPUTS: usize = 4;
/// The registers of the stage before that a register of the tree XORs, at most (one LUT4).
const TREE_FAN: usize = 4;
/// The most output bits the harness folds: past it, outputs are kept, not folded (module docs).
pub const FOLD_LIMIT: usize = FOLD_INPUTS * FOLD_MOST;

/// The width of the first fold stage for `outputs` output bits: a multiple of 32.
fn fold_width(outputs: usize) -> usize {
    let width = outputs.div_ceil(FOLD_INPUTS).div_ceil(32) * 32;
    width.clamp(FOLD_LEAST, FOLD_MOST)
}

/// The registered XOR stages after the first, from `fold` registers (a multiple of 32) down to
/// 32: each stage's width (a multiple of 32, about a quarter of the one before) and how many
/// neighbouring registers of the stage before each of its registers XORs (at most four; the
/// last few may take fewer, or none).
fn tree(fold: usize) -> Vec<(usize, usize)> {
    let mut stages = Vec::new();
    let mut width = fold;
    while width > 32 {
        let next = (width.div_ceil(TREE_FAN).div_ceil(32) * 32).max(32);
        stages.push((next, width.div_ceil(next)));
        width = next;
    }
    stages
}

/// One registered XOR stage: `to[i] <= from[i * fan] ^ ... ^ from[(i + 1) * fan - 1]` for `i`
/// below `width`, the terms past `from_width` left out (a register with none holds `1'b0`).
fn xor_stage(v: &mut String, to: &str, width: usize, from: &str, from_width: usize, fan: usize) {
    for i in 0..width {
        let terms: Vec<String> = (i * fan..((i + 1) * fan).min(from_width))
            .map(|j| format!("{from}[{j}]"))
            .collect();
        let rhs = if terms.is_empty() {
            "1'b0".to_string()
        } else {
            terms.join(" ^ ")
        };
        let _ = writeln!(v, "        {to}[{i}] <= {rhs};");
    }
}

/// The power-on value of input word `w`'s LFSR in an unfolded harness: two bits set, a pair of
/// positions of its own for each of the first 496 words (LFSRs with one start and one update
/// would be merged into one). Few ones, because an ECP5 flip-flop that powers on at 1 costs
/// two inverters (yosys stores it inverted): seeds of about sixteen ones made system16's
/// harness 1,924 LUT4, 1,708 of them inverters. A seed shifted by a cycle may be another word's
/// (a Galois LFSR shifts a state with bit 0 clear without feedback): the stimulus only has to
/// keep every input live and distinct, which a time shift does; yosys cannot merge the two.
///
/// Past [`SEEDS`] words two words would share a seed and an update, yosys would merge their
/// LFSRs, and the design's logic behind two equal inputs could merge with them and look
/// smaller than it is: so that is a programming error here, not a quiet wrap (system16 has 84).
fn word_seed(w: usize) -> u32 {
    assert!(
        w < SEEDS,
        "input word {w}: the unfolded harness has {SEEDS} seeds"
    );
    let mut pair = w;
    for low in 0..31 {
        let highs = 31 - low;
        if pair < highs {
            return (1 << low) | (1 << (low + 1 + pair));
        }
        pair -= highs;
    }
    unreachable!("{SEEDS} pairs of 32 positions")
}

/// The distinct two-bit seeds of 32-bit words: 32 choose 2.
const SEEDS: usize = 32 * 31 / 2;

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
/// folds every output into the LEDs and the UART pin, or past [`FOLD_LIMIT`] output bits
/// drives each input word from an LFSR of its own and keeps the outputs (module docs).
pub fn stimulus_top(ports: &[PortSpec]) -> String {
    let (iw, ow) = widths(ports);
    let chain = iw.max(32);
    let folded = ow <= FOLD_LIMIT;
    let fold = fold_width(ow);
    let words = chain.div_ceil(32);
    let mut v = String::new();
    let _ = writeln!(
        v,
        "\nmodule board(input clk, input rst_n, output [7:0] led, output uart_tx);"
    );
    if folded {
        let _ = writeln!(v, "    reg [31:0] lfsr = 32'h1;");
        let _ = writeln!(v, "    reg [{}:0] chain = 0;", chain - 1);
        let _ = writeln!(v, "    reg [{}:0] fold = 0;", fold - 1);
        for (level, &(width, _)) in tree(fold).iter().enumerate() {
            let _ = writeln!(v, "    reg [{}:0] tree{level} = 0;", width - 1);
        }
        let _ = writeln!(v, "    reg [31:0] sig = 0;");
    } else {
        for w in 0..words {
            let _ = writeln!(v, "    reg [31:0] stimulus{w} = 32'h{:08x};", word_seed(w));
        }
        let all: Vec<String> = (0..words).rev().map(|w| format!("stimulus{w}")).collect();
        let _ = writeln!(
            v,
            "    wire [{}:0] chain = {{{}}};",
            words * 32 - 1,
            all.join(", ")
        );
    }
    // `keep`: an XOR fold is linear, so two outputs that carry the same signal into one fold
    // register cancel, and yosys would then remove the logic behind them, or merge a block's
    // output logic into the fold's LUTs; either makes the block look smaller than it is.
    // Unfolded, it is what keeps the outputs at all.
    let _ = writeln!(v, "    (* keep *) wire [{}:0] outs_w;", ow - 1);
    v.push_str("    always @(posedge clk) begin\n");
    if !folded {
        // Each input word steps its own maximal-length 32-bit Galois LFSR from a seed of its
        // own: no stimulus wire runs between nodes (a chain shifts from one node's inputs to
        // the next), and no reset net reaches every word.
        for w in 0..words {
            let _ = writeln!(
                v,
                "        stimulus{w} <= {{1'b0, stimulus{w}[31:1]}} ^ \
                 (stimulus{w}[0] ? 32'h80200003 : 32'h0);"
            );
        }
        v.push_str("    end\n");
        let _ = writeln!(v, "    assign led = stimulus0[7:0];");
        let _ = writeln!(v, "    assign uart_tx = stimulus0[31];");
    } else {
        // The chain shifts 32 new bits in per cycle (a maximal-length 32-bit Galois LFSR).
        v.push_str(
            "        if (!rst_n) lfsr <= 32'h1;\n        \
             else lfsr <= {1'b0, lfsr[31:1]} ^ (lfsr[0] ? 32'h80200003 : 32'h0);\n",
        );
        if chain > 32 {
            let _ = writeln!(v, "        chain <= {{chain[{}:0], lfsr}};", chain - 33);
        } else {
            let _ = writeln!(v, "        chain <= lfsr;");
        }
        // The first stage: register `i` XORs the output bits `i * per .. (i + 1) * per`, next
        // to each other in the port list; then the tree, each stage the XOR of at most four
        // neighbours of the one before, down to 32 bits.
        xor_stage(&mut v, "fold", fold, "outs_w", ow, ow.div_ceil(fold));
        let (mut from, mut from_width) = ("fold".to_string(), fold);
        for (level, &(width, fan)) in tree(fold).iter().enumerate() {
            let name = format!("tree{level}");
            xor_stage(&mut v, &name, width, &from, from_width, fan);
            (from, from_width) = (name, width);
        }
        for i in 0..32 {
            let _ = writeln!(
                v,
                "        sig[{i}] <= sig[{}] ^ {from}[{i}];",
                (i + 31) % 32
            );
        }
        v.push_str("    end\n");
        let _ = writeln!(v, "    assign led = sig[7:0];");
        let _ = writeln!(v, "    assign uart_tx = sig[31];");
    }
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

    /// Asserts that the generated text `v` holds `needle`, showing `v` if not.
    fn has(v: &str, needle: &str) {
        assert!(v.contains(needle), "no `{needle}` in:\n{v}");
    }

    #[test]
    fn stimulus_top_covers_every_port_bit() {
        let ports = vec![
            PortSpec::input("clock", 1),
            PortSpec::input("a", 35),
            PortSpec::input("b$0", 3),
            PortSpec::output("y", 300),
        ];
        let v = stimulus_top(&ports);
        has(&v, ".a(chain[34:0])");
        has(&v, ".\\b$0 (chain[37:35])");
        has(&v, ".y(outs_w[299:0])");
        has(&v, "(* keep *) wire [299:0] outs_w;");
        // 300 outputs: 96 first-stage registers of four neighbouring output bits (75 used),
        // then 32 of three.
        has(
            &v,
            "fold[43] <= outs_w[172] ^ outs_w[173] ^ outs_w[174] ^ outs_w[175];",
        );
        has(
            &v,
            "fold[74] <= outs_w[296] ^ outs_w[297] ^ outs_w[298] ^ outs_w[299];",
        );
        has(&v, "fold[75] <= 1'b0;");
        has(&v, "tree0[5] <= fold[15] ^ fold[16] ^ fold[17];");
        assert!(!v.contains("tree1"), "{v}");
        has(&v, "sig[5] <= sig[4] ^ tree0[5];");
    }

    #[test]
    fn outputs_past_the_fold_limit_are_kept_not_folded() {
        let top = |outputs| {
            stimulus_top(&[
                PortSpec::input("clock", 1),
                PortSpec::input("a", 40),
                PortSpec::output("y", outputs),
            ])
        };
        let at = top(FOLD_LIMIT as u32);
        has(
            &at,
            "fold[1023] <= outs_w[4092] ^ outs_w[4093] ^ outs_w[4094] ^ outs_w[4095];",
        );
        has(&at, "assign led = sig[7:0];");
        let past = top(FOLD_LIMIT as u32 + 1);
        has(&past, "(* keep *) wire [4096:0] outs_w;");
        has(&past, ".y(outs_w[4096:0])");
        assert!(
            !past.contains("fold") && !past.contains("reg [31:0] sig"),
            "{past}"
        );
        // Two input words (40 bits), each its own LFSR, none reset.
        has(&past, "reg [31:0] stimulus1 = 32'h00000005;");
        has(&past, "wire [63:0] chain = {stimulus1, stimulus0};");
        has(&past, ".a(chain[39:0])");
        has(
            &past,
            "stimulus1 <= {1'b0, stimulus1[31:1]} ^ (stimulus1[0] ? 32'h80200003 : 32'h0);",
        );
        assert!(!past.contains("rst_n)") && !past.contains("lfsr"), "{past}");
        has(&past, "assign led = stimulus0[7:0];");
        has(&past, "assign uart_tx = stimulus0[31];");
    }

    #[test]
    fn word_seeds_are_two_bits_each_and_distinct() {
        let seeds: Vec<u32> = (0..SEEDS).map(word_seed).collect();
        assert!(seeds.iter().all(|s| s.count_ones() == 2));
        let distinct: std::collections::HashSet<u32> = seeds.iter().copied().collect();
        assert_eq!(distinct.len(), SEEDS);
        assert_eq!(
            (word_seed(0), word_seed(30), word_seed(31)),
            (0x3, 0x8000_0001, 0x6)
        );
    }

    #[test]
    #[should_panic(expected = "input word 496")]
    fn a_word_past_the_seeds_is_refused_not_wrapped() {
        word_seed(SEEDS);
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
    fn the_tree_reaches_32_bits_with_at_most_four_inputs_a_register() {
        assert_eq!(tree(32), vec![]);
        assert_eq!(tree(64), vec![(32, 2)]);
        assert_eq!(tree(96), vec![(32, 3)]);
        assert_eq!(tree(256), vec![(64, 4), (32, 2)]);
        assert_eq!(tree(FOLD_MOST), vec![(256, 4), (64, 4), (32, 2)]);
        for fold in (32..=FOLD_MOST).step_by(32) {
            let stages = tree(fold);
            assert_eq!(stages.last().map_or(fold, |s| s.0), 32, "{fold}");
            let mut width = fold;
            for &(next, fan) in &stages {
                assert!(
                    fan <= TREE_FAN && next * fan >= width && next % 32 == 0,
                    "{fold}"
                );
                width = next;
            }
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
        has(&v, "    input [2:0] \\b$0 ;\n    output [299:0] y;\n");
        has(&v, "top dut(");
    }

    #[test]
    fn pin_top_needs_the_pins() {
        let ports = vec![PortSpec::input("clear", 1), PortSpec::output("led", 8)];
        assert!(pin_top(&ports).unwrap_err().contains("`uart_tx`"));
    }
}
