/**
 * `npm run dev`: the package in a real n8n, ready to click through.
 * Builds the package, starts the sandbox (demo data, kept between runs) and n8n 2.41.1 with the
 * package linked in, creates the owner, an API key and a credential pointing at the sandbox (and
 * points it at the sandbox again on every start, so changed ports are followed), imports the example
 * workflows, prints the editor URL and login, then rebuilds and restarts n8n whenever the package's
 * sources change. State lives in e2e/out/dev (`--reset` starts over: n8n, its workflows and the
 * sandbox's data). A second `dev` on the same data folder stops with one line saying how to run another; one with
 * its own `--dir` (and ports) runs beside the first on the first one's build, without rebuilding or watching.
 * Usage: node e2e/dev.ts [--reset] [--no-watch] [--no-build] [--dir <state folder>]
 * Ports: N8N_PORT (default 5678), SANDBOX_PORT (default 8787).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { credentialType, linkRepository } from './lib/communityPackage.ts';
import { loadExamples } from './lib/examples.ts';
import { createApiKey, defaultOwner, PublicApi, setupOwner, signIn } from './lib/n8nApi.ts';
import { alreadyRunningMessage, registerDevInstance, runningDevInstances } from './lib/devInstances.ts';
import { DevStateFile, ensureDevCredential, portsInUse, readPort } from './lib/devState.ts';
import { buildPackage, devStep } from './lib/devSteps.ts';
import { N8nStack } from './lib/n8nStack.ts';
import { watchNodes } from './lib/nodesWatcher.ts';
import { outDir, repoRoot } from './lib/paths.ts';
import { startSandbox } from './lib/sandbox.ts';
import { installN8n } from './install-n8n.ts';

const CREDENTIAL_NAME = 'Messenger Bot Builder (sandbox)';

const { values: flags } = parseArgs({
	options: {
		reset: { type: 'boolean' },
		'no-watch': { type: 'boolean' },
		'no-build': { type: 'boolean' },
		dir: { type: 'string' },
	},
});
const devDir = path.resolve(flags.dir ?? path.join(outDir, 'dev'));

/** A problem the user can fix: one line, no stack. */
function stop(message: string): never {
	console.error(`dev: ${message}`);
	process.exit(1);
}

// Ctrl+C may come at any moment, also while n8n is still starting: what has started is stopped once the
// step under way ends, and nothing dies half-way (a signal that killed this process would orphan n8n).
let stopRequested = false;
let started = false;
function requestStop(): void {
	if (started) void shutdown();
	else if (!stopRequested) {
		stopRequested = true;
		console.log('\ndev: stopping once the current start-up step ends…');
	}
}
process.on('SIGINT', requestStop);
process.on('SIGTERM', requestStop);

// Before anything else: a second dev on the same data folder would start a second n8n on the first one's database.
const othersInClone = runningDevInstances();
const sameFolder = othersInClone.find((instance) => instance.dir === devDir);
if (sameFolder) stop(alreadyRunningMessage(sameFolder));

const ports = [readPort('N8N_PORT', 5678, 'n8n'), readPort('SANDBOX_PORT', 8787, 'sandbox')].map((port) =>
	'error' in port ? stop(port.error) : port,
);
const [n8nPort, sandboxPort] = ports;
const busy = await portsInUse(ports);
if (busy) stop(busy);
registerDevInstance({ dir: devDir, n8nPort: n8nPort.port, sandboxPort: sandboxPort.port });
// Another dev in this clone runs n8n on dist/: rebuilding it (or watching and rebuilding on changes) would pull the
// files from under that n8n. This one uses the build as it is.
const besideAnother = othersInClone[0];
if (besideAnother) {
	console.log(
		`dev: npm run dev (pid ${besideAnother.pid}) also runs in this clone; this one uses its build of the package as it is (no rebuild, no watching)`,
	);
}
const watching = !flags['no-watch'] && !besideAnother;

