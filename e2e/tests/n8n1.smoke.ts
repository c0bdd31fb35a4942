/**
 * `npm run test:n8n1`: the n8n 1.x smoke test, apart from `npm run test:e2e` (n8n 2.x) and `npm run test:all`.
 * The published package (staged and packed as for npm) installed into a real n8n 1.x (e2e/lib/n8n1Host.ts: pinned
 * in e2e/n8n1, run by Node 22 from the npm registry, or by $N8N1_NODE): both nodes and the credential load with no error in n8n's log, and a workflow
 * started by a production webhook makes one read (Account → Get Balance) and one write (Subscriber → Create or
 * Update) against the sandbox, whose own API then shows the result.
 * The install (about 2 GB) is cached like the e2e's: ~/.cache/messenger-bot-builder-n8n/<hash>.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { installN8n } from '../install-n8n.ts';
import { credentialType, installTarball, packageName, packPackage } from '../lib/communityPackage.ts';
import { assertPackageLoaded } from '../lib/environment.ts';
import { assertSucceeded, nodeOutput, waitForExecutions } from '../lib/executions.ts';
import { callProductionWebhook, createApiKey, PublicApi, setupOwner } from '../lib/n8nApi.ts';
import { N8nStack } from '../lib/n8nStack.ts';
import { N8N1_NODE_MAJOR, n8n1Host, n8n1Version } from '../lib/n8n1Host.ts';
import { outDir, repoRoot } from '../lib/paths.ts';
import { SandboxClient, startSandbox, type RunningSandbox } from '../lib/sandbox.ts';
import { waitFor } from '../lib/waitFor.ts';
import { smokeNodes, smokeWorkflow } from '../lib/workflows.ts';

const host = n8n1Host();

let sandbox: RunningSandbox | undefined;
let n8n: N8nStack | undefined;
let api: PublicApi;
let sessionCookie: string;

function mustRun(command: string, args: string[]): void {
	const result = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit' });
	if (result.status !== 0)
		throw new Error(`\`${command} ${args.join(' ')}\` failed (exit ${result.status ?? result.signal})`);
}

/** Log lines that say something went wrong: n8n logs a node or credential it could not load at error or warn level. */
function troubleLines(log: string): string[] {
	return log.split('\n').filter((line) => /\b(error|warn(ing)?|failed|cannot|could not)\b/i.test(line));
}

before(
	async () => {
		const started = Date.now();
		installN8n({ host });
		mustRun('npm', ['run', 'build', '--silent']);
		const dir = path.join(outDir, 'n8n1');
		rmSync(dir, { recursive: true, force: true });
		mkdirSync(dir, { recursive: true });
		installTarball(dir, packPackage(path.join(outDir, 'pack-n8n1')));
		sandbox = await startSandbox();
		// n8n 1.x has no mcp-registry module and refuses to start when asked to disable one it does not know.
		n8n = await N8nStack.start({ dir, mode: 'regular', host, env: { N8N_DISABLED_MODULES: '' } });
		// n8n 1.x answers its readiness check before its database migrations end; its REST API comes after them.
		const baseUrl = n8n.baseUrl;
		await waitFor(async () => ((await fetch(`${baseUrl}/rest/settings`)).ok ? true : undefined), {
			what: `${baseUrl}/rest/settings`,
			timeoutMs: 120_000,
			intervalMs: 500,
		});
		sessionCookie = await setupOwner(n8n.baseUrl);
		api = new PublicApi(n8n.baseUrl, await createApiKey(n8n.baseUrl, sessionCookie));
		console.log(
			`n8n1: n8n ${n8n1Version} on ${host.nodeBinary} ready in ${Math.round((Date.now() - started) / 1000)} s`,
		);
	},
	{ timeout: 20 * 60_000 },
);

after(async () => {
	await n8n?.stop();
	await sandbox?.close();
});

test(`n8n ${n8n1Version} runs on Node ${N8N1_NODE_MAJOR} (or $N8N1_NODE)`, async () => {
	const response = await fetch(`${n8n!.baseUrl}/rest/settings`, {
		headers: { cookie: sessionCookie, 'browser-id': 'e2e-harness' },
	});
	const settings = (await response.json()) as { data: { versionCli: string } };
	assert.equal(settings.data.versionCli, n8n1Version);
	if (!process.env.N8N1_NODE) {
		const version = spawnSync(host.nodeBinary, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
		assert.equal(Number(version.split('.')[0]), N8N1_NODE_MAJOR);
	}
});

test('both nodes and the credential load, and n8n logs no trouble', async () => {
	await assertPackageLoaded(n8n!, sessionCookie);
	const response = await fetch(`${n8n!.baseUrl}/types/credentials.json`, { headers: { cookie: sessionCookie } });
	assert.equal(response.status, 200);
	const credentials = (await response.json()) as Array<{ name: string }>;
	assert.ok(
		credentials.some((credential) => credential.name === credentialType),
		`n8n did not load the credential ${credentialType}`,
	);
	const log = readFileSync(n8n!.main.log.logFile, 'utf8');
	assert.ok(log.length > 0, 'n8n wrote a log');
	assert.deepEqual(troubleLines(log), [], `n8n ${n8n1Version} logged trouble while loading ${packageName}`);
});

test(
	'a workflow reads (Account → Get Balance) and writes (Subscriber → Create or Update) against the sandbox',
	{ timeout: 120_000 },
	async () => {
		const run = randomBytes(3).toString('hex');
		const input = { botId: 'bot_tg', clientId: `n8n1-${run}`, name: `n8n 1.x smoke ${run}` };
		const service = new SandboxClient(sandbox!.url, sandbox!.adminKey);
		const { balance } = await service.api<{ balance: number }>('/account/balance/get');
		assert.equal(typeof balance, 'number');

		// n8n 1.x adds "Allowed HTTP Request Domains" to every credential with an `authenticate` block, and its public
		// API then insists on that field (the editor fills in its default, All).
		const credential = await api.createCredential('Messenger Bot Builder (sandbox)', credentialType, {
			apiKey: sandbox!.adminKey,
			baseUrl: sandbox!.baseUrl,
			allowedHttpRequestDomains: 'all',
		});
		const workflow = await api.createWorkflow(
			smokeWorkflow({ credentialId: credential.id, webhookPath: `n8n1-smoke-${run}` }),
		);
		await api.activateWorkflow(workflow.id);
		const started = await callProductionWebhook(n8n!.baseUrl, `n8n1-smoke-${run}`, input);
		assert.equal(started.status, 200, `the production webhook answered ${started.status}: ${await started.text()}`);
		const [execution] = await waitForExecutions(api, workflow.id, 1, 60_000);
		assertSucceeded(execution);

		// What n8n saw: the read returns the service's balance, the write created the subscriber.
		assert.deepEqual(nodeOutput(execution, smokeNodes.read), [{ balance }]);
		const written = nodeOutput(execution, smokeNodes.write);
		assert.equal(written.length, 1);
		assert.equal(written[0].created, true);

		// What the service holds.
		const { subscriber } = await service.api<{ subscriber: { clientid: string; name: string } }>('/subscriber/get', {
			botid: input.botId,
			clientid: input.clientId,
		});
		assert.equal(subscriber.clientid, input.clientId);
		assert.equal(subscriber.name, input.name);
	},
);
