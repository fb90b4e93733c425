// Is a TCP port free? uWebSockets.js binds with SO_REUSEPORT, so a second server on a busy port would start
// silently and split the traffic; probing with an exclusive node:net bind (no SO_REUSEPORT) first turns
// that into an error. Only `inkprep cluster` skips the probe, to share its port on purpose.
import net from 'node:net';
import { PortInUseError } from './types.js';

/** Resolve when `host:port` can be bound exclusively (port 0 always can); reject with PortInUseError when taken. */
export function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(host, port) : err);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
