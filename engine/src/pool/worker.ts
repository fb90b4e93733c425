// Piscina worker entry: one function from task to reply. Errors never throw across the thread boundary;
// they travel as { code, message, details } and are rebuilt as InkprepError on the main thread.
import { Piscina } from 'piscina';
import type { ReplyMessage, TaskMessage } from './messages.js';
import { runOpSafely } from './run-op.js';

export default async function runTask(task: TaskMessage): Promise<ReplyMessage | ReturnType<typeof Piscina.move>> {
  const port = task.progress;
  // runOpSafely never throws, so the port is always closed (the main side also closes its end on settle).
  const out = await runOpSafely(task.op, task.input, task.options, task.maxPixels, port ? (e) => port.postMessage(e) : undefined);
  port?.close();
  if (!out.ok) return { ok: false, error: out.error };
  const reply: ReplyMessage = { ok: true, value: out.value };
  if (out.transfer.length === 0) return reply;
  // Move result buffers instead of copying them.
  return Piscina.move({
    get [Piscina.transferableSymbol]() {
      return out.transfer;
    },
    get [Piscina.valueSymbol]() {
      return reply;
    },
  } as unknown as ArrayBuffer);
}
