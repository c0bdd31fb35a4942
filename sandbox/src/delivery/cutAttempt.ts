import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { baseHeaders, type AttemptOutcome, type AttemptRequest } from './attempt';

export const CUT_ERROR = 'connection cut after the request was sent (chaos)';

/**
 * POSTs one delivery and destroys its TCP connection as soon as the whole request has been handed to the network,
 * before any answer: the receiver gets the request and a closed connection, the sandbox sees no answer.
 */
export function sendCutAttempt(request: AttemptRequest): Promise<AttemptOutcome> {
	const started = performance.now();
	const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
	const url = new URL(request.url);
	const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
	return new Promise((resolve) => {
		let settled = false;
		const finish = (outcome: Omit<AttemptOutcome, 'durationMs' | 'responseBody'>) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			request.stopSignal.removeEventListener('abort', onStop);
			outgoing.destroy();
			resolve({ ...outcome, durationMs: elapsed(), responseBody: null });
		};
		const onStop = () => finish({ status: null, error: 'sandbox stopped', abandoned: true });
		const outgoing = send(url, {
			method: 'POST',
			agent: false,
			headers: { ...baseHeaders(), ...request.headers, 'content-length': Buffer.byteLength(request.body) },
		});
		const timer = setTimeout(
			() => finish({ status: null, error: `no answer within ${request.timeoutMs} ms`, abandoned: false }),
			request.timeoutMs,
		);
		request.stopSignal.addEventListener('abort', onStop, { once: true });
		outgoing.on('finish', () => finish({ status: null, error: CUT_ERROR, abandoned: false }));
		outgoing.on('error', (error: NodeJS.ErrnoException) =>
			finish({
				status: null,
				error: `request failed: ${typeof error.code === 'string' ? error.code : 'the request could not be sent'}`,
				abandoned: false,
			}),
		);
		if (request.stopSignal.aborted) return onStop();
		outgoing.end(request.body);
	});
}
