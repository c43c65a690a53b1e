//! DHCPv6 Advertise/Reply messages as the ephemeral client decodes and judges them (xid,
//! DUID, server, IA_NA with its addresses and statuses).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ember::network::ephemeral::dhcp6::fuzz(data);
});
