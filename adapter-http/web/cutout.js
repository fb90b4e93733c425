// Remove background and Upscale tabs. Remove-bg shows the transparent PNG twice, over a checkerboard and
// over a garment colour the user picks (edge halos show on dark fabric), with the X-Method/X-Warnings
// headers; upscale shows the 2.5 result and a download link to output_url.
import { hasKey, postImage } from './api.js';
import { compareView } from './compare.js';
import { baseName, blobUrl, busy, byId, downloadLink, el, facts, need, show, state, technical } from './dom.js';

export function initRemoveBg(onLimitsChanged) {
  const form = byId('removebg-form');
  const out = byId('removebg-out');
  const button = form.querySelector('button[type=submit]');
  const colour = form.elements.garment;
  let view = null;
  colour.addEventListener('input', () => view?.setBackdrop(1, colour.value));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!hasKey()) return need(out, 'Paste an API key first.');
    if (!state.file) return need(out, 'Drop an image first.');
    const file = state.file;
    show(out, el('p', { class: 'status' }, 'Removing the background…'));
    await busy(button, out, async () => {
      const res = await postImage('/api/v1/remove-bg', file);
      const png = new File([await res.blob()], `${baseName(file)}-cutout.png`, { type: 'image/png' });
      const url = blobUrl('cutout-view', png);
      view = compareView([
        { label: 'Over a checkerboard', url, alt: 'Background removed, over a checkerboard', backdrop: 'checker', testid: 'removebg-checker' },
        { label: 'Over the garment colour', url, alt: 'Background removed, over the garment colour', backdrop: colour.value, testid: 'removebg-garment' },
      ], { name: 'remove background', sameSize: true });
      const warnings = res.headers.get('X-Warnings');
      const use = el('button', { type: 'button', class: 'secondary' }, 'Use the cut-out for the other tools');
      use.addEventListener('click', () => state.setFile(png));
      show(out,
        el('div', { class: 'row spread' },
          facts([
            ['How', METHOD_WORDS[res.headers.get('X-Method')] ?? res.headers.get('X-Method'), 'X-Method'],
            ['Size', `${res.headers.get('X-Width')} × ${res.headers.get('X-Height')} px`, 'X-Width, X-Height'],
            ['Warnings', warnings || 'none', 'X-Warnings'],
          ]),
          el('div', { class: 'row' }, downloadLink('cutout', png, png.name, 'Download PNG'), use)),
        technical([['X-Method', res.headers.get('X-Method')], ['X-Width', res.headers.get('X-Width')], ['X-Height', res.headers.get('X-Height')], ['X-Warnings', warnings]]),
        view.root);
    });
    onLimitsChanged();
  });
}

/** X-Method in a shop owner's words. */
const METHOD_WORDS = {
  matte: 'cut around the artwork',
  model: 'photo cut-out (AI model)',
  alpha: 'already transparent: kept as it was',
};

/** The upscale `route` in a shop owner's words. */
const ROUTE_WORDS = {
  vector: 'redrawn as sharp shapes',
  model: 'enlarged by the AI upscaler',
  resample: 'smoothly resized',
};

export function initUpscale(onLimitsChanged) {
  const form = byId('upscale-form');
  const out = byId('upscale-out');
  const button = form.querySelector('button[type=submit]');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!hasKey()) return need(out, 'Paste an API key first.');
    if (!state.file) return need(out, 'Drop an image first.');
    const file = state.file;
    show(out, el('p', { class: 'status' }, 'Upscaling…'));
    await busy(button, out, async () => {
      const r = await (await postImage('/api/v1/upscale', file, { scale: form.elements.scale.value })).json();
      const size = (s) => (s ? `${s.width} × ${s.height} px` : null);
      show(out,
        facts([
          ['Size', `${r.scale}×`, 'scale'],
          ['How', ROUTE_WORDS[r.route] ?? r.route, 'route'],
          ['Your picture', size(r.from), 'from'],
          ['Shrunk first', r.preShrunk ? `yes, to ${size(r.to)}` : 'no', 'preShrunk, to'],
          ['Result', r.width && r.height ? `${r.width} × ${r.height} px` : null, 'width, height'],
          ['Download link', r.output_url_expires ? 'short-lived: download it now' : 'kept on this server', 'output_hosted_by, output_url_expires'],
        ]),
        technical([['route', r.route], ['output_hosted_by', r.output_hosted_by], ['output_url_expires', String(r.output_url_expires)], ['output_url', r.output_url]]),
        el('p', {}, el('a', { class: 'button download', href: r.output_url, download: `${baseName(file)}-x${r.scale}.png`, 'data-testid': 'upscale-download' }, `Download the ${r.scale}× PNG`)),
        el('figure', { class: 'pane' }, el('figcaption', {}, 'Result (scaled to fit)'),
          el('div', { class: 'viewport checker' }, el('img', { class: 'fit', src: r.output_url, alt: 'The upscaled image' }))));
    });
    onLimitsChanged();
  });
}
