// How many terminal cells a string takes, as string-width counts them. Text
// that is all printable ASCII (U+0020-U+007E, which every status value is
// once escaped, unless it names something non-ASCII) is one cell a
// character, which is what string-width says of each such character (a test
// asks it of all 95); only other text loads string-width. Its module builds
// an Intl.Segmenter when it loads and segments every string it measures:
// ~3.6 ms of a short `byre status` that this skips (adr/0041's amendment).
//
// A literal `require` keeps the load synchronous (layout is pure and
// synchronous) and bundled: bun evaluates the module at the first call, and
// vitest gives every module a `require` (node >= 20.19 loads an ES module
// that way). Nothing imports string-width statically, so one copy is loaded.

/* eslint-disable @typescript-eslint/no-require-imports -- the lazy load is the point (see above) */

type Measure = (text: string) => number;

let wide: Measure | null = null;

/** string-width itself, loaded on first use. */
function stringWidthLib(): Measure {
  wide ??= (require('string-width') as { default: Measure }).default;
  return wide;
}

/** Terminal cells of `text`, exactly as string-width counts them. */
export function cellWidth(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return stringWidthLib()(text);
  }
  return text.length;
}
