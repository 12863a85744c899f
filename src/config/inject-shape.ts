// The raw shape of `[[inject.KEY]]` (adr/0070), apart from its rules so the
// layer schema can hold it without importing the rules (which import the
// schema's types). Shape only: config/inject.ts owns what a rule means.

import { BOOLEAN, list, map, STRING, STRING_LIST, table, type ShapeValue } from './shape.js';

/** One rule: these hosts get the credential, presented one way. */
const INJECT_RULE_SHAPE = table({
  hosts: STRING_LIST,
  header: STRING,
  bearer: BOOLEAN,
  basic: STRING,
});

/** `[[inject.KEY]]`: a map from the credential's name to its rules. */
export const INJECT_SHAPE = map(list(INJECT_RULE_SHAPE));

export type RawInjectRule = ShapeValue<typeof INJECT_RULE_SHAPE>;
