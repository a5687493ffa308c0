//! The reading end of a request stream (docs/protocol.md §8.5; the framer's packet stream of
//! §13.1 is read the same way): which request a taken beat belongs to, its place in it, and
//! whether the request is well formed.
//!
//! Ports (Verilog names):
//!
//! | port | dir | width | |
//! |------|-----|-------|-|
//! | `clock` | in | 1 | |
//! | `taken` | in | 1 | a beat is taken at this edge (the parent's `valid` and `ready`) |
//! | `last` | in | 1 | the beat's `last` bit |
//! | `length` | in | 6 | the request's payload bytes, read on its first beat only |
//! | `first` | out | 1 | a beat taken now is a request's first |
//! | `beat` | out | `BEAT_BITS` | its index in the request: 0 on the first, counting while well formed |
//! | `bytes` | out | 6 | the request's payload bytes: `length` on the first beat, as latched after it |
//! | `final_beat` | out | 1 | the beat is the request's final one by its length (`last` belongs on it): with no header beats, a word before it holds four of the request's bytes and the word on it `bytes mod 4` (four if that is 0, none if `bytes` is 0), so a parent masks the bytes past the length with no subtraction |
//! | `accepted` | out | 1 | a beat taken now belongs to a request well formed so far: its word may be stored |
//! | `refused` | out | 1 | taken, and it shows the request is not well formed (counted once, here) |
//! | `complete` | out | 1 | taken, the last beat of a well-formed request |
//!
//! A request is the beats from the first one after power-on, or after the previous request's
//! last beat, up to and including the next with `last`: `header_beats` header words (a
//! parameter; none for the NI's requests, five for the framer's packets, §13.1), then the
//! payload words. It is well formed when `bytes <= 32` and `last` is on its final beat and no
//! earlier one: beat `max(1, ceil(bytes / 4)) - 1` with no header beats (a request of no bytes
//! still has one beat), `header_beats + ceil(bytes / 4) - 1` with some. It is refused at the
//! first beat that shows it is not (its first if `bytes > 32`, an early `last`, the final beat
//! without `last`), and its further beats up to `last` are taken and neither accepted nor
//! refused again.
//!
//! Timing: every output is combinational from `taken`, `last`, `length` and the registers
//! (`state`, the latched `beat`, `bytes` and final beat); the cell acts at the edge that takes
//! the beat. No adder lies between the ports and `complete`: the final beat of a request is
//! latched from `length` at its first beat, and only compared with the beat counter after it. A
//! parent stores beat `beat` of a request while `accepted`, commits it at `complete` and counts
//! `refused`, all at that edge. Power-on: between requests.
//!
//! Parameters: `BEAT_BITS` wide enough for the final beat's index (3 with no header beats, 4
//! for the framer's five), `header_beats`; checked by [`RequestReader::new`].

use rust_hdl::prelude::*;

/// Where the stream stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum RequestState {
    /// The next beat taken is a request's first.
    Between,
    /// A request well formed so far: its bytes are latched, its next beat counted.
    Taking,
    /// A refused request whose `last` has not come: its beats are taken and ignored.
    Refusing,
}

/// Reads a request stream: see the module documentation for ports and timing.
#[derive(LogicBlock)]
pub struct RequestReader<const BEAT_BITS: usize> {
    pub clock: Signal<In, Clock>,
    pub taken: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub length: Signal<In, Bits<6>>,
    pub first: Signal<Out, Bit>,
    pub beat: Signal<Out, Bits<BEAT_BITS>>,
    pub bytes: Signal<Out, Bits<6>>,
    pub final_beat: Signal<Out, Bit>,
    pub accepted: Signal<Out, Bit>,
    pub refused: Signal<Out, Bit>,
    pub complete: Signal<Out, Bit>,
    state: DFF<RequestState>,
    latched_beat: DFF<Bits<BEAT_BITS>>,
    latched_bytes: DFF<Bits<6>>,
    /// The index of the request's final beat, latched at its first beat.
    latched_final: DFF<Bits<6>>,
    /// The index of the final beat of a request of `length` bytes (at most 32).
    final_index: Signal<Local, Bits<6>>,
    /// The beat taken now is the request's final one by its length.
    ends_here: Signal<Local, Bit>,
    /// The beat taken now is not the one the request ends on, or is past a too long length.
    malformed: Signal<Local, Bit>,
    first_beat: Constant<Bits<BEAT_BITS>>,
    /// The fewest bytes whose final beat is `(length - 1) / 4`; fewer have one beat.
    first_final_bytes: Constant<Bits<6>>,
    /// The most bytes of a request of one beat with no header beats.
    one_beat_bytes: Constant<Bits<6>>,
    /// The final beat's index of a request of no bytes: `max(1, header_beats) - 1`.
    empty_final: Constant<Bits<6>>,
    /// The header beats, which the final beat's index of a request of some bytes adds to
    /// `(bytes - 1) / 4`.
    header_beats: Constant<Bits<6>>,
    /// No header beats: a first beat of at most four bytes is the final one.
    no_header: Constant<Bit>,
    /// One header beat: a first beat of no bytes is the final one. (With more, no first beat
    /// is.)
    one_header: Constant<Bit>,
    most_bytes: Constant<Bits<6>>,
    /// The bits of a length at or above `one_beat_bytes` and `most_bytes` (powers of two): the
    /// compares with them are masks and equalities, where Debian's yosys 0.23 builds a carry
    /// chain for each.
    from_one_beat: Constant<Bits<6>>,
    from_most: Constant<Bits<6>>,
}

