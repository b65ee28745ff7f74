// The master secret from which every API credential is derived (credentials.ts). From the `authSecret`
// setting (PMX_AUTH_SECRET) when set: its UTF-8 bytes are the HMAC key. Otherwise a random 32-byte secret is
// created once in `<dataDir>/auth.secret` (64 hex digits and a newline, mode 0600) and read back on every
// later start. Creation is atomic (temp file, fsync, link, fsync of the directory): a crash leaves either no
// file or a whole one, and of two processes racing, both end up with the file that won. A file that exists
// but is not 64 hex digits stops start-up: replacing it would silently invalidate every issued key.
// Changing the secret, or switching between the setting and the file, invalidates every issued key.

import { randomBytes } from 'node:crypto';
import { link, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export const MASTER_SECRET_FILE = 'auth.secret';

export interface MasterSecret {
  readonly key: Buffer;
  readonly source: 'setting' | 'file' | 'created';
  /** The file read or created; undefined when the setting was used. */
  readonly path?: string;
}

function parseFile(text: string, path: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${path} does not hold a master secret (64 hex digits); restore it from a backup or remove it to create a new one, which invalidates every API key issued`);
  return Buffer.from(hex, 'hex');
}

async function readExisting(path: string): Promise<Buffer | undefined> {
  try {
    return parseFile(await readFile(path, 'utf8'), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function fsyncPath(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates the file unless another process got there first; `won` says whose secret it holds. */
async function create(dataDir: string, path: string): Promise<{ key: Buffer; won: boolean }> {
  const key = randomBytes(32);
  const temp = join(dataDir, `${MASTER_SECRET_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${key.toString('hex')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  let won = true;
  try {
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    won = false;
  } finally {
    await unlink(temp);
  }
  await fsyncPath(dataDir, 'r');
  // Whoever won the race, the file now holds the secret every process uses.
  return { key: parseFile(await readFile(path, 'utf8'), path), won };
}

/** The master secret; `dataDir` must exist. Throws only on I/O errors and a damaged file. */
export async function loadMasterSecret(options: { readonly authSecret?: string | undefined; readonly dataDir: string }): Promise<MasterSecret> {
  if (options.authSecret !== undefined && options.authSecret !== '') return { key: Buffer.from(options.authSecret, 'utf8'), source: 'setting' };
  const path = join(options.dataDir, MASTER_SECRET_FILE);
  const existing = await readExisting(path);
  if (existing !== undefined) return { key: existing, source: 'file', path };
  const { key, won } = await create(options.dataDir, path);
  return { key, source: won ? 'created' : 'file', path };
}
