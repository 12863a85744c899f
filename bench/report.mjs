// The benchmark report: medians into ratios, targets into met / not met, and
// the whole run into one markdown page. Pure: no IO, no clock.
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
 * The whole page. meta: { date, commit, bins: [{ side, version }], cores,
 * cpu, memGiB, kernel, load: [start, end], runs, bigBytes, files, quick,
 * minutes, note }. flavours: [{ label, version, rows, absolute, notes }].
 */
export function renderReport(meta, flavours) {
  const sides = meta.bins.map((b) => b.side);
  const out = ['# byre benchmarks', ''];
  out.push(`- Date: ${meta.date}; byre commit ${meta.commit}; ${meta.minutes} min for this run.`);
  // The version names the commit it was built from; the path would only name this machine.
  for (const b of meta.bins)
    out.push(`- Binary${sides.length > 1 ? ` (${b.side})` : ''}: ${b.version}.`);
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
