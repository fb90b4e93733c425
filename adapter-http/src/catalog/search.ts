// Matching what users type against garments: words, garment kinds and colour names. Text is split into
// words (hyphens and apostrophes join: "t-shirt" -> "tshirt", "women's" -> "womens"), a query word matches
// a garment word it equals or begins (so "hood" finds the hoodie, but "tshirt" never matches
// "sweatshirt"), kind synonyms map onto one word ("tee", "t shirt", "tees" -> "tshirt"; "long sleeve",
// "l/s" -> "longsleeve"; "hoody", "hooded" -> "hoodie"), and a colour word matches a garment that comes in
// a colour of that name ("grey" = "gray", "blue" finds royal and navy, "green" finds forest green).

/** Kind words a query may use, and the canonical word a garment carries for them. */
const KIND_SYNONYMS: readonly [RegExp, string][] = [
  [/\bsweat[\s-]?shirts?\b/g, ' sweatshirt '],
  [/\bt[\s-]?shirts?\b|\btees?\b|\bshirts?\b/g, ' tshirt '],
  [/\blong[\s-]?sleeves?\b|\bl\/s\b|\blongsleeves?\b/g, ' longsleeve '],
  [/\bshort[\s-]?sleeves?\b|\bs\/s\b/g, ' shortsleeve '],
  [/\bhood(?:ie|y|ies|ed)s?\b/g, ' hoodie '],
  [/\b(?:women'?s?|ladies|ladies'|womens)\b/g, ' womens '],
  [/\bgr[ae]y\b/g, ' grey '],
];

/** Lowercase words with kind synonyms folded onto their canonical word. */
export function words(text: string): string[] {
  let t = ` ${text.toLowerCase()} `;
  for (const [re, to] of KIND_SYNONYMS) t = t.replace(re, to);
  return t.replace(/['’]/g, '').split(/[^a-z0-9/]+/).filter(Boolean);
}

/** Colour words a user may type for a catalogue colour name (its own words plus a few family names). */
export function colorWords(name: string): string[] {
  const w = words(name);
  const out = new Set(w);
  const n = w.join(' ');
  if (/\b(navy|royal|cobalt|sapphire|indigo|carolina|sky|azure)\b/.test(n)) out.add('blue');
  if (/\b(forest|kelly|olive|military|lime|irish|mint|sage)\b/.test(n)) out.add('green');
  if (/\b(maroon|cardinal|burgundy|cherry|crimson|scarlet)\b/.test(n)) out.add('red');
  if (/\b(charcoal|heather|ash|graphite|smoke|silver)\b/.test(n)) out.add('grey');
  if (/\b(sand|natural|khaki|tan|cream|oatmeal)\b/.test(n)) out.add('beige');
  return [...out];
}

/** A garment as search sees it: its words (brand, style number, title, category, kinds) and colour names. */
export interface Searchable {
  fields: readonly string[];
  colors?: readonly string[];
}

/** Which colour names of the garment the query's colour words select ([] = the query names no colour). */
export function queryColors(q: string, g: Searchable): string[] {
  const qw = words(q);
  return (g.colors ?? []).filter((c) => colorWords(c).some((w) => qw.includes(w)));
}

/** Every query word matches a garment word (equal or prefix of it) or one of its colours. */
export function matchesQuery(q: string, g: Searchable): boolean {
  const hay = new Set(g.fields.flatMap(words));
  const hayList = [...hay];
  const colorSet = new Set((g.colors ?? []).flatMap(colorWords));
  return words(q).every((w) => hay.has(w) || colorSet.has(w) || (w.length >= 3 && hayList.some((h) => h.startsWith(w))));
}

/** The query without its colour words (for suppliers whose own search knows nothing of colours). */
export function withoutColorWords(q: string, colorNames: readonly string[]): string {
  const cw = new Set(colorNames.flatMap(colorWords));
  for (const fam of ['blue', 'green', 'red', 'grey', 'beige', 'black', 'white', 'navy', 'heather']) cw.add(fam);
  const kept = q.split(/\s+/).filter((w) => w && !words(w).every((x) => cw.has(x)));
  return kept.join(' ');
}