impl<const BEAT_BITS: usize> RequestReader<BEAT_BITS> {
    /// The reader of requests that begin with `header_beats` header words; panics if
    /// `BEAT_BITS` cannot count the beats of the longest.
    pub fn new(header_beats: usize) -> Self {
        let longest = header_beats + 8;
        assert!(
            BEAT_BITS < 8 && longest <= 1 << BEAT_BITS,
            "RequestReader: {BEAT_BITS} beat bits cannot count {longest} beats"
        );
        Self {
            clock: Default::default(),
            taken: Default::default(),
            last: Default::default(),
            length: Default::default(),
            first: Default::default(),
            beat: Default::default(),
            bytes: Default::default(),
            final_beat: Default::default(),
            accepted: Default::default(),
            refused: Default::default(),
            complete: Default::default(),
            state: Default::default(),
            latched_beat: Default::default(),
            latched_bytes: Default::default(),
            latched_final: Default::default(),
            final_index: Default::default(),
            ends_here: Default::default(),
            malformed: Default::default(),
            first_beat: Constant::new(Bits::default()),
            first_final_bytes: Constant::new(Bits::from(1)),
            one_beat_bytes: Constant::new(Bits::from(4)),
            empty_final: Constant::new(Bits::from(header_beats.max(1) as u64 - 1)),
            header_beats: Constant::new(Bits::from(header_beats as u64)),
            no_header: Constant::new(header_beats == 0),
            one_header: Constant::new(header_beats == 1),
            most_bytes: Constant::new(Bits::from(32)),
            from_one_beat: Constant::new(Bits::from(0b11_1100)),
            from_most: Constant::new(Bits::from(0b10_0000)),
        }
    }
}

