import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readPage, type PageForm, type ReadPage } from './pageReader';

/**
 * The HTTP side of opening a link button as a phone's browser, a messenger's link preview or a mail scanner's headless
 * browser does: the headers each sends, a bounded body, a time limit, and no redirect followed (a step of its own).
 */

/** What a step of a play sent and got back. */
export interface Step {
	/** `open` (GET), `preview` (GET or HEAD without a browser's headers) or `press` (the POST of a form). */
	action: 'open' | 'preview' | 'press';
	method: string;
	url: string;
	/** The button pressed (`press`): its text, and whether the page hides it from people. */
	control?: { text: string; hidden: boolean };
	status: number;
	/** The page's heading (its title without one); n8n's JSON errors give their message. */
	heading: string;
	/** The page's paragraphs, or the start of a body that is not a page. */
	text: string[];
	at: string;
}

export interface OpenedPage {
	step: Step;
	page: ReadPage;
}

/** A page larger than this is read only this far: answer pages are a few kilobytes. */
const BODY_LIMIT_BYTES = 1024 * 1024;
export const REQUEST_TIMEOUT_MS = 30_000;

/** What a phone's browser sends when it opens a link (a navigation typed or tapped outside any page). */
const NAVIGATION_HEADERS = {
	'user-agent': 'Mozilla/5.0 (Linux; Android 14) Messenger Bot Builder sandbox subscriber',
	accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
	'sec-fetch-site': 'none',
	'sec-fetch-mode': 'navigate',
	'sec-fetch-dest': 'document',
	'sec-fetch-user': '?1',
};

/** The user agents of link previews: a messenger's, a mail scanner's; neither sends a browser's fetch headers. */
export const PREVIEW_AGENTS = [
	'TelegramBot (like TwitterBot)',
	'Mozilla/5.0 (compatible; Messenger Bot Builder sandbox mail link scanner)',
];

interface RawAnswer {
	status: number;
	contentType: string;
	location?: string;
	body: string;
}

/**
 * One HTTP request with exactly the headers given: node's fetch would replace a browser's `Sec-Fetch-Mode` with its own
 * `cors`. The body is read up to BODY_LIMIT_BYTES; the whole exchange gets REQUEST_TIMEOUT_MS.
 */
function send(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<RawAnswer> {
	return new Promise((resolve, reject) => {
		const target = new URL(url);
		const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
			target,
			{ method, headers: body ? { ...headers, 'content-length': String(body.byteLength) } : headers },
			(response) => {
				const chunks: Buffer[] = [];
				let size = 0;
				const finish = () => {
					clearTimeout(timer);
					resolve({
						status: response.statusCode ?? 0,
						contentType: String(response.headers['content-type'] ?? ''),
						location: response.headers.location,
						body: Buffer.concat(chunks).subarray(0, BODY_LIMIT_BYTES).toString('utf8'),
					});
				};
				response.on('data', (chunk: Buffer) => {
					chunks.push(chunk);
					size += chunk.byteLength;
					if (size >= BODY_LIMIT_BYTES) {
						response.destroy();
						finish();
					}
				});
				response.on('end', finish);
				response.on('error', finish);
			},
		);
		const timer = setTimeout(
			() => request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
			REQUEST_TIMEOUT_MS,
		);
		request.on('error', (error: NodeJS.ErrnoException) => {
			clearTimeout(timer);
			reject(new LinkUnreachableError(url, error.code ?? error.message));
		});
		request.end(body);
	});
}

/** A body that is not HTML: n8n's JSON errors (`{ message }`), or its start. */
function notAPage(body: string): { heading: string; text: string[] } {
	try {
		const parsed = JSON.parse(body) as { message?: unknown };
		if (typeof parsed.message === 'string') return { heading: parsed.message, text: [] };
	} catch {
		// Not JSON: shown as it starts.
	}
	return { heading: '', text: body ? [body.slice(0, 300)] : [] };
}

async function request(
	action: Step['action'],
	url: string,
	init: { method: string; headers: Record<string, string>; body?: Buffer },
	control?: Step['control'],
): Promise<OpenedPage> {
	const answer = await send(url, init.method, init.headers, init.body);
	const html = /^text\/html/i.test(answer.contentType);
	const page = readPage(html ? answer.body : '');
	const shown = html ? { heading: page.heading || page.title, text: page.paragraphs } : notAPage(answer.body);
	if (answer.location) shown.text = [...shown.text, `Location: ${answer.location}`];
	return {
		step: {
			action,
			method: init.method,
			url,
			...(control ? { control } : {}),
			status: answer.status,
			heading: shown.heading,
			text: shown.text,
			at: new Date().toISOString(),
		},
		page,
	};
}

/** A link the sandbox could not reach at all (refused, timed out): named with its address and the cause. */
export class LinkUnreachableError extends Error {
	constructor(
		readonly url: string,
		readonly reason: string,
	) {
		super(`The link ${url} could not be opened: ${reason}`);
		this.name = 'LinkUnreachableError';
	}
}

/** Opens a link as a person's browser does when a link button is tapped. */
export const openAsBrowser = (url: string) => request('open', url, { method: 'GET', headers: NAVIGATION_HEADERS });

/** Fetches a link as a link preview does: no browser's fetch headers, nothing pressed. */
export const fetchAsPreview = (url: string, method: 'GET' | 'HEAD', agent: string) =>
	request('preview', url, { method, headers: { 'user-agent': agent, accept: '*/*' } });

/** The values a form sends: its controls' name and value pairs, then the pressed button's own. */
export type FormValues = Array<[string, string]>;

/**
 * Presses a submit button of a form on the page at `pageUrl`, as the browser showing that page sends it: to the form's
 * action, in its encoding, with the headers of a form posted by its own page (same origin).
 */
export async function pressSubmit(
	pageUrl: string,
	form: PageForm,
	values: FormValues,
	control: Step['control'] & { name?: string; value?: string },
): Promise<OpenedPage> {
	const target = new URL(form.action || pageUrl, pageUrl);
	const sent: FormValues = control.name ? [...values, [control.name, control.value ?? '']] : values;
	const headers: Record<string, string> = {
		'user-agent': NAVIGATION_HEADERS['user-agent'],
		accept: NAVIGATION_HEADERS.accept,
		origin: new URL(pageUrl).origin,
		referer: pageUrl,
		'sec-fetch-site': 'same-origin',
		'sec-fetch-mode': 'navigate',
		'sec-fetch-dest': 'document',
		'sec-fetch-user': '?1',
	};
	const step = { text: control.text, hidden: control.hidden };
	if (form.method !== 'POST') {
		for (const [name, value] of sent) target.searchParams.append(name, value);
		return request('press', target.href, { method: 'GET', headers }, step);
	}
	if (/^multipart\/form-data/i.test(form.enctype)) {
		const body = new FormData();
		for (const [name, value] of sent) body.append(name, value);
		// The multipart body and its boundary, encoded as a browser's would be.
		const encoded = new Request(target, { method: 'POST', body });
		headers['content-type'] = encoded.headers.get('content-type') ?? 'multipart/form-data';
		return request(
			'press',
			target.href,
			{ method: 'POST', headers, body: Buffer.from(await encoded.arrayBuffer()) },
			step,
		);
	}
	headers['content-type'] = 'application/x-www-form-urlencoded';
	const body = Buffer.from(new URLSearchParams(sent).toString());
	return request('press', target.href, { method: 'POST', headers, body }, step);
}
