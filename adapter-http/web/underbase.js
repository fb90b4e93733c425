// Underbase tab: POST /api/v1/underbase with format=json (the white plate, the colour plate and the numbers a
// shop prices with), shown as three pictures: the white plate (white on black, as a RIP shows it), the colour
// plate over a checkerboard, and the print as it lands on the shirt, drawn here in a canvas (garment colour,
// then the white plate as white ink, then the colour plate), with the warnings' boxes drawn on it. The
// separation PDF for the RIP is the same request with format=pdf. Shirt colours are the own catalogue's
// swatches (swatches.js), loaded when the tab is first opened.
import { hasKey, postImage } from './api.js';
import { KNOCKOUT, baseName, blobUrl, busy, byId, el, facts, knockoutChoices, need, show, state, technical } from './dom.js';
import { shirtSwatches } from './swatches.js';

/** The warnings in a shop owner's words (the engine's sentence names form fields; it stays in the tooltip). */
const WARNING_WORDS = {
  nothing_to_print: () => 'Almost nothing of this art would print: it matches the shirt colour, so the knock-out leaves the shirt showing everywhere. Choose no knock-out, or art in a colour that stands out from the shirt.',
  white_too_thin: (n) => `${n === 1 ? 'A white line is' : `${n} white lines are`} too thin to hold on the film (under 1 pt, 0.014 in). Thicken the art there, or make the choke smaller.`,
  knockout_gap_too_narrow: (n) => `${n === 1 ? 'A gap' : `${n} gaps`} where the shirt shows through ${n === 1 ? 'is' : 'are'} too narrow (under 2 pt) and will fill in with ink. Widen ${n === 1 ? 'it' : 'them'} in the art, or choose no knock-out.`,
  semi_transparent_pixels: () => 'Part of the art is see-through (soft edges or fades): the white under it prints unevenly. Choose a soft-edge fix above.',
};

/** Shirt shown around the art on the composite, as a share of the art's longer side. */
const COMPOSITE_MARGIN = 0.06;

/** Box colours on the composite, one per warning kind (they read on dark and light shirts alike). */
const BOX_COLOURS = { nothing_to_print: '#ff3b30', white_too_thin: '#ff2d95', knockout_gap_too_narrow: '#00c2ff', semi_transparent_pixels: '#ffb000' };

/** Decode base64 into a PNG File. */
function pngFile(b64, name) {
  return new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type: 'image/png' });
}

/** An <img> that resolves once decoded. */
function loadImage(url) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('The plate picture could not be read'));
    img.src = url;
  });
}

/**
 * Draw the print on the shirt into `canvas`: the garment colour, the white plate as white ink (its grey level
 * is the ink's coverage, so it becomes the alpha of white), then the colour plate over it; then each
 * warning's boxes, numbered as in the list.
 */
function drawComposite(canvas, garment, whiteImg, colourImg, warnings) {
  const { naturalWidth: w, naturalHeight: h } = whiteImg;
  // A margin of shirt around the art, so it reads as a print on fabric rather than a picture on a colour.
  const m = Math.round(Math.max(w, h) * COMPOSITE_MARGIN);
  canvas.width = w + 2 * m;
  canvas.height = h + 2 * m;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = garment;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.translate(m, m);

  const scratch = document.createElement('canvas');
  scratch.width = w;
  scratch.height = h;
  const sctx = scratch.getContext('2d', { willReadFrequently: true });
  sctx.drawImage(whiteImg, 0, 0);
  const plate = sctx.getImageData(0, 0, w, h);
  const d = plate.data;
  for (let i = 0; i < d.length; i += 4) {
    d[i + 3] = d[i]; // grey level = white coverage
    d[i] = d[i + 1] = d[i + 2] = 255;
  }
  sctx.putImageData(plate, 0, 0);
  ctx.drawImage(scratch, 0, 0);
  if (colourImg) ctx.drawImage(colourImg, 0, 0);

  // Boxes: a dark halo under a bright line, so they show on any shirt; thick enough to see when the canvas
  // is shown scaled down to fit its pane.
  const line = Math.max(2, Math.round(Math.max(w, h) / 150));
  const pad = line * 2;
  ctx.font = `bold ${Math.max(12, line * 6)}px system-ui, sans-serif`;
  ctx.textBaseline = 'bottom';
  warnings.forEach((warning, n) => {
    const colour = BOX_COLOURS[warning.code] ?? '#ff2d95';
    for (const b of warning.boxes ?? []) {
      const x = b.x - pad, y = b.y - pad, bw = b.width + 1 + pad * 2, bh = b.height + 1 + pad * 2;
      ctx.lineWidth = line + 2;
      ctx.strokeStyle = 'rgba(0, 0, 0, 0.7)';
      ctx.strokeRect(x, y, bw, bh);
      ctx.lineWidth = line;
      ctx.strokeStyle = colour;
      ctx.strokeRect(x, y, bw, bh);
      const label = String(n + 1);
      const tw = ctx.measureText(label).width;
      const th = Math.max(12, line * 6);
      const ly = y > th + 2 ? y : y + bh + th + 2;
      ctx.fillStyle = colour;
      ctx.fillRect(x, ly - th - 2, tw + 6, th + 2);
      ctx.fillStyle = '#000';
      ctx.fillText(label, x + 3, ly);
    }
  });
}

