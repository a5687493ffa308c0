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
/// starts (edge `period - 1`, then every `period` cycles), so a line is one instant's
/// snapshot. `led[0]` pass (something delivered, and no duplicate, loss or bad delivery);
/// `led[1]` fail (any of those); `led[2]` bit `activity_bit` of the delivered count; `led[3]`
/// toggles with each line; `led[7:4]` counts lines.
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
    lines: DFF<Bits<4>>,
    active: DFF<Bit>,
    field: DFF<Bits<3>>,
    pos: DFF<Bits<4>>,
    snap: DFF<Bits<160>>,
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
    zero8: Constant<Bits<8>>,
    bit0: Constant<Bits<8>>,
    bit1: Constant<Bits<8>>,
    bit2: Constant<Bits<8>>,
    bit3: Constant<Bits<8>>,
    sh4: Constant<Bits<8>>,
    sh32: Constant<Bits<8>>,
    sh64: Constant<Bits<8>>,
    sh96: Constant<Bits<8>>,
    sh128: Constant<Bits<8>>,
    ten: Constant<Bits<8>>,
    digit0: Constant<Bits<8>>,
    letter_a: Constant<Bits<8>>,
    equals: Constant<Bits<8>>,
    space: Constant<Bits<8>>,
    cr: Constant<Bits<8>>,
    lf: Constant<Bits<8>>,
    pos_eq: Constant<Bits<4>>,
    pos_end: Constant<Bits<4>>,
    last_field: Constant<Bits<3>>,
    newline: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    one3: Constant<Bits<3>>,
    one4: Constant<Bits<4>>,
    one32: Constant<Bits<32>>,
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
            lines: Default::default(),
            active: Default::default(),
            field: Default::default(),
            pos: Default::default(),
            snap: Default::default(),
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
            zero8: c8(0),
            bit0: c8(1),
            bit1: c8(2),
            bit2: c8(4),
            bit3: c8(8),
            sh4: c8(4),
            sh32: c8(32),
            sh64: c8(64),
            sh96: c8(96),
            sh128: c8(128),
            ten: c8(10),
            digit0: c8(b'0'),
            letter_a: c8(b'A' - 10),
            equals: c8(b'='),
            space: c8(b' '),
            cr: c8(b'\r'),
            lf: c8(b'\n'),
            pos_eq: Constant::new(Bits::from(1)),
            pos_end: Constant::new(Bits::from(10)),
            last_field: Constant::new(Bits::from(4)),
            newline: Constant::new(Bits::from(5)),
            zero4: Constant::new(Bits::default()),
            one3: Constant::new(Bits::from(1)),
            one4: Constant::new(Bits::from(1)),
            one32: Constant::new(Bits::from(1)),
        }
    }
}

impl Logic for Reporter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, timer, lines, active, field, pos, snap, o_led);
        self.uart.clock.next = self.clock.val();
        self.uart_tx.next = self.uart.tx.val();
        self.led.next = self.o_led.q.val();

        // The character at (field, pos): letter, '=', eight hex digits, then ' ' or "\r\n".
        self.nibble4.next = self.snap.q.val().get_bits::<4>(156);
        self.nibble.next = bit_cast::<8, 4>(self.nibble4.val());
        self.ch.next = self.nibble.val() + self.digit0.val();
        if self.nibble.val() >= self.ten.val() {
            self.ch.next = self.nibble.val() + self.letter_a.val();
        }
        if self.pos.q.val() == self.zero4.val() {
            self.ch.next = self.lf.val();
            for f in 0..5 {
                if self.field.q.val() == self.fields[f].val() {
                    self.ch.next = self.letters[f].val();
                }
            }
        } else if self.pos.q.val() == self.pos_eq.val() {
            self.ch.next = self.equals.val();
        } else if self.pos.q.val() == self.pos_end.val() {
            self.ch.next = self.space.val();
            if self.field.q.val() == self.last_field.val() {
                self.ch.next = self.cr.val();
            }
        }
        self.uart.data.next = self.ch.val();
        self.uart.start.next = self.active.q.val() & !self.uart.busy.val();
        if self.active.q.val() & !self.uart.busy.val() {
            if self.field.q.val() == self.newline.val() {
                self.active.d.next = false;
            } else if self.pos.q.val() == self.pos_end.val() {
                self.pos.d.next = self.zero4.val();
                self.field.d.next = self.field.q.val() + self.one3.val();
            } else {
                self.pos.d.next = self.pos.q.val() + self.one4.val();
                if (self.pos.q.val() != self.pos_eq.val()) & (self.pos.q.val() != self.zero4.val())
                {
                    self.snap.d.next = self.snap.q.val() << self.sh4.val();
                }
            }
        }

        if self.timer.q.val().any() {
            self.timer.d.next = self.timer.q.val() - self.one32.val();
        } else {
            self.timer.d.next = self.period_reload.val();
            self.active.d.next = true;
            self.field.d.next = self.fields[0].val();
            self.pos.d.next = self.zero4.val();
            self.lines.d.next = self.lines.q.val() + self.one4.val();
            self.snap.d.next = (bit_cast::<160, 32>(self.sent.val()) << self.sh128.val())
                | (bit_cast::<160, 32>(self.delivered.val()) << self.sh96.val())
                | (bit_cast::<160, 32>(self.duplicated.val()) << self.sh64.val())
                | (bit_cast::<160, 32>(self.lost.val()) << self.sh32.val())
                | bit_cast::<160, 32>(self.bad.val());
        }

        self.failed.next =
            self.duplicated.val().any() | self.lost.val().any() | self.bad.val().any();
        self.led_pass.next = self.zero8.val();
        if !self.failed.val() & self.delivered.val().any() {
            self.led_pass.next = self.bit0.val();
        }
        self.led_fail.next = self.zero8.val();
        if self.failed.val() {
            self.led_fail.next = self.bit1.val();
        }
        self.led_act.next = self.zero8.val();
        if (self.delivered.val() & self.activity.val()).any() {
            self.led_act.next = self.bit2.val();
        }
        self.led_beat.next = self.zero8.val();
        if self.lines.q.val().get_bit(0) {
            self.led_beat.next = self.bit3.val();
        }
        self.o_led.d.next = (bit_cast::<8, 4>(self.lines.q.val()) << self.sh4.val())
            | self.led_pass.val()
            | self.led_fail.val()
            | self.led_act.val()
            | self.led_beat.val();
    }
}
