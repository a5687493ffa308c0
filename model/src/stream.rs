//! The host streams of docs/protocol.md §8.2: 32-bit words, one beat per cycle at most, a
//! `valid`/`ready` handshake and a `last` bit on the final beat.
//!
//! Both ends are here, written from the document: [`Requests`] is how a block reads a request
//! stream (the NI's requests, §8.5; the framer's packets, §13.1), and [`Beats`] is how a host
//! writes one; [`Collect`] is how a host reads the NI's delivery stream (§8.4). The blocks
//! decide when a beat is taken; these only say what a taken beat means.

use idemnet_spec::ni::MAX_PAYLOAD;

/// Beats of a payload of `bytes` bytes: one per 32-bit word, and one for no bytes at all.
pub fn beats(bytes: usize) -> usize {
    bytes.div_ceil(4).max(1)
}

/// The words of `data` as beats carry them: byte 0 in bits 31:24 of the first, the last word
/// zero-padded, and one word 0 for no bytes.
pub fn beat_words(data: &[u8]) -> Vec<u32> {
    let mut words: Vec<u32> = data
        .chunks(4)
        .map(|chunk| {
            let mut bytes = [0u8; 4];
            bytes[..chunk.len()].copy_from_slice(chunk);
            u32::from_be_bytes(bytes)
        })
        .collect();
    if words.is_empty() {
        words.push(0);
    }
    words
}

/// The words of a request as its beats gave them, held in place (a request ends every few
/// cycles: none of it allocates).
#[derive(Clone, Copy, Debug)]
pub struct Words {
    len: u8,
    words: [u32; Words::MOST],
}

impl Words {
    /// The words a request carries at most: the framer's five header words and eight payload
    /// words ([`request_beats`]), and room to spare.
    pub const MOST: usize = 16;

    /// These words (at most [`Words::MOST`]).
    pub fn of(words: &[u32]) -> Words {
        let mut w = Words::default();
        w.words[..words.len()].copy_from_slice(words);
        w.len = words.len() as u8;
        w
    }

    fn push(&mut self, word: u32) {
        self.words[self.len as usize] = word;
        self.len += 1;
    }
}

impl Default for Words {
    fn default() -> Words {
        Words {
            len: 0,
            words: [0; Words::MOST],
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.words[..self.len as usize]
    }
}

impl PartialEq for Words {
    fn eq(&self, other: &Words) -> bool {
        **self == **other
    }
}

impl Eq for Words {}

/// What a taken beat did to the request it belongs to (§8.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Taken<H> {
    /// A beat of a well-formed request so far; more are due.
    Pending,
    /// The last beat of a well-formed request: its header, read on its first beat, and its
    /// header words and `ceil(bytes / 4)` payload words as the beats gave them (none for zero
    /// bytes).
    Complete { header: H, words: Words },
    /// This beat shows the request is not well formed: the one moment it is counted.
    Refused,
    /// A later beat of a refused request, taken and ignored up to its `last`.
    Ignored,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// The next beat taken is a request's first.
    Between,
    /// A well-formed request so far: `header`, `bytes` and `words` hold it.
    Taking,
    /// A refused request whose `last` has not come yet.
    Refusing,
}

/// Beats of a request of `bytes` payload bytes after `header_beats` header words: the
/// payload's [`beats`] with no header (the NI's requests, §8.5), else one beat per header word
/// and per payload word, none for no bytes (the framer's packets, §13.1).
pub fn request_beats(header_beats: usize, bytes: usize) -> usize {
    match header_beats {
        0 => beats(bytes),
        _ => header_beats + bytes.div_ceil(4),
    }
}

/// A block's reading of a request stream: which request a taken beat belongs to, and whether it
/// is well formed (`bytes <= 32` and `last` on beat [`request_beats`], no earlier).
#[derive(Clone, Debug)]
pub struct Requests<H> {
    state: State,
    /// While `Taking`: the request's header, its payload bytes, its words so far.
    header: Option<H>,
    bytes: usize,
    words: Words,
    header_beats: usize,
}

impl<H> Default for Requests<H> {
    fn default() -> Self {
        Requests::with_header_beats(0)
    }
}

