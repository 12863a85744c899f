// Which vitest runs `npm test` makes (adr/0060): pure, so the plan is tested
// without running it.

/**
 * @typedef {{ name: string, argv: string[], env?: Record<string, string>, nice?: number, next?: Lane }} Lane
 * @param {string[]} engines the engines under test (BYRE_TEST_ENGINES's, else the answering ones)
 * @param {{ cross?: string[], alone?: string[] }} afterFiles engine files run after the lanes:
 *   `cross` drive two engines in one test (run only when both are under test), `alone` need
 *   no other lane's box on the machine
 * @param {{ splitRootless?: boolean }} [options] whether rootless podman gets a lane of its own,
 *   run after the host lane (see below)
 * @returns {{ lanes: Lane[], after: Lane[] }} `lanes` run at once (each then its `next`), then
 *   `after`, in order
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
  // Rootless podman runs in a lane of its own, beside root podman (docker as
  // the test user talks to root's daemon, so it always stays in docker's
  // lane), but only once the host tiers are done: it follows the host lane
  // (`next`), so at most three lanes share the cores at any time. Run as a
  // fourth lane from the start (load 10-12 on 2 cores), the split lanes
  // timed out rootless tests that pass alone (adr/0060).
  const rootlessSplit = engines.includes('podman') && splitRootless;
  const rootless = engineLane('rootless', {
    BYRE_TEST_ENGINES: 'podman',
    BYRE_TEST_FLAVORS: 'user',
  });
  const lanes = [
    rootlessSplit ? { ...host, next: rootless } : host,
    ...engines.map((engine) =>
      engine === 'podman' && rootlessSplit
        ? engineLane('podman', { BYRE_TEST_ENGINES: engine, BYRE_TEST_FLAVORS: 'root' })
        : engineLane(engine, { BYRE_TEST_ENGINES: engine }),
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

/**
 * CPU seconds this process's reaped children used (`cutime` + `cstime` of a
 * `/proc/<pid>/stat` line). A child's time, and its own reaped children's,
 * joins these fields only when it is reaped, so the growth across one lane's
 * exit is that lane's whole process tree.
 * @param {string} stat the text of /proc/self/stat
 * @param {number} ticks clock ticks per second
 */
export function reapedCpuSeconds(stat, ticks = 100) {
  // The command name may hold spaces and parentheses: fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name, field 3 (state) is index 0, so cutime (16) and cstime (17) are 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) / ticks;
}

/**
 * The machine's busy and total CPU seconds from /proc/stat's `cpu` line
 * (idle and iowait count as not busy).
 * @param {string} procStat the text of /proc/stat
 * @param {number} ticks clock ticks per second
 */
export function machineCpuSeconds(procStat, ticks = 100) {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu ')) ?? 'cpu';
  const n = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { busy: (total - idle) / ticks, total: total / ticks };
}

/**
 * The run's closing CPU line: how busy the machine was, and how much of it
 * the lanes' own processes (vitest, byre, engine clients) used rather than
 * the engines' daemons and boxes. Where the machine was busy nearly all the
 * time, lanes only share the cores: less work, not more lanes, is faster.
 * @param {{ busy: number, total: number }} start
 * @param {{ busy: number, total: number }} end
 * @param {number} lanesCpu CPU seconds of every lane's process tree
 */
export function cpuSummary(start, end, lanesCpu) {
  const busy = end.busy - start.busy;
  const total = end.total - start.total;
  const share = total > 0 ? Math.round((100 * busy) / total) : 0;
  const rest = Math.max(0, busy - lanesCpu);
  return `cpu: the machine was ${share}% busy (${Math.round(busy)} of ${Math.round(total)} cpu-seconds); the lanes' processes used ${Math.round(lanesCpu)}, engines' daemons, boxes and the rest ${Math.round(rest)}`;
}
