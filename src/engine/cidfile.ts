// The id a `run --cidfile FILE` writes (adr/0081): the engine's client puts
// the container's id there once the container exists, before it starts, on
// docker and podman alike; a run the engine refuses writes none. FILE lies
// in a private temp directory of byre's, never anything of a box's.

import { readFile } from 'node:fs/promises';

/** How often the file is read until it holds a whole id. */
const CIDFILE_POLL_MS = 10;

/**
 * The container id in `cidfile` once the engine wrote it whole (it may be
 * seen empty or part-written first); null when the run ended without one.
 */
export async function cidfileId(cidfile: string, ended: Promise<unknown>): Promise<string | null> {
  let over = false;
  void ended.then(() => {
    over = true;
  });
  for (;;) {
    const last = over;
    const text = (await readFile(cidfile, 'utf8').catch(() => '')).trim();
    if (/^[0-9a-f]{64}$/.test(text)) return text;
    if (last) return null;
    await new Promise((r) => setTimeout(r, CIDFILE_POLL_MS));
  }
}
