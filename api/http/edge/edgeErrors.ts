// The edge's own answers: what it says when it refuses a request before uWS sees it. Each one is followed
// by closing the connection (the stream is no longer framed), so none is retriable on the same connection;
// a client may retry the request on a new connection only after fixing it, except upstream_unavailable.

export interface EdgeErrorSpec {
  readonly status: number;
  readonly reason: string;
  readonly message: string;
  readonly when: string;
}

export const EDGE_ERRORS = {
  malformed_request: {
    status: 400, reason: 'Bad Request', message: 'malformed request',
    when: 'The request cannot be framed unambiguously (CL and TE together, differing Content-Length, obs-fold, bare LF, bad chunk) or has a syntax uWS 20.30 would hang on.',
  },
  body_too_large: { status: 413, reason: 'Payload Too Large', message: 'request body too large', when: 'Content-Length above 999,999,999 or a chunk above 0x0fffffff bytes (uWS 20.30 limits).' },
  header_too_large: { status: 431, reason: 'Request Header Fields Too Large', message: 'request header too large', when: 'The head exceeds 64 KiB, a trailer section exceeds 64 KiB, or more than 47 header fields.' },
  upstream_unavailable: { status: 502, reason: 'Bad Gateway', message: 'upstream unavailable', when: 'The edge could not connect to the HTTP server behind it; retriable.' },
  version_not_supported: { status: 505, reason: 'HTTP Version Not Supported', message: 'http version not supported', when: 'The request line is neither HTTP/1.1 nor HTTP/1.0 (HTTP/2 needs TLS or an upgrade, neither of which this port offers).' },
} as const satisfies Record<string, EdgeErrorSpec>;

export type EdgeErrorCode = keyof typeof EDGE_ERRORS;

const responses = new Map<EdgeErrorCode, Buffer>();

/** The complete response for an edge error, `Connection: close`, with a JSON body `{"error": message}`. */
export function edgeErrorResponse(code: EdgeErrorCode): Buffer {
  let res = responses.get(code);
  if (res === undefined) {
    const spec: EdgeErrorSpec = EDGE_ERRORS[code];
    const body = JSON.stringify({ error: spec.message });
    res = Buffer.from(
      `HTTP/1.1 ${spec.status} ${spec.reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      'latin1',
    );
    responses.set(code, res);
  }
  return res;
}
