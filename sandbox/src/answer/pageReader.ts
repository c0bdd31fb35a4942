/**
 * Reads an HTML page as a browser shows it to the person, as far as answering a question needs: the title and
 * heading, the text of its paragraphs, and its forms with their controls, submit buttons and labels. It reads the
 * plain HTML that answer pages are (no script runs); a form inside an `aria-hidden` element is marked hidden: a
 * person neither sees nor reaches it, a program that presses every control does.
 */

export interface SelectOption {
	value: string;
	text: string;
	selected: boolean;
}

export interface FormControl {
	kind: 'input' | 'textarea' | 'select';
	name: string;
	/** An input's type (`text` when it has none); `textarea` or `select` for those. */
	type: string;
	value: string;
	id?: string;
	required: boolean;
	options: SelectOption[];
}

export interface SubmitButton {
	text: string;
	name?: string;
	value?: string;
}

export interface PageForm {
	method: string;
	/** The form's `action` as written; empty: the page's own address. */
	action: string;
	enctype: string;
	/** Inside an element marked `aria-hidden="true"`: no person sees or reaches it. */
	hidden: boolean;
	/** The page's `data-not-before` (epoch ms): the earliest time a confirmation counts, when the page says. */
	notBefore?: number;
	controls: FormControl[];
	submits: SubmitButton[];
}

export interface ReadPage {
	title: string;
	heading: string;
	paragraphs: string[];
	forms: PageForm[];
	/** A label's text by the id of the control it is for. */
	labels: Map<string, string>;
}

const VOID_ELEMENTS = new Set([
	'area',
	'base',
	'br',
	'col',
	'embed',
	'hr',
	'img',
	'input',
	'link',
	'meta',
	'source',
	'wbr',
]);
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title']);
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<!--[\s\S]*?-->|<![^>]*>/g;
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** The text an HTML text or attribute value stands for. */
export function decodeEntities(text: string): string {
	return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, entity: string) => {
		if (entity[0] === '#') {
			const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1));
			return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
		}
		return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
	});
}

function attributesOf(source: string): Map<string, string> {
	const attributes = new Map<string, string>();
	for (const match of source.matchAll(ATTRIBUTE)) {
		const name = match[1].toLowerCase();
		if (!attributes.has(name)) attributes.set(name, decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''));
	}
	return attributes;
}

/** Text as a browser shows it: every run of white space one space, none at the ends. */
export const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

interface OpenElement {
	name: string;
	hidden: boolean;
}

