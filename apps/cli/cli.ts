import { parseArgs, type ParseArgsConfig } from 'node:util';
import { type CliIo, type Command, CommandContext, type OptionValues } from './command.js';
import { ACCOUNT_COMMANDS } from './commands/account.js';
import { ORGANIZATION_COMMANDS } from './commands/organizations.js';
import { ALERTING_COMMANDS } from './commands/alerting.js';
import { RESOURCE_COMMANDS } from './commands/resources.js';
import { COMPLETE_COMMAND, completionScript, completions } from './completion.js';
import { CliError, EXIT, UsageError } from './errors.js';
import { outputFormat } from './output.js';

type Options = NonNullable<ParseArgsConfig['options']>;

const GLOBAL_OPTIONS: Options = {
  output: { type: 'string', short: 'o' },
  'api-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const completion: Command = {
  name: 'completion',
  summary: 'print the shell completion script: source <(platform completion bash|zsh)',
  args: ['shell'],
  run: async (context) => context.io.stdout(completionScript(context.args[0])),
};

export const COMMANDS: readonly Command[] = [
  completion,
  ...ACCOUNT_COMMANDS,
  ...ORGANIZATION_COMMANDS,
  ...ALERTING_COMMANDS,
  ...RESOURCE_COMMANDS,
];

/** Every option of every command, so the command's words are found wherever options sit. */
function allOptions(commands: readonly Command[]): Options {
  const options: Options = { ...GLOBAL_OPTIONS };
  for (const command of commands) Object.assign(options, command.options);
  return options;
}

function usageOf(command: Command): string {
  const args = (command.args ?? []).map((arg) => `<${arg}>`);
  const options = Object.keys(command.options ?? {}).map((name) =>
    command.required?.includes(name) ? `--${name} <value>` : `[--${name} <value>]`,
  );
  return ['platform', command.name, ...args, ...options].join(' ');
}

export function helpText(commands: readonly Command[] = COMMANDS): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'Usage: platform <command> [options]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Global options:',
    '  -o, --output json|table  output format (default table)',
    '  --api-url <url>          the API (default $PLATFORM_API_URL, else the logged-in one)',
    "  -h, --help               this help, or a command's usage",
    '',
    'PLATFORM_TOKEN, when set, is used instead of the session `platform login` stored.',
    'Exit codes: 0 ok, 1 API error, 2 usage error, 3 not logged in.',
    '',
  ].join('\n');
}

/** The command whose words start the positionals: the longest match wins. */
function findCommand(positionals: string[], commands: readonly Command[]): Command | undefined {
  return [...commands]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((command) => {
      const words = command.name.split(' ');
      return words.every((word, index) => positionals[index] === word);
    });
}

interface CommandLine {
  command: Command;
  values: OptionValues;
  args: string[];
}

/**
 * Finds the command with every option known (so an option's value is not taken for a word),
 * then parses strictly with the global options and the command's own.
 */
function parseCommandLine(argv: string[], commands: readonly Command[]): CommandLine {
  const loose = parseArgs({
    args: argv,
    options: allOptions(commands),
    allowPositionals: true,
    strict: false,
  });
  const command = findCommand(loose.positionals, commands);
  if (!command) {
    if (loose.values.help === true || loose.positionals.length === 0)
      return { command: HELP, values: {}, args: [] };
    throw new UsageError(`unknown command: ${loose.positionals.join(' ')}`);
  }
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...GLOBAL_OPTIONS, ...command.options },
    allowPositionals: true,
    strict: true,
  });
  return { command, values, args: positionals.slice(command.name.split(' ').length) };
}

const HELP: Command = {
  name: 'help',
  summary: 'these commands',
  run: async (context) => context.io.stdout(helpText()),
};

/** Checks the arguments against the command's usage before anything reaches the API. */
function checkUsage({ command, values, args }: CommandLine): void {
  if (args.length !== (command.args ?? []).length)
    throw new UsageError(`usage: ${usageOf(command)}`);
  const missing = (command.required ?? []).filter((name) => values[name] === undefined);
  if (missing.length > 0)
    throw new UsageError(
      `missing ${missing.map((name) => `--${name}`).join(', ')}; usage: ${usageOf(command)}`,
    );
}

async function runCommand(argv: string[], io: CliIo, commands: readonly Command[]) {
  if (argv[0] === COMPLETE_COMMAND) {
    const candidates = completions(argv.slice(1), commands, GLOBAL_OPTIONS);
    io.stdout(candidates.map((candidate) => `${candidate}\n`).join(''));
    return;
  }
  let line: CommandLine;
  try {
    line = parseCommandLine(argv, commands);
  } catch (error) {
    // node:util's parse errors (unknown option, missing value) are usage errors.
    if (error instanceof CliError) throw error;
    throw new UsageError((error as Error).message);
  }
  if (line.values.help === true) {
    io.stdout(`Usage: ${usageOf(line.command)}\n\n${line.command.summary}\n`);
    return;
  }
  checkUsage(line);
  const output = line.values.output;
  const format = outputFormat(typeof output === 'string' ? output : undefined);
  await line.command.run(new CommandContext(io, line.values, line.args, format));
}

/** Runs `platform` with its arguments; resolves to the process's exit code. */
export async function runCli(
  argv: string[],
  io: CliIo,
  commands: readonly Command[] = COMMANDS,
): Promise<number> {
  try {
    await runCommand(argv, io, commands);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr(`platform: ${error.message}\n`);
    return error.exitCode;
  }
}
