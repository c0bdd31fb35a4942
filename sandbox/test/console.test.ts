import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, get as httpGet, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { paymentsState } from '../src/domain/hooksPayments';
import { openSandbox, type OpenSandbox } from './client';
import { eventually, TestReceiver } from './hooksTestReceiver';

/**
 * The console in Debian's headless Chromium: every panel read and used from the page. With
 * CONSOLE_SCREENSHOTS=1 the screenshots go to sandbox/docs (docs/console.md shows them); otherwise to a
 * temporary folder, so a test run changes no tracked file.
 */
const CHROMIUM = process.env.E2E_CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/** A GET with a Host header of our choosing (fetch sets its own). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const request = httpGet(url, { headers: { host } }, (response) => {
			let body = '';
			response.on('data', (chunk) => (body += chunk));
			response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
		});
		request.on('error', reject);
	});
}

/** A site the chat's link buttons point at: it records every request and answers a small page. */
async function startLinkSite(): Promise<{
	url: string;
	requests: { method: string; path: string; headers: IncomingHttpHeaders }[];
	close: () => Promise<void>;
}> {
	const requests: { method: string; path: string; headers: IncomingHttpHeaders }[] = [];
	const server: Server = createServer((req, res) => {
		requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
		res
			.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
			.end('<!doctype html><title>Answer page</title><p>Answer page</p>');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests,
		close: () => {
			server.closeAllConnections();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

/** What the open chat shows, message by message, read from the page. */
function shownMessages(page: Page) {
	return page.locator('#chat-messages li.message').evaluateAll((items) =>
		items.map((item) => ({
			sender: item.querySelector('.sender')?.textContent,
			text: item.querySelector('.text')?.textContent,
			buttons: [...item.querySelectorAll('a.chat-button')].map((link) => ({
				label: link.textContent,
				href: link.getAttribute('href'),
				target: link.getAttribute('target'),
				rel: link.getAttribute('rel'),
			})),
		})),
	);
}

// Skipped only outside CI (npm test says so when it starts); in CI a missing browser fails the suite.
const describeWithChromium = existsSync(CHROMIUM) || process.env.CI ? describe : describe.skip;

describeWithChromium('the console in Chromium', () => {
	let open: OpenSandbox;
	let receiver: TestReceiver;
	let hookSecret: string;
	let profile: string;
	let shots: string;
	let browser: BrowserContext;
	let page: Page;
	let links: Awaited<ReturnType<typeof startLinkSite>>;

	beforeAll(async () => {
		open = await openSandbox({ retrySchedule: [0.05] });
		receiver = await TestReceiver.start();
		links = await startLinkSite();
		const hook = await open.api.post('/hook/create', {
			name: 'console watcher',
			url: receiver.url,
			events: ['subscriber.new', 'subscriber.stage', 'payment.success'],
		});
		expect(hook.status).toBe(200);
		hookSecret = hook.body.secret;
		profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
		shots =
			process.env.CONSOLE_SCREENSHOTS === '1'
				? join(__dirname, '..', 'docs')
				: mkdtempSync(join(tmpdir(), 'console-shots-'));
		mkdirSync(shots, { recursive: true });
		browser = await chromium.launchPersistentContext(profile, {
			executablePath: CHROMIUM,
			headless: true,
			args: CHROMIUM_FLAGS,
			viewport: { width: 1360, height: 900 },
		});
		page = browser.pages()[0] ?? (await browser.newPage());
		page.on('dialog', (dialog) => void dialog.dismiss());
	});

	afterAll(async () => {
		try {
			await browser?.close();
			await receiver?.close();
			await links?.close();
			// Throws when an answer was outside the OpenAPI document: the folders go all the same.
			await open?.close();
		} finally {
			rmSync(profile, { recursive: true, force: true });
			if (process.env.CONSOLE_SCREENSHOTS !== '1') rmSync(shots, { recursive: true, force: true });
		}
	});

	const showTab = async (tab: string) => {
		await page.click(`#tabs a[data-tab="${tab}"]`);
		await page.waitForSelector(`body[data-loaded="${tab}"]`);
	};

	test('the root sends a browser to the console; overview shows the clock, settings and masked keys, and moves the clock', async () => {
		await page.goto(`${open.sandbox.url}/`);
		expect(new URL(page.url()).pathname).toBe('/console/');
		await page.waitForSelector('body[data-loaded="overview"]');
		expect(await page.textContent('#api-base')).toBe(open.sandbox.baseUrl);
		const settings = await page.textContent('#settings');
		expect(settings).toContain('retrySchedule');
		expect(settings).toContain('rateLimit');
		const html = await page.content();
		expect(html).not.toContain(open.sandbox.adminKey);
		expect(await page.textContent('#keys')).toContain(open.sandbox.adminKey.slice(0, 4));

		const before = open.sandbox.context.clock.now() - Date.now();
		await page.click('button[data-advance="3600"]');
		await eventually(() => open.sandbox.context.clock.now() - Date.now() - before > 3_500_000);
		const shown = Date.parse(((await page.textContent('#clock-big')) ?? '').replace(' ', 'T'));
		await eventually(
			async () =>
				Math.abs(
					Date.parse(((await page.textContent('#clock-big')) ?? '').replace(' ', 'T')) -
						open.sandbox.context.clock.now(),
				) < 5000,
		);
		expect(Number.isNaN(shown)).toBe(false);
		await page.screenshot({ path: join(shots, 'console-overview.png'), fullPage: true });
	});

	test("buttons cause events: a new subscriber, a stage change and a payment each reach the hook's receiver", async () => {
		const start = receiver.received.length;
		await page.selectOption('#form-subscriber select[name="botid"]', 'bot_tg');
		await page.fill('#form-subscriber input[name="clientid"]', '700123');
		await page.fill('#form-subscriber input[name="name"]', 'Console Carol');
		await page.click('#form-subscriber button[type="submit"]');
		await page.waitForSelector('#event-result.ok');
		expect(await page.textContent('#event-result')).toContain('700123 created');

		await page.selectOption('#form-stage select[name="botid"]', 'bot_tg');
		await page.fill('#form-stage input[name="clientid"]', '700123');
		await page.selectOption('#form-stage select[name="stage"]', 'Qualified');
		await page.click('#form-stage button[type="submit"]');
		await eventually(async () => (await page.textContent('#event-result'))?.includes('→ Qualified'));

		await page.selectOption('#form-payment select[name="botid"]', 'bot_tg');
		await page.fill('#form-payment input[name="clientid"]', '700123');
		await page.fill('#form-payment input[name="amount"]', '12.50');
		await page.fill('#form-payment input[name="currency"]', 'EUR');
		await page.click('#form-payment button[type="submit"]');
		await eventually(async () => (await page.textContent('#event-result'))?.includes('payment.success'));

		const delivered = await receiver.waitFor(start + 3);
		const events = delivered.slice(start).map((delivery) => delivery.event);
		expect(events.map((event) => event.type)).toEqual(['subscriber.new', 'subscriber.stage', 'payment.success']);
		expect(events[0].data.subscriber).toEqual(
			expect.objectContaining({ botid: 'bot_tg', clientid: '700123', name: 'Console Carol' }),
		);
		expect(events[1].data).toEqual(expect.objectContaining({ stage: 'Qualified', previous: null }));
		expect(events[2].data.payment).toEqual(
			expect.objectContaining({
				botid: 'bot_tg',
				clientid: '700123',
				messenger: 'telegram',
				amount: 12.5,
				currency: 'EUR',
			}),
		);
		// The state behind the events, read through the API as a client would.
		const card = await open.api.get('/subscriber/get', { botid: 'bot_tg', clientid: '700123' });
		expect(card.body.subscriber).toEqual(expect.objectContaining({ name: 'Console Carol', stage: 'Qualified' }));
	});

	test('bots and data: bots, subscribers, list rows and catalog items as the API has them', async () => {
		await showTab('data');
		const bots = (await open.api.get('/bot/list')).body.items as { id: string }[];
		const botsText = await page.textContent('#bots');
		for (const bot of bots) expect(botsText).toContain(bot.id);
		const subscribers = await open.api.get('/subscriber/list', { limit: 1000 });
		expect(await page.textContent('#subscribers-total')).toBe(`${subscribers.body.total} in all, newest first`);
		expect(await page.textContent('#subscribers tbody tr:first-child')).toContain('Console Carol');

		const leads = (await open.api.get('/list/rows/get', { list: 'Leads', limit: 1000 })).body.items as {
			values: string[];
		}[];
		expect(await page.locator('#rows tbody tr').count()).toBe(leads.length);
		expect(await page.textContent('#rows')).toContain('Alice Smith');
		await open.api.post('/list/row/add', { list: 'Leads', row: { Name: 'Row From Test', Phone: '+1555' } });
		await page.click('#lists button[data-list]');
		await eventually(async () => (await page.textContent('#rows'))?.includes('Row From Test'));

		const catalog = await page.textContent('#catalog');
		for (const title of ['Classic T-shirt', 'Hoodie', 'Coffee mug', 'Sticker pack', 'Winter cap'])
			expect(catalog).toContain(title);
		await page.screenshot({ path: join(shots, 'console-data.png'), fullPage: true });
	});

	test('the API log shows calls as they happen', async () => {
		await showTab('log');
		await open.api.post('/subscriber/tag/add', { botid: 'bot_tg', clientid: '100001', tag: 'from-test' });
		await open.api.withKey('not-a-key').get('/bot/list');
		await eventually(async () => {
			const rows = await page.locator('#log-table tbody tr').allTextContents();
			return (
				rows.some((row) => row.includes('/subscriber/tag/add') && row.includes('200')) &&
				rows.some((row) => row.includes('/bot/list') && row.includes('401'))
			);
		});
		expect(await page.locator('#log-table tbody tr.failed').count()).toBeGreaterThan(0);
		await page.screenshot({ path: join(shots, 'console-log.png'), fullPage: true });
	});

	test('deliveries show every attempt; a given-up delivery sent again from the page reaches the receiver', async () => {
		receiver.answer = () => ({ status: 503 });
		const start = receiver.received.length;
		await open.api.post('/subscriber/create', { botid: 'bot_wa', clientid: '15550999', name: 'Given Up' });
		await receiver.waitFor(start + 2);
		const failed = await eventually(async () => {
			const page_ = await open.api.get('/hook/deliveries', { status: 'failed' });
			return (page_.body.items as { id: string; event: { id: string } }[])[0];
		});

		await showTab('hooks');
		const card = page.locator(`[data-delivery="${failed.id}"]`);
		await card.waitFor();
		expect(await card.locator('.pill').textContent()).toBe('failed');
		expect(await card.locator('.attempt').count()).toBe(2);
		expect(await card.locator('.attempt').first().textContent()).toContain('HTTP 503');
		expect(await card.locator('.scheme').first().textContent()).toMatch(
			/^JWT HS256 \(kid hook_[0-9a-f]+\) \+ Standard Webhooks v1$/,
		);
		await card.locator('details').first().locator('summary').click();
		expect(JSON.parse((await card.locator('details').first().locator('pre').textContent()) ?? '')).toEqual(
			failed.event,
		);
		await card.locator('details').last().locator('summary').click();
		expect(await card.locator('details').last().textContent()).toMatch(/webhook-signature: v1,/);
		const hooksText = await page.textContent('#hooks-table');
		expect(hooksText).toContain(hookSecret.slice(0, 6));
		expect(await page.content()).not.toContain(hookSecret);

		receiver.answer = () => ({ status: 200 });
		await card.locator('button.redeliver').click();
		const again = await receiver.waitFor(start + 3);
		expect(again[start + 2].event.id).toBe(failed.event.id);
		await eventually(
			async () => (await page.locator(`[data-delivery="${failed.id}"] .pill`).textContent()) === 'delivered',
		);
		expect(await page.locator(`[data-delivery="${failed.id}"] .attempt`).count()).toBe(3);
		await page.screenshot({ path: join(shots, 'console-deliveries.png'), fullPage: true });
	});

	test('delivery chaos is set from the page, and each delivery says what it did to it', async () => {
		receiver.answer = () => ({ status: 200 });
		await showTab('hooks');
		try {
			await page.fill('#form-chaos input[name="duplicate"]', '1');
			await page.fill('#form-chaos input[name="delay"]', '1');
			await page.fill('#form-chaos input[name="delayMs"]', '50');
			await page.click('#form-chaos button[type="submit"]');
			await eventually(async () => (await page.textContent('#chaos-result')) === 'Chaos on: duplicate 1, delay 1');
			expect((await open.routes.get<{ chaos: Record<string, number> }>('/sandbox/chaos')).body.chaos).toMatchObject({
				duplicate: 1,
				delay: 1,
				delayMs: 50,
				cut: 0,
			});
			const start = receiver.received.length;
			await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid: '100777', name: 'Chaos' });
			const copies = (await receiver.waitFor(start + 2)).slice(start);
			expect(copies[0].event.id).toBe(copies[1].event.id);
			const card = page.locator(`[data-delivery]`, { hasText: copies[0].event.id });
			// The page refreshes once a second: it may first show the delivery with one attempt recorded.
			const chaosNote = 'chaos delayed 50 ms · duplicated: attempts 1 and 2 sent at once';
			await eventually(
				async () =>
					(await card
						.locator('.chaos')
						.textContent()
						.catch(() => null)) === chaosNote,
				15_000,
			);
			expect(await card.locator('.chaos').textContent()).toBe(chaosNote);
			await page.click('#chaos-off');
			await eventually(async () => (await page.textContent('#chaos-result')) === 'Chaos off');
			expect(await page.inputValue('#form-chaos input[name="duplicate"]')).toBe('0');
		} finally {
			await open.routes.post('/sandbox/chaos', {});
		}
	});

	describe('chats', () => {
		const refund = () => ({
			text: 'Refund order 1042 (49.90 EUR)?',
			buttons: [
				{ name: 'Approve', url: `${links.url}/webhook-waiting/1042?answer=Approve&signature=5f1c%2Bb2` },
				{ name: 'Decline', url: `${links.url}/webhook-waiting/1042?answer=Decline&signature=9a0e%2F77` },
			],
		});
		const send = async (clientid: string, message: { text: string; buttons?: { name: string; url: string }[] }) => {
			const sent = await open.api.post('/message/send', { botid: 'bot_tg', clientid, ...message });
			expect([clientid, sent.status]).toEqual([clientid, 200]);
		};
		const openChatOf = async (key: string, name: string) => {
			await page.click(`#chat-list li[data-subscriber="${key}"] button`);
			await page.waitForSelector(`#chat-list li.selected[data-subscriber="${key}"]`);
			await eventually(async () => (await page.textContent('#chat-title'))?.startsWith(`Chat with ${name} `), 15_000);
		};
		const asSent = (buttons: { name: string; url: string }[]) =>
			buttons.map((button) => ({ label: button.name, href: button.url, target: '_blank', rel: 'noopener noreferrer' }));

		test("each subscriber's chat, newest first, who sent each message, its buttons; a subscriber without messages says so", async () => {
			for (const [clientid, name] of [
				['700201', 'Dana Chat'],
				['700202', 'Quinn Quiet'],
			]) {
				expect((await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid, name })).status).toBe(200);
			}
			const rate = {
				text: 'How was your delivery?\nTap to rate it.',
				buttons: [{ name: 'Rate us', url: `${links.url}/rate?order=1042` }],
			};
			await send('700201', { text: 'Your order 1042 has shipped.' });
			await send('700201', rate);
			await send('700201', refund());

			await showTab('chats');
			// The chat written to last is first, and open.
			await eventually(
				async () => (await page.getAttribute('#chat-list li:first-child', 'data-subscriber')) === 'bot_tg/700201',
				15_000,
			);
			await eventually(async () => (await page.textContent('#chat-title'))?.startsWith('Chat with Dana Chat '), 15_000);
			expect(await page.textContent('#chat-list li:first-child')).toBe(
				'Dana Chat3 messagesbot_tg · 700201 · telegramBot: Refund order 1042 (49.90 EUR)?',
			);
			expect(await page.textContent('#chat-title')).toBe('Chat with Dana Chat bot_tg · client id 700201 · telegram');
			expect(await shownMessages(page)).toEqual([
				{ sender: 'Bot · via the API', text: 'Refund order 1042 (49.90 EUR)?', buttons: asSent(refund().buttons) },
				{ sender: 'Bot · via the API', text: 'How was your delivery?\nTap to rate it.', buttons: asSent(rate.buttons) },
				{ sender: 'Bot · via the API', text: 'Your order 1042 has shipped.', buttons: [] },
			]);
			expect(await page.textContent('#chat-range')).toBe(
				"Messages 1–3 of 3, newest first, 20 a page. A button opens its link in a new tab, as the subscriber's phone would.",
			);

			// Subscribers without messages come after every chat, the newest card first.
			const rows = await page.locator('#chat-list li').evaluateAll((items) =>
				items.map((item) => ({
					key: item.getAttribute('data-subscriber'),
					count: item.querySelector('.count')?.textContent,
				})),
			);
			const firstEmpty = rows.findIndex((row) => row.count === '0 messages');
			expect(rows[firstEmpty].key).toBe('bot_tg/700202');
			expect(rows.slice(firstEmpty).every((row) => row.count === '0 messages')).toBe(true);
			expect(await page.textContent('#chat-list li[data-subscriber="bot_tg/700202"] .last')).toBe('no messages');
			await openChatOf('bot_tg/700202', 'Quinn Quiet');
			expect(await page.locator('#chat-messages li.message').count()).toBe(0);
			expect(await page.textContent('#chat-messages li.empty')).toBe(
				'No messages yet. What the bot sends this subscriber (Message → Send, Send and Wait for Response, broadcasts, chains) appears here, newest first.',
			);
			expect(await page.textContent('#chat-range')).toBe('');

			// What the subscriber wrote is marked as theirs (the demo chat of Alice Smith).
			await openChatOf('bot_tg/100001', 'Alice Smith');
			expect(await shownMessages(page)).toEqual([
				{ sender: 'Bot · via the API', text: 'Yes, delivery to Berlin takes 2 days.', buttons: [] },
				{ sender: 'Bot · via the API', text: 'Hello, Alice Smith!', buttons: [] },
				{ sender: 'Subscriber', text: 'Hi! Do you ship to Berlin?', buttons: [] },
			]);
			expect(await page.getAttribute('#chat-messages li.message:last-child', 'class')).toBe('message in');
		});

		test("a button opens its exact link in a new tab as the subscriber's browser would: a plain GET, no Referer, no opener", async () => {
			await openChatOf('bot_tg/700201', 'Dana Chat');
			await page.screenshot({ path: join(shots, 'console-chat.png'), fullPage: true });
			const consoleUrl = page.url();
			const approve = refund().buttons[0].url;
			const before = links.requests.length;
			const [opened] = await Promise.all([
				browser.waitForEvent('page'),
				page.click('#chat-messages li.message:first-child a.chat-button:text-is("Approve")'),
			]);
			await opened.waitForLoadState('domcontentloaded');
			expect(opened.url()).toBe(approve);
			expect(await opened.textContent('p')).toBe('Answer page');
			expect(await opened.evaluate(() => (globalThis as unknown as { opener: unknown }).opener)).toBeNull();
			const visits = links.requests.slice(before).filter((request) => request.path !== '/favicon.ico');
			expect(visits.map((request) => [request.method, request.path])).toEqual([
				['GET', '/webhook-waiting/1042?answer=Approve&signature=5f1c%2Bb2'],
			]);
			expect(visits[0].headers.referer).toBeUndefined();
			expect([visits[0].headers['sec-fetch-mode'], visits[0].headers['sec-fetch-dest']]).toEqual([
				'navigate',
				'document',
			]);
			await opened.close();
			// The console stays where it was.
			expect(page.url()).toBe(consoleUrl);
		});

		test('"Play this message" opens the links from the sandbox as a link preview or the subscriber and shows each request', async () => {
			await openChatOf('bot_tg/700201', 'Dana Chat');
			const message = page.locator('#chat-messages li.message:first-child');
			await message.locator('details.play summary').click();
			const before = links.requests.length;
			await message.locator('button[data-play="preview"]').click();
			const result = message.locator('.play-result');
			await eventually(async () => (await result.textContent())?.startsWith('GET 200') ?? false, 15_000);
			expect((await result.textContent())?.split('\n')).toEqual(
				['Approve', 'Decline'].flatMap(() => [
					'GET 200 Answer page · Answer page',
					'HEAD 200',
					'GET 200 Answer page · Answer page',
					'HEAD 200',
				]),
			);
			const previewed = links.requests.slice(before);
			expect(previewed.map((request) => [request.method, request.path.split('=')[1].split('&')[0]])).toEqual(
				['Approve', 'Decline'].flatMap((answer) => [
					['GET', answer],
					['HEAD', answer],
					['GET', answer],
					['HEAD', answer],
				]),
			);
			expect(previewed[0].headers['user-agent']).toBe('TelegramBot (like TwitterBot)');

			// The subscriber taps Decline: a page with nothing to press ends the play after its GET.
			await message.locator('select').selectOption('Decline');
			await message.locator('button[data-play="subscriber"]').click();
			await eventually(async () => (await result.textContent()) === 'GET 200 Answer page · Answer page', 15_000);
			const tapped = links.requests.at(-1)!;
			expect([tapped.method, tapped.path]).toEqual(['GET', '/webhook-waiting/1042?answer=Decline&signature=9a0e%2F77']);
			expect([tapped.headers['sec-fetch-site'], tapped.headers['sec-fetch-mode']]).toEqual(['none', 'navigate']);

			// Form values that are not JSON are refused in the page, before anything is opened.
			const opened = links.requests.length;
			await message.locator('input[type="text"]').fill('{"Name": ');
			await message.locator('button[data-play="subscriber"]').click();
			await eventually(
				async () =>
					(await result.textContent()) === 'The form values are not JSON: write them as {"Label": "value", ...}',
				15_000,
			);
			expect(links.requests.length).toBe(opened);
		});

		test('long chats and many subscribers come in pages (20 messages, 50 subscribers), newest first; new messages appear as they are sent', async () => {
			expect(
				(await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid: '700203', name: 'Many Messages' }))
					.status,
			).toBe(200);
			for (let n = 1; n <= 23; n++) await send('700203', { text: `Note ${n}` });
			const notes = (from: number, to: number) =>
				Array.from({ length: from - to + 1 }, (_, index) => `Note ${from - index}`);
			const texts = async () => (await shownMessages(page)).map((message) => message.text);

			await eventually(
				async () => (await page.getAttribute('#chat-list li:first-child', 'data-subscriber')) === 'bot_tg/700203',
				15_000,
			);
			await openChatOf('bot_tg/700203', 'Many Messages');
			expect(await texts()).toEqual(notes(23, 4));
			expect(await page.textContent('#chat-range')).toMatch(/^Messages 1–20 of 23, newest first, 20 a page\./);
			expect(await page.locator('#chat-pager button').allTextContents()).toEqual(['Older']);
			await page.click('#chat-pager button[data-page="older"]');
			await eventually(
				async () => (await page.textContent('#chat-range'))?.startsWith('Messages 21–23 of 23,'),
				15_000,
			);
			expect(await texts()).toEqual(notes(3, 1));
			expect(await page.locator('#chat-pager button').allTextContents()).toEqual(['Newer']);
			await page.click('#chat-pager button[data-page="newer"]');
			await eventually(async () => (await page.textContent('#chat-range'))?.startsWith('Messages 1–20 of 23,'), 15_000);
			expect(await texts()).toEqual(notes(23, 4));

			// A message sent while the chat is open appears on top without a reload.
			await send('700203', { text: 'Note 24' });
			await eventually(async () => (await page.textContent('#chat-range'))?.startsWith('Messages 1–20 of 24,'), 15_000);
			expect(await texts()).toEqual(notes(24, 5));

			// More than a page of subscribers.
			const existing = (await open.api.get('/subscriber/list', { limit: 1 })).body.total as number;
			const added = Math.max(0, 52 - existing);
			for (let n = 0; n < added; n++) {
				expect(
					(
						await open.api.post('/subscriber/create', {
							botid: 'bot_wa',
							clientid: `1555077${String(n).padStart(4, '0')}`,
						})
					).status,
				).toBe(200);
			}
			const total = existing + added;
			await eventually(
				async () => (await page.textContent('#chat-list-range')) === `1–50 of ${total}, the chat written to last first`,
				15_000,
			);
			expect(await page.locator('#chat-list li').count()).toBe(50);
			await page.click('#chat-list-pager button[data-page="older"]');
			await eventually(
				async () =>
					(await page.textContent('#chat-list-range')) === `51–${total} of ${total}, the chat written to last first`,
				15_000,
			);
			expect(await page.locator('#chat-list li').count()).toBe(total - 50);
			// The open chat stays open while another page of the list is shown.
			expect(await page.textContent('#chat-title')).toBe(
				'Chat with Many Messages bot_tg · client id 700203 · telegram',
			);
			await page.click('#chat-list-pager button[data-page="newer"]');
			await eventually(async () => (await page.textContent('#chat-list-range'))?.startsWith('1–50 of'), 15_000);
		});
	});

	test("every card of every tab fits its content, also the Settings card with a long data file's path", async () => {
		// A data file as deep as a clone's `npm run dev` keeps it; its path is one long word without spaces.
		const deep = join(
			mkdtempSync(join(tmpdir(), 'console-data-')),
			'home',
			'someone',
			'projects',
			'n8n-nodes-messenger-bot-builder',
			'e2e',
			'out',
			'dev',
		);
		mkdirSync(deep, { recursive: true });
		const dataFile = join(deep, 'sandbox.sqlite');
		const withFile = await openSandbox({ dataFile });
		const cardsPage = await browser.newPage();
		try {
			await cardsPage.goto(`${withFile.sandbox.url}/console/`);
			await cardsPage.waitForSelector('body[data-loaded="overview"]');
			const settingRows = await cardsPage.$$eval('#settings tbody tr', (rows) =>
				rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)),
			);
			expect(settingRows).toContainEqual(['dataFile', dataFile]);
			for (const tab of ['overview', 'data', 'chats', 'log', 'hooks']) {
				await cardsPage.click(`#tabs a[data-tab="${tab}"]`);
				await cardsPage.waitForSelector(`body[data-loaded="${tab}"]`);
				// A card whose content is wider than the card scrolls sideways (overflow-x: auto): its content is cut off.
				const cards = await cardsPage.$$eval('.tab.active article', (articles) =>
					articles.map((article) => ({
						card: article.querySelector('h2')?.textContent,
						content: article.scrollWidth,
						shown: article.clientWidth,
					})),
				);
				expect(cards.length).toBeGreaterThan(0);
				expect(cards.filter(({ content, shown }) => content > shown)).toEqual([]);
			}
		} finally {
			await cardsPage.close();
			await withFile.close();
			rmSync(deep.slice(0, deep.indexOf('/home/someone')), { recursive: true, force: true });
		}
	}, 90_000);

	test('a request from a foreign Origin, or naming a foreign Host, is refused and changes nothing', async () => {
		const session = await page.getAttribute('meta[name="console-session"]', 'content');
		expect(session).toMatch(/^[\w-]{32}$/);
		const { url } = open.sandbox;
		const host = new URL(url).host;
		const paymentsBefore = paymentsState(open.sandbox.context.store).payments.length;
		expect(paymentsBefore).toBe(1);
		const payment = { botid: 'bot_tg', clientid: '700123', messenger: 'telegram', amount: 1, currency: 'USD' };
		const send = (headers: Record<string, string>) =>
			fetch(`${url}/sandbox/payments`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-sandbox-console': session!, ...headers },
				body: JSON.stringify(payment),
			});

		const foreign = await send({ origin: 'http://evil.example' });
		expect([foreign.status, await foreign.json()]).toEqual([
			403,
			{ code: 'foreign_origin', error: 'Requests from another origin are refused' },
		]);
		const crossSite = await send({ origin: `http://${host}`, 'sec-fetch-site': 'cross-site' });
		expect(crossSite.status).toBe(403);
		const withKey = await fetch(`${url}/sandbox/payments`, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				authorization: open.sandbox.adminKey,
				origin: 'http://evil.example',
			},
			body: JSON.stringify(payment),
		});
		expect(withKey.status).toBe(403);
		const wrongSession = await send({ origin: `http://${host}`, 'x-sandbox-console': 'x'.repeat(32) });
		expect(wrongSession.status).toBe(401);
		// The chats the console reads: the same checks.
		const chats = (headers: Record<string, string>) =>
			fetch(`${url}/console/chats`, { headers: { 'x-sandbox-console': session!, ...headers } });
		expect((await chats({ origin: 'http://evil.example' })).status).toBe(403);
		expect((await chats({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
		expect((await chats({ 'x-sandbox-console': 'x'.repeat(32) })).status).toBe(401);
		expect((await fetch(`${url}/console/chats`)).status).toBe(401);
		expect((await chats({})).status).toBe(200);
		expect((await getWithHost(`${url}/console/chats`, `evil.example:${new URL(url).port}`)).status).toBe(403);
		// DNS rebinding: a page of another name that resolves to 127.0.0.1 sends its own name as Host.
		const rebound = await getWithHost(`${url}/console/`, `evil.example:${new URL(url).port}`);
		expect(rebound.status).toBe(403);
		expect(rebound.body).not.toContain(session!);
		expect((await getWithHost(`${url}/console/`, host)).status).toBe(200);

		// From the browser itself: a page of another origin (the same server named localhost) cannot make the sandbox act.
		await page.goto(`${url.replace('127.0.0.1', 'localhost')}/openapi.json`);
		const fromOtherSite = await page.evaluate(
			async ([target, body, token]) => {
				try {
					const response = await fetch(`${target}/sandbox/payments`, {
						method: 'POST',
						headers: { 'content-type': 'application/json', 'x-sandbox-console': token },
						body,
					});
					return `status ${response.status}`;
				} catch (error) {
					return `blocked: ${(error as Error).name}`;
				}
			},
			[url, JSON.stringify(payment), session!] as const,
		);
		expect(fromOtherSite).toMatch(/^blocked: TypeError$/);
		// A simple cross-site form-like POST (no preflight) reaches the server and is refused there.
		const simple = await page.evaluate(
			async ([target, body]) => {
				const response = await fetch(`${target}/sandbox/payments`, { method: 'POST', mode: 'no-cors', body });
				return response.type;
			},
			[url, JSON.stringify(payment)] as const,
		);
		expect(simple).toBe('opaque');
		// Nothing was paid (every request above was answered before this line).
		expect(paymentsState(open.sandbox.context.store).payments.length).toBe(paymentsBefore);
	});
});
