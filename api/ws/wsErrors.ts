// Every way the WebSocket channels refuse input, in one place (docs/websocket.md lists them). A refused
// message changes nothing. Error frames are `{"event_type":"error","error":"<message>"}`; closes carry a
// code and a reason (at most 123 bytes, the WebSocket limit).

export const WS_ERRORS = {
  not_json: 'message is not valid JSON (or the text PING)',
  not_object: 'message must be a JSON object',
  unknown_message: 'unknown message: expected {"type":"market"|"user",...} or {"operation":"subscribe"|"unsubscribe",...}',
  wrong_channel: 'this channel takes "type":"market" on /ws/market and "type":"user" on /ws/user',
  bad_ids: 'assets_ids must be an array of token ids (decimal strings)',
  bad_markets: 'markets must be an array of condition ids (0x + 64 hex)',
  bad_flag: 'initial_dump and custom_feature_enabled must be booleans',
  not_subscribed: 'send the subscribe message ({"type":...}) before an operation',
  too_many: 'subscription limit reached',
  binary: 'binary messages are not accepted',
} as const;

export type WsErrorCode = keyof typeof WS_ERRORS;

export function errorFrame(code: WsErrorCode, detail?: string): string {
  return JSON.stringify({ event_type: 'error', error: detail === undefined ? WS_ERRORS[code] : `${WS_ERRORS[code]}: ${detail}` });
}

/** Close codes and reasons. */
export const WS_CLOSE = {
  unauthorized: { code: 1008, reason: 'unauthorized: invalid or missing api credentials (auth.apiKey, secret, passphrase)' },
  authFirst: { code: 1008, reason: 'unauthorized: the first message on /ws/user must be the subscribe message with auth' },
  slowConsumer: { code: 4008, reason: 'slow consumer: send buffer over the backpressure limit' },
  shutdown: { code: 1001, reason: 'server shutting down' },
  tooBig: { code: 1009, reason: 'message too big' },
  idle: { code: 4000, reason: 'idle: no message (PING) for' },
} as const;
