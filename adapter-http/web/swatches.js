// The shirt swatches of the Underbase and Gang sheet tabs: the own catalogue's colours (api.js ownShirt: the
// first own style's), fetched when the tab is first opened (clicked or focused) and again after a failure,
// shown as buttons that say which one is picked. What a pick means is the tab's: the Gang sheet remembers the
// catalogue shirt (sent as `style` + `color`), the Underbase only takes its hex; so the tab passes `onPick`
// and `pressed`, and this module only loads, draws and marks.
import { hasKey, ownShirt } from './api.js';
import { el, show } from './dom.js';

/** A shirt colour button (`c`: a catalogue colour { id, name, hex }): its chip and name; pressed when picked. */
function swatch(c, onPick) {
  const b = el('button', { type: 'button', class: 'swatch', title: `${c.name} ${c.hex}`, 'aria-pressed': 'false', 'data-hex': c.hex.toLowerCase(), 'data-color': c.id },
    el('span', { class: 'chip', 'aria-hidden': 'true' }), c.name);
  b.firstChild.style.backgroundColor = c.hex;
  b.addEventListener('click', () => onPick(c));
  return b;
}

/**
 * Swatches in `box`, loaded when `tab` is opened. `onPick(style, colour)` runs when one is clicked, then the
 * swatches are marked again; `pressed(button)` says whether a swatch shows as picked (its `data-hex` and
 * `data-color` name the colour); `failed(message)` is the help shown when the colours cannot be loaded.
 * Returns `load` (safe to call again: it asks once, unless the last try failed) and `mark` (for the tab to
 * call when the pick changes elsewhere, such as the colour box).
 */
export function shirtSwatches({ box, tab, onPick, pressed, failed }) {
  let loaded = false;
  const mark = () => {
    for (const b of box.querySelectorAll('button')) b.setAttribute('aria-pressed', String(pressed(b)));
  };
  async function load() {
    if (loaded || !hasKey()) return;
    loaded = true;
    try {
      const style = await ownShirt();
      show(box, style.colors.map((c) => swatch(c, () => {
        onPick(style, c);
        mark();
      })));
      mark();
    } catch (err) {
      loaded = false; // try again next time the tab opens
      show(box, el('span', { class: 'help' }, failed(err.message)));
    }
  }
  tab.addEventListener('click', load);
  tab.addEventListener('focus', load);
  return { load, mark };
}
