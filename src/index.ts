#!/usr/bin/env node
import { guardPipes } from './io.js';
import { runCli } from './main.js';

guardPipes();
process.exitCode = await runCli(process.argv.slice(2));