/** Reads a page; text outside any recognised element is ignored. */
export function readPage(html: string): ReadPage {
	const page: ReadPage = { title: '', heading: '', paragraphs: [], forms: [], labels: new Map() };
	const open: OpenElement[] = [];
	let form: PageForm | undefined;
	let select: FormControl | undefined;
	let option: { attributes: Map<string, string>; text: string } | undefined;
	let button: { attributes: Map<string, string>; text: string } | undefined;
	let label: { for?: string; text: string } | undefined;
	let paragraph: string | undefined;
	let heading: string | undefined;
	let at = 0;

	const hidden = () => open.some((element) => element.hidden);
	const text = (value: string) => {
		const decoded = decodeEntities(value);
		if (option) option.text += decoded;
		if (button) button.text += decoded;
		if (label) label.text += decoded;
		if (paragraph !== undefined) paragraph += decoded;
		if (heading !== undefined) heading += decoded;
	};
	const closeOption = () => {
		if (!option || !select) return;
		const optionText = collapse(option.text);
		select.options.push({
			value: option.attributes.get('value') ?? optionText,
			text: optionText,
			selected: option.attributes.has('selected'),
		});
		option = undefined;
	};

	TAG.lastIndex = 0;
	for (let match = TAG.exec(html); match; match = TAG.exec(html)) {
		text(html.slice(at, match.index));
		at = TAG.lastIndex;
		if (!match[2]) continue;
		const closing = match[1] === '/';
		const name = match[2].toLowerCase();
		if (closing) {
			const index = open.map((element) => element.name).lastIndexOf(name);
			if (index >= 0) open.length = index;
			if (name === 'option') closeOption();
			else if (name === 'select') {
				closeOption();
				if (select && form) {
					const chosen = select.options.find((candidate) => candidate.selected) ?? select.options[0];
					select.value = chosen?.value ?? '';
					form.controls.push(select);
				}
				select = undefined;
			} else if (name === 'button' && button) {
				if ((button.attributes.get('type') ?? 'submit').toLowerCase() === 'submit' && form)
					form.submits.push({
						text: collapse(button.text),
						name: button.attributes.get('name'),
						value: button.attributes.get('value'),
					});
				button = undefined;
			} else if (name === 'label' && label) {
				if (label.for) page.labels.set(label.for, collapse(label.text));
				label = undefined;
			} else if (name === 'p' && paragraph !== undefined) {
				if (collapse(paragraph)) page.paragraphs.push(collapse(paragraph));
				paragraph = undefined;
			} else if (name === 'h1' && heading !== undefined) {
				page.heading ||= collapse(heading);
				heading = undefined;
			} else if (name === 'form') form = undefined;
			continue;
		}
		const attributes = attributesOf(match[3]);
		if (RAW_TEXT_ELEMENTS.has(name)) {
			const end = html.toLowerCase().indexOf(`</${name}`, at);
			const raw = html.slice(at, end < 0 ? html.length : end);
			at = end < 0 ? html.length : html.indexOf('>', end) + 1 || html.length;
			TAG.lastIndex = at;
			if (name === 'title') page.title = collapse(decodeEntities(raw));
			if (name === 'textarea' && form)
				form.controls.push({
					kind: 'textarea',
					name: attributes.get('name') ?? '',
					type: 'textarea',
					// A browser drops the one line break that may follow the opening tag.
					value: decodeEntities(raw.replace(/^\r?\n/, '')),
					id: attributes.get('id'),
					required: attributes.has('required'),
					options: [],
				});
			continue;
		}
		if (!VOID_ELEMENTS.has(name) && !match[3].trimEnd().endsWith('/'))
			open.push({ name, hidden: attributes.get('aria-hidden') === 'true' });
		if (name === 'form') {
			const notBefore = Number(attributes.get('data-not-before'));
			form = {
				method: (attributes.get('method') ?? 'get').toUpperCase(),
				action: attributes.get('action') ?? '',
				enctype: attributes.get('enctype') ?? 'application/x-www-form-urlencoded',
				hidden: hidden(),
				notBefore: Number.isFinite(notBefore) && notBefore > 0 ? notBefore : undefined,
				controls: [],
				submits: [],
			};
			page.forms.push(form);
		} else if (name === 'input' && form) {
			const type = (attributes.get('type') ?? 'text').toLowerCase();
			if (type === 'submit')
				form.submits.push({
					text: attributes.get('value') ?? 'Submit',
					name: attributes.get('name'),
					value: attributes.get('value'),
				});
			else if (!['button', 'reset', 'image', 'file'].includes(type))
				form.controls.push({
					kind: 'input',
					name: attributes.get('name') ?? '',
					type,
					value: attributes.get('value') ?? '',
					id: attributes.get('id'),
					required: attributes.has('required'),
					options: [],
				});
		} else if (name === 'select') {
			select = {
				kind: 'select',
				name: attributes.get('name') ?? '',
				type: 'select',
				value: '',
				id: attributes.get('id'),
				required: attributes.has('required'),
				options: [],
			};
		} else if (name === 'option') {
			closeOption();
			option = { attributes, text: '' };
		} else if (name === 'button') button = { attributes, text: '' };
		else if (name === 'label') label = { for: attributes.get('for'), text: '' };
		else if (name === 'p') paragraph = '';
		else if (name === 'h1') heading = '';
	}
	text(html.slice(at));
	return page;
}
