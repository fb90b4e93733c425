// A job as the API shows it (GET /api/v1/jobs/{id}, the 202 of a submission, the webhook's body), and the
// result and error a finished job keeps: the same numbers and body the synchronous answer would carry.
import type { Reply } from '../http/reply.js';
import type { JobRecord, JobStatus } from '../store/jobs.js';

/** Path of a job; its output is at `<path>/output`. */
export const JOBS_PREFIX = '/api/v1/jobs/';

/** What a succeeded job keeps of its reply (JSON text in the store). */
export interface StoredResult {
  /** The synchronous answer's status (200). */
  status: number;
  content_type: string;
  /** The reply's own headers that carry numbers (`X-*`: X-Paths, X-Warnings, X-Queue-Ms...). */
  headers: Record<string, string>;
  /** The JSON body itself, for JSON answers. */
  body?: unknown;
  /** Size in bytes of a binary output (image, SVG, PDF...), kept in the result storage and served at `output_url`. */
  output_bytes?: number;
}

/** What a failed job keeps: the synchronous answer's status and error body. */
export interface StoredError {
  status: number;
  body: unknown;
}

/** The job body. */
export interface JobBody {
  id: string;
  status: JobStatus;
  /** The route the job runs, e.g. `/api/v1/vectorize`. */
  operation: string;
  /** From the engine's progress events: share done (0..1) and the stage; null before the first. */
  progress: { fraction: number; stage: string | null } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  result?: StoredResult & { output_url?: string };
  error?: StoredError;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The body of `job`; `publicUrl` (INKPREP_PUBLIC_URL) makes output_url absolute. */
export function jobBody(job: JobRecord, publicUrl: string | null): JobBody {
  const body: JobBody = {
    id: job.id,
    status: job.status,
    operation: job.operation,
    progress: job.progress === null ? (job.status === 'succeeded' ? { fraction: 1, stage: null } : null) : { fraction: Math.round(job.progress * 1000) / 1000, stage: job.stage },
    created_at: iso(job.createdAt)!,
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
  };
  if (job.status === 'succeeded' && job.result) {
    const r = JSON.parse(job.result) as StoredResult;
    body.result = job.outputRef ? { ...r, output_url: `${publicUrl ?? ''}${JOBS_PREFIX}${job.id}/output` } : r;
  }
  if (job.status === 'failed' && job.error) body.error = JSON.parse(job.error) as StoredError;
  return body;
}

/** The reply's `X-*` headers (the numbers a synchronous answer carries). */
function numbersOf(reply: Reply): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(reply.headers ?? {})) if (/^x-/i.test(k)) out[k] = v;
  return out;
}

/** Whether a reply is a JSON answer (kept in the job) rather than an output served from the result storage. */
export function isJsonReply(reply: Reply): boolean {
  return reply.contentType.startsWith('application/json');
}

/** The stored result of a 2xx reply (`outputBytes`: the size of the binary body stored apart). */
export function resultOf(reply: Reply): StoredResult {
  const base = { status: reply.status, content_type: reply.contentType, headers: numbersOf(reply) };
  if (isJsonReply(reply)) {
    const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8');
    return { ...base, body: JSON.parse(text) as unknown };
  }
  return { ...base, output_bytes: typeof reply.body === 'string' ? Buffer.byteLength(reply.body) : reply.body.byteLength };
}

/** The stored error of an error reply. */
export function errorOf(reply: Reply): StoredError {
  const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = { error: text };
  }
  return { status: reply.status, body };
}
