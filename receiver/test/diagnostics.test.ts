import { createHash, createHmac } from 'node:crypto';
import { createReceiver, DeliveryError, sampleEvent, type DeliveryEvent } from '../src';
import express from 'express';
import { jwtOnly, newSecret, serve, signedDelivery, standardWebhooksOnly } from './helpers';

/**
 * What a developer learns from a refusal: the clock difference, or a body changed on its way, in `onError` (with no
 * event) or the log, and never in the answer the sender reads.
 */
const secret = newSecret();
const NOW = 1_800_000_000;

function receiverWithErrors(now = NOW) {
	const errors: [unknown, DeliveryEvent | undefined][] = [];
	const receiver = createReceiver({ secrets: secret, now, dedupe: false }).onError(
		(error, event) => void errors.push([error, event]),
	);
	return { receiver, errors };
}

describe('diagnostics of refused deliveries', () => {
	it.each([
		[
			'Standard Webhooks signed 400 s before this clock',
			standardWebhooksOnly,
			-400,
			'timestamp_out_of_tolerance',
			/webhook-timestamp is 400 s behind this server's clock/,
		],
		[
			'Standard Webhooks signed 7200 s after this clock',
			standardWebhooksOnly,
			7200,
			'timestamp_out_of_tolerance',
			/webhook-timestamp is 7200 s ahead of this server's clock.*a clock is wrong/,
		],
		['a JWT issued 400 s before this clock', jwtOnly, -400, 'expired', /"iat" is 400 s behind this server's clock/],
		['a JWT issued 60 s after this clock', jwtOnly, 60, 'not_yet_valid', /"iat" is 60 s ahead of this server's clock/],
	])(
		'%s: onError learns by how many seconds the clocks differ; the answer does not',
		async (_what, pick, offset, code, diagnostic) => {
			const { receiver, errors } = receiverWithErrors();
			const delivery = await signedDelivery(secret, 'subscriber.new', { timestamp: NOW + offset });
			const answer = await receiver.receive({ method: 'POST', headers: pick(delivery.headers), body: delivery.body });
			expect(answer.status).toBe(401);
			expect(JSON.parse(answer.body)).toEqual({ code, error: expect.any(String) });
			expect(answer.body).not.toMatch(/behind|ahead|clock/);
			await new Promise((resolve) => setImmediate(resolve));
			expect(errors).toHaveLength(1);
			const [error, event] = errors[0];
			expect(event).toBeUndefined();
			expect(error).toBeInstanceOf(DeliveryError);
			expect(error).toMatchObject({ code, clockDifferenceSeconds: offset });
			expect((error as DeliveryError).diagnostic).toMatch(diagnostic);
		},
	);

	it('a JWT whose "nbf" lies 60 s after this clock (its "iat" is now): the diagnostic names "nbf", not "iat"', async () => {
		const { receiver, errors } = receiverWithErrors();
		const body = JSON.stringify(sampleEvent('subscriber.new', { id: 'evt_nbf', hook: 'hook_1' }));
		const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url');
		const claims = {
			iss: 'messenger-bot-builder',
			aud: 'hook_1',
			iat: NOW,
			nbf: NOW + 60,
			exp: NOW + 300,
			evt: 'evt_nbf',
			body_sha256: createHash('sha256').update(body).digest('base64url'),
		};
		const input = `${b64u(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64u(JSON.stringify(claims))}`;
		const token = `${input}.${b64u(
			createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
				.update(input)
				.digest(),
		)}`;
		const answer = await receiver.receive({
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-signature': token },
			body,
		});
		expect(JSON.parse(answer.body)).toEqual({ code: 'not_yet_valid', error: 'JWT "nbf" lies in the future' });
		await new Promise((resolve) => setImmediate(resolve));
		expect(errors).toHaveLength(1);
		const error = errors[0][0] as DeliveryError;
		expect(error).toMatchObject({ code: 'not_yet_valid', clockDifferenceSeconds: 60 });
		expect(error.diagnostic).toMatch(/^The JWT's "nbf" is 60 s ahead of this server's clock/);
	});

	it('a refusal with nothing to act on (a wrong secret, a body for another event) reaches no error handler', async () => {
		const { receiver, errors } = receiverWithErrors();
		const delivery = await signedDelivery(newSecret(), 'subscriber.new', { timestamp: NOW });
		expect((await receiver.receive({ method: 'POST', headers: delivery.headers, body: 'not json' })).status).toBe(401);
		await new Promise((resolve) => setImmediate(resolve));
		expect(errors).toHaveLength(0);
	});

	it('without an error handler, the diagnostic goes to the log', async () => {
		const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
		try {
			const receiver = createReceiver({ secrets: secret, now: NOW, dedupe: false });
			const delivery = await signedDelivery(secret, 'subscriber.new', { timestamp: NOW - 1000 });
			expect(
				(
					await receiver.receive({
						method: 'POST',
						headers: standardWebhooksOnly(delivery.headers),
						body: delivery.body,
					})
				).status,
			).toBe(401);
			expect(warn).toHaveBeenCalledTimes(1);
			expect(warn.mock.calls[0][0]).toMatch(
				new RegExp(
					`^\\[receiver\\] refused a delivery of event ${delivery.id} \\(timestamp_out_of_tolerance\\): webhook-timestamp is 1000 s behind`,
				),
			);
		} finally {
			warn.mockRestore();
		}
	});

	it('a genuine JWT over bytes that changed on the way (pretty-printed) says so, and how to fix it', async () => {
		const { receiver, errors } = receiverWithErrors();
		const delivery = await signedDelivery(secret, 'subscriber.new', { timestamp: NOW });
		const changed = JSON.stringify(JSON.parse(delivery.body), null, 2);
		const answer = await receiver.receive({ method: 'POST', headers: jwtOnly(delivery.headers), body: changed });
		expect(JSON.parse(answer.body).code).toBe('body_hash_mismatch');
		await new Promise((resolve) => setImmediate(resolve));
		expect((errors[0][0] as DeliveryError).diagnostic).toMatch(
			new RegExp(`event ${delivery.id}.*JSON body parser.*captureRawBody`),
		);
	});
});

/**
 * An unsigned request (no valid signature) chooses everything it sends: its JSON id, its webhook-id. What it claims
 * must never reach onError or the log as a verified fact: the hint is marked unverified, names no id, and is passed on
 * at most once a minute. onError is called synchronously while the refusal is answered, so once `receive` has
 * resolved, every call it made is recorded.
 */
describe('hints drawn from unverified requests', () => {
	const CHOSEN_ID = 'evt_chosen_by_the_sender_5c1e';
	const UNVERIFIED_HINT =
		'Unverified request (nothing vouches for what it claims): its signature matches none of the configured keys, and its body is ' +
		'JSON whose "id" equals its webhook-id header, as a delivery\'s does. If the service sent it, either the secret or public key is ' +
		"not this hook's, or the body's content was changed on the way (a proxy or code that edits it)";

	/** A Standard Webhooks request signed with a key nobody configured, its JSON id and webhook-id both CHOSEN_ID. */
	async function forged() {
		const delivery = await signedDelivery(newSecret(), 'subscriber.new', { id: CHOSEN_ID, timestamp: NOW });
		expect(delivery.headers['webhook-id']).toBe(CHOSEN_ID);
		return { method: 'POST', headers: standardWebhooksOnly(delivery.headers), body: delivery.body };
	}

	const realNow = Date.now.bind(Date);
	let clock: jest.SpyInstance<number, []>;
	let offsetMs = 0;
	beforeEach(() => {
		offsetMs = 0;
		clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offsetMs);
	});
	afterEach(() => clock.mockRestore());

	it('reaches onError marked unverified, without the id it chose, and at most once a minute', async () => {
		const { receiver, errors } = receiverWithErrors();
		for (let i = 0; i < 3; i += 1) {
			const answer = await receiver.receive(await forged());
			expect(answer.status).toBe(401);
			expect(JSON.parse(answer.body)).toEqual({
				code: 'invalid_signature',
				error: 'webhook-signature matches none of the configured keys',
			});
		}
		expect(errors).toHaveLength(1);
		const [error, event] = errors[0];
		expect(event).toBeUndefined();
		expect(error).toBeInstanceOf(DeliveryError);
		expect({ ...(error as DeliveryError), message: (error as DeliveryError).message }).toEqual({
			name: 'DeliveryError',
			code: 'invalid_signature',
			status: 401,
			message: 'webhook-signature matches none of the configured keys',
			diagnostic: UNVERIFIED_HINT,
			diagnosticUnverified: true,
		});
		// A minute later the next one is passed on again.
		offsetMs = 60_000;
		await receiver.receive(await forged());
		expect(errors).toHaveLength(2);
		expect((errors[1][0] as DeliveryError).diagnostic).toBe(UNVERIFIED_HINT);
		for (const [reported] of errors)
			expect(
				JSON.stringify({ ...(reported as DeliveryError), message: (reported as DeliveryError).message }),
			).not.toContain(CHOSEN_ID);
	});

	it('without an error handler: one log line a minute, marked unverified, counting those held back, never the chosen id', async () => {
		const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
		try {
			const receiver = createReceiver({ secrets: secret, now: NOW, dedupe: false });
			for (let i = 0; i < 4; i += 1) expect((await receiver.receive(await forged())).status).toBe(401);
			offsetMs = 60_000;
			expect((await receiver.receive(await forged())).status).toBe(401);
			expect(warn.mock.calls).toEqual([
				[`[receiver] refused a delivery (invalid_signature): ${UNVERIFIED_HINT}`],
				[
					`[receiver] refused a delivery (invalid_signature): ${UNVERIFIED_HINT} (3 more unverified hints were held back since the last one)`,
				],
			]);
		} finally {
			warn.mockRestore();
		}
	});

	it('a hint from a genuine signature names the signed event and is never held back', async () => {
		const { receiver, errors } = receiverWithErrors();
		const ids: string[] = [];
		for (let i = 0; i < 3; i += 1) {
			const delivery = await signedDelivery(secret, 'subscriber.new', { timestamp: NOW });
			ids.push(delivery.id);
			const changed = JSON.stringify(JSON.parse(delivery.body), null, 1);
			expect(
				JSON.parse((await receiver.receive({ method: 'POST', headers: jwtOnly(delivery.headers), body: changed })).body)
					.code,
			).toBe('body_hash_mismatch');
		}
		expect(
			errors.map(([error]) => [(error as DeliveryError).diagnosticUnverified, (error as DeliveryError).diagnostic]),
		).toEqual(
			ids.map((id) => [
				undefined,
				`The body is JSON for event ${id}, the event the signature names, but its bytes are not the signed ones: its content is the ` +
					'signed one and only its formatting changed on the way, as when a JSON body parser (or a proxy) re-serialized the body; verify ' +
					'the raw request bytes: mount the verifier before any JSON body parser, or keep the raw body (Express: express.json({ verify: captureRawBody }))',
			]),
		);
	});

	it('a JWT that no secret signed, over a body for the id it names (a wrong secret, with both schemes sent): the JWT hint, marked unverified, held back like the others', async () => {
		const JWT_HINT =
			'Unverified request (nothing vouches for what it claims): its signature matches none of the configured keys, and its body is ' +
			'JSON whose "id" equals its JWT\'s "evt" claim, as a delivery\'s does. If the service sent it, the secret or public key is not ' +
			"this hook's (the one /hook/create returned for it)";
		const { receiver, errors } = receiverWithErrors();
		for (let i = 0; i < 2; i += 1) {
			// Both schemes, as the service sends them by default: the JWT is the one checked.
			const delivery = await signedDelivery(newSecret(), 'subscriber.new', { id: CHOSEN_ID, timestamp: NOW });
			const answer = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
			expect(JSON.parse(answer.body)).toEqual({
				code: 'invalid_signature',
				error: 'JWT signature matches none of the configured secrets',
			});
		}
		expect(
			errors.map(([error, event]) => [
				(error as DeliveryError).diagnostic,
				(error as DeliveryError).diagnosticUnverified,
				event,
			]),
		).toEqual([[JWT_HINT, true, undefined]]);
		expect(JWT_HINT).not.toContain(CHOSEN_ID);
	});

	it('behind express.json() (the body re-serialized), a signature that matches nothing gives a hint marked unverified', async () => {
		const receiver = createReceiver({ secrets: secret, dedupe: false });
		const errors: unknown[] = [];
		receiver.onError((error) => void errors.push(error));
		const app = express();
		app.use(express.json());
		app.post('/hooks', receiver.middleware());
		const running = await serve(app);
		try {
			const delivery = await signedDelivery(newSecret(), 'subscriber.new', { id: CHOSEN_ID });
			const response = await fetch(`${running.url}/hooks`, {
				method: 'POST',
				headers: standardWebhooksOnly(delivery.headers),
				body: delivery.body,
			});
			expect(response.status).toBe(401);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toMatchObject({
				code: 'invalid_signature',
				diagnosticUnverified: true,
				diagnostic:
					'Unverified request (nothing vouches for what it claims): A JSON body parser ran before the receiver and kept no raw bytes, so ' +
					'the body was re-serialized: mount the receiver before express.json(), or use express.json({ verify: captureRawBody })',
			});
		} finally {
			await running.close();
		}
	});
});

/**
 * Without an onError handler the receiver logs each refusal that has a diagnostic as one line: its reason and, when
 * the signature matched, the signed event id; `logStackTraces: true` adds the stack trace below it.
 */
describe('the log line of a refused delivery', () => {
	async function logged(
		options: { logStackTraces?: boolean },
		send: (receiver: ReturnType<typeof createReceiver>) => Promise<unknown>,
	) {
		const receiver = createReceiver({ secrets: secret, now: NOW, dedupe: false, ...options });
		const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
		try {
			await send(receiver);
			return warn.mock.calls.map((call) => call.map(String).join(' '));
		} finally {
			warn.mockRestore();
		}
	}
	const deliver =
		(
			pick: (headers: Record<string, string>) => Record<string, string>,
			options: { offset?: number; change?: boolean; secret?: string; id?: string } = {},
		) =>
		async (receiver: ReturnType<typeof createReceiver>) => {
			const delivery = await signedDelivery(options.secret ?? secret, 'subscriber.new', {
				timestamp: NOW + (options.offset ?? 0),
				id: options.id,
			});
			const body = options.change ? delivery.body.replace('"subscriber.new"', '"subscriber.new" ') : delivery.body;
			return receiver.receive({ method: 'POST', headers: pick(delivery.headers), body });
		};

	it.each([
		['a JWT issued 400 s before this clock', jwtOnly, { offset: -400 }, 'expired', 'The JWT\'s "iat" is 400 s behind'],
		[
			'Standard Webhooks signed 400 s before this clock',
			standardWebhooksOnly,
			{ offset: -400 },
			'timestamp_out_of_tolerance',
			'webhook-timestamp is 400 s behind',
		],
		[
			'a genuine JWT over changed bytes',
			jwtOnly,
			{ change: true },
			'body_hash_mismatch',
			'The body is JSON for event evt_logged_1',
		],
	])('%s: one line, the reason and the signed event id', async (_what, pick, options, code, diagnosticStart) => {
		const lines = await logged({}, deliver(pick, { ...options, id: 'evt_logged_1' }));
		expect(lines).toHaveLength(1);
		expect(lines[0]).not.toContain('\n');
		expect(
			lines[0].startsWith(`[receiver] refused a delivery of event evt_logged_1 (${code}): ${diagnosticStart}`),
		).toBe(true);
	});

	it('a signature that matches no key: one line, marked unverified, naming no id', async () => {
		const lines = await logged({}, deliver(standardWebhooksOnly, { secret: newSecret(), id: 'evt_chosen_2' }));
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatch(
			/^\[receiver\] refused a delivery \(invalid_signature\): Unverified request \(nothing vouches for what it claims\): [^\n]*$/,
		);
		expect(lines[0]).not.toContain('evt_chosen_2');
	});

	it('logStackTraces: true adds the stack trace below the same line', async () => {
		const [line] = await logged({}, deliver(jwtOnly, { offset: -400, id: 'evt_logged_3' }));
		const [withStack] = await logged({ logStackTraces: true }, deliver(jwtOnly, { offset: -400, id: 'evt_logged_3' }));
		const [first, ...stack] = withStack.split('\n');
		expect(first).toBe(line);
		expect(stack[0]).toBe('DeliveryError: JWT is expired');
		expect(stack.slice(1).every((frame) => /^\s+at /.test(frame))).toBe(true);
		expect(stack.length).toBeGreaterThan(2);
	});
});
