//! DNS answers as ember's stub resolver reads them: id and question matched, compressed
//! names (pointers only backwards), records, the CNAME chain from the name asked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ember::fetch::fuzz_dns(data);
});
