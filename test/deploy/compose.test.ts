// docker-compose.yml as Debian's docker-compose reads it (scripts/compose/check.sh: `config -q`, installing the
// package when missing), and every service role in it as the service itself would start: its command and
// PMX_* environment accepted by the service's own configuration loader, with the role the service is named
// for, so the compose file cannot drift from the real flags. No Docker engine runs here: nothing is built or
// started.

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../config/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
t.setTimeout(300_000);

t.test('docker-compose config -q accepts the file', async (tt) => {
  const out = execFileSync('bash', ['scripts/compose/check.sh'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  tt.match(out, /docker-compose\.yml is valid/);
});

interface Service {
  readonly image?: string;
  readonly command?: string[];
  readonly environment?: Record<string, string>;
  readonly healthcheck?: { test: string[] };
  readonly depends_on?: Record<string, { condition: string }>;
  readonly volumes?: unknown[];
  readonly networks?: Record<string, { ipv4_address?: string } | null>;
}

// The file as docker-compose resolves it (anchors, merges, the placeholder secrets), as JSON through the
// YAML module docker-compose itself runs on.
const resolved = JSON.parse(
  execFileSync('bash', ['-c', `docker-compose --env-file deploy/cluster.env.example -f docker-compose.yml config | python3 -c 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'`], { cwd: root, encoding: 'utf8' }),
) as { services: Record<string, Service>; volumes: Record<string, unknown> };

t.test('every service role starts with a configuration the service accepts', async (tt) => {
  const roles: Record<string, string> = { engine: 'engine', projector: 'projector', api1: 'api', api2: 'api' };
  for (const [name, role] of Object.entries(roles)) {
    const service = resolved.services[name];
    if (service === undefined) {
      tt.fail(`no ${name} service`);
      continue;
    }
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).filter(([k]) => k.startsWith('PMX_')));
    const result = parseConfig(service.command ?? [], env);
    tt.equal(result.kind, 'config', `${name}: ${result.kind === 'invalid' ? result.problems.map((p) => p.message).join('; ') : 'valid'}`);
    if (result.kind !== 'config') continue;
    tt.equal(result.config.role, role, `${name} runs --role ${role}`);
    tt.equal(result.config.logBackend, 'kafka');
    tt.equal(result.config.clickhouseMode, 'server');
    tt.equal(result.config.httpHost, '0.0.0.0', `${name} listens beyond its container`);
    tt.match(JSON.stringify(service.healthcheck?.test), /\/ready/, `${name} is health-checked on /ready`);
    if (role === 'api') {
      tt.equal(result.config.engineAddress, 'engine:7100', `${name} reaches the engine`);
      const proxyAddress = resolved.services.proxy?.networks?.default?.ipv4_address;
      tt.ok(proxyAddress !== undefined && proxyAddress !== '', 'the proxy has a fixed address');
      tt.same(result.config.trustedProxies, [proxyAddress], `${name} trusts the proxy's X-Forwarded-For, and nobody else's`);
      tt.equal(result.config.wsPort, 8081, `${name} serves the WebSocket channels on their own port, where the proxy sends them`);
    }
  }
  tt.equal(Object.values(resolved.services).filter((s) => (s.command ?? []).join(' ').includes('--role engine')).length, 1, 'exactly one engine');
  tt.equal(Object.values(resolved.services).filter((s) => (s.command ?? []).join(' ').includes('--role projector')).length, 1, 'exactly one projector');
  tt.match(resolved.services.kafka?.image ?? '', /^apache\/kafka:/, 'Kafka from its official image');
  tt.match(resolved.services.clickhouse?.image ?? '', /^clickhouse\/clickhouse-server:/, 'ClickHouse from its official image');
  tt.match(resolved.services.proxy?.image ?? '', /^nginx:/, 'nginx in front');
  tt.same(Object.keys(resolved.volumes).sort(), ['api1-data', 'api2-data', 'clickhouse-data', 'engine-data', 'kafka-data']);
});
