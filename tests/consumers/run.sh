#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/consumers/run.sh REPDL_ROOT: builds tiny outside projects against
# the repdl tree, the ways a user would adopt it (docs/packaging.md):
#   meson-subproject  a parent with werror=true that uses repdl as a
#                     subproject (-Drepdl:mpfr=disabled -Drepdl:cuda=disabled):
#                     it must build nothing of repdl's (no test, benchmark,
#                     example or oracle) and pass its own check
#   meson-install     meson install into a prefix, then a program built with
#                     `pkg-config --cflags --libs repdl`, and one linked
#                     with `pkg-config --libs repdl-shared` (librepdl.so)
#   c++14             the consumer compiled as C++14 and C++17, -pedantic -Werror
#   cmake-subdir      CMake add_subdirectory(repdl), target repdl::repdl
#   cmake-fetch       CMake FetchContent with SOURCE_DIR = the tree
#   cmake-package     cmake --install (with repdl::shared), then
#                     find_package(repdl CONFIG) from another project
#   cmake-cuda        add_subdirectory with -DREPDL_CUDA=ON: a C program
#                     linked against repdl::cuda (only where nvcc is found;
#                     one architecture, sm_75, to keep it short)
# Prints one line per case and "consumers: N passed, N failed"; exits 1 on
# any failure, 77 (skip) only when neither meson nor cmake is installed.
set -u
root=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1 (log: below)"; tail -30 "$2"; fail=$((fail + 1)); }
have() { command -v "$1" > /dev/null; }
have meson || have cmake || { echo "SKIP: neither meson nor cmake"; exit 77; }

