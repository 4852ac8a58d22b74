#!/usr/bin/env node
// The tmux-mcp command of the npm package: it runs the server binary that
// npm installed for this system as one of the package's optional
// dependencies (@tmux-mcp/OS-CPU, chosen by npm from their os and cpu
// fields), so that installing downloads nothing but packages. The binary
// gets this process's standard streams and arguments; its exit status, or
// the signal that ended it, becomes this process's.
'use strict';

const { spawn } = require('child_process');
const path = require('path');

const platforms = {
  'linux x64': '@tmux-mcp/linux-x64',
  'linux arm64': '@tmux-mcp/linux-arm64',
  'darwin x64': '@tmux-mcp/darwin-x64',
  'darwin arm64': '@tmux-mcp/darwin-arm64',
};

function binaryPath() {
  const pkg = platforms[`${process.platform} ${process.arch}`];
  if (!pkg) {
    fail(`no tmux-mcp binary is built for ${process.platform} on ${process.arch}; ` +
      `there are ones for ${Object.keys(platforms).join(', ')}. ` +
      'Build it from source: go install github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp@latest');
  }
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch (err) {
    fail(`the package ${pkg}, which holds the binary for this system, is not installed ` +
      '(npm leaves optional dependencies out with --omit=optional or --no-optional): ' +
      `install tmux-mcp again without that option, or npm install ${pkg}`);
  }
  return path.join(path.dirname(manifest), 'bin', 'tmux-mcp');
}

function fail(message) {
  process.stderr.write(`tmux-mcp: ${message}\n`);
  process.exit(1);
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: 'inherit' });

// A signal sent to this process (a client stopping its server) goes to the
// server, which decides how to end; this process ends when it has.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
const forward = (signal) => { child.kill(signal); };
for (const signal of forwarded) {
  process.on(signal, forward);
}

child.on('error', (err) => {
  fail(`cannot run ${child.spawnfile}: ${err.message}`);
});

child.on('exit', (code, signal) => {
  if (signal) {
    // End the same way: the default action of the signal, with no handler.
    for (const s of forwarded) {
      process.removeListener(s, forward);
    }
    process.kill(process.pid, signal);
    // A signal whose default is not to end (none of those above) leaves
    // this process alive; 128 plus its number is the shell's convention.
    setTimeout(() => process.exit(128 + (require('os').constants.signals[signal] || 0)), 100);
    return;
  }
  process.exit(code);
});
