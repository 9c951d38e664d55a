#!/usr/bin/env node
// The contract-first command. tsx is registered first: the commands load the project's own
// TypeScript (its handlers, its server, an --auth module) as they run.
import { register } from 'tsx/esm/api';

register();
const { runCommand } = await import('../dist/command.js');
await runCommand(process.argv.slice(2));
