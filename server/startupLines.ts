// The first lines `npm start` logs once the service serves: where everything is (the market page, the API
// surfaces, the WebSocket channels, the OpenAPI document, metrics, the operator API and the analysts'
// ClickHouse endpoint, each said to be off when it is) and whether demo traders are trading. One log line
// each, so they read as text on a terminal and as records in JSON logs.

import type { Config } from '../config/index.js';
import type { RunningService } from './service.js';

export function startupLines(config: Config, service: Pick<RunningService, 'port' | 'demo'> & Partial<Pick<RunningService, 'clickhouseHttp' | 'wsPort'>>): string[] {
  const host = config.httpHost === '0.0.0.0' || config.httpHost === '::' ? '127.0.0.1' : config.httpHost;
  const base = `http://${host}:${service.port}`;
  const lines = [
    `serving on ${base}`,
    `  market page (browser):         ${base}/ui`,
    `  order book and trading (CLOB): ${base}/clob   (also at the root: ${base}/book?token_id=…)`,
    `  catalog (Gamma):               ${base}/catalog/markets`,
    `  activity (Data API):           ${base}/activity/trades`,
    service.wsPort === undefined
      ? `  WebSocket channels:            ${base.replace(/^http/, 'ws')}/ws/market, ${base.replace(/^http/, 'ws')}/ws/user`
      : `  WebSocket channels:            ws://${host}:${service.wsPort}/ws/market, ws://${host}:${service.wsPort}/ws/user (their own port; also on ${base.replace(/^http/, 'ws')})`,
    `  OpenAPI:                       ${base}/openapi.json`,
    `  metrics (Prometheus):          ${base}/metrics`,
  ];
  lines.push(
    config.operatorToken === undefined
      ? '  operator API:                  off (set --operator-token to turn it on)'
      : `  operator API:                  ${base}/operator (bearer token from --operator-token)`,
  );
  const analyst = service.clickhouseHttp;
  lines.push(
    analyst === undefined
      ? '  ClickHouse for analysts:       off (set --clickhouse-http-port and --analyst-password to turn it on)'
      : `  ClickHouse for analysts:       http://${config.clickhouseHttpHost}:${analyst.port} (ClickHouse's HTTP interface; user ${config.analystPassword === undefined ? 'none: set --analyst-password' : config.analystUser})`,
  );
  const demo = service.demo;
  lines.push(
    demo === undefined
      ? '  demo traders:                  off'
      : `  demo traders:                  ON: a market maker and takers trade ${demo.markets.length} demo markets through the public API (at most ~${demo.ordersPerSecond} orders/s); --demo-traders false turns them off`,
  );
  return lines;
}
