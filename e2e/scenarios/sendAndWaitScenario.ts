/**
 * Scenario 5: Message → Send and Wait for Response in a real n8n. Published workflows, started through
 * their production webhook, send subscribers a question with link buttons and wait. The test reads the
 * buttons from the subscriber's chat history in the sandbox and opens them as previews, scanners and
 * people do:
 * - previews: GET and HEAD of every button with a messenger's and a mail scanner's user agent answer
 *   nothing; the person then confirms on the page (POST with the page's token) and that answer is recorded,
 *   with who answered and when;
 * - an altered link is refused by n8n (401) and resumes nothing;
 * - a loop of two subscribers: the first replays her old link while the second is asked; the replay is
 *   refused (410) and each recorded answer is the one its own subscriber gave;
 * - four simultaneous confirmations: exactly one told "received", the others 409 or n8n's "No action required", one answer recorded;
 * - a confirmation after the time limit: 410 "expired", and the run ends with timedOut: true; a question whose deadline
 *   decides (On Time Out: Continue as Approved) ends approved, with timedOut: true;
 * - Free Text and Custom Form answered through their page; a 15 MB Free Text answer is refused with a small page while
 *   n8n's /healthz keeps answering promptly;
 * - with a browser, a clicking Chromium (every control pressed in order, 2 s after each page loaded) records nothing on
 *   Approval, Choice, Free Text and Custom Form;
 * - several subscribers asked at once (Ask: Several Subscribers): each has links of their own, the second one's answer
 *   decides, and the output names everyone asked and whose link it came through;
 * - a Choice answer with a comment and a Free Text answer given through the sandbox (POST /sandbox/answer), as its
 *   subscriber would.
 * With `screenshotDir`, Chromium (JavaScript off) photographs the pages and answers one question by clicking.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterHumanMoment, tokenOfPage } from '../lib/answerPages.ts';
import { launchChromium } from '../lib/browser.ts';
import { credentialType, n8nApiCredentialType, nodeTypes } from '../lib/communityPackage.ts';
import { createClaimLogCredential, type E2eEnvironment } from '../lib/environment.ts';
import { assertSucceeded } from '../lib/executions.ts';
import { callProductionWebhook, defaultOwner, type Execution, type WorkflowDefinition } from '../lib/n8nApi.ts';
import { waitFor } from '../lib/waitFor.ts';

export const ASK = 'Ask';
export const AFTER = 'After';
const BOT = 'bot_tg';
/** n8n's wait tracker looks for due executions once a minute, so a time limit ends within about a minute. */
const TIME_LIMIT_WAIT_MS = 150_000;
const PREVIEW_AGENTS = [
	'TelegramBot (like TwitterBot)',
	'Mozilla/5.0 (compatible; Proofpoint URL Defense link scanner)',
];

interface Button {
	name: string;
	url: string;
}

/** A request the sandbox made when answering through POST /sandbox/answer (sandbox/docs/extensions.md). */
interface PlayStep {
	action: string;
	status: number;
	heading: string;
	text: string[];
}

/** A clicking scanner's pause on each page before it presses: past a person's moment (1.5 s). */
const SCANNER_PAUSE_MS = 2_000;

const FORM_FIELDS = {
	values: [
		{ fieldLabel: 'Name', fieldType: 'text', requiredField: true },
		{ fieldLabel: 'Boxes', fieldType: 'number' },
		{
			fieldLabel: 'Slot',
			fieldType: 'dropdown',
			requiredField: true,
			fieldOptions: { values: [{ option: 'Morning' }, { option: 'Evening' }] },
		},
		{ fieldLabel: 'Day', fieldType: 'date', requiredField: true },
	],
};

interface Page {
	status: number;
	type: string;
	body: string;
	headers: Headers;
}

/** An execution the scenario ran, with how often it was resumed (queue mode checks each start on the worker). */
export interface AskedExecution {
	execution: Execution;
	resumes: number;
}

const askNode = (env: E2eEnvironment, askParameters: Record<string, unknown>) => ({
	id: randomUUID(),
	name: ASK,
	type: nodeTypes.action,
	typeVersion: 1,
	position: [440, 0],
	parameters: {
		resource: 'message',
		operation: 'sendAndWait',
		botId: { __rl: true, mode: 'id', value: BOT },
		clientId: '={{ $json.body ? $json.body.clientId : $json.clientId }}',
		message: '={{ $("Start").first().json.body.question }}',
		...askParameters,
	},
	credentials: { [credentialType]: { id: env.credentialId, name: 'Messenger Bot Builder (sandbox)' } },
});

const startNode = (webhookPath: string) => ({
	id: randomUUID(),
	name: 'Start',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	position: [0, 0],
	webhookId: randomUUID(),
	parameters: { path: webhookPath, httpMethod: 'POST', responseMode: 'onReceived' },
});

const afterNode = {
	id: randomUUID(),
	name: AFTER,
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [660, 0],
	parameters: {},
};

/** Start → Ask → After. */
export function askWorkflow(
	env: E2eEnvironment,
	webhookPath: string,
	askParameters: Record<string, unknown>,
): WorkflowDefinition {
	return {
		name: `E2E send and wait ${webhookPath}`,
		nodes: [startNode(webhookPath), askNode(env, askParameters), afterNode],
		connections: {
			Start: { main: [[{ node: ASK, type: 'main', index: 0 }]] },
			[ASK]: { main: [[{ node: AFTER, type: 'main', index: 0 }]] },
		},
	};
}

/** Start → Split Out (body.subscribers) → Loop Over Items (batch size 1) → Ask → back to the loop; done → After. */
function loopWorkflow(env: E2eEnvironment, webhookPath: string): WorkflowDefinition {
	return {
		name: `E2E send and wait loop ${webhookPath}`,
		nodes: [
			startNode(webhookPath),
			{
				id: randomUUID(),
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [160, 0],
				parameters: { fieldToSplitOut: 'body.subscribers' },
			},
			{
				id: randomUUID(),
				name: 'Loop',
				type: 'n8n-nodes-base.splitInBatches',
				typeVersion: 3,
				position: [300, 0],
				parameters: { batchSize: 1, options: {} },
			},
			askNode(env, { responseType: 'approval' }),
			afterNode,
		],
		connections: {
			Start: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
			Loop: { main: [[{ node: AFTER, type: 'main', index: 0 }], [{ node: ASK, type: 'main', index: 0 }]] },
			[ASK]: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
		},
	};
}

async function publish(
	env: E2eEnvironment,
	definition: (webhookPath: string) => WorkflowDefinition,
): Promise<{ id: string; path: string }> {
	const webhookPath = `e2e-ask-${randomBytes(4).toString('hex')}`;
	const workflow = await env.api.createWorkflow(definition(webhookPath));
	await env.api.publishWorkflow(workflow.id);
	return { id: workflow.id, path: webhookPath };
}

async function execution(env: E2eEnvironment, workflowId: string, id: string): Promise<Execution> {
	const found = await env.api.execution(id, { includeData: true });
	assert.equal(String(found.workflowId), workflowId, `execution ${id} belongs to workflow ${workflowId}`);
	return found;
}

