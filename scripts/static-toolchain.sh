# shellcheck shell=bash
# Sourced by scripts/build-static and scripts/hot-text: the toolchain of a static build.
#
#   static_toolchain gnu|musl
#
# gnu: rustup's stable toolchain, glibc linked statically (+crt-static), its relocations packed.
# musl: Debian's own Rust (rustc-web 1.96), which builds std from its sources (rust-web-src)
# for x86_64-unknown-linux-musl with the sysroot scripts/musl-sysroot makes; RUSTC_BOOTSTRAP
# lets that stable compiler take -Zbuild-std. Sets `target`, `flags` (for RUSTFLAGS), `cargo`
# (the command, an array), `std_flags` (cargo's, an array) and exports CARGO_TARGET_DIR.
# shellcheck disable=SC2034 # the variables are for the script that sources this
static_toolchain() {
    local libc=$1 target_dir sysroot
    target=x86_64-unknown-linux-$libc
    target_dir=$(realpath -m "${CARGO_TARGET_DIR:-target}")
    # Unwind tables serve only backtraces, and a panic aborts (profile.release): 570 KiB of
    # .eh_frame in ember-initrd that no boot reads. A panic still prints its message and place.
    flags="-C force-unwind-tables=no"
    if [ "$libc" = gnu ]; then
        cargo=(cargo)
        std_flags=()
        # The relocations a static-pie applies to itself at start, packed (DT_RELR, glibc 2.36):
        # 2.7 KiB instead of 206 KiB of table, which every run read whole (BENCHMARKS.md).
        flags="$flags -C target-feature=+crt-static -C link-arg=-Wl,-z,pack-relative-relocs"
    else
        # A target directory of its own: another compiler, whose build scripts and host
        # libraries must not replace the stable toolchain's.
        target_dir=$target_dir/musl
        sysroot=$("$EMBER_SCRIPTS/musl-sysroot" "$target_dir/sysroot") || return 1
        cargo=(env -u RUSTUP_TOOLCHAIN RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
            RUSTC_BOOTSTRAP=1 /usr/bin/cargo)
        # std built as the rest is (opt-level z, LTO, abort), without symbolised backtraces
        # (a stripped binary cannot give them) and with std's size-over-speed choices (sorts).
        # shellcheck disable=SC2054 # one flag, whose value has commas
        std_flags=(-Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size)
        # A panic names no file and line: 130 KiB of ember-initrd (each place a string and a
        # relocated pointer), 280 KiB of a first boot's RSS. Its message still says what failed.
        flags="$flags -Zlocation-detail=none"
        # musl 1.2.3 cannot apply packed relocations. lld (lld-22) through cc, as rust-lld is
        # on the gnu target: it folds identical code and takes scripts/hot-text's layout.
        flags="$flags --sysroot $sysroot -C link-arg=-fuse-ld=lld -C link-arg=-B$sysroot/gcc-ld"
    fi
    export CARGO_TARGET_DIR=$target_dir
}
EMBER_SCRIPTS=$(cd -- "$(dirname "${BASH_SOURCE[0]}")" >/dev/null && pwd)
