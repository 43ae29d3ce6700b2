# Sourced by scripts/build.sh, test.sh, fuzz.sh and demo.sh: every compiler
# they start, and every CMake project or wheel the test suite builds (the
# variables reach them through the environment; CMake reads
# CMAKE_<LANG>_COMPILER_LAUNCHER from it at a tree's first configure), runs
# under ccache, with one cache per machine outside the checkout, so a fresh
# clone on a machine that ran the suite before compiles nothing it compiled
# then. OPGEN_CCACHE=0 turns it off; OPGEN_CACHE_DIR moves every cache of
# opgen's (this one, the device check's torch venvs).
#
# Why these settings (ccache(1), "Compiling in different directories"):
# - base_dir is the checkout: the build trees and every project the tests
#   build live beneath it (pytest's --basetemp is <build>/pytest), so the
#   paths on the command lines are relative and equal from clone to clone;
#   torch's and the system's headers stay absolute, as they are the same.
# - hash_dir off: -g1 line tables would otherwise put the working directory
#   into every key. An object taken from the cache may name another clone's
#   directory in its line tables; its code is the same.
# Nothing else is relaxed: ccache still hashes every header's contents and
# the compiler itself, so a changed header recompiles (tests/python/
# test_build_cache.py proves it through CMake).

export OPGEN_CACHE_DIR="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
if [ "${OPGEN_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  export CCACHE_DIR="${CCACHE_DIR:-$OPGEN_CACHE_DIR/ccache}"
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd -P)}"
  export CCACHE_NOHASHDIR=1
  for lang in C CXX CUDA; do
    var=CMAKE_${lang}_COMPILER_LAUNCHER
    export "$var=${!var:-ccache}"
  done
fi
