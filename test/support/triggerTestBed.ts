import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../sandbox/src';
import { answerChecker, assertConforming } from '../../sandbox/test/answerChecker';
import { SandboxApi } from './sandboxApi';
import { TriggerHarness, type TriggerHarnessOptions } from './triggerHarness';
import { startWebhookServer, type WebhookServer } from './webhookServer';

export interface TriggerTestBed {
	sandbox: RunningSandbox;
	api: SandboxApi;
	/** The stand-in n8n webhook endpoint: hands each delivery to the current harness. */
	server: WebhookServer;
	/** A trigger whose credential points at this sandbox and whose webhooks live on this endpoint. */
	harness(options?: Partial<TriggerHarnessOptions>): TriggerHarness;
	close(): Promise<void>;
}

/** A sandbox that redelivers quickly, its API client, and a webhook endpoint serving `currentHarness()`. */
export async function startTriggerTestBed(
	currentHarness: () => TriggerHarness,
	sandboxOptions: SandboxOptions = {},
): Promise<TriggerTestBed> {
	const sandbox = await startSandbox({ port: 0, rateLimit: 0, retrySchedule: [0.2, 0.5], ...sandboxOptions });
	const violations = answerChecker().watch(sandbox);
	const server = await startWebhookServer(currentHarness);
	return {
		sandbox,
		api: new SandboxApi(sandbox.baseUrl, sandbox.adminKey),
		server,
		harness: (options = {}) =>
			new TriggerHarness({
				apiBaseUrl: sandbox.baseUrl,
				apiKey: sandbox.adminKey,
				webhookBaseUrl: server.webhookBaseUrl,
				webhookTestBaseUrl: server.webhookTestBaseUrl,
				...options,
			}),
		close: async () => {
			await sandbox.close();
			await server.close();
			assertConforming(violations);
		},
	};
}
