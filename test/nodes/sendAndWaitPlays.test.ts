import '../support/env';
import type { IDataObject } from 'n8n-workflow';
import type { Step } from '../../sandbox/src/answer/linkBrowser';
import { byId } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';
import { WaitingWebhookServer } from '../support/waitingWebhooks';

const BOT = 'bot_tg';

/**
 * The sandbox's POST /sandbox/answer against Send and Wait questions: the node runs in n8n-core's engine up to its
 * wait, the question's links lead to a server that serves the waiting execution's resume address as n8n does, and the
 * sandbox opens them over real HTTP as the subscriber, a link preview or a clicking scanner.
 */
describe('the sandbox answers a Send and Wait question as a subscriber, a preview or a scanner', () => {
	let bed: NodeTestBed;
	let server: WaitingWebhookServer;
	let counter = 0;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
		server = await new WaitingWebhookServer(bed.node).start();
		bed.node.harness.instanceUrl = server.origin;
	});
	afterAll(async () => {
		await server.close();
		await bed.close();
	});

	/** Asks a new subscriber; resolves once the execution waits. */
	async function ask(parameters: IDataObject = {}) {
		const clientid = `play-${++counter}`;
		await bed.api.call('/subscriber/create', { botid: BOT, clientid, messenger: 'telegram' });
		const result = await bed.node.execute({
			resource: 'message',
			operation: 'sendAndWait',
			botId: byId(BOT),
			clientId: clientid,
			message: 'Approve the refund?',
			...parameters,
		});
		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('waiting');
		const chat = await bed.api.call<{ items: Array<{ id: number; buttons: Array<{ name: string; url: string }> }> }>(
			'/subscriber/chat/get',
			{ botid: BOT, clientid },
		);
		const executionId = new URL(chat.items[0].buttons[0].url).pathname.split('/')[2];
		server.keep(executionId, result);
		return { clientid, executionId, message: chat.items[0] };
	}

	/** POST /sandbox/answer with the account key; the status and the JSON answer. */
	async function play(body: Record<string, unknown>) {
		const response = await fetch(`${bed.baseUrl.replace(/\/api$/, '')}/sandbox/answer`, {
			method: 'POST',
			headers: { authorization: bed.sandbox.adminKey, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		return { status: response.status, body: (await response.json()) as IDataObject & { steps: Step[] } };
	}

	const resumedWith = (executionId: string) => server.executions.get(executionId)?.resumedWith;
	const summary = (steps: Step[]) =>
		steps.map(
			(step) => `${step.action} ${step.method} ${step.status} ${step.control?.hidden ? 'hidden ' : ''}${step.heading}`,
		);

	it('Approval: opens the chosen button, waits for a person’s moment, confirms; the execution resumes with it', async () => {
		const { clientid, executionId, message } = await ask();
		const started = Date.now();
		const answered = await play({ botid: BOT, clientid, button: 'Decline' });
		expect(answered.status).toBe(200);
		expect(answered.body).toMatchObject({
			as: 'subscriber',
			message: message.id,
			buttons: [{ name: 'Decline', url: message.buttons[1].url }],
		});
		expect(summary(answered.body.steps)).toEqual(['open GET 200 Confirm your answer', 'press POST 200 Thank you']);
		expect(answered.body.steps[1].text[0]).toBe('Your answer “Decline” has been received.');
		// The press came after the page's own "not before" (1.5 s after it was shown).
		expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
		expect(resumedWith(executionId)?.[0].json.data).toMatchObject({
			answer: 'Decline',
			approved: false,
			timedOut: false,
			answeredThrough: 'answerLink',
		});
	});

	it('a press sooner than a person’s moment is asked again and resumes nothing; a later answer counts', async () => {
		const { clientid, executionId } = await ask();
		const early = await play({ botid: BOT, clientid, button: 'Approve', afterMs: 0 });
		expect(summary(early.body.steps)).toEqual([
			'open GET 200 Confirm your answer',
			'press POST 425 Confirm your answer',
		]);
		expect(early.body.steps[1].text[0]).toBe(
			'Please check your answer and confirm again: nothing has been recorded yet.',
		);
		expect(resumedWith(executionId)).toBeUndefined();
		const answered = await play({ botid: BOT, clientid, button: 'Approve' });
		expect(answered.body.steps.map((step) => step.status)).toEqual([200, 200]);
		expect(resumedWith(executionId)?.[0].json.data).toMatchObject({ answer: 'Approve', approved: true });
	});

	it('Free Text: the text typed on the page; Custom Form: values by label, a dropdown by its option’s text', async () => {
		const text = await ask({ responseType: 'freeText' });
		const form = await ask({
			responseType: 'customForm',
			formFields: {
				values: [
					{ fieldLabel: 'Name', fieldType: 'text', requiredField: true },
					{ fieldLabel: 'Boxes', fieldType: 'number' },
					{
						fieldLabel: 'Slot',
						fieldType: 'dropdown',
						fieldOptions: { values: [{ option: 'Morning' }, { option: 'Late  evening' }] },
					},
				],
			},
		});
		const [textAnswer, formAnswer] = await Promise.all([
			play({ botid: BOT, clientid: text.clientid, text: 'Ship it on Monday & <not> later' }),
			play({ botid: BOT, clientid: form.clientid, fields: { Name: 'Ann', Boxes: 3, Slot: 'Late  evening' } }),
		]);
		expect([textAnswer.status, formAnswer.status]).toEqual([200, 200]);
		expect(summary(textAnswer.body.steps)).toEqual(['open GET 200 Your answer', 'press POST 200 Thank you']);
		expect(summary(formAnswer.body.steps)).toEqual(['open GET 200 Your answer', 'press POST 200 Thank you']);
		expect(resumedWith(text.executionId)?.[0].json.data).toMatchObject({ answer: 'Ship it on Monday & <not> later' });
		expect(resumedWith(form.executionId)?.[0].json.data).toMatchObject({
			answer: { Name: 'Ann', Boxes: 3, Slot: 'Late  evening' },
		});
	});

	it('refuses what the page cannot take, naming the parameter, and opens nothing', async () => {
		const approval = await ask();
		const form = await ask({
			responseType: 'customForm',
			formFields: {
				values: [
					{ fieldLabel: 'Name', fieldType: 'text' },
					{ fieldLabel: 'Slot', fieldType: 'dropdown', fieldOptions: { values: [{ option: 'Morning' }] } },
				],
			},
		});
		const refusals = await Promise.all([
			play({ botid: BOT, clientid: approval.clientid }),
			play({ botid: BOT, clientid: approval.clientid, button: 'Maybe' }),
			play({ botid: BOT, clientid: approval.clientid, button: 'Approve', text: 'yes' }),
			play({ botid: BOT, clientid: form.clientid, fields: { Email: 'a@b.c' } }),
			play({ botid: BOT, clientid: form.clientid, fields: { Slot: 'Noon' } }),
			play({ botid: BOT, clientid: form.clientid, text: 'Ann' }),
			play({ botid: BOT, clientid: 'nobody' }),
			play({ botid: BOT, clientid: approval.clientid, as: 'robot' }),
		]);
		expect(refusals.map(({ status, body }) => [status, body.code, body.error])).toEqual([
			[
				422,
				'invalid_param',
				'Parameter "button" is required: message ' + approval.message.id + ' has 2 buttons ("Approve", "Decline")',
			],
			[
				422,
				'invalid_param',
				`Parameter "button" "Maybe" is not a button of message ${approval.message.id}: "Approve", "Decline"`,
			],
			[
				422,
				'invalid_param',
				'Parameter "text" is given, but the page has no text box: it is answered by pressing its button',
			],
			[
				422,
				'invalid_param',
				'Parameter "fields" names "Email", which the page does not ask for; it asks for "Name", "Slot"',
			],
			[422, 'invalid_param', 'Parameter "fields" gives "Noon" for "Slot", which is not one of its options: "Morning"'],
			[
				422,
				'invalid_param',
				'Parameter "text" is given, but the page asks for fields: give them as "fields" by label ("Name", "Slot")',
			],
			[422, 'not_found', 'Parameter "clientid": Subscriber bot_tg/nobody not found'],
			[422, 'invalid_param', expect.stringContaining('Parameter "as"')],
		]);
		expect(resumedWith(approval.executionId)).toBeUndefined();
		expect(resumedWith(form.executionId)).toBeUndefined();
	});

	it('a link preview fetches every button with GET and HEAD and resumes nothing', async () => {
		const { clientid, executionId, message } = await ask();
		const previewed = await play({ botid: BOT, clientid, as: 'preview' });
		expect(previewed.status).toBe(200);
		expect(
			previewed.body.steps.map(
				(step) => `${step.method} ${step.status} ${step.url === message.buttons[0].url ? 'Approve' : 'Decline'}`,
			),
		).toEqual([
			'GET 200 Approve',
			'HEAD 200 Approve',
			'GET 200 Approve',
			'HEAD 200 Approve',
			'GET 200 Decline',
			'HEAD 200 Decline',
			'GET 200 Decline',
			'HEAD 200 Decline',
		]);
		expect(resumedWith(executionId)).toBeUndefined();
	});

	it('a scanner that presses every control in order, past a person’s moment, records nothing on any response type', async () => {
		const questions = await Promise.all([
			ask(),
			ask({ responseType: 'choice', choices: { values: [{ label: 'Red' }, { label: 'Blue' }] } }),
			ask({ responseType: 'freeText' }),
			ask({
				responseType: 'customForm',
				formFields: { values: [{ fieldLabel: 'Note', fieldType: 'text' }] },
			}),
		]);
		const scans = await Promise.all(
			questions.map(({ clientid }) => play({ botid: BOT, clientid, as: 'scanner', pauseMs: 1_600 })),
		);
		const perButton = (heading: string) => [
			`open GET 200 ${heading}`,
			'press POST 403 hidden Not recorded: pressed by a program',
			`open GET 200 ${heading}`,
			'press POST 403 Not recorded: pressed by a program',
		];
		expect(scans.map(({ body }) => summary(body.steps))).toEqual([
			[...perButton('Confirm your answer'), ...perButton('Confirm your answer')],
			[...perButton('Confirm your answer'), ...perButton('Confirm your answer')],
			perButton('Your answer'),
			perButton('Your answer'),
		]);
		for (const { executionId } of questions) expect(resumedWith(executionId)).toBeUndefined();
	});

	it('a link that does not answer: 502 with the address and the cause', async () => {
		const clientid = `play-${++counter}`;
		await bed.api.call('/subscriber/create', { botid: BOT, clientid, messenger: 'telegram' });
		// A closed port: the server's own, once closed, is taken by nobody else in this test.
		const closed = await new WaitingWebhookServer(bed.node).start();
		const url = `${closed.origin}/webhook-waiting/1/mbb`;
		await closed.close();
		await bed.api.call('/message/send', { botid: BOT, clientid, text: 'Open me', buttons: [{ name: 'Open', url }] });
		const refused = await play({ botid: BOT, clientid });
		expect(refused).toEqual({
			status: 502,
			body: {
				code: 'link_unreachable',
				error: `The link ${url} could not be opened: ECONNREFUSED`,
				url,
				reason: 'ECONNREFUSED',
			},
		});
	});
});
