/**
 * Send and Wait for Response as n8n's human-review tool of the AI Agent (regular mode). n8n 2.41.1 turns
 * a community node with a `sendAndWait` operation into `…messengerBotBuilderHitlTool`: a tool that sits
 * between the agent and another tool, and asks a person (an Approval) before that tool runs.
 *
 * The workflow: webhook → AI Agent, whose chat model (n8n's OpenAI Chat Model) talks to a small
 * OpenAI-compatible server in this test that plays the model: it first calls the one tool it is given,
 * then, once the tool's result is in the conversation, answers "Sent.". The tool is the action node as a
 * tool (Message → Send to a customer), gated by the human-review tool (an Approval to a manager). The
 * test approves on the page, and checks that the gated tool ran only then (the customer's message) and
 * that the agent finished with the model's answer.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { credentialType, nodeTypes } from '../lib/communityPackage.ts';
import type { E2eEnvironment } from '../lib/environment.ts';
import { callProductionWebhook, type Execution } from '../lib/n8nApi.ts';
import { afterHumanMoment, tokenOfPage } from '../lib/answerPages.ts';
import { waitFor } from '../lib/waitFor.ts';

const BOT = 'bot_tg';

interface ChatRequest {
	messages: Array<{ role: string }>;
	tools?: Array<{
		function: { name: string; parameters?: { properties?: Record<string, unknown>; required?: string[] } };
	}>;
	stream?: boolean;
}

async function readBody(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

/** An OpenAI-compatible chat completions endpoint that calls the first tool once, then answers "Sent.". */
async function startModel(): Promise<{ url: string; requests: ChatRequest[]; close: () => Promise<void> }> {
	const requests: ChatRequest[] = [];
	const server: Server = createServer((request, response) => {
		void readBody(request).then((raw) => {
			if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
				response.writeHead(404).end();
				return;
			}
			const body = JSON.parse(raw) as ChatRequest;
			requests.push(body);
			const toolDone = body.messages.some((message) => message.role === 'tool');
			const tool = body.tools?.[0]?.function;
			const args = Object.fromEntries((tool?.parameters?.required ?? []).map((name) => [name, 'e2e']));
			const message =
				toolDone || !tool
					? { role: 'assistant', content: 'Sent.' }
					: {
							role: 'assistant',
							content: null,
							tool_calls: [
								{ id: 'call_e2e', type: 'function', function: { name: tool.name, arguments: JSON.stringify(args) } },
							],
						};
			const finish = 'tool_calls' in message ? 'tool_calls' : 'stop';
			const base = {
				id: `chatcmpl-${randomBytes(4).toString('hex')}`,
				created: Math.floor(Date.now() / 1000),
				model: 'gpt-e2e',
			};
			const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
			if (body.stream) {
				response.writeHead(200, { 'content-type': 'text/event-stream' });
				const delta =
					'tool_calls' in message
						? { role: 'assistant', tool_calls: message.tool_calls!.map((call, index) => ({ index, ...call })) }
						: { role: 'assistant', content: message.content };
				const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
					response.write(
						`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`,
					);
				chunk([{ index: 0, delta, finish_reason: null }]);
				chunk([{ index: 0, delta: {}, finish_reason: finish }]);
				chunk([], { usage });
				response.end('data: [DONE]\n\n');
				return;
			}
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify({
					...base,
					object: 'chat.completion',
					choices: [{ index: 0, message, finish_reason: finish }],
					usage,
				}),
			);
		});
	});
	server.listen(0, '127.0.0.1');
	await new Promise((resolve) => server.once('listening', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

export async function runSendAndWaitAgentScenario(env: E2eEnvironment): Promise<Execution> {
	const model = await startModel();
	try {
		const openAi = await env.api.createCredential('E2E model', 'openAiApi', {
			apiKey: 'sk-e2e',
			url: model.url,
			header: false,
		});
		const manager = `e2e-manager-${randomBytes(4).toString('hex')}`;
		const customer = `e2e-customer-${randomBytes(4).toString('hex')}`;
		for (const clientid of [manager, customer]) {
			await env.service.api('/subscriber/create', { botid: BOT, clientid, messenger: 'telegram', name: 'E2E' });
		}
		const ourCredential = { [credentialType]: { id: env.credentialId, name: 'Messenger Bot Builder (sandbox)' } };
		const webhookPath = `e2e-agent-${randomBytes(4).toString('hex')}`;
		const question = 'The agent wants to message a customer. Allow it?';
		const workflow = await env.api.createWorkflow({
			name: `E2E agent human review ${webhookPath}`,
			nodes: [
				{
					id: randomUUID(),
					name: 'Start',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { path: webhookPath, httpMethod: 'POST', responseMode: 'onReceived' },
				},
				{
					id: randomUUID(),
					name: 'Agent',
					type: '@n8n/n8n-nodes-langchain.agent',
					typeVersion: 3.1,
					position: [220, 0],
					parameters: { promptType: 'define', text: 'Tell the customer that the refund is on its way.', options: {} },
				},
				{
					id: randomUUID(),
					name: 'Model',
					type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
					typeVersion: 1.3,
					position: [120, 220],
					parameters: { model: { __rl: true, mode: 'id', value: 'gpt-e2e' }, responsesApiEnabled: false, options: {} },
					credentials: { openAiApi: { id: openAi.id, name: 'E2E model' } },
				},
				{
					id: randomUUID(),
					name: 'Ask Manager',
					type: `${nodeTypes.action}HitlTool`,
					typeVersion: 1,
					position: [320, 220],
					parameters: {
						message: question,
						botId: { __rl: true, mode: 'id', value: BOT },
						clientId: { __rl: true, mode: 'id', value: manager },
					},
					credentials: ourCredential,
				},
				{
					id: randomUUID(),
					name: 'Message Customer',
					type: `${nodeTypes.action}Tool`,
					typeVersion: 1,
					position: [320, 440],
					parameters: {
						resource: 'message',
						operation: 'send',
						botId: { __rl: true, mode: 'id', value: BOT },
						clientId: { __rl: true, mode: 'id', value: customer },
						text: 'Your refund is on its way.',
					},
					credentials: ourCredential,
				},
			],
			connections: {
				Start: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
				Model: { ai_languageModel: [[{ node: 'Agent', type: 'ai_languageModel', index: 0 }]] },
				'Ask Manager': { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
				'Message Customer': { ai_tool: [[{ node: 'Ask Manager', type: 'ai_tool', index: 0 }]] },
			},
		});
		await env.api.publishWorkflow(workflow.id);
		const started = await callProductionWebhook(env.n8n.baseUrl, webhookPath, {});
		assert.equal(started.status, 200, `the production webhook answered ${started.status}`);

		const chatOf = async (clientid: string) =>
			(
				await env.service.api<{ items: Array<{ text: string; buttons: Array<{ name: string; url: string }> }> }>(
					'/subscriber/chat/get',
					{ botid: BOT, clientid },
				)
			).items;
		const asked = await waitFor(async () => (await chatOf(manager)).find((item) => item.text === question), {
			what: 'the manager to be asked by the human-review tool',
			timeoutMs: 60_000,
			intervalMs: 300,
		});
		assert.deepEqual(
			asked.buttons.map((button) => button.name),
			['Approve', 'Decline'],
		);
		assert.deepEqual(await chatOf(customer), [], 'the gated tool has not run before the approval');
		const executionId = new URL(asked.buttons[0].url).pathname.split('/')[2];
		// The question is in the chat before n8n records the execution as waiting: wait for that state.
		await waitFor(async () => ((await env.api.execution(executionId)).status === 'waiting' ? true : undefined), {
			what: `execution ${executionId} to wait for the manager`,
			timeoutMs: 60_000,
			intervalMs: 200,
		});

		// The manager approves on the page.
		const page = await (await fetch(asked.buttons[0].url)).text();
		const token = tokenOfPage(page);
		await afterHumanMoment(page);
		const confirmed = await fetch(asked.buttons[0].url, {
			method: 'POST',
			headers: {
				'content-type': 'application/x-www-form-urlencoded',
				origin: new URL(asked.buttons[0].url).origin,
				'sec-fetch-site': 'same-origin',
			},
			body: new URLSearchParams({ token }),
		});
		assert.equal(confirmed.status, 200, `the approval is received: ${await confirmed.text()}`);

		const run = await waitFor(
			async () => {
				const found = await env.api.execution(executionId, { includeData: true });
				return ['new', 'running', 'waiting'].includes(found.status) ? undefined : found;
			},
			{ what: `execution ${executionId} to finish`, timeoutMs: 60_000, intervalMs: 300 },
		);
		assert.equal(
			run.status,
			'success',
			`the agent's execution succeeded: ${JSON.stringify(run.data?.resultData.error)}`,
		);
		assert.deepEqual(
			(await chatOf(customer)).map((item) => item.text),
			['Your refund is on its way.'],
			'the gated tool ran once, after the approval',
		);
		const agentOutput = run.data?.resultData.runData.Agent?.at(-1)?.data?.main[0]?.[0]?.json;
		assert.equal(
			agentOutput?.output,
			'Sent.',
			`the agent finished with the model's answer: ${JSON.stringify(agentOutput)}`,
		);
		assert.ok(model.requests.length >= 2, 'the model was asked before and after the tool ran');
		await env.api.unpublishWorkflow(workflow.id);
		return run;
	} finally {
		await model.close();
	}
}
