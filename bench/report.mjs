// The benchmark report: medians into ratios, targets into met / not met, the
// whole run into one markdown page, one flavour into its current page and its
// history row. Pure: no IO, no clock. A page names binaries by their version
// and commit, never by where they sit on this machine (scrubPaths).
//
// A row compares the raw engine doing a job with each byre binary doing it:
//   { name, what, show, target, bytes?, note?,
//     raw: { <side>: ms }, byre: { <side>: ms } }
// `show` says how a side is judged against its raw counterpart:
//   'time'  — lower is better: side / raw, and side − raw in ms;
//   'speed' — a transfer: raw / side is the throughput ratio (1 = as fast as raw);
//   'cost'  — a fixed cost: side − raw in ms.
// `target` is null or { of: 'ratio' | 'delta', max? , min? }.
// Sides are 'byre', or 'before' and 'after' when two binaries are compared.

/** { ratio, delta, met } of one side of a row; met is null without a target. */
export function evaluate(row, side) {
  const raw = row.raw[side];
  const ms = row.byre[side];
  const ratio = row.show === 'speed' ? raw / ms : ms / raw;
  const delta = ms - raw;
  const t = row.target;
  if (t === null) return { ratio, delta, met: null };
  const value = t.of === 'delta' ? delta : ratio;
  const met = (t.max === undefined || value <= t.max) && (t.min === undefined || value >= t.min);
  return { ratio, delta, met };
}

const ms = (x) => `${Math.round(x)} ms`;
const signed = (x) => `${x < 0 ? '−' : '+'}${Math.abs(Math.round(x))} ms`;
const mbps = (bytes, t) => `${Math.round(bytes / 1e6 / (t / 1000))} MB/s`;

export function formatTarget(t) {
  if (t === null) return '—';
  const v = (x) => (t.of === 'delta' ? `+${x} ms` : `${x}×`);
  const parts = [];
  if (t.min !== undefined) parts.push(`≥ ${v(t.min)}`);
  if (t.max !== undefined) parts.push(`≤ ${v(t.max)}`);
  return parts.join(', ');
}

function formatResult(row, side) {
  const { ratio, delta } = evaluate(row, side);
  if (row.show === 'cost') return signed(delta);
  if (row.show === 'speed') return `${ratio.toFixed(2)}×`;
  return `${ratio.toFixed(2)}× (${signed(delta)})`;
}

function formatTime(row, t) {
  return row.bytes === undefined ? ms(t) : `${ms(t)} (${mbps(row.bytes, t)})`;
}

const verdict = (met) => (met === null ? '' : met ? 'met' : '**not met**');

/** The raw column: one value, or one per side when each side has its own counterpart. */
function rawCell(row, sides) {
  const values = sides.map((s) => formatTime(row, row.raw[s]));
  return new Set(values).size === 1 ? values[0] : values.join(' / ');
}

