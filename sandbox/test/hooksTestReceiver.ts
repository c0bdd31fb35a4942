import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

/** What the tests read of an event's data: the card of a subscriber event, the payment of `payment.success`. */
export interface EventData {
	subscriber?: { id: number; botid: string; clientid: string; [field: string]: unknown };
	payment?: { id: string; botid: string; [field: string]: unknown };
	[field: string]: unknown;
}

/** One request that reached the test receiver. */
export interface ReceivedDelivery {
	headers: IncomingHttpHeaders;
	/** The raw body exactly as sent. */
	body: string;
	event: { id: string; type: string; created: string; hook: string; data: EventData };
	/** Wall-clock ms when it arrived. */
	at: number;
}

/** How the receiver answers the n-th request (0-based): a status, optionally after a delay. */
export type Answer = (index: number, delivery: ReceivedDelivery) => { status: number; delayMs?: number };

/** A real HTTP server on 127.0.0.1 that records deliveries and answers as a test tells it to. */
export class TestReceiver {
	readonly received: ReceivedDelivery[] = [];
	answer: Answer = () => ({ status: 200 });
	private waiters: (() => void)[] = [];

	private constructor(
		private readonly server: Server,
		readonly url: string,
	) {}

	static async start(answer?: Answer, port = 0): Promise<TestReceiver> {
		// The handler runs only once the server listens, by when `receiver` is set.
		const server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const body = Buffer.concat(chunks).toString('utf8');
				const delivery: ReceivedDelivery = { headers: req.headers, body, event: JSON.parse(body), at: Date.now() };
				const index = receiver.received.length;
				receiver.received.push(delivery);
				const { status, delayMs = 0 } = receiver.answer(index, delivery);
				const reply = setTimeout(() => {
					if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
				}, delayMs);
				res.on('close', () => clearTimeout(reply));
				receiver.notify();
			});
		});
		await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
		const address = server.address() as AddressInfo;
		const receiver = new TestReceiver(server, `http://127.0.0.1:${address.port}/hook`);
		if (answer) receiver.answer = answer;
		return receiver;
	}

	/** Resolves once `count` requests have arrived. */
	async waitFor(count: number, timeoutMs = 5000): Promise<ReceivedDelivery[]> {
		const deadline = Date.now() + timeoutMs;
		while (this.received.length < count) {
			const left = deadline - Date.now();
			if (left <= 0) throw new Error(`expected ${count} deliveries, got ${this.received.length}`);
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, left);
				this.waiters.push(() => {
					clearTimeout(timer);
					resolve();
				});
			});
		}
		return this.received.slice(0, count);
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}

	private notify(): void {
		const waiters = this.waiters;
		this.waiters = [];
		for (const wake of waiters) wake();
	}
}

/** Polls `check` until it returns a value other than undefined/false. */
export async function eventually<T>(
	check: () => Promise<T | undefined | false> | T | undefined | false,
	timeoutMs = 5000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

export const secretBytes = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64');

/**
 * Checks the delivery JWT the way a receiver must: pinned algorithm, audience = hook id, `evt` = the
 * body's id, `body_sha256` over the raw bytes, `exp = iat + 300`. Returns the claims.
 */
export async function verifyDeliveryJwt(
	delivery: ReceivedDelivery,
	key: Uint8Array | JWTVerifyGetKey,
	alg: 'HS256' | 'ES256' | 'EdDSA',
): Promise<JWTPayload & { evt: string; body_sha256: string }> {
	const token = String(delivery.headers['x-signature']);
	const header = decodeProtectedHeader(token);
	expect(header).toEqual(expect.objectContaining({ alg, typ: 'JWT', kid: expect.any(String) }));
	const verified =
		typeof key === 'function'
			? await jwtVerify(token, key, { algorithms: [alg], audience: delivery.event.hook })
			: await jwtVerify(token, key, { algorithms: [alg], audience: delivery.event.hook });
	const claims = verified.payload as JWTPayload & { evt: string; body_sha256: string };
	expect(claims.evt).toBe(delivery.event.id);
	expect(claims.body_sha256).toBe(createHash('sha256').update(Buffer.from(delivery.body, 'utf8')).digest('base64url'));
	expect(claims.exp).toBe(claims.iat! + 300);
	expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(30);
	expect(typeof claims.jti).toBe('string');
	expect(typeof claims.iss).toBe('string');
	return claims;
}

/** Checks the Standard Webhooks signature with node:crypto: HMAC-SHA256 over `id.timestamp.body`. */
export function verifyStandardWebhook(delivery: ReceivedDelivery, secret: string): void {
	const id = String(delivery.headers['webhook-id']);
	const timestamp = String(delivery.headers['webhook-timestamp']);
	expect(id).toBe(delivery.event.id);
	expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
	const expected = createHmac('sha256', secretBytes(secret))
		.update(`${id}.${timestamp}.${delivery.body}`, 'utf8')
		.digest();
	const signatures = String(delivery.headers['webhook-signature']).split(' ');
	const matches = signatures.some((entry) => {
		const [version, value] = entry.split(',');
		const given = Buffer.from(value ?? '', 'base64');
		return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
	});
	expect(matches).toBe(true);
}
