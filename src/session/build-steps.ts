// Reading an image build's own log for byre's progress line: which step of
// how many, and the step's instruction, from docker's legacy builder
// (`Step 3/14 : RUN …`), BuildKit's plain output (`#7 [3/14] RUN …`) and
// podman (`STEP 3/14: RUN …`). Pure; the log itself is the engine's.

export interface BuildStep {
  n: number;
  total: number;
  /** The instruction's first line, as the engine printed it. */
  text: string;
}

const PATTERNS: readonly RegExp[] = [
  /^Step (\d+)\/(\d+) : (.*)$/,
  /^STEP (\d+)\/(\d+): (.*)$/,
  /^#\d+ \[(?:[^\]\s]+ )?(\d+)\/(\d+)\] (.*)$/,
];

/** The step a log line announces, or null for every other line. */
export function parseBuildStep(line: string): BuildStep | null {
  const trimmed = line.replace(/\r$/, '');
  for (const re of PATTERNS) {
    const m = re.exec(trimmed);
    if (m === null) continue;
    const n = Number(m[1]);
    const total = Number(m[2]);
    if (!(n >= 1 && total >= n)) return null;
    return { n, total, text: (m[3] ?? '').trim() };
  }
  return null;
}

/** `0:07`, `1:05`, `1:02:03`. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const mm = Math.floor(s / 60) % 60;
  const ss = String(s % 60).padStart(2, '0');
  const hh = Math.floor(s / 3600);
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** The step's text cut to `width` characters, marked with … when cut. */
function shorten(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(1, width - 1)).join('')}…`;
}

/** `building the image: step 3/14 (1:05): RUN apt-get update …`. */
export function progressText(step: BuildStep | null, elapsedMs: number, width = 72): string {
  const head = `building the image (${formatElapsed(elapsedMs)})`;
  if (step === null) return head;
  return `${head}: step ${step.n}/${step.total}: ${shorten(step.text, width)}`;
}

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

/**
 * The engine's own reason a base image could not be fetched: the last line
 * that reads like an error, else the last line. Empty when the log is empty.
 */
export function pullFailureReason(log: string): string {
  const lines = log
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const telling = lines.filter((l) =>
    /error|denied|not found|unknown|no such host|failed|unauthorized|refused|timeout/i.test(l),
  );
  return telling.at(-1) ?? lines.at(-1) ?? '';
}
