//! The one-hot multiplexer: the word of the input whose select bit is set, as an AND-OR tree.
//!
//! Ports (Verilog names; `$i` is an input):
//!
//! | port | dir | width | |
//! |------|-----|-------|-|
//! | `select$i` | in | 1 | input `i` is the one chosen; at most one is set (a [`FirstSet`]'s `one_hot`) |
//! | `data$i` | in | `WIDTH` | input `i`'s word |
//! | `word` | out | `WIDTH` | the chosen input's word; zero when no select is set, the OR of the chosen words when several are |
//!
//! Timing: combinational, no clock.
//!
//! Parameters: `WIDTH` (1 to 128) and the number of inputs (1 to 64), checked by
//! [`OneHotMux::new`].
//!
//! Why a cell: the plain way to write a one-hot choice in rust-hdl, `for i { if select[i] {
//! word = data[i] } }`, emits a chain of `if`s, and yosys keeps it as a chain of two-input
//! multiplexers in priority order, one level an input, because it cannot know that the selects
//! exclude each other. An OR of `select[i] ? data[i] : 0` says that they do, and abc balances
//! it: 8 inputs x 32 bits take 160 LUT4 in two levels against 256 LUT4 in eight for the chain
//! (yosys 0.23 `synth_ice40`, `docs/cells.md`; 4 inputs cost the same either way). Where the
//! select is a [`FirstSet`]'s `one_hot`, the two together are a priority choice again, and abc
//! may still map them as a chain: in the ECP5 node the NI's pick kept its seven chained LUT4
//! after the change (the NI lost 77 LUT4 there); what shortened that path was starting it
//! from a register (the receive slots' due mask).
//!
//! [`FirstSet`]: crate::first_set::FirstSet

use rust_hdl::prelude::*;

use crate::vec_of;

/// A one-hot multiplexer of `WIDTH`-bit words: see the module documentation.
#[derive(LogicBlock)]
pub struct OneHotMux<const WIDTH: usize> {
    pub select: Vec<Signal<In, Bit>>,
    pub data: Vec<Signal<In, Bits<WIDTH>>>,
    pub word: Signal<Out, Bits<WIDTH>>,
    /// One input's share of `word`: its word if chosen, else zero.
    share: Signal<Local, Bits<WIDTH>>,
    none: Constant<Bits<WIDTH>>,
    _inputs: usize,
}

impl<const WIDTH: usize> OneHotMux<WIDTH> {
    /// A multiplexer of `inputs` words; panics unless `1 <= WIDTH <= 128` and `1 <= inputs <=
    /// 64`.
    pub fn new(inputs: usize) -> Self {
        assert!(
            (1..=128).contains(&WIDTH),
            "OneHotMux: WIDTH {WIDTH} is not in 1..=128"
        );
        assert!(
            (1..=64).contains(&inputs),
            "OneHotMux: {inputs} inputs (1 to 64)"
        );
        Self {
            select: vec_of(inputs),
            data: vec_of(inputs),
            word: Default::default(),
            share: Default::default(),
            none: Constant::new(Bits::default()),
            _inputs: inputs,
        }
    }
}

impl<const WIDTH: usize> Logic for OneHotMux<WIDTH> {
    #[hdl_gen]
    fn update(&mut self) {
        self.word.next = self.none.val();
        for i in 0..self._inputs {
            self.share.next = self.none.val();
            if self.select[i].val() {
                self.share.next = self.data[i].val();
            }
            self.word.next = self.word.val() | self.share.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{settle, Random};

    /// Every single select and none, and random pairs (their OR), against the reference, with
    /// random words.
    fn check<const WIDTH: usize>(inputs: usize, seed: u64) {
        let mut uut = OneHotMux::<WIDTH>::new(inputs);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut random = Random::new(seed);
        let all = if WIDTH >= 64 {
            u64::MAX
        } else {
            (1 << WIDTH) - 1
        };
        let mut selections: Vec<u64> = (0..inputs).map(|i| 1 << i).collect();
        selections.push(0);
        selections.extend(
            (0..40).map(|_| 1 << random.below(inputs as u64) | 1 << random.below(inputs as u64)),
        );
        for selection in selections {
            let words: Vec<u64> = (0..inputs).map(|_| random.next_u64() & all).collect();
            for (i, word) in words.iter().enumerate() {
                uut.select[i].next = selection >> i & 1 == 1;
                uut.data[i].next = word.to_bits();
            }
            settle(&mut uut);
            let want = (0..inputs)
                .filter(|&i| selection >> i & 1 == 1)
                .fold(0, |word, i| word | words[i]);
            assert_eq!(uut.word.val().to_u64(), want, "select {selection:#b}");
        }
    }

    #[test]
    fn the_chosen_word() {
        check::<32>(8, 1);
        check::<39>(4, 2);
        check::<1>(1, 3);
        check::<16>(13, 4);
    }

    #[test]
    #[should_panic(expected = "inputs")]
    fn no_inputs() {
        OneHotMux::<8>::new(0);
    }
}
