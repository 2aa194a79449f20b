#!/usr/bin/env node
import { runCli } from './cli.js';
import { terminalIo } from './terminal.js';

const io = terminalIo();
try {
  process.exitCode = await runCli(process.argv.slice(2), io);
} finally {
  io.close();
}
