// The sandbox console: plain DOM, no build step. Every value from the sandbox is written as text
// (never as HTML): subscriber names, row values and delivery bodies come from integrations.

const session = document.querySelector('meta[name="console-session"]').content;
const REFRESH_MS = 1000;

async function request(method, path, body) {
	const response = await fetch(path, {
		method,
		headers: { 'x-sandbox-console': session, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const answer = await response.json();
	if (!response.ok)
		throw Object.assign(new Error(`${answer.code ?? response.status}: ${answer.error ?? 'failed'}`), {
			code: answer.code,
		});
	return answer;
}

/** An API method run as the account by the sandbox (the account key never reaches this page). */
const call = (method, params = {}) => request('POST', '/console/call', { method, params });
/** A sandbox control route (/sandbox/...), authorised by the console's session. */
const control = (path, body) => request('POST', path, body);

function h(tag, attributes = {}, ...children) {
	const element = document.createElement(tag);
	for (const [name, value] of Object.entries(attributes)) {
		if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
		else if (value !== undefined && value !== null && value !== false)
			element.setAttribute(name, value === true ? '' : String(value));
	}
	for (const child of children.flat()) {
		if (child === undefined || child === null || child === false) continue;
		element.append(child instanceof Node ? child : document.createTextNode(String(child)));
	}
	return element;
}

function table(target, headers, rows) {
	const element = document.getElementById(target);
	element.replaceChildren(
		h(
			'thead',
			{},
			h(
				'tr',
				{},
				headers.map((header) => h('th', {}, header)),
			),
		),
		h(
			'tbody',
			{},
			rows.length > 0 ? rows : h('tr', {}, h('td', { colspan: headers.length, class: 'muted' }, 'nothing yet')),
		),
	);
}

const time = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');
const statusClass = (status) =>
	({ delivered: 'ok', failed: 'bad', cancelled: 'muted', pending: 'pending' })[status] ?? '';

function showResult(text, ok) {
	const element = document.getElementById('event-result');
	element.textContent = text;
	element.className = `result ${ok ? 'ok' : 'bad'}`;
}

// ---- overview: clock, settings, keys, events

let overview;

/** A setting as one line: a list joined, a group of settings (delivery chaos) as `name value` pairs. */
function settingText(value) {
	if (Array.isArray(value)) return value.join(', ');
	if (value !== null && typeof value === 'object')
		return Object.entries(value)
			.map(([name, item]) => `${name} ${item}`)
			.join(', ');
	return String(value ?? '—');
}

async function loadOverview() {
	overview = await request('GET', '/console/overview');
	document.getElementById('api-base').textContent = overview.service.api;
	document.getElementById('clock').textContent = time(overview.service.now);
	document.getElementById('clock-big').textContent = time(overview.service.now);
	const settings = Object.entries(overview.settings).map(([name, value]) =>
		h('tr', {}, h('td', {}, name), h('td', {}, h('code', {}, settingText(value)))),
	);
	settings.unshift(h('tr', {}, h('td', {}, 'account key'), h('td', {}, h('code', {}, overview.service.accountKey))));
	table('settings', ['setting', 'value'], settings);
	table(
		'keys',
		['id', 'name', 'key', 'scopes', 'bots', 'state'],
		overview.keys.map((key) =>
			h(
				'tr',
				{},
				h('td', {}, key.id),
				h('td', {}, key.name),
				h('td', {}, h('code', {}, key.key)),
				h('td', {}, key.scopes.join(' ')),
				h('td', {}, key.bots.join(', ') || 'all'),
				h('td', {}, key.revoked ? 'revoked' : key.expires ? `expires ${time(key.expires)}` : 'active'),
			),
		),
	);
}

async function loadChoices() {
	const [bots, board] = await Promise.all([call('/bot/list'), call('/crm/board')]);
	for (const select of document.querySelectorAll('.bot-select')) {
		const current = select.value;
		select.replaceChildren(...bots.items.map((bot) => h('option', { value: bot.id }, `${bot.id} (${bot.messenger})`)));
		if (current) select.value = current;
	}
	const stages = document.getElementById('stage-select');
	stages.replaceChildren(...board.stages.map((stage) => h('option', { value: stage.name }, stage.name)));
}

function onForm(id, submit) {
	document.getElementById(id).addEventListener('submit', async (event) => {
		event.preventDefault();
		const fields = Object.fromEntries(new FormData(event.target).entries());
		try {
			showResult(await submit(fields), true);
			await refresh();
		} catch (error) {
			showResult(error.message, false);
		}
	});
}

onForm('form-subscriber', async ({ botid, clientid, name }) => {
	const answer = await call('/subscriber/create', { botid, clientid, ...(name ? { name } : {}) });
	return answer.created
		? `Subscriber ${clientid} created: subscriber.new sent to matching hooks`
		: `Subscriber ${clientid} existed: fields updated, no event`;
});
onForm('form-stage', async ({ botid, clientid, stage }) => {
	const answer = await call('/crm/stage/set', { botid, clientid, stage });
	return `Subscriber ${clientid}: stage ${answer.previous ?? '(none)'} → ${answer.stage}`;
});
onForm('form-payment', async ({ botid, clientid, amount, currency }) => {
	const bot = (await call('/bot/list')).items.find((candidate) => candidate.id === botid);
	const { payment } = await control('/sandbox/payments', {
		botid,
		clientid,
		messenger: bot?.messenger,
		amount,
		currency,
	});
	return `Payment ${payment.id}: ${payment.amount} ${payment.currency}: payment.success sent to matching hooks`;
});

for (const button of document.querySelectorAll('[data-advance]')) {
	button.addEventListener('click', async () => {
		await control('/sandbox/clock', { advanceSeconds: Number(button.dataset.advance) });
		await loadOverview();
	});
}

// ---- bots and data

let selectedList;

async function loadData() {
	const [bots, subscribers, lists] = await Promise.all([
		call('/bot/list'),
		call('/subscriber/list', { sort: 'new', limit: 50 }),
		call('/list/all'),
	]);
	table(
		'bots',
		['id', 'name', 'messenger', 'project'],
		bots.items.map((bot) =>
			h(
				'tr',
				{},
				h('td', {}, h('code', {}, bot.id)),
				h('td', {}, bot.name),
				h('td', {}, bot.messenger),
				h('td', {}, bot.group),
			),
		),
	);
	document.getElementById('subscribers-total').textContent = `${subscribers.total} in all, newest first`;
	table(
		'subscribers',
		['#', 'bot', 'client id', 'name', 'tags', 'stage', 'state', 'subscribed'],
		subscribers.items.map((card) =>
			h(
				'tr',
				{},
				h('td', {}, card.id),
				h('td', {}, card.botid),
				h('td', {}, h('code', {}, card.clientid)),
				h('td', {}, card.name),
				h('td', {}, card.tags.join(', ')),
				h('td', {}, card.stage ?? ''),
				h('td', {}, card.blocked ? 'blocked' : card.active ? 'active' : 'left'),
				h('td', {}, time(card.subscribed)),
			),
		),
	);
	selectedList ??= lists.items[0]?.id;
	document.getElementById('lists').replaceChildren(
		...lists.items.map((list) =>
			h(
				'button',
				{
					class: list.id === selectedList ? '' : 'secondary',
					'data-list': list.id,
					onclick: () => {
						selectedList = list.id;
						loadData();
					},
				},
				`${list.name} (${list.count})`,
			),
		),
	);
	const list = lists.items.find((candidate) => candidate.id === selectedList);
	if (list) {
		const rows = await call('/list/rows/get', { listid: list.id, sort: 'new', limit: 50 });
		table(
			'rows',
			['row', ...list.headers],
			rows.items.map((row) =>
				h(
					'tr',
					{},
					h('td', {}, row.id),
					row.values.map((value) => h('td', {}, value ?? '')),
				),
			),
		);
	} else {
		table('rows', ['row'], []);
	}
	const items = [];
	for (const app of overview?.webapps ?? []) {
		const { link } = await call('/catalog/get', { webappid: app.id });
		const file = await (await fetch(new URL(link).pathname)).json();
		for (const item of file.items) items.push({ app, item });
	}
	table(
		'catalog',
		['web app', 'id', 'title', 'price', 'stock', 'code', 'shown'],
		items.map(({ app, item }) =>
			h(
				'tr',
				{},
				h('td', {}, app.name),
				h('td', {}, item.id),
				h('td', {}, item.title),
				h('td', {}, item.price ?? ''),
				h('td', {}, item.pieces),
				h('td', {}, item.code),
				h('td', {}, item.hide ? 'hidden' : 'yes'),
			),
		),
	);
}

// ---- chats: each subscriber's chat as the subscriber sees it

const CHAT_LIST_PAGE = 50;
const CHAT_PAGE = 20;
let chatListOffset = 0;
let chatOffset = 0;
/** The subscriber whose chat is open ({botid, clientid}); the chat written to last when none was picked. */
let openChat;
/** What the chats tab shows: it is rebuilt only when this changes, so a refresh never swallows a click. */
let chatsShown;

const chatKey = ({ botid, clientid }) => `${botid}/${clientid}`;
const plural = (count, word) => `${count} ${word}${count === 1 ? '' : 's'}`;
const lastPageOffset = (total, size) => Math.max(0, Math.ceil(total / size) - 1) * size;

function isWebUrl(value) {
	try {
		return ['http:', 'https:'].includes(new URL(value).protocol);
	} catch {
		return false;
	}
}

/** Newer and Older buttons for a page of a newest-first list. */
function pager(target, offset, size, total, go) {
	const buttons = [];
	if (offset > 0)
		buttons.push(
			h('button', { class: 'secondary', 'data-page': 'newer', onclick: () => go(Math.max(0, offset - size)) }, 'Newer'),
		);
	if (offset + size < total)
		buttons.push(h('button', { class: 'secondary', 'data-page': 'older', onclick: () => go(offset + size) }, 'Older'));
	document.getElementById(target).replaceChildren(...buttons);
}

function senderOf(message) {
	if (message.direction === 'in') return 'Subscriber';
	const via = {
		api: 'via the API',
		broadcast: `broadcast ${message.origin ?? ''}`,
		chain: `chain ${message.origin ?? ''}`,
	}[message.source];
	return via ? `Bot · ${via}` : 'Bot';
}

/** A link button as the messenger shows it: tapping it opens the link in the subscriber's browser, nothing more. */
function chatButton(button) {
	const label = isWebUrl(button.url)
		? h(
				'a',
				{ class: 'chat-button', href: button.url, target: '_blank', rel: 'noopener noreferrer', title: button.url },
				button.name,
			)
		: h(
				'span',
				{ class: 'chat-button broken', title: 'not an http(s) link: a messenger would not open it' },
				button.name,
			);
	return h('li', {}, label, h('div', { class: 'button-url' }, button.url));
}

/** What the console played of each message (POST /sandbox/answer), by message id: kept across the chat's redraws. */
const plays = new Map();

const stepLine = (step) =>
	[
		step.method,
		step.status,
		step.control ? `[${step.control.hidden ? 'hidden: ' : ''}${step.control.text}]` : '',
		step.heading,
		step.text.length > 0 ? `· ${step.text[0]}` : '',
	]
		.filter((part) => part !== '')
		.join(' ');

/**
 * Plays a message's link buttons from the sandbox: as the subscriber (the chosen button, a text or form values, after
 * how long), as a link preview, or as a scanner that presses every control in order. Shows every request and answer.
 */
function playControls(message) {
	const shown = plays.get(message.id) ?? { open: false, text: '', ok: true };
	plays.set(message.id, shown);
	const result = h('pre', { class: `play-result ${shown.ok ? 'ok' : 'bad'}`, hidden: !shown.text }, shown.text);
	const show = (text, ok) => {
		Object.assign(shown, { text, ok });
		result.hidden = false;
		result.textContent = text;
		result.className = `play-result ${ok ? 'ok' : 'bad'}`;
	};
	const button = h(
		'select',
		{ 'aria-label': 'Button the subscriber taps' },
		message.buttons.map((candidate) => h('option', { value: candidate.name }, candidate.name)),
	);
	const typed = h('input', {
		type: 'text',
		'aria-label': 'Text the subscriber types, or form values as JSON',
		placeholder: 'Text, or form values as JSON: {"Label": "value"}',
	});
	const after = h('input', {
		type: 'number',
		min: 0,
		step: 0.1,
		'aria-label': 'Seconds on the page before pressing (empty: as soon as a press counts)',
		placeholder: 'seconds',
	});
	const run = (as) => async () => {
		const body = { botid: openChat.botid, clientid: openChat.clientid, message: message.id, as };
		if (as === 'subscriber') {
			body.button = button.value;
			const value = typed.value.trim();
			if (value.startsWith('{')) {
				try {
					body.fields = JSON.parse(value);
				} catch {
					return show('The form values are not JSON: write them as {"Label": "value", ...}', false);
				}
			} else if (value) body.text = typed.value;
			if (after.value !== '') body.afterMs = Math.round(Number(after.value) * 1000);
		}
		show(as === 'subscriber' ? 'Opening the link and answering…' : 'Opening every link…', true);
		try {
			const play = await control('/sandbox/answer', body);
			show(play.steps.map(stepLine).join('\n'), true);
		} catch (error) {
			show(error.message, false);
		}
	};
	return h(
		'details',
		{ class: 'play', open: shown.open, ontoggle: (event) => (shown.open = event.target.open) },
		h('summary', {}, 'Play this message'),
		h(
			'div',
			{ class: 'play-controls' },
			button,
			typed,
			after,
			h(
				'button',
				{ type: 'button', 'data-play': 'subscriber', onclick: run('subscriber') },
				'Answer as the subscriber',
			),
			h(
				'button',
				{ type: 'button', class: 'secondary', 'data-play': 'preview', onclick: run('preview') },
				'Link preview',
			),
			h(
				'button',
				{ type: 'button', class: 'secondary', 'data-play': 'scanner', onclick: run('scanner') },
				'Clicking scanner',
			),
		),
		result,
	);
}

function messageView(message) {
	return h(
		'li',
		{ class: `message ${message.direction}`, 'data-message': message.id },
		h(
			'div',
			{ class: 'from' },
			h('span', { class: 'sender' }, senderOf(message)),
			h('span', { class: 'muted' }, time(message.time)),
		),
		h('div', { class: 'text' }, message.text),
		message.buttons.length > 0 ? h('ul', { class: 'chat-buttons' }, message.buttons.map(chatButton)) : null,
		message.direction === 'out' && message.buttons.some((button) => isWebUrl(button.url))
			? playControls(message)
			: null,
	);
}

function chatListItem(row) {
	const last = row.last ? `${row.last.direction === 'in' ? 'Subscriber' : 'Bot'}: ${row.last.preview}` : 'no messages';
	const state = row.blocked ? ' · blocked' : row.active ? '' : ' · left';
	return h(
		'li',
		{ class: openChat && chatKey(openChat) === chatKey(row) ? 'selected' : '', 'data-subscriber': chatKey(row) },
		h(
			'button',
			{
				type: 'button',
				onclick: () => {
					openChat = { botid: row.botid, clientid: row.clientid };
					chatOffset = 0;
					refresh();
				},
			},
			h('span', { class: 'who' }, row.name || '(no name)'),
			h('span', { class: 'count' }, plural(row.messages, 'message')),
			h('span', { class: 'muted' }, `${row.botid} · ${row.clientid} · ${row.messenger}${state}`),
			h('span', { class: 'last' }, last),
		),
	);
}

/** The open chat: the card and a page of messages, or null when the subscriber is gone (deleted, or a reset). */
async function readOpenChat() {
	try {
		const [card, chat] = await Promise.all([
			call('/subscriber/get', openChat),
			call('/subscriber/chat/get', { ...openChat, limit: CHAT_PAGE, offset: chatOffset }),
		]);
		if (chat.items.length === 0 && chatOffset > 0) {
			chatOffset = lastPageOffset(chat.total, CHAT_PAGE);
			return readOpenChat();
		}
		return { subscriber: card.subscriber, chat };
	} catch (error) {
		if (error.code !== 'not_found') throw error;
		return null;
	}
}

async function loadChats() {
	const list = await request('GET', `/console/chats?limit=${CHAT_LIST_PAGE}&offset=${chatListOffset}`);
	if (list.items.length === 0 && chatListOffset > 0) {
		chatListOffset = lastPageOffset(list.total, CHAT_LIST_PAGE);
		return loadChats();
	}
	let open = openChat ? await readOpenChat() : null;
	if (!open && list.items.length > 0) {
		openChat = { botid: list.items[0].botid, clientid: list.items[0].clientid };
		chatOffset = 0;
		open = await readOpenChat();
	}
	if (!open) openChat = undefined;
	const shown = JSON.stringify({ list, open, chatListOffset, openChat });
	if (shown === chatsShown) return;
	chatsShown = shown;

	document.getElementById('chat-list-range').textContent =
		list.total === 0
			? ''
			: `${chatListOffset + 1}–${chatListOffset + list.items.length} of ${list.total}, the chat written to last first`;
	document
		.getElementById('chat-list')
		.replaceChildren(
			...(list.items.length > 0
				? list.items.map(chatListItem)
				: [h('li', { class: 'muted' }, 'No subscribers yet: create one on the Overview tab.')]),
		);
	pager('chat-list-pager', chatListOffset, CHAT_LIST_PAGE, list.total, (offset) => {
		chatListOffset = offset;
		refresh();
	});

	const title = document.getElementById('chat-title');
	const messages = document.getElementById('chat-messages');
	if (!open) {
		title.replaceChildren('Chat');
		document.getElementById('chat-range').textContent = '';
		document.getElementById('chat-pager').replaceChildren();
		messages.replaceChildren();
		return;
	}
	const { subscriber, chat } = open;
	title.replaceChildren(
		`Chat with ${subscriber.name || '(no name)'} `,
		h('span', { class: 'muted' }, `${subscriber.botid} · client id ${subscriber.clientid} · ${subscriber.messenger}`),
	);
	document.getElementById('chat-range').textContent =
		chat.total === 0
			? ''
			: `Messages ${chatOffset + 1}–${chatOffset + chat.items.length} of ${chat.total}, newest first, ${CHAT_PAGE} a page. A button opens its link in a new tab, as the subscriber's phone would.`;
	pager('chat-pager', chatOffset, CHAT_PAGE, chat.total, (offset) => {
		chatOffset = offset;
		refresh();
	});
	messages.replaceChildren(
		...(chat.items.length > 0
			? chat.items.map(messageView)
			: [
					h(
						'li',
						{ class: 'empty muted' },
						'No messages yet. What the bot sends this subscriber (Message → Send, Send and Wait for Response, broadcasts, chains) appears here, newest first.',
					),
				]),
	);
}

// ---- API log

async function loadLog() {
	const log = await call('/log/get', { limit: 100 });
	table(
		'log-table',
		['#', 'time', 'method', 'path', 'status', 'code', 'key', 'ms'],
		log.items.map((entry) =>
			h(
				'tr',
				{ class: entry.failed ? 'failed' : '' },
				h('td', {}, entry.id),
				h('td', {}, time(entry.time)),
				h('td', {}, entry.method),
				h('td', {}, h('code', {}, entry.path)),
				h('td', {}, entry.status),
				h('td', {}, entry.code ?? ''),
				h('td', {}, entry.keyId ?? ''),
				h('td', {}, entry.durationMs),
			),
		),
	);
}

// ---- hooks and deliveries

/** How an attempt was signed, read from the headers it sent. */
function signatureScheme(headers) {
	if (!headers) return 'not recorded';
	const schemes = [];
	const jwt = headers['x-signature'];
	if (jwt) {
		try {
			const header = JSON.parse(atob(jwt.split('.')[0].replace(/-/g, '+').replace(/_/g, '/')));
			schemes.push(`JWT ${header.alg} (kid ${header.kid})`);
		} catch {
			schemes.push('JWT (unreadable header)');
		}
	}
	if (headers['webhook-signature']) schemes.push(`Standard Webhooks ${headers['webhook-signature'].split(',')[0]}`);
	return schemes.join(' + ') || 'unsigned';
}

function attemptView(attempt) {
	const outcome = attempt.status === null ? attempt.error : `HTTP ${attempt.status}`;
	const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
	return h(
		'div',
		{ class: 'attempt' },
		h(
			'div',
			{},
			h('strong', {}, `Attempt ${attempt.n}`),
			' ',
			h('span', { class: ok ? 'ok' : 'bad' }, outcome),
			` · ${attempt.durationMs} ms · ${time(attempt.at)} · `,
			h('span', { class: 'scheme' }, signatureScheme(attempt.headers)),
		),
		attempt.headers
			? h(
					'details',
					{},
					h('summary', {}, 'headers sent'),
					h(
						'pre',
						{},
						Object.entries(attempt.headers)
							.map(([name, value]) => `${name}: ${value}`)
							.join('\n'),
					),
				)
			: null,
	);
}

function deliveryView(delivery) {
	return h(
		'div',
		{ class: 'delivery', 'data-delivery': delivery.id },
		h(
			'div',
			{ class: 'delivery-head' },
			h('span', { class: `pill ${statusClass(delivery.status)}` }, delivery.status),
			h('strong', {}, delivery.event.type),
			h('code', {}, delivery.event.id),
			h('span', { class: 'muted' }, `to ${delivery.hook}`),
			h(
				'span',
				{ class: 'muted' },
				delivery.outcome ?? (delivery.nextAttempt ? `next attempt ${time(delivery.nextAttempt)}` : ''),
			),
			h(
				'button',
				{
					class: 'secondary redeliver',
					onclick: async (event) => {
						event.target.disabled = true;
						try {
							await control('/sandbox/deliveries/redeliver', { id: delivery.id });
						} catch (error) {
							alert(error.message);
						}
						await loadHooks();
					},
				},
				'Send again',
			),
		),
		delivery.chaos?.length > 0
			? h('div', { class: 'chaos' }, h('span', { class: 'pill warn' }, 'chaos'), ' ', delivery.chaos.join(' · '))
			: null,
		h('details', {}, h('summary', {}, 'body'), h('pre', {}, JSON.stringify(delivery.event, null, 2))),
		delivery.attempts.map(attemptView),
	);
}

// ---- delivery chaos

const chaosForm = document.getElementById('form-chaos');
/** The form shows the settings in force until someone edits it; Apply or All off shows them again. */
let chaosEdited = false;

function showChaos(chaos) {
	chaosEdited = false;
	for (const [name, value] of Object.entries(chaos)) {
		if (chaosForm.elements[name]) chaosForm.elements[name].value = String(value);
	}
}

async function applyChaos(settings) {
	const result = document.getElementById('chaos-result');
	try {
		const { chaos } = await control('/sandbox/chaos', settings);
		showChaos(chaos);
		const on = ['duplicate', 'reorder', 'delay', 'cut', 'slow'].filter((name) => chaos[name] > 0);
		result.textContent =
			on.length > 0 ? `Chaos on: ${on.map((name) => `${name} ${chaos[name]}`).join(', ')}` : 'Chaos off';
		result.className = 'result ok';
	} catch (error) {
		result.textContent = error.message;
		result.className = 'result bad';
	}
}

chaosForm.addEventListener('input', () => (chaosEdited = true));
chaosForm.addEventListener('submit', async (event) => {
	event.preventDefault();
	const fields = Object.entries(Object.fromEntries(new FormData(chaosForm).entries())).filter(
		([, value]) => value !== '',
	);
	await applyChaos(Object.fromEntries(fields.map(([name, value]) => [name, Number(value)])));
});
document.getElementById('chaos-off').addEventListener('click', () => applyChaos({}));

async function loadHooks() {
	const [hooks, deliveries, chaos] = await Promise.all([
		call('/hook/list', { limit: 100 }),
		control('/sandbox/deliveries', { limit: 30 }),
		request('GET', '/sandbox/chaos'),
	]);
	if (!chaosEdited) showChaos(chaos.chaos);
	const secrets = new Map((overview?.hooks ?? []).map((hook) => [hook.id, hook.secret]));
	table(
		'hooks-table',
		['id', 'name', 'url', 'events', 'secret', 'delivered', 'failed', 'pending', 'state'],
		hooks.items.map((hook) =>
			h(
				'tr',
				{},
				h('td', {}, h('code', {}, hook.id)),
				h('td', {}, hook.name),
				h('td', {}, h('code', {}, hook.url)),
				h('td', {}, hook.events.join(', ')),
				h('td', {}, h('code', {}, secrets.get(hook.id) ?? '(masked)')),
				h('td', {}, hook.deliveries.delivered),
				h('td', {}, hook.deliveries.failed),
				h('td', {}, hook.deliveries.pending),
				h('td', {}, hook.disabled ? `disabled: ${hook.disabledReason}` : 'enabled'),
			),
		),
	);
	const container = document.getElementById('deliveries');
	// Keep open <details> open across refreshes: each is known by its delivery and its place in it.
	const detailsKey = (element) => {
		const card = element.closest('[data-delivery]');
		return `${card.dataset.delivery}:${[...card.querySelectorAll('details')].indexOf(element)}`;
	};
	const open = new Set([...container.querySelectorAll('details[open]')].map(detailsKey));
	container.replaceChildren(
		...(deliveries.items.length > 0
			? deliveries.items.map(deliveryView)
			: [h('p', { class: 'muted' }, 'No deliveries yet: create a hook with /hook/create and cause an event.')]),
	);
	for (const element of container.querySelectorAll('details')) {
		if (open.has(detailsKey(element))) element.open = true;
	}
}

// ---- tabs and refresh

const loaders = { overview: loadOverview, data: loadData, chats: loadChats, log: loadLog, hooks: loadHooks };
let currentTab = 'overview';
let refreshing = false;
/** A refresh asked for while one runs (a click on a chat): it runs once that one ends. */
let refreshAgain = false;

async function refresh() {
	if (refreshing) {
		refreshAgain = true;
		return;
	}
	refreshing = true;
	try {
		do {
			refreshAgain = false;
			if (currentTab !== 'overview') await loadOverview();
			await loaders[currentTab]();
			document.body.dataset.loaded = currentTab;
		} while (refreshAgain);
	} catch (error) {
		showResult(error.message, false);
	} finally {
		refreshing = false;
	}
}

function showTab() {
	currentTab = location.hash.slice(1) in loaders ? location.hash.slice(1) : 'overview';
	for (const section of document.querySelectorAll('.tab'))
		section.classList.toggle('active', section.id === currentTab);
	for (const link of document.querySelectorAll('#tabs a'))
		link.classList.toggle('active', link.dataset.tab === currentTab);
	delete document.body.dataset.loaded;
	refresh();
}

window.addEventListener('hashchange', showTab);
await loadOverview();
await loadChoices();
showTab();
// The log, deliveries and clock change on their own: the open tab is read again every second.
setInterval(() => {
	if (currentTab !== 'data') refresh();
}, REFRESH_MS);