/** One flavour's comparison table. */
export function renderTable(rows, sides) {
  const two = sides.length > 1;
  const head = two
    ? [
        'case',
        'raw counterpart',
        'raw',
        ...sides,
        ...sides.map((s) => `${s} vs raw`),
        'target',
        'after',
      ]
    : ['case', 'raw counterpart', 'raw', 'byre', 'byre vs raw', 'target', ''];
  const align = head.map((_, i) => (i >= 2 && i < 2 + 1 + 2 * sides.length ? '--:' : '---'));
  const body = rows.map((row) => [
    row.name,
    row.what,
    rawCell(row, sides),
    ...sides.map((s) => formatTime(row, row.byre[s])),
    ...sides.map((s) => formatResult(row, s)),
    formatTarget(row.target),
    verdict(evaluate(row, sides[sides.length - 1]).met),
  ]);
  return [head, align, ...body].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** Absolute measurements with no raw counterpart: { name, ms }[]. */
export function renderAbsolute(rows) {
  const out = ['| case | median |', '| --- | --: |'];
  for (const r of rows) out.push(`| ${r.name} | ${ms(r.ms)} |`);
  return out.join('\n');
}

/**
 * `text` with every `places` path ([absolute path, what to write instead])
 * replaced, longest first so a path inside another is not half-replaced:
 * failure notes quote the binaries' and temp directories' paths.
 */
export function scrubPaths(text, places) {
  const ordered = places.filter(([from]) => from !== '').sort((a, b) => b[0].length - a[0].length);
  return ordered.reduce((t, [from, to]) => t.split(from).join(to), text);
}

/** The flavours' results with their notes scrubbed of `places` (scrubPaths). */
export function scrubResults(flavours, places) {
  return flavours.map((f) => ({ ...f, notes: f.notes.map((n) => scrubPaths(n, places)) }));
}

/**
 * The whole page. meta: { date, commit, bins: [{ side, version, built, checkout }], cores,
 * cpu, memGiB, kernel, load: [start, end], runs, bigBytes, files, quick,
 * minutes, note }. flavours: [{ label, version, rows, absolute, notes }].
 * `title` heads the page (one flavour's current page names its engine).
 */
export function renderReport(meta, flavours, title = 'byre benchmarks') {
  const sides = meta.bins.map((b) => b.side);
  const out = [`# ${title}`, ''];
  out.push(`- Date: ${meta.date}; byre commit ${meta.commit}; ${meta.minutes} min for this run.`);
  for (const b of meta.bins)
    out.push(
      `- Binary${sides.length > 1 ? ` (${b.side})` : ''}: ${b.version}, built ${b.built}, checkout ${b.checkout}.`,
    );
  out.push(
    `- Machine: ${meta.cores} cores (${meta.cpu}), ${meta.memGiB} GiB, Linux ${meta.kernel}; ` +
      `load average ${meta.load[0]} at the start, ${meta.load[1]} at the end.`,
  );
  out.push(
    `- Engines: ${flavours.map((f) => `${f.label} ${f.version}`).join('; ') || 'none answered'}.`,
  );
  out.push(
    `- Medians of ${meta.runs} rounds after one warm-up round${meta.quick ? ' (--quick)' : ''}; ` +
      'each round runs every side of a case once, interleaved, in an order that rotates each round.',
  );
  out.push(
    `- Big file ${meta.bigBytes / 1024 ** 2} MiB of random bytes; tree ${meta.files.toLocaleString('en')} files of 4 KiB in 10 directories.`,
  );
  out.push(
    '- Timed commands run without NODE_EXTRA_CA_CERTS (it adds ~80 ms to every node start on ' +
      'these machines; byre is a compiled binary, the engines are not node, so only a node-based ' +
      'byre would pay it).',
  );
  out.push(
    '- Times are wall-clock medians; the ratio is byre / raw (for throughput, raw / byre, so 1 = as fast as raw).',
  );
  if (meta.note) out.push(`- Note: ${meta.note}`);
  for (const f of flavours) {
    out.push('', `## ${f.label} (${f.version})`, '');
    out.push(f.rows.length ? renderTable(f.rows, sides) : '_no comparisons ran_');
    if (f.absolute.length) out.push('', renderAbsolute(f.absolute));
    for (const n of f.notes) out.push('', `- ${n}`);
  }
  return `${out.join('\n')}\n`;
}

/** The file name of a flavour's current page in bench/results/. */
export const currentPageName = (flavour) => `${flavour.key}.md`;

/** One flavour's current page: the run's header and that flavour's tables. */
export function renderCurrentPage(meta, flavour) {
  return renderReport(meta, [flavour], `byre on ${flavour.label}: current numbers`);
}

/** The history table's head; `historyRow` adds one row per run. */
export const HISTORY_HEAD =
  '| date | run | byre | compared with | targets met | not met | note |\n' +
  '| --- | --- | --- | --- | --- | --- | --- |';

/**
 * One run as a row of bench/results/history.md: what ran, the binaries by
 * version, and per flavour how many targets the last side met and which not.
 * meta.only lists the cases a narrowed run took ([] for all).
 */
export function historyRow(meta, flavours) {
  const side = meta.bins[meta.bins.length - 1].side;
  const judged = flavours.map((f) => {
    const verdicts = f.rows
      .map((r) => ({ name: r.name, met: evaluate(r, side).met }))
      .filter((r) => r.met !== null);
    return { key: f.key, verdicts, missed: verdicts.filter((r) => !r.met).map((r) => r.name) };
  });
  const missed = judged.filter((j) => j.missed.length > 0);
  const cell = (text) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  return `| ${[
    meta.date,
    `${meta.only.length === 0 ? 'all cases' : meta.only.join(', ')}; ${meta.runs} rounds; ${flavours.map((f) => f.key).join(', ')}`,
    meta.bins[meta.bins.length - 1].version,
    meta.bins.length > 1 ? meta.bins[0].version : '—',
    judged
      .map((j) => `${j.key} ${j.verdicts.length - j.missed.length}/${j.verdicts.length}`)
      .join(', '),
    missed.length === 0 ? '—' : missed.map((j) => `${j.key}: ${j.missed.join(' / ')}`).join('; '),
    meta.note || '—',
  ]
    .map(cell)
    .join(' | ')} |`;
}
