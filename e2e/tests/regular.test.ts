/** Our package inside a real n8n in regular mode: the action and trigger scenarios, then the editor in Chromium. */
import { after, before, test } from 'node:test';
import { startE2eEnvironment, withN8nLogs, type E2eEnvironment } from '../lib/environment.ts';
import { runActionScenario } from '../scenarios/actionScenario.ts';
import { runEditorScenario } from '../scenarios/editorScenario.ts';
import { runSendAndWaitScenario } from '../scenarios/sendAndWaitScenario.ts';
import { runSendAndWaitAgentScenario } from '../scenarios/sendAndWaitAgentScenario.ts';
import { runTriggerOutputsScenario } from '../scenarios/triggerOutputsScenario.ts';
import { runTriggerScenario, runV1aTriggerScenario } from '../scenarios/triggerScenario.ts';

let env: E2eEnvironment;

before(
	async () => {
		env = await startE2eEnvironment('regular');
	},
	{ timeout: 240_000 },
);

after(async () => {
	await env?.close();
});

test('action node: operations against the sandbox, bulk row add, Return All', { timeout: 180_000 }, async () => {
	await withN8nLogs(env, async () => {
		await runActionScenario(env);
	});
});

test(
	'trigger node: test event, hook on publish, one execution per event, forged and repeated deliveries start nothing, hook removed on unpublish',
	{ timeout: 120_000 },
	async () => {
		await withN8nLogs(env, async () => {
			await runTriggerScenario(env);
		});
	},
);

test(
	'trigger node with a service that signs with Standard Webhooks v1a (Ed25519) only: public key kept, delivery verified, one execution',
	{ timeout: 120_000 },
	async () => {
		await withN8nLogs(env, async () => {
			await runV1aTriggerScenario(env);
		});
	},
);

test(
	'editor in headless Chromium: node creator finds the nodes, the action node opens',
	{ timeout: 180_000 },
	async () => {
		await withN8nLogs(env, async () => {
			await runEditorScenario(env);
		});
	},
);

test(
	'send and wait: previews answer nothing, confirm page, loop replay refused, simultaneous taps, Free Text, Custom Form, time limit; screenshots of the pages',
	{ timeout: 300_000 },
	async () => {
		await withN8nLogs(env, async () => {
			// The pages' photographs for the docs only when asked (E2E_SCREENSHOTS=1): they add about a minute.
			await runSendAndWaitScenario(env, {
				browser: true,
				screenshotDir: process.env.E2E_SCREENSHOTS === '1' ? env.outputDir : undefined,
			});
		});
	},
);

test(
	"send and wait as the AI Agent's human-review tool: the gated tool runs only after the approval on the page",
	{ timeout: 180_000 },
	async () => {
		await withN8nLogs(env, async () => {
			await runSendAndWaitAgentScenario(env);
		});
	},
);

test(
	'trigger with one output per event kind: the example workflow runs only the branch of each event',
	{ timeout: 120_000 },
	async () => {
		await withN8nLogs(env, async () => {
			await runTriggerOutputsScenario(env);
		});
	},
);
