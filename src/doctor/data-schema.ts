// The shape of `byre doctor --data`, written once in zod: the report's type
// and the JSON Schema pinned in test/golden/doctor-data.schema.json both come
// from it. Versioned, by the rule `status --data` follows: a field added
// leaves DOCTOR_DATA_VERSION alone; a field removed, renamed or changed in
// meaning bumps it.

import '../zod.js';
import { z } from 'zod';

export const DOCTOR_DATA_VERSION = 1;

const text = z.string();
const engine = z.enum(['docker', 'podman']);

export const doctorDataSchema = z
  .object({
    version: z.literal(DOCTOR_DATA_VERSION),
    usable: z.boolean().describe('byre can run a box here: no check failed'),
    workdir: text,
    project_id: text.nullable(),
    checks: z.array(
      z.object({
        id: text.describe('stable: host.user, engine.docker, engine.selected, store.permissions …'),
        subject: text,
        verdict: z.enum(['ok', 'note', 'warn', 'fail']),
        found: text,
        fix: text.nullable(),
      }),
    ),
    leftovers: z.array(
      z.object({
        engine,
        kind: z.enum(['container', 'volume', 'image']),
        id: text.describe('container id, volume name or image id'),
        tags: z.array(text),
        project: text,
        reason: z.enum(['store_gone', 'path_gone']),
        recorded_path: text.nullable(),
        running: z.boolean(),
      }),
    ),
    store_folders: z.array(
      z.object({
        project: text,
        path: text.describe('the project folder in the store: config, build log, launch records'),
        recorded_path: text.describe('the project directory the store recorded, now gone'),
      }),
    ),
    left_alone: z.object({
      other_store: z.number().int().describe('byre objects of another store (user or BYRE_HOME)'),
      unattributed: z.number().int().describe('byre objects without a store label'),
    }),
    unreached: z.array(z.object({ engine, message: text })),
  })
  .strict();

export type DoctorData = z.infer<typeof doctorDataSchema>;
