//! The cells' emitted Verilog through the open tools, each for two or three parameter sets:
//! Verilator `-Wall` lint with the project's waivers, Icarus, and yosys `synth_ice40`, whose
//! cell counts are printed (`docs/cells.md` quotes them; run with `--nocapture`) and bounded so
//! that growth is noticed. With `IDEMNET_CELLS_VERILOG=<folder>` set, each design's Verilog is
//! also written there (`FirstSet_8_3.v` for `FirstSet<8, 3>`), for the ECP5 figures of
//! `docs/cells.md`.

use idemnet_cosim::tools::{iverilog_compile, verilator_lint, yosys_ice40, Ice40Cells};
use idemnet_rtl::counter_bank::CounterBank;
use idemnet_rtl::fifo::{Fifo, Memory, MemoryStyle};
use idemnet_rtl::first_set::FirstSet;
use idemnet_rtl::lfsr::{Lfsr, SteppedLfsr};
use idemnet_rtl::lut_ram::LutRam;
use idemnet_rtl::one_hot_mux::OneHotMux;
use idemnet_rtl::request_reader::RequestReader;
use idemnet_rtl::round_robin::RoundRobin;
use idemnet_rtl::timer_bank::TimerBank;
use rust_hdl::prelude::*;

/// Lints, compiles and synthesizes `block` as the top module; returns its iCE40 cell counts.
fn through_the_tools<B: Block>(name: &str, mut block: B) -> Ice40Cells {
    block.connect_all();
    let verilog = generate_verilog(&block);
    if let Some(folder) = std::env::var_os("IDEMNET_CELLS_VERILOG") {
        let words: Vec<&str> = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let file = std::path::Path::new(&folder).join(words.join("_") + ".v");
        std::fs::write(file, &verilog).unwrap();
    }
    verilator_lint(&verilog, idemnet_rtl::LINT_WAIVERS).unwrap();
    iverilog_compile(&verilog).unwrap();
    let cells = yosys_ice40(&verilog).unwrap();
    eprintln!("{name}, synth_ice40: {cells:?}");
    cells
}

#[test]
fn first_set() {
    let narrow = through_the_tools("FirstSet<8, 3>", FirstSet::<8, 3>::new());
    let wide = through_the_tools("FirstSet<16, 4>", FirstSet::<16, 4>::new());
    let widest = through_the_tools("FirstSet<64, 6>", FirstSet::<64, 6>::new());
    assert!(narrow.luts <= 20, "{narrow:?}");
    assert!(wide.luts <= 45, "{wide:?}");
    assert!(widest.luts <= 300, "{widest:?}");
    for cells in [narrow, wide, widest] {
        assert_eq!((cells.flip_flops, cells.carries), (0, 0), "{cells:?}");
    }
}

#[test]
fn one_hot_mux() {
    // The receive slots' due uid (8 x 32) and the send slots' due fields (4 x 38).
    let uids = through_the_tools("OneHotMux<32> x 8", OneHotMux::<32>::new(8));
    let fields = through_the_tools("OneHotMux<38> x 4", OneHotMux::<38>::new(4));
    // An AND-OR tree: 8 pairs of (select, bit) are 5 LUT4 a bit, 4 pairs 2 (one for two pairs,
    // one for their OR, or a LUT4 holding two pairs each).
    assert!(uids.luts <= 5 * 32, "{uids:?}");
    assert!(fields.luts <= 3 * 38, "{fields:?}");
    for cells in [uids, fields] {
        assert_eq!((cells.flip_flops, cells.carries), (0, 0), "{cells:?}");
    }
}

#[test]
fn fifo() {
    let single = through_the_tools("Fifo<Bits<8>, 1, 1> depth 1", Fifo::<Bits<8>, 1, 1>::new(1));
    let registers = through_the_tools(
        "Fifo<Bits<4>, 4, 5> depth 16, registers",
        Fifo::<Bits<4>, 4, 5>::with_style(16, MemoryStyle::Registers),
    );
    let flits = through_the_tools(
        "Fifo<Bits<35>, 4, 4> depth 12",
        Fifo::<Bits<35>, 4, 4>::new(12),
    );
    let deep = through_the_tools(
        "Fifo<Bits<8>, 9, 10> depth 512",
        Fifo::<Bits<8>, 9, 10>::new(512),
    );
    assert!(single.luts <= 20 && single.brams == 0, "{single:?}");
    // 64 bits of storage in flip-flops, read through a multiplexer.
    assert!(
        registers.flip_flops >= 64 && registers.luts <= 120 && registers.brams == 0,
        "{registers:?}"
    );
    // yosys puts 12 x 35 bits into three 16-bit-wide block RAMs rather than 420 flip-flops.
    assert!(flits.brams == 3 && flits.luts <= 100, "{flits:?}");
    assert!(deep.brams == 1 && deep.luts <= 120, "{deep:?}");
}

/// A counter bank with one strobe per counter: source `s` always names counter `s`.
#[derive(LogicBlock)]
struct StrobePerCounter {
    clock: Signal<In, Clock>,
    strobe: Vec<Signal<In, Bit>>,
    count: Vec<Signal<Out, Bits<16>>>,
    bank: CounterBank<10, 10, 4, 16>,
    reason: Vec<Constant<Bits<4>>>,
}

impl Logic for StrobePerCounter {
    #[hdl_gen]
    fn update(&mut self) {
        self.bank.clock.next = self.clock.val();
        for counter in 0..10 {
            self.bank.strobe[counter].next = self.strobe[counter].val();
            self.bank.reason[counter].next = self.reason[counter].val();
            self.count[counter].next = self.bank.count[counter].val();
        }
    }
}

