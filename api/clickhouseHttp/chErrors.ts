// Errors as a ClickHouse server sends them over HTTP, so that ClickHouse clients parse them as they parse a
// server's: the status code the server gives the error code, the header X-ClickHouse-Exception-Code, and a
// text body "Code: N. DB::Exception: message. (NAME) (version V)". Errors raised by the engine (chDB) already
// carry that text; the endpoint's own refusals are built here with ClickHouse's codes and names.

export class ClickHouseHttpError extends Error {
  constructor(
    readonly code: number,
    readonly codeName: string,
    message: string,
  ) {
    super(message);
  }
}

/** The endpoint's own errors, with the codes and names a ClickHouse server gives the same errors. */
export const refuse = {
  emptyQuery: (): ClickHouseHttpError => new ClickHouseHttpError(62, 'SYNTAX_ERROR', 'Empty query'),
  badArguments: (message: string): ClickHouseHttpError => new ClickHouseHttpError(36, 'BAD_ARGUMENTS', message),
  notImplemented: (message: string): ClickHouseHttpError => new ClickHouseHttpError(48, 'NOT_IMPLEMENTED', message),
  unknownDatabase: (db: string): ClickHouseHttpError => new ClickHouseHttpError(81, 'UNKNOWN_DATABASE', `Database ${db} does not exist`),
  readonly: (what: string): ClickHouseHttpError => new ClickHouseHttpError(164, 'READONLY', `${what}: Cannot execute query in readonly mode`),
  busy: (limit: number): ClickHouseHttpError =>
    new ClickHouseHttpError(202, 'TOO_MANY_SIMULTANEOUS_QUERIES', `Too many simultaneous queries for the analyst. Maximum: ${limit} running and queued`),
  bodyTooLarge: (limit: number): ClickHouseHttpError => new ClickHouseHttpError(229, 'QUERY_IS_TOO_LARGE', `The request body is larger than ${limit} bytes`),
  cannotDecompress: (reason: string): ClickHouseHttpError => new ClickHouseHttpError(271, 'CANNOT_DECOMPRESS', `The request body could not be read: ${reason}`),
  resultTooLarge: (limit: number, bytes: number): ClickHouseHttpError =>
    new ClickHouseHttpError(396, 'TOO_MANY_ROWS_OR_BYTES', `Limit for result exceeded, max bytes: ${limit}, current bytes: ${bytes}`),
  unknownParameter: (name: string): ClickHouseHttpError => new ClickHouseHttpError(456, 'UNKNOWN_QUERY_PARAMETER', `Substitution \`${name}\` is not set`),
  accessDenied: (user: string, what: string): ClickHouseHttpError => new ClickHouseHttpError(497, 'ACCESS_DENIED', `${user}: Not enough privileges. ${what}`),
  authentication: (user: string): ClickHouseHttpError =>
    new ClickHouseHttpError(516, 'AUTHENTICATION_FAILED', `${user}: Authentication failed: password is incorrect, or there is no user with such name`),
};

/** A chDB error message ("Code: 164. DB::Exception: ... (READONLY)") as code, name and message. */
export function fromEngineError(error: unknown): ClickHouseHttpError {
  if (error instanceof ClickHouseHttpError) return error;
  const text = error instanceof Error ? error.message : String(error);
  const match = /^Code: (\d+)\. DB::Exception: ([\s\S]*?)\s*\(([A-Z0-9_]+)\)\s*(?:\(version [^)]*\))?\s*$/.exec(text.trim());
  if (match === null) return new ClickHouseHttpError(1001, 'STD_EXCEPTION', text.trim());
  const [, code, message, name] = match as unknown as [string, string, string, string];
  return new ClickHouseHttpError(Number(code), name, message.replace(/\.$/, ''));
}

const STATUS_BY_NAME: Readonly<Record<string, number>> = {
  AUTHENTICATION_FAILED: 401,
  REQUIRED_PASSWORD: 401,
  WRONG_PASSWORD: 401,
  UNKNOWN_USER: 401,
  READONLY: 403,
  ACCESS_DENIED: 403,
  UNKNOWN_TABLE: 404,
  UNKNOWN_FUNCTION: 404,
  UNKNOWN_IDENTIFIER: 404,
  UNKNOWN_TYPE: 404,
  UNKNOWN_STORAGE: 404,
  UNKNOWN_DATABASE: 404,
  UNKNOWN_SETTING: 404,
  UNKNOWN_AGGREGATE_FUNCTION: 404,
  UNKNOWN_FORMAT: 404,
  UNKNOWN_TYPE_OF_QUERY: 404,
  SYNTAX_ERROR: 400,
  BAD_ARGUMENTS: 400,
  TYPE_MISMATCH: 400,
  ILLEGAL_TYPE_OF_ARGUMENT: 400,
  NUMBER_OF_ARGUMENTS_DOESNT_MATCH: 400,
  UNKNOWN_QUERY_PARAMETER: 400,
  BAD_QUERY_PARAMETER: 400,
  CANNOT_PARSE_TEXT: 400,
  CANNOT_PARSE_INPUT_ASSERTION_FAILED: 400,
  CANNOT_PARSE_QUOTED_STRING: 400,
  CANNOT_PARSE_NUMBER: 400,
  CANNOT_PARSE_DATE: 400,
  CANNOT_PARSE_DATETIME: 400,
  INCORRECT_DATA: 400,
  EMPTY_QUERY: 400,
  NOT_IMPLEMENTED: 501,
  TIMEOUT_EXCEEDED: 504,
  TOO_MANY_SIMULTANEOUS_QUERIES: 503,
  QUERY_IS_TOO_LARGE: 413,
};

/** The HTTP status a ClickHouse server answers this error with (500 for the rest, as the server does). */
export function statusOf(error: ClickHouseHttpError): number {
  return STATUS_BY_NAME[error.codeName] ?? 500;
}

export function errorBody(error: ClickHouseHttpError, version: string): string {
  return `Code: ${error.code}. DB::Exception: ${error.message}. (${error.codeName}) (version ${version})\n`;
}