impl<H> Requests<H> {
    /// The reading of a stream whose requests begin with `header_beats` header words (the
    /// default: none).
    pub fn with_header_beats(header_beats: usize) -> Requests<H> {
        assert!(
            request_beats(header_beats, MAX_PAYLOAD) <= Words::MOST,
            "{header_beats} header words: a request would not fit its words"
        );
        Requests {
            state: State::Between,
            header: None,
            bytes: 0,
            words: Words::default(),
            header_beats,
        }
    }

    /// No beat of a request is taken yet, or the last one was.
    pub fn between(&self) -> bool {
        self.state == State::Between
    }

    /// A beat taken at this edge with word `data` and bit `last`. `first` reads the ports the
    /// first beat carries, the request's header and payload bytes; it is called on a request's
    /// first beat only, so what later beats show there is never read.
    pub fn take(&mut self, first: impl FnOnce() -> (H, usize), data: u32, last: bool) -> Taken<H> {
        match self.state {
            State::Refusing => {
                if last {
                    self.state = State::Between;
                }
                return Taken::Ignored;
            }
            State::Between => {
                let (header, bytes) = first();
                self.header = Some(header);
                self.bytes = bytes;
                self.words.len = 0;
            }
            State::Taking => {}
        }
        // A well-formed request so far has fewer words than its beats, at most
        // `request_beats(.., MAX_PAYLOAD)`: room for this one.
        self.words.push(data);
        // The request must end exactly on its `request_beats`-th beat: a `last` before it is
        // too short, that beat without `last` too long. Either is known at this beat, and so is
        // a length the payload cannot have.
        let bytes = self.bytes;
        let at_end = self.words.len() == request_beats(self.header_beats, bytes);
        if bytes > MAX_PAYLOAD || last != at_end {
            self.header = None;
            self.state = if last {
                State::Between
            } else {
                State::Refusing
            };
            return Taken::Refused;
        }
        if last {
            self.state = State::Between;
            let mut words = self.words;
            words.len = (self.header_beats + bytes.div_ceil(4)) as u8;
            let header = self
                .header
                .take()
                .expect("a request in progress has its header");
            return Taken::Complete { header, words };
        }
        self.state = State::Taking;
        Taken::Pending
    }
}

/// A host's writing of one request on a stream: its beats, each presented until taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beats {
    words: Vec<u32>,
    next: usize,
}

impl Beats {
    /// The beats of a request whose payload is `data` ([`beat_words`]).
    pub fn new(data: &[u8]) -> Beats {
        Beats::of_words(beat_words(data))
    }

    /// The beats of `words`, as given (a host that means to send a bad request chooses them).
    pub fn of_words(words: Vec<u32>) -> Beats {
        Beats { words, next: 0 }
    }

    /// The beat to present now: its word and its `last` bit.
    pub fn beat(&self) -> (u32, bool) {
        let word = self.words.get(self.next).copied().unwrap_or(0);
        (word, self.next + 1 >= self.words.len())
    }

    /// The beat presented now is taken (`ready` was high in `O_(t-1)`); true once the last one is.
    pub fn taken(&mut self) -> bool {
        self.next += 1;
        self.next >= self.words.len()
    }

    /// Some beat has been taken already, so the rest must follow.
    pub fn started(&self) -> bool {
        self.next > 0
    }
}

/// A host's reading of the delivery stream: the words of one datagram, beat by beat.
#[derive(Clone, Debug, Default)]
pub struct Collect {
    /// The words of the datagram being read, or of the last one read (`ended`); the buffer is
    /// kept from datagram to datagram.
    words: Vec<u32>,
    /// The cycle the first beat showed.
    pub first_shown: u64,
    /// `words` hold a datagram whose last beat was taken: the next beat begins another.
    ended: bool,
}

impl Collect {
    /// A beat taken: shown in `O_shown` with `data` and `last`. Returns the datagram's words
    /// (as many as beats) and the cycle its first beat showed, once its last beat is taken.
    pub fn beat(&mut self, shown: u64, data: u32, last: bool) -> Option<(Vec<u32>, u64)> {
        self.beat_in_place(shown, data, last)
            .map(|(words, first)| (words.to_vec(), first))
    }

    /// [`Collect::beat`], the words lent from the reading's own buffer (a host reads a
    /// datagram every few cycles: this allocates none).
    pub fn beat_in_place(&mut self, shown: u64, data: u32, last: bool) -> Option<(&[u32], u64)> {
        if self.ended {
            self.words.clear();
            self.ended = false;
        }
        if self.words.is_empty() {
            self.first_shown = shown;
        }
        self.words.push(data);
        self.ended = last;
        last.then_some((&self.words[..], self.first_shown))
    }

