import express from 'express';
import { createReceiver, sampleEvent, type DeliveryEvent } from '../src';
import { runSendEvent, tamperedBody } from '../src/sendEvent';
import { captureRefusalWarnings } from './consoleCapture';
import { newSecret, serve, type RunningServer } from './helpers';

describe('mbb-send-event', () => {
	const secret = newSecret();
	const receiver = createReceiver({ secrets: secret, audience: 'hook_local' });
	const events: DeliveryEvent[] = [];
	receiver.onAny((event) => void events.push(event));
	let server: RunningServer;
	beforeAll(async () => {
		server = await serve(express().post('/hooks', receiver.middleware()));
	});
	afterAll(() => server.close());

	async function run(...argv: string[]) {
		const lines: string[] = [];
		const code = await runSendEvent(argv, { out: (line) => lines.push(line), env: {} });
		await receiver.idle();
		return { code, output: lines.join('\n') };
	}

	it('sends a signed sample of each known kind that the receiver accepts and types', async () => {
		for (const type of ['subscriber.new', 'subscriber.stage', 'payment.success']) {
			const { code, output } = await run(`${server.url}/hooks`, '--secret', secret, '--type', type);
			expect(code).toBe(0);
			expect(output).toMatch(new RegExp(`^${type.replace('.', '\\.')} evt_\\w+ -> 200 `));
		}
		expect(events.slice(-3).map((event) => event.type)).toEqual([
			'subscriber.new',
			'subscriber.stage',
			'payment.success',
		]);
	});

	it('repeats one delivery with --times and the receiver emits it once', async () => {
		const before = events.length;
		const { code, output } = await run(
			`${server.url}/hooks`,
			'--secret',
			secret,
			'--id',
			'evt_cli_repeat',
			'--times',
			'3',
			'--scheme',
			'standard-webhooks',
		);
		expect(code).toBe(0);
		expect(output.match(/"duplicate":true/g)).toHaveLength(2);
		expect(events.length - before).toBe(1);
	});

	it('sends unknown kinds and merges --data', async () => {
		const { code } = await run(
			`${server.url}/hooks`,
			'--secret',
			secret,
			'--type',
			'subscriber.tagged',
			'--data',
			'{"tag":"vip"}',
			'--scheme',
			'jwt',
		);
		expect(code).toBe(0);
		expect(events.at(-1)).toMatchObject({ type: 'subscriber.tagged', data: { tag: 'vip' } });
	});

	it('exits 1 when the receiver refuses, 2 on bad usage, and never prints the secret', async () => {
		const warnings = captureRefusalWarnings();
		const refused = await run(`${server.url}/hooks`, '--secret', newSecret());
		expect(warnings.refusals()).toEqual(['invalid_signature']);
		warnings.restore();
		expect(refused.code).toBe(1);
		expect(refused.output).toMatch(/-> 401 .*invalid_signature/);
		const usage = await run(`${server.url}/hooks`, '--secret', 'whsec_tooshort');
		expect(usage.code).toBe(2);
		expect(usage.output).toMatch(/--secret is too short/);
		expect(usage.output).not.toContain('tooshort');
		expect((await run('--secret', secret)).code).toBe(2);
		const printed = await run(`${server.url}/hooks`, '--secret', secret, '--print');
		expect(printed.code).toBe(0);
		expect(printed.output).toContain('"x-signature"');
		expect(printed.output).not.toContain(secret.slice(6));
	});

	it('reads the secret from MBB_HOOK_SECRET and generates secrets', async () => {
		const lines: string[] = [];
		expect(
			await runSendEvent([`${server.url}/hooks`], {
				out: (line) => lines.push(line),
				env: { MBB_HOOK_SECRET: secret },
			}),
		).toBe(0);
		const generated: string[] = [];
		expect(await runSendEvent(['--generate-secret'], { out: (line) => generated.push(line), env: {} })).toBe(0);
		expect(generated[0]).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
	});
});

