// The embedded ClickHouse (chDB) installs ClickHouse's fatal-signal handlers when its first query runs. Its
// SIGABRT handler then waits up to 300 s for a signal-listener thread that chDB does not run before it lets the
// process die: a process that aborts (an exception no native frame catches, V8 out of memory, a failed
// assertion) would stay up for five minutes, its aborting thread stuck, instead of ending at once for its
// supervisor to restart it. Once chDB is up, a listener gives SIGABRT back to Node (adding a signal's first
// listener sets its disposition): an abort() then ends the process at once, since glibc's abort() restores
// the default action and raises the signal again when a handler returns, and a SIGABRT sent by another
// process aborts it too. Where SIGABRT already had a listener (a test runner's signal-exit), Node sets nothing
// and chDB's handler stays. SIGSEGV, SIGBUS, SIGILL and SIGFPE stay chDB's: a handler that returns from a real
// fault re-runs the faulting instruction, and V8 chains its own SIGSEGV handling.

/**
 * Gives SIGABRT back to Node after chDB's first query. Does nothing where SIGABRT already has a listener: this
 * one from an earlier call, or another (see above).
 */
export function abortPromptly(): void {
  if (process.listenerCount('SIGABRT') === 0) process.on('SIGABRT', () => process.abort());
}
