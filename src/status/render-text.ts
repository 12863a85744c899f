// The status page as text: the model's rows for one tier, laid out by the row
// funnel at the width the caller chose. No colour, ever; escaping happens in
// the funnel, so nothing here prints a value byre did not write unescaped.

import { renderRows, type StatusTier } from './layout.js';
import type { StatusModel } from './model.js';
import { rowsForTier } from './rows.js';

export function renderStatusText(model: StatusModel, tier: StatusTier, width: number): string {
  return renderRows(rowsForTier(model.rows, tier), { width, tier });
}
