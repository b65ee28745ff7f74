// kafkajs (2.2.4, its last release) looks the transaction coordinator up (a FindCoordinator request, one broker
// round trip) before each AddPartitionsToTxn and each EndTxn, so every transaction paid two lookups on top of
// its three requests: more time per append and more CPU in the broker and the engine. This keeps the
// coordinator found for the producer's cluster and hands it out again for as long as nothing fails:
// - a lookup is made again once the cached broker's connection is down;
// - any failure of a request sent to it but CONCURRENT_TRANSACTIONS (the coordinator still writing the previous
//   transaction's markers, answered by retrying the same coordinator) drops it, so kafkajs's retry of that
//   request looks the coordinator up afresh (NOT_COORDINATOR after it moved, a lost connection, ...);
// - an AddPartitionsToTxn answered CONCURRENT_TRANSACTIONS, which a transaction begun right after a commit
//   meets for a millisecond or two, is retried here at once: kafkajs's own retry of it is a failed send,
//   which refreshes the whole cluster's metadata (one more round trip) before it tries again.
// Group coordinators (consumers) are not cached. kafkajs builds a producer's cluster with a function it keeps
// under a private symbol of the Kafka object; withCachedCoordinator() wraps it while one producer is made, and
// fails loudly if a kafkajs version without it is installed. test/log/kafkaCoordinatorCache.test.ts counts the
// lookups per transaction against a real broker.

import type { Kafka, Producer } from 'kafkajs';

const CREATE_CLUSTER = 'private:Kafka:createCluster';
/** kafkajs's COORDINATOR_TYPES.TRANSACTION. */
const TRANSACTION = 1;
const COORDINATOR_CALLS = ['initProducerId', 'addPartitionsToTxn', 'addOffsetsToTxn', 'endTxn'] as const;
/**
 * Retries of an AddPartitionsToTxn answered CONCURRENT_TRANSACTIONS, made here after 1, 2, 4, ... 128 ms
 * (255 ms in all) before the error reaches kafkajs, whose retry first refreshes the whole cluster's metadata.
 */
const CONCURRENT_RETRIES = 8;

interface Broker {
  isConnected(): boolean;
  [call: string]: unknown;
}

interface Cluster {
  findGroupCoordinator(args: { groupId: string; coordinatorType?: number }): Promise<Broker>;
}

type CreateCluster = (options: unknown) => Cluster;

function cacheCoordinator(cluster: Cluster): void {
  const find = cluster.findGroupCoordinator.bind(cluster);
  let cached: { groupId: string; broker: Broker } | undefined;
  cluster.findGroupCoordinator = async (args) => {
    if (args.coordinatorType !== TRANSACTION) return find(args);
    if (cached !== undefined && cached.groupId === args.groupId && cached.broker.isConnected()) return cached.broker;
    const broker = await find(args);
    const wrapped = new Map<string | symbol, (...callArgs: unknown[]) => Promise<unknown>>();
    for (const call of COORDINATOR_CALLS) {
      const original = broker[call];
      if (typeof original !== 'function') continue;
      wrapped.set(call, async (...callArgs: unknown[]): Promise<unknown> => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await (original as (...a: unknown[]) => Promise<unknown>).apply(broker, callArgs);
          } catch (error) {
            const concurrent = (error as { type?: unknown }).type === 'CONCURRENT_TRANSACTIONS';
            if (concurrent && call === 'addPartitionsToTxn' && attempt < CONCURRENT_RETRIES) {
              await new Promise((resolve) => setTimeout(resolve, 2 ** attempt));
              continue;
            }
            if (!concurrent && cached?.broker === handed) cached = undefined;
            throw error;
          }
        }
      });
    }
    // Everything else reaches the broker itself (its methods run with the broker as `this`).
    const handed: Broker = new Proxy(broker, {
      get: (target, prop) => {
        const call = wrapped.get(prop);
        if (call !== undefined) return call;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    cached = { groupId: args.groupId, broker: handed };
    return handed;
  };
}

/** Makes a producer through `make`, with its cluster's transaction coordinator cached. */
export function withCachedCoordinator(kafka: Kafka, make: () => Producer): Producer {
  const holder = kafka as unknown as Record<symbol, unknown>;
  const key = Object.getOwnPropertySymbols(kafka).find((s) => s.description === CREATE_CLUSTER);
  const create = key === undefined ? undefined : holder[key];
  if (key === undefined || typeof create !== 'function') {
    throw new Error(`this kafkajs has no ${CREATE_CLUSTER}: log/kafka/coordinatorCache.ts was written for kafkajs 2.2.4`);
  }
  holder[key] = (options: unknown): Cluster => {
    const cluster = (create as CreateCluster)(options);
    cacheCoordinator(cluster);
    return cluster;
  };
  try {
    return make();
  } finally {
    holder[key] = create;
  }
}
