// How the Kafka log classifies kafkajs failures. Fencing and permanent failures become FatalLogError (retrying
// cannot help); anything else is a KafkaAppendError, retriable, whose write may or may not have landed.

/** An append that failed in a way a retry may fix. The write may have landed: the log re-learns its position. */
export class KafkaAppendError extends Error {
  override readonly name = 'KafkaAppendError';
  readonly retriable = true;
}

/** A newer writer initialised the same transactional id: this one must stop writing for good. */
const FENCED = new Set(['INVALID_PRODUCER_EPOCH', 'PRODUCER_FENCED']);
/** kafkajs 2.2 does not know code 90 (PRODUCER_FENCED, newer brokers) and reports it by number. */
const FENCED_UNKNOWN_CODE = /\bUnknown error code 90\b/;

/** Failures that no retry fixes: the same request would fail the same way. */
const PERMANENT = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'TOPIC_AUTHORIZATION_FAILED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'UNSUPPORTED_VERSION',
  'UNSUPPORTED_FOR_MESSAGE_FORMAT',
]);

/** The error and everything it wraps (kafkajs nests causes in `cause`, `originalError` and `errors`). */
function chain(error: unknown, seen = new Set<unknown>()): unknown[] {
  if (error === null || typeof error !== 'object' || seen.has(error)) return [];
  seen.add(error);
  const e = error as { cause?: unknown; originalError?: unknown; errors?: unknown };
  const nested = Array.isArray(e.errors) ? (e.errors as unknown[]) : [];
  return [error, ...chain(e.cause, seen), ...chain(e.originalError, seen), ...nested.flatMap((n) => chain(n, seen))];
}

function typeOf(error: unknown): string | undefined {
  const type = (error as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

export function isFencingError(error: unknown): boolean {
  return chain(error).some((e) => FENCED.has(typeOf(e) ?? '') || FENCED_UNKNOWN_CODE.test(String((e as { message?: unknown }).message)));
}

export function isPermanentError(error: unknown): boolean {
  return chain(error).some((e) => PERMANENT.has(typeOf(e) ?? ''));
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
