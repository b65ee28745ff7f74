// `npm run build`, after tsc: bundles the market page (ui/) into dist/ui/ (server/uiBundle.ts).

import { join } from 'node:path';
import { bundleUi, packageRoot } from '../server/uiBundle.js';

const root = packageRoot();
const bundle = await bundleUi(root, join(root, 'dist', 'ui'));
console.log(`ui: dist/ui/${bundle.script.name} (${bundle.script.body.length} bytes), dist/ui/${bundle.style.name} (${bundle.style.body.length} bytes)`);