impl<const BEAT_BITS: usize> Logic for RequestReader<BEAT_BITS> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            latched_beat,
            latched_bytes,
            latched_final
        );
        self.first.next = self.state.q.val() == RequestState::Between;
        self.beat.next = self.latched_beat.q.val();
        self.bytes.next = self.latched_bytes.q.val();
        if self.first.val() {
            self.beat.next = self.first_beat.val();
            self.bytes.next = self.length.val();
        }
        self.final_index.next = self.empty_final.val();
        // `length >= 1`.
        if self.length.val().any() {
            self.final_index.next =
                ((self.length.val() - self.first_final_bytes.val()) >> 2) + self.header_beats.val();
        }
        self.ends_here.next =
            bit_cast::<6, BEAT_BITS>(self.latched_beat.q.val()) == self.latched_final.q.val();
        if self.first.val() {
            // No header: `length <= 4`; one header beat: `length == 0`.
            self.ends_here.next = (self.no_header.val()
                & (!(self.length.val() & self.from_one_beat.val()).any()
                    | (self.length.val() == self.one_beat_bytes.val())))
                | (self.one_header.val() & !self.length.val().any());
        }
        self.final_beat.next = self.ends_here.val();
        // A beat count past the end is impossible once well formed (the end needs `last`).
        // `bytes > 32` is a bit at or above 32's set and not 32.
        self.malformed.next = ((self.bytes.val() & self.from_most.val()).any()
            & (self.bytes.val() != self.most_bytes.val()))
            | (self.last.val() != self.ends_here.val());
        self.accepted.next = self.state.q.val() != RequestState::Refusing;
        self.refused.next = self.taken.val() & self.accepted.val() & self.malformed.val();
        self.complete.next =
            self.taken.val() & self.accepted.val() & !self.malformed.val() & self.last.val();
        if self.taken.val() {
            match self.state.q.val() {
                RequestState::Refusing => {
                    if self.last.val() {
                        self.state.d.next = RequestState::Between;
                    }
                }
                _ => {
                    if self.last.val() {
                        self.state.d.next = RequestState::Between;
                    } else if self.malformed.val() {
                        self.state.d.next = RequestState::Refusing;
                    } else {
                        self.state.d.next = RequestState::Taking;
                        self.latched_beat.d.next = self.beat.val() + true;
                        self.latched_bytes.d.next = self.bytes.val();
                        if self.first.val() {
                            self.latched_final.d.next = self.final_index.val();
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Random;
    use crate::testing::{rising_edge, settle, Verilated};
    use idemnet_model::stream::{request_beats, Requests, Taken};

    /// What the cell says of a beat taken: (first, beat, bytes, final_beat, accepted, refused,
    /// complete).
    type Said = (bool, u64, u64, bool, bool, bool, bool);

    /// Seeded random streams of requests with `header_beats` header words against the golden
    /// model's reading of §8.5 and §13.1 ([`Requests`]): beats taken at random, lengths over
    /// every 6-bit value (most of them 0..=32), `last` mostly where a well-formed request ends
    /// and sometimes early, late or missing; every taken beat's outcome, and every output in
    /// every cycle, compared with the model and with the emitted Verilog under Verilator.
    /// Returns how many requests completed and were refused.
    fn against_the_model<const BEAT_BITS: usize>(
        header_beats: usize,
        seed: u64,
        cycles: usize,
    ) -> (usize, usize) {
        let mut uut = RequestReader::<BEAT_BITS>::new(header_beats);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut verilated = Verilated::new(&uut);
        let mut model: Requests<u64> = Requests::with_header_beats(header_beats);
        let mut random = Random::new(seed);
        // The request being sent: its length and beats to go.
        let (mut length, mut to_go) = (0u64, 0u64);
        let (mut completed, mut refused) = (0, 0);
        let mut model_beat = 0u64;
        let mut model_bytes = 0u64;
        for cycle in 0..cycles {
            if to_go == 0 {
                length = if random.chance(85) {
                    random.below(33)
                } else {
                    random.below(64)
                };
                let beats = request_beats(header_beats, length as usize) as u64;
                to_go = match random.below(10) {
                    0 => random.below(beats).max(1),
                    1 => beats + 1 + random.below(3),
                    _ => beats,
                };
            }
            let taken = random.chance(70);
            let last = to_go == 1;
            // A wrong length shows on the first beat only; later beats show other lengths.
            uut.taken.next = taken;
            uut.last.next = last;
            uut.length.next = if model.between() {
                length.to_bits()
            } else {
                random.below(64).to_bits()
            };
            settle(&mut uut);
            let said: Said = (
                uut.first.val(),
                uut.beat.val().to_u64(),
                uut.bytes.val().to_u64(),
                uut.final_beat.val(),
                uut.accepted.val(),
                uut.refused.val(),
                uut.complete.val(),
            );
            let inputs = [u64::from(taken), u64::from(last), uut.length.val().to_u64()];
            if taken {
                to_go -= 1;
                let first = model.between();
                let outcome = model.take(|| (length, length as usize), 0, last);
                if first {
                    (model_beat, model_bytes) = (0, length);
                }
                let accepted = !matches!(outcome, Taken::Ignored);
                let want: Said = (
                    first,
                    if accepted { model_beat } else { said.1 },
                    if accepted { model_bytes } else { said.2 },
                    if accepted {
                        model_beat + 1 == request_beats(header_beats, model_bytes as usize) as u64
                    } else {
                        said.3
                    },
                    accepted,
                    outcome == Taken::Refused,
                    matches!(outcome, Taken::Complete { .. }),
                );
                assert_eq!(said, want, "cycle {cycle}");
                model_beat += 1;
                completed += usize::from(want.6);
                refused += usize::from(want.5);
            } else {
                assert!(!said.5 && !said.6, "cycle {cycle}: nothing taken");
                assert_eq!(said.0, model.between(), "cycle {cycle}");
            }
            rising_edge(&mut uut, |u| &mut u.clock);
            let outputs = verilated.cycle(&inputs).to_vec();
            settle(&mut uut);
            let simulated = [
                u64::from(uut.first.val()),
                uut.beat.val().to_u64(),
                uut.bytes.val().to_u64(),
                u64::from(uut.final_beat.val()),
                u64::from(uut.accepted.val()),
                u64::from(uut.refused.val()),
                u64::from(uut.complete.val()),
            ];
            assert_eq!(outputs, simulated, "Verilog, cycle {cycle}");
        }
        (completed, refused)
    }

    #[test]
    fn reads_random_streams_as_the_golden_model_does() {
        for seed in [1, 2] {
            let (completed, refused) = against_the_model::<3>(0, seed, 4000);
            assert!(completed > 200 && refused > 50, "{completed} {refused}");
        }
    }

    /// The framer's packets (§13.1): five header beats; and one, the edge case whose first
    /// beat may be its final one.
    #[test]
    fn reads_requests_with_header_beats_as_the_golden_model_does() {
        for (header_beats, seed) in [(5, 3), (1, 4), (2, 5)] {
            let (completed, refused) = against_the_model::<4>(header_beats, seed, 4000);
            assert!(completed > 100 && refused > 30, "{completed} {refused}");
        }
    }

    #[test]
    #[should_panic(expected = "3 beat bits cannot count 13 beats")]
    fn too_few_beat_bits_are_refused() {
        RequestReader::<3>::new(5);
    }
}
