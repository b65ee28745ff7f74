// readAuthHeaders: POLY_ and SVC_ names in any case and with - or _, repeated calls (names remembered per
// suffix list) answering as the first, and a flood of distinct names (past the memo's bound) still read.

import t from 'tap';
import { readAuthHeaders } from '../../auth/authHeaders.js';

const SUFFIXES = ['address', 'signature'] as const;

t.test('names in any form, the same answer on every call', async (tt) => {
  const bags = [
    { 'poly-address': '0xabc', 'poly-signature': 'sig', pragma: 'no-cache', 'sec-fetch-mode': 'cors' },
    { POLY_ADDRESS: '0xabc', Svc_Signature: 'sig', 'svc-address': '0xabc' },
  ];
  for (let round = 0; round < 3; round++) {
    for (const bag of bags) tt.same(readAuthHeaders(bag, SUFFIXES, 'unauthorized'), { ok: true, value: { address: '0xabc', signature: 'sig' } }, `round ${round}`);
  }
  tt.same(readAuthHeaders({ pragma: 'x' }, SUFFIXES, 'unauthorized'), { ok: true, value: { address: undefined, signature: undefined } }, 'none of ours');
  tt.match(readAuthHeaders({ 'poly-address': '0xabc', 'svc-address': '0xdef' }, SUFFIXES, 'unauthorized'), { ok: false, detail: 'headers POLY_ADDRESS and SVC_ADDRESS disagree' });
});

t.test('a flood of distinct header names', async (tt) => {
  const bag: Record<string, string> = {};
  for (let i = 0; i < 1000; i++) bag[`p-junk-${i}`] = 'x';
  for (let i = 0; i < 1000; i++) bag[`s-junk-${i}`] = 'x';
  bag['Poly-Signature'] = 'sig';
  tt.same(readAuthHeaders(bag, SUFFIXES, 'unauthorized'), { ok: true, value: { address: undefined, signature: 'sig' } });
  tt.same(readAuthHeaders({ ...bag, POLY_ADDRESS: '0x1' }, SUFFIXES, 'unauthorized'), { ok: true, value: { address: '0x1', signature: 'sig' } }, 'names seen after the bound are still read');
});
