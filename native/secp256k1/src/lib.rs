//! Public-key recovery for order and L1 signatures (auth/recoverSigner.ts calls it after its own range checks).
//!
//! Contract of `recover_address(digest, signature)`: `digest` is 32 bytes, `signature` 65 bytes (r ‖ s ‖ v, v
//! 27/28 or 0/1); answers the 20-byte address whose key signed the digest (the last 20 bytes of keccak-256 of
//! the uncompressed public key without its 0x04 prefix), or null when no key recovers (wrong lengths, a v out of
//! range, r or s not below the group order, a point that does not exist). Never throws.

use napi::bindgen_prelude::{Buffer, Uint8Array};
use napi_derive::napi;
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
use secp256k1::{Message, SECP256K1};
use tiny_keccak::{Hasher, Keccak};

fn keccak256(data: &[u8]) -> [u8; 32] {
    let mut hasher = Keccak::v256();
    hasher.update(data);
    let mut out = [0u8; 32];
    hasher.finalize(&mut out);
    out
}

#[napi]
pub fn recover_address(digest: Uint8Array, signature: Uint8Array) -> Option<Buffer> {
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
    let message = Message::from_digest_slice(&digest).ok()?;
    let key = SECP256K1.recover_ecdsa(&message, &recoverable).ok()?;
    let hash = keccak256(&key.serialize_uncompressed()[1..]);
    Some(Buffer::from(hash[12..].to_vec()))
}

/// The libsecp256k1 build this addon carries, for the service's start-up line and the benchmarks.
#[napi]
pub fn backend() -> String {
    "libsecp256k1 (rust-secp256k1 0.29)".to_string()
}
