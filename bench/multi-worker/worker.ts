/**
 * One worker of the multi-worker benchmark: a process of its own (like an n8n queue-mode worker)
 * that runs the built node through n8n-core's engine. It waits for "go", sends its messages in one
 * execution (one item each, "On Error: Continue"), and reports every item's outcome.
 */
import { byId, NodeRunner } from '../../test/support/nodeRun';
import { messageText } from './messages';

interface Start {
	baseUrl: string;
	apiKey: string;
	worker: number;
	messages: number;
	clientId: string;
}

process.once('message', async (start: Start) => {
	const runner = new NodeRunner(start.baseUrl, start.apiKey);
	// Load n8n-core and the node before the race starts.
	await runner.harness.run(runner.workflow({ resource: 'account', operation: 'getBalance' }, { items: [] }));
	process.send!({ ready: true });
	process.once('message', async () => {
		const items = Array.from({ length: start.messages }, (_, item) => ({ text: messageText(start.worker, item) }));
		const output = await runner.items(
			{
				resource: 'message',
				operation: 'send',
				botId: byId('bot_tg'),
				clientId: start.clientId,
				text: '={{ $json.text }}',
			},
			{ items, continueOnFail: true },
		);
		const failed = output.filter((item) => item.json.error !== undefined).map((item) => String(item.json.error));
		process.send!({ done: true, worker: start.worker, items: output.length, failed }, () => process.exit(0));
	});
});
