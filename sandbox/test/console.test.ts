import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { paymentsState } from '../src/domain/hooksPayments';
import { openSandbox, type OpenSandbox } from './client';
import { eventually, TestReceiver } from './hooksTestReceiver';

/**
 * The console in Debian's headless Chromium: every panel read and used from the page. With
 * CONSOLE_SCREENSHOTS=1 the screenshots go to sandbox/docs (the README shows them); otherwise to a
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

  beforeAll(async () => {
    open = await openSandbox({ retrySchedule: [0.05] });
    receiver = await TestReceiver.start();
    const hook = await open.api.post('/hook/create', { name: 'console watcher', url: receiver.url, events: ['subscriber.new', 'subscriber.stage', 'payment.success'] });
    expect(hook.status).toBe(200);
    hookSecret = hook.body.secret;
    profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
    shots = process.env.CONSOLE_SCREENSHOTS === '1' ? join(__dirname, '..', 'docs') : mkdtempSync(join(tmpdir(), 'console-shots-'));
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
    await eventually(async () => Math.abs(Date.parse(((await page.textContent('#clock-big')) ?? '').replace(' ', 'T')) - open.sandbox.context.clock.now()) < 5000);
    expect(Number.isNaN(shown)).toBe(false);
    await page.screenshot({ path: join(shots, 'console-overview.png'), fullPage: true });
  });

  test('buttons cause events: a new subscriber, a stage change and a payment each reach the hook\'s receiver', async () => {
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
    expect(events[0].data.subscriber).toEqual(expect.objectContaining({ botid: 'bot_tg', clientid: '700123', name: 'Console Carol' }));
    expect(events[1].data).toEqual(expect.objectContaining({ stage: 'Qualified', previous: null }));
    expect(events[2].data.payment).toEqual(expect.objectContaining({ botid: 'bot_tg', clientid: '700123', messenger: 'telegram', amount: 12.5, currency: 'EUR' }));
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

    const leads = (await open.api.get('/list/rows/get', { list: 'Leads', limit: 1000 })).body.items as { values: string[] }[];
    expect(await page.locator('#rows tbody tr').count()).toBe(leads.length);
    expect(await page.textContent('#rows')).toContain('Alice Smith');
    await open.api.post('/list/row/add', { list: 'Leads', row: { Name: 'Row From Test', Phone: '+1555' } });
    await page.click('#lists button[data-list]');
    await eventually(async () => (await page.textContent('#rows'))?.includes('Row From Test'));

    const catalog = await page.textContent('#catalog');
    for (const title of ['Classic T-shirt', 'Hoodie', 'Coffee mug', 'Sticker pack', 'Winter cap']) expect(catalog).toContain(title);
    await page.screenshot({ path: join(shots, 'console-data.png'), fullPage: true });
  });

  test('the API log shows calls as they happen', async () => {
    await showTab('log');
    await open.api.post('/subscriber/tag/add', { botid: 'bot_tg', clientid: '100001', tag: 'from-test' });
    await open.api.withKey('not-a-key').get('/bot/list');
    await eventually(async () => {
      const rows = await page.locator('#log-table tbody tr').allTextContents();
      return rows.some((row) => row.includes('/subscriber/tag/add') && row.includes('200')) && rows.some((row) => row.includes('/bot/list') && row.includes('401'));
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
    expect(await card.locator('.scheme').first().textContent()).toMatch(/^JWT HS256 \(kid hook_[0-9a-f]+\) \+ Standard Webhooks v1$/);
    await card.locator('details').first().locator('summary').click();
    expect(JSON.parse((await card.locator('details').first().locator('pre').textContent()) ?? '')).toEqual(failed.event);
    await card.locator('details').last().locator('summary').click();
    expect(await card.locator('details').last().textContent()).toMatch(/webhook-signature: v1,/);
    const hooksText = await page.textContent('#hooks-table');
    expect(hooksText).toContain(hookSecret.slice(0, 6));
    expect(await page.content()).not.toContain(hookSecret);

    receiver.answer = () => ({ status: 200 });
    await card.locator('button.redeliver').click();
    const again = await receiver.waitFor(start + 3);
    expect(again[start + 2].event.id).toBe(failed.event.id);
    await eventually(async () => (await page.locator(`[data-delivery="${failed.id}"] .pill`).textContent()) === 'delivered');
    expect(await page.locator(`[data-delivery="${failed.id}"] .attempt`).count()).toBe(3);
    await page.screenshot({ path: join(shots, 'console-deliveries.png'), fullPage: true });
  });

  test('a request from a foreign Origin, or naming a foreign Host, is refused and changes nothing', async () => {
    const session = await page.getAttribute('meta[name="console-session"]', 'content');
    expect(session).toMatch(/^[\w-]{32}$/);
    const { url } = open.sandbox;
    const host = new URL(url).host;
    const paymentsBefore = paymentsState(open.sandbox.context.store).payments.length;
    expect(paymentsBefore).toBe(1);
    const payment = { botid: 'bot_tg', clientid: '700123', messenger: 'telegram', amount: 1, currency: 'USD' };
    const send = (headers: Record<string, string>) =>
      fetch(`${url}/sandbox/payments`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-sandbox-console': session!, ...headers }, body: JSON.stringify(payment) });

    const foreign = await send({ origin: 'http://evil.example' });
    expect([foreign.status, await foreign.json()]).toEqual([403, { code: 'foreign_origin', error: 'Requests from another origin are refused' }]);
    const crossSite = await send({ origin: `http://${host}`, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const withKey = await fetch(`${url}/sandbox/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: open.sandbox.adminKey, origin: 'http://evil.example' },
      body: JSON.stringify(payment),
    });
    expect(withKey.status).toBe(403);
    const wrongSession = await send({ origin: `http://${host}`, 'x-sandbox-console': 'x'.repeat(32) });
    expect(wrongSession.status).toBe(401);
    // DNS rebinding: a page of another name that resolves to 127.0.0.1 sends its own name as Host.
    const rebound = await getWithHost(`${url}/console/`, `evil.example:${new URL(url).port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(session!);
    expect((await getWithHost(`${url}/console/`, host)).status).toBe(200);

    // From the browser itself: a page of another origin (the same server named localhost) cannot make the sandbox act.
    await page.goto(`${url.replace('127.0.0.1', 'localhost')}/openapi.json`);
    const fromOtherSite = await page.evaluate(async ([target, body, token]) => {
      try {
        const response = await fetch(`${target}/sandbox/payments`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-sandbox-console': token }, body });
        return `status ${response.status}`;
      } catch (error) {
        return `blocked: ${(error as Error).name}`;
      }
    }, [url, JSON.stringify(payment), session!] as const);
    expect(fromOtherSite).toMatch(/^blocked: TypeError$/);
    // A simple cross-site form-like POST (no preflight) reaches the server and is refused there.
    const simple = await page.evaluate(async ([target, body]) => {
      const response = await fetch(`${target}/sandbox/payments`, { method: 'POST', mode: 'no-cors', body });
      return response.type;
    }, [url, JSON.stringify(payment)] as const);
    expect(simple).toBe('opaque');
    // Nothing was paid (every request above was answered before this line).
    expect(paymentsState(open.sandbox.context.store).payments.length).toBe(paymentsBefore);
  });
});
