/**
 * `npm run operator -- add|disable|list ...` manages the dashboard's operators of an organization.
 *
 * DATABASE_URL selects the database as for the server; the embedded database (DATABASE_URL unset)
 * belongs to one process, so run this while the server is stopped (README, "Design").
 */
import { parseArgs } from 'node:util';
import { randomIds, systemClock } from '../../server/clock-and-ids.js';
import {
  addOperator,
  disableOperatorNamed,
  isOperatorRole,
  OperatorError,
  operatorsOf,
} from '../../server/operators.js';
import { openDatabase } from '../../server/database/open.js';
import { DatabaseLockedError } from '../../server/database/embedded/lock.js';
import { migrateToLatest } from '../../server/database/migrate.js';
import type { OperatorRecord } from '../../server/store/operators.js';
import { reportUsageError, runAsMain, UsageError } from 'contract-first/cli';

export const USAGE = `Usage:
  npm run operator -- add --organization ORG_ID --username NAME [--role viewer|approver]
  npm run operator -- disable --username NAME
  npm run operator -- list --organization ORG_ID

add      creates a dashboard operator of the organization and prints their password once (the
         service keeps only its hash); the role defaults to viewer, who may only read; an
         approver may also approve and reject transfers and set card limits
disable  stops the operator from logging in and ends their sessions at once
list     prints the organization's operators: id, username, role, and when disabled

Add --json to print the result as JSON. The database is DATABASE_URL (postgres://...), or the
embedded database under ./.data/ when it is unset, which must not be open in a running server.`;

type Command =
  | { kind: 'add'; organizationId: string; username: string; role: 'viewer' | 'approver'; json: boolean }
  | { kind: 'disable'; username: string; json: boolean }
  | { kind: 'list'; organizationId: string; json: boolean };

function parseCommand(argv: readonly string[]): Command | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        organization: { type: 'string' },
        username: { type: 'string' },
        role: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node adds how to pass a positional that starts with '-', which no command here takes.
    throw new UsageError(/^Unknown option '[^']*'/.exec(message)?.[0] ?? message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  if (positionals.length !== 1) throw new UsageError('Give one command: add, disable or list.');
  const json = values.json === true;
  const required = (flag: 'organization' | 'username'): string => {
    const value = values[flag]?.trim();
    if (value === undefined || value === '') throw new UsageError(`--${flag} is required.`);
    return value;
  };
  const unexpected = (flags: readonly ('organization' | 'username' | 'role')[]): void => {
    const given = flags.find((flag) => values[flag] !== undefined);
    if (given !== undefined) throw new UsageError(`--${given} does not go with ${positionals[0] ?? ''}.`);
  };
  switch (positionals[0]) {
    case 'add': {
      const role = values.role ?? 'viewer';
      if (!isOperatorRole(role))
        throw new UsageError(`--role must be viewer or approver; got ${JSON.stringify(role)}.`);
      return { kind: 'add', organizationId: required('organization'), username: required('username'), role, json };
    }
    case 'disable':
      unexpected(['organization', 'role']);
      return { kind: 'disable', username: required('username'), json };
    case 'list':
      unexpected(['username', 'role']);
      return { kind: 'list', organizationId: required('organization'), json };
    default:
      throw new UsageError(`Unknown command ${JSON.stringify(positionals[0])}: use add, disable or list.`);
  }
}

function line(operator: OperatorRecord): string {
  const disabled = operator.disabledAt === null ? '' : `  disabled ${new Date(operator.disabledAt).toISOString()}`;
  return `${operator.id}  ${operator.username}  ${operator.role}${disabled}`;
}

function view(operator: OperatorRecord) {
  return { id: operator.id, username: operator.username, role: operator.role, disabledAt: operator.disabledAt };
}

async function run(command: Command): Promise<string> {
  const database = await openDatabase({ url: process.env['DATABASE_URL'] || undefined });
  try {
    await migrateToLatest(database.db);
    switch (command.kind) {
      case 'add': {
        const { operator, password } = await addOperator(database.db, { ids: randomIds, clock: systemClock }, command);
        if (command.json) return JSON.stringify({ ...view(operator), password });
        return [
          `Operator ${operator.username} (${operator.role}) added: ${operator.id}`,
          `  password: ${password}`,
          '',
          'The password is shown only this once: hand it to the operator now.',
        ].join('\n');
      }
      case 'disable': {
        const operator = await disableOperatorNamed(database.db, systemClock, command.username);
        return command.json
          ? JSON.stringify(view(operator))
          : `Operator ${operator.username} is disabled; their sessions have ended.`;
      }
      case 'list': {
        const operators = await operatorsOf(database.db, command.organizationId);
        if (command.json) return JSON.stringify(operators.map(view));
        return operators.length === 0 ? 'No operators.' : operators.map(line).join('\n');
      }
    }
  } finally {
    await database.close();
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  let command: Command | 'help';
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsageError(error.message, USAGE);
  }
  if (command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    process.stdout.write(`${await run(command)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof OperatorError || error instanceof DatabaseLockedError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

runAsMain(import.meta.url, main);
