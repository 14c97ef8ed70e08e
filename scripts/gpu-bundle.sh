#!/usr/bin/env bash
# Writes the prebuilt GPU bundle into DIR, for a GPU host that has the NVIDIA driver and the CUDA libraries
# (toolkit or Python wheels) but no compiler, package registry or time to build: DIR/run.sh OUT runs the GPU
# validation there (docs/gpu.md, "The GPU bundle").
#
# From the existing build of the default preset (build/default, or $MLBENCH_BUILD); only when there is none is
# it configured and built, so CI, which has just built it, pays for no second CUDA build. DIR gets an install-like
# tree: bin/ (stripped mlbench and the GPU test binaries, RUNPATH $ORIGIN/../lib), lib/ (every shared library they
# need except glibc's and the CUDA ones, RUNPATH $ORIGIN; the C++ runtime, libstdc++ and libgcc_s, in
# lib/compat, which run.sh uses only where the host's copy is older), share/mlbench/configs (where mlbench looks beside its
# bin/), run.sh, summary.py and BUNDLE.txt. cudart, cuBLASLt, cuDNN and NCCL are not bundled: they are tied to
# the host's driver and are hundreds of MiB; run.sh finds them on the GPU host.
# Usage: [MLBENCH_BUILD=build-dir] scripts/gpu-bundle.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/gpu-bundle.sh DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${MLBENCH_BUILD:-$src/build/default}
binaries=(mlbench tests/gpu/gpu_device_tests)
max_mib=60
log() { echo "gpu-bundle: $*"; }
die() {
  echo "gpu-bundle: $*" >&2
  exit 1
}

# Libraries the bundle leaves to the host: glibc (tied to the host's dynamic loader) and the CUDA libraries
# (run.sh finds them; libcuda comes with the driver).
host_lib='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl)\.so'
# The C++ runtime: bundled in lib/compat, used only where the host's is older (run.sh).
runtime_lib='^lib(stdc\+\+|gcc_s)\.so'
cuda_lib='^lib(cuda|cudart|cublas|cublasLt|cudnn[a-z_]*|nccl|nvrtc[a-z.-]*|nvJitLink|nvidia-ml)\.so'

command -v patchelf >/dev/null || die "patchelf not found (apt-get install patchelf; scripts/setup-debian-tests.sh installs it)"
if [[ ! -f $build/CMakeCache.txt ]]; then
  [[ $build == "$src/build/default" ]] || die "no build in $build (MLBENCH_BUILD must name a configured build folder)"
  log "no build in $build: configuring the default preset"
  (cd "$src" && cmake --preset default >/dev/null)
fi
config=$build/generated/mlbench_config.hpp
for feature in CUDA CUDNN NCCL; do
  grep -Eq "^#define MLBENCH_HAS_${feature} 1" "$config" ||
    die "the build in $build has no ${feature} (see its configure summary); a GPU bundle needs every GPU probe"
done
targets=()
for b in "${binaries[@]}"; do targets+=("$(basename "$b")"); done
# Up to date after the default build: this only checks.
if ! output=$(cmake --build "$build" --target "${targets[@]}" 2>&1); then
  tail -20 <<<"$output" >&2
  die "building ${targets[*]} in $build failed"
fi

if [[ -e $dir && ! -f $dir/BUNDLE.txt && -n $(ls -A "$dir") ]]; then
  die "$dir exists, is not empty and is no bundle; give an empty or new folder"
fi
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib/compat" "$dir/share/mlbench"
dir=$(cd "$dir" && pwd)

for b in "${binaries[@]}"; do
  install -m 755 "$build/$b" "$dir/bin/"
  strip --strip-unneeded "$dir/bin/$(basename "$b")"
done
# ldd lists the whole closure; each library is copied under the name the binaries ask for (its soname).
declare -A bundled=()
for b in "$dir"/bin/*; do
  while read -r name _ path _; do
    [[ $name =~ $host_lib || $name =~ $cuda_lib || -n ${bundled[$name]:-} ]] && continue
    [[ -f $path ]] || die "$(basename "$b") needs $name, which is not found on this machine (ldd: $path)"
    # The C++ runtime goes to lib/compat, which run.sh puts first on the search path only when the host's
    # copy is older than this one (or missing): a newer host copy serves every symbol this one has, and
    # loading an older one ahead of it would break host libraries built against the newer.
    dest=$dir/lib
    [[ $name =~ $runtime_lib ]] && dest=$dir/lib/compat
    cp -L "$path" "$dest/$name"
    chmod 644 "$dest/$name"
    strip --strip-unneeded "$dest/$name"
    bundled[$name]=$path
  done < <(ldd "$b" | awk '$2 == "=>" { print $1, $2, $3, $4 }')
done
# lib/compat is on no RUNPATH: run.sh puts it on LD_LIBRARY_PATH when the host's runtime is older.
for f in "$dir"/lib/*.so* "$dir"/lib/compat/*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for b in "$dir"/bin/*; do patchelf --set-rpath '$ORIGIN/../lib' "$b"; done

cp -r "$src/configs" "$dir/share/mlbench/configs"
install -m 755 "$src/scripts/gpu-bundle/run.sh" "$dir/run.sh"
install -m 644 "$src/scripts/gpu-bundle/summary.py" "$dir/summary.py"

dlopened=()
for var in MLBENCH_CUDNN_LIBRARY MLBENCH_NCCL_LIBRARY; do
  lib=$(sed -n "s/^$var:FILEPATH=//p" "$build/CMakeCache.txt")
  soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [[ -n $soname ]] || die "no soname in $lib ($var of $build/CMakeCache.txt)"
  dlopened+=("$soname")
done
glibc=$(objdump -T "$dir"/bin/* "$dir"/lib/*.so* "$dir"/lib/compat/* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
{
  echo "mlbench GPU bundle"
  echo "commit: $(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git -C "$src" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "needs: x86_64 Linux with glibc >= ${glibc#GLIBC_}, the NVIDIA driver, and from the CUDA toolkit or the Python wheels:"
  for b in "$dir"/bin/*; do readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | grep -E "$cuda_lib" | sort -u |
    sed 's/^/  /'
  # cuDNN and NCCL are loaded when gpu.conv and net.nccl first call them (dlopen by soname), not linked: run.sh
  # reads this line to look for them too. The sonames are those of the libraries this build compiled against.
  echo "loaded at run time: ${dlopened[*]}"
  echo "bundled libraries (from this machine):"
  for name in $(printf '%s\n' "${!bundled[@]}" | sort); do echo "  $name  <- ${bundled[$name]}"; done
} >"$dir/BUNDLE.txt"

size_kib=$(du -sk "$dir" | cut -f1)
((size_kib <= max_mib * 1024)) || die "bundle is $((size_kib / 1024)) MiB, over the ${max_mib} MiB limit"
log "wrote $dir ($((size_kib / 1024)) MiB, ${#bundled[@]} bundled libraries); on the GPU host: $dir/run.sh OUT"
