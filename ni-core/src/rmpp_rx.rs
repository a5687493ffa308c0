//! The RMPP receive path of docs/protocol.md §11, as a rust-hdl block.

use std::collections::BTreeMap;

use idemnet_rtl::crc::Crc32Word;
use idemnet_rtl::flit::Flit;
use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

/// Address bits of the message buffer RAM: 16 slots of 1024 words, the largest configuration
/// (§11.2). A configuration uses the low `ceil(log2(rx_slots)) + log2(max_msg / 4)` bits; the
/// others are constant zero, so synthesis keeps only the words used (with the defaults, 2048
/// words of 32 bits: 16 iCE40 `SB_RAM40_4K`).
pub const BUF_ADDR_BITS: usize = 14;
/// Address bits of the `expected` RAM: `nodes` <= 256 words.
pub const EXP_ADDR_BITS: usize = 8;

/// One RMPP receive path (docs/protocol.md §11).
///
/// Ports (Verilog names, in this order after `clock`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `net_in` | in | 35 | flits from the fabric; one is sunk every cycle |
/// | `tx_gnt` | in | 1 | the transmitter may start a worm this cycle (§13.2; tie high when alone) |
/// | `up_ready`, `up_accept` | in | 1, 32 | the upper layer takes the upcall, and its answer (bytes accepted) |
/// | `dlv_ready` | in | 1 | the upper layer takes the delivery |
/// | `rd_slot`, `rd_word` | in | 4, 10 | buffer read address |
/// | `net_out` | out | 35 | CTS, MSGEND, MSGDROP worms |
/// | `tx_req` | out | 1 | idle with a reply due |
/// | `up_valid`, `up_slot`, `up_src`, `up_msg_id`, `up_msg_num`, `up_len` | out | 1, 4, 16, 32, 32, 32 | the upcall |
/// | `dlv_valid`, `dlv_slot`, `dlv_src`, `dlv_msg_id`, `dlv_msg_num`, `dlv_len` | out | 1, 4, 16, 32, 32, 32 | the delivery |
/// | `rd_data` | out | 32 | the buffer word read |
/// | `snd_valid`, `snd_type`, `snd_peer`, `snd_msg_id`, `snd_len`, `snd_seq`, `snd_info`, `snd_msg_num` | out | 1, 4, 16, 32 x 5 | one-cycle pulse: a CTS, MSGEND or MSGDROP for the send side |
/// | `cnt_crc` ... `cnt_restart` | out | 16 each | wrapping counters, in the order of `idemnet_spec::rmpp::COUNTERS` |
///
/// Timing (§11.5): the flit on `net_in` in cycle `t` is consumed at edge `t`. The header words
/// are latched as they arrive; the `expected` RAM is read at the latched `srcNID`, so its word is
/// ready when word 6 comes; the verdict is computed in the cycle word 6 is consumed, from the
/// state before that edge, and latched; payload words are written into the buffer RAM as they
/// arrive; the packet acts at the edge of its CRC flit. At most one action per edge: the packet
/// whose CRC flit (a tail in CRC position) is consumed, else the answer register, else the
/// delivered register. An upcall is taken in cycle `t` when `up_valid` (after `t-1`) and
/// `up_ready`; a delivery likewise. A worm picked in cycle `t` (idle, `tx_gnt`) has its head in
/// `net_out` of `O_t`, then words 0-6 and the CRC. `rd_data` in `O_t` is the word addressed in
/// `I_t`, before edge `t`, masked by the slot's `limit` before edge `t`.
///
/// Every output is a register or a function of registers only (no path from an input port to an
/// output port): `up_*` / `dlv_*` show the head of the upcall / delivery FIFO (slot number
/// registers) and that slot's fields, zero when not valid; `snd_*` show the latched header of the
/// packet whose CRC flit set the `snd_valid` register, zero otherwise; `rd_data` is the RAM's
/// registered output under a registered byte mask; `tx_req` is `tx_phase == 0` and a reply due.
///
/// Internals: per slot `s_state` (0 free, 1 UPCALL, 2 RECEIVING, 3 COMPLETE, 4 ENDED,
/// 5 DROPPED; busy = not free), `s_src` (8 bits: `srcNID < nodes <= 256`), `s_msg_id`,
/// `s_msg_num`, `s_len`, `s_limit` (13 bits: `limit <= max_msg <= 4096`), `s_next_seq` (11 bits:
/// a RECEIVING slot has `next_seq * mtu < limit`, so `next_seq <= 1024`), `s_grant`, `s_cts_n`,
/// `s_due` (`reply_due`), `s_timer` (21 bits); `outstanding` (20 bits: at most 16 grants of
/// 65535); the FIFOs (circular, slot numbers); the answer register (`an_*`: the slot, the
/// accepted bytes `min(up_accept, len, max_msg)` and whether `up_accept` was 0, taken when the
/// upcall is taken) and the delivered register (`dl_*`); the receive FSM `rx_*` (0 idle,
/// 1 header, 2 payload, 3 CRC, 4 discard, `rx_hw` the header word) and the transmitter `tx_*`
/// (phase 0 idle, 1-7 words 0-6, 8 CRC). "Lowest slot first" walks a one-hot probe over the
/// slots as in [`crate::ni::Ni`]; one-hot selections of slot fields are OR-ed (AND-OR muxes).
/// The buffer RAM is sized for the largest configuration ([`BUF_ADDR_BITS`]) with the unused
/// address bits held at zero; only `rx_slots * max_msg / 4` words are given a power-on value.
///
/// Where §11 is silent, this block does the following:
///
/// * Any tail consumed in the CRC position (good CRC or not) is "the packet whose CRC flit is
///   consumed": the answer and delivered registers wait for the next edge.
/// * MSGEND and MSGDROP carry `seq = 0` and `info = 0`; an *abort new* slot keeps the free
///   slot's `limit = 0`, so its MSGDROP has `len = 0`.
/// * Becoming COMPLETE (in sequence) and being freed (GCH) clear `reply_due`, so only
///   RECEIVING, ENDED and DROPPED slots are ever picked by the transmitter.
/// * A GCH whose slot was freed by the clean-up timer between its verdict and its CRC flit
///   frees it again and counts nothing (only *replies again* turns into `unknown`).
/// * `up_*` and `dlv_*` are zero while their `valid` is low; `snd_*` are zero outside the pulse.
#[derive(LogicBlock)]
pub struct RmppRx {
    pub clock: Signal<In, Clock>,
    pub net_in: Signal<In, Flit>,
    pub tx_gnt: Signal<In, Bit>,
    pub up_ready: Signal<In, Bit>,
    pub up_accept: Signal<In, Bits<32>>,
    pub dlv_ready: Signal<In, Bit>,
    pub rd_slot: Signal<In, Bits<4>>,
    pub rd_word: Signal<In, Bits<10>>,
    pub net_out: Signal<Out, Flit>,
    pub tx_req: Signal<Out, Bit>,
    pub up_valid: Signal<Out, Bit>,
    pub up_slot: Signal<Out, Bits<4>>,
    pub up_src: Signal<Out, Bits<16>>,
    pub up_msg_id: Signal<Out, Bits<32>>,
    pub up_msg_num: Signal<Out, Bits<32>>,
    pub up_len: Signal<Out, Bits<32>>,
    pub dlv_valid: Signal<Out, Bit>,
    pub dlv_slot: Signal<Out, Bits<4>>,
    pub dlv_src: Signal<Out, Bits<16>>,
    pub dlv_msg_id: Signal<Out, Bits<32>>,
    pub dlv_msg_num: Signal<Out, Bits<32>>,
    pub dlv_len: Signal<Out, Bits<32>>,
    pub rd_data: Signal<Out, Bits<32>>,
    pub snd_valid: Signal<Out, Bit>,
    pub snd_type: Signal<Out, Bits<4>>,
    pub snd_peer: Signal<Out, Bits<16>>,
    pub snd_msg_id: Signal<Out, Bits<32>>,
    pub snd_len: Signal<Out, Bits<32>>,
    pub snd_seq: Signal<Out, Bits<32>>,
    pub snd_info: Signal<Out, Bits<32>>,
    pub snd_msg_num: Signal<Out, Bits<32>>,
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
    // Block RAMs.
    exp_ram: RAM<Bits<32>, EXP_ADDR_BITS>,
    buf_ram: RAM<Bits<32>, BUF_ADDR_BITS>,
    // Slots.
    s_state: Vec<DFF<Bits<3>>>,
    s_src: Vec<DFF<Bits<8>>>,
    s_msg_id: Vec<DFF<Bits<32>>>,
    s_msg_num: Vec<DFF<Bits<32>>>,
    s_len: Vec<DFF<Bits<32>>>,
    s_limit: Vec<DFF<Bits<13>>>,
    s_next_seq: Vec<DFF<Bits<11>>>,
    s_grant: Vec<DFF<Bits<16>>>,
    s_cts_n: Vec<DFF<Bits<16>>>,
    s_due: Vec<DFF<Bit>>,
    s_timer: Vec<DFF<Bits<21>>>,
    outstanding: DFF<Bits<20>>,
    // Upcall and delivery FIFOs, answer and delivered registers.
    uf_e: Vec<DFF<Bits<4>>>,
    uf_hd: DFF<Bits<5>>,
    uf_cn: DFF<Bits<5>>,
    df_e: Vec<DFF<Bits<4>>>,
    df_hd: DFF<Bits<5>>,
    df_cn: DFF<Bits<5>>,
    an_valid: DFF<Bit>,
    an_slot: DFF<Bits<4>>,
    an_acc: DFF<Bits<13>>,
    an_x0: DFF<Bit>,
    dl_valid: DFF<Bit>,
    dl_slot: DFF<Bits<4>>,
    // Receive FSM and the latched header.
    rx_state: DFF<Bits<3>>,
    rx_hw: DFF<Bits<3>>,
    rx_src: DFF<Bits<16>>,
    rx_dst: DFF<Bits<16>>,
    rx_type: DFF<Bits<4>>,
    rx_bad1: DFF<Bit>,
    rx_badver: DFF<Bit>,
    rx_bad3: DFF<Bit>,
    rx_nid: DFF<Bits<16>>,
    rx_msg_id: DFF<Bits<32>>,
    rx_len: DFF<Bits<32>>,
    rx_seq: DFF<Bits<32>>,
    rx_info: DFF<Bits<32>>,
    rx_msg_num: DFF<Bits<32>>,
    rx_left: DFF<Bits<6>>,
    rx_crc: DFF<Bits<32>>,
    rx_crc_unit: Crc32Word,
    // The latched verdict.
    rx_v: DFF<Bits<4>>,
    rx_why: DFF<Bits<4>>,
    rx_tgt: DFF<Bits<4>>,
    rx_restart: DFF<Bit>,
    rx_fin: DFF<Bit>,
    rx_cts: DFF<Bit>,
    rx_waddr: DFF<Bits<14>>,
    rx_rem: DFF<Bits<6>>,
    // Transmitter.
    tx_phase: DFF<Bits<4>>,
    tx_type: DFF<Bits<4>>,
    tx_nid: DFF<Bits<8>>,
    tx_msg_id: DFF<Bits<32>>,
    tx_len: DFF<Bits<13>>,
    tx_seq: DFF<Bits<11>>,
    tx_info: DFF<Bits<16>>,
    tx_msg_num: DFF<Bits<32>>,
    tx_crc: DFF<Bits<32>>,
    tx_crc_unit: Crc32Word,
    // Output registers.
    o_net: DFF<Flit>,
    o_snd_valid: DFF<Bit>,
    rd_mask: DFF<Bits<4>>,
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
    // Combinational temporaries.
    f_valid: Signal<Local, Bit>,
    f_head: Signal<Local, Bit>,
    f_tail: Signal<Local, Bit>,
    f_data: Signal<Local, Bits<32>>,
    t14: Signal<Local, Bits<14>>,
    probe: Signal<Local, Bits<16>>,
    kk: Signal<Local, Bits<4>>,
    kk5: Signal<Local, Bits<5>>,
    nid8: Signal<Local, Bits<8>>,
    f_oh: Signal<Local, Bits<16>>,
    f_idx: Signal<Local, Bits<4>>,
    m_oh: Signal<Local, Bits<16>>,
    m_idx: Signal<Local, Bits<4>>,
    m_state: Signal<Local, Bits<3>>,
    m_next_seq: Signal<Local, Bits<11>>,
    m_limit: Signal<Local, Bits<13>>,
    due_oh: Signal<Local, Bits<16>>,
    tgt_busy: Signal<Local, Bit>,
    ty_rts: Signal<Local, Bit>,
    ty_null: Signal<Local, Bit>,
    ty_data: Signal<Local, Bit>,
    ty_stop: Signal<Local, Bit>,
    ty_snd: Signal<Local, Bit>,
    ms_recv: Signal<Local, Bit>,
    ms_waiting: Signal<Local, Bit>,
    ms_over: Signal<Local, Bit>,
    seq_mtu: Signal<Local, Bits<40>>,
    seq1_mtu: Signal<Local, Bits<40>>,
    len40: Signal<Local, Bits<40>>,
    ldiff: Signal<Local, Bits<40>>,
    lim40: Signal<Local, Bits<40>>,
    rdiff: Signal<Local, Bits<40>>,
    bad3: Signal<Local, Bit>,
    pbytes: Signal<Local, Bits<6>>,
    fin: Signal<Local, Bit>,
    rem_in: Signal<Local, Bits<6>>,
    seq_off: Signal<Local, Bits<14>>,
    m_base: Signal<Local, Bits<14>>,
    f_base: Signal<Local, Bits<14>>,
    e_next: Signal<Local, Bits<32>>,
    new_limit: Signal<Local, Bits<13>>,
    wd_mask: Signal<Local, Bits<32>>,
    inc_truncated: Signal<Local, Bits<16>>,
    crc_flit: Signal<Local, Bit>,
    arrived: Signal<Local, Bit>,
    act: Signal<Local, Bits<4>>,
    act_idx: Signal<Local, Bits<4>>,
    sel_grant: Signal<Local, Bits<16>>,
    ob: Signal<Local, Bits<20>>,
    diff: Signal<Local, Bits<24>>,
    alw: Signal<Local, Bits<16>>,
    a_zero: Signal<Local, Bit>,
    a_cts: Signal<Local, Bit>,
    picked: Signal<Local, Bit>,
    pk_src: Signal<Local, Bits<8>>,
    pk_id: Signal<Local, Bits<32>>,
    pk_num: Signal<Local, Bits<32>>,
    pk_len: Signal<Local, Bits<13>>,
    pk_seq: Signal<Local, Bits<11>>,
    pk_info: Signal<Local, Bits<16>>,
    pk_st: Signal<Local, Bits<3>>,
    up_id_v: Signal<Local, Bits<32>>,
    up_num_v: Signal<Local, Bits<32>>,
    dl_id_v: Signal<Local, Bits<32>>,
    dl_num_v: Signal<Local, Bits<32>>,
    tx_word: Signal<Local, Bits<32>>,
    hit: Signal<Local, Bit>,
    dn: Signal<Local, Bit>,
    u_push: Signal<Local, Bit>,
    u_pop: Signal<Local, Bit>,
    d_push: Signal<Local, Bit>,
    d_pop: Signal<Local, Bit>,
    wpos: Signal<Local, Bits<5>>,
    up_v: Signal<Local, Bit>,
    up_s: Signal<Local, Bits<4>>,
    up_len_v: Signal<Local, Bits<32>>,
    dl_v: Signal<Local, Bit>,
    dl_s: Signal<Local, Bits<4>>,
    src8: Signal<Local, Bits<8>>,
    lim13: Signal<Local, Bits<13>>,
    len_mm: Signal<Local, Bits<13>>,
    acc: Signal<Local, Bits<13>>,
    rd_lim: Signal<Local, Bits<13>>,
    rd_a: Signal<Local, Bits<14>>,
    rd_l: Signal<Local, Bits<14>>,
    rd_m: Signal<Local, Bits<4>>,
    rd_x: Signal<Local, Bits<32>>,
    // Parameters.
    node: Constant<Bits<16>>,
    node_hi: Constant<Bits<32>>,
    nodes: Constant<Bits<16>>,
    mtu6: Constant<Bits<6>>,
    mtu13: Constant<Bits<13>>,
    mtu32: Constant<Bits<32>>,
    mtu40: Constant<Bits<40>>,
    lg_mtu: Constant<Bits<6>>,
    lg_mtu_w: Constant<Bits<6>>,
    slot_shift: Constant<Bits<6>>,
    slot_mask: Constant<Bits<14>>,
    word_mask: Constant<Bits<14>>,
    addr_mask: Constant<Bits<14>>,
    max_msg13: Constant<Bits<13>>,
    max_msg32: Constant<Bits<32>>,
    last_pos: Constant<Bits<5>>,
    n_slots: Constant<Bits<5>>,
    gch: Constant<Bits<21>>,
    budget: Constant<Bits<24>>,
    max_pkts24: Constant<Bits<24>>,
    max_pkts16: Constant<Bits<16>>,
    // Codes and plain constants.
    st_up: Constant<Bits<3>>,
    st_recv: Constant<Bits<3>>,
    st_comp: Constant<Bits<3>>,
    st_end: Constant<Bits<3>>,
    st_drop: Constant<Bits<3>>,
    r_hdr: Constant<Bits<3>>,
    r_pay: Constant<Bits<3>>,
    r_crc: Constant<Bits<3>>,
    r_disc: Constant<Bits<3>>,
    h1: Constant<Bits<3>>,
    h2: Constant<Bits<3>>,
    h3: Constant<Bits<3>>,
    h4: Constant<Bits<3>>,
    h5: Constant<Bits<3>>,
    t_rts: Constant<Bits<4>>,
    t_rtsl: Constant<Bits<4>>,
    t_cts: Constant<Bits<4>>,
    t_data: Constant<Bits<4>>,
    t_stop: Constant<Bits<4>>,
    t_last: Constant<Bits<4>>,
    t_end: Constant<Bits<4>>,
    t_drop: Constant<Bits<4>>,
    t_null: Constant<Bits<4>>,
    v_new: Constant<Bits<4>>,
    v_anew: Constant<Bits<4>>,
    v_inseq: Constant<Bits<4>>,
    v_again: Constant<Bits<4>>,
    v_free: Constant<Bits<4>>,
    v_abort: Constant<Bits<4>>,
    v_snd: Constant<Bits<4>>,
    v_answer: Constant<Bits<4>>,
    v_dlvd: Constant<Bits<4>>,
    w_ns: Constant<Bits<4>>,
    w_order: Constant<Bits<4>>,
    w_seq: Constant<Bits<4>>,
    w_tf: Constant<Bits<4>>,
    w_unk: Constant<Bits<4>>,
    w_dup: Constant<Bits<4>>,
    w_busy: Constant<Bits<4>>,
    ph1: Constant<Bits<4>>,
    ph2: Constant<Bits<4>>,
    ph3: Constant<Bits<4>>,
    ph4: Constant<Bits<4>>,
    ph5: Constant<Bits<4>>,
    ph6: Constant<Bits<4>>,
    ph7: Constant<Bits<4>>,
    ph8: Constant<Bits<4>>,
    z3: Constant<Bits<3>>,
    z4: Constant<Bits<4>>,
    z5: Constant<Bits<5>>,
    z6: Constant<Bits<6>>,
    z8: Constant<Bits<8>>,
    z11: Constant<Bits<11>>,
    z13: Constant<Bits<13>>,
    z16: Constant<Bits<16>>,
    z32: Constant<Bits<32>>,
    zflit: Constant<Flit>,
    one3: Constant<Bits<3>>,
    one4: Constant<Bits<4>>,
    one5: Constant<Bits<5>>,
    one6: Constant<Bits<6>>,
    one11: Constant<Bits<11>>,
    one14: Constant<Bits<14>>,
    one16: Constant<Bits<16>>,
    one20: Constant<Bits<20>>,
    one21: Constant<Bits<21>>,
    one32: Constant<Bits<32>>,
    two6: Constant<Bits<6>>,
    two14: Constant<Bits<14>>,
    three6: Constant<Bits<6>>,
    three14: Constant<Bits<14>>,
    four6: Constant<Bits<6>>,
    n32_6: Constant<Bits<6>>,
    n32_40: Constant<Bits<40>>,
    ten14: Constant<Bits<14>>,
    marker: Constant<Bits<2>>,
    s16: Constant<Bits<6>>,
    w0: Constant<Bits<32>>,
    ones32: Constant<Bits<32>>,
    keep3: Constant<Bits<32>>,
    keep2: Constant<Bits<32>>,
    keep1: Constant<Bits<32>>,
    byte0: Constant<Bits<32>>,
    byte1: Constant<Bits<32>>,
    byte2: Constant<Bits<32>>,
    byte3: Constant<Bits<32>>,
    mb0: Constant<Bits<4>>,
    mb1: Constant<Bits<4>>,
    mb2: Constant<Bits<4>>,
    mb3: Constant<Bits<4>>,
    flit_valid: Constant<Flit>,
    flit_head: Constant<Flit>,
    flit_tail: Constant<Flit>,
    _n: usize,
}

fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

fn c<const N: usize>(x: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::from(x))
}

fn log2(x: usize) -> u64 {
    x.trailing_zeros() as u64
}

/// A RAM of 2^N words whose first `words` words power on at zero (the rest are never written;
/// reads of them are masked).
fn zero_ram<const N: usize>(words: usize) -> RAM<Bits<32>, N> {
    let init: BTreeMap<Bits<N>, Bits<32>> = (0..words)
        .map(|a| (Bits::from(a as u64), Bits::default()))
        .collect();
    RAM::new(init)
}

impl RmppRx {
    /// A receive path with the parameters of `cfg` (validated by the caller: see
    /// [`crate::rmpp_rx`]).
    pub fn new(cfg: &RmppConfig) -> Self {
        let n = cfg.rx_slots;
        let slot_bits = (n as u64).next_power_of_two().trailing_zeros() as u64;
        let sw = log2(cfg.slot_words());
        let budget = (cfg.max_rcv_buf as i64 - cfg.reserved as i64) & 0xFF_FFFF;
        Self {
            clock: Default::default(),
            net_in: Default::default(),
            tx_gnt: Default::default(),
            up_ready: Default::default(),
            up_accept: Default::default(),
            dlv_ready: Default::default(),
            rd_slot: Default::default(),
            rd_word: Default::default(),
            net_out: Default::default(),
            tx_req: Default::default(),
            up_valid: Default::default(),
            up_slot: Default::default(),
            up_src: Default::default(),
            up_msg_id: Default::default(),
            up_msg_num: Default::default(),
            up_len: Default::default(),
            dlv_valid: Default::default(),
            dlv_slot: Default::default(),
            dlv_src: Default::default(),
            dlv_msg_id: Default::default(),
            dlv_msg_num: Default::default(),
            dlv_len: Default::default(),
            rd_data: Default::default(),
            snd_valid: Default::default(),
            snd_type: Default::default(),
            snd_peer: Default::default(),
            snd_msg_id: Default::default(),
            snd_len: Default::default(),
            snd_seq: Default::default(),
            snd_info: Default::default(),
            snd_msg_num: Default::default(),
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
            exp_ram: zero_ram(1 << EXP_ADDR_BITS),
            buf_ram: zero_ram(n * cfg.slot_words()),
            s_state: vec_of(n),
            s_src: vec_of(n),
            s_msg_id: vec_of(n),
            s_msg_num: vec_of(n),
            s_len: vec_of(n),
            s_limit: vec_of(n),
            s_next_seq: vec_of(n),
            s_grant: vec_of(n),
            s_cts_n: vec_of(n),
            s_due: vec_of(n),
            s_timer: vec_of(n),
            outstanding: Default::default(),
            uf_e: vec_of(n),
            uf_hd: Default::default(),
            uf_cn: Default::default(),
            df_e: vec_of(n),
            df_hd: Default::default(),
            df_cn: Default::default(),
            an_valid: Default::default(),
            an_slot: Default::default(),
            an_acc: Default::default(),
            an_x0: Default::default(),
            dl_valid: Default::default(),
            dl_slot: Default::default(),
            rx_state: Default::default(),
            rx_hw: Default::default(),
            rx_src: Default::default(),
            rx_dst: Default::default(),
            rx_type: Default::default(),
            rx_bad1: Default::default(),
            rx_badver: Default::default(),
            rx_bad3: Default::default(),
            rx_nid: Default::default(),
            rx_msg_id: Default::default(),
            rx_len: Default::default(),
            rx_seq: Default::default(),
            rx_info: Default::default(),
            rx_msg_num: Default::default(),
            rx_left: Default::default(),
            rx_crc: Default::default(),
            rx_crc_unit: Default::default(),
            rx_v: Default::default(),
            rx_why: Default::default(),
            rx_tgt: Default::default(),
            rx_restart: Default::default(),
            rx_fin: Default::default(),
            rx_cts: Default::default(),
            rx_waddr: Default::default(),
            rx_rem: Default::default(),
            tx_phase: Default::default(),
            tx_type: Default::default(),
            tx_nid: Default::default(),
            tx_msg_id: Default::default(),
            tx_len: Default::default(),
            tx_seq: Default::default(),
            tx_info: Default::default(),
            tx_msg_num: Default::default(),
            tx_crc: Default::default(),
            tx_crc_unit: Default::default(),
            o_net: Default::default(),
            o_snd_valid: Default::default(),
            rd_mask: Default::default(),
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
            f_valid: Default::default(),
            f_head: Default::default(),
            f_tail: Default::default(),
            f_data: Default::default(),
            t14: Default::default(),
            probe: Default::default(),
            kk: Default::default(),
            kk5: Default::default(),
            nid8: Default::default(),
            f_oh: Default::default(),
            f_idx: Default::default(),
            m_oh: Default::default(),
            m_idx: Default::default(),
            m_state: Default::default(),
            m_next_seq: Default::default(),
            m_limit: Default::default(),
            due_oh: Default::default(),
            tgt_busy: Default::default(),
            ty_rts: Default::default(),
            ty_null: Default::default(),
            ty_data: Default::default(),
            ty_stop: Default::default(),
            ty_snd: Default::default(),
            ms_recv: Default::default(),
            ms_waiting: Default::default(),
            ms_over: Default::default(),
            seq_mtu: Default::default(),
            seq1_mtu: Default::default(),
            len40: Default::default(),
            ldiff: Default::default(),
            lim40: Default::default(),
            rdiff: Default::default(),
            bad3: Default::default(),
            pbytes: Default::default(),
            fin: Default::default(),
            rem_in: Default::default(),
            seq_off: Default::default(),
            m_base: Default::default(),
            f_base: Default::default(),
            e_next: Default::default(),
            new_limit: Default::default(),
            wd_mask: Default::default(),
            inc_truncated: Default::default(),
            crc_flit: Default::default(),
            arrived: Default::default(),
            act: Default::default(),
            act_idx: Default::default(),
            sel_grant: Default::default(),
            ob: Default::default(),
            diff: Default::default(),
            alw: Default::default(),
            a_zero: Default::default(),
            a_cts: Default::default(),
            picked: Default::default(),
            pk_src: Default::default(),
            pk_id: Default::default(),
            pk_num: Default::default(),
            pk_len: Default::default(),
            pk_seq: Default::default(),
            pk_info: Default::default(),
            pk_st: Default::default(),
            up_id_v: Default::default(),
            up_num_v: Default::default(),
            dl_id_v: Default::default(),
            dl_num_v: Default::default(),
            tx_word: Default::default(),
            hit: Default::default(),
            dn: Default::default(),
            u_push: Default::default(),
            u_pop: Default::default(),
            d_push: Default::default(),
            d_pop: Default::default(),
            wpos: Default::default(),
            up_v: Default::default(),
            up_s: Default::default(),
            up_len_v: Default::default(),
            dl_v: Default::default(),
            dl_s: Default::default(),
            src8: Default::default(),
            lim13: Default::default(),
            len_mm: Default::default(),
            acc: Default::default(),
            rd_lim: Default::default(),
            rd_a: Default::default(),
            rd_l: Default::default(),
            rd_m: Default::default(),
            rd_x: Default::default(),
            node: c(cfg.node as u64),
            node_hi: c((cfg.node as u64) << 16),
            nodes: c(cfg.nodes as u64),
            mtu6: c(cfg.mtu as u64),
            mtu13: c(cfg.mtu as u64),
            mtu32: c(cfg.mtu as u64),
            mtu40: c(cfg.mtu as u64),
            lg_mtu: c(log2(cfg.mtu)),
            lg_mtu_w: c(log2(cfg.mtu) - 2),
            slot_shift: c(sw),
            slot_mask: c((1 << slot_bits) - 1),
            word_mask: c((1 << sw) - 1),
            addr_mask: c((1 << (slot_bits + sw)) - 1),
            max_msg13: c(cfg.max_msg as u64),
            max_msg32: c(cfg.max_msg as u64),
            last_pos: c(n as u64 - 1),
            n_slots: c(n as u64),
            gch: c(cfg.gch_timeout as u64),
            budget: c(budget as u64),
            max_pkts24: c(cfg.max_data_pkts as u64),
            max_pkts16: c(cfg.max_data_pkts as u64),
            st_up: c(1),
            st_recv: c(2),
            st_comp: c(3),
            st_end: c(4),
            st_drop: c(5),
            r_hdr: c(1),
            r_pay: c(2),
            r_crc: c(3),
            r_disc: c(4),
            h1: c(1),
            h2: c(2),
            h3: c(3),
            h4: c(4),
            h5: c(5),
            t_rts: c(1),
            t_rtsl: c(2),
            t_cts: c(3),
            t_data: c(4),
            t_stop: c(5),
            t_last: c(6),
            t_end: c(7),
            t_drop: c(8),
            t_null: c(10),
            v_new: c(1),
            v_anew: c(2),
            v_inseq: c(3),
            v_again: c(4),
            v_free: c(5),
            v_abort: c(6),
            v_snd: c(7),
            v_answer: c(8),
            v_dlvd: c(9),
            w_ns: c(5),
            w_order: c(6),
            w_seq: c(7),
            w_tf: c(8),
            w_unk: c(9),
            w_dup: c(10),
            w_busy: c(11),
            ph1: c(1),
            ph2: c(2),
            ph3: c(3),
            ph4: c(4),
            ph5: c(5),
            ph6: c(6),
            ph7: c(7),
            ph8: c(8),
            z3: c(0),
            z4: c(0),
            z5: c(0),
            z6: c(0),
            z8: c(0),
            z11: c(0),
            z13: c(0),
            z16: c(0),
            z32: c(0),
            zflit: Constant::new(Bits::default()),
            one3: c(1),
            one4: c(1),
            one5: c(1),
            one6: c(1),
            one11: c(1),
            one14: c(1),
            one16: c(1),
            one20: c(1),
            one21: c(1),
            one32: c(1),
            two6: c(2),
            two14: c(2),
            three6: c(3),
            three14: c(3),
            four6: c(4),
            n32_6: c(32),
            n32_40: c(32),
            ten14: c(10),
            marker: c(idemnet_spec::rmpp::MARKER as u64),
            s16: c(16),
            w0: c(((idemnet_spec::rmpp::MARKER as u64) << 30) | idemnet_spec::rmpp::VERSION as u64),
            ones32: c(0xFFFF_FFFF),
            keep3: c(0xFFFF_FF00),
            keep2: c(0xFFFF_0000),
            keep1: c(0xFF00_0000),
            byte0: c(0xFF00_0000),
            byte1: c(0x00FF_0000),
            byte2: c(0x0000_FF00),
            byte3: c(0x0000_00FF),
            mb0: c(8),
            mb1: c(4),
            mb2: c(2),
            mb3: c(1),
            flit_valid: c(1 << 34),
            flit_head: c(1 << 33),
            flit_tail: c(1 << 32),
            _n: n,
        }
    }
}

