//! DHCP replies as the ephemeral client reads them: a packet socket's IPv4/UDP frame, the
//! DHCP message with its options (overload, concatenation), and option 121 on its own.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ember::network::ephemeral::packet::fuzz(data);
});
