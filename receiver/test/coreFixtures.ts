import { createHash, createHmac } from 'node:crypto';
import {
	DeliveryError,
	prepareVerifier,
	readHeaders,
	verifyDeliveryWith,
	type CoreVerifyOptions,
	type PlatformCrypto,
} from '../../nodes/shared/delivery';
import { nodeCrypto } from '../../nodes/shared/delivery/nodeCrypto';

/** Deliveries made with node:crypto for the verification core's in-process tests: a fixed clock, hook and secret. */

export const NOW = 1_800_000_000;
export const HOOK = 'hook_mut';
export const SECRET_BYTES = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 7 + 3) & 0xff));
export const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;

export const b64u = (value: Buffer | string) => Buffer.from(value).toString('base64url');
export const sha256b64u = (text: string) => createHash('sha256').update(text).digest('base64url');

export function eventBody(id: string): string {
	return JSON.stringify({
		id,
		type: 'subscriber.new',
		created: '2027-01-15T08:00:00Z',
		hook: HOOK,
		data: { subscriber: { botid: 1, clientid: 2, messenger: 'telegram' } },
	});
}

/** A compact JWT over the header and claims, signed by `signer` over the signing input. */
export function jwt(
	header: Record<string, unknown>,
	claims: Record<string, unknown>,
	signer: (input: string) => Buffer,
): string {
	const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(claims))}`;
	return `${input}.${b64u(signer(input))}`;
}

export const hmacWith = (secret: Buffer) => (input: string) => createHmac('sha256', secret).update(input).digest();
export const hs256 = hmacWith(SECRET_BYTES);

export function deliveryClaims(body: string, id: string, extra: Record<string, unknown> = {}) {
	return { evt: id, iat: NOW, exp: NOW + 300, body_sha256: sha256b64u(body), ...extra };
}

export function verify(
	options: CoreVerifyOptions,
	body: string,
	headers: Record<string, string>,
	platform: PlatformCrypto = nodeCrypto,
) {
	return verifyDeliveryWith(
		new TextEncoder().encode(body),
		readHeaders(headers),
		prepareVerifier({ now: NOW, ...options }, platform),
	);
}

/** The refusal of a synchronous verification, as code and message. */
export function refusalOf(run: () => unknown): { code: string; message: string } {
	try {
		run();
	} catch (error) {
		if (!(error instanceof DeliveryError)) throw error;
		return { code: error.code, message: error.message };
	}
	throw new Error('expected a refusal, the delivery was accepted');
}

export async function asyncRefusalOf(run: () => unknown): Promise<{ code: string; message: string; cause?: unknown }> {
	try {
		await run();
	} catch (error) {
		if (!(error instanceof DeliveryError)) throw error;
		return { code: error.code, message: error.message, cause: error.cause };
	}
	throw new Error('expected a refusal, the delivery was accepted');
}
