// `byre status --data`: the model's data as JSON, checked against the zod
// schema it is typed by, and that schema as JSON Schema (pinned in
// test/golden/status-data.schema.json so a shape change is a visible diff).

import '../zod.js';
import { z } from 'zod';

import { statusDataSchema } from './data-schema.js';
import type { StatusModel } from './model.js';

export function renderStatusData(model: StatusModel): string {
  // Parsing is the guard that the model still fits the published shape.
  return `${JSON.stringify(statusDataSchema().parse(model.data), null, 2)}\n`;
}

/** The JSON Schema of `--data`, generated from the zod schema. */
export function statusDataJsonSchema(): string {
  const schema = z.toJSONSchema(statusDataSchema(), { target: 'draft-2020-12' });
  return `${JSON.stringify({ ...schema, title: 'byre status --data' }, null, 2)}\n`;
}
