// The job as every answer shows it: the job body plus its webhook deliveries (empty without a callback_url),
// so the 202 of a submission and GET/DELETE /api/v1/jobs/{id} have one shape.
import type { Store } from '../store/types.js';
import type { JobRecord } from '../store/jobs.js';
import { deliveryJson, type DeliveryJson } from '../webhooks/job-view.js';
import { jobBody, type JobBody } from './body.js';

export async function jobView(store: Store, publicUrl: string | null, job: JobRecord): Promise<JobBody & { webhooks: DeliveryJson[] }> {
  const webhooks = job.callbackUrl === null ? [] : (await store.webhooks.deliveriesOf(job.id)).map(deliveryJson);
  return { ...jobBody(job, publicUrl), webhooks };
}
