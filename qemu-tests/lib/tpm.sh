# shellcheck shell=bash
# A TPM 2.0 for a guest: swtpm on a Unix control socket, which QEMU's `-tpmdev emulator` drives
# (boot --tpm "$SWTPM_SOCK"). Loaded after common.sh and checks.sh.

# tpm_required: swtpm is there, or the case is skipped (failed under CI, where scripts/setup
# installs it).
tpm_required() {
    command -v swtpm >/dev/null && return 0
    [ -z "${CI:-}" ] || fail "swtpm missing under CI (scripts/setup installs it)"
    skip "swtpm not installed (scripts/setup installs it)"
}

# start_swtpm DIR: a fresh TPM (every bank swtpm has active: sha1, sha256, sha384, sha512) with
# its state in DIR; SWTPM_SOCK is its socket, SWTPM_PID its process, stopped with the case. QEMU
# starts it (CMD_INIT) and SeaBIOS sends TPM2_Startup, as on a real machine.
start_swtpm() {
    mkdir -p "$1"
    SWTPM_SOCK=$1/sock
    swtpm socket --tpm2 --tpmstate "dir=$1" --ctrl "type=unixio,path=$SWTPM_SOCK" \
        --log "file=$1/log,level=1" >/dev/null 2>&1 &
    SWTPM_PID=$!
    trap 'kill $SWTPM_PID 2>/dev/null' EXIT
    for _ in $(seq 100); do [ -S "$SWTPM_SOCK" ] && return 0; sleep 0.1; done
    fail "swtpm made no socket"
}

# predict_pcr SEED ROOT BANK: ember's prediction of PCR 12 in BANK (uppercase hex) for the seed
# directory SEED and the image root ROOT.
predict_pcr() {
    "$EMBER_INITRD" pcr-predict "$1" --root "$2" --bank "$3" | awk -v b="$3:12" '$1 == b { print $2 }'
}
