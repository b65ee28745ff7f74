// Every reason the engine refuses an order or command, with the public CLOB's messages, and proof that
// a refusal changes no balance, order or book.

import t, { type Test } from 'tap';
import { CID, NO, Scenario, T0, YES, buy, cancel, deposit, listMarket, order, sell, split, units } from './scenario.js';
import type { Command } from '../../engine/index.js';

type TestContext = Test;

function setup(t: TestContext): Scenario {
  return new Scenario(t).given(listMarket(), deposit('a', 100), deposit('b', 100), split('a', 20));
}

/** Applies a command that must be refused and checks that only the sequence number moved. */
function refused(t: TestContext, s: Scenario, cmd: Command, code: string, message?: string): void {
  const before = JSON.stringify([s.engine.balances('a'), s.engine.balances('b'), s.engine.book(YES)?.bids, s.engine.book(YES)?.asks, s.engine.state.live.size()]);
  const events = s.when(cmd);
  t.equal(events.length, 1, `${code}: exactly one event`);
  const [event] = events;
  t.ok(event && (event.type === 'OrderRejected' || event.type === 'CommandRejected' || event.type === 'CancelRejected'), `${code}: a refusal`);
  t.match(event, message === undefined ? { code } : { code, message });
  const after = JSON.stringify([s.engine.balances('a'), s.engine.balances('b'), s.engine.book(YES)?.bids, s.engine.book(YES)?.asks, s.engine.state.live.size()]);
  t.equal(after, before, `${code}: nothing else changed`);
}

t.test('price must be on the tick and within [tick, 1 - tick]', async (t) => {
  const s = setup(t);
  refused(t, s, buy('x1', 'b', YES, 10, 0.425), 'TICK_SIZE', 'order x1 is invalid. Price (0.425) breaks minimum tick size rule: 0.01');
  refused(t, s, order('BUY', 'x2', 'b', YES, units(1), units(3)), 'TICK_SIZE', 'order x2 is invalid. Price (0.333333) breaks minimum tick size rule: 0.01');
  refused(t, s, buy('x3', 'b', YES, 10, 0.995), 'TICK_SIZE', 'order x3 is invalid. Price (0.995) breaks minimum tick size rule: 0.01');
  refused(t, s, order('BUY', 'x4', 'b', YES, units(9.95), units(10)), 'TICK_SIZE', 'order x4 is invalid. Price (0.995) breaks minimum tick size rule: 0.01');
  refused(t, s, order('BUY', 'x5', 'b', YES, units(10), units(10)), 'TICK_SIZE', 'order x5 is invalid. Price (1) breaks minimum tick size rule: 0.01');
  refused(t, s, order('SELL', 'x6', 'a', YES, units(10), units(0.05)), 'TICK_SIZE', 'order x6 is invalid. Price (0.005) breaks minimum tick size rule: 0.01');
});

t.test('amounts more precise than the tick allows', async (t) => {
  const s = setup(t);
  refused(t, s, order('BUY', 'p1', 'b', YES, 4_000_000, 10_005_000), 'INVALID_AMOUNTS', 'invalid amounts, the buy orders maker amount supports a max accuracy of 4 decimals, taker amount a max of 2 decimals');
  refused(t, s, order('BUY', 'p2', 'b', YES, 4_000_010, 10_000_000), 'INVALID_AMOUNTS');
  refused(t, s, order('SELL', 'p3', 'a', YES, 10_001_000, 5_000_000), 'INVALID_AMOUNTS', 'invalid amounts, the sell orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals');
  refused(t, s, order('BUY', 'p4', 'b', YES, 4_000_001, 10_000_000, { orderType: 'FOK' }), 'INVALID_AMOUNTS');
  refused(t, s, order('SELL', 'p5', 'a', YES, 10_000_100, 4_000_000, { orderType: 'FAK' }), 'INVALID_AMOUNTS');
});

t.test('size below the minimum', async (t) => {
  const s = setup(t);
  refused(t, s, buy('m1', 'b', YES, 4.99, 0.5), 'MIN_SIZE', 'order m1 is invalid. Size (4.99) lower than the minimum: 5');
  refused(t, s, order('BUY', 'm2', 'b', YES, units(0.01), 9_000, { orderType: 'FOK' }), 'MIN_SIZE');
});

t.test('balance', async (t) => {
  const s = setup(t);
  refused(t, s, buy('n1', 'b', YES, 201, 0.5), 'NOT_ENOUGH_BALANCE', 'not enough balance / allowance');
  refused(t, s, sell('n2', 'b', YES, 5, 0.5), 'NOT_ENOUGH_BALANCE');
  refused(t, s, sell('n3', 'a', YES, 20.01, 0.5), 'NOT_ENOUGH_BALANCE');
  refused(t, s, buy('n4', 'nobody', YES, 5, 0.5), 'NOT_ENOUGH_BALANCE');
  s.given(buy('held', 'b', YES, 150, 0.6));
  refused(t, s, buy('n5', 'b', YES, 30, 0.5), 'NOT_ENOUGH_BALANCE', 'not enough balance / allowance');
  refused(t, s, { type: 'Withdraw', time: T0, account: 'b', amount: units(10.01) }, 'NOT_ENOUGH_BALANCE');
});