# A private copy of the tree (the tracked files and the untracked ones that
# git does not ignore; no build directories), so nothing is written into it.
src=$work/repdl
mkdir -p "$src"
if git -C "$root" rev-parse > /dev/null 2>&1; then
  (cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src" 2>/dev/null)
else
  cp -r "$root/." "$src" && rm -rf "$src"/build*
fi

if have meson && have ninja; then
  # --- meson subproject, werror=true ---
  p=$work/msub; mkdir -p "$p/subprojects"; ln -s "$src" "$p/subprojects/repdl"
  cp "$here/consumer.c" "$p/"
  cat > "$p/meson.build" <<'M'
project('parent', 'c', default_options : ['werror=true', 'warning_level=3', 'c_std=c99'])
repdl = dependency('repdl', fallback : ['repdl', 'repdl_dep'])
test('consumer', executable('consumer', 'consumer.c', dependencies : repdl))
M
  log=$work/msub.log
  if meson setup "$p/b" "$p" -Drepdl:mpfr=disabled -Drepdl:cuda=disabled > "$log" 2>&1 &&
     ninja -C "$p/b" >> "$log" 2>&1 && "$p/b/consumer" >> "$log" 2>&1; then
    # build statements (the regeneration inputs, meson.build files, are phony)
    n=$(ninja -C "$p/b" -t targets all | grep -vc ': phony')
    theirs=$(ninja -C "$p/b" -t targets all | grep -v ': phony' | grep -c 'subprojects/repdl')
    if [ "$theirs" -eq 0 ]; then ok "meson subproject, werror=true: parent builds $n targets, 0 of repdl's"
    else echo "repdl targets in the parent: $theirs" >> "$log"; bad "meson subproject builds repdl targets" "$log"; fi
  else bad "meson subproject, werror=true" "$log"; fi

  # --- meson install + pkg-config ---
  log=$work/minst.log; pre=$work/prefix-meson
  # -Dtests=false: a plain install builds the library and nothing else
  if meson setup "$work/mb" "$src" --prefix "$pre" --libdir lib -Dtests=false -Dcuda=disabled \
       -Dlibrary=enabled > "$log" 2>&1; then
    if meson install -C "$work/mb" >> "$log" 2>&1 &&
       built=$(ninja -C "$work/mb" -t targets all | grep -v ': phony' | grep -c -E '^(tests|bench|examples|reference)/'; true) &&
       { [ "$built" -eq 0 ] || { echo "tests built by install: $built" >> "$log"; false; }; } &&
       export PKG_CONFIG_PATH="$pre/lib/pkgconfig" &&
       cc -std=c99 $(pkg-config --cflags repdl) "$here/consumer.c" -o "$work/pc" $(pkg-config --libs --static repdl) >> "$log" 2>&1 &&
       "$work/pc" >> "$log" 2>&1 &&
       cc -std=c99 "$here/consumer_shared.c" -o "$work/pcs" $(pkg-config --libs repdl-shared) >> "$log" 2>&1 &&
       LD_LIBRARY_PATH="$pre/lib" "$work/pcs" >> "$log" 2>&1; then
      ok "meson install + pkg-config (repdl, repdl-shared)"
    else bad "meson install + pkg-config" "$log"; fi
  else bad "meson setup for install" "$log"; fi
fi

# --- C++14 / C++17 consumers ---
log=$work/cxx.log
if { g++ -x c++ -std=c++14 -Wall -Wextra -pedantic -Werror -I"$src/include" "$here/consumer.c" -o "$work/c14" &&
     "$work/c14" && g++ -x c++ -std=c++17 -Wall -Wextra -pedantic -Werror -I"$src/include" "$here/consumer.c" -o "$work/c17" &&
     "$work/c17"; } > "$log" 2>&1; then ok "C++14 and C++17 consumers (-pedantic -Werror)"
else bad "C++14/C++17 consumers" "$log"; fi

if have cmake; then
  cm() { cmake -S "$1" -B "$1/b" -DCMAKE_BUILD_TYPE=Release "${@:2}" && cmake --build "$1/b" && "$1/b/consumer"; }
  # --- add_subdirectory ---
  p=$work/csub; mkdir -p "$p"; cp "$here/consumer.c" "$p/"
  printf 'cmake_minimum_required(VERSION 3.18)\nproject(parent C)\nadd_subdirectory(%s repdl)\nadd_executable(consumer consumer.c)\ntarget_link_libraries(consumer PRIVATE repdl::repdl)\n' "$src" > "$p/CMakeLists.txt"
  if cm "$p" > "$work/csub.log" 2>&1; then ok "CMake add_subdirectory"; else bad "CMake add_subdirectory" "$work/csub.log"; fi
  # --- FetchContent ---
  p=$work/cfetch; mkdir -p "$p"; cp "$here/consumer.c" "$p/"
  printf 'cmake_minimum_required(VERSION 3.18)\nproject(parent C)\ninclude(FetchContent)\nFetchContent_Declare(repdl SOURCE_DIR %s)\nFetchContent_MakeAvailable(repdl)\nadd_executable(consumer consumer.c)\ntarget_link_libraries(consumer PRIVATE repdl::repdl)\n' "$src" > "$p/CMakeLists.txt"
  if cm "$p" > "$work/cfetch.log" 2>&1; then ok "CMake FetchContent"; else bad "CMake FetchContent" "$work/cfetch.log"; fi
  # --- install, then find_package ---
  pre=$work/prefix-cmake; log=$work/cpkg.log
  p=$work/cpkg; mkdir -p "$p"; cp "$here/consumer.c" "$here/consumer_shared.c" "$p/"
  printf 'cmake_minimum_required(VERSION 3.18)\nproject(parent C)\nfind_package(repdl 0.1 CONFIG REQUIRED)\nadd_executable(consumer consumer.c)\ntarget_link_libraries(consumer PRIVATE repdl::repdl)\nadd_executable(consumer_shared consumer_shared.c)\ntarget_link_libraries(consumer_shared PRIVATE repdl::shared)\n' > "$p/CMakeLists.txt"
  if { cmake -S "$src" -B "$work/cinst" -DREPDL_SHARED_LIBRARY=ON -DCMAKE_INSTALL_PREFIX="$pre" &&
       cmake --build "$work/cinst" && cmake --install "$work/cinst" &&
       cm "$p" -DCMAKE_PREFIX_PATH="$pre" && "$p/b/consumer_shared"; } > "$log" 2>&1; then
    ok "CMake install + find_package(repdl CONFIG) (repdl::repdl, repdl::shared)"
  else bad "CMake find_package" "$log"; fi
  # --- the CUDA launchers, repdl::cuda ---
  nvcc_path=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
  if [ -n "$nvcc_path" ]; then
    p=$work/ccuda; mkdir -p "$p"; cp "$here/consumer_cuda.c" "$p/consumer.c"
    printf 'cmake_minimum_required(VERSION 3.18)\nproject(parent C CXX)\nadd_subdirectory(%s repdl)\nadd_executable(consumer consumer.c)\ntarget_link_libraries(consumer PRIVATE repdl::cuda)\n' "$src" > "$p/CMakeLists.txt"
    if cm "$p" -DREPDL_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc_path" -DCMAKE_CUDA_ARCHITECTURES=75 \
         > "$work/ccuda.log" 2>&1; then
      ok "CMake repdl::cuda (nvcc $("$nvcc_path" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
    else bad "CMake repdl::cuda" "$work/ccuda.log"; fi
  else
    echo "note: no nvcc: repdl::cuda not built (not counted)"
  fi
fi
echo "consumers: $pass passed, $fail failed"
[ $fail -eq 0 ]
