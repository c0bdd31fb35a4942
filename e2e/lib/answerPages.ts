/** Reading Send and Wait's answer pages as a person's browser would use them: the confirm token and when it counts. */
import assert from 'node:assert/strict';
import { waitFor } from './waitFor.ts';

const TOKEN = /name="token" value="(\d+\.[0-9a-f]{64})"/;
const NOT_BEFORE = /data-not-before="(\d+)"/;

/** The confirm token of the page's own form (the hidden control's form carries the same one). */
export function tokenOfPage(body: string, status?: number): string {
	const token = TOKEN.exec(body)?.[1];
	assert.ok(token, `the page carries a confirm token: HTTP ${status ?? '?'} ${body.slice(0, 300)}`);
	return token;
}

/**
 * Waits until the page's own "not before" (a person's moment after it was shown) has passed: a confirmation sooner than
 * that is taken for a program's and asks again.
 */
export async function afterHumanMoment(body: string): Promise<void> {
	const notBefore = Number(NOT_BEFORE.exec(body)?.[1]);
	assert.ok(notBefore > 0, `the page says from when a confirmation counts: ${body.slice(0, 300)}`);
	await waitFor(async () => (Date.now() >= notBefore ? true : undefined), {
		what: "a person's moment on the page",
		timeoutMs: 10_000,
		intervalMs: 50,
	});
}
