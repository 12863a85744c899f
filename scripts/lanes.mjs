// Which vitest runs `npm test` makes (adr/0060): pure, so the plan is tested
// without running it.

/**
 * @typedef {{ name: string, argv: string[], env?: Record<string, string>, nice?: number }} Lane
 * @param {string[]} engines the engines under test (BYRE_TEST_ENGINES's, else the answering ones)
 * @param {{ cross?: string[], alone?: string[] }} afterFiles engine files run after the lanes:
 *   `cross` drive two engines in one test (run only when both are under test), `alone` need
 *   no other lane's box on the machine
 * @param {{ splitRootless?: boolean }} [options] whether rootless podman gets a lane of its own
 *   (BYRE_LANES_SPLIT_ROOTLESS=1; off by default, see below)
 * @returns {{ lanes: Lane[], after: Lane[] }} `lanes` run at once, then `after`, in order
 */
export function planLanes(
  engines,
  { cross = [], alone = [] } = {},
  { splitRootless = false } = {},
) {
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
  const exclude = [...cross, ...alone].flatMap((f) => ['--exclude', f]);
  const engineLane = (name, env) => ({
    name,
    argv: ['run', '--project', 'engine', ...exclude],
    env,
  });
  // Rootless podman may run in a lane of its own, beside root podman (docker
  // as the test user talks to root's daemon, so it always stays in docker's
  // lane). It is off by default: run whole on 2 cores, the split lanes
  // disturbed each other (rootless tests that read the machine's podman
  // monitors, fixtures on this machine's address) and timed out at load 10-12
  // (adr/0060).
  const lanes = [
    host,
    ...engines.flatMap((engine) =>
      engine === 'podman' && splitRootless
        ? [
            engineLane('podman', { BYRE_TEST_ENGINES: engine, BYRE_TEST_FLAVORS: 'root' }),
            engineLane('rootless', { BYRE_TEST_ENGINES: engine, BYRE_TEST_FLAVORS: 'user' }),
          ]
        : [engineLane(engine, { BYRE_TEST_ENGINES: engine })],
    ),
  ];
  const afterFiles = [...(engines.length > 1 ? cross : []), ...alone];
  const after =
    afterFiles.length > 0
      ? [
          {
            name: 'after',
            argv: ['run', '--project', 'engine', ...afterFiles],
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

// vitest reprints every failure under one of these banners near the end of
// its run; a lane's banners can scroll far above the last lines CI keeps
// when the other lanes run on, so the lanes summary repeats them.
const FAILURE_BANNER = /⎯ (Failed Tests|Failed Suites|Unhandled Errors?) \d+ ⎯/;
const RUN_SUMMARY = /^\s*Test Files\s/;
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Keeps what a failed lane should repeat at the end: its failure banners and
 * what follows them up to vitest's run summary (at most `max` lines), or,
 * when it printed none (it crashed), its last `tail` lines.
 * @param {{ max?: number, tail?: number }} [limits]
 */
export function failureRecap({ max = 300, tail = 40 } = {}) {
  /** @type {string[]} */
  const kept = [];
  /** @type {string[]} */
  const last = [];
  let inside = false;
  let dropped = 0;
  return {
    /** @param {string} line */
    push(line) {
      const plain = line.replace(ANSI, '');
      last.push(plain);
      if (last.length > tail) last.shift();
      if (FAILURE_BANNER.test(plain)) inside = true;
      else if (RUN_SUMMARY.test(plain)) inside = false;
      if (!inside) return;
      if (kept.length < max) kept.push(plain);
      else dropped += 1;
    },
    /** @returns {string[]} */
    lines() {
      if (kept.length === 0) return [...last];
      return dropped === 0
        ? [...kept]
        : [...kept, `… ${dropped} more lines in the lane's output above`];
    },
  };
}
