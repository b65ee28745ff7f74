// The service's version, as package.json states it (shown in the OpenAPI document). Found by walking up
// from this file, so it works from the sources (tsx) and from dist/.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageJsonPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return join(dir, 'package.json');
}

export const SERVICE_VERSION: string = (JSON.parse(readFileSync(packageJsonPath(), 'utf8')) as { version: string }).version;