async function newSubscriber(env: E2eEnvironment): Promise<string> {
	const clientId = `e2e-ask-${randomBytes(4).toString('hex')}`;
	await env.service.api('/subscriber/create', {
		botid: BOT,
		clientid: clientId,
		messenger: 'telegram',
		name: 'E2E Asked',
	});
	return clientId;
}

/** The buttons of the newest message with this text in the subscriber's chat, once it is there. */
async function questionButtons(
	env: E2eEnvironment,
	clientId: string,
	question: string,
	executionId: string,
): Promise<Button[]> {
	const message = await waitFor(
		async () => {
			const chat = await env.service.api<{ items: Array<{ text: string; buttons: Button[] }> }>(
				'/subscriber/chat/get',
				{ botid: BOT, clientid: clientId },
			);
			return chat.items.find((item) => item.text === question);
		},
		{ what: `the question "${question}" in the chat of ${clientId}`, timeoutMs: 30_000, intervalMs: 300 },
	);
	for (const button of message.buttons) {
		assert.ok(
			button.url.startsWith(`${env.n8n.baseUrl}/webhook-waiting/${executionId}/`),
			`the button "${button.name}" leads to n8n's resume URL of execution ${executionId}: ${button.url}`,
		);
		assert.match(button.url, /[?&]signature=[0-9a-f]{64}(&|$)/, 'the resume URL is signed');
	}
	return message.buttons;
}

async function waitingExecution(env: E2eEnvironment, workflowId: string, before: Set<string>): Promise<string> {
	const waiting = await waitFor(
		async () =>
			(await env.api.executions(workflowId)).find(
				(candidate) => !before.has(candidate.id) && candidate.status === 'waiting',
			),
		{ what: `a waiting execution of workflow ${workflowId}`, timeoutMs: 60_000, intervalMs: 300 },
	);
	return waiting.id;
}

/** Starts the workflow for a new subscriber; resolves once its execution waits and the question is in the chat. */
async function ask(env: E2eEnvironment, workflow: { id: string; path: string }, question: string) {
	const clientId = await newSubscriber(env);
	const before = new Set((await env.api.executions(workflow.id)).map((candidate) => candidate.id));
	const started = await callProductionWebhook(env.n8n.baseUrl, workflow.path, { clientId, question });
	assert.equal(started.status, 200, `the production webhook answered ${started.status}: ${await started.text()}`);
	const executionId = await waitingExecution(env, workflow.id, before);
	return { executionId, clientId, buttons: await questionButtons(env, clientId, question, executionId) };
}

async function open(url: string, init: RequestInit = {}): Promise<Page> {
	const response = await fetch(url, { redirect: 'manual', ...init });
	return {
		status: response.status,
		type: response.headers.get('content-type') ?? '',
		body: await response.text(),
		headers: response.headers,
	};
}

const tokenOf = (page: Page) => tokenOfPage(page.body, page.status);

/** POSTs the page's form as a browser does from the page itself (same origin); a Custom Form's as multipart. */
function confirm(
	url: string,
	fields: Record<string, string>,
	multipart = false,
	browserHeaders: Record<string, string> = { origin: new URL(url).origin, 'sec-fetch-site': 'same-origin' },
): Promise<Page> {
	const headers: Record<string, string> = { ...browserHeaders };
	if (!multipart) headers['content-type'] = 'application/x-www-form-urlencoded';
	const form = new FormData();
	for (const [key, value] of Object.entries(fields)) form.append(key, value);
	return open(url, { method: 'POST', headers, body: multipart ? form : new URLSearchParams(fields) });
}

/**
 * Posts a 15 MB Free Text answer of `<` (left unencoded, as a program can send it) while asking n8n's /healthz, one
 * request after another: every health answer during the refused request comes within half a second (n8n's event loop
 * stays free), and the refusal is a small page that does not contain the text.
 */
async function assertHugeAnswerRefusedCheaply(env: E2eEnvironment, url: string): Promise<void> {
	const page = await open(url);
	await afterHumanMoment(page.body);
	const huge = '<'.repeat(15 * 1024 * 1024);
	const healthMs: number[] = [];
	let refusing = true;
	const polling = (async () => {
		while (refusing) {
			const started = performance.now();
			// A failed health answer counts as never answered (asserted below, once the request is done).
			const ok = await fetch(`${env.n8n.baseUrl}/healthz`).then(
				async (health) => {
					await health.arrayBuffer();
					return health.status === 200;
				},
				() => false,
			);
			healthMs.push(ok ? performance.now() - started : Infinity);
		}
	})();
	const refused = await open(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/x-www-form-urlencoded',
			origin: new URL(url).origin,
			'sec-fetch-site': 'same-origin',
		},
		body: `token=${tokenOf(page)}&text=${huge}`,
	}).finally(() => {
		refusing = false;
	});
	await polling;
	assertPage(refused, 422, 'This answer is far longer than the 10000 characters accepted, so it is not shown again.');
	assert.ok(refused.body.length < 10_000, `the refusal is a small page: ${refused.body.length} characters`);
	assert.ok(
		!refused.body.includes('<<') && !refused.body.includes('&#60;&#60;'),
		'the refusal does not contain the answer',
	);
	assert.ok(healthMs.length > 0, 'n8n was asked for its health during the request');
	const slowest = Math.max(...healthMs);
	assert.ok(slowest < 500, `every health answer came within 0.5 s; the slowest took ${Math.round(slowest)} ms`);
}

/** Opens the link, then confirms on its page as the person would: after reading it a moment. */
async function answer(url: string, fields: Record<string, string> = {}, multipart = false): Promise<Page> {
	const page = await open(url);
	assert.equal(page.status, 200, `the question's page opens: ${page.body.slice(0, 300)}`);
	await afterHumanMoment(page.body);
	return confirm(url, { token: tokenOf(page), ...fields }, multipart);
}

function assertPage(page: Page, status: number, text: string): void {
	assert.equal(page.status, status, `HTTP ${status} expected, got ${page.status}: ${page.body.slice(0, 300)}`);
	assert.match(page.type, /^text\/html/);
	assert.ok(page.body.includes(text), `the page says "${text}": ${page.body.slice(0, 400)}`);
}

async function finished(env: E2eEnvironment, workflowId: string, id: string, timeoutMs = 60_000): Promise<Execution> {
	return waitFor(
		async () => {
			const found = await execution(env, workflowId, id);
			return ['new', 'running', 'waiting'].includes(found.status) ? undefined : found;
		},
		{ what: `execution ${id} to finish`, timeoutMs, intervalMs: 300 },
	);
}

/** What Send and Wait puts out: the answer under `data`, beside the fields the node copies from its input. */
interface AnswerItem {
	data: { respondedAt: string; [field: string]: unknown };
	[field: string]: unknown;
}

