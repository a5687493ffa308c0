//! A node's host ports, written once (docs/protocol.md §10, §13; `idemnet_spec::node`).
//!
//! [`with_host_ports`] hands the list to a macro that builds from it: [`crate::node::Node`]
//! declares, initializes and wires its ports to its blocks with it, and
//! [`crate::system::System`] declares its per-node ports and copies them to its nodes. The
//! entries are grouped by block (the NI, the RMPP receive path, the framer), inputs then
//! outputs, in the order of the contract's port tables; each names the port as the node shows
//! it, the block's own port and its type. `node_ports_are_in_the_documented_order` (node) and
//! `the_ports_are_the_spec_layout` (system) hold the list to those tables, so the Verilog port
//! lists, the name lists and the model's offsets (all from `idemnet_spec`) cannot drift from it.

/// Calls `$callback! { ni: { inputs: {..}, outputs: {..} }, rx: {..}, tx: {..} }` with the
/// node's host ports, each entry `node_port = block_port: Type`.
macro_rules! with_host_ports {
    ($callback:ident) => {
        $callback! {
            ni: {
                inputs: {
                    req_valid = req_valid: Bit,
                    req_data = req_data: Bits<32>,
                    req_last = req_last: Bit,
                    req_dst = req_dst: Bits<16>,
                    req_len = req_len: Bits<6>,
                    dlv_ready = dlv_ready: Bit,
                },
                outputs: {
                    req_ready = req_ready: Bit,
                    dlv_valid = dlv_valid: Bit,
                    dlv_data = dlv_data: Bits<32>,
                    dlv_last = dlv_last: Bit,
                    dlv_src = dlv_src: Bits<16>,
                    dlv_uid = dlv_uid: Bits<32>,
                    dlv_len = dlv_len: Bits<6>,
                    done_valid = done_valid: Bit,
                    done_uid = done_uid: Bits<32>,
                    cnt_crc = cnt_crc: Bits<16>,
                    cnt_truncated = cnt_truncated: Bits<16>,
                    cnt_malformed = cnt_malformed: Bits<16>,
                    cnt_misrouted = cnt_misrouted: Bits<16>,
                    cnt_table_full = cnt_table_full: Bits<16>,
                    cnt_unknown = cnt_unknown: Bits<16>,
                    cnt_busy = cnt_busy: Bits<16>,
                    cnt_duplicate = cnt_duplicate: Bits<16>,
                    cnt_retransmit = cnt_retransmit: Bits<16>,
                    cnt_host_error = cnt_host_error: Bits<16>,
                },
            },
            rx: {
                inputs: {
                    rx_up_ready = up_ready: Bit,
                    rx_up_accept = up_accept: Bits<32>,
                    rx_dlv_ready = dlv_ready: Bit,
                    rx_rd_slot = rd_slot: Bits<4>,
                    rx_rd_word = rd_word: Bits<10>,
                },
                outputs: {
                    rx_up_valid = up_valid: Bit,
                    rx_up_slot = up_slot: Bits<4>,
                    rx_up_src = up_src: Bits<16>,
                    rx_up_msg_id = up_msg_id: Bits<32>,
                    rx_up_msg_num = up_msg_num: Bits<32>,
                    rx_up_len = up_len: Bits<32>,
                    rx_dlv_valid = dlv_valid: Bit,
                    rx_dlv_slot = dlv_slot: Bits<4>,
                    rx_dlv_len = dlv_len: Bits<32>,
                    rx_rd_data = rd_data: Bits<32>,
                    rx_snd_valid = snd_valid: Bit,
                    rx_snd_type = snd_type: Bits<4>,
                    rx_snd_peer = snd_peer: Bits<16>,
                    rx_snd_msg_id = snd_msg_id: Bits<32>,
                    rx_snd_len = snd_len: Bits<32>,
                    rx_snd_seq = snd_seq: Bits<32>,
                    rx_snd_info = snd_info: Bits<32>,
                    rx_snd_msg_num = snd_msg_num: Bits<32>,
                    rx_cnt_crc = cnt_crc: Bits<16>,
                    rx_cnt_truncated = cnt_truncated: Bits<16>,
                    rx_cnt_malformed = cnt_malformed: Bits<16>,
                    rx_cnt_misrouted = cnt_misrouted: Bits<16>,
                    rx_cnt_version = cnt_version: Bits<16>,
                    rx_cnt_not_source = cnt_not_source: Bits<16>,
                    rx_cnt_order = cnt_order: Bits<16>,
                    rx_cnt_sequence = cnt_sequence: Bits<16>,
                    rx_cnt_table_full = cnt_table_full: Bits<16>,
                    rx_cnt_unknown = cnt_unknown: Bits<16>,
                    rx_cnt_duplicate = cnt_duplicate: Bits<16>,
                    rx_cnt_busy = cnt_busy: Bits<16>,
                    rx_cnt_restart = cnt_restart: Bits<16>,
                },
            },
            tx: {
                inputs: {
                    tx_valid = tx_valid: Bit,
                    tx_data = tx_data: Bits<32>,
                    tx_last = tx_last: Bit,
                    tx_dst = tx_dst: Bits<16>,
                    tx_type = tx_type: Bits<4>,
                    tx_bytes = tx_bytes: Bits<6>,
                },
                outputs: {
                    tx_ready = tx_ready: Bit,
                    tx_cnt_host_error = tx_cnt_host_error: Bits<16>,
                },
            },
        }
    };
}

pub(crate) use with_host_ports;
