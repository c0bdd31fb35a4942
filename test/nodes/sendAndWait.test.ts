import '../support/env';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { IDataObject, IRunExecutionData } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';
import { chromiumPath, launchChromium } from '../../e2e/lib/browser';
import {
	claimAnswer,
	crossSiteReason,
	deadlineOf,
	tokenState,
} from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/binding';
import { SPENT_AFTER_PRESS_MS, spendPages } from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/decoy';
import {
	CONFIRM_AFTER_MS,
	PAGE_LIFETIME_MS,
	pageToken,
} from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/pageToken';
import {
	DEFAULT_MAX_ANSWER_LENGTH,
	checkForm,
	type FormField,
	type Question,
} from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/question';
import { byId, NODE_NAME } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';
import { OTHER_PROCESS_HEADER, signatureIsValid, WaitingWebhookServer, type Tap } from '../support/waitingWebhooks';

const BOT = 'bot_tg';
/** Where the harness says n8n's resume addresses live (see harnessAdditionalData). */
const LINK_ORIGIN = 'http://127.0.0.1:5678';

interface Button {
	name: string;
	url: string;
}

/**
 * Message → Send and Wait for Response in n8n-core's engine. The send half runs the node in a workflow
 * (WorkflowExecute) up to its wait; the answer half serves the waiting execution's resume address as n8n does
 * (WaitingWebhookServer). A request with `x-test-process: other` is handled by another n8n process (a second copy of
 * the node's modules, with claims of its own). The rest of n8n's server (the link's signature check, its wait tracker)
 * runs in the real-n8n e2e scenario e2e/scenarios/sendAndWaitScenario.ts.
 */
