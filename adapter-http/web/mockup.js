// Mockup tab: garment search (GET /api/v1/garments), the chosen style's colours, sizes and placements
// (GET /api/v1/garments/style), then POST /api/v1/mockup with response=json (2.9): the image with its
// print-size numbers (width x height in inches, top, offset, effective DPI) and the warnings. The optional
// preview_fix shows the transparency fix of POST /fix on the garment before anyone applies it. "All colours"
// renders the design on every colour of the style in one POST /api/v1/mockup/batch (one use per colour) and shows
// the hosted images as a grid.
import { getJson, hasKey, postImage } from './api.js';
import { baseName, blobUrl, busy, byId, downloadLink, el, errorBox, facts, need, show, state, technical } from './dom.js';

/** The previewed transparency fix in the words of the form's choices. */
const FIX_WORDS = { alpha_threshold: 'cut the soft edge', halftone: 'halftone dots' };

export function initMockup(onLimitsChanged) {
  const search = byId('garment-search');
  const results = byId('garment-results');
  const form = byId('mockup-form');
  const out = byId('mockup-out');
  const f = form.elements;
  let style = null;

  search.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!hasKey()) return need(results, 'Paste an API key first.');
    const q = search.elements.q.value.trim();
    await busy(search.querySelector('button'), results, async () => {
      const r = await getJson(`/api/v1/garments${q ? `?q=${encodeURIComponent(q)}` : ''}`);
      const list = el('div', { class: 'garment-list', role: 'radiogroup', 'aria-label': 'Garments' });
      for (const s of r.styles) {
        const radio = el('input', { type: 'radio', name: 'style', value: s.key, id: `style-${s.key}` });
        radio.addEventListener('change', () => pick(s.key));
        list.append(el('label', { class: 'garment', for: `style-${s.key}` }, radio,
          s.thumb ? el('img', { src: s.thumb, alt: '', loading: 'lazy' }) : null,
          el('span', {}, el('strong', {}, s.title), el('br'), `${s.brand} ${s.style_number} · ${s.color_count} colours`)));
      }
      show(results,
        r.styles.length ? list : el('p', { class: 'help' }, 'No garments found.'),
        (r.warnings ?? []).map((w) => el('p', { class: 'warning' }, `${w.message}${w.code ? ` (${w.code})` : ''}`)));
    });
    onLimitsChanged();
  });

  async function pick(key) {
    form.hidden = true;
    show(out);
    try {
      style = await getJson(`/api/v1/garments/style?key=${encodeURIComponent(key)}`);
    } catch (err) {
      show(out, errorBox(err));
      return;
    }
    f.color.replaceChildren(...style.colors.map((c) => el('option', { value: c.id }, `${c.name} ${c.hex}`)));
    const black = style.colors.find((c) => /black/i.test(c.name));
    if (black) f.color.value = black.id;
    f.size.replaceChildren(el('option', { value: '' }, '(none)'), ...style.sizes.map((s) => el('option', { value: s }, s)));
    f.placement.replaceChildren(...style.placements.map((p) => el('option', { value: p.id }, `${p.name} (${p.view}, ${p.default_width_in} in)`)));
    const full = style.placements.find((p) => p.id === 'full-front');
    if (full) f.placement.value = full.id;
    placementDefaults();
    form.hidden = false;
  }

  function placementDefaults() {
    const p = style?.placements.find((x) => x.id === f.placement.value);
    if (!p) return;
    f.print_width_in.placeholder = String(p.default_width_in);
    f.print_width_in.max = String(p.max_width_in);
    f.top_in.placeholder = String(p.default_top_in);
  }
  f.placement.addEventListener('change', placementDefaults);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!hasKey()) return need(out, 'Paste an API key first.');
    if (!state.file) return need(out, 'Drop an image first.');
    if (!style) return need(out, 'Choose a garment first.');
    const file = state.file;
    show(out, el('p', { class: 'status' }, 'Rendering…'));
    await busy(form.querySelector('button[type=submit]'), out, async () => {
      const r = await (await postImage('/api/v1/mockup', file, {
        style: style.key,
        color: f.color.value,
        size: f.size.value,
        placement: f.placement.value,
        print_width_in: f.print_width_in.value,
        top_in: f.top_in.value,
        output_size: f.output_size.value,
        preview_fix: f.preview_fix.value === 'none' ? '' : f.preview_fix.value,
        response: 'json',
      })).json();
      const bytes = Uint8Array.from(atob(r.image.base64), (c) => c.charCodeAt(0));
      const image = new File([bytes], `${baseName(file)}-mockup.${r.image.content_type === 'image/jpeg' ? 'jpg' : 'png'}`, { type: r.image.content_type });
      const p = r.print;
      show(out,
        el('div', { class: 'mockup-result' },
          el('figure', { class: 'mockup-figure' },
            el('img', { src: blobUrl('mockup-view', image), alt: `Mockup on ${r.garment.title ?? r.garment.key}`, 'data-testid': 'mockup-image' }),
            el('figcaption', {}, `${r.garment.title ?? r.garment.key} · ${r.garment.color?.name ?? ''}${r.garment.size ? ` · size ${r.garment.size}` : ''} · ${r.view} · ${r.placement}`)),
          el('div', {},
            el('h3', {}, 'Print size'),
            el('p', { class: 'print-size', 'data-testid': 'print-size' }, `${p.width_in} × ${p.height_in} in`),
            facts([
              ['Description', p.description, 'print.description'],
              ['From the collar', `${p.top_in} in`, 'print.top_in'],
              ['Sideways offset', `${p.offset_x_in} in`, 'print.offset_x_in'],
              ['Artwork', p.artwork_px ? `${p.artwork_px.width} × ${p.artwork_px.height} px` : null, 'print.artwork_px'],
              ['Effective DPI', String(p.effective_dpi), 'print.effective_dpi'],
              ['Previewed fix', p.preview_fix ? FIX_WORDS[p.preview_fix] ?? p.preview_fix : null, 'print.preview_fix'],
            ]),
            el('h3', {}, 'Warnings'),
            r.warnings.length
              ? el('ul', { class: 'warnings' }, r.warnings.map((w) => el('li', { class: 'warning', title: w.code }, w.message)))
              : el('p', { class: 'help' }, 'None.'),
            technical([
              ['print.preview_fix', p.preview_fix],
              ['warnings', r.warnings.map((w) => w.code).join(', ')],
            ]),
            downloadLink('mockup', image, image.name, 'Download mockup'))));
    });
    onLimitsChanged();
  });

  // Every colour of the style in one batch, as thumbnails: at most 800 px each (the grid's size, and a
  // style with many colours stays within the synchronous batch size), JPEG.
  const allColours = byId('mockup-all-colours');
  allColours.addEventListener('click', async () => {
    if (!hasKey()) return need(out, 'Paste an API key first.');
    if (!state.file) return need(out, 'Drop an image first.');
    if (!style) return need(out, 'Choose a garment first.');
    const file = state.file;
    const colours = style.colors.slice(0, 50);
    show(out, el('p', { class: 'status' }, `Rendering ${colours.length} colours…`));
    await busy(allColours, out, async () => {
      const r = await (await postImage('/api/v1/mockup/batch', file, {
        style: style.key,
        size: f.size.value,
        placement: f.placement.value,
        print_width_in: f.print_width_in.value,
        top_in: f.top_in.value,
        output_size: String(Math.min(800, Number(f.output_size.value))),
        preview_fix: f.preview_fix.value === 'none' ? '' : f.preview_fix.value,
        format: 'jpeg',
        items: JSON.stringify(colours.map((c) => ({ color: c.id }))),
      })).json();
      show(out,
        el('p', { class: 'help' }, `${r.count} mockups, one use each; ${r.images[0]?.print.description ?? ''}`),
        el('div', { class: 'mockup-grid', 'data-testid': 'mockup-grid' }, r.images.map((m) => el('figure', { class: 'mockup-figure' },
          el('a', { href: m.image.url, target: '_blank', rel: 'noopener' },
            el('img', { src: m.image.url, alt: `Mockup on ${m.garment.title ?? m.garment.key}, ${m.garment.color.name}`, 'data-testid': 'mockup-grid-image' })),
          el('figcaption', {}, `${m.garment.color.name}${m.warnings.length ? ` · ${m.warnings.map((w) => w.code).join(', ')}` : ''}`)))));
    });
    onLimitsChanged();
  });
}
