// The error taxonomy and the exit-code contract. Domain code throws these as
// data; src/output/render-error.ts turns them into text and src/main.ts is the
// only place that maps them to an exit status.
//
//   0 ok · 1 failed (ByreError, EngineError) · 2 usage (UsageError)
//   3 refused (RefusedError) · 4 partial engine pool · 70 crash (anything else)
//   128+n interrupted by signal n (InterruptedError): 130 for Ctrl-C

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  refused: 3,
  partialPool: 4,
  crash: 70,
} as const;

/** Where in a file a problem sits. Line and column are 1-based. */
export interface Location {
  file: string;
  line?: number;
  column?: number;
  key?: string;
}

/** One located problem in a config-family file. */
export interface ConfigIssue {
  rule: string;
  message: string;
  location: Location;
  fix?: string;
}

interface ByreErrorOptions {
  rule: string;
  remedy?: string;
  location?: Location;
  cause?: unknown;
  /** Lines shown under the message (a candidate list); each is escaped when rendered. */
  details?: readonly string[];
}

/** A failure byre can explain: exit 1, `byre: <message>` plus a remedy. */
export class ByreError extends Error {
  readonly exitCode: number = EXIT.failed;
  readonly rule: string;
  readonly remedy: string | undefined;
  readonly location: Location | undefined;
  readonly details: readonly string[];

  constructor(message: string, options: ByreErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ByreError';
    this.rule = options.rule;
    this.remedy = options.remedy;
    this.location = options.location;
    this.details = options.details ?? [];
  }
}

/** Unknown flag or command, wrong arity: exit 2. */
export class UsageError extends ByreError {
  override readonly exitCode: number = EXIT.usage;
  constructor(message: string, options: Partial<ByreErrorOptions> = {}) {
    super(message, { rule: 'usage', ...options });
    this.name = 'UsageError';
  }
}

/** byre declines on purpose (a live session, a held volume): exit 3. */
export class RefusedError extends ByreError {
  override readonly exitCode: number = EXIT.refused;
  constructor(message: string, options: ByreErrorOptions) {
    super(message, options);
    this.name = 'RefusedError';
  }
}

/**
 * byre stopped what it was doing because the user interrupted it (Ctrl-C
 * during a build): exit 128 + the signal's number, as a shell reports a
 * command a signal ended (130 for SIGINT), so a script can tell a cancel
 * from a failure.
 */
export class InterruptedError extends ByreError {
  override readonly exitCode: number;
  constructor(message: string, signalNumber: number, options: ByreErrorOptions) {
    super(message, options);
    this.name = 'InterruptedError';
    this.exitCode = 128 + signalNumber;
  }
}

/**
 * Only part of the engine pool answered a machine query (`deliver --boxes`):
 * exit 4, so a caller never reads a partial list as the whole one.
 */
export class PartialPoolError extends ByreError {
  override readonly exitCode: number = EXIT.partialPool;
  constructor(message: string, options: ByreErrorOptions) {
    super(message, options);
    this.name = 'PartialPoolError';
  }
}

/** One or more problems in config-family files; nothing was written. */
export class ConfigError extends ByreError {
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    const first = issues[0];
    super(first ? first.message : 'invalid config', {
      rule: first ? first.rule : 'config.invalid',
      ...(first?.fix === undefined ? {} : { remedy: first.fix }),
      ...(first ? { location: first.location } : {}),
    });
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** The container engine CLI failed. */
export class EngineError extends ByreError {
  readonly engine: string;
  readonly argv: readonly string[];
  readonly engineExitCode: number | undefined;
  readonly stderr: string;
  constructor(
    message: string,
    details: {
      engine: string;
      argv: readonly string[];
      exitCode?: number;
      stderr?: string;
      rule?: string;
      remedy?: string;
    },
  ) {
    super(message, {
      rule: details.rule ?? 'engine.failed',
      ...(details.remedy === undefined ? {} : { remedy: details.remedy }),
    });
    this.name = 'EngineError';
    this.engine = details.engine;
    this.argv = details.argv;
    this.engineExitCode = details.exitCode;
    this.stderr = details.stderr ?? '';
  }
}

/**
 * The boxed agent's own exit status, passed through silently. Not an error in
 * byre's sense: main exits with `code` and prints nothing.
 */
export class PassthroughExit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.name = 'PassthroughExit';
    this.code = code;
  }
}
