//! A small memory with one write port and asynchronous read ports: LUT RAM on the ECP5.
//!
//! [`LutRam`] ports (Verilog names):
//!
//! | port | dir | width | |
//! |------|-----|-------|-|
//! | `clock` | in | 1 | |
//! | `write_enable`, `write_address`, `write_data` | in | 1, `ADDRESS_BITS`, `T` | the word written at the edge |
//! | `read_address$r` | in | `ADDRESS_BITS` | read port `r` (`r` in `0..reads`) |
//! | `read_data$r` | out | `T` | the word at `read_address$r` |
//!
//! Timing: at a rising edge with `write_enable`, word `write_address` takes `write_data`.
//! `read_data$r` is combinational from `read_address$r` and the words: in cycle `t` it shows the
//! word as it is after edge `t - 1` (a write at edge `t` is seen in cycle `t + 1`). An address at
//! or past `depth` is not defined (zero in rust-hdl's simulation), neither written nor read.
//! Every word is zero at power-on.
//!
//! Parameters: `T` (the word, any [`Synth`] type), `ADDRESS_BITS`, the depth (1 to
//! `2^ADDRESS_BITS` words) and the number of read ports given to [`LutRam::new`]; and, with
//! [`LutRam::narrow`], how many low bits of the word are stored: a user whose values fit fewer
//! bits than `T` (a node number below the configuration's `nodes` in a field as wide as the
//! largest) writes zero above them, and they read as zero without being stored (yosys keeps
//! memory bits that are written constant zero).
//!
//! What yosys builds: on the ECP5, `TRELLIS_DPR16X4` cells (16 words x 4 bits, one write port,
//! one asynchronous read port), one copy per read port, so a read port costs four LUTs per four
//! bits of a 16-word memory (the flow counts a `TRELLIS_DPR16X4` as four LUT4) and the words need
//! no flip-flops. The iCE40 has no LUT RAM: there the words are flip-flops (one set, shared by
//! the read ports) and each read port a multiplexer, as the same memory written as registers.
//! Measured (`docs/cells.md` has the table): 5 x 32 bits with three read ports is 24
//! `TRELLIS_DPR16X4` and no other cell on the ECP5, 160 flip-flops and 293 LUT4 on iCE40.
//!
//! Why a cell: a table of per-slot fields that are written at one place (one slot per edge) and
//! read by slot number at several places (the RMPP receive path's `src`, `msgID`, `msgNum`,
//! `len`) costs on the ECP5 a flip-flop per bit per slot and, per read port, a multiplexer of
//! `depth` inputs per bit; as LUT RAM it costs one LUT per bit per read port for up to 16
//! words. [`crate::fifo::Memory`] reads through a register, which these users cannot wait for.

use rust_hdl::prelude::*;

/// A memory with one write port and asynchronous read ports: see the module documentation.
#[derive(LogicBlock)]
pub struct LutRam<T: Synth, const ADDRESS_BITS: usize> {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<ADDRESS_BITS>>,
    pub write_data: Signal<In, T>,
    pub read_address: Vec<Signal<In, Bits<ADDRESS_BITS>>>,
    pub read_data: Vec<Signal<Out, T>>,
    /// The words, for rust-hdl's simulation.
    _words: Vec<T>,
    /// The low bits of a word that are stored.
    _bits: usize,
}

impl<T: Synth, const ADDRESS_BITS: usize> LutRam<T, ADDRESS_BITS> {
    /// A memory of `depth` words (1 to `2^ADDRESS_BITS`) with `reads` read ports (at least 1).
    pub fn new(depth: usize, reads: usize) -> Self {
        Self::narrow(depth, reads, T::BITS)
    }

    /// A memory that stores the low `bits` bits (1 to `T::BITS`) of each word: its user writes
    /// zero above them (what else it writes there is not defined).
    pub fn narrow(depth: usize, reads: usize, bits: usize) -> Self {
        assert!(
            depth >= 1 && ADDRESS_BITS < usize::BITS as usize && depth <= 1 << ADDRESS_BITS,
            "LutRam: {depth} words cannot be addressed by {ADDRESS_BITS} bits"
        );
        assert!(reads >= 1, "LutRam: no read port");
        assert!(
            (1..=T::BITS).contains(&bits),
            "LutRam: {bits} bits of a {}-bit word",
            T::BITS
        );
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_address: (0..reads).map(|_| Default::default()).collect(),
            read_data: (0..reads).map(|_| Default::default()).collect(),
            _words: vec![T::default(); depth],
            _bits: bits,
        }
    }

    fn word(&self, address: Bits<ADDRESS_BITS>) -> T {
        self._words
            .get(address.index())
            .copied()
            .unwrap_or_default()
    }
}

