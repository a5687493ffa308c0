//! An 8N1 UART transmitter.

use crate::reg::InitReg;
use rust_hdl::prelude::*;

/// 8N1 UART transmitter: a start bit, eight data bits least significant first, a stop bit.
///
/// Ports: `clock` (in), `data` (in, 8), `start` (in, 1), `tx` (out, 1, idles high), `busy`
/// (out, 1).
///
/// Timing: `busy` and `tx` come from registers. When `start` is high in a cycle in which `busy`
/// is low, `data` is taken at that edge and the frame begins on `tx` after it; every bit lasts
/// `divider` cycles (the clock over the baud rate), and `busy` falls at the edge that ends the
/// stop bit, so a new `start` in that cycle sends the next frame back to back.
#[derive(LogicBlock)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub data: Signal<In, Bits<8>>,
    pub start: Signal<In, Bit>,
    pub tx: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    frame: InitReg<Bits<10>>,
    bits_left: DFF<Bits<4>>,
    baud: DFF<Bits<16>>,
    baud_reload: Constant<Bits<16>>,
    stop_bit: Constant<Bits<10>>,
    shift1: Constant<Bits<4>>,
    ten: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    one16: Constant<Bits<16>>,
}

impl UartTx {
    /// A transmitter whose bits last `divider` cycles (2..=65536).
    pub fn new(divider: u32) -> Self {
        assert!((2..=65536).contains(&divider), "UART divider {divider}");
        Self {
            clock: Default::default(),
            data: Default::default(),
            start: Default::default(),
            tx: Default::default(),
            busy: Default::default(),
            frame: InitReg::new(Bits::from(0x3FF)),
            bits_left: Default::default(),
            baud: Default::default(),
            baud_reload: Constant::new(Bits::from((divider - 1) as u64)),
            stop_bit: Constant::new(Bits::from(0x200)),
            shift1: Constant::new(Bits::from(1)),
            ten: Constant::new(Bits::from(10)),
            one4: Constant::new(Bits::from(1)),
            one16: Constant::new(Bits::from(1)),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bits_left, baud);
        self.frame.clock.next = self.clock.val();
        self.frame.d.next = self.frame.q.val();
        self.tx.next = self.frame.q.val().get_bit(0);
        self.busy.next = self.bits_left.q.val().any();
        if !self.bits_left.q.val().any() {
            if self.start.val() {
                self.frame.d.next =
                    (bit_cast::<10, 8>(self.data.val()) << self.shift1.val()) | self.stop_bit.val();
                self.bits_left.d.next = self.ten.val();
                self.baud.d.next = self.baud_reload.val();
            }
        } else if self.baud.q.val().any() {
            self.baud.d.next = self.baud.q.val() - self.one16.val();
        } else {
            self.baud.d.next = self.baud_reload.val();
            self.frame.d.next = (self.frame.q.val() >> self.shift1.val()) | self.stop_bit.val();
            self.bits_left.d.next = self.bits_left.q.val() - self.one4.val();
        }
    }
}

/// Decodes 8N1 frames from a sampled line, one sample per cycle (the software side of a test).
pub struct UartDecoder {
    divider: u32,
    /// Cycles until the middle of the next bit, while inside a frame.
    countdown: Option<u32>,
    bit: u32,
    byte: u8,
    /// Framing errors seen (a stop bit that was low).
    pub framing_errors: u64,
}

impl UartDecoder {
    pub fn new(divider: u32) -> Self {
        Self {
            divider,
            countdown: None,
            bit: 0,
            byte: 0,
            framing_errors: 0,
        }
    }

    /// One cycle's sample of the line; returns a byte when its stop bit is sampled.
    pub fn sample(&mut self, line: bool) -> Option<u8> {
        match self.countdown {
            None => {
                if !line {
                    // The middle of the start bit is half a bit away; data bit 0 one bit later.
                    self.countdown = Some(self.divider / 2 + self.divider - 1);
                    self.bit = 0;
                    self.byte = 0;
                }
                None
            }
            Some(0) => {
                if self.bit < 8 {
                    self.byte |= (line as u8) << self.bit;
                    self.bit += 1;
                    self.countdown = Some(self.divider - 1);
                    None
                } else {
                    self.countdown = None;
                    if line {
                        Some(self.byte)
                    } else {
                        self.framing_errors += 1;
                        None
                    }
                }
            }
            Some(n) => {
                self.countdown = Some(n - 1);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block's line, decoded in software, gives back the bytes sent back to back.
    #[test]
    fn frames_decode() {
        let div = 5;
        let mut uut = UartTx::new(div);
        uut.connect_all();
        check_all(&uut).unwrap();
        let msg = b"S=0A\r\n";
        let mut dec = UartDecoder::new(div);
        let (mut next, mut got) = (0usize, Vec::new());
        for _ in 0..(msg.len() as u32 + 2) * 10 * div {
            uut.clock.next = false.into();
            let start = next < msg.len() && !uut.busy.val();
            uut.start.next = start;
            uut.data.next = Bits::from(*msg.get(next).unwrap_or(&0) as u64);
            assert!(simulate(&mut uut, 100));
            if let Some(b) = dec.sample(uut.tx.val()) {
                got.push(b);
            }
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 100));
            if start {
                next += 1;
            }
        }
        assert_eq!(got, msg);
        assert_eq!(dec.framing_errors, 0);
    }
}
