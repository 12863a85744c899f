// zod as byre uses it: every schema is checked by zod's interpreter
// (jitless). byre is a short-lived process that parses each schema a handful
// of times, so compiling each one into a function on first use (zod's
// default) costs more than it saves. Every module that builds a schema
// imports this file first, for this side effect.

import { config } from 'zod';

config({ jitless: true });
