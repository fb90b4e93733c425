// Gang sheet tab: several designs, each with its quantity and print width, nested on a DTF film roll by
// POST /api/v1/gangsheet. One submit asks for the manifest (format=json: lengths, utilisation, every copy,
// warnings) and the preview (format=png: the first sheet; with the white layer a zip of the colour sheet and
// its white plate, unpacked here); the print-ready PDF (with the White separation when the layer is on) is its
// own request behind the download button, as on the Underbase tab. The white layer's shirt is a catalogue
// colour (a swatch: sent as `style` + `color`, as a shop names the shirt it prints on) or any colour from the
// colour box (sent as `garment_color`).
import { hasKey, postFiles } from './api.js';
import { baseName, blobUrl, busy, byId, el, facts, knockoutChoices, need, show, technical } from './dom.js';
import { shirtSwatches } from './swatches.js';

/** The warnings in a shop owner's words (the engine's sentence stays in the tooltip). */
const WARNING_WORDS = {
  unused_design: () => 'No item uses this file: check which design each item names (they count from 0 in the order added).',
  nothing_to_print: () => 'Almost nothing of this design would print: it matches the shirt colour, so the knock-out leaves empty film. Choose no knock-out, or art that stands out from the shirt.',
  low_resolution: (w) => `The art is only ${w.dpi} DPI at this size: it will print soft or jagged. Print it smaller or send a larger file.`,
  white_too_thin: () => 'Some white lines are too thin to hold on the film (under 1 pt). Thicken the art there, or pull the white in less.',
  knockout_gap_too_narrow: () => 'Some gaps where the shirt shows through are too narrow (under 2 pt) and will fill in. Widen them in the art, or leave nothing bare.',
  semi_transparent_pixels: () => 'Part of the art is see-through (soft edges or fades): the white under it prints unevenly. Fix soft edges first (Underbase or Scan & fix tab).',
};

/** Print width a new design starts with, inches (a left-chest logo to a small front print). */
const DEFAULT_WIDTH_IN = 3;

/**
 * The files of a zip as the API writes it (stored, no compression: its PNGs are compressed already), by name.
 * Only that layout is read: each local header, its name, its bytes.
 */
function unzipStored(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const files = {};
  let at = 0;
  while (at + 30 <= bytes.length && view.getUint32(at, true) === 0x04034b50) {
    const size = view.getUint32(at + 18, true);
    const nameLen = view.getUint16(at + 26, true);
    const extra = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 30, at + 30 + nameLen));
    const start = at + 30 + nameLen + extra;
    files[name] = bytes.slice(start, start + size);
    at = start + size;
  }
  return files;
}

/** One picture of the result, fitted in its pane. */
function pane(label, body, testid, cls = '') {
  return el('figure', { class: 'pane' }, el('figcaption', {}, label), el('div', { class: `viewport ${cls}`, 'data-testid': testid }, body));
}

const pct = (v) => `${(v * 100).toFixed(1)} %`;

/** The white layer's shirt as the manifest names it: the catalogue's `style:color` and its hex, or the hex alone. */
function shirtWords(white) {
  if (!white.garment_color) return 'none (nothing knocked out by colour)';
  return white.garment_source ? `${white.garment_source} (${white.garment_color})` : white.garment_color;
}

