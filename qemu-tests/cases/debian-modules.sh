# The runner's Debian modules in a real Debian bookworm (systemd, apt, dpkg), as debian-ssh
# boots it: apt_configure adds a local file:// repository whose Release is signed by a
# throwaway key made on the host, with that key given armored inline in the user-data (ember
# dearmors it; no gpg in the guest is used); package_update_upgrade_install then updates and
# installs the repository's package with the guest's own apt, which refuses a repository whose
# signature does not verify. apt_pipelining and apt.conf are checked through apt-config, and
# the image's sources.list (no cloud-init templates in the image) is left as it was.
# locale, keyboard and rsyslog are checked with the guest's locale -a, the keyboard file and
# rsyslogd (its config check, and a message logged to the drop-in's facility).
# The root is debootstrapped once into the cache (lib/debian.sh).
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"

no_gpg=""
command -v gpg >/dev/null || no_gpg="no gpg on the host (apt-get install gpg)"
debian_required "$no_gpg"
stamp() { echo "debian-modules: [$(($(date +%s) - case_start)) s] $*"; }
case_start=$(date +%s)
ensure_debian_root || fail "debootstrap failed (see the log)"
stamp "root cached at $DEBIAN_ROOT"

root=$CASE_DIR/root disk=$CASE_DIR/disk.img key=$CASE_DIR/id_ed25519
debian_image_root "$root" || fail "cannot prepare the image root"
debian_install_ember "$root"
# No network sources (the guest's network reaches nothing but ssh): apt sees only the test
# repository. ember must leave this file as it is (the image has no cloud-init templates).
sources_list='# ember debian-modules image: no network sources'
echo "$sources_list" >"$root/etc/apt/sources.list"
rm -rf "$root"/etc/apt/sources.list.d/* "$root"/var/lib/apt/lists/*

# The repository: a throwaway signing key in a GNUPGHOME of the case's own, a one-file
# package, a flat Packages index and a Release, clear-signed (InRelease) and detached.
export GNUPGHOME=$CASE_DIR/gnupg
trap 'gpgconf --kill all 2>/dev/null' EXIT
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'ember test repository <repo@ember.test>' \
    ed25519 sign never 2>"$CASE_DIR/gpg.log" || fail "gpg could not make a key: $(tail -n 3 "$CASE_DIR/gpg.log")"
gpg --armor --export repo@ember.test >"$CASE_DIR/repo-key.asc" || fail "gpg --export failed"
gpg --export repo@ember.test >"$CASE_DIR/repo-key.gpg" || fail "gpg --export failed"
pkg=$CASE_DIR/pkg repo=$root/srv/ember-repo
mkdir -p "$pkg/DEBIAN" "$pkg/usr/share/ember-test-pkg" "$repo"
printf '%s\n' 'Package: ember-test-pkg' 'Version: 1.0' 'Architecture: all' \
    'Maintainer: ember tests <tests@ember.test>' \
    'Description: marker package of the debian-modules QEMU case' >"$pkg/DEBIAN/control"
echo "installed from the signed test repository" >"$pkg/usr/share/ember-test-pkg/marker"
dpkg-deb --root-owner-group --build "$pkg" "$repo/ember-test-pkg_1.0_all.deb" >/dev/null ||
    fail "dpkg-deb --build failed"
deb=$repo/ember-test-pkg_1.0_all.deb
{
    dpkg-deb -f "$deb"
    echo "Filename: ./ember-test-pkg_1.0_all.deb"
    echo "Size: $(stat -c %s "$deb")"
    echo "SHA256: $(sha256sum "$deb" | cut -d' ' -f1)"
    echo
} >"$repo/Packages"
{
    echo "Origin: ember"
    echo "Label: ember-test"
    echo "Date: $(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S UTC')"
    echo "SHA256:"
    echo " $(sha256sum "$repo/Packages" | cut -d' ' -f1) $(stat -c %s "$repo/Packages") Packages"
} >"$repo/Release"
gpg --batch --yes --quiet --clearsign -o "$repo/InRelease" "$repo/Release" &&
    gpg --batch --yes --quiet --armor --detach-sign -o "$repo/Release.gpg" "$repo/Release" ||
    fail "signing the Release failed"
chmod -R a+rX "$repo"
stamp "test repository built and signed"

ssh-keygen -q -t ed25519 -N '' -C tester@ember-debian -f "$key" || fail "ssh-keygen failed"
debian_seed "$CASE_DIR/seed" "$key.pub"
{
    echo "apt:"
    echo "  conf: |"
    echo "    Ember::Debian-Modules \"marker\";"
    echo "  sources:"
    echo "    ember-test:"
    echo "      source: \"deb [signed-by=\$KEY_FILE] file:/srv/ember-repo ./\""
    echo "      key: |"
    sed 's/^/        /' "$CASE_DIR/repo-key.asc"
    echo "apt_pipelining: false"
    echo "package_update: true"
    echo "packages: [ember-test-pkg]"
    echo "locale: de_DE.UTF-8"
    echo "keyboard: {layout: de, variant: nodeadkeys}"
    echo "rsyslog:"
    echo "  configs:"
    echo "    - filename: 50-ember-test.conf"
    echo "      content: 'local5.* /var/log/ember-test.log'"
} >>"$CASE_DIR/seed/user-data"
make_iso_seed "$CASE_DIR/seed" "$CASE_DIR/seed.iso"
make_disk "$root" "$disk" 1536
rm -rf "$root"
stamp "image ready"

port=$(free_port)
CONSOLE=$CASE_DIR/debian.console
WORK=$CASE_DIR boot debian --disk "$disk" --cdrom "$CASE_DIR/seed.iso" --ssh "$port" \
    --memory 1024 --append "root=/dev/vda1 rw" --timeout 600 &
vm=$!
trap 'pkill -TERM -P $vm 2>/dev/null; gpgconf --kill all 2>/dev/null' EXIT

known=$CASE_DIR/known_hosts
guest() {
    timeout 120 ssh -q -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile="$known" -i "$key" -p "$port" tester@127.0.0.1 "$@"
}
# About 80 s to sshd under TCG on an idle host; four minutes and more on a loaded one.
deadline=$((SECONDS + 400))
until guest true 2>/dev/null; do
    kill -0 $vm 2>/dev/null || fail "QEMU stopped before ssh answered"
    [ $SECONDS -lt $deadline ] || fail "no ssh login as tester within 400 s"
    sleep 3
done
stamp "logged in over ssh"

# The final stage installs the package: wait for it, then nothing may be wrong.
guest sudo cloud-init status --wait --long >"$CASE_DIR/status.out" 2>&1
rc=$?
cat "$CASE_DIR/status.out"
[ $rc -eq 0 ] || fail "cloud-init status --wait exited $rc: $(tr '\n' ' ' <"$CASE_DIR/status.out")"
stamp "status done"

# shellcheck disable=SC2016 # expanded in the guest
guest 'set -x
    cat /etc/apt/sources.list.d/ember-test.list
    sudo sha256sum /etc/apt/cloud-init.gpg.d/ember-test.gpg
    stat -c "%a" /etc/apt/cloud-init.gpg.d/ember-test.gpg
    dpkg-query -W -f="\${Status} \${Version}\n" ember-test-pkg
    cat /usr/share/ember-test-pkg/marker
    cat /etc/apt/sources.list
    apt-config dump | grep -E "^(Acquire::http::Pipeline-Depth|Ember::Debian-Modules) "
    cat /etc/apt/apt.conf.d/90cloud-init-pipelining
    apt-cache policy ember-test-pkg' >"$CASE_DIR/guest-apt" 2>&1 || fail "the guest checks failed to run (see guest-apt)"
guest 'sudo cat /var/log/cloud-init-output.log' >"$CASE_DIR/output.log" 2>&1 ||
    fail "cannot read cloud-init-output.log"
cat "$CASE_DIR/guest-apt"
has() { grep -qxF -- "$1" "$CASE_DIR/guest-apt" || fail "the guest lacks the line: $1"; }
has 'deb [signed-by=/etc/apt/cloud-init.gpg.d/ember-test.gpg] file:/srv/ember-repo ./'
# The key file is the dearmored key, byte for byte what `gpg --export` gives.
has "$(sha256sum "$CASE_DIR/repo-key.gpg" | cut -d' ' -f1)  /etc/apt/cloud-init.gpg.d/ember-test.gpg"
has 644
has 'install ok installed 1.0'
has 'installed from the signed test repository'
has "$sources_list"
has 'Acquire::http::Pipeline-Depth "0";'
has 'Ember::Debian-Modules "marker";'
has "//Written by cloud-init per 'apt_pipelining'"
grep -qE '^ +500 file:/srv/ember-repo \./ +Packages' "$CASE_DIR/guest-apt" ||
    fail "apt-cache policy does not show the package from the test repository"
# apt fetched the signed index, and no signature was refused or missing.
grep -qE '(Get|Hit):[0-9]+ file:/srv/ember-repo \./ InRelease' "$CASE_DIR/output.log" ||
    fail "apt-get update did not read the repository's InRelease (see output.log)"
! grep -qE 'NO_PUBKEY|GPG error|is not signed|BADSIG|EXPKEYSIG|unauthenticated|not valid yet' \
    "$CASE_DIR/output.log" || fail "apt reported a signature problem (see output.log)"
stamp "repository, key, package, pipelining and apt.conf checked"

# locale, keyboard and rsyslog, judged by the guest's own tools: the generated locale is
# listed by `locale -a`, console-setup read the keyboard file, rsyslogd accepts the drop-in
# and a message logged to its facility lands in its file.
# shellcheck disable=SC2016 # expanded in the guest
guest 'set -x
    cat /etc/default/locale
    locale -a
    grep -E "^XKB(LAYOUT|VARIANT)=" /etc/default/keyboard
    cat /etc/rsyslog.d/50-ember-test.conf
    sudo rsyslogd -N1 2>&1 | tail -n 1
    logger -p local5.info ember-rsyslog-marker
    sleep 2
    sudo cat /var/log/ember-test.log' >"$CASE_DIR/guest-system" 2>&1 ||
    fail "the guest's locale, keyboard or rsyslog checks failed (see guest-system)"
cat "$CASE_DIR/guest-system"
sys_has() { grep -qE -- "$1" "$CASE_DIR/guest-system" || fail "the guest lacks: $1"; }
sys_has '^LANG="?de_DE\.UTF-8"?$'
sys_has '^de_DE\.utf8$'
sys_has '^XKBLAYOUT="de"$'
sys_has '^XKBVARIANT="nodeadkeys"$'
sys_has '^local5\.\* /var/log/ember-test\.log$'
sys_has 'End of config validation run'
sys_has 'ember-rsyslog-marker'
stamp "locale, keyboard and rsyslog checked"

rc=0
guest_poweroff $vm || rc=$?
trap - EXIT
gpgconf --kill all 2>/dev/null
[ $rc -ne 124 ] || fail "no power-off within the time limit"
stamp "powered off"
console_lacks 'Failed to start .*ember'
