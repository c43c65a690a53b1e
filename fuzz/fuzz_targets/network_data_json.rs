//! ember::fuzz::network_data_json: see src/fuzz.rs for what it exercises.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ember::fuzz::network_data_json(data);
});