if (flags.reset) rmSync(devDir, { recursive: true, force: true });
installN8n();
if (!flags['no-build'] && !besideAnother) buildPackage();

const stateFile = new DevStateFile(devDir);
const state = stateFile.state;
const sandbox = await devStep('starting the sandbox with its demo data', '2 s', () =>
	startSandbox({
		port: sandboxPort.port,
		adminKey: state.sandboxAdminKey,
		dataFile: path.join(devDir, 'sandbox.sqlite'),
		seed: true,
	}),
);
linkRepository(devDir);
const n8nOptions = { dir: devDir, mode: 'regular' as const, port: n8nPort.port, encryptionKey: state.encryptionKey };
const n8nStart = state.ownerCreated
	? { what: 'starting n8n with the package', usually: '15 s' }
	: { what: "starting n8n with the package (a first start also creates n8n's database)", usually: '30 s' };
let n8n = await devStep(n8nStart.what, n8nStart.usually, () => N8nStack.start(n8nOptions)).catch(async (error) => {
	await sandbox.close();
	throw error;
});

/** The owner and an API key (first run), the sandbox credential pointed at this sandbox, the examples not there yet. */
async function setUpN8n(baseUrl: string) {
	const session = state.ownerCreated ? await signIn(baseUrl) : await setupOwner(baseUrl);
	stateFile.update({ ownerCreated: true });
	const apiKey = state.apiKey ?? (await createApiKey(baseUrl, session));
	stateFile.update({ apiKey });
	const api = new PublicApi(baseUrl, apiKey);
	const credential = await ensureDevCredential(api, state.credentialId, {
		name: CREDENTIAL_NAME,
		type: credentialType,
		data: { apiKey: sandbox.adminKey, baseUrl: sandbox.baseUrl },
	});
	stateFile.update({ credentialId: credential.id });
	const existing = await api.workflowNames();
	const examples = loadExamples({ id: credential.id, name: CREDENTIAL_NAME });
	let imported = 0;
	for (const { workflow } of examples) {
		if (existing.has(workflow.name)) continue;
		await api.createWorkflow(workflow);
		imported += 1;
	}
	return { credential, examples, imported };
}
const { credential, examples, imported } = await devStep(
	'setting up n8n: the owner, an API key, the credential and the example workflows',
	'5 s',
	() => setUpN8n(n8n.baseUrl),
);

console.log(`
  n8n with n8n-nodes-messenger-bot-builder is ready

  Editor     ${n8n.baseUrl}
  Login      ${defaultOwner.email} / ${defaultOwner.password}
  Credential "${CREDENTIAL_NAME}" → ${sandbox.baseUrl} (${credential.created ? 'created' : 'updated'})
  Workflows  ${examples.length} examples (${imported} imported now)
  Sandbox    ${sandbox.baseUrl} (account key in ${path.relative(repoRoot, stateFile.file)})
  Console    ${new URL('/console/', sandbox.baseUrl).href} (the sandbox's console: subscribers, chats, payments, hooks)
  n8n log    ${path.relative(repoRoot, n8n.main.log.logFile)}
${!watching ? '' : '\n  Watching nodes/ and credentials/: a change rebuilds the package and restarts n8n.\n'}
  Ctrl+C stops everything.
`);

let stopping = false;
const watcher = !watching
	? undefined
	: watchNodes(
			async () => {
				if (stopping) return;
				await devStep('package rebuilt: restarting n8n with the new build', '15 s', async () => {
					await n8n.stop();
					n8n = await N8nStack.start(n8nOptions);
				});
				console.log(`dev: n8n is back at ${n8n.baseUrl} with the new build (reload the editor page)`);
			},
			(message) => console.error(`dev: ${message}`),
		);

async function shutdown(): Promise<void> {
	if (stopping) return;
	stopping = true;
	console.log('\ndev: stopping n8n and the sandbox…');
	watcher?.kill();
	await n8n.stop();
	await sandbox.close();
	process.exit(0);
}
started = true;
if (stopRequested) await shutdown();
