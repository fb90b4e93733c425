// Entry of the try-it page: the key form (checked with the three status reads, whose limits are shown),
// the image drop zone, the operation tabs, and the link to the OpenAPI document when the server has one.
import { getJson, hasKey, setKey } from './api.js';
import { byId, el, errorBox, facts, show, state, technical } from './dom.js';
import { initMockup } from './mockup.js';
import { initRemoveBg, initUpscale } from './cutout.js';
import { initScan } from './scan.js';
import { initGangsheet } from './gangsheet.js';
import { initUnderbase } from './underbase.js';
import { initVectorize } from './vectorize.js';

const fmtPixels = (n) => (n === null || n === undefined ? null : `${(n / 1e6).toFixed(n % 1e6 === 0 ? 0 : 1)} MP`);
const fairUse = (s) => (s.fairUsePerDay === null ? 'Unlimited (fair use)' : `${s.fairUseUsed} of ${s.fairUsePerDay} used today (${s.fairUseRemaining} left)`);

/** The last status reads shown (the vectorize line is also updated while a conversion is polled). */
let shown = null;

/** Read the three status reads (spec 4.4, 4.6, 4.7) and show them; throws the first error (e.g. 401). */
async function loadLimits() {
  const [vec, rbg, up] = await Promise.all([
    getJson('/api/v1/vectorize'), getJson('/api/v1/remove-bg'), getJson('/api/v1/upscale'),
  ]);
  renderLimits(vec, rbg, up);
}

/** Show a fresh vectorize line snapshot (from the polling of a conversion) in the limits panel. */
function showQueue(vec) {
  if (shown) renderLimits(vec, shown.rbg, shown.up);
}

function renderLimits(vec, rbg, up) {
  shown = { vec, rbg, up };
  const q = vec.queue;
  show(byId('limits'),
    el('h3', {}, 'Vectorize queue'),
    facts([
      ['Right now', q.converting ? 'converting a file' : 'free', 'converting'],
      ['Queue', q.waiting === 0 ? 'nobody waiting' : `${q.waiting} waiting`, 'waiting'],
      ['Room for', `${q.max_waiting} waiting`, 'max_waiting'],
    ]),
    el('h3', {}, 'Remove background'),
    facts([['Largest picture', fmtPixels(rbg.maxPixels), 'maxPixels'], ['Daily allowance', fairUse(rbg), 'fairUsePerDay, fairUseUsed, fairUseRemaining']]),
    el('h3', {}, 'Upscale'),
    facts([
      ['Largest picture', `${fmtPixels(up.maxPixels)} at 2×, ${fmtPixels(up.maxPixels4x)} at 4×`, 'maxPixels, maxPixels4x'],
      ['Works at', `${fmtPixels(up.budget)} at 2×, ${fmtPixels(up.budget4x)} at 4× (larger pictures are shrunk first)`, 'budget, budget4x'],
      ['Sizes', up.scales.map((s) => `${s}×`).join(', '), 'scales'],
      ['Daily allowance', fairUse(up), 'fairUsePerDay, fairUseUsed, fairUseRemaining'],
    ]),
    technical([
      ['GET /api/v1/vectorize', JSON.stringify(vec)],
      ['GET /api/v1/remove-bg', JSON.stringify(rbg)],
      ['GET /api/v1/upscale', JSON.stringify(up)],
    ]));
}

/** Refresh the limits after an operation; errors there are not the operation's and stay quiet. */
function refreshLimits() {
  if (hasKey()) loadLimits().catch(() => {});
}

function initKey() {
  const form = byId('key-form');
  const input = byId('key-input');
  const status = byId('key-status');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    setKey(input.value);
    if (!hasKey()) {
      show(status, el('p', { class: 'error-message' }, 'Paste a key first.'));
      return;
    }
    show(status, el('p', {}, 'Checking the key…'));
    try {
      await loadLimits();
      show(status, el('p', { class: 'ok' }, '✓ Key accepted.'));
    } catch (err) {
      show(status, errorBox(err));
      show(byId('limits'), el('p', { class: 'help' }, 'No limits: the key was not accepted.'));
    }
  });
  byId('limits-refresh').addEventListener('click', () => {
    if (!hasKey()) return;
    loadLimits().catch((err) => show(byId('limits'), errorBox(err)));
  });
}

function initDrop() {
  const zone = byId('drop');
  const input = byId('file-input');
  const take = (file) => {
    if (file) state.setFile(file);
  };
  input.addEventListener('change', () => take(input.files?.[0]));
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    take(e.dataTransfer?.files?.[0]);
  });
  // Dropping elsewhere on the page must not navigate away (and lose the key).
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());

  const fig = byId('original');
  const img = byId('original-img');
  const caption = byId('original-caption');
  state.listeners.push((file) => {
    img.src = state.fileUrl;
    fig.hidden = false;
    caption.textContent = `${file.name || 'image'} · ${(file.size / 1024).toFixed(1)} KiB`;
    img.onload = () => {
      caption.textContent = `${file.name || 'image'} · ${img.naturalWidth} × ${img.naturalHeight} px · ${(file.size / 1024).toFixed(1)} KiB`;
    };
  });
}

function initTabs() {
  const tabs = [...document.querySelectorAll('[role=tab]')];
  const select = (tab) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      byId(t.getAttribute('aria-controls')).hidden = !on;
    }
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      const to = step ? tabs[(i + step + tabs.length) % tabs.length] : e.key === 'Home' ? tabs[0] : e.key === 'End' ? tabs.at(-1) : null;
      if (!to) return;
      e.preventDefault();
      select(to);
      to.focus();
    });
  });
}

/** Link the machine-readable description when this server publishes one (no key needed). */
async function linkDocs() {
  try {
    const res = await fetch('/api/v1/openapi.json', { method: 'GET', credentials: 'omit', cache: 'no-store' });
    if (res.ok) show(byId('docs-links'), 'For developers: the ', el('a', { href: '/api/v1/openapi.json' }, 'OpenAPI document'), ' describes every field.');
  } catch {
    // no document: no link
  }
}

initKey();
initDrop();
initTabs();
initScan(refreshLimits);
initVectorize(refreshLimits, showQueue);
initRemoveBg(refreshLimits);
initUpscale(refreshLimits);
initMockup(refreshLimits);
initUnderbase(refreshLimits);
initGangsheet(refreshLimits);
linkDocs();
