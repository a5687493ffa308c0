//! A synchronous first-word-fall-through FIFO with stream ports (like pulp-platform
//! common_cells' `fifo_v3` with `FALL_THROUGH = 0`), and the memory it stores its words in.
//!
//! [`Fifo`] ports (Verilog names):
//!
//! | port | dir | width | |
//! |------|-----|-------|-|
//! | `clock` | in | 1 | |
//! | `push_valid` | in | 1 | a word is offered |
//! | `push_data` | in | `T` | the word |
//! | `push_ready` | out | 1 | not full: the word is taken at the edge if `push_valid` |
//! | `pop_valid` | out | 1 | not empty: `pop_data` is the oldest word |
//! | `pop_data` | out | `T` | the oldest word (else its slot's old word, 0 if never written) |
//! | `pop_ready` | in | 1 | the word is taken at the edge if `pop_valid` |
//! | `count` | out | `COUNT_BITS` | the words stored |
//!
//! Timing: `push_ready`, `pop_valid`, `count` and `pop_data` are registers (`pop_data` is the
//! memory's read register), so no output depends combinationally on an input. A word pushed in
//! cycle `t` (taken at edge `t`) is at the pop side in `O_t`: one cycle from push to pop, also
//! into an empty FIFO. A FIFO full in cycle `t` takes no push in cycle `t` even if it pops then
//! (`push_ready` reads only registers, which keeps the producer's path short); otherwise a push
//! and a pop in one cycle both happen. The one combinational path into the storage is
//! `pop_ready` to the memory's read address (the pointer after the edge). Power-on: empty,
//! `count` 0, `pop_data` 0.
//!
//! Parameters: `T` (the word, any [`Synth`] type), `ADDRESS_BITS` (the pointers), `COUNT_BITS`,
//! and the depth given to [`Fifo::new`]: 1 to `2^ADDRESS_BITS` words and below `2^COUNT_BITS`.
//! Any depth: the pointers wrap at `depth - 1`, so 12 words cost 12 words of storage, not 16.
//!
//! Storage: a [`TransparentMemory`], which yosys builds from block RAM, LUT RAM or flip-flops by
//! its cost model or as asked ([`MemoryStyle`]). Measured (yosys 0.23 `synth_ice40`, YoWASP
//! yosys `synth_ecp5`; `docs/cells.md` has the table): 16 x 4 bits is 106 LUT4 and 83
//! flip-flops on iCE40, which has no LUT RAM (42 LUT4 and one `SB_RAM40_4K` if asked for block
//! RAM), and one `TRELLIS_DPR16X4` on ECP5; 12 x 35 bits takes three `SB_RAM40_4K` and 75 LUT4
//! on iCE40 (not 420 flip-flops); 512 x 8 bits one `SB_RAM40_4K` and 98 LUT4, or one `DP16KD`
//! on ECP5. The flags' compares with constants beside the count's adder cost 3 to 10 LUT4 of
//! those (they were compares of the adder's sum).
//!
//! rust-hdl's own `SynchronousFIFO` is not reused: its depth is a power of two, a pushed word
//! reaches its output two cycles later (it delays the write pointer a cycle because its RAM's
//! read is not transparent), and it is larger (124 iCE40 LUT4 at 16 x 4 bits, 98 LUT4 at 512 x
//! 8 bits against 98 and 88 here); its `RegisterFIFO` holds one word and cannot be pushed
//! while full even when popped.

use rust_hdl::prelude::*;

/// How yosys is asked to build a [`TransparentMemory`] (its `ram_style` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryStyle {
    /// No attribute: yosys picks by its cost model.
    Automatic,
    /// `ram_style = "logic"`: flip-flops and multiplexers.
    Registers,
    /// `ram_style = "distributed"`: LUT RAM (ECP5); yosys refuses it on iCE40, which has none.
    Distributed,
    /// `ram_style = "block"`: block RAM (`SB_RAM40_4K`, `DP16KD`); yosys refuses it for one word.
    Block,
}

