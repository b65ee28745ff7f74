// The service's logger: pino, writing JSON lines (one object a line, what log shippers read) or, on a
// terminal, pino-pretty's coloured text, as pino users expect. `--log-format` overrides the choice. Pretty
// output is formatted in-process and written synchronously, so the last lines before an exit are never lost.

import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config/index.js';

export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, tty: boolean = process.stdout.isTTY === true): Logger {
  const usePretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && tty);
  if (!usePretty) return pino({ level: config.logLevel });
  return pino({ level: config.logLevel }, pretty({ colorize: tty, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}