t.test('duplicates, unknown markets and malformed orders', async (t) => {
  const s = setup(t);
  s.given(buy('dup', 'b', YES, 10, 0.3));
  refused(t, s, buy('dup', 'b', YES, 10, 0.3), 'DUPLICATED', 'order dup is invalid. Duplicated.');
  s.given(cancel('dup', 'b'));
  refused(t, s, buy('dup', 'b', YES, 10, 0.3), 'DUPLICATED', 'order dup is invalid. Duplicated.');
  refused(t, s, buy('u1', 'b', 'no-such-token', 10, 0.3), 'MARKET_NOT_FOUND');
  for (const [label, bad] of [
    ['negative amount', { makerAmount: -1 }],
    ['NaN', { makerAmount: Number.NaN }],
    ['infinite', { takerAmount: Number.POSITIVE_INFINITY }],
    ['above 2^53', { takerAmount: 2 ** 53 + 2 }],
    ['fractional', { makerAmount: 1.5 }],
    ['string amount', { makerAmount: '1000000' }],
    ['bad side', { side: 'HOLD' }],
    ['bad type', { orderType: 'IOC' }],
    ['empty id', { orderId: '' }],
  ] as const) {
    const cmd = { ...order('BUY', `bad-${label}`, 'b', YES, units(3), units(10)), ...bad } as unknown as Command;
    refused(t, s, cmd, 'INVALID_ORDER_PAYLOAD');
  }
});

t.test('the market must be trading', async (t) => {
  const s = setup(t);
  s.given(buy('rest', 'b', YES, 10, 0.3), { type: 'PauseMarket', time: T0, conditionId: CID });
  refused(t, s, buy('q1', 'b', YES, 10, 0.3), 'MARKET_NOT_READY', 'the market is not yet ready to process new orders');
  t.match(s.when(cancel('rest', 'b')), [{ type: 'OrderCancelled' }], 'cancels work while paused');
  s.given({ type: 'ResolveMarket', time: T0, conditionId: CID, winningOutcome: 0 });
  refused(t, s, buy('q2', 'b', YES, 10, 0.3), 'MARKET_CLOSED');
});

t.test('cancel refusals', async (t) => {
  const s = setup(t);
  s.given(buy('mine', 'b', YES, 10, 0.3), sell('gone', 'a', YES, 5, 0.3));
  refused(t, s, cancel('mine', 'a'), 'ORDER_NOT_FOUND', 'Order not found');
  refused(t, s, cancel('nope', 'a'), 'ORDER_NOT_FOUND');
  refused(t, s, cancel('gone', 'a'), 'ORDER_ALREADY_MATCHED', 'Order already matched');
  s.given(cancel('mine', 'b'));
  refused(t, s, cancel('mine', 'b'), 'ORDER_ALREADY_CANCELED', 'Order already canceled');
});

t.test('market commands', async (t) => {
  const s = setup(t);
  refused(t, s, listMarket(), 'MARKET_EXISTS');
  refused(t, s, listMarket({ conditionId: '0xnew', tokenIds: [YES, '77'] }), 'TOKEN_IN_USE');
  refused(t, s, listMarket({ conditionId: '0xnew', tokenIds: ['8', '9'], tickSize: 3_000 }), 'INVALID_MARKET_PARAMS');
  refused(t, s, listMarket({ conditionId: '0xnew', tokenIds: ['8', '9'], minSize: 1 }), 'INVALID_MARKET_PARAMS');
  refused(t, s, listMarket({ conditionId: '0xnew', tokenIds: ['8', '8'] }), 'INVALID_MARKET_PARAMS');
  refused(t, s, listMarket({ conditionId: '0xnew', tokenIds: ['8', '9'], takerFeeBps: 10_001 }), 'INVALID_MARKET_PARAMS');
  refused(t, s, { type: 'ResumeMarket', time: T0, conditionId: CID }, 'INVALID_TRANSITION', `market ${CID} cannot go from active to active`);
  refused(t, s, { type: 'UpdateMarket', time: T0, conditionId: CID, tickSize: 7 }, 'INVALID_MARKET_PARAMS');
  refused(t, s, { type: 'PauseMarket', time: T0, conditionId: '0xnone' }, 'MARKET_NOT_FOUND');
  refused(t, s, { type: 'Redeem', time: T0, account: 'a', conditionId: CID }, 'MARKET_NOT_RESOLVED');
  refused(t, s, { type: 'Merge', time: T0, account: 'a', conditionId: CID, amount: units(20.000001) }, 'NOT_ENOUGH_BALANCE');
  refused(t, s, { type: 'Split', time: T0, account: 'b', conditionId: CID, amount: units(100.5) }, 'NOT_ENOUGH_BALANCE');
  refused(t, s, { type: 'Deposit', time: T0, account: 'a', amount: 0 }, 'INVALID_AMOUNT');
  refused(t, s, { type: 'Deposit', time: T0, account: 'a', amount: 2 ** 53 }, 'INVALID_AMOUNT');
  refused(t, s, { type: 'Nonsense', time: T0 } as unknown as Command, 'INVALID_COMMAND');
  refused(t, s, { type: 'Deposit' } as unknown as Command, 'INVALID_COMMAND');
  void NO;
});

t.test('API key commands', async (t) => {
  const s = setup(t);
  const alice = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
  const key = '11111111-1111-4111-8111-111111111111';
  s.given({ type: 'CreateApiKey', time: T0, address: alice, nonce: '0', apiKey: key });
  refused(t, s, { type: 'CreateApiKey', time: T0, address: alice, nonce: '0', apiKey: '22222222-2222-4222-8222-222222222222' }, 'API_KEY_EXISTS', 'Could not create api key');
  refused(t, s, { type: 'DeleteApiKey', time: T0, address: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', apiKey: key }, 'API_KEY_NOT_FOUND', 'Could not delete API key');
  refused(t, s, { type: 'CreateApiKey', time: T0, address: 'a', nonce: '0', apiKey: key }, 'INVALID_COMMAND');
});