/// A memory of `depth` words with one write port and one registered read port, transparent
/// ([`Memory::new`], also named [`TransparentMemory`]) or for a user whose reads never meet its
/// writes ([`Memory::block`]).
///
/// Ports: `clock` (in), `write_enable` (in, 1), `write_address` (in, `ADDRESS_BITS`),
/// `write_data` (in, `T`), `read_address` (in, `ADDRESS_BITS`), `read_data` (out, `T`).
/// Timing: at a rising edge with `write_enable`, word `write_address` takes `write_data`, and
/// `read_data` (a register) takes word `read_address`. An address at or past `depth` reads zero
/// in rust-hdl's simulation and is not defined in Verilog. Every word is zero at power-on.
///
/// - **Transparent** ([`Memory::new`]): `read_data` takes the word as it is after the edge, the
///   word written at that edge when the addresses are equal. So a user that gives the address
///   its pointer will hold after the edge sees `read_data` as the memory read at that pointer,
///   one cycle sooner than a plain block RAM read. `read_data` is zero at power-on.
/// - **Block** ([`Memory::block`]): for a user that never reads a word at the edge that writes
///   it, or ignores what such a read gives: what `read_data` takes then is not defined (rust-hdl's
///   simulation and Verilog simulators give the word before the edge), and yosys is told so
///   (`no_rw_check`). `read_data` has no power-on value in hardware until the first edge (zero
///   in simulation).
///
/// Why these forms: block RAMs (`SB_RAM40_4K`, `DP16KD`) read only through a register, so a
/// combinational read can never use them (yosys maps a 512-word FIFO read that way to 4,096
/// iCE40 flip-flops). Written as here, yosys picks block RAM, LUT RAM or flip-flops by its cost
/// model or by the [`MemoryStyle`] asked. A transparent read costs a bypass around block RAM,
/// a register of the written word and a multiplexer (measured, 16 x 32 bits: 37 LUT4 and 33
/// flip-flops on ECP5, 36 LUT4 and 34 flip-flops on iCE40, beside the block RAM), and a
/// read-first one as much again; the block form is one `DP16KD`, or two `SB_RAM40_4K` and one
/// LUT4, and nothing else.
#[derive(LogicBlock)]
pub struct Memory<T: Synth, const ADDRESS_BITS: usize> {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<ADDRESS_BITS>>,
    pub write_data: Signal<In, T>,
    pub read_address: Signal<In, Bits<ADDRESS_BITS>>,
    pub read_data: Signal<Out, T>,
    /// The words, for rust-hdl's simulation.
    _words: Vec<T>,
    _style: MemoryStyle,
    _read: ReadPort,
}

/// The transparent memory (the FIFO's): [`Memory::new`].
pub type TransparentMemory<T, const ADDRESS_BITS: usize> = Memory<T, ADDRESS_BITS>;

/// How a memory's read port sees a word written at the same edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadPort {
    /// The word as written at the edge.
    Transparent,
    /// Its user never reads a word written at the same edge, or ignores what it reads then;
    /// simulated as the word before the edge.
    Unrelated,
}

impl<T: Synth, const ADDRESS_BITS: usize> Memory<T, ADDRESS_BITS> {
    /// A transparent memory of `depth` words (1 to `2^ADDRESS_BITS`), built in the `style`
    /// asked of yosys.
    pub fn new(depth: usize, style: MemoryStyle) -> Self {
        Self::with_read(depth, style, ReadPort::Transparent)
    }

    /// A block-RAM memory of `depth` words (2 to `2^ADDRESS_BITS`: yosys builds no block RAM
    /// of one) whose user never reads a word at the edge that writes it.
    pub fn block(depth: usize) -> Self {
        assert!(depth >= 2, "Memory: block RAM of {depth} words");
        Self::with_read(depth, MemoryStyle::Block, ReadPort::Unrelated)
    }

