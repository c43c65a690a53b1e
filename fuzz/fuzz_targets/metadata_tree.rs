//! ember::datasource::common::ec2_tree::fuzz: see src/datasource/common/ec2_tree.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ember::datasource::common::ec2_tree::fuzz(data);
});
