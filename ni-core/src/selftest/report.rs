//! The self-test's report: the LEDs and a UART line with the counters (§14.4).

use idemnet_rtl::uart::UartTx;
use rust_hdl::prelude::*;

/// The letters that name the five counters on the UART line, in order.
pub const FIELDS: [u8; 5] = *b"SDULB";

/// Drives the LEDs and, every `period` cycles, sends the counters as one UART line (§14.4):
/// `S=xxxxxxxx D=xxxxxxxx U=xxxxxxxx L=xxxxxxxx B=xxxxxxxx\r\n`, eight hex digits each, for
/// sent, delivered, duplicated (U), lost and bad.
///
/// Ports: `clock`; `sent`, `delivered`, `duplicated`, `lost`, `bad` (in, 32); `led` (out, 8),
/// `uart_tx` (out, 1).
///
/// Timing: all outputs are registers. The counters are sampled together at the edge a line
/// starts, edge `k * period` (the first at power-on), from their values in cycle `k * period`
/// (§14.4), so a line is one instant's snapshot. `led[0]` pass (something delivered, and no
/// duplicate, loss or bad delivery); `led[1]` fail (any of those); `led[2]` bit `activity_bit`
/// of the delivered count; `led[3]` toggles with each line; `led[7:4]` counts lines.
#[derive(LogicBlock)]
pub struct Reporter {
    pub clock: Signal<In, Clock>,
    pub sent: Signal<In, Bits<32>>,
    pub delivered: Signal<In, Bits<32>>,
    pub duplicated: Signal<In, Bits<32>>,
    pub lost: Signal<In, Bits<32>>,
    pub bad: Signal<In, Bits<32>>,
    pub led: Signal<Out, Bits<8>>,
    pub uart_tx: Signal<Out, Bit>,
    uart: UartTx,
    timer: DFF<Bits<32>>,
    /// `timer` is not 0: registered from `timer != 1` a cycle ahead (the timer steps down by
    /// one, and is reloaded from 0), so that the line's start, which loads the 160-bit
    /// snapshot, does not wait for a 32-bit compare (the compact iCE40 self-test's critical
    /// path at seed 3, 77.6 MHz). 0 at power-on, as the timer is: the first line starts then.
    timer_running: DFF<Bit>,
    lines: DFF<Bits<4>>,
    active: DFF<Bit>,
    field: DFF<Bits<3>>,
    pos: DFF<Bits<4>>,
    snap: DFF<Bits<160>>,
    /// A digit went to the UART at the last edge: the snapshot shifts its next digit up now.
    /// A cycle after the start, not at it, so that the 160 enables do not wait for the
    /// character logic (the compact iCE40 self-test's critical path at 84.2 MHz); the UART is
    /// busy for a character's 10 bit times, so the next digit is read long after.
    digit_sent: DFF<Bit>,
    o_led: DFF<Bits<8>>,
    nibble4: Signal<Local, Bits<4>>,
    nibble: Signal<Local, Bits<8>>,
    ch: Signal<Local, Bits<8>>,
    failed: Signal<Local, Bit>,
    led_pass: Signal<Local, Bits<8>>,
    led_fail: Signal<Local, Bits<8>>,
    led_act: Signal<Local, Bits<8>>,
    led_beat: Signal<Local, Bits<8>>,
    period_reload: Constant<Bits<32>>,
    letters: Vec<Constant<Bits<8>>>,
    fields: Vec<Constant<Bits<3>>>,
    activity: Constant<Bits<32>>,
    led_off: Constant<Bits<8>>,
    led_pass_bit: Constant<Bits<8>>,
    led_fail_bit: Constant<Bits<8>>,
    led_activity_bit: Constant<Bits<8>>,
    led_beat_bit: Constant<Bits<8>>,
    digit_shift: Constant<Bits<8>>,
    lines_led_shift: Constant<Bits<8>>,
    lost_at: Constant<Bits<8>>,
    duplicated_at: Constant<Bits<8>>,
    delivered_at: Constant<Bits<8>>,
    sent_at: Constant<Bits<8>>,
    first_letter_digit: Constant<Bits<8>>,
    ascii_zero: Constant<Bits<8>>,
    ascii_letter_base: Constant<Bits<8>>,
    equals: Constant<Bits<8>>,
    space: Constant<Bits<8>>,
    cr: Constant<Bits<8>>,
    lf: Constant<Bits<8>>,
    equals_position: Constant<Bits<4>>,
    separator_position: Constant<Bits<4>>,
    last_field: Constant<Bits<3>>,
    newline: Constant<Bits<3>>,
    letter_position: Constant<Bits<4>>,
    field_step: Constant<Bits<3>>,
    step: Constant<Bits<4>>,
    timer_step: Constant<Bits<32>>,
}