/** The JSON of each run of a node, in run order. */
function runsOf(run: Execution, node: string): AnswerItem[][] {
	const runs = run.data?.resultData.runData[node];
	assert.ok(runs?.length, `node ${node} ran in execution ${run.id}`);
	return runs.map((entry) => (entry.data?.main[0] ?? []).map((item) => item.json as AnswerItem));
}

function onlyOutput(run: Execution, node: string): AnswerItem[] {
	const runs = runsOf(run, node);
	assert.equal(runs.length, 1, `node ${node} ran once in execution ${run.id}`);
	return runs[0];
}

/** An answer's output: the answer, the subscriber asked, that it came through the link, a respondedAt in the window. */
function assertAnswered(
	output: AnswerItem[],
	expected: Record<string, unknown>,
	clientId: string,
	window: { from: number; to: number },
): void {
	assert.equal(output.length, 1);
	const { respondedAt, ...rest } = output[0].data;
	assert.deepEqual(rest, {
		...expected,
		timedOut: false,
		askedSubscriber: { botid: BOT, clientid: clientId, messenger: 'telegram' },
		answeredThrough: 'answerLink',
	});
	const at = Date.parse(respondedAt);
	assert.ok(
		at >= window.from - 1000 && at <= window.to + 1000,
		`respondedAt ${respondedAt} lies in the answer's window`,
	);
}

/** A wait that ran out: no answer, and no link it came through. */
const timedOut = (clientId: string) => ({
	data: {
		answer: null,
		timedOut: true,
		respondedAt: null,
		askedSubscriber: { botid: BOT, clientid: clientId, messenger: 'telegram' },
		answeredThrough: null,
	},
});

/** Runs `action` on a new page with JavaScript off, then photographs the page into `file` (when one is given). */
async function screenshot(
	browser: Browser,
	file: string | undefined,
	action: (page: import('playwright-core').Page) => Promise<void>,
): Promise<void> {
	// JavaScript off: the pages must work without it.
	const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 520, height: 640 } });
	try {
		const page = await context.newPage();
		page.setDefaultTimeout(30_000);
		await action(page);
		if (file) await page.screenshot({ path: file });
	} finally {
		await context.close();
	}
}

async function screenshotWaiting(
	browser: Browser,
	env: E2eEnvironment,
	workflowId: string,
	executionId: string,
	file: string,
): Promise<void> {
	const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
	try {
		page.setDefaultTimeout(30_000);
		await page.goto(`${env.n8n.baseUrl}/signin`);
		await page.locator('#emailOrLdapLoginId').fill(defaultOwner.email);
		await page.locator('#password').fill(defaultOwner.password);
		await page.getByTestId('form-submit-button').click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
		await page.goto(`${env.n8n.baseUrl}/workflow/${workflowId}/executions/${executionId}`);
		await page.getByTestId('canvas-node').filter({ hasText: ASK }).waitFor({ state: 'visible' });
		// n8n's first-visit checklist pops over the canvas.
		await page
			.getByText('Production Checklist')
			.locator('..')
			.getByRole('button')
			.first()
			.click()
			.catch(() => undefined);
		await page.keyboard.press('Escape');
		await page.getByText('Waiting', { exact: true }).first().waitFor({ state: 'visible' });
		await page.waitForTimeout(1000);
		await page.screenshot({ path: file });
	} finally {
		await page.close();
	}
}

/**
 * A link scanner that "detonates" links in a headless browser, as mail and chat security does: it opens each button's
 * link, fills in every required field and presses every control of the page in document order, `pauseMs` after the
 * page loaded (the page opened again for each). Returns what each press got, link by link: the status and the heading.
 */
async function clickEverything(browser: Browser, urls: string[], pauseMs: number): Promise<string[]> {
	// Each link in a browser context of its own, all at once, as a scanner checking several mails does.
	const perLink = await Promise.all(urls.map((url) => clickEveryControl(browser, url, pauseMs)));
	return perLink.flat();
}

async function clickEveryControl(browser: Browser, url: string, pauseMs: number): Promise<string[]> {
	const context = await browser.newContext();
	const seen: string[] = [];
	try {
		const page = await context.newPage();
		page.setDefaultTimeout(30_000);
		await page.goto(url);
		const controls = await page.locator('button, input[type="submit"]').count();
		for (let index = 0; index < controls; index++) {
			if (index > 0) await page.goto(url);
			// Some scanners fill in forms: every required field gets a value, so every press sends its form (a browser
			// sends no form with an empty required field).
			await page.evaluate(() => {
				for (const field of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
					'input[required], textarea[required], select[required]',
				)) {
					if (field.value) continue;
					if (field instanceof HTMLSelectElement) field.selectedIndex = 1;
					else field.value = field.type === 'number' ? '1' : field.type === 'date' ? '2026-12-24' : 'scanner';
				}
			});
			await page.waitForTimeout(pauseMs);
			const [response] = await Promise.all([
				page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
				page
					.locator('button, input[type="submit"]')
					.nth(index)
					.evaluate((control) => (control as HTMLElement).click()),
			]);
			await page.waitForLoadState();
			seen.push(`${response.status()} ${await page.locator('h1').textContent()}`);
		}
	} finally {
		await context.close();
	}
	return seen;
}

/**
 * Labels that are also names every JavaScript object inherits, and the three n8n-workflow's deepCopy leaves out of
 * the items it copies (reservedCopyKeys): each must be a label like any other, kept in the `fields` list.
 */
const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'prototype'];
const PROTOTYPE_ANSWERS = ['one', 'two', 'three', 'four', 'five', 'six'];
const DROPPED_BY_DEEP_COPY = ['__proto__', 'constructor', 'prototype'];

/**
 * Asks with a time limit of 0.6 s and confirms after it. n8n ends a wait only when its wait tracker
 * looks (once a minute), so the tap usually lands while the execution still waits and the node
 * answers it; when n8n happened to end the wait first, its own page answers and a new question is asked.
 */
async function tapAfterDeadline(env: E2eEnvironment, workflow: { id: string; path: string }) {
	for (let attempt = 1; attempt <= 3; attempt++) {
		const asked = await ask(env, workflow, `Will you answer in time? (${attempt})`);
		const until = Number(new URL(asked.buttons[0].url).searchParams.get('until'));
		assert.ok(until > 0, `the link carries the deadline: ${asked.buttons[0].url}`);
		await waitFor(async () => (Date.now() > until ? true : undefined), {
			what: 'the time limit to pass',
			timeoutMs: 30_000,
			intervalMs: 50,
		});
		const page = await confirm(asked.buttons[0].url, {});
		if (page.status === 410) {
			assertPage(page, 410, 'This question has expired');
			assertPage(await open(asked.buttons[1].url), 410, 'This question has expired');
			return { ...asked, page };
		}
		const run = await execution(env, workflow.id, asked.executionId);
		assert.notEqual(
			run.status,
			'waiting',
			`a tap after the deadline on a waiting execution is refused as expired: HTTP ${page.status} ${page.body.slice(0, 300)}`,
		);
	}
	throw new Error('n8n ended each of three waits before the tap could reach them');
}

