// Vectorize tab: every field of POST /api/v1/vectorize (spec 4.8, output_format and dxf_units included),
// the live line from GET /api/v1/vectorize while the conversion waits or runs, then the SVG beside the
// original (toggle, zoom), the stats in plain words (the X-* headers under "Technical details") and a
// download link (PDF, EPS and DXF: download only). "Run as a job" sends `Prefer: respond-async` and follows
// the job (GET /api/v1/jobs/{id}): a progress bar from the engine's progress events, a cancel button
// (DELETE), then the output fetched from the job's output URL and shown the same way.
// The SVG is shown through <img> (a blob URL), where no script in it can run.
import { deleteJson, getBlob, getJson, hasKey, jobError, postImage } from './api.js';
import { compareView } from './compare.js';
import { baseName, busy, byId, downloadLink, duration, el, facts, need, show, state, blobUrl, technical } from './dom.js';

const POLL_MS = 700;
/** How often a job is read while it runs. */
const JOB_POLL_MS = 400;

export function initVectorize(onLimitsChanged, onQueue) {
  const form = byId('vectorize-form');
  const out = byId('vectorize-out');
  const queue = byId('vectorize-queue');
  const button = form.querySelector('button[type=submit]');
  const f = form.elements;
  f.colors_mode.addEventListener('change', () => (f.colors_count.disabled = f.colors_mode.value !== 'count'));
  f.output_format.addEventListener('change', () => (f.dxf_units.disabled = f.output_format.value !== 'dxf'));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!hasKey()) return need(out, 'Paste an API key first.');
    if (!state.file) return need(out, 'Drop an image first.');
    const file = state.file;
    const fields = {
      colors: f.colors_mode.value === 'count' ? f.colors_count.value : f.colors_mode.value,
      detail: f.detail.value,
      shape_style: f.shape_style.value,
      speck_size: f.speck_size.value,
      edge_cleanup: String(f.edge_cleanup.checked),
      smooth_bands: String(f.smooth_bands.checked),
      gradients: String(f.gradients.checked),
      primitives: String(f.primitives.checked),
      print_width_inches: f.print_width_inches.value,
      output_format: f.output_format.value,
      dxf_units: f.output_format.value === 'dxf' ? f.dxf_units.value : '',
    };
    show(out);
    const started = performance.now();
    const watch = watchQueue(queue, started, onQueue);
    const asJob = f.as_job.checked;
    await busy(button, out, async () => {
      try {
        if (asJob) {
          const { doc, stats } = await runAsJob(file, fields);
          const format = fields.output_format;
          const typed = new Blob([doc], { type: format === 'svg' ? 'image/svg+xml' : doc.type || 'application/octet-stream' });
          showResult(out, file, typed, format, stats, fields, performance.now() - started);
          return;
        }
        const res = await postImage('/api/v1/vectorize', file, fields);
        const doc = await res.blob();
        const stats = {
          paths: res.headers.get('X-Paths'),
          colors: res.headers.get('X-Colors-Used'),
          traceMs: res.headers.get('X-Trace-Ms'),
          queueMs: res.headers.get('X-Queue-Ms'),
        };
        const format = fields.output_format;
        const typed = new Blob([doc], { type: format === 'svg' ? 'image/svg+xml' : res.headers.get('Content-Type') ?? 'application/octet-stream' });
        showResult(out, file, typed, format, stats, fields, performance.now() - started);
      } finally {
        watch.stop();
      }
    });
    onLimitsChanged();
  });
}

/**
 * Submit the conversion as a job (202), follow it with a progress bar until it is final, and fetch its output.
 * Resolves to the document and the stats of its result (the synchronous answer's X- headers).
 */
