// Asynchronous jobs (issue #33): `Prefer: respond-async` on every metered image POST. prefer.ts reads the
// header, request.ts stores a job's request, body.ts is what the API shows (view.ts with its webhook deliveries), runner.ts runs jobs.
export * from './prefer.js';
export * from './request.js';
export * from './body.js';
export * from './view.js';
export * from './runner.js';
