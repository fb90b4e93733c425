// Chooses the HTTP transport once at start: `INKPREP_HTTP=uws|node|auto` (default auto = uWebSockets.js
// where one of its native builds loads for this Node and C library, else node:http; uws-load.ts tries
// them in order). With `node`, uWS is never loaded.
import { nodeTransport } from './node.js';
import type { Transport, TransportChoice } from './types.js';

export const TRANSPORT_CHOICES: readonly TransportChoice[] = ['auto', 'uws', 'node'];

/** The chosen transport and why (for the one start-up log line). */
export interface SelectedTransport {
  transport: Transport;
  reason: string;
}

/** Parse `INKPREP_HTTP` (unset or empty = auto); throws a readable Error for anything else. */
export function parseTransportChoice(raw: string | undefined): TransportChoice {
  const v = (raw ?? '').trim().toLowerCase();
  if (v === '') return 'auto';
  if ((TRANSPORT_CHOICES as readonly string[]).includes(v)) return v as TransportChoice;
  throw new Error(`Expected uws, node or auto for INKPREP_HTTP but received ${JSON.stringify(raw)}`);
}

/** Resolve a choice to a transport; `uws` on a Node where uWS cannot load is an error naming why. */
export async function selectTransport(choice: TransportChoice): Promise<SelectedTransport> {
  if (choice === 'node') return { transport: nodeTransport, reason: 'INKPREP_HTTP=node' };
  const { loadUws } = await import('./uws-load.js');
  const load = loadUws();
  if (load.ok) {
    const { createUwsTransport } = await import('./uws.js');
    return { transport: createUwsTransport(load.uws), reason: choice === 'uws' ? `INKPREP_HTTP=uws: ${load.reason}` : load.reason };
  }
  if (choice === 'uws') throw new Error(`INKPREP_HTTP=uws, but ${load.reason}; use INKPREP_HTTP=node or auto`);
  return { transport: nodeTransport, reason: load.reason };
}
