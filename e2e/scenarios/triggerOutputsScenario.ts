/**
 * Scenario 6: the example workflow examples/trigger-events.json, published as a user would import it.
 * Its trigger has One Output per Event Kind; a new subscriber, a stage change and a payment in the
 * sandbox each start one execution in which only that kind's branch runs, and the sandbox then holds
 * what the branch did: the welcome message, the stage tag, the thank-you message. Twice, with two subscribers:
 * the example runs again and again.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { E2eEnvironment } from '../lib/environment.ts';
import { loadExamples } from '../lib/examples.ts';
import { assertSucceeded, waitForExecutions } from '../lib/executions.ts';
import type { Execution } from '../lib/n8nApi.ts';
import { waitFor } from '../lib/waitFor.ts';

const BRANCHES = ['Welcome the new subscriber', 'Tag with the new stage', 'Thank for the payment'];

function branchesRun(execution: Execution): string[] {
	return BRANCHES.filter((name) => execution.data?.resultData.runData[name]?.length);
}

export async function runTriggerOutputsScenario(env: E2eEnvironment): Promise<Execution[]> {
	const example = loadExamples({ id: env.credentialId, name: 'Messenger Bot Builder (sandbox)' }).find(
		({ file }) => file === 'trigger-events.json',
	);
	assert.ok(example, 'examples/trigger-events.json exists');
	const workflow = await env.api.createWorkflow(example.workflow);
	await env.api.publishWorkflow(workflow.id);
	const trigger = example.workflow.nodes.find((node) => String(node.type).endsWith('.messengerBotBuilderTrigger'));
	const hookUrl = `${env.n8n.baseUrl}/webhook/${String(trigger?.webhookId)}/webhook`;
	await waitFor(
		async () => {
			const { items } = await env.service.api<{ items: Array<{ url: string }> }>('/hook/list', { limit: 1000 });
			return items.some((hook) => hook.url === hookUrl) ? true : undefined;
		},
		{ what: `the hook for ${hookUrl} that publishing creates`, timeoutMs: 20_000, intervalMs: 500 },
	);

	// Two rounds, each with a subscriber of its own: the example runs again and again.
	const rounds = [1, 2].map(() => `e2e-outputs-${randomBytes(3).toString('hex')}`);
	const causesOf = (clientid: string) => [
		() => env.service.api('/subscriber/create', { botid: 'bot_tg', clientid, name: 'Outputs Tester' }),
		() => env.service.api('/crm/stage/set', { botid: 'bot_tg', clientid, stage: 'Qualified' }),
		() =>
			env.service.sandboxRoute('/payments', {
				botid: 'bot_tg',
				clientid,
				messenger: 'telegram',
				amount: 12,
				currency: 'EUR',
			}),
	];
	let executions: Execution[] = [];
	try {
		for (const [round, clientid] of rounds.entries()) {
			for (const [index, cause] of causesOf(clientid).entries()) {
				const position = round * BRANCHES.length + index;
				await cause();
				executions = await waitForExecutions(env.api, workflow.id, position + 1, 30_000);
				const latest = executions[position];
				assertSucceeded(latest);
				assert.deepEqual(
					branchesRun(latest),
					[BRANCHES[index]],
					`execution ${latest.id} (round ${round + 1}) ran only the branch of its event kind`,
				);
			}
		}
	} finally {
		await env.api.unpublishWorkflow(workflow.id);
	}
	assert.equal(executions.length, rounds.length * BRANCHES.length);
	for (const clientid of rounds) {
		const texts = (
			await env.service.api<{ items: Array<{ text: string }> }>('/subscriber/chat/get', { botid: 'bot_tg', clientid })
		).items.map((message) => message.text);
		assert.ok(
			texts.includes('Welcome, Outputs Tester! Reply to this message any time.'),
			`${clientid}: the welcome was sent: ${JSON.stringify(texts)}`,
		);
		assert.ok(
			texts.includes('Thank you! We received your payment of 12 EUR.'),
			`${clientid}: the thanks were sent: ${JSON.stringify(texts)}`,
		);
		const { tags } = await env.service.api<{ tags: string[] }>('/subscriber/tag/list', { botid: 'bot_tg', clientid });
		assert.ok(tags.includes('stage-qualified'), `${clientid}: the stage tag was added: ${JSON.stringify(tags)}`);
	}
	return executions;
}
