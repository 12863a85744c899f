// The version of `byre status --data` (data-schema.ts says when it changes),
// apart from the zod schema so the text page, which writes it into the model,
// does not load zod. 3: `engine.rootless_error` (always null) is gone.
// 4: a `network.egress` entry of a running walled box no longer means the box
// reaches that host now: a name is reachable once the box's resolver answered
// it (`resolution`); `network.denials` is added (adr/0064).

export const STATUS_DATA_VERSION = 4;
