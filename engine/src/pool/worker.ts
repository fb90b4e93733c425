// Piscina worker entry: one function from task to reply. Errors never throw across the thread boundary;
// they travel as { code, message, details } and are rebuilt as InkprepError on the main thread. The engine's
// settings (paths, models) arrive once as the worker's workerData.
import { Piscina } from 'piscina';
import { setMemoryCacheBytes } from '../cache/memory.js';
import { defaultSettings, type EngineSettings } from '../settings.js';
import type { ProgressPortMessage, ReplyMessage, TaskMessage } from './messages.js';
import { runOpSafely } from './run-op.js';

// Absent when the worker function is called outside a pool (tests).
const settings: EngineSettings = (Piscina.workerData as EngineSettings | null | undefined) ?? defaultSettings();
// This worker's share of the engine's memory cache budget.
setMemoryCacheBytes(settings.memoryCacheBytes);

export default async function runTask(task: TaskMessage): Promise<ReplyMessage | ReturnType<typeof Piscina.move>> {
  const port = task.progress;
  const post = (m: ProgressPortMessage): void => port?.postMessage(m);
  // runOpSafely never throws, so the end marker is always posted and the port closed (the main side waits for
  // the marker, or the close, before it settles the call, and closes its end then).
  const out = await runOpSafely(task.op, task.input, task.options, { maxPixels: task.maxPixels, settings, ...(port ? { progress: post } : {}) });
  if (port) {
    post(null);
    port.close();
  }
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
