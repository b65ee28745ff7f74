// A request of ClickHouse's HTTP interface, read as a ClickHouse server reads it: the statement in the
// `query` URL parameter, in the body, or both (joined by a newline: INSERT data follows its statement);
// `param_<name>` query parameters; `database`, `default_format` and `query_id`; credentials from
// X-ClickHouse-User/X-ClickHouse-Key, basic auth or the `user`/`password` parameters; every other URL
// parameter is a setting, except those that steer the HTTP exchange itself (listed below).

import { refuse } from './chErrors.js';

export interface Credentials {
  readonly user: string;
  readonly password: string;
}

export interface ChHttpRequest {
  readonly urlQuery: string | undefined;
  readonly params: Record<string, string>;
  readonly settings: Record<string, string>;
  readonly database: string | undefined;
  readonly defaultFormat: string;
  readonly queryId: string | undefined;
  /** enable_http_compression=1: the response is compressed with what Accept-Encoding offers. */
  readonly compression: boolean;
}

/** URL parameters that steer the HTTP exchange (or that this endpoint keeps no state for), not settings. */
const NOT_SETTINGS = new Set([
  'query',
  'database',
  'default_format',
  'user',
  'password',
  'query_id',
  'quota_key',
  'session_id',
  'session_timeout',
  'session_check',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'enable_http_compression',
  'http_zlib_compression_level',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_response_buffer_size',
  'http_wait_end_of_query',
  'http_native_compression_disable_checksumming_on_decompress',
  'cancel_http_readonly_queries_on_client_close',
  'client_protocol_version',
  'role',
  'stacktrace',
]);

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function credentialsOf(url: URL, headers: Headers): Credentials {
  const user = header(headers, 'x-clickhouse-user');
  if (user !== undefined) return { user, password: header(headers, 'x-clickhouse-key') ?? '' };
  const authorization = header(headers, 'authorization');
  if (authorization !== undefined && /^basic /i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? { user: decoded, password: '' } : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return { user: url.searchParams.get('user') ?? 'default', password: url.searchParams.get('password') ?? '' };
}

export function readRequest(url: URL, headers: Headers): ChHttpRequest {
  const params: Record<string, string> = {};
  const settings: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (name.startsWith('param_')) params[name.slice('param_'.length)] = value;
    else if (!NOT_SETTINGS.has(name)) settings[name] = value;
  }
  if (url.searchParams.get('compress') === '1' || url.searchParams.get('decompress') === '1') {
    throw refuse.notImplemented("ClickHouse's own block compression (compress=1, decompress=1) is not supported here; use enable_http_compression=1 with Accept-Encoding, or Content-Encoding for the request body");
  }
  return {
    urlQuery: url.searchParams.get('query') ?? undefined,
    params,
    settings,
    database: url.searchParams.get('database') ?? header(headers, 'x-clickhouse-database'),
    defaultFormat: url.searchParams.get('default_format') ?? header(headers, 'x-clickhouse-format') ?? 'TabSeparated',
    queryId: url.searchParams.get('query_id') ?? undefined,
    compression: url.searchParams.get('enable_http_compression') === '1',
  };
}

/** The statement as a ClickHouse server joins it: URL query, then the body after a newline. */
export function statementText(urlQuery: string | undefined, body: string): string {
  if (urlQuery === undefined || urlQuery === '') return body;
  return body === '' ? urlQuery : `${urlQuery}\n${body}`;
}

const CONTENT_TYPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(JSON|PrettyJSON|NDJSON)/i, 'application/json; charset=UTF-8'],
  [/^(TabSeparated|TSV)/i, 'text/tab-separated-values; charset=UTF-8'],
  [/^CSV/i, 'text/csv; charset=UTF-8; header=absent'],
  [/^(Native|RowBinary|Parquet|Arrow|ORC|Avro|MsgPack|Protobuf|CapnProto|BSON)/i, 'application/octet-stream'],
];

export function contentTypeOf(format: string): string {
  return CONTENT_TYPES.find(([pattern]) => pattern.test(format))?.[1] ?? 'text/plain; charset=UTF-8';
}
