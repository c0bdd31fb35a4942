/**
 * Everything one e2e test file needs: a sandbox, a real n8n (regular or queue mode, up to the production topology of
 * main, workers and webhook processes behind a balancer) with our packed package installed, an owner, an API key and a
 * credential that points at the sandbox.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import {
	communityNodesDir,
	installTarball,
	n8nApiCredentialType,
	nodeTypes,
	packPackage,
	credentialType,
} from './communityPackage.ts';
import { createApiKey, PublicApi, setupOwner } from './n8nApi.ts';
import { N8nStack, type ExecutionsMode, type N8nStackOptions } from './n8nStack.ts';
import { outDir } from './paths.ts';
import { SandboxClient, startSandbox, type RunningSandbox } from './sandbox.ts';

export interface E2eEnvironment {
	mode: ExecutionsMode;
	/** Screenshots and other artefacts of this environment. */
	outputDir: string;
	sandbox: RunningSandbox;
	/** The sandbox's API with the account key, for arranging and checking its state. */
	service: SandboxClient;
	n8n: N8nStack;
	api: PublicApi;
	sessionCookie: string;
	credentialId: string;
	close(): Promise<void>;
}

/** The tarball the runner packed once for all test files, or a fresh `npm pack` when run alone. */
function packageTarball(): string {
	return process.env.E2E_PACKAGE_TARBALL ?? packPackage(path.join(outDir, 'pack'));
}

/** n8n serves the descriptions of every loaded node type; ours must be among them. */
export async function assertPackageLoaded(n8n: N8nStack, sessionCookie: string): Promise<void> {
	const response = await fetch(`${n8n.baseUrl}/types/nodes.json`, { headers: { cookie: sessionCookie } });
	if (!response.ok) throw new Error(`GET /types/nodes.json: HTTP ${response.status}`);
	const loaded = new Set(((await response.json()) as Array<{ name: string }>).map((node) => node.name));
	const missing = Object.values(nodeTypes).filter((type) => !loaded.has(type));
	if (missing.length)
		throw new Error(`n8n did not load ${missing.join(', ')} from ${communityNodesDir(n8n.userFolder)}`);
}

/** What differs between the test files' stacks besides the mode. */
export interface E2eEnvironmentOptions extends Pick<
	N8nStackOptions,
	'database' | 'stallingDatabase' | 'workers' | 'webhookProcesses' | 'env'
> {
	/** Names the output folders `n8n-<name>` and `screenshots-<name>` (default: the mode). */
	name?: string;
}

export async function startE2eEnvironment(
	mode: ExecutionsMode,
	options: E2eEnvironmentOptions = {},
): Promise<E2eEnvironment> {
	const { name = mode, ...stackOptions } = options;
	const dir = path.join(outDir, `n8n-${name}`);
	const outputDir = path.join(outDir, `screenshots-${name}`);
	for (const stale of [dir, outputDir]) rmSync(stale, { recursive: true, force: true });
	installTarball(dir, packageTarball());
	// Short redelivery pauses: a delivery that n8n refused is retried within the test's patience.
	const sandbox = await startSandbox({ retrySchedule: [1, 2, 4] });
	let n8n: N8nStack | undefined;
	try {
		n8n = await N8nStack.start({ dir, mode, ...stackOptions });
		const sessionCookie = await setupOwner(n8n.baseUrl);
		await assertPackageLoaded(n8n, sessionCookie);
		const api = new PublicApi(n8n.baseUrl, await createApiKey(n8n.baseUrl, sessionCookie));
		const credential = await api.createCredential('Messenger Bot Builder (sandbox)', credentialType, {
			apiKey: sandbox.adminKey,
			baseUrl: sandbox.baseUrl,
		});
		const stack = n8n;
		return {
			mode,
			outputDir,
			sandbox,
			service: new SandboxClient(sandbox.url, sandbox.adminKey),
			n8n: stack,
			api,
			sessionCookie,
			credentialId: credential.id,
			close: async () => {
				await stack.stop();
				await sandbox.close();
			},
		};
	} catch (error) {
		const logs = n8n ? `\n${n8n.logReport()}` : '';
		await n8n?.stop();
		await sandbox.close();
		throw new Error(`${error.message}${logs}`, { cause: error });
	}
}

/**
 * A credential for the trigger's claim log: the owner's API key, and main's own address (workers and webhook
 * processes reach n8n's API there, not through the balancer), or `baseUrl`.
 */
export async function createClaimLogCredential(
	env: E2eEnvironment,
	label: string,
	baseUrl = env.n8n.mainUrl,
): Promise<{ id: string; name: string }> {
	const name = `n8n API (${label})`;
	const credential = await env.api.createCredential(name, n8nApiCredentialType, { apiKey: env.api.apiKey, baseUrl });
	return { id: credential.id, name };
}

/** Runs a scenario; when it fails, the error carries the last lines of every n8n process. */
export async function withN8nLogs(env: E2eEnvironment, scenario: () => Promise<void>): Promise<void> {
	try {
		await scenario();
	} catch (error) {
		// A new error, so the tail is printed whatever failed: the test reporter prints an
		// AssertionError's stack, which keeps the message it had when it was made.
		const message = error instanceof Error ? error.message : String(error);
		throw new Error(`${message}\n${env.n8n.logReport()}`, { cause: error });
	}
}