impl Reporter {
    /// A line every `period` cycles (at least 1,000, longer than a line takes at the given
    /// `divider`: the clock over the baud rate), `led[2]` from bit `activity_bit` of the
    /// delivered count.
    pub fn new(period: u32, divider: u32, activity_bit: u32) -> Self {
        assert!(period as u64 > 60 * 10 * divider as u64 && activity_bit < 32);
        let c8 = |v: u8| Constant::new(Bits::<8>::from(v as u64));
        Self {
            clock: Default::default(),
            sent: Default::default(),
            delivered: Default::default(),
            duplicated: Default::default(),
            lost: Default::default(),
            bad: Default::default(),
            led: Default::default(),
            uart_tx: Default::default(),
            uart: UartTx::new(divider),
            timer: Default::default(),
            timer_running: Default::default(),
            lines: Default::default(),
            active: Default::default(),
            field: Default::default(),
            pos: Default::default(),
            snap: Default::default(),
            digit_sent: Default::default(),
            o_led: Default::default(),
            nibble4: Default::default(),
            nibble: Default::default(),
            ch: Default::default(),
            failed: Default::default(),
            led_pass: Default::default(),
            led_fail: Default::default(),
            led_act: Default::default(),
            led_beat: Default::default(),
            period_reload: Constant::new(Bits::from((period - 1) as u64)),
            letters: FIELDS.iter().map(|&l| c8(l)).collect(),
            fields: (0..5)
                .map(|f| Constant::new(Bits::from(f as u64)))
                .collect(),
            activity: Constant::new(Bits::from(1u64 << activity_bit)),
            led_off: c8(0),
            led_pass_bit: c8(1),
            led_fail_bit: c8(2),
            led_activity_bit: c8(4),
            led_beat_bit: c8(8),
            digit_shift: c8(4),
            lines_led_shift: c8(4),
            lost_at: c8(32),
            duplicated_at: c8(64),
            delivered_at: c8(96),
            sent_at: c8(128),
            first_letter_digit: c8(10),
            ascii_zero: c8(b'0'),
            ascii_letter_base: c8(b'A' - 10),
            equals: c8(b'='),
            space: c8(b' '),
            cr: c8(b'\r'),
            lf: c8(b'\n'),
            equals_position: Constant::new(Bits::from(1)),
            separator_position: Constant::new(Bits::from(10)),
            last_field: Constant::new(Bits::from(4)),
            newline: Constant::new(Bits::from(5)),
            letter_position: Constant::new(Bits::default()),
            field_step: Constant::new(Bits::from(1)),
            step: Constant::new(Bits::from(1)),
            timer_step: Constant::new(Bits::from(1)),
        }
    }
}