export function initGangsheet(onLimitsChanged) {
  const form = byId('gangsheet-form');
  const out = byId('gangsheet-out');
  const list = byId('gangsheet-designs');
  const picker = byId('gangsheet-files');
  const f = form.elements;
  knockoutChoices(f.knockout);
  /** The designs in order: { file, url, row } (the `design` index is the position here). */
  const designs = [];

  const renumber = () => {
    designs.forEach((d, i) => { d.row.querySelector('.design-index').textContent = `#${i}`; });
    byId('gangsheet-empty').hidden = designs.length > 0;
  };

  function addDesign(file) {
    const url = URL.createObjectURL(file);
    const qty = el('input', { type: 'number', name: 'quantity', min: '1', max: '500', step: '1', value: '1', 'aria-label': `Copies of ${file.name}`, title: 'items[].quantity' });
    const width = el('input', { type: 'number', name: 'width_in', min: '0.25', max: '60', step: '0.25', value: String(DEFAULT_WIDTH_IN), 'aria-label': `Print width of ${file.name} (inches)`, title: 'items[].width_in' });
    const remove = el('button', { type: 'button', class: 'small', 'aria-label': `Remove ${file.name}` }, 'Remove');
    const row = el('li', { class: 'design', 'data-testid': 'gangsheet-design' },
      el('img', { src: url, alt: '', class: 'thumb checker' }),
      el('span', { class: 'design-name' }, el('code', { class: 'design-index' }), ' ', file.name),
      el('label', {}, 'Copies ', qty),
      el('label', {}, 'Width (in) ', width));
    row.append(remove);
    const d = { file, url, row, qty, width };
    remove.addEventListener('click', () => {
      designs.splice(designs.indexOf(d), 1);
      URL.revokeObjectURL(url);
      row.remove();
      renumber();
    });
    designs.push(d);
    list.append(row);
    renumber();
  }

  picker.addEventListener('change', () => {
    for (const file of picker.files) addDesign(file);
    picker.value = ''; // the same file may be added again (another size)
  });

  // The white layer's options only matter with the switch on.
  const whiteOptions = byId('gangsheet-white-options');
  const syncWhite = () => { whiteOptions.disabled = !f.underbase.checked; };
  f.underbase.addEventListener('change', syncWhite);
  syncWhite();

  // The shirt: a catalogue colour picked from the swatches, or null when the colour box says it.
  let shirt = null;
  const swatches = shirtSwatches({
    box: byId('gangsheet-swatches'),
    tab: byId('tab-gangsheet'),
    onPick: (style, c) => {
      shirt = { style: style.key, color: c.id };
      f.garment_color.value = c.hex.toLowerCase();
    },
    pressed: (b) => !!shirt && b.dataset.color === shirt.color,
    failed: (message) => `Shirts could not be loaded (${message}); pick a colour with the colour box.`,
  });
  f.garment_color.addEventListener('input', () => {
    shirt = null;
    swatches.mark();
  });

  /** The form as POST /gangsheet fields (empty values are left out: the server's defaults). */
  function fieldsOf() {
    const items = designs.map((d, i) => ({ design: i, quantity: Number(d.qty.value), width_in: Number(d.width.value) }));
    const white = f.underbase.checked;
    return {
      items: JSON.stringify(items),
      sheet_width_in: f.sheet_width_in.value,
      max_length_in: f.max_length_in.value,
      spacing_in: f.spacing_in.value,
      rotation: f.rotation.value,
      underbase: white ? 'true' : '',
      garment_color: white && !shirt ? f.garment_color.value : '',
      style: white && shirt ? shirt.style : '',
      color: white && shirt ? shirt.color : '',
      knockout: white ? f.knockout.value : '',
      choke_mm: white ? f.choke_mm.value : '',
    };
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!hasKey()) return need(out, 'Paste an API key first.');
    if (!designs.length) return need(out, 'Add at least one design first.');
    swatches.load();
    const files = designs.map((d) => d.file);
    const names = files.map((file) => file.name);
    const fields = fieldsOf();
    const white = fields.underbase === 'true';
    show(out, el('p', { class: 'status' }, 'Nesting the designs…'));
    await busy(form.querySelector('button[type=submit]'), out, async () => {
      const m = await (await postFiles('/api/v1/gangsheet', 'design', files, { ...fields, format: 'json' })).json();
      show(out, el('p', { class: 'status' }, 'Drawing the sheet…'));
      const res = await postFiles('/api/v1/gangsheet', 'design', files, { ...fields, format: 'png' });
      const dpi = res.headers.get('x-dpi');
      let colourBlob;
      let whiteBlob = null;
      if ((res.headers.get('content-type') ?? '').startsWith('application/zip')) {
        const parts = unzipStored(new Uint8Array(await res.arrayBuffer()));
        colourBlob = new Blob([parts['sheet.png']], { type: 'image/png' });
        whiteBlob = new Blob([parts['sheet-white.png']], { type: 'image/png' });
      } else colourBlob = await res.blob();
      const colourUrl = blobUrl('gangsheet-colour', colourBlob);
      const whiteUrl = whiteBlob ? blobUrl('gangsheet-white', whiteBlob) : null;

      const pdfButton = el('button', { type: 'button', class: 'download', 'data-testid': 'gangsheet-pdf' }, white ? 'Download the PDF (with the White separation)' : 'Download the PDF');
      pdfButton.addEventListener('click', () => downloadPdf(pdfButton, files, fields));
      const placed = new Map();
      for (const p of m.placements) placed.set(p.item, (placed.get(p.item) ?? 0) + 1);
      const items = JSON.parse(fields.items);
      const first = m.sheets[0];
      show(out,
        el('div', { class: 'underbase-result' },
          el('div', { class: 'underbase-pictures' },
            pane(`Sheet 1: ${first.width_in} × ${first.length_in} in${dpi ? ` at ${dpi} DPI` : ''}`, el('img', { class: 'fit', src: colourUrl, alt: 'The gang sheet', 'data-testid': 'gangsheet-preview' }), 'gangsheet-preview-pane', 'checker'),
            whiteUrl ? pane('White ink (the white plate, as your RIP shows it)', el('img', { class: 'fit', src: whiteUrl, alt: 'White plate of the sheet', 'data-testid': 'gangsheet-white' }), 'gangsheet-white-pane', 'plate-dark') : null),
          el('div', {},
            el('h3', {}, 'The sheet'),
            el('div', { 'data-testid': 'gangsheet-summary' }, facts([
              ['Sheets', String(m.sheets.length), 'sheets'],
              ['Length to cut', m.sheets.map((s) => `${s.length_in} in`).join(' + '), 'sheets[].length_in'],
              ['Film width', `${first.width_in} in`, 'sheets[].width_in'],
              ['Copies', String(m.placements.length), 'placements'],
              ['Film used by ink', pct(m.utilisation), 'utilisation'],
              ['Ink area', `${m.ink_sq_in} sq in`, 'ink_sq_in'],
              ['Placed in rows (time ran out)', m.fast_placed ? String(m.fast_placed) : null, 'fast_placed'],
              ['White layer', m.white ? `${m.white.spot_name} separation, ${m.white.white_ink_sq_in} sq in of white, pulled in ${m.white.choke_mm} mm` : 'none', 'white'],
              ['Shirt', m.white ? shirtWords(m.white) : null, 'white.garment_source, white.garment_color'],
            ])),
            el('h3', {}, 'Designs'),
            el('table', { class: 'manifest', 'data-testid': 'gangsheet-items' },
              el('thead', {}, el('tr', {}, el('th', {}, 'Design'), el('th', {}, 'Width'), el('th', {}, 'Copies'), el('th', {}, 'Placed'))),
              el('tbody', {}, items.map((it, i) => el('tr', {},
                el('td', {}, names[it.design]), el('td', {}, `${it.width_in} in`), el('td', {}, String(it.quantity)), el('td', {}, String(placed.get(i) ?? 0)))))),
            el('h3', {}, 'Warnings'),
            m.warnings.length
              ? el('ul', { class: 'warnings', 'data-testid': 'gangsheet-warnings' }, m.warnings.map((w) =>
                el('li', { class: 'warning', title: w.message, 'data-code': w.code }, `${w.item === undefined ? names[w.design] ?? `Design ${w.design}` : names[items[w.item]?.design] ?? `Item ${w.item}`}: `, (WARNING_WORDS[w.code] ?? (() => w.message))(w))))
              : el('p', { class: 'help' }, 'None.'),
            el('p', { class: 'row' }, pdfButton),
            el('div', { class: 'status', role: 'status', 'aria-live': 'polite', 'data-testid': 'gangsheet-pdf-status' }),
            technical([
              ['fields sent', Object.entries(fields).filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`).join(', ')],
              ['design parts', names.map((n, i) => `${i}: ${n}`).join(', ')],
              ['manifest', JSON.stringify({ ...m, placements: `${m.placements.length} placements` })],
            ]))));
    });
    onLimitsChanged();
  });

  /** The same order as format=pdf, saved as a file. */
  async function downloadPdf(button, files, fields) {
    const status = out.querySelector('[data-testid=gangsheet-pdf-status]');
    show(status, 'Making the PDF…');
    await busy(button, status, async () => {
      const res = await postFiles('/api/v1/gangsheet', 'design', files, { ...fields, format: 'pdf' });
      const pdf = new File([await res.blob()], `${baseName(files[0])}-gangsheet.pdf`, { type: 'application/pdf' });
      const a = el('a', { href: blobUrl('gangsheet-pdf', pdf), download: pdf.name, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      const sheets = res.headers.get('x-sheets');
      show(status, `Saved ${pdf.name} (${(pdf.size / 1024).toFixed(0)} KiB): ${sheets} ${sheets === '1' ? 'page' : 'pages'} at the sheet's exact size${fields.underbase ? ', the white as its own spot colour' : ''}.`);
    });
    onLimitsChanged();
  }
}
