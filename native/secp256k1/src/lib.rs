//! Public-key recovery for order and L1 signatures (auth/recoverSigner.ts calls it after its own range checks),
//! and the keccak-256 that order ids and addresses are made with (auth/keccak.ts).
//!
//! Contract of `recover_address_into(digest, signature, out)`: `digest` is 32 bytes, `signature` 65 bytes (r ‖ s
//! ‖ v, v 27/28 or 0/1); writes the 20-byte address whose key signed the digest (the last 20 bytes of keccak-256
//! of the uncompressed public key without its 0x04 prefix) into the first 20 bytes of `out` and answers true, or
//! answers false, writing nothing, when no key recovers (wrong lengths, a v out of range, r or s not below the
//! group order, a point that does not exist) or `out` is shorter. Never throws. Results go into the caller's
//! buffers: a buffer made here is an external one to Node, which costs more than the hash.

use napi::bindgen_prelude::Uint8Array;
use napi_derive::napi;
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
use secp256k1::{Message, SECP256K1};
use tiny_keccak::{Hasher, Keccak};

fn keccak256_of(data: &[u8]) -> [u8; 32] {
    let mut hasher = Keccak::v256();
    hasher.update(data);
    let mut out = [0u8; 32];
    hasher.finalize(&mut out);
    out
}

#[napi]
pub fn recover_address_into(digest: Uint8Array, signature: Uint8Array, mut out: Uint8Array) -> bool {
    match recover(&digest, &signature) {
        Some(address) if out.len() >= 20 => {
            out.as_mut()[..20].copy_from_slice(&address);
            true
        }
        _ => false,
    }
}

fn recover(digest: &[u8], signature: &[u8]) -> Option<[u8; 20]> {
    if digest.len() != 32 || signature.len() != 65 {
        return None;
    }
    let id = match signature[64] {
        27 | 28 => signature[64] - 27,
        0 | 1 => signature[64],
        _ => return None,
    };
    let recovery_id = RecoveryId::from_i32(i32::from(id)).ok()?;
    let recoverable = RecoverableSignature::from_compact(&signature[..64], recovery_id).ok()?;
    let message = Message::from_digest_slice(digest).ok()?;
    let key = SECP256K1.recover_ecdsa(&message, &recoverable).ok()?;
    let hash = keccak256_of(&key.serialize_uncompressed()[1..]);
    let mut address = [0u8; 20];
    address.copy_from_slice(&hash[12..]);
    Some(address)
}

/// Writes keccak-256 of `data` (the original Keccak padding, as Ethereum hashes: order ids, typed-data
/// digests, address checksums; auth/keccak.ts) into the first 32 bytes of `out`. Answers false, writing
/// nothing, when `out` is shorter.
#[napi]
pub fn keccak256_into(data: Uint8Array, mut out: Uint8Array) -> bool {
    if out.len() < 32 {
        return false;
    }
    out.as_mut()[..32].copy_from_slice(&keccak256_of(&data));
    true
}

/// The libsecp256k1 build this addon carries (auth/recoverSigner.ts RECOVERY_BACKEND, for the tests).
#[napi]
pub fn backend() -> String {
    "libsecp256k1 (rust-secp256k1 0.29)".to_string()
}
