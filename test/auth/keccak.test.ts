// keccak256 (the native sponge, one state reused per thread) equals ethers' keccak256 on inputs around the
// rate's block boundary (136 bytes) and beyond, called back to back; checksumAddress equals ethers' getAddress.

import t from 'tap';
import { getAddress, keccak256 as ethersKeccak } from 'ethers';
import { checksumAddress, keccak256 } from '../../auth/keccak.js';

t.test('same digests as ethers, back to back', async (tt) => {
  const lengths = [0, 1, 31, 32, 65, 135, 136, 137, 271, 272, 384, 449, 1000, 4096];
  for (const n of lengths) {
    const data = Buffer.alloc(n);
    for (let i = 0; i < n; i++) data[i] = (i * 131 + n) & 0xff;
    tt.equal('0x' + keccak256(data).toString('hex'), ethersKeccak(data), `${n} bytes`);
    tt.equal('0x' + keccak256(new Uint8Array(data)).toString('hex'), ethersKeccak(data), `${n} bytes as a Uint8Array`);
  }
  const view = Buffer.from('xxabcxx').subarray(2, 5);
  tt.equal('0x' + keccak256(view).toString('hex'), ethersKeccak(Buffer.from('abc')), 'a view into a larger buffer hashes only its bytes');
});

t.test('checksums as ethers', async (tt) => {
  for (let i = 0; i < 50; i++) {
    const hex = keccak256(Buffer.from([i])).toString('hex').slice(0, 40);
    tt.equal(checksumAddress('0x' + hex), getAddress('0x' + hex));
    tt.equal(checksumAddress('0x' + hex.toUpperCase()), getAddress('0x' + hex), 'any case in');
  }
});
