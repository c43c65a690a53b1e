# Issue 37, part 1: no ordering cycle and no missing dependency that ember's units bring, in the
# images people build. Debian roots with ember installed with `dpkg -i` (ember and
# ember-cloud-init, or ember alone beside Debian's cloud-init), across network stacks, extra
# units and both ways ember runs (its stages in the initramfs, or ember-local.service in the
# booted system), are checked with `systemd-analyze verify` of the default target. A cell passes
# when verify says nothing about it that it does not say about the same cell without ember.
# Static: no VM boots; lib/units.sh holds the cells.
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/package.sh
. "$EMBER_REPO/qemu-tests/lib/package.sh"
# shellcheck source=qemu-tests/lib/units.sh
. "$EMBER_REPO/qemu-tests/lib/units.sh"

debian_required
command -v systemd-analyze >/dev/null || fail "no systemd-analyze (apt-get install systemd)"
units_roots
package_debs

table=$CASE_DIR/table
printf '%-10s %-9s %-9s %-13s %s\n' cloud-init mode stack extra verdict >"$table"
cells=$CASE_DIR/cells
mkdir -p "$cells"
failed=""
for kind in plain beside; do
    tree=$CASE_DIR/$kind
    base=$UNITS_PLAIN
    [ $kind = plain ] || base=$UNITS_BESIDE
    cp -a "$base" "$tree" || fail "cannot copy $base"
    units_pristine "$tree"
    # What verify says of each cell without ember: the baseline (Debian's own complaints).
    for stack in $UNITS_STACKS; do
        for extra in $(units_extras $kind); do
            units_cell "$tree" initramfs "$stack" "$extra" "$cells/base-$kind-$stack-$extra"
        done
    done
    units_restore "$tree"
    if [ $kind = plain ]; then
        package_install "$tree" ember ember-cloud-init
    else
        package_install "$tree" ember
    fi
    units_pristine "$tree"
    for mode in initramfs local; do
        for stack in $UNITS_STACKS; do
            for extra in $(units_extras $kind); do
                cell=$mode/$stack/$extra
                out=$cells/ember-$kind-$mode-$stack-$extra
                units_cell "$tree" "$mode" "$stack" "$extra" "$out"
                # What ember adds to the baseline, and what the boot should start but does not.
                LC_ALL=C comm -13 <(LC_ALL=C sort -u "$cells/base-$kind-$stack-$extra") \
                    <(LC_ALL=C sort -u "$out") >"$out.new"
                # shellcheck disable=SC2046 # the unit list is words
                printf '%s\n' $(units_wanted "$mode" "$extra") | LC_ALL=C sort -u |
                    LC_ALL=C comm -23 - "$out.jobs" | sed 's/^/not started: /' >>"$out.new"
                verdict=ok
                if [ -s "$out.new" ]; then
                    verdict="FAIL: $(wc -l <"$out.new") lines"
                    failed+=" $kind/$cell"
                    echo "$kind/$cell:"
                    head -n 5 "$out.new" | sed 's/^/    /'
                fi
                printf '%-10s %-9s %-9s %-13s %s\n' "$kind" "$mode" "$stack" "$extra" "$verdict" >>"$table"
            done
        done
    done
    # The check sees what it is for: a unit ordered after ember's last stage and before its
    # first makes a cycle, and one requiring a unit that is not there a missing dependency.
    for control in cycle missing; do
        out=$cells/control-$kind-$control
        units_cell "$tree" initramfs networkd "$control" "$out"
        case $control in
            cycle) grep -q 'Found ordering cycle' "$out" && grep -q 'Found dependency on ember-' "$out" ;;
            missing) grep -q 'ember-not-installed.service' "$out" ;;
        esac || fail "verify did not report the $control control ($kind): $(head -n 5 "$out")"
    done
    rm -rf "$tree"
done
cat "$table"
[ -z "$failed" ] || fail "ember's units add complaints or miss a start in:$failed"
