// Side-by-side viewer: two (or more) images in panes that scroll together, with a zoom to fit or to
// 100 % / 200 % / 400 % of the image's own pixels (one image pixel = one screen pixel at 100 %, so halftone
// dots and edge fringe can be judged), and optionally a toggle to show one pane alone.
import { el } from './dom.js';

const ZOOMS = [['fit', 'Fit'], ['1', '100 %'], ['2', '200 %'], ['4', '400 %']];

/**
 * @param {{ label: string, url: string, alt: string, backdrop?: 'checker' | string, testid?: string }[]} panes
 * @param {{ toggle?: boolean, sameSize?: boolean, name: string }} opts sameSize: every pane is zoomed in
 *   the first pane's pixels (an SVG beside its source); otherwise each in its own pixels (a resized fix).
 */
export function compareView(panes, opts) {
  const zoom = el('select', { 'aria-label': `Zoom (${opts.name})` }, ZOOMS.map(([v, t]) => el('option', { value: v }, t)));
  const tools = el('div', { class: 'compare-tools' }, el('label', {}, 'Zoom ', zoom));
  let mode = null;
  if (opts.toggle) {
    mode = el('select', { 'aria-label': `Show (${opts.name})` },
      el('option', { value: 'all' }, 'Side by side'),
      panes.map((p, i) => el('option', { value: String(i) }, `${p.label} only`)));
    tools.append(el('label', {}, 'Show ', mode));
  }
  const views = panes.map((p) => {
    const img = el('img', { src: p.url, alt: p.alt, class: 'fit', ...(p.testid ? { 'data-testid': p.testid } : {}) });
    // Focusable, so a zoomed image can be scrolled with the keyboard.
    const viewport = el('div', { class: `viewport ${p.backdrop === 'checker' ? 'checker' : ''}`, tabindex: '0', role: 'region', 'aria-label': p.label }, img);
    if (p.backdrop && p.backdrop !== 'checker') viewport.style.backgroundColor = p.backdrop;
    const fig = el('figure', { class: 'pane' }, el('figcaption', {}, p.label), viewport);
    return { img, viewport, fig, pane: p };
  });
  const grid = el('div', { class: 'compare-grid' }, views.map((v) => v.fig));
  const root = el('div', { class: 'compare' }, tools, grid);

  const apply = () => {
    const z = zoom.value;
    const dpr = window.devicePixelRatio || 1;
    const ref = views[0].img;
    for (const v of views) {
      const src = opts.sameSize ? ref : v.img;
      if (z === 'fit' || !src.naturalWidth) {
        v.img.className = 'fit';
        v.img.style.width = '';
      } else {
        v.img.className = 'zoomed';
        v.img.style.width = `${(src.naturalWidth * Number(z)) / dpr}px`;
      }
    }
  };
  zoom.addEventListener('change', apply);
  for (const v of views) v.img.addEventListener('load', apply);
  if (mode) {
    mode.addEventListener('change', () => {
      views.forEach((v, i) => (v.fig.hidden = mode.value !== 'all' && mode.value !== String(i)));
      grid.classList.toggle('single', mode.value !== 'all');
    });
  }

  // Panes scroll together, so the same spot is compared at any zoom.
  let syncing = false;
  for (const v of views) {
    v.viewport.addEventListener('scroll', () => {
      if (syncing) return;
      syncing = true;
      for (const o of views) {
        if (o === v) continue;
        o.viewport.scrollLeft = v.viewport.scrollLeft;
        o.viewport.scrollTop = v.viewport.scrollTop;
      }
      requestAnimationFrame(() => (syncing = false));
    });
  }
  return { root, images: views.map((v) => v.img), setBackdrop(i, colour) {
    views[i].viewport.style.backgroundColor = colour;
  } };
}
