# Shared by build-image, run, selftest, run-tests and ci (sourced, not executed).
# Computes where the cached guest image lives; no side effects.

VM_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$VM_DIR/../.." && pwd)"

# Bump when build-image changes what it puts into the image (not needed for package list or
# guest/boot changes: those are hashed directly).
VM_RECIPE=1
VM_SUITE=bookworm
VM_MIRROR="${JOFI_VM_MIRROR:-http://deb.debian.org/debian}"
VM_CACHE="${JOFI_VM_CACHE:-${HOME:-/root}/.cache/jofi-vm}"
# JOFI_VM_SIW=1: the image variant with soft-iWARP (siw.ko built out of tree, ~6 min more to
# build); a separate cache entry.
VM_SIW="${JOFI_VM_SIW:-0}"
# How qemu emulates the guest's CPU; JOFI_VM_CPU / JOFI_VM_ACCEL override them per run.
# Single-threaded TCG: with qemu's default multi-threaded TCG, a vCPU could run JIT code that
# HotSpot was patching on the other vCPU (an nmethod made not entrant) and the guest JVM
# crashed now and then in plain Java code (README.md, "The guest CPU", has the hs_err).
# The CPU model does not matter for that (Nehalem-v2 was only slower); max stays.
VM_CPU=max
VM_ACCEL=tcg,thread=single

vm_log() { echo "jofi-vm: $*" >&2; }
vm_die() { echo "jofi-vm: error: $*" >&2; exit 2; }

# The package list: comments and blank lines dropped, one per line, sorted.
vm_packages() {
    sed -e 's/#.*//' -e 's/[[:space:]]//g' "$VM_DIR/packages" | grep -v '^$' | LC_ALL=C sort -u
}

# The cache key: what decides the image's content. The mirror is left out on purpose (same
# suite = same packages, give or take point releases).
vm_key() {
    {
        echo "recipe=$VM_RECIPE suite=$VM_SUITE"
        [[ "$VM_SIW" == 1 ]] && echo "siw out of tree from linux-source-6.1"
        vm_packages
        cat "$VM_DIR/guest/boot"
    } | sha256sum | cut -c1-16
}

vm_image_dir() { echo "$VM_CACHE/$(vm_key)"; }

# True when the image in DIR is complete (build-image writes .complete last).
vm_image_ready() {
    local d="$1"
    [[ -f "$d/.complete" && -f "$d/rootfs.ext4" && -f "$d/vmlinuz" && -f "$d/initrd.img" ]]
}
