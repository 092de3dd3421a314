#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerActionCommands } from './actions';
import { registerDeploymentCommands } from './deployments';
import { describeFailure } from './fail';
import { registerKeyCommands } from './keys';
import { registerLoginCommand } from './login';
import { registerMcpCommand } from './mcp-command';

/**
 * `gr`: the operator CLI. Exit codes: 0 done, 1 failed (the service's message on stderr),
 * 2 a usage mistake, 3 a watched action or deployment ended other than executed / ready.
 */
export function buildProgram(): Command {
  const program = new Command('gr')
    .description('Governed Runtime operator CLI: actions, approvals, deployments, keys')
    .version(packageVersion())
    .showHelpAfterError('(gr --help lists the commands)')
    .exitOverride();
  registerActionCommands(program);
  registerDeploymentCommands(program);
  registerKeyCommands(program);
  registerLoginCommand(program);
  registerMcpCommand(program, packageVersion());
  // Every subcommand exits through our catch below, not process.exit inside commander.
  for (const command of allCommands(program)) command.exitOverride();
  return program;
}

/** The client package's version (the same file from src/cli and dist/cli). */
function packageVersion(): string {
  const text = readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version "fail" with code 0; commander has printed the usage problem.
      return error.exitCode === 0 ? 0 : 2;
    }
    const failure = describeFailure(error);
    if (argv.includes('--json')) process.stderr.write(`${JSON.stringify(failure.json)}\n`);
    else process.stderr.write(`gr: ${failure.line}\n`);
    return failure.exitCode;
  }
}

if (require.main === module) {
  void main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
