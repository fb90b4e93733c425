// The file Piscina is given, CommonJS on purpose. Piscina loads its worker with require() first and falls back
// to import() only when require() throws. Since require(esm) is on by default (Node 20.19+, 22.12+, 24), that
// require() loaded the ESM worker (worker.js) as ESM-through-require, and on Node 22.23.3 it once aborted the
// whole process in V8 ("v8::Module::IsGraphAsync must be used on an instantiated module"). A CommonJS entry is
// what require() is made for; it brings the ESM worker in with import(), so no Node line require()s ESM here.
// (TypeScript emits this .cts as worker-entry.cjs and keeps the dynamic import() as it is under NodeNext.)
type EsmWorker = typeof import('./worker.js');
type RunTask = EsmWorker['default'];

let esmWorker: Promise<EsmWorker> | undefined;

/** Loaded on the first task, so a failing import rejects that task instead of going unhandled at start. */
async function runTask(task: Parameters<RunTask>[0]): ReturnType<RunTask> {
  esmWorker ??= import('./worker.js');
  return (await esmWorker).default(task);
}

export = runTask;
