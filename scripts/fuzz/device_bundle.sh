#!/usr/bin/env bash
# Packs the language-server fuzzer (tests/server/fuzz_language_server) into a folder that runs on
# another Linux x86-64 machine with nothing of ours installed (the GPU machine: more cores, no
# Halide, no LLVM, no network), for long runs on many cores. See docs/DEVICE_FUZZ.md for the device
# tool call and how to bring the results home.
#
#   scripts/fuzz/device_bundle.sh BUILD_DIR OUT_DIR      e.g. build .bundle-fuzz
#
# OUT_DIR gets:
#   bin/fuzz_language_server   the fuzzer, debug info stripped (symbols kept for ASan's reports)
#   lib/                       the shared libraries it needs beyond glibc (spdlog, fmt, Boost,
#                              xxhash, zstd, libstdc++, libgcc_s), and stubs for libclang and Halide
#   corpus/                    the checked-in seeds (tests/server/fuzz_lsp_corpus)
#   run.sh                     scripts/fuzz/device_run.sh: the run itself (its header says how)
#
# Why stubs: the server's sources link libclang (the real source indexer) and the engine links
# Halide, and those pull in LLVM, z3 and ICU (~220 MB). The fuzzer never calls them (fake
# analyzer, fake indexer), so each is replaced by a small library of the same SONAME defining
# the symbols the fuzzer references: every one aborts if called (a call would show up as a crash,
# not as silent wrong behaviour), except Halide's introspection self-test run at start-up.
# glibc (2.34 or later) is taken from the machine; run.sh checks with ldd before fuzzing.
set -euo pipefail
build=${1:?usage: device_bundle.sh BUILD_DIR OUT_DIR}
out=${2:?usage: device_bundle.sh BUILD_DIR OUT_DIR}
repo=$(cd "$(dirname "$0")/../.." && pwd)
fuzzer=$build/tests/server/fuzz_language_server
cc=${CC:-cc}

nice cmake --build "$build" --target fuzz_language_server -j "${HLSCHED_JOBS:-2}" >&2
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/corpus"

strip --strip-debug -o "$out/bin/fuzz_language_server" "$fuzzer"
cp "$repo"/tests/server/fuzz_lsp_corpus/* "$out/corpus/"
cp "$repo/scripts/fuzz/device_run.sh" "$out/run.sh"
chmod +x "$out/run.sh"

# Libraries that a stock machine has (glibc's) stay behind; never-called ones become stubs.
is_glibc() { [[ $1 =~ ^(linux-vdso|ld-linux-x86-64|libc|libm|libpthread|libdl|librt)\.so ]]; }
is_stubbed() { [[ $1 =~ ^(libHalide|libclang) ]]; }

# A stub: every symbol of LIBRARY that the fuzzer references, under the same versions.
make_stub() {
  local library=$1 soname symbols work
  soname=$(basename "$library")
  work=$(mktemp -d)
  # "name@VERSION" for each undefined symbol of the fuzzer that the library defines.
  symbols=$(comm -12 <(nm -D --undefined-only "$fuzzer" | awk '{print $2}' | sort -u) \
                     <(nm -D --defined-only "$library" | awk '{sub(/@@/, "@", $3); print $3}' | sort -u))
  {
    echo '#include <stdlib.h>'
    echo '#include <stdio.h>'
    echo "static void never(const char *name) { fprintf(stderr, \"stub $soname: %s called\\n\", name); abort(); }"
    for s in $symbols; do
      local name=${s%@*}
      # Halide's headers run an introspection self-test at start-up: a no-op here.
      if [[ $name == *test_compilation_unit* ]]; then echo "void $name(void) {}"
      else echo "void $name(void) { never(\"$name\"); }"; fi
    done
  } >"$work/stub.c"
  # Versioned symbols (libclang's LLVM_13) need the version to exist in the stub.
  local versions
  versions=$(printf '%s\n' $symbols | grep '@' | sed 's/.*@//' | sort -u || true)
  if [[ -n $versions ]]; then
    for v in $versions; do echo "$v { global: *; };"; done >"$work/versions.map"
    "$cc" -shared -fPIC -O1 -o "$out/lib/$soname" "$work/stub.c" -Wl,-soname,"$soname" \
      -Wl,--version-script="$work/versions.map"
  else
    "$cc" -shared -fPIC -O1 -o "$out/lib/$soname" "$work/stub.c" -Wl,-soname,"$soname"
  fi
  echo "stub $soname: $(wc -w <<<"$symbols") symbols" >&2
  rm -rf "$work"
}

# Direct dependencies only decide stubs (a stub needs nothing); the rest are copied as they are,
# with their own dependencies (ldd lists the whole tree).
declare -A stubbed=()
for needed in $(readelf -d "$fuzzer" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  if is_stubbed "$needed"; then
    make_stub "$(ldd "$fuzzer" | awk -v n="$needed" '$1 == n {print $3}')"
    stubbed[$needed]=1
  fi
done
copy_dependencies() {
  local file=$1 name path
  while read -r name path; do
    [[ -z $path || -e $out/lib/$name ]] && continue
    is_glibc "$name" && continue
    [[ -n ${stubbed[$name]:-} ]] && continue
    cp -L "$path" "$out/lib/$name"
    copy_dependencies "$path"
  done < <(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
           while read -r n; do echo "$n $(ldd "$file" | awk -v n="$n" '$1 == n {print $3}')"; done)
}
copy_dependencies "$fuzzer"
strip --strip-unneeded "$out"/lib/*.so* 2>/dev/null || true

# Proof that the bundle is whole: resolved from lib/ alone (glibc aside), nothing missing.
if env -u LD_LIBRARY_PATH LD_LIBRARY_PATH="$out/lib" ldd "$out/bin/fuzz_language_server" |
     grep -E 'not found|/usr/lib|/lib/x86_64-linux-gnu/lib(Halide|clang|LLVM|spdlog|fmt|boost|stdc)'; then
  echo "device_bundle: a library is missing from $out/lib" >&2
  exit 1
fi
echo "device_bundle: $out ($(du -sh --apparent-size "$out" | cut -f1); libraries: $(ls "$out/lib" | tr '\n' ' '))" >&2