impl<T: Synth, const ADDRESS_BITS: usize> Logic for LutRam<T, ADDRESS_BITS> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.write_enable.val() {
            let address = self.write_address.val().index();
            let data = self.write_data.val();
            if let Some(word) = self._words.get_mut(address) {
                *word = data;
            }
        }
        for r in 0..self.read_address.len() {
            self.read_data[r].next = self.word(self.read_address[r].val());
        }
    }

    fn connect(&mut self) {
        for data in &mut self.read_data {
            data.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        // A depth below 2^ADDRESS_BITS is indexed by the address bits it needs only (as
        // `Memory` does): the tools see an index as wide as the array, and the upper bits,
        // constant zero for a user that stays below `depth`, go to an `unused_` wire.
        let depth = self._words.len();
        let used_bits = (usize::BITS - (depth - 1).leading_zeros()).max(1) as usize;
        let reads = self.read_address.len();
        let (index, unused) = if used_bits < ADDRESS_BITS {
            let top = ADDRESS_BITS - 1;
            let upper: Vec<String> = std::iter::once("write_address".to_string())
                .chain((0..reads).map(|r| format!("read_address${r}")))
                .map(|name| format!("{name}[{top}:{used_bits}]"))
                .collect();
            (
                format!("[{}:0]", used_bits - 1),
                format!("wire unused_address = ^{{{}}};\n", upper.join(", ")),
            )
        } else {
            (String::new(), String::new())
        };
        // Bits above the stored ones are written zero by the user and read as zero.
        let bits = self._bits;
        let (stored, unused_data, zeros) = if bits < T::BITS {
            (
                format!("[{}:0]", bits - 1),
                format!("wire unused_data = ^write_data[{}:{bits}];\n", T::BITS - 1),
                format!("{}'b0, ", T::BITS - bits),
            )
        } else {
            (String::new(), String::new(), String::new())
        };
        let read: String = (0..reads)
            .map(|r| format!("assign read_data${r} = {{{zeros}words[read_address${r}{index}]}};\n"))
            .collect();
        Verilog::Custom(format!(
            "\
reg [{top_bit}:0] words [0:{last_word}];
integer word;
{unused}{unused_data}
initial begin
   for (word = 0; word <= {last_word}; word = word + 1) begin
      words[word] = 0;
   end
end

always @(posedge clock) begin
   if (write_enable) begin
      words[write_address{index}] <= write_data{stored};
   end
end

{read}",
            top_bit = bits - 1,
            last_word = depth - 1,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rising_edge, settle, Random, Verilated};

    /// Seeded random writes and reads on `reads` ports of a `depth`-word memory: in every cycle
    /// each `read_data` is the word the reference holds at its address (before the edge), in
    /// rust-hdl's simulation; after every edge, the emitted Verilog run by Verilator shows the
    /// same words at the same addresses (so the write of that edge is seen).
    fn reads_what_was_written<const ADDRESS_BITS: usize>(depth: usize, reads: usize, seed: u64) {
        let mut uut = LutRam::<Bits<32>, ADDRESS_BITS>::new(depth, reads);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut verilated = Verilated::new(&uut);
        let mut words = vec![0u64; depth];
        let mut random = Random::new(seed);
        let mut reads_of_written = 0;
        for cycle in 0..2000 {
            let write = random.chance(50);
            let address = random.below(depth as u64);
            let data = random.next_u64() & 0xFFFF_FFFF;
            let read: Vec<u64> = (0..reads).map(|_| random.below(depth as u64)).collect();
            uut.write_enable.next = write;
            uut.write_address.next = address.to_bits();
            uut.write_data.next = data.to_bits();
            for (port, &at) in uut.read_address.iter_mut().zip(&read) {
                port.next = at.to_bits();
            }
            settle(&mut uut);
            for (r, &at) in read.iter().enumerate() {
                let want = words[at as usize];
                reads_of_written += usize::from(want != 0);
                assert_eq!(
                    uut.read_data[r].val().to_u64(),
                    want,
                    "port {r}, cycle {cycle}"
                );
            }
            rising_edge(&mut uut, |u| &mut u.clock);
            if write {
                words[address as usize] = data;
            }
            let inputs: Vec<u64> = [u64::from(write), address, data]
                .into_iter()
                .chain(read.iter().copied())
                .collect();
            let after: Vec<u64> = read.iter().map(|&at| words[at as usize]).collect();
            let simulated: Vec<u64> = uut.read_data.iter().map(|d| d.val().to_u64()).collect();
            assert_eq!(simulated, after, "after the edge, cycle {cycle}");
            assert_eq!(verilated.cycle(&inputs), after, "Verilog, cycle {cycle}");
        }
        assert!(reads_of_written > 1000 * reads, "{reads_of_written}");
    }

    #[test]
    fn one_read_port_of_sixteen_words() {
        reads_what_was_written::<4>(16, 1, 16);
    }

    /// Five words (not a power of two) under an address of four bits, read by three ports.
    #[test]
    fn three_read_ports_narrower_than_the_address() {
        reads_what_was_written::<4>(5, 3, 5);
    }

    /// Six of eight bits stored: a user that writes zero above them reads what it wrote, in the
    /// emitted Verilog under Verilator.
    #[test]
    fn narrow_words() {
        let mut uut = LutRam::<Bits<8>, 2>::narrow(4, 2, 6);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut verilated = Verilated::new(&uut);
        let mut words = [0u64; 4];
        let mut random = Random::new(6);
        for cycle in 0..500 {
            let (address, data) = (random.below(4), random.below(64));
            let read = [random.below(4), random.below(4)];
            words[address as usize] = data;
            let inputs = [1, address, data, read[0], read[1]];
            let want = read.map(|at| words[at as usize]);
            assert_eq!(verilated.cycle(&inputs), want, "Verilog, cycle {cycle}");
        }
    }

    #[test]
    #[should_panic(expected = "cannot be addressed")]
    fn address_too_narrow() {
        LutRam::<Bits<8>, 3>::new(9, 1);
    }
}