describe('mbb-send-event: the deliveries a receiver must refuse', () => {
	// A receiver of its own per case: each refusal's report is seen (unverified hints pass once a minute per receiver).
	async function sendTo(...argv: string[]) {
		const secret = newSecret();
		const receiver = createReceiver({ secrets: secret, audience: 'hook_local' });
		const events: DeliveryEvent[] = [];
		receiver.onAny((event) => void events.push(event));
		const server = await serve(express().post('/hooks', receiver.middleware()));
		const warnings = captureRefusalWarnings();
		try {
			const lines: string[] = [];
			const code = await runSendEvent([`${server.url}/hooks`, '--secret', secret, ...argv], {
				out: (line) => lines.push(line),
				env: {},
			});
			await receiver.idle();
			return {
				code,
				output: lines.join('\n'),
				answers: lines.map((line) => / -> (\d+) (.*)$/.exec(line)).filter((match) => match !== null),
				events,
				refusals: warnings.refusals(),
			};
		} finally {
			warnings.restore();
			await server.close();
		}
	}

	it.each([
		[['--tamper', '--scheme', 'jwt'], 'body_hash_mismatch'],
		[['--tamper', '--scheme', 'standard-webhooks'], 'invalid_signature'],
		[['--tamper'], 'body_hash_mismatch'],
		[['--wrong-secret', '--scheme', 'jwt'], 'invalid_signature'],
		[['--wrong-secret', '--scheme', 'standard-webhooks'], 'invalid_signature'],
		[['--age', '3600', '--scheme', 'jwt'], 'expired'],
		[['--age', '3600', '--scheme', 'standard-webhooks'], 'timestamp_out_of_tolerance'],
		[['--age', '3600'], 'expired'],
	])('%j is refused as %s, reported once, and emits nothing', async (argv, reason) => {
		const { code, answers, events, refusals } = await sendTo('--type', 'payment.success', ...argv);
		expect(code).toBe(1);
		expect(answers.map(([, status, body]) => [status, (JSON.parse(body) as { code: string }).code])).toEqual([
			['401', reason],
		]);
		expect(refusals).toEqual([reason]);
		expect(events).toEqual([]);
	});

	it('--age within the tolerance is accepted; a repeat (--times) is answered as a duplicate and emitted once', async () => {
		const { code, answers, events, refusals } = await sendTo(
			'--age',
			'60',
			'--times',
			'3',
			'--id',
			'evt_cli_old_repeat',
		);
		expect(code).toBe(0);
		expect(answers.map(([, status, body]) => [status, (JSON.parse(body) as { duplicate: boolean }).duplicate])).toEqual(
			[
				['200', false],
				['200', true],
				['200', true],
			],
		);
		expect(events.map((event) => event.id)).toEqual(['evt_cli_old_repeat']);
		expect(refusals).toEqual([]);
	});

	it('--tamper changes one value of the signed body and nothing else', () => {
		const payment = sampleEvent('payment.success', { id: 'evt_t', hook: 'hook_local' });
		const changed = JSON.parse(tamperedBody(payment)) as typeof payment;
		expect(changed.data.payment.amount).toBe(49.9 + 1);
		expect(payment.data.payment.amount).toBe(49.9);
		expect({ ...changed, data: { payment: { ...changed.data.payment, amount: payment.data.payment.amount } } }).toEqual(
			payment,
		);
		// No number in a subscriber.stage event's data: its first text, depth first, gets a "!".
		const stage = sampleEvent('subscriber.stage', { id: 'evt_s', hook: 'hook_local' });
		const leaves = (value: unknown, path = ''): [string, unknown][] =>
			value !== null && typeof value === 'object'
				? Object.entries(value).flatMap(([key, inner]) => leaves(inner, `${path}/${key}`))
				: [[path, value]];
		const before = leaves(stage);
		const after = leaves(JSON.parse(tamperedBody(stage)));
		const firstText = before.find(([path, value]) => path.startsWith('/data/') && typeof value === 'string')!;
		expect(after).toEqual(before.map(([path, value]) => [path, path === firstText[0] ? `${value as string}!` : value]));
		const bare = { ...sampleEvent('subscriber.tagged', { id: 'evt_b', hook: 'hook_local' }), data: {} };
		expect(JSON.parse(tamperedBody(bare))).toEqual({ ...bare, data: { tampered: true } });
	});

	it('names each of them in --help', async () => {
		const lines: string[] = [];
		expect(await runSendEvent(['--help'], { out: (line) => lines.push(line), env: {} })).toBe(0);
		for (const option of ['--tamper', '--wrong-secret', '--age <seconds>', '--times <n>'])
			expect(lines.join('\n')).toContain(`  ${option}`);
		expect(lines.join('\n')).toMatch(/repeat/);
	});
});
