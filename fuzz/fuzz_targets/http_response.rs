//! HTTP answers as the metadata and seed client reads them: interim 1xx heads, the final
//! status line and headers under their budget, bodies by Content-Length, chunks or the end.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ember::fetch::fuzz_response(data);
});
