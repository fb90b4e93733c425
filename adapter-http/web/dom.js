// Small DOM helpers shared by the page's modules: element building (text only, never HTML strings),
// error display in the API's words, busy buttons, object URLs that are released when replaced, and the
// shared state (the current image).
import { ApiError } from './api.js';

/** `el('p', { class: 'x' }, 'text', child)`: attributes are set as attributes, children as nodes/text. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} missing`);
  return node;
}

/**
 * A definition list from [term, value, technical] entries (values null/undefined are skipped). Terms are in
 * a shop owner's words; `technical` (the API's header or field name) is the term's tooltip, so a developer
 * finds it one hover away.
 */
export function facts(pairs) {
  const dl = el('dl', { class: 'facts' });
  for (const [term, value, technical] of pairs) {
    if (value === null || value === undefined || value === '') continue;
    dl.append(el('dt', technical ? { title: technical } : {}, term), el('dd', {}, value));
  }
  return dl;
}

/**
 * The API's own names and raw values (headers, JSON fields, the form sent), folded away under "Technical
 * details": one click for a developer, out of the way of everyone else.
 */
export function technical(pairs) {
  const dl = el('dl', { class: 'facts' });
  for (const [name, value] of pairs) {
    if (value === null || value === undefined || value === '') continue;
    dl.append(el('dt', {}, el('code', {}, name)), el('dd', {}, el('code', {}, value)));
  }
  return el('details', { class: 'technical' }, el('summary', {}, 'Technical details'), dl);
}

/** A duration in plain words: "0.4 s", "12 s", "2 min 5 s". */
export function duration(ms) {
  if (ms === null || ms === undefined || ms === '' || Number.isNaN(Number(ms))) return null;
  const s = Number(ms) / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.round(s)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** The error as the API said it: message, code and HTTP status (plus extra fields such as `field`). */
export function errorBox(err) {
  if (err instanceof ApiError) {
    const extras = Object.entries(err.extras ?? {}).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
    return el('div', { class: 'error', role: 'alert' },
      el('p', { class: 'error-message' }, err.message),
      el('p', { class: 'error-meta' },
        err.code ? el('code', { class: 'error-code' }, err.code) : null,
        err.status ? ` HTTP ${err.status}` : '',
        extras.length ? ` · ${extras.join(' · ')}` : ''));
  }
  return el('div', { class: 'error', role: 'alert' }, el('p', { class: 'error-message' }, err instanceof Error ? err.message : String(err)));
}

/** Replace the content of `node` with `children`. */
export function show(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

/**
 * Run `work` with `button` disabled and marked busy; any error is shown in `out` in the API's words.
 * Resolves to the work's value, or undefined when it failed.
 */
export async function busy(button, out, work) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } catch (err) {
    show(out, errorBox(err));
    return undefined;
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

const urls = new Map();
/** An object URL for `blob` under `slot`; the previous URL of that slot is revoked. */
export function blobUrl(slot, blob) {
  const old = urls.get(slot);
  if (old) URL.revokeObjectURL(old);
  const url = URL.createObjectURL(blob);
  urls.set(slot, url);
  return url;
}

/** A download link for `blob`. */
export function downloadLink(slot, blob, filename, label) {
  return el('a', { class: 'button download', href: blobUrl(slot, blob), download: filename }, label);
}

/** Page state shared by the tools: the current image file and its object URL. */
export const state = {
  /** @type {File | null} */
  file: null,
  fileUrl: '',
  /** Listeners told when the image changes. */
  listeners: [],
  setFile(file) {
    this.file = file;
    this.fileUrl = blobUrl('original', file);
    for (const fn of this.listeners) fn(file);
  },
};

/**
 * The knock-out modes (field `knockout`) of the Underbase and Gang sheet forms, the default first: the words
 * of the form's choice, and what a result's summary says of it. One list, so both forms offer the same modes.
 */
export const KNOCKOUT = [
  { value: 'garment', choice: 'art in the shirt colour', summary: 'shirt-coloured art left bare' },
  { value: 'black', choice: 'black in the art', summary: 'black in the art left bare' },
  { value: 'none', choice: 'nothing', summary: 'nothing left bare' },
];

/** Fill a form's empty knock-out <select> with KNOCKOUT's modes, the default selected. */
export function knockoutChoices(select) {
  select.replaceChildren(...KNOCKOUT.map((k, i) => el('option', { value: k.value, selected: i === 0 }, k.choice)));
}

/** The file's name without its extension, for download names. */
export function baseName(file) {
  return (file?.name || 'image').replace(/\.[^.]+$/, '');
}

/** A local problem (no key, no image) shown like an error but without an HTTP status. */
export function need(out, what) {
  show(out, el('div', { class: 'error', role: 'alert' }, el('p', { class: 'error-message' }, what)));
}
