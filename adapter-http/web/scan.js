// Scan & fix tab: POST /api/v1/scan shown as a checklist (issues by severity, the recommended transparency
// fix and its reason, the suggestions as ticked boxes), and one click on "Apply suggested fix" sends the
// ticked suggestions to POST /api/v1/fix; the result is shown before/after with zoom, ready to download or
// to use as the image for the other tools.
import { hasKey, postImage } from './api.js';
import { compareView } from './compare.js';
import { baseName, blobUrl, busy, byId, downloadLink, el, facts, need, show, state, technical } from './dom.js';

const SEVERITY = { error: ['✗', 'Problem'], warning: ['!', 'Warning'], info: ['i', 'Note'] };
const RECOMMENDATION = {
  remove: 'Remove the soft edge: cut semi-transparent pixels to a clean edge.',
  halftone: 'Halftone the soft areas: turn fades and glows into opaque dots.',
  either: 'Either fix works: cut the soft edge, or halftone it.',
  none: 'No transparency fix needed.',
};
/** The fix form field behind each recommendation (shown as a tooltip, for developers). */
const RECOMMENDATION_FIELD = { remove: 'fix_alpha_threshold', halftone: 'fix_halftone', either: 'fix_alpha_threshold or fix_halftone' };

export function initScan(onLimitsChanged) {
  const form = byId('scan-form');
  const out = byId('scan-out');
  const button = form.querySelector('button[type=submit]');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!hasKey()) return need(out, 'Paste an API key first.');
    if (!state.file) return need(out, 'Drop an image first.');
    const file = state.file;
    const printWidth = form.elements.print_width_inches.value;
    show(out, el('p', { class: 'status' }, 'Scanning…'));
    await busy(button, out, async () => {
      const report = await (await postImage('/api/v1/scan', file, { print_width_inches: printWidth })).json();
      show(out, renderReport(report, file, printWidth));
    });
    onLimitsChanged();
  });
}

function renderReport(r, file, printWidth) {
  const checklist = el('ul', { class: 'checklist', 'aria-label': 'Issues' });
  if (r.issues.length === 0) checklist.append(el('li', { class: 'sev-ok' }, el('span', { class: 'icon', 'aria-hidden': 'true' }, '✓'), 'No print problems found.'));
  for (const issue of r.issues) {
    const [icon, word] = SEVERITY[issue.severity] ?? ['•', issue.severity];
    checklist.append(el('li', { class: `sev-${issue.severity}`, 'data-code': issue.code },
      el('span', { class: 'icon', 'aria-hidden': 'true' }, icon),
      el('span', { class: 'visually-hidden' }, `${word}: `),
      el('span', { title: issue.code }, issue.message)));
  }

  const fix = r.transparency_fix;
  const transparency = el('div', { class: `recommend rec-${fix.recommended}` },
    el('h4', {}, 'Recommended transparency fix: ', el('strong', {}, fix.recommended)),
    el('p', RECOMMENDATION_FIELD[fix.recommended] ? { title: RECOMMENDATION_FIELD[fix.recommended] } : {}, RECOMMENDATION[fix.recommended] ?? ''),
    el('p', { class: 'help' }, fix.reason));
  // "either": the suggestions carry the cut; the user may pick halftone dots instead.
  if (fix.recommended === 'either') {
    transparency.append(el('fieldset', { class: 'choice' }, el('legend', {}, 'Apply as'),
      el('label', { class: 'check', title: 'fix_alpha_threshold' }, el('input', { type: 'radio', name: 'either', value: 'remove', checked: true }), 'cut the soft edge'),
      el('label', { class: 'check', title: 'fix_halftone' }, el('input', { type: 'radio', name: 'either', value: 'halftone' }), 'halftone dots')));
  }

  const suggestions = el('fieldset', { class: 'suggestions' }, el('legend', {}, 'Suggested fixes'));
  if (r.suggestions.length === 0) suggestions.append(el('p', { class: 'help' }, 'Nothing to fix.'));
  r.suggestions.forEach((s, i) => {
    const box = el('input', { type: 'checkbox', id: `sugg-${i}`, checked: true, 'data-field': s.field, 'data-value': s.value });
    suggestions.append(el('div', { class: 'suggestion' }, box,
      el('label', { for: `sugg-${i}`, title: `${s.field}=${s.value}` }, s.reason)));
  });
  const apply = el('button', { type: 'button', id: 'fix-apply', disabled: r.suggestions.length === 0 }, 'Apply suggested fix');
  const fixOut = el('div', { class: 'fix-out' });
  apply.addEventListener('click', () => {
    const halftone = transparency.querySelector('input[name=either][value=halftone]')?.checked === true;
    applyFix(suggestions, apply, fixOut, file, printWidth, halftone);
  });

  const summary = facts([
    ['Size', `${r.width} × ${r.height} px`],
    ['Resolution', `${Math.round(r.dpi)} DPI at ${r.print_width_inches} in wide (${r.print_height_inches} in tall)${r.stated_dpi ? `, file states ${r.stated_dpi} DPI` : ''}`],
    ['Background', r.background + (r.background_color ? ` ${r.background_color}` : '')],
    ['Soft rim', `${r.alpha.soft_rim_px} px${r.alpha.has_fringe ? ', fringe' : ''} (${r.alpha.semi_transparent_percent} % semi-transparent)`],
    ['Edges', r.edge_quality],
    ['Ink coverage', `${r.ink_coverage_percent} %`],
    ['Specks', String(r.speck_count)],
    ['Thin lines', `${r.thin_line_percent} %`],
  ]);
  return el('div', { class: 'report', 'data-testid': 'scan-report' },
    el('div', { class: 'report-cols' },
      el('div', {}, el('h3', {}, 'Checklist'), checklist, transparency),
      el('div', {}, el('h3', {}, 'Report'), summary)),
    suggestions, el('div', { class: 'row' }, apply), fixOut);
}

async function applyFix(suggestions, button, out, file, printWidth, halftone) {
  const fields = {};
  for (const box of suggestions.querySelectorAll('input[type=checkbox]')) {
    if (box.checked) fields[box.dataset.field] = box.dataset.value;
  }
  if (halftone) {
    delete fields.fix_alpha_threshold;
    delete fields.alpha_threshold;
    fields.fix_halftone = 'true';
  }
  if (fields.print_width_inches === undefined && printWidth) fields.print_width_inches = printWidth;
  show(out, el('p', { class: 'status' }, 'Fixing…'));
  await busy(button, out, async () => {
    const res = await postImage('/api/v1/fix', file, fields);
    const blob = await res.blob();
    const fixed = new File([blob], `${baseName(file)}-fixed.png`, { type: 'image/png' });
    const view = compareView([
      { label: 'Before', url: state.fileUrl, alt: 'Before the fix', backdrop: 'checker' },
      { label: 'After', url: blobUrl('fix-after', fixed), alt: 'After the fix', backdrop: 'checker', testid: 'fix-after' },
    ], { name: 'fix', sameSize: false });
    const use = el('button', { type: 'button', class: 'secondary' }, 'Use the fixed image for the other tools');
    use.addEventListener('click', () => state.setFile(fixed));
    show(out, el('h3', {}, 'Before / after'),
      technical([['form fields sent to POST /api/v1/fix', Object.entries(fields).map(([k, v]) => `${k}=${v}`).join(', ') || 'none']]),
      view.root, el('div', { class: 'row' }, downloadLink('fixed', fixed, fixed.name, 'Download fixed PNG'), use));
  });
}