describe('Message → Send and Wait for Response (n8n-core engine)', () => {
	let bed: NodeTestBed;
	let server: WaitingWebhookServer;
	let clientCounter = 0;

	beforeAll(async () => {
		// Only the clock is n8n-independent here: a confirmation counts CONFIRM_AFTER_MS after its page was shown, and the
		// tests move the clock on by that much (a person's moment) instead of waiting for it. Timers stay real.
		jest.useFakeTimers({
			advanceTimers: true,
			doNotFake: [
				'nextTick',
				'setImmediate',
				'clearImmediate',
				'setInterval',
				'clearInterval',
				'setTimeout',
				'clearTimeout',
				'queueMicrotask',
				'hrtime',
				'performance',
			],
		});
		bed = await startTestBed({ rateLimit: 0 });
		server = await new WaitingWebhookServer(bed.node).start();
	});
	afterAll(async () => {
		await server.close();
		await bed.close();
		jest.useRealTimers();
	});

	/** The moment a person takes between seeing a page and confirming it. */
	const humanMoment = () => jest.setSystemTime(Date.now() + CONFIRM_AFTER_MS);

	async function newSubscriber(): Promise<string> {
		const clientid = `ask-${++clientCounter}`;
		await bed.api.call('/subscriber/create', { botid: BOT, clientid, messenger: 'telegram' });
		return clientid;
	}

	async function chat(clientid: string): Promise<Array<{ text: string; buttons: Button[] }>> {
		return (await bed.api.call('/subscriber/chat/get', { botid: BOT, clientid })).items;
	}

	const ask = (clientId: string, extra: IDataObject = {}) => ({
		resource: 'message',
		operation: 'sendAndWait',
		botId: byId(BOT),
		clientId,
		message: 'Approve the refund?',
		...extra,
	});

	/** Runs the node up to its wait; returns the buttons the subscriber got. */
	async function askAndWait(clientId: string, extra: IDataObject = {}) {
		const result = await bed.node.execute(ask(clientId, extra));
		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('waiting');
		const [message] = await chat(clientId);
		const executionId = new URL(message.buttons[0].url).pathname.split('/')[2];
		server.keep(executionId, result);
		return { result, message, executionId, buttons: message.buttons };
	}

	const tap = (url: string, init: RequestInit = {}): Promise<Tap> => server.tap(url, init);

	const TOKEN = /name="token" value="(\d+\.[0-9a-f]{64})"/;
	const tokenOf = (page: string) => TOKEN.exec(page)?.[1];
	const BROWSER = { origin: LINK_ORIGIN, 'sec-fetch-site': 'same-origin' };

	/** A confirmation as the page's form posts it from the link's own origin, a person's moment after the page was shown. */
	function post(
		url: string,
		fields: Record<string, string>,
		headers: Record<string, string> = BROWSER,
		moment = true,
	): Promise<Tap> {
		if (moment) humanMoment();
		return tap(url, {
			method: 'POST',
			body: new URLSearchParams(fields),
			headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
		});
	}

	/** A Custom Form confirmation, posted as its page does: multipart/form-data. */
	function postMultipart(url: string, fields: Record<string, string>, moment = true): Promise<Tap> {
		if (moment) humanMoment();
		const body = new FormData();
		for (const [key, value] of Object.entries(fields)) body.append(key, value);
		return tap(url, { method: 'POST', body, headers: BROWSER });
	}

	/** Asks a Custom Form of these fields and opens its page: the link, the page and its token. */
	async function openForm(values: IDataObject[]) {
		const { buttons } = await askAndWait(await newSubscriber(), { responseType: 'customForm', formFields: { values } });
		const page = (await tap(buttons[0].url)).body;
		return { url: buttons[0].url, page, token: tokenOf(page)! };
	}

	it('sends signed links that carry the question id and the answer, keeps the question with the execution, and waits', async () => {
		const clientId = await newSubscriber();
		const { result, buttons, executionId } = await askAndWait(clientId);
		// No time limit: n8n's "wait indefinitely" date (year 3000).
		expect(result.run.waitTill?.getUTCFullYear()).toBe(3000);
		expect(buttons.map((button) => button.name)).toEqual(['Approve', 'Decline']);
		const [approve, decline] = buttons.map((button) => new URL(button.url));
		expect(approve.pathname).toBe(`/webhook-waiting/${executionId}/mbb`);
		const questionId = approve.searchParams.get('q');
		expect(questionId).toMatch(/^[0-9a-f-]{36}$/);
		expect(Object.fromEntries(approve.searchParams)).toEqual({
			q: questionId,
			answer: 'Approve',
			approved: 'true',
			signature: expect.stringMatching(/^[0-9a-f]{64}$/),
		});
		expect(Object.fromEntries(decline.searchParams)).toEqual({
			q: questionId,
			answer: 'Decline',
			approved: 'false',
			signature: expect.stringMatching(/^[0-9a-f]{64}$/),
		});
		for (const button of buttons) expect(signatureIsValid(button.url)).toBe(true);
		const altered = new URL(buttons[0].url);
		altered.searchParams.set('q', randomUUID());
		expect(signatureIsValid(altered.toString())).toBe(false);
		const kept = JSON.parse(
			result.run.data.executionData!.contextData[`node:${NODE_NAME}`].messengerBotBuilderQuestion as string,
		);
		expect(kept).toMatchObject({
			id: questionId,
			origin: LINK_ORIGIN,
			until: null,
			subscriber: { botId: BOT, clientId, messenger: 'telegram' },
		});
	});

	it('GET and HEAD show the question and the answer with a confirm button and resume nothing; the page forbids framing and caching', async () => {
		const clientId = await newSubscriber();
		const { buttons } = await askAndWait(clientId);
		for (const userAgent of [
			'TelegramBot (like TwitterBot)',
			'Mozilla/5.0 (compatible; Microsoft Outlook SafeLinks)',
		]) {
			const page = await tap(buttons[0].url, { headers: { 'user-agent': userAgent } });
			expect(page.status).toBe(200);
			expect(page.resumedWith).toBeUndefined();
			expect(page.body).toContain('Approve the refund?');
			expect(page.body).toMatch(/<form method="post" data-not-before="\d+">/);
			expect(page.body).toContain('Confirm “Approve”');
			expect(tokenOf(page.body)).toMatch(/^\d+\.[0-9a-f]{64}$/);
			expect(page.headers.get('content-security-policy')).toBe(
				"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
			);
			expect(page.headers.get('x-frame-options')).toBe('DENY');
			expect(page.headers.get('cache-control')).toBe('no-store');
			expect(page.headers.get('referrer-policy')).toBe('same-origin');
			const head = await tap(buttons[1].url, { method: 'HEAD', headers: { 'user-agent': userAgent } });
			expect([head.status, head.body, head.resumedWith]).toEqual([200, '', undefined]);
		}
	});

	it('only a POST from the page resumes: without the page token, cross-site, from another origin or from a program that sends no browser headers it is refused; the output names the subscriber asked, the link and when', async () => {
		const clientId = await newSubscriber();
		const { buttons } = await askAndWait(clientId);
		const declineToken = tokenOf((await tap(buttons[1].url)).body)!;
		const approveToken = tokenOf((await tap(buttons[0].url)).body)!;
		expect(declineToken).not.toBe(approveToken);

		for (const refused of [
			await post(buttons[1].url, {}),
			await post(buttons[1].url, { token: approveToken }),
			await post(
				buttons[1].url,
				{ token: declineToken },
				{ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
			),
			await post(buttons[1].url, { token: declineToken }, { origin: 'https://evil.example' }),
			await post(buttons[1].url, { token: declineToken }, { origin: 'null' }),
			await post(buttons[1].url, { token: declineToken }, { 'sec-fetch-site': 'same-site' }),
			// Sent only for a navigation a person typed, never by a form's POST: a program copying the token.
			await post(buttons[1].url, { token: declineToken }, { 'sec-fetch-site': 'none' }),
			await post(buttons[1].url, { token: declineToken }, { 'sec-fetch-site': 'none', origin: LINK_ORIGIN }),
			// A link scanner that fetched the page and posts its form as a program does: no browser headers.
			await post(buttons[1].url, { token: declineToken }, {}),
		]) {
			expect([refused.status, refused.resumedWith]).toEqual([403, undefined]);
			expect(refused.body).toContain('did not come from the page of the question');
		}

		const before = Date.now();
		const received = await post(buttons[1].url, { token: declineToken });
		expect(received.status).toBe(200);
		expect(received.body).toContain('Your answer “Decline” has been received.');
		expect(received.resumedWith).toHaveLength(1);
		const { data } = received.resumedWith![0].json as { data: IDataObject };
		expect(data).toEqual({
			answer: 'Decline',
			approved: false,
			timedOut: false,
			respondedAt: expect.any(String),
			askedSubscriber: { botid: BOT, clientid: clientId, messenger: 'telegram' },
			answeredThrough: 'answerLink',
		});
		expect(Date.parse(String(data.respondedAt))).toBeGreaterThanOrEqual(before);
		expect(Date.parse(String(data.respondedAt))).toBeLessThanOrEqual(Date.now());

		const again = await post(buttons[0].url, { token: approveToken });
		expect([again.status, again.resumedWith]).toEqual([409, undefined]);
		expect(again.body).toContain('already been answered');
	});

	it('four simultaneous confirmations: exactly one is received, the others get 409; the same answer again is told it is being handled', async () => {
		const { buttons } = await askAndWait(await newSubscriber());
		const tokens = await Promise.all(buttons.map(async (button) => tokenOf((await tap(button.url)).body)!));
		const taps = await Promise.all([0, 1, 0, 1].map((index) => post(buttons[index].url, { token: tokens[index] })));
		expect(taps.map((result) => result.status).sort()).toEqual([200, 409, 409, 409]);
		expect(taps.filter((result) => result.resumedWith)).toHaveLength(1);
		const winner = taps.findIndex((result) => result.status === 200);
		const answers = ['Approve', 'Decline', 'Approve', 'Decline'];
		// The other tap of the winning answer (a double tap) is not told "not recorded"; the other answer is.
		const pages = taps.map((result, index) =>
			index === winner
				? 'received'
				: answers[index] === answers[winner]
					? result.body.includes(`The answer “${answers[winner]}” was already sent a moment ago and is being handled`)
					: result.body.includes('already been answered'),
		);
		expect(pages).toEqual(answers.map((_, index) => (index === winner ? 'received' : true)));
	});

	it('taps in two n8n processes at once: n8n resumes with one, received; the other gets "not recorded" (409, the page), not n8n\'s error, and its process takes an answer again', async () => {
		const browser = BROWSER;
		const info = jest.spyOn(Container.get(Logger), 'info');
		try {
			for (const [here, there] of [
				[0, 1],
				[0, 0],
			]) {
				const { buttons, executionId } = await askAndWait(await newSubscriber());
				const questionId = new URL(buttons[0].url).searchParams.get('q')!;
				const tokens = await Promise.all(buttons.map(async (button) => tokenOf((await tap(button.url)).body)!));
				const taps = await Promise.all([
					post(buttons[here].url, { token: tokens[here] }, browser),
					post(buttons[there].url, { token: tokens[there] }, { ...browser, [OTHER_PROCESS_HEADER]: 'other' }),
				]);
				expect(taps.map((result) => result.status).sort()).toEqual([200, 409]);
				const lost = taps.findIndex((result) => result.status === 409);
				const [received, notRecorded] = [taps[1 - lost], taps[lost]];
				expect(received.resumedWith).toHaveLength(1);
				expect(received.body).toContain('has been received');
				expect(notRecorded.resumedWith).toBeUndefined();
				expect(notRecorded.headers.get('content-type')).toBe('text/html; charset=utf-8');
				expect(notRecorded.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
				expect(notRecorded.body).toMatch(/^<!doctype html>/);
				expect(notRecorded.body).toContain(
					'Your answer was not recorded. Most likely the question was answered at the same moment',
				);
				expect(notRecorded.body).not.toContain('There was a problem executing the workflow');
				expect(info).toHaveBeenCalledWith(
					expect.stringContaining(`n8n did not resume execution ${executionId} with the answer confirmed on its link`),
				);
				// The losing process gave up its claim (n8n did not resume with it); the winning one keeps its own.
				const claims = [claimAnswer, server.otherProcess.claimAnswer].map((claim) =>
					claim(executionId, questionId, '"another"'),
				);
				expect(claims).toEqual(lost === 0 ? ['claimed', 'taken'] : ['taken', 'claimed']);
			}
		} finally {
			info.mockRestore();
		}
	});

	it('a waiting execution whose question cannot be read: the page says so, a warning is logged, nothing resumes', async () => {
		const { executionId, buttons } = await askAndWait(await newSubscriber());
		const stored = server.executions.get(executionId)!;
		const data = JSON.parse(stored.data) as IRunExecutionData;
		const kept = Object.values(data.executionData!.contextData as Record<string, IDataObject>).filter(
			(context) => 'messengerBotBuilderQuestion' in context,
		);
		expect(kept).toHaveLength(1);
		delete kept[0].messengerBotBuilderQuestion;
		stored.data = JSON.stringify(data);
		const warn = jest.spyOn(Container.get(Logger), 'warn');
		try {
			for (const refused of [await tap(buttons[0].url), await post(buttons[0].url, { token: 'f'.repeat(64) })]) {
				expect([refused.status, refused.resumedWith]).toEqual([410, undefined]);
				expect(refused.body).toContain('The question it belongs to could not be found.');
				expect(refused.body).not.toContain('replaced by a newer one');
			}
			const said = `Send and Wait for Response: a link of execution ${executionId} was opened, but the question it waits for could not be read (the wait may have begun under an older version of the node); nothing was recorded`;
			expect(warn.mock.calls).toEqual([[said], [said]]);
		} finally {
			warn.mockRestore();
		}
	});

	it('a link of another question (an earlier wait of the node, another execution, a made-up id) is refused and resumes nothing', async () => {
		const first = await askAndWait(await newSubscriber());
		const secondClient = await newSubscriber();
		const second = await askAndWait(secondClient);
		// The first question's link, presented where the second question waits: what a loop's replay is.
		const replay = new URL(first.buttons[0].url);
		replay.pathname = `/webhook-waiting/${second.executionId}/mbb`;
		const firstToken = tokenOf((await tap(first.buttons[0].url)).body)!;
		for (const refused of [await tap(replay.toString()), await post(replay.toString(), { token: firstToken })]) {
			expect([refused.status, refused.resumedWith]).toEqual([410, undefined]);
			expect(refused.body).toContain('replaced by a newer one');
		}
		const madeUp = new URL(second.buttons[0].url);
		madeUp.searchParams.set('q', randomUUID());
		expect((await tap(madeUp.toString())).status).toBe(410);
		const noAnswer = new URL(second.buttons[0].url);
		noAnswer.searchParams.set('answer', 'Maybe');
		expect((await tap(noAnswer.toString())).status).toBe(400);
		// The second subscriber's own answer still counts.
		const token = tokenOf((await tap(second.buttons[0].url)).body)!;
		const received = await post(second.buttons[0].url, { token });
		expect((received.resumedWith![0].json.data as IDataObject).askedSubscriber).toEqual({
			botid: BOT,
			clientid: secondClient,
			messenger: 'telegram',
		});
	});

	it('after the deadline, GET and POST get "expired" and nothing resumes, also on a link with its deadline taken out', async () => {
		const { buttons, result } = await askAndWait(await newSubscriber(), {
			options: {
				limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0.01, resumeUnit: 'minutes' } },
			},
		});
		const until = Number(new URL(buttons[0].url).searchParams.get('until'));
		expect(until).toBe(result.run.waitTill!.getTime());
		expect(signatureIsValid(buttons[0].url)).toBe(true);
		const token = tokenOf((await tap(buttons[0].url)).body)!;
		expect(token).toBeDefined();
		while (Date.now() <= until) await new Promise((resolve) => setImmediate(resolve));
		// n8n versions that do not check a link's signature would serve a link whose `until` was removed.
		const untilRemoved = new URL(buttons[0].url);
		untilRemoved.searchParams.delete('until');
		for (const late of [
			await tap(buttons[0].url),
			await post(buttons[0].url, { token }),
			await tap(untilRemoved.toString()),
			await post(untilRemoved.toString(), { token }),
		]) {
			expect([late.status, late.resumedWith]).toEqual([410, undefined]);
			expect(late.body).toContain('This question has expired');
		}
		expect(deadlineOf({ until }, until)).toBe('open');
		expect(deadlineOf({ until }, until + 1)).toBe('expired');
		expect(deadlineOf({ until: null }, Number.MAX_SAFE_INTEGER)).toBe('open');
	});

	it('Free Text: one button opens a page with a text box; an empty answer is asked again; the text is the answer', async () => {
		const clientId = await newSubscriber();
		const { buttons } = await askAndWait(clientId, {
			responseType: 'freeText',
			respondLabel: 'Write back',
			message: 'What went wrong?',
		});
		expect(buttons.map((button) => button.name)).toEqual(['Write back']);
		expect(new URL(buttons[0].url).searchParams.has('answer')).toBe(false);
		const page = await tap(buttons[0].url);
		expect(page.body).toContain('<textarea');
		const token = tokenOf(page.body)!;
		const empty = await post(buttons[0].url, { token, text: '   ' });
		expect([empty.status, empty.resumedWith]).toEqual([422, undefined]);
		const received = await post(buttons[0].url, { token, text: '  The parcel was <b>late</b>  ' });
		expect(received.status).toBe(200);
		expect(received.body).toContain('The parcel was &#60;b&#62;late&#60;/b&#62;');
		expect((received.resumedWith![0].json.data as IDataObject).answer).toBe('The parcel was <b>late</b>');
	});

	it('Custom Form: text, number, dropdown and date fields, required ones enforced; values typed in the output', async () => {
		const formFields = {
			values: [
				{ fieldLabel: 'Name', fieldType: 'text', requiredField: true },
				{ fieldLabel: 'Boxes', fieldType: 'number' },
				{
					fieldLabel: 'Slot',
					fieldType: 'dropdown',
					requiredField: true,
					fieldOptions: { values: [{ option: 'Morning' }, { option: 'Evening' }] },
				},
				{ fieldLabel: 'Day', fieldType: 'date' },
			],
		};
		const { buttons } = await askAndWait(await newSubscriber(), { responseType: 'customForm', formFields });
		expect(buttons.map((button) => button.name)).toEqual(['Respond']);
		const page = await tap(buttons[0].url);
		expect(page.body).toContain('type="number"');
		expect(page.body).toContain('type="date"');
		expect(page.body).toContain('<option value="1">Evening</option>');
		expect(page.body).toContain('enctype="multipart/form-data"');
		const token = tokenOf(page.body)!;
		const wrong = await postMultipart(buttons[0].url, { token, f0: '', f1: 'many', f2: 'Night', f3: '2026-02-30' });
		expect([wrong.status, wrong.resumedWith]).toEqual([422, undefined]);
		for (const message of [
			'This field is required.',
			'Enter a number.',
			'Choose one of the options.',
			'Enter a date (YYYY-MM-DD).',
		]) {
			expect(wrong.body).toContain(message);
		}
		// An option posts its index; its text, or an index out of range, is not an option.
		for (const notAnOption of ['Evening', '2', '-1', '1.0', ' ']) {
			const refused = await postMultipart(buttons[0].url, { token, f0: 'Ana', f1: '', f2: notAnOption, f3: '' });
			expect([refused.status, refused.resumedWith]).toEqual([422, undefined]);
			expect(refused.body).toContain(
				notAnOption.trim() === '' ? 'This field is required.' : 'Choose one of the options.',
			);
		}
		const received = await postMultipart(buttons[0].url, { token, f0: 'Ana', f1: '3.5', f2: '1', f3: '' });
		expect(received.status).toBe(200);
		// The page says what was sent (it said “your form”).
		expect(received.body).toContain('Your answer “Name: Ana; Boxes: 3.5; Slot: Evening; Day: –” has been received.');
		expect((received.resumedWith![0].json.data as IDataObject).answer).toEqual({
			Name: 'Ana',
			Boxes: 3.5,
			Slot: 'Evening',
			Day: null,
		});
	});

	// `npm test` installs Debian's Chromium (scripts/ensure-chromium.sh); without root and outside CI it may be missing.
	const itWithChromium = existsSync(chromiumPath) || process.env.CI ? it : it.skip;

	itWithChromium(
		'Custom Form in Chromium: the option a person picks is the answer, with its inner spaces and tabs',
		async () => {
			const options = ['Morning', 'Late  evening', 'After\tdinner'];
			const formFields = {
				values: [
					{
						fieldLabel: 'Slot',
						fieldType: 'dropdown',
						requiredField: true,
						fieldOptions: { values: options.map((option) => ({ option })) },
					},
				],
			};
			const browser = await launchChromium();
			try {
				// One question per option: a question takes one answer.
				for (const [index, option] of options.entries()) {
					const { buttons } = await askAndWait(await newSubscriber(), { responseType: 'customForm', formFields });
					const { body } = await tap(buttons[0].url);
					const page = await browser.newPage();
					await page.setContent(body);
					// Index 0 of the list is its "Choose…" placeholder.
					await page.selectOption('select', { index: index + 1 });
					// What the browser would post: the form's own entries.
					const entries = (await page.evaluate(
						'[...new FormData(document.querySelector("form[data-not-before]")).entries()].map(([name, value]) => [name, String(value)])',
					)) as Array<[string, string]>;
					await page.close();
					const received = await postMultipart(buttons[0].url, Object.fromEntries(entries));
					expect([received.status, (received.resumedWith?.[0].json.data as IDataObject | undefined)?.answer]).toEqual([
						200,
						{ Slot: option },
					]);
				}
			} finally {
				await browser.close();
			}
			// Chromium starts and renders three pages: on a busy two-core machine that takes more than jest's 30 s.
		},
		120_000,
	);

	it('Ask for a Comment: the confirm page takes an optional comment, bounded like an answer; it is put out as comment (null when none)', async () => {
		const { buttons, result } = await askAndWait(await newSubscriber(), {
			responseType: 'choice',
			choices: { values: [{ label: 'Ship' }, { label: 'Request changes' }] },
			options: { comment: true, maxAnswerLength: 20 },
		});
		// The time-out output names the comment too (null), so a workflow reads one shape.
		expect(result.run.data.executionData!.nodeExecutionStack[0].data.main[0]![0].json).toMatchObject({
			data: { answer: null, comment: null, timedOut: true },
		});
		const page = await tap(buttons[1].url);
		expect(page.body).toContain(
			'<label for="answer-comment">Comment (optional)</label><textarea id="answer-comment" name="comment"></textarea><button type="submit">Confirm “Request changes”</button>',
		);
		const token = tokenOf(page.body)!;
		// 21 code points: refused and kept to shorten; 81 UTF-16 units (over four times 20): refused, not shown again.
		const long = await post(buttons[1].url, { token, comment: 'Add the tracking 1234' });
		expect([long.status, long.resumedWith]).toEqual([422, undefined]);
		expect(long.body).toContain(
			'name="comment">Add the tracking 1234</textarea><p class="error">This comment is 21 characters long; at most 20 are accepted. Shorten it and send it again.</p>',
		);
		const huge = await post(buttons[1].url, { token, comment: '<'.repeat(81) });
		expect([huge.status, huge.resumedWith]).toEqual([422, undefined]);
		expect(huge.body).toContain(
			'name="comment"></textarea><p class="error">This comment is far longer than the 20 characters accepted, so it is not shown again.',
		);
		expect(huge.body).not.toContain('&#60;&#60;');
		const received = await post(buttons[1].url, { token, comment: '  Add tracking <b>  ' });
		expect(received.status).toBe(200);
		expect(received.resumedWith![0].json.data).toEqual({
			answer: 'Request changes',
			comment: 'Add tracking <b>',
			timedOut: false,
			respondedAt: expect.any(String),
			askedSubscriber: expect.any(Object),
			answeredThrough: 'answerLink',
		});

		// An empty comment is no comment; an Approval takes one the same way.
		const approval = await askAndWait(await newSubscriber(), { options: { comment: true } });
		const approvalPage = await tap(approval.buttons[0].url);
		const approved = await post(approval.buttons[0].url, { token: tokenOf(approvalPage.body)!, comment: '   ' });
		expect(approved.resumedWith![0].json.data).toMatchObject({ answer: 'Approve', approved: true, comment: null });
		// Without the option the page has no comment box and the output no comment.
		const plain = await askAndWait(await newSubscriber());
		const plainPage = await tap(plain.buttons[0].url);
		expect(plainPage.body).not.toContain('answer-comment');
		const plainAnswer = await post(plain.buttons[0].url, { token: tokenOf(plainPage.body)!, comment: 'ignored' });
		expect(Object.keys(plainAnswer.resumedWith![0].json.data as IDataObject)).not.toContain('comment');
	});

	it('Ask several subscribers: each gets links of their own; the first answer through any decides; a page of one link confirms nothing on another', async () => {
		const [first, second, third] = [await newSubscriber(), await newSubscriber(), await newSubscriber()];
		const result = await bed.node.execute({
			...ask('', { askWhom: 'list', clientIds: `${first}, ${second},${first}\n${third}` }),
			clientId: undefined,
		});
		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('waiting');
		const spelled = (clientid: string) => ({ botid: BOT, clientid, messenger: 'telegram' });
		// Each subscriber once (the repeated id is asked once), in the order given.
		const asked = [first, second, third].map(spelled);
		expect(result.run.data.executionData!.nodeExecutionStack[0].data.main[0]![0].json).toEqual({
			data: {
				answer: null,
				timedOut: true,
				respondedAt: null,
				askedSubscribers: asked,
				answerLinkOf: null,
				answeredThrough: null,
			},
		});
		const chats = await Promise.all([first, second, third].map(chat));
		expect(chats.map((messages) => messages.length)).toEqual([1, 1, 1]);
		const links = chats.map(([message]) => message.buttons.map((button) => new URL(button.url)));
		const executionId = links[0][0].pathname.split('/')[2];
		server.keep(executionId, result);
		expect(
			links.map((buttons) => buttons.map((url) => [url.searchParams.get('answer'), url.searchParams.get('s')])),
		).toEqual([
			[
				['Approve', '0'],
				['Decline', '0'],
			],
			[
				['Approve', '1'],
				['Decline', '1'],
			],
			[
				['Approve', '2'],
				['Decline', '2'],
			],
		]);
		// The first subscriber's page token does not confirm on the second's link (nor would a link without its index).
		const firstPage = await tap(links[0][0].href);
		expect((await post(links[1][0].href, { token: tokenOf(firstPage.body)! })).status).toBe(403);
		const noIndex = new URL(links[1][0].href);
		noIndex.searchParams.delete('s');
		expect((await tap(noIndex.href)).status).toBe(400);
		// A scanner presses the hidden control on the first subscriber's page: the second's pages are not spent.
		const secondPage = await tap(links[1][1].href);
		expect((await post(links[0][0].href, { token: tokenOf(firstPage.body)!, checked: '1' })).status).toBe(403);
		const received = await post(links[1][1].href, { token: tokenOf(secondPage.body)! });
		expect(received.status).toBe(200);
		expect(received.resumedWith![0].json.data).toEqual({
			answer: 'Decline',
			approved: false,
			timedOut: false,
			respondedAt: expect.any(String),
			askedSubscribers: asked,
			answerLinkOf: spelled(second),
			answeredThrough: 'answerLink',
		});
	});

	it('Ask the subscribers with a tag; too many, none, or an empty list is refused before anything is sent', async () => {
		const tag = `approvers-${++clientCounter}`;
		const tagged = [await newSubscriber(), await newSubscriber()];
		for (const clientid of tagged) await bed.api.call('/subscriber/tag/add', { botid: BOT, clientid, tag });
		const result = await bed.node.execute({ ...ask('', { askWhom: 'tag', tag }), clientId: undefined });
		expect(result.run.status).toBe('waiting');
		const data = result.run.data.executionData!.nodeExecutionStack[0].data.main[0]![0].json.data as IDataObject;
		expect((data.askedSubscribers as IDataObject[]).map((subscriber) => subscriber.clientid).sort()).toEqual(
			[...tagged].sort(),
		);
		for (const clientid of tagged) expect(await chat(clientid)).toHaveLength(1);

		const untagged = await bed.node.failure({
			...ask('', { askWhom: 'tag', tag: `${tag}-nobody` }),
			clientId: undefined,
		});
		expect(untagged.message).toBe(`No active subscriber of bot ${BOT} has the tag "${tag}-nobody"`);
		const many = Array.from({ length: 51 }, (_, index) => `many-${index}`).join(',');
		const tooMany = await bed.node.failure({ ...ask('', { askWhom: 'list', clientIds: many }), clientId: undefined });
		expect(tooMany.message).toBe('The field "Client IDs" names 51 subscribers; one question goes to at most 50');
		const empty = await bed.node.failure({ ...ask('', { askWhom: 'list', clientIds: ' , ' }), clientId: undefined });
		expect(empty.message).toBe('The field "Client IDs" is empty');
	});

	it('Decide By other than the first answer: a rule it cannot keep is refused before anything is sent', async () => {
		const [first, second] = [await newSubscriber(), await newSubscriber()];
		const several = { askWhom: 'list', clientIds: `${first},${second}` };
		const tooMany = await bed.node.failure({
			...ask('', { ...several, decideBy: 'approvals', approvalsNeeded: 3 }),
			clientId: undefined,
		});
		expect(tooMany.message).toBe(
			'The field "Approvals Needed" must be a whole number from 1 to 2 (the subscribers asked), not 3',
		);
		const onChoice = await bed.node.failure({
			...ask('', {
				...several,
				decideBy: 'firstDecline',
				responseType: 'choice',
				choices: { values: [{ label: 'Red' }, { label: 'Blue' }] },
			}),
			clientId: undefined,
		});
		expect(onChoice.message).toBe('"Decide By" firstDecline counts approvals: it needs the Approval response type');
		// The answers are kept in an n8n data table: without the n8n API credential nothing is asked.
		const noStore = await bed.node.failure({ ...ask('', { ...several, decideBy: 'all' }), clientId: undefined });
		expect(noStore.message).toBe('Node does not have any credentials set for "messengerBotBuilderN8nApi"');
		expect(await chat(first)).toEqual([]);
		expect(await chat(second)).toEqual([]);
	});

	it('Remind and Escalate: steps it cannot keep are refused before anything is sent', async () => {
		const [first, second] = [await newSubscriber(), await newSubscriber()];
		const lateReminder = await bed.node.failure(
			ask(first, {
				options: {
					remind: { values: { amount: 30, unit: 'minutes', times: 3 } },
					limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' } },
				},
			}),
		);
		expect(lateReminder.message).toMatch(
			/^The reminder is due at \d{4}-\d\d-\d\dT[\d:.]+Z, after the time limit \d{4}-\d\d-\d\dT[\d:.]+Z$/,
		);
		const tooOften = await bed.node.failure(ask(first, { options: { remind: { values: { amount: 1, times: 11 } } } }));
		expect(tooOften.message).toBe('The "Times" of "Remind" must be a whole number from 1 to 10 (got 11)');
		const noOne = await bed.node.failure(
			ask(first, { options: { escalate: { values: { amount: 1, clientIds: ' ' } } } }),
		);
		expect(noOne.message).toBe('The "Client IDs" of "Escalate" are empty');
		const withRule = await bed.node.failure({
			...ask('', {
				askWhom: 'list',
				clientIds: `${first},${second}`,
				decideBy: 'all',
				options: { escalate: { values: { amount: 1, clientIds: 'someone' } } },
			}),
			clientId: undefined,
		});
		expect(withRule.message).toBe('Escalate needs "Decide By" First Answer');
		expect(await chat(first)).toEqual([]);
		expect(await chat(second)).toEqual([]);
	});

	it('On Time Out decides an Approval at the deadline: approved or declined, with timedOut: true', async () => {
		const limit = {
			limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' } },
		};
		const outputs: IDataObject[] = [];
		for (const [onTimeOut, extra] of [
			['approve', {}],
			['decline', {}],
			['decline', { approvalOptions: { values: { approvalType: 'single' } } }],
		] as const) {
			const { result } = await askAndWait(await newSubscriber(), { ...extra, options: { ...limit, onTimeOut } });
			const { answer, approved, timedOut } = result.run.data.executionData!.nodeExecutionStack[0].data.main[0]![0].json
				.data as IDataObject;
			outputs.push({ answer, approved, timedOut });
		}
		expect(outputs).toEqual([
			{ answer: 'Approve', approved: true, timedOut: true },
			{ answer: 'Decline', approved: false, timedOut: true },
			{ answer: null, approved: false, timedOut: true },
		]);
	});

	it('names the subscriber asked and that the answer came through the link (a bearer secret), not who answered; the time-out output too', async () => {
		const clientId = await newSubscriber();
		const { buttons, result } = await askAndWait(clientId);
		const asked = { botid: BOT, clientid: clientId, messenger: 'telegram' };
		expect(result.run.data.executionData!.nodeExecutionStack[0].data.main[0]![0].json).toEqual({
			data: { answer: null, timedOut: true, respondedAt: null, askedSubscriber: asked, answeredThrough: null },
		});
		const before = Date.now();
		const received = await post(buttons[1].url, { token: tokenOf((await tap(buttons[1].url)).body)! });
		const { data } = received.resumedWith![0].json as { data: IDataObject };
		expect(data).toEqual({
			answer: 'Decline',
			approved: false,
			timedOut: false,
			respondedAt: expect.any(String),
			askedSubscriber: asked,
			answeredThrough: 'answerLink',
		});
		expect(Date.parse(String(data.respondedAt))).toBeGreaterThanOrEqual(before);
	});

	it('cross-site rules and claims, one by one', () => {
		// A program that read the token off the page (a link scanner) sends neither header: it never answers.
		expect(crossSiteReason({}, LINK_ORIGIN)).toBe(
			'neither Sec-Fetch-Site nor Origin was sent: not a browser posting the page',
		);
		expect(crossSiteReason({ origin: LINK_ORIGIN }, LINK_ORIGIN)).toBeUndefined();
		expect(crossSiteReason({ 'sec-fetch-site': 'same-origin', origin: LINK_ORIGIN }, LINK_ORIGIN)).toBeUndefined();
		expect(crossSiteReason({ 'sec-fetch-site': 'none' }, LINK_ORIGIN)).toBe('Sec-Fetch-Site is none');
		// A same-origin form of a page that sends no referrer is posted with Origin: null; Sec-Fetch-Site decides.
		expect(crossSiteReason({ 'sec-fetch-site': 'same-origin', origin: 'null' }, LINK_ORIGIN)).toBeUndefined();
		expect(crossSiteReason({ 'sec-fetch-site': 'cross-site', origin: LINK_ORIGIN }, LINK_ORIGIN)).toBe(
			'Sec-Fetch-Site is cross-site',
		);
		expect(crossSiteReason({ 'sec-fetch-site': 'cross-site' }, LINK_ORIGIN)).toBe('Sec-Fetch-Site is cross-site');
		expect(crossSiteReason({ origin: 'null' }, LINK_ORIGIN)).toBe('Origin is null');
		const question = randomUUID();
		expect([
			claimAnswer('e1', question, 'Approve', 0),
			claimAnswer('e1', question, 'Decline', 1),
			claimAnswer('e1', question, 'Approve', 1),
			claimAnswer('e2', question, 'Decline', 1),
		]).toEqual(['claimed', 'taken', 'repeat', 'claimed']);
		// A claim lapses after half a minute (n8n could not resume the execution): the question can be answered again.
		expect([claimAnswer('e1', question, 'Decline', 30_000), claimAnswer('e1', question, 'Decline', 30_001)]).toEqual([
			'taken',
			'claimed',
		]);
	});

	it('Custom Form numbers: kept exactly or refused, never rounded; a field labelled like a prototype is a field', () => {
		const field = (label: string, type: FormField['type'], required = false): FormField => ({ label, type, required });
		const numberAnswer = (text: string) => {
			const check = checkForm([field('N', 'number')], { f0: text });
			return check.errors.get('N') ?? check.values.N;
		};
		const tooLong = 'This number has too many digits to be kept exactly: enter at most 15 significant digits.';
		const texts = ['3.5', '-12.340', '.5', '5.', '0.1', '1e21', '123456789012345', '9007199254740992', '0007', '-0'];
		expect(texts.map(numberAnswer)).toEqual([3.5, -12.34, 0.5, 5, 0.1, 1e21, 123456789012345, 9007199254740992, 7, -0]);
		// Seventeen and twenty digits (an account number) would come out changed: 12345678901234567000.
		expect(['12345678901234567890', '9007199254740993', '0.12345678901234567'].map(numberAnswer)).toEqual([
			tooLong,
			tooLong,
			tooLong,
		]);
		// What Number() reads but no number input writes.
		expect(['0x10', 'Infinity', '1e', '-', '.', '1_000', '1,5'].map(numberAnswer)).toEqual(
			Array(7).fill('Enter a number.'),
		);
		// Numbers a browser writes but JavaScript cannot hold: each message says what is wrong.
		const tooSmall =
			'This number is too close to zero to be kept exactly: enter 0 or a number of at least 1e-300 (in size).';
		const tooLarge = 'This number is too large: enter a number below 1e308 (in size).';
		expect(['1e-400', '-1e-400', '1.23456789e-320', '1e400', '-2e308'].map(numberAnswer)).toEqual([
			tooSmall,
			tooSmall,
			tooSmall,
			tooLarge,
			tooLarge,
		]);
		expect(['0e-400', '1e-300', '1.5e307'].map(numberAnswer)).toEqual([0, 1e-300, 1.5e307]);

		const proto = field('__proto__', 'text', true);
		const answered = checkForm([proto, field('Name', 'text')], { f0: 'kept', f1: 'Ana' });
		expect(Object.entries(answered.values)).toEqual([
			['__proto__', 'kept'],
			['Name', 'Ana'],
		]);
		expect(Object.getPrototypeOf(answered.values)).toBe(Object.prototype);
		const missing = checkForm([proto, field('constructor', 'text')], {});
		expect([...missing.errors]).toEqual([['__proto__', 'This field is required.']]);
		expect([...missing.entered]).toEqual([
			['__proto__', ''],
			['constructor', ''],
		]);
	});

	/** Names every JavaScript object inherits, and the three n8n's deepCopy leaves out of items (reservedCopyKeys). */
	const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'prototype'];
	const TYPED = ['one', 'two', 'three', 'four', 'five', 'six'];

	it("constructor, toString, valueOf, hasOwnProperty, __proto__ and prototype are Custom Form labels like any other, through the page, the 422 re-render and the fields list that survives n8n's deepCopy", async () => {
		const formFields = {
			values: PROTOTYPE_NAMES.map((fieldLabel) => ({ fieldLabel, fieldType: 'text', requiredField: true })),
		};
		const { buttons } = await askAndWait(await newSubscriber(), { responseType: 'customForm', formFields });
		const page = await tap(buttons[0].url);
		expect(page.status).toBe(200);
		PROTOTYPE_NAMES.forEach((name, index) => {
			expect(page.body).toContain(
				`<label for="field-${index}">${name} *</label><input id="field-${index}" type="text" name="f${index}" value="" required>`,
			);
		});
		const token = tokenOf(page.body)!;
		// The last one left empty: the page comes back with what was typed in the others and one error, under the empty one.
		const last = PROTOTYPE_NAMES.length - 1;
		const typedBeforeLast = Object.fromEntries(TYPED.slice(0, last).map((text, index) => [`f${index}`, text]));
		const again = await postMultipart(buttons[0].url, { token, ...typedBeforeLast, [`f${last}`]: '' });
		expect([again.status, again.resumedWith]).toEqual([422, undefined]);
		TYPED.slice(0, last).forEach((text, index) =>
			expect(again.body).toContain(`name="f${index}" value="${text}" required><label`),
		);
		expect(again.body.match(/This field is required\./g)).toHaveLength(1);
		expect(again.body).toContain(`name="f${last}" value="" required><p class="error">This field is required.</p>`);
		const received = await postMultipart(buttons[0].url, {
			token: tokenOf(again.body)!,
			...Object.fromEntries(TYPED.map((text, index) => [`f${index}`, text])),
		});
		expect(received.status).toBe(200);
		// The output after n8n's own copy of an item (n8n-workflow deepCopy, as between nodes): the list keeps every
		// label with its value in field order; the answer object keeps all but the three keys deepCopy leaves out.
		const copied = deepCopy(received.resumedWith![0].json).data as IDataObject;
		expect(copied.fields).toEqual([
			{ label: 'constructor', value: 'one' },
			{ label: 'toString', value: 'two' },
			{ label: 'valueOf', value: 'three' },
			{ label: 'hasOwnProperty', value: 'four' },
			{ label: '__proto__', value: 'five' },
			{ label: 'prototype', value: 'six' },
		]);
		expect(Object.entries(copied.answer as IDataObject)).toEqual([
			['toString', 'two'],
			['valueOf', 'three'],
			['hasOwnProperty', 'four'],
		]);
	});

	it('Max Answer Length: a longer Free Text or form field is refused with its text kept; the default is 10000 characters; an emoji of one code point counts as one', async () => {
		const { buttons } = await askAndWait(await newSubscriber(), {
			responseType: 'freeText',
			options: { maxAnswerLength: 5 },
		});
		const token = tokenOf((await tap(buttons[0].url)).body)!;
		const long = await post(buttons[0].url, { token, text: 'abc<de' });
		expect([long.status, long.resumedWith]).toEqual([422, undefined]);
		expect(long.body).toContain(
			'This answer is 6 characters long; at most 5 are accepted. Shorten it and send it again.',
		);
		expect(long.body).toContain('required>abc&#60;de</textarea>');
		const fits = await post(buttons[0].url, { token: tokenOf(long.body)!, text: '😀😀😀😀😀' });
		expect([fits.status, (fits.resumedWith![0].json.data as IDataObject).answer]).toEqual([200, '😀😀😀😀😀']);

		expect(DEFAULT_MAX_ANSWER_LENGTH).toBe(10_000);
		const form = await openForm([
			{ fieldLabel: 'Note', fieldType: 'text' },
			{ fieldLabel: 'Boxes', fieldType: 'number' },
		]);
		const formToken = form.token;
		const tooLong = await postMultipart(form.url, {
			token: formToken,
			f0: 'x'.repeat(10_001),
			f1: '1'.repeat(10_001),
		});
		expect([tooLong.status, tooLong.resumedWith]).toEqual([422, undefined]);
		expect(tooLong.body.match(/This answer is 10001 characters long; at most 10000 are accepted\./g)).toHaveLength(2);
		expect(tooLong.body).toContain(`name="f0" value="${'x'.repeat(10_001)}">`);
		const atLimit = await postMultipart(form.url, { token: formToken, f0: 'x'.repeat(10_000), f1: '2' });
		expect((atLimit.resumedWith![0].json.data as IDataObject).answer).toEqual({ Note: 'x'.repeat(10_000), Boxes: 2 });

		for (const maxAnswerLength of [0, 2.5, 'many']) {
			const refused = await bed.node.failure(
				ask(await newSubscriber(), { responseType: 'freeText', options: { maxAnswerLength } }),
			);
			expect(refused.message).toBe(
				`The "Max Answer Length" option must be a whole number of characters, at least 1 (got ${JSON.stringify(maxAnswerLength)})`,
			);
		}
	});

	it('a page echoes at most four times the limit: 15 MB of "<" or 4×limit+1 characters are refused without being shown again, on the 422, the 425 and the Custom Form page', async () => {
		const huge = '<'.repeat(15 * 1024 * 1024);
		const notShown = 'is far longer than the 10000 characters accepted, so it is not shown again.';
		/** A body as a browser would never send it, but a program can: `<` left unencoded, 15 MB. */
		const rawPost = (url: string, token: string, moment = true) => {
			if (moment) humanMoment();
			return tap(url, {
				method: 'POST',
				body: `token=${token}&text=${huge}`,
				headers: { 'content-type': 'application/x-www-form-urlencoded', ...BROWSER },
			});
		};
		const expectSmallRefusal = (page: Tap, status: number) => {
			expect([page.status, page.resumedWith]).toEqual([status, undefined]);
			expect(page.body.length).toBeLessThan(10_000);
			expect(page.body).not.toContain('<<');
			expect(page.body).not.toContain('&#60;&#60;');
			expect(page.body).toContain(notShown);
		};
		const { buttons } = await askAndWait(await newSubscriber(), { responseType: 'freeText' });
		const token = tokenOf((await tap(buttons[0].url)).body)!;
		const refused = await rawPost(buttons[0].url, token);
		expectSmallRefusal(refused, 422);
		expect(refused.body).toContain('required></textarea>');
		const early = await rawPost(buttons[0].url, tokenOf(refused.body)!, false);
		expectSmallRefusal(early, 425);
		expect(early.body).toContain('Please check your answer and confirm again');

		// Limit 5: four times is 20 characters. 20 are shown again, escaped; 21 are not.
		const small = await askAndWait(await newSubscriber(), {
			responseType: 'freeText',
			options: { maxAnswerLength: 5 },
		});
		const smallToken = tokenOf((await tap(small.buttons[0].url)).body)!;
		const twenty = await post(small.buttons[0].url, { token: smallToken, text: `<&>"'`.repeat(4) });
		expect(twenty.status).toBe(422);
		expect(twenty.body).toContain(`required>${'&#60;&#38;&#62;&#34;&#39;'.repeat(4)}</textarea>`);
		expect(twenty.body).toContain('This answer is 20 characters long; at most 5 are accepted.');
		const twentyOne = await post(small.buttons[0].url, { token: smallToken, text: `<&>"'`.repeat(4) + 'x' });
		expect([twentyOne.status, twentyOne.resumedWith]).toEqual([422, undefined]);
		expect(twentyOne.body).toContain('required></textarea>');
		expect(twentyOne.body).not.toContain('&#60;&#38;&#62;&#34;&#39;');
		expect(twentyOne.body).toContain(
			'This answer is far longer than the 5 characters accepted, so it is not shown again.',
		);
		// A family emoji is five code points: it fits a limit of 5, one more character does not.
		const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
		expect((await post(small.buttons[0].url, { token: smallToken, text: `${family}x` })).body).toContain(
			'This answer is 6 characters long; at most 5 are accepted.',
		);
		const fits = await post(small.buttons[0].url, { token: smallToken, text: family });
		expect((fits.resumedWith![0].json.data as IDataObject).answer).toBe(family);

		const form = await openForm([
			{ fieldLabel: 'Note', fieldType: 'text' },
			{ fieldLabel: 'Other', fieldType: 'text' },
		]);
		const fields = { token: form.token, f0: huge, f1: `a<b&"c'` };
		const formRefused = await postMultipart(form.url, fields);
		expectSmallRefusal(formRefused, 422);
		expect(formRefused.body).toContain('name="f0" value="">');
		expect(formRefused.body).toContain('name="f1" value="a&#60;b&#38;&#34;c&#39;">');
		const formEarly = await postMultipart(form.url, { ...fields, token: tokenOf(formRefused.body)! }, false);
		expectSmallRefusal(formEarly, 425);
		expect(formEarly.body).toContain('name="f1" value="a&#60;b&#38;&#34;c&#39;">');
	});

	it('the decoy of a Custom Form posts as n8n takes that page (multipart), and a press of it spends the page', async () => {
		const form = await openForm([{ fieldLabel: 'Note', fieldType: 'text' }]);
		expect(form.page).toMatch(
			/<div class="decoy" aria-hidden="true"><form method="post" enctype="multipart\/form-data"><input type="hidden" name="token"/,
		);
		const { token } = form;
		const pressed = await postMultipart(form.url, { token, checked: '1' }, false);
		expect([pressed.status, pressed.resumedWith]).toEqual([403, undefined]);
		expect(pressed.body).toContain('Not recorded: pressed by a program');
		const spent = await postMultipart(form.url, { token, f0: 'hello' });
		expect([spent.status, spent.resumedWith]).toEqual([403, undefined]);
	});

	it('the pages give no other site read permission (n8n reflects any Origin); PUT, PATCH and DELETE get 405 with Allow and resume nothing', async () => {
		const { buttons } = await askAndWait(await newSubscriber());
		const page = await tap(buttons[0].url, { headers: { origin: 'https://evil.example' } });
		expect([page.status, page.headers.get('access-control-allow-origin')]).toEqual([200, null]);
		for (const method of ['PUT', 'PATCH', 'DELETE']) {
			const refused = await tap(buttons[0].url, { method, headers: { origin: 'https://evil.example' } });
			expect([
				refused.status,
				refused.headers.get('allow'),
				refused.headers.get('access-control-allow-origin'),
				refused.resumedWith,
			]).toEqual([405, 'GET, HEAD, POST', null, undefined]);
			expect(refused.body).toContain('Nothing was recorded.');
		}
		const received = await post(buttons[0].url, { token: tokenOf(page.body)! });
		expect([received.status, received.headers.get('access-control-allow-origin')]).toEqual([200, null]);
	});

	it('a click must come from a person: a confirmation sooner than a person reads asks again; a press of the hidden control spends the pages shown so far and is logged; the person answers through the link again', async () => {
		const clientId = await newSubscriber();
		const { buttons, executionId } = await askAndWait(clientId);
		const page = await tap(buttons[0].url);
		const token = tokenOf(page.body)!;
		const notBefore = Number(/data-not-before="(\d+)"/.exec(page.body)![1]);
		expect(notBefore - Number(token.split('.')[0])).toBe(1500);
		// The hidden control comes first: out of sight, of the accessibility tree and of the tab order.
		expect(page.body).toMatch(
			/<div class="decoy" aria-hidden="true"><form method="post"><input type="hidden" name="token" value="\d+\.[0-9a-f]{64}"><input type="hidden" name="checked" value="1"><button type="submit" tabindex="-1">[^<]+<\/button><\/form><\/div><form method="post" data-not-before="\d+">/,
		);
		expect(page.body).toContain(
			'.decoy { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);',
		);

		const early = await post(buttons[0].url, { token }, BROWSER, false);
		expect([early.status, early.resumedWith]).toEqual([425, undefined]);
		expect(early.body).toContain('Please check your answer and confirm again: nothing has been recorded yet.');
		expect(tokenOf(early.body)).toBeDefined();

		const declinePage = await tap(buttons[1].url);
		const warn = jest.spyOn(Container.get(Logger), 'warn');
		try {
			const pressed = await post(buttons[0].url, { token, checked: '1' }, BROWSER, false);
			expect([pressed.status, pressed.resumedWith]).toEqual([403, undefined]);
			expect(pressed.body).toContain('Not recorded: pressed by a program');
			expect(pressed.body).toContain(
				'The question is still open: in a minute, open the link from the message again and answer there.',
			);
			expect(warn.mock.calls).toEqual([
				[expect.stringContaining(`a program pressed the hidden control of an answer page of execution ${executionId}`)],
			]);
		} finally {
			warn.mockRestore();
		}
		// Every page shown before the press is spent, whichever answer it confirms, however long after.
		for (const [url, spent] of [
			[buttons[0].url, token],
			[buttons[1].url, tokenOf(declinePage.body)!],
			[buttons[0].url, tokenOf(early.body)!],
		]) {
			const refused = await post(url, { token: spent });
			expect([refused.status, refused.resumedWith]).toEqual([403, undefined]);
			expect(refused.body).toContain('this page can no longer confirm');
		}
		// A page opened again at once (a scanner pressing on) is spent too.
		const reopened = await post(buttons[0].url, { token: tokenOf((await tap(buttons[0].url)).body)! });
		expect([reopened.status, reopened.resumedWith]).toEqual([403, undefined]);
		// The person opens the link again later and confirms: recorded.
		jest.setSystemTime(Date.now() + SPENT_AFTER_PRESS_MS);
		const received = await post(buttons[1].url, { token: tokenOf((await tap(buttons[1].url)).body)! });
		expect(received.status).toBe(200);
		expect((received.resumedWith![0].json.data as IDataObject).answer).toBe('Decline');
	});

	it('a press of the hidden control is marked in the pressing browser: another n8n process refuses that browser’s next page, not a person’s', async () => {
		const { buttons, executionId } = await askAndWait(await newSubscriber());
		const page = await tap(buttons[0].url);
		const pressed = await post(buttons[0].url, { token: tokenOf(page.body)!, checked: '1' }, BROWSER, false);
		expect(pressed.status).toBe(403);
		const setCookie = pressed.headers.get('set-cookie') ?? '';
		expect(setCookie).toMatch(
			new RegExp(
				`^mbb_pressed=\\d+\\.[0-9a-f]{64}; Path=/webhook-waiting/${executionId}/mbb; Max-Age=7200; HttpOnly; SameSite=Strict$`,
			),
		);
		const mark = setCookie.split(';')[0];
		const other = { ...BROWSER, [OTHER_PROCESS_HEADER]: 'other' };
		// The scanner opens the link again, served by a process that never saw the press, and presses on with its mark.
		const again = await tap(buttons[0].url, { headers: { [OTHER_PROCESS_HEADER]: 'other' } });
		const refused = await post(buttons[0].url, { token: tokenOf(again.body)! }, { ...other, cookie: `a=b; ${mark}` });
		expect([refused.status, refused.resumedWith]).toEqual([403, undefined]);
		expect(refused.body).toContain('this page can no longer confirm');
		// A mark that is not the question's own counts for nothing (this early press is asked again, not refused).
		const forged = mark.replace(/[0-9a-f]{64}$/, '0'.repeat(64));
		const personPage = await tap(buttons[1].url, { headers: { [OTHER_PROCESS_HEADER]: 'other' } });
		const early = await post(buttons[1].url, { token: tokenOf(personPage.body)! }, { ...other, cookie: forged }, false);
		expect([early.status, early.resumedWith]).toEqual([425, undefined]);
		// The person's browser carries no mark: the other process takes the answer.
		const received = await post(buttons[1].url, { token: tokenOf(personPage.body)! }, other);
		expect(received.status).toBe(200);
		expect((received.resumedWith![0].json.data as IDataObject).answer).toBe('Decline');
	});

	it('page tokens, one by one: made for one question and subject at one time; early, valid, stale, spent', () => {
		const question = { id: randomUUID(), tokenKey: 'k'.repeat(64) } as Question;
		const shownAt = 1_700_000_000_000;
		const { value, notBefore } = pageToken(question, 'form', shownAt);
		expect(notBefore).toBe(shownAt + 1500);
		const state = (token: unknown, now: number, subject = 'form', of = question) =>
			tokenState('e-tokens', of, subject, token, now);
		expect(
			[shownAt, shownAt + 1499, shownAt + 1500, shownAt + 2 * 3_600_000, shownAt + 2 * 3_600_000 + 1].map((now) =>
				state(value, now),
			),
		).toEqual(['early', 'early', 'valid', 'valid', 'stale']);
		expect(PAGE_LIFETIME_MS).toBe(2 * 3_600_000);
		const [time, hmac] = value.split('.');
		const later = shownAt + 60_000;
		expect([
			state(value, later, 'answer:Approve'),
			state(value, later, 'form', { ...question, id: randomUUID() }),
			state(`${Number(time) - 5000}.${hmac}`, later),
			state(hmac, later),
			state(`${value}0`, later),
			state(undefined, later),
			state(['x'], later),
			state(`${'1'.repeat(16)}.${'0'.repeat(65)}`, later),
		]).toEqual(Array(8).fill('forged'));
		spendPages('e-tokens', question.id, value, shownAt + 10_000);
		expect(SPENT_AFTER_PRESS_MS).toBe(10_000);
		expect([
			state(value, later),
			state(pageToken(question, 'form', shownAt + 20_000).value, later),
			state(pageToken(question, 'form', shownAt + 20_001).value, later),
		]).toEqual(['spent', 'spent', 'valid']);
	});

	it('refuses what it cannot do honestly, before sending anything', async () => {
		const clientId = await newSubscriber();
		const twoItems = await bed.node.failure(ask(clientId), { items: [{}, {}] });
		expect(twoItems.message).toBe('Send and Wait for Response waits for one answer, but got 2 items');
		const past = await bed.node.failure(
			ask(clientId, {
				options: {
					limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00.000Z' } },
				},
			}),
		);
		expect(past.message).toContain('is in the past');
		for (const resumeAmount of [0, -5]) {
			const none = await bed.node.failure(
				ask(clientId, {
					options: {
						limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount, resumeUnit: 'minutes' } },
					},
				}),
			);
			expect(none.message).toBe(`The "Amount" of "Limit Wait Time" must be more than 0 (got ${resumeAmount})`);
		}
		const sameTexts = await bed.node.failure(
			ask(clientId, { responseType: 'choice', choices: { values: [{ label: 'A' }, { label: 'A' }] } }),
		);
		expect(sameTexts.message).toBe('Two answers in "Answers" have the same text');
		const noAnswers = await bed.node.failure(ask(clientId, { responseType: 'choice', choices: {} }));
		expect(noAnswers.message).toBe('Every answer in "Answers" needs a text');
		const noFields = await bed.node.failure(ask(clientId, { responseType: 'customForm', formFields: {} }));
		expect(noFields.message).toBe('A Custom Form needs at least one field in "Form Fields"');
		const emptyDropdown = await bed.node.failure(
			ask(clientId, {
				responseType: 'customForm',
				formFields: { values: [{ fieldLabel: 'Slot', fieldType: 'dropdown' }] },
			}),
		);
		expect(emptyDropdown.message).toBe('The dropdown "Slot" of "Form Fields" has no options');
		const noQuestion = await bed.node.failure(ask(clientId, { message: '={{ $json.missing }}' }));
		expect(noQuestion.message).toBe('The field "Message" is empty');
		expect(await chat(clientId)).toEqual([]);
	});

	it('a failed send does not wait: with On Error: Continue it puts out the error', async () => {
		const result = await bed.node.execute(ask('no-such-subscriber'), { continueOnFail: true });
		expect(result.run.status).not.toBe('waiting');
		expect(result.run.waitTill).toBeUndefined();
		const [item] = result.output(NODE_NAME);
		expect(item.json).toEqual({ error: expect.any(String), details: expect.objectContaining({ status: 422 }) });
	});
});
