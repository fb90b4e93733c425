// A design is placed, embedded and drawn cut to its ink: the bounding box of its pixels with alpha > 0 (any
// alpha above 0 is ink, as the nesting takes it). The file's transparent edges take no film and reach no
// neighbour nor the sheet's edge, so every placement box of the manifest lies on the sheet inside the margins.
import { cropRaster, opaqueBounds, type Box } from '../raster/trim.js';
import type { Raster } from '../raster/types.js';
import type { PlateSet } from '../underbase/plates.js';

/**
 * The box of `r`'s pixels with alpha > 0; its top-left pixel when it has none (transparent: nothing is drawn).
 * Not the whole file then: a file larger than the sheet would have its boxes reach past the sheet's end.
 * @example inkBox(logo) // { x: 12, y: 40, width: 1000, height: 610 }
 */
export function inkBox(r: Raster): Box {
  return opaqueBounds(r, 1) ?? { x: 0, y: 0, width: 1, height: 1 };
}

/**
 * The images the PDF and the PNG draw: each design of `designs` replaced in place by its cut to the ink box
 * `items` (the layout's) give it, null for a file no item uses; returns `designs`. One at a time, so each whole
 * image can be let go as its cut is made (the designs together may hold 800 MB). A design without transparent
 * edges stays itself, not copied.
 * @example renderSheetPng(22, l.sheets[0].lengthIn, 300, l.placements, cutDesigns(rasters, l.items))
 */
export function cutDesigns(designs: (Raster | null)[], items: readonly ItemArt[]): (Raster | null)[] {
  const boxOf = artBoxes(items);
  for (let k = 0; k < designs.length; k++) {
    const r = designs[k];
    const b = boxOf.get(k);
    designs[k] = r && b ? cropRaster(r, b) : null;
  }
  return designs;
}

/**
 * The white layer's plate sets replaced in place by their cuts to the ink box of the design each was made from
 * (`designOf`), as `cutDesigns` does for the designs; returns `plates`.
 */
export function cutPlates(plates: PlateSet[], designOf: readonly number[], items: readonly ItemArt[]): PlateSet[] {
  const boxOf = artBoxes(items);
  for (let j = 0; j < plates.length; j++) plates[j] = cropPlates(plates[j]!, boxOf.get(designOf[j]!)!);
  return plates;
}

/** What the cuts need of the layout's items: the design and the part of it placed, in its pixels. */
type ItemArt = { design: number; art: { px: Box } };

function artBoxes(items: readonly ItemArt[]): Map<number, Box> {
  return new Map(items.map((it) => [it.design, it.art.px]));
}

/** The part of `src` (one byte a pixel, `width` wide) inside `b`, copied. */
function cropGrey(src: Uint8Array, width: number, b: Box): Uint8Array {
  const out = new Uint8Array(b.width * b.height);
  for (let y = 0; y < b.height; y++) {
    const at = (b.y + y) * width + b.x;
    out.set(src.subarray(at, at + b.width), y * b.width);
  }
  return out;
}

/**
 * A plate set cut to `b` (the colour plate, the white plate and the classes), for embedding and drawing; the
 * checks ran on the whole set. Plates keep their design's pixel grid, and have ink only where the art has, so
 * the design's ink box holds all of it.
 */
export function cropPlates(p: PlateSet, b: Box): PlateSet {
  if (b.x === 0 && b.y === 0 && b.width === p.width && b.height === p.height) return p;
  return {
    ...p,
    width: b.width,
    height: b.height,
    colour: cropRaster(p.colour, b),
    white: cropGrey(p.white, p.width, b),
    classes: cropGrey(p.classes, p.width, b),
    semiBox: p.semiBox && { ...p.semiBox, x: p.semiBox.x - b.x, y: p.semiBox.y - b.y },
  };
}
