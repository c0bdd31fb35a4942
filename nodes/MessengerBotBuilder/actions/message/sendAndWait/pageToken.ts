import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Question } from './question';

/**
 * A page's confirm token, made when the page is shown: `<shown at, ms>.<HMAC>`, the HMAC with the question's own
 * key over the question, what is being confirmed and when the page was shown. Only a page of this question can
 * hand one out, so a POST without it (a scanner that never showed the page, a forged form) resumes nothing; and
 * since the time is signed, a program cannot claim to have shown the page earlier than it did.
 */
export interface PageToken {
	value: string;
	/** The earliest confirmation a person could have made (see CONFIRM_AFTER_MS). */
	notBefore: number;
}

/**
 * How long after a page is shown its confirmation counts. Link scanners that "detonate" a message's links (mail
 * and chat security: Microsoft Defender Safe Links, Proofpoint URL Defense and the like) load the page and press
 * its controls at machine speed; a person reads the question and the answer before tapping. A confirmation sooner
 * than this shows the page again, asking to confirm (nothing is recorded). A program that simply waits this long
 * passes: the check stops only programs in a hurry.
 */
export const CONFIRM_AFTER_MS = 1_500;
/** How long a shown page's token counts: a page left open longer asks to confirm again (with a fresh token). */
export const PAGE_LIFETIME_MS = 2 * 3_600_000;

const tokenHmac = (question: Pick<Question, 'id' | 'tokenKey'>, subject: string, shownAt: number) =>
	createHmac('sha256', question.tokenKey).update(`${question.id}\n${subject}\n${shownAt}`).digest('hex');

export function pageToken(question: Pick<Question, 'id' | 'tokenKey'>, subject: string, now = Date.now()): PageToken {
	return { value: `${now}.${tokenHmac(question, subject, now)}`, notBefore: now + CONFIRM_AFTER_MS };
}

/** A token's most characters: up to 16 digits of time, a dot, 64 hexadecimal digits of HMAC. */
const TOKEN_MAX_LENGTH = 16 + 1 + 64;

/** When the page that handed out `token` was shown, if a page of this question for this subject did; else undefined. */
export function signedShownAt(
	question: Pick<Question, 'id' | 'tokenKey'>,
	subject: string,
	token: unknown,
): number | undefined {
	// No token is longer: a longer value (a request can send megabytes) is not even read.
	if (typeof token !== 'string' || token.length > TOKEN_MAX_LENGTH) return undefined;
	const parts = /^(\d{1,16})\.([0-9a-f]{64})$/.exec(token);
	if (!parts) return undefined;
	const shownAt = Number(parts[1]);
	const expected = Buffer.from(tokenHmac(question, subject, shownAt));
	return timingSafeEqual(Buffer.from(parts[2]), expected) ? shownAt : undefined;
}