/** One picture of the result, fitted in its pane. */
function pane(label, body, testid, cls = '') {
  return el('figure', { class: 'pane' }, el('figcaption', {}, label), el('div', { class: `viewport ${cls}`, 'data-testid': testid }, body));
}

/** The form as POST /underbase fields (empty values are left out by postImage: the server's defaults). */
function fieldsOf(f) {
  const soft = f.soft_fix.value;
  return {
    garment_color: f.garment_color.value,
    print_width_inches: f.print_width_inches.value,
    choke_mm: f.choke_mm.value,
    knockout: f.knockout.value,
    white_density: f.white_density.value,
    highlight_white: f.highlight_white.value,
    fix_alpha_threshold: soft === 'alpha_threshold' ? 'true' : '',
    fix_halftone: soft === 'halftone' ? 'true' : '',
  };
}

export function initUnderbase(onLimitsChanged) {
  const form = byId('underbase-form');
  const out = byId('underbase-out');
  const f = form.elements;
  knockoutChoices(f.knockout);
  // A swatch only sets the colour box: the one whose hex the box holds shows as picked.
  const swatches = shirtSwatches({
    box: byId('underbase-swatches'),
    tab: byId('tab-underbase'),
    onPick: (_style, c) => { f.garment_color.value = c.hex.toLowerCase(); },
    pressed: (b) => b.dataset.hex === f.garment_color.value.toLowerCase(),
    failed: (message) => `Shirt colours could not be loaded (${message}); pick one with the colour box.`,
  });
  f.garment_color.addEventListener('input', swatches.mark);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!hasKey()) return need(out, 'Paste an API key first.');
    if (!state.file) return need(out, 'Drop an image first.');
    swatches.load();
    const file = state.file;
    const fields = fieldsOf(f);
    show(out, el('p', { class: 'status' }, 'Separating…'));
    await busy(form.querySelector('button[type=submit]'), out, async () => {
      const r = await (await postImage('/api/v1/underbase', file, { ...fields, format: 'json' })).json();
      const white = pngFile(r.white_plate, `${baseName(file)}-white.png`);
      const colour = r.color_plate ? pngFile(r.color_plate, `${baseName(file)}-colour.png`) : null;
      const whiteUrl = blobUrl('underbase-white', white);
      const colourUrl = colour ? blobUrl('underbase-colour', colour) : null;
      const [whiteImg, colourImg] = await Promise.all([loadImage(whiteUrl), colourUrl ? loadImage(colourUrl) : null]);
      const canvas = el('canvas', { class: 'fit', 'data-testid': 'underbase-composite', role: 'img', 'aria-label': `The print on a ${r.garment_color ?? 'white'} shirt` });
      drawComposite(canvas, r.garment_color ?? '#ffffff', whiteImg, colourImg, r.warnings);

      const pdfButton = el('button', { type: 'button', class: 'download', 'data-testid': 'underbase-pdf' }, 'Download the separation PDF');
      pdfButton.addEventListener('click', () => downloadPdf(pdfButton, file, fields));
      const sqIn = (v) => `${v} sq in`;
      show(out,
        el('div', { class: 'underbase-result' },
          el('div', { class: 'underbase-pictures' },
            pane(`On the shirt (${r.garment_color ?? 'no shirt colour'}): white first, colour on top`, canvas, 'underbase-composite-pane'),
            el('div', { class: 'plates' },
              pane('White ink (the white plate, as your RIP shows it)', el('img', { class: 'fit', src: whiteUrl, alt: 'White plate', 'data-testid': 'underbase-white' }), 'underbase-white-pane', 'plate-dark'),
              colourUrl ? pane('Colour ink (the colour plate)', el('img', { class: 'fit', src: colourUrl, alt: 'Colour plate', 'data-testid': 'underbase-colour' }), 'underbase-colour-pane', 'checker') : null)),
          el('div', {},
            el('h3', {}, 'What it takes to print'),
            facts([
              ['Print size', `${r.print_width_inches} × ${r.print_height_inches} in`, 'print_width_inches, print_height_inches'],
              ['White ink', sqIn(r.white_ink_sq_in), 'white_ink_sq_in'],
              ['Colour ink', sqIn(r.color_ink_sq_in), 'color_ink_sq_in'],
              ['White covers', `${r.white_coverage_percent} % of the print area`, 'white_coverage_percent'],
              ['Left bare (shirt shows)', sqIn(r.knocked_out_sq_in), 'knocked_out_sq_in'],
              ['White ink only', r.white_only_sq_in ? sqIn(r.white_only_sq_in) : null, 'white_only_sq_in'],
              ['Knock-out', KNOCKOUT.find((k) => k.value === r.knockout)?.summary ?? r.knockout, 'knockout'],
              ['Choke', `${r.choke_mm} mm (${r.choke_px} px)`, 'choke_mm, choke_px'],
              ['Resolution', `${r.dpi} DPI`, 'dpi'],
            ]),
            el('h3', {}, 'Warnings'),
            r.warnings.length
              ? el('ol', { class: 'warnings', 'data-testid': 'underbase-warnings' }, r.warnings.map((w) => {
                const li = el('li', { class: 'warning', title: w.code, 'data-code': w.code },
                  el('span', { class: 'box-key', 'aria-hidden': 'true' }), (WARNING_WORDS[w.code] ?? (() => w.message))(w.count),
                  w.boxes?.length ? ' Marked on the shirt picture.' : '');
                li.firstChild.style.borderColor = BOX_COLOURS[w.code] ?? '#ff2d95';
                return li;
              }))
              : el('p', { class: 'help' }, 'None: the white holds and no gap fills in.'),
            el('p', { class: 'row' }, pdfButton),
            el('div', { class: 'status', role: 'status', 'aria-live': 'polite', 'data-testid': 'underbase-pdf-status' }),
            technical([
              ['fields sent', Object.entries(fields).filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`).join(', ')],
              ['garment_source', r.garment_source],
              ['transparency_fix', r.transparency_fix],
              ['size', `${r.width} × ${r.height} px`],
              ...r.warnings.map((w) => [w.code, `${w.message} (${w.count} regions, ${w.pixels} px; boxes ${JSON.stringify(w.boxes)})`]),
            ]))));
    });
    onLimitsChanged();
  });

  /** The same request as format=pdf, saved as a file (its own action: the format differs). */
  async function downloadPdf(button, file, fields) {
    const status = out.querySelector('[data-testid=underbase-pdf-status]');
    show(status, 'Making the PDF…');
    await busy(button, status, async () => {
      const res = await postImage('/api/v1/underbase', file, { ...fields, format: 'pdf' });
      const pdf = new File([await res.blob()], `${baseName(file)}-underbase.pdf`, { type: 'application/pdf' });
      const a = el('a', { href: blobUrl('underbase-pdf', pdf), download: pdf.name, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      show(status, `Saved ${pdf.name} (${(pdf.size / 1024).toFixed(0)} KiB): one page at the print size, the white as its own spot colour.`);
    });
    onLimitsChanged();
  }
}