/**
 * `browser`: a clicking scanner and a person's click in Chromium (regular mode). `screenshotDir`: also photograph the
 * editor's waiting execution and every page for the docs (E2E_SCREENSHOTS=1; CI leaves the photographs out).
 */
/**
 * Decide By → Approvals Needed (2 of 3), the answers kept in an n8n data table through n8n's API: the first approval
 * and a decline are kept while the execution waits on; a second tap of the first subscriber changes nothing; the
 * third subscriber's approval decides, and the output lists every answer in the order they came.
 */
async function decideByApprovals(env: E2eEnvironment): Promise<AskedExecution> {
	const n8nApi = await createClaimLogCredential(env, `answers ${randomBytes(3).toString('hex')}`);
	const workflow = await publish(env, (p) => {
		const definition = askWorkflow(env, p, {
			askWhom: 'list',
			clientIds: '={{ $json.body.clientIds }}',
			decideBy: 'approvals',
			approvalsNeeded: 2,
		});
		const ask = definition.nodes.find((node) => node.name === ASK)!;
		ask.credentials = { ...(ask.credentials as object), [n8nApiCredentialType]: n8nApi };
		return definition;
	});
	const subscribers = [await newSubscriber(env), await newSubscriber(env), await newSubscriber(env)];
	const before = new Set((await env.api.executions(workflow.id)).map((candidate) => candidate.id));
	const question = 'Approve the new supplier? Two of three decide.';
	const started = await callProductionWebhook(env.n8n.baseUrl, workflow.path, { question, clientIds: subscribers });
	assert.equal(started.status, 200);
	const executionId = await waitingExecution(env, workflow.id, before);
	for (const clientId of subscribers) await questionButtons(env, clientId, question, executionId);
	const play = async (clientId: string, button: string) =>
		(await env.service.sandboxRoute<{ steps: PlayStep[] }>('/answer', { botid: BOT, clientid: clientId, button }))
			.steps;
	const from = Date.now();
	const stillWaiting = async () =>
		assert.equal((await execution(env, workflow.id, executionId)).status, 'waiting', 'the question still waits');
	const kept = (answered: number) => [
		'Your answer “Approve” has been received.',
		`The question is decided when enough of the others have answered: ${answered} of 3 have so far. You can close this page.`,
	];
	const [firstOpen, firstPress] = await play(subscribers[0], 'Approve');
	assert.deepEqual([firstOpen.status, firstPress.status, firstPress.text], [200, 200, kept(1)]);
	await stillWaiting();
	const again = await play(subscribers[0], 'Decline');
	assert.deepEqual(
		again.map((step) => `${step.status} ${step.heading}`),
		['200 Confirm your answer', '409 Already answered'],
	);
	const declined = await play(subscribers[1], 'Decline');
	assert.deepEqual(
		declined[1].text,
		kept(2).map((line) => line.replace('Approve', 'Decline')),
	);
	await stillWaiting();
	const deciding = await play(subscribers[2], 'Approve');
	assert.deepEqual(
		deciding.map((step) => `${step.status} ${step.heading}`),
		['200 Confirm your answer', '200 Thank you'],
	);
	const run = await finished(env, workflow.id, executionId);
	assertSucceeded(run);
	const [{ data }] = onlyOutput(run, ASK);
	const spelled = (clientid: string) => ({ botid: BOT, clientid, messenger: 'telegram' });
	const times = [data.respondedAt, ...(data.answers as Array<{ respondedAt: string }>).map((a) => a.respondedAt)];
	for (const at of times) assert.ok(Date.parse(at) >= from - 1000 && Date.parse(at) <= Date.now(), `respondedAt ${at}`);
	const withoutTimes = JSON.parse(JSON.stringify(data, (key, value) => (key === 'respondedAt' ? undefined : value)));
	assert.deepEqual(withoutTimes, {
		answer: 'Approve',
		approved: true,
		decidedBy: 'approvals',
		answers: [
			{ subscriber: spelled(subscribers[0]), answer: 'Approve', approved: true },
			{ subscriber: spelled(subscribers[1]), answer: 'Decline', approved: false },
			{ subscriber: spelled(subscribers[2]), answer: 'Approve', approved: true },
		],
		timedOut: false,
		askedSubscribers: subscribers.map(spelled),
		answerLinkOf: spelled(subscribers[2]),
		answeredThrough: 'answerLink',
	});
	return { execution: run, resumes: 1 };
}

/** The texts of the messages in a subscriber's chat, oldest first, once `count` of them are there. */
async function chatTexts(env: E2eEnvironment, clientId: string, count: number): Promise<string[]> {
	return waitFor(
		async () => {
			const chat = await env.service.api<{ items: Array<{ text: string; direction?: string }> }>(
				'/subscriber/chat/get',
				{ botid: BOT, clientid: clientId },
			);
			return chat.items.length >= count ? chat.items.map((item) => item.text).reverse() : undefined;
		},
		{ what: `${count} messages in the chat of ${clientId}`, timeoutMs: 60_000, intervalMs: 300 },
	);
}

/**
 * Options → Remind and Escalate, with short times: the reminder reaches the subscriber asked with the same links, the
 * escalation asks another subscriber with links of their own, whose answer decides; the output lists both steps and
 * the sub-execution that sent them, which ran both. A question answered before its reminder is due gets none.
 */
async function followUps(env: E2eEnvironment): Promise<AskedExecution> {
	const minutes = (seconds: number) => ({ amount: seconds / 60, unit: 'minutes' });
	const workflow = await publish(env, (p) =>
		askWorkflow(env, p, {
			options: {
				remind: { values: { ...minutes(4), times: 1, text: 'Reminder: the refund still waits for you.' } },
				escalate: { values: { ...minutes(8), clientIds: '={{ $json.body.escalateTo }}' } },
				limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'minutes' } },
			},
		}),
	);
	const [first, next] = [await newSubscriber(env), await newSubscriber(env)];
	const before = new Set((await env.api.executions(workflow.id)).map((candidate) => candidate.id));
	const question = 'Approve the refund of order 1042?';
	const started = await callProductionWebhook(env.n8n.baseUrl, workflow.path, {
		question,
		clientId: first,
		escalateTo: next,
	});
	assert.equal(started.status, 200);
	const executionId = await waitingExecution(env, workflow.id, before);
	const asked = await questionButtons(env, first, question, executionId);
	assert.deepEqual(await chatTexts(env, first, 2), [question, 'Reminder: the refund still waits for you.']);
	const escalated = await questionButtons(env, next, question, executionId);
	const reminder = (
		await env.service.api<{ items: Array<{ text: string; buttons: Button[] }> }>('/subscriber/chat/get', {
			botid: BOT,
			clientid: first,
		})
	).items.find((item) => item.text.startsWith('Reminder'))!;
	assert.deepEqual(reminder.buttons, asked, 'the reminder carries the same links');
	assert.deepEqual(
		escalated.map((button) => new URL(button.url).searchParams.get('s')),
		['1', '1'],
		'the escalated subscriber has links of their own',
	);
	const decided = await env.service.sandboxRoute<{ steps: PlayStep[] }>('/answer', {
		botid: BOT,
		clientid: next,
		button: 'Approve',
	});
	assert.equal(decided.steps[1].heading, 'Thank you');
	const run = await finished(env, workflow.id, executionId);
	assertSucceeded(run);
	const [{ data }] = onlyOutput(run, ASK);
	const spelled = (clientid: string) => ({ botid: BOT, clientid, messenger: 'telegram' });
	const followed = data.followUps as { execution: string; steps: Array<Record<string, unknown>> };
	assert.deepEqual(
		{ ...data, respondedAt: undefined, followUps: undefined },
		{
			answer: 'Approve',
			approved: true,
			timedOut: false,
			respondedAt: undefined,
			askedSubscribers: [spelled(first), spelled(next)],
			answerLinkOf: spelled(next),
			followUps: undefined,
			answeredThrough: 'answerLink',
		},
	);
	assert.deepEqual(
		followed.steps.map(({ kind, due, to }) => ({ kind, due, to })),
		[
			{ kind: 'reminder', due: true, to: [spelled(first)] },
			{ kind: 'escalation', due: true, to: [spelled(next)] },
		],
	);
	const sub = await finished(env, workflow.id, followed.execution);
	assertSucceeded(sub);
	assert.deepEqual(
		['Send reminder 1', 'Send escalation 2'].map((node) => sub.data?.resultData.runData[node]?.length),
		[1, 1],
		'the sub-execution sent both steps',
	);
	return { execution: run, resumes: 1 };
}

