// Remove background and Upscale tabs. Remove-bg shows the transparent PNG twice, over a checkerboard and
// over a garment colour the user picks (edge halos show on dark fabric), with the X-Method/X-Warnings
// headers; upscale shows the 2.5 result and a download link to output_url.
import { hasKey, postImage } from './api.js';
import { compareView } from './compare.js';
import { baseName, blobUrl, busy, byId, downloadLink, el, facts, need, show, state } from './dom.js';

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
            ['Method (X-Method)', res.headers.get('X-Method')],
            ['Size', `${res.headers.get('X-Width')} × ${res.headers.get('X-Height')} px`],
            ['Warnings', warnings || 'none'],
          ]),
          el('div', { class: 'row' }, downloadLink('cutout', png, png.name, 'Download PNG'), use)),
        view.root);
    });
    onLimitsChanged();
  });
}

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
          ['Scale', `${r.scale}×`],
          ['Route', r.route],
          ['Input', size(r.from)],
          ['Shrunk first', r.preShrunk ? `yes, to ${size(r.to)}` : 'no'],
          ['Output', r.width && r.height ? `${r.width} × ${r.height} px` : null],
          ['Hosted by', `${r.output_hosted_by}${r.output_url_expires ? ' (short-lived: download now)' : ''}`],
        ]),
        el('p', {}, el('a', { class: 'button download', href: r.output_url, download: `${baseName(file)}-x${r.scale}.png`, 'data-testid': 'upscale-download' }, `Download the ${r.scale}× PNG`)),
        el('figure', { class: 'pane' }, el('figcaption', {}, 'Result (scaled to fit)'),
          el('div', { class: 'viewport checker' }, el('img', { class: 'fit', src: r.output_url, alt: 'The upscaled image' }))));
    });
    onLimitsChanged();
  });
}
