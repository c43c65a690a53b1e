//! The C allocator's one setting ember changes. glibc raises its mmap threshold each time a
//! large block is freed (up to 32 MiB), so later large blocks come from the heap and stay
//! resident after they are freed: a 10 MiB user-data read, parsed and written cost a third
//! more peak memory (39 instead of 28 MiB). Setting the threshold fixes it at glibc's default
//! (128 KiB), so large blocks are mapped and given back when freed. musl's allocator maps and
//! returns large blocks anyway.
#![allow(unsafe_code)] // one libc call, no Rust wrapper exists

/// Keeps blocks of 128 KiB and more mapped apart, returned to the kernel when freed. Called
/// first thing by both binaries.
pub fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// `M_MMAP_THRESHOLD` in glibc's malloc.h.
        const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
        extern "C" {
            fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
        }
        // SAFETY: mallopt only changes the allocator's tuning; it takes two ints and is called
        // before any thread exists. Its result (0 on a refused value) needs no handling: the
        // default stays.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 128 << 10);
        }
    }
}