impl Logic for RmppRx {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- Registers hold by default.
        for k in 0..self._n {
            self.s_state[k].clock.next = self.clock.val();
            self.s_src[k].clock.next = self.clock.val();
            self.s_msg_id[k].clock.next = self.clock.val();
            self.s_msg_num[k].clock.next = self.clock.val();
            self.s_len[k].clock.next = self.clock.val();
            self.s_limit[k].clock.next = self.clock.val();
            self.s_next_seq[k].clock.next = self.clock.val();
            self.s_grant[k].clock.next = self.clock.val();
            self.s_cts_n[k].clock.next = self.clock.val();
            self.s_due[k].clock.next = self.clock.val();
            self.s_timer[k].clock.next = self.clock.val();
            self.uf_e[k].clock.next = self.clock.val();
            self.df_e[k].clock.next = self.clock.val();
            self.s_state[k].d.next = self.s_state[k].q.val();
            self.s_src[k].d.next = self.s_src[k].q.val();
            self.s_msg_id[k].d.next = self.s_msg_id[k].q.val();
            self.s_msg_num[k].d.next = self.s_msg_num[k].q.val();
            self.s_len[k].d.next = self.s_len[k].q.val();
            self.s_limit[k].d.next = self.s_limit[k].q.val();
            self.s_next_seq[k].d.next = self.s_next_seq[k].q.val();
            self.s_grant[k].d.next = self.s_grant[k].q.val();
            self.s_cts_n[k].d.next = self.s_cts_n[k].q.val();
            self.s_due[k].d.next = self.s_due[k].q.val();
            self.s_timer[k].d.next = self.s_timer[k].q.val();
            self.uf_e[k].d.next = self.uf_e[k].q.val();
            self.df_e[k].d.next = self.df_e[k].q.val();
        }
        dff_setup!(
            self,
            clock,
            outstanding,
            uf_hd,
            uf_cn,
            df_hd,
            df_cn,
            an_valid,
            an_slot,
            an_acc,
            an_x0,
            dl_valid,
            dl_slot,
            rx_state,
            rx_hw,
            rx_src,
            rx_dst,
            rx_type,
            rx_bad1,
            rx_badver,
            rx_bad3,
            rx_nid,
            rx_msg_id,
            rx_len,
            rx_seq,
            rx_info,
            rx_msg_num,
            rx_left,
            rx_crc,
            rx_v,
            rx_why,
            rx_tgt,
            rx_restart,
            rx_fin,
            rx_cts,
            rx_waddr,
            rx_rem,
            tx_phase,
            tx_type,
            tx_nid,
            tx_msg_id,
            tx_len,
            tx_seq,
            tx_info,
            tx_msg_num,
            tx_crc,
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
        self.o_net.clock.next = self.clock.val();
        self.o_net.d.next = self.zflit.val();
        self.o_snd_valid.clock.next = self.clock.val();
        self.o_snd_valid.d.next = false;
        self.rd_mask.clock.next = self.clock.val();
        self.exp_ram.read_clock.next = self.clock.val();
        self.exp_ram.write_clock.next = self.clock.val();
        self.buf_ram.read_clock.next = self.clock.val();
        self.buf_ram.write_clock.next = self.clock.val();

        // ---- The flit of this cycle.
        self.f_valid.next = self.net_in.val().get_bit(34);
        self.f_head.next = self.net_in.val().get_bit(33);
        self.f_tail.next = self.net_in.val().get_bit(32);
        self.f_data.next = self.net_in.val().get_bits::<32>(0);
        self.t14.next = self.f_data.val().get_bits::<14>(16);

        // ---- Slot scans over the state before the edge (lowest slot first): the first free
        // slot, the busy slot holding the latched (srcNID, msgID), the first reply due, and
        // whether the latched verdict's target is still busy.
        self.nid8.next = self.rx_nid.q.val().get_bits::<8>(0);
        self.f_oh.next = self.z16.val();
        self.f_idx.next = self.z4.val();
        self.m_oh.next = self.z16.val();
        self.m_idx.next = self.z4.val();
        self.m_state.next = self.z3.val();
        self.m_next_seq.next = self.z11.val();
        self.m_limit.next = self.z13.val();
        self.due_oh.next = self.z16.val();
        self.tgt_busy.next = false;
        self.probe.next = self.one16.val();
        self.kk.next = self.z4.val();
        for k in 0..self._n {
            if self.s_state[k].q.val().any() {
                if (self.s_src[k].q.val() == self.nid8.val())
                    & (self.s_msg_id[k].q.val() == self.rx_msg_id.q.val())
                {
                    self.m_oh.next = self.m_oh.val() | self.probe.val();
                    self.m_idx.next = self.m_idx.val() | self.kk.val();
                    self.m_state.next = self.m_state.val() | self.s_state[k].q.val();
                    self.m_next_seq.next = self.m_next_seq.val() | self.s_next_seq[k].q.val();
                    self.m_limit.next = self.m_limit.val() | self.s_limit[k].q.val();
                }
                if self.rx_tgt.q.val() == self.kk.val() {
                    self.tgt_busy.next = true;
                }
            } else if !self.f_oh.val().any() {
                self.f_oh.next = self.probe.val();
                self.f_idx.next = self.kk.val();
            }
            if self.s_due[k].q.val() & !self.due_oh.val().any() {
                self.due_oh.next = self.probe.val();
            }
            self.probe.next = self.probe.val() << self.one16.val();
            self.kk.next = self.kk.val() + self.one4.val();
        }

        // ---- Header arithmetic, from the latched words (exact: 40 bits).
        self.ty_rts.next = (self.rx_type.q.val() == self.t_rts.val())
            | (self.rx_type.q.val() == self.t_rtsl.val());
        self.ty_null.next = self.rx_type.q.val() == self.t_null.val();
        self.ty_stop.next = (self.rx_type.q.val() == self.t_stop.val())
            | (self.rx_type.q.val() == self.t_last.val());
        self.ty_data.next = (self.rx_type.q.val() == self.t_data.val()) | self.ty_stop.val();
        self.ty_snd.next = (self.rx_type.q.val() == self.t_cts.val())
            | (self.rx_type.q.val() == self.t_end.val())
            | (self.rx_type.q.val() == self.t_drop.val());
        self.seq_mtu.next = bit_cast::<40, 32>(self.rx_seq.q.val()) << self.lg_mtu.val();
        self.seq1_mtu.next = self.seq_mtu.val() + self.mtu40.val();
        self.len40.next = bit_cast::<40, 32>(self.rx_len.q.val());
        self.ldiff.next = self.len40.val() - self.seq_mtu.val();
        // Well-formed check 3 and the payload bytes of the packet (§11.1).
        self.bad3.next = false;
        self.pbytes.next = self.z6.val();
        if self.rx_type.q.val() == self.t_rts.val() {
            self.bad3.next = (self.rx_len.q.val() <= self.mtu32.val()) | self.rx_seq.q.val().any();
            self.pbytes.next = self.mtu6.val();
        } else if self.rx_type.q.val() == self.t_rtsl.val() {
            self.bad3.next = (self.rx_len.q.val() > self.mtu32.val()) | self.rx_seq.q.val().any();
            self.pbytes.next = self.rx_len.q.val().get_bits::<6>(0);
        } else if (self.rx_type.q.val() == self.t_data.val())
            | (self.rx_type.q.val() == self.t_stop.val())
        {
            self.bad3.next = !self.rx_seq.q.val().any() | (self.seq1_mtu.val() >= self.len40.val());
            self.pbytes.next = self.mtu6.val();
        } else if self.rx_type.q.val() == self.t_last.val() {
            self.bad3.next = !self.rx_seq.q.val().any() | (self.seq_mtu.val() >= self.len40.val());
            if self.ldiff.val() >= self.mtu40.val() {
                self.pbytes.next = self.mtu6.val();
            } else {
                self.pbytes.next = self.ldiff.val().get_bits::<6>(0);
            }
        }
        // What the verdict reads of the matching slot m.
        self.ms_recv.next = self.m_state.val() == self.st_recv.val();
        self.ms_waiting.next =
            (self.m_state.val() == self.st_up.val()) | (self.m_state.val() == self.st_comp.val());
        self.ms_over.next =
            (self.m_state.val() == self.st_end.val()) | (self.m_state.val() == self.st_drop.val());
        self.lim40.next = bit_cast::<40, 13>(self.m_limit.val());
        self.fin.next = self.seq1_mtu.val() >= self.lim40.val();
        self.rdiff.next = self.lim40.val() - self.seq_mtu.val();
        self.rem_in.next = self.z6.val();
        if self.seq_mtu.val() < self.lim40.val() {
            if self.rdiff.val() > self.n32_40.val() {
                self.rem_in.next = self.n32_6.val();
            } else {
                self.rem_in.next = self.rdiff.val().get_bits::<6>(0);
            }
        }
        self.seq_off.next =
            (self.rx_seq.q.val().get_bits::<14>(0) << self.lg_mtu_w.val()) & self.word_mask.val();
        self.m_base.next = ((bit_cast::<14, 4>(self.m_idx.val()) & self.slot_mask.val())
            << self.slot_shift.val())
            | self.seq_off.val();
        self.f_base.next =
            (bit_cast::<14, 4>(self.f_idx.val()) & self.slot_mask.val()) << self.slot_shift.val();
        self.e_next.next = self.exp_ram.read_data.val() + self.one32.val();
        self.new_limit.next = self.rx_len.q.val().get_bits::<13>(0);
        if self.rx_len.q.val() > self.mtu32.val() {
            self.new_limit.next = self.mtu13.val();
        }
        // Payload write mask: bytes at or past the limit are zero.
        self.wd_mask.next = self.ones32.val();
        if self.rx_rem.q.val() < self.four6.val() {
            if self.rx_rem.q.val() == self.three6.val() {
                self.wd_mask.next = self.keep3.val();
            } else if self.rx_rem.q.val() == self.two6.val() {
                self.wd_mask.next = self.keep2.val();
            } else {
                self.wd_mask.next = self.keep1.val();
            }
        }

        // ---- RAM ports: `expected` at the latched srcNID; the buffer written from the flit.
        self.exp_ram.read_address.next = self.nid8.val();
        self.exp_ram.write_address.next = self.nid8.val();
        self.exp_ram.write_data.next = self.rx_msg_num.q.val();
        self.exp_ram.write_enable.next = false;
        self.buf_ram.write_address.next = self.rx_waddr.q.val();
        self.buf_ram.write_data.next = self.f_data.val() & self.wd_mask.val();
        self.buf_ram.write_enable.next = false;

        // ---- Receive FSM (§8.3 with a seven-word header).
        self.rx_crc_unit.word.next = self.f_data.val();
        self.rx_crc_unit.crc_in.next = self.rx_crc.q.val();
        if self.f_head.val() {
            self.rx_crc_unit.crc_in.next = self.ones32.val();
        }
        self.inc_truncated.next = self.z16.val();
        self.crc_flit.next = false;
        self.arrived.next = false;
        if self.f_valid.val() {
            if self.f_head.val() {
                if (self.rx_state.q.val() != self.z3.val())
                    & (self.rx_state.q.val() != self.r_disc.val())
                {
                    self.inc_truncated.next = self.one16.val();
                }
                if self.f_tail.val() {
                    self.inc_truncated.next = self.inc_truncated.val() + self.one16.val();
                    self.rx_state.d.next = self.z3.val();
                } else {
                    self.rx_state.d.next = self.r_hdr.val();
                }
                self.rx_hw.d.next = self.z3.val();
                self.rx_src.d.next = self.f_data.val().get_bits::<16>(16);
                self.rx_dst.d.next = self.f_data.val().get_bits::<16>(0);
                self.rx_crc.d.next = self.rx_crc_unit.crc_out.val();
            } else if self.rx_state.q.val() == self.z3.val() {
                self.inc_truncated.next = self.one16.val();
                if !self.f_tail.val() {
                    self.rx_state.d.next = self.r_disc.val();
                }
            } else if self.rx_state.q.val() == self.r_disc.val() {
                if self.f_tail.val() {
                    self.rx_state.d.next = self.z3.val();
                }
            } else if (self.rx_state.q.val() != self.r_crc.val()) & self.f_tail.val() {
                self.inc_truncated.next = self.one16.val();
                self.rx_state.d.next = self.z3.val();
            } else if self.rx_state.q.val() == self.r_hdr.val() {
                self.rx_crc.d.next = self.rx_crc_unit.crc_out.val();
                self.rx_hw.d.next = self.rx_hw.q.val() + self.one3.val();
                if self.rx_hw.q.val() == self.z3.val() {
                    self.rx_type.d.next = self.f_data.val().get_bits::<4>(16);
                    self.rx_bad1.d.next = (self.f_data.val().get_bits::<2>(30)
                        != self.marker.val())
                        | !self.t14.val().any()
                        | (self.t14.val() > self.ten14.val());
                    self.rx_badver.d.next = self.f_data.val().get_bits::<16>(0) != self.one16.val();
                } else if self.rx_hw.q.val() == self.h1.val() {
                    self.rx_nid.d.next = self.f_data.val().get_bits::<16>(0);
                    self.rx_bad1.d.next = self.rx_bad1.q.val()
                        | self.f_data.val().get_bits::<16>(16).any()
                        | (self.f_data.val().get_bits::<16>(0) >= self.nodes.val());
                } else if self.rx_hw.q.val() == self.h2.val() {
                    self.rx_msg_id.d.next = self.f_data.val();
                } else if self.rx_hw.q.val() == self.h3.val() {
                    self.rx_len.d.next = self.f_data.val();
                } else if self.rx_hw.q.val() == self.h4.val() {
                    self.rx_seq.d.next = self.f_data.val();
                } else if self.rx_hw.q.val() == self.h5.val() {
                    self.rx_info.d.next = self.f_data.val();
                    self.rx_bad3.d.next = self.bad3.val();
                    self.rx_left.d.next =
                        (self.pbytes.val() + self.three6.val()) >> self.two6.val();
                } else {
                    // Word 6 (msgNum): the checks, then the verdict (§11.5).
                    self.rx_msg_num.d.next = self.f_data.val();
                    if self.rx_bad1.q.val() {
                        self.c_malformed.d.next = self.c_malformed.q.val() + self.one16.val();
                        self.rx_state.d.next = self.r_disc.val();
                    } else if self.rx_badver.q.val() {
                        self.c_version.d.next = self.c_version.q.val() + self.one16.val();
                        self.rx_state.d.next = self.r_disc.val();
                    } else if self.rx_bad3.q.val() {
                        self.c_malformed.d.next = self.c_malformed.q.val() + self.one16.val();
                        self.rx_state.d.next = self.r_disc.val();
                    } else {
                        if self.rx_left.q.val().any() {
                            self.rx_state.d.next = self.r_pay.val();
                        } else {
                            self.rx_state.d.next = self.r_crc.val();
                        }
                        self.rx_v.d.next = self.z4.val();
                        self.rx_why.d.next = self.z4.val();
                        self.rx_tgt.d.next = self.m_idx.val();
                        self.rx_restart.d.next = false;
                        self.rx_fin.d.next = self.fin.val();
                        self.rx_cts.d.next = self.ty_stop.val();
                        self.rx_waddr.d.next = self.m_base.val();
                        self.rx_rem.d.next = self.z6.val();
                        if self.ty_snd.val() {
                            if self.rx_nid.q.val() != self.node.val() {
                                self.rx_why.d.next = self.w_ns.val();
                            } else {
                                self.rx_v.d.next = self.v_snd.val();
                            }
                        } else if self.rx_nid.q.val() != self.rx_src.q.val() {
                            self.rx_why.d.next = self.w_ns.val();
                        } else if self.ty_rts.val() | self.ty_null.val() {
                            if !self.m_oh.val().any() {
                                if self.f_data.val() != self.e_next.val() {
                                    self.rx_why.d.next = self.w_order.val();
                                } else if !self.f_oh.val().any() {
                                    self.rx_why.d.next = self.w_tf.val();
                                } else {
                                    self.rx_tgt.d.next = self.f_idx.val();
                                    if self.ty_null.val() {
                                        self.rx_v.d.next = self.v_anew.val();
                                    } else {
                                        self.rx_v.d.next = self.v_new.val();
                                        self.rx_waddr.d.next = self.f_base.val();
                                        self.rx_rem.d.next = self.n32_6.val();
                                    }
                                }
                            } else if self.ms_waiting.val() {
                                if self.ty_null.val() {
                                    self.rx_why.d.next = self.w_busy.val();
                                } else {
                                    self.rx_why.d.next = self.w_dup.val();
                                }
                            } else if self.ms_recv.val() & self.ty_null.val() {
                                self.rx_v.d.next = self.v_abort.val();
                            } else {
                                self.rx_v.d.next = self.v_again.val();
                            }
                        } else if self.ty_data.val() {
                            if !self.m_oh.val().any() {
                                self.rx_why.d.next = self.w_unk.val();
                            } else if self.ms_recv.val() {
                                if self.rx_seq.q.val() == bit_cast::<32, 11>(self.m_next_seq.val())
                                {
                                    self.rx_v.d.next = self.v_inseq.val();
                                    self.rx_rem.d.next = self.rem_in.val();
                                } else if self.rx_seq.q.val() == self.one32.val() {
                                    // A restart: what is held stays (nothing written).
                                    self.rx_v.d.next = self.v_inseq.val();
                                    self.rx_restart.d.next = true;
                                    self.rx_cts.d.next = true;
                                } else {
                                    self.rx_why.d.next = self.w_seq.val();
                                }
                            } else if self.m_state.val() == self.st_up.val() {
                                self.rx_why.d.next = self.w_seq.val();
                            } else if self.m_state.val() == self.st_comp.val() {
                                self.rx_why.d.next = self.w_dup.val();
                            } else {
                                self.rx_v.d.next = self.v_again.val();
                            }
                        } else {
                            // GCH
                            if !self.m_oh.val().any() {
                                self.rx_why.d.next = self.w_unk.val();
                            } else if self.ms_over.val() {
                                self.rx_v.d.next = self.v_free.val();
                            } else {
                                self.rx_why.d.next = self.w_seq.val();
                            }
                        }
                    }
                }
            } else if self.rx_state.q.val() == self.r_pay.val() {
                self.rx_crc.d.next = self.rx_crc_unit.crc_out.val();
                if self.rx_rem.q.val().any() {
                    self.buf_ram.write_enable.next = true;
                }
                if self.rx_rem.q.val() < self.four6.val() {
                    self.rx_rem.d.next = self.z6.val();
                } else {
                    self.rx_rem.d.next = self.rx_rem.q.val() - self.four6.val();
                }
                self.rx_waddr.d.next =
                    (self.rx_waddr.q.val() + self.one14.val()) & self.addr_mask.val();
                self.rx_left.d.next = self.rx_left.q.val() - self.one6.val();
                if self.rx_left.q.val() == self.one6.val() {
                    self.rx_state.d.next = self.r_crc.val();
                }
            } else {
                // CRC position.
                if !self.f_tail.val() {
                    self.c_malformed.d.next = self.c_malformed.q.val() + self.one16.val();
                    self.rx_state.d.next = self.r_disc.val();
                } else {
                    self.rx_state.d.next = self.z3.val();
                    self.crc_flit.next = true;
                    if self.f_data.val() != self.rx_crc.q.val() {
                        self.c_crc.d.next = self.c_crc.q.val() + self.one16.val();
                    } else if self.rx_dst.q.val() != self.node.val() {
                        self.c_misrouted.d.next = self.c_misrouted.q.val() + self.one16.val();
                    } else {
                        self.arrived.next = true;
                    }
                }
            }
        }
        self.c_truncated.d.next = self.c_truncated.q.val() + self.inc_truncated.val();

        // ---- The one action of this edge: the packet, else the answer, else the delivered.
        self.act.next = self.z4.val();
        self.act_idx.next = self.z4.val();
        if self.arrived.val() {
            if !self.rx_v.q.val().any() {
                if self.rx_why.q.val() == self.w_ns.val() {
                    self.c_not_source.d.next = self.c_not_source.q.val() + self.one16.val();
                } else if self.rx_why.q.val() == self.w_order.val() {
                    self.c_order.d.next = self.c_order.q.val() + self.one16.val();
                } else if self.rx_why.q.val() == self.w_seq.val() {
                    self.c_sequence.d.next = self.c_sequence.q.val() + self.one16.val();
                } else if self.rx_why.q.val() == self.w_tf.val() {
                    self.c_table_full.d.next = self.c_table_full.q.val() + self.one16.val();
                } else if self.rx_why.q.val() == self.w_unk.val() {
                    self.c_unknown.d.next = self.c_unknown.q.val() + self.one16.val();
                } else if self.rx_why.q.val() == self.w_dup.val() {
                    self.c_duplicate.d.next = self.c_duplicate.q.val() + self.one16.val();
                } else {
                    self.c_busy.d.next = self.c_busy.q.val() + self.one16.val();
                }
            } else if self.rx_v.q.val() == self.v_snd.val() {
                self.o_snd_valid.d.next = true;
            } else if (self.rx_v.q.val() == self.v_again.val()) & !self.tgt_busy.val() {
                // Its slot was freed (clean-up timer) since the verdict.
                self.c_unknown.d.next = self.c_unknown.q.val() + self.one16.val();
            } else {
                self.act.next = self.rx_v.q.val();
                self.act_idx.next = self.rx_tgt.q.val();
                if self.rx_v.q.val() == self.v_again.val() {
                    self.c_duplicate.d.next = self.c_duplicate.q.val() + self.one16.val();
                }
                if (self.rx_v.q.val() == self.v_inseq.val()) & self.rx_restart.q.val() {
                    self.c_restart.d.next = self.c_restart.q.val() + self.one16.val();
                }
            }
        } else if !self.crc_flit.val() & self.an_valid.q.val() {
            self.act.next = self.v_answer.val();
            self.act_idx.next = self.an_slot.q.val();
        } else if !self.crc_flit.val() & self.dl_valid.q.val() {
            self.act.next = self.v_dlvd.val();
            self.act_idx.next = self.dl_slot.q.val();
        }
        if (self.act.val() == self.v_new.val()) | (self.act.val() == self.v_anew.val()) {
            self.exp_ram.write_enable.next = true;
        }
        // Figure 8: a new CTS's allowance, after the target's grant is returned.
        self.sel_grant.next = self.z16.val();
        self.kk.next = self.z4.val();
        for k in 0..self._n {
            if self.act_idx.val() == self.kk.val() {
                self.sel_grant.next = self.sel_grant.val() | self.s_grant[k].q.val();
            }
            self.kk.next = self.kk.val() + self.one4.val();
        }
        self.ob.next = self.outstanding.q.val() - bit_cast::<20, 16>(self.sel_grant.val());
        self.diff.next = self.budget.val() - bit_cast::<24, 20>(self.ob.val());
        if self.diff.val().get_bit(23) | !self.diff.val().any() {
            self.alw.next = self.one16.val();
        } else if self.diff.val() > self.max_pkts24.val() {
            self.alw.next = self.max_pkts16.val();
        } else {
            self.alw.next = self.diff.val().get_bits::<16>(0);
        }
        self.a_zero.next = self.an_x0.q.val();
        self.a_cts.next = self.an_acc.q.val() > self.mtu13.val();
        if self.act.val() == self.v_inseq.val() {
            if self.rx_fin.q.val() {
                self.outstanding.d.next = self.ob.val();
            } else if self.rx_cts.q.val() {
                self.outstanding.d.next = self.ob.val() + bit_cast::<20, 16>(self.alw.val());
            } else if self.sel_grant.val().any() {
                self.outstanding.d.next = self.outstanding.q.val() - self.one20.val();
            }
        } else if self.act.val() == self.v_abort.val() {
            self.outstanding.d.next = self.ob.val();
        } else if (self.act.val() == self.v_answer.val()) & self.a_cts.val() {
            self.outstanding.d.next = self.ob.val() + bit_cast::<20, 16>(self.alw.val());
        }

        // ---- Transmitter (§11.5): the lowest slot with a reply due, when idle and granted.
        self.picked.next = false;
        self.pk_src.next = self.z8.val();
        self.pk_id.next = self.z32.val();
        self.pk_num.next = self.z32.val();
        self.pk_len.next = self.z13.val();
        self.pk_seq.next = self.z11.val();
        self.pk_info.next = self.z16.val();
        self.pk_st.next = self.z3.val();
        for k in 0..self._n {
            if self.due_oh.val().get_bit(k) {
                self.pk_src.next = self.pk_src.val() | self.s_src[k].q.val();
                self.pk_id.next = self.pk_id.val() | self.s_msg_id[k].q.val();
                self.pk_num.next = self.pk_num.val() | self.s_msg_num[k].q.val();
                self.pk_len.next = self.pk_len.val() | self.s_limit[k].q.val();
                self.pk_seq.next = self.pk_seq.val() | self.s_next_seq[k].q.val();
                self.pk_info.next = self.pk_info.val() | self.s_cts_n[k].q.val();
                self.pk_st.next = self.pk_st.val() | self.s_state[k].q.val();
            }
        }
        self.tx_crc_unit.crc_in.next = self.tx_crc.q.val();
        self.tx_word.next = self.z32.val();
        if !self.tx_phase.q.val().any() {
            if self.tx_gnt.val() & self.due_oh.val().any() {
                self.picked.next = true;
                self.tx_nid.d.next = self.pk_src.val();
                self.tx_msg_id.d.next = self.pk_id.val();
                self.tx_msg_num.d.next = self.pk_num.val();
                self.tx_len.d.next = self.pk_len.val();
                if self.pk_st.val() == self.st_recv.val() {
                    self.tx_type.d.next = self.t_cts.val();
                    self.tx_seq.d.next = self.pk_seq.val();
                    self.tx_info.d.next = self.pk_info.val();
                } else {
                    self.tx_seq.d.next = self.z11.val();
                    self.tx_info.d.next = self.z16.val();
                    if self.pk_st.val() == self.st_end.val() {
                        self.tx_type.d.next = self.t_end.val();
                    } else {
                        self.tx_type.d.next = self.t_drop.val();
                    }
                }
                self.tx_word.next = self.node_hi.val() | bit_cast::<32, 8>(self.pk_src.val());
                self.tx_crc_unit.crc_in.next = self.ones32.val();
                self.o_net.d.next = self.flit_valid.val()
                    | self.flit_head.val()
                    | bit_cast::<35, 32>(self.tx_word.val());
                self.tx_crc.d.next = self.tx_crc_unit.crc_out.val();
                self.tx_phase.d.next = self.ph1.val();
            }
        } else if self.tx_phase.q.val() == self.ph8.val() {
            self.o_net.d.next = self.flit_valid.val()
                | self.flit_tail.val()
                | bit_cast::<35, 32>(self.tx_crc.q.val());
            self.tx_phase.d.next = self.z4.val();
        } else {
            // One word per phase (the phases are exclusive: OR of the selected fields).
            if self.tx_phase.q.val() == self.ph1.val() {
                self.tx_word.next =
                    self.w0.val() | (bit_cast::<32, 4>(self.tx_type.q.val()) << self.s16.val());
            }
            if self.tx_phase.q.val() == self.ph2.val() {
                self.tx_word.next = self.tx_word.val() | bit_cast::<32, 8>(self.tx_nid.q.val());
            }
            if self.tx_phase.q.val() == self.ph3.val() {
                self.tx_word.next = self.tx_word.val() | self.tx_msg_id.q.val();
            }
            if self.tx_phase.q.val() == self.ph4.val() {
                self.tx_word.next = self.tx_word.val() | bit_cast::<32, 13>(self.tx_len.q.val());
            }
            if self.tx_phase.q.val() == self.ph5.val() {
                self.tx_word.next = self.tx_word.val() | bit_cast::<32, 11>(self.tx_seq.q.val());
            }
            if self.tx_phase.q.val() == self.ph6.val() {
                self.tx_word.next = self.tx_word.val() | bit_cast::<32, 16>(self.tx_info.q.val());
            }
            if self.tx_phase.q.val() == self.ph7.val() {
                self.tx_word.next = self.tx_word.val() | self.tx_msg_num.q.val();
            }
            self.o_net.d.next = self.flit_valid.val() | bit_cast::<35, 32>(self.tx_word.val());
            self.tx_crc.d.next = self.tx_crc_unit.crc_out.val();
            self.tx_phase.d.next = self.tx_phase.q.val() + self.one4.val();
        }
        self.tx_crc_unit.word.next = self.tx_word.val();

        // ---- Per slot: clean-up timer, the pick, the action.
        self.hit.next = false;
        self.dn.next = false;
        self.kk.next = self.z4.val();
        for k in 0..self._n {
            self.hit.next = (self.act_idx.val() == self.kk.val()) & self.act.val().any();
            self.dn.next =
                self.s_due[k].q.val() & !(self.picked.val() & self.due_oh.val().get_bit(k));
            if ((self.s_state[k].q.val() == self.st_end.val())
                | (self.s_state[k].q.val() == self.st_drop.val()))
                & !self.s_due[k].q.val()
                & !self.hit.val()
            {
                if self.s_timer[k].q.val().any() {
                    self.s_timer[k].d.next = self.s_timer[k].q.val() - self.one21.val();
                } else {
                    self.s_state[k].d.next = self.z3.val();
                    self.s_limit[k].d.next = self.z13.val();
                }
            }
            if self.picked.val()
                & self.due_oh.val().get_bit(k)
                & (self.s_state[k].q.val() != self.st_recv.val())
            {
                self.s_timer[k].d.next = self.gch.val();
            }
            if self.hit.val() {
                if (self.act.val() == self.v_new.val()) | (self.act.val() == self.v_anew.val()) {
                    self.s_src[k].d.next = self.nid8.val();
                    self.s_msg_id[k].d.next = self.rx_msg_id.q.val();
                    self.s_msg_num[k].d.next = self.rx_msg_num.q.val();
                    self.s_len[k].d.next = self.rx_len.q.val();
                    if self.act.val() == self.v_new.val() {
                        self.s_state[k].d.next = self.st_up.val();
                        self.s_limit[k].d.next = self.new_limit.val();
                    } else {
                        self.s_state[k].d.next = self.st_drop.val();
                        self.dn.next = true;
                    }
                } else if self.act.val() == self.v_inseq.val() {
                    if !self.rx_restart.q.val() {
                        self.s_next_seq[k].d.next =
                            self.rx_seq.q.val().get_bits::<11>(0) + self.one11.val();
                    }
                    if self.rx_fin.q.val() {
                        self.s_state[k].d.next = self.st_comp.val();
                        self.s_grant[k].d.next = self.z16.val();
                        self.dn.next = false;
                    } else if self.rx_cts.q.val() {
                        self.s_grant[k].d.next = self.alw.val();
                        self.s_cts_n[k].d.next = self.alw.val();
                        self.dn.next = true;
                    } else if self.s_grant[k].q.val().any() {
                        self.s_grant[k].d.next = self.s_grant[k].q.val() - self.one16.val();
                    }
                } else if self.act.val() == self.v_again.val() {
                    self.dn.next = true;
                } else if self.act.val() == self.v_free.val() {
                    self.s_state[k].d.next = self.z3.val();
                    self.s_limit[k].d.next = self.z13.val();
                    self.dn.next = false;
                } else if self.act.val() == self.v_abort.val() {
                    self.s_state[k].d.next = self.st_drop.val();
                    self.s_grant[k].d.next = self.z16.val();
                    self.dn.next = true;
                } else if self.act.val() == self.v_answer.val() {
                    self.s_limit[k].d.next = self.an_acc.q.val();
                    if self.a_zero.val() {
                        self.s_state[k].d.next = self.st_drop.val();
                        self.dn.next = true;
                    } else if self.a_cts.val() {
                        self.s_state[k].d.next = self.st_recv.val();
                        self.s_next_seq[k].d.next = self.one11.val();
                        self.s_grant[k].d.next = self.alw.val();
                        self.s_cts_n[k].d.next = self.alw.val();
                        self.dn.next = true;
                    } else {
                        self.s_state[k].d.next = self.st_comp.val();
                    }
                } else {
                    // Delivered.
                    self.s_state[k].d.next = self.st_end.val();
                    self.dn.next = true;
                }
            }
            self.s_due[k].d.next = self.dn.val();
            self.kk.next = self.kk.val() + self.one4.val();
        }

        // ---- Upcall FIFO and the answer register.
        self.up_v.next = self.uf_cn.q.val().any() & !self.an_valid.q.val();
        self.up_s.next = self.z4.val();
        self.kk5.next = self.z5.val();
        for k in 0..self._n {
            if self.up_v.val() & (self.uf_hd.q.val() == self.kk5.val()) {
                self.up_s.next = self.up_s.val() | self.uf_e[k].q.val();
            }
            self.kk5.next = self.kk5.val() + self.one5.val();
        }
        self.u_push.next = self.act.val() == self.v_new.val();
        self.u_pop.next = self.up_v.val() & self.up_ready.val();
        self.wpos.next = self.uf_hd.q.val() + self.uf_cn.q.val();
        if self.wpos.val() >= self.n_slots.val() {
            self.wpos.next = self.wpos.val() - self.n_slots.val();
        }
        self.kk5.next = self.z5.val();
        for k in 0..self._n {
            if self.u_push.val() & (self.wpos.val() == self.kk5.val()) {
                self.uf_e[k].d.next = self.act_idx.val();
            }
            self.kk5.next = self.kk5.val() + self.one5.val();
        }
        if self.u_push.val() & !self.u_pop.val() {
            self.uf_cn.d.next = self.uf_cn.q.val() + self.one5.val();
        }
        if self.u_pop.val() & !self.u_push.val() {
            self.uf_cn.d.next = self.uf_cn.q.val() - self.one5.val();
        }
        if self.u_pop.val() {
            if self.uf_hd.q.val() == self.last_pos.val() {
                self.uf_hd.d.next = self.z5.val();
            } else {
                self.uf_hd.d.next = self.uf_hd.q.val() + self.one5.val();
            }
        }
        // The upcall's fields: the head slot's registers.
        self.up_id_v.next = self.z32.val();
        self.up_num_v.next = self.z32.val();
        self.up_len_v.next = self.z32.val();
        self.src8.next = self.z8.val();
        self.kk.next = self.z4.val();
        for k in 0..self._n {
            if self.up_v.val() & (self.up_s.val() == self.kk.val()) {
                self.src8.next = self.src8.val() | self.s_src[k].q.val();
                self.up_id_v.next = self.up_id_v.val() | self.s_msg_id[k].q.val();
                self.up_num_v.next = self.up_num_v.val() | self.s_msg_num[k].q.val();
                self.up_len_v.next = self.up_len_v.val() | self.s_len[k].q.val();
            }
            self.kk.next = self.kk.val() + self.one4.val();
        }
        self.up_src.next = bit_cast::<16, 8>(self.src8.val());
        self.up_msg_id.next = self.up_id_v.val();
        self.up_msg_num.next = self.up_num_v.val();
        // Accepted bytes: min(up_accept, len, max_msg).
        self.len_mm.next = self.up_len_v.val().get_bits::<13>(0);
        if self.up_len_v.val() >= self.max_msg32.val() {
            self.len_mm.next = self.max_msg13.val();
        }
        self.acc.next = self.up_accept.val().get_bits::<13>(0);
        if self.up_accept.val() >= bit_cast::<32, 13>(self.len_mm.val()) {
            self.acc.next = self.len_mm.val();
        }
        if self.u_pop.val() {
            self.an_valid.d.next = true;
            self.an_slot.d.next = self.up_s.val();
            self.an_acc.d.next = self.acc.val();
            self.an_x0.d.next = !self.up_accept.val().any();
        } else if self.act.val() == self.v_answer.val() {
            self.an_valid.d.next = false;
        }

        // ---- Delivery FIFO and the delivered register.
        self.dl_v.next = self.df_cn.q.val().any() & !self.dl_valid.q.val();
        self.dl_s.next = self.z4.val();
        self.kk5.next = self.z5.val();
        for k in 0..self._n {
            if self.dl_v.val() & (self.df_hd.q.val() == self.kk5.val()) {
                self.dl_s.next = self.dl_s.val() | self.df_e[k].q.val();
            }
            self.kk5.next = self.kk5.val() + self.one5.val();
        }
        self.d_push.next = ((self.act.val() == self.v_inseq.val()) & self.rx_fin.q.val())
            | ((self.act.val() == self.v_answer.val()) & !self.a_zero.val() & !self.a_cts.val());
        self.d_pop.next = self.dl_v.val() & self.dlv_ready.val();
        self.wpos.next = self.df_hd.q.val() + self.df_cn.q.val();
        if self.wpos.val() >= self.n_slots.val() {
            self.wpos.next = self.wpos.val() - self.n_slots.val();
        }
        self.kk5.next = self.z5.val();
        for k in 0..self._n {
            if self.d_push.val() & (self.wpos.val() == self.kk5.val()) {
                self.df_e[k].d.next = self.act_idx.val();
            }
            self.kk5.next = self.kk5.val() + self.one5.val();
        }
        if self.d_push.val() & !self.d_pop.val() {
            self.df_cn.d.next = self.df_cn.q.val() + self.one5.val();
        }
        if self.d_pop.val() & !self.d_push.val() {
            self.df_cn.d.next = self.df_cn.q.val() - self.one5.val();
        }
        if self.d_pop.val() {
            if self.df_hd.q.val() == self.last_pos.val() {
                self.df_hd.d.next = self.z5.val();
            } else {
                self.df_hd.d.next = self.df_hd.q.val() + self.one5.val();
            }
            self.dl_valid.d.next = true;
            self.dl_slot.d.next = self.dl_s.val();
        } else if self.act.val() == self.v_dlvd.val() {
            self.dl_valid.d.next = false;
        }
        self.dl_id_v.next = self.z32.val();
        self.dl_num_v.next = self.z32.val();
        self.lim13.next = self.z13.val();
        self.src8.next = self.z8.val();
        self.kk.next = self.z4.val();
        for k in 0..self._n {
            if self.dl_v.val() & (self.dl_s.val() == self.kk.val()) {
                self.src8.next = self.src8.val() | self.s_src[k].q.val();
                self.dl_id_v.next = self.dl_id_v.val() | self.s_msg_id[k].q.val();
                self.dl_num_v.next = self.dl_num_v.val() | self.s_msg_num[k].q.val();
                self.lim13.next = self.lim13.val() | self.s_limit[k].q.val();
            }
            self.kk.next = self.kk.val() + self.one4.val();
        }
        self.dlv_src.next = bit_cast::<16, 8>(self.src8.val());
        self.dlv_len.next = bit_cast::<32, 13>(self.lim13.val());
        self.dlv_msg_id.next = self.dl_id_v.val();
        self.dlv_msg_num.next = self.dl_num_v.val();

        // ---- Buffer read port (§11.6): RAM read now, byte mask from the limit before the edge.
        self.buf_ram.read_address.next = ((bit_cast::<14, 4>(self.rd_slot.val())
            & self.slot_mask.val())
            << self.slot_shift.val())
            | (bit_cast::<14, 10>(self.rd_word.val()) & self.word_mask.val());
        self.rd_lim.next = self.z13.val();
        self.kk.next = self.z4.val();
        for k in 0..self._n {
            if self.rd_slot.val() == self.kk.val() {
                self.rd_lim.next = self.rd_lim.val() | self.s_limit[k].q.val();
            }
            self.kk.next = self.kk.val() + self.one4.val();
        }
        self.rd_a.next = bit_cast::<14, 10>(self.rd_word.val()) << self.two14.val();
        self.rd_l.next = bit_cast::<14, 13>(self.rd_lim.val());
        self.rd_m.next = self.z4.val();
        if self.rd_a.val() < self.rd_l.val() {
            self.rd_m.next = self.rd_m.val() | self.mb0.val();
        }
        if (self.rd_a.val() | self.one14.val()) < self.rd_l.val() {
            self.rd_m.next = self.rd_m.val() | self.mb1.val();
        }
        if (self.rd_a.val() | self.two14.val()) < self.rd_l.val() {
            self.rd_m.next = self.rd_m.val() | self.mb2.val();
        }
        if (self.rd_a.val() | self.three14.val()) < self.rd_l.val() {
            self.rd_m.next = self.rd_m.val() | self.mb3.val();
        }
        self.rd_mask.d.next = self.rd_m.val();
        self.rd_x.next = self.z32.val();
        if self.rd_mask.q.val().get_bit(3) {
            self.rd_x.next = self.rd_x.val() | self.byte0.val();
        }
        if self.rd_mask.q.val().get_bit(2) {
            self.rd_x.next = self.rd_x.val() | self.byte1.val();
        }
        if self.rd_mask.q.val().get_bit(1) {
            self.rd_x.next = self.rd_x.val() | self.byte2.val();
        }
        if self.rd_mask.q.val().get_bit(0) {
            self.rd_x.next = self.rd_x.val() | self.byte3.val();
        }
        self.rd_data.next = self.buf_ram.read_data.val() & self.rd_x.val();

        // ---- Outputs.
        self.net_out.next = self.o_net.q.val();
        self.tx_req.next = !self.tx_phase.q.val().any() & self.due_oh.val().any();
        self.up_valid.next = self.up_v.val();
        self.up_slot.next = self.up_s.val();
        self.up_len.next = self.up_len_v.val();
        self.dlv_valid.next = self.dl_v.val();
        self.dlv_slot.next = self.dl_s.val();
        self.snd_valid.next = self.o_snd_valid.q.val();
        self.snd_type.next = self.z4.val();
        self.snd_peer.next = self.z16.val();
        self.snd_msg_id.next = self.z32.val();
        self.snd_len.next = self.z32.val();
        self.snd_seq.next = self.z32.val();
        self.snd_info.next = self.z32.val();
        self.snd_msg_num.next = self.z32.val();
        if self.o_snd_valid.q.val() {
            self.snd_type.next = self.rx_type.q.val();
            self.snd_peer.next = self.rx_src.q.val();
            self.snd_msg_id.next = self.rx_msg_id.q.val();
            self.snd_len.next = self.rx_len.q.val();
            self.snd_seq.next = self.rx_seq.q.val();
            self.snd_info.next = self.rx_info.q.val();
            self.snd_msg_num.next = self.rx_msg_num.q.val();
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
