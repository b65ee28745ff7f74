// The market page (docs/ui.md), served by the service at /ui. Routes live in the URL's hash so the page is one
// document: `#/` markets by event, `#/market/<condition id>`, `#/address/<address>`. Each view is built from
// the public HTTP reads and, for a market, kept live by the WebSocket market channel.

import 'uplot/dist/uPlot.min.css';
import './page.css';
import { addressView } from './addressView.js';
import { catalogView } from './catalogView.js';
import { fill, h } from './dom.js';
import type { LiveState } from './marketChannel.js';
import { marketView, type View } from './marketView.js';

const app = document.getElementById('app') as HTMLElement;
const liveBadge = document.getElementById('live') as HTMLElement;
let current: View | undefined;
let navigation = 0;

function setLive(state: LiveState | 'static'): void {
  liveBadge.textContent = state === 'static' ? '' : state;
  liveBadge.dataset.state = state;
}

async function route(): Promise<void> {
  const mine = ++navigation;
  current?.close();
  current = undefined;
  const [, kind, arg] = location.hash.replace(/^#\/?/, '/').split('/');
  let view: View;
  try {
    if (kind === 'market' && arg !== undefined) {
      setLive('connecting');
      view = await marketView(decodeURIComponent(arg), setLive);
    } else if (kind === 'address' && arg !== undefined) {
      setLive('static');
      view = await addressView(decodeURIComponent(arg));
    } else {
      setLive('static');
      view = await catalogView();
    }
  } catch (error) {
    if (mine === navigation) fill(app, h('p', { class: 'error' }, `Could not load this view: ${error instanceof Error ? error.message : String(error)}`));
    return;
  }
  if (mine !== navigation) {
    view.close();
    return;
  }
  current = view;
  fill(app, view.element);
  document.body.dataset.view = kind === 'market' || kind === 'address' ? kind : 'catalog';
  document.body.dataset.ready = String(mine);
}

const form = document.getElementById('address-form') as HTMLFormElement;
form.addEventListener('submit', (e) => {
  e.preventDefault();
  const value = new FormData(form).get('address');
  if (typeof value === 'string' && value.trim() !== '') location.hash = `#/address/${value.trim()}`;
});
window.addEventListener('hashchange', () => void route());
void route();
