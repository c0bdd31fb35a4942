import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../sandbox/src';
import { answerChecker, assertConforming } from '../../sandbox/test/answerChecker';
import { NodeRunner } from './nodeRun';
import { SandboxApi } from './sandboxApi';

export interface NodeTestBed {
	node: NodeRunner;
	api: SandboxApi;
	baseUrl: string;
	/** The sandbox's own state, for checks the API cannot make (e.g. a broadcast's queue). */
	sandbox: RunningSandbox;
	close(): Promise<void>;
}

/**
 * A sandbox on a free port, seeded with demo data, and a node runner whose `main` credential is
 * the account key. Rate limiting stays on unless `rateLimit: 0` is given.
 */
export async function startTestBed(options: SandboxOptions = {}): Promise<NodeTestBed> {
	const sandbox = await startSandbox({ port: 0, ...options });
	// Every answer the nodes get is checked against the sandbox's OpenAPI document.
	const violations = answerChecker().watch(sandbox);
	return {
		node: new NodeRunner(sandbox.baseUrl, sandbox.adminKey),
		api: new SandboxApi(sandbox.baseUrl, sandbox.adminKey),
		baseUrl: sandbox.baseUrl,
		sandbox,
		close: async () => {
			await sandbox.close();
			assertConforming(violations);
		},
	};
}
