// Vectorize tab: every field of POST /api/v1/vectorize (spec 4.8), the live line from GET /api/v1/vectorize
// while the conversion waits or runs, then the SVG beside the original (toggle, zoom), the X-* stat
// headers and a download link. The SVG is shown through <img> (a blob URL), where no script in it can run.
import { getJson, hasKey, postImage } from './api.js';
import { compareView } from './compare.js';
import { baseName, busy, byId, downloadLink, el, facts, need, show, state, blobUrl } from './dom.js';

const POLL_MS = 700;

export function initVectorize(onLimitsChanged, onQueue) {
  const form = byId('vectorize-form');
  const out = byId('vectorize-out');
  const queue = byId('vectorize-queue');
  const button = form.querySelector('button[type=submit]');
  const f = form.elements;
  f.colors_mode.addEventListener('change', () => (f.colors_count.disabled = f.colors_mode.value !== 'count'));

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
      print_width_inches: f.print_width_inches.value,
    };
    show(out);
    const started = performance.now();
    const watch = watchQueue(queue, started, onQueue);
    await busy(button, out, async () => {
      try {
        const res = await postImage('/api/v1/vectorize', file, fields);
        const svg = await res.blob();
        const stats = {
          paths: res.headers.get('X-Paths'),
          colors: res.headers.get('X-Colors-Used'),
          traceMs: res.headers.get('X-Trace-Ms'),
          queueMs: res.headers.get('X-Queue-Ms'),
        };
        showResult(out, file, new Blob([svg], { type: 'image/svg+xml' }), stats, fields, performance.now() - started);
      } finally {
        watch.stop();
      }
    });
    onLimitsChanged();
  });
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
      node.textContent = `Waiting ${secs} s · line: ${q.converting ? 'converting now' : 'idle'}, ${q.waiting} waiting (at most ${q.max_waiting})`;
    } catch {
      if (stopped) return;
      node.textContent = `Waiting ${secs} s`;
    }
    if (!stopped) timer = setTimeout(tick, POLL_MS);
  };
  node.textContent = 'Sending…';
  tick();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      node.textContent = '';
    },
  };
}

function showResult(out, file, svg, stats, fields, ms) {
  const view = compareView([
    { label: 'Original', url: state.file === file ? state.fileUrl : blobUrl('vec-original', file), alt: 'The original image', backdrop: 'checker' },
    { label: 'SVG', url: blobUrl('svg-preview', svg), alt: 'The vectorized SVG', backdrop: 'checker', testid: 'svg-preview' },
  ], { name: 'vectorize', toggle: true, sameSize: true });
  const sent = Object.entries(fields).filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`).join(', ');
  show(out,
    el('div', { class: 'row spread' },
      facts([
        ['Paths (X-Paths)', stats.paths],
        ['Colours used (X-Colors-Used)', stats.colors],
        ['Trace (X-Trace-Ms)', stats.traceMs && `${stats.traceMs} ms`],
        ['In line (X-Queue-Ms)', stats.queueMs && `${stats.queueMs} ms`],
        ['Round trip', `${(ms / 1000).toFixed(1)} s`],
        ['SVG size', `${(svg.size / 1024).toFixed(1)} KiB`],
      ]),
      downloadLink('svg', svg, `${baseName(file)}.svg`, 'Download SVG')),
    el('p', { class: 'help' }, 'Sent: ', sent),
    view.root);
}
