//! The event counters of the RMPP receive path (docs/protocol.md §11.3).

use rust_hdl::prelude::*;

/// Thirteen 16-bit wrapping counters, one per reason a worm or packet is dropped and one for
/// restarts, in the order of `idemnet_spec::rmpp::COUNTERS`.
///
/// Ports (Verilog names, as a child `counters$<port>`): `clock` (in); one strobe per counter,
/// `count_<name>` (in, 1 each; `count_cut` and `count_truncated` both count truncated worms, so
/// two can end in one cycle); `cnt_<name>` (out, 16
/// each). Timing: each counter adds its strobes at the edge; the outputs are the registers.
#[derive(LogicBlock)]
pub struct RmppCounters {
    pub clock: Signal<In, Clock>,
    pub count_crc: Signal<In, Bit>,
    pub count_cut: Signal<In, Bit>,
    pub count_truncated: Signal<In, Bit>,
    pub count_malformed: Signal<In, Bit>,
    pub count_misrouted: Signal<In, Bit>,
    pub count_version: Signal<In, Bit>,
    pub count_not_source: Signal<In, Bit>,
    pub count_order: Signal<In, Bit>,
    pub count_sequence: Signal<In, Bit>,
    pub count_table_full: Signal<In, Bit>,
    pub count_unknown: Signal<In, Bit>,
    pub count_duplicate: Signal<In, Bit>,
    pub count_busy: Signal<In, Bit>,
    pub count_restart: Signal<In, Bit>,
    pub cnt_crc: Signal<Out, Bits<16>>,
    pub cnt_truncated: Signal<Out, Bits<16>>,
    pub cnt_malformed: Signal<Out, Bits<16>>,
    pub cnt_misrouted: Signal<Out, Bits<16>>,
    pub cnt_version: Signal<Out, Bits<16>>,
    pub cnt_not_source: Signal<Out, Bits<16>>,
    pub cnt_order: Signal<Out, Bits<16>>,
    pub cnt_sequence: Signal<Out, Bits<16>>,
    pub cnt_table_full: Signal<Out, Bits<16>>,
    pub cnt_unknown: Signal<Out, Bits<16>>,
    pub cnt_duplicate: Signal<Out, Bits<16>>,
    pub cnt_busy: Signal<Out, Bits<16>>,
    pub cnt_restart: Signal<Out, Bits<16>>,
    c_crc: DFF<Bits<16>>,
    c_truncated: DFF<Bits<16>>,
    c_malformed: DFF<Bits<16>>,
    c_misrouted: DFF<Bits<16>>,
    c_version: DFF<Bits<16>>,
    c_not_source: DFF<Bits<16>>,
    c_order: DFF<Bits<16>>,
    c_sequence: DFF<Bits<16>>,
    c_table_full: DFF<Bits<16>>,
    c_unknown: DFF<Bits<16>>,
    c_duplicate: DFF<Bits<16>>,
    c_busy: DFF<Bits<16>>,
    c_restart: DFF<Bits<16>>,
    cut_count: Signal<Local, Bits<1>>,
    truncated_count: Signal<Local, Bits<1>>,
    count_step: Constant<Bits<16>>,
}

impl Default for RmppCounters {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            count_crc: Default::default(),
            count_cut: Default::default(),
            count_truncated: Default::default(),
            count_malformed: Default::default(),
            count_misrouted: Default::default(),
            count_version: Default::default(),
            count_not_source: Default::default(),
            count_order: Default::default(),
            count_sequence: Default::default(),
            count_table_full: Default::default(),
            count_unknown: Default::default(),
            count_duplicate: Default::default(),
            count_busy: Default::default(),
            count_restart: Default::default(),
            cnt_crc: Default::default(),
            cnt_truncated: Default::default(),
            cnt_malformed: Default::default(),
            cnt_misrouted: Default::default(),
            cnt_version: Default::default(),
            cnt_not_source: Default::default(),
            cnt_order: Default::default(),
            cnt_sequence: Default::default(),
            cnt_table_full: Default::default(),
            cnt_unknown: Default::default(),
            cnt_duplicate: Default::default(),
            cnt_busy: Default::default(),
            cnt_restart: Default::default(),
            c_crc: Default::default(),
            c_truncated: Default::default(),
            c_malformed: Default::default(),
            c_misrouted: Default::default(),
            c_version: Default::default(),
            c_not_source: Default::default(),
            c_order: Default::default(),
            c_sequence: Default::default(),
            c_table_full: Default::default(),
            c_unknown: Default::default(),
            c_duplicate: Default::default(),
            c_busy: Default::default(),
            c_restart: Default::default(),
            cut_count: Default::default(),
            truncated_count: Default::default(),
            count_step: Constant::new(Bits::from(1)),
        }
    }
}

impl Logic for RmppCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            c_crc,
            c_truncated,
            c_malformed,
            c_misrouted,
            c_version,
            c_not_source,
            c_order,
            c_sequence,
            c_table_full,
            c_unknown,
            c_duplicate,
            c_busy,
            c_restart
        );
        self.cut_count.next = self.count_cut.val().into();
        self.truncated_count.next = self.count_truncated.val().into();
        self.c_truncated.d.next = self.c_truncated.q.val()
            + bit_cast::<16, 1>(self.cut_count.val())
            + bit_cast::<16, 1>(self.truncated_count.val());
        if self.count_crc.val() {
            self.c_crc.d.next = self.c_crc.q.val() + self.count_step.val();
        }
        if self.count_malformed.val() {
            self.c_malformed.d.next = self.c_malformed.q.val() + self.count_step.val();
        }
        if self.count_misrouted.val() {
            self.c_misrouted.d.next = self.c_misrouted.q.val() + self.count_step.val();
        }
        if self.count_version.val() {
            self.c_version.d.next = self.c_version.q.val() + self.count_step.val();
        }
        if self.count_not_source.val() {
            self.c_not_source.d.next = self.c_not_source.q.val() + self.count_step.val();
        }
        if self.count_order.val() {
            self.c_order.d.next = self.c_order.q.val() + self.count_step.val();
        }
        if self.count_sequence.val() {
            self.c_sequence.d.next = self.c_sequence.q.val() + self.count_step.val();
        }
        if self.count_table_full.val() {
            self.c_table_full.d.next = self.c_table_full.q.val() + self.count_step.val();
        }
        if self.count_unknown.val() {
            self.c_unknown.d.next = self.c_unknown.q.val() + self.count_step.val();
        }
        if self.count_duplicate.val() {
            self.c_duplicate.d.next = self.c_duplicate.q.val() + self.count_step.val();
        }
        if self.count_busy.val() {
            self.c_busy.d.next = self.c_busy.q.val() + self.count_step.val();
        }
        if self.count_restart.val() {
            self.c_restart.d.next = self.c_restart.q.val() + self.count_step.val();
        }
        self.cnt_crc.next = self.c_crc.q.val();
        self.cnt_truncated.next = self.c_truncated.q.val();
        self.cnt_malformed.next = self.c_malformed.q.val();
        self.cnt_misrouted.next = self.c_misrouted.q.val();
        self.cnt_version.next = self.c_version.q.val();
        self.cnt_not_source.next = self.c_not_source.q.val();
        self.cnt_order.next = self.c_order.q.val();
        self.cnt_sequence.next = self.c_sequence.q.val();
        self.cnt_table_full.next = self.c_table_full.q.val();
        self.cnt_unknown.next = self.c_unknown.q.val();
        self.cnt_duplicate.next = self.c_duplicate.q.val();
        self.cnt_busy.next = self.c_busy.q.val();
        self.cnt_restart.next = self.c_restart.q.val();
    }
}
