#!/usr/bin/env bash
# Part of `npm run build`: builds the native signature recovery (native/secp256k1, Rust with the libsecp256k1
# the rust-secp256k1 crate vendors) into native/build/pmx_secp256k1.node when cargo is on this machine. Without
# cargo it says so and leaves auth/recoverSigner.ts on the `secp256k1` package's binding (same verdicts, about
# 1.6 times the time per recovery). A failing build fails `npm run build`. Cargo rebuilds only what changed, so
# a build with nothing new takes a fraction of a second.
set -euo pipefail
cd "$(dirname "$0")/.."
out=native/build/pmx_secp256k1.node
# The directory is there either way (the Dockerfile copies it).
mkdir -p native/build
# cargo on PATH, or where rustup puts it.
cargo=$(command -v cargo || true)
[[ -n $cargo ]] || cargo=${CARGO_HOME:-$HOME/.cargo}/bin/cargo
if [[ ! -x $cargo ]]; then
  echo "native recovery: cargo not found, signatures are recovered with the secp256k1 package's binding" >&2
  exit 0
fi
"$cargo" build --quiet --release --locked --manifest-path native/secp256k1/Cargo.toml
lib=native/secp256k1/target/release/libpmx_secp256k1.so
[[ -f $lib ]] || lib=native/secp256k1/target/release/libpmx_secp256k1.dylib
# Replaced only when it changed: a running service keeps the file it loaded.
if ! cmp -s "$lib" "$out"; then
  cp "$lib" "$out.tmp"
  mv "$out.tmp" "$out"
fi
