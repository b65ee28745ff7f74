// The one result shape of every check in auth/: nothing here throws on hostile input. A failure carries
// `error`, the public text the HTTP layer sends (the public CLOB's own wording), and `detail`, a precise reason
// that names the field and the problem; `detail` never contains a secret, a signature or a header value
// longer than it needs, so it is safe to log and, when useful, to show.

export interface Passed<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Failed {
  readonly ok: false;
  readonly error: string;
  readonly detail: string;
}

export type AuthResult<T> = Passed<T> | Failed;

export function passed<T>(value: T): Passed<T> {
  return { ok: true, value };
}

export function failed(error: string, detail: string): Failed {
  return { ok: false, error, detail };
}
