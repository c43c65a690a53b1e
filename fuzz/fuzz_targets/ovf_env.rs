//! ember::fuzz::ovf_env: see src/fuzz.rs for what it exercises.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ember::fuzz::ovf_env(data);
});
