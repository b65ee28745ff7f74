// The one catalogue of reasons the engine refuses a command. Each code has the HTTP status an API answers
// with and a message; the messages are the public CLOB's own where it has one (upstream-conventions §2.5,
// §2.6), so clients that match on text keep working. api/ maps codes to responses from this table alone.

export const REJECT = {
  INVALID_ORDER_PAYLOAD: { http: 400, text: 'Invalid order payload' },
  MARKET_NOT_FOUND: { http: 404, text: 'market not found' },
  MARKET_NOT_READY: { http: 400, text: 'the market is not yet ready to process new orders' },
  MARKET_CLOSED: { http: 400, text: 'the market is closed: it has been resolved' },
  DUPLICATED: { http: 400, text: 'order {id} is invalid. Duplicated.' },
  ORDER_STALE: { http: 400, text: 'order {id} is invalid. Timestamp is past the order window at the matching engine: sign a new order with a current timestamp' },
  TICK_SIZE: { http: 400, text: 'order {id} is invalid. Price ({price}) breaks minimum tick size rule: {tick}' },
  MIN_SIZE: { http: 400, text: 'order {id} is invalid. Size ({size}) lower than the minimum: {min}' },
  INVALID_AMOUNTS: { http: 400, text: 'invalid amounts, the {kind} orders maker amount supports a max accuracy of {maker} decimals, taker amount a max of {taker} decimals' },
  NOT_ENOUGH_BALANCE: { http: 400, text: 'not enough balance / allowance' },
  INVALID_EXPIRATION: { http: 400, text: 'invalid expiration' },
  POST_ONLY_CROSSES: { http: 400, text: 'invalid post-only order: order crosses book' },
  POST_ONLY_TYPE: { http: 400, text: 'invalid post-only order: only GTC and GTD order types are allowed' },
  FOK_NOT_FILLED: { http: 400, text: "order couldn't be fully filled. FOK orders are fully filled or killed." },
  FAK_NO_MATCH: { http: 400, text: 'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.' },
  ORDER_NOT_FOUND: { http: 404, text: 'Order not found' },
  ORDER_ALREADY_CANCELED: { http: 400, text: 'Order already canceled' },
  ORDER_ALREADY_MATCHED: { http: 400, text: 'Order already matched' },
  ORDER_ALREADY_EXPIRED: { http: 400, text: 'Order already expired' },
  INVALID_AMOUNT: { http: 400, text: 'invalid amount: {detail}' },
  INVALID_MARKET_PARAMS: { http: 400, text: 'invalid market parameters: {detail}' },
  MARKET_EXISTS: { http: 400, text: 'market {conditionId} is already listed' },
  TOKEN_IN_USE: { http: 400, text: 'token {tokenId} already belongs to a market' },
  MARKET_NOT_RESOLVED: { http: 400, text: 'market {conditionId} is not resolved' },
  NOTHING_TO_REDEEM: { http: 400, text: 'nothing to redeem in market {conditionId}' },
  BALANCE_LIMIT: { http: 400, text: 'deposit refused: balance would exceed the engine limit' },
  INVALID_TRANSITION: { http: 400, text: 'market {conditionId} cannot go from {from} to {to}' },
  INVALID_COMMAND: { http: 400, text: 'invalid command: {detail}' },
  REQUEST_REPLAYED: { http: 400, text: 'request replayed: this signed request was already applied; sign a new request to act again' },
  REQUEST_STALE: { http: 400, text: 'request expired: its signed timestamp is past the freshness window at the matching engine; sign a new request' },
  API_KEY_EXISTS: { http: 400, text: 'Could not create api key' },
  API_KEY_NOT_FOUND: { http: 404, text: 'Could not delete API key' },
  ACCESS_KEY_EXISTS: { http: 400, text: 'Could not create api key' },
  ACCESS_KEY_LIMIT: { http: 400, text: 'Could not create api key: at most {max} {kind} API keys per address; delete one first' },
  ACCESS_KEY_NOT_FOUND: { http: 404, text: '{kind} API key not found' },
  SIGNER_ALREADY_AUTHORIZED: { http: 400, text: 'signer {signer} is already authorised for maker {maker}' },
  HEARTBEAT_INVALID: { http: 400, text: 'Invalid Heartbeat ID' },
  SIGNER_NOT_AUTHORIZED: { http: 404, text: 'signer {signer} is not authorised for maker {maker}' },
  REWARDS_NOT_FOUND: { http: 404, text: 'market {conditionId} has no liquidity rewards program' },
  NEG_RISK_NOT_FOUND: { http: 404, text: 'neg risk market not found: {negRiskMarketId} is not the id of a neg-risk event' },
  NO_CONVERTIBLE_POSITIONS: { http: 400, text: 'no convertible positions: neg risk market {negRiskMarketId} has fewer than two questions' },
  INVALID_INDEX_SET: { http: 400, text: 'invalid index set: {detail}' },
  NEG_RISK_RESOLVED: { http: 400, text: 'neg risk market {negRiskMarketId} has resolved questions: its positions no longer convert (redeem them)' },
  NEG_RISK_DETERMINED: { http: 400, text: 'neg risk market {negRiskMarketId} already has its winner, market {conditionId}: no other question can resolve YES or join it' },
  QUESTION_INDEX_TAKEN: { http: 400, text: 'question {questionIndex} of neg risk market {negRiskMarketId} is already market {conditionId}' },
} as const satisfies Record<string, { http: number; text: string }>;

export type RejectCode = keyof typeof REJECT;

/** Fills `{name}` placeholders of a catalogue message. */
export function rejectMessage(code: RejectCode, values: Readonly<Record<string, string | number>> = {}): string {
  return REJECT[code].text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : String(value);
  });
}
