// A transport-independent request handler: the HTTP server (a later issue) mounts these on its routes,
// passing path parameters and the query string, and writes `body` as JSON with `status`. A handler answers
// every client error itself (400/404 bodies of spec §7); an exception means an internal failure (the
// server logs it and answers 500).

export interface HandlerRequest {
  /** Path parameters, e.g. { id: '2589812' } for /markets/{id}. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
}

export interface HandlerResponse {
  readonly status: number;
  readonly body: unknown;
}

export type Handler = (req: HandlerRequest) => Promise<HandlerResponse>;
