// What the service and the CLI add to an engine error's message: how to fix it with this host's own tools.
// The engine says what is missing in its terms (code + details); only the host knows its commands.
import type { ErrorDetails } from '@inkprep/engine';

/** The message to show for an error: the engine's, plus this host's hint where there is one. */
export function hostMessage(code: string, message: string, details: Readonly<ErrorDetails>): string {
  // No segmentation model for a photo: the CLI fetches one (the service also fetches it at start).
  if (code === 'not_separable' && details.model === 'absent') return `${message} (run \`inkprep models fetch\`)`;
  return message;
}
