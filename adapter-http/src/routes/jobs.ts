// The jobs of `Prefer: respond-async` (issue #33; jobs/runner.ts): GET /api/v1/jobs/{id} (the job body),
// DELETE /api/v1/jobs/{id} (cancel a queued or running job: 200 with the canceled job; a finished one is
// 409 job_finished, and stays readable until it is swept), GET /api/v1/jobs/{id}/output (a succeeded job's
// binary output, as the synchronous answer would have sent it). The caller's account only: another
// account's job is 404 job_not_found, exactly as a job that does not exist. All unmetered.
import { ServiceError } from '../errors/registry.js';
import { binary, json } from '../http/reply.js';
import { JOBS_PREFIX, jobsOf, jobView } from '../jobs/index.js';
import { hostingFor } from '../storage/index.js';
import type { JobRecord } from '../store/jobs.js';
import { getRoute, type GetCall, type RouteDef } from './define.js';

/** The id segment of /api/v1/jobs/{id}[/output]. */
function idOf(path: string): string {
  return decodeURIComponent(path.slice(JOBS_PREFIX.length).split('/')[0] ?? '');
}

function notFound(id: string): ServiceError {
  return new ServiceError('job_not_found', `No job ${id} for this account (unknown, another account's, or swept after the result retention)`);
}

/** The job body with its webhook deliveries and their attempts (empty without a callback_url). */
function withWebhooks(call: GetCall, job: JobRecord): ReturnType<typeof jobView> {
  return jobView(call.app.store, call.app.config.publicUrl, job);
}

async function ownJob(call: GetCall): Promise<JobRecord> {
  const id = idOf(call.ex.path);
  const job = /^job_[0-9a-f]{24}$/.test(id) ? await call.app.store.jobs.get(id) : null;
  if (!job || job.accountId !== call.caller!.account.id) throw notFound(id);
  return job;
}

export const jobRoute: RouteDef = getRoute({
  path: `${JOBS_PREFIX}:id`,
  async handle(call) {
    return json(await withWebhooks(call, await ownJob(call)));
  },
});

export const cancelJobRoute: RouteDef = getRoute({
  path: `${JOBS_PREFIX}:id`,
  method: 'delete',
  async handle(call) {
    const id = idOf(call.ex.path);
    const out = /^job_[0-9a-f]{24}$/.test(id) ? await jobsOf(call.app).cancel(id, call.caller!.account.id) : null;
    if (!out) throw notFound(id);
    const s = out.job.status;
    if (s === 'succeeded' || s === 'failed') throw new ServiceError('job_finished', `Job ${id} has ${s}; only a queued or running job can be canceled`, { status: s });
    return json(await withWebhooks(call, out.job));
  },
});

export const jobOutputRoute: RouteDef = getRoute({
  path: `${JOBS_PREFIX}:id/output`,
  async handle(call) {
    const job = await ownJob(call);
    const obj = job.status === 'succeeded' && job.outputRef
      ? await hostingFor(call.app.config.dataDir, call.app.config.store.resultRetentionMs).storage.get(job.outputRef)
      : null;
    if (!obj) throw new ServiceError('job_not_found', `Job ${job.id} has no output (${job.status === 'succeeded' ? 'a JSON answer, in its result, or swept after the result retention' : `it is ${job.status}`})`);
    return binary(obj.bytes, job.outputType ?? obj.contentType, { 'Cache-Control': 'private, max-age=86400' });
  },
});

export const JOB_ROUTES: readonly RouteDef[] = [jobRoute, cancelJobRoute, jobOutputRoute];
