// The market page (docs/ui.md): GET /ui answers its HTML, GET /ui/<hashed name> the bundled script and style.
// The HTML is never cached (it names the current bundle); the assets' names change with their content, so
// they are cached for a year as immutable. These routes are a page, not API: the OpenAPI document leaves
// them out. The bundle is loaded once per process, on the first request (server/uiBundle.ts).

import type { Reply, RouteDef } from '../api/http/apiTypes.js';
import { ApiError } from '../api/http/apiErrors.js';
import type { UiBundle } from './uiBundle.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

export function pageHtml(bundle: UiBundle): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Markets</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/${bundle.style.name}">
<script type="module" src="/ui/${bundle.script.name}"></script>
</head>
<body>
<header class="top"><a href="#/" class="brand">Markets</a><form id="address-form" class="address-form"><input name="address" placeholder="0x… address" autocomplete="off" spellcheck="false"><button>Open</button></form><span id="live" class="live">connecting</span></header>
<main id="app"></main>
</body>
</html>
`;
}

export function uiRoutes(load: () => Promise<UiBundle>): RouteDef[] {
  let bundle: Promise<UiBundle> | undefined;
  const current = (): Promise<UiBundle> => {
    bundle ??= load().catch((error: unknown) => {
      bundle = undefined;
      throw error;
    });
    return bundle;
  };
  const page = async (): Promise<Reply> => ({
    status: 200,
    body: pageHtml(await current()),
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' },
  });
  const text = { type: 'string' } as const;
  return [
    { method: 'GET', path: '/ui', surface: 'service', summary: 'The market page (HTML).', response: text, handler: page },
    { method: 'GET', path: '/ui/', surface: 'service', summary: 'The market page (HTML), with a trailing slash.', response: text, handler: page },
    {
      method: 'GET',
      path: '/ui/{asset}',
      surface: 'service',
      summary: "The market page's bundled script and style, under content-hashed names.",
      response: text,
      handler: async (req) => {
        const name = req.params.asset ?? '';
        const b = await current();
        const found = [b.script, b.style].find((a) => a.name === name);
        if (found === undefined) throw new ApiError('not_found');
        return { status: 200, body: found.body, headers: { 'content-type': found.contentType, 'cache-control': IMMUTABLE } };
      },
    },
  ];
}
