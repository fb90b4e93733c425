// Chooses the HTTP transport once at start: `INKPREP_HTTP=uws|node|auto`. The default, auto, is
// uWebSockets.js where the @btc-vision build loads (Node 20-25 on glibc >= 2.38), else node:http: auto
// never picks the trufflesuite build (Node 16-20 on older glibc), whose parser closes malformed requests
// without an answer. `uws` takes any build that loads (uws-load.ts tries them in order) and logs that
// behaviour as a warning when it runs on the trufflesuite one. With `node`, uWS is never loaded.
import { nodeTransport } from './node.js';
import type { Transport, TransportChoice } from './types.js';

export const TRANSPORT_CHOICES: readonly TransportChoice[] = ['auto', 'uws', 'node'];

/** The chosen transport and why (for the one start-up log line), and a warning to log beside it. */
export interface SelectedTransport {
  transport: Transport;
  reason: string;
  /** What the chosen build does that an operator must know (a silent close on malformed framing), or absent. */
  warning?: string;
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
  const { loadUws, malformedFramingWarning } = await import('./uws-load.js');
  const load = loadUws(choice);
  if (load.ok) {
    const { createUwsTransport } = await import('./uws.js');
    const warning = malformedFramingWarning(load.build);
    return {
      transport: createUwsTransport(load.uws),
      reason: choice === 'uws' ? `INKPREP_HTTP=uws: ${load.reason}` : load.reason,
      ...(warning ? { warning } : {}),
    };
  }
  if (choice === 'uws') throw new Error(`INKPREP_HTTP=uws, but ${load.reason}; use INKPREP_HTTP=node or auto`);
  return {
    transport: nodeTransport,
    reason: `${load.reason.replace(/^no uWebSockets\.js native build loads/, 'no uWebSockets.js build that auto picks loads')}; `
      + 'auto never picks the trufflesuite build (it closes malformed requests without an answer; INKPREP_HTTP=uws runs on it where it loads)',
  };
}
