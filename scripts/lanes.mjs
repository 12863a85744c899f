// Which vitest runs `npm test` makes (adr/0060): pure, so the plan is tested
// without running it.

/**
 * @typedef {{ name: string, argv: string[], env?: Record<string, string>, nice?: number }} Lane
 * @param {string[]} engines the engines under test (BYRE_TEST_ENGINES's, else the answering ones)
 * @param {string[]} crossFiles engine files that drive two engines in one test
 * @returns {{ lanes: Lane[], after: Lane[] }} `lanes` run at once, then `after`, in order
 */
export function planLanes(engines, crossFiles) {
  // The host tiers yield the cores to the engine lanes: they only wait on the
  // CPU, while an engine lane's byre runs wait on engines with timeouts.
  const host = {
    name: 'host',
    argv: ['run', '--project', 'unit', '--project', 'cli', '--project', 'tui'],
    nice: 10,
  };
  if (engines.length === 0) {
    // The engine tier runs, to report its skips, as it always did.
    return { lanes: [host, { name: 'engine', argv: ['run', '--project', 'engine'] }], after: [] };
  }
  const exclude = crossFiles.flatMap((f) => ['--exclude', f]);
  const lanes = [
    host,
    ...engines.map((engine) => ({
      name: engine,
      argv: ['run', '--project', 'engine', ...exclude],
      env: { BYRE_TEST_ENGINES: engine },
    })),
  ];
  const after =
    engines.length > 1 && crossFiles.length > 0
      ? [
          {
            name: 'cross',
            argv: ['run', '--project', 'engine', ...crossFiles],
            env: { BYRE_TEST_ENGINES: engines.join(',') },
          },
        ]
      : [];
  return { lanes, after };
}

/** BYRE_TEST_ENGINES's list, or null when it names none. */
export function requiredEngines(raw) {
  const list = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return list.length > 0 ? list : null;
}