    fn with_read(depth: usize, style: MemoryStyle, read: ReadPort) -> Self {
        assert!(
            depth >= 1 && ADDRESS_BITS < usize::BITS as usize && depth <= 1 << ADDRESS_BITS,
            "Memory: {depth} words cannot be addressed by {ADDRESS_BITS} bits"
        );
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _words: vec![T::default(); depth],
            _style: style,
            _read: read,
        }
    }
}

impl<T: Synth, const ADDRESS_BITS: usize> Logic for Memory<T, ADDRESS_BITS> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let before = self
                ._words
                .get(self.read_address.val().index())
                .copied()
                .unwrap_or_default();
            if self.write_enable.val() {
                if let Some(word) = self._words.get_mut(self.write_address.val().index()) {
                    *word = self.write_data.val();
                }
            }
            self.read_data.next = match self._read {
                ReadPort::Transparent => self
                    ._words
                    .get(self.read_address.val().index())
                    .copied()
                    .unwrap_or_default(),
                ReadPort::Unrelated => before,
            };
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let style = match self._style {
            MemoryStyle::Automatic => None,
            MemoryStyle::Registers => Some("ram_style = \"logic\""),
            MemoryStyle::Distributed => Some("ram_style = \"distributed\""),
            MemoryStyle::Block => Some("ram_style = \"block\""),
        };
        // `no_rw_check` tells yosys that a read meeting a write needs no particular word, so
        // block RAM serves alone: no bypass around it, and no power-on value for `read_data`,
        // which block RAM output registers do not take on every family.
        let (check, read_data_initial, read) = match self._read {
            ReadPort::Transparent => (
                None,
                "   read_data = 0;\n",
                "   if (write_enable && write_address == read_address) begin
      read_data <= write_data;
   end else begin
      read_data <= words[read_address];
   end",
            ),
            ReadPort::Unrelated => (
                Some("no_rw_check"),
                "",
                "   read_data <= words[read_address];",
            ),
        };
        // A depth below 2^ADDRESS_BITS is indexed by the address bits it needs only, so the
        // tools see an index as wide as the array (yosys then builds only `depth` words); the
        // upper bits, constant zero for a user that stays below `depth`, are read into an
        // `unused_` wire (lowRISC's idiom, which Verilator's default `--unused-regexp` knows).
        let used_bits = (usize::BITS - (self._words.len() - 1).leading_zeros()).max(1) as usize;
        let (index, unused) = if used_bits < ADDRESS_BITS {
            (
                format!("[{}:0]", used_bits - 1),
                format!(
                    "wire unused_address = ^{{write_address[{top}:{used_bits}], \
read_address[{top}:{used_bits}]}};\n",
                    top = ADDRESS_BITS - 1
                ),
            )
        } else {
            (String::new(), String::new())
        };
        let read = read.replace("_address]", &format!("_address{index}]"));
        let attributes: Vec<&str> = style.into_iter().chain(check).collect();
        let attribute = if attributes.is_empty() {
            String::new()
        } else {
            format!("(* {} *)\n", attributes.join(", "))
        };
        Verilog::Custom(format!(
            "\
{attribute}reg [{top_bit}:0] words [0:{last_word}];
integer word;
{unused}
initial begin
   for (word = 0; word <= {last_word}; word = word + 1) begin
      words[word] = 0;
   end
{read_data_initial}end

always @(posedge clock) begin
   if (write_enable) begin
      words[write_address{index}] <= write_data;
   end
{read}
end
",
            top_bit = T::BITS - 1,
            last_word = self._words.len() - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "memory".into(),
            clock: "clock".into(),
            inputs: vec![
                "write_enable".into(),
                "write_address".into(),
                "write_data".into(),
                "read_address".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}

/// A first-word-fall-through FIFO: see the module documentation for ports and timing.
#[derive(LogicBlock)]
pub struct Fifo<T: Synth, const ADDRESS_BITS: usize, const COUNT_BITS: usize> {
    pub clock: Signal<In, Clock>,
    pub push_valid: Signal<In, Bit>,
    pub push_data: Signal<In, T>,
    pub push_ready: Signal<Out, Bit>,
    pub pop_valid: Signal<Out, Bit>,
    pub pop_data: Signal<Out, T>,
    pub pop_ready: Signal<In, Bit>,
    pub count: Signal<Out, Bits<COUNT_BITS>>,
    memory: TransparentMemory<T, ADDRESS_BITS>,
    write_pointer: DFF<Bits<ADDRESS_BITS>>,
    read_pointer: DFF<Bits<ADDRESS_BITS>>,
    stored: DFF<Bits<COUNT_BITS>>,
    /// Not empty: `pop_valid`.
    has_word: DFF<Bit>,
    /// `!push_ready`, kept this way round because registers power on at zero.
    full: DFF<Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    read_next: Signal<Local, Bits<ADDRESS_BITS>>,
    stored_next: Signal<Local, Bits<COUNT_BITS>>,
    first_address: Constant<Bits<ADDRESS_BITS>>,
    last_address: Constant<Bits<ADDRESS_BITS>>,
    /// One word stored; one word short of full.
    one_word: Constant<Bits<COUNT_BITS>>,
    one_short: Constant<Bits<COUNT_BITS>>,
}

impl<T: Synth, const ADDRESS_BITS: usize, const COUNT_BITS: usize>
    Fifo<T, ADDRESS_BITS, COUNT_BITS>
{
    /// A FIFO of `depth` words stored as yosys picks ([`MemoryStyle::Automatic`]).
    pub fn new(depth: usize) -> Self {
        Self::with_style(depth, MemoryStyle::Automatic)
    }

    /// A FIFO of `depth` words whose memory is built in `style`; panics unless
    /// `1 <= depth <= 2^ADDRESS_BITS` and `depth < 2^COUNT_BITS`.
    pub fn with_style(depth: usize, style: MemoryStyle) -> Self {
        assert!(
            COUNT_BITS < usize::BITS as usize && depth < 1 << COUNT_BITS,
            "Fifo: a count of {COUNT_BITS} bits cannot reach the depth {depth}"
        );
        Self {
            clock: Default::default(),
            push_valid: Default::default(),
            push_data: Default::default(),
            push_ready: Default::default(),
            pop_valid: Default::default(),
            pop_data: Default::default(),
            pop_ready: Default::default(),
            count: Default::default(),
            memory: TransparentMemory::new(depth, style),
            write_pointer: Default::default(),
            read_pointer: Default::default(),
            stored: Default::default(),
            has_word: Default::default(),
            full: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            read_next: Default::default(),
            stored_next: Default::default(),
            first_address: Constant::new(Bits::default()),
            last_address: Constant::new((depth - 1).to_bits()),
            one_word: Constant::new(1usize.to_bits()),
            one_short: Constant::new((depth - 1).to_bits()),
        }
    }
}

impl<T: Synth, const ADDRESS_BITS: usize, const COUNT_BITS: usize> Logic
    for Fifo<T, ADDRESS_BITS, COUNT_BITS>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            write_pointer,
            read_pointer,
            stored,
            has_word,
            full
        );
        self.memory.clock.next = self.clock.val();
        self.push.next = self.push_valid.val() & !self.full.q.val();
        self.pop.next = self.pop_ready.val() & self.has_word.q.val();
        self.memory.write_enable.next = self.push.val();
        self.memory.write_address.next = self.write_pointer.q.val();
        self.memory.write_data.next = self.push_data.val();
        if self.push.val() {
            if self.write_pointer.q.val() == self.last_address.val() {
                self.write_pointer.d.next = self.first_address.val();
            } else {
                self.write_pointer.d.next = self.write_pointer.q.val() + true;
            }
        }
        // The memory reads at the pointer as it will be after the edge, so that pop_data is the
        // memory's output register and needs no cycle of its own.
        self.read_next.next = self.read_pointer.q.val();
        if self.pop.val() {
            if self.read_pointer.q.val() == self.last_address.val() {
                self.read_next.next = self.first_address.val();
            } else {
                self.read_next.next = self.read_pointer.q.val() + true;
            }
        }
        self.read_pointer.d.next = self.read_next.val();
        self.memory.read_address.next = self.read_next.val();
        self.stored_next.next = self.stored.q.val()
            + bit_cast::<COUNT_BITS, 1>(self.push.val().into())
            - bit_cast::<COUNT_BITS, 1>(self.pop.val().into());
        self.stored.d.next = self.stored_next.val();
        // The flags from the count before the edge (compared with constants) and one LUT of
        // `push` and `pop`, not from the count after it: the adder stays off the path from a
        // user's `push_valid` and `pop_ready` (on the iCE40 the node's critical path ran from
        // the receive path's action through it into `full`). A full FIFO takes no push, an
        // empty one gives no pop.
        self.has_word.d.next = self.push.val()
            | (self.has_word.q.val()
                & !(self.pop.val() & (self.stored.q.val() == self.one_word.val())));
        self.full.d.next = (self.full.q.val() & !self.pop.val())
            | (self.push.val() & !self.pop.val() & (self.stored.q.val() == self.one_short.val()));
        self.push_ready.next = !self.full.q.val();
        self.pop_valid.next = self.has_word.q.val();
        self.pop_data.next = self.memory.read_data.val();
        self.count.next = self.stored.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rising_edge, settle, Verilated};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The reference: the FIFO's storage, pointers and count, stepped one cycle at a time.
    struct Reference {
        words: Vec<u64>,
        write: usize,
        read: usize,
        count: usize,
    }

    impl Reference {
        /// One cycle with these inputs: whether a word was pushed and whether one was popped.
        fn cycle(&mut self, push_valid: bool, push_data: u64, pop_ready: bool) -> (bool, bool) {
            let depth = self.words.len();
            let push = push_valid && self.count < depth;
            let pop = pop_ready && self.count > 0;
            if push {
                self.words[self.write] = push_data;
                self.write = (self.write + 1) % depth;
            }
            if pop {
                self.read = (self.read + 1) % depth;
            }
            self.count = self.count + usize::from(push) - usize::from(pop);
            (push, pop)
        }
    }

    /// `cycles` cycles of seeded random pushes and pops, in phases that lean to filling or to
    /// draining so that the FIFO is often full and often empty; every output is compared with
    /// the reference in every cycle, and after every edge with the emitted Verilog run by
    /// Verilator. Returns how many cycles it was full and empty.
    fn against_reference<const ADDRESS_BITS: usize, const COUNT_BITS: usize>(
        depth: usize,
        cycles: usize,
        seed: u64,
    ) -> (usize, usize) {
        let mut uut = Fifo::<Bits<8>, ADDRESS_BITS, COUNT_BITS>::new(depth);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut verilated = Verilated::new(&uut);
        let mut reference = Reference {
            words: vec![0; depth],
            write: 0,
            read: 0,
            count: 0,
        };
        let mut random = ChaCha8Rng::seed_from_u64(seed);
        let (mut push_odds, mut pop_odds) = (0.5, 0.5);
        let (mut full, mut empty) = (0, 0);
        for cycle in 0..cycles {
            if cycle % 32 == 0 {
                push_odds = [0.1, 0.5, 0.9][random.gen_range(0..3)];
                pop_odds = [0.1, 0.5, 0.9][random.gen_range(0..3)];
            }
            let push_valid = random.gen_bool(push_odds);
            let push_data = random.gen_range(0..256);
            let pop_ready = random.gen_bool(pop_odds);
            uut.push_valid.next = push_valid;
            uut.push_data.next = push_data.to_bits();
            uut.pop_ready.next = pop_ready;
            settle(&mut uut);
            let at = format!("depth {depth}, cycle {cycle}");
            assert_eq!(uut.count.val().index(), reference.count, "count, {at}");
            assert_eq!(
                uut.push_ready.val(),
                reference.count < depth,
                "push_ready, {at}"
            );
            assert_eq!(uut.pop_valid.val(), reference.count > 0, "pop_valid, {at}");
            let head = reference.words[reference.read];
            assert_eq!(uut.pop_data.val().to_u64(), head, "pop_data, {at}");
            full += usize::from(reference.count == depth);
            empty += usize::from(reference.count == 0);
            reference.cycle(push_valid, push_data, pop_ready);
            rising_edge(&mut uut, |u| &mut u.clock);
            let inputs = [push_valid.into(), push_data, pop_ready.into()];
            let simulated = [
                uut.push_ready.val().into(),
                uut.pop_valid.val().into(),
                uut.pop_data.val().to_u64(),
                uut.count.val().to_u64(),
            ];
            assert_eq!(verilated.cycle(&inputs), simulated, "Verilog, {at}");
        }
        (full, empty)
    }

    /// A block-RAM memory of 12 words (not a power of two) under seeded random writes and reads
    /// that never meet at one address in one cycle, as its users promise: `read_data` after
    /// every edge is the word the reference holds, in rust-hdl's simulation and in the emitted
    /// Verilog under Verilator.
    #[test]
    fn a_block_memory_reads_what_was_written() {
        reads_what_was_written::<4>(12);
    }

    /// Addressed by more bits than its depth needs (as the RMPP receive path sizes its buffer
    /// to the configuration under an address as wide as the largest): Verilator sees the array
    /// indexed by the bits it needs (its lint would fail otherwise, and it runs here).
    #[test]
    fn a_block_memory_narrower_than_its_address() {
        reads_what_was_written::<8>(12);
    }

    fn reads_what_was_written<const ADDRESS_BITS: usize>(depth: usize) {
        let mut uut = Memory::<Bits<32>, ADDRESS_BITS>::block(depth);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut verilated = Verilated::new(&uut);
        let mut words = vec![0u64; depth];
        let mut random = ChaCha8Rng::seed_from_u64(12);
        let mut reads_of_written = 0;
        for cycle in 0..3000 {
            let read = random.gen_range(0..depth as u64);
            let write = random.gen_bool(0.5);
            let mut address = random.gen_range(0..depth as u64);
            if address == read {
                address = (address + 1) % depth as u64;
            }
            let data = random.gen::<u32>() as u64;
            uut.write_enable.next = write;
            uut.write_address.next = address.to_bits();
            uut.write_data.next = data.to_bits();
            uut.read_address.next = read.to_bits();
            rising_edge(&mut uut, |u| &mut u.clock);
            let want = words[read as usize];
            reads_of_written += usize::from(want != 0);
            if write {
                words[address as usize] = data;
            }
            let inputs = [u64::from(write), address, data, read];
            assert_eq!(uut.read_data.val().to_u64(), want, "cycle {cycle}");
            assert_eq!(verilated.cycle(&inputs), [want], "Verilog, cycle {cycle}");
        }
        assert!(reads_of_written > 2000, "{reads_of_written}");
    }

    #[test]
    fn depth_one() {
        let (full, empty) = against_reference::<1, 1>(1, 500, 1);
        assert!(full > 50 && empty > 50, "full {full}, empty {empty}");
    }

    #[test]
    fn depth_three() {
        let (full, empty) = against_reference::<2, 2>(3, 1500, 3);
        assert!(full > 50 && empty > 50, "full {full}, empty {empty}");
    }

    #[test]
    fn depth_sixteen() {
        let (full, empty) = against_reference::<4, 5>(16, 3000, 16);
        assert!(full > 50 && empty > 50, "full {full}, empty {empty}");
    }

    #[test]
    #[should_panic(expected = "cannot reach the depth")]
    fn count_too_narrow() {
        Fifo::<Bits<8>, 4, 4>::new(16);
    }

    #[test]
    #[should_panic(expected = "cannot be addressed")]
    fn address_too_narrow() {
        Fifo::<Bits<8>, 3, 5>::new(9);
    }
}