async function runAsJob(file, fields) {
  const box = byId('vectorize-job');
  const bar = byId('vectorize-job-progress');
  const status = byId('vectorize-job-status');
  const cancel = byId('vectorize-job-cancel');
  bar.value = 0;
  cancel.disabled = false;
  status.textContent = 'Submitting…';
  box.hidden = false;
  let job = await (await postImage('/api/v1/vectorize', file, fields, { Prefer: 'respond-async' })).json();
  box.dataset.jobId = job.id;
  const onCancel = () => deleteJson(`/api/v1/jobs/${job.id}`).catch(() => undefined);
  cancel.addEventListener('click', onCancel, { once: true });
  try {
    for (;;) {
      const p = job.progress;
      bar.value = p ? p.fraction : 0;
      status.textContent = `Job ${job.status}${p && job.status === 'running' ? ` · ${p.stage ?? ''} ${Math.round(p.fraction * 100)} %` : ''}`;
      if (job.status === 'succeeded' || job.status === 'failed' || job.status === 'canceled') break;
      await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS));
      job = await getJson(`/api/v1/jobs/${job.id}`);
    }
    if (job.status === 'failed') throw jobError(job);
    if (job.status === 'canceled') throw new Error('The job was canceled');
    const h = job.result.headers;
    const doc = await getBlob(`/api/v1/jobs/${job.id}/output`);
    return { doc, stats: { paths: h['X-Paths'] ?? null, colors: h['X-Colors-Used'] ?? null, traceMs: h['X-Trace-Ms'] ?? null, queueMs: h['X-Queue-Ms'] ?? null } };
  } finally {
    cancel.removeEventListener('click', onCancel);
    cancel.disabled = true; // final, or the page stopped following it
  }
}

/** Poll the line while a conversion is in flight, describe it in `node` and pass each snapshot to `onQueue`. */
function watchQueue(node, started, onQueue) {
  let stopped = false;
  let timer = 0;
  const tick = async () => {
    const secs = ((performance.now() - started) / 1000).toFixed(0);
    try {
      const snapshot = await getJson('/api/v1/vectorize');
      if (stopped) return;
      const q = snapshot.queue;
      onQueue(snapshot);
      // While this file waits it is one of `waiting`: the others, and the one converting, are ahead of it
      // (at most: files sent after it count too).
      const ahead = (q.converting ? 1 : 0) + Math.max(0, q.waiting - 1);
      node.textContent = q.waiting > 0 && ahead > 0 ? `Waiting ${secs} s · Queue: ${ahead} ahead of you` : `Working ${secs} s · converting now`;
      node.title = `GET /api/v1/vectorize: converting=${q.converting}, waiting=${q.waiting}, max_waiting=${q.max_waiting}`;
    } catch {
      if (stopped) return;
      node.textContent = `Waiting ${secs} s`;
    }
    if (!stopped) timer = setTimeout(tick, POLL_MS);
  };
  node.textContent = 'Sending…';
  node.removeAttribute('title');
  tick();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      node.textContent = '';
      node.removeAttribute('title');
    },
  };
}

/** The stats, the download link, and (for SVG) the document beside the original. */
function showResult(out, file, doc, format, stats, fields, ms) {
  const sent = Object.entries(fields).filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`).join(', ');
  const head = el('div', { class: 'row spread' },
    facts([
      ['Shapes', stats.paths, 'X-Paths'],
      ['Colours', stats.colors, 'X-Colors-Used'],
      ['Processing time', duration(stats.traceMs), 'X-Trace-Ms'],
      ['Time in queue', stats.queueMs !== null && Number(stats.queueMs) < 100 ? 'no wait' : duration(stats.queueMs), 'X-Queue-Ms'],
      ['Total time', duration(ms)],
      [`${format.toUpperCase()} size`, `${(doc.size / 1024).toFixed(1)} KiB`],
    ]),
    downloadLink('vector', doc, `${baseName(file)}.${format}`, `Download ${format.toUpperCase()}`));
  const tech = technical([
    ['X-Paths', stats.paths],
    ['X-Colors-Used', stats.colors],
    ['X-Trace-Ms', stats.traceMs],
    ['X-Queue-Ms', stats.queueMs],
    ['form fields sent', sent],
  ]);
  if (format !== 'svg') {
    show(out, head, tech,
      el('p', { class: 'help' }, `The browser cannot show ${format.toUpperCase()}: download it, or choose SVG to see the shapes beside the original.`));
    return;
  }
  const svg = doc;
  const view = compareView([
    { label: 'Original', url: state.file === file ? state.fileUrl : blobUrl('vec-original', file), alt: 'The original image', backdrop: 'checker' },
    { label: 'SVG', url: blobUrl('svg-preview', svg), alt: 'The vectorized SVG', backdrop: 'checker', testid: 'svg-preview' },
  ], { name: 'vectorize', toggle: true, sameSize: true });
  show(out, head, tech, view.root);
}
