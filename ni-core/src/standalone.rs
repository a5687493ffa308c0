//! A worm source with a transmitter of its own: the form in which a block that shares a node's
//! one transmitter (docs/protocol.md §13.2) is a design of its own, with the link ports it has
//! alone (`tx_gnt`, `net_out`, `tx_req`: §8.2, §11.3, §13.1).
//!
//! A worm source is a block without a transmitter. It shows on `worm_due` that a worm is due
//! (from registers only), answers on `worm_word` the word the transmitter asks for (the route
//! in the cycle of `worm_start`, header word `worm_index` while `worm_header_valid`, payload
//! word `worm_index` while `worm_payload_valid`) and gives the worm's payload words on
//! `worm_payload_words`, read with its last header word; it is told `worm_start` (its worm's
//! head goes out at this edge: it latches the worm's fields) and, if it needs them,
//! `worm_finish` (its worm's CRC goes out at this edge) and `worm_fetch_index` (the payload word
//! asked for in the next cycle, for a block RAM read a cycle ahead). These are the ports of
//! [`idemnet_rtl::worm_transmitter::WormTransmitter`], from the parent's side; its header length
//! is the source's, a constant.

/// Declares `$name`: the worm source `$core` (built by `$core::new($argument)`) and a
/// [`idemnet_rtl::worm_transmitter::WormTransmitter`] of `$header_words` header words, which
/// alone owns the link: `tx_gnt` is its `grant`, `tx_req` its `request`, `net_out` its `flit`.
/// The ports, in order: `clock`, `$early` (inputs before `tx_gnt`), `tx_gnt`, `$input`,
/// `net_out`, `tx_req`, `$output`; every port but the link's is the core's port of that name.
/// `asks` lists the transmitter's outputs the core reads (core port = transmitter port);
/// `worm_due`, `worm_word` and `worm_payload_words` are the core's answers. No logic is added:
/// the block's timing is the core's and the transmitter's.
macro_rules! with_transmitter {
    (
        $(#[$meta:meta])*
        $name:ident = $core:ident::new($argument:ident: $argument_type:ty),
        header_words: $header_words:expr,
        early: { $($early:ident: $early_type:ty),* $(,)? },
        inputs: { $($input:ident: $input_type:ty),* $(,)? },
        outputs: { $($output:ident: $output_type:ty),* $(,)? },
        asks: { $($ask:ident = $ask_port:ident),* $(,)? } $(,)?
    ) => {
        $(#[$meta])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            $(pub $early: Signal<In, $early_type>,)*
            pub tx_gnt: Signal<In, Bit>,
            $(pub $input: Signal<In, $input_type>,)*
            pub net_out: Signal<Out, idemnet_rtl::flit::Flit>,
            pub tx_req: Signal<Out, Bit>,
            $(pub $output: Signal<Out, $output_type>,)*
            core: $core,
            transmitter: idemnet_rtl::worm_transmitter::WormTransmitter,
            header_words: Constant<Bits<4>>,
        }

        impl $name {
            /// The block with its own transmitter; see the core's `new`.
            pub fn new($argument: $argument_type) -> Self {
                Self {
                    clock: Default::default(),
                    $($early: Default::default(),)*
                    tx_gnt: Default::default(),
                    $($input: Default::default(),)*
                    net_out: Default::default(),
                    tx_req: Default::default(),
                    $($output: Default::default(),)*
                    core: $core::new($argument),
                    transmitter: Default::default(),
                    header_words: Constant::new(Bits::from($header_words as u64)),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                self.core.clock.next = self.clock.val();
                self.transmitter.clock.next = self.clock.val();
                $(self.core.$early.next = self.$early.val();)*
                $(self.core.$input.next = self.$input.val();)*
                $(self.$output.next = self.core.$output.val();)*
                self.transmitter.grant.next = self.tx_gnt.val();
                self.transmitter.header_words.next = self.header_words.val();
                self.transmitter.due.next = self.core.worm_due.val();
                self.transmitter.word.next = self.core.worm_word.val();
                self.transmitter.payload_words.next = self.core.worm_payload_words.val();
                $(self.core.$ask.next = self.transmitter.$ask_port.val();)*
                self.net_out.next = self.transmitter.flit.val();
                self.tx_req.next = self.transmitter.request.val();
            }
        }
    };
}

pub(crate) use with_transmitter;