    /// Beats of a datagram taken so far (0 between datagrams).
    pub fn pending(&self) -> usize {
        if self.ended {
            0
        } else {
            self.words.len()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(r: &mut Requests<u8>, bytes: usize, beats: &[(u32, bool)]) -> Vec<Taken<u8>> {
        beats
            .iter()
            .map(|&(data, last)| r.take(|| (7, bytes), data, last))
            .collect()
    }

    #[test]
    fn beats_and_words_of_payloads() {
        let counts: Vec<usize> = [0, 1, 4, 5, 32].iter().map(|&b| beats(b)).collect();
        assert_eq!(counts, [1, 1, 1, 2, 8]);
        assert_eq!(beat_words(&[]), [0]);
        assert_eq!(beat_words(&[1, 2, 3, 4, 5]), [0x0102_0304, 0x0500_0000]);
    }

    #[test]
    fn a_well_formed_request_completes_at_its_last_beat() {
        let mut r = Requests::default();
        let got = feed(&mut r, 5, &[(1, false), (2, true)]);
        let whole = Taken::Complete {
            header: 7,
            words: Words::of(&[1, 2]),
        };
        assert_eq!(got, [Taken::Pending, whole]);
        assert!(r.between());
        let empty = Taken::Complete {
            header: 7,
            words: Words::of(&[]),
        };
        assert_eq!(
            feed(&mut r, 0, &[(9, true)]),
            [empty],
            "zero bytes: one beat"
        );
    }

    #[test]
    fn a_bad_request_is_refused_once_and_swallowed_to_its_last_beat() {
        let mut r = Requests::default();
        let early = feed(&mut r, 8, &[(1, true)]);
        assert_eq!(early, [Taken::Refused]);
        assert!(r.between());
        let long = feed(&mut r, 4, &[(1, false), (2, false), (3, true)]);
        assert_eq!(long, [Taken::Refused, Taken::Ignored, Taken::Ignored]);
        let wide = feed(&mut r, 33, &[(1, false), (2, true)]);
        assert_eq!(wide, [Taken::Refused, Taken::Ignored]);
        assert_eq!(feed(&mut r, 63, &[(1, true)]), [Taken::Refused]);
        let next = feed(&mut r, 1, &[(5, true)]);
        assert_eq!(
            next,
            [Taken::Complete {
                header: 7,
                words: Words::of(&[5])
            }],
            "the next request is read as its own"
        );
    }

    /// The framer's packets (§13.1): header words first, one beat per payload word, no beat
    /// for no payload.
    #[test]
    fn header_beats_come_before_the_payload_words() {
        assert_eq!(request_beats(5, 0), 5);
        assert_eq!(request_beats(5, 5), 7);
        assert_eq!(request_beats(0, 0), 1);
        let mut r = Requests::with_header_beats(2);
        let whole = Taken::Complete {
            header: 7,
            words: Words::of(&[1, 2, 3]),
        };
        assert_eq!(
            feed(&mut r, 3, &[(1, false), (2, false), (3, true)]),
            [Taken::Pending, Taken::Pending, whole]
        );
        let empty = Taken::Complete {
            header: 7,
            words: Words::of(&[1, 2]),
        };
        assert_eq!(
            feed(&mut r, 0, &[(1, false), (2, true)]),
            [Taken::Pending, empty]
        );
        assert_eq!(feed(&mut r, 0, &[(1, true)]), [Taken::Refused], "short");
        assert_eq!(
            feed(&mut r, 0, &[(1, false), (2, false), (3, true)]),
            [Taken::Pending, Taken::Refused, Taken::Ignored],
            "long"
        );
    }

    #[test]
    fn a_host_writes_beats_and_reads_a_datagram() {
        let mut b = Beats::new(&[1, 2, 3, 4, 5]);
        assert_eq!(b.beat(), (0x0102_0304, false));
        assert!(!b.started());
        assert!(!b.taken());
        assert_eq!(b.beat(), (0x0500_0000, true));
        assert!(b.taken());
        let mut c = Collect::default();
        assert_eq!(c.beat(10, 1, false), None);
        assert_eq!(c.pending(), 1);
        assert_eq!(c.beat(12, 2, true), Some((vec![1, 2], 10)));
        assert_eq!(c.pending(), 0);
    }
}
