#!/usr/bin/env node
import { runCli } from './cli.js';
import { terminalIo } from './terminal.js';

process.exitCode = await runCli(process.argv.slice(2), terminalIo());
