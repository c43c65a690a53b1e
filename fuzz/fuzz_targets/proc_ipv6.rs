//! /proc/net/if_inet6 and /proc/net/ipv6_route as SLAAC's wait reads them, and the decisions
//! taken on them (done yet? what to delete?).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ember::network::ephemeral::slaac::fuzz(data);
});
