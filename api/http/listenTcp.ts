// Listening on a TCP port: resolves with the port actually bound (the one asked for, or the one picked for 0),
// rejects with the listen error (the port in use, an address not on this host).

import type { Server } from 'node:net';

export function listenTcp(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}
