#!/usr/bin/env node
// The `gr` command. This file is committed so that `npm install` links `gr` on a fresh
// clone, before the CLI is built; it runs the built CLI (packages/client/dist, which
// `npm start` and `npm test` build), and says how to build it when it is missing.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const built = join(__dirname, '..', 'dist', 'cli', 'main.js');
if (!existsSync(built)) {
  process.stderr.write(
    'gr: not built yet; run `npm start` (or `npm run build`) in the repository\n',
  );
  process.exitCode = 1;
} else {
  void require(built)
    .main(process.argv)
    .then((code) => {
      process.exitCode = code;
    });
}