#[test]
fn counter_bank() {
    let direct = through_the_tools(
        "CounterBank<10, 2, 4, 16> direct",
        CounterBank::<10, 2, 4, 16>::new(false),
    );
    let registered = through_the_tools(
        "CounterBank<10, 2, 4, 16> registered strobes",
        CounterBank::<10, 2, 4, 16>::new(true),
    );
    let per_counter = through_the_tools(
        "CounterBank<10, 10, 4, 16> one strobe per counter",
        StrobePerCounter {
            clock: Default::default(),
            strobe: (0..10).map(|_| Default::default()).collect(),
            count: (0..10).map(|_| Default::default()).collect(),
            bank: CounterBank::new(false),
            reason: (0..10u64).map(|r| Constant::new(r.to_bits())).collect(),
        },
    );
    assert_eq!(direct.flip_flops, 160, "{direct:?}");
    // Each counter's event sum, two bits for two sources.
    assert_eq!(registered.flip_flops, 160 + 10 * 2, "{registered:?}");
    assert_eq!(per_counter.flip_flops, 160, "{per_counter:?}");
    for cells in [direct, registered, per_counter] {
        assert!(cells.luts <= 400, "{cells:?}");
    }
}

#[test]
fn round_robin() {
    let three = through_the_tools("RoundRobin<3, 2>", RoundRobin::<3, 2>::new());
    let four = through_the_tools("RoundRobin<4, 2>", RoundRobin::<4, 2>::new());
    let sixteen = through_the_tools("RoundRobin<16, 4>", RoundRobin::<16, 4>::new());
    for (cells, requesters, index_bits, luts) in
        [(three, 3, 2, 24), (four, 4, 2, 36), (sixteen, 16, 4, 170)]
    {
        // One bit per requester in `last` and `after_last`, and `last_index`.
        assert_eq!(cells.flip_flops, 2 * requesters + index_bits, "{cells:?}");
        assert!(cells.luts <= luts, "{cells:?}");
    }
}

#[test]
fn timer_bank() {
    let ack = through_the_tools("TimerBank 4 x 62", TimerBank::new(4, 62));
    let retry = through_the_tools("TimerBank 2 x 126", TimerBank::new(2, 126));
    // The NI's retry timers (§8.5): 118 edges and a spread of 16, at most 133.
    let spread = through_the_tools("TimerBank 4 x 118 + 16", TimerBank::spread(4, 118, 16));
    // `now` and a deadline a timer of 6, 7 and 8 bits, and each timer's `running`.
    assert_eq!(ack.flip_flops, 6 + 4 * 6 + 4, "{ack:?}");
    assert_eq!(retry.flip_flops, 7 + 2 * 7 + 2, "{retry:?}");
    assert_eq!(spread.flip_flops, 8 + 4 * 8 + 4, "{spread:?}");
    for cells in [ack, retry] {
        assert!(cells.luts <= 40 && cells.brams == 0, "{cells:?}");
    }
    assert!(spread.luts <= 60 && spread.brams == 0, "{spread:?}");
}

#[test]
fn lfsrs() {
    let free = through_the_tools("Lfsr", Lfsr::new(0xACE1));
    let stepped = through_the_tools("SteppedLfsr", SteppedLfsr::new(0x3B9D));
    // Sixteen bits of state each (14 and 16 LUT4 with yosys 0.23: the shifted bits pass through
    // a LUT each, the enable is the flip-flops').
    for cells in [free, stepped] {
        assert_eq!(cells.flip_flops, 16, "{cells:?}");
        assert!(cells.luts <= 20 && cells.brams == 0, "{cells:?}");
    }
}

#[test]
fn request_reader() {
    let cells = through_the_tools("RequestReader<3>", RequestReader::<3>::new(0));
    // The state (two bits), the latched beat (3) and bytes (6), and the final beat's index
    // (4: `(length - 1) / 4` of six bits has its upper two at zero).
    assert_eq!(cells.flip_flops, 15, "{cells:?}");
    assert!(cells.luts <= 50 && cells.brams == 0, "{cells:?}");
    // The framer's (§13.1): five header beats, a 4-bit beat, and a 5-bit final beat's index
    // (`(length - 1) / 4 + 5` of a 6-bit length reaches 20; past 12 the length is refused).
    let framer = through_the_tools("RequestReader<4>", RequestReader::<4>::new(5));
    assert_eq!(framer.flip_flops, 17, "{framer:?}");
    assert!(framer.luts <= 50 && framer.brams == 0, "{framer:?}");
}

#[test]
fn block_memory() {
    let words = through_the_tools(
        "Memory<Bits<32>, 4>::block depth 16",
        Memory::<Bits<32>, 4>::block(16),
    );
    // Two 256 x 16 block RAMs side by side, and nothing around them.
    assert_eq!((words.brams, words.flip_flops), (2, 0), "{words:?}");
    assert!(words.luts <= 2, "{words:?}");
}

#[test]
fn lut_ram() {
    let table = through_the_tools(
        "LutRam<Bits<32>, 4> depth 5, 3 reads",
        LutRam::<Bits<32>, 4>::new(5, 3),
    );
    let full = through_the_tools(
        "LutRam<Bits<4>, 4> depth 16, 1 read",
        LutRam::<Bits<4>, 4>::new(16, 1),
    );
    // No LUT RAM on iCE40: one set of flip-flops for the words, a multiplexer per read port.
    assert_eq!((table.flip_flops, table.brams), (160, 0), "{table:?}");
    assert!(table.luts <= 320, "{table:?}");
    assert_eq!((full.flip_flops, full.brams), (64, 0), "{full:?}");
    assert!(full.luts <= 80, "{full:?}");
}
