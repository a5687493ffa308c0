//! A block's flat port buffer seen where it sits in the system's (docs/protocol.md §10), so
//! that a node's blocks read their host inputs from the system's input buffer and write their
//! host outputs into its output buffer, with no copy between the two.
//!
//! A block numbers its ports as its own table does ([`idemnet_spec::ports::Table`]): the link
//! words `0..LINK` first, the host words after them. In the system, host word `w` of node `p`
//! sits at `base + stride * (w - LINK)`, `base` being the word of the block's first host port
//! of node `p` and `stride` the number of nodes (each port over all nodes before the next). The
//! link words never reach the system's buffers: the node drives and reads them (the merge and
//! the split, §13), so the views keep them beside the system's slice.
//!
//! A block's step is generic over [`Inputs`] and [`Outputs`]; a plain slice is both, which is
//! how a block runs alone (lockstep, replay, its unit tests).

use std::ops::{Index, IndexMut};

/// A block's input buffer: `i[word]`.
pub trait Inputs: Index<usize, Output = u64> {}
impl<T: Index<usize, Output = u64> + ?Sized> Inputs for T {}

/// A block's output buffer: `o[word] = value`.
pub trait Outputs: IndexMut<usize, Output = u64> {
    /// Whether the buffer still holds every word the block wrote at its last step, so that a
    /// step that leaves an output as it was need not write it. A caller's slice may be fresh
    /// each cycle: no.
    fn kept(&self) -> bool {
        false
    }
}
impl Outputs for [u64] {}
impl Outputs for Vec<u64> {}

/// A block whose step runs on any port buffers ([`crate::block::ModelBlock::step`] on plain
/// slices is this on them).
pub trait Ports {
    /// Apply `I_t` from `i`, take the edge, write `O_t` into `o`.
    fn step_ports<I: Inputs + ?Sized, O: Outputs + ?Sized>(&mut self, i: &I, o: &mut O);
}

/// Steps `block`, one node's, in the system's buffers: its link inputs `link_in` and host
/// inputs from `i` at `places.0`, its link outputs into `link_out` and host outputs into `o` at
/// `places.1`.
#[inline]
pub fn step_placed<B: Ports, const LINK_IN: usize, const LINK_OUT: usize>(
    block: &mut B,
    link_in: [u64; LINK_IN],
    i: &[u64],
    link_out: &mut [u64; LINK_OUT],
    o: &mut [u64],
    places: (Strided, Strided),
) {
    let inputs = InView {
        link: link_in,
        system: i,
        place: places.0,
    };
    let mut outputs = OutView {
        link: link_out,
        system: o,
        place: places.1,
    };
    block.step_ports(&inputs, &mut outputs);
}

/// Where a block's host words of one node sit in a system buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strided {
    /// The system word of the block's first host word.
    pub base: usize,
    /// Words between one host port's words and the next's (the number of nodes).
    pub stride: usize,
}

/// Where a block's word is: among the node's link words, or at a word of the system's buffer.
enum Word {
    Link(usize),
    System(usize),
}

impl Strided {
    /// Block word `word` of a block whose first `LINK` words are link words.
    #[inline(always)]
    fn locate<const LINK: usize>(self, word: usize) -> Word {
        if word < LINK {
            Word::Link(word)
        } else {
            Word::System(self.base + self.stride * (word - LINK))
        }
    }
}

/// A block's port buffer of one node: its first `LINK` words are the node's link words
/// (`link`), its host words sit in the system's buffer (`system`) at `place`.
pub struct View<L, S, const LINK: usize> {
    pub link: L,
    pub system: S,
    pub place: Strided,
}

/// Inputs: the link inputs held here, the host words read from the system's input buffer.
pub type InView<'a, const LINK: usize> = View<[u64; LINK], &'a [u64], LINK>;

/// Outputs: the link outputs kept by the node, the host words written into the system's output
/// buffer, which only the block writes and which holds them from step to step
/// ([`Outputs::kept`]).
pub type OutView<'a, const LINK: usize> = View<&'a mut [u64; LINK], &'a mut [u64], LINK>;

impl<L: AsRef<[u64]>, S: AsRef<[u64]>, const LINK: usize> Index<usize> for View<L, S, LINK> {
    type Output = u64;
    #[inline(always)]
    fn index(&self, word: usize) -> &u64 {
        match self.place.locate::<LINK>(word) {
            Word::Link(k) => &self.link.as_ref()[k],
            Word::System(x) => &self.system.as_ref()[x],
        }
    }
}

impl<L, S, const LINK: usize> IndexMut<usize> for View<L, S, LINK>
where
    L: AsRef<[u64]> + AsMut<[u64]>,
    S: AsRef<[u64]> + AsMut<[u64]>,
{
    #[inline(always)]
    fn index_mut(&mut self, word: usize) -> &mut u64 {
        match self.place.locate::<LINK>(word) {
            Word::Link(k) => &mut self.link.as_mut()[k],
            Word::System(x) => &mut self.system.as_mut()[x],
        }
    }
}

impl<const LINK: usize> Outputs for OutView<'_, LINK> {
    fn kept(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Host word `w` of node 1 of 3 sits every third word from its base; link words stay in
    /// the view.
    #[test]
    fn host_words_are_strided_and_link_words_held() {
        let system: Vec<u64> = (0..12).collect();
        let place = Strided { base: 4, stride: 3 };
        let i = InView::<2> {
            link: [100, 101],
            system: &system,
            place,
        };
        assert_eq!([i[0], i[1], i[2], i[3], i[4]], [100, 101, 4, 7, 10]);
        let mut link = [0; 2];
        let mut out = vec![0u64; 12];
        let mut o = OutView::<2> {
            link: &mut link,
            system: &mut out,
            place,
        };
        o[1] = 9;
        o[3] = 5;
        assert_eq!(o[3], 5);
        assert_eq!(link, [0, 9]);
        assert_eq!(out[7], 5);
        assert_eq!(out.iter().sum::<u64>(), 5);
    }
}
