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

/// Where a block's host words of one node sit in a system buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strided {
    /// The system word of the block's first host word.
    pub base: usize,
    /// Words between one host port's words and the next's (the number of nodes).
    pub stride: usize,
}

impl Strided {
    #[inline(always)]
    fn at(self, host: usize) -> usize {
        self.base + self.stride * host
    }
}

/// Inputs of a block whose first `LINK` words are the node's link inputs (held here) and whose
/// host words are read from the system's input buffer.
pub struct InView<'a, const LINK: usize> {
    pub link: [u64; LINK],
    pub system: &'a [u64],
    pub place: Strided,
}

impl<const LINK: usize> Index<usize> for InView<'_, LINK> {
    type Output = u64;
    #[inline(always)]
    fn index(&self, word: usize) -> &u64 {
        if word < LINK {
            &self.link[word]
        } else {
            &self.system[self.place.at(word - LINK)]
        }
    }
}

/// Outputs of a block whose first `LINK` words are the node's link outputs (kept by the node)
/// and whose host words are written into the system's output buffer, which only the block
/// writes and which holds them from step to step ([`Outputs::kept`]).
pub struct OutView<'a, const LINK: usize> {
    pub link: &'a mut [u64; LINK],
    pub system: &'a mut [u64],
    pub place: Strided,
}

impl<const LINK: usize> Index<usize> for OutView<'_, LINK> {
    type Output = u64;
    #[inline(always)]
    fn index(&self, word: usize) -> &u64 {
        if word < LINK {
            &self.link[word]
        } else {
            &self.system[self.place.at(word - LINK)]
        }
    }
}

impl<const LINK: usize> Outputs for OutView<'_, LINK> {
    fn kept(&self) -> bool {
        true
    }
}

impl<const LINK: usize> IndexMut<usize> for OutView<'_, LINK> {
    #[inline(always)]
    fn index_mut(&mut self, word: usize) -> &mut u64 {
        if word < LINK {
            &mut self.link[word]
        } else {
            &mut self.system[self.place.at(word - LINK)]
        }
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
