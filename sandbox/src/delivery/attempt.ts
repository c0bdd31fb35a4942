/** What became of one HTTP attempt. */
export interface AttemptOutcome {
	/** The receiver's HTTP status; null when it did not answer in time or could not be reached. */
	status: number | null;
	error: string | null;
	durationMs: number;
	/** The start of the receiver's answer body (at most RESPONSE_EXCERPT characters); null without an answer. */
	responseBody: string | null;
	/** The sandbox is stopping: the attempt was abandoned and does not count. */
	abandoned: boolean;
}

export interface AttemptRequest {
	url: string;
	body: string;
	headers: Record<string, string>;
	timeoutMs: number;
	/** Aborted when the sandbox stops. */
	stopSignal: AbortSignal;
}

const USER_AGENT = 'messenger-bot-builder-sandbox';
/** How much of a receiver's answer is kept for the delivery history. */
export const RESPONSE_EXCERPT = 2048;

/** The headers of an attempt besides its signature headers. */
export function baseHeaders(): Record<string, string> {
	return { 'content-type': 'application/json', 'user-agent': USER_AGENT };
}

/**
 * POSTs one delivery. Redirects are not followed (a 3xx counts as a failed attempt), and the
 * receiver's answer body is discarded: only its status matters.
 */
export async function sendAttempt(request: AttemptRequest): Promise<AttemptOutcome> {
	const started = performance.now();
	const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
	const timeout = AbortSignal.timeout(request.timeoutMs);
	try {
		const response = await fetch(request.url, {
			method: 'POST',
			headers: { ...baseHeaders(), ...request.headers },
			body: request.body,
			redirect: 'manual',
			signal: AbortSignal.any([request.stopSignal, timeout]),
		});
		const responseBody = await excerptOf(response);
		const ok = response.status >= 200 && response.status < 300;
		return {
			status: response.status,
			error: ok ? null : `receiver answered ${response.status}`,
			durationMs: elapsed(),
			responseBody,
			abandoned: false,
		};
	} catch (error) {
		if (request.stopSignal.aborted)
			return { status: null, error: 'sandbox stopped', durationMs: elapsed(), responseBody: null, abandoned: true };
		const message = timeout.aborted
			? `no answer within ${request.timeoutMs} ms`
			: `request failed: ${describeNetworkError(error)}`;
		return { status: null, error: message, durationMs: elapsed(), responseBody: null, abandoned: false };
	}
}

/** The first RESPONSE_EXCERPT characters of the answer; the rest is not read. */
async function excerptOf(response: Response): Promise<string> {
	const reader = response.body?.getReader();
	if (!reader) return '';
	const decoder = new TextDecoder();
	let text = '';
	try {
		while (text.length < RESPONSE_EXCERPT) {
			const { done, value } = await reader.read();
			if (done) break;
			text += decoder.decode(value, { stream: true });
		}
	} catch {
		// A broken answer body: the status is what counts.
	} finally {
		await reader.cancel().catch(() => undefined);
	}
	return text.slice(0, RESPONSE_EXCERPT);
}

/** The cause of a fetch failure (e.g. ECONNREFUSED), never the URL (its query may carry a token). */
function describeNetworkError(error: unknown): string {
	const cause = (error as { cause?: { code?: unknown } }).cause;
	return cause && typeof cause.code === 'string' ? cause.code : 'the request could not be sent';
}
