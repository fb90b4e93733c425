// The licences a production dependency of @inkprep/engine or @inkprep/http may carry (test/repo/licences.test.ts).
// inkprep is Apache-2.0 and is meant to be run, embedded and redistributed by print shops, closed-source included:
// a dependency's licence must allow that with at most a notice, and must not impose its terms on our code or on
// the shop's. Anything else (GPL, AGPL, SSPL, "non-commercial", no licence at all) fails the test and needs a
// decision before it lands. An SPDX expression passes when it is satisfiable from this list: `A OR B` needs one
// of them allowed, `A AND B` needs both.

export interface Allowed {
  /** Why this licence is acceptable for what we ship. */
  why: string;
  /** Only these packages may use it (glob with a trailing `*`); absent: any package. */
  only?: string[];
}

export const ALLOWED_LICENCES: Readonly<Record<string, Allowed>> = {
  MIT: { why: 'permissive: use, modify, redistribute, sell; keep the copyright notice (each package carries its text)' },
  ISC: { why: 'permissive, functionally MIT' },
  'BSD-2-Clause': { why: 'permissive: keep the copyright notice' },
  'BSD-3-Clause': { why: 'permissive: keep the notice, do not use the authors\' names to endorse' },
  '0BSD': { why: 'permissive with no conditions at all' },
  'CC0-1.0': { why: 'public-domain dedication' },
  'Apache-2.0': { why: 'our own licence: permissive with an explicit patent grant; keep notices, mark changes' },
  'LGPL-3.0-or-later': {
    why: 'only for sharp\'s prebuilt libvips: a dynamically linked native library shipped as its own npm package, '
      + 'which a user can replace with another build (the LGPL\'s condition); it does not reach our code or a shop\'s. '
      + 'An LGPL package bundled or statically linked into ours would need a separate decision.',
    only: ['@img/sharp-libvips-*', '@img/sharp-win32-*', '@img/sharp-wasm32'],
  },
};
