// The official Python client (py-clob-client-v2, unchanged, from scripts/python/requirements.txt) against the
// running service: sign-in, the heartbeat chain (a stale id refused with the id to send next), read-only keys
// (create, list, delete) and builder keys (create, list, revoke). The script prints what the client returned;
// the test checks it against the engine.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Wallet } from 'ethers';
import t from 'tap';
import { startTestService } from '../support/serviceFixture.js';
import { pythonTools } from '../support/pythonTools.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const host = svc.service.engine;

const SCRIPT = `
import json, sys
from py_clob_client_v2.client import ClobClient
from py_clob_client_v2.exceptions import PolyApiException

host, key = sys.argv[1], sys.argv[2]
client = ClobClient(host, 137, key=key)
client.set_api_creds(client.create_or_derive_api_key())
out = {}
first = client.post_heartbeat()
second = client.post_heartbeat(first["heartbeat_id"])
out["heartbeats"] = [first, second]
try:
    client.post_heartbeat(first["heartbeat_id"])
    out["stale"] = "accepted"
except PolyApiException as e:
    out["stale"] = {"status": e.status_code, "error": e.error_msg}
readonly = client.create_readonly_api_key()
out["readonly"] = readonly
out["readonly_listed"] = client.get_readonly_api_keys()
out["readonly_deleted"] = client.delete_readonly_api_key(readonly["apiKey"])
out["readonly_after"] = client.get_readonly_api_keys()
builder = client.create_builder_api_key()
out["builder"] = builder
out["builder_listed"] = client.get_builder_api_keys()
out["builder_revoked"] = client.revoke_builder_api_key()
out["builder_after"] = client.get_builder_api_keys()
print(json.dumps(out))
`;

t.test('py-clob-client-v2: heartbeats, read-only keys and builder keys', async (t) => {
  const wallet = Wallet.createRandom();
  const { stdout } = await promisify(execFile)(pythonTools(), ['-c', SCRIPT, `${svc.baseUrl}/clob`, wallet.privateKey], { encoding: 'utf8', timeout: 120_000 });
  const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
  const account = wallet.address.toLowerCase();

  const [first, second] = out.heartbeats as { heartbeat_id: string; status: string }[];
  t.match(first, { heartbeat_id: /^[0-9a-f-]{36}$/, status: 'ok' });
  t.not(second?.heartbeat_id, first?.heartbeat_id);
  t.equal(host.engine.heartbeatSession(account)?.id, second?.heartbeat_id, 'the engine expects the id the client was given last');
  const stale = out.stale as { status: number; error: Record<string, unknown> };
  t.equal(stale.status, 400, 'a stale id: 400');
  t.match(stale.error, { error_msg: 'Invalid Heartbeat ID', heartbeat_id: second?.heartbeat_id }, 'carrying the id to send next');

  const readonly = out.readonly as { apiKey: string };
  t.match(readonly.apiKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.ok(JSON.stringify(out.readonly_listed).includes(readonly.apiKey), 'listed');
  t.notOk(JSON.stringify(out.readonly_after).includes(readonly.apiKey), 'gone once deleted');

  const builder = out.builder as { key: string; secret: string; passphrase: string };
  t.match(builder, { key: /^[0-9a-f-]{36}$/, secret: /^[A-Za-z0-9_-]{43}=$/, passphrase: /^[0-9a-f]{64}$/ });
  const listed = out.builder_listed as { key: string; revokedAt?: string | null }[];
  t.ok(listed.some((k) => k.key === builder.key && (k.revokedAt ?? null) === null), 'listed, live');
  const after = out.builder_after as { key: string; revokedAt?: string | null }[];
  t.ok(after.every((k) => k.key !== builder.key || (typeof k.revokedAt === 'string' && k.revokedAt !== '')), 'revoked');
});
