// The version of `byre status --data` (data-schema.ts says when it changes),
// apart from the zod schema so the text page, which writes it into the model,
// does not load zod. 3: `engine.rootless_error` (always null) is gone.

export const STATUS_DATA_VERSION = 3;