/**
 * A question answered before its reminder is due: the sub-execution finds it decided and sends nothing. The reminder
 * is due well after the answer a busy machine takes a few seconds to give.
 */
async function reminderAfterAnswer(env: E2eEnvironment): Promise<void> {
	const workflow = await publish(env, (p) =>
		askWorkflow(env, p, { options: { remind: { values: { amount: 20 / 60, unit: 'minutes', times: 1 } } } }),
	);
	const asked = await ask(env, workflow, 'Ship today?');
	await env.service.sandboxRoute('/answer', { botid: BOT, clientid: asked.clientId, button: 'Approve' });
	const run = await finished(env, workflow.id, asked.executionId);
	const followed = onlyOutput(run, ASK)[0].data.followUps as { execution: string };
	const sub = await finished(env, workflow.id, followed.execution);
	assertSucceeded(sub);
	const sent = sub.data?.resultData.runData['Send reminder 1']?.[0]?.data?.main?.[0] ?? [];
	assert.equal(sent.length, 0, 'the reminder step put out nothing: it was not sent');
	assert.deepEqual(await chatTexts(env, asked.clientId, 1), ['Ship today?'], 'no reminder in the chat');
}

export async function runSendAndWaitScenario(
	env: E2eEnvironment,
	options: { browser?: boolean; screenshotDir?: string } = {},
): Promise<AskedExecution[]> {
	const browser = options.browser || options.screenshotDir ? await launchChromium() : undefined;
	const photograph = browser && options.screenshotDir ? browser : undefined;
	const shot = (name: string) => path.join(options.screenshotDir ?? '', `send-and-wait-${name}.png`);
	try {
		// The time limit: a short one, so that the wait ends before n8n's wait tracker looks (once a minute).
		const limited = await publish(env, (p) =>
			askWorkflow(env, p, {
				options: {
					limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0.01, resumeUnit: 'minutes' } },
				},
			}),
		);
		const late = await tapAfterDeadline(env, limited);
		// A deadline that decides (On Time Out: Continue as Approved): nobody answers; n8n's wait tracker ends the wait
		// with the approval, checked at the end together with the time limit above.
		const deciding = await publish(env, (p) =>
			askWorkflow(env, p, {
				options: {
					limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0.01, resumeUnit: 'minutes' } },
					onTimeOut: 'approve',
				},
			}),
		);
		const undecided = await ask(env, deciding, 'Approve unless you object?');

		const approval = await publish(env, (p) => askWorkflow(env, p, { responseType: 'approval' }));
		const executions: AskedExecution[] = [];

		// Previews and scanners open every button with GET and HEAD: nothing is answered.
		const asked = await ask(env, approval, 'Approve the refund?');
		assert.deepEqual(
			asked.buttons.map((button) => button.name),
			['Approve', 'Decline'],
		);
		for (const userAgent of PREVIEW_AGENTS) {
			for (const button of asked.buttons) {
				assertPage(await open(button.url, { headers: { 'user-agent': userAgent } }), 200, 'Confirm your answer');
				const head = await open(button.url, { method: 'HEAD', headers: { 'user-agent': userAgent } });
				assert.equal(head.status, 200, `HEAD answers 200: ${head.status}`);
			}
		}
		assert.equal((await execution(env, approval.id, asked.executionId)).status, 'waiting', 'previews resumed nothing');
		// An altered link is refused by n8n and resumes nothing.
		const altered = new URL(asked.buttons[1].url);
		altered.searchParams.set('answer', 'Approve');
		assert.equal((await open(altered.toString())).status, 401, 'a changed answer is refused');
		if (photograph) await screenshotWaiting(photograph, env, approval.id, asked.executionId, shot('waiting'));

		// Another site's script may not read the pages (n8n reflects its Origin; the node takes that back), and methods a
		// page never uses get 405 from the node, not n8n's "No action required".
		const elsewhere = await open(asked.buttons[0].url, { headers: { origin: 'https://elsewhere.example' } });
		assertPage(elsewhere, 200, 'Confirm your answer');
		assert.equal(
			elsewhere.headers.get('access-control-allow-origin'),
			null,
			'the page gives no other origin read permission',
		);
		for (const method of ['PUT', 'PATCH', 'DELETE']) {
			const refused = await open(asked.buttons[0].url, { method, headers: { origin: 'https://elsewhere.example' } });
			assertPage(refused, 405, 'Nothing was recorded.');
			assert.equal(refused.headers.get('allow'), 'GET, HEAD, POST');
			assert.equal(refused.headers.get('access-control-allow-origin'), null);
		}
		// A program that copies the token and says Sec-Fetch-Site: none (sent only for a navigation a person typed).
		const typedPage = await open(asked.buttons[0].url);
		await afterHumanMoment(typedPage.body);
		assertPage(
			await confirm(asked.buttons[0].url, { token: tokenOf(typedPage) }, false, { 'sec-fetch-site': 'none' }),
			403,
			'did not come from the page of the question',
		);
		// The questions of the other response types, asked now so that the scanner below meets every one of them.
		const freeText = await publish(env, (p) =>
			askWorkflow(env, p, { responseType: 'freeText', respondLabel: 'Write back' }),
		);
		const written = await ask(env, freeText, 'What went wrong with the delivery?');
		const form = await publish(env, (p) =>
			askWorkflow(env, p, { responseType: 'customForm', formFields: FORM_FIELDS }),
		);
		const filled = await ask(env, form, 'When shall we deliver?');
		const choice = await publish(env, (p) =>
			askWorkflow(env, p, {
				responseType: 'choice',
				choices: { values: [{ label: 'Red' }, { label: 'Blue' }, { label: 'Green' }] },
				options: { comment: true },
			}),
		);
		const chosen = await ask(env, choice, 'Which colour?');
		// A scanner that opens each button and presses every control in order, 2 s after each page loaded (past a
		// person's moment): the hidden control first (the pages shown so far are spent), then, on the page opened
		// again, the real button, which confirms nothing either. On every response type.
		if (browser) {
			const presses = await clickEverything(
				browser,
				[...asked.buttons, written.buttons[0], filled.buttons[0], chosen.buttons[1]].map((button) => button.url),
				SCANNER_PAUSE_MS,
			);
			assert.deepEqual(presses, Array(10).fill('403 Not recorded: pressed by a program'));
			for (const [workflow, question] of [
				[freeText, written],
				[form, filled],
				[choice, chosen],
			] as const)
				assert.equal(
					(await execution(env, workflow.id, question.executionId)).status,
					'waiting',
					`the clicking scanner recorded no answer to "${workflow.path}"`,
				);
			// The pages shown within 10 s of the last press of the hidden control are spent: the person comes after that.
			const crawled = Date.now();
			await waitFor(async () => (Date.now() > crawled + 10_000 ? true : undefined), {
				what: 'the quiet time after the scanner',
				timeoutMs: 30_000,
				intervalMs: 200,
			});
		}
		assert.equal(
			(await execution(env, approval.id, asked.executionId)).status,
			'waiting',
			'the refused requests and the clicking scanner recorded no answer',
		);

		// The person confirms Decline on the page (in Chromium, by clicking, when photographing).
		const from = Date.now();
		if (browser) {
			if (photograph)
				await screenshot(photograph, shot('confirm'), async (page) => {
					await page.goto(asked.buttons[1].url);
				});
			await screenshot(browser, options.screenshotDir ? shot('received') : undefined, async (page) => {
				await page.goto(asked.buttons[1].url);
				await afterHumanMoment(await page.content());
				await page.getByRole('button', { name: 'Confirm “Decline”' }).click();
				await page.waitForLoadState();
				const shown = (await page.textContent('body')) ?? '';
				assert.ok(
					shown.includes('Your answer “Decline” has been received.'),
					`Chromium's confirmation is received: ${shown}`,
				);
			});
		} else {
			assertPage(await answer(asked.buttons[1].url), 200, 'Your answer “Decline” has been received.');
		}
		const declinedRun = await finished(env, approval.id, asked.executionId);
		assertSucceeded(declinedRun);
		assertAnswered(onlyOutput(declinedRun, ASK), { answer: 'Decline', approved: false }, asked.clientId, {
			from,
			to: Date.now(),
		});
		assert.deepEqual(onlyOutput(declinedRun, AFTER), onlyOutput(declinedRun, ASK));
		executions.push({ execution: declinedRun, resumes: 1 });
		// After the run finished, n8n itself answers the links ("no action required"); nothing runs again.
		const afterwards = await open(asked.buttons[0].url);
		assert.equal(afterwards.status, 200);
		assert.ok(!afterwards.body.includes('has been received'));
		assert.equal(runsOf(await execution(env, approval.id, asked.executionId), ASK).length, 1);

		// Four simultaneous confirmations: one wins.
		const raced = await ask(env, approval, 'Approve the second refund?');
		const racedPages = await Promise.all(raced.buttons.map((button) => open(button.url)));
		const tokens = racedPages.map(tokenOf);
		for (const page of racedPages) await afterHumanMoment(page.body);
		const picks = [0, 1, 0, 1];
		const taps = await Promise.all(picks.map((index) => confirm(raced.buttons[index].url, { token: tokens[index] })));
		const seen = taps
			.map(
				(tap, index) =>
					`${raced.buttons[picks[index]].name}: ${tap.status} ${/<h1[^>]*>([^<]*)/.exec(tap.body)?.[1] ?? tap.body.slice(0, 120)}`,
			)
			.join('; ');
		const isReceived = (tap: Page) => tap.status === 200 && tap.body.includes('has been received');
		assert.equal(taps.filter(isReceived).length, 1, `exactly one tap is received: ${seen}`);
		// The others are told it was answered (409: the node's page, or n8n's while the resumed run goes on); a tap that
		// n8n reads only after the resumed run finished (a busy machine: sqlite serialises the reads) gets n8n's own
		// "No action required" page. None is told it counted.
		const loserPage = (tap: Page) =>
			tap.status === 409 || (tap.status === 200 && tap.body.includes('No action required'));
		assert.ok(
			taps.filter((tap) => !isReceived(tap)).every(loserPage),
			`the others are told the question was answered: ${seen}`,
		);
		const winner = taps.findIndex(isReceived);
		const winningAnswer = raced.buttons[picks[winner]].name;
		assertPage(taps[winner], 200, `Your answer “${winningAnswer}” has been received.`);
		assert.equal(
			taps[winner].headers.get('access-control-allow-origin'),
			null,
			'the received page gives no cross-origin read permission',
		);
		const racedRun = await finished(env, approval.id, raced.executionId);
		assertSucceeded(racedRun);
		const racedOutput = onlyOutput(racedRun, ASK);
		assert.equal(racedOutput.length, 1, 'one answer recorded');
		assert.equal(racedOutput[0].data.answer, winningAnswer, 'the recorded answer is the one told "received"');
		executions.push({ execution: racedRun, resumes: 1 });
		const loser = taps.find((tap) => tap.status === 409 && tap.body.includes('already been answered'));
		if (photograph && loser)
			await screenshot(photograph, shot('already-answered'), async (page) => page.setContent(loser.body));

		// A question stopped while it waits (a person's "Stop" in the editor, or the API): its page shown before the stop
		// and the link afterwards resume nothing. n8n 2.41.1 marks the execution `canceled` with an error
		// (ExecutionService.stopDuringRun; stopBeforeRun only for executions still queued by concurrency control), and
		// WaitingWebhooks refuses the links of an execution with an error before the node is asked.
		const stopped = await ask(env, approval, 'Approve the withdrawn refund?');
		const stoppedPage = await open(stopped.buttons[0].url);
		assertPage(stoppedPage, 200, 'Confirm your answer');
		const stop = await env.api.stopExecution(stopped.executionId);
		assert.deepEqual([stop.status, stop.finished], ['canceled', false]);
		await afterHumanMoment(stoppedPage.body);
		const refusal = `The execution "${stopped.executionId}" has finished with error.`;
		for (const refused of [
			await confirm(stopped.buttons[0].url, { token: tokenOf(stoppedPage) }),
			await open(stopped.buttons[1].url),
		]) {
			assert.equal(refused.status, 409);
			assert.equal(JSON.parse(refused.body).message, refusal);
		}
		const stoppedRun = await execution(env, approval.id, stopped.executionId);
		assert.equal(stoppedRun.status, 'canceled', 'the confirmation after the stop resumed nothing');
		assert.equal(stoppedRun.data?.resultData.runData[AFTER], undefined, 'the node after the question never ran');

		// A loop of two subscribers in one execution.
		const loop = await publish(env, (p) => loopWorkflow(env, p));
		const first = await newSubscriber(env);
		const second = await newSubscriber(env);
		const before = new Set((await env.api.executions(loop.id)).map((candidate) => candidate.id));
		const question = 'Can you take the Sunday shift?';
		const started = await callProductionWebhook(env.n8n.baseUrl, loop.path, {
			question,
			subscribers: [{ clientId: first }, { clientId: second }],
		});
		assert.equal(started.status, 200);
		const loopId = await waitingExecution(env, loop.id, before);
		const firstButtons = await questionButtons(env, first, question, loopId);
		const firstApproveToken = tokenOf(await open(firstButtons[0].url));
		const loopFrom = Date.now();
		assertPage(await answer(firstButtons[1].url), 200, 'Your answer “Decline” has been received.');
		const secondButtons = await questionButtons(env, second, question, loopId);
		await waitFor(async () => ((await execution(env, loop.id, loopId)).status === 'waiting' ? true : undefined), {
			what: `execution ${loopId} to wait for the second subscriber`,
			timeoutMs: 30_000,
		});
		// The first subscriber replays her old Approve link while the second is asked.
		assertPage(await open(firstButtons[0].url), 410, 'replaced by a newer one');
		assertPage(await confirm(firstButtons[0].url, { token: firstApproveToken }), 410, 'replaced by a newer one');
		assert.equal((await execution(env, loop.id, loopId)).status, 'waiting', 'the replay resumed nothing');
		if (photograph)
			await screenshot(photograph, shot('replaced'), async (page) => void (await page.goto(firstButtons[0].url)));
		assertPage(await answer(secondButtons[0].url), 200, 'Your answer “Approve” has been received.');
		const loopRun = await finished(env, loop.id, loopId);
		assertSucceeded(loopRun);
		const [firstRun, secondRun] = runsOf(loopRun, ASK);
		assertAnswered(firstRun, { answer: 'Decline', approved: false }, first, { from: loopFrom, to: Date.now() });
		assertAnswered(secondRun, { answer: 'Approve', approved: true }, second, { from: loopFrom, to: Date.now() });
		executions.push({ execution: loopRun, resumes: 2 });

		// Several subscribers asked at once, each with links of their own: the second answers (through the sandbox) and
		// decides; the output names everyone asked and whose link the answer came through.
		const several = await publish(env, (p) =>
			askWorkflow(env, p, { askWhom: 'list', clientIds: '={{ $json.body.clientIds }}' }),
		);
		const [firstAsked, secondAsked] = [await newSubscriber(env), await newSubscriber(env)];
		const beforeSeveral = new Set((await env.api.executions(several.id)).map((candidate) => candidate.id));
		const severalQuestion = 'Who can take the night shift?';
		const startedSeveral = await callProductionWebhook(env.n8n.baseUrl, several.path, {
			question: severalQuestion,
			clientIds: [firstAsked, secondAsked],
		});
		assert.equal(startedSeveral.status, 200);
		const severalId = await waitingExecution(env, several.id, beforeSeveral);
		const firstLinks = await questionButtons(env, firstAsked, severalQuestion, severalId);
		const secondLinks = await questionButtons(env, secondAsked, severalQuestion, severalId);
		assert.deepEqual(
			[...firstLinks, ...secondLinks].map((button) => new URL(button.url).searchParams.get('s')),
			['0', '0', '1', '1'],
			'each subscriber has links of their own',
		);
		const severalFrom = Date.now();
		const decided = await env.service.sandboxRoute<{ steps: PlayStep[] }>('/answer', {
			botid: BOT,
			clientid: secondAsked,
			button: 'Approve',
		});
		assert.deepEqual(
			decided.steps.map((step) => `${step.action} ${step.status} ${step.heading}`),
			['open 200 Confirm your answer', 'press 200 Thank you'],
		);
		const severalRun = await finished(env, several.id, severalId);
		assertSucceeded(severalRun);
		const [severalOutput] = onlyOutput(severalRun, ASK);
		const { respondedAt: severalAt, ...severalData } = severalOutput.data;
		const spelled = (clientid: string) => ({ botid: BOT, clientid, messenger: 'telegram' });
		assert.deepEqual(severalData, {
			answer: 'Approve',
			approved: true,
			timedOut: false,
			askedSubscribers: [spelled(firstAsked), spelled(secondAsked)],
			answerLinkOf: spelled(secondAsked),
			answeredThrough: 'answerLink',
		});
		assert.ok(Date.parse(severalAt) >= severalFrom - 1000, `respondedAt ${severalAt} is after the answer was sent`);
		executions.push({ execution: severalRun, resumes: 1 });
		// The question is decided: the first subscriber's link answers nothing more (n8n's own page).
		const lateTap = await open(firstLinks[1].url);
		assert.ok(!lateTap.body.includes('Confirm your answer'), `the decided question asks nothing: ${lateTap.status}`);

		// Deciding by several answers, and the follow-ups, at once: each has workflows and subscribers of its own, and the
		// follow-ups spend most of their time waiting for their steps to fall due.
		const [decidedByApprovals, followedUp] = await Promise.all([
			decideByApprovals(env),
			followUps(env),
			reminderAfterAnswer(env),
		]);
		executions.push(decidedByApprovals, followedUp);

		// The Choice question (with a comment box), answered through the sandbox as its subscriber would, with a comment
		// (after the scanner's quiet time).
		const choiceFrom = Date.now();
		const played = await env.service.sandboxRoute<{ steps: PlayStep[] }>('/answer', {
			botid: BOT,
			clientid: chosen.clientId,
			button: 'Green',
			text: 'Dark green, if you have it',
		});
		assert.deepEqual(
			played.steps.map((step) => `${step.action} ${step.status} ${step.heading}`),
			['open 200 Confirm your answer', 'press 200 Thank you'],
		);
		const chosenRun = await finished(env, choice.id, chosen.executionId);
		assertSucceeded(chosenRun);
		assertAnswered(
			onlyOutput(chosenRun, ASK),
			{ answer: 'Green', comment: 'Dark green, if you have it' },
			chosen.clientId,
			{
				from: choiceFrom,
				to: Date.now(),
			},
		);
		executions.push({ execution: chosenRun, resumes: 1 });

		// Free Text and Custom Form, answered on their page.
		assert.deepEqual(
			written.buttons.map((button) => button.name),
			['Write back'],
		);
		// An answer over the length limit (10000 characters by default) is refused, with its text kept to shorten.
		const tooLong = `${'Long story. '.repeat(833)}The end.`;
		assert.equal([...tooLong].length, 10_004);
		const writingPage = await open(written.buttons[0].url);
		await afterHumanMoment(writingPage.body);
		const refusedLong = await confirm(written.buttons[0].url, { token: tokenOf(writingPage), text: tooLong });
		assertPage(refusedLong, 422, 'This answer is 10004 characters long; at most 10000 are accepted.');
		assert.ok(refusedLong.body.includes(`required>${tooLong}</textarea>`), 'the refused page keeps the text');
		await assertHugeAnswerRefusedCheaply(env, written.buttons[0].url);
		// Answered through the sandbox: it opens the link, types the text and sends the page's form.
		const writtenFrom = Date.now();
		const sent = await env.service.sandboxRoute<{ steps: PlayStep[] }>('/answer', {
			botid: BOT,
			clientid: written.clientId,
			text: 'The box was wet',
		});
		assert.deepEqual(
			sent.steps.map((step) => [step.action, step.status, step.heading, step.text[0]]),
			[
				['open', 200, 'Your answer', 'What went wrong with the delivery?'],
				['press', 200, 'Thank you', 'Your answer “The box was wet” has been received.'],
			],
		);
		const writtenRun = await finished(env, freeText.id, written.executionId);
		assertSucceeded(writtenRun);
		assertAnswered(onlyOutput(writtenRun, ASK), { answer: 'The box was wet' }, written.clientId, {
			from: writtenFrom,
			to: Date.now(),
		});
		executions.push({ execution: writtenRun, resumes: 1 });

		if (photograph)
			await screenshot(photograph, shot('form'), async (page) => void (await page.goto(filled.buttons[0].url)));
		const formPage = await open(filled.buttons[0].url);
		const formToken = tokenOf(formPage);
		await afterHumanMoment(formPage.body);
		const formErrors = await confirm(
			filled.buttons[0].url,
			{ token: formToken, f0: 'Ana', f1: '1e-400', f2: '1', f3: '' },
			true,
		);
		assertPage(formErrors, 422, 'This field is required.');
		assertPage(formErrors, 422, 'This number is too close to zero to be kept exactly');
		const formFrom = Date.now();
		assertPage(
			await confirm(filled.buttons[0].url, { token: formToken, f0: 'Ana', f1: '2', f2: '1', f3: '2026-12-24' }, true),
			200,
			'Your answer “Name: Ana; Boxes: 2; Slot: Evening; Day: 2026-12-24” has been received.',
		);
		const filledRun = await finished(env, form.id, filled.executionId);
		assertSucceeded(filledRun);
		assertAnswered(
			onlyOutput(filledRun, ASK),
			{
				answer: { Name: 'Ana', Boxes: 2, Slot: 'Evening', Day: '2026-12-24' },
				fields: [
					{ label: 'Name', value: 'Ana' },
					{ label: 'Boxes', value: 2 },
					{ label: 'Slot', value: 'Evening' },
					{ label: 'Day', value: '2026-12-24' },
				],
			},
			filled.clientId,
			{ from: formFrom, to: Date.now() },
		);
		executions.push({ execution: filledRun, resumes: 1 });

		// Labels every JavaScript object inherits are labels like any other: page, re-render and output.
		const protoForm = await publish(env, (p) =>
			askWorkflow(env, p, {
				responseType: 'customForm',
				formFields: {
					values: PROTOTYPE_NAMES.map((fieldLabel) => ({ fieldLabel, fieldType: 'text', requiredField: true })),
				},
			}),
		);
		const protoAsked = await ask(env, protoForm, 'Fill in the odd labels');
		const protoPage = await open(protoAsked.buttons[0].url);
		for (const name of PROTOTYPE_NAMES) assertPage(protoPage, 200, `>${name} *</label>`);
		await afterHumanMoment(protoPage.body);
		const protoToken = tokenOf(protoPage);
		const last = PROTOTYPE_NAMES.length - 1;
		const protoTyped = Object.fromEntries(PROTOTYPE_ANSWERS.map((text, index) => [`f${index}`, text]));
		const protoAgain = await confirm(
			protoAsked.buttons[0].url,
			{ token: protoToken, ...protoTyped, [`f${last}`]: '' },
			true,
		);
		assertPage(protoAgain, 422, `name="f${last}" value="" required><p class="error">This field is required.</p>`);
		for (const [index, text] of PROTOTYPE_ANSWERS.slice(0, last).entries())
			assertPage(protoAgain, 422, `name="f${index}" value="${text}" required>`);
		assertPage(
			await confirm(protoAsked.buttons[0].url, { token: protoToken, ...protoTyped }, true),
			200,
			'has been received',
		);
		const protoRun = await finished(env, protoForm.id, protoAsked.executionId);
		assertSucceeded(protoRun);
		for (const node of [ASK, AFTER]) {
			const [item] = onlyOutput(protoRun, node);
			// The list keeps every label with its value, in field order, past n8n's copying of items.
			assert.deepEqual(
				item.data.fields,
				[
					{ label: 'constructor', value: 'one' },
					{ label: 'toString', value: 'two' },
					{ label: 'valueOf', value: 'three' },
					{ label: 'hasOwnProperty', value: 'four' },
					{ label: '__proto__', value: 'five' },
					{ label: 'prototype', value: 'six' },
				],
				`${node} lists every label with its value`,
			);
			// The answer object keeps the other labels (n8n's deepCopy leaves __proto__, constructor and prototype out).
			assert.deepEqual(
				Object.entries(item.data.answer as Record<string, unknown>).filter(
					([label]) => !DROPPED_BY_DEEP_COPY.includes(label),
				),
				[
					['toString', 'two'],
					['valueOf', 'three'],
					['hasOwnProperty', 'four'],
				],
				`${node} names the other values by label`,
			);
			// The subscriber asked, and that the answer came through the link (whoever held it).
			assert.deepEqual(
				[item.data.askedSubscriber, item.data.answeredThrough, 'respondedBy' in item.data],
				[{ botid: BOT, clientid: protoAsked.clientId, messenger: 'telegram' }, 'answerLink', false],
			);
		}
		executions.push({ execution: protoRun, resumes: 1 });

		if (photograph) await screenshot(photograph, shot('expired'), async (page) => page.setContent(late.page.body));
		const timedOutRun = await finished(env, limited.id, late.executionId, TIME_LIMIT_WAIT_MS);
		assertSucceeded(timedOutRun);
		assert.deepEqual(onlyOutput(timedOutRun, ASK), [timedOut(late.clientId)]);
		assert.deepEqual(onlyOutput(timedOutRun, AFTER), [timedOut(late.clientId)]);
		executions.push({ execution: timedOutRun, resumes: 1 });
		const decidedRun = await finished(env, deciding.id, undecided.executionId, TIME_LIMIT_WAIT_MS);
		assertSucceeded(decidedRun);
		const approvedByDeadline = {
			data: { ...timedOut(undecided.clientId).data, answer: 'Approve', approved: true },
		};
		assert.deepEqual(onlyOutput(decidedRun, ASK), [approvedByDeadline]);
		assert.deepEqual(onlyOutput(decidedRun, AFTER), [approvedByDeadline]);
		executions.push({ execution: decidedRun, resumes: 1 });

		for (const workflow of [limited, deciding, approval, loop, several, freeText, form, choice, protoForm])
			await env.api.unpublishWorkflow(workflow.id);
		return executions;
	} finally {
		await browser?.close();
	}
}
