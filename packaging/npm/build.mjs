// Builds the npm packages of tmux-mcp into DIST/npm from the binaries that
// make release (goreleaser) left in DIST:
//
//	tmux-mcp/               the command: bin/tmux-mcp.js, with one optional
//	                        dependency per platform package
//	linux-x64/ linux-arm64/ darwin-x64/ darwin-arm64/
//	                        @tmux-mcp/OS-CPU: the binary, for npm to install
//	                        only where os and cpu match
//
// Every package gets the version given with --version, which must be the
// one the binaries were built with (dist/metadata.json), so that a stale
// dist/ is refused rather than packed under a new number.
//
//	node packaging/npm/build.mjs --dist dist --version 1.2.3
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

// package.json here is the command's manifest: its name, the MCP
// registry name (mcpName, which the registry checks against server.json)
// and one optional dependency per platform package, all at the version of
// the VERSION file (test/server_json_test.go keeps them so). The build
// writes it with the version it is given, and each platform package's
// manifest from it.
const manifest = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const scope = '@tmux-mcp';

// Go's names for the systems and processors, and Node's.
const nodeOS = { linux: 'linux', darwin: 'darwin' };
const nodeCPU = { amd64: 'x64', arm64: 'arm64' };

const common = {
  license: manifest.license,
  homepage: manifest.homepage,
  repository: manifest.repository,
  bugs: manifest.bugs,
};

function args(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!['dist', 'version'].includes(key) || argv[i + 1] === undefined) {
      throw new Error(`usage: build.mjs --dist DIR --version X.Y.Z (at ${argv[i]})`);
    }
    out[key] = argv[i + 1];
  }
  if (!out.dist || !out.version) {
    throw new Error('usage: build.mjs --dist DIR --version X.Y.Z');
  }
  return out;
}

function readJSON(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${err.message} (run make release first)`);
  }
}

function write(file, data, mode = 0o644) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data, { mode });
  fs.chmodSync(file, mode);
}

function build({ dist, version }) {
  const meta = readJSON(path.join(dist, 'metadata.json'));
  if (meta.version !== version) {
    throw new Error(`${dist} holds release ${meta.version}, not ${version}: run make release again`);
  }
  const binaries = readJSON(path.join(dist, 'artifacts.json'))
    .filter((a) => a.type === 'Binary' && a.name === 'tmux-mcp');
  const out = path.join(dist, 'npm');
  fs.rmSync(out, { recursive: true, force: true });

  const license = fs.readFileSync(path.join(root, 'LICENSE'));
  const optional = {};
  for (const b of binaries) {
    const os = nodeOS[b.goos];
    const cpu = nodeCPU[b.goarch];
    if (!os || !cpu) {
      throw new Error(`no npm platform for the binary ${b.path} (${b.goos}/${b.goarch})`);
    }
    const name = `${scope}/${os}-${cpu}`;
    const dir = path.join(out, `${os}-${cpu}`);
    optional[name] = version;
    write(path.join(dir, 'package.json'), JSON.stringify({
      name,
      version,
      description: `The tmux-mcp server binary for ${os} on ${cpu}; install tmux-mcp, which uses it.`,
      ...common,
      os: [os],
      cpu: [cpu],
      files: ['bin/tmux-mcp'],
      preferUnplugged: true,
    }, null, 2) + '\n');
    write(path.join(dir, 'README.md'), `# ${name}\n\nThe \`tmux-mcp\` binary for ${os} on ${cpu}. ` +
      `It is an optional dependency of [${manifest.name}](https://www.npmjs.com/package/${manifest.name}), ` +
      'which npm installs only on this system; run `npx -y tmux-mcp` rather than this package.\n');
    write(path.join(dir, 'LICENSE'), license);
    write(path.join(dir, 'bin', 'tmux-mcp'), fs.readFileSync(path.join(root, b.path)), 0o755);
  }
  const want = Object.keys(nodeOS).length * Object.keys(nodeCPU).length;
  if (binaries.length !== want) {
    throw new Error(`${dist}/artifacts.json lists ${binaries.length} tmux-mcp binaries, want ${want}`);
  }

  const listed = Object.keys(manifest.optionalDependencies).sort().join(' ');
  if (listed !== Object.keys(optional).sort().join(' ')) {
    throw new Error(`package.json depends on ${listed}; the binaries make ${Object.keys(optional).sort().join(' ')}`);
  }
  const dir = path.join(out, 'tmux-mcp');
  write(path.join(dir, 'package.json'), JSON.stringify({
    ...manifest,
    version,
    optionalDependencies: Object.fromEntries(Object.keys(optional).sort().map((n) => [n, version])),
  }, null, 2) + '\n');
  write(path.join(dir, 'bin', 'tmux-mcp.js'), fs.readFileSync(path.join(here, 'tmux-mcp.js')), 0o755);
  write(path.join(dir, 'README.md'), fs.readFileSync(path.join(here, 'README.md')));
  write(path.join(dir, 'LICENSE'), license);

  for (const d of fs.readdirSync(out).sort()) {
    const p = readJSON(path.join(out, d, 'package.json'));
    console.log(`npm: ${path.join(out, d)}  ${p.name}@${p.version}`);
  }
}

try {
  build(args(process.argv.slice(2)));
} catch (err) {
  console.error(`make npm: ${err.message}`);
  process.exit(1);
}
