// The market page's bundle (docs/ui.md): ui/main.ts and its CSS, bundled by esbuild with every library inside
// (no CDN), minified, under content-hashed names so that browsers may cache them for good. `npm run build`
// writes it to dist/ui/ (scripts/buildUi.ts); a service running from the TypeScript sources (tests, tsx)
// bundles in memory on the first request for the page instead, so it never serves a bundle older than ui/.

import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface UiAsset {
  /** Hashed file name, e.g. `main-3FJ2KQ.js`; served at /ui/<name>. */
  readonly name: string;
  readonly contentType: string;
  /** UTF-8 text (script or stylesheet). */
  readonly body: string;
}

export interface UiBundle {
  readonly script: UiAsset;
  readonly style: UiAsset;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** The repository root: the nearest directory above this module holding package.json (server/ or dist/server/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('no package.json above the server module');
    dir = up;
  }
  return dir;
}

function asset(name: string, body: Uint8Array): UiAsset {
  const ext = name.slice(name.lastIndexOf('.'));
  const contentType = CONTENT_TYPES[ext];
  if (contentType === undefined) throw new Error(`unexpected file in the UI bundle: ${name}`);
  return { name, contentType, body: Buffer.from(body).toString('utf8') };
}

function pick(assets: readonly UiAsset[]): UiBundle {
  const script = assets.find((a) => a.name.endsWith('.js'));
  const style = assets.find((a) => a.name.endsWith('.css'));
  if (script === undefined || style === undefined) throw new Error(`the UI bundle needs one .js and one .css file, got ${assets.map((a) => a.name).join(', ') || 'none'}`);
  return { script, style };
}

/** Bundles ui/main.ts with esbuild (a devDependency, so loaded only here); writes to outDir when given. */
export async function bundleUi(root: string, outDir?: string): Promise<UiBundle> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(root, 'ui', 'main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
    entryNames: '[name]-[hash]',
    outdir: outDir ?? join(root, 'dist', 'ui'),
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const assets = result.outputFiles.map((f) => asset(basename(f.path), f.contents));
  if (outDir !== undefined) {
    const { mkdir, rm, writeFile } = await import('node:fs/promises');
    await rm(outDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    for (const a of assets) await writeFile(join(outDir, a.name), a.body);
  }
  return pick(assets);
}

/** Reads a bundle that `npm run build` wrote. */
export async function readUiBundle(dir: string): Promise<UiBundle> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.js') || n.endsWith('.css'));
  return pick(await Promise.all(names.map(async (n) => asset(n, await readFile(join(dir, n))))));
}

/**
 * The bundle this process serves: built from ui/ when the service runs from its TypeScript sources, read from
 * dist/ui/ when it runs compiled (and built there if `npm run build` has not written it).
 */
export async function loadUiBundle(): Promise<UiBundle> {
  const root = packageRoot();
  const fromSource = import.meta.url.endsWith('.ts');
  const dist = join(root, 'dist', 'ui');
  if (fromSource) return bundleUi(root);
  return existsSync(dist) ? readUiBundle(dist) : bundleUi(root, dist);
}
