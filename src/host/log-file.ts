// A log byre keeps beside what it shows (the raw image build log): a private
// file truncated for each run, opened never through a link and never waiting
// on a FIFO, written as the lines come. A log is a convenience, never a record: a file that cannot be
// opened is no log, and a failed write is dropped.

import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs';

interface LogFile {
  write(text: string): void;
  close(): void;
}

/** Opens `file` (made 0600, truncated, the last component not followed) as a log; null unless it is a regular file. */
export function openLogFile(file: string): LogFile | null {
  const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = constants;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO with no reader fails the open (ENXIO) instead of waiting for one.
    fd = openSync(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0o600);
  } catch {
    return null;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    return null;
  }
  let open = true;
  return {
    write(text) {
      if (!open) return;
      try {
        writeSync(fd, text);
      } catch {
        // The caller keeps its own copy.
      }
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
