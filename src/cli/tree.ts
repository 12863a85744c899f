// The command tree as data: what completion scripts and the README's command
// table are checked against. Reads commander's tree; builds nothing.

import type { Command } from 'commander';

/** The command tree as data, for completion scripts. */
export interface CommandSpec {
  name: string;
  description: string;
  options: string[];
  subcommands: CommandSpec[];
}

export function describeTree(command: Command): CommandSpec {
  return {
    name: command.name(),
    description: command.description().split('\n')[0] ?? '',
    options: command.options
      .filter((o) => !o.hidden)
      .flatMap((o) => [o.short, o.long].filter((f): f is string => f !== undefined)),
    subcommands: command.commands.map(describeTree),
  };
}
