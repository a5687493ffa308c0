//! A worm source with a transmitter of its own: the form in which a block that shares a node's
//! one transmitter (docs/protocol.md §13.2) is a design of its own, with the link ports it has
//! alone (`tx_gnt`, `net_out`, `tx_req`: §8.2, §11.3, §13.1).
//!
//! A worm source is a block without a transmitter, with a
//! [`idemnet_rtl::worm_transmitter::WormSource`] named `worm`. It shows on `worm$due` that a
//! worm is due (from registers only), answers on `worm$word` the word the transmitter asks for
//! (the route in the cycle of `worm$start`, header word `worm$index` while `worm$header_valid`,
//! payload word `worm$index` while `worm$payload_valid`) and gives the worm's payload words on
//! `worm$payload_words`, read with its last header word; it is told `worm$start` (its worm's
//! head goes out at this edge: it latches the worm's fields) and, if it needs it,
//! `worm$finish` (its worm's CRC goes out at this edge); a source whose payload is in block RAM
//! reads it a cycle or two ahead from `worm$index` and its header length
//! ([`idemnet_rtl::worm_transmitter::header_read_lead`]). These are the ports of
//! [`idemnet_rtl::worm_transmitter::WormTransmitter`], from the parent's side; its header length
//! is the source's, a constant.
//!
//! A worm *sink* is a block without a receiver: it reads the worms of a
//! [`idemnet_rtl::worm_receiver::WormReceiver`] through a
//! [`idemnet_rtl::worm_receiver::ReceivedWorm`] named `receiver`, so that a node's NI and RMPP
//! receive path share one receiver (§13.3). Alone, it gets a receiver of its own on `net_in`,
//! framing worms of the transmitter's header length (a block receives and sends one protocol).

/// Declares `$name`: the worm source `$core` (built by `$core::new($argument)`) and a
/// [`idemnet_rtl::worm_transmitter::WormTransmitter`] of `$header_words` header words, which
/// alone owns the link: `tx_gnt` is its `grant`, `tx_req` its `request`, `net_out` its `flit`.
/// With `receives: $net_in into $receiver($node)`, the core is also a worm sink and gets a
/// [`idemnet_rtl::worm_receiver::WormReceiver`] `$receiver` for node `$node` of its own on the
/// port `$net_in`; with `ties: { $tie }`, the core's inputs `$tie` that only a node drives
/// (e.g. the NI's `upper_half_ahead`) are tied to zero.
/// The ports, in order: `clock`, `$net_in`, `tx_gnt`, `$input`, `net_out`, `tx_req`,
/// `$output`; every port but the link's is the core's port of that name.
/// The core's `worm` ([`idemnet_rtl::worm_transmitter::WormSource`]) is joined to the
/// transmitter's `source`. No logic is added: the block's timing is the core's and the
/// transmitter's.
macro_rules! with_transmitter {
    (
        $(#[$meta:meta])*
        $name:ident = $core:ident::new($argument:ident: $argument_type:ty),
        header_words: $header_words:expr,
        $(receives: $net_in:ident into $receiver:ident($receiver_node:expr),)?
        $(ties: { $($tie:ident: $tie_type:ty),* $(,)? },)?
        inputs: { $($input:ident: $input_type:ty),* $(,)? },
        outputs: { $($output:ident: $output_type:ty),* $(,)? } $(,)?
    ) => {
        $(#[$meta])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            $(pub $net_in: Signal<In, idemnet_rtl::flit::Flit>,)?
            pub tx_gnt: Signal<In, Bit>,
            $(pub $input: Signal<In, $input_type>,)*
            pub net_out: Signal<Out, idemnet_rtl::flit::Flit>,
            pub tx_req: Signal<Out, Bit>,
            $(pub $output: Signal<Out, $output_type>,)*
            core: $core,
            transmitter: idemnet_rtl::worm_transmitter::WormTransmitter,
            $($receiver: idemnet_rtl::worm_receiver::WormReceiver,)?
            header_words: Constant<Bits<4>>,
            $($($tie: Constant<$tie_type>,)*)?
        }

        impl $name {
            /// The block with its own transmitter; see the core's `new`.
            pub fn new($argument: $argument_type) -> Self {
                Self {
                    clock: Default::default(),
                    $($net_in: Default::default(),)?
                    tx_gnt: Default::default(),
                    $($input: Default::default(),)*
                    net_out: Default::default(),
                    tx_req: Default::default(),
                    $($output: Default::default(),)*
                    $($receiver: idemnet_rtl::worm_receiver::WormReceiver::new($receiver_node),)?
                    core: $core::new($argument),
                    transmitter: Default::default(),
                    header_words: Constant::new(Bits::from($header_words as u64)),
                    $($($tie: Constant::new(Default::default()),)*)?
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                self.core.clock.next = self.clock.val();
                self.transmitter.clock.next = self.clock.val();
                $(
                self.$receiver.clock.next = self.clock.val();
                self.$receiver.header_words.next = self.header_words.val();
                self.$receiver.flit.next = self.$net_in.val();
                idemnet_rtl::worm_receiver::FramedWorm::join(
                    &mut self.$receiver.worm,
                    &mut self.core.receiver,
                );
                )?
                $($(self.core.$tie.next = self.$tie.val();)*)?
                $(self.core.$input.next = self.$input.val();)*
                $(self.$output.next = self.core.$output.val();)*
                self.transmitter.grant.next = self.tx_gnt.val();
                self.transmitter.header_words.next = self.header_words.val();
                idemnet_rtl::worm_transmitter::WormSource::join(
                    &mut self.core.worm,
                    &mut self.transmitter.source,
                );
                self.net_out.next = self.transmitter.flit.val();
                self.tx_req.next = self.transmitter.request.val();
            }
        }
    };
}

pub(crate) use with_transmitter;
