// A TCP relay for the scale tests' proxies to PostgreSQL (the netns gateways, the outage test's cuttable proxy):
// the inbound socket is piped to a new connection to host:port and back, closing either side closes the other
// (so a session ends as it would directly), and both stay in `open` while they live, for the caller to cut.
import net from 'node:net';

export function relay(inbound: net.Socket, host: string, port: number, open: Set<net.Socket>): void {
  const outbound = net.connect(port, host);
  open.add(inbound).add(outbound);
  const close = (): void => {
    inbound.destroy();
    outbound.destroy();
    open.delete(inbound);
    open.delete(outbound);
  };
  inbound.on('error', close).on('close', close);
  outbound.on('error', close).on('close', close);
  inbound.pipe(outbound);
  outbound.pipe(inbound);
}
