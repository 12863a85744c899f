// Chooses the width the status page lays out to. Pure: the caller reads the
// stream's isTTY and columns; this module never touches process or a stream.
// Redirected output is always 80 cells so it is the same wherever it is produced.

/** Narrowest layout; a smaller terminal still gets 48 rather than a pretend 80. */
const MIN_LAYOUT_WIDTH = 48;
/** Widest layout; wider terminals get 160 so rows stay readable. */
const MAX_LAYOUT_WIDTH = 160;
/** Width for non-terminal output and for a terminal whose size cannot be read. */
const FIXED_LAYOUT_WIDTH = 80;

type LayoutWidthInput = { isTty: boolean; columns: number | undefined };

/** The width in terminal cells the status page should be laid out to. */
export function layoutWidth({ isTty, columns }: LayoutWidthInput): number {
  if (!isTty) return FIXED_LAYOUT_WIDTH;
  // Node reports undefined when the size is unknown; some ptys report 0.
  if (columns === undefined || !Number.isFinite(columns) || columns <= 0) {
    return FIXED_LAYOUT_WIDTH;
  }
  return Math.min(MAX_LAYOUT_WIDTH, Math.max(MIN_LAYOUT_WIDTH, Math.floor(columns)));
}
