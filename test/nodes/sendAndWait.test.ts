import '../harness/env';
import { createHmac } from 'node:crypto';
import { Container } from '@n8n/di';
import { InstanceSettings } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';
import { byId, NODE_NAME } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

const BOT = byId('bot_tg');
const V2 = { typeVersion: 2 };

interface Button {
	name: string;
	url: string;
}

/**
 * The send half of Message → Send and Wait for Response, run by n8n-core's engine: the message and its
 * signed answer links, the waiting execution, the time limit, and the refusals. The resume half
 * (taps, altered links, second taps, the time limit ending the wait) needs n8n's server: the e2e
 * scenario e2e/scenarios/sendAndWaitScenario.ts covers it in a real n8n.
 */
describe('Message → Send and Wait for Response (send half, n8n-core engine)', () => {
	let bed: NodeTestBed;
	let clientCounter = 0;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	async function newSubscriber(): Promise<string> {
		const clientid = `ask-${++clientCounter}`;
		await bed.api.call('/subscriber/create', { botid: 'bot_tg', clientid });
		return clientid;
	}

	async function chat(clientid: string): Promise<Array<{ text: string; buttons: Button[] }>> {
		return (await bed.api.call('/subscriber/chat/get', { botid: 'bot_tg', clientid })).items;
	}

	/** What n8n's waiting-webhook handler checks: HMAC-SHA256 of path + query without the signature, with the instance secret. */
	function signatureIsValid(url: string): boolean {
		const parsed = new URL(url);
		const signature = parsed.searchParams.get('signature');
		parsed.searchParams.delete('signature');
		const expected = createHmac('sha256', Container.get(InstanceSettings).hmacSignatureSecret)
			.update(`${parsed.pathname}${parsed.search}`)
			.digest('hex');
		return signature === expected;
	}

	const ask = (clientId: string, extra: IDataObject = {}) => ({
		resource: 'message',
		operation: 'sendAndWait',
		botId: BOT,
		clientId,
		message: 'Approve the refund?',
		...extra,
	});

	it('sends the question with Approve and Decline links that carry the answer inside the signature, and waits', async () => {
		const clientId = await newSubscriber();
		const before = Date.now();
		const result = await bed.node.execute(ask(clientId), V2);
		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('waiting');
		// No time limit: n8n's "wait indefinitely" date (year 3000).
		expect(result.run.waitTill?.getUTCFullYear()).toBe(3000);

		const [message] = await chat(clientId);
		expect(message.text).toBe('Approve the refund?');
		expect(message.buttons.map((button) => button.name)).toEqual(['Approve', 'Decline']);
		const [approve, decline] = message.buttons.map((button) => new URL(button.url));
		expect(approve.pathname).toMatch(/^\/webhook-waiting\/[0-9a-f-]{36}\/mbb$/);
		expect(Object.fromEntries(approve.searchParams)).toEqual({ answer: 'Approve', approved: 'true', signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
		expect(Object.fromEntries(decline.searchParams)).toEqual({ answer: 'Decline', approved: 'false', signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
		for (const button of message.buttons) expect(signatureIsValid(button.url)).toBe(true);
		// The signature covers the answer: the Approve link with another answer no longer verifies.
		const altered = new URL(message.buttons[0].url);
		altered.searchParams.set('approved', 'false');
		expect(signatureIsValid(altered.toString())).toBe(false);
		expect(result.run.startedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
	});

	it('own answers become one button each, in order; Approve Only has one button', async () => {
		const clientId = await newSubscriber();
		await bed.node.execute(
			ask(clientId, { responseType: 'choice', choices: { values: [{ label: 'Today' }, { label: 'Tomorrow & later' }, { label: 'Never' }] } }),
			V2,
		);
		const [message] = await chat(clientId);
		expect(message.buttons.map((button) => [button.name, new URL(button.url).searchParams.get('answer'), new URL(button.url).searchParams.has('approved')])).toEqual([
			['Today', 'Today', false],
			['Tomorrow & later', 'Tomorrow & later', false],
			['Never', 'Never', false],
		]);

		const single = await newSubscriber();
		await bed.node.execute(ask(single, { approvalOptions: { values: { approvalType: 'single', approveLabel: 'Yes, go' } } }), V2);
		expect((await chat(single))[0].buttons.map((button) => button.name)).toEqual(['Yes, go']);
	});

	it('a time limit sets when the wait ends', async () => {
		const clientId = await newSubscriber();
		const before = Date.now();
		const result = await bed.node.execute(
			ask(clientId, { options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } } }),
			V2,
		);
		const waitTill = result.run.waitTill!.getTime();
		expect(waitTill).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
		expect(waitTill).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);

		const at = new Date(Date.now() + 86_400_000).toISOString();
		const untilDate = await bed.node.execute(
			ask(await newSubscriber(), { options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: at } } } }),
			V2,
		);
		expect(untilDate.run.waitTill?.toISOString()).toBe(at);
	});

	it('refuses what it cannot do honestly, before sending anything', async () => {
		const clientId = await newSubscriber();
		const twoItems = await bed.node.failure(ask(clientId), { ...V2, items: [{}, {}] });
		expect(twoItems.message).toBe('Send and Wait for Response waits for one answer, but got 2 items');
		const past = await bed.node.failure(
			ask(clientId, { options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00.000Z' } } } }),
			V2,
		);
		expect(past.message).toContain('is in the past');
		const sameTexts = await bed.node.failure(ask(clientId, { responseType: 'choice', choices: { values: [{ label: 'A' }, { label: 'A' }] } }), V2);
		expect(sameTexts.message).toBe('Two answers in "Answers" have the same text');
		const noAnswers = await bed.node.failure(ask(clientId, { responseType: 'choice', choices: {} }), V2);
		expect(noAnswers.message).toBe('Every answer in "Answers" needs a text');
		const noQuestion = await bed.node.failure(ask(clientId, { message: '={{ $json.missing }}' }), V2);
		expect(noQuestion.message).toBe('The field "Message" is empty');
		expect(await chat(clientId)).toEqual([]);
	});

	it('a failed send does not wait: with On Error: Continue it puts out the error', async () => {
		const result = await bed.node.execute(ask('no-such-subscriber'), { ...V2, continueOnFail: true });
		expect(result.run.status).not.toBe('waiting');
		expect(result.run.waitTill).toBeUndefined();
		const [item] = result.output(NODE_NAME);
		expect(item.json).toEqual({ error: expect.any(String), details: expect.objectContaining({ status: 422 }) });
	});
});