impl Logic for Reporter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            timer,
            timer_running,
            lines,
            active,
            field,
            pos,
            snap,
            digit_sent,
            o_led
        );
        self.uart.clock.next = self.clock.val();
        self.uart_tx.next = self.uart.tx.val();
        self.led.next = self.o_led.q.val();

        // The character at (field, pos): letter, '=', eight hex digits, then ' ' or "\r\n".
        self.nibble4.next = self.snap.q.val().get_bits::<4>(156);
        self.nibble.next = bit_cast::<8, 4>(self.nibble4.val());
        self.ch.next = self.nibble.val() + self.ascii_zero.val();
        if self.nibble.val() >= self.first_letter_digit.val() {
            self.ch.next = self.nibble.val() + self.ascii_letter_base.val();
        }
        if self.pos.q.val() == self.letter_position.val() {
            self.ch.next = self.lf.val();
            for f in 0..5 {
                if self.field.q.val() == self.fields[f].val() {
                    self.ch.next = self.letters[f].val();
                }
            }
        } else if self.pos.q.val() == self.equals_position.val() {
            self.ch.next = self.equals.val();
        } else if self.pos.q.val() == self.separator_position.val() {
            self.ch.next = self.space.val();
            if self.field.q.val() == self.last_field.val() {
                self.ch.next = self.cr.val();
            }
        }
        self.uart.data.next = self.ch.val();
        self.uart.start.next = self.active.q.val() & !self.uart.busy.val();
        self.digit_sent.d.next = false;
        if self.digit_sent.q.val() {
            self.snap.d.next = self.snap.q.val() << self.digit_shift.val();
        }
        if self.active.q.val() & !self.uart.busy.val() {
            if self.field.q.val() == self.newline.val() {
                self.active.d.next = false;
            } else if self.pos.q.val() == self.separator_position.val() {
                self.pos.d.next = self.letter_position.val();
                self.field.d.next = self.field.q.val() + self.field_step.val();
            } else {
                self.pos.d.next = self.pos.q.val() + self.step.val();
                self.digit_sent.d.next = (self.pos.q.val() != self.equals_position.val())
                    & (self.pos.q.val() != self.letter_position.val());
            }
        }

        self.timer_running.d.next = self.timer.q.val() != self.timer_step.val();
        if self.timer_running.q.val() {
            self.timer.d.next = self.timer.q.val() - self.timer_step.val();
        } else {
            self.timer.d.next = self.period_reload.val();
            self.active.d.next = true;
            self.field.d.next = self.fields[0].val();
            self.pos.d.next = self.letter_position.val();
            self.lines.d.next = self.lines.q.val() + self.step.val();
            self.snap.d.next = (bit_cast::<160, 32>(self.sent.val()) << self.sent_at.val())
                | (bit_cast::<160, 32>(self.delivered.val()) << self.delivered_at.val())
                | (bit_cast::<160, 32>(self.duplicated.val()) << self.duplicated_at.val())
                | (bit_cast::<160, 32>(self.lost.val()) << self.lost_at.val())
                | bit_cast::<160, 32>(self.bad.val());
        }

        self.failed.next =
            self.duplicated.val().any() | self.lost.val().any() | self.bad.val().any();
        self.led_pass.next = self.led_off.val();
        if !self.failed.val() & self.delivered.val().any() {
            self.led_pass.next = self.led_pass_bit.val();
        }
        self.led_fail.next = self.led_off.val();
        if self.failed.val() {
            self.led_fail.next = self.led_fail_bit.val();
        }
        self.led_act.next = self.led_off.val();
        if (self.delivered.val() & self.activity.val()).any() {
            self.led_act.next = self.led_activity_bit.val();
        }
        self.led_beat.next = self.led_off.val();
        if self.lines.q.val().get_bit(0) {
            self.led_beat.next = self.led_beat_bit.val();
        }
        self.o_led.d.next = (bit_cast::<8, 4>(self.lines.q.val()) << self.lines_led_shift.val())
            | self.led_pass.val()
            | self.led_fail.val()
            | self.led_act.val()
            | self.led_beat.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idemnet_rtl::uart::UartDecoder;

    /// §14.4: the line starting at edge `k * period` carries the counters held in cycle
    /// `k * period`. Every counter input is the cycle number plus its own offset, so each
    /// field names the cycle it was sampled in, and a sample a cycle early or late fails.
    #[test]
    fn lines_carry_the_counters_of_every_periods_first_cycle() {
        let (period, divider) = (1_250u32, 2u32);
        let mut uut = Reporter::new(period, divider, 0);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut decoder = UartDecoder::new(divider);
        let mut text = Vec::new();
        let offsets = [0u64, 1 << 20, 2 << 20, 3 << 20, 4 << 20];
        for cycle in 0..3 * period as u64 {
            uut.clock.next = false.into();
            for (input, offset) in [
                &mut uut.sent,
                &mut uut.delivered,
                &mut uut.duplicated,
                &mut uut.lost,
                &mut uut.bad,
            ]
            .into_iter()
            .zip(offsets)
            {
                input.next = Bits::from(cycle + offset);
            }
            assert!(simulate(&mut uut, 100));
            if let Some(byte) = decoder.sample(uut.uart_tx.val()) {
                text.push(byte);
            }
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 100));
        }
        assert_eq!(decoder.framing_errors, 0);
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.split_terminator("\r\n").collect();
        assert_eq!(lines.len(), 3, "{text:?}");
        for (k, line) in lines.iter().enumerate() {
            let sampled = k as u64 * period as u64;
            let want = FIELDS
                .iter()
                .zip(offsets)
                .map(|(&letter, offset)| format!("{}={:08X}", letter as char, sampled + offset))
                .collect::<Vec<_>>()
                .join(" ");
            assert_eq!(*line, want, "line {k}");
        }
        // Three lines counted; duplicated, lost and bad are nonzero: fail on, pass off.
        assert_eq!(uut.led.val().to_u64() >> 4, 3);
        assert_eq!(uut.led.val().to_u64() & 0b11, 0b10);
    }
}
